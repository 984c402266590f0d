//! A download paused and resumed from the downloads panel, in the real window under X with real
//! clicks: while paused its partial file stops growing, and once resumed it finishes whole.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::{Attachment, Server, Spec};
use aperture_ui::chrome::{controls, download_control};
use aperture_ui::egui::pos2;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use window::Layout;

const MAGENTA: [u8; 3] = [230, 20, 140];
/// 4 MiB at 64 KiB per 100 ms: about seven seconds unpaused.
const LEN: u64 = 4 << 20;

const PAGE: &str = r#"<!doctype html><html><head><title>Files</title></head>
<body style="margin:0;background:#fff">
<a href="/big" style="position:absolute;left:40px;top:40px;width:300px;height:200px;display:block;background:rgb(230,20,140)">big</a>
</body></html>"#;

fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_stops_a_download_and_resume_finishes_it() {
    if !window::can_run("download_pause") {
        return;
    }
    let server = Server::spawn(Spec {
        routes: HashMap::from([("/".to_string(), PAGE.to_string())]),
        attachments: HashMap::from([(
            "/big".to_string(),
            Attachment {
                name: "big.bin".into(),
                len: LEN,
                delay_per_chunk: Duration::from_millis(100),
            },
        )]),
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let downloads = dir.path().join("Downloads");
    let url = server.url("/");
    let (_browser, _c, w, size_px) = window::start_showing_in(
        &url,
        dir.path(),
        MAGENTA,
        &["--download-dir", downloads.to_str().unwrap()],
    )
    .await;
    let page = Layout::new(size_px, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, pos2(page.min.x + 150.0, page.min.y + 120.0), 1);
    let (part, file) = (downloads.join("big.bin.part"), downloads.join("big.bin"));
    aperture_testkit::eventually(Duration::from_secs(30), "the download to start", async || {
        let n = size(&part);
        (n > 0, n)
    })
    .await;

    // The downloads panel's Pause on the running row (Chromium's first download is id 1).
    let row = |paused: bool| {
        let mut model = Layout::one_tab(&url);
        model.downloads = vec![aperture_ui::DownloadView {
            id: 1,
            name: "big.bin".into(),
            received: 1 << 20,
            total: None,
            state: aperture_ui::DownloadState::InProgress,
            path: None,
            paused,
        }];
        Layout::new(size_px, model)
    };
    let mut layout = row(false);
    let button = layout.click(controls::DOWNLOADS);
    window::click(&w, button, 1);
    std::thread::sleep(Duration::from_millis(500));
    let pause = layout.click(&download_control("pause", 1));
    window::click(&w, pause, 1);
    // Whatever was already on its way lands; then nothing more.
    std::thread::sleep(Duration::from_secs(2));
    let held = size(&part);
    std::thread::sleep(Duration::from_secs(3));
    window::keep(&window::capture(&w), "download-paused");
    assert_eq!(size(&part), held, "the paused download went on");
    assert!(held < LEN, "it had finished before the pause ({held} bytes)");

    // Resume, where Pause was on the row: it finishes, whole.
    let mut layout = row(true);
    layout.click(controls::DOWNLOADS);
    let resume = layout.click(&download_control("resume", 1));
    window::click(&w, resume, 1);
    aperture_testkit::eventually(
        Duration::from_secs(120),
        "the resumed download to finish",
        async || {
            let n = size(&file);
            (n == LEN, n)
        },
    )
    .await;
}
