//! Formatting lines. One rendered element is one line:
//!
//! ```text
//! [REF ]ROLE ["NAME"][: "TEXT"] [ATTR…]      e4 button "Save"   listitem: "Milk"
//! [REF ]"TEXT"                               "3 items in cart"
//! ```
//!
//! `REF` (`e12`) appears only on actionable elements. `ROLE` is a whitelisted ARIA role word
//! (`h1`–`h6` for headings, `clickable` for an actionable element with no role). Every
//! page-authored string is quoted by [`crate::text::push_quoted`]. Attributes are bare flags
//! (`checked`, `disabled`, `live`…) or `key=value` with an engine-controlled bare value
//! (`type=email`, `checked=mixed`) or a quoted page value (`value="…"`, `href="…"`).

use crate::model::{Model, SHOWN_INPUT_TYPES, role_token};
use crate::record::{NodeRecord, Tri, Walk};
use crate::text::{STRING_CAP, clean, has_visible, push_quoted};
use std::fmt::Write as _;

fn vis(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| has_visible(s))
}

/// Appends `e{n} ` for a ref.
pub(crate) fn push_ref(out: &mut String, refn: u32) {
    if refn != 0 {
        let _ = write!(out, "e{refn} ");
    }
}

/// Appends the line of `r` without its ref.
pub(crate) fn push_line_rest(out: &mut String, r: &NodeRecord, live: bool, origin: &str) {
    push_line_parts(out, r, live, origin, true);
}

/// Appends what a `live` line still promises to keep current: its role word (`"` for a bare
/// quoted line) and every attribute except `value`. `live` only exempts the element's values
/// (name, text, value), so a demoted element whose fixed part changed must still be reported.
pub(crate) fn push_line_fixed(out: &mut String, r: &NodeRecord, origin: &str) {
    push_line_parts(out, r, false, origin, false);
}

/// One formatter for both: the fixed part can never disagree with the line it is part of.
fn push_line_parts(out: &mut String, r: &NodeRecord, live: bool, origin: &str, values: bool) {
    let role = role_token(r).or(if r.actionable { Some("clickable") } else { None });
    let name = vis(&r.name);
    let text = vis(&r.text);
    match role {
        None => match text.or(name) {
            Some(t) if values => push_quoted(out, t),
            Some(_) => out.push('"'),
            None => out.push_str("generic"),
        },
        Some(role) => {
            out.push_str(role);
            if values && let Some(n) = name {
                out.push(' ');
                push_quoted(out, n);
            }
            if values
                && let Some(t) = text
                && name.is_none_or(|n| clean(n, STRING_CAP) != clean(t, STRING_CAP))
            {
                out.push_str(": ");
                push_quoted(out, t);
            }
        }
    }
    let s = &r.state;
    if values && let Some(v) = vis(&s.value) {
        out.push_str(" value=");
        push_quoted(out, v);
    }
    for (word, t) in [("checked", s.checked), ("pressed", s.pressed)] {
        match t {
            Some(Tri::True) => {
                out.push(' ');
                out.push_str(word);
            }
            Some(Tri::Mixed) => {
                out.push(' ');
                out.push_str(word);
                out.push_str("=mixed");
            }
            _ => {}
        }
    }
    if s.selected == Some(true) {
        out.push_str(" selected");
    }
    match s.expanded {
        Some(true) => out.push_str(" expanded"),
        Some(false) => out.push_str(" collapsed"),
        None => {}
    }
    for (on, word) in [
        (s.disabled, " disabled"),
        (s.required, " required"),
        (s.readonly, " readonly"),
        (s.focused, " focused"),
    ] {
        if on {
            out.push_str(word);
        }
    }
    if r.tag == "input"
        && let Some(t) = r.input_type.as_deref()
        && let Some(shown) = SHOWN_INPUT_TYPES
            .iter()
            .find(|k| k.eq_ignore_ascii_case(t.trim()))
    {
        out.push_str(" type=");
        out.push_str(shown);
    }
    if let Some(p) = vis(&r.placeholder)
        && name.is_none_or(|n| n.trim() != p.trim())
    {
        out.push_str(" placeholder=");
        push_quoted(out, p);
    }
    if role == Some("link")
        && let Some(h) = vis(&r.href)
    {
        // Same-origin links lose their origin: it is in the url line already, and it is the
        // bulk of most hrefs.
        let h = h.trim();
        let short = if !origin.is_empty() && h.starts_with(origin) && h[origin.len()..].starts_with('/') {
            &h[origin.len()..]
        } else {
            h
        };
        out.push_str(" href=");
        push_quoted(out, short);
    }
    if live {
        out.push_str(" live");
    }
}

/// Appends the full line of model node `m` (ref included), no indentation or newline.
pub(crate) fn push_line(out: &mut String, model: &Model, walk: &Walk, m: u32, live: bool) {
    let mi = m as usize;
    push_ref(out, model.refn[mi]);
    if let Some(r) = walk.nodes.get(model.rec[mi] as usize) {
        push_line_rest(out, r, live, &model.origin);
    }
}

/// Appends `2 * depth` spaces.
pub(crate) fn indent(out: &mut String, depth: u32) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Appends the subtree of `m` as lines, its root at `base` indentation.
pub(crate) fn push_subtree(
    out: &mut String,
    model: &Model,
    walk: &Walk,
    m: u32,
    base: u32,
    live: &dyn Fn(u32) -> bool,
) {
    let d0 = model.depth[m as usize];
    for k in m..model.end[m as usize] {
        indent(out, base + model.depth[k as usize] - d0);
        push_line(out, model, walk, k, live(k));
        out.push('\n');
    }
}

/// Appends the `url` and `title` lines.
pub(crate) fn push_page_lines(out: &mut String, walk: &Walk) {
    out.push_str("url ");
    push_quoted(out, &walk.url);
    out.push_str("\ntitle ");
    push_quoted(out, &walk.title);
    out.push('\n');
}

/// The full body: page lines, then every rendered element in document order.
pub(crate) fn push_full_body(out: &mut String, model: &Model, walk: &Walk, live: &dyn Fn(u32) -> bool) {
    out.reserve(model.len() * 32);
    push_page_lines(out, walk);
    for m in 0..model.len() as u32 {
        indent(out, model.depth[m as usize]);
        push_line(out, model, walk, m, live(m));
        out.push('\n');
    }
}
