//! The human's DevTools in the real windowed browser under X, with real keys and clicks: F12
//! opens the page's DevTools in a window of their own and closes them again, the page menu's
//! Inspect opens them, the agent's tab list never shows them, and the browser still quits at
//! once with them open.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::ContextMenuView;
use aperture_ui::TabId;
use aperture_ui::chrome::controls;
use aperture_ui::egui::pos2;
use std::process::Command;
use std::time::Duration;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Inspect me</title></head>
<body style="margin:0;background:#fff">
<div id="box" style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
</body></html>"#;

/// Whether a DevTools window is shown.
fn devtools_shown() -> bool {
    let out = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", "^DevTools"])
        .output()
        .expect("xdotool");
    !String::from_utf8_lossy(&out.stdout).trim().is_empty()
}

fn wait_devtools(shown: bool, what: &str) {
    aperture_testkit::eventually_blocking(Duration::from_secs(30), what, || {
        let now = devtools_shown();
        (now == shown, now)
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn f12_and_inspect_open_the_pages_devtools_for_the_human_only() {
    if !window::can_run("devtools") {
        return;
    }
    assert!(!devtools_shown(), "a DevTools window is already on this display");
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (mut browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let blank = pos2(page.min.x + 600.0, page.min.y + 300.0);
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        window::xdo(&["windowfocus", "--sync", &w2]);
        window::click(&w2, blank, 1);
        window::xdo(&["key", "F12"]);
        wait_devtools(true, "F12 to open DevTools");
    })
    .await
    .unwrap();
    // DevTools are the human's: never a tab the agent can list or drive.
    let list = tabs_until(&c, "the tab list", |_| true).await;
    assert_eq!(tab_lines(&list).len(), 1, "{list}");

    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        // F12 again, in the page: they close.
        window::xdo(&["windowfocus", "--sync", &w2]);
        window::click(&w2, blank, 1);
        window::xdo(&["key", "F12"]);
        wait_devtools(false, "F12 to close DevTools");

        // Inspect, from a real right-click on the box and a real click on the item.
        let (x, y) = (150.0, 120.0);
        let mut model = Layout::one_tab("");
        model.context_menu = Some(ContextMenuView {
            tab: TabId(1),
            x,
            y,
            link_url: None,
            image_url: None,
            selection: None,
            editable: false,
            can_back: false,
            can_forward: false,
        });
        let layout = Layout::new(size, model);
        let item = layout
            .chrome
            .control_rect(controls::CTX_INSPECT)
            .expect("an Inspect item")
            .center();
        window::click(&w2, pos2(page.min.x + x, page.min.y + y), 3);
        window::click(&w2, item, 1);
        wait_devtools(true, "Inspect to open DevTools");
        window::keep(&window::capture(&w2), "devtools-inspect");
    })
    .await
    .unwrap();

    // With DevTools open, the browser quits as promptly as without.
    let status = browser.terminate(Duration::from_secs(20));
    assert!(status.success(), "{status:?}: {}", browser.stderr());
    wait_devtools(false, "DevTools to go with the browser");
}
