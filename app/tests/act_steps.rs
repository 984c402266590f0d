//! `browser_act` beyond input (issue 14): `wait` steps, the batch's 20 s limit, and navigation
//! and tab steps inside a batch, against the real browser.

use aperture_testkit::mcp::{Client, call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

async fn launch() -> McpBrowser {
    Launch::from_env_or(env!("CARGO_BIN_EXE_aperture")).start().await
}

async fn act(c: &Client, args: Value) -> (bool, String) {
    let r = call(c, "browser_act", args).await;
    (r.is_error == Some(true), text(&r))
}

/// A page that changes on a timer once its button is pressed: "Saved" appears after 700 ms,
/// the spinner goes after 900 ms, the toast removes itself after 600 ms, the URL becomes
/// `/done` after 800 ms. A second button starts polling the server every 50 ms.
const TIMED: &str = r#"<!doctype html><html><head><title>Timed</title></head><body>
<button id=go>Save</button> <button id=poll>Poll</button>
<p id=spin>Loading…</p><div id=toast role=status><button id=close>Dismiss toast</button></div><p id=out></p>
<script>
document.getElementById('go').onclick = () => {
  setTimeout(() => { document.getElementById('out').textContent = 'All changes saved'; }, 700);
  setTimeout(() => { document.getElementById('spin').remove(); }, 900);
  setTimeout(() => { document.getElementById('toast').remove(); }, 600);
  setTimeout(() => { history.pushState({}, '', '/done?step=2'); }, 800);
};
document.getElementById('poll').onclick = () => { setInterval(() => fetch('/ping'), 50); };
</script></body></html>"#;

#[tokio::test]
async fn wait_steps_wait_for_text_refs_urls_the_network_and_time() {
    let browser = launch().await;
    let server = Server::page(TIMED);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    let save = role_ref(&snap, "button", "Save");
    let dismiss = role_ref(&snap, "button", "Dismiss toast");

    let start = Instant::now();
    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "click", "ref": save},
            {"action": "wait", "ref": dismiss, "gone": true},
            {"action": "wait", "text": "All  changes\nsaved"},
            {"action": "wait", "url": "*/done?step=*"},
            {"action": "wait", "text": "Loading…", "gone": true},
            {"action": "wait", "idle": 300},
            {"action": "wait", "ms": 250}
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    for line in [
        "2. waited",
        ": it is gone",
        "3. waited",
        ": the text is on the page",
        "4. waited",
        ": the URL matches",
        "5. waited",
        ": the text is gone",
        "6. waited",
        ": the network is idle",
        "7. waited 0.",
    ] {
        assert!(t.contains(line), "{line:?} missing from:\n{t}");
    }
    // The answer's observations show what was waited for.
    assert!(t.contains("All changes saved"), "{t}");
    assert!(
        t.contains(&format!("gone: {dismiss}")) || t.contains(&dismiss),
        "{t}"
    );
    assert!(start.elapsed() >= Duration::from_millis(900), "the waits waited");

    // A condition that never comes true stops the batch there, saying so.
    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "wait", "text": "Never shown", "ms": 800},
            {"action": "click", "ref": save}
        ]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("1. wait failed; step 2 was not run"), "{t}");
    assert!(
        t.contains("gave up after 0.8 s: the text has not appeared"),
        "{t}"
    );

    // A page that polls the server is never idle for a second.
    let poll = role_ref(&snap, "button", "Poll");
    let (err, t) = act(
        &c,
        json!({"steps": [{"action": "click", "ref": poll}, {"action": "wait", "idle": 1000, "ms": 2500}]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("the network has not been idle that long"), "{t}");

    // Argument mistakes are refused before anything runs.
    let (err, t) = act(&c, json!({"action": "wait"})).await;
    assert!(err && t.contains("wait needs a condition"), "{t}");
    let (err, t) = act(&c, json!({"action": "wait", "text": "a", "url": "b"})).await;
    assert!(err && t.contains("one condition"), "{t}");
}

#[tokio::test]
async fn a_batch_starts_no_step_after_20_seconds() {
    let browser = launch().await;
    let server = Server::page(TIMED);
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    let save = role_ref(&snap, "button", "Save");
    let start = Instant::now();
    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "wait", "ms": 8000},
            {"action": "wait", "ms": 8000},
            {"action": "wait", "ms": 8000},
            {"action": "click", "ref": save}
        ]}),
    )
    .await;
    let took = start.elapsed();
    assert!(err, "{t}");
    assert!(t.contains("1. waited 8.0 s"), "{t}");
    assert!(t.contains("2. waited 8.0 s"), "{t}");
    // The third wait is cut to what is left of the 20 s, and the click never starts.
    assert!(t.contains("3. waited") && t.contains("cut short"), "{t}");
    assert!(t.contains("stopped before step 4"), "{t}");
    assert!(t.contains("step 4 was not run"), "{t}");
    assert!(!t.contains("clicked"), "{t}");
    assert!(
        took < Duration::from_secs(26),
        "the batch ended near its limit: {took:?}"
    );
    let page = text(&call(&c, "browser_read", json!({})).await);
    assert!(!page.contains("All changes saved"), "the click never ran: {page}");
}

/// Two pages that link to each other, and a third for a new tab.
fn site() -> Server {
    let page = |title: &str, link: &str| {
        format!(
            "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1>\
             <a href=\"{link}\">Go to {link}</a><p>visit count <span id=n></span></p>\
             <script>document.getElementById('n').textContent = performance.getEntriesByType('navigation')[0].type;</script>\
             </body></html>"
        )
    };
    Server::start(
        HashMap::from([
            ("/a".to_string(), page("Page A", "/b")),
            ("/b".to_string(), page("Page B", "/a")),
            ("/c".to_string(), page("Page C", "/a")),
        ]),
        None,
    )
}

#[tokio::test]
async fn a_batch_navigates_and_switches_tabs_answering_each_with_its_observation() {
    let browser = launch().await;
    let server = site();
    let c = browser.connect().await;
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/a")}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let first: u64 = text(&r)
        .split_whitespace()
        .nth(2)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("a tab id in {}", text(&r)));

    let (err, t) = act(
        &c,
        json!({"steps": [
            {"action": "goto", "url": server.url("/b")},
            {"action": "back"},
            {"action": "forward"},
            {"action": "reload"},
            {"action": "tab_open", "url": server.url("/c")},
            {"action": "tab_select", "tab": first},
            {"action": "goto", "url": server.url("/a")}
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    for line in [
        "1. loaded (HTTP 200); now at:",
        "2. loaded",
        "3. loaded",
        "4. loaded",
        "5. opened tab",
        &format!("6. tab {first} is now your current tab"),
        "7. loaded (HTTP 200); now at:",
    ] {
        assert!(t.contains(line), "{line:?} missing from:\n{t}");
    }
    // The tab left behind keeps its observations, under its own header, and only the last
    // full snapshot of a tab is sent (an earlier one is replaced by it).
    let opened: u64 = t
        .split("5. opened tab ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|w| w.parse().ok())
        .expect("the opened tab's id");
    let segment = |header: &str| {
        let at = t.find(header).unwrap_or_else(|| panic!("no {header:?} in:\n{t}"));
        let rest = &t[at + header.len()..];
        rest[..rest.find("\ntab ").unwrap_or(rest.len())].to_string()
    };
    // Steps 1-4 on the first tab: only the reload's snapshot is left (page B, reloaded).
    let before = segment(&format!("tab {first} before switching to tab {opened}:"));
    assert!(before.contains("Page B") && before.contains("reload"), "{before}");
    assert_eq!(before.matches("FULL SNAPSHOT").count(), 1, "{before}");
    let other = segment(&format!("tab {opened} before switching to tab {first}:"));
    assert!(other.contains("Page C"), "{other}");
    let now = segment(&format!("tab {first} now"));
    assert!(now.contains("Page A") && now.contains("navigate"), "{now}");
    assert_eq!(t.matches("FULL SNAPSHOT").count(), 3, "{t}");

    // The tab opened in the batch can be closed from a batch; the human's tabs cannot be.
    let (err, t) = act(&c, json!({"steps": [{"action": "tab_close", "tab": opened}]})).await;
    assert!(!err && t.contains(&format!("closed tab {opened}")), "{t}");
    let (err, t) = act(&c, json!({"action": "goto"})).await;
    assert!(err && t.contains("goto needs `url`"), "{t}");
    let (err, t) = act(&c, json!({"action": "goto", "url": "file:///etc/passwd"})).await;
    assert!(err && t.contains("refused by rule scheme"), "{t}");
}

/// A page whose buttons start a fetch the server answers after 3 s, or one it never answers
/// (a long poll), and a second page to leave for.
const FETCHES: &str = r#"<!doctype html><html><head><title>Fetches</title></head><body>
<button id=slow>Slow fetch</button> <button id=poll>Long poll</button><p id=out>idle</p>
<script>
const out = document.getElementById('out');
document.getElementById('slow').onclick = () => {
  out.textContent = 'fetching';
  fetch('/slow').then((r) => r.text()).then((t) => { out.textContent = 'got ' + t; });
};
document.getElementById('poll').onclick = () => { fetch('/hang'); out.textContent = 'polling'; };
</script></body></html>"#;

/// How long `/slow` takes to answer.
const SLOW: Duration = Duration::from_secs(3);

/// A loopback server answering each connection on its own thread, so a slow or never-ending
/// response holds nothing else up: `/` is [`FETCHES`], `/other` a plain page, `/slow` answers
/// after [`SLOW`] (the moment its answer was written is recorded), `/hang` never answers.
struct SlowServer {
    base: String,
    slow_done: Arc<Mutex<Option<Instant>>>,
}

impl SlowServer {
    fn start() -> SlowServer {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let base = format!("http://{}", l.local_addr().unwrap());
        let slow_done = Arc::new(Mutex::new(None));
        let done = slow_done.clone();
        std::thread::spawn(move || {
            for s in l.incoming().map_while(Result::ok) {
                let done = done.clone();
                std::thread::spawn(move || serve_one(s, &done));
            }
        });
        SlowServer { base, slow_done }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn slow_done(&self) -> Option<Instant> {
        *self.slow_done.lock().unwrap()
    }
}

fn serve_one(mut s: TcpStream, done: &Mutex<Option<Instant>>) {
    let mut head = Vec::new();
    let mut b = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut b) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&b[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .split('?')
        .next()
        .unwrap_or("/")
        .to_string();
    let (status, ty, body) = match path.as_str() {
        "/" => ("200 OK", "text/html", FETCHES.to_string()),
        "/other" => (
            "200 OK",
            "text/html",
            "<!doctype html><title>Other</title><p>Another page</p>".to_string(),
        ),
        "/slow" => {
            std::thread::sleep(SLOW);
            ("200 OK", "text/plain", "the slow answer".to_string())
        }
        "/hang" => {
            // Never answered: the connection stays open until the browser gives up on it.
            let _ = s.read(&mut b);
            std::thread::sleep(Duration::from_secs(120));
            return;
        }
        _ => ("404 Not Found", "text/plain", "not found".to_string()),
    };
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: {ty}; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = s.flush();
    if path == "/slow" {
        *done.lock().unwrap() = Some(Instant::now());
    }
}

/// The network-idle wait counts requests in flight: it does not return while a fetch is
/// unanswered, returns soon after it ends, returns at once on a quiet page, and runs out
/// (saying what is still open) on a long poll that never ends.
#[tokio::test]
async fn network_idle_waits_for_requests_in_flight() {
    let browser = launch().await;
    let server = SlowServer::start();
    let c = browser.connect().await;
    let snap = text(
        &call(
            &c,
            "browser_tabs",
            json!({"action": "open", "url": server.url("/")}),
        )
        .await,
    );
    let slow = role_ref(&snap, "button", "Slow fetch");
    let poll = role_ref(&snap, "button", "Long poll");

    // Nothing in flight: the wait ends as soon as the page has been watched that long.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let start = Instant::now();
    let (err, t) = act(&c, json!({"action": "wait", "idle": 500})).await;
    assert!(!err && t.contains("the network is idle"), "{t}");
    // Far below the 20 s it gives up at; the slack is for a loaded machine, whose MCP round
    // trip alone can take a second.
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "a quiet page's wait took {:?}:\n{t}",
        start.elapsed()
    );

    // A fetch the server answers after 3 s: not idle until it has finished, idle soon after.
    let clicked = Instant::now();
    let (err, t) = act(
        &c,
        json!({"steps": [{"action": "click", "ref": slow}, {"action": "wait", "idle": 500}]}),
    )
    .await;
    let answered = Instant::now();
    assert!(!err, "{t}");
    assert!(
        t.contains("2. waited") && t.contains("the network is idle"),
        "{t}"
    );
    let done = server.slow_done().expect("the slow request was answered");
    assert!(
        answered >= done + Duration::from_millis(500),
        "the wait ended {:?} after the click, before the slow answer plus 500 ms ({:?}):\n{t}",
        answered - clicked,
        done - clicked
    );
    assert!(
        answered - done < Duration::from_secs(8),
        "the wait went on {:?} after the slow answer:\n{t}",
        answered - done
    );
    assert!(t.contains("got the slow answer"), "{t}");

    // A long poll never ends: the wait runs out at its bound and says what is still open.
    let (err, t) = act(
        &c,
        json!({"steps": [{"action": "click", "ref": poll}, {"action": "wait", "idle": 500, "ms": 3000}]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(
        t.contains(
            "gave up after 3.0 s: the network has not been idle that long (1 request still in flight)"
        ),
        "{t}"
    );
    let start = Instant::now();
    let (err, t) = act(&c, json!({"action": "wait", "idle": 500})).await;
    let took = start.elapsed();
    assert!(err, "{t}");
    assert!(
        t.contains(
            "gave up after 20.0 s: the network has not been idle that long (1 request still in flight)"
        ),
        "{t}"
    );
    assert!(
        took >= Duration::from_secs(20) && took < Duration::from_secs(26),
        "{took:?}"
    );

    // Leaving the page ends its requests: the next page is idle at once.
    let (err, t) = act(
        &c,
        json!({"steps": [{"action": "goto", "url": server.url("/other")}, {"action": "wait", "idle": 300}]}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(
        t.contains("2. waited") && t.contains("the network is idle"),
        "{t}"
    );
}
