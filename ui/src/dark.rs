//! Dark mode, without any UI dependency so the app can call it directly.
//!
//! Three layers, cheapest-truthful first:
//!
//! 1. **Tell the truth.** `prefers-color-scheme` reports the human's real
//!    preference ([`emulated_media_call`]), so sites with their own dark
//!    theme use it. This is global, not per-site: lying to one site about
//!    the preference would only make its own theme fight the other layers.
//! 2. **Chromium force-dark** per tab ([`auto_dark_override_call`]). It
//!    runs on the layout tree in the compositor, so it costs nothing per
//!    frame, and DevTools is the only per-tab switch (the Blink setting is
//!    process-wide).
//! 3. **Filter inversion** ([`filter_css`]) as the fallback where force-dark
//!    isn't available, and for brightness/contrast, which force-dark doesn't
//!    expose at runtime.
//!
//! Which of them a tab gets is [`plan`]'s decision from the per-site
//! [`ThemeMode`] (kept in [`SitePolicies`], persisted with the settings) and,
//! for `Auto`, the page's measured [`mean_luminance`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Per-site dark-mode policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeMode {
    /// Darken light pages when the human prefers dark; leave dark pages be.
    #[default]
    Auto,
    /// Always darken.
    On,
    /// Never darken.
    Off,
}

impl ThemeMode {
    /// All modes, in menu order.
    pub const ALL: [ThemeMode; 3] = [ThemeMode::Auto, ThemeMode::On, ThemeMode::Off];

    /// Short human label.
    pub fn label(self) -> &'static str {
        match self {
            ThemeMode::Auto => "Auto",
            ThemeMode::On => "On",
            ThemeMode::Off => "Off",
        }
    }
}

/// A colour-scheme preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorScheme {
    /// Light.
    #[default]
    Light,
    /// Dark.
    Dark,
}

/// Site key a policy is stored under: the URL's lower-cased host without a
/// leading `www.` (so the two usual spellings of a site share a policy).
/// `file:` URLs share the key `"file"`; URLs without a host (`about:`,
/// `data:`) have no site and return `None`.
pub fn site_key(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once(':')?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme == "file" {
        return Some("file".to_string());
    }
    let rest = rest.strip_prefix("//")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if hostport.starts_with('[') {
        hostport.split_inclusive(']').next().unwrap_or(hostport)
    } else {
        hostport.split(':').next().unwrap_or(hostport)
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    (!host.is_empty()).then(|| host.to_string())
}

/// The human's light/dark preference as the desktop reports it, for
/// layer 1, when the windowing layer doesn't say (winit on X11 doesn't).
///
/// In order: `APERTURE_COLOR_SCHEME=dark|light` (tests, overrides), GNOME's
/// `color-scheme` setting via `gsettings` (what the freedesktop portal
/// reports on GNOME), then a `:dark` GTK theme variant in `GTK_THEME`.
/// `None` if nothing says; callers then assume light, the web's default.
pub fn detect_system_scheme() -> Option<ColorScheme> {
    if let Ok(v) = std::env::var("APERTURE_COLOR_SCHEME") {
        return parse_scheme(&v);
    }
    let gsettings = std::process::Command::new("gsettings")
        .args(["get", "org.gnome.desktop.interface", "color-scheme"])
        .stderr(std::process::Stdio::null())
        .output();
    if let Ok(out) = gsettings
        && out.status.success()
        && let Some(s) = parse_scheme(&String::from_utf8_lossy(&out.stdout))
    {
        return Some(s);
    }
    std::env::var("GTK_THEME").ok().and_then(|t| {
        t.to_ascii_lowercase()
            .ends_with(":dark")
            .then_some(ColorScheme::Dark)
    })
}

/// `dark` / `'prefer-dark'` → Dark, `light` / `'prefer-light'` / `'default'` → Light.
fn parse_scheme(s: &str) -> Option<ColorScheme> {
    match s.trim().trim_matches('\'').to_ascii_lowercase().as_str() {
        "dark" | "prefer-dark" => Some(ColorScheme::Dark),
        "light" | "prefer-light" | "default" => Some(ColorScheme::Light),
        _ => None,
    }
}

/// Per-site policies plus the default for unlisted sites.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SitePolicies {
    /// Policy for sites without an entry.
    pub default: ThemeMode,
    /// Explicit per-site choices, keyed by [`site_key`]. A `BTreeMap` so the
    /// settings file diffs stably.
    pub sites: BTreeMap<String, ThemeMode>,
}

impl SitePolicies {
    /// Policy for a site key.
    pub fn mode_for_site(&self, site: &str) -> ThemeMode {
        self.sites.get(site).copied().unwrap_or(self.default)
    }

    /// Policy for a URL (the default for URLs without a site).
    pub fn mode_for_url(&self, url: &str) -> ThemeMode {
        site_key(url).map_or(self.default, |s| self.mode_for_site(&s))
    }

    /// Record a choice. Choosing the default removes the entry, so the file
    /// only lists real exceptions.
    pub fn set(&mut self, site: &str, mode: ThemeMode) {
        if mode == self.default {
            self.sites.remove(site);
        } else {
            self.sites.insert(site.to_string(), mode);
        }
    }
}

/// Mean luminance below which a page counts as already dark, on the 0..1
/// scale of [`mean_luminance`]. White pages measure ~0.95, typical dark
/// themes 0.05–0.2; 0.4 leaves room for a dark page with bright imagery
/// while catching mid-grey "light" themes as light.
pub const DARK_PAGE_THRESHOLD: f32 = 0.4;

/// Upper bound on sampled pixels: the mean of a regular grid this dense is
/// within noise of the full mean and keeps a 4K frame well under a
/// millisecond.
const MAX_SAMPLES: usize = 1 << 16;

/// Mean Rec. 709 luma of a BGRA buffer (as CEF paints it), 0 = black,
/// 1 = white, measured on the gamma-encoded values because "looks dark" is
/// perceptual. Transparent pixels count as white, which is what Chromium
/// shows behind a page without a background. `None` for an empty buffer.
///
/// Measure the page *before* any darkening is applied; a darkened page
/// always measures dark, and deciding from that would flip `Auto` back and
/// forth.
pub fn mean_luminance(bgra: &[u8]) -> Option<f32> {
    let pixels = bgra.len() / 4;
    if pixels == 0 {
        return None;
    }
    let step = pixels.div_ceil(MAX_SAMPLES).max(1);
    let mut sum = 0.0f64;
    let mut n = 0u32;
    for px in bgra.chunks_exact(4).step_by(step) {
        let (b, g, r, a) = (px[0] as f64, px[1] as f64, px[2] as f64, px[3] as f64);
        // Premultiplied: composite over white.
        let over_white = |c: f64| c + (255.0 - a);
        let y = 0.2126 * over_white(r) + 0.7152 * over_white(g) + 0.0722 * over_white(b);
        sum += y / 255.0;
        n += 1;
    }
    Some((sum / n as f64) as f32)
}

/// Whether a measured page is already dark.
pub fn is_already_dark(luminance: f32) -> bool {
    luminance < DARK_PAGE_THRESHOLD
}

/// Layer-3 options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FilterOptions {
    /// CSS `brightness()` factor on the page; 1 = unchanged.
    pub brightness: f32,
    /// CSS `contrast()` factor on the page; 1 = unchanged.
    pub contrast: f32,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            brightness: 1.0,
            contrast: 1.0,
        }
    }
}

impl FilterOptions {
    /// Whether brightness or contrast differ from neutral.
    pub fn adjusts(&self) -> bool {
        (self.brightness - 1.0).abs() > 1e-3 || (self.contrast - 1.0).abs() > 1e-3
    }
}

/// What to do for one tab.
#[derive(Debug, Clone, PartialEq)]
pub enum DarkPlan {
    /// `Auto` needs a measurement of the undarkened page first.
    NeedsMeasurement,
    /// Apply these.
    Apply {
        /// Layer 2: `Emulation.setAutoDarkModeOverride` enabled.
        force_dark: bool,
        /// Layer 3: stylesheet to inject, if any.
        css: Option<String>,
    },
}

impl DarkPlan {
    /// What the app sends to realise the plan, each replacing whatever an
    /// earlier plan installed on the tab: the layer-2 DevTools call (clearing
    /// the override when force-dark is off) and the layer-3 script (removing
    /// the stylesheet when there is none). `None` while a measurement is due.
    pub fn actions(&self) -> Option<(CdpCall, String)> {
        match self {
            DarkPlan::NeedsMeasurement => None,
            DarkPlan::Apply { force_dark, css } => Some((
                auto_dark_override_call(force_dark.then_some(true)),
                filter_install_js(css.as_deref()),
            )),
        }
    }
}

/// Decide the layers for a tab.
///
/// * `mode`: the site's policy.
/// * `human`: the human's real preference (layer 1 is applied regardless).
/// * `measured`: [`mean_luminance`] of the page without darkening, once
///   known. Latch the resulting decision per document; don't re-measure a
///   page this already darkened.
/// * `force_dark_available`: whether layer 2 took effect (set it `false` if
///   `Emulation.setAutoDarkModeOverride` failed).
pub fn plan(
    mode: ThemeMode,
    human: ColorScheme,
    measured: Option<f32>,
    force_dark_available: bool,
    options: &FilterOptions,
) -> DarkPlan {
    let already_dark = measured.map(is_already_dark);
    let darken = match mode {
        ThemeMode::Off => false,
        ThemeMode::On => true,
        ThemeMode::Auto => {
            if human == ColorScheme::Light {
                false
            } else {
                match already_dark {
                    None => return DarkPlan::NeedsMeasurement,
                    Some(dark) => !dark,
                }
            }
        }
    };
    let force_dark = darken && force_dark_available;
    // Force-dark leaves dark pages alone by itself; inversion would turn a
    // dark page light, so the filter only inverts pages not known to be dark.
    let invert = darken && !force_dark && already_dark != Some(true);
    // Brightness/contrast belong to darkening ("all darkened pages"), so a
    // page left alone is left entirely alone.
    let css = (darken && (invert || options.adjusts())).then(|| {
        filter_css(&FilterCss {
            invert,
            brightness: options.brightness,
            contrast: options.contrast,
        })
    });
    DarkPlan::Apply { force_dark, css }
}

/// Input to [`filter_css`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FilterCss {
    /// Invert the page (with counter-inversion of media).
    pub invert: bool,
    /// `brightness()` factor.
    pub brightness: f32,
    /// `contrast()` factor.
    pub contrast: f32,
}

/// Attribute that [`MARK_BACKGROUND_IMAGES_JS`] sets on elements whose
/// *computed* style has a background image, which CSS can't select by.
pub const BACKGROUND_IMAGE_MARKER: &str = "data-aperture-bgimg";

/// Id of the `<style>` element [`filter_install_js`] manages.
pub const FILTER_STYLE_ID: &str = "aperture-dark-filter";

/// Elements that carry photographic content and must look normal on an
/// inverted page, so they get inverted a second time.
fn counter_selectors() -> Vec<String> {
    let mut s: Vec<String> = [
        "img",
        "video",
        "picture",
        "canvas",
        "embed",
        "object",
        "svg image",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Inline background images are visible to CSS; stylesheet ones only via
    // the marker attribute.
    s.push("[style*=\"url(\"]".to_string());
    s.push(format!("[{BACKGROUND_IMAGE_MARKER}]"));
    s
}

/// The layer-3 stylesheet.
///
/// The root gets `invert(1) hue-rotate(180deg)` (hue-rotate brings hues back
/// so brand colours stay recognisable) plus brightness/contrast. Media
/// elements get the same inversion again to cancel it. The nesting guard
/// then resets any media element *inside* another counter-inverted one —
/// e.g. the `<img>` in a `<picture>`, or a photo in a background-image hero —
/// because its ancestor already restored it and a third inversion would show
/// it as a negative. The guard wins by specificity (two `:is()` compounds
/// against one), both being `!important`.
///
/// The filter sits on the root element because that is the one element where
/// a filter does not become the containing block of `position: fixed`
/// descendants, so fixed headers keep working.
pub fn filter_css(opts: &FilterCss) -> String {
    let mut root = Vec::new();
    if opts.invert {
        root.push("invert(1)".to_string());
        root.push("hue-rotate(180deg)".to_string());
    }
    if (opts.brightness - 1.0).abs() > 1e-3 {
        root.push(format!("brightness({})", fmt_num(opts.brightness)));
    }
    if (opts.contrast - 1.0).abs() > 1e-3 {
        root.push(format!("contrast({})", fmt_num(opts.contrast)));
    }
    let mut css = String::from("/* aperture dark-mode filter (layer 3) */\n");
    if root.is_empty() {
        return css;
    }
    css.push_str(&format!("html {{ filter: {} !important; }}\n", root.join(" ")));
    if opts.invert {
        // A page without a root background shows the canvas, which the filter
        // doesn't reach; give the root white (inverted: black) with zero
        // specificity so any page-set root background still wins.
        css.push_str(":where(html) { background-color: #fff; min-height: 100%; }\n");
        let set = counter_selectors().join(", ");
        css.push_str(&format!(
            ":is({set}) {{ filter: invert(1) hue-rotate(180deg) !important; }}\n"
        ));
        css.push_str(&format!(":is({set}) :is({set}) {{ filter: none !important; }}\n"));
    }
    css
}

/// Format a factor without float noise (`0.9`, not `0.8999999761581421`).
fn fmt_num(v: f32) -> String {
    let s = format!("{:.3}", v.clamp(0.0, 10.0));
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// JavaScript that installs `css` as the layer-3 stylesheet, replacing an
/// earlier one, or removes it for `None`. Idempotent, so the app can run it
/// on every load (or register it with `Page.addScriptToEvaluateOnNewDocument`
/// — it falls back to `documentElement` before `<head>` exists).
pub fn filter_install_js(css: Option<&str>) -> String {
    let css = match css {
        Some(c) => Value::String(c.to_string()).to_string(),
        None => "null".to_string(),
    };
    let id = Value::String(FILTER_STYLE_ID.to_string()).to_string();
    format!(
        "(() => {{ const css = {css}; const id = {id}; \
         let s = document.getElementById(id); \
         if (css === null) {{ if (s) s.remove(); return; }} \
         if (!s) {{ s = document.createElement('style'); s.id = id; \
         (document.head || document.documentElement).appendChild(s); }} \
         if (s.textContent !== css) s.textContent = css; }})();"
    )
}

/// JavaScript that marks elements whose computed style has a `url(...)`
/// background image with [`BACKGROUND_IMAGE_MARKER`], so the counter-inversion
/// reaches them. Capped at 5000 elements because `getComputedStyle` per
/// element is the expensive part; run it after load.
pub const MARK_BACKGROUND_IMAGES_JS: &str = "(() => { let n = 0; \
for (const el of document.querySelectorAll('body *')) { if (++n > 5000) break; \
const bg = getComputedStyle(el).backgroundImage; \
if (bg && bg.includes('url(')) el.setAttribute('data-aperture-bgimg', ''); } })();";

/// A DevTools protocol call for the app to send to a tab's target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdpCall {
    /// Method name.
    pub method: &'static str,
    /// Params object.
    pub params: Value,
}

/// Layer 1: make `prefers-color-scheme` report `human` in a tab.
///
/// `setEmulatedMedia` replaces every emulated feature at once, so if the app
/// emulates other media features it must merge them into this call.
pub fn emulated_media_call(human: ColorScheme) -> CdpCall {
    let value = match human {
        ColorScheme::Light => "light",
        ColorScheme::Dark => "dark",
    };
    CdpCall {
        method: "Emulation.setEmulatedMedia",
        params: json!({ "features": [{ "name": "prefers-color-scheme", "value": value }] }),
    }
}

/// Layer 2: turn Chromium force-dark on or off for a tab. `None` clears the
/// override (the protocol treats a missing `enabled` as "no override").
pub fn auto_dark_override_call(enabled: Option<bool>) -> CdpCall {
    CdpCall {
        method: "Emulation.setAutoDarkModeOverride",
        params: match enabled {
            Some(e) => json!({ "enabled": e }),
            None => json!({}),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(b: u8, g: u8, r: u8, a: u8, n: usize) -> Vec<u8> {
        [b, g, r, a].repeat(n)
    }

    #[test]
    fn luminance_of_solid_frames() {
        assert!((mean_luminance(&solid(255, 255, 255, 255, 100)).unwrap() - 1.0).abs() < 1e-4);
        assert!(mean_luminance(&solid(0, 0, 0, 255, 100)).unwrap() < 1e-4);
        // Pure green weighs most, pure blue least: proves channel order is BGRA.
        let green = mean_luminance(&solid(0, 255, 0, 255, 10)).unwrap();
        let blue = mean_luminance(&solid(255, 0, 0, 255, 10)).unwrap();
        let red = mean_luminance(&solid(0, 0, 255, 255, 10)).unwrap();
        assert!((green - 0.7152).abs() < 1e-3);
        assert!((blue - 0.0722).abs() < 1e-3);
        assert!((red - 0.2126).abs() < 1e-3);
        // Transparent premultiplied black is white behind the page.
        assert!((mean_luminance(&solid(0, 0, 0, 0, 10)).unwrap() - 1.0).abs() < 1e-4);
        assert_eq!(mean_luminance(&[]), None);
    }

    #[test]
    fn luminance_samples_large_frames_accurately() {
        // Left half white, right half black, 1920x1080: mean 0.5 despite sampling.
        let (w, h) = (1920usize, 1080usize);
        let mut buf = Vec::with_capacity(w * h * 4);
        for _y in 0..h {
            for x in 0..w {
                let v = if x < w / 2 { 255 } else { 0 };
                buf.extend_from_slice(&[v, v, v, 255]);
            }
        }
        let l = mean_luminance(&buf).unwrap();
        assert!((l - 0.5).abs() < 0.02, "{l}");
    }

    #[test]
    fn threshold_classifies_typical_pages() {
        // GitHub dark background #0d1117 with 10% light text pixels.
        let mut page = solid(0x17, 0x11, 0x0d, 255, 900);
        page.extend(solid(0xe6, 0xed, 0xf3, 255, 100));
        assert!(is_already_dark(mean_luminance(&page).unwrap()));
        // White page with 10% black text.
        let mut page = solid(255, 255, 255, 255, 900);
        page.extend(solid(0, 0, 0, 255, 100));
        assert!(!is_already_dark(mean_luminance(&page).unwrap()));
    }

    #[test]
    fn auto_leaves_dark_pages_alone_and_darkens_light_ones() {
        let o = FilterOptions::default();
        assert_eq!(
            plan(ThemeMode::Auto, ColorScheme::Dark, None, true, &o),
            DarkPlan::NeedsMeasurement
        );
        assert_eq!(
            plan(ThemeMode::Auto, ColorScheme::Dark, Some(0.1), true, &o),
            DarkPlan::Apply {
                force_dark: false,
                css: None
            }
        );
        assert_eq!(
            plan(ThemeMode::Auto, ColorScheme::Dark, Some(0.9), true, &o),
            DarkPlan::Apply {
                force_dark: true,
                css: None
            }
        );
        // A human who prefers light gets nothing from Auto, measured or not.
        assert_eq!(
            plan(ThemeMode::Auto, ColorScheme::Light, None, true, &o),
            DarkPlan::Apply {
                force_dark: false,
                css: None
            }
        );
    }

    #[test]
    fn on_and_off() {
        let o = FilterOptions::default();
        assert_eq!(
            plan(ThemeMode::On, ColorScheme::Light, None, true, &o),
            DarkPlan::Apply {
                force_dark: true,
                css: None
            }
        );
        assert_eq!(
            plan(ThemeMode::Off, ColorScheme::Dark, Some(0.9), true, &o),
            DarkPlan::Apply {
                force_dark: false,
                css: None
            }
        );
    }

    #[test]
    fn filter_fallback_when_force_dark_unavailable() {
        let o = FilterOptions::default();
        let DarkPlan::Apply { force_dark, css } =
            plan(ThemeMode::On, ColorScheme::Light, Some(0.9), false, &o)
        else {
            panic!()
        };
        assert!(!force_dark);
        assert!(css.unwrap().contains("invert(1) hue-rotate(180deg)"));
        // Inverting a page known to be dark would make it light.
        assert_eq!(
            plan(ThemeMode::On, ColorScheme::Light, Some(0.1), false, &o),
            DarkPlan::Apply {
                force_dark: false,
                css: None
            }
        );
    }

    #[test]
    fn brightness_without_inversion() {
        let o = FilterOptions {
            brightness: 0.8,
            contrast: 1.1,
        };
        let DarkPlan::Apply { force_dark, css } = plan(ThemeMode::On, ColorScheme::Dark, None, true, &o)
        else {
            panic!()
        };
        assert!(force_dark);
        let css = css.unwrap();
        assert!(
            css.contains("html { filter: brightness(0.8) contrast(1.1) !important; }"),
            "{css}"
        );
        assert!(!css.contains("invert"));
    }

    #[test]
    fn plan_actions() {
        assert_eq!(DarkPlan::NeedsMeasurement.actions(), None);
        let (call, js) = DarkPlan::Apply {
            force_dark: true,
            css: None,
        }
        .actions()
        .unwrap();
        assert_eq!(call.params, json!({"enabled": true}));
        assert!(js.contains("const css = null"));
        let (call, js) = DarkPlan::Apply {
            force_dark: false,
            css: Some("x{}".into()),
        }
        .actions()
        .unwrap();
        assert_eq!(call.params, json!({}), "not forcing clears an earlier override");
        assert!(js.contains(r#"const css = "x{}""#));
    }

    #[test]
    fn pages_left_alone_get_no_brightness_either() {
        let o = FilterOptions {
            brightness: 0.8,
            contrast: 1.0,
        };
        assert_eq!(
            plan(ThemeMode::Off, ColorScheme::Dark, Some(0.9), false, &o),
            DarkPlan::Apply {
                force_dark: false,
                css: None
            }
        );
        assert_eq!(
            plan(ThemeMode::Auto, ColorScheme::Dark, Some(0.1), false, &o),
            DarkPlan::Apply {
                force_dark: false,
                css: None
            }
        );
    }

    #[test]
    fn filter_css_has_counter_inversion_and_nesting_guard() {
        let css = filter_css(&FilterCss {
            invert: true,
            brightness: 0.9,
            contrast: 1.0,
        });
        assert!(css.contains("html { filter: invert(1) hue-rotate(180deg) brightness(0.9) !important; }"));
        let counter = css
            .lines()
            .find(|l| l.starts_with(":is(") && l.contains("invert(1)"))
            .unwrap();
        for sel in [
            "img",
            "video",
            "picture",
            "canvas",
            "svg image",
            "[style*=\"url(\"]",
            "[data-aperture-bgimg]",
        ] {
            assert!(counter.contains(sel), "{sel} missing from {counter}");
        }
        let set = counter.split_once(')').unwrap().0.trim_start_matches(":is(");
        let guard = format!(":is({set}) :is({set}) {{ filter: none !important; }}");
        assert!(css.contains(&guard), "nesting guard missing:\n{css}");
    }

    #[test]
    fn neutral_filter_is_empty() {
        let css = filter_css(&FilterCss {
            invert: false,
            brightness: 1.0,
            contrast: 1.0,
        });
        assert!(!css.contains('{'));
    }

    #[test]
    fn install_js_escapes_css() {
        let js = filter_install_js(Some("a { content: \"</style>\\\" }"));
        assert!(
            js.contains(r#"const css = "a { content: \"</style>\\\" }""#),
            "{js}"
        );
        assert!(filter_install_js(None).contains("const css = null"));
    }

    #[test]
    fn cdp_calls() {
        let c = emulated_media_call(ColorScheme::Dark);
        assert_eq!(c.method, "Emulation.setEmulatedMedia");
        assert_eq!(
            c.params,
            json!({"features":[{"name":"prefers-color-scheme","value":"dark"}]})
        );
        assert_eq!(
            emulated_media_call(ColorScheme::Light).params["features"][0]["value"],
            "light"
        );
        let c = auto_dark_override_call(Some(true));
        assert_eq!(c.method, "Emulation.setAutoDarkModeOverride");
        assert_eq!(c.params, json!({"enabled": true}));
        assert_eq!(auto_dark_override_call(None).params, json!({}));
    }

    #[test]
    fn scheme_parsing() {
        assert_eq!(parse_scheme("'prefer-dark'\n"), Some(ColorScheme::Dark));
        assert_eq!(parse_scheme("'default'"), Some(ColorScheme::Light));
        assert_eq!(parse_scheme("Dark"), Some(ColorScheme::Dark));
        assert_eq!(parse_scheme("sepia"), None);
    }

    #[test]
    fn site_keys() {
        assert_eq!(
            site_key("https://www.Example.com/a").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            site_key("http://user:pw@news.example.com:8080/?q").as_deref(),
            Some("news.example.com")
        );
        assert_eq!(site_key("http://[::1]:8000/").as_deref(), Some("[::1]"));
        assert_eq!(site_key("file:///tmp/x.html").as_deref(), Some("file"));
        assert_eq!(site_key("about:blank"), None);
        assert_eq!(site_key("not a url"), None);
    }

    #[test]
    fn policies_store_only_exceptions() {
        let mut p = SitePolicies::default();
        p.set("example.com", ThemeMode::On);
        p.set("dark.example", ThemeMode::Off);
        assert_eq!(p.mode_for_url("https://www.example.com/x"), ThemeMode::On);
        assert_eq!(p.mode_for_url("https://other.example/"), ThemeMode::Auto);
        p.set("example.com", ThemeMode::Auto);
        assert!(!p.sites.contains_key("example.com"));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"default":"auto","sites":{"dark.example":"off"}}"#);
        assert_eq!(serde_json::from_str::<SitePolicies>(&json).unwrap(), p);
    }
}
