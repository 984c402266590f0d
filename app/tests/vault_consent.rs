//! The human's consent to the agent's vault fills, in the real window under X: a fill on an
//! origin not yet approved waits for the sheet's answer (clicked with real X input); Deny and
//! no answer refuse with nothing typed; Allow once asks again next time; Always for this site
//! is remembered across a restart; the agent's tools never see the sheet.

#![forbid(unsafe_code)]

#[path = "support/window.rs"]
mod window;

#[path = "support/vault_cli.rs"]
mod vault_cli;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aperture_testkit::mcp::{Client, call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server};
use serde_json::json;

const MAGENTA: [u8; 3] = [230, 20, 140];

/// One window at a time: windows on one X server without a window manager overlap, and a
/// capture of a covered window reads the one on top.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
const USERNAME: &str = "grace.hopper";
const PASSWORD: &str = "c0bol-Was-H3re!";

const LOGIN: &str = r#"<!doctype html><html><head><title>Consent login</title></head>
<body style="margin:0;background:rgb(230,20,140);min-height:100vh">
<form id="f" style="padding:8px">
<label>Username <input id="u" autocomplete="username"></label>
<label>Password <input id="p" type="password" autocomplete="current-password"></label>
</form>
</body></html>"#;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_aperture")
}

async fn start(profile: &Path, pass: &Path) -> (McpBrowser, Arc<Client>, String) {
    let b = Launch::new(exe())
        .windowed()
        .args(["--size", "1000x700", "--vault-consent-timeout", "6"])
        .arg("--vault-passphrase-file")
        .arg(pass)
        .profile(profile)
        .start()
        .await;
    let c = Arc::new(b.connect().await);
    let w = window::window_of(|| b.pids(), Duration::from_secs(60));
    (b, c, w)
}

/// Waits until every one of `pids` (a dropped browser's processes) has exited and the
/// profile's instance lock is free, so the next launch on `profile` is a browser of its own.
async fn gone_and_unlocked(pids: &[u32], profile: &Path) {
    let alive = |pid: &u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat.rsplit(')').next().and_then(|s| s.split_whitespace().next());
            !matches!(state, Some("Z" | "X"))
        })
    };
    aperture_testkit::eventually(
        Duration::from_secs(30),
        "the previous browser to exit and free its profile",
        async || {
            let left: Vec<u32> = pids.iter().copied().filter(alive).collect();
            // Taking the lock ourselves and letting go at once proves nobody holds it.
            let locked = std::fs::File::open(profile.join("aperture.lock"))
                .map(|f| f.try_lock().is_err())
                .unwrap_or(false);
            (left.is_empty() && !locked, (left, locked))
        },
    )
    .await;
}

/// Opens the login page in a new agent tab; the username and password refs.
async fn open_login(c: &Client, url: &str) -> (String, String) {
    let opened = text(&call(c, "browser_tabs", json!({"action": "open", "url": url})).await);
    let id: u64 = opened
        .split_once("opened tab ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tab id in {opened}"));
    // In front, so the test can see the sheet over the magenta page.
    call(c, "browser_tabs", json!({"action": "select", "tab": id})).await;
    let snap = text(&call(c, "browser_snapshot", json!({"full": true})).await);
    (
        role_ref(&snap, "textbox", "Username"),
        role_ref(&snap, "textbox", "Password"),
    )
}

/// The consent sheet's three buttons, left to right (Deny, Always for this site, Allow once),
/// found in a capture as the hole the sheet makes in the magenta page and the three button
/// shapes on its lowest row of controls. `None` while no sheet is shown.
fn sheet_buttons(img: &image::RgbImage) -> Option<[(u32, u32); 3]> {
    let page = window::region(img, MAGENTA, 25, 0..img.height())?;
    let is_page = |x: u32, y: u32| {
        let p = img.get_pixel(x, y).0;
        (0..3).all(|i| (p[i] as i32 - MAGENTA[i] as i32).abs() <= 25)
    };
    let cx = (page.0 + page.2) / 2;
    let top = (page.1..page.3).find(|&y| !is_page(cx, y))?;
    let bottom = (top..page.3).find(|&y| is_page(cx, y))?;
    if bottom - top < 60 {
        return None;
    }
    let mid = (top + bottom) / 2;
    let left = (page.0..cx).rev().find(|&x| is_page(x, mid))?;
    let right = (cx..page.2).find(|&x| is_page(x, mid))?;
    // The frame's fill: the commonest colour inside the sheet.
    let mut counts = std::collections::HashMap::<[u8; 3], u32>::new();
    for y in top..bottom {
        for x in left..right {
            *counts.entry(img.get_pixel(x, y).0).or_default() += 1;
        }
    }
    let fill = counts.into_iter().max_by_key(|(_, n)| *n)?.0;
    let differs = |x: u32, y: u32| {
        let p = img.get_pixel(x, y).0;
        (0..3).any(|i| (p[i] as i32 - fill[i] as i32).abs() > 12) && !is_page(x, y)
    };
    for y in (top..bottom).rev() {
        let mut runs = Vec::new();
        let mut start = None;
        for x in left + 16..right.saturating_sub(16) {
            match (differs(x, y), start) {
                (true, None) => start = Some(x),
                (false, Some(s)) => {
                    runs.push((s, x));
                    start = None;
                }
                _ => {}
            }
        }
        let runs: Vec<_> = runs.into_iter().filter(|(a, b)| b - a >= 30).collect();
        if runs.len() == 3 {
            let c = |i: usize| ((runs[i].0 + runs[i].1) / 2, y.saturating_sub(5));
            return Some([c(0), c(1), c(2)]);
        }
    }
    None
}

fn wait_sheet(window: &str, what: &str) -> [(u32, u32); 3] {
    let t = Instant::now();
    loop {
        let img = window::capture(window);
        if let Some(b) = sheet_buttons(&img) {
            return b;
        }
        if t.elapsed() > Duration::from_secs(20) {
            window::keep(&img, what);
            panic!("{what}: no consent sheet");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn no_sheet_for(window: &str, d: Duration, what: &str) {
    let t = Instant::now();
    while t.elapsed() < d {
        let img = window::capture(window);
        if sheet_buttons(&img).is_some() {
            window::keep(&img, what);
            panic!("{what}: a consent sheet is showing");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn click_at(window: &str, at: (u32, u32)) {
    window::click(window, aperture_ui::egui::pos2(at.0 as f32, at.1 as f32), 1);
}

fn fill_args(entry: &str, refs: &(String, String)) -> serde_json::Value {
    json!({"entry": entry, "username": refs.0, "password": refs.1})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_fills_wait_for_the_humans_answer_in_the_window() {
    if !window::can_run("vault_consent") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let server = Server::page(LOGIN);
    let url = server.url("/");
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    let entry = vault_cli::with_login(&profile, &pass, &url, "Consent test", USERNAME, PASSWORD);

    let (b, c, window) = start(&profile, &pass).await;
    let refs = open_login(&c, &url).await;
    let tab_list = async || -> String {
        let t = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
        t.lines()
            .filter(|l| !l.contains("nonce="))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let tabs_before = tab_list().await;

    // 1. Deny: the call waits for the human, then is refused with nothing typed.
    let pending = tokio::spawn({
        let (c2, args) = (c.clone(), fill_args(&entry, &refs));
        async move { call(&c2, "vault_request_fill", args).await }
    });
    let [deny, _, _] = wait_sheet(&window, "consent-deny");
    // Meanwhile the agent's tab list is unchanged: the sheet is not a tab.
    let tabs = tab_list().await;
    assert_eq!(tabs, tabs_before, "the sheet must not be a tab");
    assert!(!pending.is_finished(), "the fill must wait for the human");
    click_at(&window, deny);
    let r = pending.await.unwrap();
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(t.contains("denied") && t.contains("nothing was typed"), "{t}");
    let snap = text(&call(&c, "browser_snapshot", json!({"full": true})).await);
    assert!(
        !snap.contains("[redacted:vault]"),
        "nothing was filled after Deny:\n{snap}"
    );

    // 2. Nobody answers: refused after the timeout, the sheet goes away.
    let t0 = Instant::now();
    let r = call(&c, "vault_request_fill", fill_args(&entry, &refs)).await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(
        t.contains("did not answer") && t.contains("nothing was typed"),
        "{t}"
    );
    assert!(
        t0.elapsed() >= Duration::from_secs(5),
        "answered before the timeout: {t}"
    );
    let t1 = Instant::now();
    while sheet_buttons(&window::capture(&window)).is_some() {
        assert!(
            t1.elapsed() < Duration::from_secs(5),
            "the sheet stayed after the timeout"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // 3. Allow once fills, and does not remember.
    for round in ["once", "always"] {
        let pending = tokio::spawn({
            let (c2, args) = (c.clone(), fill_args(&entry, &refs));
            async move { call(&c2, "vault_request_fill", args).await }
        });
        let [_, always, once] = wait_sheet(&window, &format!("consent-{round}"));
        let at = if round == "once" { once } else { always };
        click_at(&window, at);
        let r = pending.await.unwrap();
        let t = text(&r);
        assert_ne!(r.is_error, Some(true), "{round}: {t}");
        assert!(t.contains("filled"), "{round}: {t}");
        assert!(!t.contains(PASSWORD) && !t.contains(USERNAME), "{t}");
    }
    let saved = std::fs::read_to_string(profile.join("vault-consent.json")).expect("vault-consent.json");
    let origin = url.trim_end_matches('/');
    assert!(saved.contains(origin), "{saved}");

    // 4. Always: the next fill goes through with nobody clicking, and after a restart too.
    let r = call(&c, "vault_request_fill", fill_args(&entry, &refs)).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let pids = b.pids();
    drop(c);
    drop(b);
    // The restart must reach a browser of its own on this profile, not hand its URL over to
    // the old one still on its way out.
    gone_and_unlocked(&pids, &profile).await;
    let (_b, c, window) = start(&profile, &pass).await;
    let refs = open_login(&c, &url).await;
    let r = call(&c, "vault_request_fill", fill_args(&entry, &refs)).await;
    assert_ne!(
        r.is_error,
        Some(true),
        "remembered across a restart: {}",
        text(&r)
    );
    no_sheet_for(&window, Duration::from_secs(1), "consent-remembered");
}

const FORM: &str = r#"<!doctype html><html><head><title>Apply</title></head>
<body style="margin:0;background:rgb(230,20,140);min-height:100vh">
<form id="f" style="padding:8px">
<label>First name <input id="g" autocomplete="given-name"></label>
<label>Date of birth <input id="d" autocomplete="bday"></label>
<button type="submit">Send</button>
</form>
<script>
document.getElementById("f").addEventListener("submit", ev => {
  ev.preventDefault();
  const v = id => document.getElementById(id).value;
  document.title = "given=" + (v("g") === "Ada" ? "ok" : "no") + " dob=" + (v("d") === "1815-12-10" ? "ok" : "no");
});
</script></body></html>"#;

/// A profile fill asks in the window; a sensitive fact asks again on the next fill even after
/// the human allowed it once (it never rides on an earlier grant).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profile_fills_ask_the_human_and_sensitive_facts_ask_every_time() {
    if !window::can_run("vault_consent_profile") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let server = Server::page(FORM);
    let url = server.url("/");
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    vault_cli::run(&profile, &pass, &["init", "--insecure-fast-kdf"], "");
    vault_cli::run(
        &profile,
        &pass,
        &["profile", "Personal"],
        "givenName=Ada\ndateOfBirth=1815-12-10\n",
    );
    let (_b, c, window) = start(&profile, &pass).await;
    let opened = text(&call(&c, "browser_tabs", json!({"action": "open", "url": url})).await);
    let id: u64 = opened
        .split_once("opened tab ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tab id in {opened}"));
    call(&c, "browser_tabs", json!({"action": "select", "tab": id})).await;
    let submit = {
        let snap = text(&call(&c, "browser_snapshot", json!({"full": true})).await);
        role_ref(&snap, "button", "Send")
    };
    for round in 0..2 {
        let pending = tokio::spawn({
            let c2 = c.clone();
            async move {
                call(
                    &c2,
                    "browser_profile",
                    json!({"action": "apply", "profile": "Personal"}),
                )
                .await
            }
        });
        let [_, _, once] = wait_sheet(&window, &format!("profile-consent-{round}"));
        click_at(&window, once);
        let r = pending.await.unwrap();
        let t = text(&r);
        assert_ne!(r.is_error, Some(true), "round {round}: {t}");
        let page = aperture_testkit::mcp::without_nonces(&t);
        assert!(!page.contains("Ada") && !page.contains("1815"), "{t}");
    }
    call(&c, "browser_act", json!({"action": "click", "ref": submit})).await;
    // The submit handler sets the title after the click's answer, seconds later under load.
    let tabs = aperture_testkit::eventually(
        Duration::from_secs(20),
        "the submitted form's title",
        async || {
            let tabs = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
            (tabs.contains("given="), tabs)
        },
    )
    .await;
    assert!(tabs.contains("given=ok dob=ok"), "{tabs}");
}
