//! Benchmarks of Aperture against the incumbent (`@playwright/mcp`), both driven over MCP as a
//! real client drives them. `cargo xtask bench` runs the binary, which writes
//! `bench/RESULTS.md` and `bench/results.csv`.

#![forbid(unsafe_code)]

pub mod client;
pub mod coverage;
pub mod parse;
pub mod report;
pub mod run;
pub mod script;
pub mod server;
pub mod stats;
pub mod tokens;
