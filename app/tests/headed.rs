//! The headed browser under X (Xvfb in CI): the real window, driven with real X input
//! (xdotool) and read back with ImageMagick's `import`, as a human would see it.
//!
//! Without `DISPLAY` (or without xdotool/import) these tests print why and pass, unless
//! `APERTURE_UI_REQUIRE=1` (CI), where that is a failure. `APERTURE_HEADED_KEEP=DIR` keeps
//! the captures as PNGs for a human to look at.

mod common;

use aperture_testkit::mcp::{call, role_ref, text};

use common::Server;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One window at a time: they would share the display, its keyboard focus and position.
static SERIAL: Mutex<()> = Mutex::new(());

/// A white page with a magenta 300×200 block at CSS (40, 40) and a button for the agent.
const PAGE: &str = r#"<!doctype html><html><head><title>Headed fixture</title></head>
<body style="margin:0;background:#fff;color:#000">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
<p style="position:absolute;top:300px;left:40px;font:20px sans-serif">Hello headed</p>
<button id="b" style="position:absolute;top:360px;left:40px;height:30px;font:20px sans-serif"
  onclick="this.textContent='Pressed';document.getElementById('k').style.background='rgb(20,200,60)'">Press me</button>
<input id="t" style="position:absolute;top:420px;left:40px;width:200px;height:30px;font:20px sans-serif"
  oninput="if(this.value==='hi')document.getElementById('k').style.background='rgb(30,60,220)'">
<a href="/popup.html" target="_blank" style="position:absolute;top:480px;left:40px;font:20px sans-serif">Open popup</a>
<div id="k" style="position:absolute;left:400px;top:40px;width:100px;height:100px;background:#ddd"></div>
<div style="position:fixed;right:0;top:40px;width:50px;height:50px;background:rgb(0,200,200)"></div>
</body></html>"#;

/// A site with its own dark theme (prefers-color-scheme), which Auto must leave alone.
const SCHEME: &str = r#"<!doctype html><html><head><title>Scheme</title><style>
body { margin: 0; background: #fff; } #m { background: rgb(200,200,200); }
@media (prefers-color-scheme: dark) { body { background: rgb(24,24,24); } #m { background: rgb(255,120,0); } }
</style></head><body>
<div id="m" style="position:absolute;left:40px;top:40px;width:300px;height:200px"></div>
</body></html>"#;

/// What the popup shows: a yellow block.
const POPUP: &str = r#"<!doctype html><html><head><title>Popup</title></head><body style="margin:0">
<div style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(250,210,0)"></div>
</body></html>"#;

const MAGENTA: [u8; 3] = [230, 20, 140];
const GREEN: [u8; 3] = [20, 200, 60];
const BLUE: [u8; 3] = [30, 60, 220];
const YELLOW: [u8; 3] = [250, 210, 0];
const CYAN: [u8; 3] = [0, 200, 200];
const ORANGE: [u8; 3] = [255, 120, 0];
const AGENT_ORANGE: [u8; 3] = [0xE8, 0x8A, 0x1A];
const HUMAN_GREEN: [u8; 3] = [0x2E, 0xA0, 0x43];

/// Whether the display and tools are here; `false` means "skip" (never under REQUIRE).
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
}

impl App {
    /// SIGTERM, then waits (up to 10 s) for the exit; kills it if it hangs.
    fn terminate(&mut self) -> std::process::ExitStatus {
        if let Ok(Some(s)) = self.child.try_wait() {
            return s;
        }
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().expect("wait")
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // SIGTERM first: the browser closes its tabs and CEF cleanly, as on a real logout.
        self.terminate();
        let _ = self.child.kill();
        let _ = self.child.wait();
        for p in common::tagged_pids(&self.tag) {
            let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
        }
        aperture_common::fs::remove_chromium_singleton(&self.scratch.join("profile"));
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("aperture-headed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Starts `aperture` (headed) and waits for its window to be mapped.
fn launch(scratch: PathBuf, args: &[&str], settings: Option<&str>) -> App {
    launch_with(scratch, args, settings, "light")
}

/// Like [`launch`], with the human's desktop light/dark preference.
fn launch_with(scratch: PathBuf, args: &[&str], settings: Option<&str>, scheme: &str) -> App {
    let config = scratch.join("config");
    if let Some(s) = settings {
        std::fs::create_dir_all(config.join("aperture")).unwrap();
        std::fs::write(config.join("aperture/settings.json"), s).unwrap();
    }
    let tag = format!(
        "aperture-headed-{}-{}",
        std::process::id(),
        scratch.display().to_string().len()
    );
    let log = std::fs::File::create(scratch.join("stderr.log")).unwrap();
    let mut child = aperture_testkit::browser_command(common::exe())
        .arg("--profile")
        .arg(scratch.join("profile"))
        .args(args)
        .env("XDG_CONFIG_HOME", &config)
        .env("APERTURE_TEST_TAG", &tag)
        .env("APERTURE_COLOR_SCHEME", scheme)
        .env(cef_sys_build::ENV_DIR, common::cef_dir())
        // Nothing is read from stdout (the MCP endpoint comes from mcp.json), so it goes to a
        // file rather than a pipe nobody drains.
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
        scratch,
        window,
    }
}

fn xdo(args: &[&str]) {
    let s = Command::new("xdotool").args(args).status().expect("xdotool");
    assert!(s.success(), "xdotool {args:?} failed");
}

/// The window's pixels, as the X server has them.
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

fn near(p: &image::Rgb<u8>, c: [u8; 3], tol: i32) -> bool {
    p.0.iter()
        .zip(c)
        .all(|(a, b)| (*a as i32 - b as i32).abs() <= tol)
}

fn luma(p: &image::Rgb<u8>) -> f32 {
    (0.2126 * p.0[0] as f32 + 0.7152 * p.0[1] as f32 + 0.0722 * p.0[2] as f32) / 255.0
}

/// Bounding box (x0, y0, x1, y1) of the pixels near `c` in rows `rows`.
fn bbox(
    img: &image::RgbImage,
    c: [u8; 3],
    tol: i32,
    rows: std::ops::Range<u32>,
) -> Option<(u32, u32, u32, u32)> {
    let mut b: Option<(u32, u32, u32, u32)> = None;
    for y in rows.start..rows.end.min(img.height()) {
        for x in 0..img.width() {
            if near(img.get_pixel(x, y), c, tol) {
                b = Some(match b {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
            }
        }
    }
    b
}

/// Captures until the fixture's block shows (the page loaded and painted), or panics.
fn wait_for_block(app: &App, name: &str) -> (image::RgbImage, (u32, u32, u32, u32)) {
    let t = Instant::now();
    loop {
        let img = capture(app);
        if let Some(b) = bbox(&img, MAGENTA, 30, 0..img.height())
            && b.2 - b.0 > 250
        {
            // One more paint so the page is settled (dark mode applies after the load).
            std::thread::sleep(Duration::from_millis(1500));
            let img = capture(app);
            keep(&img, name);
            let b = bbox(&img, MAGENTA, 30, 0..img.height()).unwrap_or(b);
            return (img, b);
        }
        if t.elapsed() > Duration::from_secs(45) {
            keep(&img, name);
            panic!(
                "the page never showed in the window; stderr:\n{}",
                std::fs::read_to_string(app.scratch.join("stderr.log")).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Ctrl+L, the URL, Enter: the way a person opens a page.
fn type_into_omnibox(app: &App, url: &str) {
    xdo(&["windowfocus", "--sync", &app.window]);
    std::thread::sleep(Duration::from_millis(300));
    xdo(&["key", "--clearmodifiers", "ctrl+l"]);
    std::thread::sleep(Duration::from_millis(300));
    xdo(&["type", "--delay", "15", url]);
    xdo(&["key", "Return"]);
}

/// The page area starts where the block's top is minus its CSS offset (40 px at scale 1).
fn check_layout(img: &image::RgbImage, b: (u32, u32, u32, u32)) -> u32 {
    let (w, h) = (b.2 - b.0 + 1, b.3 - b.1 + 1);
    assert!(
        (297..=303).contains(&w) && (197..=203).contains(&h),
        "the page should be drawn 1:1: block is {w}x{h}, not 300x200"
    );
    assert!((38..=42).contains(&b.0), "block at x {} (expected 40)", b.0);
    let top = b.1 - 40;
    assert!(
        (40..=140).contains(&top),
        "page area starts at y {top}: no room for the chrome?"
    );
    // The chrome: the strip and toolbar above the page hold text and controls, not page.
    let chrome = 0..top;
    assert!(
        bbox(img, MAGENTA, 30, chrome.clone()).is_none(),
        "page pixels in the chrome area"
    );
    let inked = (chrome.start..chrome.end)
        .flat_map(|y| (0..img.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| luma(img.get_pixel(x, y)) < 0.45)
        .count();
    assert!(
        inked > 150,
        "the chrome area looks empty ({inked} dark pixels): not drawn?"
    );
    top
}

fn page_luma(img: &image::RgbImage, top: u32) -> f32 {
    let mut sum = 0.0;
    let mut n = 0;
    for y in (top..img.height()).step_by(3) {
        for x in (0..img.width()).step_by(3) {
            sum += luma(img.get_pixel(x, y));
            n += 1;
        }
    }
    sum / n as f32
}

fn fixture() -> Server {
    Server::start(
        HashMap::from([
            ("/page.html".to_string(), PAGE.to_string()),
            ("/popup.html".to_string(), POPUP.to_string()),
            ("/scheme.html".to_string(), SCHEME.to_string()),
        ]),
        None,
    )
}

#[test]
fn omnibox_loads_a_page_and_both_chrome_and_page_render() {
    if !can_run("omnibox_loads_a_page") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let app = launch(scratch("light"), &["--mcp-port", "0"], None);
    type_into_omnibox(&app, &server.url("/page.html"));
    let (img, b) = wait_for_block(&app, "headed-light");
    let top = check_layout(&img, b);
    let l = page_luma(&img, top);
    assert!(l > 0.8, "a white page should measure light, got {l:.2}");
    assert!(
        server.log.lock().unwrap().iter().any(|p| p == "/page.html"),
        "the page was not requested"
    );
    let right = bbox(&img, CYAN, 25, top..img.height()).expect("the right-pinned block");
    assert!(
        right.2 + 3 >= img.width(),
        "the page does not reach the window's right edge"
    );

    // A smaller window: the page is laid out again at the new width (WasResized), 1:1.
    xdo(&["windowsize", &app.window, "1000", "700"]);
    let t = Instant::now();
    loop {
        let img = capture(&app);
        let fits = img.width() == 1000
            && bbox(&img, CYAN, 25, top..img.height()).is_some_and(|b| b.2 + 3 >= 1000 && b.2 < 1000);
        if fits {
            keep(&img, "headed-resized");
            let b = bbox(&img, MAGENTA, 30, 0..img.height()).expect("block after resize");
            check_layout(&img, b);
            break;
        }
        if t.elapsed() > Duration::from_secs(15) {
            keep(&img, "headed-resized");
            panic!(
                "the page did not follow the window to 1000x700 ({}x{})",
                img.width(),
                img.height()
            );
        }
        std::thread::sleep(Duration::from_millis(300));
    }

    // SIGTERM (logout, `kill`): tabs close, CEF shuts down, nothing is left behind.
    let mut app = app;
    let status = app.terminate();
    assert!(status.success(), "aperture exited with {status} on SIGTERM");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        common::tagged_pids(&app.tag).is_empty(),
        "CEF processes outlived the browser: {:?}",
        common::tagged_pids(&app.tag)
    );
}

#[test]
fn dark_mode_on_darkens_the_page_but_not_the_setting_file() {
    if !can_run("dark_mode_on") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let dir = scratch("dark");
    let settings = r#"{"version":1,"theme":{"policies":{"default":"auto","sites":{"127.0.0.1":"on"}}}}"#;
    let app = launch(dir.clone(), &["--mcp-port", "0"], Some(settings));
    type_into_omnibox(&app, &server.url("/page.html"));
    let t = Instant::now();
    let (img, top, l) = loop {
        let (img, b) = wait_for_block(&app, "headed-dark");
        let top = check_layout(&img, b);
        let l = page_luma(&img, top);
        if l < 0.35 || t.elapsed() > Duration::from_secs(20) {
            break (img, top, l);
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(
        l < 0.35,
        "dark mode On should darken the white page, got luminance {l:.2}"
    );
    // The background below the block, away from text, is dark; the chrome stays as it was.
    let bg = img.get_pixel(700, top + 450);
    assert!(luma(bg) < 0.3, "page background {bg:?} is not dark");
    let s = std::fs::read_to_string(dir.join("config/aperture/settings.json")).unwrap();
    assert!(s.contains("127.0.0.1"), "the site's setting was lost: {s}");
}

#[test]
fn dark_auto_follows_the_human_and_leaves_dark_sites_alone() {
    if !can_run("dark_auto") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    // The human prefers dark (layer 1 reports it); every site is on Auto.
    let app = launch_with(
        scratch("auto"),
        &["--mcp-port", "0", &server.url("/scheme.html")],
        None,
        "dark",
    );
    let t = Instant::now();
    let img = loop {
        let img = capture(&app);
        if bbox(&img, ORANGE, 6, 0..img.height()).is_some_and(|b| b.2 - b.0 > 250) {
            // Give a wrong darkening time to show before judging that there is none.
            std::thread::sleep(Duration::from_millis(2000));
            break capture(&app);
        }
        if t.elapsed() > Duration::from_secs(45) {
            keep(&img, "auto-scheme");
            panic!("the site's own dark theme never showed: prefers-color-scheme is not dark");
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    keep(&img, "auto-scheme");
    let b = bbox(&img, ORANGE, 6, 0..img.height()).expect("the site's own colours are untouched");
    assert!(
        b.2 - b.0 > 250,
        "the site's dark theme was altered (force-dark on an already dark page?)"
    );
    let top = b.1 - 40;
    let bg = img.get_pixel(700, top + 450);
    assert!(
        near(bg, [24, 24, 24], 6),
        "the site's own background {bg:?} was changed"
    );

    // The same human on a light site: Auto measures it light and darkens it.
    type_into_omnibox(&app, &server.url("/page.html"));
    let (img, b) = wait_for_block(&app, "auto-light-site");
    let top = check_layout(&img, b);
    let t = Instant::now();
    let mut l = page_luma(&img, top);
    while l > 0.35 && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(400));
        let img = capture(&app);
        l = page_luma(&img, top);
        keep(&img, "auto-light-site");
    }
    assert!(
        l < 0.35,
        "Auto with a dark-preferring human should darken a light page, got {l:.2}"
    );
}

#[test]
fn dark_filter_brightness_applies_to_darkened_pages() {
    if !can_run("dark_filter") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let settings =
        r#"{"theme":{"policies":{"sites":{"127.0.0.1":"on"}},"filter":{"brightness":0.5,"contrast":1.0}}}"#;
    let app = launch(
        scratch("filter"),
        &["--mcp-port", "0", &server.url("/page.html")],
        Some(settings),
    );
    // Layer 3's brightness(0.5) halves the block's colour (force-dark keeps it as it is).
    let dim = [MAGENTA[0] / 2, MAGENTA[1] / 2, MAGENTA[2] / 2];
    let t = Instant::now();
    loop {
        let img = capture(&app);
        if let Some(b) = bbox(&img, dim, 14, 0..img.height())
            && b.2 - b.0 > 250
        {
            keep(&img, "filter-dimmed");
            check_layout(&img, b);
            assert!(
                bbox(&img, MAGENTA, 30, 0..img.height()).is_none(),
                "part of the page escaped the filter"
            );
            break;
        }
        if t.elapsed() > Duration::from_secs(20) {
            keep(&img, "filter-dimmed");
            panic!("brightness 0.5 never dimmed the page's block to {dim:?}");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn a_corrupt_settings_file_is_kept_aside_and_the_window_still_opens() {
    if !can_run("corrupt_settings") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let dir = scratch("corrupt");
    let app = launch(
        dir.clone(),
        &["--mcp-port", "0", &server.url("/page.html")],
        Some("{\"theme\": {\"policies\": "),
    );
    let (img, b) = wait_for_block(&app, "corrupt-start");
    check_layout(&img, b);
    let cfg = dir.join("config/aperture");
    let backups: Vec<String> = std::fs::read_dir(&cfg)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("settings.json.corrupt-"))
        .collect();
    assert_eq!(backups.len(), 1, "the corrupt file was not kept: {backups:?}");
    let kept = std::fs::read_to_string(cfg.join(&backups[0])).unwrap();
    assert_eq!(
        kept, "{\"theme\": {\"policies\": ",
        "the backup is not the original bytes"
    );
    let log = std::fs::read_to_string(dir.join("stderr.log")).unwrap_or_default();
    assert!(log.contains("corrupt"), "the human was not told: {log}");
}

/// The highlight egui gives the selected item of the dark-mode menu.
const MENU_SELECTED: [u8; 3] = [144, 209, 255];
/// Row pitch of the menu's Auto / On / Off items.
const MENU_ROW: u32 = 23;

/// Opens the toolbar's dark-mode menu and picks the item `rows` below the current mode.
fn pick_theme(app: &App, top: u32, rows: u32) {
    let img = capture(app);
    // The menu button sits left of the Vault button at the toolbar's right end.
    click_at(app, img.width() - 107, top - 18);
    let t = Instant::now();
    let sel = loop {
        let img = capture(app);
        if let Some(b) = bbox(&img, MENU_SELECTED, 10, top..top + 120) {
            break b;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the dark-mode menu did not open"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    click_at(app, (sel.0 + sel.2) / 2, (sel.1 + sel.3) / 2 + rows * MENU_ROW);
}

fn wait_luma(app: &App, top: u32, ok: impl Fn(f32) -> bool, what: &str) -> f32 {
    let t = Instant::now();
    loop {
        let img = capture(app);
        let l = page_luma(&img, top);
        if ok(l) {
            keep(&img, what);
            return l;
        }
        if t.elapsed() > Duration::from_secs(20) {
            keep(&img, what);
            panic!("{what}: page luminance stayed at {l:.2}");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn theme_menu_switches_dark_mode_live_and_persists_it() {
    if !can_run("theme_menu") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let dir = scratch("menu");
    let app = launch(dir.clone(), &["--mcp-port", "0", &server.url("/page.html")], None);
    let (img, b) = wait_for_block(&app, "menu-start");
    let top = check_layout(&img, b);
    assert!(page_luma(&img, top) > 0.8);
    xdo(&["windowfocus", "--sync", &app.window]);
    let file = dir.join("config/aperture/settings.json");
    let saved = |mode: &str| {
        let t = Instant::now();
        loop {
            let s = std::fs::read_to_string(&file).unwrap_or_default();
            if s.contains(&format!("\"127.0.0.1\": \"{mode}\"")) {
                return;
            }
            assert!(t.elapsed() < Duration::from_secs(5), "{mode} was not saved: {s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };

    pick_theme(&app, top, 1); // Auto -> On
    wait_luma(&app, top, |l| l < 0.35, "menu-on");
    saved("on");
    pick_theme(&app, top, 1); // On -> Off: the same document goes back to its own colours.
    wait_luma(&app, top, |l| l > 0.8, "menu-off");
    saved("off");
}

/// Captures until a block of `colour` shows anywhere in the page area, or panics.
fn wait_for(app: &App, colour: [u8; 3], top: u32, what: &str) -> image::RgbImage {
    let t = Instant::now();
    loop {
        let img = capture(app);
        if bbox(&img, colour, 25, top..img.height()).is_some_and(|b| b.2 - b.0 > 50) {
            keep(&img, what);
            return img;
        }
        if t.elapsed() > Duration::from_secs(20) {
            keep(&img, what);
            panic!("{what}: never saw {colour:?} in the page");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn click_at(app: &App, x: u32, y: u32) {
    xdo(&[
        "mousemove",
        "--window",
        &app.window,
        &x.to_string(),
        &y.to_string(),
    ]);
    std::thread::sleep(Duration::from_millis(150));
    xdo(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(150));
}

#[test]
fn human_mouse_and_keys_reach_the_page_and_popups_open_as_tabs() {
    if !can_run("human_input") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let app = launch(
        scratch("input"),
        &["--mcp-port", "0", &server.url("/page.html")],
        None,
    );
    let (img, b) = wait_for_block(&app, "input-start");
    let top = check_layout(&img, b);
    xdo(&["windowfocus", "--sync", &app.window]);

    // A click on the button (CSS 40,360 + ~50,15) is a trusted click in the page.
    click_at(&app, 90, top + 375);
    wait_for(&app, GREEN, top, "input-clicked");

    // Focus the text field with the mouse and type with the X keyboard.
    click_at(&app, 140, top + 435);
    xdo(&["type", "--delay", "40", "hi"]);
    wait_for(&app, BLUE, top, "input-typed");

    // target=_blank opens a tab (not a window) and brings it to the front.
    click_at(&app, 80, top + 490);
    let img = wait_for(&app, YELLOW, top, "input-popup");
    assert!(
        bbox(&img, MAGENTA, 30, top..img.height()).is_none(),
        "the opener still shows instead of the popup tab"
    );
    // Ctrl+W closes it and the opener comes back, with the state the human left it in.
    xdo(&["key", "--clearmodifiers", "ctrl+w"]);
    let img = wait_for(&app, MAGENTA, top, "input-closed-popup");
    assert!(
        bbox(&img, BLUE, 25, top..img.height()).is_some(),
        "the opener lost its state"
    );
    assert!(
        bbox(&img, YELLOW, 25, top..img.height()).is_none(),
        "the popup is still shown"
    );

    // Ctrl+T: a new tab (in the default container) with the omnibox focused for typing.
    xdo(&["key", "--clearmodifiers", "ctrl+t"]);
    std::thread::sleep(Duration::from_millis(1500));
    xdo(&["type", "--delay", "15", &server.url("/popup.html")]);
    xdo(&["key", "Return"]);
    let img = wait_for(&app, YELLOW, top, "input-new-tab");
    assert!(
        bbox(&img, MAGENTA, 30, top..img.height()).is_none(),
        "the new tab is not in front"
    );
}

// ---------------------------------------------------------------------------------------------
// Take over: the human presses the button in the toolbar; the agent's input is refused.

/// Clicks the centre of the toolbar button drawn in `colour` (below the tab strip, whose
/// agent/human pills share the colours).
fn click_button(app: &App, colour: [u8; 3], what: &str) {
    let t = Instant::now();
    loop {
        let img = capture(app);
        if let Some((x0, y0, x1, y1)) = bbox(&img, colour, 12, 40..90)
            && x1 - x0 > 30
        {
            keep(&img, what);
            let (x, y) = ((x0 + x1) / 2, (y0 + y1) / 2);
            xdo(&[
                "mousemove",
                "--window",
                &app.window,
                &x.to_string(),
                &y.to_string(),
            ]);
            std::thread::sleep(Duration::from_millis(200));
            xdo(&["click", "1"]);
            return;
        }
        if t.elapsed() > Duration::from_secs(30) {
            keep(&img, what);
            panic!("no {what} button in the toolbar");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

// The guard serialises whole tests (one window on the display at a time); no other task of
// this test takes it, so holding it across awaits cannot deadlock.
#[allow(clippy::await_holding_lock)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn take_over_refuses_the_agent_until_hand_back() {
    if !can_run("take_over") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = fixture();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let app = launch(
        scratch("takeover"),
        &["--mcp-port", &port.to_string(), "--allow-host", "127.0.0.1"],
        None,
    );
    // The windowed browser writes the same mcp.json as headless, into its own config dir.
    let endpoint =
        aperture_testkit::wait_endpoint(&app.scratch.join("config"), Duration::from_secs(60)).await;
    assert_eq!(endpoint.url, format!("http://127.0.0.1:{port}/mcp"));
    let c = aperture_testkit::mcp::connect(&endpoint.url, &endpoint.token).await;

    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/page.html")}),
    )
    .await;
    let snap = text(&r);
    assert_ne!(r.is_error, Some(true), "{snap}");
    let id = aperture_testkit::mcp::opened_tab(&snap);
    let press = role_ref(&snap, "button", "Press me");
    let r = call(&c, "browser_tabs", json!({"action": "select", "tab": id})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));

    // The agent's tab is in front with its Take over button; the human presses it.
    let win = app.window.clone();
    let app = tokio::task::spawn_blocking(move || {
        let _ = win;
        click_button(&app, AGENT_ORANGE, "take-over");
        app
    })
    .await
    .unwrap();
    let t = Instant::now();
    loop {
        let r = call(&c, "browser_tabs", json!({"action": "list"})).await;
        if text(&r).contains("human is using it") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "take over not reported: {}",
            text(&r)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let r = call(
        &c,
        "browser_act",
        json!({"tab": id, "action": "click", "ref": press}),
    )
    .await;
    let refused = text(&r);
    assert_eq!(
        r.is_error,
        Some(true),
        "the agent's click went through: {refused}"
    );
    assert!(refused.contains("human"), "the refusal should say why: {refused}");
    let r = call(&c, "browser_navigate", json!({"tab": id, "action": "reload"})).await;
    assert_eq!(
        r.is_error,
        Some(true),
        "the agent's reload went through: {}",
        text(&r)
    );

    // Hand back: the agent may act again.
    let app = tokio::task::spawn_blocking(move || {
        click_button(&app, HUMAN_GREEN, "hand-back");
        app
    })
    .await
    .unwrap();
    let t = Instant::now();
    loop {
        let r = call(&c, "browser_tabs", json!({"action": "list"})).await;
        if !text(&r).contains("human is using it") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "hand back not reported: {}",
            text(&r)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let r = call(
        &c,
        "browser_act",
        json!({"tab": id, "action": "click", "ref": press}),
    )
    .await;
    assert_ne!(
        r.is_error,
        Some(true),
        "after hand back the click should work: {}",
        text(&r)
    );
    let r = call(&c, "browser_read", json!({"tab": id})).await;
    assert!(text(&r).contains("Pressed"), "{}", text(&r));
    let _ = c.cancel().await;
    drop(app);
}

/// Ends a run but keeps its profile for the next launch (a restart test).
fn end_keeping_profile(mut app: App, crash: bool) {
    if crash {
        let _ = app.child.kill(); // SIGKILL: no chance to write anything on the way out.
        let _ = app.child.wait();
    } else {
        assert!(app.terminate().success(), "a clean quit");
    }
    for p in common::tagged_pids(&app.tag) {
        let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
    }
    // Not dropped: Drop would delete the profile the next run restores from.
    std::mem::forget(app);
}

fn session_tabs(dir: &Path) -> serde_json::Value {
    let p = dir.join("profile/session.json");
    serde_json::from_slice(&std::fs::read(&p).unwrap_or_default()).unwrap_or(serde_json::Value::Null)
}

#[test]
fn tabs_come_back_after_a_quit_and_after_a_crash() {
    if !can_run("tabs_come_back") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = fixture();
    let dir = scratch("session");
    let (page, popup) = (s.url("/page.html"), s.url("/popup.html"));

    // Run 1: the human's page, then a second tab handed over by another launch (as a click
    // on a link in another app would), which comes to the front.
    let app = launch(dir.clone(), &[page.as_str()], None);
    wait_for(&app, MAGENTA, 90, "session run 1 page");
    let second = aperture_testkit::browser_command(common::exe())
        .arg("--profile")
        .arg(dir.join("profile"))
        .arg(&popup)
        .env(cef_sys_build::ENV_DIR, common::cef_dir())
        .output()
        .expect("second launch");
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    wait_for(&app, YELLOW, 90, "session run 1 second tab");
    std::thread::sleep(Duration::from_millis(1500)); // the session write is debounced
    end_keeping_profile(app, false);
    let saved = session_tabs(&dir);
    assert_eq!(saved["clean_exit"], true, "{saved}");
    let urls: Vec<&str> = saved["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls, vec![page.as_str(), popup.as_str()], "{saved}");
    assert_eq!(saved["active"], 1, "{saved}");

    // Run 2, no URL: both tabs are back, the front one (the yellow page) loaded and shown,
    // the other not loaded until shown (lazy).
    let hits_before = s.requests().iter().filter(|p| *p == "/page.html").count();
    let app = launch(dir.clone(), &[], None);
    wait_for(&app, YELLOW, 90, "session run 2 front tab");
    std::thread::sleep(Duration::from_millis(1500));
    let hits_after = s.requests().iter().filter(|p| *p == "/page.html").count();
    assert_eq!(
        hits_before, hits_after,
        "the background tab must not load at start"
    );
    let saved = session_tabs(&dir);
    assert_eq!(saved["clean_exit"], false, "running: not clean yet: {saved}");
    assert_eq!(saved["tabs"].as_array().map(|a| a.len()), Some(2), "{saved}");

    // A crash (SIGKILL) loses nothing: run 3 offers the same tabs rather than restoring them
    // by itself (restore_offer.rs answers the offer), and keeps them in the file meanwhile.
    end_keeping_profile(app, true);
    let app = launch(dir.clone(), &[], None);
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(4) {
        let img = capture(&app);
        assert!(
            bbox(&img, YELLOW, 25, 0..img.height()).is_none_or(|b| b.2 - b.0 < 50),
            "run 3 restored the crashed session without asking"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let saved = session_tabs(&dir);
    let urls: Vec<&str> = saved["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["url"].as_str().unwrap())
        .collect();
    assert_eq!(&urls[..2], [page.as_str(), popup.as_str()], "{saved}");
    drop(app);
}

/// A page whose block is magenta at 100 % and yellow once the page is zoomed in (browser zoom
/// changes `devicePixelRatio`, and the page hears about it as a resize).
const ZOOMED: &str = r#"<!doctype html><html><head><title>Zoom probe</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px"></div>
<script>
function paint() {
  document.getElementById("b").style.background =
    devicePixelRatio > 1.05 ? "rgb(250,210,0)" : "rgb(230,20,140)";
}
addEventListener("resize", paint); paint(); setInterval(paint, 200);
</script></body></html>"#;

#[test]
fn ctrl_d_bookmarks_and_ctrl_plus_zoom_is_remembered_per_site_across_a_restart() {
    if !can_run("bookmarks_and_zoom") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = Server::start(
        HashMap::from([("/zoom.html".to_string(), ZOOMED.to_string())]),
        None,
    );
    let dir = scratch("memory");
    let page = s.url("/zoom.html");

    let app = launch(dir.clone(), &["--mcp-port", "0", page.as_str()], None);
    wait_for(&app, MAGENTA, 90, "zoom probe at 100 %");
    xdo(&["windowfocus", "--sync", &app.window]);
    std::thread::sleep(Duration::from_millis(300));
    xdo(&["key", "--clearmodifiers", "ctrl+d"]);
    std::thread::sleep(Duration::from_millis(300));
    xdo(&["key", "--clearmodifiers", "ctrl+equal"]);
    wait_for(&app, YELLOW, 90, "zoomed in with ctrl+=");
    std::thread::sleep(Duration::from_millis(1000));
    end_keeping_profile(app, false);

    let places = aperture_places::Places::open(&dir.join("profile")).expect("places.sqlite");
    assert!(
        places.is_bookmarked(&page).unwrap().is_some(),
        "ctrl+d did not bookmark {page}"
    );
    // On the bookmarks bar, as Chrome's star puts it, so the bar shows it.
    let tree = places.tree().unwrap();
    assert!(
        tree[0].children().iter().any(|b| b.url() == Some(page.as_str())),
        "not on the bar: {tree:?}"
    );
    let zoom = places.zoom_for("127.0.0.1").unwrap();
    assert!(
        zoom.is_some_and(|z| z > 100.0),
        "the zoom was not remembered: {zoom:?}"
    );
    let visits = places.search("zoom.html", None, 10, 0).unwrap();
    assert!(!visits.is_empty(), "the visit was not in history");
    drop(places);

    // Run 2: the site's zoom is applied when the page loads again.
    let app = launch(dir.clone(), &["--mcp-port", "0", page.as_str()], None);
    wait_for(&app, YELLOW, 90, "remembered zoom after a restart");
    // Ctrl+0 resets it, and the reset is remembered too.
    xdo(&["windowfocus", "--sync", &app.window]);
    std::thread::sleep(Duration::from_millis(300));
    xdo(&["key", "--clearmodifiers", "ctrl+0"]);
    wait_for(&app, MAGENTA, 90, "zoom reset with ctrl+0");
    std::thread::sleep(Duration::from_millis(1000));
    end_keeping_profile(app, false);
    let places = aperture_places::Places::open(&dir.join("profile")).expect("places.sqlite");
    assert_eq!(places.zoom_for("127.0.0.1").unwrap(), None);
    drop(places);
    // The last run kept its profile to be read; nothing reads it now.
    let _ = std::fs::remove_dir_all(&dir);
}

/// A page that asks for the location on load: magenta while asking, blue once refused.
const GEO: &str = r#"<!doctype html><html><head><title>Geo</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px;background:rgb(230,20,140)"></div>
<script>
navigator.geolocation.getCurrentPosition(
  () => { document.getElementById("b").style.background = "rgb(20,200,60)"; },
  (e) => { document.getElementById("b").style.background = e.code == 1 ? "rgb(30,60,220)" : "rgb(250,210,0)"; });
</script></body></html>"#;

#[test]
fn a_permission_answer_is_remembered_for_the_site_across_a_restart() {
    if !can_run("permission_memory") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = Server::start(HashMap::from([("/geo.html".to_string(), GEO.to_string())]), None);
    let dir = scratch("permissions");
    let page = s.url("/geo.html");

    // Run 1: the prompt waits for the human (the page stays magenta); Block answers it.
    let app = launch(dir.clone(), &["--mcp-port", "0", page.as_str()], None);
    let img = wait_for(&app, MAGENTA, 60, "asking for the location");
    let b = bbox(&img, MAGENTA, 30, 60..img.height()).expect("the block");
    let top = b.1 - 40;
    std::thread::sleep(Duration::from_millis(1500));
    let still = capture(&app);
    assert!(
        bbox(&still, MAGENTA, 30, top..still.height()).is_some(),
        "nobody answered yet, so the page must still be waiting"
    );
    // Escape dismisses the bubble: the page is refused, and nothing is remembered, so after
    // a reload the site asks again.
    xdo(&["windowfocus", "--sync", &app.window]);
    std::thread::sleep(Duration::from_millis(300));
    xdo(&["key", "Escape"]);
    wait_for(&app, BLUE, top, "the page told Escape refused the location");
    let saved = std::fs::read_to_string(dir.join("profile/permissions.json")).unwrap_or_default();
    assert!(
        !saved.contains("know your location"),
        "a dismissal was remembered: {saved}"
    );
    xdo(&["key", "F5"]);
    wait_for(&app, MAGENTA, top, "asking again after a reload");
    std::thread::sleep(Duration::from_millis(1500));
    let still = capture(&app);
    assert!(
        bbox(&still, MAGENTA, 30, top..still.height()).is_some(),
        "the site was answered without asking after a dismissal"
    );
    // The bubble hangs under the omnibox: Block is its left button.
    click_at(&app, 328, top + 67);
    wait_for(&app, BLUE, top, "the page told the location was refused");
    std::thread::sleep(Duration::from_millis(500));
    end_keeping_profile(app, false);
    let saved = std::fs::read_to_string(dir.join("profile/permissions.json")).expect("permissions.json");
    assert!(
        saved.contains("know your location") && saved.contains("\"allow\": false"),
        "{saved}"
    );

    // Run 2: the same site asks again and is answered from memory, with nobody clicking.
    let app = launch(dir.clone(), &["--mcp-port", "0", page.as_str()], None);
    wait_for(&app, BLUE, top, "refused from memory after a restart");
    drop(app);
}
