//! The omnibox and the page's keys in the real window under X, with real keys: a URL typed
//! into a new private tab goes where it was typed; Esc stops a load; Esc in the omnibox
//! takes back an edit and leaves the keyboard somewhere.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::collections::HashMap;
use std::time::Duration;
use window::{App, Scratch};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];

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
