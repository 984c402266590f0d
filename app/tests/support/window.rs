//! The real windowed browser under X (Xvfb in CI) for the browser-memory tests: launched on a
//! profile that outlives it (restarts, crashes), driven with real X input (xdotool), read
//! back with ImageMagick's `import`. Where a chrome control is drawn is asked of the same
//! `aperture_ui::Chrome` run headless at the window's size ([`Layout`]).

#![allow(dead_code)]

use aperture_ui::egui::{self, Event, PointerButton, Pos2, RawInput, Rect, vec2};
use aperture_ui::{Chrome, ChromeModel, ContainerInfo, Rgb, TabId, TabView};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether the display and tools are here; `false` means "skip" (never under REQUIRE).
pub fn can_run(test: &str) -> bool {
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

/// A scratch directory (profile, config, logs) removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("aperture-memory-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    pub fn profile(&self) -> PathBuf {
        self.0.join("profile")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub struct App {
    pub child: Child,
    pub tag: String,
    pub dir: PathBuf,
    pub window: String,
    run: usize,
}

impl App {
    /// Starts the windowed browser on `dir`'s profile (`args`: more flags, a URL) and waits
    /// for its window. `run` numbers the logs of successive runs.
    pub fn launch(dir: &Path, run: usize, args: &[&str]) -> App {
        let tag = format!(
            "aperture-memory-{}-{}",
            std::process::id(),
            aperture_testkit::unique_tag("w")
        );
        let log = std::fs::File::create(dir.join(format!("stderr-{run}.log"))).unwrap();
        let mut child = aperture_testkit::browser_command(env!("CARGO_BIN_EXE_aperture"))
            .arg("--profile")
            .arg(dir.join("profile"))
            .args(["--mcp-port", "0"])
            .args(args)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("APERTURE_TEST_TAG", &tag)
            .env("APERTURE_COLOR_SCHEME", "light")
            .env("APERTURE_LOG", "warn,aperture::settings_glue=info")
            .env(cef_sys_build::ENV_DIR, aperture_testkit::cef_dir())
            .stdout(std::fs::File::create(dir.join(format!("stdout-{run}.log"))).unwrap())
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
                // Chromium's own log says why it would not start (the profile still locked by
                // the run before, a process it could not launch); the profile goes with the test.
                let cef = std::fs::read_to_string(dir.join("profile").join("cef.log")).unwrap_or_default();
                let tail: Vec<&str> = cef.lines().filter(|l| !l.contains("bus.cc")).collect();
                panic!(
                    "aperture exited ({s}) before opening its window; stderr:\n{}\ncef.log (last lines):\n{}",
                    std::fs::read_to_string(dir.join(format!("stderr-{run}.log"))).unwrap_or_default(),
                    tail[tail.len().saturating_sub(30)..].join("\n")
                );
            }
            assert!(t.elapsed() < Duration::from_secs(60), "no window within 60 s");
            std::thread::sleep(Duration::from_millis(200));
        };
        App {
            child,
            tag,
            dir: dir.to_path_buf(),
            window,
            run,
        }
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join(format!("stderr-{}.log", self.run))).unwrap_or_default()
    }

    /// SIGTERM (a requested quit), then waits up to 30 s (a clean quit saves the session and
    /// runs CEF's shutdown, slow on a loaded machine); kills it if it hangs.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
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

    /// `kill -9` of the browser and every process it started: a crash, nothing saved on the
    /// way out.
    pub fn crash(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.reap();
    }

    fn reap(&self) {
        let t = Instant::now();
        loop {
            let left = aperture_testkit::tagged_pids(&self.tag);
            if left.is_empty() || t.elapsed() > Duration::from_secs(10) {
                break;
            }
            for p in left {
                let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The window's inner size.
    pub fn size(&self) -> (f32, f32) {
        size_of(&self.window)
    }

    pub fn capture(&self) -> image::RgbImage {
        capture(&self.window)
    }

    /// Waits until the page shows a block of `colour` (at least 250×150 pixels).
    pub fn wait_for(&self, colour: [u8; 3], what: &str) {
        let t = Instant::now();
        loop {
            let img = self.capture();
            if block(&img, colour).is_some_and(|(w, h)| w >= 250 && h >= 150) {
                keep(&img, what);
                return;
            }
            if t.elapsed() > Duration::from_secs(45) {
                keep(&img, what);
                panic!("{what}: never saw {colour:?}; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Asserts that for `secs` the window never shows a block of `colour`.
    pub fn never(&self, colour: [u8; 3], secs: u64, what: &str) {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(secs) {
            let img = self.capture();
            if block(&img, colour).is_some_and(|(w, h)| w >= 250 && h >= 150) {
                keep(&img, what);
                panic!("{what}: {colour:?} showed");
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Focuses the window and sends a key chord with real X input.
    pub fn key(&self, chord: &str) {
        xdo(&["windowfocus", "--sync", &self.window]);
        std::thread::sleep(Duration::from_millis(200));
        xdo(&["key", "--clearmodifiers", chord]);
        std::thread::sleep(Duration::from_millis(400));
    }

    /// Types text where the keyboard focus is.
    pub fn type_text(&self, text: &str) {
        xdo(&["type", "--delay", "15", text]);
    }

    /// A real click (`button` 1 left, 2 middle) at window coordinates.
    pub fn click(&self, at: Pos2, button: u8) {
        click(&self.window, at, button);
    }

    /// Ctrl+T, `url`, Enter: a page in a new tab, as a person opens one. The omnibox is
    /// waited for in the window after Ctrl+T (the new tab's, empty and focused) and after the
    /// typing: on a loaded machine the window can lag the keys by seconds, and text typed
    /// before the new tab's omnibox has the keyboard goes elsewhere.
    pub fn open_new_tab(&self, url: &str) {
        let omnibox = Layout::new(self.size(), Layout::one_tab(""))
            .chrome
            .control_rect(aperture_ui::chrome::controls::OMNIBOX)
            .expect("an omnibox");
        let before = self.capture();
        self.key("ctrl+t");
        self.wait_changed(omnibox, &before, "the new tab's omnibox");
        let focused = self.capture();
        self.type_text(url);
        self.wait_changed(omnibox, &focused, "the typed address");
        xdo(&["key", "Return"]);
    }

    /// Waits (up to 30 s) until the window's pixels in `r` clearly differ from `before`'s (a
    /// capture taken before the key or click that changes them).
    pub fn wait_changed(&self, r: Rect, before: &image::RgbImage, what: &str) {
        if let Err(n) = changed_within(&self.window, r, before, what) {
            panic!(
                "{what}: the window never changed there ({n} pixels); stderr:\n{}",
                self.stderr()
            );
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.terminate();
        self.reap();
    }
}

pub fn xdo(args: &[&str]) {
    // `windowfocus --sync` waits for the focus forever if it never comes.
    let s = Command::new("timeout")
        .arg("20")
        .arg("xdotool")
        .args(args)
        .status()
        .expect("xdotool");
    assert!(s.success(), "xdotool {args:?} failed");
}

/// Keeps a capture for a human under `APERTURE_HEADED_KEEP`.
pub fn keep(img: &image::RgbImage, name: &str) {
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

/// The middle of the bounding box of the pixels near `c` (a page's block of that colour), in
/// window coordinates, if any: where a real click on it goes.
pub fn centre(img: &image::RgbImage, c: [u8; 3]) -> Option<Pos2> {
    region(img, c, 20, 0..img.height())
        .map(|(x0, y0, x1, y1)| Pos2::new((x0 + x1) as f32 / 2.0, (y0 + y1) as f32 / 2.0))
}

/// The size of the bounding box of the pixels near `c`, if any.
pub fn block(img: &image::RgbImage, c: [u8; 3]) -> Option<(u32, u32)> {
    region(img, c, 20, 0..img.height()).map(|(x0, y0, x1, y1)| (x1 - x0 + 1, y1 - y0 + 1))
}

/// The bounding box `(x0, y0, x1, y1)` of the pixels within `tol` of `c` in `rows`.
pub fn region(
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

/// Waits until `session.json` of `profile` satisfies `ok`; answers its text.
pub fn wait_session(profile: &Path, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let t = Instant::now();
    loop {
        let s = std::fs::read_to_string(profile.join("session.json")).unwrap_or_default();
        if ok(&s) {
            return s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{what}: session.json is {s}"
        );
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// The chrome, headless at the window's size, to learn where its controls are drawn.
pub struct Layout {
    ctx: egui::Context,
    pub chrome: Chrome,
    pub model: ChromeModel,
    size: (f32, f32),
    time: f64,
}

impl Layout {
    pub fn new(size: (f32, f32), model: ChromeModel) -> Layout {
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

    /// One tab of `url` in a Personal container: what the window shows at start.
    pub fn one_tab(url: &str) -> ChromeModel {
        let personal = ContainerInfo {
            id: "personal".into(),
            name: "Personal".into(),
            colour: Rgb(0x37, 0x7d, 0xf0),
            private: false,
        };
        ChromeModel {
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
        }
    }

    pub fn frames(&mut self, events: Vec<Event>, n: usize) {
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
            out.textures_delta.clear();
        }
    }

    /// Ctrl+`k` here too (a shortcut that opens a panel the window also opened).
    pub fn ctrl(&mut self, k: egui::Key) {
        let ev = |pressed| Event::Key {
            key: k,
            physical_key: Some(k),
            pressed,
            repeat: false,
            modifiers: egui::Modifiers::COMMAND,
        };
        self.frames(vec![ev(true), ev(false)], 3);
    }

    /// A right click at `at` here too (a menu the window opened at the same place).
    pub fn right_click_at(&mut self, at: Pos2) {
        self.frames(vec![Event::PointerMoved(at)], 1);
        for pressed in [true, false] {
            self.frames(
                vec![Event::PointerButton {
                    pos: at,
                    button: PointerButton::Secondary,
                    pressed,
                    modifiers: egui::Modifiers::NONE,
                }],
                1,
            );
        }
        self.frames(vec![], 2);
    }

    /// Where `name` is drawn (after clicking it here too, so the layout follows the window).
    pub fn click(&mut self, name: &str) -> Pos2 {
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
                    modifiers: egui::Modifiers::NONE,
                }],
                1,
            );
        }
        self.frames(vec![], 2);
        at
    }
}

/// X window `window`'s inner size.
pub fn size_of(window: &str) -> (f32, f32) {
    let out = Command::new("xdotool")
        .args(["getwindowgeometry", window])
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

/// X window `window`'s pixels, as the X server has them. `import` can wait forever on a busy X
/// server; a capture that hangs is a failure.
pub fn capture(window: &str) -> image::RgbImage {
    let out = Command::new("timeout")
        .args(["20", "import", "-window", window, "png:-"])
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

/// A real click (`button` 1 left, 2 middle) at window coordinates of X window `window`.
/// Moves the pointer to `at` in `window`.
pub fn hover(window: &str, at: Pos2) {
    xdo(&[
        "mousemove",
        "--window",
        window,
        &(at.x.round() as i32).to_string(),
        &(at.y.round() as i32).to_string(),
    ]);
}

pub fn click(window: &str, at: Pos2, button: u8) {
    hover(window, at);
    std::thread::sleep(Duration::from_millis(150));
    xdo(&["click", &button.to_string()]);
    std::thread::sleep(Duration::from_millis(400));
}

/// The first visible window of any of `pids` (asked again while waiting: a browser launched
/// by a harness is found by its processes), waiting up to `timeout`.
pub fn window_of(pids: impl Fn() -> Vec<u32>, timeout: Duration) -> String {
    let t = Instant::now();
    loop {
        for pid in pids() {
            let out = Command::new("xdotool")
                .args(["search", "--onlyvisible", "--pid", &pid.to_string()])
                .output()
                .expect("xdotool");
            if let Some(w) = String::from_utf8_lossy(&out.stdout).lines().next() {
                return w.to_string();
            }
        }
        assert!(t.elapsed() < timeout, "no window within {timeout:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A windowed browser showing `url` at 1000x700 on a fresh profile under `dir`, its agent
/// client, its X window and the window's size, once `colour` (a block at least 250x120 px on
/// the page) has painted.
pub async fn start_showing(
    url: &str,
    dir: &Path,
    colour: [u8; 3],
) -> (
    aperture_testkit::McpBrowser,
    aperture_testkit::mcp::Client,
    String,
    (f32, f32),
) {
    start_showing_in(url, dir, colour, &[]).await
}

/// [`start_showing`] with more command-line arguments (`--container Work`).
pub async fn start_showing_in(
    url: &str,
    dir: &Path,
    colour: [u8; 3],
    args: &[&str],
) -> (
    aperture_testkit::McpBrowser,
    aperture_testkit::mcp::Client,
    String,
    (f32, f32),
) {
    start_showing_env(url, dir, colour, args, &[]).await
}

/// [`start_showing_in`] with environment variables for the browser (`PATH`).
pub async fn start_showing_env(
    url: &str,
    dir: &Path,
    colour: [u8; 3],
    args: &[&str],
    env: &[(&str, &str)],
) -> (
    aperture_testkit::McpBrowser,
    aperture_testkit::mcp::Client,
    String,
    (f32, f32),
) {
    let mut launch = aperture_testkit::Launch::new(env!("CARGO_BIN_EXE_aperture"));
    for (k, v) in env {
        launch = launch.env(k, v);
    }
    let b = launch
        .windowed()
        .args(["--size", "1000x700"])
        .args(args.iter().copied())
        .arg(url)
        .profile(dir.join("profile"))
        .start()
        .await;
    let c = b.connect().await;
    let w = window_of(|| b.pids(), Duration::from_secs(60));
    let win = w.clone();
    let size = tokio::task::spawn_blocking(move || {
        aperture_testkit::eventually_blocking(Duration::from_secs(45), "the page to paint", || {
            let img = capture(&win);
            let shown = block(&img, colour).is_some_and(|(w, h)| w >= 250 && h >= 120);
            (shown, ())
        });
        size_of(&win)
    })
    .await
    .unwrap();
    (b, c, w, size)
}

/// The agent's tab list, once `ok` holds for its text (up to 30 s).
pub async fn tabs_until(c: &aperture_testkit::mcp::Client, what: &str, ok: impl Fn(&str) -> bool) -> String {
    use aperture_testkit::mcp::{call, text};
    aperture_testkit::eventually(Duration::from_secs(30), what, async || {
        let t = text(&call(c, "browser_tabs", serde_json::json!({"action": "list"})).await);
        (ok(&t), t)
    })
    .await
}

/// The lines of a tab list that are tabs (one each; titles and URLs are in envelopes).
pub fn tab_lines(list: &str) -> Vec<&str> {
    list.lines().filter(|l| l.starts_with("tab ")).collect()
}

/// The id of the first tab in a tab list (`tab 3 (…)`).
pub fn first_tab_id(list: &str) -> u64 {
    tab_lines(list)
        .first()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tab id in {list}"))
}

/// A stand-in for the desktop's opener (`xdg-open`) in `dir/bin`, which writes each argument it
/// is given as a line of `dir/opened`: the `PATH` to launch the browser with, and that file.
pub fn stand_in_opener(dir: &Path) -> (String, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opened = dir.join("opened");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    (path, opened)
}

/// Where the permission bubble's Allow and Block buttons are in a one-tab window of `url` at
/// `size`, while the page's site (`origin`, `host:port`) asks for `kinds` (worded as the bubble
/// words them).
#[allow(dead_code)] // not every test that includes this module asks for a permission
pub fn permission_buttons(size: (f32, f32), url: &str, origin: &str, kinds: &[&str]) -> (Pos2, Pos2) {
    let mut model = Layout::one_tab(url);
    model.permission = Some(aperture_ui::PermissionView {
        tab: TabId(1),
        id: 1,
        origin: origin.to_string(),
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
    });
    let layout = Layout::new(size, model);
    let at = |name: &str| {
        layout
            .chrome
            .control_rect(name)
            .unwrap_or_else(|| panic!("no {name}"))
            .center()
    };
    (
        at(aperture_ui::chrome::controls::PERMISSION_ALLOW),
        at(aperture_ui::chrome::controls::PERMISSION_BLOCK),
    )
}

/// Which of `words` (boxes in CSS px on the page, whose top-left is at `page` in the window)
/// spellcheck underlines in red in `img`.
pub fn spell_marks(img: &image::RgbImage, page: Pos2, words: &[Rect]) -> Vec<bool> {
    words
        .iter()
        .map(|word| {
            let (x0, x1) = ((page.x + word.min.x) as u32, (page.x + word.max.x) as u32);
            let (y0, y1) = (
                (page.y + word.center().y) as u32,
                (page.y + word.max.y + 4.0) as u32,
            );
            (y0..y1.min(img.height()))
                .flat_map(|y| (x0..x1.min(img.width())).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    let p = img.get_pixel(x, y).0;
                    p[0] > 180 && p[1] < 100 && p[2] < 100
                })
                .count()
                >= 6
        })
        .collect()
}

/// Waits (up to 20 s) until the window's red spelling marks under `words` are `want`; keeps
/// the last capture as `what`.
pub async fn wait_spell_marks(w: &str, page: Pos2, words: &[Rect], want: &[bool], what: &str) {
    let (win, words, want, name) = (
        w.to_string(),
        words.to_vec(),
        want.to_vec(),
        what.replace(' ', "-"),
    );
    tokio::task::spawn_blocking(move || {
        aperture_testkit::eventually_blocking(Duration::from_secs(20), "the red underlines", || {
            let img = capture(&win);
            let marks = spell_marks(&img, page, &words);
            keep(&img, &name);
            (marks == want, marks)
        })
    })
    .await
    .unwrap();
}

/// How many pixels inside `r` are dark (every channel under 120): the words and buttons of a
/// bar drawn there, or none when it is not.
pub fn dark_pixels(img: &image::RgbImage, r: Rect) -> usize {
    let mut n = 0;
    for y in r.min.y.max(0.0) as u32..(r.max.y as u32).min(img.height()) {
        for x in r.min.x.max(0.0) as u32..(r.max.x as u32).min(img.width()) {
            if img.get_pixel(x, y).0.iter().all(|c| *c < 120) {
                n += 1;
            }
        }
    }
    n
}

/// How many pixels inside `r` clearly differ between two captures of a window.
pub fn changed_pixels(a: &image::RgbImage, b: &image::RgbImage, r: Rect) -> usize {
    let (w, h) = (a.width().min(b.width()), a.height().min(b.height()));
    let mut n = 0;
    for y in r.min.y.max(0.0) as u32..(r.max.y as u32).min(h) {
        for x in r.min.x.max(0.0) as u32..(r.max.x as u32).min(w) {
            let (p, q) = (a.get_pixel(x, y).0, b.get_pixel(x, y).0);
            if p.iter().zip(q).any(|(u, v)| u.abs_diff(v) > 40) {
                n += 1;
            }
        }
    }
    n
}

/// Waits (up to 30 s) until `window`'s pixels in `r` clearly differ from `before`'s (a
/// capture taken before the key or click that changes them); `Err` with the pixels changed
/// when they never do (the last capture kept as `what`).
fn changed_within(window: &str, r: Rect, before: &image::RgbImage, what: &str) -> Result<(), usize> {
    let t = Instant::now();
    loop {
        let img = capture(window);
        let n = changed_pixels(&img, before, r);
        if n >= 20 {
            return Ok(());
        }
        if t.elapsed() > Duration::from_secs(30) {
            keep(&img, what);
            return Err(n);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// [`App::wait_changed`] for a window the test did not launch with [`App`]: waits until the
/// chrome has drawn what changes `r` (a menu, a settings panel), so a click there lands on it
/// even when the window lags its input.
pub fn wait_drawn(window: &str, r: Rect, before: &image::RgbImage, what: &str) {
    if let Err(n) = changed_within(window, r, before, what) {
        panic!("{what}: the window never drew it ({n} pixels changed)");
    }
}
