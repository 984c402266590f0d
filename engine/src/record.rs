//! The walker record: what the render-process walker (`engine/src/walker.js`, run by `app/`)
//! reports for one page. This is the contract between the renderer and the engine; both sides
//! are kept in this crate so they change together.

use serde::{Deserialize, Serialize};

/// The fixed marker a password field's value is replaced with. Deliberately not
/// length-accurate: a mask that preserves length leaks it.
pub const MASKED_VALUE: &str = "••••";

/// One walk of a page's top frame (with same-process iframes and open shadow roots inlined).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Walk {
    /// Renderer-side generation of this walk. The renderer keeps the element handles of its
    /// latest walk, so element operations name `(walk_id, idx)` and are refused when stale.
    pub walk_id: u64,
    pub url: String,
    pub title: String,
    /// Elements in document (pre-)order. Wrapper elements with nothing to say (no role, no own
    /// text, no identifying attribute, not interactive) are omitted by the walker; their
    /// children are re-parented to the nearest reported ancestor.
    pub nodes: Vec<NodeRecord>,
    pub viewport: Viewport,
    /// Time the walk took inside the renderer, in microseconds.
    pub walk_us: u64,
    /// Elements visited (reported or not), for cost accounting.
    pub visited: u32,
    /// True when the walker stopped at its element cap; the page model is then incomplete.
    pub truncated: bool,
    /// Elements the walker had to skip because inspecting them threw.
    pub errors: u32,
}

/// The top-level viewport in CSS pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Viewport {
    pub w: f32,
    pub h: f32,
    pub scroll_x: f32,
    pub scroll_y: f32,
    pub dpr: f32,
}

/// Box in CSS pixels relative to the top-level viewport (iframe offsets included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// A tri-state ARIA value (`aria-checked="mixed"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tri {
    True,
    False,
    Mixed,
}

/// Interactive state of an element. Absent fields mean "not applicable", not "false".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<Tri>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pressed: Option<Tri>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded: Option<bool>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub readonly: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
    /// Current value of a form control (password values are [`MASKED_VALUE`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// One reported element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeRecord {
    /// Index of this record in [`Walk::nodes`].
    pub idx: u32,
    /// Index of the nearest reported ancestor, `None` for roots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    /// Lower-case tag name (`input`, `button`, `my-widget`).
    pub tag: String,
    /// Explicit `role` attribute, else the implicit ARIA role of the tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Accessible name (aria-labelledby, aria-label, label, alt, title, placeholder, text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `id` attribute, as authored (the engine decides whether it is framework-generated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dom_id: Option<String>,
    /// `data-testid` (or `data-test-id` / `data-test`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub testid: Option<String>,
    /// `name` attribute.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_attr: Option<String>,
    /// The element's own text: its direct text-node children, whitespace-collapsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    /// `type` of an input/button.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autocomplete: Option<String>,
    /// Heading level for h1–h6 / aria-level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    pub bounds: Rect,
    /// Rendered, non-zero area, not `visibility:hidden`, not `opacity:0`.
    pub visible: bool,
    /// The agent can act on it (link, button, control, `[onclick]`, role widget, contenteditable).
    pub actionable: bool,
    pub focusable: bool,
    pub editable: bool,
    pub state: State,
    /// Inside an (open) shadow root.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
    /// 0 for the top frame, else the 1-based ordinal of the same-process iframe it is in.
    #[serde(skip_serializing_if = "is_zero")]
    pub frame: u32,
    /// Walker-assigned id of the DOM node (a per-document counter kept in a WeakMap), stable
    /// for the node's lifetime. Optional (added by the engine, issue 3). Not an identity key —
    /// re-renders replace nodes — it only lets the engine notice that a positional family's
    /// membership changed when its size did not (one identical row removed, another added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<u64>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Walk {
    /// Parses the walker's JSON output.
    pub fn from_json(s: &str) -> Result<Walk, serde_json::Error> {
        serde_json::from_str(s)
    }
}
