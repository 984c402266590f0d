//! A login survives a quit asked for by SIGTERM (a desktop session ending, `kill`, `aperture
//! quit`): a cookie the page set a moment before is on disk at the next start. Chromium writes
//! cookies lazily (every 30 s) and flushes them on its own shutdown, which a SIGTERM must reach.

#![forbid(unsafe_code)]

use std::time::Duration;

use aperture_testkit::mcp::{call, text};
use aperture_testkit::{Launch, Server, eventually};
use serde_json::json;

const SET: &str = r#"<!doctype html><html><head><title>set</title></head><body><script>
document.cookie = "session=alive-42; max-age=3600; path=/";
document.title = "cookie set";
</script></body></html>"#;

const SHOW: &str = r#"<!doctype html><html><head><title>show</title></head><body><script>
document.title = "cookies: " + (document.cookie || "none");
</script></body></html>"#;

async fn title(c: &aperture_testkit::mcp::Client, prefix: &str) -> String {
    let (_, l) = eventually(
        Duration::from_secs(30),
        &format!("a title starting {prefix:?}"),
        async || {
            let t = text(&call(c, "browser_tabs", json!({"action": "list"})).await);
            let l = t
                .lines()
                .map(|l| l.trim_matches('"'))
                .find(|l| l.starts_with(prefix))
                .map(str::to_string);
            (l.is_some(), (t, l))
        },
    )
    .await;
    l.unwrap()
}

/// Sets a cookie in a browser (windowed or headless), SIGTERMs it at once, and reads the cookie
/// back in a fresh headless browser on the same profile.
async fn cookie_survives_sigterm(windowed: bool) {
    cookie_survives(windowed, |_| {}).await;
}

/// [`cookie_survives_sigterm`], with `between` done to the profile while no browser runs; what
/// the second browser said on stderr.
async fn cookie_survives(windowed: bool, between: impl FnOnce(&std::path::Path)) -> String {
    let server = Server::start(
        [
            ("/set".to_string(), SET.to_string()),
            ("/show".to_string(), SHOW.to_string()),
        ]
        .into(),
        None,
    );
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let mut launch = Launch::new(env!("CARGO_BIN_EXE_aperture")).profile(&profile);
    if windowed {
        launch = launch.windowed();
    }
    let mut b = launch.start().await;
    let c = b.connect().await;
    call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/set")}),
    )
    .await;
    title(&c, "cookie set").await;
    drop(c);
    // Well inside Chromium's 30 s cookie write interval.
    let status = b.terminate(Duration::from_secs(30));
    assert!(
        status.success(),
        "SIGTERM is a clean quit: {status}\n{}",
        b.stderr()
    );
    drop(b);
    between(&profile);

    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .profile(&profile)
        .start()
        .await;
    let c = b.connect().await;
    call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/show")}),
    )
    .await;
    let shown = title(&c, "cookies: ").await;
    assert!(shown.contains("session=alive-42"), "the cookie was lost: {shown}");
    b.stderr()
}

/// The container list torn while the browser was down (a crash mid-write by another tool, a
/// hand edit): the browser still starts, says so, keeps the broken file aside, and the
/// container's logins are still there, found by its data on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_container_list_loses_no_login() {
    let said = cookie_survives(false, |profile| {
        std::fs::write(profile.join("containers.json"), b"{\"version\": 1, \"defa").unwrap();
    })
    .await;
    assert!(said.contains("The container list could not be read"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cookie_set_just_before_sigterm_is_there_after_a_restart() {
    cookie_survives_sigterm(false).await;
}

/// The same in the window, where the human's logins live.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_window_too() {
    if std::env::var_os("DISPLAY").is_none() {
        assert!(
            std::env::var("APERTURE_UI_REQUIRE").as_deref() != Ok("1"),
            "DISPLAY is unset, and APERTURE_UI_REQUIRE=1"
        );
        eprintln!("skipped: DISPLAY is unset");
        return;
    }
    cookie_survives_sigterm(true).await;
}
