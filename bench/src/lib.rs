//! Benchmarks of Aperture against its peers: the incumbent (`@playwright/mcp`), driven over MCP
//! as a real client drives it, and agent-browser, driven through its CLI. `cargo xtask bench` runs the binary, which writes
//! `bench/RESULTS.md` and `bench/results.csv`.

#![forbid(unsafe_code)]

pub mod agent_browser;
pub mod client;
pub mod coverage;
pub mod parse;
pub mod report;
pub mod run;
pub mod script;
pub mod server;
pub mod stats;
pub mod tokens;
