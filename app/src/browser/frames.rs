//! Frames of other origins. Under site isolation such a frame's document lives in another
//! renderer, out of reach of the main frame's walker, which only marks its `<iframe>` (the
//! frame's index in `window.frames`, and where the frame's viewport starts in the iframe's
//! box). Every frame's renderer runs its own walker (see `cef::script`), so each such frame
//! is walked where it lives and its walk is placed under its iframe: the frame finds itself
//! among its parent's frames, which the parent's walker can do for the iframe too, so the two
//! are matched by that index, whatever the frames are named or where they navigated.
//!
//! The merged walk keeps the main walk's id; each frame's elements follow its iframe (the
//! engine reads walks in pre-order) and everything after is numbered on. [`Merged`] (kept per
//! tab) says which frame and walk each element belongs to, so an element op goes to its
//! frame's walker with the element's own index there, and points and
//! boxes move between the frame's viewport and the top-level one by the iframe's content-box
//! origin, read again at each op (the frame may have scrolled since the walk). The frame
//! whose element an op aimed at or focused counts the input that follows (`input_frame`).

use super::Actor;
use crate::tab::{RPC_TIMEOUT, Tab, TabError};
use aperture_engine::protocol::{ElementOp, ElementReply, Request, TextReply, WalkerError};
use aperture_engine::record::{NodeRecord, Offset, Walk};
use aperture_mcp::backend::TabId;
use std::collections::HashMap;
use std::time::Duration;

/// How long a frame's walk may take before the snapshot goes on without it (a frame that
/// never answers must not hold the page's snapshot for the full renderer timeout).
/// Unmeasured; a walk of a sign-in form takes milliseconds.
pub const FRAME_WALK_TIMEOUT: Duration = Duration::from_secs(3);
/// Frames below the main frame that are walked and placed.
const MAX_DEPTH: usize = 3;
/// Frames of other origins walked per snapshot.
const MAX_FRAMES: usize = 24;

/// Which frame's walker a request goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Main,
    /// The frame counting the input being sent (`TabRec::input_frame`), else the main frame.
    Input,
    /// A frame by CEF identifier; gone means the element's document was replaced.
    Frame(String),
}

/// Requests about input go to the frame that receives it.
pub fn target_of(req: &Request) -> Target {
    match req {
        Request::Inputs | Request::Void { .. } | Request::Guard | Request::Unguard => Target::Input,
        _ => Target::Main,
    }
}

/// The CEF frame `target` names (UI thread).
pub fn frame_of(a: &Actor, id: TabId, b: cef::Browser, target: Target) -> Result<cef::Frame, TabError> {
    let main = || b.main_frame().ok_or(TabError::NoSuchTab(id));
    match target {
        Target::Main => main(),
        Target::Input => {
            let f = a.with(|st| st.tabs.get(&id).and_then(|t| t.input_frame.clone()));
            match f.and_then(|f| b.frame(&f)).filter(|f| f.is_valid()) {
                Some(f) => Ok(f),
                None => main(),
            }
        }
        Target::Frame(f) => b.frame(&f).filter(|f| f.is_valid()).ok_or_else(|| {
            TabError::Walker(WalkerError::Stale {
                detail: "the element's frame has been replaced or removed since the walk".into(),
            })
        }),
    }
}

/// A frame whose walk is placed in the merged walk.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// CEF frame identifier.
    pub frame: String,
    /// The frame walker's own walk id.
    pub walk_id: u64,
    /// The frame holding its `<iframe>` (`None`: the main frame; else an index of `placed`).
    pub owner: Option<usize>,
    /// The iframe's index in the owner's own walk.
    pub iframe: u32,
    /// Where the frame's viewport starts in the iframe's border box.
    pub inset: Offset,
}

/// Where the elements of a merged walk live.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    /// The main frame's walk id (the merged walk's).
    pub walk_id: u64,
    /// Per merged element: its frame (0: the main frame, else 1 + an index of `placed`) and
    /// its index in that frame's own walk. A frame's elements follow its iframe (the walk is
    /// in pre-order), so the main frame's elements after an iframe are numbered on as well.
    pub at: Vec<(u32, u32)>,
    pub placed: Vec<Placed>,
}

/// One hop from the top-level viewport towards an element's frame: the iframe to pass through.
#[derive(Debug, Clone, PartialEq)]
pub struct Hop {
    /// Whose walker holds the iframe (`None`: the main frame's).
    pub frame: Option<String>,
    pub walk_id: u64,
    pub iframe: u32,
    pub inset: Offset,
}

/// Where an element op must go.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// `None`: the main frame.
    pub frame: Option<String>,
    pub walk_id: u64,
    pub idx: u32,
    /// Iframes from the top-level document down to the element's frame.
    pub hops: Vec<Hop>,
}

impl Merged {
    /// The route of element `idx` of walk `walk_id`; `None` for another walk (the main
    /// walker refuses it as stale) or an index past the walk (it says there is none).
    pub fn route(&self, walk_id: u64, idx: u32) -> Option<Route> {
        if walk_id != self.walk_id {
            return None;
        }
        let &(seg, own) = self.at.get(idx as usize)?;
        if seg == 0 {
            return Some(Route {
                frame: None,
                walk_id,
                idx: own,
                hops: Vec::new(),
            });
        }
        let seg = seg as usize - 1;
        let mut hops = Vec::new();
        let mut at = Some(seg);
        while let Some(s) = at {
            let q = &self.placed[s];
            let (frame, walk_id) = match q.owner {
                None => (None, self.walk_id),
                Some(o) => (Some(self.placed[o].frame.clone()), self.placed[o].walk_id),
            };
            hops.push(Hop {
                frame,
                walk_id,
                iframe: q.iframe,
                inset: q.inset,
            });
            at = q.owner;
        }
        hops.reverse();
        let p = &self.placed[seg];
        Some(Route {
            frame: Some(p.frame.clone()),
            walk_id: p.walk_id,
            idx: own,
            hops,
        })
    }
}

/// The identity-key frame number of a placed frame: stable across walks while the frame stays
/// at the same place in the frame tree, and apart from the main walker's same-origin frame
/// ordinals (small numbers).
fn frame_key(parent_key: u32, slot: u32) -> u32 {
    0x1_0000 | (parent_key.wrapping_mul(131).wrapping_add(slot + 1) & 0xFFFF)
}

/// A frame's walk waiting to be placed.
pub struct Found {
    pub placed: Placed,
    pub walk: Walk,
    pub key: u32,
}

/// The merged walk: `main` with each found frame's elements right after its iframe, bounds in
/// the top-level viewport, indices renumbered; and where each element lives.
pub fn merge(mut main: Walk, found: Vec<Found>) -> (Walk, Merged) {
    let nodes = std::mem::take(&mut main.nodes);
    let walk_id = main.walk_id;
    let mut m = Merging {
        out: Walk {
            nodes: Vec::with_capacity(nodes.len()),
            ..main
        },
        at: Vec::with_capacity(nodes.len()),
        children: found
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.placed.owner.map_or(0, |o| o as u32 + 1), f.placed.iframe), i))
            .collect(),
        placed: found.iter().map(|f| f.placed.clone()).collect(),
        keys: found.iter().map(|f| f.key).collect(),
        walks: found.into_iter().map(|f| Some(f.walk)).collect(),
    };
    m.emit(0, nodes, None, Offset::default(), None);
    let merged = Merged {
        walk_id,
        at: m.at,
        placed: m.placed,
    };
    (m.out, merged)
}

struct Merging {
    out: Walk,
    at: Vec<(u32, u32)>,
    /// (frame: 0 main, else 1 + index of `placed`; the iframe's own index) → found frame.
    children: HashMap<(u32, u32), usize>,
    placed: Vec<Placed>,
    keys: Vec<u32>,
    walks: Vec<Option<Walk>>,
}

impl Merging {
    /// Appends the nodes of frame `seg`, each placed frame right after its iframe.
    fn emit(
        &mut self,
        seg: u32,
        nodes: Vec<NodeRecord>,
        root_parent: Option<u32>,
        origin: Offset,
        key: Option<u32>,
    ) {
        let mut new_of = vec![u32::MAX; nodes.len()];
        let mut labels = Vec::new();
        for mut n in nodes {
            let own = n.idx;
            let new = self.out.nodes.len() as u32;
            if let Some(slot) = new_of.get_mut(own as usize) {
                *slot = new;
            }
            n.idx = new;
            n.parent = match n.parent {
                Some(p) => new_of.get(p as usize).copied().filter(|&q| q != u32::MAX),
                None => root_parent,
            };
            n.bounds.x += origin.x;
            n.bounds.y += origin.y;
            if let Some(k) = key {
                n.frame = k;
                n.uid = n.uid.map(|u| u | (u64::from(k) << 40));
            }
            if let Some(l) = n.label_for.take() {
                labels.push((new, l));
            }
            let bounds = n.bounds;
            self.out.nodes.push(n);
            self.at.push((seg, own));
            if let Some(&c) = self.children.get(&(seg, own))
                && let Some(w) = self.walks[c].take()
            {
                let inset = self.placed[c].inset;
                let o = Offset {
                    x: bounds.x + inset.x,
                    y: bounds.y + inset.y,
                };
                let out = &mut self.out;
                out.visited += w.visited;
                out.errors += w.errors;
                out.truncated |= w.truncated;
                out.walk_us += w.walk_us;
                out.dom_quiet_ms = quieter(out.dom_quiet_ms, w.dom_quiet_ms);
                out.change_quiet_ms = quieter(out.change_quiet_ms, w.change_quiet_ms);
                let k = self.keys[c];
                self.emit(c as u32 + 1, w.nodes, Some(new), o, Some(k));
            }
        }
        // A label may name a control that comes after it.
        for (at, l) in labels {
            self.out.nodes[at as usize].label_for =
                new_of.get(l as usize).copied().filter(|&q| q != u32::MAX);
        }
    }
}

/// Frame identifiers by parent identifier, and the main frame's (UI thread).
fn frame_tree(b: &cef::Browser) -> (Option<String>, Vec<(String, String)>) {
    let main = b.main_frame().map(|f| f.id());
    let mut out = Vec::new();
    for id in b.frame_ids() {
        if let Some(f) = b.frame(&id)
            && let Some(p) = f.parent()
        {
            out.push((id, p.id()));
        }
    }
    (main, out)
}

/// Adds to `main` the walks of the frames it could not enter, and records where their
/// elements live for element ops. A frame that does not answer in time is left out (its
/// iframe stays a bare line).
pub async fn walk_frames(tab: &Tab, main: Walk) -> Result<Walk, TabError> {
    let id = tab.id;
    let mut found = Vec::new();
    if main.nodes.iter().any(|n| n.inset.is_some()) {
        let tree = tab
            .ui(move |a| a.browser(id).map(|b| frame_tree(&b)))
            .await?
            .ok_or(TabError::NoSuchTab(id))?;
        if let (Some(main_id), frames) = tree {
            found = find(tab, &main, &frames, main_id).await;
        }
    }
    let (walk, merged) = merge(main, found);
    tab.ui(move |a| {
        a.with(|st| {
            if let Some(t) = st.tabs.get_mut(&id) {
                t.frames = Some(merged);
            }
        })
    })
    .await?;
    Ok(walk)
}

/// Walks the frames below `main_id` that their parent's walker could not enter, level by
/// level, matching each to its iframe by slot.
async fn find(tab: &Tab, main: &Walk, tree: &[(String, String)], main_id: String) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    // Whose walk holds the frame's iframes (`None`: the main walk; else an index of `found`),
    // the frame, its depth, and which document of that walk is the frame's: 0 for the walk's
    // own, else the ordinal of a same-origin frame the walk entered (its `frame` number).
    let mut owners: Vec<(Option<usize>, String, usize, u32)> = vec![(None, main_id, 0, 0)];
    while let Some((owner, frame_id, depth, doc)) = owners.pop() {
        if depth >= MAX_DEPTH || found.len() >= MAX_FRAMES {
            continue;
        }
        let nodes = match owner {
            None => &main.nodes,
            Some(o) => &found[o].walk.nodes,
        };
        // The iframes of the frame's document: (slot, index, inset when not entered, the
        // document number of its content when entered).
        let iframes: Vec<(u32, u32, Option<Offset>, Option<u32>)> = nodes
            .iter()
            .filter(|n| n.frame == doc)
            .filter_map(|n| {
                let inner = match n.inset {
                    Some(_) => None,
                    None => nodes.iter().find(|c| c.parent == Some(n.idx)).map(|c| c.frame),
                };
                Some((n.slot?, n.idx, n.inset, inner))
            })
            .collect();
        if iframes.is_empty() {
            continue;
        }
        let kids: Vec<String> = tree
            .iter()
            .filter(|(_, p)| *p == frame_id)
            .map(|(c, _)| c.clone())
            .take(MAX_FRAMES)
            .collect();
        let mut set = tokio::task::JoinSet::new();
        for (i, frame) in kids.into_iter().enumerate() {
            let t = tab.clone();
            set.spawn(async move {
                let req = Request::Walk { cap: None, sub: true };
                let r: Result<Walk, TabError> = t
                    .ask_to(Target::Frame(frame.clone()), &req, FRAME_WALK_TIMEOUT)
                    .await;
                (i, frame, r)
            });
        }
        let mut answers = Vec::new();
        while let Some(j) = set.join_next().await {
            if let Ok(a) = j {
                answers.push(a);
            }
        }
        // In frame-tree order, so the result does not depend on which answered first.
        answers.sort_by_key(|a| a.0);
        let owner_key = owner.map_or(0, |o| found[o].key) ^ (doc << 8);
        for (_, frame, r) in answers {
            let w = match r {
                Ok(w) => w,
                Err(e) => {
                    tracing::debug!(tab = tab.id.0, %frame, "a frame's walk failed: {e}");
                    continue;
                }
            };
            let Some(slot) = w.slot else { continue };
            let Some(&(_, iframe, inset, inner)) = iframes.iter().find(|f| f.0 == slot) else {
                continue;
            };
            if w.reached {
                // Walked inline as part of this walk: frames of other sites inside it belong
                // under its iframes there.
                if let Some(inner) = inner.filter(|&k| k != doc) {
                    owners.push((owner, frame, depth + 1, inner));
                }
                continue;
            }
            let Some(inset) = inset else { continue };
            if found.len() >= MAX_FRAMES
                || found
                    .iter()
                    .any(|f| f.placed.owner == owner && f.placed.iframe == iframe)
            {
                continue;
            }
            found.push(Found {
                placed: Placed {
                    frame: frame.clone(),
                    walk_id: w.walk_id,
                    owner,
                    iframe,
                    inset,
                },
                walk: w,
                key: frame_key(owner_key, slot),
            });
            owners.push((Some(found.len() - 1), frame, depth + 1, 0));
        }
    }
    found
}

/// `text` (the main frame's, `truncated` at `cap` characters) followed by the text of each
/// frame of another site the latest walk placed, in the walk's order, within the same cap. A
/// frame that is gone or does not answer is left out.
pub async fn with_frame_text(tab: &Tab, mut text: String, mut truncated: bool, cap: usize) -> (String, bool) {
    let id = tab.id;
    let frames: Vec<String> = tab
        .ui(move |a| {
            a.with(|st| {
                st.tabs
                    .get(&id)
                    .and_then(|t| t.frames.as_ref())
                    .map(|m| m.placed.iter().map(|p| p.frame.clone()).collect())
            })
        })
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    for f in frames {
        let left = cap.saturating_sub(text.chars().count());
        if truncated || left == 0 {
            truncated = true;
            break;
        }
        let req = Request::Text { cap: Some(left) };
        let r: Result<TextReply, TabError> = tab.ask_to(Target::Frame(f), &req, FRAME_WALK_TIMEOUT).await;
        if let Ok(r) = r
            && !r.text.trim().is_empty()
        {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&r.text);
            truncated |= r.truncated;
        }
    }
    (text, truncated)
}

/// Whether an op aims input at its element (or reads focus for input that follows): the
/// element's frame then counts the input.
fn aims(op: &ElementOp) -> bool {
    !matches!(
        op,
        ElementOp::Rect | ElementOp::Text { .. } | ElementOp::Over { .. }
    )
}

async fn set_input_frame(tab: &Tab, frame: Option<String>) -> Result<(), TabError> {
    let id = tab.id;
    tab.ui(move |a| {
        a.with(|st| {
            if let Some(t) = st.tabs.get_mut(&id) {
                t.input_frame = frame;
            }
        })
    })
    .await
}

/// An element op on element `idx` of walk `walk_id`, in the frame holding it.
pub async fn element(tab: &Tab, walk_id: u64, idx: u32, op: ElementOp) -> Result<ElementReply, TabError> {
    let id = tab.id;
    let route = tab
        .ui(move |a| {
            a.with(|st| {
                st.tabs
                    .get(&id)
                    .and_then(|t| t.frames.as_ref())
                    .and_then(|m| m.route(walk_id, idx))
            })
        })
        .await?;
    let route = match route {
        Some(Route {
            frame: Some(f),
            walk_id,
            idx,
            hops,
        }) => (f, walk_id, idx, hops),
        // The main frame's element (or a walk the main walker refuses as stale).
        other => {
            let idx = other.map_or(idx, |r| r.idx);
            if aims(&op) {
                set_input_frame(tab, None).await?;
            }
            return tab
                .ask_to(Target::Main, &Request::element(walk_id, idx, op), RPC_TIMEOUT)
                .await;
        }
    };
    let (frame, own_walk, own_idx, hops) = route;
    // The frame's viewport origin in the top-level one, through each iframe as it is now.
    let mut origin = Offset::default();
    let mut viewport = None;
    for (k, hop) in hops.iter().enumerate() {
        let here = match (&op, k) {
            // Whether the point is over the iframe at all (an overlay of the page may cover
            // it): what covers it is the answer, as for any element.
            (ElementOp::Hit { x, y }, 0) => ElementOp::Over { x: *x, y: *y },
            _ => ElementOp::Rect,
        };
        let target = hop.frame.clone().map_or(Target::Main, Target::Frame);
        let r: ElementReply = tab
            .ask_to(
                target,
                &Request::element(hop.walk_id, hop.iframe, here),
                RPC_TIMEOUT,
            )
            .await?;
        if k == 0 {
            viewport = Some(r.viewport);
            if r.cover.is_some() {
                return Ok(r);
            }
        }
        origin.x += r.bounds.x + hop.inset.x;
        origin.y += r.bounds.y + hop.inset.y;
    }
    let hit = matches!(op, ElementOp::Hit { .. });
    let op = match op {
        ElementOp::Hit { x, y } => ElementOp::Hit {
            x: x - origin.x,
            y: y - origin.y,
        },
        other => other,
    };
    if aims(&op) {
        set_input_frame(tab, Some(frame.clone())).await?;
    }
    let mut r: ElementReply = tab
        .ask_to(
            Target::Frame(frame),
            &Request::element(own_walk, own_idx, op),
            RPC_TIMEOUT,
        )
        .await?;
    r.bounds.x += origin.x;
    r.bounds.y += origin.y;
    r.x = r.x.map(|x| x + origin.x);
    r.y = r.y.map(|y| y + origin.y);
    if let Some(v) = viewport {
        r.viewport = v;
    }
    // The frame chose another point of the element (the asked one is covered inside the
    // frame): that point must be clear in the top document too.
    if hit && let (Some(x), Some(y), Some(top)) = (r.x, r.y, hops.first()) {
        let target = top.frame.clone().map_or(Target::Main, Target::Frame);
        let over: ElementReply = tab
            .ask_to(
                target,
                &Request::element(top.walk_id, top.iframe, ElementOp::Over { x, y }),
                RPC_TIMEOUT,
            )
            .await?;
        if over.cover.is_some() {
            r.x = None;
            r.y = None;
            r.cover = over.cover;
        }
    }
    Ok(r)
}

/// The more recent of two frames' "quiet since" clocks: the merged page changed when either did.
fn quieter(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aperture_engine::record::Rect;

    fn node(idx: u32, parent: Option<u32>, tag: &str) -> NodeRecord {
        NodeRecord {
            idx,
            parent,
            tag: tag.into(),
            bounds: Rect {
                x: 1.0,
                y: 2.0,
                w: 10.0,
                h: 10.0,
            },
            uid: Some(idx as u64 + 1),
            ..NodeRecord::default()
        }
    }

    fn placed(frame: &str, walk_id: u64, owner: Option<usize>, iframe: u32) -> Placed {
        Placed {
            frame: frame.into(),
            walk_id,
            owner,
            iframe,
            inset: Offset { x: 2.0, y: 3.0 },
        }
    }

    #[test]
    fn a_frame_is_placed_right_after_its_iframe_and_routed_back() {
        let main = Walk {
            walk_id: 7,
            nodes: vec![
                node(0, None, "html"),
                node(1, Some(0), "iframe"),
                node(2, Some(0), "p"),
            ],
            ..Walk::default()
        };
        let mut child = Walk {
            walk_id: 99,
            slot: Some(0),
            nodes: vec![
                node(0, None, "html"),
                node(1, Some(0), "label"),
                node(2, Some(0), "input"),
            ],
            ..Walk::default()
        };
        child.nodes[1].label_for = Some(2);
        let (w, m) = merge(
            main,
            vec![Found {
                placed: placed("f1", 99, None, 1),
                walk: child,
                key: frame_key(0, 0),
            }],
        );
        let tags: Vec<&str> = w.nodes.iter().map(|n| n.tag.as_str()).collect();
        assert_eq!(
            tags,
            ["html", "iframe", "html", "label", "input", "p"],
            "pre-order kept"
        );
        for (i, n) in w.nodes.iter().enumerate() {
            assert_eq!(n.idx as usize, i);
            assert!(n.parent.is_none_or(|p| (p as usize) < i), "a parent comes first");
        }
        assert_eq!(
            w.nodes[2].parent,
            Some(1),
            "the frame's root hangs under the iframe"
        );
        assert_eq!(w.nodes[4].parent, Some(2));
        assert_eq!(
            w.nodes[5].parent,
            Some(0),
            "the main frame's next element keeps its parent"
        );
        assert_eq!(w.nodes[3].label_for, Some(4));
        // The iframe's box starts at (1, 2); its viewport 2 right and 3 down of that.
        assert_eq!((w.nodes[4].bounds.x, w.nodes[4].bounds.y), (4.0, 7.0));
        assert_eq!(w.nodes[5].bounds.x, 1.0, "main-frame boxes stay");
        assert_ne!(
            w.nodes[4].frame, 0,
            "keys of the frame's elements are apart from the main's"
        );
        assert_ne!(w.nodes[4].uid, w.nodes[2 + 3].uid);

        assert_eq!(
            m.route(7, 5).map(|r| (r.frame, r.idx)),
            Some((None, 2)),
            "renumbered main element"
        );
        assert_eq!(m.route(6, 5), None, "another walk is the main walker's to refuse");
        assert_eq!(m.route(7, 6), None);
        let r = m.route(7, 4).expect("a frame element");
        assert_eq!((r.frame.as_deref(), r.walk_id, r.idx), (Some("f1"), 99, 2));
        assert_eq!(r.hops.len(), 1);
        assert_eq!(
            (r.hops[0].frame.clone(), r.hops[0].walk_id, r.hops[0].iframe),
            (None, 7, 1)
        );
    }

    #[test]
    fn a_nested_frame_is_placed_and_routed_through_both_iframes() {
        let main = Walk {
            walk_id: 1,
            nodes: vec![node(0, None, "html"), node(1, Some(0), "iframe")],
            ..Walk::default()
        };
        let a = Walk {
            walk_id: 10,
            nodes: vec![node(0, None, "html"), node(1, Some(0), "iframe")],
            ..Walk::default()
        };
        let b = Walk {
            walk_id: 20,
            nodes: vec![node(0, None, "html"), node(1, Some(0), "button")],
            ..Walk::default()
        };
        let (w, m) = merge(
            main,
            vec![
                Found {
                    placed: placed("a", 10, None, 1),
                    walk: a,
                    key: frame_key(0, 0),
                },
                Found {
                    placed: placed("b", 20, Some(0), 1),
                    walk: b,
                    key: frame_key(frame_key(0, 0), 0),
                },
            ],
        );
        assert_eq!(w.nodes.len(), 6);
        assert_eq!(w.nodes[5].tag, "button");
        assert_eq!(w.nodes[4].parent, Some(3));
        // Two iframes at (1, 2), each inset (2, 3): (1+2+1+2+1, 2+3+2+3+2).
        assert_eq!((w.nodes[5].bounds.x, w.nodes[5].bounds.y), (7.0, 12.0));
        let r = m.route(1, 5).expect("in the inner frame");
        assert_eq!((r.frame.as_deref(), r.walk_id, r.idx), (Some("b"), 20, 1));
        let hops: Vec<_> = r
            .hops
            .iter()
            .map(|h| (h.frame.clone(), h.walk_id, h.iframe))
            .collect();
        assert_eq!(hops, vec![(None, 1, 1), (Some("a".into()), 10, 1)]);
    }

    #[test]
    fn frame_keys_are_stable_and_apart() {
        assert_eq!(frame_key(0, 3), frame_key(0, 3));
        assert_ne!(frame_key(0, 0), frame_key(0, 1));
        assert!(frame_key(0, 0) > 0xFFFF);
    }
}
