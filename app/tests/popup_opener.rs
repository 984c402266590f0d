//! A page's popup keeps its opener, as in every browser: `window.open` returns the new window,
//! and the popup can `postMessage` back and close itself. "Sign in with …" and payment windows
//! work this way. Before, every popup was cancelled and a fresh tab opened in its place: the
//! page got `null` from `window.open` (and said "popups are blocked"), and the popup had no
//! `window.opener` to answer. The real browser, driven by the agent through MCP.

#![forbid(unsafe_code)]

use aperture_testkit::mcp::{role_ref, tool};
use aperture_testkit::{Launch, Server};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

const APP: &str = r#"<!doctype html><html><head><title>App</title></head><body>
<button id="go" onclick="
  const w = window.open('/provider', 'auth', 'width=420,height=520');
  document.getElementById('state').textContent = w ? 'popup open' : 'popup refused';
">Sign in with Provider</button>
<p id="state">signed out</p>
<script>
window.addEventListener('message', (e) => {
  if (e.origin === location.origin) document.getElementById('state').textContent = 'signed in with token ' + e.data;
});
</script>
</body></html>"#;

const PROVIDER: &str = r#"<!doctype html><html><head><title>Provider</title></head><body>
<p id="who"></p>
<button onclick="window.opener.postMessage('tok-42', location.origin); window.close();">Authorize</button>
<script>document.getElementById('who').textContent = window.opener ? 'asked by your app' : 'no opener';</script>
</body></html>"#;

/// The id of the tab titled `title` in a tab list (each tab line is followed by its fenced
/// title and URL): by title, since a start-up tab of the browser may be listed too.
fn tab_titled(list: &str, title: &str) -> u64 {
    let lines: Vec<&str> = list.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == format!("{title:?}"))
        .unwrap_or_else(|| panic!("no tab titled {title} in {list}"));
    lines[..at]
        .iter()
        .rev()
        .find(|l| l.starts_with("tab "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or_else(|| panic!("no tab line above {title} in {list}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_popup_answers_its_opener_and_closes() {
    let server = Server::start(
        HashMap::from([
            ("/".to_string(), APP.to_string()),
            ("/provider".to_string(), PROVIDER.to_string()),
        ]),
        None,
    );
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture")).start().await;
    let c = b.connect().await;
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/")}),
    )
    .await;
    assert!(!err, "{t}");
    let go = role_ref(&t, "button", "Sign in with Provider");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": go})).await;
    assert!(!err, "{t}");
    // window.open returned the popup, and the new tab is named.
    assert!(t.contains("popup open"), "{t}");
    assert!(t.contains("a new tab opened meanwhile"), "{t}");

    let popup = aperture_testkit::eventually(Duration::from_secs(20), "the popup's tab", async || {
        let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
        (list.contains("Provider"), list)
    })
    .await;
    let id = tab_titled(&popup, "Provider");
    let (err, t) = tool(&c, "browser_tabs", json!({"action": "select", "tab": id})).await;
    assert!(!err, "{t}");
    let (_, snap) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(
        snap.contains("asked by your app"),
        "the popup has no opener: {snap}"
    );

    // It answers its opener and closes itself.
    let authorize = role_ref(&snap, "button", "Authorize");
    let _ = tool(&c, "browser_act", json!({"action": "click", "ref": authorize})).await;
    aperture_testkit::eventually(Duration::from_secs(20), "the popup to close", async || {
        let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
        (!list.contains("Provider"), list)
    })
    .await;
    let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
    // The app's tab by its title (a start-up tab of the browser may be listed too).
    let first = tab_titled(&list, "App");
    let (err, t) = tool(&c, "browser_tabs", json!({"action": "select", "tab": first})).await;
    assert!(!err, "{t}");
    aperture_testkit::eventually(Duration::from_secs(20), "the app signed in", async || {
        let (_, snap) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (snap.contains("signed in with token tok-42"), snap)
    })
    .await;
}

/// A pop-up the page opens with no click is stopped (Chromium's blocker; the page gets null),
/// and the agent learns it from the tab's console, with where it would have gone; the page's
/// `window.open` stays the page's (its name and source read as the native function's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_popup_without_a_click_is_stopped_and_the_console_says_so() {
    const AD: &str = r#"<!doctype html><html><head><title>Ad</title></head><body>
<p id="state">waiting</p>
<script>setTimeout(() => {
  const w = window.open('/offer?x=1', 'ad', 'width=300,height=300');
  document.getElementById('state').textContent = (w ? 'opened' : 'refused') + ' ' +
    (window.open.name === 'open' && /native code/.test(Function.prototype.toString.call(window.open)));
}, 200);</script>
</body></html>"#;
    let server = Server::start(HashMap::from([("/ad".to_string(), AD.to_string())]), None);
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture")).start().await;
    let c = b.connect().await;
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/ad")}),
    )
    .await;
    assert!(!err, "{t}");
    let console = aperture_testkit::eventually(Duration::from_secs(20), "the note", async || {
        let (_, t) = tool(&c, "browser_console", json!({})).await;
        (t.contains("without a click was stopped"), t)
    })
    .await;
    assert!(console.contains(&server.url("/offer?x=1")), "{console}");
    let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(t.contains("refused true"), "{t}");
    assert!(
        !server.requests().iter().any(|p| p.starts_with("/offer")),
        "nothing loaded"
    );
    let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
    assert!(!list.contains("/offer"), "no tab holds the pop-up: {list}");
}
