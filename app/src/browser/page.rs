//! What pages ask of the browser, in the actor: JavaScript dialogs, sign-ins (HTTP
//! authentication), downloads, file choosers,
//! permissions, context menus and popup widgets. Each request is recorded on its tab (or, for
//! downloads, in the state) with CEF's callback, and answered by the human (the window), the
//! agent (dialogs only, through the backend) or a rule (headless: dismiss after a timeout,
//! block permissions, cancel file choosers), never by nobody.

use super::state::{ConsoleEntry, Frame};
use super::{Actor, Event};
use aperture_mcp::backend::TabId;
use cef::PermissionAnswer;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a dialog asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// A JavaScript dialog.
    Js(cef::JsDialogKind),
    /// A server (or a proxy) wants a username and password (HTTP authentication) before it
    /// answers; the tab's load waits for them.
    SignIn { proxy: bool },
}

/// A dialog waiting for an answer: a JavaScript dialog, or a sign-in the browser asks for.
pub struct OpenDialog {
    pub id: u64,
    pub kind: Asked,
    /// Who asks: the page's origin URL (empty for leave-page), or the URL of the request a
    /// server challenged.
    pub origin: String,
    /// The page's message (page-chosen); for a sign-in, the server's realm (server-chosen).
    pub message: String,
    /// A prompt's pre-filled text.
    pub default_text: String,
    cb: Option<Answer>,
    pub opened: Instant,
    /// The page opens dialogs in a loop: offer "don't let this page open more dialogs".
    pub offer_suppress: bool,
}

enum Answer {
    Js(cef::JsDialogCallback),
    SignIn(cef::AuthCallback),
}

/// A file chooser waiting for the human.
pub struct OpenChooser {
    pub id: u64,
    pub dialog: cef::FileDialog,
    cb: Option<cef::FileDialogCallback>,
}

/// A permission prompt waiting for the human.
pub struct OpenPermission {
    pub id: u64,
    pub req: cef::PermissionRequest,
    cb: Option<cef::PermissionCallback>,
    /// Not Chromium's prompt but ours: the page wants this link (`mailto:`, `tel:`, an app's
    /// scheme) opened by another application. Asked every time, never remembered.
    pub external: Option<String>,
}

/// A popup widget (`<select>` list, date picker) CEF draws separately from the view.
#[derive(Default, Clone)]
pub struct PopupWidget {
    pub shown: bool,
    /// x, y, w, h in view DIP.
    pub rect: (i32, i32, i32, i32),
    pub frame: Option<Frame>,
}

/// Per-tab requests.
#[derive(Default)]
pub struct TabAsks {
    pub dialog: Option<OpenDialog>,
    /// When recent dialogs opened (loop detection), this document only.
    pub dialog_history: Vec<Instant>,
    pub dialogs_suppressed: bool,
    /// The last dialog was dismissed by the timeout, nobody having answered.
    pub last_dialog_timed_out: bool,
    pub chooser: Option<OpenChooser>,
    pub permission: Option<OpenPermission>,
    pub context_menu: Option<cef::ContextMenu>,
    pub popup: PopupWidget,
    /// The page put an element in fullscreen (the Fullscreen API).
    pub fullscreen: bool,
    /// The last find-in-page result: (active match, matches, CEF's last update for this
    /// search).
    pub find: Option<(u32, u32, bool)>,
    /// A PDF of this tab is being saved (one at a time: a page printing in a loop gets one).
    pub printing: bool,
    /// A vault library file the agent is attaching: the tab's next file chooser is answered
    /// with it by the browser, nobody picking (`crate::vault`).
    pub upload: Option<PathBuf>,
    /// A pop-up this document tried to open without a click, which was stopped: the latest
    /// one's address, and how many it tried (the window's bar offers to open it).
    pub blocked_popup: Option<(String, u32)>,
}

/// Where a download stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadState {
    InProgress,
    Complete,
    Cancelled,
    Failed(String),
}

/// One download of this run.
pub struct Download {
    /// CEF's id.
    pub id: u32,
    pub tab: TabId,
    /// Where it ends up once complete (only then does the name exist).
    pub path: PathBuf,
    /// Where it is written meanwhile.
    pub part: PathBuf,
    pub mime: String,
    pub received: u64,
    pub total: Option<u64>,
    pub state: DownloadState,
    /// The human paused it (CEF says nothing of that itself).
    pub paused: bool,
    ctl: Option<cef::DownloadControl>,
}

/// How dialogs, permissions and file choosers are answered when nobody is at the window.
#[derive(Debug, Clone)]
pub struct PagePolicy {
    /// No window: permissions are blocked, file choosers cancelled, dialogs dismissed after
    /// `dialog_timeout`.
    pub headless: bool,
    pub dialog_timeout: Duration,
    /// Where the next download goes; the settings view changes it while the browser runs
    /// (UI thread only, like the rest of the actor).
    pub download_dir: std::cell::RefCell<Option<PathBuf>>,
    /// Where the human's permission answers are kept across restarts (`None`: in memory).
    pub permissions_file: Option<PathBuf>,
}

/// One remembered permission answer, as `permissions.json` stores it.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedPermission {
    container: String,
    origin: String,
    asked: Vec<String>,
    allow: bool,
}

/// The permission answers saved in `path`. A missing file is none; a damaged one is moved
/// aside (never silently dropped) and reported.
pub fn load_permissions(path: &std::path::Path) -> HashMap<(String, String, Vec<String>), bool> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(e) => {
            tracing::warn!("could not read {}: {e}", path.display());
            return HashMap::new();
        }
    };
    match serde_json::from_slice::<Vec<SavedPermission>>(&bytes) {
        Ok(v) => v
            .into_iter()
            .map(|p| ((p.container, p.origin, p.asked), p.allow))
            .collect(),
        Err(e) => {
            let aside = path.with_extension("json.damaged");
            let _ = std::fs::rename(path, &aside);
            eprintln!(
                "aperture: the saved site permissions could not be read ({e}); the file was kept at {}",
                aside.display()
            );
            HashMap::new()
        }
    }
}

/// Writes the answers of non-private containers to `path` (atomically, 0600).
fn save_permissions(path: &std::path::Path, memory: &HashMap<(String, String, Vec<String>), bool>) {
    let mut v: Vec<SavedPermission> = memory
        .iter()
        .filter(|((c, _, _), _)| c != crate::privacy::PRIVATE)
        .map(|((c, o, k), a)| SavedPermission {
            container: c.clone(),
            origin: o.clone(),
            asked: k.clone(),
            allow: *a,
        })
        .collect();
    v.sort_by(|a, b| (&a.container, &a.origin, &a.asked).cmp(&(&b.container, &b.origin, &b.asked)));
    match serde_json::to_vec_pretty(&v) {
        Ok(b) => {
            if let Err(e) = aperture_common::fs::write_atomic(path, &b) {
                tracing::warn!("could not save site permissions to {}: {e}", path.display());
            }
        }
        Err(e) => tracing::warn!("could not encode site permissions: {e}"),
    }
}

/// Dialogs within this window count as a loop.
const DIALOG_LOOP_WINDOW: Duration = Duration::from_secs(10);
/// This many dialogs in the window offer the stop choice.
const DIALOG_LOOP_COUNT: usize = 3;

/// Tells the tab's console (which the agent reads) what the browser did on its behalf.
pub(super) fn console_note(a: &Actor, id: TabId, text: String) {
    console(a, id, "warning", text);
}

/// A decision the browser made on the page's behalf: into the tab's console, and into its
/// notes, so an agent's action that set it off is answered with it.
fn console(a: &Actor, id: TabId, level: &str, text: String) {
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.notes.push(text.clone());
            t.console.push(ConsoleEntry {
                level: level.into(),
                text,
                source: t.url.clone(),
                line: 0,
            });
        }
    });
}

/// The agent's own way to upload, named where a file chooser was not its to answer.
const UPLOAD_HOW: &str =
    " (an agent uploads a file of the vault's library: vault_request_fill attachment=ID file_input=REF)";

pub(super) fn js_dialog(a: &Actor, id: TabId, d: cef::JsDialog, cb: cef::JsDialogCallback) -> bool {
    let headless = a.services().page.headless;
    let before_unload = matches!(d.kind, cef::JsDialogKind::BeforeUnload { .. });
    let dialog_id = a.next_id();
    let verdict = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        let asks = &mut t.asks;
        if asks.dialog.is_some() || (asks.dialogs_suppressed && !before_unload) {
            return Some(Err(cb));
        }
        let now = Instant::now();
        asks.dialog_history
            .retain(|at| now.duration_since(*at) < DIALOG_LOOP_WINDOW);
        asks.dialog_history.push(now);
        let looping = asks.dialog_history.len() >= DIALOG_LOOP_COUNT;
        // Headless and nobody answered the last one either: stop the page's dialogs, as a
        // human would with the offered choice, instead of a timeout per dialog.
        if headless && looping && asks.last_dialog_timed_out && !before_unload {
            asks.dialogs_suppressed = true;
            return Some(Err(cb));
        }
        asks.dialog = Some(OpenDialog {
            id: dialog_id,
            kind: Asked::Js(d.kind),
            origin: d.origin,
            message: d.message,
            default_text: d.default_text,
            cb: Some(Answer::Js(cb)),
            opened: now,
            offer_suppress: looping && !before_unload,
        });
        st.events.push(Event::Refresh);
        Some(Ok(()))
    });
    match verdict {
        Some(Ok(())) => true,
        Some(Err(cb)) if before_unload => {
            // Cannot be suppressed: leave the page.
            cb.answer(true, "");
            true
        }
        Some(Err(_cb)) => {
            console(
                a,
                id,
                "warning",
                "a JavaScript dialog was suppressed: this page opened dialogs in a loop".into(),
            );
            false
        }
        None => false,
    }
}

/// A server asks for a sign-in for a request of this tab. It is held as the tab's dialog (the
/// human answers it on a sheet, the agent with its `dialog` action); a challenge while
/// another dialog is open is refused, as the page would show the server's refusal.
pub(super) fn sign_in(a: &Actor, id: TabId, c: cef::AuthChallenge, cb: cef::AuthCallback) {
    tracing::debug!(tab = id.0, ?c, "sign-in asked");
    let dialog_id = a.next_id();
    let refused = a.with(|st| {
        let Some(t) = st.tabs.get_mut(&id) else {
            return Some((cb, "the tab is gone"));
        };
        // A logged-out read signs in nowhere: the server's refusal is its answer.
        if t.meta.throwaway {
            return Some((cb, "a logged-out read signs in nowhere"));
        }
        if t.asks.dialog.is_some() {
            return Some((cb, "another dialog was open in this tab"));
        }
        let origin = if c.proxy {
            format!("{}:{}", c.host, c.port)
        } else {
            c.origin.clone()
        };
        // A navigation waiting for its load is answered now: it stays unloaded until someone
        // signs in, and the agent must hear so instead of waiting for a load that never comes.
        for w in t.nav_waiters.drain(..) {
            let _ = w.send(Err(crate::tab::TabError::SignIn {
                origin: origin.clone(),
                realm: c.realm.clone(),
                proxy: c.proxy,
            }));
        }
        t.asks.dialog = Some(OpenDialog {
            id: dialog_id,
            kind: Asked::SignIn { proxy: c.proxy },
            origin,
            message: c.realm,
            default_text: String::new(),
            cb: Some(Answer::SignIn(cb)),
            opened: Instant::now(),
            offer_suppress: false,
        });
        st.events.push(Event::Refresh);
        None
    });
    if let Some((cb, why)) = refused {
        cb.cancel();
        console(
            a,
            id,
            "warning",
            format!("a sign-in (HTTP authentication) was cancelled: {why}"),
        );
    }
}

/// Answers the tab's open dialog (the human in the window, or the agent). A sign-in is
/// answered with `login` (username, password); accepting one without it is refused, and
/// nothing is sent.
pub fn answer_dialog(
    a: &Actor,
    id: TabId,
    accept: bool,
    text: Option<&str>,
    login: Option<(&str, &str)>,
    suppress: bool,
) -> Result<(), String> {
    let open = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        if accept
            && login.is_none()
            && t.asks
                .dialog
                .as_ref()
                .is_some_and(|d| matches!(d.kind, Asked::SignIn { .. }))
        {
            return Some(Err(
                "this dialog is a sign-in: accepting it needs a username and a password".to_string(),
            ));
        }
        let open = t.asks.dialog.take()?;
        if suppress {
            t.asks.dialogs_suppressed = true;
        }
        t.asks.last_dialog_timed_out = false;
        st.events.push(Event::Refresh);
        Some(Ok(open))
    });
    let mut open = match open {
        None => return Err("no dialog is open in this tab".into()),
        Some(Err(why)) => return Err(why),
        Some(Ok(open)) => open,
    };
    match open.cb.take() {
        Some(Answer::Js(cb)) => {
            let text = match open.kind {
                Asked::Js(cef::JsDialogKind::Prompt) => text.unwrap_or(&open.default_text).to_string(),
                _ => String::new(),
            };
            cb.answer(accept, &text);
        }
        Some(Answer::SignIn(cb)) => match login.filter(|_| accept) {
            Some((user, password)) => cb.sign_in(user, password),
            None => cb.cancel(),
        },
        None => {}
    }
    Ok(())
}

pub(super) fn reset_dialogs(a: &Actor, id: TabId) {
    // CEF's JavaScript dialogs only: a sign-in is Chromium's network stack's, voided by
    // [`void_page_asks`] when the tab navigates elsewhere.
    let dropped = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        st.events.push(Event::Refresh);
        t.asks.dialog.take_if(|d| matches!(d.kind, Asked::Js(_)))
    });
    // CEF voided it: its callback is dropped unanswered, outside the state borrow.
    drop(dropped);
}

/// The tab's main frame is navigating elsewhere: a sign-in still open was asked by a request
/// of the page before (Chromium drops that request), and an external link it asked to open
/// was that page's; both go.
pub(super) fn void_page_asks(a: &Actor, id: TabId) {
    let dropped = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        let d = t.asks.dialog.take_if(|d| matches!(d.kind, Asked::SignIn { .. }));
        let p = t.asks.permission.take_if(|p| p.external.is_some());
        if d.is_some() || p.is_some() {
            st.events.push(Event::Refresh);
        }
        Some((d, p))
    });
    drop(dropped);
}

/// Periodic work: dialogs nobody answered in headless mode are dismissed after the timeout,
/// and the agent is told in the tab's console.
pub fn tick(a: &Actor) {
    let p = &a.services().page;
    if !p.headless {
        a.with(|st| {
            if st.expire_notice() {
                st.events.push(Event::Refresh);
            }
        });
        return;
    }
    let expired: Vec<TabId> = a.with(|st| {
        st.tabs
            .iter()
            .filter(|(_, t)| {
                t.asks
                    .dialog
                    .as_ref()
                    .is_some_and(|d| d.opened.elapsed() >= p.dialog_timeout)
            })
            .map(|(id, _)| *id)
            .collect()
    });
    for id in expired {
        let kind = a.with(|st| {
            st.tabs
                .get(&id)
                .and_then(|t| t.asks.dialog.as_ref().map(|d| d.kind))
        });
        if answer_dialog(a, id, false, None, None, false).is_ok() {
            a.with(|st| {
                if let Some(t) = st.tabs.get_mut(&id) {
                    t.asks.last_dialog_timed_out = true;
                }
            });
            console(
                a,
                id,
                "warning",
                match kind {
                    Some(Asked::SignIn { .. }) => format!(
                        "a sign-in (HTTP authentication) was cancelled after {} s: nobody answered it",
                        p.dialog_timeout.as_secs()
                    ),
                    _ => format!(
                        "a JavaScript {} dialog was dismissed after {} s: nobody answered it",
                        kind.map_or("", dialog_word),
                        p.dialog_timeout.as_secs()
                    ),
                },
            );
        }
    }
}

/// "alert", "confirm", "prompt", "leave page", "sign-in".
pub fn dialog_word(k: Asked) -> &'static str {
    match k {
        Asked::Js(cef::JsDialogKind::Alert) => "alert",
        Asked::Js(cef::JsDialogKind::Confirm) => "confirm",
        Asked::Js(cef::JsDialogKind::Prompt) => "prompt",
        Asked::Js(cef::JsDialogKind::BeforeUnload { .. }) => "leave page",
        Asked::SignIn { .. } => "sign-in",
    }
}

pub(super) fn file_dialog(a: &Actor, id: TabId, d: cef::FileDialog, cb: cef::FileDialogCallback) {
    if let Some(path) = a.with(|st| st.tabs.get_mut(&id).and_then(|t| t.asks.upload.take())) {
        cb.choose(&[path]);
        return;
    }
    if a.services().page.headless {
        cb.cancel();
        console(
            a,
            id,
            "warning",
            format!(
                "a file chooser opened and was cancelled: files are chosen by the human in the window{UPLOAD_HOW}"
            ),
        );
        return;
    }
    console(
        a,
        id,
        "info",
        format!("a file chooser opened in the window: the human chooses the files{UPLOAD_HOW}"),
    );
    let chooser_id = a.next_id();
    let old = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        st.events.push(Event::Refresh);
        t.asks.chooser.replace(OpenChooser {
            id: chooser_id,
            dialog: d,
            cb: Some(cb),
        })
    });
    if let Some(mut o) = old
        && let Some(cb) = o.cb.take()
    {
        cb.cancel();
    }
}

/// Answers the tab's file chooser (the human; empty = cancel).
pub fn answer_file_dialog(a: &Actor, chooser: u64, paths: &[PathBuf]) {
    let open = a.with(|st| {
        st.events.push(Event::Refresh);
        st.tabs.values_mut().find_map(|t| {
            if t.asks.chooser.as_ref().is_some_and(|c| c.id == chooser) {
                t.asks.chooser.take()
            } else {
                None
            }
        })
    });
    if let Some(mut o) = open
        && let Some(cb) = o.cb.take()
    {
        if paths.is_empty() {
            cb.cancel();
        } else {
            cb.choose(paths);
        }
    }
}

pub(super) fn permission(a: &Actor, id: TabId, req: cef::PermissionRequest, cb: cef::PermissionCallback) {
    let what = req.kinds.join(", ");
    if a.services().page.headless {
        cb.answer(PermissionAnswer::Block);
        console(
            a,
            id,
            "warning",
            format!("the page asked to {what}; blocked (headless: nobody can answer a permission prompt)"),
        );
        return;
    }
    let prompt_id = a.next_id();
    let decision = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        let key = (
            t.meta.container.clone(),
            req.origin.clone(),
            kinds_key(&req.kinds),
        );
        if let Some(allow) = st.permission_memory.get(&key) {
            return Some(Some(block_or_allow(*allow)));
        }
        if t.asks.permission.is_some() {
            // One prompt at a time per tab: no prompt storm. Refused, not blocked: the site
            // may ask again once the human has answered.
            return Some(Some(PermissionAnswer::Dismiss));
        }
        t.asks.permission = Some(OpenPermission {
            id: prompt_id,
            req: req.clone(),
            cb: None,
            external: None,
        });
        st.events.push(Event::Refresh);
        Some(None)
    });
    match decision {
        Some(Some(answer)) => cb.answer(answer),
        Some(None) => {
            a.with(|st| {
                if let Some(p) = st.tabs.get_mut(&id).and_then(|t| t.asks.permission.as_mut()) {
                    p.cb = Some(cb);
                }
            });
            let gated = a.with(|st| st.tabs.get(&id).is_some_and(|t| t.meta.gated()));
            if gated {
                console(
                    a,
                    id,
                    "warning",
                    format!("the page asked to {what}; the human answers permission prompts"),
                );
            }
        }
        None => cb.answer(PermissionAnswer::Dismiss),
    }
}

fn block_or_allow(allow: bool) -> PermissionAnswer {
    if allow {
        PermissionAnswer::Allow
    } else {
        PermissionAnswer::Block
    }
}

fn kinds_key(kinds: &[&'static str]) -> Vec<String> {
    kinds.iter().map(|k| k.to_string()).collect()
}

/// The longest external link a prompt shows whole.
const EXTERNAL_SHOWN: usize = 120;

/// The scheme of `url` when it is one for another application: anything Chromium does not
/// load itself.
pub fn external_scheme(url: &str) -> Option<String> {
    const CHROMIUM: &[&str] = &[
        "http",
        "https",
        "file",
        "data",
        "blob",
        "about",
        "javascript",
        "filesystem",
        "view-source",
        "ws",
        "wss",
        "chrome",
        "chrome-error",
        "chrome-extension",
        "chrome-untrusted",
        "devtools",
    ];
    let scheme = url::Url::parse(url).ok()?.scheme().to_string();
    (!CHROMIUM.contains(&scheme.as_str())).then_some(scheme)
}

/// A page in the human's tab (in an agent's, the agent-navigation gate refuses such a scheme
/// first) navigated to a link for another application, and the navigation was dropped.
/// Chromium launches nothing; the human is asked on the permission bubble, every time, and an
/// allowed link goes to the desktop's opener. Headless, nobody can allow it.
pub(super) fn external_protocol(a: &Actor, id: TabId, url: String) {
    let scheme = external_scheme(&url).unwrap_or_default();
    if a.services().page.headless {
        console(
            a,
            id,
            "warning",
            format!(
                "the page asked to open a {scheme}: link in another application; blocked (headless: nobody can allow it)"
            ),
        );
        return;
    }
    let prompt_id = a.next_id();
    let asked = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        // One prompt at a time per tab: a page cannot stack them.
        if t.asks.permission.is_some() {
            return Some(false);
        }
        t.asks.permission = Some(OpenPermission {
            id: prompt_id,
            req: cef::PermissionRequest {
                id: 0,
                origin: t.url.clone(),
                kinds: Vec::new(),
            },
            cb: None,
            external: Some(url),
        });
        st.events.push(Event::Refresh);
        Some(true)
    });
    if asked == Some(false) {
        console(
            a,
            id,
            "warning",
            format!(
                "the page asked to open a {scheme}: link in another application while another prompt was open; blocked"
            ),
        );
    }
}

/// A frame navigated to a link for another application with no click or key behind it: the
/// navigation was dropped, and the page's console says so.
pub(super) fn external_unasked(a: &Actor, id: TabId, url: &str) {
    let scheme = external_scheme(url).unwrap_or_default();
    console(
        a,
        id,
        "warning",
        format!("a frame asked to open a {scheme}: link in another application without a click; blocked"),
    );
}

/// How the permission bubble words an external link's request.
pub fn external_kinds(url: &str) -> Vec<String> {
    let scheme = external_scheme(url).unwrap_or_default();
    let shown: String = if url.chars().count() > EXTERNAL_SHOWN {
        url.chars()
            .take(EXTERNAL_SHOWN)
            .chain(std::iter::once('…'))
            .collect()
    } else {
        url.to_string()
    };
    vec![format!(
        "open this {scheme}: link in another application: {shown}"
    )]
}

/// Answers a permission prompt (the human), remembering it for the site and container when
/// `remember` (Allow, Block; not a dismissal, after which the site may ask again); for an
/// external link, the link to hand to the desktop when allowed (never remembered).
pub fn answer_permission(a: &Actor, prompt: u64, allow: bool, remember: bool) -> Option<String> {
    let open = a.with(|st| {
        st.events.push(Event::Refresh);
        let (container, open) = st.tabs.values_mut().find_map(|t| {
            if t.asks.permission.as_ref().is_some_and(|p| p.id == prompt) {
                Some((t.meta.container.clone(), t.asks.permission.take()?))
            } else {
                None
            }
        })?;
        if open.external.is_some() || !remember {
            return Some(open);
        }
        st.permission_memory.insert(
            (container, open.req.origin.clone(), kinds_key(&open.req.kinds)),
            allow,
        );
        if let Some(path) = &a.services().page.permissions_file {
            save_permissions(path, &st.permission_memory);
        }
        Some(open)
    });
    let mut o = open?;
    if let Some(cb) = o.cb.take() {
        cb.answer(if remember {
            block_or_allow(allow)
        } else {
            PermissionAnswer::Dismiss
        });
    }
    o.external.filter(|_| allow)
}

/// The remembered permission answers as (container, origin, what was asked, allowed),
/// sorted: what the settings view lists.
pub fn remembered_permissions(a: &Actor) -> Vec<(String, String, Vec<String>, bool)> {
    let mut v: Vec<_> = a.with(|st| {
        st.permission_memory
            .iter()
            .map(|((c, o, k), allow)| (c.clone(), o.clone(), k.clone(), *allow))
            .collect()
    });
    v.sort();
    v
}

/// Changes a remembered answer (the human, in the settings view): allowed or blocked from the
/// site's next request on, or forgotten (`None`: the site is asked again). Saved at once.
pub fn set_remembered_permission(
    a: &Actor,
    container: &str,
    origin: &str,
    asked: &[String],
    allow: Option<bool>,
) {
    a.with(|st| {
        let key = (container.to_string(), origin.to_string(), asked.to_vec());
        match allow {
            Some(allow) => {
                st.permission_memory.insert(key, allow);
            }
            None => {
                st.permission_memory.remove(&key);
            }
        }
        if let Some(path) = &a.services().page.permissions_file {
            save_permissions(path, &st.permission_memory);
        }
        st.events.push(Event::Refresh);
    });
}

pub(super) fn permission_dismissed(a: &Actor, id: TabId, prompt: u64) {
    let dropped = a.with(|st| {
        let t = st.tabs.get_mut(&id)?;
        if t.asks
            .permission
            .as_ref()
            .is_some_and(|p| p.req.id == prompt && p.external.is_none())
        {
            st.events.push(Event::Refresh);
            t.asks.permission.take()
        } else {
            None
        }
    });
    drop(dropped);
}

pub(super) fn context_menu(a: &Actor, id: TabId, m: cef::ContextMenu) {
    if a.services().page.headless {
        return;
    }
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.asks.context_menu = Some(m);
            st.events.push(Event::Refresh);
        }
    });
}

pub(super) fn popup_show(a: &Actor, id: TabId, show: bool) {
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.asks.popup.shown = show;
            if !show {
                t.asks.popup.frame = None;
            }
            st.events.push(Event::Refresh);
        }
    });
}

pub(super) fn popup_size(a: &Actor, id: TabId, rect: (i32, i32, i32, i32)) {
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.asks.popup.rect = rect;
        }
    });
}

pub(super) fn popup_paint(a: &Actor, id: TabId, f: Frame) {
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.asks.popup.frame = Some(f);
            st.events.push(Event::Refresh);
        }
    });
}

pub(super) fn before_download(
    a: &Actor,
    id: TabId,
    item: cef::DownloadItem,
    cb: cef::BeforeDownloadCallback,
) {
    let Some(dir) = a.services().page.download_dir.borrow().clone() else {
        console(
            a,
            id,
            "error",
            "a download was refused: there is no download directory (HOME unset)".into(),
        );
        return; // Dropping the callback cancels it.
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        console(
            a,
            id,
            "error",
            format!("a download was refused: cannot create {}: {e}", dir.display()),
        );
        return;
    }
    let name = aperture_common::fs::safe_file_name(&item.suggested_name);
    let path = aperture_common::fs::unique_path(&dir, &name);
    let part = aperture_common::fs::part_path(&path);
    tracing::info!(tab = id.0, "download {} to {}", item.id, part.display());
    cb.save_to(&part);
    a.with(|st| {
        // A navigation that became this download never commits: its waiters hear so now
        // instead of waiting out the load timeout for a page that is not coming.
        if let Some(t) = st.tabs.get_mut(&id)
            && !t.nav_committed()
        {
            let shown = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            for w in t.nav_waiters.drain(..) {
                let _ = w.send(Err(crate::tab::TabError::Download {
                    name: shown.clone(),
                    new_tab: false,
                }));
            }
        }
        st.downloads.push(Download {
            id: item.id,
            tab: id,
            path,
            part,
            mime: item.mime_type.clone(),
            received: item.received.max(0) as u64,
            total: (item.total > 0).then_some(item.total as u64),
            state: DownloadState::InProgress,
            paused: false,
            ctl: None,
        });
        st.events.push(Event::Refresh);
    });
}

pub(super) fn download_updated(a: &Actor, item: cef::DownloadItem, ctl: cef::DownloadControl) {
    enum Next {
        Nothing,
        Publish(PathBuf, PathBuf),
        Discard(PathBuf),
    }
    let next = a.with(|st| {
        let Some(d) = st.downloads.iter_mut().find(|d| d.id == item.id) else {
            return Next::Nothing;
        };
        d.received = item.received.max(0) as u64;
        d.total = (item.total > 0).then_some(item.total as u64).or(d.total);
        d.ctl = Some(ctl);
        st.events.push(Event::Refresh);
        if d.state != DownloadState::InProgress {
            return Next::Nothing;
        }
        if item.complete {
            d.ctl = None;
            Next::Publish(d.part.clone(), d.path.clone())
        } else if item.canceled {
            d.state = DownloadState::Cancelled;
            d.ctl = None;
            Next::Discard(d.part.clone())
        } else if item.interrupted {
            d.state = DownloadState::Failed(interrupt_words(item.interrupt_reason).into());
            d.ctl = None;
            Next::Discard(d.part.clone())
        } else {
            Next::Nothing
        }
    });
    let ended = !matches!(next, Next::Nothing);
    match next {
        Next::Nothing => {}
        Next::Publish(part, path) => {
            let r = aperture_common::fs::publish_download(&part, &path);
            a.with(|st| {
                if let Some(d) = st.downloads.iter_mut().find(|d| d.id == item.id) {
                    match r {
                        Ok(p) => {
                            let said = format!("Downloaded {}", p.display());
                            d.path = p;
                            d.state = DownloadState::Complete;
                            st.notice_briefly(said);
                        }
                        Err(e) => d.state = DownloadState::Failed(format!("could not finish the file: {e}")),
                    }
                }
            });
        }
        Next::Discard(part) => {
            // Chromium removes its own partial file on cancel; make sure nothing is left.
            let _ = std::fs::remove_file(&part);
        }
    }
    // A tab closed while this ran was kept alive for it: with its last download over, it goes.
    if ended
        && let Some(host) = a.with(|st| {
            let tab = st.downloads.iter().find(|d| d.id == item.id)?.tab;
            st.done_lingering(tab)
        })
    {
        host.close(true);
    }
}

/// Closes tab `id` as the human or the agent asks: at once, unless a download of its is
/// still running, which closing its browser would cancel (CEF ties downloads to their
/// browser); then it only leaves sight, and its browser closes when the downloads end.
pub fn close_tab(a: &Actor, id: TabId) {
    if a.with(|st| st.linger_for_downloads(id)) {
        return;
    }
    if let Some(h) = a.host(id) {
        h.close(true);
    }
}

/// Cancels a running download (the human, from the downloads panel).
/// Pauses (or resumes) download `id` while it is in progress.
pub fn pause_download(a: &Actor, id: u32, pause: bool) {
    let ctl = a.with(|st| {
        let d = st
            .downloads
            .iter_mut()
            .find(|d| d.id == id && d.state == DownloadState::InProgress)?;
        d.paused = pause;
        st.events.push(Event::Refresh);
        d.ctl.clone()
    });
    match (ctl, pause) {
        (Some(c), true) => c.pause(),
        (Some(c), false) => c.resume(),
        (None, _) => {}
    }
}

pub fn cancel_download(a: &Actor, id: u32) {
    let ctl = a.with(|st| {
        st.downloads
            .iter()
            .find(|d| d.id == id)
            .and_then(|d| d.ctl.clone())
    });
    if let Some(c) = ctl {
        c.cancel();
    }
}

/// CEF's print machinery: a page's `window.print()` asks for the print dialog, which is
/// cancelled (there is no system dialog to draw, and the page's script waits until it is
/// answered) and answered instead the way Ctrl+P is, with a PDF in the download directory.
pub(super) fn print_event(a: &Actor, id: TabId, ev: cef::PrintEvent) {
    match ev {
        cef::PrintEvent::Started | cef::PrintEvent::Reset => {}
        cef::PrintEvent::Dialog { answer, .. } => {
            // Answered after this callback returns: cancelling runs Chromium's print
            // teardown, which the callback itself is part of.
            a.defer(move |a| {
                answer.cancel();
                print_page(a, id, true);
            });
        }
    }
}

/// Ids of the files the browser writes itself (printed PDFs, saved pages) in the downloads
/// list, apart from CEF's download ids (which count up from 1).
const LOCAL_IDS: u32 = 0x8000_0000;

/// Lists a file the browser is about to write itself at `path` (its `.part` name meanwhile)
/// with the downloads, in progress; answers its id for [`local_file_done`].
pub fn local_file_started(a: &Actor, id: TabId, path: &Path, part: &Path, mime: &str) -> u32 {
    let dl = LOCAL_IDS | (a.next_id() as u32 & !LOCAL_IDS);
    a.with(|st| {
        st.downloads.push(Download {
            id: dl,
            tab: id,
            path: path.to_path_buf(),
            part: part.to_path_buf(),
            mime: mime.into(),
            received: 0,
            total: None,
            state: DownloadState::InProgress,
            paused: false,
            ctl: None,
        });
        st.events.push(Event::Refresh);
    });
    dl
}

/// The file listed as `dl` was written to the path answered (or not, and why): the list says
/// so, and the window's notice says where (`saved`: "Saved PDF", …) or what failed.
pub fn local_file_done(a: &Actor, dl: u32, r: &Result<PathBuf, String>, saved: &str, failed: &str) {
    let size = r
        .as_ref()
        .ok()
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len());
    a.with(|st| {
        if let Some(d) = st.downloads.iter_mut().find(|d| d.id == dl) {
            match r {
                Ok(p) => {
                    d.path = p.clone();
                    d.received = size;
                    d.total = Some(size);
                    d.state = DownloadState::Complete;
                }
                Err(e) => d.state = DownloadState::Failed(e.clone()),
            }
        }
        match r {
            Ok(p) => st.notice_briefly(format!("{saved} to {}", p.display())),
            // A failure stays until the human has seen it and closed it.
            Err(e) => st.notices.push(format!("{failed}: {e}")),
        }
        st.events.push(Event::Refresh);
    });
}

/// Saves a PDF of the tab's page in the download directory under a unique name (a `.part`
/// name while it is written), lists it with the downloads and says where in the window's
/// notice; `by_page`: the page's own `window.print()`, which the agent is told of in the
/// tab's console. Never blocks: CEF writes the PDF and calls back.
pub fn print_page(a: &Actor, id: TabId, by_page: bool) {
    let busy = a.with(|st| {
        st.tabs
            .get_mut(&id)
            .map(|t| std::mem::replace(&mut t.asks.printing, true))
    });
    match busy {
        None => return,
        Some(true) => {
            if by_page {
                console_note(
                    a,
                    id,
                    "the page asked to print again while its PDF was still being saved; ignored".into(),
                );
            }
            return;
        }
        Some(false) => {}
    }
    let fail = |a: &Actor, why: String| {
        a.with(|st| {
            if let Some(t) = st.tabs.get_mut(&id) {
                t.asks.printing = false;
            }
            st.notices.push(format!("Cannot print: {why}"));
            st.events.push(Event::Refresh);
        });
        if by_page {
            console(
                a,
                id,
                "error",
                format!("the page asked to print; no PDF was saved: {why}"),
            );
        }
    };
    let Some(dir) = a.services().page.download_dir.borrow().clone() else {
        return fail(a, "there is no download directory".into());
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(a, format!("cannot create {}: {e}", dir.display()));
    }
    let Some((host, title)) = a.with(|st| st.tabs.get(&id).map(|t| (t.host.clone(), t.title.clone()))) else {
        return;
    };
    let name = aperture_common::fs::safe_file_name(&format!(
        "{}.pdf",
        if title.trim().is_empty() {
            "page"
        } else {
            title.trim()
        }
    ));
    let path = aperture_common::fs::unique_path(&dir, &name);
    let part = aperture_common::fs::part_path(&path);
    let dl = local_file_started(a, id, &path, &part, "application/pdf");
    tracing::info!(tab = id.0, "printing to {}", part.display());
    let a2 = a.clone();
    let target = part.clone();
    host.print_to_pdf(
        &target,
        Box::new(move |ok| {
            let r = if ok {
                aperture_common::fs::publish_download(&part, &path).map_err(|e| e.to_string())
            } else {
                Err("Chromium could not make the PDF".into())
            };
            if r.is_err() {
                let _ = std::fs::remove_file(&part);
            }
            a2.with(|st| {
                if let Some(t) = st.tabs.get_mut(&id) {
                    t.asks.printing = false;
                }
            });
            local_file_done(&a2, dl, &r, "Saved PDF", "Printing to PDF failed");
            if by_page {
                match &r {
                    Ok(p) => console_note(
                        &a2,
                        id,
                        format!(
                            "the page asked to print (window.print()); a PDF of it was saved in the download directory as {}",
                            p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
                        ),
                    ),
                    Err(e) => console(
                        &a2,
                        id,
                        "error",
                        format!("the page asked to print; no PDF was saved: {e}"),
                    ),
                }
            }
        }),
    );
}

/// Chromium's download interrupt reasons, in words.
fn interrupt_words(reason: i32) -> &'static str {
    match reason {
        1 => "the file could not be written",
        2 => "access to the download directory was denied",
        3 => "the disk is full",
        5 => "the file name is too long",
        6 => "the file is too large for the disk",
        7 => "a virus scanner flagged the file",
        10 => "the file could not be written (transient error)",
        11 => "the file was blocked",
        20 => "the network failed",
        21 => "the network timed out",
        22 => "the network connection was lost",
        23 => "the server went away",
        24 => "the network request is invalid",
        30 => "the server failed",
        31 => "the server does not support resuming",
        33 => "the server refused (unauthorized)",
        34 => "the server's certificate was refused",
        35 => "the server refused (forbidden)",
        36 => "the server is unreachable",
        40 => "it was cancelled",
        41 => "the browser shut down",
        50 => "the browser crashed",
        _ => "it was interrupted",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_answers_survive_a_restart_but_private_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("permissions.json");
        assert!(load_permissions(&path).is_empty());
        let mut m = HashMap::new();
        let asked = vec!["know your location".to_string()];
        m.insert(
            ("Personal".into(), "https://maps.example".into(), asked.clone()),
            true,
        );
        m.insert(
            ("Work".into(), "https://maps.example".into(), asked.clone()),
            false,
        );
        m.insert(
            (
                crate::privacy::PRIVATE.into(),
                "https://secret.example".into(),
                asked.clone(),
            ),
            true,
        );
        save_permissions(&path, &m);
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600);
        let back = load_permissions(&path);
        assert_eq!(back.len(), 2, "{back:?}");
        assert!(back[&("Personal".into(), "https://maps.example".into(), asked.clone())]);
        assert!(!back[&("Work".into(), "https://maps.example".into(), asked.clone())]);
        // A damaged file is kept aside, not silently dropped.
        std::fs::write(&path, b"{not json").unwrap();
        assert!(load_permissions(&path).is_empty());
        assert_eq!(
            std::fs::read(path.with_extension("json.damaged")).unwrap(),
            b"{not json"
        );
    }
}

#[cfg(test)]
mod external_link_tests {
    use super::{external_kinds, external_scheme};

    #[test]
    fn links_for_other_applications_are_told_from_chromiums_own() {
        for (url, want) in [
            ("mailto:ada@example.org", Some("mailto")),
            ("tel:+15551234", Some("tel")),
            ("MAGNET:?xt=urn:btih:abc", Some("magnet")),
            ("zoommtg://zoom.us/join?confno=1", Some("zoommtg")),
            ("https://example.org/", None),
            ("http://127.0.0.1:8080/x", None),
            ("about:blank", None),
            ("data:text/html,hi", None),
            ("chrome-error://chromewebdata/", None),
            ("file:///tmp/x.html", None),
            ("not a url", None),
        ] {
            assert_eq!(external_scheme(url).as_deref(), want, "{url}");
        }
        let long = format!("mailto:{}@example.org", "a".repeat(300));
        let k = external_kinds(&long);
        assert!(k[0].starts_with("open this mailto: link in another application: mailto:aaa"));
        assert!(k[0].ends_with('…') && k[0].chars().count() < 200, "{}", k[0]);
    }
}
