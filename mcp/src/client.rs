//! A small MCP client for the command line (`aperture snapshot`, `aperture click e12`, …):
//! one tool call per process, against the browser's streamable-HTTP listener, in an MCP
//! session that outlives the process. The session id is kept in a 0600 file beside the
//! profile's endpoint, so the server-side diff baseline carries over between invocations: a
//! second `aperture snapshot` with nothing changed answers with the no-change line.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::bridge::BridgeTarget;

/// What a tool answered.
#[derive(Debug, Clone)]
pub struct ToolAnswer {
    /// The text blocks, joined by newlines.
    pub text: String,
    /// Images (MIME type, base64 data), e.g. from `browser_capture`.
    pub images: Vec<(String, String)>,
    /// The tool reported an error or a refusal.
    pub is_error: bool,
    /// The JSON-RPC `result`, for `--json`.
    pub raw: Value,
}

/// Why a call did not produce a tool answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nothing answers at the endpoint (the browser quit).
    #[error("the browser at {url} is not reachable: {why}")]
    Unreachable {
        /// The endpoint.
        url: String,
        /// What the connection said.
        why: String,
    },
    /// The browser answered something that is not a tool result.
    #[error("{0}")]
    Protocol(String),
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    url: String,
    session: String,
}

/// A command-line MCP client with a persistent session.
pub struct CliClient {
    target: BridgeTarget,
    session_file: PathBuf,
    http: reqwest::Client,
    session: Option<String>,
    next_id: u64,
}

impl CliClient {
    /// A client for `target` whose session id lives in `session_file` (reused when it names
    /// the same endpoint).
    pub fn new(target: BridgeTarget, session_file: PathBuf) -> CliClient {
        let session = std::fs::read(&session_file)
            .ok()
            .and_then(|b| serde_json::from_slice::<Saved>(&b).ok())
            .filter(|s| s.url == target.url)
            .map(|s| s.session);
        CliClient {
            target,
            session_file,
            // Loopback only: a proxy from the environment must never see the token.
            http: reqwest::Client::builder()
                .no_proxy()
                // Retired before the listener closes an idle connection (its header timeout).
                .pool_idle_timeout(std::time::Duration::from_secs(5))
                .build()
                .expect("a plain HTTP client"),
            session,
            next_id: 1,
        }
    }

    /// Calls `tool` with `args`, opening (or re-opening) the session as needed.
    pub async fn call(&mut self, tool: &str, args: Value) -> Result<ToolAnswer, ClientError> {
        if self.session.is_none() {
            self.initialize().await?;
        }
        let params = json!({"name": tool, "arguments": args});
        let r = match self.request("tools/call", params.clone()).await {
            // The browser forgot the session (it restarted, or the session idled out).
            Err(Gone) => {
                self.initialize().await?;
                self.request("tools/call", params).await.map_err(|_| {
                    ClientError::Protocol("the browser dropped the new MCP session at once".into())
                })?
            }
            Ok(r) => r,
        }?;
        if let Some(e) = r.get("error") {
            return Err(ClientError::Protocol(format!(
                "{tool}: {}",
                e.get("message").and_then(Value::as_str).unwrap_or("error")
            )));
        }
        let result = r.get("result").cloned().unwrap_or(Value::Null);
        let mut text = Vec::new();
        let mut images = Vec::new();
        for c in result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match c.get("type").and_then(Value::as_str) {
                Some("text") => text.push(c.get("text").and_then(Value::as_str).unwrap_or("").to_string()),
                Some("image") => images.push((
                    c.get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    c.get("data").and_then(Value::as_str).unwrap_or("").to_string(),
                )),
                _ => {}
            }
        }
        Ok(ToolAnswer {
            text: text.join("\n"),
            images,
            is_error: result.get("isError").and_then(Value::as_bool).unwrap_or(false),
            raw: result,
        })
    }

    async fn initialize(&mut self) -> Result<(), ClientError> {
        self.session = None;
        let params = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "aperture-cli", "version": env!("CARGO_PKG_VERSION")},
        });
        let msg = self.message("initialize", params);
        let (resp, sid) = self
            .post(msg)
            .await
            .map_err(|_| ClientError::Protocol("the browser refused to open an MCP session".into()))??;
        if resp.get("error").is_some() {
            return Err(ClientError::Protocol(format!("initialize: {resp}")));
        }
        let sid = sid.ok_or_else(|| ClientError::Protocol("the browser gave no MCP session id".into()))?;
        self.session = Some(sid.clone());
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let _ = self.send(note.to_string()).await;
        let saved = Saved {
            url: self.target.url.clone(),
            session: sid,
        };
        if let Ok(b) = serde_json::to_vec(&saved)
            && let Err(e) = aperture_common::fs::write_atomic(&self.session_file, &b)
        {
            tracing::warn!("could not keep the CLI's MCP session: {e}");
        }
        Ok(())
    }

    fn message(&mut self, method: &str, params: Value) -> String {
        let id = self.next_id;
        self.next_id += 1;
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Result<Value, ClientError>, Gone> {
        let m = self.message(method, params);
        Ok(self.post(m).await?.map(|(v, _)| v))
    }

    async fn send(&self, body: String) -> Result<reqwest::Response, ClientError> {
        let mut r = self
            .http
            .post(&self.target.url)
            .bearer_auth(&self.target.token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(s) = &self.session {
            r = r.header("mcp-session-id", s);
        }
        r.send().await.map_err(|e| ClientError::Unreachable {
            url: self.target.url.clone(),
            why: crate::bridge::root_cause(&e),
        })
    }

    /// Posts one request; answers its response and the session id header, or [`Gone`] when
    /// the server no longer knows the session.
    async fn post(&self, body: String) -> Result<Result<(Value, Option<String>), ClientError>, Gone> {
        let resp = match self.send(body).await {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_FOUND && self.session.is_some() {
            return Err(Gone);
        }
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let body = match resp.bytes().await {
            Ok(b) => b,
            Err(e) => {
                return Ok(Err(ClientError::Protocol(format!("reading the answer: {e}"))));
            }
        };
        if !status.is_success() {
            let text: String = String::from_utf8_lossy(&body).chars().take(300).collect();
            return Ok(Err(ClientError::Protocol(format!(
                "the browser answered HTTP {status}: {}",
                text.trim()
            ))));
        }
        let value = if sse {
            // The answer is the last event carrying a JSON-RPC response.
            let text = String::from_utf8_lossy(&body);
            text.split("\n\n")
                .filter_map(|ev| {
                    let data: Vec<&str> = ev
                        .lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .map(|d| d.strip_prefix(' ').unwrap_or(d))
                        .collect();
                    serde_json::from_str::<Value>(&data.join("\n")).ok()
                })
                .filter(|v| v.get("id").is_some())
                .last()
        } else {
            serde_json::from_slice::<Value>(&body).ok()
        };
        Ok(value
            .map(|v| (v, sid))
            .ok_or_else(|| ClientError::Protocol("the browser's answer was not JSON-RPC".into())))
    }
}

/// The server no longer knows our session.
struct Gone;
