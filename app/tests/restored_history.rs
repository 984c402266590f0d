//! A restored tab keeps its back/forward list across a restart: A→B→C, a clean quit, a new
//! start on the same profile, and Back goes to B and then A, Forward to B and C again, as in
//! Chrome and Firefox (CEF 131 cannot put entries back into Chromium's list; the browser loads
//! the saved ones itself, `app/src/browser/history.rs`). The real windowed browser under X:
//! once driven by the agent over MCP, once by the human's toolbar buttons with real X clicks.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::mcp::{Client, call, text};
use aperture_testkit::{Launch, Server, eventually, eventually_blocking};
use aperture_ui::chrome::controls;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;
use window::{App, Layout, Scratch, wait_session};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: Mutex<()> = Mutex::new(());

const MAGENTA: [u8; 3] = [230, 20, 140];
const CYAN: [u8; 3] = [0, 200, 200];
const YELLOW: [u8; 3] = [250, 210, 0];
const WAIT: Duration = Duration::from_secs(30);

fn page(title: &str, rgb: [u8; 3]) -> String {
    format!(
        r#"<!doctype html><html><head><title>{title}</title></head><body style="margin:0;background:#fff">
<p style="font:20px sans-serif">Page {title}</p>
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
            ("/c".to_string(), page("C", YELLOW)),
        ]),
        None,
    )
}

fn session(profile: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(profile.join("session.json")).unwrap_or_default())
        .unwrap_or(Value::Null)
}

fn urls(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e["url"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the session's only tab is at `url` with these entries before and after it.
fn saved_as(s: &str, url: &str, back: &[&str], forward: &[&str]) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(s) else {
        return false;
    };
    let t = &v["tabs"][0];
    v["tabs"].as_array().map(Vec::len) == Some(1)
        && t["url"] == url
        && urls(&t["back"]) == back
        && urls(&t["forward"]) == forward
}

/// The id of the human's tab showing `url` (loaded), as `browser_tabs list` reports it.
async fn human_tab(c: &Client, url: &str) -> u64 {
    eventually(WAIT, "the human's tab in the list", || async {
        let list = text(&call(c, "browser_tabs", json!({"action": "list"})).await);
        let id = list.lines().zip(list.lines().skip(1)).find_map(|(line, _)| {
            let rest = line.strip_prefix("tab ")?;
            let (id, flags) = rest.split_once(' ')?;
            (flags.contains("human's") && !flags.contains("loading")).then(|| id.parse::<u64>().ok())?
        });
        (id.is_some() && list.contains(url), id.unwrap_or(0))
    })
    .await
}

/// `browser_navigate` `action` on tab `id`: the answer's text, and whether it was an error.
async fn nav(c: &Client, id: u64, action: &str, url: Option<&str>) -> (String, bool) {
    let mut args = json!({"tab": id, "action": action});
    if let Some(u) = url {
        args["url"] = json!(u);
    }
    let r = call(c, "browser_navigate", args).await;
    (text(&r), r.is_error == Some(true))
}

/// Where an answered navigation says the tab is now.
fn now_at<'a>(answer: &str, pages: &[&'a str]) -> Option<&'a str> {
    let after = answer.split_once("now at:")?.1;
    // The envelope's first quoted line is the address.
    let line = after.lines().find(|l| l.contains("http://"))?;
    pages.iter().copied().find(|p| line.contains(p))
}

// The guard serialises whole tests (one window on the display at a time); no other task of
// this test takes it, so holding it across awaits cannot deadlock.
#[allow(clippy::await_holding_lock)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_goes_back_and_forward_through_a_restored_tabs_history() {
    if !window::can_run("restored_history_mcp") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let (a, b, c) = (server.url("/a"), server.url("/b"), server.url("/c"));
    let all = [a.as_str(), b.as_str(), c.as_str()];
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let bin = env!("CARGO_BIN_EXE_aperture");

    // Run 0: the human's tab opens A; the agent goes to B, then C; a clean quit.
    let mut run0 = Launch::new(bin)
        .windowed()
        .profile(&profile)
        .arg(&a)
        .start()
        .await;
    let client = run0.connect().await;
    let id = human_tab(&client, &a).await;
    for to in [&b, &c] {
        let (answer, err) = nav(&client, id, "goto", Some(to)).await;
        assert!(
            !err && now_at(&answer, &all) == Some(to.as_str()),
            "goto {to}: {answer}"
        );
    }
    let p = profile.clone();
    let (a2, b2, c2) = (a.clone(), b.clone(), c.clone());
    tokio::task::spawn_blocking(move || {
        wait_session(&p, "C with A and B before it", |s| {
            saved_as(s, &c2, &[&a2, &b2], &[])
        })
    })
    .await
    .unwrap();
    drop(client);
    let status = run0.terminate(Duration::from_secs(60));
    assert!(
        status.success(),
        "the first run did not quit cleanly: {status}\n{}",
        run0.stderr()
    );
    let s = session(&profile);
    assert_eq!(s["clean_exit"], true, "{s}");
    assert_eq!(urls(&s["tabs"][0]["back"]), [a.as_str(), b.as_str()], "{s}");
    drop(run0);

    // Run 1 on the same profile: the tab comes back at C, and only C is Chromium's.
    let run1 = Launch::new(bin).windowed().profile(&profile).start().await;
    let client = run1.connect().await;
    let id = human_tab(&client, &c).await;
    for (action, to) in [("back", &b), ("back", &a)] {
        let (answer, err) = nav(&client, id, action, None).await;
        assert!(
            !err && now_at(&answer, &all) == Some(to.as_str()),
            "{action} should reach {to}: {answer}\n{}",
            run1.stderr()
        );
    }
    // At the start of the saved list: nowhere further back.
    let (answer, err) = nav(&client, id, "back", None).await;
    assert!(err && answer.contains("no page to go back to"), "{answer}");
    // The saved list stays whole: A now, B and C ahead of it.
    let p = profile.clone();
    let (a2, b2, c2) = (a.clone(), b.clone(), c.clone());
    tokio::task::spawn_blocking(move || {
        wait_session(&p, "A with B and C ahead", |s| saved_as(s, &a2, &[], &[&b2, &c2]))
    })
    .await
    .unwrap();
    for (action, to) in [("forward", &b), ("forward", &c)] {
        let (answer, err) = nav(&client, id, action, None).await;
        assert!(
            !err && now_at(&answer, &all) == Some(to.as_str()),
            "{action} should reach {to}: {answer}"
        );
    }
    let (answer, err) = nav(&client, id, "forward", None).await;
    assert!(err && answer.contains("no page to go forward to"), "{answer}");
    // And back once more: now Chromium's own entry.
    let (answer, err) = nav(&client, id, "back", None).await;
    assert!(!err && now_at(&answer, &all) == Some(b.as_str()), "{answer}");
}

/// How many pixels of `r` in `img` are dark (the button's glyph; a disabled one is drawn
/// faint).
fn dark_pixels(img: &image::RgbImage, r: aperture_ui::egui::Rect) -> usize {
    let mut n = 0;
    for y in r.min.y.max(0.0) as u32..(r.max.y as u32).min(img.height()) {
        for x in r.min.x.max(0.0) as u32..(r.max.x as u32).min(img.width()) {
            let p = img.get_pixel(x, y).0;
            let lum = (u32::from(p[0]) * 3 + u32::from(p[1]) * 6 + u32::from(p[2])) / 10;
            if lum < 110 {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn the_toolbar_back_button_goes_back_through_a_restored_tabs_history() {
    if !window::can_run("restored_history_toolbar") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let (a, b, c) = (server.url("/a"), server.url("/b"), server.url("/c"));
    let dir = Scratch::new("restored-history");

    // Run 0: A, then B and C typed into the omnibox, as a person browses; a clean quit.
    let mut app = App::launch(&dir.0, 0, &[&a]);
    app.wait_for(MAGENTA, "history-run0-a");
    let omnibox = Layout::new(app.size(), Layout::one_tab(""))
        .chrome
        .control_rect(controls::OMNIBOX)
        .expect("an omnibox");
    for (url, colour) in [(&b, CYAN), (&c, YELLOW)] {
        // Typed only once the omnibox has the keyboard (the window may lag the keys).
        let before = app.capture();
        app.key("ctrl+l");
        app.wait_changed(omnibox, &before, "the omnibox focused");
        let focused = app.capture();
        app.type_text(url);
        app.wait_changed(omnibox, &focused, "the typed address");
        window::xdo(&["key", "Return"]);
        app.wait_for(colour, "history-run0-typed");
    }
    wait_session(&dir.profile(), "C with A and B before it", |s| {
        saved_as(s, &c, &[&a, &b], &[])
    });
    assert!(app.terminate().success(), "{}", app.stderr());
    assert_eq!(session(&dir.profile())["clean_exit"], true);
    drop(app);

    // Run 1: back at C, with Back enabled although Chromium holds C alone.
    let app = App::launch(&dir.0, 1, &[]);
    app.wait_for(YELLOW, "history-run1-c");
    let mut layout = Layout::new(app.size(), Layout::one_tab(&c));
    let back_rect = layout.chrome.control_rect(controls::BACK).expect("a Back button");
    let fwd_rect = layout
        .chrome
        .control_rect(controls::FORWARD)
        .expect("a Forward button");
    let back = layout.click(controls::BACK);
    let fwd = layout.click(controls::FORWARD);
    // The pointer away from the buttons, so no hover highlight changes how they are drawn.
    let away = aperture_ui::egui::pos2(back.x + 400.0, back.y + 300.0);
    window::click(&app.window, away, 1);
    let ink = |r| {
        eventually_blocking(Duration::from_secs(5), "a capture", || {
            (true, dark_pixels(&app.capture(), r))
        })
    };
    let back_on = ink(back_rect);
    let fwd_off = ink(fwd_rect);

    app.click(back, 1);
    app.wait_for(CYAN, "history-run1-back-to-b");
    app.click(back, 1);
    app.wait_for(MAGENTA, "history-run1-back-to-a");
    window::click(&app.window, away, 1);
    // At A, the first saved entry: Back is drawn disabled, Forward enabled.
    let back_off = eventually_blocking(WAIT, "Back drawn disabled at A", || {
        let n = dark_pixels(&app.capture(), back_rect);
        (n * 2 < back_on, (n, back_on))
    });
    let fwd_on = eventually_blocking(WAIT, "Forward drawn enabled at A", || {
        let n = dark_pixels(&app.capture(), fwd_rect);
        (n > fwd_off * 2, (n, fwd_off))
    });
    eprintln!("ink: back on {back_on} off {back_off:?}; forward off {fwd_off} on {fwd_on:?}");
    wait_session(&dir.profile(), "A with B and C ahead", |s| {
        saved_as(s, &a, &[], &[&b, &c])
    });

    app.click(fwd, 1);
    app.wait_for(CYAN, "history-run1-forward-to-b");
    app.click(fwd, 1);
    app.wait_for(YELLOW, "history-run1-forward-to-c");
    wait_session(&dir.profile(), "C again with A and B before it", |s| {
        saved_as(s, &c, &[&a, &b], &[])
    });
}

/// A tab restored in the background has not loaded its page (it loads when shown), but it is
/// that page to the human, so it is to the agent: the list gives its saved address and says
/// it is not loaded, and reading it loads it first (not an empty about:blank). A saved page
/// the agent's policy refuses stays unloaded, for the human, and the refusal says why.
#[allow(clippy::await_holding_lock)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_tab_not_shown_yet_is_its_saved_page_to_the_agent() {
    if !window::can_run("restored_unloaded_mcp") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = pages();
    let (a, b) = (server.url("/a"), server.url("/b"));
    let private = "http://10.31.41.59/admin";
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    // The session a clean quit leaves: A and a router page behind B, which is in front.
    let saved = json!({"version": 1, "clean_exit": true, "active": 2, "closed": [], "tabs": [
        {"url": a, "title": "A", "container": "Personal"},
        {"url": private, "title": "Router", "container": "Personal"},
        {"url": b, "title": "B", "container": "Personal"},
    ]});
    std::fs::write(profile.join("session.json"), saved.to_string()).unwrap();
    let run = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .windowed()
        .profile(&profile)
        .start()
        .await;
    let client = run.connect().await;
    human_tab(&client, &b).await;
    let list = text(&call(&client, "browser_tabs", json!({"action": "list"})).await);
    let id_of = |list: &str, url: &str| -> (u64, String) {
        let lines: Vec<&str> = list.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.contains(url))
            .unwrap_or_else(|| panic!("{url} in {list}"));
        // The tab's line is above its title and URL (each fenced).
        let head = lines[..i]
            .iter()
            .rev()
            .find(|l| l.starts_with("tab "))
            .expect("a tab line");
        let id = head[4..].split(' ').next().unwrap().parse().unwrap();
        (id, head.to_string())
    };
    let (ida, head) = id_of(&list, &a);
    assert!(head.contains("restored, not loaded yet"), "{list}");
    assert!(!list.contains("about:blank"), "{list}");
    assert!(
        !server.requests().iter().any(|p| p == "/a"),
        "A loaded before it was shown"
    );

    let snap = text(&call(&client, "browser_snapshot", json!({"tab": ida})).await);
    assert!(
        snap.contains("Page A"),
        "reading the tab loads its page first:\n{snap}"
    );
    let list = text(&call(&client, "browser_tabs", json!({"action": "list"})).await);
    let (_, head) = id_of(&list, &a);
    assert!(!head.contains("not loaded"), "{list}");

    let (idp, _) = id_of(&list, private);
    let r = call(&client, "browser_snapshot", json!({"tab": idp})).await;
    let t = text(&r);
    assert!(r.is_error == Some(true), "{t}");
    assert!(t.contains("restored from the last session"), "{t}");
    let list = text(&call(&client, "browser_tabs", json!({"action": "list"})).await);
    let (_, head) = id_of(&list, private);
    assert!(
        head.contains("restored, not loaded yet"),
        "kept for the human: {list}"
    );
}
