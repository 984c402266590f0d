//! The official MCP Python SDK against the listener: it connects, lists the tools and closes
//! without a warning (in particular not `Session termination failed: 202`, which it logged on
//! every close while a session DELETE was answered 202).
//!
//! Runs only where a Python with the `mcp` package is at hand: `$APERTURE_TEST_PYTHON`, else
//! `python3`. Elsewhere it prints why it skipped and passes; the DELETE status itself is
//! asserted at the HTTP level in `http_hardening.rs`, which always runs.

#![forbid(unsafe_code)]

#[allow(unused_imports)] // the shared client helpers are not all used here
mod common;

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use aperture_mcp::{HttpConfig, Token, serve_http};

const CLIENT: &str = r#"
import asyncio, logging, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                    format="%(levelname)s %(name)s: %(message)s")
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

async def main(url, token):
    async with create_mcp_http_client(headers={"Authorization": "Bearer " + token}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                print("TOOLS", len(tools.tools), flush=True)
    print("CLOSED", flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"#;

/// The interpreter to use, or why there is none.
async fn python_with_mcp() -> Result<String, String> {
    let python = std::env::var("APERTURE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let probe = tokio::process::Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m, mcp.client.streamable_http; print(m.version('mcp'))",
        ])
        .stdin(Stdio::null())
        .output()
        .await;
    match probe {
        Err(e) => Err(format!("cannot run {python}: {e}")),
        Ok(o) if !o.status.success() => Err(format!(
            "{python} has no usable `mcp` package (pip install mcp): {}",
            String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or("")
        )),
        Ok(o) => {
            let version = String::from_utf8_lossy(&o.stdout).trim().to_string();
            eprintln!("using {python} with mcp {version}");
            Ok(python)
        }
    }
}

#[tokio::test]
async fn python_sdk_connects_lists_tools_and_closes_cleanly() {
    let python = match python_with_mcp().await {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED python_sdk_connects_lists_tools_and_closes_cleanly: {why}");
            return;
        }
    };
    let server = serve_http(
        HttpConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            token: Token::generate(),
            ..HttpConfig::default()
        },
        Arc::new(common::NoTabs),
    )
    .await
    .expect("listener");
    let run = tokio::process::Command::new(&python)
        .args(["-c", CLIENT, &server.url(), server.token().expose()])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the Python client finished within a minute")
        .expect("ran the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("TOOLS 13"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("CLOSED"), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        !stderr.contains("Session termination failed"),
        "the SDK did not close cleanly:\n{stderr}"
    );
    assert!(
        !stderr.contains("WARNING") && !stderr.contains("ERROR"),
        "the SDK complained:\n{stderr}"
    );
    // The DELETE it sent on close ended the session on our side too.
    assert_eq!(server.session_count(), 0);
    server.shutdown();
}
