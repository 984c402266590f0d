//! A finished download opens with the desktop's application, in the real window under X with
//! real clicks: a link's file downloads, and the downloads panel's Open hands exactly that
//! file to `xdg-open` (here a stand-in on PATH that writes down what it was given).

#[path = "support/window.rs"]
mod window;

use aperture_testkit::{Attachment, Server, Spec};
use aperture_ui::chrome::{controls, download_control};
use aperture_ui::egui::pos2;
use std::collections::HashMap;
use std::time::Duration;
use window::Layout;

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Files</title></head>
<body style="margin:0;background:#fff">
<a href="/notes" style="position:absolute;left:40px;top:40px;width:300px;height:200px;display:block;background:rgb(230,20,140)">notes</a>
</body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_hands_the_finished_download_to_the_desktop() {
    if !window::can_run("download_open") {
        return;
    }
    let server = Server::spawn(Spec {
        routes: HashMap::from([("/".to_string(), PAGE.to_string())]),
        attachments: HashMap::from([(
            "/notes".to_string(),
            Attachment {
                name: "notes.txt".into(),
                len: 2000,
                delay_per_chunk: Duration::ZERO,
            },
        )]),
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let downloads = dir.path().join("Downloads");
    // The desktop's opener, as far as the browser can tell: it writes down its argument.
    let (path, opened) = window::stand_in_opener(dir.path());
    let url = server.url("/");
    let (_browser, _c, w, size) = window::start_showing_env(
        &url,
        dir.path(),
        MAGENTA,
        &["--download-dir", downloads.to_str().unwrap()],
        &[("PATH", path.as_str())],
    )
    .await;
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, pos2(page.min.x + 150.0, page.min.y + 120.0), 1);
    let file = downloads.join("notes.txt");
    aperture_testkit::eventually(Duration::from_secs(30), "the download", async || {
        let len = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        (len == 2000, len)
    })
    .await;

    // The toolbar's downloads button, then the row's Open.
    let mut model = Layout::one_tab(&url);
    model.downloads = vec![aperture_ui::DownloadView {
        id: 1,
        name: "notes.txt".into(),
        received: 2000,
        total: Some(2000),
        state: aperture_ui::DownloadState::Complete,
        path: Some(file.display().to_string()),
        paused: false,
    }];
    let mut layout = Layout::new(size, model);
    let button = layout.click(controls::DOWNLOADS);
    window::click(&w, button, 1);
    let open = layout.click(&download_control("open", 1));
    window::click(&w, open, 1);
    let got = aperture_testkit::eventually(Duration::from_secs(20), "xdg-open to be run", async || {
        let got = std::fs::read_to_string(&opened).unwrap_or_default();
        (!got.is_empty(), got)
    })
    .await;
    window::keep(&window::capture(&w), "download-open");
    assert_eq!(got.trim(), file.display().to_string());
}
