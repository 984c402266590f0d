//! Copying out of the page in the real window under X: text copied or cut in a page with the
//! keyboard reaches other programs through CLIPBOARD (and PRIMARY), as in every browser.
//! Chromium claims both selections for a page's copy but, with off-screen views only, never
//! answers a paste from another program; the app hands the copy on.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::selection::{PageClipboard, PrimarySelection};
use std::time::{Duration, Instant};
use window::{App, Scratch};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const GREEN: [u8; 3] = [20, 200, 60];
const GREY: [u8; 3] = [0xdd, 0xdd, 0xdd];

/// A word to copy, a field that turns the block green when the word is pasted into it.
const PAGE: &str = r#"<!doctype html><html><head><title>Copy</title></head><body style="margin:0">
<p style="position:absolute;left:40px;top:20px;margin:0;font:40px sans-serif">Zebrafish</p>
<input id="i" style="position:absolute;left:40px;top:120px;width:400px;height:40px;font:24px sans-serif"
  oninput="document.getElementById('b').style.background = this.value === 'Zebrafish' ? 'rgb(20,200,60)' : '#ddd'">
<div id="b" style="position:absolute;left:40px;top:200px;width:300px;height:200px;background:#ddd"></div>
</body></html>"#;

/// The window row where the page starts, found by the grey block 200 CSS px below it.
fn page_top(app: &App) -> u32 {
    let t0 = Instant::now();
    loop {
        let img = app.capture();
        let grey = |x: u32, y: u32| {
            img.get_pixel(x, y)
                .0
                .iter()
                .zip(GREY)
                .all(|(a, b)| (*a as i32 - b as i32).abs() <= 20)
        };
        if let Some(y) = (0..img.height()).find(|&y| [50, 120, 200, 330].iter().all(|&x| grey(x, y))) {
            return y.checked_sub(200).expect("the block 200 px below the page's top");
        }
        if t0.elapsed() > Duration::from_secs(45) {
            window::keep(&img, "clipboard-start");
            panic!("the grey block never showed; stderr:\n{}", app.stderr());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Waits until `read` answers `want` (each read may take arboard's few seconds when the
/// holder does not answer).
fn wait_text(what: &str, want: &str, mut read: impl FnMut() -> Option<String>) {
    let t = Instant::now();
    loop {
        let got = read();
        if got.as_deref() == Some(want) {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(12),
            "{what} is {got:?}, not {want:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn ctrl_c_and_ctrl_x_in_the_page_reach_other_programs() {
    if !window::can_run("clipboard_out") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::page(PAGE);
    let dir = Scratch::new("clipboard-out");
    let app = App::launch(&dir.0, 0, &[&server.url("/")]);
    let top = page_top(&app);
    // This test is the other program, reading what a paste there would get.
    let mut clipboard = PageClipboard::new().expect("an X display");
    let mut primary = PrimarySelection::new().expect("an X display");

    // A double-click selects the word, Ctrl+C copies it.
    window::xdo(&["windowfocus", "--sync", &app.window]);
    let at = |x: u32, y: u32| aperture_ui::egui::pos2(x as f32, (top + y) as f32);
    window::xdo(&[
        "mousemove",
        "--window",
        &app.window,
        "120",
        &(top + 45).to_string(),
    ]);
    std::thread::sleep(Duration::from_millis(200));
    window::xdo(&["click", "--repeat", "2", "--delay", "80", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    app.key("ctrl+c");
    wait_text("CLIPBOARD after Ctrl+C", "Zebrafish", || clipboard.text());
    wait_text("PRIMARY after Ctrl+C", "Zebrafish", || primary.get());

    // Pasted back into the page: Chromium reads CLIPBOARD from its new holder.
    app.click(at(200, 140), 1);
    app.key("ctrl+v");
    app.wait_for(GREEN, "clipboard-pasted-back");

    // A cut in a field: the text leaves the field and reaches CLIPBOARD.
    app.key("ctrl+a");
    app.type_text("Snippet");
    std::thread::sleep(Duration::from_millis(300));
    app.key("ctrl+a");
    app.key("ctrl+x");
    wait_text("CLIPBOARD after Ctrl+X", "Snippet", || clipboard.text());
}
