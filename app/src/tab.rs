//! The `Tab` seam: an async handle, callable from tokio, for everything the rest of the code
//! does to a page. Each method posts a job to the UI thread and awaits its answer with a
//! timeout, so a hung page or a dead renderer is an error, never a hang.

use crate::browser::state::{ConsoleEntry, Frame, LoadOutcome, TabMeta};
use crate::browser::{Actor, Handle};
use crate::keys;
use aperture_engine::envelope::Untrusted;
use aperture_engine::protocol::{
    self, ElementOp, ElementReply, InputCounts, InputKind, Request, TextReply, WalkerError,
};
use aperture_engine::record::Walk;
use aperture_mcp::backend::TabId;
use std::time::Duration;
use tokio::sync::oneshot;

/// How long a navigation may take before the caller gets an error (the load goes on).
pub const NAV_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a navigation waits for subresources once its document is usable.
pub const SUBRESOURCE_GRACE: Duration = Duration::from_secs(4);
/// How long one renderer round trip may take. CEF 131 can lose process messages after a
/// frame swap (cef#4001), so a missing answer must become an error.
pub const RPC_TIMEOUT: Duration = Duration::from_secs(15);
/// How long input may take to reach the page's handlers before observing goes ahead anyway
/// (input over a cross-process iframe, or suppressed by the page, is never counted).
/// An unmeasured bound chosen to be well above a busy page's input latency.
pub const INPUT_BARRIER: Duration = Duration::from_millis(500);
/// How long input waits for a new document's first paint (unmeasured; a paint normally
/// follows within a frame or two of the document becoming available).
pub const FIRST_PAINT_WAIT: Duration = Duration::from_secs(2);

/// Errors a tab operation reports. Each says what happened in words a user can act on.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TabError {
    #[error("no tab {}", .0.0)]
    NoSuchTab(TabId),
    #[error("the tab was closed")]
    Closed,
    #[error("the browser is shutting down")]
    ShuttingDown,
    // The URL and a script's exception message are the page's choice and this text reaches
    // the agent as harness speech, so they are fenced (aperture_engine::envelope::Untrusted).
    #[error("could not load the page: {text} (net error {code}); the address was:{}", Untrusted(.url))]
    LoadFailed { url: String, code: i32, text: String },
    #[error("{what} did not finish within {secs} s")]
    Timeout { what: &'static str, secs: u64 },
    #[error("the page's renderer crashed or was killed ({0}); reload the tab")]
    RendererGone(String),
    #[error("renderer error; it said:{}", Untrusted(.0))]
    Renderer(String),
    /// The walker answered, and its answer is a refusal or a failure (see
    /// `aperture_engine::protocol`).
    #[error("{0}")]
    Walker(WalkerError),
    #[error("DevTools error: {0}")]
    DevTools(String),
    #[error("invalid URL ({why}); it was:{}", Untrusted(.url))]
    BadUrl { url: String, why: String },
    #[error("could not create the browser: {0}")]
    Create(String),
    #[error("{0}")]
    Policy(String),
    #[error("{0}")]
    Other(String),
}

async fn wait<T>(
    rx: oneshot::Receiver<Result<T, TabError>>,
    timeout: Duration,
    what: &'static str,
) -> Result<T, TabError> {
    match tokio::time::timeout(timeout, rx).await {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err(TabError::Closed),
        Err(_) => Err(TabError::Timeout {
            what,
            secs: timeout.as_secs(),
        }),
    }
}

/// Waits for a navigation: its load end, or its document plus [`SUBRESOURCE_GRACE`].
async fn wait_nav(
    t: &Tab,
    mut rx: oneshot::Receiver<Result<LoadOutcome, TabError>>,
    what: &'static str,
) -> Result<LoadOutcome, TabError> {
    let start = std::time::Instant::now();
    loop {
        match tokio::time::timeout(Duration::from_millis(250), &mut rx).await {
            Ok(Ok(r)) => return r,
            Ok(Err(_)) => return Err(TabError::Closed),
            Err(_) if start.elapsed() >= NAV_TIMEOUT => {
                return Err(TabError::Timeout {
                    what,
                    secs: NAV_TIMEOUT.as_secs(),
                });
            }
            Err(_) => {
                let id = t.id;
                t.h.on_ui(move |a| a.with(|st| st.release_slow_loads(id, SUBRESOURCE_GRACE)))
                    .await?;
            }
        }
    }
}

fn host_of(a: &Actor, id: TabId) -> Result<cef::BrowserHost, TabError> {
    a.host(id).ok_or(TabError::NoSuchTab(id))
}

fn browser_of(a: &Actor, id: TabId) -> Result<cef::Browser, TabError> {
    a.browser(id).ok_or(TabError::NoSuchTab(id))
}

/// Options for a new tab.
#[derive(Clone)]
pub struct TabOptions {
    pub size: (i32, i32),
    pub scale: f32,
    pub meta: TabMeta,
    /// Request context to create the browser in (a container); `None` = the global one.
    pub context: Option<cef::RequestContext>,
}

impl Default for TabOptions {
    fn default() -> Self {
        TabOptions {
            size: (1280, 800),
            scale: 1.0,
            meta: TabMeta::default(),
            context: None,
        }
    }
}

/// Checks a URL is one a browser can load, with a specific complaint when it is not.
pub fn parse_url(url: &str) -> Result<url::Url, TabError> {
    let u = url::Url::parse(url).map_err(|e| TabError::BadUrl {
        url: url.to_string(),
        why: e.to_string(),
    })?;
    if u.cannot_be_a_base() && u.scheme() != "about" && u.scheme() != "data" {
        return Err(TabError::BadUrl {
            url: url.into(),
            why: "not a hierarchical URL".into(),
        });
    }
    Ok(u)
}

/// A handle to one tab. Cheap to clone; all methods are async and `Send`.
#[derive(Clone)]
pub struct Tab {
    pub id: TabId,
    h: Handle,
}

impl Tab {
    pub fn new(h: &Handle, id: TabId) -> Tab {
        Tab { id, h: h.clone() }
    }
}

/// Opens a new tab at `url` and waits for its first load to end.
pub async fn open(h: &Handle, url: &str, opts: TabOptions) -> Result<(Tab, LoadOutcome), TabError> {
    let url = parse_url(url)?.to_string();
    let (ntx, nrx) = oneshot::channel();
    let id = h
        .on_ui(move |a| -> Result<TabId, TabError> {
            let id = a.create_browser(&url, opts)?;
            a.with(|st| match st.tabs.get_mut(&id) {
                Some(t) => t.nav_waiters.push(ntx),
                None => {
                    let _ = ntx.send(Err(TabError::Create("browser was not registered".into())));
                }
            });
            Ok(id)
        })
        .await??;
    let t = Tab::new(h, id);
    let outcome = wait_nav(&t, nrx, "the first page load").await?;
    Ok((t, outcome))
}

/// The tabs that exist now, in creation order.
pub async fn list(h: &Handle) -> Result<Vec<TabInfo>, TabError> {
    h.on_ui(|a| {
        a.with(|st| {
            st.order
                .iter()
                .filter_map(|id| st.tabs.get(id).map(|t| (id, t)))
                .map(|(id, t)| TabInfo {
                    id: *id,
                    url: t.url.clone(),
                    title: t.title.clone(),
                    loading: t.loading,
                    active: st.active == Some(*id),
                    meta: t.meta.clone(),
                })
                .collect()
        })
    })
    .await
}

/// A tab as listed.
#[derive(Debug, Clone)]
pub struct TabInfo {
    pub id: TabId,
    pub url: String,
    pub title: String,
    pub loading: bool,
    /// The tab in front (one notion of "active", kept by the actor).
    pub active: bool,
    pub meta: TabMeta,
}

/// Mouse buttons for [`Tab::click_at`].
pub use cef::MouseButton as Button;

/// Navigation verbs.
#[derive(Debug, Clone)]
pub enum Nav {
    Goto(String),
    Back,
    Forward,
    Reload,
}

impl Tab {
    /// Runs `f` on the UI thread with the actor.
    async fn ui<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Actor) -> R + Send + 'static,
    ) -> Result<R, TabError> {
        self.h.on_ui(f).await
    }

    /// Navigates and resolves when the main frame's load ends, with the HTTP status.
    pub async fn navigate(&self, url: &str) -> Result<LoadOutcome, TabError> {
        self.nav(Nav::Goto(url.to_string())).await
    }

    pub async fn nav(&self, nav: Nav) -> Result<LoadOutcome, TabError> {
        let id = self.id;
        let url = match &nav {
            Nav::Goto(u) => Some(parse_url(u)?.to_string()),
            _ => None,
        };
        let (tx, rx) = oneshot::channel();
        self.ui(move |a| -> Result<(), TabError> {
            let b = browser_of(a, id)?;
            let possible = match nav {
                Nav::Back => b.can_go_back(),
                Nav::Forward => b.can_go_forward(),
                _ => true,
            };
            if !possible {
                return Err(TabError::Other(format!(
                    "there is no page to go {}",
                    if matches!(nav, Nav::Back) {
                        "back to"
                    } else {
                        "forward to"
                    }
                )));
            }
            a.with(|st| {
                if let Some(t) = st.tabs.get_mut(&id) {
                    // What we know about the previous document no longer applies.
                    t.nav_waiters.push(tx);
                    t.document_at = None;
                    t.nav_from_url = Some(t.url.clone());
                    t.status = 0;
                }
            });
            match nav {
                Nav::Goto(_) => {
                    let f = b.main_frame().ok_or(TabError::NoSuchTab(id))?;
                    f.load_url(url.as_deref().unwrap_or_default());
                }
                Nav::Back => b.go_back(),
                Nav::Forward => b.go_forward(),
                Nav::Reload => b.reload(),
            }
            Ok(())
        })
        .await??;
        wait_nav(self, rx, "the page load").await
    }

    /// Sends one request to the walker in the main frame's V8 context and returns its JSON.
    pub async fn rpc(&self, request: String) -> Result<String, TabError> {
        self.rpc_within(request, RPC_TIMEOUT).await
    }

    async fn rpc_within(&self, request: String, timeout: Duration) -> Result<String, TabError> {
        let id = self.id;
        let (tx, rx) = oneshot::channel();
        let rid = self
            .ui(move |a| -> Result<u64, TabError> {
                if let Some(why) = dead_renderer(a, id) {
                    return Err(TabError::RendererGone(why));
                }
                let f = browser_of(a, id)?.main_frame().ok_or(TabError::NoSuchTab(id))?;
                let rid = a.next_id();
                a.with(|st| st.add_rpc(rid, id, tx));
                f.send_script_request(rid, &request);
                Ok(rid)
            })
            .await??;
        let r = wait(rx, timeout, "the renderer").await;
        if r.is_err() {
            let _ = self.ui(move |a| a.with(|st| st.drop_rpc(rid))).await;
        }
        r
    }
    /// Sends a walker request and reads its typed answer.
    async fn ask<T: serde::de::DeserializeOwned>(&self, req: &Request) -> Result<T, TabError> {
        let json = self.rpc(req.to_json()).await?;
        protocol::parse_reply(&json).map_err(TabError::Walker)
    }

    /// Idempotent requests are retried once after a lost message (the CEF 131 race).
    async fn ask_retrying<T: serde::de::DeserializeOwned>(&self, req: &Request) -> Result<T, TabError> {
        match self.ask(req).await {
            Err(TabError::Timeout { .. }) => self.ask(req).await,
            r => r,
        }
    }

    /// Walks the page in the render process.
    pub async fn walk(&self) -> Result<Walk, TabError> {
        self.ask_retrying(&Request::Walk { cap: None }).await
    }

    /// An element operation on the latest walk's element `idx`.
    pub async fn element(&self, walk_id: u64, idx: u32, op: ElementOp) -> Result<ElementReply, TabError> {
        self.ask(&Request::element(walk_id, idx, op)).await
    }

    /// The OS process id of the renderer serving this tab.
    pub async fn renderer_pid(&self) -> Result<u32, TabError> {
        self.ask::<protocol::Pid>(&Request::Pid).await.map(|p| p.0)
    }

    /// The page's visible text (innerText), capped.
    pub async fn page_text(&self, cap: usize) -> Result<(String, bool), TabError> {
        let r: TextReply = self.ask_retrying(&Request::Text { cap: Some(cap) }).await?;
        Ok((r.text, r.truncated))
    }

    /// Calls a DevTools protocol method (no remote-debugging port involved).
    pub async fn devtools(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, TabError> {
        let id = self.id;
        let (method, params) = (method.to_string(), params);
        let (tx, rx) = oneshot::channel();
        self.ui(move |a| -> Result<(), TabError> {
            let h = host_of(a, id)?;
            let mid = a.next_id() as i64;
            let msg = serde_json::json!({"id": mid, "method": method, "params": params}).to_string();
            a.with(|st| st.add_devtools(id, mid, tx));
            if !h.send_devtools_message(&msg) {
                a.with(|st| st.devtools_reply(id, mid, Err("the DevTools message was not accepted".into())));
            }
            Ok(())
        })
        .await??;
        wait(rx, RPC_TIMEOUT, "the DevTools call").await
    }

    /// The next painted frame (forces a repaint).
    pub async fn frame(&self) -> Result<Frame, TabError> {
        let id = self.id;
        let (tx, rx) = oneshot::channel();
        self.ui(move |a| -> Result<(), TabError> {
            if let Some(why) = dead_renderer(a, id) {
                return Err(TabError::RendererGone(why));
            }
            let h = host_of(a, id)?;
            a.with(|st| st.tabs.get_mut(&id).map(|t| t.paint_waiters.push(tx)));
            h.invalidate();
            Ok(())
        })
        .await??;
        match tokio::time::timeout(RPC_TIMEOUT, rx).await {
            Ok(Ok(f)) => Ok(f),
            // The waiter was dropped: the renderer died meanwhile, or the tab closed.
            Ok(Err(_)) => Err(self
                .ui(move |a| dead_renderer(a, id))
                .await
                .ok()
                .flatten()
                .map_or(TabError::Closed, TabError::RendererGone)),
            Err(_) => Err(TabError::Timeout {
                what: "a repaint",
                secs: RPC_TIMEOUT.as_secs(),
            }),
        }
    }

    /// A PNG screenshot of the view, optionally scaled so its long edge is at most `max_edge`.
    pub async fn screenshot(&self, max_edge: Option<u32>) -> Result<(Vec<u8>, u32, u32), TabError> {
        let f = self.frame().await?;
        tokio::task::spawn_blocking(move || crate::imaging::png(&f, max_edge))
            .await
            .map_err(|e| TabError::Other(e.to_string()))?
    }

    /// Sends input and returns once the page has dispatched its last event, so an observation
    /// that follows sees the page's reaction. Native input and renderer messages travel on
    /// different channels with no ordering between them; a repaint is no proof either, since
    /// one may already be pending. The walker counts trusted events per type, and the last
    /// event of `kind` arriving means every earlier one has been handled (a renderer handles
    /// input in order, and a handler's synchronous work finishes within its task).
    async fn input_landed(
        &self,
        kind: InputKind,
        n: u64,
        send: impl Future<Output = Result<(), TabError>>,
    ) -> Result<(), TabError> {
        self.input_landed_counts(kind, n, send).await.map(|_| ())
    }

    /// [`Tab::input_landed`], answering the page's counts before the input and at the end of
    /// the wait when the last event was *not* seen (`None` when it was, or cannot be known).
    async fn input_landed_counts(
        &self,
        kind: InputKind,
        n: u64,
        send: impl Future<Output = Result<(), TabError>>,
    ) -> Result<Option<(InputCounts, InputCounts)>, TabError> {
        self.until_painted().await;
        let start = std::time::Instant::now();
        let before = self.input_counts(INPUT_BARRIER).await;
        send.await?;
        let Some(before) = before else {
            return Ok(None); // No script context (loading, or not a page): nothing to wait on.
        };
        let mut last = before;
        while let Some(left) = INPUT_BARRIER.checked_sub(start.elapsed()) {
            match self.input_counts(left).await {
                Some(c) if c.get(kind) >= before.get(kind) + n => return Ok(None),
                Some(c) => {
                    last = c;
                    tokio::time::sleep(Duration::from_millis(3)).await
                }
                // The document went away (the input navigated): nothing left to wait for.
                None => return Ok(None),
            }
        }
        tracing::debug!(
            tab = self.id.0,
            kind = kind.event_type(),
            "input not seen by the page within the barrier"
        );
        Ok(Some((before, last)))
    }

    /// Every trusted-input count of the page's main window, if it can say.
    async fn input_counts(&self, within: Duration) -> Option<InputCounts> {
        let json = self.rpc_within(Request::Inputs.to_json(), within).await.ok()?;
        protocol::parse_reply::<InputCounts>(&json).ok()
    }

    /// Waits (bounded) until the current document has painted once: Chromium can drop input
    /// that reaches a document before its first frame, which loses a click sent right after a
    /// navigation answered.
    async fn until_painted(&self) {
        let id = self.id;
        let start = std::time::Instant::now();
        while start.elapsed() < FIRST_PAINT_WAIT {
            let painted = self
                .ui(move |a| a.with(|st| st.tabs.get(&id).map(|t| t.painted_document >= t.document_seq)))
                .await;
            if !matches!(painted, Ok(Some(false))) {
                return;
            }
            let _ = tokio::time::timeout(Duration::from_millis(100), self.frame()).await;
        }
        tracing::debug!(tab = id.0, "input sent to a document that has not painted yet");
    }

    /// Runs `f` with the tab's host on the UI thread (input goes through here).
    async fn with_host(&self, f: impl FnOnce(&cef::BrowserHost) + Send + 'static) -> Result<(), TabError> {
        let id = self.id;
        self.ui(move |a| -> Result<(), TabError> {
            f(&host_of(a, id)?);
            Ok(())
        })
        .await?
    }

    /// Moves the mouse (a trusted `mousemove`).
    pub async fn move_to(&self, x: f32, y: f32) -> Result<(), TabError> {
        let send = self.with_host(move |h| h.send_mouse_move(&at(x, y), false));
        self.input_landed(InputKind::MouseMove, 1, send).await
    }

    /// A trusted click: move, press, release.
    pub async fn click_at(&self, x: f32, y: f32, button: Button, count: i32) -> Result<(), TabError> {
        let clicks = count.max(1) as u64;
        for attempt in 0..2 {
            let send = self.with_host(move |h| {
                let e = at(x, y);
                h.set_focus(true);
                h.send_mouse_move(&e, false);
                for n in 1..=count.max(1) {
                    h.send_mouse_click(&e, button, false, n);
                    h.send_mouse_click(&e, button, true, n);
                }
            });
            let Some((before, after)) = self.input_landed_counts(InputKind::MouseUp, clicks, send).await?
            else {
                return Ok(());
            };
            // Chromium sometimes drops the input of an off-screen view whole (no press and no
            // release reached the page). Nothing happened, so sending it again cannot double
            // it; a press without its release is a different story, reported, not repeated.
            let pressed = after.mousedown > before.mousedown;
            let released = after.mouseup > before.mouseup;
            if !pressed && !released && attempt == 0 {
                tracing::info!(
                    tab = self.id.0,
                    "the page saw none of the click: sending it again"
                );
                continue;
            }
            return Err(TabError::Other(if pressed {
                "the page saw the mouse press but not its release".into()
            } else {
                "the page saw none of the click, twice".into()
            }));
        }
        Ok(())
    }

    /// Wheel scroll at a point.
    pub async fn scroll(&self, x: f32, y: f32, dx: i32, dy: i32) -> Result<(), TabError> {
        let send = self.with_host(move |h| {
            let e = at(x, y);
            h.send_mouse_move(&e, false);
            h.send_mouse_wheel(&e, dx, dy);
        });
        self.input_landed(InputKind::Wheel, 1, send).await
    }

    /// A key chord such as `Enter`, `Tab`, `Control+a`, `Shift+ArrowLeft`.
    pub async fn key(&self, chord: &str) -> Result<(), TabError> {
        let events = keys::chord(chord).map_err(TabError::Other)?;
        self.send_keys(events).await
    }

    /// Sends key events to the focused view and waits until the page has handled the last.
    async fn send_keys(&self, events: Vec<cef::KeyEvent>) -> Result<(), TabError> {
        self.focus_view().await?;
        // A key press ends in keyup; a character without a key is a lone CHAR (keypress).
        let last = events.last().map(|e| e.kind);
        let (kind, t) = if last == Some(cef::KeyEventKind::Char) {
            (InputKind::KeyPress, cef::KeyEventKind::Char)
        } else {
            (InputKind::KeyUp, cef::KeyEventKind::KeyUp)
        };
        let n = events.iter().filter(|e| e.kind == t).count() as u64;
        let send = self.with_host(move |h| {
            for e in &events {
                h.send_key(e);
            }
        });
        self.input_landed(kind, n, send).await
    }

    /// Gives the view keyboard focus before key events. Focus reaches the renderer on its own
    /// channel and a new document's widget can start unfocused; keys sent before it lands are
    /// dropped, so let it land first (a settle, not a measured wait).
    async fn focus_view(&self) -> Result<(), TabError> {
        self.with_host(|h| h.set_focus(true)).await?;
        tokio::time::sleep(Duration::from_millis(30)).await;
        Ok(())
    }

    /// Types text as trusted key events into whatever has focus.
    pub async fn type_text(&self, text: &str) -> Result<(), TabError> {
        let events = keys::text(text);
        self.send_keys(events).await
    }

    /// Console messages and failed loads since the last call.
    pub async fn drain_console(&self) -> Result<Vec<ConsoleEntry>, TabError> {
        let id = self.id;
        self.ui(move |a| a.with(|st| st.tabs.get_mut(&id).map(|t| std::mem::take(&mut t.console))))
            .await?
            .ok_or(TabError::NoSuchTab(id))
    }

    /// Closes the tab and waits until CEF has destroyed it.
    pub async fn close(&self) -> Result<(), TabError> {
        let id = self.id;
        self.ui(move |a| -> Result<(), TabError> {
            host_of(a, id)?.close(true);
            Ok(())
        })
        .await??;
        for _ in 0..200 {
            let gone = self.ui(move |a| a.with(|st| !st.tabs.contains_key(&id))).await?;
            if gone {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Err(TabError::Timeout {
            what: "closing the tab",
            secs: 2,
        })
    }
}

/// A mouse event at a point of the view.
fn at(x: f32, y: f32) -> cef::MouseEvent {
    cef::MouseEvent {
        x: x as i32,
        y: y as i32,
        modifiers: cef::EventFlags::NONE,
    }
}

/// Why the tab's renderer is dead, if it is (and no new document has replaced it).
fn dead_renderer(a: &crate::browser::Actor, id: TabId) -> Option<String> {
    a.with(|st| st.tabs.get(&id).and_then(|t| t.renderer_dead.clone()))
}
