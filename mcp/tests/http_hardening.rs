//! The listener against requests an attacker or a sloppy client sends: doubled headers,
//! malformed JSON, too many sessions, idle sessions, and the session DELETE official SDKs send
//! on close.

#![forbid(unsafe_code)]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use aperture_mcp::backend::Backend;
use aperture_mcp::{HttpConfig, HttpServer, Token, serve_http};
use aperture_testkit::mcp::connect;
use common::call;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST_TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

async fn start_with(max_sessions: usize, idle: Duration, backend: Arc<dyn Backend>) -> HttpServer {
    let config = HttpConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        token: Token::generate(),
        max_sessions,
        session_idle: idle,
    };
    serve_http(config, backend).await.expect("listener")
}

async fn start() -> HttpServer {
    start_with(64, Duration::from_secs(600), Arc::new(common::NoTabs)).await
}

/// One raw HTTP/1.1 exchange (headers exactly as given, in order, duplicates included).
/// Returns the status, the response head and whatever body arrived before the server closed
/// the connection or went quiet for a second.
async fn raw(addr: SocketAddr, headers: &[(&str, String)], body: &str) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = String::from("POST /mcp HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("Accept: application/json, text/event-stream\r\n");
    req.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    s.write_all(req.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // The answer may be slow to start on a loaded machine; once it has, a second of silence
        // ends it (a stream that stays open).
        let wait = if got.is_empty() { 20 } else { 1 };
        match tokio::time::timeout(Duration::from_secs(wait), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("no status line in {text:?}"))
        .parse()
        .unwrap();
    (status, head.to_string(), body.to_string())
}

fn good_headers(server: &HttpServer) -> Vec<(&'static str, String)> {
    vec![
        ("Host", format!("127.0.0.1:{}", server.addr().port())),
        ("Origin", format!("http://127.0.0.1:{}", server.addr().port())),
        ("Authorization", format!("Bearer {}", server.token().expose())),
        ("Content-Type", "application/json".into()),
    ]
}

fn bad_value(name: &str, server: &HttpServer) -> String {
    match name {
        "Host" => format!("evil.example:{}", server.addr().port()),
        "Origin" => "https://evil.example".into(),
        "Authorization" => "Bearer not-the-token".into(),
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn duplicate_host_origin_or_authorization_is_400_whichever_comes_first() {
    let server = start().await;
    // The control: the same request with each header once passes the gate.
    let (status, ..) = raw(server.addr(), &good_headers(&server), INIT).await;
    assert_eq!(status, 200);
    for name in ["Host", "Origin", "Authorization"] {
        let good = good_headers(&server)
            .into_iter()
            .find(|(k, _)| *k == name)
            .unwrap()
            .1;
        let bad = bad_value(name, &server);
        for (first, second) in [
            (good.clone(), bad.clone()),
            (bad.clone(), good.clone()),
            (good.clone(), good.clone()),
        ] {
            let mut headers = Vec::new();
            for (k, v) in good_headers(&server) {
                if k == name {
                    headers.push((k, first.clone()));
                    headers.push((k, second.clone()));
                } else {
                    headers.push((k, v));
                }
            }
            let (status, _, body) = raw(server.addr(), &headers, INIT).await;
            assert_eq!(status, 400, "{name}: {first} then {second}: {body}");
            assert!(
                body.contains(&format!("more than one {name} header")),
                "{name}: {body}"
            );
        }
    }
    assert_eq!(server.session_count(), 1, "only the control opened a session");
    server.shutdown();
}

fn json_body(head: &str, body: &str) -> serde_json::Value {
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[tokio::test]
async fn malformed_json_is_a_json_rpc_parse_error_after_the_gate() {
    let server = start().await;
    let addr = server.addr();
    let truncated = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","#;
    for body in [truncated, "not json at all", "{'single': 'quotes'}", ""] {
        let (status, head, resp) = raw(addr, &good_headers(&server), body).await;
        assert_eq!(status, 400, "{body:?}: {head}\n{resp}");
        let v = json_body(&head, &resp);
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        assert_eq!(v["id"], serde_json::Value::Null, "{v}");
        assert_eq!(v["error"]["code"], -32700, "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap().starts_with("Parse error"),
            "{v}"
        );
    }
    // JSON that is no JSON-RPC message: Invalid Request, echoing the id it could read.
    for (body, id) in [
        (r#"{"id":7,"method":"initialize"}"#, serde_json::json!(7)),
        (r#"[1,2,3]"#, serde_json::Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":"x","method":42}"#,
            serde_json::json!("x"),
        ),
    ] {
        let (status, head, resp) = raw(addr, &good_headers(&server), body).await;
        assert_eq!(status, 400, "{body}: {head}\n{resp}");
        let v = json_body(&head, &resp);
        assert_eq!(v["error"]["code"], -32600, "{body}: {v}");
        assert_eq!(v["id"], id, "{body}: {v}");
    }
    // Malformed JSON on an open session is answered the same way.
    let (status, head, _) = raw(addr, &good_headers(&server), INIT).await;
    assert_eq!(status, 200);
    let sid = session_id(&head);
    let mut with_session = good_headers(&server);
    with_session.push(("Mcp-Session-Id", sid));
    let (status, head, resp) = raw(addr, &with_session, truncated).await;
    assert_eq!(status, 400);
    assert_eq!(json_body(&head, &resp)["error"]["code"], -32700);
    // The gate still comes first: without the token, malformed JSON is 401, not a parse error.
    let no_token: Vec<_> = good_headers(&server)
        .into_iter()
        .filter(|(k, _)| *k != "Authorization")
        .collect();
    let (status, _, resp) = raw(addr, &no_token, truncated).await;
    assert_eq!(status, 401, "{resp}");
    assert!(!resp.contains("-32700"), "{resp}");
    // A body declared as something other than JSON is still rmcp's 415.
    let mut form = good_headers(&server);
    form.retain(|(k, _)| *k != "Content-Type");
    form.push(("Content-Type", "text/plain".into()));
    let (status, ..) = raw(addr, &form, INIT).await;
    assert_eq!(status, 415);
    server.shutdown();
}

fn session_id(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no Mcp-Session-Id in {head}"))
}

/// A client speaking the protocol by hand, to control exactly which session does what.
struct Raw {
    http: reqwest::Client,
    url: String,
    token: String,
}

impl Raw {
    fn new(server: &HttpServer) -> Raw {
        Raw {
            http: reqwest::Client::new(),
            url: server.url(),
            token: server.token().expose().to_string(),
        }
    }

    fn request(&self, method: reqwest::Method, session: Option<&str>) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .request(method, &self.url)
            .bearer_auth(&self.token)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .timeout(Duration::from_secs(20));
        if let Some(s) = session {
            r = r
                .header("Mcp-Session-Id", s)
                .header("MCP-Protocol-Version", "2025-06-18");
        }
        r
    }

    /// POSTs `body`; returns the status, the session id header if any, and the body.
    async fn post(&self, session: Option<&str>, body: &str) -> (u16, Option<String>, String) {
        let resp = self
            .request(reqwest::Method::POST, session)
            .body(body.to_string())
            .send()
            .await
            .expect("POST");
        let status = resp.status().as_u16();
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let text = resp.text().await.unwrap_or_default();
        (status, sid, text)
    }

    /// A fully initialized session's id.
    async fn open(&self) -> String {
        let (status, sid, body) = self.post(None, INIT).await;
        assert_eq!(status, 200, "{body}");
        let sid = sid.expect("session id");
        let (status, _, body) = self.post(Some(&sid), INITIALIZED).await;
        assert_eq!(status, 202, "{body}");
        sid
    }

    /// The status of a `tools/list` on `sid` (200 while the session lives, 404 after).
    async fn use_session(&self, sid: &str) -> u16 {
        let (status, _, body) = self.post(Some(sid), LIST_TOOLS).await;
        if status == 200 {
            assert!(body.contains("browser_snapshot"), "{body}");
        }
        status
    }

    async fn delete(&self, sid: &str) -> u16 {
        self.request(reqwest::Method::DELETE, Some(sid))
            .send()
            .await
            .expect("DELETE")
            .status()
            .as_u16()
    }
}

#[tokio::test]
async fn session_delete_is_200_and_ends_the_session() {
    let server = start().await;
    let c = Raw::new(&server);
    let sid = c.open().await;
    assert_eq!(c.use_session(&sid).await, 200);
    assert_eq!(server.session_count(), 1);
    // 200, not rmcp's 202: the official Python SDK accepts only 200 and 204 here and reports
    // anything else as "Session termination failed".
    assert_eq!(c.delete(&sid).await, 200);
    assert_eq!(server.session_count(), 0);
    assert_eq!(c.use_session(&sid).await, 404);
    server.shutdown();
}

#[tokio::test]
async fn past_the_cap_the_least_recently_used_idle_session_is_evicted() {
    let server = start_with(2, Duration::from_secs(600), Arc::new(common::NoTabs)).await;
    let c = Raw::new(&server);
    let a = c.open().await;
    let b = c.open().await;
    // `a` is used after `b` was opened: `b` is now the least recently used.
    assert_eq!(c.use_session(&a).await, 200);
    assert_eq!(server.session_count(), 2);
    let n = c.open().await;
    assert_eq!(server.session_count(), 2, "the cap holds");
    assert_eq!(c.use_session(&b).await, 404, "the LRU session was closed");
    assert_eq!(c.use_session(&a).await, 200);
    assert_eq!(c.use_session(&n).await, 200);
    // Many more sessions than the cap: never more than the cap open.
    for _ in 0..10 {
        c.open().await;
        assert!(server.session_count() <= 2, "{}", server.session_count());
    }
    server.shutdown();
}

#[tokio::test]
async fn when_every_session_is_busy_a_new_one_is_refused_with_503_and_a_sentence() {
    let fake = common::Fake::new();
    fake.add_tab(
        common::Page::list("https://shop.example/", &["apples", "bread"]),
        true,
    );
    let server = start_with(2, Duration::from_secs(600), fake.clone()).await;
    let a = connect(&server.url(), server.token().expose()).await;
    let b = connect(&server.url(), server.token().expose()).await;
    // Each session acts on refs of its own observation.
    call(&a, "browser_snapshot", serde_json::json!({})).await;
    call(&b, "browser_snapshot", serde_json::json!({})).await;
    fake.state.lock().unwrap().click_delay = Some(Duration::from_millis(4000));
    // Bounded: a call whose session is closed under it never gets an answer.
    let click = |c, r: &'static str| async move {
        let act = call(c, "browser_act", serde_json::json!({"action": "click", "ref": r}));
        tokio::time::timeout(Duration::from_secs(15), act)
            .await
            .unwrap_or_else(|_| panic!("click {r}: no answer (was its busy session evicted?)"))
    };
    let clicks = async { tokio::join!(click(&a, "e1"), click(&b, "e2")) };
    let probe = async {
        // Wait until the first click is inside the backend, then a second for the other call
        // to be in flight too (it waits for the tab's lock, which nothing shows), then ask for
        // a third session while the first click still has 3 s to go.
        while !fake.log().iter().any(|l| l == "click start") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(1000)).await;
        raw(server.addr(), &good_headers(&server), INIT).await
    };
    let ((ra, rb), (status, head, body)) = tokio::join!(clicks, probe);
    assert_ne!(ra.is_error, Some(true), "{}", common::text(&ra));
    assert_ne!(rb.is_error, Some(true), "{}", common::text(&rb));
    assert_eq!(status, 503, "{head}\n{body}");
    assert!(head.to_ascii_lowercase().contains("retry-after:"), "{head}");
    let v = json_body(&head, &body);
    assert_eq!(v["id"], 1, "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("too many MCP sessions") && msg.contains("all 2 are busy"),
        "{msg}"
    );
    assert_eq!(server.session_count(), 2);

    // Once the calls are answered the sessions are idle again: a new one evicts one of them…
    fake.state.lock().unwrap().click_delay = None;
    let c = Raw::new(&server);
    let n = c.open().await;
    assert_eq!(server.session_count(), 2);
    assert_eq!(c.use_session(&n).await, 200);
    // …and the evicted client (rmcp's, which initializes again on 404) carries on.
    for client in [&a, &b] {
        let r = call(client, "browser_tabs", serde_json::json!({"action": "list"})).await;
        assert_ne!(r.is_error, Some(true), "{}", common::text(&r));
    }
    assert!(server.session_count() <= 2);
    drop((a, b));
    server.shutdown();
}

#[tokio::test]
async fn idle_sessions_expire_and_used_ones_do_not() {
    // Long enough that a loaded machine's stall between two uses (250 ms apart) does not let
    // the used session expire.
    let idle = Duration::from_secs(3);
    let server = start_with(8, idle, Arc::new(common::NoTabs)).await;
    let c = Raw::new(&server);
    let quiet = c.open().await;
    let busy = c.open().await;
    let until = tokio::time::Instant::now() + idle * 3;
    while tokio::time::Instant::now() < until {
        assert_eq!(c.use_session(&busy).await, 200);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(c.use_session(&quiet).await, 404, "the idle session expired");
    assert_eq!(c.use_session(&busy).await, 200);
    assert_eq!(server.session_count(), 1);
    server.shutdown();
}

/// Whether the server closed `s` (EOF or reset) within `within`.
async fn closed_within(s: &mut tokio::net::TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 256];
    matches!(
        tokio::time::timeout(within, s.read(&mut buf)).await,
        Ok(Ok(0)) | Ok(Err(_))
    )
}

/// Anything on the machine can connect without the token. Connections that trickle their
/// headers ("slowloris") are closed after the header timeout, and past the connection cap the
/// oldest of those is closed to make room, so such a process can neither take the browser's
/// file descriptors nor keep a client out: a real client connects while the flood is held.
#[tokio::test]
async fn slow_connections_cannot_keep_a_client_out_and_are_closed() {
    let server = start().await;
    let addr = server.addr();
    let partial = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
    let mut held = Vec::new();
    for _ in 0..300 {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(partial.as_bytes()).await.unwrap();
        held.push(s);
    }
    // Past the cap of 256, the oldest were closed to make room for the newest.
    let first = &mut held[0];
    assert!(
        closed_within(first, Duration::from_secs(5)).await,
        "the oldest slow connection was kept past the cap"
    );
    // A client gets in while the flood is held, and works.
    let client = connect(&server.url(), server.token().expose()).await;
    let tools = client
        .list_all_tools()
        .await
        .expect("tools/list during the flood");
    assert!(!tools.is_empty());
    // The rest are closed for never finishing their headers.
    let last = held.last_mut().unwrap();
    assert!(
        closed_within(last, Duration::from_secs(25)).await,
        "a connection trickling its headers was kept open"
    );
    drop(held);
}
