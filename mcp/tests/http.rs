//! The streamable-HTTP listener, through rmcp's real client and through raw HTTP for the
//! requests a well-behaved client would never send.

#![forbid(unsafe_code)]

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use aperture_mcp::tools::MAX_TOOLS;
use aperture_mcp::{HttpConfig, HttpServer, ServeError, Token, serve_http};
use aperture_testkit::mcp::{connect, try_connect};
use common::call;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

async fn start() -> HttpServer {
    let config = HttpConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        token: Token::generate(),
        ..HttpConfig::default()
    };
    serve_http(config, Arc::new(common::NoTabs))
        .await
        .expect("listener")
}

/// Sends one raw HTTP/1.1 POST of an initialize request and returns the status code.
async fn raw_post(addr: SocketAddr, headers: &[(&str, String)]) -> u16 {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = String::from("POST /mcp HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n");
    req.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{INIT}",
        INIT.len()
    ));
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 512];
    let mut got = 0;
    while got < 12 {
        let n = s.read(&mut buf[got..]).await.unwrap();
        assert!(n > 0, "connection closed before a status line");
        got += n;
    }
    let line = String::from_utf8_lossy(&buf[..got]);
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn host(addr: SocketAddr) -> (&'static str, String) {
    ("Host", format!("127.0.0.1:{}", addr.port()))
}

fn bearer(t: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {t}"))
}

#[tokio::test]
async fn real_client_initializes_and_lists_a_small_valid_tool_set() {
    let server = start().await;
    let client = connect(&server.url(), server.token().expose()).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("aperture")
    );
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("untrusted-page-content"), "{instructions}");

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let mut expected = vec![
        "browser_act",
        "browser_capture",
        "browser_console",
        "browser_container",
        "browser_fill_form",
        "browser_navigate",
        "browser_profile",
        "browser_read",
        "browser_snapshot",
        "browser_tabs",
        "browser_theme",
        "vault_entries_for_origin",
        "vault_request_fill",
    ];
    expected.sort();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(sorted, expected);
    assert!(names.len() <= MAX_TOOLS, "{names:?}");
    for t in &tools {
        let schema = serde_json::Value::Object((*t.input_schema).clone());
        assert_eq!(schema["type"], "object", "{}: {schema}", t.name);
        assert!(schema["properties"].is_object(), "{}: {schema}", t.name);
        // Every declared-required property exists.
        if let Some(req) = schema["required"].as_array() {
            for r in req {
                assert!(
                    schema["properties"].get(r.as_str().unwrap()).is_some(),
                    "{}: {r}",
                    t.name
                );
            }
        }
        let a = t
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no annotations", t.name));
        assert!(a.read_only_hint.is_some(), "{}", t.name);
        assert!(a.open_world_hint.is_some(), "{}", t.name);
        if a.read_only_hint == Some(false) {
            assert!(
                a.destructive_hint.is_some() && a.idempotent_hint.is_some(),
                "{}",
                t.name
            );
        }
        assert!(
            t.description.as_deref().is_some_and(|d| d.len() > 40),
            "{}",
            t.name
        );
    }
    // The envelope is explained in exactly one tool description.
    let explaining = tools
        .iter()
        .filter(|t| {
            t.description
                .as_deref()
                .unwrap_or("")
                .contains("untrusted-page-content")
        })
        .count();
    assert_eq!(explaining, 1);

    // The in-test backend has no tabs: a call is answered with a tool error, not a crash.
    let r = call(&client, "browser_snapshot", serde_json::json!({})).await;
    assert_eq!(r.is_error, Some(true));
    drop(client);
    server.shutdown();
}

#[tokio::test]
async fn real_client_without_the_token_is_turned_away() {
    let server = start().await;
    assert!(try_connect(&server.url(), None).await.is_err());
    assert!(try_connect(&server.url(), Some("not-the-token")).await.is_err());
    server.shutdown();
}

#[tokio::test]
async fn missing_or_wrong_token_is_401() {
    let server = start().await;
    let addr = server.addr();
    assert_eq!(raw_post(addr, &[host(addr)]).await, 401);
    assert_eq!(raw_post(addr, &[host(addr), bearer("wrong")]).await, 401);
    let almost = &server.token().expose()[..42];
    assert_eq!(raw_post(addr, &[host(addr), bearer(almost)]).await, 401);
    assert_eq!(
        raw_post(
            addr,
            &[
                host(addr),
                ("Authorization", format!("Basic {}", server.token().expose()))
            ]
        )
        .await,
        401
    );
    // The right token passes the gate (whatever the MCP layer then says, it is not 401/403).
    let ok = raw_post(addr, &[host(addr), bearer(server.token().expose())]).await;
    assert_eq!(ok, 200);
    server.shutdown();
}

#[tokio::test]
async fn foreign_origin_is_403_even_with_the_token() {
    let server = start().await;
    let addr = server.addr();
    let t = server.token().expose().to_string();
    for origin in ["https://evil.example", "null", "http://127.0.0.1:1"] {
        let code = raw_post(addr, &[host(addr), bearer(&t), ("Origin", origin.into())]).await;
        assert_eq!(code, 403, "{origin}");
    }
    let own = format!("http://localhost:{}", addr.port());
    assert_eq!(
        raw_post(addr, &[host(addr), bearer(&t), ("Origin", own)]).await,
        200
    );
    server.shutdown();
}

#[tokio::test]
async fn foreign_host_is_refused_even_with_the_token() {
    let server = start().await;
    let addr = server.addr();
    let t = server.token().expose().to_string();
    for h in [
        format!("evil.example:{}", addr.port()),
        format!("127.0.0.1.nip.io:{}", addr.port()),
        "127.0.0.1".to_string(),
        "localhost:1".to_string(),
    ] {
        let code = raw_post(addr, &[("Host", h.clone()), bearer(&t)]).await;
        assert_eq!(code, 403, "{h}");
    }
    assert_eq!(
        raw_post(
            addr,
            &[("Host", format!("localhost:{}", addr.port())), bearer(&t)]
        )
        .await,
        200
    );
    server.shutdown();
}

#[tokio::test]
async fn non_loopback_bind_is_refused() {
    for a in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8817"] {
        let config = HttpConfig {
            addr: a.parse().unwrap(),
            token: Token::generate(),
            ..HttpConfig::default()
        };
        match serve_http(config, Arc::new(common::NoTabs)).await {
            Err(ServeError::NotLoopback(_)) => {}
            other => panic!("{a}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn config_line_and_file_name_this_listener() {
    let server = start().await;
    let line = server.claude_add_line();
    assert!(line.starts_with("claude mcp add --transport http aperture http://127.0.0.1:"));
    assert!(line.ends_with(&format!(
        "/mcp -H \"Authorization: Bearer {}\"",
        server.token().expose()
    )));
    let json = aperture_mcp::mcp_json(server.addr(), server.token());
    let mut h = HashMap::new();
    h.insert("Authorization", format!("Bearer {}", server.token().expose()));
    assert_eq!(
        json["mcpServers"]["aperture"]["headers"]["Authorization"],
        h["Authorization"]
    );
    // The tests of every crate find a launched browser through this file (testkit's reader,
    // not this crate's writer), so the two must agree on its place and shape.
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("aperture");
    aperture_mcp::config::write_mcp_json_in(&dir, server.addr(), server.token()).unwrap();
    assert_eq!(aperture_testkit::mcp_json_path(home.path()), dir.join("mcp.json"));
    let found = aperture_testkit::read_endpoint(home.path()).expect("endpoint from mcp.json");
    assert_eq!(found.url, server.url());
    assert_eq!(found.token, server.token().expose());
    server.shutdown();
}

#[tokio::test]
async fn ipv6_loopback_listener_accepts_its_own_host_name() {
    let config = HttpConfig {
        addr: "[::1]:0".parse().unwrap(),
        token: Token::generate(),
        ..HttpConfig::default()
    };
    // Machines without IPv6 loopback cannot run this; that is not a failure of the listener.
    let Ok(server) = serve_http(config, Arc::new(common::NoTabs)).await else {
        eprintln!("no IPv6 loopback here; skipping");
        return;
    };
    let addr = server.addr();
    let t = server.token().expose().to_string();
    let code = raw_post(addr, &[("Host", format!("[::1]:{}", addr.port())), bearer(&t)]).await;
    assert_eq!(code, 200);
    server.shutdown();
}

#[tokio::test]
async fn sessions_share_the_browser_but_not_their_page_models() {
    let fake = common::Fake::new();
    fake.add_tab(
        common::Page::list("https://shop.example/", &["apples", "bread"]),
        true,
    );
    let server = serve_http(
        HttpConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            token: Token::generate(),
            ..HttpConfig::default()
        },
        fake.clone(),
    )
    .await
    .unwrap();
    let a = connect(&server.url(), server.token().expose()).await;
    let b = connect(&server.url(), server.token().expose()).await;
    let snap = call(&a, "browser_snapshot", serde_json::json!({})).await;
    let snap = common::text(&snap);
    assert!(snap.contains("e2 button \"Remove bread\""), "{snap}");
    // A ref from one session's snapshot means nothing in another: each session acts on
    // what it observed itself (issue 18), and nothing reaches the page.
    let r = call(
        &b,
        "browser_act",
        serde_json::json!({"action": "click", "ref": "e2"}),
    )
    .await;
    let refused = common::text(&r);
    assert_eq!(r.is_error, Some(true), "{refused}");
    assert!(refused.contains("not been observed"), "{refused}");
    assert_eq!(
        fake.page(aperture_mcp::backend::TabId(1)).rows,
        ["apples", "bread"]
    );
    // The refusal answers with the page as it is: B's own first look, in full.
    assert!(
        refused.contains("FULL SNAPSHOT") && refused.contains("e2 button \"Remove bread\""),
        "{refused}"
    );
    let r = call(
        &b,
        "browser_act",
        serde_json::json!({"action": "click", "ref": "e2"}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", common::text(&r));
    assert_eq!(fake.page(aperture_mcp::backend::TabId(1)).rows, ["apples"]);
    drop((a, b));
    server.shutdown();
}

#[tokio::test]
async fn actions_on_one_tab_never_interleave() {
    let fake = common::Fake::new();
    fake.add_tab(
        common::Page::list("https://shop.example/", &["apples", "bread"]),
        true,
    );
    let server = serve_http(
        HttpConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            token: Token::generate(),
            ..HttpConfig::default()
        },
        fake.clone(),
    )
    .await
    .unwrap();
    let a = connect(&server.url(), server.token().expose()).await;
    let b = connect(&server.url(), server.token().expose()).await;
    call(&a, "browser_snapshot", serde_json::json!({})).await;
    call(&b, "browser_snapshot", serde_json::json!({})).await;
    // Long enough that the second call arrives while the first is still inside, even on a
    // loaded machine (otherwise they cannot overlap and the check below passes trivially).
    fake.state.lock().unwrap().click_delay = Some(std::time::Duration::from_millis(1000));
    let click = |c, r: &str| call(c, "browser_act", serde_json::json!({"action": "click", "ref": r}));
    let (ra, rb) = tokio::join!(click(&a, "e1"), click(&b, "e2"));
    assert_ne!(ra.is_error, Some(true));
    assert_ne!(rb.is_error, Some(true));
    let clicks: Vec<String> = fake
        .log()
        .into_iter()
        .filter(|l| l.starts_with("click"))
        .collect();
    assert_eq!(clicks.len(), 4, "{clicks:?}");
    assert_eq!(clicks[0], "click start");
    assert_ne!(
        clicks[1], "click start",
        "two clicks on one tab overlapped: {clicks:?}"
    );
    assert_eq!(clicks[2], "click start");
    assert!(fake.page(aperture_mcp::backend::TabId(1)).rows.is_empty());
    drop((a, b));
    server.shutdown();
}
