//! Many tabs in the real window under X: past the tabs' minimum width the strip scrolls,
//! and a mouse wheel over it brings the tabs scrolled out of sight back to be clicked.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::time::Duration;
use window::{App, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];

const BLOCK: &str = r#"<!doctype html><html><head><title>Block</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:80px;width:300px;height:200px;background:rgb(230,20,140)"></div>
</body></html>"#;

#[test]
fn the_wheel_over_the_tab_strip_reaches_tabs_out_of_sight() {
    if !window::can_run("tab_strip_wheel") {
        return;
    }
    let server = Server::page(BLOCK);
    let dir = Scratch::new("tab-strip-wheel");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    app.wait_for(MAGENTA, "wheel-first-tab");
    // Enough blank tabs that the first (the magenta page) is scrolled out of the strip.
    for _ in 0..30 {
        app.key("ctrl+t");
    }
    app.never(MAGENTA, 1, "wheel-last-tab-shown");
    // The wheel turned up over the strip scrolls it back to its start.
    window::xdo(&["mousemove", "--window", &app.window, "400", "20"]);
    std::thread::sleep(Duration::from_millis(200));
    window::xdo(&["click", "--repeat", "40", "--delay", "30", "4"]);
    std::thread::sleep(Duration::from_millis(500));
    // Where the first tab is drawn when the strip is at its start.
    app.click(aperture_ui::egui::pos2(40.0, 20.0), 1);
    app.wait_for(MAGENTA, "wheel-first-tab-clicked");
}
