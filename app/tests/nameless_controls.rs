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

/// Icon buttons as toolkits draw them: a glyph put in by CSS (`::before`), an icon font's
/// `<i class="fa fa-trash">` (its glyph a private-use character that says nothing), an SVG
/// sprite's `<use href="#icon-edit">`, an image with no alt, and a glyph given alternative
/// text (`content: "★" / "Favourite"`).
const ICONS: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Todos</title>
<style>
.close::before{content:"\2715"}
.fa-trash::before{content:"\f1f8"}
.fav::after{content:"\2605" / "Favourite"}
.gone::before{content:"X";display:none}
</style></head><body>
<svg style="display:none"><symbol id="icon-edit" viewBox="0 0 8 8"><path d="M0 0h8v8z"/></symbol></svg>
<ul><li>Buy milk
<button class="btn btn-sm" onclick="say('trash')"><i class="fa fa-trash"></i></button>
<button class="close" onclick="say('close')"></button>
<button onclick="say('edit')"><svg width="16" height="16"><use href="#icon-edit"/></svg></button>
<button onclick="say('pin')"><img src="/static/pin.svg?v=3" width="16" height="16"></button>
<button onclick="say('fav')"><span class="fav"></span></button>
<button class="gone" onclick="say('gone')"></button>
</li></ul>
<p id="st"></p>
<script>function say(x) { document.getElementById('st').textContent = 'did ' + x; }</script>
</body></html>"##;

#[tokio::test]
async fn icon_buttons_are_named_by_their_generated_content_or_their_icon() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/t".to_string(), ICONS.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/t")).await;
    // Generated content names a control, as in Chromium's accessibility tree.
    let close = ref_ending(&snap, "button \"✕\"");
    // Alternative text given for it is what it says.
    ref_ending(&snap, "button \"Favourite\"");
    // An icon font's glyph says nothing: its class does.
    let trash = ref_ending(&snap, "button hint=\"trash\"");
    ref_ending(&snap, "button hint=\"edit\"");
    ref_ending(&snap, "button hint=\"pin\"");
    // Content that is not shown names nothing.
    assert!(!snap.contains("\"X\""), "{snap}");
    assert!(!snap.contains('\u{f1f8}'), "{snap}");

    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": close})).await;
    assert!(!err && ans.contains("did close"), "{ans}");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": trash})).await;
    assert!(!err && ans.contains("did trash"), "{ans}");
}

/// A thousand nameless controls drawn by CSS: reading generated content costs a style
/// computation per pseudo-element, so one walk reads at most a budget of them (the first few
/// hundred controls are named, the rest are not) instead of slowing every observation.
#[tokio::test]
async fn generated_content_is_read_within_a_budget_per_walk() {
    let browser = launch().await;
    let buttons: String = (0..1000)
        .map(|i| format!("<button class=\"x\" data-i=\"{i}\"></button>"))
        .collect();
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Many</title>\
         <style>.x::before{{content:\"\\2715\"}}</style></head><body>{buttons}</body></html>"
    );
    let server = Server::start(HashMap::from([("/m".to_string(), page)]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/m")).await;
    let named = snap.matches("button \"✕\"").count();
    assert!((100..1000).contains(&named), "{named} named:\n{snap}");
    let (_, again) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert_eq!(
        again.matches("button \"✕\"").count(),
        named,
        "the same ones each walk"
    );
}
