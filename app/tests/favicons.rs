//! Page icons: a page's `<link rel=icon>` (a PNG of a known colour) is fetched through the
//! tab's request context, drawn in the tab strip, and kept in places, so after a restart a
//! restored tab that has not loaded its page yet still shows it, and so does the page's row
//! in the history panel. The real windowed browser
//! under X, read back from screen captures.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use window::{App, Scratch, wait_session};

static SERIAL: Mutex<()> = Mutex::new(());

/// The icon's colour: nothing else in the chrome or the pages is near it.
const ICON: [u8; 3] = [250, 110, 10];
const BLUE: [u8; 3] = [30, 60, 220];
const GREEN: [u8; 3] = [20, 200, 60];

const WITH_ICON: &str = r#"<!doctype html><html><head><title>Iconic</title>
<link rel="icon" type="image/png" href="/icon.png"></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(30,60,220)"></div>
</body></html>"#;

const PLAIN: &str = r#"<!doctype html><html><head><title>Plain</title>
<link rel="icon" href="data:,"></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(20,200,60)"></div>
</body></html>"#;

/// A 16×16 PNG of [`ICON`], in a directory the fixture server serves.
fn icon_dir(dir: &Scratch) -> std::path::PathBuf {
    let d = dir.0.join("www");
    std::fs::create_dir_all(&d).unwrap();
    image::RgbaImage::from_pixel(16, 16, image::Rgba([ICON[0], ICON[1], ICON[2], 255]))
        .save(d.join("icon.png"))
        .unwrap();
    d
}

/// Where the icon's colour is in the tab strip (the top 40 pixels), when it is there.
fn strip_icon(app: &App) -> Option<(u32, u32, u32, u32)> {
    let img = app.capture();
    let r = window::region(&img, ICON, 30, 0..40);
    if r.is_some() {
        window::keep(&img, "favicon-strip");
    }
    r.filter(|(x0, y0, x1, y1)| x1 - x0 >= 8 && y1 - y0 >= 8)
}

fn wait_strip_icon(app: &App, what: &str) -> (u32, u32, u32, u32) {
    let t = Instant::now();
    loop {
        if let Some(r) = strip_icon(app) {
            return r;
        }
        if t.elapsed() > Duration::from_secs(30) {
            window::keep(&app.capture(), what);
            panic!("{what}: no icon in the tab strip; stderr:\n{}", app.stderr());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_page_icon_shows_in_its_tab_and_is_kept_for_a_restored_tab() {
    if !window::can_run("favicons") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = Scratch::new("favicons");
    let s = Server::start(
        HashMap::from([
            ("/iconic".to_string(), WITH_ICON.to_string()),
            ("/plain".to_string(), PLAIN.to_string()),
        ]),
        Some(icon_dir(&dir)),
    );
    let (iconic, plain) = (s.url("/iconic"), s.url("/plain"));

    // Run 0: the page with the icon; its tab shows it.
    let mut app = App::launch(&dir.0, 0, &[&iconic]);
    app.wait_for(BLUE, "favicon-page");
    let (x0, _, x1, _) = wait_strip_icon(&app, "favicon-first-tab");
    assert!(x1 < 240, "the icon is not in the first tab: {x0}..{x1}");
    assert!(s.requests().iter().any(|p| p == "/icon.png"));
    // A second tab in front, whose page has no icon: the first tab keeps its own.
    app.open_new_tab(&plain);
    app.wait_for(GREEN, "favicon-second-tab");
    wait_session(&dir.profile(), "both tabs saved", |t| {
        t.contains(&iconic) && t.contains(&plain)
    });
    assert!(
        app.terminate().success(),
        "a clean quit; stderr:\n{}",
        app.stderr()
    );
    drop(app);

    let places = aperture_places::Places::open(&dir.profile()).expect("places.sqlite");
    let f = places
        .favicon_for(&iconic)
        .unwrap()
        .expect("places kept no icon for the page");
    assert_eq!(f.icon_url, s.url("/icon.png"));
    assert_eq!((f.width, f.height), (16, 16));
    assert_eq!(&f.rgba[..4], &[ICON[0], ICON[1], ICON[2], 255]);
    drop(places);

    // Run 1: both tabs come back; the first waits in the background without loading its
    // page, and its tab shows the kept icon all the same.
    let (pages, icons) = (
        s.requests().iter().filter(|p| *p == "/iconic").count(),
        s.requests().iter().filter(|p| *p == "/icon.png").count(),
    );
    let app = App::launch(&dir.0, 1, &[]);
    app.wait_for(GREEN, "favicon-restored-front");
    let (x0, _, x1, _) = wait_strip_icon(&app, "favicon-restored-strip");
    assert!(x1 < 240, "the icon is not in the first tab: {x0}..{x1}");
    assert_eq!(
        s.requests().iter().filter(|p| *p == "/iconic").count(),
        pages,
        "the background tab loaded its page"
    );
    assert_eq!(
        s.requests().iter().filter(|p| *p == "/icon.png").count(),
        icons,
        "the icon was fetched again rather than taken from places"
    );

    // The history panel's row of the page shows it too (below the strip and the toolbar).
    app.key("ctrl+h");
    let t = Instant::now();
    loop {
        let img = app.capture();
        if window::region(&img, ICON, 30, 90..img.height())
            .is_some_and(|(x0, y0, x1, y1)| x1 - x0 >= 8 && y1 - y0 >= 8)
        {
            window::keep(&img, "favicon-history");
            break;
        }
        if t.elapsed() > Duration::from_secs(20) {
            window::keep(&img, "favicon-history");
            panic!("no icon in the history panel");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}
