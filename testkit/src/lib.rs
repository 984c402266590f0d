//! Test-only helpers shared by the workspace's integration tests (a dev-dependency, never
//! shipped).
//!
//! - [`corpus_dir`]: the saved real-world pages the tests load, kept in the repository at
//!   `testdata/corpus` so a lone clone is enough to run the suite.
//! - [`Server`] (feature `browser`): a loopback HTTP server for fixtures, with in-memory routes
//!   and an optional directory, that logs what was requested; [`TlsFront`] serves it over
//!   HTTPS with a self-signed certificate.
//! - [`Launch`] / [`McpBrowser`] (feature `browser`): the real `aperture --headless` with an MCP
//!   port, a fresh profile and its own config dir; the endpoint and token come from the
//!   `mcp.json` it writes, not from scraping its stdout.
//! - [`mcp`] (feature `browser`): an rmcp streamable-HTTP client with the bearer token, and the
//!   small `call` / `text` / `ref_for` helpers the tests read answers with.
//! - [`eventually`] / [`eventually_blocking`]: poll for something asynchronous (a request the
//!   fixture server logged, a file, a page state) up to a deadline, instead of a fixed sleep.

#![forbid(unsafe_code)]

mod corpus;
pub use corpus::{corpus_dir, corpus_page, repo_root};
mod wait;
#[cfg(feature = "browser")]
pub use wait::eventually;

/// The names of the files in `dir`, sorted (none when it cannot be read): what a download
/// directory holds.
pub fn file_names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
pub use wait::eventually_blocking;

#[cfg(feature = "browser")]
mod launch;
#[cfg(feature = "browser")]
pub mod mcp;
#[cfg(feature = "browser")]
mod procs;
#[cfg(feature = "browser")]
mod sandbox;
#[cfg(feature = "browser")]
mod server;
#[cfg(feature = "browser")]
mod tls;

#[cfg(feature = "browser")]
pub use launch::{
    Endpoint, Launch, McpBrowser, cef_dir, local_browser, mcp_json_path, read_endpoint, wait_endpoint,
};
#[cfg(feature = "browser")]
pub use procs::{kill_tagged, tagged_pids, unique_tag, wait_exit};
#[cfg(feature = "browser")]
pub use sandbox::{browser_command, is_root, sandbox_args};
#[cfg(feature = "browser")]
pub use server::{Attachment, BasicAuth, Server, Spec, tiny_pdf};
#[cfg(feature = "browser")]
pub use tls::TlsFront;
