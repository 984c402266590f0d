//! Find in page and reopening a closed tab, in the real window under X with real keys: Ctrl+F
//! and typing highlights the matches in the page (CEF's find), Esc clears them; Ctrl+W closes a
//! tab and Ctrl+Shift+T brings it back with its page, and with its back history.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use window::{App, Scratch};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const MAGENTA: [u8; 3] = [230, 20, 140];

/// Many copies of one word, large, black on white: find's highlights cover a wide area.
fn words_page() -> String {
    let words = "needle haystack ".repeat(60);
    format!(
        r#"<!doctype html><html><head><title>Words</title></head>
<body style="margin:0;background:#fff;color:#000;font:40px/1.3 sans-serif">{words}</body></html>"#
    )
}

const BLOCK: &str = r#"<!doctype html><html><head><title>Block</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:80px;width:300px;height:200px;background:rgb(230,20,140)"></div>
</body></html>"#;

/// Pixels in the yellow-to-orange range Chromium paints find matches with (bright red and
/// green, little blue), which the black-on-white page has none of.
fn highlighted(img: &image::RgbImage) -> usize {
    img.pixels()
        .filter(|p| p.0[0] > 200 && p.0[1] > 110 && p.0[2] < 90)
        .count()
}

fn wait_highlight(app: &App, on: bool, what: &str) {
    let t = Instant::now();
    loop {
        let img = app.capture();
        let n = highlighted(&img);
        if (on && n > 3000) || (!on && n < 50) {
            return;
        }
        if t.elapsed() > Duration::from_secs(20) {
            window::keep(&img, what);
            panic!("{what}: {n} highlight pixels");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn ctrl_f_highlights_matches_and_esc_clears_them() {
    if !window::can_run("find") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::page(&words_page());
    let dir = Scratch::new("find");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    // The page is up (its text is black) and nothing is highlighted yet.
    std::thread::sleep(Duration::from_secs(2));
    wait_highlight(&app, false, "before find");
    app.key("ctrl+f");
    app.type_text("needle");
    wait_highlight(&app, true, "find highlights the matches");
    app.key("Escape");
    wait_highlight(&app, false, "Esc clears the highlights");
}

#[test]
fn ctrl_shift_t_reopens_the_tab_ctrl_w_closed() {
    if !window::can_run("reopen") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::page(BLOCK);
    let dir = Scratch::new("reopen");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    app.wait_for(MAGENTA, "the page");
    // A second tab, so closing the first leaves the window open.
    app.key("ctrl+t");
    app.never(MAGENTA, 2, "the new tab is blank");
    app.key("ctrl+1");
    app.wait_for(MAGENTA, "back on the first tab");
    app.key("ctrl+w");
    app.never(MAGENTA, 2, "the closed tab's page is gone");
    app.key("ctrl+shift+t");
    app.wait_for(MAGENTA, "Ctrl+Shift+T brought the tab back");
    // In its old place, first in the strip, before the blank tab.
    app.key("ctrl+2");
    app.never(MAGENTA, 2, "the second tab is the blank one");
    app.key("ctrl+1");
    app.wait_for(MAGENTA, "the reopened tab is first again");
}

const GREEN: [u8; 3] = [20, 200, 60];

/// The tab Ctrl+Shift+T brings back has the pages it had been through: Alt+Left goes back to
/// the one before (it came back with only its last page before).
#[test]
fn a_reopened_tab_keeps_its_back_history() {
    if !window::can_run("reopen-history") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let green = BLOCK
        .replace("rgb(230,20,140)", "rgb(20,200,60)")
        .replace("Block", "Green");
    let server = Server::start(
        HashMap::from([("/a".to_string(), BLOCK.to_string()), ("/b".to_string(), green)]),
        None,
    );
    let dir = Scratch::new("reopen-history");
    let app = App::launch(&dir.0, 0, &[&server.url("/a")]);
    app.wait_for(MAGENTA, "page A");
    app.key("ctrl+l");
    app.type_text(&server.url("/b"));
    app.key("Return");
    app.wait_for(GREEN, "page B, after A in the same tab");
    app.key("ctrl+t");
    app.never(GREEN, 2, "the new tab is blank");
    app.key("ctrl+1");
    app.wait_for(GREEN, "back on the first tab");
    app.key("ctrl+w");
    app.never(GREEN, 2, "the closed tab's page is gone");
    app.key("ctrl+shift+t");
    app.wait_for(GREEN, "Ctrl+Shift+T brought the tab back at B");
    app.key("alt+Left");
    app.wait_for(MAGENTA, "Alt+Left in the reopened tab went back to A");
}
