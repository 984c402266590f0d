//! A page using the camera and microphone, in the real window under X with real clicks (and
//! Chromium's fake capture devices): once the human allows it, the agent's tab list says the
//! tab is using the camera and the microphone and the tab shows the red recording mark; when
//! the page stops its tracks, both go.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::egui::pos2;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Call</title></head>
<body style="margin:0;background:#fff">
<button onclick="navigator.mediaDevices.getUserMedia({video: true, audio: true}).then(s => { window.live = s; document.title = 'live'; }, e => { document.title = 'refused ' + e.name; })"
 style="position:absolute;left:40px;top:40px;width:300px;height:200px;border:0;background:rgb(230,20,140)">call</button>
<button onclick="window.live.getTracks().forEach(t => t.stop()); document.title = 'ended';"
 style="position:absolute;left:400px;top:40px;width:200px;height:200px;border:0;background:rgb(20,160,230)">hang up</button>
</body></html>"#;

fn first(list: &str) -> String {
    tab_lines(list).first().map(|l| l.to_string()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_using_the_camera_and_microphone_is_marked() {
    if !window::can_run("capture_mark") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing_in(
        &url,
        dir.path(),
        MAGENTA,
        &["--chromium-switch", "use-fake-device-for-media-stream"],
    )
    .await;
    let list = tabs_until(&c, "one tab", |t| tab_lines(t).len() == 1).await;
    assert!(!list.contains("using the"), "{list}");
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let origin = server.base.trim_start_matches("http://");
    let (allow, _) =
        window::permission_buttons(size, &url, origin, &["use your microphone", "use your camera"]);

    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, pos2(page.min.x + 150.0, page.min.y + 120.0), 1);
    std::thread::sleep(std::time::Duration::from_secs(1));
    window::keep(&window::capture(&w), "capture-asked");
    window::click(&w, allow, 1);
    let list = tabs_until(&c, "the tab to be marked", |t| {
        let l = first(t);
        l.contains("using the camera") && l.contains("using the microphone")
    })
    .await;
    assert!(list.contains("live"), "{list}");
    window::keep(&window::capture(&w), "capture-marked");

    window::click(&w, pos2(page.min.x + 500.0, page.min.y + 120.0), 1);
    let list = tabs_until(&c, "the mark to go", |t| !first(t).contains("using the")).await;
    assert!(list.contains("ended"), "{list}");
}
