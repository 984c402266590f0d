//! A scroll's answer says what moved, read from the page after the (animated) scroll stopped:
//! the page and where it is now, an inner scrolling area (an app's own pane, a list), or that
//! nothing moved because it scrolls no further that way. Before, it said "scrolled by (0,
//! 600)" whatever happened, so an agent paging down a list that had ended kept paging.

use aperture_testkit::mcp::{goto, ref_for, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const LONG: &str = r##"<!doctype html><html><head><title>Long</title></head><body style="margin:0">
<p>Top of a long page</p>
<div id="list" style="height:150px;overflow:auto;border:1px solid">
  <button>Item one</button><div style="height:1000px"></div><p>End of list</p>
</div>
<div style="height:3000px"></div>
<p>Bottom</p>
</body></html>"##;

/// An app whose document does not scroll: its pane does.
const APP: &str = r##"<!doctype html><html><head><title>App</title></head>
<body style="margin:0;height:100vh;overflow:hidden">
<main style="position:fixed;inset:0;overflow:auto">
  <p style="margin-top:300px;height:600px;border:1px solid">A message in the pane</p>
  <div style="height:3000px"></div>
</main>
</body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

async fn scroll(c: &aperture_testkit::mcp::Client, args: serde_json::Value) -> String {
    let (err, ans) = tool(c, "browser_act", args.clone()).await;
    assert!(!err, "{args}:\n{ans}");
    ans
}

#[tokio::test]
async fn a_scroll_says_what_moved() {
    let browser = launch().await;
    let server = Server::start(
        HashMap::from([
            ("/long".to_string(), LONG.to_string()),
            ("/app".to_string(), APP.to_string()),
        ]),
        None,
    );
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/long")).await;

    // Aimed at an element inside a scrolling list: the list moves, not the page.
    let item = ref_for(&snap, "\"Item one\"");
    let ans = scroll(&c, json!({"action": "scroll", "ref": item, "dy": 100})).await;
    assert!(
        ans.contains(&format!("scrolled the area holding {item} by (0, 100)")),
        "{ans}"
    );

    let ans = scroll(&c, json!({"action": "scroll", "dy": 400})).await;
    assert!(
        ans.contains("scrolled the page by (0, 400), to (0, 400)"),
        "{ans}"
    );
    let ans = scroll(&c, json!({"action": "scroll", "dy": -5000})).await;
    assert!(ans.contains("scrolled the page by (0, -400), to (0, 0)"), "{ans}");
    let ans = scroll(&c, json!({"action": "scroll", "dy": -300})).await;
    assert!(ans.contains("nothing moved"), "at the top, scrolling up:\n{ans}");

    // An app's pane under the pointer, while the document itself cannot scroll.
    goto(&c, &server.url("/app")).await;
    let ans = scroll(&c, json!({"action": "scroll", "dy": 200})).await;
    assert!(
        ans.contains("scrolled the area under the pointer by (0, 200)"),
        "{ans}"
    );
}
