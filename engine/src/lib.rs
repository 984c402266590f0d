//! Aperture's snapshot engine: turns walker records into stable refs, keyed diffs and a compact,
//! untrusted-fenced text rendering. Pure Rust, no CEF: everything here is testable in
//! milliseconds.

pub mod record;

/// The render-process walker. `app/` installs it in every V8 context at creation.
pub const WALKER_JS: &str = include_str!("walker.js");
