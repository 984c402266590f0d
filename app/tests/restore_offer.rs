//! After a crash the window offers the last session ("Restore N tabs from your last
//! session?") instead of restoring it by itself: Restore brings the tabs back (the front one
//! loaded, the others when shown), Don't drops them for good. The real windowed browser under
//! X, killed with SIGKILL, answered with real X clicks.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::chrome::controls;
use std::collections::HashMap;
use std::sync::Mutex;
use window::{App, Layout, Scratch, wait_session};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: Mutex<()> = Mutex::new(());

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];

fn page(title: &str, rgb: [u8; 3]) -> String {
    format!(
        r#"<!doctype html><html><head><title>{title}</title></head><body style="margin:0;background:#fff">
<div style="position:absolute;left:40px;top:80px;width:300px;height:200px;background:rgb({},{},{})"></div>
</body></html>"#,
        rgb[0], rgb[1], rgb[2]
    )
}

fn pages() -> Server {
    Server::start(
        HashMap::from([
            ("/a".to_string(), page("A", MAGENTA)),
            ("/b".to_string(), page("B", CYAN)),
        ]),
        None,
    )
}

/// Run 0: page A, then page B in a new tab (Ctrl+T, typed), in front; then SIGKILL.
fn crash_with_two_tabs(dir: &Scratch, a: &str, b: &str) {
    let mut app = App::launch(&dir.0, 0, &[a]);
    app.wait_for(MAGENTA, "offer-run0-a");
    app.open_new_tab(b);
    app.wait_for(CYAN, "offer-run0-b");
    wait_session(&dir.profile(), "both tabs saved", |s| {
        s.contains(a) && s.contains(b)
    });
    app.crash();
}

/// How many pixels of the window's capture inside the offer bar's rectangle are not the
/// blank page's white: the bar's text and buttons, or nothing when it is not there.
fn inked(app: &App, layout: &Layout) -> usize {
    let r = layout
        .chrome
        .control_rect(controls::RESTORE_BAR)
        .expect("the layout drew the offer");
    let img = app.capture();
    static SHOT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SHOT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    window::keep(&img, &format!("offer-bar-{n}"));
    let mut n = 0;
    for y in r.min.y as u32..(r.max.y as u32).min(img.height()) {
        for x in r.min.x as u32..(r.max.x as u32).min(img.width()) {
            if img.get_pixel(x, y).0.iter().any(|c| *c < 200) {
                n += 1;
            }
        }
    }
    n
}

/// Waits (the window paints on its own schedule) until [`inked`] satisfies `ok`.
fn ink_until(app: &App, layout: &Layout, what: &str, ok: impl Fn(usize) -> bool) -> usize {
    aperture_testkit::eventually_blocking(std::time::Duration::from_secs(30), what, || {
        let n = inked(app, layout);
        (ok(n), n)
    })
}

fn offer_layout(app: &App, tabs: usize) -> Layout {
    let mut model = Layout::one_tab("about:blank");
    model.restore_offer = Some(tabs);
    Layout::new(app.size(), model)
}

#[test]
fn after_a_crash_the_session_is_offered_and_restore_brings_it_back() {
    if !window::can_run("restore_offer") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let dir = Scratch::new("offer-restore");
    let (a, b) = (server.url("/a"), server.url("/b"));
    crash_with_two_tabs(&dir, &a, &b);

    let app = App::launch(&dir.0, 1, &[]);
    // Offered, not restored: neither page comes back by itself, and the file keeps them.
    app.never(CYAN, 3, "offer-not-restored");
    let hits = |p: &str| server.requests().iter().filter(|r| *r == p).count();
    let (a0, b0) = (hits("/a"), hits("/b"));
    let mut layout = offer_layout(&app, 2);
    ink_until(&app, &layout, "the offer bar drawn", |n| n > 100);
    let s = wait_session(&dir.profile(), "offered tabs kept", |s| {
        s.contains(&a) && s.contains(&b)
    });
    assert!(s.contains("\"clean_exit\": false"), "{s}");

    let yes = layout.click(controls::RESTORE_YES);
    app.click(yes, 1);
    // The front tab (B) is back and loaded; A waits until it is shown (lazy).
    app.wait_for(CYAN, "offer-restored-front");
    std::thread::sleep(std::time::Duration::from_millis(1000));
    assert_eq!(hits("/a"), a0, "the background tab loaded at once");
    // The tab waiting in the background keeps its saved title (not its placeholder's).
    wait_session(&dir.profile(), "the waiting tab's title", |s| {
        serde_json::from_str::<serde_json::Value>(s)
            .is_ok_and(|v| v["tabs"][0]["url"] == a.as_str() && v["tabs"][0]["title"] == "A")
    });
    assert!(hits("/b") > b0);
    ink_until(&app, &layout, "the bar gone after Restore", |n| n < 20);
    app.key("ctrl+1");
    app.wait_for(MAGENTA, "offer-restored-background");
    assert!(hits("/a") > a0);
    // The blank tab the window started with gave way: the session is A and B only.
    let s = wait_session(&dir.profile(), "restored session", |s| {
        s.contains(&a) && s.contains(&b) && !s.contains("about:blank")
    });
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["tabs"].as_array().map(Vec::len), Some(2), "{s}");
}

#[test]
fn don_t_drops_the_crashed_session_and_it_is_not_offered_again() {
    if !window::can_run("restore_offer_dont") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let dir = Scratch::new("offer-dont");
    let (a, b) = (server.url("/a"), server.url("/b"));
    crash_with_two_tabs(&dir, &a, &b);

    let mut app = App::launch(&dir.0, 1, &[]);
    let mut layout = offer_layout(&app, 2);
    ink_until(&app, &layout, "the offer bar drawn", |n| n > 100);
    let no = layout.click(controls::RESTORE_NO);
    app.click(no, 1);
    wait_session(&dir.profile(), "offered tabs dropped", |s| {
        !s.is_empty() && !s.contains(&a) && !s.contains(&b)
    });
    app.never(CYAN, 2, "dont-not-restored");
    ink_until(&app, &layout, "the bar gone after Don't", |n| n < 20);
    assert!(
        app.terminate().success(),
        "a clean quit; stderr:\n{}",
        app.stderr()
    );
    drop(app);

    // The next start neither restores nor offers them.
    let app = App::launch(&dir.0, 2, &[]);
    // The chrome has drawn its toolbar (so a bar offered at start would be drawn too, and the
    // checks below are not of a window that has not painted yet).
    aperture_testkit::eventually_blocking(std::time::Duration::from_secs(30), "the toolbar drawn", || {
        let r = layout
            .chrome
            .control_rect(controls::RELOAD)
            .expect("a reload button");
        let img = app.capture();
        let n = (r.min.y as u32..(r.max.y as u32).min(img.height()))
            .flat_map(|y| (r.min.x as u32..(r.max.x as u32).min(img.width())).map(move |x| (x, y)))
            .filter(|&(x, y)| img.get_pixel(x, y).0.iter().any(|c| *c < 200))
            .count();
        (n > 10, n)
    });
    app.never(CYAN, 3, "dont-next-start");
    assert!(inked(&app, &layout) < 20, "offered again");
    let s = std::fs::read_to_string(dir.profile().join("session.json")).unwrap();
    assert!(!s.contains(&a) && !s.contains(&b), "{s}");
    assert_eq!(
        server.requests().iter().filter(|r| *r == "/a").count(),
        1,
        "A loaded again"
    );
}
