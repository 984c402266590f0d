//! A click that makes the page open a new tab (a target=_blank link) says so in its answer,
//! with the tab's id and how to switch to it: an agent reads only the answer, and otherwise
//! goes on looking at the old tab without knowing what its click did. A click that opens no
//! tab says nothing of tabs.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>Links</title></head><body>
<a href="/report" target="_blank">Open report</a>
<button onclick="document.getElementById('s').textContent='stayed here'">Stay</button>
<p id="s"></p>
</body></html>"##;

const REPORT: &str = r##"<!doctype html><html><head><title>Report</title></head><body>
<h1>Quarterly report</h1></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn a_click_that_opens_a_tab_names_it() {
    let browser = launch().await;
    let server = Server::start(
        HashMap::from([
            ("/p".to_string(), PAGE.to_string()),
            ("/report".to_string(), REPORT.to_string()),
        ]),
        None,
    );
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;

    // A click that opens nothing: no word of tabs.
    let stay = role_ref(&snap, "button", "Stay");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": stay})).await;
    assert!(!err, "{ans}");
    assert!(ans.contains("stayed here"), "{ans}");
    assert!(
        !ans.contains("new tab"),
        "a click that opened no tab mentions one:\n{ans}"
    );

    let link = role_ref(&snap, "link", "Open report");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": link})).await;
    assert!(!err, "{ans}");
    let id: u64 = ans
        .split("a new tab opened meanwhile: tab ")
        .nth(1)
        .and_then(|r| r.split(|ch: char| !ch.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the click's answer does not name the tab it opened:\n{ans}"));
    assert!(
        ans.contains(&format!("browser_tabs action=select tab={id}")),
        "{ans}"
    );

    // The id named is the tab with the report, and the agent can switch to it.
    let (err, sel) = tool(&c, "browser_tabs", json!({"action": "select", "tab": id})).await;
    assert!(!err, "{sel}");
    let (err, snap) = tool(
        &c,
        "browser_act",
        json!({"action": "wait", "text": "Quarterly report"}),
    )
    .await;
    assert!(!err, "tab {id} is not the report:\n{snap}");
    let (_, now) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(now.contains("title \"Report\""), "{now}");
}
