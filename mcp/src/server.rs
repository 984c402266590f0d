//! The MCP server: per-tab state (one lock per tab, one page model per session and tab),
//! the rules every tool obeys, and the reply builder that keeps harness text and page text on
//! their own sides of the envelope.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use aperture_engine::record::{NodeRecord, REACTION_CAP, REACTION_MIN, REACTION_QUIET, Rect, Viewport};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool_handler};

use crate::backend::{Backend, BackendError, BackendResult, TabId, TabInfo, Walk};
use crate::engine_glue::{Observation, TabSession, fence};

/// How long any single backend call may take before it is treated as hung.
pub(crate) const CALL_TIMEOUT: Duration = Duration::from_secs(20);
/// Navigations wait for a load, which on a slow site legitimately takes a while.
pub(crate) const NAV_TIMEOUT: Duration = Duration::from_secs(45);
/// How long to let the page react to an action before observing it.
pub(crate) const SETTLE: Duration = Duration::from_millis(1500);

/// Said once, here and in `browser_snapshot`'s description, rather than in every result:
/// clients re-send tool descriptions on every request, so the explanation survives context
/// compaction without costing tokens per call.
pub(crate) const ENVELOPE_RULE: &str = envelope_rule!();

const INSTRUCTIONS: &str = "Aperture is a web browser you drive. The loop is act → observe \
delta: browser_snapshot gives a full snapshot once, then browser_act / browser_fill_form / \
browser_navigate answer with what changed against the state you already hold. Elements you can \
act on carry refs (e12); a ref names a logical element and survives re-renders. A diff names \
the observation it applies to; a result headed FULL SNAPSHOT replaces all prior state. Focus \
is in one place: a line a diff shows as focused took it from every line the diff does not show. A \
line without a ref is addressed by position in the state the diff applies to: `/3` is the third \
top-level line, `e12/2` the second line under e12. Diff lines: `~ X LINE` X now reads LINE; \
`+ after X`, `+ first in X`, `+ first` insert the indented lines there (`> X LINE` among them \
is X moved there); `= X` replaces X and what it holds with the indented lines; `- X` removes \
X and what it holds. Refs listed as gone are dead (acting on them \
is refused, never silently rebound) until an observation lists them again. An action reported \
as OUTCOME UNKNOWN was sent and may have taken effect: look at the page before repeating it. \
You may act in tabs the human opened but may close only tabs you opened. ";

/// The answer to a call that needs a tab when there is none.
pub(crate) const NO_TAB: &str = "there is no tab; open one with browser_tabs action=open";

/// State kept for one tab across tool calls. Guarded by a per-tab async lock so that one
/// action (or one batch) runs at a time on a tab.
#[derive(Default)]
pub(crate) struct TabState {
    pub session: TabSession,
    /// Walk the live refs were observed in; element operations must name it.
    pub walk_id: Option<u64>,
    /// URL of the last observation, to notice navigations an action caused.
    pub url: Option<String>,
    /// Document of the last observation (see [`Backend::document`]).
    pub document: Option<u64>,
    pub viewport: Viewport,
    /// The engine state the agent was last brought to (`#7.3`).
    pub seq: Option<String>,
    /// Observations a step made on its own (a `wait` that had to re-read the page), for the
    /// batch to add to its answer in order.
    pub pending: Vec<Observation>,
    /// The tab's action count ([`TabShared::acts`]) at this session's last observation.
    acts_seen: u64,
    /// Actions this session made on the tab since its last observation.
    own_acts: u64,
    /// The state this session held when its current call took the tab (after catching up
    /// with other sessions): a batch that moved it from there changed the page.
    pub(crate) batch_from: Option<String>,
}

/// What every session's view of one tab shares, behind the tab's one lock: two sessions
/// acting on a tab take turns, act and observe together.
#[derive(Default)]
pub(crate) struct TabShared {
    /// Each session's page model of the tab, keyed by session: one session's observation
    /// never advances another's.
    views: HashMap<u64, TabState>,
}

/// What sessions need to know of each other's use of a tab. Kept beside the tab locks (and
/// only changed by a holder of the tab's lock) so an observation can read it with nothing but
/// its own view in hand.
#[derive(Default, Clone, Copy)]
struct TabCounts {
    /// The renderer keeps one walk per tab (the last one made, by any session); refs of an
    /// older walk can no longer be located.
    latest_walk: Option<u64>,
    /// Actions (input, navigation) any session made on the tab.
    acts: u64,
}

/// State shared by every MCP session of one browser: the same tab must not be driven by two
/// sessions at once, while each session keeps its own current tab and its own page models.
pub(crate) struct Hub {
    pub backend: Arc<dyn Backend>,
    tabs: Mutex<HashMap<TabId, Arc<tokio::sync::Mutex<TabShared>>>>,
    counts: Mutex<HashMap<TabId, TabCounts>>,
    next_session: AtomicU64,
    /// Sessions that ended while one of their tabs was locked: their views there are dropped
    /// by the next lock of that tab.
    departed: Mutex<HashSet<u64>>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").finish_non_exhaustive()
    }
}

impl Hub {
    fn tabs(&self) -> MutexGuard<'_, HashMap<TabId, Arc<tokio::sync::Mutex<TabShared>>>> {
        // Plain map updates in single statements: a poisoned lock is still consistent.
        self.tabs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn counts(&self, id: TabId) -> TabCounts {
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .copied()
            .unwrap_or_default()
    }

    fn update_counts(&self, id: TabId, f: impl FnOnce(&mut TabCounts)) {
        f(self
            .counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(id)
            .or_default());
    }

    fn forget(&self, keep: impl Fn(&TabId) -> bool) {
        self.tabs().retain(|id, _| keep(id));
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|id, _| keep(id));
    }

    fn departed(&self) -> MutexGuard<'_, HashSet<u64>> {
        self.departed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Page models held, over every session and tab (tabs locked right now are not counted).
    pub(crate) fn views(&self) -> usize {
        self.tabs()
            .values()
            .filter_map(|t| t.try_lock().ok().map(|t| t.views.len()))
            .sum()
    }
}

/// One MCP session: its current tab, and the key of its page models. Dropped when the last
/// handle of the session goes (rmcp drops the session's server when it closes or expires),
/// which drops its page models.
struct SessionState {
    key: u64,
    current: Mutex<Option<TabId>>,
    hub: std::sync::Weak<Hub>,
}

impl Drop for SessionState {
    fn drop(&mut self) {
        let Some(hub) = self.hub.upgrade() else { return };
        let slots: Vec<_> = hub.tabs().values().cloned().collect();
        let mut busy = false;
        for slot in slots {
            match slot.try_lock() {
                Ok(mut t) => {
                    t.views.remove(&self.key);
                }
                Err(_) => busy = true,
            }
        }
        if busy {
            hub.departed().insert(self.key);
        }
    }
}

/// A tab's lock, taken for this session (see [`Aperture::tab_state`]).
pub(crate) struct TabLock {
    slot: Arc<tokio::sync::Mutex<TabShared>>,
    id: TabId,
    key: u64,
    hub: Arc<Hub>,
}

impl TabLock {
    pub(crate) async fn lock(&self) -> TabGuard {
        let mut slot = self.slot.clone().lock_owned().await;
        {
            let departed = self.hub.departed();
            if !departed.is_empty() {
                slot.views.retain(|k, _| !departed.contains(k));
            }
        }
        let acts = self.hub.counts(self.id).acts;
        let view = slot.views.entry(self.key).or_insert_with(|| TabState {
            acts_seen: acts,
            ..TabState::default()
        });
        view.batch_from = view.seq.clone();
        TabGuard { slot, key: self.key }
    }

    pub(crate) async fn lock_owned(self) -> TabGuard {
        self.lock().await
    }
}

/// This session's state of a locked tab. Derefs to its [`TabState`].
pub(crate) struct TabGuard {
    slot: tokio::sync::OwnedMutexGuard<TabShared>,
    key: u64,
}

impl Deref for TabGuard {
    type Target = TabState;
    fn deref(&self) -> &TabState {
        self.slot
            .views
            .get(&self.key)
            .expect("a locked tab holds its session's view")
    }
}

impl DerefMut for TabGuard {
    fn deref_mut(&mut self) -> &mut TabState {
        self.slot
            .views
            .get_mut(&self.key)
            .expect("a locked tab holds its session's view")
    }
}

/// Said at the head of an observation when another session acted on the tab since this
/// session last observed it: the diff is against this session's own last state, so it
/// includes those changes.
pub(crate) const OTHER_SESSION: &str =
    "another MCP session acted on this tab since your last observation; what it changed is in this answer";

/// How long a navigation's observation keeps waiting for a client-rendered page to go quiet.
const QUIET_CAP: Duration = Duration::from_secs(2);

/// The MCP server. Cheap to clone: one instance per MCP session (see [`Aperture::share`]),
/// all sharing one [`Hub`].
#[derive(Clone)]
pub struct Aperture {
    pub(crate) hub: Arc<Hub>,
    session: Arc<SessionState>,
    tool_router: ToolRouter<Aperture>,
}

impl Aperture {
    /// A server driving `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Aperture {
        let hub = Arc::new(Hub {
            backend,
            tabs: Mutex::new(HashMap::new()),
            counts: Mutex::new(HashMap::new()),
            next_session: AtomicU64::new(1),
            departed: Mutex::new(HashSet::new()),
        });
        Aperture {
            session: Arc::new(SessionState {
                key: 0,
                current: Mutex::new(None),
                hub: Arc::downgrade(&hub),
            }),
            hub,
            tool_router: crate::tools::router(),
        }
    }

    /// A new MCP session on the same browser: the same tabs and tab locks, its own current
    /// tab and its own page model of each tab.
    pub fn share(&self) -> Aperture {
        Aperture {
            hub: self.hub.clone(),
            session: Arc::new(SessionState {
                key: self.hub.next_session.fetch_add(1, Ordering::Relaxed),
                current: Mutex::new(None),
                hub: Arc::downgrade(&self.hub),
            }),
            tool_router: self.tool_router.clone(),
        }
    }

    /// The tool definitions this server lists, in listing order.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.hub.backend
    }

    /// The tab's lock, for this session's state of it.
    pub(crate) fn tab_state(&self, id: TabId) -> TabLock {
        let slot = self.hub.tabs().entry(id).or_default().clone();
        TabLock {
            slot,
            id,
            key: self.session.key,
            hub: self.hub.clone(),
        }
    }

    fn current_slot(&self) -> MutexGuard<'_, Option<TabId>> {
        self.session.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets a closed tab (every session's state of it).
    pub(crate) fn forget_tab(&self, id: TabId) {
        self.hub.forget(|t| *t != id);
        let mut cur = self.current_slot();
        if *cur == Some(id) {
            *cur = None;
        }
    }

    /// Drops state for tabs that no longer exist.
    pub(crate) fn prune(&self, live: &[TabInfo]) {
        self.hub.forget(|id| live.iter().any(|t| t.id == *id));
        let mut cur = self.current_slot();
        if cur.is_some_and(|c| !live.iter().any(|t| t.id == c)) {
            *cur = None;
        }
    }

    pub(crate) fn set_current(&self, id: TabId) {
        *self.current_slot() = Some(id);
    }

    pub(crate) fn current(&self) -> Option<TabId> {
        *self.current_slot()
    }

    /// Records that this session acted on the tab (navigated it, or a batch of input changed
    /// the page), so the other sessions' next observations of it say so. Called with the tab
    /// locked.
    pub(crate) fn acted(&self, id: TabId, st: &mut TabState) {
        self.hub.update_counts(id, |c| c.acts += 1);
        st.own_acts += 1;
    }

    /// Whether another session walked the tab since this one did, so this session's refs
    /// name a walk the renderer no longer holds. Called with the tab locked.
    pub(crate) fn walk_superseded(&self, id: TabId, st: &TabState) -> bool {
        st.walk_id.is_some() && self.hub.counts(id).latest_walk != st.walk_id
    }

    /// The tab a call addresses: the one named, else the agent's current tab, else the
    /// foreground tab.
    pub(crate) async fn target(&self, tab: Option<u64>) -> Result<TabId, Reply> {
        self.target_if_any(tab).await?.ok_or_else(|| Reply::error(NO_TAB))
    }

    /// [`Aperture::target`], with `None` when no tab is named and there is none at all.
    pub(crate) async fn target_if_any(&self, tab: Option<u64>) -> Result<Option<TabId>, Reply> {
        if let Some(t) = tab {
            return Ok(Some(TabId(t)));
        }
        let tabs = call(self.backend().tabs(), CALL_TIMEOUT)
            .await
            .map_err(|e| Reply::failed(&e))?;
        self.prune(&tabs);
        if let Some(c) = self.current() {
            return Ok(Some(c));
        }
        Ok(tabs.iter().find(|t| t.active).or(tabs.first()).map(|t| t.id))
    }

    /// Walks the tab and runs the engine over it. `navigated` is forced on when the URL moved
    /// since the last observation, so the engine resets rather than diffing across pages.
    /// After a navigation, a page still building itself (a client-rendered app) is walked
    /// again until its DOM goes quiet, for at most [`QUIET_CAP`], so the answer shows what it
    /// rendered rather than its empty shell.
    pub(crate) async fn observe(
        &self,
        id: TabId,
        st: &mut TabState,
        force_full: bool,
        navigated: bool,
    ) -> BackendResult<Observation> {
        self.observe_with(id, st, force_full, navigated, None).await
    }

    /// [`Aperture::observe`]; with `input_at` (when the agent's input was delivered), a page
    /// still changing what it shows is walked again until it stops, for at most
    /// [`REACTION_CAP`] from the input, so the answer shows the end of its reaction.
    async fn observe_with(
        &self,
        id: TabId,
        st: &mut TabState,
        force_full: bool,
        navigated: bool,
        input_at: Option<Instant>,
    ) -> BackendResult<Observation> {
        // Asked before the walk: if a navigation slips in between, the next observation sees
        // the document change and retires refs, which errs on the safe side.
        let document = call(self.backend().document(id), CALL_TIMEOUT).await?;
        let mut walk = call(self.backend().walk(id), CALL_TIMEOUT).await?;
        self.hub.update_counts(id, |c| c.latest_walk = Some(walk.walk_id));
        let moved = match (document, st.document) {
            (Some(now), Some(before)) => now != before,
            _ => st
                .url
                .as_deref()
                .is_some_and(|u| strip_fragment(u) != strip_fragment(&walk.url)),
        };
        if navigated || moved {
            walk = self
                .walk_until_still(id, walk, Instant::now(), QUIET_CAP, |w| {
                    w.quiet_wait(aperture_engine::record::QUIET)
                })
                .await?;
        } else if let Some(at) = input_at {
            walk = self
                .walk_until_still(id, walk, at, REACTION_CAP, |w| w.reaction_wait(REACTION_QUIET))
                .await?;
        }
        let acts = self.hub.counts(id).acts;
        let others = acts.saturating_sub(st.acts_seen) > st.own_acts;
        let mut obs = st.session.observe(&walk, force_full, navigated || moved);
        if others {
            obs.text = format!("{OTHER_SESSION}\n{}", obs.text);
        }
        st.acts_seen = acts;
        st.own_acts = 0;
        st.walk_id = Some(walk.walk_id);
        st.url = Some(walk.url.clone());
        st.document = document;
        st.viewport = walk.viewport;
        st.seq = Some(obs.seq.clone());
        Ok(obs)
    }

    /// Walks again while `wait` says the page is still changing (and for how long to wait
    /// before looking again), until `cap` after `from`; the last walk is the one observed.
    /// After a navigation the DOM must go quiet ([`Walk::quiet_wait`], [`QUIET_CAP`] from the
    /// first walk); after input what is shown, attributes included ([`Walk::reaction_wait`]:
    /// a fade, a menu opening; [`REACTION_CAP`] from the input).
    async fn walk_until_still(
        &self,
        id: TabId,
        mut walk: Walk,
        from: Instant,
        cap: Duration,
        wait: impl Fn(&Walk) -> Option<Duration>,
    ) -> BackendResult<Walk> {
        loop {
            let Some(pause) = wait(&walk) else {
                return Ok(walk);
            };
            let left = cap.saturating_sub(from.elapsed());
            if left.is_zero() {
                return Ok(walk);
            }
            tokio::time::sleep(pause.min(left)).await;
            walk = call(self.backend().walk(id), CALL_TIMEOUT).await?;
            self.hub.update_counts(id, |c| c.latest_walk = Some(walk.walk_id));
        }
    }

    /// Before a batch acts on refs: when another session walked the tab since this one did,
    /// this session's refs name a walk the renderer no longer holds, so the tab is observed
    /// again (a diff against this session's own state, which maps its refs onto the page as
    /// it is) and the observation joins the batch's answer.
    pub(crate) async fn catch_up(&self, id: TabId, st: &mut TabState, trail: &mut Vec<Observation>) {
        if !self.walk_superseded(id, st) {
            return;
        }
        let before = st.seq.clone();
        // A failure here is the first step's to report: it meets the same page.
        if let Ok(obs) = self.observe(id, st, false, false).await
            && (obs.full || Some(&obs.seq) != before.as_ref() || obs.text.starts_with(OTHER_SESSION))
        {
            push_obs(trail, obs);
        }
        st.batch_from = st.seq.clone();
    }

    /// Observes between the steps of a batch, so each step resolves its ref against the page
    /// as the previous step left it: a ref that died mid-batch is refused, never aimed at
    /// stale coordinates. Observations that moved the agent's state are kept in `trail`, in
    /// order, because the final diff is only meaningful on top of them.
    pub(crate) async fn observe_between(
        &self,
        id: TabId,
        st: &mut TabState,
        trail: &mut Vec<Observation>,
    ) -> BackendResult<()> {
        let before = st.seq.clone();
        let obs = self.settle_and_observe(id, st, false).await?;
        if obs.full || Some(&obs.seq) != before.as_ref() {
            push_obs(trail, obs);
        }
        Ok(())
    }

    /// The final observation of a batch, appended to `trail` unless it says "no change" after
    /// earlier observations already told the story.
    pub(crate) async fn observe_last(
        &self,
        id: TabId,
        st: &mut TabState,
        trail: &mut Vec<Observation>,
    ) -> BackendResult<()> {
        let before = st.seq.clone();
        let obs = self.settle_and_observe(id, st, true).await?;
        if trail.is_empty() || obs.full || Some(&obs.seq) != before.as_ref() {
            push_obs(trail, obs);
        }
        Ok(())
    }

    /// Lets the page react to an action, then observes it. `reaction` (an action's final
    /// answer) also waits out the page's delayed reaction: at least [`REACTION_MIN`] from the
    /// input, then until what it shows stops changing. Between a batch's steps only the
    /// repaint is waited for: the next step's hit test catches a target still moving.
    pub(crate) async fn settle_and_observe(
        &self,
        id: TabId,
        st: &mut TabState,
        reaction: bool,
    ) -> BackendResult<Observation> {
        let input_at = Instant::now();
        // A settle failure is not worth reporting on its own: the walk that follows fails
        // the same way if the tab is really gone.
        let _ = call(self.backend().settle(id, SETTLE), SETTLE * 2).await;
        // Only actions' answers come through here: what changed is (mostly) the page
        // answering the agent, which churn suppression must not hide.
        st.session.after_input();
        if !reaction {
            return self.observe(id, st, false, false).await;
        }
        tokio::time::sleep(REACTION_MIN.saturating_sub(input_at.elapsed())).await;
        self.observe_with(id, st, false, false, Some(input_at)).await
    }
}

impl Aperture {
    /// Ends a batch: observes once more and appends every observation of the batch to `r`.
    /// Intermediate observations are included even when the last one fails, because the
    /// engine has already moved the agent's state past them.
    pub(crate) async fn answer_with_trail(
        &self,
        id: TabId,
        st: &mut TabState,
        r: Reply,
        trail: Vec<Observation>,
    ) -> Reply {
        self.answer_with_trail_as(id, st, r, trail, true).await
    }

    /// [`Aperture::answer_with_trail`]; `say_tab` false leaves out the `tab N now:` line before
    /// a lone observation, for a caller whose agent already knows which tab it is.
    pub(crate) async fn answer_with_trail_as(
        &self,
        id: TabId,
        st: &mut TabState,
        mut r: Reply,
        mut trail: Vec<Observation>,
        say_tab: bool,
    ) -> Reply {
        let last = self.observe_last(id, st, &mut trail).await;
        // What the batch changed, as this session saw it: a batch refused before anything
        // was sent, or whose input changed nothing, leaves the other sessions nothing to hear.
        if st.seq != st.batch_from {
            self.acted(id, st);
        }
        r = match trail.as_slice() {
            [o] if !say_tab => r.observation(o),
            _ => with_trail(r, id, &trail, "now"),
        };
        if let Err(e) = last {
            r = r
                .say("the page could not be observed afterwards:")
                .backend_error(&e)
                .mark_error();
        }
        r
    }
}

/// Appends an observation to a batch's trail. A FULL SNAPSHOT replaces everything before it,
/// so the observations it supersedes are dropped rather than sent.
pub(crate) fn push_obs(trail: &mut Vec<Observation>, obs: Observation) {
    if obs.full {
        trail.clear();
    }
    trail.push(obs);
}

/// Appends a tab's observations, in order, under one header (`when`: "now", or what ended
/// them, such as a switch to another tab).
pub(crate) fn with_trail(mut r: Reply, id: TabId, trail: &[Observation], when: &str) -> Reply {
    if !trail.is_empty() {
        r = r.say(if trail.len() > 1 {
            format!("tab {id} {when} (observations in order, each applying to the one before):")
        } else {
            format!("tab {id} {when}:")
        });
        for o in trail {
            r = r.observation(o);
        }
    }
    r
}

/// The ref an agent names, resolved to the record and the walk it came from.
pub(crate) fn resolve(st: &TabState, r: &str) -> Result<(u64, NodeRecord), String> {
    let Some(walk_id) = st.walk_id else {
        return Err(format!(
            "{r}: this tab has not been observed yet; call browser_snapshot first"
        ));
    };
    match st.session.resolve(r) {
        Ok(rec) => Ok((walk_id, rec.clone())),
        Err(e) => Err(format!("refused: {e}")),
    }
}

/// Centre of a box, or `None` when it has no area to click.
pub(crate) fn centre(b: &Rect) -> Option<(f32, f32)> {
    (b.w > 0.0 && b.h > 0.0).then(|| (b.x + b.w / 2.0, b.y + b.h / 2.0))
}

/// Where to point at a box: the centre of its part inside the viewport, so an element taller
/// than the viewport is still hit on its visible part. `None` when no part of it is visible.
/// An unknown viewport (zero size) falls back to the plain centre.
pub(crate) fn aim(b: &Rect, vp: &Viewport) -> Option<(f32, f32)> {
    if vp.w <= 0.0 || vp.h <= 0.0 {
        return centre(b);
    }
    let x0 = b.x.max(0.0);
    let y0 = b.y.max(0.0);
    let x1 = (b.x + b.w).min(vp.w);
    let y1 = (b.y + b.h).min(vp.h);
    (x1 > x0 && y1 > y0).then(|| ((x0 + x1) / 2.0, (y0 + y1) / 2.0))
}

fn strip_fragment(u: &str) -> &str {
    u.split_once('#').map_or(u, |(a, _)| a)
}

/// Runs a backend call with a deadline, so a hung renderer cannot hang the agent.
pub(crate) async fn call<T>(
    fut: impl Future<Output = BackendResult<T>>,
    limit: Duration,
) -> BackendResult<T> {
    match tokio::time::timeout(limit, fut).await {
        Ok(r) => r,
        Err(_) => Err(BackendError::Timeout(limit)),
    }
}

/// A tool result under construction. Harness text and page text go through different
/// methods, so a tool cannot put page bytes outside the envelope by accident.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    parts: Vec<String>,
    error: bool,
}

impl Reply {
    pub fn new() -> Reply {
        Reply::default()
    }

    /// An error result consisting of harness text.
    pub fn error(msg: impl Into<String>) -> Reply {
        let mut r = Reply::new().say(msg);
        r.error = true;
        r
    }

    /// An error result describing a backend failure.
    pub fn failed(e: &BackendError) -> Reply {
        let mut r = Reply::new().backend_error(e);
        r.error = true;
        r
    }

    /// Appends Aperture's own text. Must never contain page-authored bytes.
    pub fn say(mut self, s: impl Into<String>) -> Reply {
        self.parts.push(s.into());
        self
    }

    /// Appends page-authored text, fenced.
    pub fn page(mut self, s: &str) -> Reply {
        self.parts.push(fence(s));
        self
    }

    /// Appends a field's value, fenced as one exact quoted string (see
    /// [`crate::engine_glue::fence_value`]).
    pub fn value(mut self, v: &str) -> Reply {
        self.parts.push(crate::engine_glue::fence_value(v));
        self
    }

    /// Appends an engine observation (already fenced by the engine).
    pub fn observation(mut self, o: &Observation) -> Reply {
        self.parts.push(o.text.clone());
        self
    }

    /// Whether the result is marked as an error.
    pub fn is_error(&self) -> bool {
        self.error
    }

    /// Marks the result as an error.
    pub fn mark_error(mut self) -> Reply {
        self.error = true;
        self
    }

    /// Appends a backend error. Most variants carry browser-authored text; a failed
    /// navigation's URL may be a redirect target the page chose, so it is fenced.
    pub fn backend_error(self, e: &BackendError) -> Reply {
        match e {
            BackendError::Navigation { url, reason } => self
                .say(format!("navigation failed: {reason}; the address was:"))
                .page(url),
            other => self.say(describe(other)),
        }
    }

    pub fn into_result(self) -> CallToolResult {
        let content = vec![ContentBlock::text(self.parts.join("\n"))];
        if self.error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
    }

    /// The result with extra content blocks (an image) after the text.
    pub fn into_result_with(self, more: Vec<ContentBlock>) -> CallToolResult {
        let mut r = self.into_result();
        r.content.extend(more);
        r
    }
}

/// Harness wording for a backend error that carries no page text.
pub(crate) fn describe(e: &BackendError) -> String {
    match e {
        BackendError::NoSuchTab(id) => {
            format!("no tab {id}; browser_tabs action=list shows the open tabs")
        }
        other => other.to_string(),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Aperture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("aperture", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!("{INSTRUCTIONS}{ENVELOPE_RULE}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect { x, y, w, h }
    }

    #[test]
    fn aim_hits_the_visible_part() {
        let vp = Viewport {
            w: 800.0,
            h: 600.0,
            ..Default::default()
        };
        assert_eq!(aim(&rect(10.0, 10.0, 100.0, 20.0), &vp), Some((60.0, 20.0)));
        // Taller than the viewport: aim at the middle of what is on screen.
        assert_eq!(aim(&rect(0.0, -400.0, 100.0, 2000.0), &vp), Some((50.0, 300.0)));
        assert_eq!(aim(&rect(0.0, 700.0, 100.0, 20.0), &vp), None);
        assert_eq!(aim(&rect(0.0, 0.0, 0.0, 20.0), &vp), None);
        assert_eq!(
            aim(&rect(10.0, 10.0, 100.0, 20.0), &Viewport::default()),
            Some((60.0, 20.0))
        );
    }
}
