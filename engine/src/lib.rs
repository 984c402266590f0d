//! Aperture's snapshot engine: turns walker records into stable refs, keyed diffs and a compact,
//! untrusted-fenced text rendering. Pure Rust, no CEF: everything here is testable in
//! milliseconds.
//!
//! The agent-facing stream is described in `engine/FORMAT.md`; [`reader`] is a mechanical
//! reader of it, used by the fidelity tests to prove the stream alone is enough to rebuild the
//! page model.
//!
//! [`protocol`] is the one definition of what the browser asks the render-process walker
//! ([`WALKER_JS`]) and what it answers; [`record`] is the walk it reports.

#![forbid(unsafe_code)]

mod diff;
pub mod envelope;
mod key;
mod look;
mod model;
pub mod protocol;
pub mod reader;
pub mod record;
mod render;
mod session;
pub mod text;

pub use key::is_generated_id;
pub use model::Mode;
pub use session::{
    CHURN_DEMOTE_AT, CHURN_QUIET_RESTORE, CHURN_WINDOW, MAX_DIFFS_PER_SNAPSHOT, Observation, PROMOTED_CAP,
    RESET_CHANGE_FRACTION, RESET_DIFF_SHARE, RESET_MIN_ELEMENTS, RESYNC_CHAIN_FACTOR, RefError, TabSession,
    Timing, parse_ref,
};

/// The render-process walker. `app/` installs it in every V8 context at creation.
pub const WALKER_JS: &str = include_str!("walker.js");

/// A stateless FULL SNAPSHOT of `walk` with refs numbered from `e1`: the "re-dump mode" every
/// other browser MCP uses, for benchmarks against the diff stream. (For re-dump mode with refs
/// that stay stable across observations, call [`TabSession::observe`] with `force_full`.)
pub fn render_full(walk: &record::Walk) -> String {
    TabSession::new().observe(walk, true, false).text
}
