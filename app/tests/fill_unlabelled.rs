//! `browser_fill_form` echoes each filled field's label (page text, fenced) so the agent can
//! check it filled what it meant to; a field with no label at all says so in words instead of
//! answering with an empty fence, and gives the caption shown just before it when there is one
//! (a form whose captions are not `<label for>`s), unless another field comes between.

use aperture_testkit::mcp::{goto, refs_for, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>Form</title></head><body>
<input id="t"> <input aria-label="Email">
<p><label>Username</label><input id="u"></p>
<p><input id="v"></p>
<div><p>Search for the 6th result</p></div><div><input id="w"></div>
<p>Colour: <input id="c"></p>
</body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn a_field_without_a_label_says_so_instead_of_an_empty_fence() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/f".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/f")).await;
    let refs = refs_for(&snap, "textbox");
    assert_eq!(refs.len(), 6, "{snap}");
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": refs[0], "value": "one"}, {"ref": refs[1], "value": "a@b.example"}]}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(
        t.contains(&format!("1. {} filled (it has no label)", refs[0])),
        "{t}"
    );
    assert!(t.contains(&format!("2. {} filled; its label:", refs[1])), "{t}");
    // No fence opens and closes around nothing.
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        !lines
            .windows(2)
            .any(|w| w[0].starts_with("<untrusted-page-content")
                && w[1].starts_with("</untrusted-page-content")),
        "{t}"
    );
    assert!(t.contains("value=\"one\""), "{t}");

    // A caption that is not a <label for>: given, fenced; a field right after another field
    // gets none (the caption before that one is not its own).
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": refs[2], "value": "ann"}, {"ref": refs[3], "value": "x"}]}),
    )
    .await;
    assert!(!err, "{t}");
    let (one, two) = t.split_once("\n2. ").expect("two answers");
    assert!(
        one.contains(&format!(
            "1. {} filled; it has no label, and the text just before it is:",
            refs[2]
        )) && one.contains("<untrusted-page-content")
            && one.contains("\"Username\""),
        "{t}"
    );
    assert!(
        two.starts_with(&format!("{} filled (it has no label)", refs[3])),
        "{t}"
    );

    // Words elsewhere on the page (an instruction in another block) are no caption.
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": refs[4], "value": "y"}]}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(
        t.contains(&format!("1. {} filled (it has no label)", refs[4])),
        "{t}"
    );
    // A caption ending in a colon, in the field's own line.
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": refs[5], "value": "red"}]}),
    )
    .await;
    assert!(!err && t.contains("\"Colour:\""), "{t}");
}
