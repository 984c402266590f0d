//! Pinned tabs in the real windowed browser under X, with real clicks, across a restart: the
//! human pins the second of two tabs from its menu; it moves to the strip's start, narrow, the
//! session file says so, and after a clean quit and a new start on the same profile it is
//! still first and narrow (a click where the chrome draws the second tab beside a pinned first
//! one selects the other page).

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::TabId;
use aperture_ui::chrome::{controls, tab_control};
use std::collections::HashMap;
use window::{App, Layout, Scratch, wait_session};

const RED: [u8; 3] = [220, 30, 30];
const BLUE: [u8; 3] = [30, 60, 220];

fn page(title: &str, rgb: [u8; 3]) -> String {
    format!(
        r#"<!doctype html><html><head><title>{title}</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb({},{},{})"></div></body></html>"#,
        rgb[0], rgb[1], rgb[2]
    )
}

/// The strip as the window draws it: `first` and `second`, in that order, the second active.
fn two_tabs(a: &str, b: &str, first_pinned: bool) -> aperture_ui::ChromeModel {
    let mut m = Layout::one_tab(a);
    let mut t2 = m.tabs[0].clone();
    t2.id = TabId(2);
    t2.url = b.into();
    m.tabs[0].pinned = first_pinned;
    m.tabs.push(t2);
    m.active = Some(TabId(2));
    m
}

#[test]
fn a_pinned_tab_goes_first_narrow_and_stays_pinned_after_a_restart() {
    if !window::can_run("pinned_tabs") {
        return;
    }
    let server = Server::start(
        HashMap::from([
            ("/red".to_string(), page("Red", RED)),
            ("/blue".to_string(), page("Blue", BLUE)),
        ]),
        None,
    );
    let (red, blue) = (server.url("/red"), server.url("/blue"));
    let dir = Scratch::new("pinned");
    let mut app = App::launch(&dir.0, 0, &[&red]);
    app.wait_for(RED, "pinned-red");
    app.open_new_tab(&blue);
    app.wait_for(BLUE, "pinned-blue");

    // The blue tab's menu, Pin tab.
    let mut layout = Layout::new(app.size(), two_tabs(&red, &blue, false));
    let second = layout
        .chrome
        .control_rect(&tab_control(TabId(2)))
        .expect("a second tab")
        .center();
    app.click(second, 3);
    layout.right_click_at(second);
    let pin = layout
        .chrome
        .control_rect(controls::TAB_PIN)
        .expect("a Pin tab item")
        .center();
    app.click(pin, 1);
    let s = wait_session(&dir.profile(), "the pinned tab saved", |s| {
        s.contains("\"pinned\"")
    });
    let (at_blue, at_pin, at_red) = (
        s.find("/blue").unwrap(),
        s.find("\"pinned\"").unwrap(),
        s.find("/red").unwrap(),
    );
    assert!(at_blue < at_pin && at_pin < at_red, "blue first, pinned: {s}");
    app.terminate();

    // A new start on the profile: blue is still first and narrow, so where the chrome draws
    // the second tab beside a pinned first one is the red tab, and a click there shows it.
    let app = App::launch(&dir.0, 1, &[]);
    app.wait_for(BLUE, "pinned-restored");
    let layout = Layout::new(app.size(), two_tabs(&blue, &red, true));
    let first = layout.chrome.control_rect(&tab_control(TabId(1))).unwrap();
    assert!(first.width() < 60.0, "a pinned tab is narrow: {first:?}");
    let other = layout
        .chrome
        .control_rect(&tab_control(TabId(2)))
        .unwrap()
        .center();
    // Well inside where an unpinned first tab would be: this only selects red if blue is
    // drawn narrow.
    assert!(other.x < 200.0, "{other:?}");
    app.click(other, 1);
    app.wait_for(RED, "pinned-other-tab");
}
