//! The new-tab page in the real window under X, with real keys and clicks: after a site was
//! visited, Ctrl+T shows it as a tile over the empty tab (read from the profile's history), and
//! a click on the tile opens the site in that tab; the tile's remove mark takes the site off the
//! page.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::chrome::{site_tile, site_tile_remove};
use aperture_ui::{SiteTile, TabId, TabView};
use std::time::Duration;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_t_shows_the_most_visited_sites_and_a_tile_opens_one() {
    if !window::can_run("new_tab_page") {
        return;
    }
    let server = Server::page(
        r#"<!doctype html><html><head><title>Alpha Site</title></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
</body></html>"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;

    // Where the one tile is, from the same chrome at the window's size: a second, empty tab in
    // front showing the new-tab page with one site.
    let mut model = Layout::one_tab(&url);
    model.tabs.push(TabView {
        id: TabId(2),
        url: "about:blank".into(),
        new_tab_page: true,
        ..model.tabs[0].clone()
    });
    model.active = Some(TabId(2));
    model.new_tab_sites = vec![SiteTile {
        url: url.clone(),
        title: "Alpha Site".into(),
        favicon: None,
    }];
    let mut layout = Layout::new(size, model);
    let tile = layout.chrome.control_rect(&site_tile(0)).expect("a tile");
    // Its remove mark shows while the pointer is over it.
    layout.frames(vec![aperture_ui::egui::Event::PointerMoved(tile.center())], 2);
    let remove = layout
        .chrome
        .control_rect(&site_tile_remove(0))
        .expect("a remove mark over the hovered tile");

    window::xdo(&["windowfocus", "--sync", &w]);
    window::xdo(&["key", "--clearmodifiers", "ctrl+t"]);
    tabs_until(&c, "the new tab", |t| tab_lines(t).len() == 2).await;
    // The tile is drawn where the chrome lays it out: the page area there is no longer the
    // empty page's white.
    aperture_testkit::eventually(Duration::from_secs(20), "the tile to be drawn", async || {
        let img = window::capture(&w);
        let p = img.get_pixel(tile.center().x as u32, (tile.min.y + 8.0) as u32).0;
        let drawn = p != [255, 255, 255];
        if drawn {
            window::keep(&img, "new-tab-page");
        }
        (drawn, p)
    })
    .await;

    // A click opens the site in the new tab, which then shows it (the tiles go with the page).
    window::click(&w, tile.center(), 1);
    tabs_until(&c, "the new tab to show the site", |t| {
        tab_lines(t).len() == 2 && t.matches(url.as_str()).count() == 2
    })
    .await;
    aperture_testkit::eventually(
        Duration::from_secs(20),
        "the site drawn in the new tab",
        async || (window::block(&window::capture(&w), MAGENTA).is_some(), ()),
    )
    .await;

    // Another new tab shows the tile again; its remove mark takes the site off the page.
    window::xdo(&["key", "--clearmodifiers", "ctrl+t"]);
    tabs_until(&c, "a third tab", |t| tab_lines(t).len() == 3).await;
    let shows_tile = || {
        let img = window::capture(&w);
        img.get_pixel(tile.center().x as u32, (tile.min.y + 8.0) as u32).0 != [255, 255, 255]
    };
    aperture_testkit::eventually(Duration::from_secs(20), "the tile on the third tab", async || {
        (shows_tile(), ())
    })
    .await;
    window::hover(&w, tile.center());
    std::thread::sleep(Duration::from_millis(400));
    window::click(&w, remove.center(), 1);
    aperture_testkit::eventually(Duration::from_secs(20), "the tile to go", async || {
        (!shows_tile(), ())
    })
    .await;
    let (_, list) =
        aperture_testkit::mcp::tool(&c, "browser_tabs", serde_json::json!({"action": "list"})).await;
    assert_eq!(tab_lines(&list).len(), 3, "the mark opened nothing: {list}");

    // Undo, under where the tiles were, puts the site back.
    let mut model = layout.model.clone();
    model.new_tab_sites.clear();
    model.new_tab_removed = Some(url.clone());
    let mut undo_layout = Layout::new(size, model);
    undo_layout.frames(vec![], 2);
    let undo = undo_layout
        .chrome
        .control_rect(aperture_ui::chrome::SITE_UNDO)
        .expect("an Undo after the removal");
    window::hover(&w, undo.center());
    std::thread::sleep(Duration::from_millis(300));
    window::click(&w, undo.center(), 1);
    aperture_testkit::eventually(Duration::from_secs(20), "the tile to come back", async || {
        (shows_tile(), ())
    })
    .await;
}
