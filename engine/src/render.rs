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

use crate::model::{HIDE_NAME, Model, OPTIONS_SHOWN, SHOWN_INPUT_TYPES, role_token};
use crate::record::{NodeRecord, Tri, Walk};
use crate::text::{STRING_CAP, clean, has_visible, push_quoted, push_quoted_exact};
use std::fmt::Write as _;

fn vis(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| has_visible(s))
}

/// What a line's rendering depends on besides its record: the page's origin (same-origin
/// hrefs drop it) and whether the mode shows URLs at all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style<'a> {
    pub origin: &'a str,
    pub urls: bool,
}

impl Model {
    pub(crate) fn style(&self) -> Style<'_> {
        Style {
            origin: &self.origin,
            urls: self.mode.urls,
        }
    }
}

/// Appends `e{n} ` for a ref.
pub(crate) fn push_ref(out: &mut String, refn: u32) {
    if refn != 0 {
        let _ = write!(out, "e{refn} ");
    }
}

/// Appends the line of `r` without its ref. `flags` are the model's line flags.
pub(crate) fn push_line_rest(out: &mut String, r: &NodeRecord, live: bool, st: Style, flags: u8) {
    push_line_parts(out, r, live, st, flags, true, None);
}

/// A sentence's members, to render in place of its text: the model (refs, styles, nested
/// members), the walk, and the walk index of the sentence's element.
type Members<'a> = (&'a Model, &'a Walk, u32);

/// Appends what a `live` line still promises to keep current: its role word (`"` for a bare
/// quoted line) and every attribute except `value`. `live` only exempts the element's values
/// (name, text, value), so a demoted element whose fixed part changed must still be reported.
pub(crate) fn push_line_fixed(out: &mut String, r: &NodeRecord, st: Style) {
    push_line_parts(out, r, false, st, 0, false, None);
}

/// What tells a nameless control apart (an icon drawn by CSS: `<span class="ic trash">`): the
/// words of its test id, its authored id and its class names, split at `-` and `_`, without
/// names that carry digits (generated `css-1x2y3z` say nothing), words of one or two letters
/// (`u-`, `c-`, `sm` prefixes; but see [`HINT_SHORT`]) and words every such control has (`link`, `icon`, `btn`…):
/// `u-link-clean c-list-menu__toggle link-icon` says `list menu toggle`. At most
/// [`HINT_WORDS`] words, each once: a whole utility class list cost a dozen tokens a control.
pub(crate) fn hint(r: &NodeRecord) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    let id = r.dom_id.as_deref().filter(|i| !crate::key::is_generated_id(i));
    let names = [r.testid.as_deref(), id].into_iter().flatten().chain(
        r.class_name
            .as_deref()
            .into_iter()
            .flat_map(str::split_whitespace),
    );
    for name in names.filter(|n| n.chars().count() <= 40 && !n.chars().any(|c| c.is_ascii_digit())) {
        for w in name.split(|c: char| !c.is_alphanumeric()) {
            let w = w.to_lowercase();
            if words.len() < HINT_WORDS
                && (w.chars().count() > 2 || HINT_SHORT.contains(&w.as_str()))
                && !HINT_NOISE.contains(&w.as_str())
                && !words.contains(&w)
            {
                words.push(w);
            }
        }
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// The least width and height, CSS px, of a nameless surface whose size its line gives.
const SURFACE_MIN: f32 = 48.0;

/// The size, rounded CSS px, of a nameless control big enough to be a surface aimed at by a
/// point (a drawing area, a canvas, a map); `None` for anything else. Its line says it when
/// nothing else describes it (no look, not a sentence); the line hash takes it either way.
pub(crate) fn surface(r: &NodeRecord) -> Option<(f32, f32)> {
    let (w, h) = (r.bounds.w.round(), r.bounds.h.round());
    (r.actionable && vis(&r.name).is_none() && vis(&r.text).is_none() && w >= SURFACE_MIN && h >= SURFACE_MIN)
        .then_some((w, h))
}

/// How many words a nameless control's hint shows.
const HINT_WORDS: usize = 3;

/// Words of one or two letters that do tell controls apart (a spinner's `up`, a board's
/// `mark-x` and `mark-o`, a resize grip's edge `se`), unlike the `u-`, `c-`, `sm` and `js` prefixes the rest are.
const HINT_SHORT: &[&str] = &[
    "x", "o", "up", "ok", "no", "on", "go", "in", "n", "e", "s", "w", "ne", "nw", "se", "sw",
];

/// Class and id words that say nothing of what a control does.
const HINT_NOISE: &[&str] = &[
    "link",
    "links",
    "btn",
    "button",
    "buttons",
    "icon",
    "icons",
    "ico",
    "clean",
    "unstyled",
    "visible",
    "hidden",
    "wrapper",
    "wrap",
    "container",
    "inner",
    "outer",
    "item",
    "items",
    "element",
    "block",
    "default",
    "primary",
    "secondary",
    "small",
    "large",
    "medium",
    "svg",
    // Analytics hooks (Google Tag Manager's `gtm-…` classes): they say what is tracked, not
    // what the control does.
    "gtm",
    "track",
    "tracking",
    "analytics",
    "img",
    "image",
    "fas",
    "far",
    "fal",
    "fab",
    "fad",
    // Icon sets' own words (`svg-inline--fa`, `material-symbols-outlined`, `mdi`): the icon's
    // name is the word beside them.
    "solid",
    "regular",
    "inline",
    "material",
    "symbols",
    "outlined",
    "rounded",
    "mdi",
    "octicon",
    "feather",
    "lucide",
    // Layout words an icon's classes carry (`pos-abs border cur`).
    "border",
    "absolute",
    "relative",
    "cur",
    "pos",
    "num",
    "glyph",
    "glyphicon",
    "sprite",
    "css",
    "class",
    "the",
    "clickable",
    "pointer",
    "action",
    "control",
];

/// One formatter for both: the fixed part can never disagree with the line it is part of.
fn push_line_parts(
    out: &mut String,
    r: &NodeRecord,
    live: bool,
    st: Style,
    flags: u8,
    values: bool,
    members: Option<Members>,
) {
    let role = role_token(r).or(if r.actionable { Some("clickable") } else { None });
    let name = vis(&r.name).filter(|_| flags & HIDE_NAME == 0);
    let text = vis(&r.text);
    match (role, members) {
        (None, Some((model, walk, w))) if values => push_sentence(out, model, walk, w),
        (None, _) => match text.or(name) {
            Some(t) if values => push_quoted(out, t),
            Some(_) => out.push('"'),
            None => out.push_str("generic"),
        },
        (Some(role), _) => {
            out.push_str(role);
            if values && let Some(n) = name {
                out.push(' ');
                push_quoted(out, n);
            }
            if values && let Some((model, walk, w)) = members {
                out.push_str(if name.is_some() { ": " } else { " " });
                push_sentence(out, model, walk, w);
            } else if values
                && let Some(t) = text
                && name.is_none_or(|n| clean(n, STRING_CAP) != clean(t, STRING_CAP))
                // An editable region's text is its value, which `value=` says.
                && vis(&r.state.value).is_none_or(|v| clean(v, STRING_CAP) != clean(t, STRING_CAP))
            {
                // Text alone follows the role as a name would; text beside a name, after `:`.
                out.push_str(if name.is_some() { ": " } else { " " });
                push_quoted(out, t);
            }
        }
    }
    // Fields and selects say enough by their kind, value and options; a nameless button says
    // nothing at all. The hint and the look are attributes, part of the fixed part too: `live`
    // exempts values only, so a live swatch recoloured is still reported.
    if r.actionable
        && matches!(role, Some("clickable" | "button" | "link"))
        && vis(&r.name).is_none()
        && text.is_none()
        && members.is_none()
        && let Some(h) = hint(r)
    {
        out.push_str(" hint=");
        push_quoted(out, &h);
    }
    let look = crate::look::look(r);
    if let Some(l) = &look {
        out.push_str(" look=");
        push_quoted(out, l);
    }
    // A surface the agent can only aim at by a point (a drawing area, a canvas, a map): its
    // size, so the point can be worked out (`x`, `y` of click, hover and drag are CSS px from
    // its top-left) without a screenshot. Engine numbers, never page text.
    if look.is_none()
        && members.is_none()
        && matches!(role, Some("clickable" | "img" | "application") | None)
        && let Some((w, h)) = surface(r)
    {
        let _ = write!(out, " size={w:.0}x{h:.0}");
    }
    let s = &r.state;
    // A select's options say what is selected; a button's value is usually its name.
    let value = vis(&s.value).filter(|v| {
        r.options.is_empty()
            && !(role == Some("button") && name.is_some_and(|n| clean(n, STRING_CAP) == clean(v, STRING_CAP)))
    });
    if values && let Some(v) = value {
        out.push_str(" value=");
        // Exactly: a value is what gets copied, compared and typed back.
        push_quoted_exact(out, v, STRING_CAP);
    }
    if values && (!r.options.is_empty() || r.more_options > 0) {
        push_options(out, r);
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
        // `collapsed`/`expanded` already say a press opens something; without them, a
        // control's `popup=` says what (a menu item with a submenu).
        None => {
            if r.actionable
                && let Some(p) = s.popup.as_deref()
                && let Some(word) = ["menu", "listbox", "tree", "grid", "dialog"]
                    .iter()
                    .find(|w| **w == p)
            {
                out.push_str(" popup=");
                out.push_str(word);
            }
        }
    }
    match s.current.as_deref() {
        Some("true") => out.push_str(" current"),
        Some(w @ ("page" | "step" | "location" | "date" | "time")) => {
            out.push_str(" current=");
            out.push_str(w);
        }
        _ => {}
    }
    if let Some(so) = s.sort.as_deref()
        && let Some(word) = ["ascending", "descending", "other"].iter().find(|w| **w == so)
    {
        out.push_str(" sort=");
        out.push_str(word);
    }
    for (on, word) in [
        (s.modal, " modal"),
        (s.disabled, " disabled"),
        (s.required, " required"),
        (s.readonly, " readonly"),
        (s.focused, " focused"),
    ] {
        if on {
            out.push_str(word);
        }
    }
    match s.invalid.as_deref().map(str::trim) {
        Some("") => out.push_str(" invalid"),
        Some(why) => {
            out.push_str(" invalid=");
            push_quoted(out, why);
        }
        None => {}
    }
    // A textarea takes line breaks (Enter is a new line, not a submit); a one-line field and
    // it are both `textbox`, so an agent asked for "the text area" could not tell them apart.
    if r.tag == "textarea" {
        out.push_str(" multiline");
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
    if st.urls
        && role == Some("link")
        && let Some(h) = vis(&r.href)
    {
        out.push_str(" href=");
        push_quoted(out, short_href(h, st.origin));
    }
    if live {
        out.push_str(" live");
    }
}

/// A same-origin URL without its origin: it is in the url line already, and it is the bulk
/// of most hrefs.
pub(crate) fn short_href<'a>(h: &'a str, origin: &str) -> &'a str {
    let h = h.trim();
    if !origin.is_empty() && h.starts_with(origin) && h[origin.len()..].starts_with('/') {
        &h[origin.len()..]
    } else {
        h
    }
}

/// ` options=["A" *"B" "C" +40]`: the first [`OPTIONS_SHOWN`] options and every selected one
/// (marked `*`), in order, then how many more there are.
fn push_options(out: &mut String, r: &NodeRecord) {
    out.push_str(" options=[");
    let mut shown = 0usize;
    for (k, o) in r.options.iter().enumerate() {
        if k >= OPTIONS_SHOWN && !o.selected {
            continue;
        }
        if shown > 0 {
            out.push(' ');
        }
        if o.selected {
            out.push('*');
        }
        push_quoted(out, &o.label);
        shown += 1;
    }
    let more = r.options.len() - shown + r.more_options as usize;
    if more > 0 {
        if shown > 0 {
            out.push(' ');
        }
        let _ = write!(out, "+{more}");
    }
    out.push(']');
}

/// Appends the full line of model node `m` (ref included), no indentation or newline.
pub(crate) fn push_line(out: &mut String, model: &Model, walk: &Walk, m: u32, live: bool) {
    push_ref(out, model.refn[m as usize]);
    push_node_rest(out, model, walk, m, live);
}

/// Appends the line of model node `m` without its ref (a sentence with its members).
pub(crate) fn push_node_rest(out: &mut String, model: &Model, walk: &Walk, m: u32, live: bool) {
    let mi = m as usize;
    let w = model.rec[mi];
    if let Some(r) = walk.nodes.get(w as usize) {
        let members = model.inl.contains_key(&w).then_some((model, walk, w));
        push_line_parts(out, r, live, model.style(), model.flags[mi], true, members);
        if let Some(&(row, col)) = model.grid.get(mi)
            && row != 0
        {
            let _ = write!(out, " at=r{row}c{col}");
        }
    }
}

/// A sentence being written: quoted text segments and `[…]` members, one space apart.
struct Sentence<'a> {
    out: &'a mut String,
    cur: String,
    first: bool,
    /// Characters of text still allowed (the sentence's text is capped as a text is).
    left: usize,
    /// Text was cut.
    cut: bool,
}

impl Sentence<'_> {
    fn sep(&mut self) {
        if !self.first {
            self.out.push(' ');
        }
        self.first = false;
    }

    fn flush(&mut self) {
        if has_visible(&self.cur) {
            if self.left == 0 {
                // Past the cap: one mark that text was left out, then members only.
                if !self.cut {
                    self.sep();
                    self.out.push_str("\"…\"");
                    self.cut = true;
                }
            } else {
                let c = clean(&self.cur, self.left);
                if c.ends_with('…') {
                    self.left = 0;
                    self.cut = true;
                } else {
                    self.left = self.left.saturating_sub(c.chars().count());
                }
                self.sep();
                push_quoted(self.out, &c);
            }
        }
        self.cur.clear();
    }
}

/// Appends the text of walk node `w` with its members in their places: `"Read the" [e4 link
/// "docs"] "first."`. A plain text member (no role, no ref) reads as part of the text.
fn push_sentence(out: &mut String, model: &Model, walk: &Walk, w: u32) {
    let mut s = Sentence {
        out,
        cur: String::new(),
        first: true,
        left: STRING_CAP,
        cut: false,
    };
    sentence_of(&mut s, model, walk, w);
    s.flush();
    if s.first {
        // Nothing visible at all: still a text, so the line parses as one.
        s.out.push_str("\"\"");
    }
}

fn sentence_of(s: &mut Sentence, model: &Model, walk: &Walk, w: u32) {
    let Some(r) = walk.nodes.get(w as usize) else {
        return;
    };
    let text = r.text.as_deref().unwrap_or("");
    let bounds: Vec<usize> = text.char_indices().map(|(b, _)| b).chain([text.len()]).collect();
    let chars = bounds.len() - 1;
    let mut pos = 0usize;
    for &c in model.inl.get(&w).map(Vec::as_slice).unwrap_or(&[]) {
        let Some(cr) = walk.nodes.get(c as usize) else {
            continue;
        };
        let want = cr.at.unwrap_or(0) as usize;
        let at = want.clamp(pos, chars);
        s.cur.push_str(&text[bounds[pos]..bounds[at]]);
        pos = at;
        let refn = model.wref.get(c as usize).copied().unwrap_or(0);
        if refn == 0 && role_token(cr).is_none() && !cr.actionable {
            // Plain text: read in place, with any members of its own. A member placed past the
            // text's end follows white space the walker trimmed off that end (`Second <i>para`
            // has the text "Second" and the member at 7): the space still separates them.
            if cr.pad & 1 != 0 || (want > chars && !s.cur.is_empty() && !s.cur.ends_with(' ')) {
                s.cur.push(' ');
            }
            if model.inl.contains_key(&c) {
                sentence_of(s, model, walk, c);
            } else if let Some(t) = cr.text.as_deref().or(cr.name.as_deref()) {
                s.cur.push_str(t);
            }
            if cr.pad & 2 != 0 {
                s.cur.push(' ');
            }
            continue;
        }
        s.flush();
        s.sep();
        s.out.push('[');
        push_ref(s.out, refn);
        push_line_rest(s.out, cr, false, model.style(), 0);
        s.out.push(']');
    }
    s.cur.push_str(&text[bounds[pos]..]);
}

/// Appends `depth` spaces: one per level. A tokenizer reads a run of spaces as one token
/// whatever its length, and folds a single space into the word after it, so one space per
/// level leaves a depth-1 line no dearer than a top-level one (two spaces cost every indented
/// line a token; 2.3 % of a median corpus page).
pub(crate) fn indent(out: &mut String, depth: u32) {
    for _ in 0..depth {
        out.push(' ');
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

#[cfg(test)]
mod tests {
    use super::*;

    fn classed(c: &str) -> NodeRecord {
        NodeRecord {
            class_name: Some(c.to_string()),
            ..NodeRecord::default()
        }
    }

    #[test]
    fn a_hint_keeps_the_short_words_that_tell_controls_apart() {
        assert_eq!(hint(&classed("mark mark-x")).as_deref(), Some("mark x"));
        assert_eq!(hint(&classed("mark mark-o")).as_deref(), Some("mark o"));
        assert_eq!(
            hint(&classed("ui-spinner-button ui-spinner-up ui-corner-tr")).as_deref(),
            Some("spinner up corner")
        );
        assert_eq!(
            hint(&classed("ui-resizable-handle ui-resizable-se")).as_deref(),
            Some("resizable handle se")
        );
        // A toggled icon says so: its state is all that changes.
        assert_eq!(
            hint(&classed("icon reply active")).as_deref(),
            Some("reply active")
        );
        assert_eq!(
            hint(&classed("gtm-social btn-pinterest")).as_deref(),
            Some("social pinterest")
        );
        // Utility prefixes still say nothing.
        assert_eq!(hint(&classed("u-trash c-sm js-x2")).as_deref(), Some("trash"));
    }
}
