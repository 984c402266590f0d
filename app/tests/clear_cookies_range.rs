//! "Clear browsing data" for a time range deletes the cookies created in it and keeps older
//! ones. The real windowed browser under X: a cookie set in a first run is made two hours old
//! in Chromium's own cookie database between runs; a second cookie is set in the second run;
//! "the last hour" is cleared from the settings view with real clicks, and the page then
//! finds the old cookie and not the new one.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::chrome::{SettingsSection, controls, settings_section_control};
use aperture_ui::egui::Key;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use window::{App, Layout, Scratch};

static SERIAL: Mutex<()> = Mutex::new(());

/// Waits until the window has drawn what the layout shows at control `name`: enough of its
/// rectangle no longer looks as it did in `before`, a capture from before the key or click
/// that brings it up. A click aimed there any earlier lands on whatever was there before (the
/// window is repainted on its own schedule, which on a loaded machine can be seconds).
fn wait_drawn(app: &App, layout: &Layout, before: &image::RgbImage, name: &str) {
    let r = layout
        .chrome
        .control_rect(name)
        .unwrap_or_else(|| panic!("the chrome drew no {name}"));
    window::wait_drawn(&app.window, r, before, &format!("{name} drawn"));
}

const CYAN: [u8; 3] = [0, 200, 200];
const MAGENTA: [u8; 3] = [230, 20, 140];
const ORANGE: [u8; 3] = [255, 120, 0];

/// The block says which cookies the page found: none cyan, the old one magenta, both orange
/// (the new one alone yellow). `?old` / `?new` set that cookie after looking.
const PROBE: &str = r#"<!doctype html><html><head><title>Cookie range probe</title></head><body style="margin:0">
<div id="b" style="position:absolute;left:40px;top:40px;width:300px;height:200px"></div>
<script>
const c = document.cookie, had_old = c.includes("old=1"), had_new = c.includes("new=1");
if (location.search === "?old") document.cookie = "old=1; max-age=86400; path=/";
if (location.search === "?new") document.cookie = "new=1; max-age=86400; path=/";
document.getElementById("b").style.background =
  had_old && had_new ? "rgb(255,120,0)" : had_old ? "rgb(230,20,140)" : had_new ? "rgb(250,210,0)" : "rgb(0,200,200)";
</script></body></html>"#;

/// Every Chromium cookie database under the profile (one per container).
fn cookie_dbs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "Cookies") {
                out.push(p);
            }
        }
    }
    out
}

/// Makes the cookie `name` two hours older in every database that has it; answers how many
/// rows changed.
fn backdate(profile: &Path, name: &str) -> usize {
    const TWO_HOURS_US: i64 = 2 * 3600 * 1_000_000;
    cookie_dbs(profile)
        .iter()
        .map(|db| {
            let c = rusqlite::Connection::open(db).expect("a cookie database");
            c.execute(
                "UPDATE cookies SET creation_utc = creation_utc - ?1, last_access_utc = last_access_utc - ?1
                 WHERE name = ?2",
                rusqlite::params![TWO_HOURS_US, name],
            )
            .expect("backdating")
        })
        .sum()
}

/// The log without its colours.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn clearing_the_last_hour_deletes_the_new_cookie_and_keeps_the_old_one() {
    if !window::can_run("clear_cookies_range") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = Server::start(HashMap::from([("/probe".to_string(), PROBE.to_string())]), None);
    let dir = Scratch::new("cookie-range");
    let (old, new) = (s.url("/probe?old"), s.url("/probe?new"));

    // Run 0: the old cookie, seen by a reload, on disk.
    let mut app = App::launch(&dir.0, 0, &[&old]);
    app.wait_for(CYAN, "range-first-visit");
    app.key("ctrl+r");
    app.wait_for(MAGENTA, "range-old-kept");
    // Chromium writes cookies to its database every 30 s (a quit right away does not).
    std::thread::sleep(Duration::from_secs(32));
    assert!(
        app.terminate().success(),
        "a clean quit; stderr:\n{}",
        app.stderr()
    );
    drop(app);
    assert_eq!(
        backdate(&dir.profile(), "old"),
        1,
        "the old cookie is on disk once: {:?}",
        cookie_dbs(&dir.profile())
            .iter()
            .map(|db| {
                let c = rusqlite::Connection::open(db).unwrap();
                let names: Vec<String> = c
                    .prepare("SELECT name || '@' || host_key FROM cookies")
                    .unwrap()
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                (
                    db.clone(),
                    names,
                    std::fs::read_dir(db.parent().unwrap())
                        .unwrap()
                        .flatten()
                        .map(|e| e.file_name())
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>()
    );

    // Run 1: the new cookie next to it.
    let app = App::launch(&dir.0, 1, &[&new]);
    app.wait_for(MAGENTA, "range-run1-first-load");
    app.key("ctrl+r");
    app.wait_for(ORANGE, "range-both");

    // Settings → Privacy → Clear data, with the defaults: the last hour, every container.
    let mut layout = Layout::new(app.size(), Layout::one_tab(&new));
    let before = app.capture();
    app.key("ctrl+comma");
    layout.ctrl(Key::Comma);
    wait_drawn(&app, &layout, &before, controls::SETTINGS);
    let before = app.capture();
    let privacy = layout.click(&settings_section_control(SettingsSection::Privacy));
    app.click(privacy, 1);
    wait_drawn(&app, &layout, &before, controls::SETTINGS_CLEAR_OK);
    let clear = layout.click(controls::SETTINGS_CLEAR_OK);
    app.click(clear, 1);
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
    assert!(!log.contains("could not clear"), "{log}");
    let plain = strip_ansi(&log);
    assert!(
        plain.lines().any(|l| l.contains("cookies of the range cleared")
            && l.contains("container=Personal")
            && l.contains("deleted=1")),
        "{plain}"
    );

    // The page finds the old cookie and not the new one.
    app.key("Escape");
    app.key("ctrl+r");
    app.wait_for(MAGENTA, "range-old-only");
}
