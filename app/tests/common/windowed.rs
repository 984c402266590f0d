//! Windowed tests' shared X helpers: whether the test can run (a display, xdotool and
//! ImageMagick's `import`), finding a process's window, capturing it, finding a colour in it
//! and clicking in it with real X input. New windowed tests use these rather than their own
//! copies.

// Each test binary uses some of these.
#![allow(dead_code)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether a windowed test can run here. Missing tools skip it with a line on stderr, unless
/// `APERTURE_UI_REQUIRE=1` (CI) makes that a failure.
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

/// Runs xdotool; panics when it fails.
pub fn xdo(args: &[&str]) {
    let s = Command::new("xdotool").args(args).status().expect("xdotool");
    assert!(s.success(), "xdotool {args:?} failed");
}

/// The first visible window of any of `pids` whose title contains `title` (any title when
/// empty), waiting up to `timeout`.
pub fn window_of(pids: impl Fn() -> Vec<u32>, title: &str, timeout: Duration) -> String {
    let t = Instant::now();
    loop {
        for pid in pids() {
            let out = Command::new("xdotool")
                .args(["search", "--onlyvisible", "--pid", &pid.to_string()])
                .output()
                .expect("xdotool");
            for w in String::from_utf8_lossy(&out.stdout).lines() {
                let name = Command::new("xdotool")
                    .args(["getwindowname", w])
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                    .unwrap_or_default();
                if name.contains(title) {
                    eprintln!("window {w} of pid {pid}: {}", name.trim());
                    return w.to_string();
                }
            }
        }
        assert!(
            t.elapsed() < timeout,
            "no window titled {title:?} within {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The window's pixels, as the X server has them.
pub fn capture(window: &str) -> image::RgbImage {
    let out = Command::new("import")
        .args(["-window", window, "png:-"])
        .output()
        .expect("import");
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::load_from_memory(&out.stdout).expect("png").to_rgb8()
}

/// Keeps a capture for a human to look at after a failure (under target/test-shots).
pub fn keep(img: &image::RgbImage, name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-shots");
    let _ = std::fs::create_dir_all(&dir);
    let _ = img.save(dir.join(format!("{name}.png")));
}

fn near(p: &image::Rgb<u8>, c: [u8; 3], tol: i32) -> bool {
    (0..3).all(|i| (p.0[i] as i32 - c[i] as i32).abs() <= tol)
}

/// The bounding box `(x0, y0, x1, y1)` of the pixels within `tol` of `c`, in rows `rows`.
pub fn bbox(
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

/// Captures until a block of `colour` at least 50 px wide shows, or panics after `secs`.
pub fn wait_for_colour(
    window: &str,
    colour: [u8; 3],
    secs: u64,
    what: &str,
) -> (image::RgbImage, (u32, u32, u32, u32)) {
    let t = Instant::now();
    loop {
        let img = capture(window);
        if let Some(b) = bbox(&img, colour, 25, 0..img.height()).filter(|b| b.2 - b.0 > 50) {
            return (img, b);
        }
        if t.elapsed() > Duration::from_secs(secs) {
            keep(&img, what);
            panic!("{what}: never saw {colour:?} in the window");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A real X click at window coordinates.
pub fn click_at(window: &str, x: u32, y: u32) {
    xdo(&["mousemove", "--window", window, &x.to_string(), &y.to_string()]);
    std::thread::sleep(Duration::from_millis(150));
    xdo(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(150));
}

/// Focuses the window and sends a key chord with real X input (`key --window` is ignored by
/// the window, so the window is focused first).
pub fn key(window: &str, chord: &str) {
    xdo(&["windowfocus", "--sync", window]);
    xdo(&["key", "--clearmodifiers", chord]);
}
