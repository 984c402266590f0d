//! The `Tab` seam: an async handle, callable from tokio, for everything the rest of the code
//! does to a page. Each method posts a job to the UI thread and awaits its answer with a
//! timeout, so a hung page or a dead renderer is an error, never a hang.

use crate::browser::frames::{self, Target};
use crate::browser::pointer::{DragEnd, Pointer};
use crate::browser::state::{ConsoleEntry, Frame, LoadOutcome, TabMeta};
use crate::browser::{Actor, Handle, history};
use crate::keys;
use aperture_engine::envelope::Untrusted;
use aperture_engine::protocol::{
    self, ElementOp, ElementReply, GuardReply, InputKind, InputState, Landed, NetState, Request, TextReply,
    WalkerError,
};
use aperture_engine::record::Walk;
use aperture_mcp::backend::TabId;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long a navigation may take before it is answered: with an error when nothing has
/// replaced the previous page by then, else with the new page as it is (the load goes on).
pub const NAV_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a navigation waits for subresources once its document is usable and parsed.
pub const SUBRESOURCE_GRACE: Duration = Duration::from_secs(4);
/// How long a navigation waits for a committed document whose parser is still blocked (a
/// script in its head whose host does not answer holds back everything after it; offline,
/// a failing lookup takes about 4 s, and several in a row more). Unmeasured beyond that.
pub const PARSE_WAIT: Duration = Duration::from_secs(12);
/// How long the parser probe may take (a page busy in script answers late).
const PARSE_PROBE: Duration = Duration::from_secs(1);
/// How long one renderer round trip may take. CEF 131 can lose process messages after a
/// frame swap (cef#4001), so a missing answer must become an error.
pub const RPC_TIMEOUT: Duration = Duration::from_secs(15);
/// How long sent input may take to show its first event on the page before it is taken as not
/// received, voided and (once) sent again. Unmeasured; well above a busy page's input latency
/// (input normally arrives within a frame), and affordable because voiding makes a late
/// arrival harmless.
pub const INPUT_BARRIER: Duration = Duration::from_millis(600);
/// How long before the void request's own timeout the page must have set the void: the rest
/// is the answer's way back to the browser.
const VOID_MARGIN: Duration = Duration::from_secs(2);
/// How long input whose first event has arrived may take to arrive whole (a page whose
/// `pointerdown` handler runs long delays the `pointerup`).
pub const COMPLETION_WAIT: Duration = Duration::from_secs(10);
/// How long input waits for the document to be able to take it (a navigation still
/// committing, a document without a body yet).
pub const READY_WAIT: Duration = Duration::from_secs(10);
/// How long a main-frame request may go unanswered before the page is checked for a renderer
/// that can never answer ([`Tab::deaf`]). A walk of a large page takes well under this.
const DEAF_CHECK: Duration = Duration::from_secs(2);
/// How long each of the two probes of [`Tab::deaf`] may take.
const DEAF_PROBE: Duration = Duration::from_millis(1500);
/// How many times a request reloads a page that cannot answer before giving up.
const REHOSTS: usize = 2;
/// The document a page is moved to a new renderer through (`Tab::rehost`); the navigation gate
/// lets it pass only while the tab is being moved.
pub const REHOST_URL: &str = "data:text/html,";
/// Characters sent at a time while typing: after each chunk the focus guard is read, so
/// typing stops soon after focus leaves the field.
const TYPE_CHUNK: usize = 16;
/// Presses of one repeated key chord sent at a time (as [`TYPE_CHUNK`]).
const KEYS_PER_CHUNK: u32 = 8;
/// How long input waits for a new document's first paint (unmeasured; a paint normally
/// follows within a frame or two of the document becoming available).
pub const FIRST_PAINT_WAIT: Duration = Duration::from_secs(2);
/// How long input waits for the document's first `paint` performance entry (one that paints
/// nothing, an empty page, never gets one; unmeasured: a frame or two after the view's paint).
const PAINT_ENTRY_WAIT: Duration = Duration::from_secs(1);

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
    #[error(
        "the new page is still loading: nothing of it had arrived after {secs} s, and until \
         it does the tab still shows the previous page"
    )]
    NotArrived { secs: u64 },
    #[error("the page's renderer crashed or was killed ({0}); reload the tab")]
    RendererGone(String),
    /// The address was a file, not a page: the navigation became a download (it never
    /// commits, so waiting for its load would only time out). `name` is the server's choice.
    #[error(
        "the address is a file to download, not a page: the browser is saving it in the download \
         directory (browser_tabs action=downloads shows it), and {}; the file's name:{}",
        if *.new_tab { "the tab opened for it was closed, as a desktop browser does" } else { "the tab still shows the page it showed before" },
        Untrusted(.name)
    )]
    Download { name: String, new_tab: bool },
    /// The page has not answered for `secs` (`browser::hang`): a script that does not return.
    /// Asking it anything would only wait out a timeout.
    #[error(
        "the page is not responding: it has not answered for {secs} s (a script that does not \
         finish keeps it busy). Wait and try again, or reload the tab or go elsewhere: \
         navigating stops that script first"
    )]
    Unresponsive { secs: u64 },
    /// A server asked for a sign-in (HTTP authentication) and the load waits for it.
    #[error("a sign-in (HTTP authentication) is asked for; the address was:{}", Untrusted(.origin))]
    SignIn {
        origin: String,
        realm: String,
        proxy: bool,
    },
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
    /// Input was sent and the page never received it; what might still arrive was voided. The
    /// text says what, if anything, did happen.
    #[error("not delivered: {0}")]
    NotDelivered(String),
    /// Input was sent and then its arrival could not be established.
    #[error("{0}")]
    InputUnknown(String),
    /// The page could not take input; nothing was sent.
    #[error("{0}")]
    NotReady(String),
    /// Keyboard focus was not (or stopped being) where the keys were meant to go: `typed`
    /// characters went in, every later key was stopped. `went` is page text. The text says
    /// neither (a vault fill reports it as it is, and the count would be a secret's length).
    #[error("keyboard focus was not on the field being typed into, so the keys from then on were stopped")]
    FocusMoved {
        typed: usize,
        total: usize,
        went: String,
    },
    #[error("{0}")]
    Other(String),
}

/// What became of input that [`Tab`]'s input verbs sent (they fail when it did not arrive).
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    /// Where the first pointer event went, relative to the aim a hit test armed.
    pub landed: Option<Landed>,
    /// The input went into a frame of another site, whose events this renderer never sees.
    pub unconfirmed: bool,
    /// A new document replaced the page before the input was seen whole.
    pub navigated: bool,
    /// [`Tab::key_repeat`] stopped early at a new document: the presses sent by then.
    pub presses_sent: Option<u32>,
}

/// Input being sent: how its arrival is recognised.
struct Sending {
    /// For messages: "click", "key presses"...
    what: &'static str,
    /// The first event that counts: when its count has not moved, nothing arrived.
    first: InputKind,
    /// The last event, and how many of it end the input.
    last: InputKind,
    n: u64,
    /// Whether the input may be sent once more when nothing of it arrived.
    resend: bool,
    /// Whether what has not arrived can be withdrawn (a wheel scrolls off the main thread
    /// and cannot be).
    voidable: bool,
    /// The page cannot count it (keys for a frame of another site).
    unconfirmable: bool,
    /// A pointer action, aimed by the hit test before it.
    pointer: bool,
}

impl Sending {
    fn new(what: &'static str, first: InputKind, last: InputKind, n: u64) -> Sending {
        Sending {
            what,
            first,
            last,
            n,
            resend: true,
            voidable: first != InputKind::Wheel,
            unconfirmable: false,
            pointer: matches!(
                first,
                InputKind::PointerDown | InputKind::PointerMove | InputKind::Wheel
            ),
        }
    }
}

/// [`Delivery`], with the page's input state at the moment it was seen whole.
struct Landing {
    delivery: Delivery,
    state: Option<InputState>,
}

#[derive(Debug)]
enum Arrival {
    Whole(InputState),
    Partial,
    Nothing,
    NewDocument,
    /// The page opened a JavaScript dialog while the input was arriving.
    Dialog,
    /// The page erased its input counters (`document.open()`) while the input was arriving.
    Deaf,
}

/// What deliver answers when the page silenced its input counters mid-input.
fn deaf() -> TabError {
    TabError::InputUnknown(
        "the page rewrote its document in place (document.open) while the input was arriving, \
         which erased the browser's count of its input; it may have received the input"
            .into(),
    )
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

/// Waits for a navigation: its load end; or, once its document has committed, until the
/// document is parsed and [`SUBRESOURCE_GRACE`] has passed, or [`PARSE_WAIT`] if its parser
/// stays blocked (answered as still loading). Never with the previous page: if nothing has
/// committed by [`NAV_TIMEOUT`], the answer is [`TabError::NotArrived`].
async fn wait_nav(
    t: &Tab,
    mut rx: oneshot::Receiver<Result<LoadOutcome, TabError>>,
    what: &'static str,
) -> Result<LoadOutcome, TabError> {
    use crate::browser::state::NavProgress;
    let start = std::time::Instant::now();
    loop {
        match tokio::time::timeout(Duration::from_millis(250), &mut rx).await {
            Ok(Ok(r)) => return r,
            Ok(Err(_)) => return Err(TabError::Closed),
            Err(_) => {
                let id = t.id;
                let progress =
                    t.h.on_ui(move |a| a.with(|st| st.nav_progress(id)))
                        .await?
                        .ok_or(TabError::Closed)?;
                let late = start.elapsed() >= NAV_TIMEOUT;
                let release = match progress {
                    NavProgress::Pending if late => {
                        return Err(TabError::NotArrived {
                            secs: NAV_TIMEOUT.as_secs(),
                        });
                    }
                    NavProgress::Pending => false,
                    NavProgress::Committed => late,
                    NavProgress::Document(age) => {
                        late || age >= PARSE_WAIT || (age >= SUBRESOURCE_GRACE && !t.still_parsing().await)
                    }
                };
                if release {
                    t.h.on_ui(move |a| a.with(|st| st.release_loading(id))).await?;
                }
                tracing::trace!(tab = id.0, ?progress, release, "{what}");
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
    // `view-source:` wraps another URL (Ctrl+U, the page menu's View page source); the agent's
    // navigation policy refuses the scheme before this check is reached.
    let source_of_page = u.scheme() == "view-source"
        && url::Url::parse(u.path()).is_ok_and(|inner| matches!(inner.scheme(), "http" | "https" | "file"));
    if u.cannot_be_a_base() && u.scheme() != "about" && u.scheme() != "data" && !source_of_page {
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
    let outcome = match wait_nav(&t, nrx, "the first page load").await {
        // A tab opened for a file would stay blank: close it, as a desktop browser does.
        Err(TabError::Download { name, .. }) => {
            let _ = t.close().await;
            return Err(TabError::Download { name, new_tab: true });
        }
        r => r?,
    };
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
                    // A restored tab not shown yet is about:blank to Chromium, but it is its
                    // saved page to the human (the strip's title) and so to the agent.
                    url: t.pending_url.clone().unwrap_or_else(|| t.url.clone()),
                    unloaded: t.pending_url.is_some(),
                    unresponsive: t.hang.stuck_since.is_some(),
                    title: t.title.clone(),
                    loading: t.loading,
                    active: st.active == Some(*id),
                    muted: t.host.is_audio_muted(),
                    audible: !t.audible_frames.is_empty(),
                    capturing: t.capturing,
                    pinned: t.pinned,
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
    /// Chromium has the tab's sound muted.
    pub muted: bool,
    /// Media in the page is playing with sound (heard unless `muted`).
    pub audible: bool,
    /// The page is using the camera and the microphone now.
    pub capturing: (bool, bool),
    /// The human pinned it.
    pub pinned: bool,
    /// Restored and not loaded yet (`url` is the page it will load).
    pub unloaded: bool,
    /// The page has not answered for 15 s or more (`browser::hang`).
    pub unresponsive: bool,
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
    pub(crate) async fn ui<R: Send + 'static>(
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
        // Any way off a stuck page: a new document in the same renderer would wait on it.
        self.end_if_stuck().await?;
        let (tx, rx) = oneshot::channel();
        self.ui(move |a| -> Result<(), TabError> {
            let b = browser_of(a, id)?;
            // Chromium's entries or a restored tab's saved ones (`browser::history`).
            let step = match nav {
                Nav::Back => history::plan(a, id, history::Dir::Back),
                Nav::Forward => history::plan(a, id, history::Dir::Forward),
                _ => history::Step::Nowhere,
            };
            if matches!(nav, Nav::Back | Nav::Forward) && step == history::Step::Nowhere {
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
                Nav::Back | Nav::Forward => {
                    history::take(a, id, step);
                }
                Nav::Reload => b.reload(),
            }
            Ok(())
        })
        .await??;
        wait_nav(self, rx, "the page load").await
    }

    /// Sends one request to the walker of the frame `target` names.
    pub(crate) async fn rpc_to(
        &self,
        target: Target,
        request: String,
        timeout: Duration,
    ) -> Result<String, TabError> {
        let id = self.id;
        let (tx, rx) = oneshot::channel();
        let rid = self
            .ui(move |a| -> Result<u64, TabError> {
                if let Some(why) = dead_renderer(a, id) {
                    return Err(TabError::RendererGone(why));
                }
                if let Some(secs) = unresponsive_for(a, id) {
                    return Err(TabError::Unresponsive { secs });
                }
                let f = frames::frame_of(a, id, browser_of(a, id)?, target)?;
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
        self.ask_to(frames::target_of(req), req, RPC_TIMEOUT).await
    }

    /// Sends a walker request to the walker of `target` and reads its typed answer.
    pub(crate) async fn ask_to<T: serde::de::DeserializeOwned>(
        &self,
        target: Target,
        req: &Request,
        within: Duration,
    ) -> Result<T, TabError> {
        let json = self.rpc_to(target, req.to_json(), within).await?;
        protocol::parse_reply(&json).map_err(TabError::Walker)
    }

    /// Idempotent requests are retried once after a lost message. A main-frame request still
    /// unanswered after [`DEAF_CHECK`] checks for a page that can never answer (see
    /// [`Tab::deaf`]); such a page is loaded again in a new renderer first (at most twice).
    async fn ask_retrying<T: serde::de::DeserializeOwned>(&self, req: &Request) -> Result<T, TabError> {
        let main = frames::target_of(req) == Target::Main;
        for _ in 0..REHOSTS {
            let first = self.ask(req);
            tokio::pin!(first);
            let r = tokio::select! {
                r = &mut first => r,
                () = tokio::time::sleep(DEAF_CHECK), if main => {
                    if self.deaf().await {
                        self.rehost().await?;
                        continue;
                    }
                    first.await
                }
            };
            return match r {
                Err(TabError::Timeout { .. }) => self.ask(req).await,
                r => r,
            };
        }
        self.ask(req).await
    }

    /// The page's renderer is alive and idle (its DevTools agent answers) yet the script host
    /// in it never hears us. CEF 131 leaves a page so when a new renderer asks the browser
    /// about its main frame before the browser's UI thread has registered that frame: after
    /// 2 s the renderer is answered "no browser" and marks its view excluded, and no request
    /// to that page is ever delivered (chromium.log: "Timeout of new browser info response";
    /// cef#4001, fixed upstream in CEF 142 by 4de6aa11e). A loaded machine makes it likely.
    async fn deaf(&self) -> bool {
        let pid = self.ask_to::<protocol::Pid>(Target::Main, &Request::Pid, RPC_TIMEOUT);
        tokio::pin!(pid);
        let alive = self.devtools(
            "Runtime.evaluate",
            serde_json::json!({"expression": "0", "returnByValue": true, "silent": true}),
        );
        let idle = tokio::select! {
            // Heard (or gone): not this.
            _ = &mut pid => return false,
            r = tokio::time::timeout(DEAF_PROBE, alive) => matches!(r, Ok(Ok(_))),
        };
        // The renderer's main thread is free, so a message that reached the script host
        // would be answered within moments.
        idle && tokio::time::timeout(DEAF_PROBE, &mut pid).await.is_err()
    }

    /// Loads the page again in a new renderer: a hop through an empty `data:` document, which
    /// Chromium always gives a process of its own, then the tab's address. What was in the
    /// page (typed text, a form's result) is lost; the console says it was reloaded.
    async fn rehost(&self) -> Result<(), TabError> {
        let id = self.id;
        let url = self
            .ui(move |a| {
                a.with(|st| {
                    let t = st.tabs.get_mut(&id)?;
                    t.rehosting = true;
                    Some(t.url.clone())
                })
            })
            .await?
            .ok_or(TabError::NoSuchTab(id))?;
        tracing::warn!(
            tab = id.0,
            "the page's renderer started without the page reader (CEF 131, cef#4001); loading it again"
        );
        let hop = self.navigate(REHOST_URL).await;
        self.ui(move |a| {
            a.with(|st| {
                if let Some(t) = st.tabs.get_mut(&id) {
                    t.rehosting = false;
                }
                st.console(
                    id,
                    ConsoleEntry {
                        level: "warning".into(),
                        text: "the page was loaded again in a new renderer: the one it had could not be \
                               read (a Chromium Embedded Framework 131 race); what was typed or done in \
                               it is gone"
                            .into(),
                        source: String::new(),
                        line: 0,
                    },
                );
            })
        })
        .await?;
        hop?;
        self.navigate(&url).await.map(|_| ())
    }

    /// Any walker request, its answer as JSON: for the script harness's tests of the walker
    /// protocol itself (the product's callers use the typed methods).
    pub async fn request(&self, req: &Request) -> Result<serde_json::Value, TabError> {
        self.ask(req).await
    }

    /// Walks the page in the render process, and each frame of another origin in its own
    /// (merged under its `<iframe>`: see `browser::frames`).
    pub async fn walk(&self) -> Result<Walk, TabError> {
        let main = self
            .ask_retrying(&Request::Walk {
                cap: None,
                sub: false,
            })
            .await?;
        frames::walk_frames(self, main).await
    }

    /// An element operation on the latest walk's element `idx` (in whichever frame's
    /// renderer holds it).
    pub async fn element(&self, walk_id: u64, idx: u32, op: ElementOp) -> Result<ElementReply, TabError> {
        frames::element(self, walk_id, idx, op).await
    }

    /// The OS process id of the renderer serving this tab.
    pub async fn renderer_pid(&self) -> Result<u32, TabError> {
        self.ask::<protocol::Pid>(&Request::Pid).await.map(|p| p.0)
    }

    /// The page's visible text (innerText), capped; and whether it was read out of a PDF the
    /// tab shows in Chromium's viewer.
    pub async fn page_text(&self, cap: usize) -> Result<(String, bool, bool), TabError> {
        let r: TextReply = self.ask_retrying(&Request::Text { cap: Some(cap) }).await?;
        // The viewer's wrapper document has no text of its own: only then is it asked whether
        // it is one (which costs the file again).
        if r.text.trim().is_empty()
            && let Some((text, truncated)) = self.pdf_text(cap).await?
        {
            return Ok((text, truncated, true));
        }
        // The body's text has none of its frames': those of other sites the last walk placed
        // follow it.
        let (text, truncated) = frames::with_frame_text(self, r.text, r.truncated, cap).await;
        Ok((text, truncated, false))
    }

    /// The text of the PDF the tab shows, capped (`None` when it shows none). The bytes are
    /// those Chromium received for the tab, copied on their way to the viewer; only when it
    /// has no copy (a PDF shown before this browser started, say) is the file fetched again.
    async fn pdf_text(&self, cap: usize) -> Result<Option<(String, bool)>, TabError> {
        let id = self.id;
        let bytes = match self.h.on_ui(move |a| a.captured_pdf(id)).await? {
            Some(cef::Captured::Bytes(b)) => b,
            Some(cef::Captured::TooBig) => {
                return Err(TabError::Other(format!(
                    "the tab shows a PDF larger than {} MB, whose text is not read",
                    cef::DOCUMENT_CAP >> 20
                )));
            }
            None => match self.fetched_pdf().await? {
                Some(b) => std::sync::Arc::new(b),
                None => return Ok(None),
            },
        };
        let text = tokio::task::spawn_blocking(move || pdf_pages_text(&bytes))
            .await
            .map_err(|_| TabError::Other("reading the PDF's text failed".into()))?
            .map_err(TabError::Other)?;
        if text.trim().is_empty() {
            return Err(TabError::Other(
                "the PDF has no text to read: its pages are most likely pictures (a scan)".into(),
            ));
        }
        let truncated = text.chars().count() > cap;
        Ok(Some((text.chars().take(cap).collect(), truncated)))
    }

    /// The bytes of the PDF the tab shows, fetched again by the page (`None` when it shows
    /// none).
    async fn fetched_pdf(&self) -> Result<Option<Vec<u8>>, TabError> {
        let r: protocol::PdfReply = self.ask(&Request::Pdf { cap: Some(PDF_MAX) }).await?;
        if !r.pdf {
            return Ok(None);
        }
        // Its cross-reference table is at the end: a cut file cannot be parsed.
        if r.truncated {
            return Err(TabError::Other(format!(
                "the tab shows a PDF larger than {} MB, whose text is not read",
                PDF_MAX >> 20
            )));
        }
        if !(200..300).contains(&r.status) {
            return Err(TabError::Other(format!(
                "the tab shows a PDF, but fetching it again for its text got HTTP {}",
                r.status
            )));
        }
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(r.data.as_bytes())
            .map_err(|e| TabError::Other(format!("the PDF's bytes came back garbled: {e}")))?;
        Ok(Some(bytes))
    }

    /// Whether the main document's parser is still at work (`document.readyState` is
    /// `loading`: typically a script in the page whose host does not answer). A page that does
    /// not answer the probe in time counts as parsing; the wait stays bounded by
    /// [`PARSE_WAIT`] either way, whatever the page makes `readyState` say.
    async fn still_parsing(&self) -> bool {
        let probe = self.devtools(
            "Runtime.evaluate",
            serde_json::json!({"expression": "document.readyState", "returnByValue": true, "silent": true}),
        );
        match tokio::time::timeout(PARSE_PROBE, probe).await {
            Ok(Ok(v)) => v["result"]["value"].as_str() == Some("loading"),
            _ => true,
        }
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

    /// Stops the script holding the tab's page if it has stopped answering
    /// (`browser::hang`): a navigation would otherwise wait on a script that never returns.
    /// Waits (briefly) for the page to answer again, so the navigation meets a running page.
    async fn end_if_stuck(&self) -> Result<(), TabError> {
        let id = self.id;
        if !self.ui(move |a| crate::browser::hang::stop_script(a, id)).await? {
            return Ok(());
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && self.ui(move |a| unresponsive_for(a, id)).await?.is_some() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
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

    /// A PNG of the view, or of its `clip` part (`[x, y, w, h]` as fractions of the view's
    /// width and height), its long edge at most `max_edge`.
    pub async fn screenshot(
        &self,
        max_edge: Option<u32>,
        clip: Option<[f32; 4]>,
    ) -> Result<(Vec<u8>, u32, u32), TabError> {
        let f = self.frame().await?;
        tokio::task::spawn_blocking(move || crate::imaging::png(&f, max_edge, clip))
            .await
            .map_err(|e| TabError::Other(e.to_string()))?
    }

    /// Sends input and returns once the page has received all of it, so an observation that
    /// follows sees the page's reaction; input the page never received is voided and reported
    /// as [`TabError::NotDelivered`], never as done.
    ///
    /// Native input and renderer messages travel on different channels with no ordering
    /// between them, and a repaint is no proof either. The walker counts trusted events per
    /// type: the last event of the input arriving means every earlier one has been handled (a
    /// renderer handles input in order, and a handler's synchronous work finishes within its
    /// task). Chromium drops input whole while a new document cannot take it yet (before its
    /// first visually non-empty paint); such input never arrives. Input the page has not seen
    /// by [`INPUT_BARRIER`] is voided in the renderer (if it turns up later it is stopped
    /// before the page sees it) and, when nothing of it had arrived, sent once more.
    async fn deliver<F, Fut>(&self, s: Sending, send: F) -> Result<Landing, TabError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<(), TabError>>,
    {
        let mut before = self.ready().await?;
        let initial = before.clone();
        for attempt in 0..2 {
            if before.remote || s.unconfirmable {
                send().await?;
                return Ok(Landing {
                    delivery: Delivery {
                        unconfirmed: true,
                        ..Delivery::default()
                    },
                    state: None,
                });
            }
            send().await?;
            let mut arrival = self.arrival(&before, &s, false).await?;
            tracing::debug!(tab = self.id.0, attempt, what = s.what, ?arrival, "input sent");
            if let Arrival::Nothing = arrival
                && !s.voidable
            {
                // It cannot be withdrawn, so it is never sent again: it may still arrive late,
                // and over a frame of another site it scrolls that frame, whose events this page
                // never counts.
                arrival = self.arrival(&before, &s, false).await?;
                if let Arrival::Nothing = arrival {
                    return Err(TabError::InputUnknown(format!(
                        "the page did not count the {} within {:.1} s; it cannot be withdrawn, so it may \
                         still arrive, and where a frame of another site is under the pointer it went \
                         to that frame, which this page cannot count",
                        s.what,
                        (INPUT_BARRIER * 2).as_secs_f32()
                    )));
                }
            }
            if let Arrival::Nothing = arrival {
                // Void what may still be on its way, unless it has begun arriving meanwhile:
                // voiding half an input would leave the page with a press and no release.
                // The page may only void while this call still waits for its answer (with a
                // margin for the answer's way back): later, the agent has been told the input
                // may still arrive, and it must not then be stopped.
                let until = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| (d + RPC_TIMEOUT - VOID_MARGIN).as_millis() as u64);
                let void = Request::Void {
                    kind: s.first.event_type().into(),
                    n: before.counts.get(s.first),
                    until,
                };
                let v = match self.ask_unless_dialog::<InputState>(&void, RPC_TIMEOUT).await {
                    Ok(Some(v)) => v,
                    // Script is running (it opened the dialog): the input arrived.
                    Ok(None) => {
                        return Ok(Landing {
                            delivery: Delivery::default(),
                            state: None,
                        });
                    }
                    Err(gone @ (TabError::RendererGone(_) | TabError::NoSuchTab(_) | TabError::Closed)) => {
                        return Err(gone);
                    }
                    Err(other) => {
                        tracing::debug!(tab = self.id.0, attempt, error = %other, "void unanswered");
                        return Err(TabError::InputUnknown(format!(
                            "the page did not answer after the input was sent ({other}); it may or may not have received it"
                        )));
                    }
                };
                tracing::debug!(
                    tab = self.id.0,
                    attempt,
                    kind = s.first.event_type(),
                    before = before.counts.get(s.first),
                    now = v.counts.get(s.first),
                    void_set = v.void_set,
                    late = v.late,
                    voided = v.voided,
                    "void answered"
                );
                if v.deaf {
                    return Err(deaf());
                }
                if v.late && v.counts.get(s.first) == before.counts.get(s.first) {
                    return Err(TabError::InputUnknown(format!(
                        "the page was too busy to answer for over {} s after the input was sent; it was \
                         not withdrawn, so it will reach the page once the page is free",
                        (RPC_TIMEOUT - VOID_MARGIN).as_secs()
                    )));
                }
                if v.doc != before.doc {
                    arrival = Arrival::NewDocument;
                } else if v.void_set && self.popup_shown().await {
                    // Input over a <select> list or date picker goes to that popup, which the
                    // page's counts never see: it may well have acted there.
                    return Err(TabError::InputUnknown(
                        "the page did not receive the input, and a drop-down list or picker the page opened is showing; the input may have gone to it".into(),
                    ));
                } else if v.void_set {
                    if attempt == 0 && s.resend {
                        tracing::info!(
                            tab = self.id.0,
                            kind = s.first.event_type(),
                            "the page received none of the input: voided, sending it again"
                        );
                        before = v;
                        continue;
                    }
                    let twice = if attempt > 0 { " (sent twice)" } else { "" };
                    // The pointer's move to the target goes first and is not voided with the
                    // press: when it arrived, the page's hover handlers ran.
                    let moved = s.pointer
                        && s.first != InputKind::PointerMove
                        && v.counts.get(InputKind::PointerMove) > initial.counts.get(InputKind::PointerMove);
                    return Err(TabError::NotDelivered(if moved {
                        format!(
                            "the page received the pointer's move to the target but none of the {}{twice}, \
                             and what of it may still arrive is voided; the page's hover handlers may \
                             have run, nothing else happened",
                            s.what
                        )
                    } else {
                        format!(
                            "the page received none of the {}{twice}, and what of it may still arrive \
                             is voided; nothing happened",
                            s.what
                        )
                    }));
                } else {
                    // It began arriving after all: wait for the rest.
                    arrival = self.arrival(&before, &s, true).await?;
                }
            }
            return match arrival {
                Arrival::Whole(st) => Ok(Landing {
                    delivery: Delivery {
                        // Only a pointer action was aimed: a key press says nothing about it.
                        landed: if s.pointer { st.landed.clone() } else { None },
                        ..Delivery::default()
                    },
                    state: Some(st),
                }),
                Arrival::NewDocument => Ok(Landing {
                    delivery: Delivery {
                        navigated: true,
                        ..Delivery::default()
                    },
                    state: None,
                }),
                Arrival::Dialog => Ok(Landing {
                    delivery: Delivery::default(),
                    state: None,
                }),
                Arrival::Partial => Err(TabError::InputUnknown(format!(
                    "the page received the start of the {} but not all of it within {} s",
                    s.what,
                    COMPLETION_WAIT.as_secs()
                ))),
                Arrival::Deaf => Err(deaf()),
                Arrival::Nothing => unreachable!("handled above"),
            };
        }
        unreachable!("the second attempt returns")
    }

    /// Polls the page's input counts until all of the input has arrived, a new document has
    /// replaced the page, nothing has arrived by `first_wait`, or what began arriving has not
    /// finished within [`COMPLETION_WAIT`]. A poll the renderer does not answer in time (a busy
    /// page, a lost message) proves nothing either way.
    async fn arrival(
        &self,
        before: &InputState,
        s: &Sending,
        begun_already: bool,
    ) -> Result<Arrival, TabError> {
        let start = std::time::Instant::now();
        let mut begun = begun_already.then_some(start);
        loop {
            let left = match begun {
                Some(at) => COMPLETION_WAIT.checked_sub(at.elapsed()),
                None => INPUT_BARRIER.checked_sub(start.elapsed()),
            };
            let Some(left) = left.filter(|l| !l.is_zero()) else {
                return Ok(if begun.is_some() {
                    Arrival::Partial
                } else {
                    Arrival::Nothing
                });
            };
            // Short polls: one the renderer does not answer in time proves nothing, and a
            // JavaScript dialog the input opened must be noticed while it is up.
            let polled = self
                .ask_unless_dialog::<InputState>(&Request::Inputs, left.min(Duration::from_millis(250)))
                .await;
            let polled = match polled {
                // A JavaScript dialog holds the page: nothing answers until it is answered, and
                // only the page's script, running for the input, can have opened it.
                Ok(None) => return Ok(Arrival::Dialog),
                Ok(Some(st)) => Ok(st),
                Err(e) => Err(e),
            };
            match polled {
                Ok(st) if st.doc != before.doc => return Ok(Arrival::NewDocument),
                Ok(st) if st.deaf => return Ok(Arrival::Deaf),
                Ok(st) if st.counts.get(s.last) >= before.counts.get(s.last) + s.n => {
                    return Ok(Arrival::Whole(st));
                }
                Ok(st) if begun.is_none() && st.counts.get(s.first) > before.counts.get(s.first) => {
                    begun = Some(std::time::Instant::now());
                }
                Ok(_) => {}
                Err(e @ (TabError::RendererGone(_) | TabError::NoSuchTab(_) | TabError::Closed)) => {
                    return Err(TabError::InputUnknown(format!("after the input was sent: {e}")));
                }
                Err(_) => {}
            }
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
    }

    /// Waits until the document can take input: it has painted once (input reaching a
    /// document before its first frame is dropped), its walker answers, and it has a body.
    /// Answers the page's input state then, or [`TabError::NotReady`] (nothing was sent).
    ///
    /// "Painted" is read twice: the view's paint counter (any frame the browser got since the
    /// document became available, which can still be the previous document's) and the
    /// document's own `paint` performance entry, which Chromium records when its first frame
    /// is presented. A wheel sent between the two was dropped whole, neither scrolling nor
    /// reaching the page (4 first scrolls in 60 right after a tab opened; none once the entry
    /// existed). A document that never paints anything has no entry: input waits for it only
    /// while the document is younger than [`PAINT_ENTRY_WAIT`].
    async fn ready(&self) -> Result<InputState, TabError> {
        let start = std::time::Instant::now();
        self.until_painted().await;
        loop {
            let why = match self.state_within(Duration::from_secs(1)).await {
                Ok(st) if st.ready && (st.painted || self.document_age(start).await >= PAINT_ENTRY_WAIT) => {
                    return Ok(st);
                }
                Ok(st) if st.ready => "the document has not painted yet".to_string(),
                Ok(_) => "the document has no body yet".to_string(),
                Err(e @ (TabError::RendererGone(_) | TabError::NoSuchTab(_) | TabError::Closed)) => {
                    return Err(e);
                }
                Err(e) => e.to_string(),
            };
            if start.elapsed() >= READY_WAIT {
                return Err(TabError::NotReady(format!(
                    "the page could not take input within {} s ({why})",
                    READY_WAIT.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// How long ago the current document became available (when unknown, how long ago
    /// `since` was).
    async fn document_age(&self, since: std::time::Instant) -> Duration {
        let id = self.id;
        self.ui(move |a| a.with(|s| s.tabs.get(&id).and_then(|t| t.document_at).map(|at| at.elapsed())))
            .await
            .ok()
            .flatten()
            .unwrap_or_else(|| since.elapsed())
    }

    /// A walker request, abandoned (`None`) the moment a JavaScript dialog holds the page: the
    /// renderer answers nothing until the dialog is answered.
    async fn ask_unless_dialog<T: serde::de::DeserializeOwned>(
        &self,
        req: &Request,
        within: Duration,
    ) -> Result<Option<T>, TabError> {
        let until_dialog = async {
            loop {
                if self.dialog_open().await {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::select! {
            r = self.rpc_to(frames::target_of(req), req.to_json(), within) => {
                protocol::parse_reply(&r?).map(Some).map_err(TabError::Walker)
            }
            _ = until_dialog => Ok(None),
        }
    }

    /// Whether a popup widget (a `<select>` list, a date picker) is showing, and its rect in
    /// view coordinates.
    pub async fn popup(&self) -> Option<(i32, i32, i32, i32)> {
        let id = self.id;
        self.ui(move |a| {
            a.with(|st| {
                st.tabs
                    .get(&id)
                    .and_then(|t| t.asks.popup.shown.then_some(t.asks.popup.rect))
            })
        })
        .await
        .ok()
        .flatten()
    }

    async fn popup_shown(&self) -> bool {
        self.popup().await.is_some()
    }

    async fn dialog_open(&self) -> bool {
        let id = self.id;
        self.ui(move |a| a.with(|st| st.tabs.get(&id).is_some_and(|t| t.asks.dialog.is_some())))
            .await
            .unwrap_or(false)
    }

    /// The page's input state.
    async fn state_within(&self, within: Duration) -> Result<InputState, TabError> {
        let json = self
            .rpc_to(Target::Input, Request::Inputs.to_json(), within)
            .await?;
        protocol::parse_reply::<InputState>(&json).map_err(TabError::Walker)
    }

    /// A walker request answered with the page's input state.
    async fn state_of(&self, req: Request) -> Result<InputState, TabError> {
        self.ask(&req).await
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

    /// Moves the mouse (a trusted move: the page's `mouseover`, `mouseenter` and `mousemove`
    /// handlers run for what is under the point).
    pub async fn move_to(&self, x: f32, y: f32) -> Result<Delivery, TabError> {
        let s = Sending::new("mouse move", InputKind::PointerMove, InputKind::PointerMove, 1);
        let id = self.id;
        let send = || {
            self.ui(move |a| {
                a.pointer(id, Pointer::Move(at(x, y)));
            })
        };
        Ok(self.deliver(s, send).await?.delivery)
    }

    /// A trusted drag with the left button: press at `from`, carry the pointer to `to` in
    /// steps, release there. The press is delivered like a click's (the page must count it);
    /// what follows depends on the page: mouse-driven dragging (sliders, sortable lists) sees
    /// moves with the button held and a mouse up, and an HTML drag the page starts is carried
    /// as drag-target events to a drop (see `browser::pointer`). The answer says which.
    pub async fn drag(&self, from: (f32, f32), to: (f32, f32)) -> Result<(Delivery, DragEnd), TabError> {
        let id = self.id;
        let held = |(x, y): (f32, f32)| cef::MouseEvent {
            modifiers: cef::EventFlags::LEFT_BUTTON,
            ..at(x, y)
        };
        let s = Sending::new("press", InputKind::PointerDown, InputKind::PointerDown, 1);
        let send = || async move {
            self.ui(move |a| -> Result<(), TabError> {
                host_of(a, id)?.set_focus(true);
                a.pointer(id, Pointer::Move(at(from.0, from.1)));
                a.pointer(id, Pointer::Down(held(from), Button::Left, 1));
                Ok(())
            })
            .await?
        };
        let delivery = self.deliver(s, send).await?.delivery;
        // Chromium starts an HTML drag only after the pointer has moved a few pixels with the
        // button down, and asks for it asynchronously: move in steps with time between them,
        // then once more at the target so its `dragover` runs after the drag began.
        const STEPS: u32 = 10;
        for i in 1..=STEPS {
            let t = i as f32 / STEPS as f32;
            let p = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
            self.ui(move |a| {
                a.pointer(id, Pointer::Move(held(p)));
            })
            .await?;
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
        self.ui(move |a| {
            a.pointer(id, Pointer::Move(held(to)));
        })
        .await?;
        // The drop target's answer (whether it takes the drop) comes back asynchronously too.
        tokio::time::sleep(Duration::from_millis(120)).await;
        let end = self
            .ui(move |a| a.pointer(id, Pointer::Up(held(to), Button::Left, 1)))
            .await?;
        Ok((delivery, end))
    }

    /// A pointer move of one pixel where the pointer already is, delivered on its own before
    /// it goes to (`x`, `y`): a person's pointer moves before it arrives, and pages act on that
    /// first move. jQuery UI's autocomplete replays, on the first `mousemove` after its list
    /// opened, the `mouseenter` of the item that opened under the resting pointer; arriving on
    /// the wanted item in one move, that replay came after and selected the wrong item. The
    /// pointer stays over what it was over, so a hover menu it holds open stays open.
    async fn approach(&self, x: f32, y: f32) {
        let id = self.id;
        let Ok(Some((px, py))) = self
            .ui(move |a| a.with(|st| st.tabs.get(&id).and_then(|t| t.pointer_at)))
            .await
        else {
            return;
        };
        if (px as f32 - x).abs() < 2.0 && (py as f32 - y).abs() < 2.0 {
            return;
        }
        let nx = if px > 0 { px - 1 } else { px + 1 };
        // Best effort: what matters is the move that follows, which is delivered and checked.
        if let Err(e) = self.move_to(nx as f32, py as f32).await {
            tracing::debug!(tab = id.0, error = %e, "the approach move was not confirmed");
        }
    }

    /// The pointer moved to (`x`, `y`) after [`Tab::approach`], as a hover is, waiting until
    /// the page has taken the move (its handlers have run), so that what the page did on hover
    /// is there to be seen by the aim that follows (see `Backend::rest_pointer`). Best effort: a
    /// move the page did not count is only logged, and the press that follows is delivered
    /// and checked on its own.
    pub async fn rest_at(&self, x: f32, y: f32) {
        if let Err(e) = self.hover_at(x, y).await {
            tracing::debug!(tab = self.id.0, error = %e, "the pointer's rest on the target was not confirmed");
        }
    }

    /// A hover: [`Tab::approach`], then the move to (`x`, `y`).
    pub async fn hover_at(&self, x: f32, y: f32) -> Result<Delivery, TabError> {
        self.approach(x, y).await;
        self.move_to(x, y).await
    }

    /// A trusted click: move, then press and release `count` times (2: a double click).
    pub async fn click_at(&self, x: f32, y: f32, button: Button, count: i32) -> Result<Delivery, TabError> {
        self.approach(x, y).await;
        let count = count.max(1);
        let what = match count {
            1 => "click",
            2 => "double click",
            _ => "clicks",
        };
        let s = Sending::new(what, InputKind::PointerDown, InputKind::PointerUp, count as u64);
        let id = self.id;
        let send = || async move {
            self.ui(move |a| -> Result<(), TabError> {
                let e = at(x, y);
                host_of(a, id)?.set_focus(true);
                a.pointer(id, Pointer::Move(e));
                for n in 1..=count {
                    a.pointer(id, Pointer::Down(e, button, n));
                    a.pointer(id, Pointer::Up(e, button, n));
                }
                Ok(())
            })
            .await?
        };
        Ok(self.deliver(s, send).await?.delivery)
    }

    /// Wheel scroll at a point. A wheel event cannot be voided (scrolling may happen off the
    /// page's main thread), so one that arrives after being given up on would scroll twice;
    /// scrolling is only re-sent when nothing of it arrived in time.
    pub async fn scroll(&self, x: f32, y: f32, dx: i32, dy: i32) -> Result<Delivery, TabError> {
        let s = Sending::new("scroll", InputKind::Wheel, InputKind::Wheel, 1);
        let id = self.id;
        let send = || async move {
            self.ui(move |a| -> Result<(), TabError> {
                let e = at(x, y);
                a.pointer(id, Pointer::Move(e));
                host_of(a, id)?.send_mouse_wheel(&e, dx, dy);
                Ok(())
            })
            .await?
        };
        Ok(self.deliver(s, send).await?.delivery)
    }

    /// A key chord such as `Enter`, `Tab`, `Control+a`, `Shift+ArrowLeft`, pressed where focus
    /// is (guarded like typing: see [`Tab::type_text`]).
    pub async fn key(&self, chord: &str) -> Result<Delivery, TabError> {
        self.key_repeat(chord, 1).await
    }

    /// [`Tab::key`] pressed `times` times, as a person holding the key: each press goes where
    /// focus is then (an arrow key that moves focus along a menu or a grid moves it on). Only
    /// the first press is guarded: focus must be where the last focus op put it. Sent in
    /// chunks, each confirmed before the next; a failure after the first chunk says how many
    /// presses had arrived.
    pub async fn key_repeat(&self, chord: &str, times: u32) -> Result<Delivery, TabError> {
        let events = keys::chord(chord).map_err(TabError::Other)?;
        if times <= 1 {
            return self.guarded_keys(vec![events], 0).await;
        }
        self.focus_view().await?;
        self.ready().await?;
        let mut out = Delivery::default();
        let mut done = 0;
        let mut doc = None;
        while done < times {
            let n = KEYS_PER_CHUNK.min(times - done);
            // Asked for each chunk: whether focus is in a frame of another site (whose keys
            // this page cannot count) can change as the presses move it.
            let g: GuardReply = self.ask(&Request::Guard).await?;
            let now = self.state_of(Request::Unguard).await.ok().map(|s| s.doc);
            // A press that loaded a new page once the last chunk was seen whole: the key is
            // held over the page it was pressed on, not the next one.
            if done > 0
                && let (Some(was), Some(now)) = (doc, now)
                && was != now
            {
                out.navigated = true;
                out.presses_sent = Some(done);
                break;
            }
            doc = doc.or(now);
            if done == 0
                && let Some(f) = g.focus
            {
                return Err(TabError::FocusMoved {
                    typed: 0,
                    total: 0,
                    went: f.line(),
                });
            }
            let chunk: Vec<cef::KeyEvent> = events
                .iter()
                .cloned()
                .cycle()
                .take(events.len() * n as usize)
                .collect();
            match self.send_keys(chunk, g.remote).await {
                Ok(l) => {
                    out.unconfirmed |= l.delivery.unconfirmed;
                    out.navigated |= l.delivery.navigated;
                }
                Err(e) if done > 0 => {
                    return Err(TabError::InputUnknown(format!(
                        "{done} of the {times} presses arrived, then the next ones failed: {e}"
                    )));
                }
                Err(e) => return Err(e),
            }
            done += n;
            if out.navigated {
                // The rest would land in a document nobody has looked at yet.
                if done < times {
                    out.presses_sent = Some(done);
                }
                break;
            }
        }
        Ok(out)
    }

    /// Types text as trusted key events into the element the last focus or clear op focused
    /// (else the focused element). Focus is checked before the first key, and the walker
    /// guards it while typing: once focus leaves the field (a popup, a re-render that drops
    /// it), every later key is stopped before the page sees it and the typing stops with
    /// [`TabError::FocusMoved`], saying how many characters went in and where focus went.
    pub async fn type_text(&self, text: &str) -> Result<(), TabError> {
        self.type_keys(text).await.map(|_| ())
    }

    /// [`Tab::type_text`], saying what became of the keys.
    pub async fn type_keys(&self, text: &str) -> Result<Delivery, TabError> {
        // In chunks, so typing stops soon after focus leaves (the guard stops the keys that
        // were already sent).
        // Wiped after: the text may be a password the vault filled (its key events are not).
        // Sized once (no more characters than bytes), so no grown-out copy is left behind.
        let mut chars = zeroize::Zeroizing::new(Vec::with_capacity(text.len()));
        chars.extend(text.chars());
        let chunks: Vec<Vec<cef::KeyEvent>> = chars
            .chunks(TYPE_CHUNK)
            .map(|c| keys::chars(c.iter().copied()))
            .collect();
        let total = chunks
            .iter()
            .flatten()
            .filter(|e| e.kind == cef::KeyEventKind::Char)
            .count();
        self.guarded_keys(chunks, total).await
    }

    /// Sends key events in chunks under the focus guard. `total` counts the characters (for
    /// the answer when focus moves).
    async fn guarded_keys(
        &self,
        chunks: Vec<Vec<cef::KeyEvent>>,
        total: usize,
    ) -> Result<Delivery, TabError> {
        self.focus_view().await?;
        self.ready().await?;
        let g: GuardReply = self.ask(&Request::Guard).await?;
        if let Some(f) = g.focus {
            return Err(TabError::FocusMoved {
                typed: 0,
                total,
                went: f.line(),
            });
        }
        let mut out = Delivery {
            unconfirmed: g.remote,
            ..Delivery::default()
        };
        let mut result = Ok(());
        for events in chunks {
            match self.send_keys(events, g.remote).await {
                Ok(l) => {
                    out.navigated |= l.delivery.navigated;
                    let tripped = l.state.and_then(|s| s.guard).is_some_and(|g| g.went.is_some());
                    if tripped || l.delivery.navigated {
                        break;
                    }
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // Lifted whatever happened: a guard left up would stop the human's keys too (it also
        // expires on its own).
        let lifted = self.state_of(Request::Unguard).await;
        result?;
        if let Ok(st) = lifted
            && let Some(gs) = st.guard
            && let Some(went) = gs.went
        {
            return Err(TabError::FocusMoved {
                typed: gs.typed as usize,
                total,
                went: went.line(),
            });
        }
        Ok(out)
    }

    /// Sends key events to the focused view and waits until the page has received them all.
    async fn send_keys(&self, events: Vec<cef::KeyEvent>, unconfirmable: bool) -> Result<Landing, TabError> {
        let first = match events.first().map(|e| e.kind) {
            Some(cef::KeyEventKind::Char) => InputKind::KeyPress,
            _ => InputKind::KeyDown,
        };
        // A key press ends in keyup; a character without a key is a lone CHAR (keypress).
        let last = events.last().map(|e| e.kind);
        let (kind, t) = if last == Some(cef::KeyEventKind::Char) {
            (InputKind::KeyPress, cef::KeyEventKind::Char)
        } else {
            (InputKind::KeyUp, cef::KeyEventKind::KeyUp)
        };
        let n = events.iter().filter(|e| e.kind == t).count() as u64;
        let mut s = Sending::new("key presses", first, kind, n);
        s.unconfirmable = unconfirmable;
        let send = || {
            let events = events.clone();
            self.with_host(move |h| {
                for e in &events {
                    h.send_key(e);
                }
            })
        };
        self.deliver(s, send).await
    }

    /// Gives the view keyboard focus before key events. Focus reaches the renderer on its own
    /// channel and a new document's widget can start unfocused; keys sent before it lands are
    /// dropped, so let it land first (a settle, not a measured wait).
    async fn focus_view(&self) -> Result<(), TabError> {
        self.with_host(|h| h.set_focus(true)).await?;
        tokio::time::sleep(Duration::from_millis(30)).await;
        Ok(())
    }

    /// How quiet the page's network is, as its document sees it.
    pub async fn net_state(&self) -> Result<NetState, TabError> {
        self.ask(&Request::Net).await
    }

    /// The sign-in the page is submitting (the human's "save this login?" offer only).
    pub async fn login_values(&self) -> Result<aperture_engine::protocol::LoginValues, TabError> {
        self.ask(&Request::Login).await
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
            host_of(a, id)?;
            crate::browser::page::close_tab(a, id);
            Ok(())
        })
        .await??;
        for _ in 0..200 {
            // Gone, or out of sight until its downloads end (see `page::close_tab`).
            let gone = self
                .ui(move |a| a.with(|st| st.tabs.get(&id).is_none_or(|t| t.lingering)))
                .await?;
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

/// How long the tab's page has not answered, if it counts as not responding now.
fn unresponsive_for(a: &crate::browser::Actor, id: TabId) -> Option<u64> {
    a.with(|st| st.tabs.get(&id).and_then(|t| t.hang.stuck_for()))
        .map(|d| d.as_secs())
}

/// Why the tab's renderer is dead, if it is (and no new document has replaced it).
fn dead_renderer(a: &crate::browser::Actor, id: TabId) -> Option<String> {
    a.with(|st| st.tabs.get(&id).and_then(|t| t.renderer_dead.clone()))
}

/// The largest PDF whose text is read: its bytes cross from the renderer as one base64 message.
const PDF_MAX: usize = 20 << 20;

/// The text of a PDF's pages, a blank line between pages and runs of blank lines kept to one.
/// The parser is not trusted to be total on a hostile file: a panic in it is an error here.
fn pdf_pages_text(bytes: &[u8]) -> Result<String, String> {
    let pages = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes))
        .map_err(|_| "the PDF could not be read (its parser gave up on it)".to_string())?
        .map_err(|e| format!("the PDF could not be read: {e}"))?;
    let mut out = String::new();
    for page in pages {
        let mut blank = true;
        for line in page.lines().map(str::trim_end) {
            if line.trim().is_empty() {
                if !blank {
                    out.push('\n');
                }
                blank = true;
                continue;
            }
            out.push_str(line);
            out.push('\n');
            blank = false;
        }
        if !out.ends_with("\n\n") && !out.is_empty() {
            out.push('\n');
        }
    }
    Ok(out.trim_end().to_string())
}
