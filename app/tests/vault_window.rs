//! The vault window in the real browser under X (Xvfb), driven with real X input (xdotool):
//! the toolbar's Vault button opens it as a separate OS window (a second click opens no second
//! one); the passphrase typed there creates the vault; a login added there is what the agent's
//! `vault_entries_for_origin` lists for the page, at once; locking there locks the agent out; a
//! wrong passphrase unlocks nothing. Throughout, `browser_tabs list` shows the same tabs as
//! before the window opened: the window is not a tab and the agent has nothing to address it by.
//!
//! Without `DISPLAY` (or xdotool, or ImageMagick's `import`) it prints why and passes, unless
//! `APERTURE_UI_REQUIRE=1`.

mod common;

use aperture_testkit::mcp::{call, text};
use common::Server;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PASS: &str = "correct horse battery staple";
const PASSWORD: &str = "pw-from-the-window-7";
const MAGENTA: [u8; 3] = [230, 20, 140];

fn can_run() -> bool {
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
        Some(why) if require => panic!("{why}, and APERTURE_UI_REQUIRE=1"),
        Some(why) => {
            eprintln!("skipped: {why} (set APERTURE_UI_REQUIRE=1 to make this a failure)");
            false
        }
    }
}

struct App {
    child: Child,
    tag: String,
    scratch: PathBuf,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        for p in common::tagged_pids(&self.tag) {
            let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
        }
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn xdo(args: &[&str]) {
    let s = Command::new("xdotool").args(args).status().expect("xdotool");
    assert!(s.success(), "xdotool {args:?} failed");
}

fn xdo_out(args: &[&str]) -> Vec<String> {
    let out = Command::new("xdotool").args(args).output().expect("xdotool");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// `import` can wait forever on a busy X server; a capture that hangs is a failure.
fn capture(window: &str) -> image::RgbImage {
    let out = Command::new("timeout")
        .args(["20", "import", "-window", window, "png:-"])
        .output()
        .expect("import");
    assert!(
        out.status.success(),
        "import: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::load_from_memory(&out.stdout).expect("a PNG").to_rgb8()
}

fn near(p: &image::Rgb<u8>, c: [u8; 3]) -> bool {
    p.0.iter().zip(c).all(|(a, b)| (*a as i32 - b as i32).abs() <= 30)
}

/// How many pixels clearly differ between two captures of the same window.
fn changed(a: &image::RgbImage, b: &image::RgbImage) -> usize {
    let (w, h) = (a.width().min(b.width()), a.height().min(b.height()));
    let mut n = 0;
    for y in 0..h {
        for x in 0..w {
            let (p, q) = (a.get_pixel(x, y).0, b.get_pixel(x, y).0);
            if p.iter().zip(q).any(|(u, v)| u.abs_diff(v) > 40) {
                n += 1;
            }
        }
    }
    n
}

/// More than a caret's blink: a screen or a form coming or going.
const A_NEW_SCREEN: usize = 500;

/// Pixels of egui's error red (text of an error message).
fn error_red(img: &image::RgbImage) -> usize {
    img.pixels()
        .filter(|p| p.0[0] >= 180 && p.0[1] <= 90 && p.0[2] <= 90)
        .count()
}

/// Captures `window` until `ok` holds of a capture (up to 30 s: a loaded machine can lag X
/// input and painting by seconds); that capture.
fn wait_window(window: &str, what: &str, ok: impl Fn(&image::RgbImage) -> bool) -> image::RgbImage {
    let t = Instant::now();
    loop {
        let img = capture(window);
        if ok(&img) {
            return img;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "{what}: not within 30 s");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits until `window` holds still (nothing animating, such as the spinner of work in
/// progress) and answers what it shows.
fn wait_settled(window: &str, what: &str) -> image::RgbImage {
    let t = Instant::now();
    let mut last = capture(window);
    loop {
        std::thread::sleep(Duration::from_millis(400));
        let img = capture(window);
        let n = changed(&img, &last);
        if n < 20 {
            return img;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{what}: still changing after 30 s ({n} pixels)"
        );
        last = img;
    }
}

/// Presses `chord` in `window` until it shows a new screen (up to 30 s). A key pressed while
/// the window is still busy is ignored, and pressing it again once the screen it opens is up
/// does nothing, so a press that seemed lost is repeated.
fn key_until_new_screen(window: &str, chord: &str, what: &str) {
    let before = capture(window);
    let t = Instant::now();
    loop {
        key(window, chord);
        let pressed = Instant::now();
        while pressed.elapsed() < Duration::from_secs(5) {
            if changed(&capture(window), &before) >= A_NEW_SCREEN {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{what}: {chord} changed nothing in 30 s"
        );
    }
}

/// The vault windows of process `pid` (by title).
fn vault_windows(pid: &str) -> Vec<String> {
    xdo_out(&[
        "search",
        "--all",
        "--onlyvisible",
        "--pid",
        pid,
        "--name",
        "Vault$",
    ])
}

/// Types into the vault window the way a person would: focus it, then keys.
fn type_in(window: &str, text: &str) {
    xdo(&["windowfocus", "--sync", window]);
    xdo(&["type", "--delay", "20", text]);
}

fn key(window: &str, k: &str) {
    xdo(&["windowfocus", "--sync", window]);
    xdo(&["key", "--clearmodifiers", k]);
}

fn secret_free(path: &Path, what: &str) {
    let bytes = std::fs::read(path).unwrap_or_default();
    for s in [PASS, PASSWORD] {
        assert!(
            !bytes.windows(s.len()).any(|w| w == s.as_bytes()),
            "{what} ({}) holds a secret",
            path.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_vault_window_is_a_separate_window_the_agent_cannot_address() {
    if !can_run() {
        return;
    }
    let mut routes = HashMap::new();
    routes.insert(
        "/login.html".to_string(),
        "<!doctype html><title>Sign in</title><body style=\"margin:0;background:rgb(230,20,140)\">\
         <form><input name=u autocomplete=username><input type=password name=p></form>"
            .to_string(),
    );
    let server = Server::start(routes, None);
    let page = server.url("/login.html");
    let origin = page.trim_end_matches("/login.html").to_string();

    let scratch = std::env::temp_dir().join(format!("aperture-vault-window-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("config")).unwrap();
    let profile = scratch.join("profile");
    let tag = common::unique_tag("aperture-vault-window");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = aperture_testkit::browser_command(common::exe())
        .arg("--profile")
        .arg(&profile)
        .args([
            "--mcp-port",
            &port.to_string(),
            "--allow-host",
            "127.0.0.1",
            &page,
        ])
        .env("XDG_CONFIG_HOME", scratch.join("config"))
        .env("APERTURE_TEST_TAG", &tag)
        .env(cef_sys_build::ENV_DIR, common::cef_dir())
        .stdout(std::fs::File::create(scratch.join("stdout.log")).unwrap())
        .stderr(std::fs::File::create(scratch.join("stderr.log")).unwrap())
        .spawn()
        .expect("spawn aperture");
    let pid = child.id().to_string();
    let app = App {
        child,
        tag,
        scratch: scratch.clone(),
    };
    let stderr = || std::fs::read_to_string(scratch.join("stderr.log")).unwrap_or_default();

    // The browser window, with the page painted.
    let t = Instant::now();
    let (main, img) = loop {
        if let Some(w) = xdo_out(&["search", "--onlyvisible", "--pid", &pid])
            .into_iter()
            .next()
        {
            let img = capture(&w);
            if near(img.get_pixel(img.width() / 2, img.height() / 2), MAGENTA) {
                break (w, img);
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no page in the window; stderr:\n{}",
            stderr()
        );
        std::thread::sleep(Duration::from_millis(300));
    };
    let x = img.width() / 2;
    let top = (0..img.height())
        .find(|&y| near(img.get_pixel(x, y), MAGENTA))
        .unwrap();

    let endpoint = aperture_testkit::wait_endpoint(&scratch.join("config"), Duration::from_secs(60)).await;
    let c = aperture_testkit::mcp::connect(&endpoint.url, &endpoint.token).await;
    // The tab list without its per-call envelope nonces.
    let list = || async {
        let t = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
        t.split("nonce=")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part
                } else {
                    part.trim_start_matches(|c: char| c.is_ascii_alphanumeric())
                }
            })
            .collect::<Vec<_>>()
            .join("nonce=")
    };
    let before = list().await;
    assert!(before.contains("Sign in"), "{before}");
    let entries = || async {
        let r = call(&c, "vault_entries_for_origin", json!({})).await;
        (r.is_error == Some(true), text(&r))
    };
    let (err, t0) = entries().await;
    assert!(err && t0.contains("no vault"), "{t0}");

    // The Vault button: the toolbar's right end, on the toolbar's row just above the page.
    let click_vault = || {
        xdo(&[
            "mousemove",
            "--window",
            &main,
            &(img.width() - 38).to_string(),
            &(top - 18).to_string(),
            "click",
            "1",
        ])
    };
    click_vault();
    let t = Instant::now();
    let vault = loop {
        if let Some(v) = vault_windows(&pid).into_iter().next() {
            break v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no vault window; stderr:\n{}",
            stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_ne!(vault, main, "the vault is a window of its own");
    // Again: the same window (raised), not a second one. The first window was waited for; a
    // second one would take as long, so the settle is as long as the first took and then some.
    let first_took = t.elapsed();
    click_vault();
    std::thread::sleep(first_took.max(Duration::from_secs(1)) * 2);
    assert_eq!(vault_windows(&pid), std::slice::from_ref(&vault));
    // The agent's view of the browser did not change: no new tab, nothing named vault.
    let during = list().await;
    assert_eq!(during, before);
    assert!(!during.to_lowercase().contains("vault"), "{during}");

    // First use: the passphrase twice creates the vault. Typed once the window has drawn its
    // first screen, whose first frame puts the caret in the passphrase field.
    wait_window(&vault, "the vault window's first screen", |img| {
        let ground = *img.get_pixel(0, 0);
        img.pixels().filter(|p| **p != ground).count() >= A_NEW_SCREEN
    });
    type_in(&vault, PASS);
    key(&vault, "Tab");
    type_in(&vault, PASS);
    key(&vault, "Return");
    let t = Instant::now();
    loop {
        let (err, body) = entries().await;
        if !err || !body.contains("no vault") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no vault created: {body}; stderr:\n{}",
            stderr()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(profile.join("vault.aperture").exists());

    // A login added in the window is listed to the agent for the page's site, at once. The
    // window takes Ctrl+N once its creating is done (nothing spinning), and the form it opens
    // has the caret in its first field.
    wait_settled(&vault, "the vault window after creating the vault");
    key_until_new_screen(&vault, "ctrl+n", "the new-login form");
    type_in(&vault, &format!("{origin}/login.html"));
    key(&vault, "Tab");
    type_in(&vault, "Fixture login");
    key(&vault, "Tab");
    type_in(&vault, "ada");
    key(&vault, "Tab");
    type_in(&vault, PASSWORD);
    key(&vault, "Return");
    let t = Instant::now();
    let listed = loop {
        let (err, body) = entries().await;
        if !err && body.contains("Fixture login") {
            break body;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the new login never reached the agent: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(!listed.contains("ada") && !listed.contains(PASSWORD), "{listed}");

    // Locked in the window: the agent is refused. (Saving takes the form away; what is shown
    // once that is done is what the locked screen replaces.)
    let unlocked = wait_settled(&vault, "the vault window after saving the login");
    key(&vault, "ctrl+l");
    let t = Instant::now();
    loop {
        let (err, body) = entries().await;
        if err && body.contains("locked") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "still open after Ctrl+L: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A wrong passphrase opens nothing; the right one does. Typed once the window shows its
    // locked screen (which puts the caret in the passphrase field), and judged once the
    // window has said the passphrase was wrong: the attempt is over.
    let locked = wait_window(&vault, "the vault window's locked screen", |img| {
        changed(img, &unlocked) >= A_NEW_SCREEN
    });
    let file_before = std::fs::read(profile.join("vault.aperture")).unwrap();
    type_in(&vault, "correct horse battery stapler");
    key(&vault, "Return");
    let red_before = error_red(&locked);
    wait_window(&vault, "the wrong passphrase's error", |img| {
        error_red(img) >= red_before + 15
    });
    let (err, body) = entries().await;
    assert!(
        err && body.contains("locked"),
        "a wrong passphrase unlocked it: {body}"
    );
    assert_eq!(
        std::fs::read(profile.join("vault.aperture")).unwrap(),
        file_before
    );
    type_in(&vault, PASS);
    key(&vault, "Return");
    let t = Instant::now();
    loop {
        let (err, body) = entries().await;
        if !err && body.contains("Fixture login") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "not unlocked: {body}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    // Still no tab, and no secret in argv, logs or the vault file.
    assert_eq!(list().await, before);
    secret_free(Path::new(&format!("/proc/{pid}/cmdline")), "the command line");
    secret_free(&scratch.join("stderr.log"), "stderr");
    secret_free(&scratch.join("stdout.log"), "stdout");
    secret_free(&profile.join("vault.aperture"), "the vault file");
    drop(c);
    drop(app);
}
