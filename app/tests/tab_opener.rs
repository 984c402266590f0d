//! Closing a tab a page opened returns to the tab that opened it, as in Chrome, unless the
//! human went to another tab in between; then the neighbour takes the front as before. The
//! real windowed browser under X: real clicks on links (left: a new tab in front; middle: one
//! in the background), Ctrl+N and Ctrl+W as real keys, the front tab read back by its colour.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::collections::HashMap;
use std::sync::Mutex;
use window::{App, Layout, Scratch};

static SERIAL: Mutex<()> = Mutex::new(());

const RED: [u8; 3] = [220, 30, 30];
const GREEN: [u8; 3] = [20, 200, 60];
const BLUE: [u8; 3] = [30, 60, 220];

/// The opener: a red block and two links, to a green page and to a blue one, each a big
/// target at a known place.
const OPENER: &str = r#"<!doctype html><html><head><title>Opener</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(220,30,30)"></div>
<a id="g" href="/green" target="_blank" style="position:absolute;left:40px;top:300px;width:300px;height:60px;display:block;background:#eee">green</a>
<a id="b" href="/blue" target="_blank" style="position:absolute;left:40px;top:400px;width:300px;height:60px;display:block;background:#eee">blue</a>
</body></html>"#;

fn block(title: &str, rgb: [u8; 3]) -> String {
    format!(
        r#"<!doctype html><html><head><title>{title}</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb({},{},{})"></div></body></html>"#,
        rgb[0], rgb[1], rgb[2]
    )
}

fn server() -> Server {
    Server::start(
        HashMap::from([
            ("/opener".to_string(), OPENER.to_string()),
            ("/green".to_string(), block("Green", GREEN)),
            ("/blue".to_string(), block("Blue", BLUE)),
        ]),
        None,
    )
}

/// Tabs [opener, blue, green], green in front: the opener's green link clicked (a new tab in
/// front), back to the opener, its blue link middle-clicked (a background tab, placed next to
/// the opener), then the green tab brought to the front again with Ctrl+3.
fn three_tabs(dir: &Scratch, s: &Server) -> App {
    let app = App::launch(&dir.0, 0, &[&s.url("/opener")]);
    app.wait_for(RED, "opener-start");
    let page = Layout::new(app.size(), Layout::one_tab(&s.url("/opener")))
        .chrome
        .page_rect()
        .expect("a page area");
    let at = |x: f32, y: f32| aperture_ui::egui::pos2(page.min.x + x, page.min.y + y);
    app.click(at(190.0, 330.0), 1);
    app.wait_for(GREEN, "opener-green-in-front");
    app.key("ctrl+1");
    app.wait_for(RED, "opener-back");
    app.click(at(190.0, 430.0), 2);
    let t = std::time::Instant::now();
    while s.requests().iter().all(|p| p != "/blue") {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "the middle-click opened nothing"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // Long enough for the page to have loaded and painted had its tab come to the front (on a
    // loaded machine a second after the request is not).
    app.never(BLUE, 3, "opener-blue-stays-behind");
    app.key("ctrl+3");
    app.wait_for(GREEN, "opener-green-again");
    app
}

#[test]
fn closing_an_opened_tab_returns_to_its_opener() {
    if !window::can_run("tab_opener") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = server();
    let dir = Scratch::new("opener");
    let app = three_tabs(&dir, &s);
    // The neighbour before the green tab is the blue one; the opener wins.
    app.key("ctrl+w");
    app.wait_for(RED, "opener-after-close");
    app.never(BLUE, 1, "opener-not-the-neighbour");
}

#[test]
fn after_visiting_another_tab_closing_goes_to_the_neighbour() {
    if !window::can_run("tab_opener_switched") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = server();
    let dir = Scratch::new("opener-switched");
    let app = three_tabs(&dir, &s);
    app.key("ctrl+2");
    app.wait_for(BLUE, "switched-to-blue");
    app.key("ctrl+3");
    app.wait_for(GREEN, "switched-back-to-green");
    app.key("ctrl+w");
    app.wait_for(BLUE, "switched-neighbour-after-close");
}
