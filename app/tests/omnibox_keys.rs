//! The omnibox and the page's keys in the real window under X, with real keys: a URL typed
//! into a new private tab goes where it was typed; Esc stops a load; Esc in the omnibox
//! takes back an edit and leaves the keyboard somewhere.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use window::{App, Layout, Scratch};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];
const YELLOW: [u8; 3] = [250, 210, 0];

const WHITE: &str = r#"<!doctype html><html><head><title>White</title></head><body style="margin:0;background:#fff"></body></html>"#;

fn block(colour: [u8; 3]) -> String {
    let [r, g, b] = colour;
    format!(
        r#"<!doctype html><html><head><title>Block</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:80px;width:300px;height:200px;background:rgb({r},{g},{b})"></div>
</body></html>"#
    )
}

#[test]
fn a_url_typed_into_a_new_private_tab_is_where_it_goes() {
    if !window::can_run("private_tab_typing") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(
        HashMap::from([
            ("/".to_string(), WHITE.to_string()),
            ("/magenta".to_string(), block(MAGENTA)),
            ("/cyan".to_string(), block(CYAN)),
        ]),
        None,
    );
    let dir = Scratch::new("private-typing");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    std::thread::sleep(Duration::from_secs(2));
    // Typed at once, while the private tab (its context is new) is still being made.
    app.key("ctrl+shift+n");
    app.type_text(&server.url("/magenta"));
    app.key("Return");
    app.wait_for(MAGENTA, "private-typed-at-once");
    // Typed once the tab shows its blank page and its address.
    app.key("ctrl+shift+n");
    std::thread::sleep(Duration::from_millis(1500));
    app.type_text(&server.url("/cyan"));
    app.key("Return");
    app.wait_for(CYAN, "private-typed-later");
}

/// A page that shows `html` and never finishes loading (its response stays open for two
/// minutes, its declared length never reached); answers its URL.
fn never_ending_page(html: &str) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let url = format!("http://{}/", listener.local_addr().expect("an address"));
    // Enough bytes that Chromium parses and paints what it has.
    let body = format!("{html}<!--{}-->", " ".repeat(4096));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut req = Vec::new();
                let mut buf = [0u8; 1024];
                while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => req.extend_from_slice(&buf[..n]),
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
                    body.len() + 1_000_000
                );
                if stream.write_all(head.as_bytes()).is_err() || stream.write_all(body.as_bytes()).is_err() {
                    return;
                }
                let _ = stream.flush();
                std::thread::sleep(Duration::from_secs(120));
            });
        }
    });
    url
}

/// The window's pixels inside the reload button (a stop button while the tab loads).
fn reload_button(app: &App, layout: &Layout) -> image::RgbImage {
    let r = layout
        .chrome
        .control_rect("reload")
        .expect("the chrome drew the reload button");
    let img = app.capture();
    image::imageops::crop_imm(
        &img,
        r.min.x as u32,
        r.min.y as u32,
        r.width() as u32,
        r.height() as u32,
    )
    .to_image()
}

fn differing(a: &image::RgbImage, b: &image::RgbImage) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| {
            p.0.iter()
                .zip(q.0)
                .any(|(x, y)| (*x as i32 - y as i32).abs() > 24)
        })
        .count()
}

#[test]
fn esc_in_the_page_stops_a_load() {
    if !window::can_run("esc_stops") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::page(&block(MAGENTA));
    let slow = never_ending_page(&block(CYAN));
    let dir = Scratch::new("esc-stops");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    let layout = Layout::new(app.size(), Layout::one_tab(&server.url("/")));
    app.wait_for(MAGENTA, "esc-loaded");
    std::thread::sleep(Duration::from_secs(1));
    let idle = reload_button(&app, &layout);

    app.key("ctrl+l");
    app.type_text(&slow);
    app.key("Return");
    app.wait_for(CYAN, "esc-loading");
    std::thread::sleep(Duration::from_secs(1));
    let loading = reload_button(&app, &layout);
    assert!(
        differing(&idle, &loading) > 10,
        "the slow page's tab shows no stop button"
    );

    // The keyboard is in the page (Enter in the omnibox sent it there).
    app.key("Escape");
    let t = Instant::now();
    loop {
        let now = reload_button(&app, &layout);
        if differing(&idle, &now) <= 4 {
            break;
        }
        if t.elapsed() > Duration::from_secs(10) {
            window::keep(&app.capture(), "esc-not-stopped");
            panic!("Esc did not stop the load: the stop button is still there");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Magenta until a `g` key reaches the page, then all green.
const KEYS: &str = r#"<!doctype html><html><head><title>Keys</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:80px;width:300px;height:200px;background:rgb(230,20,140)"></div>
<script>document.addEventListener('keydown', e => {
  if (e.key === 'g') document.body.innerHTML = '<div style="position:absolute;inset:0;background:rgb(20,200,60)"></div>';
});</script></body></html>"#;

const GREEN: [u8; 3] = [20, 200, 60];

#[test]
fn esc_in_the_omnibox_takes_back_the_edit_and_keeps_the_keyboard() {
    if !window::can_run("omnibox_esc") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(
        HashMap::from([
            ("/".to_string(), KEYS.to_string()),
            ("/cyan".to_string(), block(CYAN)),
        ]),
        None,
    );
    let dir = Scratch::new("omnibox-esc");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    app.wait_for(MAGENTA, "omnibox-esc-start");

    // Esc takes the edit back and leaves the keyboard in the omnibox; a second Esc, with
    // nothing left to take back, hands it to the page.
    app.key("ctrl+l");
    app.type_text("nonsense");
    app.key("Escape");
    app.key("Escape");
    app.type_text("g");
    app.wait_for(GREEN, "omnibox-esc-page-has-the-keys");

    // After Esc the address is selected and typing replaces it.
    app.key("ctrl+l");
    app.type_text("more nonsense");
    app.key("Escape");
    app.type_text(&server.url("/cyan"));
    app.key("Return");
    app.wait_for(CYAN, "omnibox-esc-typed-again");
}

#[test]
fn ctrl_l_or_ctrl_t_after_the_last_tab_closed_gives_a_tab_to_type_into() {
    if !window::can_run("ctrl_l_no_tabs") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(
        HashMap::from([
            ("/".to_string(), block(CYAN)),
            ("/magenta".to_string(), block(MAGENTA)),
            ("/yellow".to_string(), block(YELLOW)),
        ]),
        None,
    );
    let dir = Scratch::new("ctrl-l-no-tabs");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    app.wait_for(CYAN, "no-tabs-start");
    app.key("ctrl+w");
    app.never(CYAN, 1, "no-tabs-closed");
    app.key("ctrl+l");
    app.type_text(&server.url("/magenta"));
    app.key("Return");
    app.wait_for(MAGENTA, "no-tabs-typed");
    // Ctrl+T from no tabs too: the new tab's omnibox has the keyboard.
    app.key("ctrl+w");
    app.never(MAGENTA, 1, "no-tabs-closed-again");
    app.key("ctrl+t");
    app.type_text(&server.url("/yellow"));
    app.key("Return");
    app.wait_for(YELLOW, "no-tabs-ctrl-t-typed");
}
