//! A control with no name at all (an icon drawn by CSS, as in an inbox row's
//! `<span class="trash">`) shows a hint made of the words of its test id, authored id and
//! class names (short and generic words left out), so
//! the agent can tell the row's delete from its star; before, each read `eN clickable` and
//! nothing else. Generated words (with digits) are left out, and a named control has no hint.

use aperture_testkit::mcp::{goto, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>Inbox</title>
<style>.ic{display:inline-block;width:16px;height:16px;background:#888;margin:2px;cursor:pointer}</style>
</head><body>
<div class="thread"><span>Bob</span> <span>Lunch</span>
<span class="ic trash" onclick="say('trash')"></span>
<span class="ic star css-1x2y3z" onclick="say('star')"></span>
<span class="ic" id="reply"></span>
<span class="ic archive" aria-label="Archive" onclick="say('archive')"></span></div>
<p id="st"></p>
<script>
function say(x) { document.getElementById('st').textContent = 'did ' + x; }
document.getElementById('reply').addEventListener('click', () => say('reply'));
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

/// The ref on the line that says `tail` (its look, `look="grey 16x16"`, may follow).
fn ref_ending(snap: &str, tail: &str) -> String {
    let line = snap
        .lines()
        .find(|l| l.contains(tail))
        .unwrap_or_else(|| panic!("no line with {tail} in:\n{snap}"));
    line.split_whitespace()
        .find(|w| w.starts_with('e') && w[1..].chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no ref on {line:?}"))
        .to_string()
}

#[tokio::test]
async fn nameless_icon_controls_show_their_class_words() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let trash = ref_ending(&snap, "clickable hint=\"trash\"");
    // The generated word is left out.
    ref_ending(&snap, "clickable hint=\"star\"");
    // The authored id comes first.
    let reply = ref_ending(&snap, "clickable hint=\"reply\"");
    // A named control needs no hint.
    assert!(snap.contains("\"Archive\""), "{snap}");
    assert_eq!(snap.matches("hint=").count(), 3, "{snap}");

    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": reply})).await;
    assert!(!err && ans.contains("did reply"), "{ans}");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": trash})).await;
    assert!(!err && ans.contains("did trash"), "{ans}");
}
