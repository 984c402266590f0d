//! `browser_snapshot`'s observation modes and views (issue 15) through a real MCP client
//! against the scripted backend.

#![forbid(unsafe_code)]

mod common;

use aperture_testkit::mcp::ref_for;
use common::*;
use serde_json::json;

#[tokio::test]
async fn modes_stick_to_the_tab_and_are_announced_by_a_full_snapshot() {
    let fake = Fake::new();
    fake.add_tab(
        Page::list("https://shop.example/list", &["apples", "bread"]),
        true,
    );
    let client = pipe_client(fake.clone()).await;

    let first = text(&call(&client, "browser_snapshot", json!({})).await);
    assert!(first.contains("listitem \"apples\""), "{first}");
    let bread = ref_for(&first, "Remove bread");

    // Actionable elements only: the rows' text goes, every ref stays.
    let r = call(&client, "browser_snapshot", json!({"interactive": true})).await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(t.contains("FULL SNAPSHOT #2.0 (mode changed)"), "{t}");
    assert!(!t.contains("\"apples\""), "{t}");
    assert!(t.contains(&format!("{bread} button \"Remove bread\"")), "{t}");
    // The mode sticks: the next observation is a diff in it.
    let t = text(&call(&client, "browser_snapshot", json!({})).await);
    assert!(t.starts_with("tab 1:\nno change since #2.0"), "{t}");
    let r = call(&client, "browser_act", json!({"action": "click", "ref": bread})).await;
    let t = text(&r);
    assert!(t.contains(&format!("- {bread}")), "{t}");
    assert!(!t.contains("\"apples\""), "{t}");

    // A view shows a part in full, whatever the mode, and moves nothing.
    let apples = ref_for(&first, "Remove apples");
    let t = text(&call(&client, "browser_snapshot", json!({"ref": apples})).await);
    assert!(t.contains(&format!("VIEW of {apples} at #2.1")), "{t}");
    let (outside, _) = split_envelopes(&t);
    assert!(outside.contains("no change since #2.1"), "{t}");
    let r = call(&client, "browser_snapshot", json!({"ref": "e999"})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));

    // Back to everything, under a budget that cuts.
    let t = text(
        &call(
            &client,
            "browser_snapshot",
            json!({"interactive": false, "max_tokens": 12}),
        )
        .await,
    );
    assert!(t.contains("(mode changed)"), "{t}");
    assert!(t.contains("note: cut at max_tokens=12"), "{t}");
    let (outside, _) = split_envelopes(&t);
    assert!(outside.contains("note: cut"), "the note is harness text:\n{t}");
}

#[tokio::test]
async fn the_schema_offers_the_modes() {
    let fake = Fake::new();
    let client = pipe_client(fake).await;
    let tools = client.list_all_tools().await.expect("tools");
    let snap = tools
        .iter()
        .find(|t| t.name == "browser_snapshot")
        .expect("browser_snapshot");
    let props = snap.input_schema.get("properties").expect("properties");
    for k in ["tab", "full", "urls", "interactive", "max_tokens", "ref"] {
        assert!(props.get(k).is_some(), "{k} missing from {props}");
    }
    assert_eq!(props["max_tokens"]["type"], "integer");
}
