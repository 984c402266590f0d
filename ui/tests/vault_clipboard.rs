//! The vault's clipboard clearing against a real X clipboard: a copied secret is gone after the
//! delay, something the human copied since is left alone, and a pending clear still happens
//! when the clearer is dropped (the browser exiting). Needs an X server (Xvfb is fine); skips
//! without `DISPLAY` unless `APERTURE_UI_REQUIRE=1`.

#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

use aperture_ui::vault_window::{ClipboardClearer, Secret, clear_if_holding};

fn display_or_skip() -> bool {
    if std::env::var_os("DISPLAY").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("APERTURE_UI_REQUIRE").is_none(),
        "APERTURE_UI_REQUIRE is set but there is no DISPLAY"
    );
    eprintln!("skipped: no DISPLAY");
    false
}

/// The clipboard's text, or "" when it holds none.
fn text(cb: &mut arboard::Clipboard) -> String {
    cb.get_text().unwrap_or_default()
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(15);
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

// One test: the clipboard is process-wide, parallel tests would trample each other.
#[test]
fn clears_our_secret_only_and_only_after_the_delay() {
    if !display_or_skip() {
        return;
    }
    let mut cb = arboard::Clipboard::new().expect("an X clipboard");
    // Long enough that a loaded machine oversleeping the waits below by a second does not
    // turn "not yet cleared" into a false failure.
    let delay = Duration::from_millis(2500);
    let clearer = ClipboardClearer::new(delay);

    // Ours, untouched: still there just before the delay, gone after it.
    cb.set_text("pw-copied-by-vault").unwrap();
    let copied_at = Instant::now();
    clearer.copied(Secret::new("pw-copied-by-vault"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(text(&mut cb), "pw-copied-by-vault", "cleared early");
    wait_for("the clear", || text(&mut cb).is_empty());
    assert!(copied_at.elapsed() >= delay);

    // The human copied something else meanwhile: left alone.
    cb.set_text("pw-second").unwrap();
    clearer.copied(Secret::new("pw-second"));
    cb.set_text("the human's own text").unwrap();
    std::thread::sleep(delay + Duration::from_millis(400));
    assert_eq!(text(&mut cb), "the human's own text");

    // A newer copy replaces the pending clear of the older one, and restarts the delay.
    // Each wait is 0.6 of the delay: together past the older copy's clock, alone within the
    // newer one's.
    let part = delay * 3 / 5;
    cb.set_text("pw-a").unwrap();
    clearer.copied(Secret::new("pw-a"));
    std::thread::sleep(part);
    cb.set_text("pw-b").unwrap();
    let b_at = Instant::now();
    clearer.copied(Secret::new("pw-b"));
    std::thread::sleep(part);
    assert_eq!(
        text(&mut cb),
        "pw-b",
        "the newer copy was cleared on the older one's clock"
    );
    wait_for("the newer copy's clear", || text(&mut cb).is_empty());
    assert!(b_at.elapsed() >= delay, "the newer copy was cleared early");

    // Exiting with a clear pending clears at once.
    cb.set_text("pw-at-exit").unwrap();
    let clearer2 = ClipboardClearer::new(Duration::from_secs(3600));
    clearer2.copied(Secret::new("pw-at-exit"));
    drop(clearer2);
    assert_eq!(text(&mut cb), "");

    // The check itself.
    cb.set_text("abc").unwrap();
    assert!(!clear_if_holding(&Secret::new("abd")));
    assert_eq!(text(&mut cb), "abc");
    assert!(clear_if_holding(&Secret::new("abc")));
    assert_eq!(text(&mut cb), "");
}
