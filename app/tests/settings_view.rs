//! The settings view in the real window under X (Xvfb in CI), driven with real X input
//! (xdotool) as a human would: a custom search engine takes the omnibox's next query and is
//! still the engine after a restart; "Clear browsing data" empties the history database and
//! the container's cookies.
//!
//! Where the view's controls are is asked of the chrome itself: the same `aperture_ui::Chrome`
//! runs headless here at the window's size, is given the same input, and reports each
//! control's rectangle (the layout is egui's, deterministic for a size and a scale of 1).
//!
//! Without `DISPLAY` (or without xdotool/import) these tests print why and pass, unless
//! `APERTURE_UI_REQUIRE=1`, where that is a failure. `APERTURE_HEADED_KEEP=DIR` keeps the
//! captures.

mod common;
#[path = "support/window.rs"]
mod window;

use aperture_testkit::{Attachment, Spec};
use aperture_ui::chrome::{SettingsSection, controls, search_engine_control, settings_section_control};
use aperture_ui::egui::{self, Event, Key, Modifiers, PointerButton, Pos2, RawInput, Rect, vec2};
use aperture_ui::omnibox::SearchEngine;
use aperture_ui::{Chrome, ChromeModel, ContainerInfo, Rgb, TabId, TabView};
use common::Server;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: Mutex<()> = Mutex::new(());

const GREEN: [u8; 3] = [20, 200, 60];
const CYAN: [u8; 3] = [0, 200, 200];
const ORANGE: [u8; 3] = [255, 120, 0];
const GREY: [u8; 3] = [221, 221, 221];

/// The custom engine's results page: green when it got the query the test typed.
const FIND: &str = r#"<!doctype html><html><head><title>Find</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:#ddd"></div>
<script>
const q = new URLSearchParams(location.search).get("q");
document.title = "Results for " + q;
if (q === "aperture settings probe") document.getElementById("b").style.background = "rgb(20,200,60)";
</script></body></html>"#;

/// Cyan when the page had no cookie (it sets one), orange when the cookie was there.
const COOKIE: &str = r#"<!doctype html><html><head><title>Cookie probe</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px"></div>
<script>
const had = document.cookie.includes("probe=1");
document.cookie = "probe=1; max-age=86400; path=/";
document.getElementById("b").style.background = had ? "rgb(255,120,0)" : "rgb(0,200,200)";
</script></body></html>"#;

const QUERY: &str = "aperture settings probe";

fn can_run(test: &str) -> bool {
    let require = std::env::var("APERTURE_UI_REQUIRE").is_ok_and(|v| v == "1");
    let missing = if std::env::var_os("DISPLAY").is_none() {
        Some("DISPLAY is unset".to_string())
    } else {
        ["xdotool", "import"]
            .into_iter()
            .find(|t| {
                Command::new("sh")
                    .args(["-c", &format!("command -v {t}")])
                    .stdout(Stdio::null())
                    .status()
                    .map_or(true, |s| !s.success())
            })
            .map(|t| format!("{t} is not installed"))
    };
    match missing {
        None => true,
        Some(why) if require => panic!("{test}: {why}, and APERTURE_UI_REQUIRE=1"),
        Some(why) => {
            eprintln!("{test}: skipped: {why} (set APERTURE_UI_REQUIRE=1 to make this a failure)");
            false
        }
    }
}

struct App {
    child: Child,
    tag: String,
    scratch: PathBuf,
    window: String,
    /// Removes the scratch directory when dropped (not between the runs of a restart test).
    cleanup: bool,
}

impl App {
    fn stderr(&self) -> String {
        std::fs::read_to_string(self.scratch.join("stderr.log")).unwrap_or_default()
    }

    /// SIGTERM, then waits (up to 30 s: a clean quit saves and runs CEF's shutdown, slow on a
    /// loaded machine) for the exit; kills it if it hangs.
    fn terminate(&mut self) -> std::process::ExitStatus {
        if let Ok(Some(s)) = self.child.try_wait() {
            return s;
        }
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().expect("wait")
    }

    /// The window's inner size.
    fn size(&self) -> (f32, f32) {
        let out = Command::new("xdotool")
            .args(["getwindowgeometry", &self.window])
            .output()
            .expect("xdotool");
        let text = String::from_utf8_lossy(&out.stdout);
        let geometry = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Geometry: "))
            .unwrap_or_else(|| panic!("no geometry in {text}"));
        let (w, h) = geometry.split_once('x').expect("WxH");
        (w.trim().parse().unwrap(), h.trim().parse().unwrap())
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.terminate();
        for p in common::tagged_pids(&self.tag) {
            let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
        }
        if self.cleanup {
            let _ = std::fs::remove_dir_all(&self.scratch);
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("aperture-settings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Starts the windowed browser on `scratch`'s profile and config dir and waits for its window.
fn launch(scratch: &Path, args: &[&str]) -> App {
    launch_env(scratch, args, &[])
}

/// [`launch`] with more environment.
fn launch_env(scratch: &Path, args: &[&str], envs: &[(&str, &Path)]) -> App {
    let tag = format!(
        "aperture-settings-{}-{}",
        std::process::id(),
        common::unique_tag("t")
    );
    let log = std::fs::File::create(scratch.join("stderr.log")).unwrap();
    let mut child = aperture_testkit::browser_command(common::exe())
        .arg("--profile")
        .arg(scratch.join("profile"))
        .args(["--mcp-port", "0"])
        .args(args)
        .env("XDG_CONFIG_HOME", scratch.join("config"))
        .env("APERTURE_TEST_TAG", &tag)
        .env("APERTURE_COLOR_SCHEME", "light")
        // The settings glue says what it cleared at info.
        .env("APERTURE_LOG", "warn,aperture::settings_glue=info")
        .env(cef_sys_build::ENV_DIR, common::cef_dir())
        .envs(envs.iter().copied())
        .stdout(std::fs::File::create(scratch.join("stdout.log")).unwrap())
        .stderr(log)
        .spawn()
        .expect("spawn aperture");
    let pid = child.id().to_string();
    let t = Instant::now();
    let window = loop {
        let out = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--pid", &pid])
            .output()
            .expect("xdotool");
        if let Some(w) = String::from_utf8_lossy(&out.stdout).lines().next() {
            break w.to_string();
        }
        if let Ok(Some(s)) = child.try_wait() {
            panic!(
                "aperture exited ({s}) before opening its window; stderr:\n{}",
                std::fs::read_to_string(scratch.join("stderr.log")).unwrap_or_default()
            );
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no window within 60 s");
        std::thread::sleep(Duration::from_millis(200));
    };
    App {
        child,
        tag,
        scratch: scratch.to_path_buf(),
        window,
        cleanup: true,
    }
}

fn xdo(args: &[&str]) {
    let s = Command::new("xdotool").args(args).status().expect("xdotool");
    assert!(s.success(), "xdotool {args:?} failed");
}

fn capture(app: &App) -> image::RgbImage {
    let out = Command::new("import")
        .args(["-window", &app.window, "png:-"])
        .output()
        .expect("import");
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::load_from_memory(&out.stdout)
        .expect("a PNG from import")
        .to_rgb8()
}

fn keep(img: &image::RgbImage, name: &str) {
    if let Some(d) = std::env::var_os("APERTURE_HEADED_KEEP") {
        let p = Path::new(&d).join(format!("{name}.png"));
        let _ = std::fs::create_dir_all(&d);
        img.save(&p).expect("save capture");
        eprintln!("kept {}", p.display());
    }
}

/// Whether a block of at least 250×150 pixels of `c` is in the capture.
fn has_block(img: &image::RgbImage, c: [u8; 3]) -> bool {
    let near = |p: &image::Rgb<u8>| p.0.iter().zip(c).all(|(a, b)| (*a as i32 - b as i32).abs() <= 20);
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if near(p) {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    x1 >= x0 && x1 - x0 >= 250 && y1 >= y0 && y1 - y0 >= 150
}

fn wait_for(app: &App, colour: [u8; 3], what: &str) {
    let t = Instant::now();
    loop {
        let img = capture(app);
        if has_block(&img, colour) {
            keep(&img, what);
            return;
        }
        if t.elapsed() > Duration::from_secs(45) {
            keep(&img, what);
            panic!("{what}: never saw {colour:?}; stderr:\n{}", app.stderr());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn key(app: &App, chord: &str) {
    xdo(&["windowfocus", "--sync", &app.window]);
    std::thread::sleep(Duration::from_millis(200));
    xdo(&["key", "--clearmodifiers", chord]);
    std::thread::sleep(Duration::from_millis(400));
}

fn click(app: &App, at: Pos2) {
    xdo(&[
        "mousemove",
        "--window",
        &app.window,
        &(at.x.round() as i32).to_string(),
        &(at.y.round() as i32).to_string(),
    ]);
    std::thread::sleep(Duration::from_millis(150));
    xdo(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(400));
}

/// Ctrl+L, the text, Enter. The omnibox's look is waited for after Ctrl+L (it selects the
/// address) and after the typing: on a loaded machine the window can lag the keys by seconds,
/// and text typed before the omnibox has the keyboard goes elsewhere.
fn omnibox(app: &App, text: &str) {
    let layout = Layout::new(app.size(), "");
    let before = capture(app);
    key(app, "ctrl+l");
    wait_drawn(app, &layout, &before, controls::OMNIBOX);
    let focused = capture(app);
    xdo(&["type", "--delay", "15", text]);
    wait_drawn(app, &layout, &focused, controls::OMNIBOX);
    xdo(&["key", "Return"]);
}

/// The chrome, headless at the window's size, to learn where its controls are drawn.
struct Layout {
    ctx: egui::Context,
    chrome: Chrome,
    model: ChromeModel,
    size: (f32, f32),
    time: f64,
}

impl Layout {
    fn new(size: (f32, f32), url: &str) -> Layout {
        let personal = ContainerInfo {
            id: "personal".into(),
            name: "Personal".into(),
            colour: Rgb(0x37, 0x7d, 0xf0),
            private: false,
        };
        let model = ChromeModel {
            tabs: vec![TabView {
                id: TabId(1),
                title: "Page".into(),
                url: url.into(),
                container: personal.clone(),
                ..Default::default()
            }],
            active: Some(TabId(1)),
            containers: vec![personal],
            default_container: Some("personal".into()),
            ..Default::default()
        };
        let mut l = Layout {
            ctx: egui::Context::default(),
            chrome: Chrome::new(),
            model,
            size,
            time: 0.0,
        };
        l.frames(vec![], 3);
        l
    }

    fn frames(&mut self, events: Vec<Event>, n: usize) {
        let mut events = Some(events);
        for _ in 0..n {
            self.time += 0.1;
            let mut raw = RawInput {
                screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(self.size.0, self.size.1))),
                time: Some(self.time),
                events: events.take().unwrap_or_default(),
                ..Default::default()
            };
            raw.viewports
                .entry(egui::ViewportId::ROOT)
                .or_default()
                .native_pixels_per_point = Some(1.0);
            let (mut out, _) = self.chrome.run(&self.ctx, raw, &self.model);
            // No renderer here: the font atlas's uploads are dropped on purpose.
            out.textures_delta.clear();
        }
    }

    fn ctrl(&mut self, k: Key) {
        let ev = |pressed| Event::Key {
            key: k,
            physical_key: Some(k),
            pressed,
            repeat: false,
            modifiers: Modifiers::COMMAND,
        };
        self.frames(vec![ev(true), ev(false)], 3);
    }

    /// Where `name` is, after clicking it here too so the layout follows the window's.
    fn click(&mut self, name: &str) -> Pos2 {
        let at = self
            .chrome
            .control_rect(name)
            .unwrap_or_else(|| panic!("the chrome drew no {name}"))
            .center();
        self.frames(vec![Event::PointerMoved(at)], 1);
        for pressed in [true, false] {
            self.frames(
                vec![Event::PointerButton {
                    pos: at,
                    button: PointerButton::Primary,
                    pressed,
                    modifiers: Modifiers::NONE,
                }],
                1,
            );
        }
        self.frames(vec![], 2);
        at
    }
}

/// Waits until the window has drawn what the layout shows at control `name`: its rectangle
/// no longer looks as it did in `before`, a capture from before the key or click that brings
/// it up. A click aimed there any earlier lands on whatever was there before (the window is
/// repainted on its own schedule, which on a loaded machine can be seconds).
fn wait_drawn(app: &App, layout: &Layout, before: &image::RgbImage, name: &str) {
    let r = layout
        .chrome
        .control_rect(name)
        .unwrap_or_else(|| panic!("the chrome drew no {name}"));
    let t = Instant::now();
    loop {
        let img = capture(app);
        let n = window::changed_pixels(before, &img, r);
        if n >= 20 {
            return;
        }
        if t.elapsed() > Duration::from_secs(30) {
            keep(&img, &format!("not-drawn-{name}"));
            panic!(
                "the window never drew {name} ({n} pixels changed); stderr:\n{}",
                app.stderr()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Opens the settings view with Ctrl+, in the window and in the layout, and waits until the
/// window shows it.
fn open_settings(app: &App, layout: &mut Layout) {
    let before = capture(app);
    key(app, "ctrl+comma");
    layout.ctrl(Key::Comma);
    assert!(
        layout.chrome.control_rect(controls::SETTINGS).is_some(),
        "Ctrl+, did not open the view"
    );
    wait_drawn(app, layout, &before, controls::SETTINGS);
}

/// Clicks section `section` of the open settings view, then waits until the window shows
/// its control `then` (what the test clicks next).
fn open_section(app: &App, layout: &mut Layout, section: SettingsSection, then: &str) {
    let before = capture(app);
    let at = layout.click(&settings_section_control(section));
    click(app, at);
    wait_drawn(app, layout, &before, then);
}

/// Waits until `settings.json` holds `needle`.
fn wait_saved(dir: &Path, needle: &str) -> String {
    let file = dir.join("config/aperture/settings.json");
    let t = Instant::now();
    loop {
        let s = std::fs::read_to_string(&file).unwrap_or_default();
        if s.contains(needle) {
            return s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{needle} was not saved: {s}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn pages() -> Server {
    Server::start(
        HashMap::from([
            ("/find".to_string(), FIND.to_string()),
            ("/cookie".to_string(), COOKIE.to_string()),
        ]),
        None,
    )
}

#[test]
fn a_custom_search_engine_takes_the_next_query_and_survives_a_restart() {
    if !can_run("custom_search_engine") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let dir = scratch("engine");
    let start = server.url("/find");
    let mut app = launch(&dir, &[start.as_str()]);
    app.cleanup = false;
    wait_for(&app, GREY, "engine-start");
    let mut layout = Layout::new(app.size(), &start);

    open_settings(&app, &mut layout);
    let custom = layout.click(&search_engine_control(&SearchEngine::Custom(String::new())));
    click(&app, custom);
    // The template field has the keyboard as soon as Custom is picked.
    let template = format!("{}/find?q=%s", server.base);
    xdo(&["type", "--delay", "15", &template]);
    xdo(&["key", "Return"]);
    let saved = wait_saved(&dir, &format!("\"custom\": \"{template}\""));
    assert!(saved.contains("\"search_engine\""), "{saved}");

    // Words typed in the omnibox are a search with that engine.
    omnibox(&app, QUERY);
    wait_for(&app, GREEN, "engine-results");
    assert!(
        server.requests().iter().filter(|p| *p == "/find").count() >= 2,
        "{:?}",
        server.requests()
    );

    // After a restart the same words go to the same engine, with nobody touching settings.
    assert!(
        app.terminate().success(),
        "a clean quit; stderr:\n{}",
        app.stderr()
    );
    drop(app);
    let app = launch(&dir, &[start.as_str()]);
    wait_for(&app, GREY, "engine-restart");
    let before = server.requests().iter().filter(|p| *p == "/find").count();
    omnibox(&app, QUERY);
    wait_for(&app, GREEN, "engine-after-restart");
    assert!(server.requests().iter().filter(|p| *p == "/find").count() > before);
    let places = aperture_places::Places::open(&dir.join("profile")).expect("places.sqlite");
    let t = Instant::now();
    loop {
        let hits = places.search(QUERY, None, 10, 0).unwrap();
        if !hits.is_empty() {
            assert!(hits[0].url.starts_with(&server.base), "{hits:?}");
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the search was not in history"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn clearing_browsing_data_empties_history_and_the_container_s_cookies() {
    if !can_run("clear_browsing_data") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let dir = scratch("clear");
    let page = server.url("/cookie");
    let app = launch(&dir, &[page.as_str()]);
    // First visit: no cookie yet (cyan); a reload has it (orange), so the probe can see it.
    wait_for(&app, CYAN, "clear-first-visit");
    key(&app, "ctrl+r");
    wait_for(&app, ORANGE, "clear-cookie-kept");
    let places = aperture_places::Places::open(&dir.join("profile")).expect("places.sqlite");
    let t = Instant::now();
    while places.search("", None, 10, 0).unwrap().is_empty() {
        assert!(t.elapsed() < Duration::from_secs(20), "nothing reached history");
        std::thread::sleep(Duration::from_millis(200));
    }

    let mut layout = Layout::new(app.size(), &page);
    open_settings(&app, &mut layout);
    open_section(
        &app,
        &mut layout,
        SettingsSection::Privacy,
        controls::SETTINGS_CLEAR_OK,
    );
    keep(&capture(&app), "clear-privacy");
    // The defaults: the last hour, every container, history, cookies and cache.
    let clear = layout.click(controls::SETTINGS_CLEAR_OK);
    click(&app, clear);
    keep(&capture(&app), "clear-clicked");

    let t = Instant::now();
    loop {
        let left = places.search("", None, 10, 0).unwrap();
        if left.is_empty() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "history was not cleared: {left:?}; stderr:\n{}",
            app.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let t = Instant::now();
    let log = loop {
        let log = app.stderr();
        if log.contains("Cleared") || log.contains("could not clear") {
            break log;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no word from clearing:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        log.contains("Cleared") && log.contains("cookies and cached files in every container"),
        "{log}"
    );
    assert!(!log.contains("could not clear"), "{log}");
    // The page no longer finds its cookie.
    key(&app, "ctrl+r");
    wait_for(&app, CYAN, "clear-cookie-gone");
}

/// A page whose block a first-party "tracker" script turns green.
const TRACKED: &str = r#"<!doctype html><html><head><title>Tracked</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:#ddd"></div>
<script src="/tracker.js"></script>
</body></html>"#;
const TRACKER: &str = r#"document.getElementById("b").style.background = "rgb(20,200,60)";"#;

#[test]
fn a_blocking_exception_from_the_settings_file_lets_the_site_s_tracker_load_until_the_view_removes_it() {
    if !can_run("blocking_exception") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(
        HashMap::from([
            ("/tracked".to_string(), TRACKED.to_string()),
            ("/tracker.js".to_string(), TRACKER.to_string()),
        ]),
        None,
    );
    let dir = scratch("blocking");
    let lists = dir.join("list.txt");
    std::fs::write(&lists, "/tracker.js\n").unwrap();
    // Saved by an earlier run: trackers are not blocked on 127.0.0.1.
    std::fs::create_dir_all(dir.join("config/aperture")).unwrap();
    std::fs::write(
        dir.join("config/aperture/settings.json"),
        r#"{"blocking":{"enabled":true,"sites":{"127.0.0.1":false}}}"#,
    )
    .unwrap();
    let page = server.url("/tracked");
    let list = lists.display().to_string();
    let app = launch(&dir, &["--filter-list", list.as_str(), page.as_str()]);
    let tracker_loads = || server.requests().iter().filter(|p| *p == "/tracker.js").count();
    wait_for(&app, GREEN, "blocking-exception");
    assert_eq!(tracker_loads(), 1);

    let mut layout = Layout::new(app.size(), &page);
    layout.model.settings.blocking_available = true;
    layout.model.settings.values.blocking.set("127.0.0.1", false);
    open_settings(&app, &mut layout);
    open_section(
        &app,
        &mut layout,
        SettingsSection::Privacy,
        controls::SETTINGS_SITE_BLOCKING,
    );
    let here = layout.click(controls::SETTINGS_SITE_BLOCKING);
    click(&app, here);
    keep(&capture(&app), "blocking-ticked");
    let file = dir.join("config/aperture/settings.json");
    let t = Instant::now();
    loop {
        let s = std::fs::read_to_string(&file).unwrap_or_default();
        if s.contains("\"blocking\"") && !s.contains("127.0.0.1") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the exception was not removed: {s}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The site's next load: the tracker is blocked before it leaves the browser.
    let loads = server.requests().iter().filter(|p| *p == "/tracked").count();
    key(&app, "ctrl+r");
    let t = Instant::now();
    while server.requests().iter().filter(|p| *p == "/tracked").count() == loads {
        assert!(t.elapsed() < Duration::from_secs(20), "the page did not reload");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    let img = capture(&app);
    keep(&img, "blocking-blocked");
    assert!(has_block(&img, GREY), "the page did not come back");
    assert!(!has_block(&img, GREEN), "the tracker ran on the reload");
    assert_eq!(tracker_loads(), 1, "the tracker was requested again");
}

#[test]
fn a_new_download_folder_takes_the_next_download() {
    if !can_run("download_folder") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::spawn(Spec {
        routes: HashMap::from([("/find".to_string(), FIND.to_string())]),
        attachments: HashMap::from([(
            "/probe.bin".to_string(),
            Attachment {
                name: "probe.bin".into(),
                len: 4096,
                delay_per_chunk: Duration::ZERO,
            },
        )]),
        ..Spec::default()
    });
    let dir = scratch("downloads");
    let (first, second) = (dir.join("first"), dir.join("second"));
    let page = server.url("/find");
    let app = launch_env(&dir, &[page.as_str()], &[("XDG_DOWNLOAD_DIR", &first)]);
    wait_for(&app, GREY, "downloads-start");
    let mut layout = Layout::new(app.size(), &page);
    layout.model.settings.download_dir = Some(first.clone());
    open_settings(&app, &mut layout);
    let field = layout.click(controls::SETTINGS_DOWNLOAD_DIR);
    click(&app, field);
    xdo(&["key", "--clearmodifiers", "ctrl+a"]);
    xdo(&["type", "--delay", "15", &second.display().to_string()]);
    xdo(&["key", "Return"]);
    wait_saved(&dir, &format!("\"download_dir\": \"{}\"", second.display()));

    omnibox(&app, &server.url("/probe.bin"));
    let file = second.join("probe.bin");
    let t = Instant::now();
    while std::fs::metadata(&file).map_or(true, |m| m.len() != 4096) {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no {} (first folder: {:?}); stderr:\n{}",
            file.display(),
            std::fs::read_dir(&first).map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>()),
            app.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        !first.join("probe.bin").exists(),
        "the download went to the old folder too"
    );
}

/// Green when the location came, yellow when it was allowed but there is none to give (no
/// location provider here), blue when it was refused; grey while the prompt waits.
const GEO: &str = r#"<!doctype html><html><head><title>Geo</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:#ddd"></div>
<script>
navigator.geolocation.getCurrentPosition(
  () => { document.getElementById("b").style.background = "rgb(20,200,60)"; },
  (e) => { document.getElementById("b").style.background = e.code == 1 ? "rgb(30,60,220)" : "rgb(250,210,0)"; });
</script></body></html>"#;
const BLUE: [u8; 3] = [30, 60, 220];
const YELLOW: [u8; 3] = [250, 210, 0];

#[test]
fn a_remembered_allow_is_changed_to_block_in_the_site_permissions_view() {
    if !can_run("site_permissions") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(HashMap::from([("/geo".to_string(), GEO.to_string())]), None);
    let dir = scratch("permissions");
    let profile = dir.join("profile");
    let page = server.url("/geo");
    let mut app = launch(&dir, &[page.as_str()]);
    app.cleanup = false;
    wait_for(&app, GREY, "permissions-asking");
    // The human allows it in the prompt under the omnibox.
    let mut layout = Layout::new(app.size(), &page);
    layout.model.permission = Some(aperture_ui::PermissionView {
        tab: TabId(1),
        id: 1,
        origin: server.base.trim_start_matches("http://").to_string(),
        kinds: vec!["know your location".into()],
    });
    layout.frames(vec![], 2);
    let allow = layout.click(controls::PERMISSION_ALLOW);
    layout.model.permission = None;
    layout.frames(vec![], 2);
    // The prompt shows once the page has asked, which the grey page does not say: click
    // Allow again until the page gets an answer (a click before the prompt lands on the
    // page's bare top, which does nothing).
    let t = Instant::now();
    let got = loop {
        click(&app, allow);
        let round = Instant::now();
        let seen = loop {
            let img = capture(&app);
            if let Some(c) = [GREEN, YELLOW, BLUE].into_iter().find(|c| has_block(&img, *c)) {
                keep(&img, "permissions-allowed");
                break Some(c);
            }
            if round.elapsed() > Duration::from_secs(4) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(250));
        };
        if let Some(c) = seen {
            break c;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the page never got an answer to its request; stderr:\n{}",
            app.stderr()
        );
    };
    // Allowed: the page gets past the permission (there is no location to give here, so it
    // is told that instead of a refusal).
    assert_ne!(got, BLUE, "Allow was not applied");
    let file = profile.join("permissions.json");
    let saved =
        aperture_testkit::eventually_blocking(Duration::from_secs(20), "permissions.json saved", || {
            let v = std::fs::read(&file)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
            (v.as_ref().is_some_and(|v| v[0]["allow"].is_boolean()), v)
        })
        .expect("the JSON");
    let entry = &saved[0];
    assert_eq!(entry["allow"], true, "{saved}");
    let container = entry["container"].as_str().expect("a container").to_string();
    let origin = entry["origin"].as_str().expect("an origin").to_string();
    let asked: Vec<String> = serde_json::from_value(entry["asked"].clone()).expect("what was asked");
    assert_eq!(asked, ["know your location"]);

    // The view lists it under the container, with Allow chosen; Block changes it.
    layout.model.containers[0].id = container.clone();
    layout.model.default_container = Some(container.clone());
    layout.model.tabs[0].container.id = container.clone();
    layout.model.settings.permissions = vec![aperture_ui::SitePermission {
        container: container.clone(),
        origin: origin.clone(),
        asked: asked.clone(),
        allow: true,
    }];
    open_settings(&app, &mut layout);
    let block = aperture_ui::chrome::site_permission_control(&container, &origin, &asked, Some(false));
    open_section(&app, &mut layout, SettingsSection::Permissions, &block);
    keep(&capture(&app), "permissions-view");
    let block = layout.click(&block);
    click(&app, block);
    keep(&capture(&app), "permissions-blocked");
    let t = Instant::now();
    loop {
        let s = std::fs::read_to_string(&file).unwrap_or_default();
        if s.contains("\"allow\": false") && s.contains("know your location") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the change was not saved: {s}; stderr:\n{}",
            app.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // The site's next request is refused from memory: no prompt, nobody clicking.
    key(&app, "ctrl+comma");
    key(&app, "ctrl+r");
    wait_for(&app, BLUE, "permissions-refused-after-block");

    // And after a restart.
    assert!(
        app.terminate().success(),
        "a clean quit; stderr:\n{}",
        app.stderr()
    );
    drop(app);
    let app = launch(&dir, &[page.as_str()]);
    wait_for(&app, BLUE, "permissions-refused-after-restart");
}

#[test]
fn a_gigabyte_download_cancelled_in_the_downloads_panel_leaves_no_file() {
    if !can_run("download_cancel") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    const GIB: u64 = 1 << 30;
    // A gigabyte streamed at ~6 MB/s (made as it is sent, never held in memory): minutes to
    // finish, so the cancel comes half-way.
    let server = Server::spawn(Spec {
        routes: HashMap::from([("/find".to_string(), FIND.to_string())]),
        attachments: HashMap::from([(
            "/huge.iso".to_string(),
            Attachment {
                name: "huge.iso".into(),
                len: GIB,
                delay_per_chunk: Duration::from_millis(10),
            },
        )]),
        ..Spec::default()
    });
    let dir = scratch("cancel");
    let dl = dir.join("dl");
    let page = server.url("/find");
    let app = launch_env(&dir, &[page.as_str()], &[("XDG_DOWNLOAD_DIR", &dl)]);
    wait_for(&app, GREY, "cancel-start");
    omnibox(&app, &server.url("/huge.iso"));
    let part = dl.join("huge.iso.part");
    let t = Instant::now();
    while std::fs::metadata(&part).map_or(true, |m| m.len() < 4 << 20) {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the download did not get going: {:?}; stderr:\n{}",
            aperture_testkit::file_names(&dl),
            app.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!dl.join("huge.iso").exists(), "the final name exists mid-way");

    // The toolbar's downloads button, then the row's Cancel, with the mouse.
    let mut layout = Layout::new(app.size(), &page);
    layout.model.downloads = vec![aperture_ui::DownloadView {
        id: 1,
        name: "huge.iso".into(),
        received: 4 << 20,
        // The fixture server streams it chunked: Chromium learns no total, so the row has
        // no progress bar.
        total: None,
        state: aperture_ui::DownloadState::InProgress,
        path: None,
        paused: false,
    }];
    layout.frames(vec![], 2);
    let before = capture(&app);
    let button = layout.click(controls::DOWNLOADS);
    click(&app, button);
    wait_drawn(
        &app,
        &layout,
        &before,
        &aperture_ui::chrome::download_control("cancel", 1),
    );
    keep(&capture(&app), "cancel-panel");
    let cancel = layout.click(&aperture_ui::chrome::download_control("cancel", 1));
    click(&app, cancel);
    keep(&capture(&app), "cancel-clicked");

    // Nothing left: not the final name, not the temporary one.
    let t = Instant::now();
    while !aperture_testkit::file_names(&dl).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "left behind after the cancel: {:?}; stderr:\n{}",
            aperture_testkit::file_names(&dl),
            app.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // And nothing comes back (the transfer really stopped).
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        aperture_testkit::file_names(&dl).is_empty(),
        "{:?}",
        aperture_testkit::file_names(&dl)
    );
}

/// A word to select and a field that turns the block green when "Outsider" is pasted in.
const SELECT: &str = r#"<!doctype html><html><head><title>Select</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:200px;width:300px;height:200px;background:#ddd"></div>
<p style="position:absolute;left:40px;top:20px;margin:0;font:40px sans-serif">Zebrafish</p>
<input id="i" style="position:absolute;left:40px;top:120px;width:400px;height:40px;font:24px sans-serif"
  oninput="if (this.value === 'Outsider') document.getElementById('b').style.background = 'rgb(20,200,60)'">
</body></html>"#;

#[test]
fn text_selected_in_the_page_is_the_primary_selection_and_a_middle_click_pastes_it() {
    if !can_run("primary_selection") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(HashMap::from([("/select".to_string(), SELECT.to_string())]), None);
    let dir = scratch("primary");
    let page = server.url("/select");
    let app = launch(&dir, &[page.as_str()]);
    // Where the page starts: the grey block's top is 200 CSS px below it. Waited for by that
    // row itself, not by any grey (the chrome has grey buttons, drawn before the tab opens).
    let t0 = Instant::now();
    let top = loop {
        let img = capture(&app);
        // The first row grey across the block's width (the chrome has grey buttons, not a bar).
        let grey = |x: u32, y: u32| {
            img.get_pixel(x, y)
                .0
                .iter()
                .zip(GREY)
                .all(|(a, b)| (*a as i32 - b as i32).abs() <= 20)
        };
        if let Some(y) = (0..img.height()).find(|&y| [50, 120, 200, 330].iter().all(|&x| grey(x, y))) {
            break y.checked_sub(200).expect("the block 200 px below the page's top");
        }
        if t0.elapsed() > Duration::from_secs(45) {
            keep(&img, "primary-start");
            panic!("the grey block never showed; stderr:\n{}", app.stderr());
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    // This test is the other X program: it holds PRIMARY first, so the test sees it change.
    let mut other = aperture_ui::selection::PrimarySelection::new().expect("an X display");
    assert!(other.set("before"));

    // A double-click selects the word, as a person would.
    xdo(&["windowfocus", "--sync", &app.window]);
    xdo(&[
        "mousemove",
        "--window",
        &app.window,
        "120",
        &(top + 45).to_string(),
    ]);
    std::thread::sleep(Duration::from_millis(200));
    xdo(&["click", "--repeat", "2", "--delay", "80", "1"]);
    let t = Instant::now();
    loop {
        let got = other.get();
        if got.as_deref() == Some("Zebrafish") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "PRIMARY is {got:?}, not the selected word"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // Another program's selection, pasted into the page's field with a middle click.
    assert!(other.set("Outsider"));
    xdo(&[
        "mousemove",
        "--window",
        &app.window,
        "200",
        &(top + 140).to_string(),
    ]);
    std::thread::sleep(Duration::from_millis(200));
    xdo(&["click", "2"]);
    wait_for(&app, GREEN, "primary-pasted");
}

#[test]
fn ctrl_p_saves_a_pdf_of_the_page_in_the_download_folder() {
    if !can_run("ctrl_p") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(HashMap::from([("/select".to_string(), SELECT.to_string())]), None);
    let dir = scratch("print");
    let dl = dir.join("dl");
    let page = server.url("/select");
    let app = launch_env(&dir, &[page.as_str()], &[("XDG_DOWNLOAD_DIR", &dl)]);
    wait_for(&app, GREY, "print-start");
    key(&app, "ctrl+p");
    let pdf = dl.join("Select.pdf");
    let t = Instant::now();
    while !pdf.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no {}: {:?}; stderr:\n{}",
            pdf.display(),
            aperture_testkit::file_names(&dl),
            app.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "not a PDF");
    assert_eq!(
        aperture_testkit::file_names(&dl),
        ["Select.pdf"],
        "a temporary was left"
    );
    // The tab did not hang: a click and typing still reach the page's field (green).
    let img = capture(&app);
    keep(&img, "print-done");
    let grey = |x: u32, y: u32| {
        img.get_pixel(x, y)
            .0
            .iter()
            .zip(GREY)
            .all(|(a, b)| (*a as i32 - b as i32).abs() <= 20)
    };
    let top = (0..img.height())
        .find(|&y| [50, 120, 200, 330].iter().all(|&x| grey(x, y)))
        .expect("the grey block")
        - 200;
    click(&app, Pos2::new(200.0, (top + 140) as f32));
    xdo(&["type", "--delay", "30", "Outsider"]);
    wait_for(&app, GREEN, "print-page-still-answers");
}
