//! A click rests the pointer on its target before pressing, as a person's does: what the page
//! does on hover has happened by the press. Here the first hover hides the target for a
//! moment (as a `:hover` style that swaps an icon for one still loading does): the click
//! waits for it and lands on it, not on the row under it. A target the hover hides for good
//! is refused with nothing pressed. What the page received is read from the fixture server's
//! request log, which no answer of the browser can influence.

use aperture_testkit::mcp::{goto, ref_for, tool};
use aperture_testkit::{McpBrowser, Server, eventually, local_browser};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

const PAGE: &str = r##"<!doctype html><html><head><title>Feed</title>
<style>.ic{display:inline-block;width:20px;height:14px;background:#888;margin-left:15px;cursor:pointer}
.row{padding:20px;cursor:pointer}</style></head><body>
<div class="row" onclick="fetch('/got/row')">A post about nothing
<span class="ic more" id="more"></span></div>
<div class="row" onclick="fetch('/got/row2')">Another post
<span class="ic share" id="share"></span></div>
<script>
const more = document.getElementById('more'), share = document.getElementById('share');
more.onclick = e => { e.stopPropagation(); fetch('/got/more'); };
share.onclick = e => { e.stopPropagation(); fetch('/got/share'); };
// The first hover hides the icon for a moment (its hover image loading).
let first = true;
more.addEventListener('mouseenter', () => {
  if (!first) return;
  first = false;
  more.style.display = 'none';
  setTimeout(() => { more.style.display = ''; }, 200);
});
// This one the hover hides for good.
share.addEventListener('mouseenter', () => { share.style.display = 'none'; });
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

fn got(server: &Server) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .filter(|p| p.starts_with("/got/"))
        .collect()
}

#[tokio::test]
async fn a_click_waits_for_what_the_hover_did_and_lands_on_its_target() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let more = ref_for(&snap, "hint=\"more\"");
    let share = ref_for(&snap, "hint=\"share\"");

    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": more})).await;
    assert!(!err, "{ans}");
    assert!(ans.starts_with(&format!("clicked {more}")), "{ans}");
    eventually(
        Duration::from_secs(5),
        "the page's click handler report",
        async || {
            let g = got(&server);
            (g == ["/got/more"], g)
        },
    )
    .await;

    // Hidden for good by the hover: refused, and the row under it was not pressed either.
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": share})).await;
    assert!(err, "{ans}");
    assert!(ans.contains("no click was sent"), "{ans}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(got(&server), ["/got/more"]);
}

/// A checkbox that its first hover hides for a moment, over a row that takes clicks.
const FORM: &str = r##"<!doctype html><html><head><title>Terms</title>
<style>.row{padding:20px;cursor:pointer}</style></head><body>
<div class="row" onclick="fetch('/got/row')">
<input type="checkbox" id="agree" aria-label="I agree"> I agree to the terms</div>
<script>
const box = document.getElementById('agree');
box.addEventListener('click', e => e.stopPropagation());
box.addEventListener('change', () => fetch('/got/agree-' + box.checked));
let first = true;
box.addEventListener('mouseenter', () => {
  if (!first) return;
  first = false;
  box.style.visibility = 'hidden';
  setTimeout(() => { box.style.visibility = ''; }, 200);
});
</script></body></html>"##;

/// `browser_fill_form` checks a box the way `browser_act` clicks: it rests on it first, so a
/// hover that hides the box for a moment does not send the press to the row under it.
#[tokio::test]
async fn a_form_fill_checks_a_box_once_its_hover_settles() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/f".to_string(), FORM.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/f")).await;
    let agree = ref_for(&snap, "checkbox \"I agree\"");
    let (err, ans) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": agree, "value": "true"}]}),
    )
    .await;
    assert!(!err, "{ans}");
    assert!(ans.contains("checked"), "{ans}");
    eventually(Duration::from_secs(5), "the box's change report", async || {
        let g = got(&server);
        (g == ["/got/agree-true"], g)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(got(&server), ["/got/agree-true"], "the row was not pressed");
}

/// A page that draws a control again when the pointer moves onto it (a list re-rendered on
/// hover, a handler rebuilding what is under the pointer): the node aimed at leaves the page
/// but the control lives on, so the click goes to the new node. One the hover replaces with
/// something else is refused, with nothing pressed.
const REDRAWN: &str = r##"<!doctype html><html><head><title>Slots</title>
<style>button{margin:20px;padding:10px}</style></head><body>
<div id="slot"></div><div id="other"></div>
<script>
function draw(where, label, got, onHover) {
  const b = document.createElement('button');
  b.textContent = label;
  b.onclick = () => fetch(got);
  b.addEventListener('mouseenter', () => onHover(b));
  document.getElementById(where).replaceChildren(b);
}
let redraws = 0;
const again = () => { redraws++; draw('slot', 'Book 9:30', '/got/book-' + redraws, () => {}); };
draw('slot', 'Book 9:30', '/got/book-0', again);
draw('other', 'Cancel', '/got/cancel', b => {
  const s = document.createElement('span'); s.textContent = 'Cancelled'; b.replaceWith(s);
});
</script></body></html>"##;

#[tokio::test]
async fn a_click_follows_a_control_the_hover_drew_again() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/r".to_string(), REDRAWN.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/r")).await;
    let book = ref_for(&snap, "button \"Book 9:30\"");
    let cancel = ref_for(&snap, "button \"Cancel\"");

    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": book})).await;
    assert!(!err, "{ans}");
    assert!(ans.starts_with(&format!("clicked {book}")), "{ans}");
    eventually(Duration::from_secs(5), "the redrawn button's click", async || {
        let g = got(&server);
        (g == ["/got/book-1"], g)
    })
    .await;

    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": cancel})).await;
    assert!(err, "{ans}");
    assert!(ans.contains("no click was sent"), "{ans}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(got(&server), ["/got/book-1"]);
}
