//! The human's DevTools in the real windowed browser under X, with real keys and clicks: the
//! page menu's Inspect and F12 in the page open its DevTools in a window of their own, the
//! agent's tab list never shows them, and the browser still quits at once with them open and
//! takes them along. (Closing them by hand is their window's close button, which needs a window
//! manager this display does not run.)

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

/// The DevTools window shown, if any.
fn devtools_window() -> Option<String> {
    let out = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", "^DevTools"])
        .output()
        .expect("xdotool");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(str::to_string)
}

fn devtools_shown() -> bool {
    devtools_window().is_some()
}

fn wait_devtools(shown: bool, what: &str) {
    aperture_testkit::eventually_blocking(Duration::from_secs(30), what, || {
        let now = devtools_shown();
        (now == shown, now)
    });
}

/// A windowed browser on the page; the page area in window coordinates.
async fn start(
    dir: &std::path::Path,
    url: &str,
) -> (
    aperture_testkit::McpBrowser,
    aperture_testkit::mcp::Client,
    String,
    aperture_ui::egui::Rect,
) {
    let (browser, c, w, size) = window::start_showing(url, dir, MAGENTA).await;
    let page = Layout::new(size, Layout::one_tab(url))
        .chrome
        .page_rect()
        .expect("a page area");
    (browser, c, w, page)
}

/// Quits `browser` as a session end does, with DevTools open: promptly, cleanly, and they go.
fn quit_with_devtools(browser: &mut aperture_testkit::McpBrowser) {
    let status = browser.terminate(Duration::from_secs(20));
    assert!(status.success(), "{status:?}: {}", browser.stderr());
    wait_devtools(false, "DevTools to go with the browser");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_and_f12_open_the_pages_devtools_for_the_human_only() {
    if !window::can_run("devtools") {
        return;
    }
    assert!(!devtools_shown(), "a DevTools window is already on this display");
    let server = Server::page(PAGE);
    let url = server.url("/");

    // Inspect, from a real right-click on the box and a real click on the item.
    let dir = tempfile::tempdir().unwrap();
    let (mut browser, c, w, page) = start(dir.path(), &url).await;
    let size = window::size_of(&w);
    tokio::task::spawn_blocking(move || {
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
            misspelled: None,
            suggestions: Vec::new(),
            can_back: false,
            can_forward: false,
        });
        let item = Layout::new(size, model)
            .chrome
            .control_rect(controls::CTX_INSPECT)
            .expect("an Inspect item");
        window::xdo(&["windowfocus", "--sync", &w]);
        let before = window::capture(&w);
        window::click(&w, pos2(page.min.x + x, page.min.y + y), 3);
        // The menu is the chrome's, drawn once CEF has reported the right-click.
        aperture_testkit::eventually_blocking(Duration::from_secs(20), "the page menu", || {
            let now = window::capture(&w);
            // Its label's pixels, over a page that is plain white there.
            let changed = (item.min.y as u32..item.max.y as u32)
                .flat_map(|y| (item.min.x as u32..item.max.x as u32).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    let (p, q) = (now.get_pixel(x, y).0, before.get_pixel(x, y).0);
                    p.iter().zip(q).any(|(u, v)| u.abs_diff(v) > 40)
                })
                .count();
            (changed > 0, changed)
        });
        window::click(&w, item.center(), 1);
        wait_devtools(true, "Inspect to open DevTools");
        window::keep(&window::capture(&w), "devtools-inspect");
    })
    .await
    .unwrap();
    // DevTools are the human's: never a tab the agent can list or drive.
    let list = tabs_until(&c, "the tab list", |_| true).await;
    assert_eq!(tab_lines(&list).len(), 1, "{list}");
    quit_with_devtools(&mut browser);

    // F12, a real key in the page, in a browser of its own.
    let dir = tempfile::tempdir().unwrap();
    let (mut browser, _c, w, page) = start(dir.path(), &url).await;
    tokio::task::spawn_blocking(move || {
        window::xdo(&["windowfocus", "--sync", &w]);
        window::click(&w, pos2(page.min.x + 600.0, page.min.y + 300.0), 1);
        window::xdo(&["key", "F12"]);
        wait_devtools(true, "F12 to open DevTools");
    })
    .await
    .unwrap();
    quit_with_devtools(&mut browser);
}
