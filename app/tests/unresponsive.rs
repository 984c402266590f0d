//! A page whose script never returns. In the window, a real X click sets it off: a bar over
//! the page says the page isn't responding; "Wait" takes the bar away and it comes back while
//! the page stays stuck; "Stop script" ends the script and the same page takes clicks again;
//! F5 on a stuck page (whose keys the page never passes on) stops the script and reloads.
//! Through MCP, the agent is told the page is not responding (its tab list says so and reads
//! fail at once instead of waiting out a timeout), and a reload (or any navigation) stops the
//! script and loads the page.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_testkit::mcp::{role_ref, tool};
use aperture_ui::chrome::controls;
use aperture_ui::egui::pos2;
use serde_json::json;
use std::time::{Duration, Instant};
use window::{App, Layout, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];

/// "Freeze" loops forever; "Paint" turns the page cyan, which only a running page can do.
const PAGE: &str = r#"<!doctype html><html><head><title>Stuck</title></head>
<body style="margin:0;background:#fff">
<button id="freeze" onclick="while (true) {}" style="position:absolute;left:40px;top:120px;width:300px;height:200px;border:0;background:rgb(230,20,140)">Freeze</button>
<button id="paint" onclick="document.body.style.background='rgb(0,200,200)'" style="position:absolute;left:400px;top:120px;width:300px;height:200px;border:0;background:#ddd">Paint</button>
</body></html>"#;

/// Dark pixels (the bar's words and buttons) in the bar's rectangle.
fn inked(app: &App, layout: &Layout) -> usize {
    let r = layout
        .chrome
        .control_rect(controls::UNRESPONSIVE)
        .expect("the layout drew the bar");
    window::dark_pixels(&app.capture(), r)
}

fn bar(app: &App, layout: &Layout, shown: bool, within: Duration, what: &str) {
    aperture_testkit::eventually_blocking(within, what, || {
        let n = inked(app, layout);
        (if shown { n > 150 } else { n < 40 }, n)
    });
}

#[test]
fn the_window_offers_to_wait_for_a_stuck_page_or_stop_its_script() {
    if !window::can_run("unresponsive") {
        return;
    }
    let server = Server::page(PAGE);
    let url = server.url("/");
    let dir = Scratch::new("unresponsive");
    let app = App::launch(&dir.0, 0, &[&url]);
    app.wait_for(MAGENTA, "stuck-page");
    let mut model = Layout::one_tab(&url);
    model.tabs[0].unresponsive = true;
    let mut layout = Layout::new(app.size(), model);
    let page = layout.chrome.page_rect().expect("a page area");
    let at = |x: f32| pos2(page.min.x + x, page.min.y + 220.0);

    // Nothing is said of a page that answers.
    bar(&app, &layout, false, Duration::from_secs(5), "no bar at first");
    window::xdo(&["windowfocus", "--sync", &app.window]);
    app.click(at(190.0), 1);
    window::keep(&app.capture(), "unresponsive-clicked");
    // Chromium waits 15 s before a page counts as not responding; so does the browser.
    let t = Instant::now();
    bar(
        &app,
        &layout,
        true,
        Duration::from_secs(40),
        "the bar over the stuck page",
    );
    assert!(
        t.elapsed() >= Duration::from_secs(12),
        "said too soon: {:?}",
        t.elapsed()
    );
    window::keep(&app.capture(), "unresponsive-bar");

    // Wait: the bar goes, and comes back while the script still runs.
    let wait = layout.click(controls::UNRESPONSIVE_WAIT);
    app.click(wait, 1);
    bar(
        &app,
        &layout,
        false,
        Duration::from_secs(5),
        "the bar gone on Wait",
    );
    bar(
        &app,
        &layout,
        true,
        Duration::from_secs(40),
        "the bar back, the page still stuck",
    );

    // Stop script: the bar goes and the same page answers a click again.
    let stop = layout.click(controls::UNRESPONSIVE_STOP);
    app.click(stop, 1);
    bar(
        &app,
        &layout,
        false,
        Duration::from_secs(10),
        "the bar gone on Stop script",
    );
    app.click(at(550.0), 1);
    app.wait_for(CYAN, "unresponsive-page-answers");
    let loads = || server.requests().iter().filter(|p| *p == "/").count();
    assert_eq!(loads(), 1, "the page was not loaded again");

    // Stuck again, F5 (the page would never pass the key on) stops the script and reloads.
    app.click(at(190.0), 1);
    bar(
        &app,
        &layout,
        true,
        Duration::from_secs(40),
        "the bar, stuck again",
    );
    app.key("F5");
    aperture_testkit::eventually_blocking(Duration::from_secs(20), "the reload", || (loads() == 2, loads()));
    bar(
        &app,
        &layout,
        false,
        Duration::from_secs(10),
        "the bar gone with the reload",
    );
    app.wait_for(MAGENTA, "unresponsive-reloaded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_is_told_a_page_is_not_responding_and_a_reload_stops_it() {
    let server = Server::page(PAGE);
    let b = aperture_testkit::Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .start()
        .await;
    let c = b.connect().await;
    let snap = aperture_testkit::mcp::goto(&c, &server.url("/")).await;
    let freeze = role_ref(&snap, "button", "Freeze");

    // The click's answer says what became of the page (its input was sent; the page never
    // finished with it).
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": freeze})).await;
    assert!(err, "{t}");
    assert!(t.contains("the page is not responding"), "{t}");

    // The tab list says so, and reads fail at once rather than waiting out a timeout.
    let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
    assert!(list.contains("not responding"), "{list}");
    let started = Instant::now();
    let (err, t) = tool(&c, "browser_snapshot", json!({})).await;
    assert!(err, "{t}");
    assert!(t.contains("the page is not responding"), "{t}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the read waited {:?}",
        started.elapsed()
    );

    // A reload stops the script and loads the page again, which then takes clicks.
    let (err, t) = tool(&c, "browser_navigate", json!({"action": "reload"})).await;
    assert!(!err, "{t}");
    let paint = role_ref(&t, "button", "Paint");
    let freeze = role_ref(&t, "button", "Freeze");
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": paint})).await;
    assert!(!err, "{t}");
    let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
    assert!(!list.contains("not responding"), "{list}");

    // Stuck again, going elsewhere on the same site (the same renderer) stops it too.
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": freeze})).await;
    assert!(err && t.contains("the page is not responding"), "{t}");
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/?again")}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains("?again"), "{t}");
}
