//! The one loopback HTTP server both browsers load every page from.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use axum::body::Body;
use axum::http::{StatusCode, Uri, header};
use axum::response::Response;

/// A running page server. Dropping it does not stop it; it lives as long as the runtime.
pub struct PageServer {
    addr: SocketAddr,
}

impl PageServer {
    /// The URL of a served path such as `/corpus/001.html`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

/// Reads every `*.html` file of `dir` (non-recursive) and returns `(file name, bytes)`, sorted
/// by name so runs visit pages in the same order.
pub fn read_pages(dir: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "html")
            && let Some(name) = p.file_name().and_then(|n| n.to_str())
        {
            out.push((name.to_string(), std::fs::read(&p)?));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Serves `files` (URL path → body) as `text/html` on 127.0.0.1 at an ephemeral port; any
/// other path is a 404, so subresources a saved page references fail fast and identically for
/// both browsers.
pub async fn serve(files: HashMap<String, Vec<u8>>) -> Result<PageServer> {
    let files = Arc::new(files);
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let files = files.clone();
        async move {
            match files.get(uri.path()) {
                Some(body) => Response::builder()
                    .header(header::CONTENT_TYPE, "text/html")
                    .header(header::CACHE_CONTROL, "no-store")
                    .body(Body::from(body.clone()))
                    .expect("static response"),
                None => Response::builder()
                    .status(StatusCode::NOT_FOUND)
                    .body(Body::empty())
                    .expect("static response"),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(PageServer { addr })
}
