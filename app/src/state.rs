//! Browser-process state, owned by CEF's UI thread (our main thread), and the message pump.
//!
//! Other threads never touch this state: they send jobs ([`Job`]) that the main loop runs
//! between `cef_do_message_loop_work` calls. A job or callback borrows the state only briefly
//! and never across a CEF call that may re-enter a callback.

use crate::cef::{Ref, sys::*};
use crate::tab::TabError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Work for the UI thread.
pub type Job = Box<dyn FnOnce() + Send>;

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

/// What a finished navigation reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LoadOutcome {
    pub url: String,
    pub status: i32,
}

type NavWaiter = oneshot::Sender<Result<LoadOutcome, TabError>>;

/// Per-browser record.
pub struct TabRec {
    pub browser: Ref<cef_browser_t>,
    pub host: Ref<cef_browser_host_t>,
    _devtools_reg: Option<Ref<cef_registration_t>>,
    pub url: String,
    pub title: String,
    pub loading: bool,
    pub can_back: bool,
    pub can_forward: bool,
    pub status: i32,
    pub size: (i32, i32),
    pub scale: f32,
    pub frame: Option<Frame>,
    pub frame_seq: u64,
    pub cursor: i32,
    pub nav_waiters: Vec<NavWaiter>,
    pub paint_waiters: Vec<oneshot::Sender<Frame>>,
    pub console: Vec<ConsoleEntry>,
    pub renderer_generation: u64,
    /// When the current main document became scriptable (before its subresources finished).
    pub document_at: Option<Instant>,
    /// The URL the tab showed when the pending navigation started (for same-document ones).
    pub nav_from_url: Option<String>,
    /// Counts main-frame documents (reloads included, same-document navigations not).
    pub document_seq: u64,
    /// The `document_seq` current at the last paint: input sent to a document that has not
    /// painted yet can be dropped by Chromium, so input waits for this to catch up.
    pub painted_document: u64,
    pub meta: TabMeta,
}

impl TabRec {
    /// The pending navigation has produced its document, or changed the URL in place.
    fn nav_committed(&self) -> bool {
        self.document_at.is_some() || self.nav_from_url.as_ref().is_some_and(|u| *u != self.url)
    }
}

/// Facts about a tab that are ours rather than CEF's.
#[derive(Debug, Clone, Default)]
pub struct TabMeta {
    pub container: String,
    pub opened_by_agent: bool,
    pub human_driving: bool,
    /// The current navigation was started by the agent: redirects and the connected address
    /// are held to the agent-navigation policy.
    pub agent_nav: bool,
    /// The next main-document response still has to have its remote address checked.
    pub doc_check_pending: bool,
    /// `Network.enable` was sent (needed for the connected-address check).
    pub network_enabled: bool,
}

#[derive(Default)]
pub struct State {
    pub tabs: HashMap<i32, TabRec>,
    /// Sizes and metadata decided before `on_after_created` fires.
    pending_create: HashMap<i32, ((i32, i32), f32, TabMeta)>,
    next_create: Option<((i32, i32), f32, TabMeta)>,
    rpcs: HashMap<u64, (i32, oneshot::Sender<Result<String, TabError>>)>,
    devtools: HashMap<(i32, i64), oneshot::Sender<Result<serde_json::Value, TabError>>>,
    pub closing: bool,
    /// Tab ids in creation order (for the UI's tab strip).
    pub order: Vec<i32>,
    pub listeners: Vec<Listener>,
}

/// A UI-thread observer of [`Event`]s.
pub type Listener = Box<dyn Fn(&Event)>;

/// Notifications for the UI.
pub enum Event {
    /// Something a window shows changed (a paint, a title, a tab closed); the listener
    /// re-reads what it needs. Posted as a job, so it also wakes a sleeping event loop.
    Refresh,
    Popup {
        opener: i32,
        url: String,
    },
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Runs `f` with the UI-thread state. Panics if called re-entrantly, which is a bug.
pub fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

fn notify(ev: Event) {
    // Listeners are called without the state borrowed (they may read it).
    let listeners = with(|st| std::mem::take(&mut st.listeners));
    for l in &listeners {
        l(&ev);
    }
    with(|st| {
        let mut added = std::mem::take(&mut st.listeners);
        st.listeners = listeners;
        st.listeners.append(&mut added);
    });
}

impl State {
    pub fn prepare_create(&mut self, size: (i32, i32), scale: f32, meta: TabMeta) {
        self.next_create = Some((size, scale, meta));
    }

    pub fn browser_created(
        &mut self,
        id: i32,
        browser: Ref<cef_browser_t>,
        host: Ref<cef_browser_host_t>,
        reg: Option<Ref<cef_registration_t>>,
    ) {
        tracing::debug!(tab = id, "browser created");
        let (size, scale, meta) = self
            .pending_create
            .remove(&id)
            .or_else(|| self.next_create.take())
            .unwrap_or(((1280, 800), 1.0, TabMeta::default()));
        self.order.push(id);
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
                cursor: 0,
                nav_waiters: Vec::new(),
                paint_waiters: Vec::new(),
                console: Vec::new(),
                renderer_generation: 0,
                document_at: None,
                document_seq: 0,
                painted_document: 0,
                nav_from_url: None,
                meta,
            },
        );
    }

    /// Removes a closed browser; the caller drops the returned record outside the borrow.
    pub fn browser_closed(&mut self, id: i32) -> Option<TabRec> {
        self.order.retain(|x| *x != id);
        let mut rec = self.tabs.remove(&id)?;
        for w in rec.nav_waiters.drain(..) {
            let _ = w.send(Err(TabError::Closed));
        }
        self.fail_rpcs(id, || TabError::Closed);
        post(Box::new(move || notify(Event::Refresh)));
        Some(rec)
    }

    fn fail_rpcs(&mut self, id: i32, err: impl Fn() -> TabError) {
        let ids: Vec<u64> = self
            .rpcs
            .iter()
            .filter(|(_, (b, _))| *b == id)
            .map(|(k, _)| *k)
            .collect();
        for k in ids {
            if let Some((_, tx)) = self.rpcs.remove(&k) {
                let _ = tx.send(Err(err()));
            }
        }
        let keys: Vec<(i32, i64)> = self.devtools.keys().filter(|(b, _)| *b == id).copied().collect();
        for k in keys {
            if let Some(tx) = self.devtools.remove(&k) {
                let _ = tx.send(Err(err()));
            }
        }
    }

    pub fn loading_state(&mut self, id: i32, loading: bool, back: bool, fwd: bool) {
        tracing::debug!(tab = id, loading, "loading state");
        if let Some(t) = self.tabs.get_mut(&id) {
            t.loading = loading;
            t.can_back = back;
            t.can_forward = fwd;
            // Same-document navigations (fragments, history.pushState) end here without a
            // load_end; answer whoever waits with what we know — but only once the pending
            // navigation has committed: the previous page's load ending (or being aborted by
            // this very navigation) must not answer for the new one.
            if !loading && t.nav_committed() {
                let outcome = LoadOutcome {
                    url: t.url.clone(),
                    status: t.status,
                };
                for w in t.nav_waiters.drain(..) {
                    let _ = w.send(Ok(outcome.clone()));
                }
            }
        }
        post(Box::new(move || notify(Event::Refresh)));
    }

    pub fn document_available(&mut self, id: i32) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.document_at = Some(Instant::now());
            t.document_seq += 1;
        }
    }

    /// Answers navigation waiters whose document has been usable for `grace` while its
    /// subresources still load (a page whose tracker or CDN never answers is still a page).
    pub fn release_slow_loads(&mut self, id: i32, grace: Duration) {
        if let Some(t) = self.tabs.get_mut(&id)
            && t.document_at.is_some_and(|at| at.elapsed() >= grace)
            && !t.nav_waiters.is_empty()
        {
            let outcome = LoadOutcome {
                url: t.url.clone(),
                status: t.status,
            };
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Ok(outcome.clone()));
            }
        }
    }

    pub fn load_end(&mut self, id: i32, status: i32, url: String) {
        tracing::debug!(tab = id, status, url, "load end");
        if let Some(t) = self.tabs.get_mut(&id) {
            t.status = status;
            t.url = url.clone();
            // A late load end of the previous document must not answer the pending navigation.
            if t.nav_committed() {
                let outcome = LoadOutcome { url, status };
                for w in t.nav_waiters.drain(..) {
                    let _ = w.send(Ok(outcome.clone()));
                }
            }
        }
    }

    /// Fails the tab's navigation waiters with a policy refusal.
    pub fn refuse_navigation(&mut self, id: i32, rule: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.meta.doc_check_pending = false;
            t.console.push(ConsoleEntry {
                level: "error".into(),
                text: rule.clone(),
                source: t.url.clone(),
                line: 0,
            });
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(TabError::Policy(rule.clone())));
            }
        }
    }

    pub fn load_error(&mut self, id: i32, code: i32, text: String, url: String) {
        // ERR_ABORTED (-3) is a navigation superseded by another one: not an error to report.
        if code == -3 {
            return;
        }
        if let Some(t) = self.tabs.get_mut(&id) {
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

    pub fn view_size(&self, id: i32) -> (i32, i32, f32) {
        match self.tabs.get(&id) {
            Some(t) => (t.size.0, t.size.1, t.scale),
            None => match self.pending_create.get(&id).or(self.next_create.as_ref()) {
                Some((s, sc, _)) => (s.0, s.1, *sc),
                None => (1280, 800, 1.0),
            },
        }
    }

    pub fn paint(&mut self, id: i32, f: Frame) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.frame_seq += 1;
            t.painted_document = t.document_seq;
            for w in t.paint_waiters.drain(..) {
                let _ = w.send(f.clone());
            }
            t.frame = Some(f);
        }
        post(Box::new(move || notify(Event::Refresh)));
    }

    pub fn address(&mut self, id: i32, url: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.url = url;
        }
    }

    pub fn title(&mut self, id: i32, title: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.title = title;
        }
        post(Box::new(move || notify(Event::Refresh)));
    }

    pub fn console(&mut self, id: i32, e: ConsoleEntry) {
        if let Some(t) = self.tabs.get_mut(&id) {
            // Bounded: a page logging in a loop must not grow us without limit.
            if t.console.len() >= 500 {
                t.console.remove(0);
            }
            t.console.push(e);
        }
    }

    pub fn cursor(&mut self, id: i32, kind: i32) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.cursor = kind;
        }
    }

    pub fn renderer_gone(&mut self, id: i32, why: String) {
        if let Some(t) = self.tabs.get_mut(&id) {
            t.renderer_generation += 1;
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(TabError::RendererGone(why.clone())));
            }
        }
        self.fail_rpcs(id, || TabError::RendererGone(why.clone()));
    }

    pub fn add_rpc(&mut self, id: u64, tab: i32, tx: oneshot::Sender<Result<String, TabError>>) {
        self.rpcs.insert(id, (tab, tx));
    }

    pub fn drop_rpc(&mut self, id: u64) {
        self.rpcs.remove(&id);
    }

    pub fn rpc_reply(&mut self, id: u64, r: Result<String, String>) {
        if let Some((_, tx)) = self.rpcs.remove(&id) {
            let _ = tx.send(r.map_err(TabError::Renderer));
        }
    }

    pub fn add_devtools(
        &mut self,
        tab: i32,
        mid: i64,
        tx: oneshot::Sender<Result<serde_json::Value, TabError>>,
    ) {
        self.devtools.insert((tab, mid), tx);
    }

    pub fn devtools_reply(&mut self, tab: i32, mid: i64, r: Result<serde_json::Value, String>) {
        if let Some(tx) = self.devtools.remove(&(tab, mid)) {
            let _ = tx.send(r.map_err(TabError::DevTools));
        }
    }
}

/// Popups open as tabs, but only after the CEF callback that announced them has returned.
pub fn post_popup(opener: i32, url: String) {
    post(Box::new(move || notify(Event::Popup { opener, url })));
}

// ---------------------------------------------------------------------------------------------
// The pump: a job queue plus CEF's requested wake-up time.

pub struct Pump {
    tx: Mutex<Sender<Job>>,
    rx: Mutex<Option<Receiver<Job>>>,
    due: Mutex<Option<Instant>>,
    initialized: (Mutex<bool>, std::sync::Condvar),
    /// Called when a job is queued, so a headed event loop can wake up (winit proxy).
    waker: Mutex<Option<Box<dyn Fn() + Send>>>,
}

static PUMP: OnceLock<Pump> = OnceLock::new();

pub fn pump() -> &'static Pump {
    PUMP.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        Pump {
            tx: Mutex::new(tx),
            rx: Mutex::new(Some(rx)),
            due: Mutex::new(None),
            initialized: (Mutex::new(false), std::sync::Condvar::new()),
            waker: Mutex::new(None),
        }
    })
}

/// Queues a job for the UI thread.
pub fn post(job: Job) {
    pump().post(job);
}

impl Pump {
    pub fn post(&self, job: Job) {
        let _ = self.tx.lock().expect("pump").send(job);
        if let Some(w) = self.waker.lock().expect("pump").as_ref() {
            w();
        }
    }

    pub fn set_waker(&self, w: Box<dyn Fn() + Send>) {
        *self.waker.lock().expect("pump") = Some(w);
    }

    pub fn schedule(&self, delay_ms: i64) {
        let at = Instant::now() + Duration::from_millis(delay_ms.max(0) as u64);
        {
            let mut d = self.due.lock().expect("pump");
            if d.is_none_or(|cur| at < cur) {
                *d = Some(at);
            }
        }
        // Wake the loop if it is sleeping.
        self.post(Box::new(|| {}));
    }

    pub fn context_initialized(&self) {
        *self.initialized.0.lock().expect("pump") = true;
        self.initialized.1.notify_all();
    }

    pub fn is_initialized(&self) -> bool {
        *self.initialized.0.lock().expect("pump")
    }

    /// Takes the job receiver (the main loop owns it).
    pub fn take_receiver(&self) -> Receiver<Job> {
        self.rx
            .lock()
            .expect("pump")
            .take()
            .expect("receiver taken twice")
    }

    /// How long the main loop may sleep before CEF wants work done (capped so we also notice
    /// work CEF did not announce).
    pub fn next_timeout(&self, cap: Duration) -> Duration {
        match *self.due.lock().expect("pump") {
            Some(at) => at.saturating_duration_since(Instant::now()).min(cap),
            None => cap,
        }
    }

    /// Runs CEF's work if it is due (or `force`). Returns true if it ran.
    pub fn work(&self, force: bool) -> bool {
        let due = {
            let mut d = self.due.lock().expect("pump");
            let is_due = d.is_some_and(|at| at <= Instant::now());
            if is_due || force {
                *d = None;
            }
            is_due || force
        };
        if due {
            // SAFETY: called on the main (UI) thread, after cef_initialize.
            unsafe { (crate::cef::api().cef_do_message_loop_work)() };
        }
        due
    }
}
