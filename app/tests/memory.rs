//! The browser's memory on disk: history in `<profile>/places.sqlite` records the human's
//! and the agent's navigations, per container, never a private tab's, and survives the
//! browser being killed.

use aperture_testkit::mcp::{call, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn bin() -> std::path::PathBuf {
    std::env::var_os("APERTURE_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_aperture").into())
}

fn pages() -> Server {
    let mut routes = HashMap::new();
    for (path, title) in [
        ("/first", "First page"),
        ("/second", "Second page"),
        ("/secret", "Secret page"),
    ] {
        routes.insert(
            path.to_string(),
            format!("<!doctype html><title>{title}</title><h1>{title}</h1>"),
        );
    }
    Server::start(routes, None)
}

/// A browser on a scratch profile (`<scratch>/profile`) whose first tab shows `/first`.
async fn on_first_page() -> (tempfile::TempDir, Server, aperture_testkit::McpBrowser) {
    let scratch = tempfile::tempdir().unwrap();
    let server = pages();
    let browser = Launch::new(bin())
        .profile(scratch.path().join("profile"))
        .arg(server.url("/first"))
        .start()
        .await;
    (scratch, server, browser)
}

#[tokio::test(flavor = "multi_thread")]
async fn history_records_human_and_agent_navigations_but_never_private_tabs() {
    let (scratch, server, browser) = on_first_page().await;
    let profile = scratch.path().join("profile");
    let c = browser.connect().await;
    // The agent opens a tab of its own, and a private one.
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/second")}),
    )
    .await;
    assert!(!r.is_error.unwrap_or(false), "{}", text(&r));
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/secret"), "container": "Private"}),
    )
    .await;
    assert!(!r.is_error.unwrap_or(false), "{}", text(&r));

    // Reads go through the places API on the same file while the browser runs (WAL); wait
    // for the writer thread to have committed the titles.
    let places = aperture_places::Places::open(&profile).expect("open places.sqlite");
    let t = Instant::now();
    let entries = loop {
        let e = places.search("", None, 100, 0).unwrap();
        let titled = e.iter().filter(|e| !e.title.is_empty()).count();
        if titled >= 2 || t.elapsed() > Duration::from_secs(20) {
            break e;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let urls: Vec<&str> = entries.iter().map(|e| e.url.as_str()).collect();
    assert!(urls.iter().any(|u| u.ends_with("/first")), "{urls:?}");
    assert!(urls.iter().any(|u| u.ends_with("/second")), "{urls:?}");
    assert!(
        !urls.iter().any(|u| u.contains("/secret")),
        "a private tab was recorded: {urls:?}"
    );
    let first = entries.iter().find(|e| e.url.ends_with("/first")).unwrap();
    assert_eq!(first.title, "First page");
    // The human's tab is in their default container; the agent's own tab has none.
    assert_eq!(first.container, "Personal");
    drop(places);

    // Killed, not quit: what was committed stays.
    drop(c);
    drop(browser);
    let places = aperture_places::Places::open(&profile).expect("reopen places.sqlite");
    assert!(places.recovery().is_none());
    let again = places.search("second", None, 10, 0).unwrap();
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].title, "Second page");
    // Suggestions come from it.
    let s = places.suggest("127.0.0.1", None, 5).unwrap();
    assert!(s.iter().any(|s| s.url.ends_with("/first")), "{s:?}");
}

/// Every file under `dir` that contains `needle`.
fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(b) = std::fs::read(&p)
                && b.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                hits.push(p);
            }
        }
    }
    hits
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_tab_leaves_nothing_on_disk() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let page = "<!doctype html><title>Private probe</title><script>\
        const m = new URLSearchParams(location.search).get('m');\
        document.cookie = 'probe=' + m + '; max-age=86400';\
        localStorage.setItem('probe', m);\
        document.title = 'stored ' + m;</script>";
    let server = Server::start(HashMap::from([("/p".to_string(), page.to_string())]), None);
    let browser = Launch::new(bin()).profile(&profile).start().await;
    let c = browser.connect().await;
    let secret = "privmarker7f3a9c";
    let normal = "normmarker51d2e8";
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url(&format!("/p?m={secret}")), "container": "Private"}),
    )
    .await;
    assert!(!r.is_error.unwrap_or(false), "{}", text(&r));
    let listed = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
    assert!(listed.contains("Private"), "{listed}");
    // The same page in an ordinary tab, as the control: its traces do reach the disk.
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url(&format!("/p?m={normal}"))}),
    )
    .await;
    assert!(!r.is_error.unwrap_or(false), "{}", text(&r));
    tokio::time::sleep(Duration::from_secs(3)).await;
    // Close the private tab (its id is in the list: the line that says Private).
    let id = listed
        .lines()
        .find(|l| l.contains("\"Private\""))
        .and_then(|l| l.split_whitespace().nth(1))
        .map(|n| n.trim_end_matches(':').to_string())
        .unwrap_or_else(|| panic!("no private tab line in {listed}"));
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "close", "tab": id.parse::<u64>().unwrap()}),
    )
    .await;
    assert!(!r.is_error.unwrap_or(false), "{}", text(&r));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let t = Instant::now();
    while files_containing(&profile, normal).is_empty() && t.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(
        !files_containing(&profile, normal).is_empty(),
        "the control left no trace: the check is blind"
    );
    let leaked = files_containing(&profile, secret);
    assert!(
        leaked.is_empty(),
        "the private tab left traces on disk: {leaked:?}"
    );
}

/// A page that fails to load shows Chromium's error page, whose title (the host) arrives before
/// its address: it was taken for the page before it, renaming that page in history.
#[tokio::test(flavor = "multi_thread")]
async fn an_error_page_does_not_rename_the_page_before_it_in_history() {
    let (scratch, _server, browser) = on_first_page().await;
    let profile = scratch.path().join("profile");
    let c = browser.connect().await;
    let places = aperture_places::Places::open(&profile).expect("open places.sqlite");
    let titled = async || {
        let t = Instant::now();
        loop {
            let e = places.search("first", None, 10, 0).unwrap();
            if e.first().is_some_and(|e| !e.title.is_empty()) || t.elapsed() > Duration::from_secs(20) {
                break e;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    assert_eq!(titled().await[0].title, "First page");
    // Nothing listens on port 1: the load fails and the error page shows.
    let r = call(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": "http://127.0.0.1:1/"}),
    )
    .await;
    let said = text(&r);
    assert!(said.contains("127.0.0.1:1"), "{said}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let e = titled().await;
    assert_eq!(e[0].title, "First page", "{e:?}");
}
