//! The page model: the rendered tree built from one walk, with identity keys, refs and a
//! per-line content hash. Struct-of-arrays and CSR children because a 50k-element page has to be
//! rebuilt on every observation; nothing here formats text (rendering is lazy, see `render`).

use crate::key::{H, is_generated_id};
use crate::record::{NodeRecord, Rect, Tri, Walk};
use crate::text::{STRING_CAP, has_visible, mask_clock, opt_visible};
use rustc_hash::FxHashMap;

/// Deepest rendered level. Indentation is two spaces per level, so a page nesting thousands of
/// elements would otherwise make a snapshot quadratic in its depth. Unmeasured choice: far
/// deeper than real pages are once plain wrappers are omitted.
pub(crate) const MAX_DEPTH: u32 = 40;

/// "No node" in the `u32` index arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// ARIA roles rendered by name, sorted for binary search. A role is page-authored and rendered
/// bare (unquoted), so only whitelisted words can ever appear in that position: a free-form
/// role could spell a ref (`e5`), an op marker, or a snapshot header. Roles that carry nothing
/// for an agent (generic, paragraph, emphasis, …) are absent and render as plain text.
const ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "audio",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "dialog",
    "document",
    "feed",
    "figure",
    "form",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "option",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "textbox",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
    "video",
];

/// Roles worth a line of their own even without a name, when they contain something rendered:
/// they tell the agent what kind of structure it is looking at (a list, a form, a dialog).
const CONTAINERS: &[&str] = &[
    "alertdialog",
    "article",
    "banner",
    "complementary",
    "contentinfo",
    "dialog",
    "form",
    "grid",
    "list",
    "listbox",
    "listitem",
    "main",
    "menu",
    "menubar",
    "navigation",
    "radiogroup",
    "row",
    "search",
    "table",
    "tablist",
    "toolbar",
    "tree",
    "treegrid",
    "treeitem",
];

const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];

/// Options of a select shown on its line; the rest are counted.
pub(crate) const OPTIONS_SHOWN: usize = 12;

/// Names at least this long may have been cut by the walker (its cap is 160 characters).
const NAME_CAP_SEEN: usize = 150;

/// HTML input types worth showing (they change what a value may be).
pub(crate) const SHOWN_INPUT_TYPES: &[&str] = &[
    "color",
    "date",
    "datetime-local",
    "email",
    "file",
    "month",
    "number",
    "password",
    "range",
    "search",
    "tel",
    "time",
    "url",
    "week",
];

const CONTAINER: u8 = 1;
const ITEM: u8 = 2;

/// Role word → (the static word, flags). Built once: role lookup runs for every element of
/// every walk, and a binary search of string compares was a tenth of the build time.
fn role_table() -> &'static FxHashMap<&'static str, (&'static str, u8)> {
    static T: std::sync::OnceLock<FxHashMap<&'static str, (&'static str, u8)>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        ROLES
            .iter()
            .map(|&r| {
                let mut f = 0;
                if CONTAINERS.contains(&r) {
                    f |= CONTAINER;
                }
                // Repeated items, told apart by their first text when they have no name.
                if matches!(
                    r,
                    "listitem" | "row" | "article" | "treeitem" | "option" | "group" | "figure" | "tabpanel"
                ) {
                    f |= ITEM;
                }
                (r, (r, f))
            })
            .collect()
    })
}

/// The whitelisted role word of a record and its flags; `h1`–`h6` for headings.
fn role_of(r: &NodeRecord) -> Option<(&'static str, u8)> {
    let raw = r.role.as_deref()?;
    let t = role_table();
    let (role, f) = match t.get(raw) {
        Some(&hit) => hit,
        None => {
            // Slow path for `Button`, ` button`, `button link` (fallback lists).
            let first = raw.split_ascii_whitespace().next()?;
            if first.len() > 24 {
                return None;
            }
            *t.get(first.to_ascii_lowercase().as_str())?
        }
    };
    if role == "heading" {
        let h = match r.level {
            Some(l @ 1..=6) => HEADINGS[l as usize - 1],
            _ => "heading",
        };
        return Some((h, f));
    }
    Some((role, f))
}

/// The whitelisted role word for a record, `h1`–`h6` for headings, `None` for generic.
pub(crate) fn role_token(r: &NodeRecord) -> Option<&'static str> {
    role_of(r).map(|(w, _)| w)
}

/// True when two records render as the same kind of line: the same tag and the same role word
/// (heading level included). Missing records are never the same kind.
pub(crate) fn same_kind(a: Option<&NodeRecord>, b: Option<&NodeRecord>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.tag == b.tag && role_token(a) == role_token(b),
        _ => false,
    }
}

fn nonempty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| has_visible(s))
}

fn tri(t: Option<Tri>) -> u64 {
    match t {
        None => 0,
        Some(Tri::False) => 1,
        Some(Tri::True) => 2,
        Some(Tri::Mixed) => 3,
    }
}

fn ob(b: Option<bool>) -> u64 {
    match b {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    }
}

/// How a tab is observed: what its snapshots leave out. Part of the stream's state: a change
/// of mode is announced with a FULL SNAPSHOT, and every diff after it is in the new mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mode {
    /// Show link URLs (`href="…"`). Off by default: they were a third of a snapshot's tokens,
    /// and reading a link's ref gives its URL.
    pub urls: bool,
    /// Actionable elements only, with the landmarks around them and the heading before them.
    pub interactive: bool,
    /// Approximate budget of a snapshot's body in tokens (0: none). Past it, the model is cut
    /// in document order and a note says what was left out.
    pub max_tokens: u32,
}

/// A picture with no text alternative at all (an `<img>` without `alt`, which Chromium's
/// accessibility tree keeps as an unnamed image), big enough to be content rather than a
/// spacer or a tracking pixel, and not inside a control that speaks for it: a bare `img` line
/// tells the agent there is something only a screenshot shows (a chart, a captcha-like digit).
fn nameless_picture(r: &NodeRecord, in_control: bool) -> bool {
    r.tag == "img"
        && r.role.as_deref() == Some("img")
        && !in_control
        && !opt_visible(&r.name)
        && r.bounds.w >= 24.0
        && r.bounds.h >= 24.0
}

/// Line flag: the element's name is not shown (its rendered children say the same words).
pub(crate) const HIDE_NAME: u8 = 1;

/// Hash of everything the rendered line of `r` depends on (the line itself is only formatted
/// when it is about to be shown). Raw fields, so a difference invisible after cleaning may
/// cause a harmless restatement, but a visible difference can never be missed. `urls` is the
/// mode's: an href that is not shown cannot change a line. `flags` are the model's line flags.
pub(crate) fn line_hash(r: &NodeRecord, refn: u32, urls: bool, flags: u8) -> u64 {
    let s = &r.state;
    let bits = tri(s.checked)
        | tri(s.pressed) << 2
        | ob(s.selected) << 4
        | ob(s.expanded) << 6
        | (s.disabled as u64) << 8
        | (s.required as u64) << 9
        | (s.readonly as u64) << 10
        | (s.focused as u64) << 11
        | (r.actionable as u64) << 12
        | (s.modal as u64) << 13
        | (r.level.unwrap_or(0) as u64) << 16;
    H::new(10)
        .os(r.role.as_deref())
        .os(r.name.as_deref())
        .os(r.text.as_deref())
        .os(s.value.as_deref())
        .os(s.sort.as_deref())
        .os(s.current.as_deref())
        .os(s.popup.as_deref())
        .os(s.invalid.as_deref())
        .os(r.class_name.as_deref())
        .os(crate::look::look(r).as_deref())
        .os(r.input_type.as_deref())
        .os(r.placeholder.as_deref())
        .os(r.href.as_deref().filter(|_| urls))
        .os(Some(r.tag.as_str()))
        .u(bits)
        .u(refn as u64)
        .u(flags as u64)
        .u(options_hash(r))
        // Only a nameless surface's size is in its line (`size=WxH`): every other box moves
        // all the time without changing a line.
        .u(crate::render::surface(r).map_or(0, |(w, h)| (w as u64) << 32 | h as u64))
        .f()
}

fn options_hash(r: &NodeRecord) -> u64 {
    if r.options.is_empty() && r.more_options == 0 {
        return 0;
    }
    let mut h = H::new(14).u(r.more_options as u64);
    for o in &r.options {
        h = h.s(&o.label).u(o.selected as u64);
    }
    h.f()
}

/// Positional-family bookkeeping that must outlive one walk: the membership signature each
/// family had last time, and the generation its keys were minted under.
#[derive(Debug, Default)]
pub(crate) struct Families {
    map: FxHashMap<u64, (u64, u64)>,
    next_gen: u64,
}

impl Families {
    pub fn clear(&mut self) {
        self.map.clear();
    }
}

/// Why a ref stopped naming an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Death {
    /// Its element left the page.
    Gone,
    /// It belonged to a positional family whose membership changed.
    Positional,
    /// The document changed.
    Navigated,
}

/// The state of one issued ref.
#[derive(Debug, Clone)]
pub(crate) struct RefInfo {
    pub key: u64,
    /// Model index in the last model while live.
    pub node: Option<u32>,
    /// How and when (seq) it died; `None` while live or never yet seen live.
    pub death: Option<(Death, String)>,
    /// The element's rendered line when it died (page-derived: fenced before it is shown).
    pub was: String,
    /// Walk index in the last walk while on the page (shown in the model or not).
    pub widx: Option<u32>,
}

/// Key → ref map for one tab. Refs are never reused for a different key: a number that once
/// named one element never names another, which is what lets a stale ref be refused.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    by_key: FxHashMap<u64, u32>,
    pub info: Vec<RefInfo>,
}

impl Registry {
    pub fn ref_for(&mut self, key: u64) -> u32 {
        if let Some(&r) = self.by_key.get(&key) {
            return r;
        }
        self.info.push(RefInfo {
            key,
            node: None,
            death: None,
            was: String::new(),
            widx: None,
        });
        let r = self.info.len() as u32;
        self.by_key.insert(key, r);
        r
    }

    pub fn get(&self, r: u32) -> Option<&RefInfo> {
        self.info.get((r as usize).checked_sub(1)?)
    }

    pub fn get_mut(&mut self, r: u32) -> Option<&mut RefInfo> {
        self.info.get_mut((r as usize).checked_sub(1)?)
    }

    /// Whether `key` has a ref.
    pub fn has_key(&self, key: u64) -> bool {
        self.by_key.contains_key(&key)
    }

    /// Moves ref `r` to `key`: its element is still on the page (the same DOM node) but now
    /// has another identity key (its name changed). The old key no longer names anything.
    pub fn rebind(&mut self, r: u32, key: u64) {
        if let Some(i) = self.get_mut(r) {
            let old = std::mem::replace(&mut i.key, key);
            self.by_key.remove(&old);
            self.by_key.insert(key, r);
        }
    }

    /// Makes `key` unissuable: the element it named can never get its old ref back.
    pub fn forget_key(&mut self, key: u64) {
        self.by_key.remove(&key);
    }

    /// Forgets every key (navigation); issued numbers stay taken.
    pub fn forget_all(&mut self) {
        self.by_key.clear();
    }
}

/// One rendered page.
#[derive(Debug, Default)]
pub(crate) struct Model {
    /// Walk index of each rendered node (model order = document preorder).
    pub rec: Vec<u32>,
    pub parent: Vec<u32>,
    pub depth: Vec<u32>,
    /// Index among the parent's (or the roots') children.
    pub pos: Vec<u32>,
    /// Subtree of `m` is `m..end[m]`.
    pub end: Vec<u32>,
    kids_start: Vec<u32>,
    kids: Vec<u32>,
    pub roots: Vec<u32>,
    pub key: Vec<u64>,
    pub hash: Vec<u64>,
    /// Ref number, 0 for none.
    pub refn: Vec<u32>,
    /// The key depends on a positional family (an ordinal of indistinguishable siblings).
    pub positional: Vec<bool>,
    /// Line flags ([`HIDE_NAME`]) of each rendered node.
    pub flags: Vec<u8>,
    /// Bitset over ref numbers present in this model (a ref names exactly one key, so this
    /// answers "is this element in the agent's model" without a key index).
    ref_bits: Vec<u64>,
    /// Bitset over ref numbers of every actionable element of the walk, shown or not (a mode
    /// or a budget can leave some out of the model; they are still on the page).
    page_bits: Vec<u64>,
    /// Bitset over refs whose key depends on a positional family.
    pos_bits: Vec<u64>,
    /// Ref of each walk node (0 for none), shown or not.
    pub wref: Vec<u32>,
    pub origin: String,
    /// The mode the model was built in.
    pub mode: Mode,
    /// Sentences: walk index of a line's element (or of a text span folded into one) → its
    /// members' walk indices, in order.
    pub inl: FxHashMap<u32, Vec<u32>>,
    /// (model node, ref) of every member with a ref, by node then order in the line.
    pub inl_refs: Vec<(u32, u32)>,
    /// What the budget cut left out, when it cut.
    pub cut: Option<Cut>,
    /// Where each node sits in a grid of indistinguishable controls ([`grid_places`]): row and
    /// column from 1, `(0, 0)` outside one.
    pub grid: Vec<(u16, u16)>,
}

/// What a [`Mode::max_tokens`] cut left out of a model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    /// Elements that would have been shown.
    pub elements: usize,
    /// Of those, the ones with refs.
    pub refs: usize,
}

fn set_bit(bits: &mut Vec<u64>, r: u32) {
    let r = r as usize;
    if bits.len() <= r / 64 {
        bits.resize(r / 64 + 1, 0);
    }
    bits[r / 64] |= 1u64 << (r % 64);
}

fn get_bit(bits: &[u64], r: u32) -> bool {
    let r = r as usize;
    r != 0 && bits.get(r / 64).is_some_and(|w| w & (1u64 << (r % 64)) != 0)
}

impl Model {
    pub fn len(&self) -> usize {
        self.rec.len()
    }

    /// Children of `m`, or the roots for [`NONE`].
    pub fn children(&self, m: u32) -> &[u32] {
        if m == NONE {
            return &self.roots;
        }
        let m = m as usize;
        &self.kids[self.kids_start[m] as usize..self.kids_start[m + 1] as usize]
    }

    pub fn refs(&self) -> usize {
        self.refn.iter().filter(|r| **r != 0).count() + self.inl_refs.len()
    }

    /// Refs of the members of model nodes `from..to`'s lines.
    pub fn inline_refs(&self, from: u32, to: u32) -> impl Iterator<Item = u32> + '_ {
        let a = self.inl_refs.partition_point(|&(m, _)| m < from);
        self.inl_refs[a..]
            .iter()
            .take_while(move |&&(m, _)| m < to)
            .map(|&(_, r)| r)
    }

    /// Every ref in the model: nodes' and members'.
    pub fn all_refs(&self) -> impl Iterator<Item = u32> + '_ {
        self.refn
            .iter()
            .copied()
            .filter(|r| *r != 0)
            .chain(self.inl_refs.iter().map(|&(_, r)| r))
    }

    /// True when ref `r` names an element of this model.
    pub fn has_ref(&self, r: u32) -> bool {
        get_bit(&self.ref_bits, r)
    }

    /// True when ref `r` was issued under a positional family (its key is an ordinal).
    pub fn positional_ref(&self, r: u32) -> bool {
        get_bit(&self.pos_bits, r)
    }

    /// True when ref `r` names an element of the walk, shown in the model or not.
    pub fn on_page(&self, r: u32) -> bool {
        get_bit(&self.page_bits, r)
    }

    /// Model indices of the wanted keys that are present. One pass over the model; used for
    /// the few keys noise bookkeeping tracks, instead of keeping a page-sized key index.
    pub fn locate<V>(&self, want: &FxHashMap<u64, V>) -> FxHashMap<u64, u32> {
        let mut out = FxHashMap::default();
        if want.is_empty() {
            return out;
        }
        for (i, k) in self.key.iter().enumerate() {
            if want.contains_key(k) {
                out.insert(*k, i as u32);
            }
        }
        out
    }
}

/// `scheme://host[:port]` of a URL, empty when it has none.
pub(crate) fn origin_of(url: &str) -> &str {
    let Some(p) = url.find("://") else { return "" };
    let rest = &url[p + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    &url[..p + 3 + end]
}

fn is_form_control(tag: &str) -> bool {
    matches!(tag, "input" | "select" | "textarea" | "button")
}

/// Per-walk working arrays, kept between builds: at 10k+ elements, fresh allocations for them
/// cost more in page faults than the work done in them.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    par: Vec<u32>,
    keep: Vec<bool>,
    kept_below: Vec<bool>,
    act_below: Vec<bool>,
    /// Inside an actionable element (a link, a button): its pictures are its business.
    in_control: Vec<bool>,
    label: Vec<u32>,
    role: Vec<Option<&'static str>>,
    rflags: Vec<u8>,
    base: Vec<u64>,
    ident: Vec<u64>,
    seen: Vec<u64>,
    dup: Vec<u64>,
    suspects: rustc_hash::FxHashSet<u64>,
    structural: Vec<bool>,
    posmix: Vec<u64>,
    fkey: Vec<u64>,
    near: Vec<u32>,
    /// Line hash (without the ref) of kept nodes, computed while the record is in cache.
    lh: Vec<u64>,
    act: Vec<bool>,
    show: Vec<bool>,
    show_below: Vec<bool>,
    count: Vec<u32>,
    member: Vec<bool>,
    all_ok: Vec<bool>,
    folds: Vec<bool>,
    leaf: Vec<bool>,
    wend: Vec<u32>,
    flag: Vec<u8>,
    wkey: Vec<u64>,
    /// base key → index into `ginfo`. Kept small (12-byte entries): this table is probed once
    /// per element and its cache misses were a quarter of the build.
    groups: FxHashMap<u64, u32>,
    /// (base key, members so far, membership signature, has refs to protect, every member
    /// has a node id from the top document's walker)
    ginfo: Vec<(u64, u32, u64, bool, bool)>,
}

/// Keeps a ref on its element when the element's identity key changes while the element stays
/// (the same DOM node, by the walker's node id): a link or button whose text changed ("Follow"
/// → "Following", "Like (3)" → "Like (4)") is the element the agent aimed at, not a new one.
/// Built only when a walk mints a key it has no ref for (rare on a page at rest).
///
/// Rebinding needs the old key to be gone from this walk (else another element now holds that
/// identity and keeps the ref), the same tag, and a node id from the top document's walker,
/// whose ids are never reused within a document (a frame of another site that reloads starts
/// its ids again, so its elements are left to keys). Positional-family members are not
/// rebound: their refs retire with the family by design.
struct Rebinder {
    /// Node id → (ref, tag) of the previous walk's ref'd, non-positional elements whose key
    /// is absent from this walk.
    by_uid: FxHashMap<u64, (u32, String)>,
}

/// Node ids the top document's walker gives; frames of other sites are placed above this.
const TOP_DOCUMENT_UIDS: u64 = 1 << 40;

impl Rebinder {
    fn new(pm: &Model, pw: &Walk, wkey: &[u64], keep: &[bool], actv: &[bool], reg: &Registry) -> Rebinder {
        let present: rustc_hash::FxHashSet<u64> = (0..wkey.len())
            .filter(|&i| keep[i] && actv[i])
            .map(|i| wkey[i])
            .collect();
        let mut by_uid = FxHashMap::default();
        for (w, &r) in pm.wref.iter().enumerate() {
            if r == 0 || pm.positional_ref(r) {
                continue;
            }
            let Some(rec) = pw.nodes.get(w) else { continue };
            let Some(uid) = rec.uid.filter(|&u| u < TOP_DOCUMENT_UIDS) else {
                continue;
            };
            if reg.get(r).is_some_and(|i| !present.contains(&i.key)) {
                by_uid.insert(uid, (r, rec.tag.clone()));
            }
        }
        Rebinder { by_uid }
    }

    /// The ref to keep for `rec`, if it is an element that lost its old key; each ref once.
    fn take(&mut self, rec: &NodeRecord) -> Option<u32> {
        let uid = rec.uid.filter(|&u| u < TOP_DOCUMENT_UIDS)?;
        match self.by_uid.get(&uid) {
            Some((_, tag)) if *tag == rec.tag => self.by_uid.remove(&uid).map(|x| x.0),
            _ => None,
        }
    }
}

fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) -> &mut Vec<T> {
    v.clear();
    v.resize(n, x);
    v
}

/// Builds the model of `walk`. Refs come from (and are added to) `reg`; positional-family
/// generations from `fam`, which is updated to this walk's families.
/// `prev` (the previous model of the same document, and its walk) speeds up ref lookup, and
/// lets an element whose key changed (a link whose text changed) keep its ref: see
/// [`Rebinder`].
pub(crate) fn build(
    walk: &Walk,
    mode: Mode,
    fam: &mut Families,
    reg: &mut Registry,
    sc: &mut Scratch,
    prev_walk: Option<(&Model, &Walk)>,
) -> Model {
    let prev = prev_walk.map(|p| p.0);
    let nodes = &walk.nodes;
    let n = nodes.len();

    // Parents, validated against preorder: a parent must be an ancestor of the previous node,
    // otherwise subtrees would not be contiguous. A record that breaks this becomes a root
    // rather than corrupting the tree (input from the renderer is not trusted to be sane).
    let par = reset(&mut sc.par, n, NONE);
    let mut stack: Vec<u32> = Vec::with_capacity(64);
    let role = &mut sc.role;
    role.clear();
    let rflags = &mut sc.rflags;
    rflags.clear();
    let in_control = reset(&mut sc.in_control, n, false);
    // Records are large and this runs over every one of them several times: each pass reads
    // what it can while a record is in cache.
    for (i, r) in nodes.iter().enumerate() {
        let ro = role_of(r);
        role.push(ro.map(|x| x.0));
        rflags.push(ro.map_or(0, |x| x.1));
        match r.parent.filter(|&p| (p as usize) < i) {
            Some(p) => {
                while stack.last().is_some_and(|&t| t != p) {
                    stack.pop();
                }
                if stack.last() == Some(&p) {
                    par[i] = p;
                    let p = p as usize;
                    in_control[i] = nodes[p].actionable || in_control[p];
                }
            }
            None => stack.clear(),
        }
        stack.push(i as u32);
    }

    // Bottom-up: what is worth rendering, what contains something actionable, and each
    // node's label (the first text in its subtree, used to tell unnamed containers apart).
    let keep = reset(&mut sc.keep, n, false);
    let kept_below = reset(&mut sc.kept_below, n, false);
    let act_below = reset(&mut sc.act_below, n, false);
    let label = reset(&mut sc.label, n, NONE);
    let wend = reset(&mut sc.wend, n, 0);
    for i in (0..n).rev() {
        let r = &nodes[i];
        if wend[i] == 0 {
            wend[i] = i as u32 + 1;
        }
        let own_text = r.visible && opt_visible(&r.text);
        // A container is told apart by the first thing it says: its first text, or the name of
        // its first named non-container (a row's link, a card's heading).
        if own_text || (r.visible && opt_visible(&r.name) && rflags[i] & CONTAINER == 0) {
            label[i] = i as u32;
        }
        let p = par[i];
        let content = opt_visible(&r.name)
            || own_text
            || nameless_picture(r, in_control[i])
            || opt_visible(&r.state.value)
            || !r.options.is_empty()
            || (r.paint.is_some() && crate::look::look(r).is_some());
        let echo_of = match role[i] {
            None => r.text.as_deref().or(r.name.as_deref()),
            // An image inside a link or button that the control is named after.
            Some("img") => r.name.as_deref(),
            _ => None,
        };
        // A <label> whose words (its own and its children's) the control's name says is left
        // out with what it holds, controls excepted.
        let label_echo = !r.actionable && names_its_control(nodes, wend, i);
        if label_echo {
            let mut below = false;
            for j in i + 1..wend[i] as usize {
                if nodes[j].actionable {
                    below |= keep[j];
                } else {
                    keep[j] = false;
                }
            }
            kept_below[i] = below;
        }
        let redundant = label_echo
            || (content
                && !r.actionable
                && !kept_below[i]
                && !opt_visible(&r.state.value)
                && echo_of.is_some_and(|t| is_echo(nodes, par, i, t)));
        let k = r.visible
            && (r.actionable
                || (content && !redundant)
                || (kept_below[i] && rflags[i] & CONTAINER != 0)
                || (kept_below[i] && opt_visible(&r.name) && role[i].is_some()));
        keep[i] = k;
        if p != NONE {
            let p = p as usize;
            kept_below[p] |= k || kept_below[i];
            act_below[p] |= (r.visible && r.actionable) || act_below[i];
            if label[i] != NONE {
                label[p] = label[i];
            }
            wend[p] = wend[p].max(wend[i]).max(p as u32 + 1);
        }
    }

    // A blank cell before a shown one in its row keeps its place: without it the cells after
    // it read as the columns before (a calendar's 1st under Sunday, an empty phone number
    // giving the email its column). Trailing blanks say nothing and stay out. In such a row
    // every cell up to the last shown one gets a line, so that each line is one column.
    {
        const CONTENT_AFTER: u8 = 1;
        const BLANK_BEFORE: u8 = 2;
        const SEEN: u8 = 4;
        let row = &mut sc.flag;
        row.clear();
        row.resize(n, 0);
        let cell_of_row = |i: usize| {
            let p = par[i];
            (p != NONE && role[p as usize] == Some("row") && role[i].is_some_and(is_cell))
                .then_some(p as usize)
        };
        for i in (0..n).rev() {
            let Some(p) = cell_of_row(i) else { continue };
            if keep[i] || kept_below[i] {
                row[p] |= CONTENT_AFTER;
            } else if row[p] & CONTENT_AFTER != 0 && nodes[i].visible {
                row[p] |= BLANK_BEFORE;
            }
        }
        for i in (0..n).rev() {
            let Some(p) = cell_of_row(i) else { continue };
            if row[p] & BLANK_BEFORE == 0 || !nodes[i].visible {
                continue;
            }
            if keep[i] || kept_below[i] {
                row[p] |= SEEN;
                keep[i] = true;
            } else if row[p] & SEEN != 0 {
                keep[i] = true;
            }
        }
    }

    // What the mode shows of what is worth rendering. Interactive: the actionable elements,
    // the landmarks that hold them, and for each the heading it comes after.
    let show = reset(&mut sc.show, n, false);
    let show_below = reset(&mut sc.show_below, n, false);
    if mode.interactive {
        let mut heading = NONE;
        let needed = &mut sc.flag;
        needed.clear();
        needed.resize(n, 0);
        for i in 0..n {
            if keep[i] && role[i].is_some_and(is_heading) {
                heading = i as u32;
            } else if keep[i] && nodes[i].actionable && heading != NONE {
                needed[heading as usize] = 1;
                heading = NONE;
            }
        }
        for i in (0..n).rev() {
            let r = &nodes[i];
            let sh = keep[i]
                && (r.actionable || needed[i] == 1 || (show_below[i] && role[i].is_some_and(is_landmark)));
            show[i] = sh;
            if par[i] != NONE {
                show_below[par[i] as usize] |= sh || show_below[i];
            }
        }
    } else {
        show.copy_from_slice(keep);
        for i in (0..n).rev() {
            if par[i] != NONE {
                show_below[par[i] as usize] |= show[i] || show_below[i];
            }
        }
    }
    // A list item (or group) with nothing of its own to say and one shown child is that child
    // (a name that only repeats that child's words is nothing of its own: a pager's `1`).
    {
        let up = &mut sc.near;
        up.clear();
        up.resize(n, NONE);
        let count = &mut sc.count;
        count.clear();
        count.resize(n, 0);
        for i in 0..n {
            let p = par[i];
            up[i] = match p {
                NONE => NONE,
                p if show[p as usize] => p,
                p => up[p as usize],
            };
            if show[i] && up[i] != NONE {
                count[up[i] as usize] += 1;
            }
        }
        for i in 0..n {
            let r = &nodes[i];
            if show[i]
                && count[i] == 1
                && matches!(role[i], Some("listitem" | "group"))
                && !r.actionable
                && !opt_visible(&r.text)
                && r.state.current.is_none()
                && (!opt_visible(&r.name) || name_repeats_content(nodes, par, wend, show, i))
            {
                show[i] = false;
            }
        }
        // Recompute what is shown below: elision moved children up, it did not remove any.
        show_below.iter_mut().for_each(|b| *b = false);
        for i in (0..n).rev() {
            if par[i] != NONE {
                show_below[par[i] as usize] |= show[i] || show_below[i];
            }
        }
    }
    // A container whose name only repeats what its shown descendants say (a list item named
    // after the links in it, a heading around its one link) is shown without it.
    let flag = reset(&mut sc.flag, n, 0);
    for i in 0..n {
        let r = &nodes[i];
        if show[i]
            && show_below[i]
            && !r.actionable
            && role[i].is_some()
            && opt_visible(&r.name)
            && name_repeats_content(nodes, par, wend, show, i)
        {
            flag[i] |= HIDE_NAME;
        }
    }

    // Identity, top-down over every reported node (unrendered ones still give context).
    let base = reset(&mut sc.base, n, 0);
    let ident = reset(&mut sc.ident, n, 0);
    let structural = reset(&mut sc.structural, n, false);
    // base → (members so far, membership signature, has refs to protect)
    let groups = &mut sc.groups;
    groups.clear();
    groups.reserve(n);
    let ginfo = &mut sc.ginfo;
    ginfo.clear();
    // Duplicate bases are rare, so they are found with two small bitsets (a few KiB, in L1)
    // and only the suspects go through the family table, instead of probing a table as large
    // as the page for every element.
    let bits = (n * 16).next_power_of_two().clamp(1 << 12, 1 << 24);
    let mask = bits - 1;
    let seen = reset(&mut sc.seen, bits / 64, 0u64);
    let dup = reset(&mut sc.dup, bits / 64, 0u64);
    let lh = reset(&mut sc.lh, n, 0);
    let actv = reset(&mut sc.act, n, false);
    for (i, r) in nodes.iter().enumerate() {
        let act = r.visible && r.actionable;
        if keep[i] {
            lh[i] = line_hash(r, 0, mode.urls, flag[i]);
            actv[i] = r.actionable;
        }
        let frame = r.frame as u64;
        let h = if let Some(t) = nonempty(&r.testid) {
            H::new(1).u(frame).s(t)
        } else if let Some(na) = nonempty(&r.name_attr).filter(|_| is_form_control(&r.tag)) {
            let h = H::new(2).u(frame).s(&r.tag).s(na);
            if matches!(r.input_type.as_deref(), Some("radio" | "checkbox")) {
                h.s(&mask_clock(r.name.as_deref().unwrap_or("")))
            } else {
                h
            }
        } else if let Some(id) = nonempty(&r.dom_id).filter(|id| !is_generated_id(id)) {
            H::new(3).u(frame).s(id)
        } else {
            structural[i] = true;
            let name = nonempty(&r.name)
                .or_else(|| nonempty(&r.text))
                .or_else(|| match label[i] {
                    NONE => None,
                    // Only items are labelled by their content: a list labelled by its first
                    // item would re-key everything in it when that item changes.
                    _ if rflags[i] & ITEM == 0 => None,
                    l => nonempty(&nodes[l as usize].text).or_else(|| nonempty(&nodes[l as usize].name)),
                })
                .unwrap_or("");
            // Context is the parent's base: the semantic path up to the nearest element with
            // an identity of its own. Position is not in it; ordinals come after.
            let ctx = match par[i] {
                NONE => 0,
                p => base[p as usize],
            };
            // A control with no name at all is told apart by its class words, as the agent
            // reads it (a spinner's `up` and `down`): without them the two are one positional
            // family, whose refs retire together whenever anything around them changes.
            let hinted = if name.is_empty() {
                crate::render::hint(r)
            } else {
                None
            };
            H::new(4)
                .u(frame)
                .s(r.role.as_deref().unwrap_or(&r.tag))
                .s(&mask_clock(name))
                .os(hinted.as_deref())
                .u(ctx)
        };
        let b = h.u(act as u64).f();
        base[i] = b;
        let bit = (b as usize) & mask;
        let (w, m) = (bit / 64, 1u64 << (bit % 64));
        if seen[w] & m != 0 {
            dup[w] |= m;
        } else {
            seen[w] |= m;
        }
    }
    for (i, r) in nodes.iter().enumerate() {
        let b = base[i];
        let bit = (b as usize) & mask;
        if dup[bit / 64] & (1u64 << (bit % 64)) == 0 {
            ident[i] = b;
            continue;
        }
        let act = r.visible && r.actionable;
        let next = ginfo.len() as u32;
        let gi = *groups.entry(b).or_insert(next);
        if gi == next {
            ginfo.push((b, 0, 0x51ed_270b, false, true));
        }
        let g = &mut ginfo[gi as usize];
        // The first member's ident is its base: most elements are unique and skip a hash.
        ident[i] = if g.1 == 0 {
            b
        } else {
            H::new(5).u(b).u(g.1 as u64).f()
        };
        g.1 += 1;
        // Walker-assigned DOM node ids make the signature see a same-count swap; without
        // them only the count is compared.
        g.2 = H::new(11).u(g.2).u(r.uid.unwrap_or(0)).f();
        g.3 |= act || act_below[i];
        g.4 &= r.uid.is_some_and(|u| u < TOP_DOCUMENT_UIDS);
    }

    // Identical siblings whose DOM nodes the walker tells apart are keyed by node: each keeps
    // its ref while its node lives, whatever is added or removed around it (a new identical
    // row, one deleted), and a replaced node is a new element. The walker's ids are never
    // reused within a document and the keys are forgotten on navigation, so a key cannot pass
    // to another node. Only families with a member it cannot tell apart (a frame of another
    // site, whose walker restarts its ids when it reloads) fall back to order: their keys are
    // ordinals, and their refs retire together when the membership changes (below).
    let by_node = |g: &(u64, u32, u64, bool, bool)| g.1 >= 2 && g.4;
    if ginfo.iter().any(by_node) {
        for (i, r) in nodes.iter().enumerate() {
            let b = base[i];
            let bit = (b as usize) & mask;
            if dup[bit / 64] & (1u64 << (bit % 64)) == 0 {
                continue;
            }
            let Some(&gi) = groups.get(&b) else { continue };
            if by_node(&ginfo[gi as usize]) {
                ident[i] = H::new(13).u(b).u(r.uid.unwrap_or(0)).f();
            }
        }
    }

    // Positional families: a family whose membership signature changed gets a fresh
    // generation, which changes every member's key, which retires every member's ref.
    let mut gens: FxHashMap<u64, u64> = FxHashMap::default();
    let mut next_map = FxHashMap::default();
    for g @ &(b, count, sig, protect, _) in ginfo.iter() {
        // A family keyed by node is not positional: no generation, nothing inherited below.
        if count < 2 || !protect || by_node(g) {
            continue;
        }
        let sig = H::new(12).u(sig).u(count as u64).f();
        let gen_ = match fam.map.get(&b) {
            Some(&(s, g)) if s == sig => g,
            _ => {
                fam.next_gen += 1;
                fam.next_gen
            }
        };
        next_map.insert(b, (sig, gen_));
        gens.insert(b, gen_);
    }
    fam.map = next_map;

    let posmix = reset(&mut sc.posmix, n, 0);
    let fkey = reset(&mut sc.fkey, n, 0);
    for i in 0..n {
        let inherited = match par[i] {
            p if p != NONE && structural[i] => posmix[p as usize],
            _ => 0,
        };
        let own = if gens.is_empty() {
            0
        } else {
            gens.get(&base[i]).copied().unwrap_or(0)
        };
        posmix[i] = if inherited == 0 && own == 0 {
            0
        } else {
            H::new(6).u(inherited).u(own).f()
        };
        fkey[i] = if posmix[i] == 0 {
            ident[i]
        } else {
            H::new(7).u(ident[i]).u(posmix[i]).f()
        };
    }

    // The budget: shown nodes in document order until their estimated cost passes it.
    let mut cut: Option<Cut> = None;
    if mode.max_tokens > 0 {
        let budget = mode.max_tokens as usize * 4;
        let mut used = 0usize;
        for i in 0..n {
            if !show[i] {
                continue;
            }
            if let Some(c) = cut.as_mut() {
                show[i] = false;
                c.elements += 1;
                c.refs += usize::from(actv[i]);
                continue;
            }
            used += line_cost(&nodes[i], mode.urls);
            if used > budget {
                show[i] = false;
                cut = Some(Cut {
                    elements: 1,
                    refs: usize::from(actv[i]),
                });
            }
        }
    }

    // Sentences: an element with text of its own whose shown children all sit inline in that
    // text, and have nothing shown below them (or are plain text spans that fold their own), is
    // one line, its children in their places in it ("members"), not lines of their own.
    let member = reset(&mut sc.member, n, false);
    let mut inl: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    {
        let up = &mut sc.near;
        up.clear();
        up.resize(n, NONE);
        for i in 0..n {
            up[i] = match par[i] {
                NONE => NONE,
                p if show[p as usize] => p,
                p => up[p as usize],
            };
        }
        let kids = reset(&mut sc.count, n, 0);
        let all_ok = reset(&mut sc.all_ok, n, true);
        let folds = reset(&mut sc.folds, n, false);
        // The last shown child is a leaf reached through nothing with text of its own.
        let leaf = reset(&mut sc.leaf, n, false);
        for i in (0..n).rev() {
            if !show[i] {
                continue;
            }
            let r = &nodes[i];
            let has_text = r.visible && opt_visible(&r.text);
            let plain_host = !r.actionable && r.options.is_empty();
            // A sentence; or a heading, cell or the like that says nothing but its one child (a
            // headline that is a link): `h3 [e5 link "…"]`, one line instead of two.
            folds[i] = plain_host
                && ((kids[i] > 0 && all_ok[i] && has_text)
                    || (kids[i] == 1
                        && leaf[i]
                        && !has_text
                        && role[i].is_some()
                        && rflags[i] & CONTAINER == 0
                        && (flag[i] & HIDE_NAME != 0 || !opt_visible(&r.name))));
            let h = up[i];
            if h == NONE {
                continue;
            }
            let plain = role[i].is_none() && !r.actionable;
            let chain = inline_chain(nodes, par, i, h as usize);
            let ok = r.at.is_some() && (kids[i] == 0 || (folds[i] && plain)) && chain;
            kids[h as usize] += 1;
            all_ok[h as usize] &= ok;
            leaf[h as usize] = kids[i] == 0 && chain;
        }
        for i in 0..n {
            if show[i] && up[i] != NONE && folds[up[i] as usize] {
                member[i] = true;
                inl.entry(up[i]).or_default().push(i as u32);
            }
        }
    }

    // The rendered tree.
    let mut m = Model {
        origin: origin_of(&walk.url).to_owned(),
        mode,
        cut,
        ..Model::default()
    };
    let shown = show.iter().filter(|k| **k).count();
    m.rec.reserve(shown);
    m.parent.reserve(shown);
    m.depth.reserve(shown);
    let near = reset(&mut sc.near, n, NONE);
    for i in 0..n {
        let up = match par[i] {
            NONE => NONE,
            p => near[p as usize],
        };
        if show[i] && !member[i] {
            let mi = m.rec.len() as u32;
            // Past the depth cap, elements become children of the deepest allowed ancestor
            // (still in document order, so subtrees stay contiguous).
            let up = if up != NONE && m.depth[up as usize] >= MAX_DEPTH {
                m.parent[up as usize]
            } else {
                up
            };
            m.rec.push(i as u32);
            m.parent.push(up);
            m.depth
                .push(if up == NONE { 0 } else { m.depth[up as usize] + 1 });
            near[i] = mi;
        } else {
            near[i] = up;
        }
    }
    let k = m.rec.len();
    let mut count = vec![0u32; k + 1];
    for &p in &m.parent {
        if p != NONE {
            count[p as usize] += 1;
        }
    }
    m.kids_start = Vec::with_capacity(k + 1);
    let mut acc = 0u32;
    for c in &count[..k] {
        m.kids_start.push(acc);
        acc += c;
    }
    m.kids_start.push(acc);
    m.kids = vec![0; acc as usize];
    let mut cursor: Vec<u32> = m.kids_start[..k].to_vec();
    m.pos = vec![0; k];
    for (mi, &p) in m.parent.iter().enumerate() {
        if p == NONE {
            m.pos[mi] = m.roots.len() as u32;
            m.roots.push(mi as u32);
        } else {
            let c = &mut cursor[p as usize];
            m.pos[mi] = *c - m.kids_start[p as usize];
            m.kids[*c as usize] = mi as u32;
            *c += 1;
        }
    }
    let mut size = vec![1u32; k];
    for mi in (0..k).rev() {
        let p = m.parent[mi];
        if p != NONE {
            size[p as usize] += size[mi];
        }
    }
    m.end = (0..k).map(|mi| mi as u32 + size[mi]).collect();

    // Keys of every node worth rendering (shown or not: a ref is issued for every actionable
    // element, so one the mode or the budget leaves out can still be shown by a view and
    // acted on). Keys are unique within a walk by construction (ordinals); a 64-bit collision
    // is still resolved deterministically instead of trusted away. Suspects come from the same
    // bitset trick as the bases.
    let kept = keep.iter().filter(|k| **k).count();
    let bits = (kept * 16).next_power_of_two().clamp(1 << 12, 1 << 24);
    let mask = bits - 1;
    let seen = reset(&mut sc.seen, bits / 64, 0u64);
    let dup = reset(&mut sc.dup, bits / 64, 0u64);
    for i in 0..n {
        if !keep[i] {
            continue;
        }
        let bit = (fkey[i] as usize) & mask;
        let (w, b) = (bit / 64, 1u64 << (bit % 64));
        if seen[w] & b != 0 {
            dup[w] |= b;
        } else {
            seen[w] |= b;
        }
    }
    let suspects = &mut sc.suspects;
    suspects.clear();
    let wkey = reset(&mut sc.wkey, n, 0);
    for i in 0..n {
        if !keep[i] {
            continue;
        }
        let mut key = fkey[i];
        let bit = (key as usize) & mask;
        if dup[bit / 64] & (1u64 << (bit % 64)) != 0 {
            while !suspects.insert(key) {
                key = H::new(8).u(key).f();
            }
        }
        wkey[i] = key;
    }
    m.key.reserve(k);
    m.hash.reserve(k);
    m.refn.reserve(k);
    m.positional.reserve(k);
    m.flags.reserve(k);
    m.wref = vec![0; n];
    // Refs first, for every node worth rendering. Most elements sit where they sat last time
    // (give or take a shift), and the previous model has their ref at hand: that is a
    // sequential read instead of a probe of the registry. `delta` tracks the current shift.
    let mut delta: isize = 0;
    let mut mi = 0usize;
    let mut rebinder: Option<Rebinder> = None;
    for i in 0..n {
        if !keep[i] {
            continue;
        }
        let key = wkey[i];
        let shown_at = (show[i] && !member[i]).then_some(mi);
        if shown_at.is_some() {
            mi += 1;
        }
        if !actv[i] {
            continue;
        }
        let hit = shown_at.and_then(|mi| {
            let g = usize::try_from(mi as isize + delta).ok()?;
            let p = prev?;
            (p.key.get(g) == Some(&key) && p.refn[g] != 0).then(|| p.refn[g])
        });
        let refn = match hit {
            Some(r) => r,
            None => {
                let r = match prev_walk {
                    Some((pm, pw)) if posmix[i] == 0 && !reg.has_key(key) => {
                        let rb = rebinder.get_or_insert_with(|| Rebinder::new(pm, pw, wkey, keep, actv, reg));
                        match rb.take(&nodes[i]) {
                            Some(r) => {
                                reg.rebind(r, key);
                                r
                            }
                            None => reg.ref_for(key),
                        }
                    }
                    _ => reg.ref_for(key),
                };
                if let (Some(mi), Some(_)) = (shown_at, prev)
                    && let Some(node) = reg.get(r).and_then(|info| info.node)
                {
                    delta = node as isize - mi as isize;
                }
                r
            }
        };
        m.wref[i] = refn;
        set_bit(&mut m.page_bits, refn);
        if posmix[i] != 0 {
            set_bit(&mut m.pos_bits, refn);
        }
        if show[i] {
            set_bit(&mut m.ref_bits, refn);
        }
    }
    // Then the model's nodes: a sentence's line hash covers its members, their places and refs.
    for (mi, &i) in m.rec.iter().enumerate() {
        let i = i as usize;
        let refn = m.wref[i];
        let mut h = if refn == 0 {
            lh[i]
        } else {
            H::new(13).u(lh[i]).u(refn as u64).f()
        };
        if let Some(ms) = inl.get(&(i as u32)) {
            let mut refs = Vec::new();
            h = member_hash(h, ms, &inl, nodes, lh, &m.wref, &mut refs);
            m.inl_refs.extend(refs.into_iter().map(|r| (mi as u32, r)));
        }
        m.key.push(wkey[i]);
        m.refn.push(refn);
        m.flags.push(flag[i]);
        m.positional.push(posmix[i] != 0);
        m.hash.push(h);
    }
    m.inl = inl;
    m.grid = grid_places(&m, nodes, lh);
    for (h, &place) in m.hash.iter_mut().zip(&m.grid) {
        *h = with_place(*h, place);
    }
    m
}

/// A line's hash with its grid place ([`grid_places`]) folded in, so a cell that moved to
/// another row or column reads as changed; unchanged outside a grid.
pub(crate) fn with_place(h: u64, (row, col): (u16, u16)) -> u64 {
    if row == 0 {
        return h;
    }
    H::new(14).u(h).u(((row as u64) << 16) | col as u64).f()
}

/// The fewest indistinguishable controls that make a grid.
const GRID_MIN: usize = 4;
/// How far apart (in the members' median extent along that axis, plus a few pixels) two
/// neighbouring rows or columns of a grid may lie.
const GRID_GAP: f32 = 4.0;

/// Row and column of each control in a grid of controls only their place tells apart (a
/// board's cells, a chart's points, a field of checkboxes drawn as a figure): an agent reading
/// text saw 25 identical lines and could not tell which was "row 2, column 3". Members share a
/// parent line and a line (refs aside), or are all nameless controls of one kind; they form a
/// grid when their centres fall in at least two rows and two columns, every row and column
/// holds two or more, and neighbouring rows and columns lie close ([`GRID_GAP`]). Rows and
/// columns are counted from the top left, a new one starting where the centres move on by
/// more than half the members' smallest extent.
fn grid_places(m: &Model, nodes: &[NodeRecord], lh: &[u64]) -> Vec<(u16, u16)> {
    let mut out = vec![(0u16, 0u16); m.rec.len()];
    let mut groups: FxHashMap<(u32, u64), Vec<usize>> = FxHashMap::default();
    for (mi, &w) in m.rec.iter().enumerate() {
        let r = &nodes[w as usize];
        if m.refn[mi] != 0 && r.bounds.w > 0.0 && r.bounds.h > 0.0 && !m.inl.contains_key(&w) {
            // Nameless controls of one kind are one board whatever their marks and looks (a
            // cell holding an O is still a cell of the board); named ones only when their
            // lines are the same.
            let nameless = !opt_visible(&r.name) && !opt_visible(&r.text);
            let kind = match nameless {
                true => H::new(15).s(role_token(r).unwrap_or("")).s(&r.tag).f(),
                false => lh[w as usize],
            };
            groups.entry((m.parent[mi], kind)).or_default().push(mi);
        }
    }
    for members in groups.values().filter(|g| g.len() >= GRID_MIN) {
        let centre = |mi: usize| {
            let b = &nodes[m.rec[mi] as usize].bounds;
            (b.x + b.w / 2.0, b.y + b.h / 2.0)
        };
        // Bands along one axis, or none when two neighbouring bands lie further apart than a
        // board's do (two toolbars of the same buttons at the top and foot of an article are
        // not a board).
        let bands = |axis: fn((f32, f32)) -> f32, extent: fn(&Rect) -> f32| {
            let mut sizes: Vec<f32> = members
                .iter()
                .map(|&mi| extent(&nodes[m.rec[mi] as usize].bounds))
                .collect();
            sizes.sort_by(f32::total_cmp);
            let (tol, gap) = (sizes[0] / 2.0, sizes[sizes.len() / 2] * GRID_GAP + 8.0);
            let mut at: Vec<(f32, usize)> = members.iter().map(|&mi| (axis(centre(mi)), mi)).collect();
            at.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut band = FxHashMap::default();
            let (mut n, mut start) = (0u16, f32::NEG_INFINITY);
            for (v, mi) in at {
                if v - start > tol {
                    if n > 0 && v - start > gap {
                        return None;
                    }
                    n = n.saturating_add(1);
                    start = v;
                }
                band.insert(mi, n);
            }
            Some((n, band))
        };
        let (Some((rows, row)), Some((cols, col))) = (bands(|c| c.1, |b| b.h), bands(|c| c.0, |b| b.w))
        else {
            continue;
        };
        // Every row and every column holds two or more: a board, not a scatter.
        let full = |band: &FxHashMap<usize, u16>, n: u16| {
            let mut count = vec![0u32; n as usize + 1];
            for &b in band.values() {
                count[b as usize] += 1;
            }
            count[1..].iter().all(|&c| c >= 2)
        };
        if rows >= 2 && cols >= 2 && full(&row, rows) && full(&col, cols) {
            for &mi in members {
                out[mi] = (row[&mi], col[&mi]);
            }
        }
    }
    out
}

/// Folds the members of a sentence (and theirs) into its line hash; collects their refs in
/// order.
fn member_hash(
    mut h: u64,
    ms: &[u32],
    inl: &FxHashMap<u32, Vec<u32>>,
    nodes: &[NodeRecord],
    lh: &[u64],
    wref: &[u32],
    refs: &mut Vec<u32>,
) -> u64 {
    for &c in ms {
        let c = c as usize;
        h = H::new(15)
            .u(h)
            .u(lh[c])
            .u(nodes[c].at.unwrap_or(0) as u64)
            .u(nodes[c].pad as u64)
            .u(wref[c] as u64)
            .f();
        if wref[c] != 0 {
            refs.push(wref[c]);
        }
        if let Some(sub) = inl.get(&(c as u32)) {
            // Nesting is part of the line: the same members in a span read differently.
            h = member_hash(H::new(17).u(h).f(), sub, inl, nodes, lh, wref, refs);
            h = H::new(18).u(h).f();
        }
    }
    h
}

/// True when nothing between walk node `i` and its shown ancestor `h` has text of its own:
/// `i`'s place (`at`) is then a place in `h`'s text.
fn inline_chain(nodes: &[NodeRecord], par: &[u32], i: usize, h: usize) -> bool {
    let mut p = par[i];
    while p != NONE && p as usize != h {
        let r = &nodes[p as usize];
        if r.visible && opt_visible(&r.text) {
            return false;
        }
        p = par[p as usize];
    }
    p as usize == h
}

/// Estimated rendered size of a record's line in bytes (about four to a token): what the
/// budget is counted in. Strings are capped as rendering caps them.
fn line_cost(r: &NodeRecord, urls: bool) -> usize {
    let cap = |s: &Option<String>| s.as_deref().map_or(0, |s| s.len().min(STRING_CAP * 2) + 3);
    let mut c = 10 + cap(&r.name) + cap(&r.text) + cap(&r.state.value) + cap(&r.placeholder);
    if urls {
        c += cap(&r.href);
    }
    for o in r.options.iter().take(OPTIONS_SHOWN) {
        c += o.label.len().min(STRING_CAP) + 3;
    }
    c
}

/// Roles that take a column of a table row.
fn is_cell(role: &str) -> bool {
    matches!(role, "cell" | "gridcell" | "columnheader" | "rowheader")
}

fn is_heading(role: &str) -> bool {
    HEADINGS.contains(&role) || role == "heading"
}

/// Landmarks (and dialogs): the regions an interactive snapshot keeps around what it lists.
fn is_landmark(role: &str) -> bool {
    matches!(
        role,
        "banner"
            | "navigation"
            | "main"
            | "contentinfo"
            | "complementary"
            | "search"
            | "form"
            | "region"
            | "dialog"
            | "alertdialog"
    )
}

/// Letters and digits of `s`, lower-cased: how names are compared when deciding that one
/// repeats another (punctuation and spacing differ between a name and the texts it came from).
fn squash(s: &str, out: &mut String) {
    squash_if(s, out, char::is_alphanumeric);
}

/// [`squash`] keeping the characters `keep` accepts.
fn squash_if(s: &str, out: &mut String, keep: fn(char) -> bool) {
    for c in s.chars() {
        if keep(c) {
            out.extend(c.to_lowercase());
        }
    }
}

/// Not white space: what a name made only of symbols (`>`, `«`, `+`) is compared on.
fn not_space(c: char) -> bool {
    !c.is_whitespace()
}

/// True when the name of walk node `i` says nothing its own text and its shown descendants do
/// not: their names (or texts), each in its place in the text (`at`) or after it, spell it.
fn name_repeats_content(nodes: &[NodeRecord], par: &[u32], wend: &[u32], show: &[bool], i: usize) -> bool {
    let r = &nodes[i];
    let name = r.name.as_deref().unwrap_or("");
    // Letters and digits are what is compared (the products of a page join words with
    // different punctuation); a name with none (a pager's `>`) is compared on its symbols.
    let keep: fn(char) -> bool = if name.chars().any(char::is_alphanumeric) {
        char::is_alphanumeric
    } else {
        not_space
    };
    let squash = |s: &str, out: &mut String| squash_if(s, out, keep);
    let mut want = String::new();
    squash(name, &mut want);
    if want.is_empty() {
        return false;
    }
    // A name at the walker's cap is compared as a prefix.
    let capped = r
        .name
        .as_deref()
        .is_some_and(|n| n.chars().count() >= NAME_CAP_SEEN);
    let text = if r.visible {
        r.text.as_deref().unwrap_or("")
    } else {
        ""
    };
    let chars = text.chars().count();
    let mut parts: Vec<(usize, String)> = Vec::new();
    let mut total = 0usize;
    let end = wend[i] as usize;
    let mut j = i + 1;
    let mut visited = 0;
    while j < end && total <= want.len() + 8 {
        visited += 1;
        if visited > 256 {
            return false;
        }
        let c = &nodes[j];
        if show[j] && c.visible {
            let place = match c.at {
                Some(a) if inline_chain(nodes, par, j, i) => (a as usize).min(chars),
                _ => usize::MAX,
            };
            let mut got = String::new();
            match c.name.as_deref().filter(|n| has_visible(n)) {
                Some(name) => {
                    squash(name, &mut got);
                    total += got.len();
                    parts.push((place, got));
                    j = wend[j] as usize;
                    continue;
                }
                None => {
                    if let Some(t) = c.text.as_deref() {
                        squash(t, &mut got);
                    }
                }
            }
            total += got.len();
            parts.push((place, got));
        }
        j += 1;
    }
    parts.sort_by_key(|p| p.0);
    let mut got = String::new();
    let mut pos = 0usize;
    let mut it = text.chars();
    for (place, p) in parts {
        while pos < place.min(chars) {
            if let Some(ch) = it.next() {
                squash(ch.encode_utf8(&mut [0; 4]), &mut got);
            }
            pos += 1;
        }
        got.push_str(&p);
    }
    for ch in it {
        squash(ch.encode_utf8(&mut [0; 4]), &mut got);
    }
    if capped {
        got.starts_with(&want) || want.starts_with(&got) && got.len() * 10 >= want.len() * 9
    } else {
        got == want
    }
}

/// A `<label>` whose words (its text and its descendants') are all in the name of the control
/// it labels: the control's line says them.
fn names_its_control(nodes: &[NodeRecord], wend: &[u32], i: usize) -> bool {
    let r = &nodes[i];
    let Some(c) = r.label_for.and_then(|c| nodes.get(c as usize)) else {
        return false;
    };
    if !c.visible {
        return false;
    }
    let mut a = String::new();
    let end = (wend[i] as usize).min(i + 64);
    for (j, d) in nodes.iter().enumerate().take(end).skip(i) {
        if j > i && d.actionable {
            continue;
        }
        if let Some(t) = d.text.as_deref().or(d.name.as_deref().filter(|_| j > i)) {
            squash(t, &mut a);
        }
    }
    let mut b = String::new();
    squash(c.name.as_deref().unwrap_or(""), &mut b);
    !a.is_empty() && b.contains(&a)
}

/// A plain text node whose text its parent or grandparent already says in its name (the span
/// inside `<button><span>Save</span></button>`): rendering it would say everything twice.
fn is_echo(nodes: &[NodeRecord], par: &[u32], i: usize, t: &str) -> bool {
    let t = t.trim();
    if t.is_empty() {
        return false;
    }
    let mut p = par[i];
    for _ in 0..2 {
        if p == NONE {
            return false;
        }
        let pr = &nodes[p as usize];
        if pr.name.as_deref().is_some_and(|n| n.contains(t)) {
            return true;
        }
        p = par[p as usize];
    }
    false
}

#[cfg(test)]
mod debug_tests {
    use super::*;
    use crate::record::NodeRecord;

    fn rec(parent: Option<u32>, role: &str, name: Option<&str>, text: Option<&str>, act: bool) -> NodeRecord {
        NodeRecord {
            parent,
            tag: "div".into(),
            role: Some(role.into()),
            name: name.map(Into::into),
            text: text.map(Into::into),
            visible: true,
            actionable: act,
            ..NodeRecord::default()
        }
    }

    fn rows(order: &[usize]) -> Walk {
        let mut w = Walk::default();
        w.nodes.push(rec(None, "list", None, None, false));
        for &i in order {
            let li = w.nodes.len() as u32;
            w.nodes.push(rec(Some(0), "listitem", None, None, false));
            w.nodes
                .push(rec(Some(li), "generic", None, Some(&format!("Task {i}")), false));
            w.nodes.push(rec(Some(li), "button", Some("Delete"), None, true));
        }
        w
    }

    #[test]
    fn row_keys_follow_their_label_not_their_position() {
        let (mut f, mut r) = (Families::default(), Registry::default());
        let mut sc = Scratch::default();
        let wa = rows(&[0, 1, 2]);
        let a = build(&wa, Mode::default(), &mut f, &mut r, &mut sc, None);
        let b = build(
            &rows(&[2, 0, 1]),
            Mode::default(),
            &mut f,
            &mut r,
            &mut sc,
            Some((&a, &wa)),
        );
        let ka: std::collections::BTreeSet<u64> = a.key.iter().copied().collect();
        let kb: std::collections::BTreeSet<u64> = b.key.iter().copied().collect();
        assert_eq!(ka, kb);
        assert!(a.positional.iter().all(|p| !p));
    }
}
