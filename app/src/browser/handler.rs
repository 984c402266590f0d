//! The actor's side of CEF's callbacks: each typed event from `cef::ClientHandler` becomes a
//! change to the actor's state. Everything here runs on the UI thread inside CEF's work.

use super::state::{ConsoleEntry, Frame};
use super::{Actor, Event, tab_id};
use crate::tab::TabOptions;
use cef::BrowserId;

pub(super) struct Handler(pub(super) Actor);

/// What a tab a page opens inherits from its opener: its view size and scale, and its
/// provenance. A popup of a gated tab is gated too.
fn popup_meta(
    st: &super::state::State,
    opener: aperture_mcp::backend::TabId,
) -> Option<((i32, i32), f32, super::state::TabMeta)> {
    let t = st.tabs.get(&opener)?;
    let gated = t.meta.gated();
    let meta = super::state::TabMeta {
        human_driving: false,
        agent_touched: false,
        agent_attached: gated,
        network_enabled: false,
        ..t.meta.clone()
    };
    Some((t.size, t.scale, meta))
}

/// The origin a page's pop-ups are allowed for (`http://127.0.0.1:8080`); `None` for a page
/// with no origin of its own (`data:`, `about:blank`).
pub(crate) fn popup_origin(url: &str) -> Option<String> {
    let o = url::Url::parse(url).ok()?.origin();
    o.is_tuple().then(|| o.ascii_serialization())
}

impl Handler {
    /// Whether a page may open `url` in a new tab or window: a popup no click or key asked
    /// for is blocked, as browsers do (the window says so), and a gated tab's new tab meets
    /// the agent-navigation gate here (window.open is a navigation path like any other).
    fn popup_allowed(
        &self,
        opener: aperture_mcp::backend::TabId,
        url: &str,
        how: cef::Disposition,
        gesture: bool,
    ) -> bool {
        let site_allowed = || {
            self.0.with(|st| {
                st.tabs
                    .get(&opener)
                    .and_then(|t| popup_origin(&t.url))
                    .is_some_and(|o| st.popup_origins.contains(&o))
            })
        };
        if !gesture && how == cef::Disposition::Popup && !site_allowed() {
            self.0.with(|st| st.popup_stopped(opener, url));
            return false;
        }
        let gated = self
            .0
            .with(|st| st.tabs.get(&opener).is_some_and(|t| t.meta.gated()));
        if gated && let Err(rule) = gate_url(&self.0.services().nav_policy, url, true) {
            self.0
                .with(|st| st.refuse_navigation(opener, format!("window.open {rule}")));
            return false;
        }
        true
    }
}

impl cef::ClientHandler for Handler {
    fn on_after_created(
        &self,
        browser: cef::Browser,
        host: cef::BrowserHost,
        reg: Option<cef::DevToolsRegistration>,
    ) {
        let id = tab_id(browser.id());
        self.0.with(|st| st.browser_created(id, browser, host, reg));
    }

    fn on_before_close(&self, id: BrowserId) {
        let removed = self.0.with(|st| st.browser_closed(tab_id(id)));
        drop(removed); // Release CEF references outside the state borrow.
    }

    fn on_popup(
        &self,
        opener: BrowserId,
        popup_id: i32,
        url: String,
        how: cef::Disposition,
        user_gesture: bool,
    ) -> bool {
        // CEF creates the popup (so the page keeps its opener: `window.open` returns it, and an
        // OAuth or payment window can post back and close), as an ordinary tab in the opener's
        // container with the opener's provenance; `browser_created` finds it by its opener.
        let opener = tab_id(opener);
        if !self.popup_allowed(opener, &url, how, user_gesture) {
            return false;
        }
        let pending = self.0.with(|st| {
            let (size, scale, meta) = popup_meta(st, opener)?;
            st.pending_popups.push(super::state::PendingPopup {
                opener,
                popup_id,
                url,
                background: how == cef::Disposition::BackgroundTab,
                size,
                scale,
                meta,
            });
            Some(())
        });
        pending.is_some()
    }

    fn on_popup_aborted(&self, opener: BrowserId, popup_id: i32) {
        let opener = tab_id(opener);
        tracing::warn!(tab = opener.0, popup_id, "a popup could not be created");
        self.0.with(|st| {
            st.pending_popups
                .retain(|p| !(p.opener == opener && p.popup_id == popup_id))
        });
    }

    fn on_open_elsewhere(&self, opener: BrowserId, url: String, how: cef::Disposition, user_gesture: bool) {
        // A link the human sent to a new tab: a tab of ours, created after this callback
        // returns (CEF forbids creating a browser from inside it), with no opener to script.
        let opener = tab_id(opener);
        if !self.popup_allowed(opener, &url, how, user_gesture) {
            return;
        }
        self.0.defer(move |a| {
            let Some((host, (size, scale, meta))) = a.with(|st| {
                let host = st.tabs.get(&opener)?.host.clone();
                Some((host, popup_meta(st, opener)?))
            }) else {
                return;
            };
            let opts = TabOptions {
                size,
                scale,
                meta,
                context: host.request_context(),
            };
            match a.create_browser(&url, opts) {
                Ok(id) => {
                    a.with(|st| st.popup_opened(id, opener, url, how == cef::Disposition::BackgroundTab))
                }
                Err(e) => tracing::warn!("could not open the tab {url}: {e}"),
            }
        });
    }

    fn on_loading_state_change(&self, id: BrowserId, loading: bool, back: bool, fwd: bool) {
        self.0.with(|st| st.loading_state(tab_id(id), loading, back, fwd));
        // Chromium's list changed (or may have): re-read it once this callback returns.
        let id = tab_id(id);
        self.0.defer(move |a| super::history::refresh(a, id));
    }

    fn on_main_load_end(&self, id: BrowserId, status: i32, url: String) {
        self.0.with(|st| st.load_end(tab_id(id), status, url));
    }

    fn on_main_load_error(&self, id: BrowserId, code: i32, text: String, url: String) {
        self.0.with(|st| st.load_error(tab_id(id), code, text, url));
    }

    fn view_size(&self, id: BrowserId) -> (i32, i32, f32) {
        self.0.with(|st| st.view_size(tab_id(id)))
    }

    fn on_paint(&self, id: BrowserId, w: u32, h: u32, bgra: &[u8]) {
        let f = Frame {
            w,
            h,
            bgra: std::sync::Arc::new(bgra.to_vec()),
        };
        self.0.with(|st| st.paint(tab_id(id), f));
    }

    fn on_main_address_change(&self, id: BrowserId, url: String) {
        let id = tab_id(id);
        // Same-document navigations (pushState, fragments) change the list without a load.
        self.0.defer(move |a| super::history::refresh(a, id));
        let gated = self.0.with(|st| {
            st.address(id, url.clone());
            st.tabs
                .get(&id)
                .is_some_and(|t| t.meta.gated() && !(t.rehosting && url == crate::tab::REHOST_URL))
        });
        // The backstop of the gate: a gated tab that arrives on a refused address by a path
        // on_before_browse did not see (a page restored from the back-forward cache, say) is
        // marked and left.
        if gated && let Err(rule) = gate_url(&self.0.services().nav_policy, &url, true) {
            self.0.with(|st| st.refuse_page(id, url, rule));
            leave_page(&self.0, id);
        }
    }

    fn on_title_change(&self, id: BrowserId, title: String) {
        // Whose title: an error page's title ("nosuch.invalid") arrives before its address,
        // and was taken for the page before it.
        let url = self
            .0
            .browser(tab_id(id))
            .and_then(|b| b.main_frame())
            .map(|f| f.url());
        self.0.with(|st| st.title(tab_id(id), title, url));
        // The entry's title is part of the saved back/forward list.
        let id = tab_id(id);
        self.0.defer(move |a| super::history::refresh(a, id));
    }

    fn on_console_message(
        &self,
        id: BrowserId,
        level: cef::ConsoleLevel,
        text: String,
        source: String,
        line: i32,
    ) {
        let level = match level {
            cef::ConsoleLevel::Error => "error",
            cef::ConsoleLevel::Warning => "warning",
            cef::ConsoleLevel::Info => "info",
        };
        let e = ConsoleEntry {
            level: level.into(),
            text,
            source,
            line,
        };
        self.0.with(|st| st.console(tab_id(id), e));
    }

    fn on_status_message(&self, id: BrowserId, text: String) {
        self.0.with(|st| {
            if let Some(t) = st.tabs.get_mut(&tab_id(id)) {
                t.status_text = text;
                st.events.push(Event::Refresh);
            }
        });
    }

    fn on_tooltip(&self, id: BrowserId, text: String) {
        self.0.with(|st| {
            if let Some(t) = st.tabs.get_mut(&tab_id(id))
                && t.tooltip != text
            {
                t.tooltip = text;
                st.events.push(Event::Refresh);
            }
        });
    }

    fn on_auth_request(&self, id: BrowserId, challenge: cef::AuthChallenge, cb: cef::AuthCallback) {
        super::page::sign_in(&self.0, tab_id(id), challenge, cb);
    }

    fn on_cursor_change(&self, id: BrowserId, cursor: cef::Cursor) {
        self.0.with(|st| st.cursor(tab_id(id), cursor));
    }

    fn on_render_process_terminated(&self, id: BrowserId, why: String) {
        let why = format!("the renderer process ended: {why}");
        tracing::warn!(tab = id, "{why}");
        self.0.with(|st| st.renderer_gone(tab_id(id), why));
    }

    fn on_before_browse(&self, id: BrowserId, nav: cef::Navigation) -> bool {
        // The one navigation gate: every navigation of a gated tab (link clicks, form
        // submissions before their body is sent, script and meta-refresh navigations,
        // redirects, back/forward/reload, subframes) meets the agent-navigation policy here,
        // before any request leaves. Cancelling by returning true is what CEF allows inside
        // this callback; nothing here calls back into the browser.
        let id = tab_id(id);
        // The tab goes elsewhere: a sign-in or an external link still open belongs to the page
        // before (the challenged request's own navigation started before it was asked).
        if nav.main_frame {
            super::page::void_page_asks(&self.0, id);
        }
        let Some((throwaway, rehosting)) = self.0.with(|st| {
            st.tabs
                .get(&id)
                .filter(|t| t.meta.gated())
                .map(|t| (t.meta.throwaway, t.rehosting))
        }) else {
            // The human's tab. A link for another application (`mailto:`, `tel:`, an app's
            // scheme) is not Chromium's to load: it would replace the page (or the frame) with
            // an "unknown scheme" error. The navigation is dropped, the page stays, and the
            // human is asked whether to hand the link to the desktop. A frame asks only with a
            // click or key behind it, as Chrome: an advert's frame cannot raise the prompt on
            // its own.
            if super::page::external_scheme(&nav.url).is_some() {
                let url = nav.url.clone();
                if nav.main_frame || nav.user_gesture {
                    self.0.defer(move |a| super::page::external_protocol(a, id, url));
                } else {
                    self.0.defer(move |a| super::page::external_unasked(a, id, &url));
                }
                return true;
            }
            return false;
        };
        // The empty document a page is moved to a new renderer through fetches nothing.
        if rehosting && nav.main_frame && nav.url == crate::tab::REHOST_URL {
            return false;
        }
        // A logged-out read goes to the site itself, never through a mirror of it.
        let mirror = throwaway
            .then(|| aperture_mcp::logged_out::mirror_refusal(&nav.url))
            .flatten();
        let gate = match mirror {
            Some(why) => Err(why),
            None => gate_url(&self.0.services().nav_policy, &nav.url, nav.main_frame),
        };
        match gate {
            Ok(()) => false,
            Err(rule) => {
                let what = match (nav.main_frame, nav.is_redirect) {
                    (true, true) => "redirect",
                    (true, false) => "navigation",
                    (false, _) => "subframe",
                };
                tracing::info!(tab = id.0, "{what} refused by the agent-navigation policy");
                let rule = format!("{what} {rule}");
                if nav.main_frame {
                    self.0.with(|st| st.refuse_navigation(id, rule));
                } else {
                    self.0.with(|st| st.refuse_subframe(id, rule));
                }
                true
            }
        }
    }

    fn on_document_available(&self, id: BrowserId) {
        self.0.with(|st| st.document_available(tab_id(id)));
    }

    fn on_script_reply(&self, _id: BrowserId, rid: u64, reply: Result<String, String>) {
        self.0.with(|st| st.rpc_reply(rid, reply));
    }

    fn on_media_access_change(&self, id: BrowserId, video: bool, audio: bool) {
        self.0.with(|st| {
            if let Some(t) = st.tabs.get_mut(&tab_id(id)) {
                t.capturing = (video, audio);
                st.events.push(Event::Refresh);
            }
        });
    }

    fn on_page_event(&self, id: BrowserId, frame: String, _main: bool, body: String) {
        self.0.with(|st| st.page_event(tab_id(id), frame, &body));
    }

    fn on_devtools_message(&self, id: BrowserId, json: &[u8]) {
        let id = tab_id(id);
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(json) else {
            return;
        };
        if let Some(m) = v["method"].as_str().filter(|m| m.starts_with("Network.")) {
            self.0.with(|st| {
                if let Some(t) = st.tabs.get_mut(&id) {
                    t.net.event(m, &v["params"]);
                }
            });
        }
        if v.get("method").and_then(|m| m.as_str()) == Some("Network.responseReceived") {
            check_document_response(&self.0, id, &v);
            return;
        }
        if let Some(mid) = v.get("id").and_then(|x| x.as_i64()) {
            let result = match v.get("error") {
                Some(e) => Err(e.to_string()),
                None => Ok(v.get("result").cloned().unwrap_or(serde_json::Value::Null)),
            };
            self.0.with(|st| st.devtools_reply(id, mid, result));
        }
    }

    fn on_js_dialog(&self, id: BrowserId, dialog: cef::JsDialog, cb: cef::JsDialogCallback) -> bool {
        super::page::js_dialog(&self.0, tab_id(id), dialog, cb)
    }

    fn on_reset_dialogs(&self, id: BrowserId) {
        super::page::reset_dialogs(&self.0, tab_id(id));
    }

    fn on_before_download(&self, id: BrowserId, item: cef::DownloadItem, cb: cef::BeforeDownloadCallback) {
        let id = tab_id(id);
        // A logged-out read keeps nothing: a download it would start is cancelled (dropping
        // the callback cancels it).
        let throwaway = self.0.with(|st| {
            let throwaway = st.tabs.get(&id).is_some_and(|t| t.meta.throwaway);
            if throwaway {
                // The read is answered now rather than at its timeout.
                st.refuse_navigation(
                    id,
                    "the address is a file download, which a logged-out read does not save".into(),
                );
            }
            throwaway
        });
        if throwaway {
            tracing::info!(tab = id.0, "a logged-out read's download was cancelled");
            return;
        }
        super::page::before_download(&self.0, id, item, cb);
    }

    fn on_download_updated(&self, _id: BrowserId, item: cef::DownloadItem, ctl: cef::DownloadControl) {
        super::page::download_updated(&self.0, item, ctl);
    }

    fn on_context_menu(&self, id: BrowserId, menu: cef::ContextMenu) {
        super::page::context_menu(&self.0, tab_id(id), menu);
    }

    fn on_file_dialog(&self, id: BrowserId, dialog: cef::FileDialog, cb: cef::FileDialogCallback) {
        super::page::file_dialog(&self.0, tab_id(id), dialog, cb);
    }

    fn on_permission_request(&self, id: BrowserId, req: cef::PermissionRequest, cb: cef::PermissionCallback) {
        super::page::permission(&self.0, tab_id(id), req, cb);
    }

    fn on_permission_dismissed(&self, id: BrowserId, prompt: u64) {
        super::page::permission_dismissed(&self.0, tab_id(id), prompt);
    }

    fn on_popup_show(&self, id: BrowserId, show: bool) {
        super::page::popup_show(&self.0, tab_id(id), show);
    }

    fn on_popup_size(&self, id: BrowserId, x: i32, y: i32, w: i32, h: i32) {
        super::page::popup_size(&self.0, tab_id(id), (x, y, w, h));
    }

    fn on_find_result(&self, id: BrowserId, count: i32, active: i32, last: bool) {
        self.0.with(|st| {
            if let Some(t) = st.tabs.get_mut(&tab_id(id)) {
                // CEF reports the count first and the active match later; keep what we knew.
                let (a0, c0, _) = t.asks.find.unwrap_or_default();
                let active = if active > 0 { active as u32 } else { a0 };
                let count = if count >= 0 { count as u32 } else { c0 };
                t.asks.find = Some((active, count, last));
                st.events.push(Event::Refresh);
            }
        });
    }

    fn on_key_not_taken(&self, id: BrowserId, key: cef::KeyEvent) {
        // Only key-downs can be shortcuts; characters and releases would only be noise.
        if key.kind == cef::KeyEventKind::RawKeyDown {
            self.0
                .with(|st| st.events.push(Event::KeyNotTaken { id: tab_id(id), key }));
        }
    }

    fn on_fullscreen(&self, id: BrowserId, fullscreen: bool) {
        self.0.with(|st| {
            if let Some(t) = st.tabs.get_mut(&tab_id(id)) {
                t.asks.fullscreen = fullscreen;
                st.events.push(Event::Refresh);
            }
        });
    }

    fn on_favicon_urls(&self, id: BrowserId, urls: Vec<String>) {
        self.0
            .with(|st| st.events.push(Event::Favicon { id: tab_id(id), urls }));
    }

    fn on_print(&self, id: BrowserId, ev: cef::PrintEvent) {
        super::page::print_event(&self.0, tab_id(id), ev);
    }

    fn on_start_dragging(
        &self,
        id: BrowserId,
        data: cef::DragData,
        allowed: cef::DragOps,
        x: i32,
        y: i32,
    ) -> bool {
        let id = tab_id(id);
        let Some(host) = self.0.host(id) else {
            return false;
        };
        // The view is the drag's source and its first target: enter it where the drag began,
        // then the pointer carries it (`browser::pointer`) until the button is released.
        self.0.with(|st| {
            if let Some(t) = st.tabs.get_mut(&id) {
                t.drag = Some(super::pointer::Drag {
                    allowed,
                    op: cef::DragOps::NONE,
                    inside: true,
                });
            }
        });
        let at = cef::MouseEvent {
            x,
            y,
            modifiers: cef::EventFlags::LEFT_BUTTON,
        };
        host.drag_target_enter(&data, &at, allowed);
        true
    }

    fn on_drag_operation(&self, id: BrowserId, op: cef::DragOps) {
        self.0.with(|st| {
            if let Some(d) = st.tabs.get_mut(&tab_id(id)).and_then(|t| t.drag.as_mut()) {
                d.op = op;
            }
        });
    }

    fn on_text_selection(&self, id: BrowserId, text: String) {
        // Cleared selections too: a later copy must not hand on text no longer selected.
        self.0
            .with(|st| st.events.push(Event::Selection { id: tab_id(id), text }));
    }

    fn on_popup_paint(&self, id: BrowserId, w: u32, h: u32, bgra: &[u8]) {
        let f = Frame {
            w,
            h,
            bgra: std::sync::Arc::new(bgra.to_vec()),
        };
        super::page::popup_paint(&self.0, tab_id(id), f);
    }
}

/// `Network.responseReceived`: failed requests go to the console; for the main document of an
/// agent navigation, the connected address must pass the policy too (DNS may have answered
/// differently than our lookup).
fn check_document_response(a: &Actor, id: aperture_mcp::backend::TabId, v: &serde_json::Value) {
    let p = &v["params"];
    // Any response with an error status is a failed request for the console tool (a fetch()
    // that got a 404 is invisible to the page's console otherwise).
    if let Some(code) = p["response"]["status"].as_u64().filter(|c| *c >= 400) {
        let e = ConsoleEntry {
            level: "error".into(),
            text: format!(
                "request failed: HTTP {code} {}",
                p["response"]["statusText"].as_str().unwrap_or("")
            ),
            source: p["response"]["url"].as_str().unwrap_or_default().to_string(),
            line: 0,
        };
        a.with(|st| st.console(id, e));
    }
    if p["type"] != "Document" {
        return;
    }
    // A navigation answered before its load end reports its document's status from here.
    if let (Some(url), Some(code)) = (p["response"]["url"].as_str(), p["response"]["status"].as_i64()) {
        let doc = (url.to_string(), i32::try_from(code).unwrap_or(0));
        a.with(|st| {
            if let Some(t) = st.tabs.get_mut(&id) {
                t.document_status = Some(doc);
            }
        });
    }
    // Every document of a gated tab (main frame or subframe): the name passed the gate, but
    // DNS may have answered with a private address since.
    if !a.with(|st| st.tabs.get(&id).is_some_and(|t| t.meta.gated())) {
        return;
    }
    let (Some(url), Some(ip)) = (
        p["response"]["url"].as_str(),
        p["response"]["remoteIPAddress"].as_str(),
    ) else {
        return;
    };
    let ip = ip.trim_start_matches('[').trim_end_matches(']');
    let Ok(addr) = ip.parse::<std::net::IpAddr>() else {
        return;
    };
    let policy = &a.services().nav_policy;
    let verdict = policy
        .check_destination(url)
        .and_then(|c| policy.check_connected_address(&c, addr));
    if let Err(e) = verdict {
        // Marked by the response's URL: a main-frame document's commit then keeps the mark
        // (same address); either way it lasts until the tab shows about:blank. A refused
        // subframe's document is refused by leaving the whole page: the tab's content is what
        // the agent reads.
        a.with(|st| st.refuse_page(id, url.to_string(), e.to_string()));
        leave_page(a, id);
    }
}

/// The gate's verdict on a URL a gated tab is about to show: the agent-navigation policy,
/// plus the blank and inline documents browsers create themselves (about:blank, srcdoc, and
/// data:/blob: subframes, which fetch nothing from the network).
fn gate_url(policy: &aperture_privacy::NavigationPolicy, url: &str, main_frame: bool) -> Result<(), String> {
    let u = url.trim();
    let lower = u.get(..6).unwrap_or(u).to_ascii_lowercase();
    if u.eq_ignore_ascii_case("about:blank")
        || u.to_ascii_lowercase().starts_with("about:blank#")
        || u.eq_ignore_ascii_case("about:srcdoc")
        || (!main_frame && (lower.starts_with("data:") || lower.starts_with("blob:")))
        || u.starts_with(PDF_VIEWER)
    {
        return Ok(());
    }
    policy.check_destination(u).map(|_| ()).map_err(|e| e.to_string())
}

/// Chromium's own PDF viewer (a component extension, a part of the browser): a PDF the tab
/// navigates to is shown in it, and CEF reports the viewer's document as a main frame's. Never
/// a destination the agent can name (the backend refuses the scheme before this gate), and a
/// web page cannot navigate to it.
const PDF_VIEWER: &str = "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/";

/// Stops the tab and shows about:blank, after the current CEF callback has returned (CEF
/// forbids navigating from inside several of them; doing so from the DevTools observer
/// crashed libcef).
fn leave_page(a: &Actor, id: aperture_mcp::backend::TabId) {
    a.defer(move |a| {
        if let Some(b) = a.browser(id) {
            b.stop_load();
            if let Some(f) = b.main_frame() {
                f.load_url("about:blank");
            }
        }
    });
}
