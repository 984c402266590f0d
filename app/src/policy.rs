//! Request-time policy shared with CEF's IO thread: tracker blocking and per-tab counters.
//! The decision logic lives in the `aperture-privacy` crate; this is the thread-safe seam.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Decides whether a request is blocked: (tab, url, referrer/source url, CEF resource type).
pub type Decider = Box<dyn Fn(&str, &str, i32) -> bool + Send + Sync>;

static DECIDER: OnceLock<Decider> = OnceLock::new();
static NAV_POLICY: OnceLock<aperture_privacy::NavigationPolicy> = OnceLock::new();

/// Installs the agent-navigation policy the request handlers enforce on redirects and
/// connected addresses (the MCP backend enforces it on destinations).
pub fn set_nav_policy(p: aperture_privacy::NavigationPolicy) {
    let _ = NAV_POLICY.set(p);
}

pub fn nav_policy() -> Option<&'static aperture_privacy::NavigationPolicy> {
    NAV_POLICY.get()
}
static BLOCKED: OnceLock<Mutex<HashMap<i32, u64>>> = OnceLock::new();

/// Installs the blocking engine (once, at start-up).
pub fn install(d: Decider) {
    let _ = DECIDER.set(d);
}

pub fn blocking_enabled() -> bool {
    DECIDER.get().is_some()
}

pub fn should_block(tab: i32, url: &str, source: &str, rtype: crate::cef::sys::cef_resource_type_t) -> bool {
    let Some(d) = DECIDER.get() else { return false };
    let block = d(url, source, rtype as i32);
    if block {
        *BLOCKED
            .get_or_init(Default::default)
            .lock()
            .expect("blocked")
            .entry(tab)
            .or_default() += 1;
    }
    block
}

/// Requests blocked in a tab so far.
pub fn blocked_count(tab: i32) -> u64 {
    BLOCKED
        .get()
        .and_then(|m| m.lock().ok().and_then(|m| m.get(&tab).copied()))
        .unwrap_or(0)
}
