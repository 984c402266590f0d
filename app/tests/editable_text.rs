//! Text in editing hosts and sentences reads as a person reads it. Inside a contenteditable
//! region every element is content-editable too, but only the host is a field: a word made
//! bold in an editor became a `textbox` of its own with a ref, and the host's line read "The
//! brown fox" beside its value. An editor's paragraphs ran together in its value ("First
//! paraSecond para"), and a sentence ending with an inline element lost the space before it
//! ("SelectWp3"). The bold word itself is made as an agent makes it: keys select it (Home,
//! ArrowRight, Shift+ArrowRight) and a click on the toolbar's B; the page reports the
//! editor's markup to the fixture server, whose log no answer of the browser can influence.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, eventually, local_browser};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

const PAGE: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Editor</title></head><body>
<p>Make a word bold, then select <b>Wp3</b></p>
<button id="bold" onmousedown="event.preventDefault()" onclick="document.execCommand('bold');
  fetch('/html/' + encodeURIComponent(document.getElementById('ed').innerHTML), {keepalive: true})">Bold</button>
<div id="ed" contenteditable="true" aria-label="Story">The quick brown fox</div>
<div id="notes" contenteditable="true" aria-label="Notes"><p>First para</p><p>Second <i>para</i></p></div>
</body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn editors_and_sentences_read_as_a_person_reads_them() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/e".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/e")).await;
    assert!(snap.contains("\"Make a word bold, then select Wp3\""), "{snap}");
    assert!(
        snap.contains("textbox \"Story\" value=\"The quick brown fox\"\n"),
        "{snap}"
    );
    assert!(
        snap.contains("textbox \"Notes\" value=\"First para Second para\"\n"),
        "{snap}"
    );
    assert_eq!(snap.matches(" textbox ").count(), 2, "{snap}");
    let story = role_ref(&snap, "textbox", "Story");
    let bold = role_ref(&snap, "button", "Bold");

    let mut steps = vec![json!({"action": "key", "ref": story, "key": "Home"})];
    steps.extend((0..4).map(|_| json!({"action": "key", "key": "ArrowRight"})));
    steps.extend((0..5).map(|_| json!({"action": "key", "key": "Shift+ArrowRight"})));
    steps.push(json!({"action": "click", "ref": bold}));
    let (err, t) = tool(&c, "browser_act", json!({"steps": steps})).await;
    assert!(!err, "{t}");
    let html = eventually(Duration::from_secs(20), "the editor's markup", async || {
        let h = server
            .requests()
            .into_iter()
            .find_map(|p| p.strip_prefix("/html/").map(str::to_string));
        (h.is_some(), h)
    })
    .await
    .unwrap_or_default();
    assert_eq!(html, "The%20%3Cb%3Equick%3C%2Fb%3E%20brown%20fox");
    // The answer shows the bold word, as text of the editor: no new field, no new ref.
    assert!(t.contains(&format!("+ first in {story}\n \"quick\"\n")), "{t}");
}
