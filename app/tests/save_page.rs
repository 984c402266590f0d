//! Ctrl+S in the real windowed browser under X, a real key: the page is saved as one MHTML file
//! in the download directory, named after its title, holding the page as it is now (what its
//! script added after loading) with its stylesheet and image. A second browser, with the
//! server gone, opens the file and draws all of it. A document that is not a web page (an
//! image) is saved as itself, under the server's name for it.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use std::collections::HashMap;
use std::time::Duration;

const MAGENTA: [u8; 3] = [230, 20, 140];
/// Drawn by the external stylesheet.
const CYAN: [u8; 3] = [20, 160, 230];
/// The image's pixels.
const AMBER: [u8; 3] = [250, 200, 20];
/// Drawn by what the page's script added after load.
const GREEN: [u8; 3] = [40, 200, 60];

const PAGE: &str = r#"<!doctype html><html><head><title>Quarterly: report / draft</title>
<link rel="stylesheet" href="/style.css"></head>
<body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
<div class="styled" style="position:absolute;left:400px;top:40px;width:300px;height:200px"></div>
<img src="/pic.png" style="position:absolute;left:40px;top:300px;width:300px;height:200px">
<p style="position:absolute;top:520px">marker-7c1e</p>
<script>addEventListener('load', () => {
  const d = document.createElement('div');
  d.id = 'added-after-load';
  d.style.cssText = 'position:absolute;left:400px;top:300px;width:300px;height:200px;background:rgb(40,200,60)';
  document.body.appendChild(d);
});</script>
</body></html>"#;

fn png(c: [u8; 3]) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(30, 20, image::Rgb(c));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_s_saves_the_whole_page_in_one_file_that_opens_offline() {
    if !window::can_run("save_page") {
        return;
    }
    let server = Server::spawn(aperture_testkit::Spec {
        routes: HashMap::from([("/".to_string(), PAGE.to_string())]),
        typed: HashMap::from([
            (
                "/style.css".to_string(),
                (
                    "text/css".to_string(),
                    b".styled { background: rgb(20,160,230) }".to_vec(),
                ),
            ),
            ("/pic.png".to_string(), ("image/png".to_string(), png(AMBER))),
        ]),
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let downloads = dir.path().join("Downloads");
    let url = server.url("/");
    let (browser, _c, w, size) = window::start_showing_in(
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
        aperture_ui::egui::pos2(page.min.x + 800.0, page.min.y + 100.0),
        1,
    );
    window::xdo(&["key", "--clearmodifiers", "ctrl+s"]);
    // The title's slash cannot be in a file name; the rest of the title is the name.
    let saved = downloads.join("Quarterly: report _ draft.mhtml");
    let mhtml = aperture_testkit::eventually(Duration::from_secs(30), "the saved page", async || {
        let m = std::fs::read_to_string(&saved).unwrap_or_default();
        (m.contains("marker-7c1e"), m)
    })
    .await;
    assert!(
        mhtml.starts_with("From:") || mhtml.contains("MIME-Version: 1.0"),
        "not MHTML: {}",
        &mhtml[..mhtml.len().min(400)]
    );
    // The document as it is now, and the parts it draws with.
    assert!(
        mhtml.contains("added-after-load"),
        "the saved page is not the page as it is now"
    );
    assert!(
        mhtml.contains("/style.css") && mhtml.contains("/pic.png"),
        "the stylesheet or image is missing"
    );
    assert_eq!(
        names(&downloads),
        ["Quarterly: report _ draft.mhtml"],
        "one file, no leftover part"
    );

    // An image in a tab is saved as the image, named as the server names it.
    let pic = server.url("/pic.png");
    window::xdo(&["key", "--clearmodifiers", "ctrl+l"]);
    std::thread::sleep(Duration::from_millis(300));
    window::xdo(&["type", "--delay", "15", &pic]);
    window::xdo(&["key", "Return"]);
    aperture_testkit::eventually(Duration::from_secs(30), "the image in the tab", async || {
        (window::block(&window::capture(&w), AMBER).is_some(), ())
    })
    .await;
    window::xdo(&["key", "--clearmodifiers", "ctrl+s"]);
    let png_saved = downloads.join("pic.png");
    let bytes = aperture_testkit::eventually(Duration::from_secs(30), "the saved image", async || {
        let b = std::fs::read(&png_saved).unwrap_or_default();
        (!b.is_empty(), b)
    })
    .await;
    assert_eq!(bytes, png(AMBER));
    drop(browser);

    // With the server gone, a second browser opens the file and draws all of it.
    drop(server);
    let dir2 = tempfile::tempdir().unwrap();
    let file_url = url::Url::from_file_path(&saved).unwrap().to_string();
    let (_b2, _c2, w2, _) = window::start_showing_in(&file_url, dir2.path(), CYAN, &[]).await;
    let img = window::capture(&w2);
    window::keep(&img, "saved-page-offline");
    for (c, what) in [
        (MAGENTA, "the page's own block"),
        (AMBER, "the image"),
        (GREEN, "what the script added"),
    ] {
        assert!(
            window::block(&img, c).is_some_and(|(w, h)| w >= 250 && h >= 150),
            "the offline copy lacks {what}"
        );
    }
}
