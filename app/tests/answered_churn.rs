//! A value that changes in answer to each of the agent's inputs is reported every time: the
//! readout of a jQuery-UI-style slider (a span handle moved with arrow keys, its value in a
//! separate element) was marked `live` as churn after three key presses, and the answers to
//! the later presses said "no change" while the value went on moving. The handle, focusable
//! by its tabindex and listening only for keys, had no ref at all, so `key` could not be aimed
//! at it.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><title>Slider</title><style>
#track{position:relative;width:300px;height:10px;background:#ccc;margin:30px}
#handle{position:absolute;top:-5px;width:14px;height:20px;background:#36c}
</style></head><body>
<div id="track"><span id="handle" tabindex="0" style="left:0%"></span></div>
<div id="val">Value: 0</div>
<script>
let v = 0;
const h = document.getElementById('handle');
h.addEventListener('keydown', e => {
  if (e.key == 'ArrowRight') { v++; e.preventDefault(); }
  h.style.left = (v * 5) + '%';
  document.getElementById('val').textContent = 'Value: ' + v;
});
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn a_readout_answering_each_key_is_reported_each_time() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/s".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/s")).await;
    // The handle (tabindex, a keydown listener and nothing else) gets a ref: a `clickable`
    // line, the only one on the page.
    let handle = snap
        .lines()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            let r = w.next().filter(|r| r.starts_with('e'))?;
            (w.next() == Some("clickable")).then_some(r)
        })
        .unwrap_or_else(|| panic!("no handle in:\n{snap}"))
        .to_string();
    for k in 1..=7 {
        let (err, t) = tool(
            &c,
            "browser_act",
            json!({"action": "key", "ref": handle, "key": "ArrowRight"}),
        )
        .await;
        assert!(!err, "{t}");
        assert!(
            t.contains(&format!("\"Value: {k}\"")) && !t.contains(" live"),
            "press {k}: the answer shows the new value, not marked live:\n{t}"
        );
    }
}

/// A script-made ARIA slider says its value only in `aria-valuenow`: the snapshot showed
/// `slider "Volume"` with no value, and a key that moved it answered "no change".
const ARIA: &str = r##"<!doctype html><html><head><title>Aria slider</title></head><body>
<div id="lbl">Volume</div>
<div id="s" role="slider" tabindex="0" aria-labelledby="lbl" aria-valuemin="0" aria-valuemax="10"
  aria-valuenow="3" style="width:200px;height:10px;background:#ccc"></div>
<script>
const s = document.getElementById('s');
s.addEventListener('keydown', e => {
  if (e.key == 'ArrowRight') s.setAttribute('aria-valuenow', +s.getAttribute('aria-valuenow') + 1);
});
</script></body></html>"##;

#[tokio::test]
async fn an_aria_slider_shows_its_value() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/a".to_string(), ARIA.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/a")).await;
    assert!(snap.contains("slider \"Volume\" value=\"3\""), "{snap}");
    let slider = role_ref(&snap, "slider", "Volume");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "key", "ref": slider, "key": "ArrowRight"}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains("slider \"Volume\" value=\"4\""), "{t}");
}
