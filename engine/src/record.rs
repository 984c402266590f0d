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
    /// Milliseconds since the document last changed (a DOM mutation seen by the walker's
    /// observer, or its creation), when the walker tracks it. A navigation's observation can
    /// wait for this to pass a quiet window, so client-rendered apps are seen rendered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dom_quiet_ms: Option<u64>,
    /// Milliseconds since anything shown last changed: a DOM mutation or a change of an
    /// attribute that alters what is drawn (style, class, hidden, ARIA states). An action's
    /// answer waits for this to pass a short quiet window, so it shows where the page's
    /// reaction (a delayed menu, a fade, a collapse) ended rather than its middle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_quiet_ms: Option<u64>,
    /// A frame's walk (`Request::Walk` with `sub`): this window's index among its parent's
    /// child frames, matched by the app against an `<iframe>`'s [`NodeRecord::slot`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<u32>,
    /// A frame's walk that was not taken: the parent's walker reaches this document itself
    /// (`slot` still says which of its parent's frames it is).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reached: bool,
    /// The document is Chromium's viewer wrapper for a PDF: the viewer draws the file, so its
    /// text is in no element ([`crate::protocol::Request::Pdf`] fetches it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pdf: bool,
}

/// One option of a `<select>`, as the walker lists it on the select's record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelectOption {
    /// The option's label as shown (its `label` attribute, else its text).
    #[serde(rename = "l")]
    pub label: String,
    /// Currently selected.
    #[serde(rename = "s", skip_serializing_if = "std::ops::Not::not")]
    pub selected: bool,
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

/// An offset in CSS pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Offset {
    pub x: f32,
    pub y: f32,
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
    /// A table header's `aria-sort` when it sorts (`ascending`, `descending`, `other`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub readonly: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
    /// The current one of a set: `aria-current`'s token (`page`, `step`, `location`, `date`,
    /// `time`; `true` for any other), or `true` for a pager's or nav bar's item whose class
    /// alone of its row says `active`/`current`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    /// What pressing the control opens, from `aria-haspopup`: `menu` (also for `true`),
    /// `listbox`, `tree`, `grid` or `dialog`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub popup: Option<String>,
    /// A dialog that takes all input while open (`showModal`, or `aria-modal="true"`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub modal: bool,
    /// The control is invalid as a person sees it: `""` when the page marks it so with no
    /// message, else the message (the one `aria-errormessage` points at, or the browser's own
    /// validation message for a native field the human edited or tried to submit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
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
    /// Accessible name, computed as Chromium's accessibility tree does (aria-labelledby,
    /// aria-label, labels, alt, SVG title, content through the flat tree, title, placeholder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `class` attribute of an actionable element that has no name (page-controlled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
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
    /// Rendered with non-zero area (or actionable: a control with no area is still on the
    /// page), not `visibility:hidden`, not `opacity:0`.
    pub visible: bool,
    /// The agent can act on it (link, button, control, `[onclick]`, role widget, contenteditable,
    /// or made clickable by script: see `scripted`).
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
    /// A `<label>`: the index of the reported control it labels. The engine leaves out a label
    /// whose words the control's name already says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_for: Option<u32>,
    /// A `<select>`: its options in order, at most the walker's cap (the selected ones are
    /// always among them); `more_options` counts the ones left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<SelectOption>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_options: u32,
    /// Laid out inline inside its parent's own text: the character (code point) offset in the
    /// parent's `text` where this element's words belong. Absent when the parent has no own
    /// text or this element starts a block of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<u32>,
    /// With `at`: the element's own text began (bit 0) or ended (bit 1) with white space, so
    /// it reads into its parent's sentence with a space on that side.
    #[serde(skip_serializing_if = "is_zero8")]
    pub pad: u8,
    /// Made actionable by the page's script (a click, mousedown, pointerdown or dblclick
    /// listener, or a `cursor: pointer` region) rather than by what the element is.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub scripted: bool,
    /// An `<iframe>`: its frame's index in its window's `frames` (the app matches frames it
    /// walks in their own renderers by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<u32>,
    /// An `<iframe>` the walker could not enter (a document of another origin): where the
    /// frame's viewport starts inside the iframe's border box (its borders and padding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inset: Option<Offset>,
    /// What it looks like, for what only its looks tell apart: a nameless control (a colour
    /// swatch) or a shape of an SVG drawing. The engine words it (`look="red circle 10x10"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paint: Option<Paint>,
}

/// A drawn element's kind and colour, as the walker measured them (numbers and the element's
/// local name; the engine maps both onto words of its own).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Paint {
    /// `box` (an HTML element's background), else the SVG element's local name (`circle`,
    /// `rect`, `polygon`, `text`…).
    pub shape: String,
    /// Red, green and blue, 0–255 (fill, else stroke, else background colour).
    pub rgb: Vec<f64>,
    /// A polygon's or polyline's number of points.
    #[serde(skip_serializing_if = "is_zero")]
    pub points: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn is_zero8(v: &u8) -> bool {
    *v == 0
}

/// How long a document must go without changing before a navigation's answer shows it: a
/// client-rendered app renders within a few frames of its scripts running, and a page that
/// keeps changing (a ticker, a carousel) is answered at the bound the caller sets anyway.
/// Unmeasured choice.
pub const QUIET: std::time::Duration = std::time::Duration::from_millis(300);

impl Walk {
    /// Parses the walker's JSON output.
    pub fn from_json(s: &str) -> Result<Walk, serde_json::Error> {
        serde_json::from_str(s)
    }

    /// How much longer to wait, after this walk, for its document to have been quiet (no
    /// DOM change) for `quiet`; `None` when it already has been, or the walker did not say.
    /// A navigation's observation walks again after the wait, within a bound of its own.
    pub fn quiet_wait(&self, quiet: std::time::Duration) -> Option<std::time::Duration> {
        let since = std::time::Duration::from_millis(self.dom_quiet_ms?);
        (since < quiet).then(|| quiet - since)
    }

    /// [`Walk::quiet_wait`] for an action's answer: attribute changes count too (see
    /// [`Walk::change_quiet_ms`]).
    pub fn reaction_wait(&self, quiet: std::time::Duration) -> Option<std::time::Duration> {
        let since = std::time::Duration::from_millis(self.change_quiet_ms?);
        (since < quiet).then(|| quiet - since)
    }
}

/// How long after input an action's answer waits at least before it looks: pages answer some
/// input on a timer or an animation of about this length (jQuery UI opens a hover menu and
/// an autocomplete list 300 ms after the input; its default animation runs 400 ms), and an
/// answer taken sooner shows "no change" for input that did change the page.
pub const REACTION_MIN: std::time::Duration = std::time::Duration::from_millis(350);

/// How long what is shown must then have gone unchanged (attributes included) for an action's
/// answer to show it: an animation steps every frame, so a gap this long means it ended.
pub const REACTION_QUIET: std::time::Duration = std::time::Duration::from_millis(150);

/// The most an action's answer waits, from the input, for the page to stop changing: a page
/// that never does (a carousel, a ticker) is answered at this bound.
pub const REACTION_CAP: std::time::Duration = std::time::Duration::from_millis(1500);

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn quiet_wait_is_what_is_left_of_the_window() {
        let w = |ms| Walk {
            dom_quiet_ms: ms,
            ..Walk::default()
        };
        assert_eq!(w(Some(100)).quiet_wait(QUIET), Some(Duration::from_millis(200)));
        assert_eq!(w(Some(300)).quiet_wait(QUIET), None);
        assert_eq!(w(Some(5000)).quiet_wait(QUIET), None);
        assert_eq!(
            w(None).quiet_wait(QUIET),
            None,
            "an older walker never holds an answer"
        );
    }

    #[test]
    fn reaction_wait_counts_attribute_changes() {
        let w = |dom, change| Walk {
            dom_quiet_ms: dom,
            change_quiet_ms: change,
            ..Walk::default()
        };
        // A fade steps only styles: the DOM has been quiet for long, what is shown has not.
        let fading = w(Some(5000), Some(20));
        assert_eq!(fading.quiet_wait(QUIET), None);
        assert_eq!(
            fading.reaction_wait(REACTION_QUIET),
            Some(Duration::from_millis(130))
        );
        assert_eq!(w(Some(5000), Some(150)).reaction_wait(REACTION_QUIET), None);
        assert_eq!(w(None, None).reaction_wait(REACTION_QUIET), None);
    }
}
