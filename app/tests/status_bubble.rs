//! The hovered link's address, shown as a bubble at the page's bottom-left corner (as Chrome and
//! Firefox show it), from CEF's status messages: it appears while the real pointer is over a
//! link and goes when the pointer leaves.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::time::{Duration, Instant};
use window::{App, Scratch};

/// A dark page with one big magenta link in its middle.
const PAGE: &str = r#"<!doctype html><html><head><title>Links</title></head>
<body style="margin:0;background:rgb(20,30,90);height:100vh">
<a href="/somewhere/far/away.html" style="position:absolute;left:300px;top:200px;width:300px;height:150px;background:rgb(230,20,140);display:block"></a>
</body></html>"#;

const MAGENTA: [u8; 3] = [230, 20, 140];
const NAVY: [u8; 3] = [20, 30, 90];
const BUBBLE: [u8; 3] = [242, 242, 242];

/// The bubble's box: light grey pixels in the bottom rows of the page (the navy area).
fn bubble(img: &image::RgbImage, page: (u32, u32, u32, u32)) -> Option<(u32, u32, u32, u32)> {
    let rows = page.3.saturating_sub(40)..page.3 + 1;
    window::region(img, BUBBLE, 3, rows).filter(|b| b.0 <= page.0 + 4 && b.2 - b.0 > 60)
}

#[test]
fn hovering_a_link_shows_its_address_and_leaving_hides_it() {
    if !window::can_run("status bubble") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = Scratch::new("status");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    let t = Instant::now();
    let (page, link) = loop {
        let img = app.capture();
        if let (Some(p), Some(l)) = (
            window::region(&img, NAVY, 4, 0..img.height()),
            window::region(&img, MAGENTA, 10, 0..img.height()),
        ) && l.2 - l.0 > 200
        {
            break (p, l);
        }
        assert!(t.elapsed() < Duration::from_secs(45), "the page never showed");
        std::thread::sleep(Duration::from_millis(250));
    };
    assert!(
        bubble(&app.capture(), page).is_none(),
        "no bubble before any hover"
    );
    let w = app.window.as_str();
    let at = |x: u32, y: u32| window::xdo(&["mousemove", "--window", w, &x.to_string(), &y.to_string()]);
    at((link.0 + link.2) / 2, (link.1 + link.3) / 2);
    let t = Instant::now();
    loop {
        let img = app.capture();
        if bubble(&img, page).is_some() {
            break;
        }
        if t.elapsed() > Duration::from_secs(20) {
            window::keep(&img, "status-bubble");
            panic!("no status bubble while hovering the link");
        }
        // Small moves keep the hover fresh, as a hand does.
        at(
            (link.0 + link.2) / 2 + (t.elapsed().as_millis() % 7) as u32,
            (link.1 + link.3) / 2,
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // Off the link, onto the bare page: the bubble goes.
    at(page.0 + 60, page.1 + 60);
    let t = Instant::now();
    while bubble(&app.capture(), page).is_some() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the bubble stayed after the pointer left the link"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}
