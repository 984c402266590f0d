//! The tab identifier.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A browser tab as the window and the agent address it. Stable for the tab's lifetime, never
/// reused within a launch (reuse would let a stale id silently address a different page).
///
/// Serialised as a bare number and displayed as one (`7`), which is how the MCP tools print and
/// parse tab ids; the field stays public so callers can build one from their own counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TabId(pub u64);

impl fmt::Display for TabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_and_serialises_as_a_bare_number() {
        let id = TabId(42);
        assert_eq!(id.to_string(), "42");
        assert_eq!(serde_json::to_string(&id).unwrap(), "42");
        assert_eq!(serde_json::from_str::<TabId>("7").unwrap(), TabId(7));
        assert!(serde_json::from_str::<TabId>("\"7\"").is_err());
    }
}
