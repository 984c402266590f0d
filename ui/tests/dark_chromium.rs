//! The three dark-mode layers, each applied to a real Chromium exactly as
//! the app will (the same `CdpCall`s and injected script), judged by
//! `mean_luminance` of screenshots — on saved real-world pages from the
//! in-repo corpus (`testdata/corpus`) where possible.
//!
//! Skips (and says so) without chromium + ImageMagick `convert`.
//! `APERTURE_DARK_SHOTS=dir` keeps the screenshots.

#![forbid(unsafe_code)]

mod common;

use aperture_ui::dark::{
    ColorScheme, DarkPlan, FilterOptions, ThemeMode, emulated_media_call, is_already_dark, mean_luminance,
    plan,
};
use common::{Browser, Shot, shot_dir, tools};

/// Light pages from the corpus with plenty of text and some images.
const CORPUS: [&str; 4] = [
    "wikipedia-4.html",
    "lwn-1.html",
    "mozilla-1.html",
    "nytimes-1.html",
];

fn measure(s: &Shot) -> f32 {
    mean_luminance(&s.bgra()).expect("non-empty screenshot")
}

fn send(b: &mut Browser, call: aperture_ui::dark::CdpCall) {
    b.call(call.method, call.params);
}

#[test]
fn layer1_reports_the_humans_real_preference() {
    let Some(chromium) = tools() else { return };
    let (_guard, dir) = shot_dir();
    let page = dir.join("scheme.html");
    std::fs::write(
        &page,
        "<!doctype html><style>body{background:#fff;color:#111;font:18px sans-serif}\
         @media (prefers-color-scheme: dark){body{background:#121212;color:#eee}}</style>\
         <h1>A site with its own dark theme</h1><p>It should follow the human's preference.</p>",
    )
    .unwrap();
    let url = format!("file://{}", page.display());
    let mut b = Browser::launch(&chromium, 800, 500);
    for (scheme, want_dark) in [(ColorScheme::Dark, true), (ColorScheme::Light, false)] {
        send(&mut b, emulated_media_call(scheme));
        b.navigate(&url);
        let l = measure(&b.screenshot(&dir, &format!("layer1-{scheme:?}")));
        println!("layer 1, human prefers {scheme:?}: luminance {l:.3}");
        assert_eq!(
            is_already_dark(l),
            want_dark,
            "prefers-color-scheme {scheme:?} gave luminance {l}"
        );
    }
}

#[test]
fn layers_2_and_3_darken_light_corpus_pages() {
    let Some(chromium) = tools() else { return };
    let (_guard, dir) = shot_dir();
    let mut b = Browser::launch(&chromium, 1000, 700);
    let opts = FilterOptions::default();
    for name in CORPUS {
        let url = format!("file://{}", aperture_testkit::corpus_page(name).display());
        b.navigate(&url);
        let before = measure(&b.screenshot(&dir, &format!("{name}-0-plain")));
        assert!(
            !is_already_dark(before),
            "{name} should be a light page, measured {before}"
        );

        // Each step applies a plan exactly as the app will: its actions.
        let apply = |b: &mut Browser, p: &DarkPlan| {
            let (call, js) = p.actions().expect("measured pages need no further measurement");
            send(b, call);
            b.eval(&js);
        };
        let off = plan(ThemeMode::Off, ColorScheme::Dark, Some(before), true, &opts);

        // Auto, human prefers dark, light page: layer 2 (force-dark) only.
        let auto = plan(ThemeMode::Auto, ColorScheme::Dark, Some(before), true, &opts);
        assert_eq!(
            auto,
            DarkPlan::Apply {
                force_dark: true,
                css: None
            }
        );
        apply(&mut b, &auto);
        let forced = measure(&b.screenshot(&dir, &format!("{name}-2-forcedark")));
        apply(&mut b, &off);
        let cleared = measure(&b.screenshot(&dir, &format!("{name}-2-cleared")));

        // Layer 3: the fallback when force-dark is unavailable.
        let fallback = plan(ThemeMode::On, ColorScheme::Dark, Some(before), false, &opts);
        assert!(matches!(
            &fallback,
            DarkPlan::Apply {
                force_dark: false,
                css: Some(_)
            }
        ));
        apply(&mut b, &fallback);
        let filtered = measure(&b.screenshot(&dir, &format!("{name}-3-filter")));
        apply(&mut b, &off);
        let removed = measure(&b.screenshot(&dir, &format!("{name}-3-removed")));

        println!(
            "{name}: plain {before:.3}, force-dark {forced:.3} (cleared {cleared:.3}), filter {filtered:.3} (removed {removed:.3})"
        );
        assert!(
            is_already_dark(forced),
            "{name}: force-dark left luminance at {forced}"
        );
        assert!(
            !is_already_dark(cleared),
            "{name}: clearing the override didn't restore the page ({cleared})"
        );
        assert!(
            is_already_dark(filtered),
            "{name}: filter left luminance at {filtered}"
        );
        assert!(
            (removed - before).abs() < 0.05,
            "{name}: removing the filter didn't restore the page ({removed} vs {before})"
        );
    }
}

#[test]
fn auto_leaves_an_already_dark_page_alone() {
    let Some(chromium) = tools() else { return };
    let (_guard, dir) = shot_dir();
    let page = dir.join("dark-site.html");
    std::fs::write(
        &page,
        "<!doctype html><style>html,body{background:#0d1117;color:#e6edf3;font:16px sans-serif}</style>\
         <h1>Already dark</h1><p>Lots of light text on a dark background, like a code host's dark theme.</p>",
    )
    .unwrap();
    let mut b = Browser::launch(&chromium, 800, 500);
    b.navigate(&format!("file://{}", page.display()));
    let l = measure(&b.screenshot(&dir, "dark-site"));
    println!("dark site: luminance {l:.3}");
    assert!(is_already_dark(l));
    assert_eq!(
        plan(
            ThemeMode::Auto,
            ColorScheme::Dark,
            Some(l),
            true,
            &FilterOptions::default()
        ),
        DarkPlan::Apply {
            force_dark: false,
            css: None
        }
    );
}
