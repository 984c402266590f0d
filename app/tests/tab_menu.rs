//! A tab's right-click menu and muting in the real windowed browser under X: Ctrl+M as a real
//! key mutes the tab in Chromium itself (the agent's tab list reads Chromium's state back), the
//! tab's speaker mark unmutes it, and the menu's Duplicate and Close other tabs, picked with
//! real right and left clicks, open and close real tabs. Where the menu's items are drawn is
//! asked of the same chrome run headless at the window's size. Ctrl+Shift+R reloads
//! past the cache.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::TabId;
use aperture_ui::chrome::{controls, tab_control, tab_mute_control};
use std::time::Duration;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Tab menu</title></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
</body></html>"#;

/// Right-clicks at `at` in the window and in `layout`, then left-clicks the menu's `item`.
fn pick(window: &str, layout: &mut Layout, at: aperture_ui::egui::Pos2, item: &str) {
    window::click(window, at, 3);
    layout.right_click_at(at);
    let r = layout
        .chrome
        .control_rect(item)
        .unwrap_or_else(|| panic!("the tab menu drew no {item}"));
    window::click(window, r.center(), 1);
    layout.click(item);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tab_menu_and_ctrl_m_mute_duplicate_and_close_real_tabs() {
    if !window::can_run("tab_menu") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let list = tabs_until(&c, "one tab", |t| tab_lines(t).len() == 1).await;
    assert!(!list.contains("muted"), "{list}");

    // Ctrl+M, a real key: Chromium mutes the tab.
    window::xdo(&["windowfocus", "--sync", &w]);
    window::xdo(&["key", "--clearmodifiers", "ctrl+m"]);
    tabs_until(&c, "the tab to be muted", |t| {
        tab_lines(t).iter().any(|l| l.contains("muted"))
    })
    .await;
    window::keep(&window::capture(&w), "tab-menu-muted");

    // Its speaker mark unmutes it.
    let mut muted = Layout::one_tab(&url);
    muted.tabs[0].muted = true;
    let mark = Layout::new(size, muted)
        .chrome
        .control_rect(&tab_mute_control(TabId(1)))
        .expect("a speaker mark on the muted tab");
    window::click(&w, mark.center(), 1);
    tabs_until(&c, "the tab to be unmuted", |t| !t.contains("muted")).await;

    // The tab's menu: Duplicate opens the same page in a second tab, in front.
    let mut layout = Layout::new(size, Layout::one_tab(&url));
    let first = layout
        .chrome
        .control_rect(&tab_control(TabId(1)))
        .unwrap()
        .center();
    pick(&w, &mut layout, first, controls::TAB_DUPLICATE);
    let list = tabs_until(&c, "a duplicate", |t| tab_lines(t).len() == 2).await;
    let lines = tab_lines(&list);
    assert!(
        lines[1].contains("foreground"),
        "the duplicate is in front: {list}"
    );
    assert_eq!(
        list.matches(url.as_str()).count(),
        2,
        "both tabs show the page: {list}"
    );
    aperture_testkit::eventually(Duration::from_secs(20), "the duplicate's request", async || {
        let n = server.requests().iter().filter(|p| *p == "/").count();
        (n >= 2, n)
    })
    .await;

    // Then Close other tabs on the first: only it is left, in front.
    let mut two = Layout::one_tab(&url);
    let mut second = two.tabs[0].clone();
    second.id = TabId(2);
    two.tabs.push(second);
    two.active = Some(TabId(2));
    let mut layout = Layout::new(size, two);
    pick(&w, &mut layout, first, controls::TAB_CLOSE_OTHERS);
    let list = tabs_until(&c, "the other tab to close", |t| tab_lines(t).len() == 1).await;
    assert!(tab_lines(&list)[0].contains("foreground"), "{list}");
    // Ctrl+Shift+R, a real key: the page is asked for again, past the cache (Chromium says
    // `Cache-Control: no-cache`; an ordinary reload says `max-age=0`).
    let before = server.requests().len();
    window::xdo(&["key", "--clearmodifiers", "ctrl+shift+r"]);
    let asked =
        aperture_testkit::eventually(Duration::from_secs(20), "a hard reload's request", async || {
            let r = server.requests_with_cache_control();
            let page = r[before.min(r.len())..].iter().find(|(p, _)| p == "/").cloned();
            (page.is_some(), page)
        })
        .await;
    assert_eq!(asked.map(|(_, cc)| cc).as_deref(), Some("no-cache"));
    let win = w.clone();
    tokio::task::spawn_blocking(move || {
        let img = window::capture(&win);
        window::keep(&img, "tab-menu-end");
        assert!(
            window::block(&img, MAGENTA).is_some(),
            "the kept tab's page shows"
        );
    })
    .await
    .unwrap();
}
