//! Chromium command-line switches that turn off phone-home traffic and keep WebRTC from
//! leaking local addresses. The app appends these in `OnBeforeCommandLineProcessing`.
//!
//! Every switch and feature name below was checked against the strings in CEF 131.3.5's
//! `libcef.so` (test `switch_names_exist_in_libcef` re-checks whenever that runtime is in the
//! cache). Commonly copied names that are *not* in this build were left out rather than
//! shipped as placebo: `--force-webrtc-ip-handling-policy` (renamed; Chrome now reads
//! `--webrtc-ip-handling-policy` into the `webrtc.ip_handling_policy` pref),
//! `--safebrowsing-disable-auto-update`, `--disable-client-side-phishing-detection` and
//! `--disable-crash-reporter` (no such strings in this build, so nothing would read them), and
//! the `MediaRouter` / `CertificateTransparencyComponentUpdater` features (likewise absent).
//!
//! Variations: an unbranded Chromium (CEF is one) fetches no variations seed unless
//! `--variations-server-url` is given, so the rule is to never pass that switch
//! ([`FORBIDDEN_SWITCHES`]) and to drop the bundled field-trial testing config.

/// `--disable-features` value: one switch, because Chromium keeps only the last
/// `--disable-features` it sees; a second occurrence elsewhere would silently re-enable these.
pub const DISABLED_FEATURES: &str = "AutofillServerCommunication,NetworkTimeServiceQuerying,OptimizationHints,OptimizationHintsFetching,OptimizationGuideModelDownloading,Translate,DialMediaRouteProvider,PreconnectToSearch,PrivacySandboxSettings4,BrowsingTopics,TranslateRankerQuery,TranslateRankerEnforcement";

/// Each feature in [`DISABLED_FEATURES`] with why it is off.
pub fn disabled_features() -> &'static [(&'static str, &'static str)] {
    &[
        (
            "AutofillServerCommunication",
            "autofill would upload form signatures to Google and download field predictions",
        ),
        (
            "NetworkTimeServiceQuerying",
            "no clock queries to Google's time service",
        ),
        (
            "OptimizationHints",
            "no per-navigation hint fetches to the optimization guide",
        ),
        ("OptimizationHintsFetching", "no batch hint fetches for top hosts"),
        (
            "OptimizationGuideModelDownloading",
            "no ML model downloads in the background",
        ),
        (
            "Translate",
            "no translate-ranker/model downloads or page-language pings",
        ),
        (
            "DialMediaRouteProvider",
            "no SSDP/DIAL multicast scans of the LAN for cast devices",
        ),
        (
            "PreconnectToSearch",
            "no speculative connections to the default search engine",
        ),
        (
            "PrivacySandboxSettings4",
            "no Privacy Sandbox ads APIs (Topics, Protected Audience) or their prompts",
        ),
        (
            "BrowsingTopics",
            "no Topics API computing interest categories from history",
        ),
        (
            "TranslateRankerQuery",
            "no translate-ranker model download from www.gstatic.com (it runs with Translate off)",
        ),
        (
            "TranslateRankerEnforcement",
            "the ranker's other switch; either one alone starts the model download",
        ),
    ]
}

/// Switches the app must never add (or accept from a user's extra flags), because they turn
/// phone-home traffic back on.
pub const FORBIDDEN_SWITCHES: &[&str] = &[
    "variations-server-url",
    "variations-insecure-server-url",
    "enable-crash-reporter",
];

/// `(switch name without dashes, value, one-line reason)` for the launch command line.
///
/// Append as `--name` or `--name=value`. Chromium maps the WebRTC switch to the
/// `webrtc.ip_handling_policy` preference at command-line rank, which outranks every request
/// context's own setting (CEF refuses to set it there: "not user modifiable").
pub fn chromium_switches() -> &'static [(&'static str, Option<&'static str>, &'static str)] {
    &[
        (
            "disable-background-networking",
            None,
            "no extension/component update checks, translate, or other background fetches",
        ),
        (
            "disable-component-update",
            None,
            "no component-updater downloads (CRLSets, Widevine, origin trials, …)",
        ),
        (
            "disable-domain-reliability",
            None,
            "no Domain Reliability beacons reporting request failures to Google",
        ),
        (
            "metrics-recording-only",
            None,
            "UMA is recorded locally but never uploaded",
        ),
        (
            "disable-breakpad",
            None,
            "no crash dumps are collected or uploaded",
        ),
        ("disable-sync", None, "no Google account sync traffic"),
        ("no-pings", None, "no hyperlink-auditing <a ping> beacons"),
        (
            "disable-field-trial-config",
            None,
            "no bundled field-trial config; the variations seed is never fetched (see FORBIDDEN_SWITCHES)",
        ),
        (
            "disable-component-extensions-with-background-pages",
            None,
            "built-in extensions with background pages stay off, and so does their network use",
        ),
        (
            "disable-default-apps",
            None,
            "no default web apps installed (and fetched) on first run",
        ),
        (
            "no-first-run",
            None,
            "no first-run flow, which would fetch promos and set a default search engine",
        ),
        ("no-default-browser-check", None, "no default-browser probe"),
        (
            // Every disk profile asks accounts.google.com/ListAccounts for the Google accounts
            // in its cookie jar once its network is up, carrying the user's google.com cookies,
            // and neither a switch nor a preference stops it (chromiumembedded/cef#4276). Port 9
            // is on Chromium's restricted list, so the request fails without leaving the
            // machine. Pages on accounts.google.com are web content and are unaffected: only
            // the browser's own account service reads this URL, and CEF never signs in.
            "gaia-url",
            Some("http://127.0.0.1:9/"),
            "the browser's own Google-account lookups (ListAccounts) never leave the machine",
        ),
        (
            "webrtc-ip-handling-policy",
            Some("disable_non_proxied_udp"),
            "WebRTC uses only proxied TCP, so no host/LAN/public-STUN address reaches a page",
        ),
        (
            "disable-features",
            Some(DISABLED_FEATURES),
            "feature-level phone-home switches; see disabled_features() for each",
        ),
    ]
}

/// [`DISABLED_FEATURES`] plus the app's own extra features, de-duplicated, for the app's single
/// `--disable-features=` switch (a second such switch would override ours, not add to it).
pub fn disable_features_with(extra: &[&str]) -> String {
    let mut all: Vec<&str> = DISABLED_FEATURES.split(',').collect();
    for f in extra
        .iter()
        .flat_map(|e| e.split(','))
        .map(str::trim)
        .filter(|f| !f.is_empty())
    {
        if !all.contains(&f) {
            all.push(f);
        }
    }
    all.join(",")
}

/// A preference value for [`request_context_preferences`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefValue {
    /// `CefValue::SetBool`.
    Bool(bool),
    /// `CefValue::SetInt`.
    Int(i32),
    /// `CefValue::SetString`.
    Str(&'static str),
}

/// `(preference name, value, one-line reason)` to set with `CefRequestContext::SetPreference`
/// on every container's request context, right after creating it.
///
/// Some phone-home paths have no command-line switch in this build (Safe Browsing lookups,
/// spelling service, search suggestions); their preference is the only off switch. Each is
/// set on the profile's own context at start and on every container's as it is made; the app
/// logs any Chromium refuses.
pub fn request_context_preferences() -> &'static [(&'static str, PrefValue, &'static str)] {
    &[
        (
            "safebrowsing.enabled",
            PrefValue::Bool(false),
            "no Safe Browsing list updates or URL lookups to Google",
        ),
        (
            "safebrowsing.enhanced",
            PrefValue::Bool(false),
            "no Enhanced Protection real-time URL and download pings",
        ),
        (
            "search.suggest_enabled",
            PrefValue::Bool(false),
            "omnibox keystrokes are not sent to the search engine",
        ),
        (
            "alternate_error_pages.enabled",
            PrefValue::Bool(false),
            "error pages do not ask Google for a corrected URL",
        ),
        (
            "net.network_prediction_options",
            PrefValue::Int(2),
            "no preconnect/prefetch to hosts the browser merely predicts (2 = never)",
        ),
        (
            "translate.enabled",
            PrefValue::Bool(false),
            "no translate offers, language-detection model downloads, or page text to Google",
        ),
        (
            "spellcheck.use_spelling_service",
            PrefValue::Bool(false),
            "typed text is not sent to Google's spelling service",
        ),
    ]
}

/// The switches as `--name[=value]` argv strings.
pub fn chromium_switch_args() -> Vec<String> {
    chromium_switches()
        .iter()
        .map(|(n, v, _)| match v {
            Some(v) => format!("--{n}={v}"),
            None => format!("--{n}"),
        })
        .collect()
}

/// Switches a user's extra flags may not carry because they open what the browser keeps shut,
/// with why: a DevTools listener drives every tab with no token (the MCP listener's would mean
/// nothing), and the sandbox is off only by `--no-sandbox`, which the browser says aloud.
pub const UNSAFE_SWITCHES: &[(&str, &str)] = &[
    (
        "remote-debugging-port",
        "it opens a DevTools listener on loopback that drives every tab, the human's logged-in ones \
         included, without the MCP listener's token",
    ),
    (
        "remote-debugging-address",
        "it moves a DevTools listener that would drive every tab",
    ),
    (
        "remote-allow-origins",
        "it lets web pages reach a DevTools listener",
    ),
    (
        "no-sandbox",
        "the sandbox is switched off only by aperture's own --no-sandbox",
    ),
    (
        "disable-setuid-sandbox",
        "the sandbox is switched off only by aperture's own --no-sandbox",
    ),
    (
        "disable-seccomp-filter-sandbox",
        "the sandbox is switched off only by aperture's own --no-sandbox",
    ),
    (
        "disable-gpu-sandbox",
        "the sandbox is switched off only by aperture's own --no-sandbox",
    ),
    (
        "single-process",
        "pages would run in the browser's own process, outside any sandbox",
    ),
    (
        "disable-web-security",
        "a page could read every other site's data",
    ),
    (
        "disable-site-isolation-trials",
        "sites would share renderer processes",
    ),
];

/// The first of `args` (`name` or `name=value`, dashes optional) that [`UNSAFE_SWITCHES`] has,
/// and why it is refused.
pub fn find_unsafe_switch<S: AsRef<str>>(args: &[S]) -> Option<(&'static str, &'static str)> {
    args.iter().find_map(|a| {
        let name = a.as_ref().trim_start_matches('-');
        let name = name.split_once('=').map_or(name, |(n, _)| n).trim();
        UNSAFE_SWITCHES
            .iter()
            .copied()
            .find(|(f, _)| f.eq_ignore_ascii_case(name))
    })
}

/// Returns the first forbidden switch present in `args` (`--name` or `--name=value` form).
pub fn find_forbidden_switch<S: AsRef<str>>(args: &[S]) -> Option<&'static str> {
    args.iter().find_map(|a| {
        let name = a.as_ref().trim_start_matches('-');
        let name = name.split_once('=').map_or(name, |(n, _)| n);
        FORBIDDEN_SWITCHES.iter().copied().find(|f| *f == name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::PathBuf;

    #[test]
    fn switches_that_open_a_door_are_found_however_written() {
        for a in [
            "remote-debugging-port=9222",
            "--remote-debugging-port=0",
            "Remote-Debugging-Port",
            "no-sandbox",
            "--single-process",
            "disable-web-security",
        ] {
            assert!(find_unsafe_switch(&[a]).is_some(), "{a}");
        }
        for a in [
            "user-agent=X/1",
            "remote-debugging-pipe",
            "v=1",
            "host-resolver-rules=MAP * ~NOTFOUND",
        ] {
            assert_eq!(find_unsafe_switch(&[a]), None, "{a}");
        }
    }

    #[test]
    fn features_constant_matches_documented_list() {
        let joined: Vec<&str> = disabled_features().iter().map(|(f, _)| *f).collect();
        assert_eq!(DISABLED_FEATURES, joined.join(","));
    }

    #[test]
    fn one_disable_features_and_no_duplicates() {
        let names: Vec<&str> = chromium_switches().iter().map(|(n, _, _)| *n).collect();
        let unique: HashSet<_> = names.iter().collect();
        assert_eq!(names.len(), unique.len(), "duplicate switch: {names:?}");
        assert!(names.iter().all(|n| !n.starts_with('-') && !n.contains('=')));
        assert!(
            chromium_switches()
                .iter()
                .all(|(_, _, why)| !why.is_empty() && !why.contains('\n'))
        );
    }

    #[test]
    fn extra_disabled_features_merge_into_one_value() {
        let v = disable_features_with(&["Translate", "Foo,Bar", " "]);
        assert!(v.starts_with(DISABLED_FEATURES));
        assert!(v.ends_with(",Foo,Bar"));
        assert_eq!(v.split(',').filter(|f| *f == "Translate").count(), 1);
    }

    #[test]
    fn webrtc_policy_and_args() {
        let args = chromium_switch_args();
        assert!(args.contains(&"--webrtc-ip-handling-policy=disable_non_proxied_udp".to_string()));
        assert!(args.contains(&"--disable-domain-reliability".to_string()));
        assert!(find_forbidden_switch(&args).is_none());
        assert_eq!(
            find_forbidden_switch(&["--variations-server-url=http://x"]),
            Some("variations-server-url")
        );
    }

    /// Checks every name against CEF 131's own string table, when the runtime is cached
    /// (`APERTURE_CEF_DIR`, else `$XDG_CACHE_HOME/aperture/cef/131.3.5`). Prints and passes
    /// when it is not, since this crate must build and test without CEF.
    #[test]
    fn switch_names_exist_in_libcef() {
        let dir = std::env::var_os("APERTURE_CEF_DIR")
            .map(PathBuf::from)
            .or_else(|| aperture_common::xdg::cache_dir().map(|c| c.join("cef").join("131.3.5")));
        let Some(lib) = dir.map(|d| d.join("libcef.so")).filter(|p| p.is_file()) else {
            eprintln!("note: no CEF runtime cached; switch names not re-checked against libcef.so");
            return;
        };
        let data = std::fs::read(&lib).unwrap();
        let finder = |needle: &str| {
            // A C string: preceded by a non-name byte (strings may be packed without NULs in
            // front) and followed by NUL.
            let mut pat = needle.as_bytes().to_vec();
            pat.push(0);
            memchr::memmem::find_iter(&data, &pat).any(|i| {
                i == 0 || !(data[i - 1].is_ascii_alphanumeric() || data[i - 1] == b'-' || data[i - 1] == b'_')
            })
        };
        // The finder must be able to say no: this renamed switch is absent from CEF 131.
        assert!(!finder("force-webrtc-ip-handling-policy"));
        let mut missing = vec![];
        for (name, value, _) in chromium_switches() {
            if !finder(name) {
                missing.push(name.to_string());
            }
            // A value Chromium enumerates is in its strings; a feature list or a URL of ours
            // is not.
            if let Some(v) = value.filter(|v| *name != "disable-features" && !v.contains("://"))
                && !finder(v)
            {
                missing.push(format!("{name}={v}"));
            }
        }
        for (p, _, _) in request_context_preferences() {
            if !finder(p) {
                missing.push(format!("pref {p}"));
            }
        }
        for (f, _) in disabled_features() {
            if !finder(f) {
                missing.push(format!("feature {f}"));
            }
        }
        assert!(missing.is_empty(), "not in {}: {missing:?}", lib.display());
    }
}
