//! A link's right-click menu in the real windowed browser under X, with real clicks: "Open link
//! in container tab" opens the link in the container picked, not in the current tab's, next to
//! the current tab and behind it. Where the menu's items are drawn is asked of the same chrome
//! run headless at the window's size with the menu CEF reported.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_testkit::mcp::tool;
use aperture_ui::chrome::{context_container_control, controls};
use aperture_ui::egui::{Event, pos2};
use aperture_ui::{ContainerInfo, ContextMenuView, TabId};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

/// A page that is one big link.
const PAGE: &str = r#"<!doctype html><html><head><title>Links</title></head>
<body style="margin:0;background:#fff">
<a href="/target" style="position:absolute;left:40px;top:40px;width:300px;height:200px;display:block;background:rgb(230,20,140)">go</a>
</body></html>"#;

/// `name`'s id in the agent's container list (`- "Work" (id "c-…")`).
fn container_id(list: &str, name: &str) -> String {
    let line = list
        .lines()
        .find(|l| l.starts_with(&format!("- {name:?}")))
        .unwrap_or_else(|| panic!("no {name} in {list}"));
    line.split('"').nth(3).expect("an id").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_link_in_container_tab_uses_the_container_picked() {
    if !window::can_run("link_menu") {
        return;
    }
    let server = Server::start(
        HashMap::from([
            ("/".to_string(), PAGE.to_string()),
            (
                "/target".to_string(),
                "<!doctype html><title>Target</title><p>target".to_string(),
            ),
        ]),
        None,
    );
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    // The first tab in a new "Work" container; the profile also has "Personal".
    let (_browser, c, w, size) =
        window::start_showing_in(&url, dir.path(), MAGENTA, &["--container", "Work"]).await;
    let list = tabs_until(&c, "one tab, in Work", |t| {
        tab_lines(t).len() == 1 && t.contains(r#"container "Work""#)
    })
    .await;
    let first = window::first_tab_id(&list);
    let (err, containers) = tool(&c, "browser_container", json!({"action": "list"})).await;
    assert!(!err, "{containers}");
    let (personal, work) = (
        container_id(&containers, "Personal"),
        container_id(&containers, "Work"),
    );

    // The chrome as the window draws it: both containers, the Work tab, and the menu CEF
    // reports for a right-click on the link.
    let mut model = Layout::one_tab(&url);
    let info = |id: &str, name: &str| ContainerInfo {
        id: id.into(),
        name: name.into(),
        ..model.containers[0].clone()
    };
    model.containers = vec![info(&personal, "Personal"), info(&work, "Work")];
    model.tabs[0].container = model.containers[1].clone();
    let (x, y) = (150.0, 120.0);
    model.context_menu = Some(ContextMenuView {
        tab: TabId(1),
        x,
        y,
        link_url: Some(server.url("/target")),
        image_url: None,
        selection: None,
        editable: false,
        misspelled: None,
        suggestions: Vec::new(),
        can_back: false,
        can_forward: false,
    });
    let mut layout = Layout::new(size, model);
    let page = layout.chrome.page_rect().expect("a page area");
    let at = pos2(page.min.x + x, page.min.y + y);

    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, at, 3);
    // The submenu opens on hover, here and in the window.
    let sub = layout
        .chrome
        .control_rect(controls::CTX_OPEN_LINK_IN)
        .expect("an Open link in container tab item")
        .center();
    layout.frames(vec![Event::PointerMoved(sub)], 3);
    window::hover(&w, sub);
    std::thread::sleep(Duration::from_millis(600));
    let item = layout
        .chrome
        .control_rect(&context_container_control(&personal))
        .expect("Personal in the submenu")
        .center();
    // Along the submenu's row first, so the pointer never leaves the menu on its way.
    window::hover(&w, pos2(item.x, sub.y));
    std::thread::sleep(Duration::from_millis(300));
    window::click(&w, item, 1);

    // A second tab, in Personal, right after the first, behind it.
    let list = tabs_until(&c, "the link's tab", |t| tab_lines(t).len() == 2).await;
    let lines = tab_lines(&list);
    let win = w.clone();
    tokio::task::spawn_blocking(move || window::keep(&window::capture(&win), "link-menu-end"))
        .await
        .unwrap();
    assert!(
        lines[0].starts_with(&format!("tab {first} ")) && lines[0].contains("foreground"),
        "the first tab stays in front: {list}"
    );
    assert!(
        lines[1].contains(r#"container "Personal""#) && !lines[1].contains("foreground"),
        "the link opens behind, in the container picked: {list}"
    );
    aperture_testkit::eventually(Duration::from_secs(20), "the link's request", async || {
        let n = server.requests().iter().filter(|p| *p == "/target").count();
        (n >= 1, n)
    })
    .await;

    // "Open link in private tab": a private tab of the link, in front.
    let mut layout = Layout::new(size, layout.model.clone());
    let private = layout
        .chrome
        .control_rect(controls::CTX_OPEN_LINK_PRIVATE)
        .expect("an Open link in private tab item")
        .center();
    layout.frames(vec![], 1);
    window::click(&w, at, 3);
    std::thread::sleep(Duration::from_millis(600));
    window::hover(&w, private);
    std::thread::sleep(Duration::from_millis(300));
    window::click(&w, private, 1);
    let list = tabs_until(&c, "the link's private tab", |t| tab_lines(t).len() == 3).await;
    let lines = tab_lines(&list);
    assert!(
        lines[1].contains(r#"container "Private""#) && lines[1].contains("foreground"),
        "the private tab opens next to the first, in front: {list}"
    );
    aperture_testkit::eventually(Duration::from_secs(20), "the private tab's request", async || {
        let n = server.requests().iter().filter(|p| *p == "/target").count();
        (n >= 2, n)
    })
    .await;
}
