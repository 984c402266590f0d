//! Per-tab engine state and the agent-facing observation text.

use crate::diff::{Anchor, Item, Op, reconcile, weight};
use crate::envelope;
use crate::model::{Death, Families, Mode, Model, NONE, Registry, Scratch, build, line_hash};
use crate::record::{NodeRecord, Walk};
use crate::render::{
    Style, indent, push_full_body, push_line, push_line_fixed, push_line_rest, push_node_rest,
    push_page_lines, push_ref, push_subtree,
};
use crate::text::{STRING_CAP, clean, mask_clock, opt_visible};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::fmt::Write as _;

/// A diff touching more than this fraction of the page may be sent as a full snapshot instead
/// (see [`RESET_DIFF_SHARE`]). Unmeasured choice.
pub const RESET_CHANGE_FRACTION: f64 = 0.30;

/// A large change (past [`RESET_CHANGE_FRACTION`]) is sent as a full snapshot only when its
/// diff's text would be longer than this share of the full snapshot's: a re-dump is simpler to
/// take in than a diff of the same length, but a tab panel swapped on a small page touches half
/// the page and is still told in a quarter of the re-dump's tokens (bench fixture, step 2).
pub const RESET_DIFF_SHARE: f64 = 0.6;

/// A diff touching fewer elements than this is never turned into a reset, however small the
/// page: on a ten-element page three changes are 30% but still a three-line diff. Unmeasured.
pub const RESET_MIN_ELEMENTS: usize = 8;

/// After this many diffs in a row the next change is sent as a full snapshot, so a model whose
/// context was compacted (losing the base state) never has to apply an unbounded chain.
/// Unmeasured backstop: [`RESYNC_CHAIN_FACTOR`] usually resyncs first.
pub const MAX_DIFFS_PER_SNAPSHOT: u32 = 40;

/// A resync is sent once the diffs since the last full snapshot add up to more than this many
/// times that snapshot's length: the periodic re-dump then costs at most a fifth of what the
/// tab's observations cost, however small its diffs. A fixed count (12 before) re-dumped a
/// small page's whole text after a dozen two-line diffs, for nothing the keyed diffs had lost.
pub const RESYNC_CHAIN_FACTOR: usize = 4;

/// An element whose line changed in at least this many of the last [`CHURN_WINDOW`]
/// observations is demoted: marked `live`, and changes of its values (name, text, value) are no
/// longer diffed. Unmeasured choice.
pub const CHURN_DEMOTE_AT: u32 = 3;

/// How many recent observations churn is counted over (at most 8). Unmeasured choice.
pub const CHURN_WINDOW: u32 = 4;

/// A demoted element that stays unchanged this many observations is restored. Unmeasured.
pub const CHURN_QUIET_RESTORE: u32 = 4;

/// How many acted-on / read elements stay promoted (most recent first). Unmeasured.
pub const PROMOTED_CAP: usize = 64;

/// What the agent sees after one observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The complete agent-facing text: harness lines outside the envelope, everything derived
    /// from page content inside [`envelope::fence`].
    pub text: String,
    /// True for a FULL SNAPSHOT (the model must discard its prior page state).
    pub full: bool,
    /// The state this text brings the agent to, e.g. `#7.3`.
    pub seq: String,
    /// Ref-bearing lines in this text (every ref of the page for a full snapshot; the
    /// added or restated ones for a diff).
    pub refs: usize,
    /// Diff ops in this text (0 for a full snapshot or no change).
    pub ops: usize,
    /// Where the engine's time went (wall clock), for per-call cost accounting.
    pub timing: Timing,
}

/// Wall-clock microseconds spent in one `observe`, by phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timing {
    /// Building the page model from the walk (identity keys, refs, line hashes).
    pub build_us: u32,
    /// Reconciling against the previous model, noise filtering, and rendering a diff.
    pub diff_us: u32,
    /// Rendering a full snapshot (0 for a diff) and updating ref states.
    pub render_us: u32,
}

/// Why a ref cannot be used. `Display` names the ref and, for a dead one, restates the element
/// it named; that restatement is page-derived and is therefore fenced in its own envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// Not shaped like a ref.
    // The string is the agent's, but it may have been copied from a page: fenced, not quoted.
    #[error(
        "that is not a ref (refs look like e42); refusing to act. It was:{}",
        envelope::Untrusted(&clean(.0, 40))
    )]
    Malformed(String),
    /// Never issued in this tab.
    #[error("{0} was never issued in this tab; refusing to act. Observe the page and use a ref from it")]
    Unknown(String),
    /// Its element is no longer shown: removed, hidden, or moved out of sight (a walk sees no
    /// difference between them; an element that is shown again gets its ref back).
    #[error(
        "{r} is gone: its element was no longer shown at {at} (removed, hidden, or moved out of sight); refusing to act. It was:\n{}\nObserve again and use a current ref",
        envelope::fence(.was)
    )]
    Gone {
        /// The ref.
        r: String,
        /// The state at which it died.
        at: String,
        /// Its rendered line when it died.
        was: String,
    },
    /// Retired with its positional family.
    #[error(
        "{r} is retired: it was one of several identical elements told apart only by order, and that set changed at {at}, so it could now name a different element; refusing to act. It was:\n{}\nObserve again and use a current ref",
        envelope::fence(.was)
    )]
    Retired {
        /// The ref.
        r: String,
        /// The state at which it retired.
        at: String,
        /// Its rendered line when it retired.
        was: String,
    },
    /// Issued for a previous document.
    #[error(
        "{r} belonged to a previous document (the tab navigated at {at}); refusing to act. It was:\n{}\nUse a ref from the current snapshot",
        envelope::fence(.was)
    )]
    Navigated {
        /// The ref.
        r: String,
        /// The full snapshot that followed the navigation.
        at: String,
        /// Its rendered line on the old document.
        was: String,
    },
}

impl RefError {
    /// The ref the error is about, as given.
    pub fn r#ref(&self) -> &str {
        match self {
            RefError::Malformed(r) | RefError::Unknown(r) => r,
            RefError::Gone { r, .. } | RefError::Retired { r, .. } | RefError::Navigated { r, .. } => r,
        }
    }
}

/// The number of a ref (`e12` → 12, surrounding whitespace allowed); `None` for anything not
/// shaped like one.
pub fn parse_ref(r: &str) -> Option<u32> {
    let d = r.trim().strip_prefix('e')?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) || d.len() > 9 {
        return None;
    }
    d.parse().ok()
}

#[derive(Debug, Default, Clone, Copy)]
struct Churn {
    /// Bit 0 = changed in the latest observation.
    hist: u8,
    quiet: u32,
    demoted: bool,
}

#[derive(Debug)]
struct Last {
    walk: Walk,
    model: Model,
    live: Vec<bool>,
}

/// Per-tab engine state: the ref registry, positional families, the last observed model and
/// the sequence numbers the agent's copy of the page is named by.
///
/// Driving it: after every action, walk the page and [`observe`](TabSession::observe) (or
/// [`observe_owned`](TabSession::observe_owned), which skips a copy); before acting on a ref,
/// [`resolve`](TabSession::resolve) it and refuse on `Err`; after acting on or reading a ref,
/// [`touch`](TabSession::touch) it, or an element the agent is typing into will eventually be
/// demoted as churn.
#[derive(Debug, Default)]
pub struct TabSession {
    /// Override of [`MAX_DIFFS_PER_SNAPSHOT`] (0 = the constant); an override also turns
    /// off [`RESYNC_CHAIN_FACTOR`].
    max_diffs: u32,
    /// Bytes of the last full snapshot's text.
    full_bytes: usize,
    /// Bytes of the diffs' texts since the last full snapshot.
    chain_bytes: usize,
    reg: Registry,
    fam: Families,
    scratch: Scratch,
    last: Option<Last>,
    epoch: u32,
    minor: u32,
    churn: FxHashMap<u64, Churn>,
    promoted: VecDeque<u64>,
    promoted_set: FxHashSet<u64>,
    /// The agent's input reached the page since the last observation (see
    /// [`TabSession::after_input`]): the next observation's changes are not counted as churn.
    after_input: bool,
    /// The last noise filter dropped a change only a clock or a countdown made (its line with
    /// those spans masked was the same): a "no change" then says so.
    clocks_moved: bool,
    mode: Mode,
    /// The mode changed since the last observation: the next one is a full snapshot.
    mode_changed: bool,
}

fn masked_hash(r: &NodeRecord, urls: bool, flags: u8) -> u64 {
    let m = |s: &Option<String>| s.as_deref().map(|s| mask_clock(s).into_owned());
    let mut c = r.clone();
    c.name = m(&r.name);
    c.text = m(&r.text);
    c.state.value = m(&r.state.value);
    c.placeholder = m(&r.placeholder);
    crate::model::line_hash(&c, 0, urls, flags)
}

/// [`masked_hash`] of model node `m`'s line. A sentence is hashed as it reads, masked as a
/// whole: a clock can span its members' text and its own.
fn masked_node_hash(model: &Model, walk: &Walk, m: u32) -> u64 {
    let w = model.rec[m as usize];
    let Some(r) = walk.nodes.get(w as usize) else {
        return 0;
    };
    if !model.inl.contains_key(&w) {
        let h = masked_hash(r, model.mode.urls, model.flags[m as usize]);
        return crate::model::with_place(h, model.grid.get(m as usize).copied().unwrap_or_default());
    }
    let mut line = String::new();
    push_node_rest(&mut line, model, walk, m, false);
    crate::key::H::new(16).s(&mask_clock(&line)).f()
}

/// True when the part of the line `live` does not exempt differs between two records.
fn fixed_part_changed(or: &NodeRecord, nr: &NodeRecord, old: Style, new: Style) -> bool {
    let (mut a, mut b) = (String::new(), String::new());
    push_line_fixed(&mut a, or, old);
    push_line_fixed(&mut b, nr, new);
    a != b
}

/// Why a full snapshot was sent.
#[derive(Debug, Clone, Copy)]
enum Reason {
    First,
    Navigated,
    Requested,
    LargeChange,
    Resync,
    Origin,
    Mode,
}

impl Reason {
    fn word(self) -> &'static str {
        match self {
            Reason::First => "first look",
            Reason::Navigated => "navigated",
            Reason::Requested => "requested",
            Reason::LargeChange => "large change",
            Reason::Resync => "resync",
            Reason::Origin => "origin changed",
            Reason::Mode => "mode changed",
        }
    }
}

impl TabSession {
    /// A session with no state: the first observation will be a full snapshot.
    pub fn new() -> Self {
        Self::default()
    }

    fn seq(&self) -> String {
        format!("#{}.{}", self.epoch, self.minor)
    }

    /// Ingests a fresh walk and returns what the agent sees: a FULL SNAPSHOT when asked
    /// (`force_full`), on the first look, after navigation (`navigated`: the document changed,
    /// every earlier ref dies), after a change touching more than [`RESET_CHANGE_FRACTION`] of
    /// the page whose diff is longer than [`RESET_DIFF_SHARE`] of the re-dump, or as a resync
    /// ([`RESYNC_CHAIN_FACTOR`], [`MAX_DIFFS_PER_SNAPSHOT`]); otherwise a diff naming the state
    /// it applies to, or a one-line "no change".
    pub fn observe(&mut self, walk: &Walk, force_full: bool, navigated: bool) -> Observation {
        self.observe_owned(walk.clone(), force_full, navigated)
    }

    /// [`TabSession::observe`] for a caller that can give the walk away: the session keeps the
    /// last walk (refs resolve against it), and taking it saves a copy of every record.
    pub fn observe_owned(&mut self, owned: Walk, force_full: bool, navigated: bool) -> Observation {
        let walk = &owned;
        let prev = self.last.take();
        let mut reason = match (&prev, navigated, force_full) {
            (_, true, _) => Some(Reason::Navigated),
            (None, _, _) => Some(Reason::First),
            (_, _, true) => Some(Reason::Requested),
            _ if self.mode_changed => Some(Reason::Mode),
            _ => None,
        };
        self.mode_changed = false;
        let prev = if navigated {
            if let Some(p) = &prev {
                self.retire_all(p);
            }
            None
        } else {
            prev
        };
        let t0 = std::time::Instant::now();
        let model = build(
            walk,
            self.mode,
            &mut self.fam,
            &mut self.reg,
            &mut self.scratch,
            prev.as_ref().map(|p| (&p.model, &p.walk)),
        );
        let t_build = t0.elapsed();
        let mut live = vec![false; model.len()];
        let mut diff_text = None;
        if let (Some(p), None) = (&prev, reason) {
            if p.model.origin != model.origin {
                reason = Some(Reason::Origin);
            } else {
                let mut d = reconcile(&p.model, &p.walk, &model, walk);
                self.filter_noise(&mut d.ops, &d.inplace, p, &model, walk, &mut live);
                focus_moves(&mut d.ops, &d.inplace, p, &model, walk, &live);
                let page_changed = p.walk.url != walk.url || p.walk.title != walk.title;
                let size = p.model.len().max(model.len()).max(1);
                if d.ops.is_empty() && !page_changed {
                    // A ticking countdown is not reported (every second would be a diff), but
                    // an agent waiting on one must not read "nothing moves": a few words say it.
                    let note = if self.clocks_moved {
                        " (a clock ticked)"
                    } else {
                        ""
                    };
                    diff_text = Some((format!("no change since {}{note}", self.seq()), 0, 0));
                } else {
                    let from = self.seq();
                    let to = format!("#{}.{}", self.epoch, self.minor + 1);
                    let diff = self.render_diff(&d.ops, p, &model, walk, &live, &from, &to);
                    let len = diff.0.len();
                    let large = is_large(weight(&d.ops, &p.model, &model), size) && {
                        // Only a change this large is weighed against the re-dump, so the
                        // common small diff never pays for rendering the whole page.
                        let mut full = String::new();
                        push_full_body(&mut full, &model, walk, &|m| live[m as usize]);
                        len as f64 > RESET_DIFF_SHARE * full.len() as f64
                    };
                    let (cap, chain) = match self.max_diffs {
                        0 => (MAX_DIFFS_PER_SNAPSHOT, RESYNC_CHAIN_FACTOR * self.full_bytes),
                        n => (n, usize::MAX),
                    };
                    if large {
                        reason = Some(Reason::LargeChange);
                    } else if self.minor >= cap || self.chain_bytes.saturating_add(len) > chain {
                        reason = Some(Reason::Resync);
                    } else {
                        self.minor += 1;
                        self.chain_bytes += len;
                        diff_text = Some(diff);
                    }
                }
            }
        }
        if reason.is_some() {
            // Demoted elements stay demoted across a reset, and the snapshot says so.
            let at = model.locate(&self.churn);
            for (k, c) in self.churn.iter() {
                if let Some(&n) = at.get(k) {
                    live[n as usize] = c.demoted;
                }
            }
        }
        let t_diff = t0.elapsed();
        let (died, left) = self.settle(prev.as_ref(), &model);
        let obs = match (reason, diff_text) {
            (None, Some((text, refs, ops))) => Observation {
                text,
                full: false,
                seq: self.seq(),
                refs,
                ops,
                timing: Timing::default(),
            },
            (r, _) => {
                let r = r.unwrap_or(Reason::Requested);
                self.epoch += 1;
                self.minor = 0;
                let text = self.render_full_text(&model, walk, &live, r, &left);
                self.full_bytes = text.len();
                self.chain_bytes = 0;
                Observation {
                    text,
                    full: true,
                    seq: self.seq(),
                    refs: model.refs(),
                    ops: 0,
                    timing: Timing::default(),
                }
            }
        };
        let mut obs = obs;
        let us = |d: std::time::Duration| d.as_micros().min(u32::MAX as u128) as u32;
        obs.timing = Timing {
            build_us: us(t_build),
            diff_us: us(t_diff - t_build),
            render_us: us(t0.elapsed() - t_diff),
        };
        // Deaths are stamped with the state that reported them.
        let seq = self.seq();
        for r in died {
            if let Some(i) = self.reg.get_mut(r)
                && let Some((_, at)) = &mut i.death
            {
                at.clone_from(&seq);
            }
        }
        drop(prev);
        // Consumed by this observation whether or not it diffed (a full snapshot does not).
        self.after_input = false;
        self.last = Some(Last {
            walk: owned,
            model,
            live,
        });
        obs
    }

    /// A FULL SNAPSHOT of the last observed state, without advancing anything (a re-read).
    /// `None` before the first observation.
    pub fn render_current(&self) -> Option<String> {
        let l = self.last.as_ref()?;
        let mut body = String::new();
        push_full_body(&mut body, &l.model, &l.walk, &|m| l.live[m as usize]);
        Some(format!(
            "FULL SNAPSHOT {} (re-read)\n{}{}",
            self.seq(),
            envelope::fence(&body),
            notes(&l.walk, &l.model)
        ))
    }

    /// A VIEW of the part of the page under ref `r` (its element and everything in it), as
    /// the last observation saw it, in full whatever the mode: actionable-only mode, a budget
    /// or the sentence its element sits in do not shorten it (a sentence is shown whole). The
    /// agent's page state does not change: no diff is based on a view (the observation's `seq`
    /// is the state's, unchanged). `max_tokens` (0: none) cuts it, with a note.
    pub fn render_view(&mut self, r: &str, max_tokens: u32) -> Result<Observation, RefError> {
        self.resolve(r)?;
        let w = parse_ref(r)
            .and_then(|n| self.reg.get(n))
            .and_then(|i| i.widx)
            .ok_or_else(|| RefError::Unknown(r.trim().to_owned()))?;
        let Some(l) = self.last.as_ref() else {
            return Err(RefError::Unknown(r.trim().to_owned()));
        };
        let mode = Mode {
            urls: self.mode.urls,
            interactive: false,
            max_tokens: 0,
        };
        // The same walk under another mode: every ref it shows was issued with the last
        // observation (refs go to every actionable element, shown or not), so this issues none.
        let model = build(
            &l.walk,
            mode,
            &mut self.fam,
            &mut self.reg,
            &mut self.scratch,
            None,
        );
        let mut at = vec![NONE; l.walk.nodes.len()];
        for (m, &i) in model.rec.iter().enumerate() {
            at[i as usize] = m as u32;
        }
        for (&host, ms) in &model.inl {
            for &c in ms {
                at[c as usize] = at[host as usize];
            }
        }
        // The element's own line, else the nearest line that holds it.
        let mut x = w;
        let m = loop {
            match at.get(x as usize) {
                Some(&m) if m != NONE => break Some(m),
                _ => {}
            }
            match l.walk.nodes.get(x as usize).and_then(|n| n.parent) {
                Some(p) => x = p,
                None => break None,
            }
        };
        let mut body = String::new();
        let mut left_out = (0usize, 0usize);
        let mut refs = 0usize;
        if let Some(m) = m {
            let d0 = model.depth[m as usize];
            let budget = max_tokens as usize * 4;
            for k in m..model.end[m as usize] {
                if budget > 0 && body.len() > budget {
                    left_out.0 += 1;
                    left_out.1 +=
                        usize::from(model.refn[k as usize] != 0) + model.inline_refs(k, k + 1).count();
                    continue;
                }
                indent(&mut body, model.depth[k as usize] - d0);
                refs += usize::from(model.refn[k as usize] != 0) + model.inline_refs(k, k + 1).count();
                push_line(&mut body, &model, &l.walk, k, false);
                body.push('\n');
            }
        }
        let mut out = format!(
            "VIEW of {} at {} — one part of the page, as it is now; your page state is unchanged\n{}",
            r.trim(),
            self.seq(),
            envelope::fence(&body)
        );
        if left_out.0 > 0 {
            let _ = write!(
                out,
                "\nnote: cut at max_tokens={max_tokens}: {} more lines ({} refs) of this part are left out",
                left_out.0, left_out.1
            );
        }
        Ok(Observation {
            text: out,
            full: false,
            seq: self.seq(),
            refs,
            ops: 0,
            timing: Timing::default(),
        })
    }

    /// Resolves a ref (`e42`) to its element's record in the last observed walk. A ref whose
    /// element died, whose positional family changed, or that belongs to an earlier document is
    /// refused with an error naming it and restating what it was.
    pub fn resolve(&self, r: &str) -> Result<&NodeRecord, RefError> {
        let n = parse_ref(r).ok_or_else(|| RefError::Malformed(r.to_owned()))?;
        let name = format!("e{n}");
        let info = self.reg.get(n).ok_or_else(|| RefError::Unknown(name.clone()))?;
        if let (Some(w), Some(l)) = (info.widx, &self.last) {
            return l.walk.nodes.get(w as usize).ok_or(RefError::Unknown(name));
        }
        let (why, at) = info
            .death
            .clone()
            .ok_or_else(|| RefError::Unknown(name.clone()))?;
        let was = info.was.clone();
        Err(match why {
            Death::Gone => RefError::Gone { r: name, at, was },
            Death::Positional => RefError::Retired { r: name, at, was },
            Death::Navigated => RefError::Navigated { r: name, at, was },
        })
    }

    /// The words shown just before a ref's element, when it has no label of its own: a form
    /// whose captions are not `<label for>`s ("Username" then a bare field) still tells a
    /// person which field is which, and an answer can say so. The nearest caption among the
    /// few records before it in document order: a `<label>` tied to nothing, or a short text
    /// ending in `:` ("Last name:"), not any words (an instruction's fragment above a search
    /// box is no caption); none when another control comes first (its caption is not this
    /// one's). Cleaned and capped; page text, to be fenced.
    pub fn text_before(&self, r: &str) -> Option<String> {
        const LOOK_BACK: usize = 12;
        const CAP: usize = 80;
        let n = parse_ref(r)?;
        let w = self.reg.get(n)?.widx? as usize;
        let nodes = &self.last.as_ref()?.walk.nodes;
        for x in nodes[w.saturating_sub(LOOK_BACK)..w.min(nodes.len())]
            .iter()
            .rev()
        {
            if !x.visible {
                continue;
            }
            if x.actionable {
                return None;
            }
            let Some(t) = x.text.as_deref().filter(|t| crate::text::has_visible(t)) else {
                continue;
            };
            let t = clean(t, CAP);
            if x.tag == "label" || (t.ends_with(':') && t.chars().count() <= 40) {
                return Some(t);
            }
        }
        None
    }

    /// Every ref on the page in the last observed walk with its element's record, in ref
    /// order: for tools that look over a whole form (a profile fill plan).
    pub fn live_refs(&self) -> Vec<(String, &NodeRecord)> {
        let Some(l) = &self.last else { return Vec::new() };
        self.reg
            .info
            .iter()
            .enumerate()
            .filter_map(|(i, info)| {
                let rec = l.walk.nodes.get(info.widx? as usize)?;
                Some((format!("e{}", i + 1), rec))
            })
            .collect()
    }

    /// The first element of the top document in the last observed walk, ref'd or not: an
    /// anchor for an operation on the whole page (finding words to select), which the walker
    /// reaches through any element of the document.
    pub fn page_anchor(&self) -> Option<&NodeRecord> {
        self.last.as_ref()?.walk.nodes.iter().find(|r| r.frame == 0)
    }

    /// The smallest visible element of the top document whose box (as last observed)
    /// holds the viewport point `(x, y)`: roughly what a pointer there is over.
    pub fn innermost_at(&self, x: f32, y: f32) -> Option<&NodeRecord> {
        self.last
            .as_ref()?
            .walk
            .nodes
            .iter()
            .filter(|r| {
                let b = &r.bounds;
                r.frame == 0
                    && r.visible
                    && b.w > 0.0
                    && b.h > 0.0
                    && x >= b.x
                    && y >= b.y
                    && x < b.x + b.w
                    && y < b.y + b.h
            })
            .min_by(|a, b| (a.bounds.w * a.bounds.h).total_cmp(&(b.bounds.w * b.bounds.h)))
    }

    /// The agent's input was sent to the page since the last observation: what the next
    /// observation finds changed is the page answering it, not changing on its own, so it is
    /// not counted towards demotion as churn. Without this, a value that answers each of the
    /// agent's keys or clicks but lies outside the element acted on (a slider's readout, a
    /// counter) was marked `live` after three steps and its later values went unreported.
    pub fn after_input(&mut self) {
        self.after_input = true;
    }

    /// The agent acted on or read this ref: its element (and its subtree) is promoted out of
    /// noise suppression, so its changes are reported even if they look like a clock or churn.
    /// Unknown or dead refs are ignored.
    pub fn touch(&mut self, r: &str) {
        let Some(info) = parse_ref(r).and_then(|n| self.reg.get(n)) else {
            return;
        };
        let key = info.key;
        if self.promoted_set.insert(key) {
            self.promoted.push_front(key);
            while self.promoted.len() > PROMOTED_CAP {
                if let Some(k) = self.promoted.pop_back() {
                    self.promoted_set.remove(&k);
                }
            }
        }
    }

    /// Plain text of a ref's element and its visible descendants, cleaned of control and bidi
    /// characters, at most `max_chars` characters. The text is page content: fence it.
    pub fn read_text(&self, r: &str, max_chars: usize) -> Result<String, RefError> {
        self.resolve(r)?;
        let (Some(l), Some(w)) = (
            &self.last,
            parse_ref(r).and_then(|n| self.reg.get(n)).and_then(|i| i.widx),
        ) else {
            return Err(RefError::Unknown(r.to_owned()));
        };
        Ok(subtree_text(&l.walk, w as usize, max_chars))
    }

    /// Overrides [`MAX_DIFFS_PER_SNAPSHOT`] for this session and turns off
    /// [`RESYNC_CHAIN_FACTOR`], so only the count resyncs (benchmarks measure the diff path
    /// without the periodic resync; a measurement of the threshold itself would use it too).
    pub fn set_max_diffs(&mut self, n: u32) {
        self.max_diffs = n;
    }

    /// Sets how the tab is observed. A different mode makes the next observation a FULL
    /// SNAPSHOT (`mode changed`), so the agent's model and the engine's agree on what is in
    /// it. Returns true when the mode changed.
    pub fn set_mode(&mut self, mode: Mode) -> bool {
        if mode == self.mode {
            return false;
        }
        self.mode = mode;
        self.mode_changed = true;
        true
    }

    /// The mode the tab is observed in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Number of refs issued in this tab so far (live or dead).
    pub fn refs_issued(&self) -> usize {
        self.reg.info.len()
    }

    fn is_promoted(&self, model: &Model, mut n: u32) -> bool {
        if self.promoted_set.is_empty() {
            return false;
        }
        while n != NONE {
            if self.promoted_set.contains(&model.key[n as usize]) {
                return true;
            }
            n = model.parent[n as usize];
        }
        false
    }

    /// Drops changes that are noise: clock-shaped ones (by shape, every time) and those of
    /// elements demoted for churning; marks demoted elements `live`. Promoted elements are exempt.
    fn filter_noise(
        &mut self,
        ops: &mut Vec<Op>,
        inplace: &[u32],
        p: &Last,
        model: &Model,
        walk: &Walk,
        live: &mut [bool],
    ) {
        let window = (1u16 << CHURN_WINDOW.min(8)) - 1;
        let caused = std::mem::take(&mut self.after_input);
        self.clocks_moved = false;
        for c in self.churn.values_mut() {
            c.hist <<= 1;
        }
        let mut kept = Vec::with_capacity(ops.len());
        for op in ops.drain(..) {
            let Op::Change(o, n) = op else {
                kept.push(op);
                continue;
            };
            let key = model.key[n as usize];
            let old_key = p.model.key[o as usize];
            if old_key != key
                && let Some(c) = self.churn.remove(&old_key)
            {
                self.churn.insert(key, c);
            }
            let promoted = self.is_promoted(model, n);
            let (Some(or), Some(nr)) = (
                p.walk.nodes.get(p.model.rec[o as usize] as usize),
                walk.nodes.get(model.rec[n as usize] as usize),
            ) else {
                kept.push(op);
                continue;
            };
            if !promoted && masked_node_hash(&p.model, &p.walk, o) == masked_node_hash(model, walk, n) {
                self.clocks_moved = true;
                continue;
            }
            if caused && !promoted && !self.churn.get(&key).is_some_and(|c| c.demoted) {
                // The page answering the agent's input: reported, and not churn.
                kept.push(op);
                continue;
            }
            let c = self.churn.entry(key).or_default();
            c.hist |= 1;
            c.quiet = 0;
            if promoted {
                c.demoted = false;
                kept.push(op);
            } else if c.demoted {
                // Already marked live: the agent was told this element's values are not kept
                // current, and nothing else. A change of its role or flags (a live checkbox
                // toggling, a live line turned into another kind of line) is still reported;
                // its line is restated whole, still marked live.
                // So is a change of the refs in its sentence: a ref must never come or go unsaid.
                if fixed_part_changed(or, nr, p.model.style(), model.style())
                    || !p.model.inline_refs(o, o + 1).eq(model.inline_refs(n, n + 1))
                {
                    kept.push(op);
                }
            } else {
                if (c.hist as u16 & window).count_ones() >= CHURN_DEMOTE_AT {
                    c.demoted = true;
                }
                kept.push(op);
            }
        }
        let at = model.locate(&self.churn);
        for (k, c) in self.churn.iter_mut() {
            if c.hist & 1 == 0 {
                c.quiet += 1;
            }
            // Restored after a quiet spell, or when the agent promoted it.
            if at.contains_key(k)
                && c.demoted
                && (c.quiet >= CHURN_QUIET_RESTORE || self.promoted_set.contains(k))
            {
                c.demoted = false;
            }
        }
        self.churn.retain(|_, c| c.demoted || c.hist as u16 & window != 0);
        for (k, c) in self.churn.iter() {
            if let Some(&n) = at.get(k) {
                live[n as usize] = c.demoted;
            }
        }
        // The `live` mark is part of a line the agent holds, so wherever it changed on an
        // element kept in place, the line is restated. Churn is keyed by the model's keys, and
        // a positional key can pass to another element (an identical sibling inserted before
        // it) without a change of either line: without this, the mark moved unsaid.
        let mut restated: Vec<bool> = Vec::new();
        for (n, &o) in inplace.iter().enumerate() {
            if o == NONE || p.live[o as usize] == live[n] {
                continue;
            }
            if restated.is_empty() {
                restated = vec![false; live.len()];
                for op in &kept {
                    if let Op::Change(_, x) = op {
                        restated[*x as usize] = true;
                    }
                }
            }
            if !restated[n] {
                kept.push(Op::Change(o, n as u32));
            }
        }
        *ops = kept;
    }

    /// Records deaths and current positions of refs. Returns the refs that died (left the
    /// page) and the refs that left the agent's model (died, or no longer shown by the mode
    /// or the budget).
    fn settle(&mut self, prev: Option<&Last>, model: &Model) -> (Vec<u32>, Vec<u32>) {
        let mut died = Vec::new();
        let mut left = Vec::new();
        if let Some(p) = prev {
            for (w, &r) in p.model.wref.iter().enumerate() {
                if r == 0 || model.on_page(r) {
                    continue;
                }
                let was = was_line(p, w, r);
                let why = if p.model.positional_ref(r) {
                    Death::Positional
                } else {
                    Death::Gone
                };
                if why == Death::Positional
                    && let Some(key) = self.reg.get(r).map(|i| i.key)
                {
                    self.reg.forget_key(key);
                }
                if let Some(i) = self.reg.get_mut(r) {
                    i.node = None;
                    i.widx = None;
                    i.death = Some((why, String::new()));
                    i.was = was;
                }
                died.push(r);
            }
            left.extend(p.model.all_refs().filter(|&r| !model.has_ref(r)));
        }
        for (w, &r) in model.wref.iter().enumerate() {
            if r != 0
                && let Some(i) = self.reg.get_mut(r)
            {
                i.widx = Some(w as u32);
                i.node = None;
                i.death = None;
            }
        }
        for (m, &r) in model.refn.iter().enumerate() {
            if r != 0
                && let Some(i) = self.reg.get_mut(r)
            {
                i.node = Some(m as u32);
            }
        }
        (died, left)
    }

    /// Navigation: every live ref dies with the document, keys and families are forgotten, and
    /// noise bookkeeping restarts.
    fn retire_all(&mut self, p: &Last) {
        let at = format!("#{}.0", self.epoch + 1);
        for (w, &r) in p.model.wref.iter().enumerate() {
            if r == 0 {
                continue;
            }
            let was = was_line(p, w, r);
            if let Some(i) = self.reg.get_mut(r) {
                i.node = None;
                i.widx = None;
                i.death = Some((Death::Navigated, at.clone()));
                i.was = was;
            }
        }
        self.reg.forget_all();
        self.fam.clear();
        self.churn.clear();
        self.promoted.clear();
        self.promoted_set.clear();
    }

    fn render_full_text(&self, model: &Model, walk: &Walk, live: &[bool], r: Reason, died: &[u32]) -> String {
        let mut body = String::new();
        push_full_body(&mut body, model, walk, &|m| live[m as usize]);
        let mut out = String::with_capacity(body.len() + 160);
        let _ = write!(
            out,
            // What a FULL SNAPSHOT means (it replaces all earlier page state) is said once, in
            // the server's instructions and the tool descriptions, not in every answer.
            "FULL SNAPSHOT {} ({})",
            self.seq(),
            r.word()
        );
        if matches!(r, Reason::Navigated | Reason::Origin) {
            out.push_str("; every earlier ref is dead");
        }
        out.push('\n');
        out.push_str(&envelope::fence(&body));
        if !died.is_empty() && !matches!(r, Reason::Navigated) {
            out.push_str("\ngone:");
            push_refs(&mut out, died);
        }
        out.push_str(&notes(walk, model));
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn render_diff(
        &self,
        ops: &[Op],
        p: &Last,
        model: &Model,
        walk: &Walk,
        live: &[bool],
        from: &str,
        to: &str,
    ) -> (String, usize, usize) {
        let old = &p.model;
        let mut harness = String::new();
        let mut body = String::new();
        let mut refs = 0usize;
        if p.walk.url != walk.url || p.walk.title != walk.title {
            push_page_lines(&mut body, walk);
        }
        // Refs of old subtree `o` (its sentences' members included) that the new model lacks.
        let gone = |o: u32| -> Vec<u32> {
            let end = old.end[o as usize];
            let mut g: Vec<u32> = (o..end)
                .map(|k| old.refn[k as usize])
                .filter(|&r| r != 0)
                .chain(old.inline_refs(o, end))
                .filter(|&r| !model.has_ref(r))
                .collect();
            g.sort_unstable();
            g
        };
        // Refs a restated line drops: members of old line `o` the new model lacks.
        let dropped = |o: u32| -> Vec<u32> {
            let mut g: Vec<u32> = old.inline_refs(o, o + 1).filter(|&r| !model.has_ref(r)).collect();
            g.sort_unstable();
            g
        };
        let count_refs = |n: u32| {
            let end = model.end[n as usize];
            (n..end).filter(|&k| model.refn[k as usize] != 0).count() + model.inline_refs(n, end).count()
        };
        // `~ ADDR gone: …` for a restated line that dropped members' refs.
        let restated = |harness: &mut String, o: u32| {
            let g = dropped(o);
            if !g.is_empty() {
                harness.push_str("~ ");
                push_addr(harness, old, o);
                harness.push_str(" gone:");
                push_refs(harness, &g);
                harness.push('\n');
            }
        };
        let lv = |m: u32| live[m as usize];
        for op in ops {
            match op {
                Op::Remove(o) => {
                    harness.push_str("- ");
                    push_addr(&mut harness, old, *o);
                    let g = gone(*o);
                    if !g.is_empty() {
                        harness.push_str(" gone:");
                        push_refs(&mut harness, &g);
                    }
                    harness.push('\n');
                }
                Op::Replace(o, n) => {
                    let g = gone(*o);
                    if !g.is_empty() {
                        harness.push_str("= ");
                        push_addr(&mut harness, old, *o);
                        harness.push_str(" gone:");
                        push_refs(&mut harness, &g);
                        harness.push('\n');
                    }
                    body.push_str("= ");
                    push_addr(&mut body, old, *o);
                    body.push('\n');
                    push_subtree(&mut body, model, walk, *n, 1, &lv);
                    refs += count_refs(*n);
                }
                Op::Insert(at, items) => {
                    match at {
                        Anchor::After(a) => {
                            body.push_str("+ after ");
                            push_addr(&mut body, old, *a);
                        }
                        Anchor::FirstIn(NONE) => body.push_str("+ first"),
                        Anchor::FirstIn(a) => {
                            body.push_str("+ first in ");
                            push_addr(&mut body, old, *a);
                        }
                    }
                    body.push('\n');
                    for it in items {
                        match *it {
                            Item::New(n) => {
                                push_subtree(&mut body, model, walk, n, 1, &lv);
                                refs += count_refs(n);
                            }
                            Item::Moved(o, n) => {
                                restated(&mut harness, o);
                                indent(&mut body, 1);
                                body.push_str("> ");
                                refs += push_target(&mut body, old, model, walk, o, n, lv(n));
                                body.push('\n');
                            }
                        }
                    }
                }
                Op::Change(o, n) => {
                    restated(&mut harness, *o);
                    body.push_str("~ ");
                    refs += push_target(&mut body, old, model, walk, *o, *n, lv(*n));
                    body.push('\n');
                }
            }
        }
        let mut out = String::with_capacity(harness.len() + body.len() + 120);
        let _ = writeln!(out, "diff from {from} → {to}");
        out.push_str(&harness);
        if !body.is_empty() {
            out.push_str(&envelope::fence(&body));
        } else if out.ends_with('\n') {
            out.pop();
        }
        (out, refs, ops.len())
    }
}

/// `ADDR REST` for a node that exists in both models: a ref stands for both the address and
/// the line's ref (a change never changes a ref); otherwise an old-state path then the line.
fn push_target(
    out: &mut String,
    old: &Model,
    model: &Model,
    walk: &Walk,
    o: u32,
    n: u32,
    live: bool,
) -> usize {
    push_addr(out, old, o);
    out.push(' ');
    push_node_rest(out, model, walk, n, live);
    usize::from(old.refn[o as usize] != 0) + model.inline_refs(n, n + 1).count()
}

/// The old-state address of `o`: its ref, or the nearest ref'd ancestor (or the top) followed by
/// 1-based child positions, e.g. `e4/2`, `/3/1`.
fn push_addr(out: &mut String, old: &Model, o: u32) {
    let mut segs: Vec<u32> = Vec::new();
    let mut x = o;
    let mut anchor = 0;
    while x != NONE {
        let r = old.refn[x as usize];
        if r != 0 {
            anchor = r;
            break;
        }
        segs.push(old.pos[x as usize] + 1);
        x = old.parent[x as usize];
    }
    if anchor != 0 {
        let _ = write!(out, "e{anchor}");
    }
    for s in segs.iter().rev() {
        let _ = write!(out, "/{s}");
    }
}

/// Focus is in one place: when a diff shows a line marked `focused` (restated, moved or new),
/// every line it does not show has lost `focused` (engine/FORMAT.md), so the line focus left is
/// not restated for that alone. Almost every action moves focus, and restating the element it
/// left cost a line per answer. Any other line still marked `focused` (a frame's focused
/// element beside its iframe's) is restated, so the rule holds whatever the page does.
fn focus_moves(ops: &mut Vec<Op>, inplace: &[u32], p: &Last, model: &Model, walk: &Walk, live: &[bool]) {
    fn rec<'a>(m: &Model, w: &'a Walk, k: u32) -> Option<&'a NodeRecord> {
        w.nodes.get(m.rec[k as usize] as usize)
    }
    let focused = |k: u32| rec(model, walk, k).is_some_and(|r| r.state.focused);
    let mut shown = vec![false; model.len()];
    let mut mark = |n: u32, deep: bool| {
        let end = if deep { model.end[n as usize] } else { n + 1 };
        for k in n..end {
            shown[k as usize] = true;
        }
    };
    for op in ops.iter() {
        match op {
            Op::Change(_, n) => mark(*n, false),
            Op::Replace(_, n) => mark(*n, true),
            Op::Insert(_, items) => {
                for it in items {
                    match *it {
                        Item::New(n) => mark(n, true),
                        Item::Moved(_, n) => mark(n, false),
                    }
                }
            }
            Op::Remove(_) => {}
        }
    }
    if !(0..model.len() as u32).any(|k| shown[k as usize] && focused(k)) {
        return;
    }
    // Lines that lost nothing but `focused` go unsaid...
    ops.retain(|op| {
        let Op::Change(o, n) = *op else { return true };
        let (Some(or), Some(nr)) = (rec(&p.model, &p.walk, o), rec(model, walk, n)) else {
            return true;
        };
        let plain = |m: &Model, k: u32| !m.inl.contains_key(&m.rec[k as usize]);
        let only_focus = or.state.focused
            && !nr.state.focused
            && plain(&p.model, o)
            && plain(model, n)
            && p.live[o as usize] == live[n as usize]
            && p.model.flags[o as usize] == model.flags[n as usize]
            && {
                let mut c = or.clone();
                c.state.focused = false;
                let f = model.flags[n as usize];
                line_hash(&c, 0, p.model.mode.urls, f) == line_hash(nr, 0, model.mode.urls, f)
            };
        !only_focus
    });
    // ...and every other line still focused is said again, so the reader keeps its mark.
    for n in 0..model.len() as u32 {
        if focused(n) && !shown[n as usize] && inplace[n as usize] != NONE {
            ops.push(Op::Change(inplace[n as usize], n));
        }
    }
}

/// The reset rule: more than [`RESET_CHANGE_FRACTION`] of the page, and not trivially small.
fn is_large(weight: usize, size: usize) -> bool {
    weight >= RESET_MIN_ELEMENTS && weight as f64 > RESET_CHANGE_FRACTION * size as f64
}

fn push_refs(out: &mut String, refs: &[u32]) {
    for r in refs {
        let _ = write!(out, " e{r}");
    }
}

/// The line of ref `r` (walk node `w` of `p`), as it was last shown or would have been.
fn was_line(p: &Last, w: usize, r: u32) -> String {
    let mut was = String::new();
    push_ref(&mut was, r);
    if let Some(rec) = p.walk.nodes.get(w) {
        push_line_rest(&mut was, rec, false, p.model.style(), 0);
    }
    was
}

/// Harness notes after a full snapshot's envelope: a truncated walk, a budget cut.
fn notes(walk: &Walk, model: &Model) -> String {
    let mut out = String::new();
    if walk.truncated {
        out.push_str("\nnote: the page has more elements than were walked; this model is incomplete");
    }
    if walk.pdf {
        out.push_str(
            "\nnote: the page is a PDF, which Chromium's viewer draws: its text is in no element here; \
             browser_read (without refs) gives it",
        );
    }
    if let Some(c) = model.cut {
        let _ = write!(
            out,
            "\nnote: cut at max_tokens={}: the last {} elements of the page ({} with refs) are left out of this model and its diffs; \
             browser_snapshot with a larger max_tokens, or with ref= for one part, shows them",
            model.mode.max_tokens, c.elements, c.refs
        );
    }
    out
}

/// Cleaned text of walk node `start` and its visible descendants, capped at `max` characters.
pub(crate) fn subtree_text(walk: &Walk, start: usize, max: usize) -> String {
    let nodes = &walk.nodes;
    let mut out = String::new();
    let mut chars = 0usize;
    let mut push = |s: &str, out: &mut String| -> bool {
        let c = clean(s, STRING_CAP * 64);
        if c.is_empty() {
            return true;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        for ch in c.chars() {
            if chars >= max {
                out.push('…');
                return false;
            }
            out.push(ch);
            chars += 1;
        }
        true
    };
    let Some(root) = nodes.get(start) else { return out };
    let mut inside = vec![start as u32];
    let mut go = |r: &NodeRecord, out: &mut String| -> bool {
        if !r.visible {
            return true;
        }
        for s in [&r.text, &r.state.value] {
            if opt_visible(s) && !push(s.as_deref().unwrap_or(""), out) {
                return false;
            }
        }
        if r.text.is_none()
            && r.actionable
            && opt_visible(&r.name)
            && !push(r.name.as_deref().unwrap_or(""), out)
        {
            return false;
        }
        true
    };
    if !go(root, &mut out) {
        return out;
    }
    for (j, r) in nodes.iter().enumerate().skip(start + 1) {
        // Preorder: the subtree is the contiguous run whose parents are inside it.
        let Some(p) = r.parent else { break };
        while inside.last().is_some_and(|&t| t != p) {
            inside.pop();
        }
        if inside.is_empty() {
            break;
        }
        inside.push(j as u32);
        if !go(r, &mut out) {
            break;
        }
    }
    out
}
