//! Quitting while a download runs, in the real window under X: Ctrl+Shift+Q asks first (as
//! Chrome and Firefox do), "Keep downloading" keeps the browser and the download, which
//! completes; with nothing running Ctrl+Shift+Q quits at once. "Quit anyway" quits and leaves
//! no partial file behind.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::{Attachment, Server, Spec, eventually_blocking};
use aperture_ui::chrome::controls;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};
use window::{App, Layout, Scratch};

const MAGENTA: [u8; 3] = [230, 20, 140];

fn exited(app: &mut App, secs: u64) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(secs) {
        if let Ok(Some(_)) = app.child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// Clicks the magenta link block (a slow download) and waits for its partial file.
fn start_download(app: &App, dl: &Path) {
    let img = app.capture();
    app.click(window::centre(&img, MAGENTA).expect("the link is drawn"), 1);
    eventually_blocking(Duration::from_secs(30), "the download to start", || {
        let f = aperture_testkit::file_names(dl);
        (!f.is_empty(), f)
    });
}

#[test]
fn quitting_while_a_download_runs_asks_first() {
    if !window::can_run("quit_downloads") {
        return;
    }
    let server = Server::spawn(Spec {
        routes: HashMap::from([(
            "/".to_string(),
            r#"<!doctype html><title>Files</title><body style="margin:0">
<a href="/slow" style="display:block;position:absolute;left:40px;top:120px;width:300px;height:200px;background:rgb(230,20,140)"></a>"#
                .to_string(),
        )]),
        attachments: HashMap::from([(
            "/slow".to_string(),
            Attachment {
                name: "slow.bin".into(),
                len: 64 * 1024 * 40,
                delay_per_chunk: Duration::from_millis(100),
            },
        )]),
        ..Spec::default()
    });
    let dir = Scratch::new("quit-downloads");
    let dl = dir.0.join("dl");
    std::fs::create_dir_all(&dl).unwrap();
    let url = server.url("/");
    let dl_arg = dl.display().to_string();

    // Run 1: asked, keep downloading, the file completes, then a plain quit.
    let mut app = App::launch(&dir.0, 0, &["--download-dir", &dl_arg, &url]);
    app.wait_for(MAGENTA, "quit-downloads-page");
    window::xdo(&["windowfocus", "--sync", &app.window]);
    start_download(&app, &dl);
    app.key("ctrl+shift+q");
    assert!(!exited(&mut app, 2), "quit at once with a download running");
    let mut layout = Layout::new(app.size(), Layout::one_tab(&url));
    layout.model.quit_with_downloads = 1;
    layout.frames(vec![], 3);
    let keep = layout.click(controls::QUIT_KEEP);
    app.click(keep, 1);
    eventually_blocking(Duration::from_secs(60), "the download to complete", || {
        let f = aperture_testkit::file_names(&dl);
        (f == vec!["slow.bin".to_string()], f)
    });
    assert!(app.child.try_wait().unwrap().is_none(), "the browser was kept");
    app.key("ctrl+shift+q");
    assert!(exited(&mut app, 30), "nothing running: Ctrl+Shift+Q quits");
    std::fs::remove_file(dl.join("slow.bin")).unwrap();

    // Run 2: asked, quit anyway: the browser goes and leaves no partial file.
    let mut app = App::launch(&dir.0, 1, &["--download-dir", &dl_arg, &url]);
    app.wait_for(MAGENTA, "quit-downloads-page-2");
    window::xdo(&["windowfocus", "--sync", &app.window]);
    start_download(&app, &dl);
    app.key("ctrl+shift+q");
    assert!(!exited(&mut app, 2), "quit at once with a download running");
    let anyway = layout.click(controls::QUIT_ANYWAY);
    app.click(anyway, 1);
    assert!(exited(&mut app, 30), "Quit anyway quits");
    assert_eq!(
        aperture_testkit::file_names(&dl),
        Vec::<String>::new(),
        "no partial file is left"
    );
}
