//! The streamable-HTTP listener.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::auth::{Gate, Token, gate};
use crate::backend::Backend;
use crate::server::Aperture;

mod sessions;

use sessions::SessionPool;

/// The port Aperture listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8817;

/// How many MCP sessions may be open at once. Far more than the few agents a human runs side
/// by side; low enough that a client leaking sessions cannot grow the browser without bound.
pub const DEFAULT_MAX_SESSIONS: usize = 64;

/// How long a session may go without a request before it is closed. Longer than a human's
/// usual pause between two prompts to an agent; the cap, not this, is what bounds memory.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// The largest POST body accepted (rmcp's own default; a tool call is a few kilobytes).
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Must be a loopback address. Port 0 picks a free port (see [`HttpServer::addr`]).
    pub addr: SocketAddr,
    /// The bearer token clients must present.
    pub token: Token,
    /// Most sessions open at once (at least 1). Past it, the least recently used session with
    /// no request in flight is closed to make room; when all are busy, a new session is
    /// refused with 503. See [`DEFAULT_MAX_SESSIONS`].
    pub max_sessions: usize,
    /// A session with no request for this long is closed; its client gets 404 next time and
    /// initializes again. See [`DEFAULT_SESSION_IDLE`].
    pub session_idle: Duration,
}

impl Default for HttpConfig {
    /// `127.0.0.1:8817` with a freshly generated token and the default session limits.
    fn default() -> Self {
        HttpConfig {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            token: Token::generate(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle: DEFAULT_SESSION_IDLE,
        }
    }
}

impl HttpConfig {
    /// The default configuration on another port.
    pub fn on_port(port: u16) -> HttpConfig {
        HttpConfig {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            ..HttpConfig::default()
        }
    }
}

/// Why the listener did not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Anything but loopback would expose the browser (and its logins) to the network.
    #[error("refusing to listen on {0}: the MCP listener binds loopback addresses only")]
    NotLoopback(SocketAddr),
    /// The socket could not be bound (port in use, permissions).
    #[error("could not listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why the bind failed.
        #[source]
        source: io::Error,
    },
}

/// A running listener.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    token: Token,
    shutdown: CancellationToken,
    task: JoinHandle<io::Result<()>>,
    pool: Arc<SessionPool>,
    hub: Arc<crate::server::Hub>,
}

impl HttpServer {
    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bearer token of this launch.
    pub fn token(&self) -> &Token {
        &self.token
    }

    /// How many MCP sessions are open now.
    pub fn session_count(&self) -> usize {
        self.pool.len()
    }

    /// How many page models (one per session and tab it observed) the sessions hold; a
    /// closed or expired session's are dropped with it. Tabs being acted on at this moment
    /// are not counted.
    pub fn page_models(&self) -> usize {
        self.hub.views()
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        crate::config::endpoint_url(self.addr)
    }

    /// The ready-to-paste `claude mcp add --transport http aperture …` line.
    pub fn claude_add_line(&self) -> String {
        crate::config::claude_add_line(self.addr, &self.token)
    }

    /// Writes this launch's `mcp.json` (0600) into the user's config dir.
    pub fn write_mcp_json(&self) -> io::Result<PathBuf> {
        crate::config::write_mcp_json(self.addr, &self.token)
    }

    /// What a launch does once listening: prints [`HttpServer::claude_add_line`] on stdout
    /// (the line a human pastes, and the line test harnesses read the token from) and writes
    /// `mcp.json`. A failure to write the file is returned after the line was printed, so the
    /// human can still connect.
    pub fn announce(&self) -> io::Result<PathBuf> {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", self.claude_add_line())?;
        out.flush()?;
        self.write_mcp_json()
    }

    /// Asks the listener to stop (in-flight streams are cancelled).
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }

    /// Waits until the listener has stopped.
    pub async fn wait(self) -> io::Result<()> {
        match self.task.await {
            Ok(r) => r,
            Err(e) => Err(io::Error::other(e)),
        }
    }
}

/// Starts the MCP listener for `backend` and returns once it is accepting connections.
pub async fn serve_http(config: HttpConfig, backend: Arc<dyn Backend>) -> Result<HttpServer, ServeError> {
    if !config.addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(config.addr));
    }
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: config.addr,
            source,
        })?;
    serve_listener(listener, config, backend).await
}

/// Serves MCP on a listener bound earlier (the browser takes its port before Chromium starts,
/// so a busy port is reported once, up front). The listener must be on a loopback address.
pub async fn serve_http_on(
    listener: std::net::TcpListener,
    token: Token,
    backend: Arc<dyn Backend>,
) -> Result<HttpServer, ServeError> {
    let addr = listener.local_addr().map_err(|source| ServeError::Bind {
        addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        source,
    })?;
    if !addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(addr));
    }
    let bind_err = |source| ServeError::Bind { addr, source };
    listener.set_nonblocking(true).map_err(bind_err)?;
    let listener = tokio::net::TcpListener::from_std(listener).map_err(bind_err)?;
    let config = HttpConfig {
        addr,
        token,
        max_sessions: DEFAULT_MAX_SESSIONS,
        session_idle: DEFAULT_SESSION_IDLE,
    };
    serve_listener(listener, config, backend).await
}

async fn serve_listener(
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    backend: Arc<dyn Backend>,
) -> Result<HttpServer, ServeError> {
    let addr = listener.local_addr().map_err(|source| ServeError::Bind {
        addr: config.addr,
        source,
    })?;
    let shutdown = CancellationToken::new();
    let port = addr.port();
    // rmcp's own Host/Origin validation stays on as a second layer behind the gate.
    let rmcp_config = StreamableHttpServerConfig::default()
        .with_allowed_origins([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_cancellation_token(shutdown.child_token());
    let aperture = Aperture::new(backend);
    let hub = aperture.hub.clone();
    let pool = Arc::new(SessionPool::new(config.max_sessions, config.session_idle));
    let service: StreamableHttpService<Aperture, SessionPool> =
        StreamableHttpService::new(move || Ok(aperture.share()), pool.clone(), rmcp_config);
    let gate_state = Gate {
        token: config.token.clone(),
        port,
    };
    // Layers run outside-in from the last one added: the gate first (nothing about the
    // request's shape is answered to a caller without the token), then `shape`, then rmcp.
    let router = Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(mark_served))
        .layer(axum::middleware::from_fn_with_state(pool.clone(), shape))
        .layer(axum::middleware::from_fn_with_state(gate_state, gate));
    let task = tokio::spawn(accept_loop(listener, router, shutdown.clone()));
    tracing::info!(%addr, "MCP listener ready");
    Ok(HttpServer {
        addr,
        token: config.token,
        shutdown,
        task,
        pool,
        hub,
    })
}

/// How many connections may be open at once. MCP clients hold a few each (a POST per call,
/// a GET stream); anything on the machine can connect without the token, so without a cap a
/// local process opening connections by the thousand exhausts the browser's file descriptors
/// and with them its tabs.
const MAX_CONNECTIONS: usize = 256;

/// How long a client may take to send a request's headers (a "slowloris" holding connections
/// open by trickling them); real clients send them in one write. Hyper counts an idle
/// keep-alive connection's wait for its next request too, so this also closes those: longer
/// than the pool idle time of common clients (undici 4 s, httpx 5 s, Aperture's own 5 s), so
/// they retire a connection before the server does.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection's flag: set once a request of it has passed the gate.
#[derive(Clone)]
struct Served(Arc<std::sync::atomic::AtomicBool>);

/// Behind the gate: the request's connection is a client's (it had the token).
async fn mark_served(req: Request, next: Next) -> Response {
    if let Some(Served(f)) = req.extensions().get::<Served>() {
        f.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    next.run(req).await
}

/// An open connection, in accept order: whether a request of it has passed the gate (so it
/// is a client's, not one holding a slot with half a request or without the token), and how
/// to close it.
struct Conn {
    id: u64,
    served: Arc<std::sync::atomic::AtomicBool>,
    close: CancellationToken,
}

/// Serves HTTP/1.1 on `listener` until `stop`: axum's `serve` with a connection cap and a
/// header-read timeout, which it does not offer. At the cap, the oldest connection none of
/// whose requests has passed the gate is closed to make room, so connections that trickle
/// half a request, or come without the token, cannot keep a client out; when every one is a
/// client's, the new one is closed. On stop, accepting ends, each connection finishes its
/// request in flight, and the loop waits (briefly) for them to close.
async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    stop: CancellationToken,
) -> io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tower::ServiceExt as _;
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let open: Arc<std::sync::Mutex<std::collections::VecDeque<Conn>>> = Arc::default();
    let mut next_id = 0u64;
    loop {
        let stream = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was taken: the
                    // listener itself is fine, so it goes on after a breath.
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(s) => s,
            Err(_) => {
                let evicted = {
                    let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
                    let at = open.iter().position(|c| !c.served.load(Ordering::Relaxed));
                    at.and_then(|i| open.remove(i))
                };
                let Some(old) = evicted else {
                    tracing::warn!(
                        "MCP listener: {MAX_CONNECTIONS} client connections open; closing a new one"
                    );
                    drop(stream);
                    continue;
                };
                old.close.cancel();
                // Its task gives the slot back as it ends.
                match tokio::time::timeout(Duration::from_secs(1), slots.clone().acquire_owned()).await {
                    Ok(Ok(s)) => s,
                    _ => {
                        drop(stream);
                        continue;
                    }
                }
            }
        };
        next_id += 1;
        let id = next_id;
        let served = Arc::new(AtomicBool::new(false));
        let close = CancellationToken::new();
        open.lock().unwrap_or_else(|e| e.into_inner()).push_back(Conn {
            id,
            served: served.clone(),
            close: close.clone(),
        });
        // The flag rides on each request; `mark_served`, behind the gate, sets it.
        let service = TowerToHyperService::new(router.clone().map_request(
            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(Served(served.clone()));
                req
            },
        ));
        let (stop, open) = (stop.clone(), open.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::trace!(error = %e, "MCP connection ended");
                    }
                }
                // Evicted to make room: dropped, which closes the socket.
                () = close.cancelled() => {}
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            open.lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|c| c.id != id);
            drop(slot);
        });
    }
    drop(listener);
    // Every slot back means every connection closed; streams end with the shutdown token.
    let _ = tokio::time::timeout(Duration::from_secs(5), slots.acquire_many(MAX_CONNECTIONS as u32)).await;
    Ok(())
}

/// JSON-RPC 2.0: the body is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: JSON, but not a request, notification or response the server understands.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0 implementation-defined server error: no session slot free.
const SERVER_BUSY: i64 = -32000;

/// What rmcp answers badly, answered here first (after the gate):
/// - a POST whose JSON body does not parse gets a JSON-RPC parse error (400) instead of rmcp's
///   415, which claims the media type was wrong and carries no JSON-RPC error;
/// - an `initialize` when every session slot is busy gets a 503 with a sentence (rmcp would
///   answer 500 "Encounter an error when create session");
/// - a successful session DELETE gets 200 instead of rmcp's 202, which the official Python
///   SDK reports as `Session termination failed: 202` on every close (it accepts 200 and 204).
async fn shape(State(pool): State<Arc<SessionPool>>, req: Request, next: Next) -> Response {
    match *req.method() {
        Method::DELETE => {
            let mut resp = next.run(req).await;
            if resp.status() == StatusCode::ACCEPTED {
                *resp.status_mut() = StatusCode::OK;
            }
            resp
        }
        // A body declared as something else is rmcp's to refuse (415 is right for that).
        Method::POST if declares_json(req.headers()) => post(&pool, req, next).await,
        _ => next.run(req).await,
    }
}

fn declares_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(e, _)| e);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

async fn post(pool: &SessionPool, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(b) => b,
        Err(e) => {
            let declared = parts
                .headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
            let (status, msg) = if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("payload too large: the request body exceeds {MAX_BODY_BYTES} bytes\n"),
                )
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    format!("could not read the request body: {e}\n"),
                )
            };
            return text_response(status, msg);
        }
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                serde_json::Value::Null,
                PARSE_ERROR,
                format!("Parse error: the request body is not JSON ({e})"),
            );
        }
    };
    // JSON-RPC echoes the request's id when it could be read, else null.
    let id = value
        .get("id")
        .filter(|v| v.is_string() || v.is_number())
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    // The same parse rmcp does next; failing here is what rmcp would have answered with 415.
    if let Err(e) = serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            INVALID_REQUEST,
            format!("Invalid Request: not a JSON-RPC 2.0 message this server understands ({e})"),
        );
    }
    let opens_session = !parts.headers.contains_key("mcp-session-id")
        && value.get("method").and_then(|m| m.as_str()) == Some("initialize");
    let req = Request::from_parts(parts, Body::from(bytes));
    if !opens_session {
        return next.run(req).await;
    }
    let _turn = pool.admission().await;
    if !pool.has_room() {
        tracing::warn!(
            max = pool.max(),
            "refused a new MCP session: every session is busy"
        );
        let mut resp = rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            id,
            SERVER_BUSY,
            sessions::full_sentence(pool.max()),
        );
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return resp;
    }
    next.run(req).await
}

fn rpc_error(status: StatusCode, id: serde_json::Value, code: i64, message: String) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    let mut resp = Response::new(Body::from(body.to_string()));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

fn text_response(status: StatusCode, msg: String) -> Response {
    let mut resp = Response::new(Body::from(msg));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}
