//! An action's answer shows where the page's reaction ended, not its first frame (found by
//! playing MiniWoB++ tasks through MCP): a menu a page opens on a 300 ms timer, a panel that
//! fades out by its style alone, an image added by script that has not loaded yet. And what a
//! click did is said as it happened: a press that landed before the page covered its target
//! is not a failed click; a listener's wrapper around one control that says the same is not a
//! second ref; a control inside an aria-disabled container is disabled.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, Spec, local_browser};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

/// A menu shown 300 ms after the click (jQuery UI's delay), a panel that fades out over
/// 700 ms by stepping its opacity and then hides, and a button that adds an image whose
/// file takes seconds to come.
const PAGE: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Reactions</title></head><body>
<button id="open">Open menu</button>
<div id="menu" style="display:none"><a href="#one">Delayed item</a></div>
<button id="fade">Fade panel</button>
<div id="panel"><a href="#two">Fading link</a></div>
<button id="tag">Add tag</button>
<p id="tags">Tags:</p>
<script>
document.getElementById('open').onclick = () =>
  setTimeout(() => { document.getElementById('menu').style.display = 'block'; }, 300);
document.getElementById('fade').onclick = () => {
  const p = document.getElementById('panel'), start = performance.now();
  const step = (t) => {
    const k = Math.min(1, (t - start) / 700);
    p.style.opacity = String(1 - k);
    if (k < 1) requestAnimationFrame(step); else p.style.display = 'none';
  };
  requestAnimationFrame(step);
};
document.getElementById('tag').onclick = () => {
  const i = document.createElement('img');
  i.alt = 'peanuts';
  i.src = '/slow.png';
  document.getElementById('tags').appendChild(i);
};
</script></body></html>"##;

#[tokio::test]
async fn an_answer_waits_for_the_page_s_delayed_reaction() {
    let browser = launch().await;
    let server = Server::spawn(Spec {
        routes: HashMap::from([("/r".to_string(), PAGE.to_string())]),
        delayed: HashMap::from([("/slow.png".to_string(), (Duration::from_secs(8), String::new()))]),
        ..Spec::default()
    });
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/r")).await;
    assert!(!snap.contains("Delayed item"), "{snap}");

    // The menu appears 300 ms after the click: the click's answer shows it.
    let open = role_ref(&snap, "button", "Open menu");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": open})).await;
    assert!(!err, "{t}");
    assert!(
        t.contains("link \"Delayed item\""),
        "the delayed menu is in the answer:\n{t}"
    );

    // The fade changes only the panel's style until it hides it: the answer is taken once it
    // has ended, with the panel's link gone, not mid-fade with the link still listed.
    let fade = role_ref(&snap, "button", "Fade panel");
    let fading = role_ref(&snap, "link", "Fading link");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": fade})).await;
    assert!(!err, "{t}");
    assert!(
        t.contains("gone:") && t.contains(&fading) && !t.contains("\"Fading link\""),
        "the faded panel's link is gone in the answer:\n{t}"
    );

    // The image has no size until its file comes, seconds later; what its alt says is on the
    // page already.
    let tag = role_ref(&snap, "button", "Add tag");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": tag})).await;
    assert!(!err, "{t}");
    assert!(
        t.contains("img \"peanuts\""),
        "the loading image is in the answer:\n{t}"
    );
}

/// A field whose press ends the round: the page covers everything with a "START" cover on
/// pointerdown (as a MiniWoB task does when focusing the field wins it), so the release and
/// the click go to the cover.
const COVERED: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Cover</title></head><body>
<input id="f" aria-label="Answer">
<p id="out">waiting</p>
<div id="cover" style="display:none;position:fixed;inset:0;background:#eee;z-index:9">START</div>
<script>
const f = document.getElementById('f'), cover = document.getElementById('cover');
f.addEventListener('pointerdown', () => { cover.style.display = 'block'; });
f.addEventListener('focus', () => { document.getElementById('out').textContent = 'focused: won'; });
cover.addEventListener('click', () => { document.getElementById('out').textContent += ' (cover clicked)'; });
</script></body></html>"##;

#[tokio::test]
async fn a_press_that_landed_before_the_page_covered_its_target_is_said_so() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/c".to_string(), COVERED.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/c")).await;
    let field = role_ref(&snap, "textbox", "Answer");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": field})).await;
    assert!(err, "the click's own handlers did not run: {t}");
    assert!(t.contains("click only partly landed"), "{t}");
    assert!(
        t.contains(&format!("the press reached {field}")) && t.contains("START"),
        "{t}"
    );
    assert!(!t.contains("click failed"), "{t}");
    // The click event itself fires on what the press and the release share (the page), so
    // the cover's own click listener does not run.
    assert!(
        t.contains("\"focused: won\""),
        "the press's effect is shown:\n{t}"
    );
}

/// A calendar day cell made clickable by a listener around its day link, and a card made
/// clickable around a button that says something else.
const WRAPPED: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Wrapped</title></head><body>
<table><tr><td id="d1"><a href="#">1</a></td><td id="d2"><a href="#">2</a></td></tr></table>
<div id="card" style="width:300px">Weekly report <button>Like</button></div>
<ul role="menu"><li aria-disabled="true"><div role="menuitem" tabindex="-1">Print...</div></li>
<li><div role="menuitem" tabindex="-1">Save</div></li></ul>
<p id="out">none</p>
<script>
for (const id of ['d1', 'd2']) document.getElementById(id).addEventListener('click', (e) => {
  e.preventDefault(); document.getElementById('out').textContent = 'picked ' + id;
});
document.getElementById('card').addEventListener('click', () => {});
</script></body></html>"##;

#[tokio::test]
async fn a_listener_s_wrapper_around_one_control_saying_the_same_is_that_control() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/w".to_string(), WRAPPED.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/w")).await;
    // Before, each day read `e1 cell "1"` with ` e2 link "1"` under it.
    assert_eq!(snap.matches(" \"1\"").count(), 1, "one ref for day 1:\n{snap}");
    assert_eq!(snap.matches(" \"2\"").count(), 1, "one ref for day 2:\n{snap}");
    assert!(snap.contains("link \"1\""), "{snap}");
    // The card says more than its button: both stay.
    assert!(snap.contains("button \"Like\""), "{snap}");
    assert!(
        snap.lines()
            .any(|l| l.contains("clickable") && l.contains("Weekly report")),
        "{snap}"
    );
    // aria-disabled on a menu's <li> disables the menuitem inside it, as in jQuery UI's menus.
    let line = |name: &str| {
        snap.lines()
            .find(|l| l.contains(&format!("menuitem \"{name}\"")))
            .unwrap_or_else(|| panic!("no menuitem {name}:\n{snap}"))
            .to_string()
    };
    assert!(line("Print...").contains("disabled"), "{snap}");
    assert!(!line("Save").contains("disabled"), "{snap}");
    // The day's link reaches the cell's listener.
    let two = role_ref(&snap, "link", "\"2\"");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": two})).await;
    assert!(!err, "{t}");
    assert!(t.contains("picked d2"), "{t}");
}

/// A field that logs each keydown's key, and a button whose click handler replaces its own
/// label (as a re-rendering widget does), so the node the click went to is detached by the
/// time the browser asks where it landed.
const KEYS: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Keys</title></head><body>
<input id="f" aria-label="Command">
<p id="log">keys:</p>
<button id="b"><span>Plus</span></button>
<p id="n">0</p>
<script>
document.getElementById('f').addEventListener('keydown', (e) => {
  document.getElementById('log').textContent += ' ' + e.key;
});
const b = document.getElementById('b');
b.addEventListener('click', () => {
  const n = document.getElementById('n');
  n.textContent = String(Number(n.textContent) + 1);
  b.innerHTML = '<span>Plus</span>';
});
</script></body></html>"##;

#[tokio::test]
async fn punctuation_has_key_presses_and_a_re_rendered_target_still_got_the_click() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/k".to_string(), KEYS.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/k")).await;
    let field = role_ref(&snap, "textbox", "Command");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": field, "text": "a.b-/!"}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(
        t.contains("keys: a . b - / !"),
        "every character had its keydown:\n{t}"
    );

    let plus = role_ref(&snap, "button", "Plus");
    for n in 1..=2 {
        let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": plus})).await;
        assert!(!err && t.starts_with(&format!("clicked {plus}")), "{t}");
        assert!(t.contains(&format!("\"{n}\"")), "{t}");
    }
}

/// A list that handles its items' presses in one listener on the list (as jQuery UI's sortable
/// does), and a resize grip known only by its cursor, whose drag the document handles.
const DRAGGY: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Draggy</title></head><body>
<ul id="list"><li>Gerry</li><li>Candi</li></ul>
<p id="picked">none</p>
<div id="grip" style="position:absolute;left:300px;top:300px;width:16px;height:16px;cursor:se-resize;background:#999"></div>
<p id="moved">still</p>
<script>
const list = document.getElementById('list');
list.addEventListener('mousedown', (e) => {
  document.getElementById('picked').textContent = 'pressed ' + e.target.textContent;
});
let start = null;
document.addEventListener('mousedown', (e) => {
  if (e.target.id === 'grip') { start = [e.clientX, e.clientY]; e.preventDefault(); }
});
document.addEventListener('mouseup', (e) => {
  if (start) {
    document.getElementById('moved').textContent =
      'moved by ' + (e.clientX - start[0]) + ',' + (e.clientY - start[1]);
    start = null;
  }
});
</script></body></html>"##;

#[tokio::test]
async fn list_items_and_grips_get_refs_and_drag_moves_by_an_offset() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/d".to_string(), DRAGGY.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/d")).await;
    let candi = role_ref(&snap, "listitem", "Candi");
    role_ref(&snap, "listitem", "Gerry");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": candi})).await;
    assert!(!err, "{t}");
    assert!(t.contains("pressed Candi"), "{t}");

    let grip = role_ref(&snap, "clickable", "grip");
    let (err, t) = tool(&c, "browser_act", json!({"action": "drag", "ref": grip})).await;
    assert!(
        err && t.contains("drag needs `to`") && t.contains("nothing was sent"),
        "{t}"
    );
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "drag", "ref": grip, "dx": 50, "dy": 30}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains(&format!("dragged {grip} by (50, 30)")), "{t}");
    assert!(t.contains("moved by 50,30"), "{t}");
}

/// A suggestion list as jQuery UI's autocomplete makes it: it opens under the resting pointer,
/// and the first mouse focus on a new list is deferred to the next `mousemove`, which then
/// replays the `mouseenter` the item under the pointer got when the list appeared.
const SUGGEST: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Suggest</title>
<style>li { height: 30px; } ul { margin: 0; padding: 0; list-style: none; }</style></head><body>
<input id="q" aria-label="Country" style="position:absolute;left:20px;top:40px">
<button id="start" style="position:absolute;left:20px;top:100px;width:300px;height:60px">Start</button>
<ul id="menu" style="display:none;position:absolute;left:20px;top:90px;width:300px"></ul>
<p id="out" style="position:absolute;top:400px">none</p>
<script>
const q = document.getElementById('q'), menu = document.getElementById('menu');
document.getElementById('start').onclick = (e) => { e.target.style.display = 'none'; };
let active = null, isNew = false;
function focusItem(e, li) {
  if (isNew) {
    isNew = false;
    active = null;
    document.addEventListener('mousemove', () => li.dispatchEvent(new MouseEvent('mouseenter')), {once: true});
    return;
  }
  active = li;
}
q.addEventListener('input', () => {
  menu.innerHTML = '';
  for (const c of ['France', 'French Guiana', 'French Polynesia']) {
    const li = document.createElement('li');
    li.textContent = c;
    li.addEventListener('mouseenter', (e) => focusItem(e, li));
    menu.appendChild(li);
  }
  menu.style.display = 'block';
  isNew = true;
});
menu.addEventListener('click', () => {
  document.getElementById('out').textContent = 'picked ' + (active ? active.textContent : 'nothing');
});
</script></body></html>"##;

#[tokio::test]
async fn a_suggestion_clicked_under_a_resting_pointer_is_the_one_picked() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/s".to_string(), SUGGEST.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/s")).await;
    // The pointer comes to rest where the list will open.
    let start = role_ref(&snap, "button", "Start");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": start})).await;
    assert!(!err, "{t}");
    let field = role_ref(&snap, "textbox", "Country");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": field, "text": "Fr"}),
    )
    .await;
    assert!(!err, "{t}");
    let polynesia = role_ref(&t, "listitem", "French Polynesia");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": polynesia})).await;
    assert!(!err, "{t}");
    assert!(t.contains("picked French Polynesia"), "{t}");
}

/// A list sorted by dragging with the mouse, as script-driven sortable lists decide: the item
/// goes after every other item whose middle is above the release.
const SORT: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Sort</title>
<style>ul { margin: 0; padding: 0; list-style: none; width: 200px; } li { height: 30px; }</style></head><body>
<ul id="list"><li>Alpha</li><li>Bravo</li><li>Charlie</li><li>Delta</li></ul>
<p id="order">unsorted</p>
<script>
const list = document.getElementById('list');
let held = null;
list.addEventListener('mousedown', (e) => { held = e.target.closest('li'); e.preventDefault(); });
document.addEventListener('mouseup', (e) => {
  if (!held) return;
  const others = [...list.children].filter((li) => li !== held);
  const after = others.filter((li) => { const r = li.getBoundingClientRect(); return r.top + r.height / 2 < e.clientY; });
  const next = others[after.length] || null;
  list.insertBefore(held, next);
  held = null;
  document.getElementById('order').textContent = 'order ' + [...list.children].map((li) => li.textContent).join(' ');
});
</script></body></html>"##;

#[tokio::test]
async fn an_item_dragged_down_onto_another_goes_past_it() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/s".to_string(), SORT.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/s")).await;
    let alpha = role_ref(&snap, "listitem", "Alpha");
    let charlie = role_ref(&snap, "listitem", "Charlie");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "drag", "ref": alpha, "to": charlie}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains("order Bravo Charlie Alpha Delta"), "{t}");
    // And up onto another: before it.
    let delta = role_ref(&snap, "listitem", "Delta");
    let bravo = role_ref(&snap, "listitem", "Bravo");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "drag", "ref": delta, "to": bravo}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains("order Delta Bravo Charlie Alpha"), "{t}");
}

/// `console.log` is reported as a log, not as a warning; `console.warn` as a warning.
#[tokio::test]
async fn console_levels_are_the_page_s() {
    let browser = launch().await;
    let page = r#"<!doctype html><title>Console</title><p>hi</p>
<script>console.log('plain note'); console.warn('careful now'); console.error('broken');</script>"#;
    let server = Server::page(page);
    let c = browser.connect().await;
    goto(&c, &server.url("/")).await;
    let mut seen = String::new();
    aperture_testkit::eventually(Duration::from_secs(10), "three console entries", async || {
        let (_, t) = tool(&c, "browser_console", json!({})).await;
        seen.push_str(&t);
        (seen.contains("broken"), seen.clone())
    })
    .await;
    let level_of = |needle: &str| {
        let at = seen
            .find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in {seen}"));
        seen[..at]
            .lines()
            .rev()
            .find(|l| l.contains(". "))
            .unwrap_or("")
            .to_string()
    };
    assert!(level_of("plain note").contains(". log"), "{seen}");
    assert!(level_of("careful now").contains(". warning"), "{seen}");
    assert!(level_of("broken").contains(". error"), "{seen}");
}

/// A spinner as jQuery UI draws it: a wrapper around the field and two nameless buttons told
/// apart only by their classes; each press changes the field's value (and so the wrapper's).
const SPINNER: &str = r##"<!doctype html><html><head><meta charset="utf-8"><title>Spinner</title>
<style>a { display: inline-block; width: 16px; height: 12px; background: #ccc; margin: 2px; }</style></head><body>
<span class="ui-spinner"><input aria-label="Count" value="0"><a class="ui-spinner-button ui-spinner-up"></a><a class="ui-spinner-button ui-spinner-down"></a></span>
<script>
const v = document.querySelector('input');
document.querySelector('.ui-spinner').addEventListener('mousedown', () => {});
document.querySelector('.ui-spinner-up').addEventListener('click', () => { v.value = String(Number(v.value) + 1); v.setAttribute('value', v.value); });
document.querySelector('.ui-spinner-down').addEventListener('click', () => { v.value = String(Number(v.value) - 1); v.setAttribute('value', v.value); });
</script></body></html>"##;

#[tokio::test]
async fn nameless_buttons_told_apart_by_class_keep_their_refs_as_the_value_changes() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), SPINNER.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let up = role_ref(&snap, "hint=", "spinner up");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"steps": [
            {"action": "click", "ref": up},
            {"action": "click", "ref": up},
            {"action": "click", "ref": up}
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(!t.contains("retired"), "{t}");
    assert!(t.contains("value=\"3\""), "{t}");
}
