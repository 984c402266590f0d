//! The real browser, headless, against pages served locally: the walker, trusted input,
//! tamper resistance, DevTools dark mode, renderer death, and clean shutdown.

mod common;

use aperture_testkit::{corpus_dir, eventually_blocking};
use common::*;
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

fn fixtures() -> Server {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    Server::start(HashMap::new(), Some(dir))
}

#[test]
fn walk_reports_roles_names_state_shadow_and_iframes() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/walk.html"));
    let w = b.walk(t);
    assert_eq!(w["title"], "Walk fixture");
    assert!(w["walk_us"].as_u64().is_some(), "walk time is measured");

    let user = find(&w, "user input", |n| n["dom_id"] == "user");
    assert_eq!(user["role"], "textbox");
    assert_eq!(user["name"], "User name", "name from <label for>");
    assert_eq!(user["autocomplete"], "username");
    assert_eq!(user["editable"], true);

    let pw = find(&w, "password", |n| n["name_attr"] == "pw");
    assert_eq!(
        pw["state"]["value"],
        aperture_engine::record::MASKED_VALUE,
        "password masked"
    );
    assert!(
        !w.to_string().contains("hunter2"),
        "the password value never leaves the renderer"
    );
    assert_eq!(pw["name"], "Password", "name from the wrapping label");

    let cb = find(&w, "checkbox", |n| n["dom_id"] == "remember");
    assert_eq!(cb["state"]["checked"], "true");
    let sel = find(&w, "select", |n| n["name_attr"] == "color");
    assert_eq!(sel["role"], "combobox");
    assert_eq!(sel["state"]["value"], "g");
    // Options are listed on their select (issue 15), the selected one marked.
    let green = sel["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|o| o["s"] == true)
        .expect("a selected option");
    assert_eq!(green["l"], "Green");
    assert_eq!(
        find(&w, "textarea", |n| n["tag"] == "textarea")["state"]["value"],
        "hello note"
    );

    let login = find(&w, "submit", |n| n["testid"] == "login-btn");
    assert_eq!(login["state"]["disabled"], true);
    assert_eq!(
        login["actionable"], true,
        "a disabled control is still a control (it keeps its ref; the flag says it does nothing now)"
    );

    assert!(
        nodes(&w).iter().all(|n| n["name"] != "Invisible"),
        "display:none subtrees are skipped"
    );
    assert_eq!(find(&w, "ghost", |n| n["name"] == "Ghost")["visible"], false);
    let toggle = find(&w, "aria button", |n| n["name"] == "Toggle");
    assert_eq!(toggle["role"], "button");
    assert_eq!(toggle["actionable"], true);
    assert_eq!(toggle["state"]["pressed"], "true");
    assert_eq!(find(&w, "nav", |n| n["role"] == "navigation")["name"], "Main");
    assert_eq!(
        find(&w, "heading", |n| n["role"] == "heading" && n["text"] == "Orders")["level"],
        1
    );

    let sb = find(&w, "shadow button", |n| n["testid"] == "shadow-btn");
    assert_eq!(sb["shadow"], true);
    assert_eq!(sb["name"], "Inside shadow");

    let fb = find(&w, "iframe button", |n| n["testid"] == "frame-btn");
    assert_eq!(fb["frame"], 1);
    // The iframe sits at (400,300) with a 3px border: its content is offset by both.
    assert_eq!(fb["bounds"]["x"].as_f64().unwrap(), 403.0);
    assert_eq!(fb["bounds"]["y"].as_f64().unwrap(), 303.0);
    b.quit();
}

#[test]
fn walk_works_on_real_corpus_pages() {
    let s = Server::start(HashMap::new(), Some(corpus_dir()));
    let mut b = Browser::start();
    // Pages whose every resource is local or fails fast, so they load completely here (pages
    // with a parser-blocking script from an unreachable host stay half-parsed, as they would
    // for a person on this network).
    for page in [
        "wikipedia.html",
        "lwn-1.html",
        "mozilla-1.html",
        "google-sre-book-1.html",
    ] {
        let html = std::fs::read_to_string(corpus_dir().join(page)).expect(page);
        let t = b.open(&s.url(&format!("/{page}")));
        let w = b.walk(t);
        let n = nodes(&w);
        assert!(n.len() > 50, "{page}: only {} nodes", n.len());
        let links = n
            .iter()
            .filter(|x| x["role"] == "link" && x["actionable"] == true)
            .count();
        let html_links = html.matches("<a ").count();
        assert!(links > 10, "{page}: {links} actionable links");
        assert!(
            links <= html_links + 5,
            "{page}: {links} links but the source has {html_links} <a>"
        );
        assert!(n.iter().any(|x| x["role"] == "heading"), "{page}: no heading");
        // Parents always point backwards (pre-order), so the engine can rebuild the tree.
        for x in n {
            if let Some(p) = x["parent"].as_u64() {
                assert!(p < x["idx"].as_u64().unwrap());
            }
        }
        eprintln!(
            "{page}: {} nodes, {links} links, walk {} us",
            n.len(),
            w["walk_us"]
        );
        b.ok(json!({"cmd": "close", "tab": t}));
    }
    b.quit();
}

#[test]
fn native_clicks_and_keys_are_trusted() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/walk.html"));
    let w = b.walk(t);
    let (x, y) = center(find(&w, "click-me", |n| n["dom_id"] == "click-me"));
    b.ok(json!({"cmd": "click", "tab": t, "x": x, "y": y}));
    let title = eventually_blocking(Duration::from_secs(20), "the click's title", || {
        let title = b.walk(t)["title"].as_str().unwrap().to_string();
        (title.starts_with("clicked"), title)
    });
    assert_eq!(title, "clicked trusted=true");

    let (x, y) = center(find(&w, "typing", |n| n["dom_id"] == "typing"));
    b.ok(json!({"cmd": "click", "tab": t, "x": x, "y": y}));
    b.ok(json!({"cmd": "type", "tab": t, "text": "Hello w"}));
    eventually_blocking(Duration::from_secs(20), "the typed value", || {
        let w = b.walk(t);
        let value = find(&w, "typing", |n| n["dom_id"] == "typing")["state"]["value"]
            .as_str()
            .unwrap_or("")
            .to_string();
        (value == "Hello w", value)
    });
    b.quit();
}

/// Input and renderer requests travel on different channels; the input verbs must not return
/// before the page has handled the input, or an observation right after them can miss it.
#[test]
fn input_has_been_handled_when_the_input_call_returns() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/counter.html"));
    let w = b.walk(t);
    let (x, y) = center(find(&w, "count", |n| n["dom_id"] == "count"));
    for i in 1..=25 {
        b.ok(json!({"cmd": "click", "tab": t, "x": x, "y": y}));
        assert_eq!(
            b.walk(t)["title"],
            format!("clicks {i}"),
            "the walk after click {i} missed it"
        );
    }
    let (x, y) = center(find(&w, "field", |n| n["dom_id"] == "field"));
    b.ok(json!({"cmd": "click", "tab": t, "x": x, "y": y}));
    let mut typed = String::new();
    for c in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
        b.ok(json!({"cmd": "type", "tab": t, "text": c}));
        typed.push_str(c);
        let w = b.walk(t);
        let v = &find(&w, "field", |n| n["dom_id"] == "field")["state"]["value"];
        assert_eq!(v, typed.as_str(), "the walk after typing {c} missed it");
    }
    b.quit();
}

/// A void withdraws input the page has not received, but only until its `until`: past that
/// the browser has stopped waiting and told the agent the input may still arrive, so the
/// page must not stop it (a busy page handles the void after the queued input's time).
#[test]
fn a_void_past_its_deadline_withdraws_nothing() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/counter.html"));
    let w = b.walk(t);
    let (x, y) = center(find(&w, "count", |n| n["dom_id"] == "count"));
    b.ok(json!({"cmd": "click", "tab": t, "x": x, "y": y}));
    let inputs = b.ok(json!({"cmd": "request", "tab": t, "request": {"op": "inputs"}}))["answer"].clone();
    let n = inputs["pointerdown"].as_u64().expect("a pointerdown count");
    assert!(n >= 1, "{inputs}");
    let epoch_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    };
    let void = |until: u64| json!({"cmd": "request", "tab": t, "request": {"op": "void", "kind": "pointerdown", "n": n, "until": until}});

    let late = b.ok(void(epoch_ms() - 1000))["answer"].clone();
    assert_eq!(late["late"], true, "{late}");
    assert_eq!(late["void"], false, "a late void must not be set: {late}");

    let in_time = b.ok(void(epoch_ms() + 60_000))["answer"].clone();
    assert_eq!(in_time["late"], false, "{in_time}");
    assert_eq!(
        in_time["void"], true,
        "a void in time with the count unchanged is set: {in_time}"
    );

    // Input sent after a void is not stopped by it.
    b.ok(json!({"cmd": "click", "tab": t, "x": x, "y": y}));
    assert_eq!(b.walk(t)["title"], "clicks 2");
    b.quit();
}

#[test]
fn tampered_prototypes_do_not_change_the_walk() {
    let s = fixtures();
    let mut b = Browser::start();
    let clean = b.open(&s.url("/plain.html"));
    let hostile = b.open(&s.url("/tamper.html"));
    let mut a = b.walk(clean);
    let mut h = b.walk(hostile);
    for w in [&mut a, &mut h] {
        for k in ["walk_id", "walk_us", "url", "dom_quiet_ms", "change_quiet_ms"] {
            w.as_object_mut().unwrap().remove(k);
        }
    }
    assert!(nodes(&a).len() >= 4, "the clean walk saw the page: {}", short(&a));
    assert_eq!(a, h, "a page that replaced built-ins changed the walk");
    b.quit();
}

#[test]
fn devtools_auto_dark_lowers_luminance() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/plain.html"));
    // The load can be answered before the page's first full frame (a busy machine painted a
    // half-drawn one, mean 140): wait for the white page to be shown light first.
    let before = eventually_blocking(Duration::from_secs(20), "the white page to show light", || {
        let luma = b.ok(json!({"cmd": "luma", "tab": t}))["luma"].as_f64().unwrap();
        (luma > 200.0, luma)
    });
    b.ok(json!({"cmd": "devtools", "tab": t, "method": "Emulation.setAutoDarkModeOverride", "params": {"enabled": true}}));
    eventually_blocking(Duration::from_secs(20), "auto dark made it dark", || {
        let after = b.ok(json!({"cmd": "luma", "tab": t}))["luma"].as_f64().unwrap();
        (after < 100.0, (before, after))
    });
    let bad = b.cmd(json!({"cmd": "devtools", "tab": t, "method": "Nope.notAMethod", "params": {}}));
    assert!(bad["error"].as_str().unwrap().contains("wasn't found"), "{bad}");
    b.quit();
}

#[test]
fn a_renderer_killed_mid_walk_is_an_error_not_a_hang() {
    // A page big enough that its walk takes a while.
    let mut rows = String::new();
    for i in 0..40_000 {
        rows.push_str(&format!(
            "<li><a href=\"/r{i}\">Row {i}</a> <button>Buy {i}</button></li>"
        ));
    }
    let mut routes = HashMap::new();
    routes.insert(
        "/big".to_string(),
        format!("<!doctype html><title>big</title><ul>{rows}</ul>"),
    );
    let s = Server::start(routes, None);
    let mut b = Browser::start();
    let t = b.open(&s.url("/big"));
    let renderers = vec![
        b.ok(json!({"cmd": "renderer_pid", "tab": t}))["pid"]
            .as_u64()
            .unwrap() as u32,
    ];
    assert!(b.pids().contains(&renderers[0]), "the renderer is one of ours");
    // Ask for a walk, then kill the renderer while it works.
    b.cmd_async(json!({"cmd": "walk", "tab": t}));
    std::thread::sleep(Duration::from_millis(100));
    for p in &renderers {
        let _ = std::process::Command::new("kill")
            .arg("-9")
            .arg(p.to_string())
            .status();
    }
    let started = std::time::Instant::now();
    let r = b.answer();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(20), "the walk hung for {elapsed:?}");
    let err = r["error"]
        .as_str()
        .unwrap_or_else(|| panic!("the walk of a killed renderer succeeded: {}", short(&r)));
    assert!(err.contains("renderer"), "{err}");
    // The browser itself is still usable.
    assert_eq!(b.ok(json!({"cmd": "tabs"}))["tabs"].as_array().unwrap().len(), 1);
    b.quit();
}

#[test]
fn sigterm_shuts_down_cleanly_with_no_process_left() {
    let s = fixtures();
    let mut b = Browser::start();
    b.open(&s.url("/plain.html"));
    let pids = b.pids();
    assert!(pids.len() >= 3, "browser plus subprocesses: {pids:?}");
    let _ = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(b.child.id().to_string())
        .status();
    let st = wait_exit(&mut b.child, Duration::from_secs(20));
    assert!(st.success(), "clean exit status: {st:?}");
    // Zygotes may linger briefly as they are reaped.
    eventually_blocking(Duration::from_secs(20), "no process left behind", || {
        let left = b.pids();
        (left.is_empty(), left)
    });
}

#[test]
fn a_missing_or_damaged_runtime_is_one_clear_sentence() {
    let missing = aperture_testkit::browser_command(exe())
        .args([
            "--headless",
            "--cef-dir",
            "/nonexistent/cef",
            "--walk",
            "http://127.0.0.1:1/",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("not installed at /nonexistent/cef") && err.contains("cargo xtask"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one sentence: {err}");

    let dir = std::env::temp_dir().join(format!("aperture-damaged-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("locales")).unwrap();
    for f in [
        "libcef.so",
        "icudtl.dat",
        "resources.pak",
        "v8_context_snapshot.bin",
        "locales/en-US.pak",
    ] {
        std::fs::write(dir.join(f), b"truncated").unwrap();
    }
    let damaged = aperture_testkit::browser_command(exe())
        .args(["--headless", "--cef-dir"])
        .arg(&dir)
        .args(["--walk", "http://127.0.0.1:1/"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&damaged.stderr);
    assert_eq!(damaged.status.code(), Some(1));
    assert!(err.contains("damaged or incomplete"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_navigation_answers_for_its_own_page_not_the_one_it_replaced() {
    // A port that accepts connections and never answers: page A's image loads forever.
    let hang = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hang_port = hang.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in hang.incoming().flatten() {
            held.push(c);
        }
    });
    let mut routes = HashMap::new();
    routes.insert(
        "/a".to_string(),
        format!("<!doctype html><title>page A</title><img src=\"http://127.0.0.1:{hang_port}/never.png\">"),
    );
    routes.insert(
        "/b".to_string(),
        "<!doctype html><title>page B</title><h1>B</h1>".to_string(),
    );
    let s = Server::start(routes, None);
    let mut b = Browser::start();
    let t = b.open(&s.url("/a")); // answered after the document + grace, still loading
    let r = b.ok(json!({"cmd": "navigate", "tab": t, "url": s.url("/b")}));
    // The abort of A's load must not answer for B.
    assert_eq!(r["url"], s.url("/b"), "{r}");
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(b.walk(t)["title"], "page B");
    b.quit();
}

#[test]
fn chromium_switches_pass_through_but_phone_home_and_door_opening_ones_are_refused() {
    for bad in [
        "variations-server-url=http://x/",
        "disable-features=Foo",
        "remote-debugging-port=9222",
        "no-sandbox",
    ] {
        let out = aperture_testkit::browser_command(exe())
            .args(["--headless", "--chromium-switch", bad, "--walk", "about:blank"])
            .env(cef_sys_build::ENV_DIR, cef_dir())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("is refused"),
            "{bad}"
        );
    }
    // A pass-through switch reaches Chromium: the page sees the user agent it sets.
    let mut routes = HashMap::new();
    routes.insert(
        "/ua".to_string(),
        "<!doctype html><title>t</title><script>document.title = navigator.userAgent</script>".to_string(),
    );
    let s = Server::start(routes, None);
    let mut b = Browser::start_with(&["--chromium-switch", "user-agent=ApertureSwitchTest/1"]);
    let t = b.open(&s.url("/ua"));
    assert_eq!(b.walk(t)["title"], "ApertureSwitchTest/1");
    b.quit();
}
