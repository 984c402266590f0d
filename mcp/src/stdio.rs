//! The same tools over stdin/stdout, for MCP hosts that only speak stdio.

use std::sync::Arc;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::backend::Backend;
use crate::server::Aperture;

/// Why a stdio session ended abnormally.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// The client went away or spoke nonsense before initialization completed.
    #[error("MCP handshake failed: {0}")]
    Initialize(String),
    /// The session task panicked or was cancelled.
    #[error("MCP session task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// Serves one MCP session on stdin/stdout until the client disconnects.
///
/// Stdout carries the protocol, so nothing else in the process may print to it while this
/// runs: logs go to stderr. No token is needed here: whoever holds the pipe spawned us.
pub async fn serve_stdio(backend: Arc<dyn Backend>) -> Result<(), StdioError> {
    serve_io(backend, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one MCP session on an arbitrary byte stream pair (what [`serve_stdio`] uses; also
/// handy for tests).
pub async fn serve_io<R, W>(backend: Arc<dyn Backend>, read: R, write: W) -> Result<(), StdioError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let running = Aperture::new(backend)
        .serve((read, write))
        .await
        .map_err(|e| StdioError::Initialize(e.to_string()))?;
    running.waiting().await?;
    Ok(())
}
