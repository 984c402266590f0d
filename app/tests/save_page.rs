//! Ctrl+S in the real windowed browser under X, a real key: the page is saved as HTML into the
//! download directory, named after its title, as the tab fetches it (its cookies, its cache).

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::time::Duration;

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Quarterly: report / draft</title></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
<p style="position:absolute;top:300px">marker-7c1e</p>
</body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_saves_the_page_named_after_its_title() {
    if !window::can_run("save_page") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let downloads = dir.path().join("Downloads");
    let url = server.url("/");
    let (_browser, _c, w, size) = window::start_showing_in(
        &url,
        dir.path(),
        MAGENTA,
        &["--download-dir", downloads.to_str().unwrap()],
    )
    .await;
    let page = window::Layout::new(size, window::Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(
        &w,
        aperture_ui::egui::pos2(page.min.x + 500.0, page.min.y + 100.0),
        1,
    );
    window::xdo(&["key", "--clearmodifiers", "ctrl+s"]);
    // The title's slash cannot be in a file name; the rest of the title is the name.
    let saved = downloads.join("Quarterly: report _ draft.html");
    let html = aperture_testkit::eventually(Duration::from_secs(30), "the saved page", async || {
        let html = std::fs::read_to_string(&saved).unwrap_or_default();
        (html.contains("marker-7c1e"), html)
    })
    .await;
    assert!(html.contains("<title>Quarterly"), "{html}");
    let names: Vec<_> = std::fs::read_dir(&downloads)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "one file, no leftover part: {names:?}");
}
