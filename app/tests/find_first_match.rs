//! Find in page in the real window under X, with real keys: typing a word goes to its first
//! match at once (the page scrolls to it), as in Chrome, rather than only counting matches.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::time::Duration;
use window::{App, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];

/// A word far below the fold, beside a magenta block that shows only once it is scrolled to.
const FAR: &str = r#"<!doctype html><html><head><title>Far</title></head>
<body style="margin:0;background:#fff;font:30px sans-serif">
<div style="height:4000px"></div>
<p>zanzibar</p>
<div style="width:300px;height:200px;background:rgb(230,20,140)"></div>
<div style="height:2000px"></div>
</body></html>"#;

#[test]
fn typing_in_the_find_bar_scrolls_to_the_first_match() {
    if !window::can_run("find_first_match") {
        return;
    }
    let server = Server::page(FAR);
    let dir = Scratch::new("find-first");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    std::thread::sleep(Duration::from_secs(2));
    app.never(MAGENTA, 1, "find-first-not-scrolled-yet");
    app.key("ctrl+f");
    app.type_text("zanzibar");
    app.wait_for(MAGENTA, "find-first-scrolled-to-the-match");
}
