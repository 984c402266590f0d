//! Real EasyList + EasyPrivacy against the resource URLs of the saved corpus pages: the
//! subset checked in at `testdata/corpus` (11 of the 130 pages, chosen so that every tracker
//! below appears and plenty of first-party resources do; see its README).
//!
//! Needs the pinned lists: provisioned here through `ListSet::provision_pinned` (apt-get
//! download of the pinned Debian package on a cold cache, with one `apt-get update` allowed).

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use aperture_privacy::corpus::{ResourceRef, load_corpus};
use aperture_privacy::lists::{ListSet, ProvisionOptions};
use aperture_privacy::{Blocker, Decision, ResourceType, blocking};

fn blocker() -> &'static Blocker {
    static B: OnceLock<Blocker> = OnceLock::new();
    B.get_or_init(|| {
        let lists = ListSet::provision_pinned(&ProvisionOptions {
            allow_apt_update: true,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("provisioning the pinned filter lists failed: {e}"));
        let cache = blocking::default_engine_cache_dir().expect("HOME or XDG_CACHE_HOME");
        Blocker::load_or_build(&lists, &cache).expect("engine").0
    })
}

fn corpus() -> &'static [ResourceRef] {
    static C: OnceLock<Vec<ResourceRef>> = OnceLock::new();
    C.get_or_init(|| {
        let dir = aperture_testkit::corpus_dir();
        let c = load_corpus(&dir).unwrap_or_else(|e| panic!("corpus at {}: {e}", dir.display()));
        // The subset's pages reference 947 resources (the full corpus, checked here before, over
        // 5 000). Losing more than 5% means the scanner stopped seeing a kind of tag or a page,
        // and every test below would quietly check less.
        assert!(
            c.len() > 900,
            "corpus too small: {} resources in {}",
            c.len(),
            dir.display()
        );
        c
    })
}

/// adblock 0.13 `debug_assert!`s that its flatbuffer index is sorted on every binary search,
/// which makes a check ~200x slower in a debug build. The exhaustive tests sample the corpus
/// there and cover all of it in `--release` (or once the workspace sets
/// `[profile.dev.package.adblock] debug-assertions = false`).
fn sample_step() -> usize {
    if cfg!(debug_assertions) { 5 } else { 1 }
}

fn host(u: &str) -> String {
    url::Url::parse(u)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

/// Which request types a must-block rule applies to.
type TypeFilter = fn(ResourceType) -> bool;

#[test]
fn known_trackers_in_corpus_are_blocked() {
    let b = blocker();
    // (host suffix, which request types the lists target there). EasyPrivacy blocks only
    // quantserve's *script* (its pixel GIFs sit in <noscript>), and EasyList has dropped the
    // long-dead `ad-emea.doubleclick.net` DFP host, so those are reported, not asserted.
    let must_block: [(&str, TypeFilter); 6] = [
        ("google-analytics.com", |_| true),
        ("googletagmanager.com", |_| true),
        ("g.doubleclick.net", |_| true),
        ("scorecardresearch.com", |_| true),
        ("chartbeat.com", |_| true),
        ("quantserve.com", |t| t == ResourceType::Script),
    ];
    let mut seen: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut unblocked = vec![];
    for r in corpus() {
        // Scripts, images and frames: how these trackers load. (A `<link rel=dns-prefetch>`
        // to the same host is not a request, and lists rightly don't care.)
        if !matches!(
            r.resource_type,
            ResourceType::Script | ResourceType::Image | ResourceType::SubFrame
        ) {
            continue;
        }
        let h = host(&r.url);
        let Some((t, applies)) = must_block
            .iter()
            .find(|(t, _)| h == *t || h.ends_with(&format!(".{t}")))
        else {
            continue;
        };
        if !applies(r.resource_type) {
            continue;
        }
        let e = seen.entry(t).or_default();
        e.0 += 1;
        if b.check(&r.url, &r.source_url, r.resource_type).is_blocked() {
            e.1 += 1;
        } else {
            unblocked.push(format!("{:?} {} (on {})", r.resource_type, r.url, r.page));
        }
    }
    eprintln!("tracker requests (seen, blocked): {seen:?}");
    for (t, _) in must_block {
        assert!(
            seen.get(t).is_some_and(|(n, _)| *n > 0),
            "corpus has no {t} request any more?"
        );
    }
    assert!(
        unblocked.is_empty(),
        "tracker requests not blocked:\n{}",
        unblocked.join("\n")
    );
}

#[test]
fn specific_tracker_urls_blocked() {
    let b = blocker();
    let page = "https://www.example-news.com/2015/story.html";
    for (url, ty) in [
        (
            "https://www.google-analytics.com/analytics.js",
            ResourceType::Script,
        ),
        ("http://www.google-analytics.com/ga.js", ResourceType::Script),
        (
            "https://www.google-analytics.com/collect?v=1&tid=UA-1",
            ResourceType::Ping,
        ),
        (
            "https://securepubads.g.doubleclick.net/tag/js/gpt.js",
            ResourceType::Script,
        ),
        ("https://stats.g.doubleclick.net/dc.js", ResourceType::Script),
        (
            "https://www.googletagmanager.com/gtm.js?id=GTM-XXXX",
            ResourceType::Script,
        ),
        ("http://b.scorecardresearch.com/beacon.js", ResourceType::Script),
        ("http://edge.quantserve.com/quant.js", ResourceType::Script),
        (
            "https://connect.facebook.net/en_US/fbevents.js",
            ResourceType::Script,
        ),
    ] {
        assert_eq!(b.check(url, page, ty), Decision::Block, "{url}");
    }
}

#[test]
fn first_party_resources_are_not_blocked() {
    let b = blocker();
    let mut total = 0usize;
    let mut blocked = vec![];
    for r in corpus() {
        if !matches!(
            r.resource_type,
            ResourceType::Script | ResourceType::Stylesheet | ResourceType::Image
        ) {
            continue;
        }
        if host(&r.url) != host(&r.source_url) {
            continue;
        }
        total += 1;
        if b.check(&r.url, &r.source_url, r.resource_type).is_blocked() {
            blocked.push(format!("{:?} {}", r.resource_type, r.url));
        }
    }
    eprintln!("first-party: {} of {total} blocked: {blocked:#?}", blocked.len());
    // 258 in the subset (over 500 in the full corpus, checked here before); fewer than 200
    // means first-party detection broke, and the 1% bound below would prove little.
    assert!(total > 200, "only {total} first-party resources found");
    // EasyList legitimately blocks a handful of first-party ad slots (`/ads/…` images); the
    // bulk of a page's own CSS, JS and images must load.
    assert!(
        blocked.len() * 100 <= total,
        "{} of {total} first-party resources blocked:\n{}",
        blocked.len(),
        blocked.join("\n")
    );
}

#[test]
fn page_documents_and_their_stylesheets_load() {
    let b = blocker();
    // Every page's own URL as a top-level load, and every first-party stylesheet.
    for r in corpus() {
        assert_eq!(
            b.check(&r.source_url, "", ResourceType::MainFrame),
            Decision::Allow
        );
        if r.resource_type == ResourceType::Stylesheet && host(&r.url) == host(&r.source_url) {
            assert_eq!(
                b.check(&r.url, &r.source_url, r.resource_type),
                Decision::Allow,
                "{}",
                r.url
            );
        }
    }
}

#[test]
fn blocker_is_usable_from_many_threads() {
    let b = blocker();
    let c = corpus();
    let expected: Vec<bool> = c
        .iter()
        .step_by(sample_step() * 4)
        .take(2000)
        .map(|r| b.check(&r.url, &r.source_url, r.resource_type).is_blocked())
        .collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for (r, want) in c.iter().step_by(sample_step() * 4).zip(&expected) {
                    assert_eq!(
                        b.check(&r.url, &r.source_url, r.resource_type).is_blocked(),
                        *want
                    );
                }
            });
        }
    });
}

#[test]
fn cached_source_fast_path_decides_like_adblock_request_new() {
    let b = blocker();
    let mut differ = vec![];
    for r in corpus().iter().step_by(sample_step()) {
        for src in [r.source_url.as_str(), ""] {
            let fast = b.check(&r.url, src, r.resource_type);
            let reference = b.check_reference(&r.url, src, r.resource_type);
            if fast != reference {
                differ.push(format!("{} from {src:?}: {fast:?} vs {reference:?}", r.url));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
