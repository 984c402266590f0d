//! `browser_act` beyond input (issue 14): `wait` steps, the batch's 20 s limit, and navigation
//! and tab steps inside a batch, against the real browser.

use aperture_testkit::mcp::{Client, call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

async fn launch() -> McpBrowser {
    Launch::from_env()
        .unwrap_or_else(|| Launch::new(env!("CARGO_BIN_EXE_aperture")))
        .start()
        .await
}

async fn act(c: &Client, args: Value) -> (bool, String) {
    let r = call(c, "browser_act", args).await;
    (r.is_error == Some(true), text(&r))
}

/// A page that changes on a timer once its button is pressed: "Saved" appears after 700 ms,
/// the spinner goes after 900 ms, the toast removes itself after 600 ms, the URL becomes
/// `/done` after 800 ms. A second button starts polling the server every 50 ms.
const TIMED: &str = r#"<!doctype html><html><head><title>Timed</title></head><body>
<button id=go>Save</button> <button id=poll>Poll</button>
<p id=spin>Loading…</p><div id=toast role=status><button id=close>Dismiss toast</button></div><p id=out></p>
<script>
document.getElementById('go').onclick = () => {
  setTimeout(() => { document.getElementById('out').textContent = 'All changes saved'; }, 700);
  setTimeout(() => { document.getElementById('spin').remove(); }, 900);
  setTimeout(() => { document.getElementById('toast').remove(); }, 600);
  setTimeout(() => { history.pushState({}, '', '/done?step=2'); }, 800);
};
document.getElementById('poll').onclick = () => { setInterval(() => fetch('/ping'), 50); };
</script></body></html>"#;

#[tokio::test]
async fn wait_steps_wait_for_text_refs_urls_the_network_and_time() {
    let browser = launch().await;
    let server = Server::page(TIMED);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    let save = role_ref(&snap, "button", "Save");
    let dismiss = role_ref(&snap, "button", "Dismiss toast");

    let start = Instant::now();
    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "click", "ref": save},
            {"action": "wait", "ref": dismiss, "gone": true},
            {"action": "wait", "text": "All  changes\nsaved"},
            {"action": "wait", "url": "*/done?step=*"},
            {"action": "wait", "text": "Loading…", "gone": true},
            {"action": "wait", "idle": 300},
            {"action": "wait", "ms": 250}
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    for line in [
        "2. waited",
        ": it is gone",
        "3. waited",
        ": the text is on the page",
        "4. waited",
        ": the URL matches",
        "5. waited",
        ": the text is gone",
        "6. waited",
        ": the network is idle",
        "7. waited 0.",
    ] {
        assert!(t.contains(line), "{line:?} missing from:\n{t}");
    }
    // The answer's observations show what was waited for.
    assert!(t.contains("All changes saved"), "{t}");
    assert!(
        t.contains(&format!("gone: {dismiss}")) || t.contains(&dismiss),
        "{t}"
    );
    assert!(start.elapsed() >= Duration::from_millis(900), "the waits waited");

    // A condition that never comes true stops the batch there, saying so.
    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "wait", "text": "Never shown", "ms": 800},
            {"action": "click", "ref": save}
        ]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("1. wait failed; step 2 was not run"), "{t}");
    assert!(
        t.contains("gave up after 0.8 s: the text has not appeared"),
        "{t}"
    );

    // A page that polls the server is never idle for a second.
    let poll = role_ref(&snap, "button", "Poll");
    let (err, t) = act(
        &c,
        json!({"steps": [{"action": "click", "ref": poll}, {"action": "wait", "idle": 1000, "ms": 2500}]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("the network has not been idle that long"), "{t}");

    // Argument mistakes are refused before anything runs.
    let (err, t) = act(&c, json!({"action": "wait"})).await;
    assert!(err && t.contains("wait needs a condition"), "{t}");
    let (err, t) = act(&c, json!({"action": "wait", "text": "a", "url": "b"})).await;
    assert!(err && t.contains("one condition"), "{t}");
}

#[tokio::test]
async fn a_batch_starts_no_step_after_20_seconds() {
    let browser = launch().await;
    let server = Server::page(TIMED);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    let save = role_ref(&snap, "button", "Save");
    let start = Instant::now();
    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "wait", "ms": 8000},
            {"action": "wait", "ms": 8000},
            {"action": "wait", "ms": 8000},
            {"action": "click", "ref": save}
        ]}),
    )
    .await;
    let took = start.elapsed();
    assert!(err, "{t}");
    assert!(t.contains("1. waited 8.0 s"), "{t}");
    assert!(t.contains("2. waited 8.0 s"), "{t}");
    // The third wait is cut to what is left of the 20 s, and the click never starts.
    assert!(t.contains("3. waited") && t.contains("cut short"), "{t}");
    assert!(t.contains("stopped before step 4"), "{t}");
    assert!(t.contains("step 4 was not run"), "{t}");
    assert!(!t.contains("clicked"), "{t}");
    assert!(
        took < Duration::from_secs(26),
        "the batch ended near its limit: {took:?}"
    );
    let page = text(&call(&c, "browser_read", json!({})).await);
    assert!(!page.contains("All changes saved"), "the click never ran: {page}");
}

/// Two pages that link to each other, and a third for a new tab.
fn site() -> Server {
    let page = |title: &str, link: &str| {
        format!(
            "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1>\
             <a href=\"{link}\">Go to {link}</a><p>visit count <span id=n></span></p>\
             <script>document.getElementById('n').textContent = performance.getEntriesByType('navigation')[0].type;</script>\
             </body></html>"
        )
    };
    Server::start(
        HashMap::from([
            ("/a".to_string(), page("Page A", "/b")),
            ("/b".to_string(), page("Page B", "/a")),
            ("/c".to_string(), page("Page C", "/a")),
        ]),
        None,
    )
}

#[tokio::test]
async fn a_batch_navigates_and_switches_tabs_answering_each_with_its_observation() {
    let browser = launch().await;
    let server = site();
    let c = browser.connect().await;
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/a")}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let first: u64 = text(&r)
        .split_whitespace()
        .nth(2)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("a tab id in {}", text(&r)));

    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "goto", "url": server.url("/b")},
            {"action": "back"},
            {"action": "forward"},
            {"action": "reload"},
            {"action": "tab_open", "url": server.url("/c")},
            {"action": "tab_select", "tab": first},
            {"action": "goto", "url": server.url("/a")}
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    for line in [
        "1. loaded (HTTP 200); now at:",
        "2. loaded",
        "3. loaded",
        "4. loaded",
        "5. opened tab",
        &format!("6. tab {first} is now your current tab"),
        "7. loaded (HTTP 200); now at:",
    ] {
        assert!(t.contains(line), "{line:?} missing from:\n{t}");
    }
    // The tab left behind keeps its observations, under its own header, and only the last
    // full snapshot of a tab is sent (an earlier one is replaced by it).
    let opened: u64 = t
        .split("5. opened tab ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|w| w.parse().ok())
        .expect("the opened tab's id");
    let segment = |header: &str| {
        let at = t.find(header).unwrap_or_else(|| panic!("no {header:?} in:\n{t}"));
        let rest = &t[at + header.len()..];
        rest[..rest.find("\ntab ").unwrap_or(rest.len())].to_string()
    };
    // Steps 1-4 on the first tab: only the reload's snapshot is left (page B, reloaded).
    let before = segment(&format!("tab {first} before switching to tab {opened}:"));
    assert!(before.contains("Page B") && before.contains("reload"), "{before}");
    assert_eq!(before.matches("FULL SNAPSHOT").count(), 1, "{before}");
    let other = segment(&format!("tab {opened} before switching to tab {first}:"));
    assert!(other.contains("Page C"), "{other}");
    let now = segment(&format!("tab {first} now"));
    assert!(now.contains("Page A") && now.contains("navigate"), "{now}");
    assert_eq!(t.matches("FULL SNAPSHOT").count(), 3, "{t}");

    // The tab opened in the batch can be closed from a batch; the human's tabs cannot be.
    let (err, t) = act(&c, json!({"steps": [{"action": "tab_close", "tab": opened}]})).await;
    assert!(!err && t.contains(&format!("closed tab {opened}")), "{t}");
    let (err, t) = act(&c, json!({"action": "goto"})).await;
    assert!(err && t.contains("goto needs `url`"), "{t}");
    let (err, t) = act(&c, json!({"action": "goto", "url": "file:///etc/passwd"})).await;
    assert!(err && t.contains("refused by rule scheme"), "{t}");
}
