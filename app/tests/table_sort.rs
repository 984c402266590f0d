//! A sortable table's header says which way it sorts (`aria-sort`), so an agent asked to
//! sort a column can see that its click took and in which direction, without reading and
//! comparing every row. `aria-sort="none"` says nothing; the attribute counts on table
//! headers only, as in Chromium.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>People</title></head><body>
<table><thead><tr>
<th id="h" aria-sort="none"><button onclick="flip()">Name</button></th><th>Age</th>
</tr></thead><tbody id="b"><tr><td>Bea</td><td>30</td></tr><tr><td>Al</td><td>40</td></tr></tbody></table>
<div aria-sort="ascending">not a header</div>
<script>
function flip() {
  const h = document.getElementById('h');
  h.setAttribute('aria-sort', h.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending');
  const b = document.getElementById('b');
  b.append(...[...b.rows].reverse());
}
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

/// The snapshot line of the Name column's header.
fn header_line(snap: &str) -> String {
    snap.lines()
        .find(|l| l.trim_start().starts_with("columnheader") && l.contains("\"Name\""))
        .unwrap_or_else(|| panic!("no Name header in:\n{snap}"))
        .to_string()
}

#[tokio::test]
async fn a_sorted_header_says_which_way() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    assert!(
        !snap.contains("sort="),
        "aria-sort=none, or off a header, said something:\n{snap}"
    );
    let name = role_ref(&snap, "button", "Name");

    let (err, _) = tool(&c, "browser_act", json!({"action": "click", "ref": name})).await;
    assert!(!err);
    let (_, full) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(header_line(&full).ends_with("sort=ascending"), "{full}");

    // The change of direction alone shows in the next answer's diff.
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": name})).await;
    assert!(!err);
    assert!(
        ans.contains("sort=descending"),
        "the flip to descending is not in the answer:\n{ans}"
    );
    let (_, full) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(header_line(&full).ends_with("sort=descending"), "{full}");
    assert_eq!(full.matches("sort=").count(), 1, "{full}");
}
