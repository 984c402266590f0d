//! Two MCP sessions on one browser (the scripted backend, over the real HTTP listener): each
//! has its own current tab and its own page model of each tab; one session's observation
//! never advances another's; a session is told when another acted on a tab it observed; a
//! closed or expired session's page models go with it.

#![forbid(unsafe_code)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use aperture_mcp::backend::Backend;
use aperture_mcp::{HttpConfig, HttpServer, Token, serve_http};
use aperture_testkit::mcp::{connect, ref_for};
use common::{Fake, Page, call, text};
use serde_json::json;

const OTHER: &str = "another MCP session acted on this tab since your last observation";

async fn start(idle: Duration, backend: Arc<dyn Backend>) -> HttpServer {
    let config = HttpConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        token: Token::generate(),
        max_sessions: 8,
        session_idle: idle,
    };
    serve_http(config, backend).await.expect("listener")
}

fn ok(r: &rmcp::model::CallToolResult) -> String {
    let t = text(r);
    assert_ne!(r.is_error, Some(true), "{t}");
    t
}

#[tokio::test]
async fn each_session_diffs_against_its_own_state_and_hears_of_the_others() {
    let fake = Fake::new();
    fake.add_tab(
        Page::list("https://shop.example/", &["apples", "bread", "milk"]),
        true,
    );
    let server = start(Duration::from_secs(600), fake.clone()).await;
    let a = connect(&server.url(), server.token().expose()).await;
    let b = connect(&server.url(), server.token().expose()).await;

    let a1 = ok(&call(&a, "browser_snapshot", json!({})).await);
    assert!(a1.contains("FULL SNAPSHOT"), "{a1}");
    // B's first look is its own full snapshot, though A has observed the tab.
    let b1 = ok(&call(&b, "browser_snapshot", json!({})).await);
    assert!(b1.contains("FULL SNAPSHOT"), "{b1}");
    assert!(!b1.contains(OTHER), "{b1}");
    // A's state did not move with B's observation: nothing changed for A.
    let a2 = ok(&call(&a, "browser_snapshot", json!({})).await);
    assert!(!a2.contains("FULL SNAPSHOT") && !a2.contains(OTHER), "{a2}");
    assert!(!a2.contains("bread"), "nothing changed for A:\n{a2}");

    // B removes a row. A's next look is a diff against A's own last state and says why.
    let bread = ref_for(&b1, "Remove bread");
    let bc = ok(&call(&b, "browser_act", json!({"action": "click", "ref": bread})).await);
    assert!(!bc.contains(OTHER), "B acted itself:\n{bc}");
    assert_eq!(
        fake.page(aperture_mcp::backend::TabId(1)).rows,
        ["apples", "milk"]
    );
    let a3 = ok(&call(&a, "browser_snapshot", json!({})).await);
    assert!(a3.contains(OTHER), "{a3}");
    assert!(!a3.contains("FULL SNAPSHOT"), "a diff, not a reset:\n{a3}");
    let bread_a = ref_for(&a1, "Remove bread");
    assert!(
        a3.lines().any(|l| l.contains("gone") && l.contains(&bread_a)),
        "the diff retires A's ref of the removed row:\n{a3}"
    );
    // Said once: the next look has nothing new from B.
    let a4 = ok(&call(&a, "browser_snapshot", json!({})).await);
    assert!(!a4.contains(OTHER), "{a4}");
    // A batch of B's refused before anything was sent changed nothing: A hears nothing of it.
    let refused = call(&b, "browser_act", json!({"action": "click", "ref": "e99"})).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    let a5 = ok(&call(&a, "browser_snapshot", json!({})).await);
    assert!(!a5.contains(OTHER) && a5.contains("no change"), "{a5}");

    // A acts on a ref from its own state after B re-walked the page: the batch first brings
    // A up to date (B's changes, as a diff) and the click lands.
    let milk_a = ref_for(&a1, "Remove milk");
    let b_before = ok(&call(&b, "browser_snapshot", json!({"full": true})).await);
    assert!(!b_before.contains(OTHER), "{b_before}");
    let milk_b = ref_for(&b_before, "Remove milk");
    let ac = ok(&call(&a, "browser_act", json!({"action": "click", "ref": milk_a})).await);
    assert_eq!(
        fake.page(aperture_mcp::backend::TabId(1)).rows,
        ["apples"],
        "{ac}"
    );
    let b2 = ok(&call(&b, "browser_snapshot", json!({})).await);
    assert!(b2.contains(OTHER), "{b2}");
    assert!(
        b2.lines().any(|l| l.contains("gone") && l.contains(&milk_b)),
        "{b2}"
    );
    drop((a, b));
    server.shutdown();
}

#[tokio::test]
async fn each_session_has_its_own_current_tab() {
    let fake = Fake::new();
    let one = fake.add_tab(Page::list("https://one.example/", &["x"]), true);
    let two = fake.add_tab(Page::list("https://two.example/", &["y"]), true);
    let server = start(Duration::from_secs(600), fake.clone()).await;
    let a = connect(&server.url(), server.token().expose()).await;
    let b = connect(&server.url(), server.token().expose()).await;
    ok(&call(&a, "browser_tabs", json!({"action": "select", "tab": two.0})).await);
    ok(&call(&b, "browser_tabs", json!({"action": "select", "tab": one.0})).await);
    let sa = ok(&call(&a, "browser_snapshot", json!({})).await);
    let sb = ok(&call(&b, "browser_snapshot", json!({})).await);
    assert!(sa.starts_with(&format!("tab {two}:")), "{sa}");
    assert!(sb.starts_with(&format!("tab {one}:")), "{sb}");
    let la = ok(&call(&a, "browser_tabs", json!({"action": "list"})).await);
    let current = la
        .lines()
        .find(|l| l.contains("current"))
        .unwrap_or_default()
        .to_string();
    assert!(current.starts_with(&format!("tab {two} ")), "{la}");
    drop((a, b));
    server.shutdown();
}

#[tokio::test]
async fn a_session_s_page_models_go_when_it_expires() {
    let fake = Fake::new();
    fake.add_tab(Page::list("https://shop.example/", &["apples"]), true);
    // Long enough that a loaded machine's stall between B's calls (250 ms apart) does not let
    // B's session expire too.
    let idle = Duration::from_secs(3);
    let server = start(idle, fake.clone()).await;
    let a = connect(&server.url(), server.token().expose()).await;
    let b = connect(&server.url(), server.token().expose()).await;
    ok(&call(&a, "browser_snapshot", json!({})).await);
    ok(&call(&b, "browser_snapshot", json!({})).await);
    assert_eq!(server.page_models(), 2);
    // B keeps using its session; A goes quiet and expires.
    let until = tokio::time::Instant::now() + idle * 3;
    while tokio::time::Instant::now() < until {
        ok(&call(&b, "browser_tabs", json!({"action": "list"})).await);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(server.session_count(), 1);
    assert_eq!(
        server.page_models(),
        1,
        "the expired session's page model is gone"
    );
    drop(b);
    server.shutdown();
}
