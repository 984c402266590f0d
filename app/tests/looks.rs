//! What only its looks tell apart is described by them: the clickable shapes of an SVG
//! drawing (`look="red circle 10x10"`) and nameless colour swatches. Before, a grid of
//! clickable shapes read as a column of bare `clickable` lines, so "click the small red
//! circle" or "how many red triangles are there?" could not be answered from the text.

use aperture_testkit::mcp::{element_lines, goto, ref_for, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>Shapes</title>
<style>
.sw { display:inline-block; width:50px; height:50px; margin:4px; }
svg { display:block; }
</style></head><body>
<p id="q">Click on a large blue rectangle</p>
<svg id="grid" width="160" height="160">
  <circle id="c" cx="10" cy="10" r="5" fill="red"></circle>
  <rect id="r" x="40" y="40" width="20" height="20" fill="blue"></rect>
  <polygon id="t" points="90,110 100,90 110,110" fill="#00ff00"></polygon>
  <text id="k" x="130" y="130" font-size="20px" fill="magenta">k</text>
  <circle id="dot" cx="150" cy="10" r="1" fill="red"></circle>
</svg>
<div id="swatches"><span class="sw" data-c="olive" style="background:olive"></span><span class="sw" data-c="cyan" style="background:cyan"></span></div>
<button id="plain" onclick="say('plain')"></button>
<span class="sw" id="iconed" style="background:red" onclick="say('iconed')"><img alt="" width="8" height="8"></span>
<button id="search" onclick="say('search')"><svg width="16" height="16"><path d="M1 1L15 15" stroke="black"></path><circle cx="6" cy="6" r="4" fill="grey"></circle></svg>Search</button>
<button id="recolour" onclick="document.getElementById('c').setAttribute('fill', 'yellow')">Recolour</button>
<input id="blank" style="background:white">
<p id="st"></p>
<script>
function say(x) { document.getElementById('st').textContent = 'did ' + x; }
for (const id of ['c', 'r', 't', 'k', 'dot']) document.getElementById(id).addEventListener('click', () => say(id));
for (const s of document.querySelectorAll('.sw')) s.addEventListener('click', () => say(s.dataset.c));
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn shapes_and_swatches_are_described_by_their_looks() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let lines = element_lines(&snap);
    let has = |needle: &str| lines.iter().filter(|l| l.contains(needle)).count();

    // Clickable shapes: colour, kind and size, each with its ref.
    let circle = ref_for(&snap, "look=\"red circle 10x10\"");
    let rect = ref_for(&snap, "look=\"blue rectangle 20x20\"");
    ref_for(&snap, "look=\"lime triangle 20x20\"");
    // A lettered shape is named by its letter and still says its colour.
    let letter = ref_for(&snap, "\"k\"");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&letter) && l.contains("look=\"magenta ")),
        "{snap}"
    );
    // Nameless swatches say their colour.
    let olive = ref_for(&snap, "look=\"olive 50x50\"");
    ref_for(&snap, "look=\"cyan 50x50\"");
    // Chromium's unstyled button face, a box around a picture and a dot too small to make
    // out say nothing.
    assert_eq!(has("look="), 6, "{snap}");
    // A field's box is where its value goes, not a look.
    assert!(
        !lines.iter().any(|l| l.contains("textbox") && l.contains("look=")),
        "{snap}"
    );
    // An icon inside a named control is not described: the name says it.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("look=") && (l.contains("grey circle") || l.contains("\"Search\""))),
        "{snap}"
    );

    for (r, said) in [(&rect, "did r"), (&circle, "did c"), (&olive, "did olive")] {
        let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": r})).await;
        assert!(
            !err && ans.contains(said),
            "clicking {r} should say {said}:\n{ans}"
        );
    }

    // A change of colour is a change the diff reports.
    let recolour = ref_for(&snap, "\"Recolour\"");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": recolour})).await;
    assert!(!err && ans.contains("look=\"yellow circle 10x10\""), "{ans}");
}
