//! "Block third-party cookies" in the real windowed browser under X, with real clicks: a frame
//! of another site (`localhost` inside a `127.0.0.1` page) keeps its cookie until the human
//! ticks the box in the settings view; from the page's next load it keeps none, and the
//! page's own site is untouched.

#[path = "support/window.rs"]
mod window;

use aperture_ui::chrome::{SettingsSection, controls, settings_section_control};
use aperture_ui::egui::Key;
use std::collections::HashMap;
use std::time::Duration;
use window::{Layout, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

/// The page: its own cookie, and a frame of another site (the same server under `localhost`)
/// that sets one and says what it can read back; the title reports both.
const PAGE: &str = r#"<!doctype html><html><head><title>-</title></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:300px;width:300px;height:150px;background:rgb(230,20,140)"></div>
<script>
document.cookie = 'own=1; path=/';
const f = document.createElement('iframe');
f.src = location.origin.replace('127.0.0.1', 'localhost') + '/frame';
addEventListener('message', e => {
  document.title = 'own:' + (document.cookie.includes('own=1') ? 'yes' : 'no') + ' frame:' + e.data + ' |';
});
document.body.append(f);
</script></body></html>"#;

const FRAME: &str = r#"<!doctype html><script>
document.cookie = 'third=1; SameSite=None; Secure; path=/';
parent.postMessage(document.cookie.includes('third=1') ? 'yes' : 'no', '*');
</script>"#;

fn reported(list: &str) -> Option<&str> {
    let i = list.find("own:")?;
    let rest = &list[i..];
    Some(&rest[..rest.find(" |")?])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ticking_the_box_keeps_frames_of_other_sites_from_their_cookies() {
    if !window::can_run("third_party_cookies") {
        return;
    }
    let server = aperture_testkit::Server::start(
        HashMap::from([
            ("/".to_string(), PAGE.to_string()),
            ("/frame".to_string(), FRAME.to_string()),
        ]),
        None,
    );
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) =
        window::start_showing_in(&url, dir.path(), MAGENTA, &["--allow-host", "localhost"]).await;
    let list = tabs_until(&c, "the frame's report", |t| reported(t).is_some()).await;
    assert_eq!(
        reported(&list),
        Some("own:yes frame:yes"),
        "allowed by default: {list}"
    );

    // Settings (Ctrl+,), Privacy: block them.
    let mut layout = Layout::new(size, Layout::one_tab(&url));
    window::xdo(&["windowfocus", "--sync", &w]);
    let before = window::capture(&w);
    window::xdo(&["key", "--window", &w, "ctrl+comma"]);
    layout.ctrl(Key::Comma);
    let section = settings_section_control(SettingsSection::Privacy);
    let rect = layout.chrome.control_rect(&section).expect("the Privacy tab");
    window::wait_drawn(&w, rect, &before, "the settings view");
    let privacy = layout.click(&section);
    let before = window::capture(&w);
    window::click(&w, privacy, 1);
    let rect = layout
        .chrome
        .control_rect(controls::SETTINGS_THIRD_PARTY_COOKIES)
        .expect("the cookie box");
    window::wait_drawn(&w, rect, &before, "the Privacy section");
    let tick = layout.click(controls::SETTINGS_THIRD_PARTY_COOKIES);
    window::click(&w, tick, 1);
    std::thread::sleep(Duration::from_millis(500));
    window::keep(&window::capture(&w), "third-party-ticked");
    window::xdo(&["key", "--window", &w, "ctrl+comma"]);
    std::thread::sleep(Duration::from_millis(300));

    // The page's next load: the frame keeps nothing (not even the cookie it had), the page
    // its own.
    let (err, t) =
        aperture_testkit::mcp::tool(&c, "browser_navigate", serde_json::json!({"action": "reload"})).await;
    assert!(!err, "{t}");
    let list = tabs_until(&c, "the frame's report after the reload", |t| {
        reported(t) == Some("own:yes frame:no")
    })
    .await;
    assert_eq!(reported(&list), Some("own:yes frame:no"), "{list}");
}
