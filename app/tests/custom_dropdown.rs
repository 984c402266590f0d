//! A dropdown made by script (an ARIA combobox and its listbox) is worked as a person works
//! it: `select` on it is refused with nothing sent, and the refusal says how (click it, then
//! its option), which the answers then show: the options appear, and the chosen one becomes
//! the combobox's text as it collapses.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const PAGE: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Combo</title>
<style>#lb{display:none}#lb.open{display:block}</style></head><body>
<label id="lbl">Fruit</label>
<div id="combo" role="combobox" aria-labelledby="lbl" aria-expanded="false" tabindex="0">Choose</div>
<div id="lb" role="listbox">
<div role="option" aria-selected="false">Apple</div>
<div role="option" aria-selected="false">Banana</div>
</div>
<script>
const c = document.getElementById('combo'), lb = document.getElementById('lb');
c.onclick = () => { lb.classList.toggle('open'); c.setAttribute('aria-expanded', lb.classList.contains('open')); };
for (const o of lb.children) o.onclick = () => {
  c.textContent = o.textContent; lb.classList.remove('open'); c.setAttribute('aria-expanded', 'false');
};
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn a_script_dropdown_is_clicked_open_and_its_option_clicked() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/c".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/c")).await;
    let combo = role_ref(&snap, "combobox", "Fruit");
    assert!(
        snap.contains(&format!("{combo} combobox \"Fruit\": \"Choose\" collapsed")),
        "{snap}"
    );

    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "select", "ref": combo, "values": ["Banana"]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(
        t.contains("nothing was sent") && t.contains("clicking it, then clicking its option"),
        "{t}"
    );

    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": combo})).await;
    assert!(!err, "{t}");
    assert!(t.contains("expanded"), "{t}");
    let banana = role_ref(&t, "option", "Banana");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": banana})).await;
    assert!(!err, "{t}");
    assert!(
        t.contains(&format!("{combo} combobox \"Fruit\": \"Banana\" collapsed")),
        "{t}"
    );
}
