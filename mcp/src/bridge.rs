//! `aperture mcp` for stdio-only hosts when a browser already runs on the profile: every
//! JSON-RPC message read from stdin is posted to that browser's streamable-HTTP endpoint with
//! its bearer token, and every message it answers (a JSON body or the `data:` lines of an
//! event stream) is written to stdout, one per line.
//!
//! The bridge forwards bytes, not tools: it needs no change when a tool does, and the agent
//! gets exactly the answers an HTTP client would. It runs each request on its own task, so a
//! long `wait` step does not hold up a cancellation or another call; only `initialize` is
//! awaited inline, because every later message needs the session id it returns. A session the
//! browser dropped (idle, or the browser's session cap) is opened again transparently by
//! replaying the host's own `initialize`.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Where the running browser listens, and the token it wants.
#[derive(Debug, Clone)]
pub struct BridgeTarget {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The bearer token.
    pub token: String,
}

/// Why the bridge stopped before the host closed stdin.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// Reading stdin or writing stdout failed.
    #[error("the MCP host's pipe failed: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Default)]
struct Session {
    id: Option<String>,
    protocol: Option<String>,
    /// The host's `initialize`, replayed when the browser has forgotten the session.
    init: Option<String>,
}

struct Bridge {
    target: BridgeTarget,
    http: reqwest::Client,
    session: Mutex<Session>,
    out: mpsc::UnboundedSender<String>,
}

/// Bridges stdin/stdout to `target` until the host closes stdin.
pub async fn bridge_stdio(target: BridgeTarget) -> Result<(), BridgeError> {
    bridge_io(target, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`bridge_stdio`] over any byte streams (for tests).
pub async fn bridge_io<R, W>(target: BridgeTarget, read: R, mut write: W) -> Result<(), BridgeError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            write.write_all(line.as_bytes()).await?;
            write.write_all(b"\n").await?;
            write.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let bridge = Arc::new(Bridge {
        target,
        // Loopback only, so no proxy: a proxy from the environment would see the token.
        http: reqwest::Client::builder()
            .no_proxy()
            // Retired before the listener closes an idle connection (its header timeout).
            .pool_idle_timeout(std::time::Duration::from_secs(5))
            .build()
            .map_err(std::io::Error::other)?,
        session: Mutex::new(Session::default()),
        out: tx,
    });
    let mut lines = BufReader::new(read).lines();
    let mut inflight = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await? {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let msg: Option<Value> = serde_json::from_str(line).ok();
        let method = msg.as_ref().and_then(|m| m.get("method")).and_then(Value::as_str);
        if method == Some("initialize") {
            bridge.session.lock().expect("session").init = Some(line.to_string());
            bridge.post(line.to_string(), msg).await;
        } else {
            let (b, line) = (bridge.clone(), line.to_string());
            inflight.spawn(async move { b.post(line, msg).await });
        }
        // Finished tasks are reaped as we go, so a long session does not accumulate them.
        while inflight.try_join_next().is_some() {}
    }
    while inflight.join_next().await.is_some() {}
    bridge.end_session().await;
    drop(bridge);
    writer.await.map_err(std::io::Error::other)??;
    Ok(())
}

impl Bridge {
    fn request(&self, body: String) -> reqwest::RequestBuilder {
        let s = self.session.lock().expect("session");
        let mut r = self
            .http
            .post(&self.target.url)
            .bearer_auth(&self.target.token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(id) = &s.id {
            r = r.header("mcp-session-id", id);
        }
        if let Some(v) = &s.protocol {
            r = r.header("mcp-protocol-version", v);
        }
        r
    }

    /// Posts one message and forwards whatever comes back; failures become JSON-RPC errors
    /// for requests (so the host's call ends with a reason) and a log line for notifications.
    async fn post(&self, line: String, msg: Option<Value>) {
        let id = msg.as_ref().and_then(|m| m.get("id")).cloned();
        let is_init =
            msg.as_ref().and_then(|m| m.get("method")).and_then(Value::as_str) == Some("initialize");
        let mut resp = self.request(line.clone()).send().await;
        // The browser forgot the session (idle timeout, restart of its listener): open a new
        // one with the host's own initialize and send the message again, once.
        if !is_init
            && resp
                .as_ref()
                .is_ok_and(|r| r.status() == reqwest::StatusCode::NOT_FOUND)
            && self.reinitialize().await
        {
            resp = self.request(line).send().await;
        }
        let resp = match resp {
            Ok(r) => r,
            Err(e) => {
                let why = format!(
                    "the browser's MCP endpoint {} is not reachable ({}); it may have quit — start it again",
                    self.target.url,
                    root_cause(&e)
                );
                self.fail(id, &why);
                return;
            }
        };
        let status = resp.status();
        if is_init && let Some(sid) = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            self.session.lock().expect("session").id = Some(sid.to_string());
        }
        if status == reqwest::StatusCode::ACCEPTED || status == reqwest::StatusCode::NO_CONTENT {
            return;
        }
        let sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        if sse {
            self.forward_events(resp, is_init).await;
            return;
        }
        let body = resp.bytes().await.unwrap_or_default();
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) if v.get("jsonrpc").is_some() || v.is_array() => self.emit(v, is_init),
            _ if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN => {
                self.fail(
                    id,
                    &format!(
                        "the browser refused the bridge (HTTP {status}): its token changed; run `aperture mcp` again"
                    ),
                )
            }
            _ => {
                let text = String::from_utf8_lossy(&body);
                let text: String = text.chars().take(300).collect();
                self.fail(id, &format!("the browser answered HTTP {status}: {}", text.trim()))
            }
        }
    }

    /// Forwards the `data:` payloads of an event stream, one message per event.
    async fn forward_events(&self, resp: reqwest::Response, is_init: bool) {
        let mut stream = resp.bytes_stream();
        let mut buf: Vec<u8> = Vec::new();
        while let Some(chunk) = stream.next().await {
            let Ok(chunk) = chunk else { break };
            buf.extend_from_slice(&chunk);
            while let Some(end) = event_end(&buf) {
                let event: Vec<u8> = buf.drain(..end.1).collect();
                let text = String::from_utf8_lossy(&event[..end.0]);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                if data.is_empty() {
                    continue;
                }
                if let Ok(v) = serde_json::from_str::<Value>(&data.join("\n")) {
                    self.emit(v, is_init);
                }
            }
        }
    }

    /// Writes one message for the host (compact: one line), noting the protocol version the
    /// browser chose in its `initialize` answer.
    fn emit(&self, v: Value, is_init: bool) {
        if is_init && let Some(p) = v.pointer("/result/protocolVersion").and_then(Value::as_str) {
            self.session.lock().expect("session").protocol = Some(p.to_string());
        }
        let _ = self.out.send(v.to_string());
    }

    fn fail(&self, id: Option<Value>, why: &str) {
        tracing::warn!("mcp bridge: {why}");
        if let Some(id) = id {
            let err = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": { "code": -32000, "message": why },
            });
            let _ = self.out.send(err.to_string());
        }
    }

    /// Opens a fresh session by replaying the host's `initialize` (its answer is not
    /// forwarded: the host already has one) and `notifications/initialized`.
    async fn reinitialize(&self) -> bool {
        let init = {
            let mut s = self.session.lock().expect("session");
            s.id = None;
            s.init.clone()
        };
        let Some(init) = init else { return false };
        let Ok(r) = self.request(init).send().await else {
            return false;
        };
        let Some(sid) = r.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
            return false;
        };
        self.session.lock().expect("session").id = Some(sid.to_string());
        drop(r.bytes().await);
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string();
        self.request(note).send().await.is_ok()
    }

    /// Tells the browser the session is over, so it does not wait for its idle timeout.
    async fn end_session(&self) {
        let id = self.session.lock().expect("session").id.take();
        if let Some(id) = id {
            let _ = self
                .http
                .delete(&self.target.url)
                .bearer_auth(&self.target.token)
                .header("mcp-session-id", id)
                .send()
                .await;
        }
    }
}

/// The end of the first complete event in `buf`: (end of its text, end including the blank
/// line), for either line ending.
fn event_end(buf: &[u8]) -> Option<(usize, usize)> {
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|p| (p, p + 2));
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| (p, p + 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

pub(crate) fn root_cause(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_browser_that_is_gone_is_an_error_answer_not_silence() {
        // A port nothing listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let target = BridgeTarget {
            url: format!("http://127.0.0.1:{port}/mcp"),
            token: "t".into(),
        };
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{}}\n\
                      {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
        let (w, mut r) = tokio::io::duplex(1 << 16);
        bridge_io(target, &input[..], w).await.unwrap();
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut r, &mut out)
            .await
            .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        // One answer, for the request; the notification has nobody to answer.
        assert_eq!(lines.len(), 1, "{out}");
        let v: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(v["id"], 7);
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("not reachable") && msg.contains(&port.to_string()),
            "{msg}"
        );
    }

    #[test]
    fn events_split_on_either_line_ending() {
        assert_eq!(event_end(b"data: 1\n\ndata: 2"), Some((7, 9)));
        assert_eq!(event_end(b"data: 1\r\n\r\n"), Some((7, 11)));
        assert_eq!(event_end(b"data: 1\n"), None);
    }
}
