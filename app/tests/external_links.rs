//! Links for another application (`mailto:`, `tel:`, an app's own scheme), in the real window
//! under X with real clicks. Chromium cannot load them: left to it, the click replaced the page
//! with an "unknown scheme" error. Now the page stays, the human is asked on the permission
//! bubble, and Allow hands exactly that link to the desktop's opener (`xdg-open`, here a
//! stand-in on PATH that writes down what it was given); Block hands over nothing. The agent's
//! own navigation to such a link stays refused by its navigation policy.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_testkit::mcp::tool;
use aperture_ui::egui::pos2;
use serde_json::json;
use std::time::Duration;
use window::Layout;

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [20, 160, 230];
const LINK: &str = "mailto:ada@example.org?subject=Hello";
/// A link inside a frame: a frame's navigation asks too, and the frame stays.
const FRAME_LINK: &str = "tel:+15550100";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mailto_link_asks_the_human_and_goes_to_the_desktop() {
    if !window::can_run("external_links") {
        return;
    }
    let server = Server::page(&format!(
        r#"<!doctype html><html><head><title>Contact</title></head>
<body style="margin:0;background:#fff">
<a href="{LINK}" style="position:absolute;left:40px;top:40px;width:300px;height:200px;display:block;background:rgb(230,20,140)">write</a>
<iframe style="position:absolute;left:400px;top:40px;width:300px;height:200px;border:0"
 srcdoc="<body style='margin:0'><a href='{FRAME_LINK}' style='display:block;height:200px;background:rgb(20,160,230)'>call</a></body>"></iframe>
</body></html>"#
    ));
    let dir = tempfile::tempdir().unwrap();
    let (path, opened) = window::stand_in_opener(dir.path());
    let url = server.url("/");
    let (_browser, c, w, size) =
        window::start_showing_env(&url, dir.path(), MAGENTA, &[], &[("PATH", path.as_str())]).await;
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    // Where the bubble's buttons are, from the same chrome at the window's size.
    let kind = format!("open this mailto: link in another application: {LINK}");
    let origin = server.base.trim_start_matches("http://");
    let (allow, block) = window::permission_buttons(size, &url, origin, &[kind.as_str()]);
    let on_link = pos2(page.min.x + 150.0, page.min.y + 120.0);

    // Block: the page stays, and nothing is handed over.
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, on_link, 1);
    std::thread::sleep(Duration::from_secs(1));
    window::click(&w, block, 1);
    std::thread::sleep(Duration::from_secs(2));
    assert!(!opened.exists(), "{:?}", std::fs::read_to_string(&opened));
    let img = window::capture(&w);
    window::keep(&img, "external-link-blocked");
    assert!(
        window::block(&img, MAGENTA).is_some(),
        "the page was replaced by the link's navigation"
    );

    // Allow: exactly the link goes to the desktop's opener, and the page is still there.
    window::click(&w, on_link, 1);
    std::thread::sleep(Duration::from_secs(1));
    window::keep(&window::capture(&w), "external-link-asked");
    window::click(&w, allow, 1);
    let got = aperture_testkit::eventually(Duration::from_secs(20), "xdg-open to be run", async || {
        let got = std::fs::read_to_string(&opened).unwrap_or_default();
        (!got.is_empty(), got)
    })
    .await;
    assert_eq!(got.trim(), LINK);
    assert!(window::block(&window::capture(&w), MAGENTA).is_some());
    let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
    assert!(list.contains("Contact") && !list.contains("mailto"), "{list}");

    // A link in a frame asks the same way, and the frame keeps its page (left to Chromium, it
    // showed the "unknown scheme" error in the frame).
    let in_frame = pos2(page.min.x + 550.0, page.min.y + 140.0);
    window::click(&w, in_frame, 1);
    std::thread::sleep(Duration::from_secs(1));
    window::keep(&window::capture(&w), "external-link-frame-asked");
    window::click(&w, allow, 1);
    let got = aperture_testkit::eventually(
        Duration::from_secs(20),
        "xdg-open to be run for the frame's link",
        async || {
            let got = std::fs::read_to_string(&opened).unwrap_or_default();
            (got.lines().count() == 2, got)
        },
    )
    .await;
    assert_eq!(got.lines().collect::<Vec<_>>(), [LINK, FRAME_LINK]);
    std::thread::sleep(Duration::from_secs(1));
    let img = window::capture(&w);
    window::keep(&img, "external-link-frame-after");
    assert!(
        window::block(&img, CYAN).is_some(),
        "the frame was replaced by the link's navigation"
    );

    // The agent's navigation there is refused by its policy, and nothing is opened.
    let (err, t) = tool(&c, "browser_tabs", json!({"action": "open"})).await;
    assert!(!err, "{t}");
    let (err, t) = tool(&c, "browser_navigate", json!({"action": "goto", "url": LINK})).await;
    assert!(err, "{t}");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(std::fs::read_to_string(&opened).unwrap().lines().count(), 2);
}
