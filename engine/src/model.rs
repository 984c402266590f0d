//! The page model: the rendered tree built from one walk, with identity keys, refs and a
//! per-line content hash. Struct-of-arrays and CSR children because a 50k-element page has to be
//! rebuilt on every observation; nothing here formats text (rendering is lazy, see `render`).

use crate::key::{H, is_generated_id};
use crate::record::{NodeRecord, Tri, Walk};
use crate::text::{has_visible, mask_clock, opt_visible};
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

/// Hash of everything the rendered line of `r` depends on (the line itself is only formatted
/// when it is about to be shown). Raw fields, so a difference invisible after cleaning may
/// cause a harmless restatement, but a visible difference can never be missed.
pub(crate) fn line_hash(r: &NodeRecord, refn: u32) -> u64 {
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
        | (r.level.unwrap_or(0) as u64) << 16;
    H::new(10)
        .os(r.role.as_deref())
        .os(r.name.as_deref())
        .os(r.text.as_deref())
        .os(s.value.as_deref())
        .os(r.input_type.as_deref())
        .os(r.placeholder.as_deref())
        .os(r.href.as_deref())
        .os(Some(r.tag.as_str()))
        .u(bits)
        .u(refn as u64)
        .f()
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
    /// Bitset over ref numbers present in this model (a ref names exactly one key, so this
    /// answers "is this element still on the page" without a key index).
    ref_bits: Vec<u64>,
    pub origin: String,
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
        self.refn.iter().filter(|r| **r != 0).count()
    }

    /// True when ref `r` names an element of this model.
    pub fn has_ref(&self, r: u32) -> bool {
        let r = r as usize;
        r != 0
            && self
                .ref_bits
                .get(r / 64)
                .is_some_and(|w| w & (1u64 << (r % 64)) != 0)
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
    /// base key → index into `ginfo`. Kept small (12-byte entries): this table is probed once
    /// per element and its cache misses were a quarter of the build.
    groups: FxHashMap<u64, u32>,
    /// (base key, members so far, membership signature, has refs to protect)
    ginfo: Vec<(u64, u32, u64, bool)>,
}

fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) -> &mut Vec<T> {
    v.clear();
    v.resize(n, x);
    v
}

/// Builds the model of `walk`. Refs come from (and are added to) `reg`; positional-family
/// generations from `fam`, which is updated to this walk's families.
/// `prev` (the previous model of the same document) only speeds up ref lookup.
pub(crate) fn build(
    walk: &Walk,
    fam: &mut Families,
    reg: &mut Registry,
    sc: &mut Scratch,
    prev: Option<&Model>,
) -> Model {
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
    for i in (0..n).rev() {
        let r = &nodes[i];
        let own_text = r.visible && opt_visible(&r.text);
        // A container is told apart by the first thing it says: its first text, or the name of
        // its first named non-container (a row's link, a card's heading).
        if own_text || (r.visible && opt_visible(&r.name) && rflags[i] & CONTAINER == 0) {
            label[i] = i as u32;
        }
        let p = par[i];
        let content = opt_visible(&r.name) || own_text || opt_visible(&r.state.value);
        let redundant = content
            && !r.actionable
            && role[i].is_none()
            && !kept_below[i]
            && !opt_visible(&r.state.value)
            && is_echo(nodes, par, i);
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
            lh[i] = line_hash(r, 0);
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
            H::new(4)
                .u(frame)
                .s(r.role.as_deref().unwrap_or(&r.tag))
                .s(&mask_clock(name))
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
            ginfo.push((b, 0, 0x51ed_270b, false));
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
    }

    // Positional families: a family whose membership signature changed gets a fresh
    // generation, which changes every member's key, which retires every member's ref.
    let mut gens: FxHashMap<u64, u64> = FxHashMap::default();
    let mut next_map = FxHashMap::default();
    for &(b, count, sig, protect) in ginfo.iter() {
        if count < 2 || !protect {
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

    // The rendered tree.
    let mut m = Model {
        origin: origin_of(&walk.url).to_owned(),
        ..Model::default()
    };
    let kept = keep.iter().filter(|k| **k).count();
    m.rec.reserve(kept);
    m.parent.reserve(kept);
    m.depth.reserve(kept);
    let near = reset(&mut sc.near, n, NONE);
    for i in 0..n {
        let up = match par[i] {
            NONE => NONE,
            p => near[p as usize],
        };
        if keep[i] {
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

    m.key.reserve(k);
    m.hash.reserve(k);
    m.refn.reserve(k);
    m.positional.reserve(k);
    // Keys are unique within a walk by construction (ordinals); a 64-bit collision is still
    // resolved deterministically instead of trusted away. Suspects come from the same bitset
    // trick as the bases.
    let bits = (k * 16).next_power_of_two().clamp(1 << 12, 1 << 24);
    let mask = bits - 1;
    let seen = reset(&mut sc.seen, bits / 64, 0u64);
    let dup = reset(&mut sc.dup, bits / 64, 0u64);
    for &i in &m.rec {
        let bit = (fkey[i as usize] as usize) & mask;
        let (w, b) = (bit / 64, 1u64 << (bit % 64));
        if seen[w] & b != 0 {
            dup[w] |= b;
        } else {
            seen[w] |= b;
        }
    }
    let suspects = &mut sc.suspects;
    suspects.clear();
    // Most elements sit where they sat last time (give or take a shift), and the previous
    // model has their ref at hand: that is a sequential read instead of a probe of the
    // registry. `delta` tracks the current shift.
    let mut delta: isize = 0;
    for mi in 0..k {
        let i = m.rec[mi] as usize;
        let mut key = fkey[i];
        let bit = (key as usize) & mask;
        if dup[bit / 64] & (1u64 << (bit % 64)) != 0 {
            while !suspects.insert(key) {
                key = H::new(8).u(key).f();
            }
        }
        let refn = if !actv[i] {
            0
        } else {
            let guess = mi as isize + delta;
            let hit = prev.and_then(|p| {
                let g = usize::try_from(guess).ok()?;
                (p.key.get(g) == Some(&key) && p.refn[g] != 0).then(|| p.refn[g])
            });
            match hit {
                Some(r) => r,
                None => {
                    let r = reg.ref_for(key);
                    if prev.is_some()
                        && let Some(node) = reg.get(r).and_then(|info| info.node)
                    {
                        delta = node as isize - mi as isize;
                    }
                    r
                }
            }
        };
        if refn != 0 {
            let r = refn as usize;
            if m.ref_bits.len() <= r / 64 {
                m.ref_bits.resize(r / 64 + 1, 0);
            }
            m.ref_bits[r / 64] |= 1u64 << (r % 64);
        }
        m.key.push(key);
        m.refn.push(refn);
        m.positional.push(posmix[i] != 0);
        m.hash.push(if refn == 0 {
            lh[i]
        } else {
            H::new(13).u(lh[i]).u(refn as u64).f()
        });
    }
    m
}

/// A plain text node whose text its parent or grandparent already says in its name (the span
/// inside `<button><span>Save</span></button>`): rendering it would say everything twice.
fn is_echo(nodes: &[NodeRecord], par: &[u32], i: usize) -> bool {
    let Some(t) = nodes[i].text.as_deref().map(str::trim).filter(|t| !t.is_empty()) else {
        return false;
    };
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
        let a = build(&rows(&[0, 1, 2]), &mut f, &mut r, &mut sc, None);
        let b = build(&rows(&[2, 0, 1]), &mut f, &mut r, &mut sc, Some(&a));
        let ka: std::collections::BTreeSet<u64> = a.key.iter().copied().collect();
        let kb: std::collections::BTreeSet<u64> = b.key.iter().copied().collect();
        assert_eq!(ka, kb);
        assert!(a.positional.iter().all(|p| !p));
    }
}
