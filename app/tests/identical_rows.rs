//! Identical siblings (rows nothing but their place tells apart) keep their refs while their
//! DOM nodes live: removing one row or adding another leaves the other rows' refs acting on
//! the rows they named, and only the removed row's ref is `gone:`. Before, any change to the
//! set retired every row's ref together.

use aperture_testkit::mcp::{goto, refs_for, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

// Each row's button says which row it was (a number the page keeps in a closure, not in the
// DOM, so the rows are identical to any reader).
const PAGE: &str = r##"<!doctype html><html><head><title>Rows</title></head><body>
<button id="add">Add row</button>
<ul id="list"></ul>
<p id="st">nothing yet</p>
<script>
let made = 0;
function row(first) {
  const n = ++made;
  const li = document.createElement('li');
  const b = document.createElement('button');
  b.textContent = 'Remove';
  b.onclick = () => { li.remove(); document.getElementById('st').textContent = 'removed row ' + n; };
  li.append(b);
  const list = document.getElementById('list');
  if (first) list.prepend(li); else list.append(li);
}
for (let i = 0; i < 4; i++) row(false);
document.getElementById('add').onclick = () => row(true);
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

async fn click(c: &aperture_testkit::mcp::Client, r: &str) -> String {
    let (err, ans) = tool(c, "browser_act", json!({"action": "click", "ref": r})).await;
    assert!(!err, "{ans}");
    assert!(!ans.contains("retired"), "{ans}");
    ans
}

#[tokio::test]
async fn identical_rows_keep_their_refs_when_a_row_comes_or_goes() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let rows = refs_for(&snap, "button \"Remove\"");
    assert_eq!(rows.len(), 4, "{snap}");

    // The second row goes: only its ref is gone.
    let ans = click(&c, &rows[1]).await;
    assert!(ans.contains("removed row 2"), "{ans}");
    assert!(ans.contains(&format!("gone: {}", rows[1])), "{ans}");
    for r in [&rows[0], &rows[2], &rows[3]] {
        assert!(
            !ans.contains(&format!("gone: {r}")) && !ans.contains(&format!("{r},")),
            "{ans}"
        );
    }
    // The fourth row's ref, issued before, still names the fourth row.
    let ans = click(&c, &rows[3]).await;
    assert!(ans.contains("removed row 4"), "{ans}");

    // A new identical row at the top gets a fresh ref; the third row's old ref still works.
    let snap = tool(&c, "browser_snapshot", json!({"full": true})).await.1;
    let add = role_ref(&snap, "button", "Add row");
    let ans = click(&c, &add).await;
    let snap = tool(&c, "browser_snapshot", json!({"full": true})).await.1;
    let now = refs_for(&snap, "button \"Remove\"");
    assert_eq!(now.len(), 3, "{ans}\n{snap}");
    assert!(!rows.contains(&now[0]), "a fresh ref for the new row: {snap}");
    assert_eq!(now[1..], [rows[0].clone(), rows[2].clone()], "{snap}");
    let ans = click(&c, &rows[2]).await;
    assert!(ans.contains("removed row 3"), "{ans}");
    let ans = click(&c, &now[0]).await;
    assert!(ans.contains("removed row 5"), "{ans}");
}
