//! The `Tab` seam: an async handle, callable from tokio, for everything the rest of the code
//! does to a page. Each method posts a job to the UI thread and awaits its answer with a
//! timeout, so a hung page or a dead renderer is an error, never a hang.

use crate::cef::{CefStr, Ref, sys::*};
use crate::keys;
use crate::state::{self, ConsoleEntry, Frame, LoadOutcome, TabMeta};
use aperture_engine::record::Walk;
use std::sync::atomic::{AtomicU64, Ordering};
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
    #[error("no tab {0}")]
    NoSuchTab(i32),
    #[error("the tab was closed")]
    Closed,
    #[error("the browser is shutting down")]
    ShuttingDown,
    #[error("could not load {url}: {text} (net error {code})")]
    LoadFailed { url: String, code: i32, text: String },
    #[error("{what} did not finish within {secs} s")]
    Timeout { what: &'static str, secs: u64 },
    #[error("the page's renderer crashed or was killed ({0}); reload the tab")]
    RendererGone(String),
    #[error("renderer error: {0}")]
    Renderer(String),
    #[error("DevTools error: {0}")]
    DevTools(String),
    #[error("invalid URL {url:?}: {why}")]
    BadUrl { url: String, why: String },
    #[error("could not create the browser: {0}")]
    Create(String),
    #[error("{0}")]
    Policy(String),
    #[error("{0}")]
    Other(String),
}

/// Runs `f` on the UI thread and returns its result.
pub async fn on_ui<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Result<R, TabError> {
    let (tx, rx) = oneshot::channel();
    state::post(Box::new(move || {
        let _ = tx.send(f());
    }));
    rx.await.map_err(|_| TabError::ShuttingDown)
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
    id: i32,
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
                on_ui(move || state::with(|st| st.release_slow_loads(id, SUBRESOURCE_GRACE))).await?;
            }
        }
    }
}

fn host_of(id: i32) -> Result<Ref<cef_browser_host_t>, TabError> {
    state::with(|st| st.tabs.get(&id).map(|t| t.host.clone())).ok_or(TabError::NoSuchTab(id))
}

fn browser_of(id: i32) -> Result<Ref<cef_browser_t>, TabError> {
    state::with(|st| st.tabs.get(&id).map(|t| t.browser.clone())).ok_or(TabError::NoSuchTab(id))
}

/// Options for a new tab.
#[derive(Clone)]
pub struct TabOptions {
    pub size: (i32, i32),
    pub scale: f32,
    pub meta: TabMeta,
    /// Request context to create the browser in (a container); `None` = the global one.
    pub context: Option<Ref<cef_request_context_t>>,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tab {
    pub id: i32,
}

static NEXT_RPC: AtomicU64 = AtomicU64::new(1);
static NEXT_DEVTOOLS: AtomicU64 = AtomicU64::new(1);

/// Creates a browser (UI thread only) and returns its id without waiting for the load.
pub fn create_browser(url: &str, opts: TabOptions) -> Result<i32, TabError> {
    let url = parse_url(url)?.to_string();
    let mut wi: cef_window_info_t = unsafe { std::mem::zeroed() };
    wi.windowless_rendering_enabled = 1;
    let mut bs: cef_browser_settings_t = unsafe { std::mem::zeroed() };
    bs.size = std::mem::size_of::<cef_browser_settings_t>();
    bs.windowless_frame_rate = 30;
    bs.background_color = 0xFFFF_FFFF;
    state::with(|st| st.prepare_create(opts.size, opts.scale, opts.meta.clone()));
    let u = CefStr::new(&url);
    let ctx = opts.context.map(|c| c.into_cef()).unwrap_or(std::ptr::null_mut());
    // SAFETY: all pointers are valid for the call; client and context references are
    // transferred to CEF as the C API expects.
    let b = unsafe {
        (crate::cef::api().cef_browser_host_create_browser_sync)(
            &wi,
            crate::handlers::client(),
            u.as_ptr(),
            &bs,
            std::ptr::null_mut(),
            ctx,
        )
    };
    let b = Ref::adopt(b).ok_or_else(|| TabError::Create("CEF returned no browser".into()))?;
    Ok(crate::call!(b.get_identifier()))
}

/// Opens a new tab at `url` and waits for its first load to end.
pub async fn open(url: &str, opts: TabOptions) -> Result<(Tab, LoadOutcome), TabError> {
    let url = parse_url(url)?.to_string();
    let (ntx, nrx) = oneshot::channel();
    let id = on_ui(move || -> Result<i32, TabError> {
        let id = create_browser(&url, opts)?;
        state::with(|st| match st.tabs.get_mut(&id) {
            Some(t) => t.nav_waiters.push(ntx),
            None => {
                // on_after_created has not run yet; it will pick the options up.
                let _ = ntx.send(Err(TabError::Create("browser was not registered".into())));
            }
        });
        Ok(id)
    })
    .await??;
    let outcome = wait_nav(id, nrx, "the first page load").await?;
    Ok((Tab { id }, outcome))
}

/// The tabs that exist now, in creation order.
pub async fn list() -> Result<Vec<TabInfo>, TabError> {
    on_ui(|| {
        state::with(|st| {
            st.order
                .iter()
                .filter_map(|id| st.tabs.get(id).map(|t| (id, t)))
                .map(|(id, t)| TabInfo {
                    id: *id,
                    url: t.url.clone(),
                    title: t.title.clone(),
                    loading: t.loading,
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
    pub id: i32,
    pub url: String,
    pub title: String,
    pub loading: bool,
    pub meta: TabMeta,
}

/// Mouse buttons for [`Tab::click_at`].
#[derive(Debug, Clone, Copy)]
pub enum Button {
    Left,
    Middle,
    Right,
}

/// Navigation verbs.
#[derive(Debug, Clone)]
pub enum Nav {
    Goto(String),
    Back,
    Forward,
    Reload,
}

impl Tab {
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
        on_ui(move || -> Result<(), TabError> {
            let b = browser_of(id)?;
            let possible = match nav {
                Nav::Back => crate::call!(b.can_go_back()) != 0,
                Nav::Forward => crate::call!(b.can_go_forward()) != 0,
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
            state::with(|st| {
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
                    let f = Ref::adopt(crate::call!(b.get_main_frame())).ok_or(TabError::NoSuchTab(id))?;
                    let u = CefStr::new(url.as_deref().unwrap_or_default());
                    crate::call!(f.load_url(u.as_ptr()));
                }
                Nav::Back => crate::call!(b.go_back()),
                Nav::Forward => crate::call!(b.go_forward()),
                Nav::Reload => crate::call!(b.reload()),
            }
            Ok(())
        })
        .await??;
        wait_nav(id, rx, "the page load").await
    }

    /// Sends one request to the walker in the main frame's V8 context and returns its JSON.
    pub async fn rpc(&self, request: String) -> Result<String, TabError> {
        self.rpc_within(request, RPC_TIMEOUT).await
    }

    async fn rpc_within(&self, request: String, timeout: Duration) -> Result<String, TabError> {
        let id = self.id;
        let rid = NEXT_RPC.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        on_ui(move || -> Result<(), TabError> {
            let b = browser_of(id)?;
            let f = Ref::adopt(crate::call!(b.get_main_frame())).ok_or(TabError::NoSuchTab(id))?;
            state::with(|st| st.add_rpc(rid, id, tx));
            crate::renderer::send_request(&f, rid, &request);
            Ok(())
        })
        .await??;
        let r = wait(rx, timeout, "the renderer").await;
        if r.is_err() {
            let _ = on_ui(move || state::with(|st| st.drop_rpc(rid))).await;
        }
        r
    }

    /// Walks the page in the render process.
    pub async fn walk(&self) -> Result<Walk, TabError> {
        let json = self.rpc_retrying(r#"{"op":"walk"}"#).await?;
        // The walker answers failures as a small object whose first key is "error".
        if json.starts_with("{\"error\"") {
            return Err(TabError::Renderer(format!("walk failed: {json}")));
        }
        Walk::from_json(&json).map_err(|e| TabError::Renderer(format!("bad walk record: {e}")))
    }

    /// Idempotent requests are retried once after a lost message (the CEF 131 race).
    async fn rpc_retrying(&self, req: &str) -> Result<String, TabError> {
        match self.rpc(req.to_string()).await {
            Err(TabError::Timeout { .. }) => self.rpc(req.to_string()).await,
            r => r,
        }
    }

    /// An element operation on the latest walk's element `idx` (see walker.js).
    pub async fn element(
        &self,
        walk_id: u64,
        idx: u32,
        op: serde_json::Value,
    ) -> Result<serde_json::Value, TabError> {
        let mut req = serde_json::json!({"op": "el", "walk_id": walk_id, "idx": idx});
        if let (Some(r), Some(o)) = (req.as_object_mut(), op.as_object()) {
            for (k, v) in o {
                r.insert(k.clone(), v.clone());
            }
        }
        let json = self.rpc(req.to_string()).await?;
        let v: serde_json::Value =
            serde_json::from_str(&json).map_err(|e| TabError::Renderer(format!("bad reply: {e}")))?;
        if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
            let detail = v.get("detail").and_then(|d| d.as_str()).unwrap_or("");
            return Err(TabError::Renderer(if detail.is_empty() {
                e.to_string()
            } else {
                format!("{e}: {detail}")
            }));
        }
        Ok(v)
    }

    /// The OS process id of the renderer serving this tab.
    pub async fn renderer_pid(&self) -> Result<u32, TabError> {
        let s = self.rpc(crate::renderer::PID_REQUEST.to_string()).await?;
        s.parse()
            .map_err(|_| TabError::Renderer(format!("bad pid {s:?}")))
    }

    /// The page's visible text (innerText), capped.
    pub async fn page_text(&self, cap: usize) -> Result<(String, bool), TabError> {
        let json = self
            .rpc_retrying(&serde_json::json!({"op": "text", "cap": cap}).to_string())
            .await?;
        let v: serde_json::Value =
            serde_json::from_str(&json).map_err(|e| TabError::Renderer(format!("bad reply: {e}")))?;
        Ok((
            v.get("text")
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_string(),
            v.get("truncated").and_then(|t| t.as_bool()).unwrap_or(false),
        ))
    }

    /// Calls a DevTools protocol method (no remote-debugging port involved).
    pub async fn devtools(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, TabError> {
        let id = self.id;
        let mid = NEXT_DEVTOOLS.fetch_add(1, Ordering::Relaxed) as i64;
        let msg = serde_json::json!({"id": mid, "method": method, "params": params}).to_string();
        let (tx, rx) = oneshot::channel();
        on_ui(move || -> Result<(), TabError> {
            let h = host_of(id)?;
            state::with(|st| st.add_devtools(id, mid, tx));
            let ok = crate::call!(h.send_dev_tools_message(msg.as_ptr() as *const _, msg.len()));
            if ok == 0 {
                state::with(|st| {
                    st.devtools_reply(id, mid, Err("the DevTools message was not accepted".into()))
                });
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
        on_ui(move || -> Result<(), TabError> {
            let h = host_of(id)?;
            state::with(|st| st.tabs.get_mut(&id).map(|t| t.paint_waiters.push(tx)));
            crate::call!(h.invalidate(cef_paint_element_type_t::PET_VIEW));
            Ok(())
        })
        .await??;
        match tokio::time::timeout(RPC_TIMEOUT, rx).await {
            Ok(Ok(f)) => Ok(f),
            Ok(Err(_)) => Err(TabError::Closed),
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

    /// How many trusted events of `kind` the page's main window has handled, if it can say.
    async fn input_count(&self, kind: &str, within: Duration) -> Option<u64> {
        let json = self.rpc_within(r#"{"op":"inputs"}"#.into(), within).await.ok()?;
        let v: serde_json::Value = serde_json::from_str(&json).ok()?;
        v.get(kind)?.as_u64()
    }

    /// Sends input and returns once the page has dispatched its last event, so an observation
    /// that follows sees the page's reaction. Native input and renderer messages travel on
    /// different channels with no ordering between them; a repaint is no proof either, since
    /// one may already be pending. The walker counts trusted events per type, and the last
    /// event of `kind` arriving means every earlier one has been handled (a renderer handles
    /// input in order, and a handler's synchronous work finishes within its task).
    async fn input_landed(
        &self,
        kind: &str,
        n: u64,
        send: impl Future<Output = Result<(), TabError>>,
    ) -> Result<(), TabError> {
        self.until_painted().await;
        let start = std::time::Instant::now();
        let before = self.input_count(kind, INPUT_BARRIER).await;
        send.await?;
        let Some(before) = before else {
            return Ok(()); // No script context (loading, or not a page): nothing to wait on.
        };
        while let Some(left) = INPUT_BARRIER.checked_sub(start.elapsed()) {
            match self.input_count(kind, left).await {
                Some(c) if c >= before + n => return Ok(()),
                Some(_) => tokio::time::sleep(Duration::from_millis(3)).await,
                // The document went away (the input navigated): nothing left to wait for.
                None => return Ok(()),
            }
        }
        tracing::debug!(
            tab = self.id,
            kind,
            "input not seen by the page within the barrier"
        );
        Ok(())
    }

    /// Waits (bounded) until the current document has painted once: Chromium can drop input
    /// that reaches a document before its first frame, which loses a click sent right after a
    /// navigation answered.
    async fn until_painted(&self) {
        let id = self.id;
        let start = std::time::Instant::now();
        while start.elapsed() < FIRST_PAINT_WAIT {
            let painted = on_ui(move || {
                state::with(|st| st.tabs.get(&id).map(|t| t.painted_document >= t.document_seq))
            })
            .await;
            if !matches!(painted, Ok(Some(false))) {
                return;
            }
            let _ = tokio::time::timeout(Duration::from_millis(100), self.frame()).await;
        }
        tracing::debug!(tab = id, "input sent to a document that has not painted yet");
    }

    fn mouse(
        &self,
        f: impl FnOnce(&Ref<cef_browser_host_t>) + Send + 'static,
    ) -> impl Future<Output = Result<(), TabError>> {
        let id = self.id;
        async move {
            on_ui(move || -> Result<(), TabError> {
                let h = host_of(id)?;
                f(&h);
                Ok(())
            })
            .await?
        }
    }

    /// Moves the mouse (a trusted `mousemove`).
    pub async fn move_to(&self, x: f32, y: f32) -> Result<(), TabError> {
        let send = self.mouse(move |h| {
            let e = cef_mouse_event_t {
                x: x as i32,
                y: y as i32,
                modifiers: 0,
            };
            crate::call!(h.send_mouse_move_event(&e, 0));
        });
        self.input_landed("mousemove", 1, send).await
    }

    /// A trusted click: move, press, release.
    pub async fn click_at(&self, x: f32, y: f32, button: Button, count: i32) -> Result<(), TabError> {
        let send = self.mouse(move |h| {
            let e = cef_mouse_event_t {
                x: x as i32,
                y: y as i32,
                modifiers: 0,
            };
            let b = match button {
                Button::Left => cef_mouse_button_type_t::MBT_LEFT,
                Button::Middle => cef_mouse_button_type_t::MBT_MIDDLE,
                Button::Right => cef_mouse_button_type_t::MBT_RIGHT,
            };
            crate::call!(h.set_focus(1));
            crate::call!(h.send_mouse_move_event(&e, 0));
            for n in 1..=count.max(1) {
                crate::call!(h.send_mouse_click_event(&e, b, 0, n));
                crate::call!(h.send_mouse_click_event(&e, b, 1, n));
            }
        });
        self.input_landed("mouseup", count.max(1) as u64, send).await
    }

    /// Wheel scroll at a point.
    pub async fn scroll(&self, x: f32, y: f32, dx: i32, dy: i32) -> Result<(), TabError> {
        let send = self.mouse(move |h| {
            let e = cef_mouse_event_t {
                x: x as i32,
                y: y as i32,
                modifiers: 0,
            };
            crate::call!(h.send_mouse_move_event(&e, 0));
            crate::call!(h.send_mouse_wheel_event(&e, dx, dy));
        });
        self.input_landed("wheel", 1, send).await
    }

    /// A key chord such as `Enter`, `Tab`, `Control+a`, `Shift+ArrowLeft`.
    pub async fn key(&self, chord: &str) -> Result<(), TabError> {
        let events = keys::chord(chord).map_err(TabError::Other)?;
        self.send_keys(events).await
    }

    /// Sends key events to the focused view and waits until the page has handled the last.
    async fn send_keys(&self, events: Vec<cef_key_event_t>) -> Result<(), TabError> {
        self.focus_view().await?;
        // A key press ends in keyup; a character without a key is a lone CHAR (keypress).
        let last = events.last().map(|e| e.type_);
        let (kind, t) = if last == Some(cef_key_event_type_t::KEYEVENT_CHAR) {
            ("keypress", cef_key_event_type_t::KEYEVENT_CHAR)
        } else {
            ("keyup", cef_key_event_type_t::KEYEVENT_KEYUP)
        };
        let n = events.iter().filter(|e| e.type_ == t).count() as u64;
        let send = self.mouse(move |h| {
            for e in &events {
                crate::call!(h.send_key_event(e));
            }
        });
        self.input_landed(kind, n, send).await
    }

    /// Gives the view keyboard focus before key events. Focus reaches the renderer on its own
    /// channel and a new document's widget can start unfocused; keys sent before it lands are
    /// dropped, so let it land first (a settle, not a measured wait).
    async fn focus_view(&self) -> Result<(), TabError> {
        self.mouse(|h| crate::call!(h.set_focus(1))).await?;
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
        on_ui(move || state::with(|st| st.tabs.get_mut(&id).map(|t| std::mem::take(&mut t.console))))
            .await?
            .ok_or(TabError::NoSuchTab(id))
    }

    /// Closes the tab and waits until CEF has destroyed it.
    pub async fn close(&self) -> Result<(), TabError> {
        let id = self.id;
        on_ui(move || -> Result<(), TabError> {
            let h = host_of(id)?;
            crate::call!(h.close_browser(1));
            Ok(())
        })
        .await??;
        for _ in 0..200 {
            let gone = on_ui(move || state::with(|st| !st.tabs.contains_key(&id))).await?;
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

/// Closes every browser; the main loop ends once all are gone.
pub fn begin_shutdown() {
    state::post(Box::new(|| {
        let hosts: Vec<Ref<cef_browser_host_t>> = state::with(|st| {
            st.closing = true;
            st.tabs.values().map(|t| t.host.clone()).collect()
        });
        for h in hosts {
            crate::call!(h.close_browser(1));
        }
    }));
}
