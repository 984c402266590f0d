//! The omnibox offers the human's other open tabs, in the real window under X with real keys:
//! in a new tab, typing words of another tab's title suggests "Switch to this tab", and Down,
//! Enter brings that tab to the front instead of loading its page a second time.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::time::Duration;
use window::{tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_another_tabs_title_switches_to_it() {
    if !window::can_run("omnibox_switch") {
        return;
    }
    let server = Server::page(
        r#"<!doctype html><html><head><title>Quarterly Ledger</title></head>
<body style="margin:0"><div style="width:300px;height:200px;background:rgb(230,20,140)"></div></body></html>"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, _) = window::start_showing(&url, dir.path(), MAGENTA).await;
    window::xdo(&["windowfocus", "--sync", &w]);
    window::xdo(&["key", "--clearmodifiers", "ctrl+t"]);
    tabs_until(&c, "the new tab in front", |t| {
        let l = tab_lines(t);
        l.len() == 2 && l[1].contains("foreground")
    })
    .await;
    std::thread::sleep(Duration::from_millis(500));
    window::xdo(&["type", "--delay", "30", "ledger quar"]);
    // The suggestions arrive with the typing; then Down onto the switch and Enter.
    std::thread::sleep(Duration::from_millis(1000));
    window::keep(&window::capture(&w), "omnibox-switch");
    window::xdo(&["key", "Down"]);
    std::thread::sleep(Duration::from_millis(300));
    window::xdo(&["key", "Return"]);
    let list = tabs_until(&c, "the first tab in front", |t| {
        tab_lines(t).first().is_some_and(|l| l.contains("foreground"))
    })
    .await;
    assert_eq!(tab_lines(&list).len(), 2, "{list}");
    assert_eq!(
        list.matches(url.as_str()).count(),
        1,
        "the page was not loaded again: {list}"
    );
    assert_eq!(server.requests().iter().filter(|p| *p == "/").count(), 1);
}
