//! What only its looks tell apart is described by them: the shapes of an SVG drawing
//! (`look="red circle 10x10"`), whether they listen for clicks or are only drawn, and nameless
//! colour swatches. Before, a grid of clickable shapes read as a column of bare `clickable`
//! lines and a drawing that was not clickable was not there at all, so "click the small red
//! circle" or "how many triangles are there?" could not be answered from the text.

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
</svg>
<svg id="count" width="120" height="80">
  <circle cx="20" cy="20" r="10" fill="black"></circle>
  <polygon points="50,30 60,10 70,30" fill="olive"></polygon>
  <polygon points="80,30 90,10 100,30" fill="olive"></polygon>
</svg>
<div id="swatches"><span class="sw" data-c="olive" style="background:olive"></span><span class="sw" data-c="cyan" style="background:cyan"></span></div>
<button id="search" onclick="say('search')"><svg width="16" height="16"><path d="M1 1L15 15" stroke="black"></path><circle cx="6" cy="6" r="4" fill="grey"></circle></svg>Search</button>
<button id="recolour" onclick="document.getElementById('c').setAttribute('fill', 'yellow')">Recolour</button>
<input id="blank" style="background:white">
<p id="st"></p>
<script>
function say(x) { document.getElementById('st').textContent = 'did ' + x; }
for (const id of ['c', 'r', 't', 'k']) document.getElementById(id).addEventListener('click', () => say(id));
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
    // A drawing nobody listens to is still there to be counted, without refs.
    assert_eq!(has("img look=\"black circle 20x20\""), 1, "{snap}");
    assert_eq!(has("img look=\"olive triangle 20x20\""), 2, "{snap}");
    // Nameless swatches say their colour.
    let olive = ref_for(&snap, "look=\"olive 50x50\"");
    ref_for(&snap, "look=\"cyan 50x50\"");
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
