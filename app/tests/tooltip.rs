//! A page's tooltips (an element's `title`) in the window. Off-screen rendering draws none
//! itself: CEF hands the text to the embedder (`OnTooltip`), and the chrome draws it beside the
//! pointer after a short rest, puts it away on a press, and shows none for an element without
//! one. Real X pointer moves and clicks; the tooltip is found by its colour.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::time::{Duration, Instant};
use window::{App, Scratch};

/// A navy page with a magenta box that has a title and a green one that has none.
const PAGE: &str = r#"<!doctype html><html><head><title>Tips</title></head>
<body style="margin:0;background:rgb(20,30,90);height:100vh">
<div title="Save the draft to your account" style="position:absolute;left:80px;top:80px;width:260px;height:160px;background:rgb(230,20,140)"></div>
<div style="position:absolute;left:480px;top:80px;width:260px;height:160px;background:rgb(20,200,60)"></div>
</body></html>"#;

const MAGENTA: [u8; 3] = [230, 20, 140];
const GREEN: [u8; 3] = [20, 200, 60];
const NAVY: [u8; 3] = [20, 30, 90];
const TIP: [u8; 3] = [
    aperture_ui::TIP_FILL.r(),
    aperture_ui::TIP_FILL.g(),
    aperture_ui::TIP_FILL.b(),
];

/// The tooltip's box on the page: its fill's pixels inside the page's rows.
fn tip(img: &image::RgbImage, page: (u32, u32, u32, u32)) -> Option<(u32, u32, u32, u32)> {
    window::region(img, TIP, 2, page.1..page.3 + 1)
        .filter(|b| b.0 >= page.0 && b.2 <= page.2 && b.2 - b.0 > 40 && b.3 - b.1 > 10)
}

/// Waits (up to 20 s) for `want` to hold of the tooltip.
fn until(
    app: &App,
    page: (u32, u32, u32, u32),
    what: &str,
    want: impl Fn(Option<(u32, u32, u32, u32)>) -> bool,
) -> image::RgbImage {
    let t = Instant::now();
    loop {
        let img = app.capture();
        if want(tip(&img, page)) {
            return img;
        }
        if t.elapsed() > Duration::from_secs(20) {
            window::keep(&img, "tooltip");
            panic!("{what}");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn hover(app: &App, (x, y): (u32, u32)) {
    window::xdo(&[
        "mousemove",
        "--window",
        &app.window,
        &x.to_string(),
        &y.to_string(),
    ]);
}

#[test]
fn a_titled_element_shows_its_tooltip_beside_the_pointer_and_a_press_puts_it_away() {
    if !window::can_run("tooltip") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = Scratch::new("tooltip");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    let t = Instant::now();
    let (page, titled, plain) = loop {
        let img = app.capture();
        if let (Some(p), Some(m), Some(g)) = (
            window::region(&img, NAVY, 4, 0..img.height()),
            window::region(&img, MAGENTA, 10, 0..img.height()),
            window::region(&img, GREEN, 10, 0..img.height()),
        ) && m.2 - m.0 > 200
            && g.2 - g.0 > 200
        {
            break (p, m, g);
        }
        assert!(t.elapsed() < Duration::from_secs(45), "the page never showed");
        std::thread::sleep(Duration::from_millis(250));
    };
    assert!(tip(&app.capture(), page).is_none(), "no tooltip before any hover");

    // Rest on the titled box: its tooltip shows just below the pointer, with its text drawn.
    let on = ((titled.0 + titled.2) / 2, (titled.1 + titled.3) / 2);
    hover(&app, (on.0 - 3, on.1));
    hover(&app, on);
    let img = until(&app, page, "no tooltip while resting on a titled element", |b| {
        b.is_some()
    });
    window::keep(&img, "tooltip-shown");
    let b = tip(&img, page).unwrap();
    assert!(
        b.1 > on.1 && b.1 < on.1 + 45 && b.0 <= on.0 + 2 && b.2 > on.0 + 60,
        "the tooltip {b:?} is not just below the pointer at {on:?}"
    );
    let text = (b.1..=b.3)
        .flat_map(|y| (b.0..=b.2).map(move |x| (x, y)))
        .filter(|&(x, y)| img.get_pixel(x, y).0.iter().all(|c| *c > 200))
        .count();
    assert!(
        text > 50,
        "the tooltip {b:?} has no text drawn in it ({text} light pixels)"
    );

    // A press puts it away, and it stays away while the pointer stays.
    window::xdo(&["click", "1"]);
    until(&app, page, "the tooltip stayed after a press", |b| b.is_none());
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(2) {
        assert!(
            tip(&app.capture(), page).is_none(),
            "a tooltip came back on the same element after the press"
        );
        std::thread::sleep(Duration::from_millis(300));
    }

    // An element without a title shows none.
    let off = ((plain.0 + plain.2) / 2, (plain.1 + plain.3) / 2);
    hover(&app, off);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        tip(&app.capture(), page).is_none(),
        "a tooltip showed over an element without a title"
    );

    // Back on the titled one, it shows again; off the page's elements, it goes.
    hover(&app, on);
    until(
        &app,
        page,
        "no tooltip on coming back to the titled element",
        |b| b.is_some(),
    );
    hover(&app, (page.0 + 30, page.3 - 30));
    until(
        &app,
        page,
        "the tooltip stayed after the pointer left the element",
        |b| b.is_none(),
    );
}
