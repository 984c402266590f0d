//! A pop-up a page opens without a click is stopped, and the human can still have it, as in
//! Chrome and Firefox: a bar over the page says so, "Open it" opens it in a new tab, and
//! "Always allow on ORIGIN" opens it and lets that origin's pages open pop-ups from then on (kept
//! in settings.json; the settings view can take it back). The real windowed browser under X,
//! answered with real X clicks; whether a pop-up loaded is the fixture server's log and the
//! window's pixels.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::chrome::controls;
use aperture_ui::{BlockedPopupView, TabId};
use std::collections::HashMap;
use std::time::Duration;
use window::{App, Layout, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];

/// Opens `/popup` a moment after it loads, with no click: a pop-up advert's way, and a slow
/// sign-in's that lost the click to an await.
const OPENER: &str = r#"<!doctype html><html><head><title>Opener</title></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:120px;width:300px;height:200px;background:rgb(230,20,140)"></div>
<script>setTimeout(() => window.open('/popup', 'p', 'width=400,height=300'), 300);</script>
</body></html>"#;

const POPUP: &str = r#"<!doctype html><html><head><title>Popup</title></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:120px;width:300px;height:200px;background:rgb(0,200,200)"></div>
</body></html>"#;

/// Dark pixels (the bar's words and buttons) in the bar's rectangle.
fn inked(app: &App, layout: &Layout) -> usize {
    let r = layout
        .chrome
        .control_rect(controls::BLOCKED_POPUP)
        .expect("the layout drew the bar");
    window::dark_pixels(&app.capture(), r)
}

fn bar_shown(app: &App, layout: &Layout, what: &str) {
    aperture_testkit::eventually_blocking(Duration::from_secs(30), what, || {
        let n = inked(app, layout);
        (n > 150, n)
    });
}

#[test]
fn a_stopped_popup_is_offered_and_a_site_can_be_allowed() {
    if !window::can_run("blocked_popup") {
        return;
    }
    let server = Server::start(
        HashMap::from([
            ("/opener".to_string(), OPENER.to_string()),
            ("/popup".to_string(), POPUP.to_string()),
        ]),
        None,
    );
    let opener = server.url("/opener");
    // The origin "Always allow" is for, as `url` serialises one.
    let origin = opener.trim_end_matches("/opener").to_string();
    let dir = Scratch::new("blocked-popup");
    let app = App::launch(&dir.0, 0, &[&opener]);
    app.wait_for(MAGENTA, "popup-opener");
    let popups = || server.requests().iter().filter(|p| *p == "/popup").count();

    let mut model = Layout::one_tab(&opener);
    model.blocked_popup = Some(BlockedPopupView {
        tab: TabId(1),
        url: server.url("/popup"),
        origin: Some(origin.clone()),
        count: 1,
    });
    let mut layout = Layout::new(app.size(), model);
    bar_shown(&app, &layout, "the blocked-popup bar");
    assert_eq!(popups(), 0, "the pop-up was not stopped");

    // "Open it": the pop-up in a new tab, in front.
    let open = layout.click(controls::BLOCKED_POPUP_OPEN);
    app.click(open, 1);
    app.wait_for(CYAN, "popup-opened");
    assert_eq!(popups(), 1);

    // Back on the opener (closing the tab it opened returns to it), a reload tries again:
    // stopped again, and this time the site is allowed.
    app.key("ctrl+w");
    app.wait_for(MAGENTA, "popup-back-on-opener");
    app.key("F5");
    bar_shown(&app, &layout, "the bar after a reload");
    assert_eq!(popups(), 1, "stopped again");
    let allow = layout.click(controls::BLOCKED_POPUP_ALLOW);
    app.click(allow, 1);
    app.wait_for(CYAN, "popup-allowed");
    assert_eq!(popups(), 2, "allowing opens the one just stopped");
    let settings = dir.0.join("config").join("aperture").join("settings.json");
    aperture_testkit::eventually_blocking(Duration::from_secs(10), "the choice saved", || {
        let s = std::fs::read_to_string(&settings).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap_or_default();
        (v["popup_origins"] == serde_json::json!([origin]), s)
    });

    // From now on the site's pages open pop-ups by themselves.
    app.key("ctrl+w");
    app.wait_for(MAGENTA, "popup-back-again");
    app.key("F5");
    app.wait_for(CYAN, "popup-opens-by-itself");
    assert_eq!(popups(), 3);

    // And after a restart on the same profile and settings: the opener, named at start,
    // opens its pop-up by itself again (the other tabs come back unloaded).
    drop(app);
    let _app = App::launch(&dir.0, 1, &[&opener]);
    aperture_testkit::eventually_blocking(Duration::from_secs(30), "the pop-up after a restart", || {
        (popups() >= 4, popups())
    });
}
