//! The MCP server: shared per-tab state, the rules every tool obeys, and the reply builder
//! that keeps harness text and page text on their own sides of the envelope.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aperture_engine::record::{NodeRecord, Rect, Viewport};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool_handler};

use crate::backend::{Backend, BackendError, BackendResult, TabId, TabInfo};
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
the observation it applies to; a result headed FULL SNAPSHOT replaces all prior state. Refs \
listed as gone are dead: acting on them is refused, never silently rebound. An action reported \
as OUTCOME UNKNOWN was sent and may have taken effect: look at the page before repeating it. \
You may act in tabs the human opened but may close only tabs you opened. ";

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
}

/// State shared by every MCP session of one browser: the same tab must not be driven by two
/// sessions at once, and the engine's model of a tab is a property of the tab.
pub(crate) struct Hub {
    pub backend: Arc<dyn Backend>,
    tabs: Mutex<HashMap<TabId, Arc<tokio::sync::Mutex<TabState>>>>,
    current: Mutex<Option<TabId>>,
}

/// The MCP server. Cheap to clone: one instance per MCP session, all sharing one [`Hub`].
#[derive(Clone)]
pub struct Aperture {
    pub(crate) hub: Arc<Hub>,
    tool_router: ToolRouter<Aperture>,
}

impl Aperture {
    /// A server driving `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Aperture {
        Aperture {
            hub: Arc::new(Hub {
                backend,
                tabs: Mutex::new(HashMap::new()),
                current: Mutex::new(None),
            }),
            tool_router: crate::tools::router(),
        }
    }

    /// A second handle on the same browser state (for another MCP session).
    pub fn share(&self) -> Aperture {
        self.clone()
    }

    /// The tool definitions this server lists, in listing order.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    pub(crate) fn backend(&self) -> &dyn Backend {
        &*self.hub.backend
    }

    /// The per-tab lock and state.
    pub(crate) fn tab_state(&self, id: TabId) -> Arc<tokio::sync::Mutex<TabState>> {
        let mut tabs = self.hub.tabs.lock().unwrap_or_else(|e| e.into_inner());
        tabs.entry(id).or_default().clone()
    }

    /// Forgets a closed tab.
    pub(crate) fn forget_tab(&self, id: TabId) {
        self.hub
            .tabs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        let mut cur = self.hub.current.lock().unwrap_or_else(|e| e.into_inner());
        if *cur == Some(id) {
            *cur = None;
        }
    }

    /// Drops state for tabs that no longer exist.
    pub(crate) fn prune(&self, live: &[TabInfo]) {
        let mut tabs = self.hub.tabs.lock().unwrap_or_else(|e| e.into_inner());
        tabs.retain(|id, _| live.iter().any(|t| t.id == *id));
        let mut cur = self.hub.current.lock().unwrap_or_else(|e| e.into_inner());
        if cur.is_some_and(|c| !live.iter().any(|t| t.id == c)) {
            *cur = None;
        }
    }

    pub(crate) fn set_current(&self, id: TabId) {
        *self.hub.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
    }

    pub(crate) fn current(&self) -> Option<TabId> {
        *self.hub.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The tab a call addresses: the one named, else the agent's current tab, else the
    /// foreground tab.
    pub(crate) async fn target(&self, tab: Option<u64>) -> Result<TabId, Reply> {
        if let Some(t) = tab {
            return Ok(TabId(t));
        }
        let tabs = call(self.backend().tabs(), CALL_TIMEOUT)
            .await
            .map_err(|e| Reply::failed(&e))?;
        self.prune(&tabs);
        if let Some(c) = self.current() {
            return Ok(c);
        }
        let pick = tabs.iter().find(|t| t.active).or(tabs.first());
        match pick {
            Some(t) => Ok(t.id),
            None => Err(Reply::error(
                "there is no tab; open one with browser_tabs action=open",
            )),
        }
    }

    /// Walks the tab and runs the engine over it. `navigated` is forced on when the URL moved
    /// since the last observation, so the engine resets rather than diffing across pages.
    pub(crate) async fn observe(
        &self,
        id: TabId,
        st: &mut TabState,
        force_full: bool,
        navigated: bool,
    ) -> BackendResult<Observation> {
        // Asked before the walk: if a navigation slips in between, the next observation sees
        // the document change and retires refs, which errs on the safe side.
        let document = call(self.backend().document(id), CALL_TIMEOUT).await?;
        let walk = call(self.backend().walk(id), CALL_TIMEOUT).await?;
        let moved = match (document, st.document) {
            (Some(now), Some(before)) => now != before,
            _ => st
                .url
                .as_deref()
                .is_some_and(|u| strip_fragment(u) != strip_fragment(&walk.url)),
        };
        let obs = st.session.observe(&walk, force_full, navigated || moved);
        st.walk_id = Some(walk.walk_id);
        st.url = Some(walk.url.clone());
        st.document = document;
        st.viewport = walk.viewport;
        st.seq = Some(obs.seq.clone());
        Ok(obs)
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
        let obs = self.settle_and_observe(id, st).await?;
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
        let obs = self.settle_and_observe(id, st).await?;
        if trail.is_empty() || obs.full || Some(&obs.seq) != before.as_ref() {
            push_obs(trail, obs);
        }
        Ok(())
    }

    /// Lets the page react to an action, then observes it.
    pub(crate) async fn settle_and_observe(
        &self,
        id: TabId,
        st: &mut TabState,
    ) -> BackendResult<Observation> {
        // A settle failure is not worth reporting on its own: the walk that follows fails
        // the same way if the tab is really gone.
        let _ = call(self.backend().settle(id, SETTLE), SETTLE * 2).await;
        self.observe(id, st, false, false).await
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
        mut r: Reply,
        mut trail: Vec<Observation>,
    ) -> Reply {
        let last = self.observe_last(id, st, &mut trail).await;
        r = with_trail(r, id, &trail, "now");
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
