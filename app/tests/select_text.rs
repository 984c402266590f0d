//! `browser_act select_text` selects text as a person dragging across it would: words on
//! the page (white space compared as one space), all the text of an element, or words in a
//! field's value; the page sees the selection (`selectionchange`, `select`, and
//! `getSelection()` when a button reads it), and text that is not there is refused with
//! nothing changed. Before, a task such as "highlight the paragraph" or "make this word
//! bold" in an editor could not be done at all.

use aperture_testkit::mcp::{goto, ref_for, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>Select</title></head><body>
<p hidden>Hidden: jumps over the lazy dog</p>
<select aria-label="Pick"><option>jumps over the lazy dog</option></select>
<p id="para">The quick brown fox
   jumps   over <b>the lazy</b> dog.</p>
<p id="other">Another paragraph entirely.</p>
<input id="f" aria-label="Field" value="hello world">
<input id="pw" type="password" aria-label="Secret" value="hunter2">
<button id="read" onclick="document.getElementById('got').textContent = 'read:' + getSelection().toString()">Read selection</button>
<p id="st"></p><p id="fs"></p><p id="got"></p>
<script>
document.addEventListener('selectionchange', () => {
  const s = getSelection().toString();
  if (s) document.getElementById('st').textContent = 'sel:' + s;
});
const f = document.getElementById('f');
f.addEventListener('select', () => {
  document.getElementById('fs').textContent = 'field:' + f.value.slice(f.selectionStart, f.selectionEnd);
});
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn text_is_selected_where_the_agent_says() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let read = ref_for(&snap, "\"Read selection\"");
    let field = ref_for(&snap, "\"Field\"");
    let secret = ref_for(&snap, "\"Secret\"");

    // Words across a line break, a run of spaces and an element boundary; the same words in
    // a hidden paragraph and in a select's option come first in the markup, but are not drawn
    // as text, and are passed over.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "select_text", "text": "jumps over the lazy dog"}),
    )
    .await;
    assert!(!err, "{ans}");
    assert!(ans.contains("selected "), "{ans}");
    assert!(ans.contains("sel:jumps over the lazy dog\""), "{ans}");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": read})).await;
    assert!(
        !err && ans.contains("read:jumps over the lazy dog\""),
        "the page's getSelection() after the click:\n{ans}"
    );

    // Any case, when no exact match exists.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "select_text", "text": "ANOTHER PARAGRAPH"}),
    )
    .await;
    assert!(!err && ans.contains("sel:Another paragraph"), "{ans}");

    // A field: the words in its value.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "select_text", "ref": field, "text": "world"}),
    )
    .await;
    assert!(!err && ans.contains("field:world"), "{ans}");
    assert!(
        ans.contains(&format!("selected \"world\" in {field}")),
        "the answer echoes the words asked for: {ans}"
    );
    // The field alone: all of it.
    let (err, ans) = tool(&c, "browser_act", json!({"action": "select_text", "ref": field})).await;
    assert!(!err && ans.contains("field:hello world"), "{ans}");

    // Text that is not there: refused, and the selection the page has is kept.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "select_text", "text": "not on this page"}),
    )
    .await;
    assert!(
        err && ans.contains("not there") && ans.contains("nothing was sent"),
        "{ans}"
    );
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": read})).await;
    assert!(!err && ans.contains("read:hello world"), "{ans}");

    // A password is never searched, in the field or on the page (each answer would say
    // whether a guess is in it); selecting all of it is allowed and says nothing of it.
    for args in [
        json!({"action": "select_text", "ref": secret, "text": "hunt"}),
        json!({"action": "select_text", "text": "hunter2"}),
    ] {
        let (err, ans) = tool(&c, "browser_act", args).await;
        assert!(err && ans.contains("not there"), "{ans}");
    }
    let (err, ans) = tool(&c, "browser_act", json!({"action": "select_text", "ref": secret})).await;
    assert!(
        !err && ans.contains(&format!("selected all the text in {secret}")),
        "{ans}"
    );
    assert!(!ans.contains("hunter") && !ans.contains(" 7 "), "{ans}");

    // Neither text nor ref: a usage error naming both.
    let (err, ans) = tool(&c, "browser_act", json!({"action": "select_text"})).await;
    assert!(err && ans.contains("`text`") && ans.contains("`ref`"), "{ans}");
}
