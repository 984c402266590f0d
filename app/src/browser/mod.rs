//! The browser actor: the only owner of tab state. It lives on CEF's UI thread (our main
//! thread), applies CEF's events as they arrive (see `handler.rs`), and runs jobs that other
//! threads send through a [`Handle`]. The window (same thread) uses the [`Actor`] directly; the
//! agent side (tokio) holds a `Handle` and awaits answers.
//!
//! Borrowing rule: `Actor::with` borrows the state briefly and never across a CEF call that
//! can re-enter a callback (creating or closing a browser, navigating). Work that must not run
//! inside a CEF callback (navigation from a DevTools observer) is queued with
//! [`Actor::defer`] and runs after the callback returns.

pub mod frames;
mod handler;
pub mod hang;
pub(crate) use handler::popup_origin;
pub mod history;
pub mod netwatch;
pub mod page;
pub mod pointer;
pub mod state;

use crate::tab::{TabError, TabOptions};
use aperture_mcp::backend::TabId;
use aperture_privacy::NavigationPolicy;
use state::State;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Work for the UI thread.
pub type Job = Box<dyn FnOnce(&Actor) + Send>;

/// What the actor tells its observers (the window, on the UI thread).
#[derive(Debug, Clone)]
pub enum Event {
    /// Something a window shows changed (a paint, a title, a tab closed); observers re-read
    /// what they need.
    Refresh,
    /// A page opened a tab (a popup or a link to a new window) next to `opener`; in the
    /// background when the human asked for that (middle-click, Ctrl+click).
    TabOpened {
        id: TabId,
        opener: TabId,
        url: String,
        background: bool,
    },
    /// A tab's main frame shows a new address (a committed navigation, or a same-document
    /// one such as `history.pushState`).
    Address { id: TabId, url: String },
    /// A tab's page has a new title; `url` is the address of the document that set it, as
    /// Chromium had committed it then (the address event may come after).
    Title {
        id: TabId,
        title: String,
        url: Option<String>,
    },
    /// A tab's page declared its icons (best first; empty when it declares none).
    Favicon { id: TabId, urls: Vec<String> },
    /// Text was selected in a tab's page (what X11's PRIMARY selection should hold while that
    /// tab is shown), or the selection was cleared (empty text).
    Selection { id: TabId, text: String },
    /// A key-down reached a tab's page and the page did not take it (no `preventDefault`, no
    /// editing command): the window's shortcuts that pages may override run on this.
    KeyNotTaken { id: TabId, key: cef::KeyEvent },
}

/// CEF's browser ids become tab ids here and nowhere else.
pub fn tab_id(b: cef::BrowserId) -> TabId {
    TabId(b as u64)
}

/// The job queue and CEF's requested wake-up time, shared by the actor's loop, every
/// [`Handle`] and CEF's browser-process handler (which may call from any thread).
pub struct Pump {
    tx: Mutex<Sender<Job>>,
    due: Mutex<Option<Instant>>,
    initialized: Mutex<bool>,
    /// Called when a job is queued, so a windowed event loop wakes up.
    waker: Mutex<Option<Box<dyn Fn() + Send>>>,
}

impl Pump {
    /// A new pump and the receiver the UI thread's loop drains.
    pub fn new() -> (Arc<Pump>, Receiver<Job>) {
        let (tx, rx) = std::sync::mpsc::channel();
        let p = Pump {
            tx: Mutex::new(tx),
            due: Mutex::new(None),
            initialized: Mutex::new(false),
            waker: Mutex::new(None),
        };
        (Arc::new(p), rx)
    }

    fn post(&self, job: Job) {
        let _ = self.tx.lock().expect("pump").send(job);
        if let Some(w) = self.waker.lock().expect("pump").as_ref() {
            w();
        }
    }

    pub fn set_waker(&self, w: Box<dyn Fn() + Send>) {
        *self.waker.lock().expect("pump") = Some(w);
    }

    pub fn is_initialized(&self) -> bool {
        *self.initialized.lock().expect("pump")
    }

    /// How long the loop may sleep before CEF wants work done (capped so work CEF did not
    /// announce still happens, as cefclient's external pump does).
    pub fn next_timeout(&self, cap: Duration) -> Duration {
        match *self.due.lock().expect("pump") {
            Some(at) => at.saturating_duration_since(Instant::now()).min(cap),
            None => cap,
        }
    }

    /// Runs CEF's work if it is due (or `force`). UI thread only.
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
            cef::do_message_loop_work();
        }
        due
    }
}

impl cef::ProcessHandler for Pump {
    fn on_context_initialized(&self) {
        *self.initialized.lock().expect("pump") = true;
    }
    fn on_schedule_message_pump_work(&self, delay_ms: i64) {
        let at = Instant::now() + Duration::from_millis(delay_ms.max(0) as u64);
        {
            let mut d = self.due.lock().expect("pump");
            if d.is_none_or(|cur| at < cur) {
                *d = Some(at);
            }
        }
        // Wake the loop if it is sleeping.
        self.post(Box::new(|_| {}));
    }
}

/// Services the actor consults on CEF's behalf.
pub struct Services {
    /// The agent-navigation policy, for redirects and connected addresses of agent navigations.
    pub nav_policy: NavigationPolicy,
    /// How page requests (dialogs, permissions, downloads) are answered.
    pub page: page::PagePolicy,
}

/// A UI-thread observer of [`Event`]s.
pub type Listener = Box<dyn Fn(&Actor, &Event)>;
type SharedListener = Rc<dyn Fn(&Actor, &Event)>;
/// Work queued from inside a CEF callback.
type Deferred = Box<dyn FnOnce(&Actor)>;

pub(crate) struct Inner {
    state: RefCell<State>,
    client: std::cell::OnceCell<cef::Client>,
    services: Services,
    pump: Arc<Pump>,
    next_id: Cell<u64>,
    listeners: RefCell<Vec<SharedListener>>,
    /// Work queued from inside CEF callbacks, run once the callback has returned.
    deferred: RefCell<Vec<Deferred>>,
}

/// The browser actor. Not `Send`: it exists on the UI thread only. Cloning shares it.
#[derive(Clone)]
pub struct Actor {
    inner: Rc<Inner>,
}

impl Actor {
    /// Builds the actor and its CEF client (UI thread, after `cef::initialize`).
    pub fn new(pump: Arc<Pump>, services: Services, filter: Option<Arc<dyn cef::ResourceFilter>>) -> Actor {
        let a = Actor {
            inner: Rc::new(Inner {
                state: RefCell::new(State::default()),
                client: std::cell::OnceCell::new(),
                services,
                pump,
                next_id: Cell::new(1),
                listeners: RefCell::new(Vec::new()),
                deferred: RefCell::new(Vec::new()),
            }),
        };
        let client = cef::Client::new(Rc::new(handler::Handler(a.clone())), filter);
        let _ = a.inner.client.set(client);
        a
    }

    /// A `Send` handle for other threads.
    pub fn handle(&self) -> Handle {
        Handle {
            pump: self.inner.pump.clone(),
        }
    }

    pub fn pump(&self) -> &Arc<Pump> {
        &self.inner.pump
    }

    pub fn services(&self) -> &Services {
        &self.inner.services
    }

    /// Runs `f` with the state. Panics if called re-entrantly, which is a bug.
    pub fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.inner.state.borrow_mut())
    }

    /// A fresh id for a renderer or DevTools round trip.
    pub fn next_id(&self) -> u64 {
        let n = self.inner.next_id.get();
        self.inner.next_id.set(n + 1);
        n
    }

    pub fn browser(&self, id: TabId) -> Option<cef::Browser> {
        self.with(|st| {
            st.tabs
                .get(&id)
                .filter(|t| !t.lingering)
                .map(|t| t.browser.clone())
        })
    }

    /// The PDF tab `id` shows, as Chromium received it, if it was copied whole on its way to
    /// the viewer (`cef::Documents`).
    pub fn captured_pdf(&self, id: TabId) -> Option<cef::Captured> {
        let (browser, url) = self.with(|st| st.tabs.get(&id).map(|t| (t.browser.id(), t.url.clone())))?;
        self.inner.client.get()?.documents().get(browser, &url)
    }

    /// The tab's browser host; none for a tab closed but lingering for its downloads, which
    /// nobody may drive any more.
    pub fn host(&self, id: TabId) -> Option<cef::BrowserHost> {
        self.with(|st| st.tabs.get(&id).filter(|t| !t.lingering).map(|t| t.host.clone()))
    }

    /// Observes events on the UI thread.
    pub fn subscribe(&self, l: Listener) {
        self.inner.listeners.borrow_mut().push(Rc::from(l));
    }

    /// Queues work for after the current CEF callback.
    pub fn defer(&self, f: impl FnOnce(&Actor) + 'static) {
        self.inner.deferred.borrow_mut().push(Box::new(f));
    }

    /// Runs deferred work and delivers pending events. The loop calls this after every job
    /// and every `do_message_loop_work`, outside any CEF callback and any state borrow.
    pub fn settle(&self) {
        loop {
            let deferred = std::mem::take(&mut *self.inner.deferred.borrow_mut());
            let events = self.with(|st| std::mem::take(&mut st.events));
            if deferred.is_empty() && events.is_empty() {
                return;
            }
            for f in deferred {
                f(self);
            }
            let listeners: Vec<_> = self.inner.listeners.borrow().clone();
            for ev in &events {
                for l in &listeners {
                    l(self, ev);
                }
            }
        }
    }

    /// Runs the jobs waiting in `rx`, then settles.
    pub fn run_jobs(&self, rx: &Receiver<Job>) {
        while let Ok(job) = rx.try_recv() {
            job(self);
            self.settle();
        }
    }

    /// Creates a browser (without waiting for its load) and returns its tab id.
    pub fn create_browser(&self, url: &str, opts: TabOptions) -> Result<TabId, TabError> {
        let url = crate::tab::parse_url(url)?.to_string();
        self.with(|st| st.prepare_create(opts.size, opts.scale, opts.meta.clone()));
        let client = self.inner.client.get().expect("client");
        // on_after_created runs inside this call and registers the tab.
        let b = cef::create_browser(&url, client, opts.context.as_ref())
            .ok_or_else(|| TabError::Create("CEF returned no browser".into()))?;
        Ok(tab_id(b.id()))
    }

    /// Starts closing every browser; the loop ends once all are gone.
    pub fn begin_shutdown(&self) {
        let hosts: Vec<cef::BrowserHost> = self.with(|st| {
            st.closing = true;
            st.tabs.values().map(|t| t.host.clone()).collect()
        });
        for h in hosts {
            h.close(true);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.with(|st| st.tabs.is_empty())
    }
}

/// The actor's address, for any thread. Cheap to clone.
#[derive(Clone)]
pub struct Handle {
    pump: Arc<Pump>,
}

impl Handle {
    /// Runs `f` on the UI thread with the actor and returns its result.
    pub async fn on_ui<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Actor) -> R + Send + 'static,
    ) -> Result<R, TabError> {
        let (tx, rx) = oneshot::channel();
        self.pump.post(Box::new(move |a| {
            let _ = tx.send(f(a));
        }));
        rx.await.map_err(|_| TabError::ShuttingDown)
    }
}
