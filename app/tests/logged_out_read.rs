//! `browser_read` with `url`: a logged-out read in a throwaway request context, against the
//! real headless browser and a loopback fixture server that sets cookies, refuses, walls and
//! stalls.

use aperture_testkit::mcp::{Client, call, text};
use aperture_testkit::{Launch, McpBrowser};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Each request's path and `Cookie` header, in order.
type Log = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A loopback HTTP/1.1 server whose routes set cookies, answer with any status, redirect and
/// stall; it records each request's path and `Cookie` header.
struct Fixture {
    base: String,
    log: Log,
}

fn respond(mut s: TcpStream, status: &str, headers: &[String], body: &str) {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        out.push_str(h);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.push_str(body);
    let _ = s.write_all(out.as_bytes());
}

fn page(title: &str, body: &str) -> String {
    format!("<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>")
}

fn serve(s: TcpStream, log: &Mutex<Vec<(String, Option<String>)>>, mark: &str) {
    let mut r = BufReader::new(s.try_clone().expect("clone the stream"));
    let mut line = String::new();
    if r.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut cookie = None;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("cookie")
        {
            cookie = Some(v.trim().to_string());
        }
    }
    log.lock().unwrap().push((path.clone(), cookie.clone()));
    let ok = "200 OK";
    match path.as_str() {
        "/set-cookie" => respond(
            s,
            ok,
            &["Set-Cookie: sid=human123; Max-Age=3600; Path=/".into()],
            &page("Signed in", "<p>You are signed in as the human.</p>"),
        ),
        "/echo" => {
            let c = cookie.unwrap_or_else(|| "none".into());
            respond(
                s,
                ok,
                &[],
                &page(
                    "Echo",
                    &format!("<h1>Public article</h1><p>cookie header: {c}</p>"),
                ),
            )
        }
        "/forbidden" => respond(s, "403 Forbidden", &[], &page("Forbidden", "<p>Go away.</p>")),
        "/unavailable" => respond(
            s,
            "503 Service Unavailable",
            &[],
            &page("Busy", "<p>Try later.</p>"),
        ),
        "/login" => respond(
            s,
            ok,
            &[],
            &page(
                "Welcome back",
                "<h1>Welcome back</h1><form><label>Email <input type=email></label>\
                 <label>Password <input type=password></label><button>Continue</button></form>",
            ),
        ),
        "/captcha" => respond(
            s,
            ok,
            &[],
            &page("One more step", "<p>Please verify you are human to continue.</p>"),
        ),
        "/slow" => {
            std::thread::sleep(Duration::from_secs(25));
            respond(s, ok, &[], &page("Late", "<p>too late</p>"))
        }
        "/long" => respond(
            s,
            ok,
            &[],
            &page("Long", &"<p>A long public article paragraph.</p>".repeat(400)),
        ),
        "/file" => respond(
            s,
            ok,
            &[
                "Content-Disposition: attachment; filename=\"report.bin\"".into(),
                "Content-Type: application/octet-stream".into(),
            ],
            "not a page",
        ),
        "/to-mirror" => respond(s, "302 Found", &["Location: http://archive.ph/abcd".into()], ""),
        p if p == format!("/throwaway-{mark}") => respond(
            s,
            ok,
            &[format!("Set-Cookie: throwcookie{mark}=1; Max-Age=3600; Path=/")],
            &page(
                "Marked",
                &format!(
                    "<p>An article read logged out.</p>\
                     <script>localStorage.setItem('throwstore{mark}', 'x'.repeat(64));</script>"
                ),
            ),
        ),
        p if p == format!("/normal-{mark}") => respond(
            s,
            ok,
            &[format!("Set-Cookie: normalcookie{mark}=1; Max-Age=3600; Path=/")],
            &page(
                "Normal",
                &format!(
                    "<p>An article read in a tab.</p>\
                     <script>localStorage.setItem('normalstore{mark}', 'x'.repeat(64));</script>"
                ),
            ),
        ),
        _ => respond(s, "404 Not Found", &[], &page("Not found", "<p>nothing</p>")),
    }
}

impl Fixture {
    fn start(mark: &str) -> Fixture {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", l.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let (lg, mark) = (log.clone(), mark.to_string());
        std::thread::spawn(move || {
            for s in l.incoming().flatten() {
                let (lg, mark) = (lg.clone(), mark.clone());
                std::thread::spawn(move || serve(s, &lg, &mark));
            }
        });
        Fixture { base, log }
    }

    fn url(&self, p: &str) -> String {
        format!("{}{p}", self.base)
    }

    fn cookies_sent_to(&self, p: &str) -> Vec<Option<String>> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|(path, _)| path == p)
            .map(|(_, c)| c.clone())
            .collect()
    }
}

async fn launch() -> McpBrowser {
    launch_with(&[]).await
}

async fn launch_with(args: &[&str]) -> McpBrowser {
    Launch::from_env_or(env!("CARGO_BIN_EXE_aperture"))
        .args(args)
        .start()
        .await
}

async fn read(c: &Client, url: &str, cap: Option<usize>) -> (bool, String) {
    let mut args = json!({ "url": url });
    if let Some(n) = cap {
        args["cap"] = json!(n);
    }
    let r = call(c, "browser_read", args).await;
    (r.is_error == Some(true), text(&r))
}

#[tokio::test]
async fn a_logged_out_read_reads_public_pages_and_says_when_a_site_refuses() {
    let browser = launch().await;
    let fx = Fixture::start("x");
    let c = browser.connect().await;

    // The human's context has a cookie for the site; a tab there sends it.
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": fx.url("/set-cookie")}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let r = call(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": fx.url("/echo")}),
    )
    .await;
    let t = text(&r);
    assert!(
        t.contains("cookie header: sid=human123"),
        "the normal context has the cookie:\n{t}"
    );

    // The logged-out read of the same page goes without it.
    let (err, t) = read(&c, &fx.url("/echo"), None).await;
    assert!(!err, "{t}");
    assert!(t.contains("read logged out (HTTP 200; truncated: false"), "{t}");
    assert!(
        t.contains("cookie header: none") && t.contains("Public article"),
        "{t}"
    );
    assert_eq!(
        fx.cookies_sent_to("/echo"),
        [Some("sid=human123".to_string()), None],
        "the tab sent the human's cookie, the logged-out read none"
    );
    // The read's tab is nobody's: not listed, and the agent's current tab is unchanged.
    let tabs = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
    assert!(
        tabs.starts_with("2 tabs:"),
        "the start page and the agent's tab:\n{tabs}"
    );
    assert_eq!(tabs.matches("\"Echo\"").count(), 1, "{tabs}");

    // Refusals, each with its reason.
    for (path, why) in [
        ("/forbidden", "blocked: HTTP 403 (forbidden)"),
        ("/unavailable", "blocked: HTTP 503 (server error)"),
        ("/login", "blocked: a login wall"),
        ("/captcha", "blocked: a bot check"),
    ] {
        let (err, t) = read(&c, &fx.url(path), None).await;
        assert!(err && t.starts_with(why), "{path}:\n{t}");
        assert!(
            !t.contains("Go away") && !t.contains("Try later"),
            "no page text: {t}"
        );
    }

    // The text is capped, and says so.
    let (err, t) = read(&c, &fx.url("/long"), Some(300)).await;
    assert!(!err, "{t}");
    assert!(t.contains("truncated: true, cut at 300 characters"), "{t}");
    assert!(t.len() < 3000, "{} characters:\n{t}", t.len());

    // A page that does not answer within 15 s.
    // Meanwhile another session lists the tabs: the read's tab, alive now, is not among them.
    let other = browser.connect().await;
    let start = Instant::now();
    let list_meanwhile = async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        text(&call(&other, "browser_tabs", json!({"action": "list"})).await)
    };
    let slow = fx.url("/slow");
    let ((err, t), during) = tokio::join!(read(&c, &slow, None), list_meanwhile);
    let took = start.elapsed();
    assert!(during.starts_with("2 tabs:"), "{during}");
    assert!(!during.contains("/slow"), "{during}");
    assert!(err && t.starts_with("blocked: timeout"), "{t}");
    assert!(
        took >= Duration::from_secs(14) && took < Duration::from_secs(24),
        "{took:?}"
    );

    // Mirrors and proxies are refused before anything is requested, also when a redirect
    // leads there.
    for u in [
        "https://archive.ph/abcd",
        "https://www.archive.today/x",
        "https://12ft.io/https://example.com/",
        "https://r.jina.ai/https://example.com/",
        "https://example-com.translate.goog/a?_x_tr_sl=auto",
    ] {
        let (err, t) = read(&c, u, None).await;
        assert!(
            err && t.starts_with("refused:") && t.contains("mirror"),
            "{u}:\n{t}"
        );
    }
    let (err, t) = read(&c, &fx.url("/to-mirror"), None).await;
    assert!(err && t.contains("mirror") && t.contains("refused"), "{t}");
    // The navigation policy holds too: another loopback host is refused.
    let (err, t) = read(&c, "http://127.0.0.2:9/", None).await;
    assert!(err && t.contains("refused"), "{t}");
    // No read's tab was left behind.
    let tabs = text(&call(&c, "browser_tabs", json!({"action": "list"})).await);
    assert!(tabs.starts_with("2 tabs:"), "{tabs}");
}

/// Files under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                hits.push(p.display().to_string());
            }
        }
    }
    hits
}

#[tokio::test]
async fn a_logged_out_read_leaves_nothing_on_disk() {
    let downloads = tempfile::tempdir().expect("a download dir");
    let dl = downloads.path().to_str().expect("a UTF-8 path").to_string();
    let browser = launch_with(&["--download-dir", &dl]).await;
    let mark = format!("{}z{}", std::process::id(), Instant::now().elapsed().as_nanos());
    let fx = Fixture::start(&mark);
    let c = browser.connect().await;
    let (err, t) = read(&c, &fx.url(&format!("/throwaway-{mark}")), None).await;
    assert!(!err && t.contains("read logged out"), "{t}");
    // An address that is a download: nothing is saved.
    let (err, t) = read(&c, &fx.url("/file"), None).await;
    assert!(err && t.contains("a file download"), "{t}");
    assert_eq!(fx.cookies_sent_to("/file").len(), 1, "the request was made");
    // The control: the same kind of page in a tab of the human's context.
    let r = call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": fx.url(&format!("/normal-{mark}"))}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    drop(c);
    // What a profile keeps reaches its files at different times: history and local storage at
    // once, cookies at Chromium's next commit (every 30 s). The control's traces are awaited,
    // so the checks below would have seen the read's had they been written.
    let profile = browser.profile.clone();
    let t = Instant::now();
    for (what, needle) in [
        ("history", format!("/normal-{mark}")),
        ("local storage", format!("normalstore{mark}")),
        ("a cookie", format!("normalcookie{mark}")),
    ] {
        while files_containing(&profile, &needle).is_empty() {
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "the control failed: the tab's {what} ({needle}) never reached the profile, so \
                 this test could not see a leak"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    for needle in [
        format!("throwcookie{mark}"),
        format!("throwstore{mark}"),
        format!("/throwaway-{mark}"),
    ] {
        let hits = files_containing(&profile, &needle);
        assert!(hits.is_empty(), "{needle} reached the disk: {hits:?}");
    }
    let saved: Vec<_> = std::fs::read_dir(downloads.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(saved.is_empty(), "the read's download was saved: {saved:?}");
    // And outside the profile: the scratch dir holds the config and logs.
    let scratch = profile.parent().unwrap();
    let hits = files_containing(scratch, &format!("throwcookie{mark}"));
    assert!(hits.is_empty(), "{hits:?}");
}
