//! Two MCP sessions (two rmcp clients over streamable HTTP) against one real headless
//! browser: each session has its own current tab and its own page model of each tab; one
//! session's observation never advances the other's; a session is told, in its own diff,
//! what another session changed; two sessions acting on one tab take turns.

use aperture_testkit::mcp::{Client, call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server};
use serde_json::json;

const OTHER: &str = "another MCP session acted on this tab since your last observation";

/// A list whose every change re-renders all rows from scratch (new DOM nodes each time).
const FIXTURE: &str = r#"<!doctype html><html><head><title>Shared list</title></head><body>
<h1>Shopping list</h1><ul id="list"></ul>
<script>
let rows = ["apples", "bread", "cheese", "dates"];
function render() {
  const ul = document.getElementById("list");
  ul.innerHTML = "";
  for (const r of rows) {
    const li = document.createElement("li");
    li.textContent = r + " ";
    const b = document.createElement("button");
    b.textContent = "Remove " + r;
    b.onclick = () => { rows = rows.filter(x => x !== r); render(); };
    li.appendChild(b);
    ul.appendChild(li);
  }
}
render();
</script></body></html>"#;

async fn launch() -> McpBrowser {
    Launch::from_env_or(env!("CARGO_BIN_EXE_aperture")).start().await
}

async fn ok(c: &Client, tool: &str, args: serde_json::Value) -> String {
    let r = call(c, tool, args.clone()).await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "{tool} {args}:\n{t}");
    t
}

#[tokio::test]
async fn two_sessions_on_one_browser_do_not_collide() {
    let browser = launch().await;
    let server = Server::page(FIXTURE);
    let a = browser.connect().await;
    let b = browser.connect().await;

    // A opens the page (its first look comes with the answer) and snapshots it.
    let open = ok(
        &a,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/")}),
    )
    .await;
    let tab = aperture_testkit::mcp::opened_tab(&open);
    let a1 = ok(&a, "browser_snapshot", json!({"full": true})).await;
    assert!(a1.contains("Remove bread"), "{a1}");

    // B's first look at the tab is a FULL SNAPSHOT of its own, though A observed it.
    let b1 = ok(&b, "browser_snapshot", json!({"tab": tab})).await;
    assert!(b1.contains("FULL SNAPSHOT"), "{b1}");
    assert!(!b1.contains(OTHER), "{b1}");
    // A's state did not move with B's look.
    let a2 = ok(&a, "browser_snapshot", json!({})).await;
    assert!(a2.contains("no change"), "{a2}");
    assert!(!a2.contains(OTHER), "{a2}");

    // B clicks; A's next snapshot is a diff against A's own last state, and says why.
    let bread_b = role_ref(&b1, "button", "Remove bread");
    let bc = ok(
        &b,
        "browser_act",
        json!({"tab": tab, "action": "click", "ref": bread_b}),
    )
    .await;
    assert!(!bc.contains(OTHER), "B's own act:\n{bc}");
    let a3 = ok(&a, "browser_snapshot", json!({})).await;
    assert!(a3.starts_with(&format!("tab {tab}:")), "{a3}");
    assert!(a3.contains(OTHER), "{a3}");
    assert!(!a3.contains("FULL SNAPSHOT"), "a diff against A's state:\n{a3}");
    let bread_a = role_ref(&a1, "button", "Remove bread");
    assert!(
        a3.lines().any(|l| l.contains("gone") && l.contains(&bread_a)),
        "A's ref of the removed row is retired in A's diff:\n{a3}"
    );
    let a4 = ok(&a, "browser_snapshot", json!({})).await;
    assert!(!a4.contains(OTHER) && a4.contains("no change"), "{a4}");

    // B's tab moves do not move A's current tab.
    let open_b = ok(
        &b,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/")}),
    )
    .await;
    let tab_b = aperture_testkit::mcp::opened_tab(&open_b);
    assert_ne!(tab_b, tab);
    ok(&b, "browser_tabs", json!({"action": "select", "tab": tab_b})).await;
    let a5 = ok(&a, "browser_snapshot", json!({})).await;
    assert!(
        a5.starts_with(&format!("tab {tab}:")),
        "A's current tab is still {tab}:\n{a5}"
    );
    let la = ok(&a, "browser_tabs", json!({"action": "list"})).await;
    let cur = la.lines().find(|l| l.contains("current")).unwrap_or_default();
    assert!(cur.starts_with(&format!("tab {tab} ")), "{la}");
    let lb = ok(&b, "browser_tabs", json!({"action": "list"})).await;
    let cur = lb.lines().find(|l| l.contains("current")).unwrap_or_default();
    assert!(cur.starts_with(&format!("tab {tab_b} ")), "{lb}");

    // Both act on the first tab at once, each with a ref from its own observation: they take
    // turns; the second is first brought up to date (the other's change, in its own diff),
    // then its click lands on its own element.
    let b2 = ok(&b, "browser_snapshot", json!({"tab": tab, "full": true})).await;
    let a6 = ok(&a, "browser_snapshot", json!({"full": true})).await;
    let apples_a = role_ref(&a6, "button", "Remove apples");
    let dates_b = role_ref(&b2, "button", "Remove dates");
    let click = |c, t: u64, r: String| async move {
        ok(c, "browser_act", json!({"tab": t, "action": "click", "ref": r})).await
    };
    let (ra, rb) = tokio::join!(click(&a, tab, apples_a), click(&b, tab, dates_b));
    assert!(
        ra.contains(OTHER) ^ rb.contains(OTHER),
        "exactly the second one to act hears of the first:\nA: {ra}\nB: {rb}"
    );
    let text_now = ok(&a, "browser_read", json!({})).await;
    assert!(text_now.contains("cheese"), "{text_now}");
    for gone in ["apples", "bread", "dates"] {
        assert!(!text_now.contains(gone), "{gone} still listed:\n{text_now}");
    }
    drop((a, b));
}
