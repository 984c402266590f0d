//! What input answers say when the page's counter does not see the input in time (issue 14):
//! a main thread kept busy past the delivery barrier (and past the renderer's answer timeout),
//! and a wheel that goes into a frame of another site. Each answer must match what the page
//! received, as the fixture server's request log shows.

use aperture_testkit::mcp::{CallToolResult, Client, call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server, eventually};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

/// One test at a time: the busy page spins a core for 17 s, and on a 2-core machine that
/// starves the other tests' pages, whose input then really is counted late (a wheel answered
/// OUTCOME UNKNOWN instead of scrolled), which is not what they test.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn launch() -> McpBrowser {
    Launch::from_env_or(env!("CARGO_BIN_EXE_aperture"))
        // Two hosts are two sites: the frame on 127.0.0.2 runs in its own renderer.
        .allow_hosts(["127.0.0.1", "127.0.0.2"])
        .start()
        .await
}

async fn act(c: &Client, args: Value) -> (bool, String) {
    let r: CallToolResult = call(c, "browser_act", args).await;
    (r.is_error == Some(true), text(&r))
}

fn seen(server: &Server, path: &str) -> usize {
    server.requests().iter().filter(|p| *p == path).count()
}

/// How often the server saw each of `paths`, once every one has been seen `n` times (keepalive
/// reports reach it a moment after the answer, longer on a loaded machine) and a settle has
/// passed in which one sent twice would have come in too. On failure it shows `ctx()` (the
/// answer and the browser's log) and every path the server saw, so a loss can be told apart
/// from a page loaded again.
async fn seen_each(
    server: &Server,
    paths: &[&str],
    n: usize,
    within: Duration,
    ctx: impl Fn() -> String,
) -> Vec<usize> {
    let counts = seen_each_or_none(server, paths, n, within).await;
    assert!(
        counts.iter().all(|&k| k >= n),
        "{paths:?} seen {n} times each: not within {within:?}; last seen: {counts:?}\nthe server saw: {:?}\n{}",
        server.requests(),
        ctx()
    );
    counts
}

/// How often the server saw each of `paths`, once each has been seen `n` times or `within`
/// has passed (then what was seen), after a settle in which one sent twice would come in too.
async fn seen_each_or_none(server: &Server, paths: &[&str], n: usize, within: Duration) -> Vec<usize> {
    let counts = || paths.iter().map(|p| seen(server, p)).collect::<Vec<_>>();
    let start = std::time::Instant::now();
    while !counts().iter().all(|&k| k >= n) && start.elapsed() < within {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    counts()
}

/// The answer and the end of the browser's log, for a failure message.
fn context(browser: &McpBrowser, answer: &str) -> String {
    let log = browser.stderr();
    let tail: Vec<&str> = log.lines().rev().take(60).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let cef = std::fs::read_to_string(browser.profile.join("cef.log")).unwrap_or_default();
    let cef: Vec<&str> = cef.lines().rev().take(40).collect();
    let cef: Vec<&str> = cef.into_iter().rev().collect();
    format!(
        "the answer was:\n{answer}\nthe browser's log ends:\n{}\nChromium's log ends:\n{}",
        tail.join("\n"),
        cef.join("\n")
    )
}

/// A button whose first press keeps the main thread busy for `?ms=N` (a synchronous loop), so
/// the release that follows, and every question the browser asks the page, wait behind it.
/// Presses and clicks are reported. (On the press, not the pointer's arrival: a click rests
/// the pointer on its target first, and a page that hangs then gets no click at all.)
const BUSY: &str = r#"<!doctype html><html><head><title>Busy</title></head><body>
<button id=b style="margin:60px;width:200px;height:60px">Press</button><p id=out>not pressed</p>
<script>
const ms = Number(new URLSearchParams(location.search).get('ms'));
const b = document.getElementById('b');
let busy = true;
b.addEventListener('pointerdown', () => fetch('/down?ms=' + ms, {keepalive: true}));
b.addEventListener('pointerdown', () => {
  if (!busy) return;
  busy = false;
  const end = performance.now() + ms;
  while (performance.now() < end) {}
});
b.addEventListener('click', () => { fetch('/hit?ms=' + ms, {keepalive: true}); document.getElementById('out').textContent = 'pressed'; });
</script></body></html>"#;

/// A click the page cannot count within the delivery barrier because its main thread is busy:
/// when the page comes back within the renderer's answer timeout the click is found to have
/// arrived (`clicked`, once); when it stays busy longer the outcome is unknown, and the answer
/// says so instead of `clicked` or `not delivered … nothing happened` (the page did get it).
#[tokio::test]
async fn a_busy_page_gets_the_answer_it_earned() {
    let _serial = SERIAL.lock().await;
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/busy".to_string(), BUSY.to_string())]), None);
    let c = browser.connect().await;

    // Busy for 3 s: well past the 0.6 s barrier, within the 15 s the renderer has to answer.
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/busy?ms=3000")}),
        )
        .await,
    );
    let b = role_ref(&snap, "button", "Press");
    let (err, t) = act(&c, json!({"action": "click", "ref": b})).await;
    assert!(!err && t.starts_with(&format!("clicked {b}")), "{t}");
    assert!(t.contains("pressed"), "the click's effect is in the answer:\n{t}");
    assert_eq!(
        seen_each(&server, &["/down", "/hit"], 1, Duration::from_secs(20), || {
            context(&browser, &t)
        })
        .await,
        [1, 1]
    );

    // Busy for 17 s: the page answers nothing for longer than the browser waits.
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/busy?ms=17000")}),
        )
        .await,
    );
    let b = role_ref(&snap, "button", "Press");
    let (err, t) = act(&c, json!({"action": "click", "ref": b})).await;
    assert!(err, "{t}");
    assert!(t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains("it may or may not have received it"), "{t}");
    assert!(
        !t.contains("clicked") && !t.contains("not delivered") && !t.contains("nothing happened"),
        "{t}"
    );
    // The answer said the page may or may not have received it, and that is all it may say:
    // the input was not withdrawn and not sent again, so the page got the whole click once or
    // none of it, never twice and never a press without its release. (In about one run in
    // seven of this test the press and release queued behind the 17 s loop never reached the
    // page, while the page's next walk, asked for after them, was answered once the loop
    // ended. The walker's void cannot have stopped them: it was sent 0.6 s after the click with
    // a deadline 13 s later, long past when the loop ended (`a_void_past_its_deadline_withdraws_
    // nothing` tests that rule). The cause was not found; the same steps sent through the
    // script harness, with the hit test and DevTools' Network domain on, arrived in 30 of 30.)
    let counts = seen_each_or_none(&server, &["/down", "/hit"], 2, Duration::from_secs(40)).await;
    assert!(
        counts == [2, 2] || counts == [1, 1],
        "the click arrived {counts:?} times (press, click) counting the first page's; {}",
        context(&browser, &t)
    );
}

/// An outer page covered by a frame of another site whose document reports every wheel event
/// and scroll it receives.
const FRAMED: &str = r#"<!doctype html><html><head><title>Framed</title></head><body style="margin:0">
<h1>Outer page</h1>
<iframe id=f src="FRAME" style="position:absolute;left:0;top:0;width:100vw;height:100vh;border:0"></iframe>
</body></html>"#;

const INNER: &str = r#"<!doctype html><html><head><title>Inner</title></head><body>
<div style="height:5000px">Tall inner page</div>
<script>
// Two animation frames after load, the document has been drawn (a wheel aimed at it finds it).
addEventListener('load', () => requestAnimationFrame(() => requestAnimationFrame(() => fetch('/drawn'))));
addEventListener('wheel', () => fetch('/wheel', {keepalive: true}), {passive: true});
let reported = false;
addEventListener('scroll', () => { if (!reported) { reported = true; fetch('/scrolled', {keepalive: true}); } });
</script></body></html>"#;

/// A viewport scroll whose wheel goes into a frame of another site: the outer page never counts
/// it, and a wheel cannot be withdrawn. It was answered `not delivered … nothing happened` and
/// sent twice while the frame scrolled twice; now it is sent once and the answer never claims
/// that nothing happened.
#[tokio::test]
async fn a_wheel_into_a_frame_of_another_site_is_never_reported_undelivered() {
    let _serial = SERIAL.lock().await;
    let browser = launch().await;
    let inner = Server::start_full(
        "127.0.0.2",
        HashMap::from([("/inner".to_string(), INNER.to_string())]),
        HashMap::new(),
        None,
    );
    let outer = Server::page(&FRAMED.replace("FRAME", &inner.url("/inner")));
    let c = browser.connect().await;
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": outer.url("/")}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    // The frame loads after the outer page answers: scroll once it is there and drawn, or the
    // wheel lands on the outer page.
    eventually(Duration::from_secs(20), "the frame drawn", async || {
        (seen(&inner, "/drawn") > 0, inner.requests())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (mut err, mut t) = act(&c, json!({"action": "scroll", "dy": 300})).await;
    // A frame drawn in its own renderer may not yet take input where its parent shows it (seen
    // once on a loaded CI machine): the wheel then goes to the outer page, which counts it and
    // does not move, and the answer says just that. The frame must not have had it; try again.
    for _ in 0..5 {
        if err || !t.starts_with("nothing moved") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(
            seen(&inner, "/wheel"),
            0,
            "answered {t:?}, yet the frame had the wheel"
        );
        (err, t) = act(&c, json!({"action": "scroll", "dy": 300})).await;
    }
    let why = || {
        format!(
            "the frame's server saw {:?}\n{}",
            inner.requests(),
            context(&browser, &t)
        )
    };
    assert!(
        !t.contains("not delivered") && !t.contains("nothing happened"),
        "{}",
        why()
    );
    if err {
        assert!(t.contains("OUTCOME UNKNOWN"), "{t}");
        assert!(t.contains("it cannot be withdrawn"), "{t}");
    } else {
        // Where the frame's own renderer counts the input, the scroll is confirmed (what moved
        // is the frame's document, which the answer cannot see: it says what was asked).
        assert!(t.starts_with("scrolled by"), "{}", why());
    }
    assert_eq!(
        seen_each(
            &inner,
            &["/wheel", "/scrolled"],
            1,
            Duration::from_secs(20),
            || context(&browser, &t)
        )
        .await,
        [1, 1],
        "the wheel went in once: {:?}",
        inner.requests()
    );

    // The same document without the frame around it: the wheel is counted and confirmed.
    let plain = Server::page(INNER);
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": plain.url("/")}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let (err, t) = act(&c, json!({"action": "scroll", "dy": 300})).await;
    // Counted and confirmed, or (a freshly opened tab on a starved CI machine counts it past
    // the 1.2 s barrier) OUTCOME UNKNOWN; never "not delivered", and it arrives once.
    assert!(
        (!err && t.starts_with("scrolled the page by (0, 300)")) || (err && t.contains("OUTCOME UNKNOWN")),
        "{t}"
    );
    assert_eq!(
        seen_each(
            &plain,
            &["/wheel", "/scrolled"],
            1,
            Duration::from_secs(20),
            || context(&browser, &t)
        )
        .await,
        [1, 1],
        "{:?}",
        plain.requests()
    );
}

/// A page whose button, the first time it is pressed, rewrites the document in place
/// (`document.open()`, which erases every listener of the window, the browser's input counters
/// included) with a new button, under the pointer, that reports its releases: the press's
/// release reaches the new page uncounted.
const REWRITE: &str = r#"<!doctype html><html><head><title>Rewrite</title></head><body>
<button id=b style="position:absolute;left:60px;top:60px;width:200px;height:60px">Press</button>
<script>
let done = false;
document.getElementById('b').addEventListener('pointerdown', () => {
  if (done) return; done = true;
  document.open();
  document.write('<!doctype html><title>Rewritten</title><button id=n style="position:absolute;left:60px;top:60px;width:200px;height:60px">New</button>');
  document.close();
  document.getElementById('n').addEventListener('pointerup', () => fetch('/up', {keepalive: true}));
});
</script></body></html>"#;

/// The counters go deaf mid-click: the press and click reach the rewritten page uncounted. This
/// was answered `not delivered … (sent twice) … nothing else happened` while the page received
/// two clicks; now the outcome is unknown, the click is not sent again, and the counters work
/// for the next input.
#[tokio::test]
async fn a_page_that_erases_the_input_counters_mid_click_is_not_reported_undelivered() {
    let _serial = SERIAL.lock().await;
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/r".to_string(), REWRITE.to_string())]), None);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/r")}),
        )
        .await,
    );
    let b = role_ref(&snap, "button", "Press");
    let (err, t) = act(&c, json!({"action": "click", "ref": b})).await;
    assert!(err, "{t}");
    assert!(t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains("rewrote its document in place"), "{t}");
    assert!(
        !t.contains("not delivered") && !t.contains("nothing happened") && !t.contains("clicked"),
        "{t}"
    );
    assert_eq!(
        seen_each(&server, &["/up"], 1, Duration::from_secs(20), || {
            context(&browser, &t)
        })
        .await,
        [1],
        "sent once"
    );

    // Counted again from then on.
    let new = role_ref(&t, "button", "New");
    let (err, t) = act(&c, json!({"action": "click", "ref": new})).await;
    assert!(!err && t.starts_with(&format!("clicked {new}")), "{t}");
    assert_eq!(
        seen_each(&server, &["/up"], 2, Duration::from_secs(20), || {
            context(&browser, &t)
        })
        .await,
        [2]
    );
}

/// [`REWRITE`]'s button inside a same-origin frame: the frame rewrites itself.
const FRAME_REWRITE: &str = r#"<!doctype html><html><head><title>Outer</title></head><body style="margin:0">
<h1>Outer</h1>
<iframe id=f style="width:400px;height:200px;border:0" srcdoc="<button id=b style='width:200px;height:60px'>Press</button><script>let done = false; document.getElementById('b').addEventListener('pointerdown', () => { if (done) return; done = true; document.open(); document.write('<button id=n style=&quot;width:200px;height:60px&quot;>New</button>'); document.close(); const n = document.getElementById('n'); n.addEventListener('pointerup', () => fetch('/up', {keepalive: true})); });</script>"></iframe>
</body></html>"#;

/// The same inside a same-origin frame, whose counters the top page's walker added.
#[tokio::test]
async fn a_frame_that_erases_the_input_counters_mid_click_is_not_reported_undelivered() {
    let _serial = SERIAL.lock().await;
    let browser = launch().await;
    let server = Server::page(FRAME_REWRITE);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    let b = role_ref(&snap, "button", "Press");
    let (err, t) = act(&c, json!({"action": "click", "ref": b})).await;
    assert!(err, "{t}");
    assert!(t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains("rewrote its document in place"), "{t}");
    assert!(
        !t.contains("not delivered") && !t.contains("nothing happened") && !t.contains("clicked"),
        "{t}"
    );
    assert_eq!(
        seen_each(&server, &["/up"], 1, Duration::from_secs(20), || {
            context(&browser, &t)
        })
        .await,
        [1],
        "sent once"
    );

    let snap = text(&call(&c, "browser_snapshot", json!({"full": true})).await);
    let new = role_ref(&snap, "button", "New");
    let (err, t) = act(&c, json!({"action": "click", "ref": new})).await;
    assert!(!err && t.starts_with(&format!("clicked {new}")), "{t}");
    assert_eq!(
        seen_each(&server, &["/up"], 2, Duration::from_secs(20), || {
            context(&browser, &t)
        })
        .await,
        [2]
    );
}
