//! The streamable-HTTP listener.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::auth::{Gate, Token, gate};
use crate::backend::Backend;
use crate::server::Aperture;

/// The port Aperture listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8817;

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Must be a loopback address. Port 0 picks a free port (see [`HttpServer::addr`]).
    pub addr: SocketAddr,
    /// The bearer token clients must present.
    pub token: Token,
}

impl Default for HttpConfig {
    /// `127.0.0.1:8817` with a freshly generated token.
    fn default() -> Self {
        HttpConfig {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            token: Token::generate(),
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
    serve_listener(listener, HttpConfig { addr, token }, backend).await
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
        .with_cancellation_token(shutdown.child_token());
    let aperture = Aperture::new(backend);
    let service: StreamableHttpService<Aperture, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(aperture.share()), Default::default(), rmcp_config);
    let gate_state = Gate {
        token: config.token.clone(),
        port,
    };
    let router = Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(gate_state, gate));
    let stop = shutdown.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
    });
    tracing::info!(%addr, "MCP listener ready");
    Ok(HttpServer {
        addr,
        token: config.token,
        shutdown,
        task,
    })
}
