//! The actor's tab state: one record per browser, changed only by the actor on CEF's UI
//! thread (CEF callbacks and jobs). A borrow of it never spans a CEF call that may re-enter a
//! callback.

use crate::tab::TabError;
use aperture_mcp::backend::TabId;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// One painted frame: BGRA pixels.
#[derive(Clone)]
pub struct Frame {
    pub w: u32,
    pub h: u32,
    pub bgra: Arc<Vec<u8>>,
}

/// A console message or failed request, for the `console` tool.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ConsoleEntry {
    pub level: String,
    pub text: String,
    pub source: String,
    pub line: i32,
}

/// What a navigation reports when it is answered.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LoadOutcome {
    pub url: String,
    pub status: i32,
    /// Answered before the load ended: the new document has committed and is what the tab
    /// shows, but its parser or its subresources are still at work.
    pub loading: bool,
}

/// Where a pending navigation stands, for the navigation wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavProgress {
    /// Nothing has replaced the previous page yet: the tab still shows it.
    Pending,
    /// The new document has committed, but no document element yet (its body has not
    /// started arriving).
    Committed,
    /// The new document has had a document element for this long.
    Document(Duration),
}

type NavWaiter = oneshot::Sender<Result<LoadOutcome, TabError>>;
type RpcWaiter = oneshot::Sender<Result<String, TabError>>;

/// Per-browser record.
pub struct TabRec {
    pub browser: cef::Browser,
    pub host: cef::BrowserHost,
    _devtools_reg: Option<cef::DevToolsRegistration>,
    pub url: String,
    pub title: String,
    pub loading: bool,
    /// Back/Forward can go somewhere: Chromium's own answer until `browser::history` has
    /// read the tab's list, then its answer (which counts a restored tab's saved entries).
    pub can_back: bool,
    pub can_forward: bool,
    pub status: i32,
    pub size: (i32, i32),
    pub scale: f32,
    pub frame: Option<Frame>,
    pub frame_seq: u64,
    pub cursor: cef::Cursor,
    pub nav_waiters: Vec<NavWaiter>,
    pub paint_waiters: Vec<oneshot::Sender<Frame>>,
    pub console: Vec<ConsoleEntry>,
    pub renderer_generation: u64,
    /// The renderer died (why) and no new document has replaced it: requests to it fail at
    /// once instead of waiting out a timeout.
    pub renderer_dead: Option<String>,
    /// Whether the renderer answers (see `browser::hang`).
    pub hang: super::hang::HangWatch,
    /// When the current main document became scriptable (before its subresources finished).
    pub document_at: Option<Instant>,
    /// The URL the tab showed when the pending navigation started (for same-document ones).
    pub nav_from_url: Option<String>,
    /// The HTTP status of the latest main-document response, by URL (from the DevTools
    /// observer): a navigation answered before its load end reports it.
    pub document_status: Option<(String, i32)>,
    /// The tab's page is being moved to a new renderer (`Tab::rehost`): the gate lets its
    /// `data:` hop through.
    pub rehosting: bool,
    /// Counts main-frame documents (reloads included, same-document navigations not).
    pub document_seq: u64,
    /// The `document_seq` current at the last paint: input sent to a document that has not
    /// painted yet can be dropped by Chromium, so input waits for this to catch up.
    pub painted_document: u64,
    pub meta: TabMeta,
    /// The tab shows (or is leaving) a page the agent-navigation policy refused; agent reads
    /// and input are refused until it shows another address.
    pub refused_page: Option<RefusedPage>,
    /// The tab shows Chromium's certificate warning (the net error, e.g. -202) for a page whose
    /// certificate was refused. Its "Proceed (unsafe)" is the human's alone: agent input is
    /// refused until another page has loaded.
    pub cert_warning: Option<i32>,
    /// Pinned by the human: kept before the other tabs in `order`, restored pinned.
    pub pinned: bool,
    /// What the page asked of the browser and is waiting on (see `browser::page`).
    pub asks: super::page::TabAsks,
    /// A restored tab's page, loaded when the tab is first shown (a restored session of many
    /// tabs does not load them all at start).
    pub pending_url: Option<String>,
    /// The back/forward list the human and the agent see: Chromium's entries plus those a
    /// restored session saved (see `browser::history`). `can_back`/`can_forward` follow it.
    pub history: super::history::TabHistory,
    /// Where the elements of the latest walk's other-origin frames live (see
    /// `browser::frames`).
    pub frames: Option<super::frames::Merged>,
    /// The frame whose walker counts the input being sent: the frame of the element the
    /// latest element op aimed at or focused (`None`: the main frame).
    pub input_frame: Option<String>,
    /// Requests in flight, for the network-idle wait.
    pub net: super::netwatch::NetWatch,
    /// An HTML drag the page started and the pointer is carrying (see `browser::pointer`).
    pub drag: Option<super::pointer::Drag>,
    /// Where the last pointer event the browser sent this tab was (view pixels).
    pub pointer_at: Option<(i32, i32)>,
    /// The page's status text (a hovered link's address), for the window's status bubble.
    pub status_text: String,
    /// The tooltip the page gives for the element under the pointer (its `title`), for the
    /// window to draw: off-screen rendering draws none itself.
    pub tooltip: String,
    /// Main-frame navigations (and page-opened tabs) the agent-navigation policy refused, with
    /// the latest rules: what an agent's action set off and the page never showed.
    pub refusals: Tally,
    /// What the browser decided on the page's behalf (a file chooser cancelled, a permission
    /// prompt blocked, a dialog suppressed…): an agent's action that set one off is answered
    /// with it.
    pub notes: Tally,
    /// Closed while a download of its was running: out of the strip and every list, but its
    /// browser lives on until those downloads end (CEF cancels a closed browser's downloads,
    /// where a person expects a download to outlive its tab).
    pub lingering: bool,
    /// The frames whose media is sounding now, as their script reports it (an `<audio>` or
    /// `<video>` playing, not muted, volume above zero): the tab's speaker mark.
    pub audible_frames: std::collections::HashSet<String>,
    /// The human opened this tab empty (Ctrl+T, +): while it still shows nothing, the window
    /// draws the new-tab page over it.
    pub new_tab_page: bool,
    /// The page is using the camera and the microphone now (CEF's media-access report): the
    /// tab's recording mark.
    pub capturing: (bool, bool),
}

/// A count of things that happened to a tab, with the latest few kept: an action's answer
/// compares the count before and after it and names what came in between.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// How many so far.
    pub count: u64,
    /// The latest [`Tally::KEPT`], oldest first.
    pub latest: Vec<String>,
}

impl Tally {
    /// How many of the latest are kept.
    const KEPT: usize = 4;

    /// Counts `what` and keeps it among the latest.
    pub fn push(&mut self, what: String) {
        self.count += 1;
        self.latest.push(what);
        if self.latest.len() > Self::KEPT {
            self.latest.remove(0);
        }
    }
}

impl TabRec {
    /// The pending navigation has produced its document, or changed the URL in place.
    pub(super) fn nav_committed(&self) -> bool {
        self.document_at.is_some() || self.nav_from_url.as_ref().is_some_and(|u| *u != self.url)
    }
}

/// Facts about a tab that are ours rather than CEF's.
#[derive(Debug, Clone, Default)]
pub struct TabMeta {
    pub container: String,
    pub opened_by_agent: bool,
    pub human_driving: bool,
    /// `Network.enable` was sent (needed for the connected-address check).
    pub network_enabled: bool,
    /// The agent acted on this tab: the window marks it and offers Take over.
    pub agent_touched: bool,
    /// The agent read or acted on this tab at least once (it is attached to it).
    pub agent_attached: bool,
    /// The human typed (or picked in the omnibox) the address now loading: history counts
    /// typed visits higher.
    pub typed_nav: bool,
    /// A logged-out read's tab: its own in-memory request context, nobody's tab (never
    /// listed to the agent), and mirror hosts are refused on top of the navigation policy.
    pub throwaway: bool,
}

impl TabMeta {
    /// A private tab: in-memory storage, and nothing about it is recorded (history, session,
    /// closed tabs).
    pub fn private(&self) -> bool {
        self.container == crate::privacy::PRIVATE || self.throwaway
    }

    /// Every navigation of this tab passes the agent-navigation policy: the agent opened,
    /// acted on or read it, and the human has not taken it over. Human tabs the agent never
    /// touched browse freely.
    pub fn gated(&self) -> bool {
        (self.opened_by_agent || self.agent_touched || self.agent_attached) && !self.human_driving
    }
}

/// Why a gated tab's page must not reach the agent.
#[derive(Debug, Clone)]
pub struct RefusedPage {
    /// The URL that was refused: the mark stays until the tab shows another address.
    pub url: String,
    pub rule: String,
}

#[derive(Default)]
pub struct State {
    pub tabs: HashMap<TabId, TabRec>,
    /// Size, scale and metadata for the browser being created (read by `on_after_created`,
    /// which CEF runs inside `create_browser`).
    next_create: Option<((i32, i32), f32, TabMeta)>,
    /// Script requests waiting for their renderer's answer: the tab, when sent, the waiter.
    rpcs: HashMap<u64, (TabId, Instant, RpcWaiter)>,
    /// Liveness probes in flight (see `browser::hang`), by request id.
    pub(crate) probes: HashMap<u64, TabId>,
    devtools: HashMap<(TabId, i64), oneshot::Sender<Result<serde_json::Value, TabError>>>,
    pub closing: bool,
    /// Tab ids in creation order (for the UI's tab strip).
    pub order: Vec<TabId>,
    /// The tab in front: what the window shows, and what `browser_tabs` calls active.
    pub active: Option<TabId>,
    /// Events raised while the state was borrowed, delivered by the actor afterwards.
    pub(crate) events: Vec<super::Event>,
    /// Downloads of this run, oldest first.
    pub downloads: Vec<super::page::Download>,
    /// Permission answers the human gave, by (container, origin, what): asked again only
    /// after a restart.
    /// The human's permission answers: (container, origin, what was asked) → allowed.
    pub permission_memory: HashMap<(String, String, Vec<String>), bool>,
    /// One-line notices for the window ("Saved PDF to …", "Popup blocked").
    pub notices: Vec<String>,
    /// The notices that say something finished (a download, a saved page) and when each goes
    /// by itself, as Chrome's download bubble does: a notice that stayed until dismissed took
    /// the page's bottom for good.
    pub brief_notices: Vec<(String, std::time::Instant)>,
    /// Origins whose pages may open pop-ups without a click: the human's choice, from the
    /// settings (the contexts' pop-up content setting says the same to Chromium).
    pub popup_origins: std::collections::HashSet<String>,
    /// Bumped when the window should come to the front (`ChromeModel::raise`).
    pub raise: u64,
    /// Tabs a page opened → the tab that opened them, while the front tab has stayed among
    /// the two: closing such a tab in front returns to its opener, as Chrome does.
    openers: HashMap<TabId, TabId>,
    /// Popups CEF is creating for a page, oldest first, until their `on_after_created`.
    pub pending_popups: Vec<PendingPopup>,
}

/// A popup allowed in `on_popup` whose browser CEF has not created yet.
pub struct PendingPopup {
    pub opener: TabId,
    /// CEF's id for it within the opener.
    pub popup_id: i32,
    pub url: String,
    pub background: bool,
    pub size: (i32, i32),
    pub scale: f32,
    pub meta: TabMeta,
}

/// How long a notice that something finished stays up.
pub const BRIEF_NOTICE: std::time::Duration = std::time::Duration::from_secs(8);

impl State {
    /// Shows `text` as a notice that goes by itself after [`BRIEF_NOTICE`] (a download done, a
    /// page saved); the notices around it stay.
    pub fn notice_briefly(&mut self, text: String) {
        self.notices.push(text.clone());
        self.brief_notices
            .push((text, std::time::Instant::now() + BRIEF_NOTICE));
    }

    /// Takes down the brief notices whose time is up. Whether the window must be drawn again.
    pub fn expire_notice(&mut self) -> bool {
        // Asked on every turn of the browser's loop: nothing to do is the common case.
        if self.brief_notices.is_empty() {
            return false;
        }
        let now = std::time::Instant::now();
        let (notices, brief) = (&mut self.notices, &mut self.brief_notices);
        let mut changed = false;
        brief.retain(|(text, until)| {
            if *until > now {
                return true;
            }
            if let Some(i) = notices.iter().rposition(|n| n == text) {
                notices.remove(i);
                changed = true;
            }
            false
        });
        changed
    }

    /// The human closed the notices: all of them go, brief ones with their timers.
    pub fn dismiss_notices(&mut self) {
        self.notices.clear();
        self.brief_notices.clear();
    }

    pub fn prepare_create(&mut self, size: (i32, i32), scale: f32, meta: TabMeta) {
        self.next_create = Some((size, scale, meta));
    }

    pub fn browser_created(
        &mut self,
        id: TabId,
        browser: cef::Browser,
        host: cef::BrowserHost,
        reg: Option<cef::DevToolsRegistration>,
    ) {
        tracing::debug!(tab = id.0, "browser created");
        // Ours (made inside `create_browser`), or a popup CEF made for a page: the oldest
        // pending one of its opener (CEF names the opener even for a `noopener` popup; were it
        // not to, the oldest pending popup, so a gated tab's popup is never taken for the
        // human's).
        let popup = match self.next_create {
            Some(_) => None,
            None => {
                let opener = host.opener_id().map(super::tab_id);
                let at = self
                    .pending_popups
                    .iter()
                    .position(|p| Some(p.opener) == opener)
                    .or((!self.pending_popups.is_empty()).then_some(0));
                at.map(|at| self.pending_popups.remove(at))
            }
        };
        let (size, scale, meta) = self
            .next_create
            .take()
            .or_else(|| popup.as_ref().map(|p| (p.size, p.scale, p.meta.clone())))
            .unwrap_or(((1280, 800), 1.0, TabMeta::default()));
        // A logged-out read's tab is nobody's: outside the tab order, no window, tab list or
        // session shows it, and it is never the tab in front.
        if !meta.throwaway {
            self.order.push(id);
            if self.active.is_none() {
                self.active = Some(id);
            }
        }
        self.tabs.insert(
            id,
            TabRec {
                browser,
                host,
                _devtools_reg: reg,
                url: String::new(),
                title: String::new(),
                loading: true,
                can_back: false,
                can_forward: false,
                status: 0,
                size,
                scale,
                frame: None,
                frame_seq: 0,
                cursor: cef::Cursor::Default,
                nav_waiters: Vec::new(),
                paint_waiters: Vec::new(),
                console: Vec::new(),
                renderer_generation: 0,
                renderer_dead: None,
                hang: Default::default(),
                document_at: None,
                document_seq: 0,
                painted_document: 0,
                nav_from_url: None,
                document_status: None,
                rehosting: false,
                meta,
                refused_page: None,
                cert_warning: None,
                pinned: false,
                asks: Default::default(),
                pending_url: None,
                history: Default::default(),
                frames: None,
                input_frame: None,
                net: Default::default(),
                drag: None,
                pointer_at: None,
                status_text: String::new(),
                tooltip: String::new(),
                refusals: Tally::default(),
                notes: Tally::default(),
                lingering: false,
                audible_frames: Default::default(),
                new_tab_page: false,
                capturing: (false, false),
            },
        );
        if let Some(p) = popup {
            self.popup_opened(id, p.opener, p.url, p.background);
        }
    }

    /// Tab `id` was opened by the page of `opener` (a popup, a link to a new tab): it is
    /// placed next to its opener, remembered as opened by it, and announced.
    pub fn popup_opened(&mut self, id: TabId, opener: TabId, url: String, background: bool) {
        self.set_opener(id, opener);
        // Next to its opener, as browsers place them.
        if let Some(at) = self.order.iter().position(|t| *t == opener) {
            self.order.retain(|t| *t != id);
            self.order.insert(at + 1, id);
        }
        self.events.push(super::Event::TabOpened {
            id,
            opener,
            url,
            background,
        });
    }

    /// `opener` opened `id` (a link to a new tab, a popup, a middle-click).
    pub fn set_opener(&mut self, id: TabId, opener: TabId) {
        self.openers.insert(id, opener);
    }

    /// Brings a tab to the front. Moving to a tab other than an opened tab or its opener
    /// ends that pair's "close returns to the opener".
    pub fn activate(&mut self, id: TabId) {
        self.active = Some(id);
        self.openers.retain(|child, opener| *child == id || *opener == id);
    }

    /// Closes tab `id` as far as anyone can see when one of its downloads is still running,
    /// keeping its browser (and so the download) alive: it leaves the strip and the lists, the
    /// tab next to it comes to the front, whoever waited on it hears it closed. Returns false
    /// (nothing done) when no download of its is running: close its browser then.
    pub fn linger_for_downloads(&mut self, id: TabId) -> bool {
        if self.running_downloads(Some(id)) == 0 || !self.tabs.contains_key(&id) {
            return false;
        }
        self.take_out_of_order(id);
        if let Some(t) = self.tabs.get_mut(&id) {
            t.lingering = true;
            t.host.set_audio_muted(true);
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(TabError::Closed));
            }
        }
        self.fail_rpcs(id, || TabError::Closed);
        self.probes.retain(|_, t| *t != id);
        self.events.push(super::Event::Refresh);
        true
    }

    /// Tab `tab`'s browser, when the tab lingers for downloads and none of them runs any more:
    /// it can close now.
    pub fn done_lingering(&self, tab: TabId) -> Option<cef::BrowserHost> {
        let t = self.tabs.get(&tab).filter(|t| t.lingering)?;
        (self.running_downloads(Some(tab)) == 0).then(|| t.host.clone())
    }

    /// Downloads still running: of tab `of`, or of every tab.
    pub fn running_downloads(&self, of: Option<TabId>) -> usize {
        self.downloads
            .iter()
            .filter(|d| d.state == super::page::DownloadState::InProgress && of.is_none_or(|t| d.tab == t))
            .count()
    }

    /// Takes `id` out of the strip's order; the front tab moves as a closed tab's does.
    fn take_out_of_order(&mut self, id: TabId) {
        let at = self.order.iter().position(|x| *x == id);
        self.order.retain(|x| *x != id);
        let opener = self.openers.remove(&id).filter(|o| self.order.contains(o));
        self.openers.retain(|_, o| *o != id);
        if self.active == Some(id) {
            // Its opener, when the human has not moved elsewhere since it opened; else the
            // neighbour before it, else after it, as browsers do.
            self.active = opener.or_else(|| {
                at.and_then(|i| self.order.get(i.saturating_sub(1)).or(self.order.get(i)).copied())
            });
        }
    }

    /// Removes a closed browser; the caller drops the returned record outside the borrow.
    pub fn browser_closed(&mut self, id: TabId) -> Option<TabRec> {
        self.take_out_of_order(id);
        let mut rec = self.tabs.remove(&id)?;
        for w in rec.nav_waiters.drain(..) {
            let _ = w.send(Err(TabError::Closed));
        }
        self.fail_rpcs(id, || TabError::Closed);
        self.probes.retain(|_, t| *t != id);
        self.events.push(super::Event::Refresh);
        Some(rec)
    }

    pub(crate) fn fail_rpcs(&mut self, id: TabId, err: impl Fn() -> TabError) {
        let ids: Vec<u64> = self
            .rpcs
            .iter()
            .filter(|(_, (b, _, _))| *b == id)
            .map(|(k, _)| *k)
            .collect();
        for k in ids {
            if let Some((_, _, tx)) = self.rpcs.remove(&k) {
                let _ = tx.send(Err(err()));
            }
        }
        let keys: Vec<(TabId, i64)> = self.devtools.keys().filter(|(b, _)| *b == id).copied().collect();
        for k in keys {
            if let Some(tx) = self.devtools.remove(&k) {
                let _ = tx.send(Err(err()));
            }
        }
    }

    pub fn loading_state(&mut self, id: TabId, loading: bool, back: bool, fwd: bool) {
        tracing::debug!(tab = id.0, loading, "loading state");
        if let Some(t) = self.tabs.get_mut(&id) {
            t.loading = loading;
            // A restored tab's saved entries count too (Chromium knows nothing of them), so
            // the buttons do not flicker off until `history::refresh` reads the list again.
            t.can_back = back || t.history.can_back();
            t.can_forward = fwd || t.history.can_forward();
            // Same-document navigations (fragments, history.pushState) end here without a
            // load_end; answer whoever waits with what we know — but only once the pending
            // navigation has committed: the previous page's load ending (or being aborted by
            // this very navigation) must not answer for the new one.
            if !loading && t.nav_committed() {
                let outcome = LoadOutcome {
                    url: t.url.clone(),
                    status: t.status,
                    loading: false,
                };
                for w in t.nav_waiters.drain(..) {
                    let _ = w.send(Ok(outcome.clone()));
                }
            }
        }
        self.events.push(super::Event::Refresh);
    }

    pub fn document_available(&mut self, id: TabId) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.document_at = Some(Instant::now());
            t.document_seq += 1;
            t.net.new_document();
            t.renderer_dead = None;
            // A new document: its renderer is answering (and a probe sent to the one it
            // replaced may never be).
            t.hang = Default::default();
            self.probes.retain(|_, tab| *tab != id);
            // "Stop this page from opening more dialogs" lasts for one document.
            t.asks.dialogs_suppressed = false;
            t.asks.dialog_history.clear();
            // A stopped pop-up is offered for the page that tried it only.
            t.asks.blocked_popup = None;
        }
    }

    /// How far the tab's pending navigation has got (`None`: no such tab).
    pub fn nav_progress(&self, id: TabId) -> Option<NavProgress> {
        let t = self.tabs.get(&id)?;
        Some(match t.document_at {
            Some(at) => NavProgress::Document(at.elapsed()),
            None if t.nav_committed() => NavProgress::Committed,
            None => NavProgress::Pending,
        })
    }

    /// Answers the navigation waiters with the committed document as it is, still loading.
    /// Only after a commit: before one, the tab shows the previous page, which must never
    /// answer for the new one.
    pub fn release_loading(&mut self, id: TabId) {
        if let Some(t) = self.tabs.get_mut(&id)
            && t.nav_committed()
            && !t.nav_waiters.is_empty()
        {
            // The status comes with the load end; before it, the document response's.
            let status = match &t.document_status {
                Some((url, status)) if t.status == 0 && *url == t.url => *status,
                _ => t.status,
            };
            let outcome = LoadOutcome {
                url: t.url.clone(),
                status,
                loading: t.loading,
            };
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Ok(outcome.clone()));
            }
        }
    }

    pub fn load_end(&mut self, id: TabId, status: i32, url: String) {
        tracing::debug!(tab = id.0, status, url, "load end");
        if let Some(t) = self.tabs.get_mut(&id) {
            // A page that loaded ends the warning (Back to safety, a proceed, another address);
            // the warning's own page reports no status.
            if status > 0 {
                t.cert_warning = None;
            }
            t.status = status;
            t.url = url.clone();
            // A late load end of the previous document must not answer the pending navigation.
            if t.nav_committed() {
                let outcome = LoadOutcome {
                    url,
                    status,
                    loading: false,
                };
                for w in t.nav_waiters.drain(..) {
                    let _ = w.send(Ok(outcome.clone()));
                }
            }
        }
    }

    /// Fails the tab's navigation waiters with a policy refusal (the navigation did not
    /// happen, or is being undone), and tells the console.
    pub fn refuse_navigation(&mut self, id: TabId, rule: String) {
        self.refuse_subframe(id, rule.clone());
        if let Some(t) = self.tabs.get_mut(&id) {
            t.refusals.push(rule.clone());
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(TabError::Policy(rule.clone())));
            }
        }
    }

    /// Tells the console a subframe's navigation was refused; the page itself stays.
    pub fn refuse_subframe(&mut self, id: TabId, rule: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.console.push(ConsoleEntry {
                level: "error".into(),
                text: rule,
                source: t.url.clone(),
                line: 0,
            });
        }
    }

    /// Marks the page at `url` as refused (it arrived anyway: the connected address, or a
    /// path the navigation gate did not see) and fails the waiters.
    pub fn refuse_page(&mut self, id: TabId, url: String, rule: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.refused_page = Some(RefusedPage {
                url,
                rule: rule.clone(),
            });
        }
        self.refuse_navigation(id, rule);
    }

    pub fn load_error(&mut self, id: TabId, code: i32, text: String, url: String) {
        // ERR_ABORTED (-3) is a navigation superseded by another one: not an error to report.
        if code == -3 {
            return;
        }
        tracing::debug!(tab = id.0, code, url, "load error");
        if let Some(t) = self.tabs.get_mut(&id) {
            // net's certificate errors are -200 to -299 (ERR_CERT_*); the page shown is then
            // Chromium's warning, which can proceed.
            t.cert_warning = (-299..=-200).contains(&code).then_some(code);
            t.console.push(ConsoleEntry {
                level: "error".into(),
                text: format!("load failed: {text}"),
                source: url.clone(),
                line: 0,
            });
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(TabError::LoadFailed {
                    url: url.clone(),
                    code,
                    text: text.clone(),
                }));
            }
        }
    }

    pub fn view_size(&self, id: TabId) -> (i32, i32, f32) {
        match self.tabs.get(&id) {
            Some(t) => (t.size.0, t.size.1, t.scale),
            // A browser being made: ours, or a popup CEF is making (its opener's size).
            None => match (self.next_create.as_ref(), self.pending_popups.first()) {
                (Some((s, sc, _)), _) => (s.0, s.1, *sc),
                (None, Some(p)) => (p.size.0, p.size.1, p.scale),
                (None, None) => (1280, 800, 1.0),
            },
        }
    }

    pub fn paint(&mut self, id: TabId, f: Frame) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.frame_seq += 1;
            t.painted_document = t.document_seq;
            for w in t.paint_waiters.drain(..) {
                let _ = w.send(f.clone());
            }
            t.frame = Some(f);
        }
        self.events.push(super::Event::Refresh);
    }

    pub fn address(&mut self, id: TabId, url: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            if t.refused_page.as_ref().is_some_and(|r| r.url != url) {
                t.refused_page = None;
            }
            if t.url != url {
                self.events.push(super::Event::Address { id, url: url.clone() });
            }
            t.url = url;
        }
    }

    pub fn title(&mut self, id: TabId, title: String, url: Option<String>) {
        // A restored tab waiting to load shows a blank placeholder whose title is not the
        // page's: it keeps the saved one.
        if let Some(t) = self.tabs.get_mut(&id)
            && t.pending_url.is_none()
        {
            t.title = title.clone();
            self.events.push(super::Event::Title { id, title, url });
        }
        self.events.push(super::Event::Refresh);
    }

    pub fn console(&mut self, id: TabId, e: ConsoleEntry) {
        if let Some(t) = self.tabs.get_mut(&id) {
            // Bounded: a page logging in a loop must not grow us without limit.
            if t.console.len() >= 500 {
                t.console.remove(0);
            }
            t.console.push(e);
        }
    }

    pub fn cursor(&mut self, id: TabId, kind: cef::Cursor) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.cursor = kind;
        }
    }

    /// Tab `id`'s page was stopped from opening a pop-up at `url` without a click (by
    /// Chromium's blocker, or by `on_popup`): the window's bar offers it, and the agent reads
    /// it in the tab's console (its own clicks carry a gesture, so this is the page's doing).
    pub fn popup_stopped(&mut self, id: TabId, url: &str) {
        let Some(t) = self.tabs.get_mut(&id) else { return };
        let n = t.asks.blocked_popup.as_ref().map_or(0, |(_, n)| *n);
        t.console.push(ConsoleEntry {
            level: "warning".into(),
            text: format!("a pop-up opened without a click was stopped: {url}"),
            source: t.url.clone(),
            line: 0,
        });
        t.asks.blocked_popup = Some((url.to_string(), n + 1));
        self.events.push(super::Event::Refresh);
    }

    /// What frame `frame`'s script told of as it happened (see `ClientHandler::on_page_event`).
    pub fn page_event(&mut self, id: TabId, frame: String, body: &str) {
        let Some(t) = self.tabs.get_mut(&id) else { return };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
            return;
        };
        // The human clicked one of the page's notifications on the desktop: its tab comes to
        // the front, and the window with it, as Firefox does (Chromium leaves it to the page's
        // `window.focus()`, which a windowless browser never hears).
        if v["ev"] == "notification-click" {
            self.active = Some(id);
            self.raise += 1;
            self.events.push(super::Event::Refresh);
            return;
        }
        if v["ev"] == "popup-blocked" {
            self.popup_stopped(id, v["url"].as_str().unwrap_or("about:blank"));
            return;
        }
        let was = t.audible_frames.is_empty();
        match v["ev"].as_str() {
            Some("media") if v["audible"] == true => {
                t.audible_frames.insert(frame);
            }
            Some("media" | "gone") => {
                t.audible_frames.remove(&frame);
            }
            _ => return,
        }
        // Only a change of the tab's mark is worth a redraw.
        if was != t.audible_frames.is_empty() {
            self.events.push(super::Event::Refresh);
        }
    }

    pub fn renderer_gone(&mut self, id: TabId, why: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.hang = Default::default();
            t.renderer_generation += 1;
            t.renderer_dead = Some(why.clone());
            t.net.renderer_gone();
            // A dead renderer sounds no more (its frames cannot say so themselves).
            t.audible_frames.clear();
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(TabError::RendererGone(why.clone())));
            }
            // A dead renderer paints nothing: whoever waits for a frame learns why now.
            t.paint_waiters.clear();
        }
        self.fail_rpcs(id, || TabError::RendererGone(why.clone()));
    }

    pub fn add_rpc(&mut self, id: u64, tab: TabId, tx: oneshot::Sender<Result<String, TabError>>) {
        self.rpcs.insert(id, (tab, Instant::now(), tx));
    }

    pub fn drop_rpc(&mut self, id: u64) {
        self.rpcs.remove(&id);
    }

    pub fn rpc_reply(&mut self, id: u64, r: Result<String, String>) {
        if let Some(tab) = self.probes.remove(&id) {
            super::hang::answered(self, tab);
        } else if let Some((_, _, tx)) = self.rpcs.remove(&id) {
            let _ = tx.send(r.map_err(TabError::Renderer));
        }
    }

    /// When the oldest script request still waiting on each tab's renderer was sent.
    pub fn oldest_rpcs(&self) -> HashMap<TabId, Instant> {
        let mut out: HashMap<TabId, Instant> = HashMap::new();
        for (t, at, _) in self.rpcs.values() {
            out.entry(*t).and_modify(|o| *o = (*o).min(*at)).or_insert(*at);
        }
        out
    }

    pub fn add_devtools(
        &mut self,
        tab: TabId,
        mid: i64,
        tx: oneshot::Sender<Result<serde_json::Value, TabError>>,
    ) {
        self.devtools.insert((tab, mid), tx);
    }

    pub fn devtools_reply(&mut self, tab: TabId, mid: i64, r: Result<serde_json::Value, String>) {
        if let Some(tx) = self.devtools.remove(&(tab, mid)) {
            let _ = tx.send(r.map_err(TabError::DevTools));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::State;
    use std::time::{Duration, Instant};

    #[test]
    fn brief_notices_go_by_themselves_and_the_others_stay() {
        let mut st = State::default();
        let past = |st: &mut State| {
            for b in &mut st.brief_notices {
                b.1 = Instant::now() - Duration::from_millis(1);
            }
        };
        st.notice_briefly("Downloaded /tmp/a.zip".into());
        assert!(!st.expire_notice(), "not before its time");
        assert_eq!(st.notices.len(), 1);
        // Two downloads done in a row: both go.
        st.notice_briefly("Downloaded /tmp/b.zip".into());
        past(&mut st);
        assert!(st.expire_notice());
        assert!(st.notices.is_empty(), "{:?}", st.notices);
        // A failure after a brief one stays when the brief one goes.
        st.notice_briefly("Saved the page to /tmp/p.html".into());
        st.notices.push("Cannot print: no printer".into());
        past(&mut st);
        assert!(st.expire_notice());
        assert_eq!(st.notices, ["Cannot print: no printer"]);
        // Dismissed, its timer goes too: a later failure is not taken down by it.
        st.dismiss_notices();
        st.notice_briefly("Downloaded /tmp/c.zip".into());
        st.dismiss_notices();
        st.notices.push("Cannot print: no printer".into());
        past(&mut st);
        assert!(!st.expire_notice());
        assert_eq!(st.notices, ["Cannot print: no printer"]);
    }
}
