//! What several Aperture crates would otherwise each write their own copy of.
//!
//! * [`TabId`]: the one tab identifier `ui`, `mcp` and the app agree on.
//! * [`fs`]: atomic, private file writes (settings, the vault, containers, `mcp.json`, caches).
//! * [`xdg`]: where the per-user data, config and cache directories are.
//!
//! Architecture invariant: this crate knows nothing of CEF, egui or MCP, and depends on nothing
//! but `serde`, so any crate in the workspace (the build helper included) can use it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fs;
mod tab;
pub mod xdg;

pub use tab::TabId;
