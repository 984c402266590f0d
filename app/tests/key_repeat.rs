//! A `key` step with `count` presses the key that many times, as a person holding it: a slider
//! moved in unit steps, every press reaching the page once, and presses after the page moved
//! focus going where focus went (as an arrow key moves along a menu). Only where focus starts
//! is checked. The page counts every keydown it sees, anywhere, and shows the count.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

/// A slider moved by arrow keys that reports each press; at 60 its handler moves focus to the
/// button (as a widget that closes itself would), so later presses are not its own.
const PAGE: &str = r##"<!doctype html><html><head><title>Slider</title></head><body>
<div id="s" role="slider" tabindex="0" aria-label="Volume" aria-valuemin="0" aria-valuemax="100"
  aria-valuenow="0" style="width:200px;height:20px;background:#ccc"></div>
<button id="done">Done</button>
<input id="trap" aria-label="Trap" onfocus="document.getElementById('done').focus()">
<p id="seen">seen 0</p>
<script>
const s = document.getElementById('s');
let v = 0, seen = 0;
document.addEventListener('keydown', () => {
  seen++;
  document.getElementById('seen').textContent = 'seen ' + seen;
}, true);
s.addEventListener('keydown', e => {
  if (e.key === 'ArrowRight') v++;
  if (e.key === 'ArrowLeft') v--;
  s.setAttribute('aria-valuenow', v);
  if (v === 60) document.getElementById('done').focus();
});
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

/// What the page says it has seen, from a full snapshot.
async fn seen(c: &aperture_testkit::mcp::Client) -> String {
    let (_, snap) = tool(c, "browser_snapshot", json!({"full": true})).await;
    snap.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("\"seen ")
                .map(|r| r.trim_end_matches('"').to_string())
        })
        .unwrap_or_else(|| panic!("no count in {snap}"))
}

#[tokio::test]
async fn a_key_pressed_many_times_arrives_each_time_where_focus_is() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/s".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/s")).await;
    let slider = role_ref(&snap, "slider", "Volume");

    // It has no value to set: filling it is refused with the keys that move it, nothing sent.
    let (err, ans) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": slider, "value": "45"}]}),
    )
    .await;
    assert!(
        err && ans.contains("is a slider the page made") && ans.contains("ArrowRight/ArrowLeft"),
        "{ans}"
    );
    assert_eq!(seen(&c).await, "0", "nothing was sent");

    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "key", "ref": slider, "key": "ArrowRight", "count": 45}),
    )
    .await;
    assert!(!err, "{ans}");
    assert!(ans.starts_with("pressed \"ArrowRight\" 45 times"), "{ans}");
    assert!(
        ans.contains("value=\"45\""),
        "the slider's new value is in the diff:\n{ans}"
    );
    assert_eq!(seen(&c).await, "45", "each press arrived once");

    // 30 more: at 60 the page moves focus to the button, and the other 15 presses go there.
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "key", "key": "ArrowRight", "count": 30}),
    )
    .await;
    assert!(!err, "{ans}");
    assert!(ans.starts_with("pressed \"ArrowRight\" 30 times"), "{ans}");
    assert!(ans.contains("value=\"60\""), "{ans}");
    assert!(ans.contains("button \"Done\" focused"), "{ans}");
    assert_eq!(seen(&c).await, "75", "each press arrived once");

    // Focus must start where the last focus op put it: a field that sends focus away when it
    // gets it has nothing pressed into what focus went to.
    let trap = role_ref(&snap, "textbox", "Trap");
    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "key", "ref": trap, "key": "ArrowLeft", "count": 5}),
    )
    .await;
    assert!(err, "{ans}");
    assert!(
        ans.contains("focus is on") && ans.contains("Done"),
        "says where focus is:\n{ans}"
    );
    assert_eq!(seen(&c).await, "75", "nothing was pressed");

    for bad in [0, 101] {
        let (err, ans) = tool(
            &c,
            "browser_act",
            json!({"action": "key", "key": "ArrowLeft", "count": bad}),
        )
        .await;
        assert!(err && ans.contains("`count` for `key` must be 1 to 100"), "{ans}");
    }
    assert_eq!(seen(&c).await, "75", "a refused count sends nothing");
}

/// A list whose third ArrowDown opens the next page (as a results list opens the chosen one).
const LEAVES: &str = r##"<!doctype html><html><head><title>List</title></head><body>
<ul id="l" role="listbox" tabindex="0" aria-label="Results"><li>one</li><li>two</li></ul>
<script>
let n = 0;
document.getElementById('l').addEventListener('keydown', e => {
  if (e.key === 'ArrowDown' && ++n === 3) location.href = '/next';
});
</script></body></html>"##;

const NEXT: &str = r##"<!doctype html><html><head><title>Next</title></head><body>
<p id="seen">seen 0</p>
<script>
let seen = 0;
document.addEventListener('keydown', () => {
  document.getElementById('seen').textContent = 'seen ' + ++seen;
}, true);
</script></body></html>"##;

#[tokio::test]
async fn presses_that_load_a_new_page_stop_and_say_how_many_were_sent() {
    let browser = launch().await;
    let server = Server::start(
        HashMap::from([
            ("/l".to_string(), LEAVES.to_string()),
            ("/next".to_string(), NEXT.to_string()),
        ]),
        None,
    );
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/l")).await;
    let list = role_ref(&snap, "listbox", "Results");

    let (err, ans) = tool(
        &c,
        "browser_act",
        json!({"action": "key", "ref": list, "key": "ArrowDown", "count": 100}),
    )
    .await;
    assert!(!err, "{ans}");
    let sent: u32 = ans
        .strip_prefix("pressed \"ArrowDown\" ")
        .and_then(|r| r.split_once(" of 100 times: a new page loaded"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("says how many of the 100 were sent:\n{ans}"));
    assert!((3..100).contains(&sent), "{ans}");
    assert!(ans.contains("Next"), "the answer shows the new page:\n{ans}");
    // Of the presses sent, three went to the list; the new page saw at most the rest.
    let on_next: u32 = seen(&c).await.parse().unwrap();
    assert!(
        on_next <= sent - 3,
        "{on_next} reached the new page, {sent} were sent"
    );
}
