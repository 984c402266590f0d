//! The pinned-list provisioning path end to end: apt-get download of the pinned Debian package,
//! hash checks, the content-addressed cache, self-repair, and user-supplied newer lists.

#![forbid(unsafe_code)]

use std::fs;

use aperture_privacy::lists::{ListSet, PINNED_PACKAGE, ProvisionOptions};
use aperture_privacy::{Blocker, Decision, LoadOutcome, ResourceType};

#[test]
fn download_verify_cache_and_repair() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("lists");
    let opts = ProvisionOptions {
        cache_dir: Some(cache.clone()),
        // Force the download path even where the package is installed or apt has the .deb.
        skip_system_copies: true,
        allow_apt_update: true,
        ..Default::default()
    };
    let set = ListSet::provision_pinned(&opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(set.lists().len(), PINNED_PACKAGE.lists.len());
    for (got, pin) in set.lists().iter().zip(PINNED_PACKAGE.lists) {
        assert_eq!(got.sha256, pin.sha256);
        assert_eq!(fs::metadata(&got.path).unwrap().len(), pin.size);
        assert!(got.path.starts_with(&cache));
    }
    // No work directories left behind.
    let leftovers: Vec<_> = fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".provision"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Warm cache: answered without apt (a bogus .deb path would fail if it were consulted).
    let warm = ProvisionOptions {
        deb_file: Some(dir.path().join("absent.deb")),
        ..opts.clone()
    };
    assert_eq!(ListSet::provision_pinned(&warm).unwrap(), set);

    // A damaged cached copy is not trusted: provisioning fetches and rewrites it.
    let first = &set.lists()[0].path;
    fs::write(first, b"! Title: EasyList\n@@*\n").unwrap();
    let repaired = ListSet::provision_pinned(&opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(repaired, set);
    assert_eq!(fs::metadata(first).unwrap().len(), PINNED_PACKAGE.lists[0].size);
}

#[test]
fn user_supplied_newer_list_is_used_and_keys_the_cache() {
    let pinned = ListSet::provision_pinned(&ProvisionOptions {
        allow_apt_update: true,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    // A "newer EasyPrivacy": the pinned one plus a rule for a tracker it does not know.
    let newer = dir.path().join("easyprivacy-newer.txt");
    let mut text = fs::read_to_string(&pinned.lists()[1].path).unwrap();
    text.push_str("\n||brand-new-tracker.example^\n");
    fs::write(&newer, text).unwrap();
    let user = ListSet::from_files(&[&pinned.lists()[0].path, &newer]).unwrap();
    assert_ne!(user.content_key(), pinned.content_key());
    assert_eq!(user.lists()[1].name, "EasyPrivacy");

    let engines = dir.path().join("engines");
    let (b, outcome) = Blocker::load_or_build(&user, &engines).unwrap();
    assert!(matches!(outcome, LoadOutcome::Built { .. }), "{outcome:?}");
    let page = "https://news.example/";
    assert_eq!(
        b.check(
            "https://brand-new-tracker.example/t.js",
            page,
            ResourceType::Script
        ),
        Decision::Block
    );
    assert_eq!(
        b.check(
            "https://www.google-analytics.com/analytics.js",
            page,
            ResourceType::Script
        ),
        Decision::Block
    );
    let (_, again) = Blocker::load_or_build(&user, &engines).unwrap();
    assert!(matches!(again, LoadOutcome::Cached { .. }), "{again:?}");
}
