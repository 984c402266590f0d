//! MCP end to end: a real rmcp client over streamable HTTP against the real headless browser
//! (`aperture --headless --mcp-port PORT`), on a fixture served locally.

use aperture_testkit::mcp::{call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server, eventually};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A list whose every click re-renders all rows from scratch (new DOM nodes each time), the
/// case stable refs exist for.
const FIXTURE: &str = r#"<!doctype html><html><head><title>Fixture list</title></head><body>
<h1>Shopping list</h1><ul id="list"></ul>
<button id="slow">Check out</button><p id="status">basket open</p>
<script>
// A handler that keeps the renderer busy before it changes the page: the act's answer must
// still show the change (input and observation travel on different channels).
document.getElementById("slow").onclick = () => {
  const end = performance.now() + 400;
  while (performance.now() < end) {}
  document.getElementById("status").textContent = "basket checked out";
};
let rows = ["apples", "bread", "cheese"];
function render() {
  const ul = document.getElementById("list");
  ul.innerHTML = "";
  for (const r of rows) {
    const li = document.createElement("li");
    li.textContent = r + " ";
    const b = document.createElement("button");
    b.textContent = "Remove " + r;
    b.onclick = () => { rows = rows.filter(x => x !== r); render(); };
    li.appendChild(b);
    ul.appendChild(li);
  }
}
render();
</script></body></html>"#;

/// The browser under test, with a throwaway profile and config dir.
async fn launch() -> McpBrowser {
    // `APERTURE_BIN` when set: .ci/sandbox runs a copy of this test as an unprivileged user.
    Launch::from_env_or(env!("CARGO_BIN_EXE_aperture")).start().await
}

/// The ref of the button whose snapshot line mentions `needle`.
fn ref_for(snapshot: &str, needle: &str) -> String {
    role_ref(snapshot, "button", needle)
}

#[tokio::test]
async fn navigate_snapshot_act_diff_and_stale_ref() {
    let browser = launch().await;
    let server = Server::page(FIXTURE);
    let fixture = server.url("/");
    let c = browser.connect().await;
    let tools = c.list_all_tools().await.unwrap();
    assert!(tools.len() <= 14);

    let r = call(&c, "browser_tabs", json!({"action": "open"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let r = call(&c, "browser_navigate", json!({"action": "goto", "url": fixture})).await;
    let snap = text(&r);
    assert_ne!(r.is_error, Some(true), "{snap}");
    assert!(snap.contains("FULL SNAPSHOT"), "{snap}");
    let bread = ref_for(&snap, "Remove bread");
    let cheese = ref_for(&snap, "Remove cheese");

    let r = call(&c, "browser_act", json!({"action": "click", "ref": bread})).await;
    let diff = text(&r);
    assert_ne!(r.is_error, Some(true), "{diff}");
    assert!(!diff.contains("FULL SNAPSHOT"), "expected a diff:\n{diff}");
    // The header names the clicked ref too; only a `gone:` list proves the row died.
    assert!(
        diff.lines()
            .any(|l| l.contains("gone:") && l.split_whitespace().any(|w| w.trim_matches(',') == bread)),
        "the diff should report {bread} gone:\n{diff}"
    );

    let r = call(&c, "browser_act", json!({"action": "click", "ref": bread})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("refused"), "{}", text(&r));

    // The re-render replaced every node, yet the surviving row's ref still works.
    let r = call(&c, "browser_act", json!({"action": "click", "ref": cheese})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let r = call(&c, "browser_read", json!({})).await;
    let page = text(&r);
    assert!(page.contains("apples") && !page.contains("cheese"), "{page}");

    let slow = ref_for(&snap, "Check out");
    let r = call(&c, "browser_act", json!({"action": "click", "ref": slow})).await;
    let diff = text(&r);
    assert_ne!(r.is_error, Some(true), "{diff}");
    assert!(
        diff.contains("basket checked out"),
        "the answer missed the handler's change:\n{diff}"
    );
}

#[tokio::test]
async fn listener_refuses_missing_token_and_foreign_origin() {
    let browser = launch().await;
    let addr = browser.endpoint().host_port().to_string();
    let post = |headers: Vec<(String, String)>| {
        let addr = addr.clone();
        async move {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
            let mut req = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
            for (k, v) in headers {
                req.push_str(&format!("{k}: {v}\r\n"));
            }
            req.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ));
            s.write_all(req.as_bytes()).await.unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out).await;
            out.split_whitespace()
                .nth(1)
                .unwrap_or("0")
                .parse::<u16>()
                .unwrap()
        }
    };
    assert_eq!(post(vec![]).await, 401);
    assert_eq!(
        post(vec![
            ("Authorization".into(), format!("Bearer {}", browser.token())),
            ("Origin".into(), "https://evil.example".into()),
        ])
        .await,
        403
    );
}

#[tokio::test]
async fn agent_navigation_policy_refuses_schemes_and_private_addresses() {
    let browser = launch().await;
    let c = browser.connect().await;
    let r = call(&c, "browser_tabs", json!({"action": "open"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    for (url, rule) in [
        ("file:///etc/passwd", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://localhost:1/", "localhost"),
    ] {
        let r = call(&c, "browser_navigate", json!({"action": "goto", "url": url})).await;
        let t = text(&r);
        assert_eq!(r.is_error, Some(true), "{url} was not refused: {t}");
        assert!(
            t.contains("rule") && t.to_lowercase().contains(rule),
            "{url}: the refusal names the rule {rule:?}: {t}"
        );
    }
}

/// A page that fetches `/missing`, which the server answers with a 404.
const FETCHING: &str = "<!doctype html><title>f</title><script>fetch('/missing')</script>";

#[tokio::test]
async fn console_reports_a_fetch_that_failed() {
    let browser = launch().await;
    let server = Server::page(FETCHING);
    let page = server.url("/");
    let c = browser.connect().await;
    let r = call(&c, "browser_tabs", json!({"action": "open"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let r = call(&c, "browser_navigate", json!({"action": "goto", "url": page})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    // The console drains on each read: keep what every read said.
    let mut seen = String::new();
    eventually(Duration::from_secs(20), "a failed request reported", async || {
        let r = call(&c, "browser_console", json!({})).await;
        seen.push_str(&text(&r));
        (seen.contains("404"), seen.clone())
    })
    .await;
    assert!(seen.contains("/missing"), "no failed request reported: {seen}");
}
