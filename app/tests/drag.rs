//! Drag and drop. With windowless rendering Chromium leaves an HTML drag to the embedder, so
//! until the browser carried it a drag the page started went nowhere: no `dragover`, no `drop`.
//! The human drags with the real mouse in the window (X input under Xvfb); the agent drags with
//! `browser_act drag`, whose answer says how the page took it: dropped, refused, or a
//! mouse-driven drag (moves with the button held, as sliders and sortable lists use).

#[path = "support/window.rs"]
mod window;

use aperture_testkit::mcp::{Client, call, role_ref, text};
use aperture_testkit::{Launch, Server};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use window::{App, Scratch};

/// A red draggable card, a grey zone that takes drops (and turns green), a blue zone that
/// refuses them (no `dragover` handler), and a script-driven slider knob moved with the mouse
/// held. Each outcome is also reported to the server.
const PAGE: &str = r#"<!doctype html><html><head><title>Drag</title></head><body style="margin:0;background:#fff">
<div id=card draggable=true aria-label="Card" style="position:absolute;left:40px;top:40px;width:160px;height:120px;background:rgb(220,0,0)"></div>
<div id=zone aria-label="Drop zone" style="position:absolute;left:420px;top:40px;width:300px;height:200px;background:rgb(200,200,200)"></div>
<div id=wall aria-label="Wall" style="position:absolute;left:420px;top:300px;width:300px;height:120px;background:rgb(0,0,220)"></div>
<div id=track style="position:absolute;left:40px;top:480px;width:400px;height:20px;background:#eee">
  <div id=knob role=slider aria-label="Knob" aria-valuenow=0 style="position:absolute;left:0;top:0;width:20px;height:20px;background:#333"></div>
</div>
<p id=out style="position:absolute;top:540px">nothing yet</p>
<script>
const out = (m) => { document.getElementById('out').textContent = m; fetch('/' + m.split(' ')[0], {keepalive: true}); };
card.addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', 'card-7'));
zone.addEventListener('dragover', (e) => e.preventDefault());
zone.addEventListener('drop', (e) => {
  e.preventDefault();
  zone.style.background = 'rgb(0,170,0)';
  out('dropped ' + e.dataTransfer.getData('text/plain'));
});
wall.addEventListener('drop', () => out('wall-drop'));
let grab = null;
knob.addEventListener('mousedown', (e) => { grab = e.clientX - knob.offsetLeft; e.preventDefault(); });
addEventListener('mousemove', (e) => {
  if (grab === null) return;
  const x = Math.max(0, Math.min(380, e.clientX - grab));
  knob.style.left = x + 'px';
  knob.setAttribute('aria-valuenow', Math.round(x / 3.8));
});
addEventListener('mouseup', () => { if (grab !== null) { grab = null; out('slid ' + knob.getAttribute('aria-valuenow')); } });
</script></body></html>"#;

fn seen(server: &Server, path: &str) -> usize {
    server.requests().iter().filter(|p| *p == path).count()
}

/// How often `path` was requested, once it has been at least once (the page reports after the
/// answer, later on a loaded machine).
fn wait_seen(server: &Server, path: &str) -> usize {
    aperture_testkit::eventually_blocking(Duration::from_secs(20), path, || {
        let n = seen(server, path);
        (n > 0, n)
    })
}

async fn act(c: &Client, args: Value) -> (bool, String) {
    let r = call(c, "browser_act", args).await;
    (r.is_error == Some(true), text(&r))
}

#[tokio::test]
async fn the_agent_drags_and_the_answer_says_how_the_page_took_it() {
    let browser = Launch::from_env_or(env!("CARGO_BIN_EXE_aperture")).start().await;
    let server = Server::page(PAGE);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    // The draggable card and the zone with a drop listener are things to act on.
    let card = role_ref(&snap, "clickable", "Card");
    let zone = role_ref(&snap, "clickable", "Drop zone");
    let wall = role_ref(&snap, "clickable", "Wall");
    let knob = role_ref(&snap, "slider", "Knob");

    // Onto the zone: the page's drop handler runs with the card's data.
    let (err, t) = act(&c, json!({"action": "drag", "ref": card, "to": zone})).await;
    assert!(!err, "{t}");
    assert!(
        t.starts_with(&format!("dragged {card} and dropped it on {zone}")),
        "{t}"
    );
    assert!(
        t.contains("dropped card-7"),
        "the drop's effect is in the answer:\n{t}"
    );
    assert_eq!(wait_seen(&server, "/dropped"), 1);
    // A snapshot has no positions: the answer says where the drag left the element.
    assert!(t.contains(&format!("{card} is where it was")), "{t}");

    // Onto the wall, which takes no drops: said so, and its drop handler never ran.
    let (err, t) = act(&c, json!({"action": "drag", "ref": card, "to": wall})).await;
    assert!(!err, "{t}");
    assert!(t.contains("nothing there accepted the drop"), "{t}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(seen(&server, "/wall-drop"), 0);

    // A script-driven slider: mouse down, moves with the button held, mouse up.
    let (err, t) = act(&c, json!({"action": "drag", "ref": knob, "to": wall})).await;
    assert!(!err, "{t}");
    assert!(t.contains("(mouse down, moves, mouse up)"), "{t}");
    assert_eq!(wait_seen(&server, "/slid"), 1);
    // Carried to the wall's middle, far past the track's end: the knob went all the way.
    assert!(t.contains("slid 100"), "the knob moved:\n{t}");
    assert!(
        t.contains(&format!("{knob} is now 380 px right of where it was")),
        "{t}"
    );

    // A drag needs somewhere to drop.
    let (err, t) = act(&c, json!({"action": "drag", "ref": card})).await;
    assert!(err && t.contains("drag needs `to`"), "{t}");
}

/// The human drags the card onto the zone with the real mouse: the zone turns green.
#[test]
fn the_human_drags_and_drops_in_the_window() {
    if !window::can_run("drag") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = Scratch::new("drag");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    const RED: [u8; 3] = [220, 0, 0];
    const GREY: [u8; 3] = [200, 200, 200];
    const GREEN: [u8; 3] = [0, 170, 0];
    // Where the card and the zone are drawn (the page sits below the chrome, whose greys are
    // left out by looking for the zone only in the card's rows).
    let t = Instant::now();
    let (from, to) = loop {
        let img = app.capture();
        if let Some(c) = window::region(&img, RED, 10, 0..img.height())
            && c.2 - c.0 > 100
            && let Some(z) = window::region(&img, GREY, 4, c.1..c.3 + 1)
            && z.2 - z.0 > 200
        {
            let y = (c.1 + c.3) / 2;
            break (((c.0 + c.2) / 2, y), ((z.0 + z.2) / 2, y));
        }
        assert!(t.elapsed() < Duration::from_secs(45), "the page never showed");
        std::thread::sleep(Duration::from_millis(250));
    };
    let w = app.window.as_str();
    let mv = |x: u32, y: u32| {
        window::xdo(&["mousemove", "--window", w, &x.to_string(), &y.to_string()]);
        std::thread::sleep(Duration::from_millis(60));
    };
    mv(from.0, from.1);
    window::xdo(&["mousedown", "1"]);
    for i in 1..=12u32 {
        let x = from.0 + (to.0 - from.0) * i / 12;
        let y = from.1 + (to.1 - from.1) * i / 12;
        mv(x, y);
    }
    std::thread::sleep(Duration::from_millis(300));
    window::xdo(&["mouseup", "1"]);
    app.wait_for(GREEN, "the zone took the drop");
    assert_eq!(wait_seen(&server, "/dropped"), 1);
}
