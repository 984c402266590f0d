//! How the desktop knows the window, read off the real X server: its class is
//! ("aperture", "Aperture"), which taskbars group windows by and launchers match, and it
//! carries its icon (`_NET_WM_ICON`, 64×64 with an opaque centre) for the taskbar and the
//! window switcher.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};

const MAGENTA: [u8; 3] = [230, 20, 140];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_has_its_class_and_its_icon() {
    if !window::can_run("window_identity") {
        return;
    }
    let server = Server::page(
        r#"<!doctype html><body style="margin:0"><div style="width:300px;height:200px;background:rgb(230,20,140)"></div>"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let (_browser, _c, w, _) = window::start_showing(&server.url("/"), dir.path(), MAGENTA).await;
    let id: u32 = w.parse().expect("an X window id");
    let (conn, _) = x11rb::connect(None).expect("an X connection");
    let class = conn
        .get_property(false, id, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)
        .unwrap()
        .reply()
        .unwrap();
    assert_eq!(class.value, b"aperture\0Aperture\0");
    let icon_atom = conn
        .intern_atom(false, b"_NET_WM_ICON")
        .unwrap()
        .reply()
        .unwrap()
        .atom;
    let icon = conn
        .get_property(false, id, icon_atom, AtomEnum::CARDINAL, 0, 1 << 16)
        .unwrap()
        .reply()
        .unwrap();
    let words: Vec<u32> = icon.value32().expect("32-bit icon data").collect();
    assert!(words.len() >= 2, "no icon on the window");
    let (width, height) = (words[0], words[1]);
    assert_eq!((width, height), (64, 64));
    assert_eq!(words.len(), 2 + 64 * 64);
    // ARGB: the centre is opaque, the corner transparent.
    let argb = |x: u32, y: u32| words[2 + (y * 64 + x) as usize];
    assert_eq!(argb(32, 12) >> 24, 0xff, "{:08x}", argb(32, 12));
    assert_eq!(argb(0, 0) >> 24, 0, "{:08x}", argb(0, 0));
}
