//! The actor's side of CEF's callbacks: each typed event from `cef::ClientHandler` becomes a
//! change to the actor's state. Everything here runs on the UI thread inside CEF's work.

use super::state::{ConsoleEntry, Frame};
use super::{Actor, Event, tab_id};
use crate::tab::TabOptions;
use cef::BrowserId;

pub(super) struct Handler(pub(super) Actor);

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

    fn on_popup(&self, opener: BrowserId, url: String) {
        // Popups and new windows become ordinary tabs in the opener's container, with the
        // opener's provenance, created after this callback returns (CEF forbids creating a
        // browser from inside it).
        let opener = tab_id(opener);
        self.0.defer(move |a| {
            let Some((host, meta, size, scale)) = a.with(|st| {
                st.tabs
                    .get(&opener)
                    .map(|t| (t.host.clone(), t.meta.clone(), t.size, t.scale))
            }) else {
                return;
            };
            let opts = TabOptions {
                size,
                scale,
                meta: super::state::TabMeta {
                    human_driving: false,
                    agent_touched: false,
                    agent_nav: false,
                    doc_check_pending: false,
                    network_enabled: false,
                    ..meta
                },
                context: host.request_context(),
            };
            match a.create_browser(&url, opts) {
                Ok(id) => a.with(|st| st.events.push(Event::TabOpened { id, opener, url })),
                Err(e) => tracing::warn!("could not open the popup {url}: {e}"),
            }
        });
    }

    fn on_loading_state_change(&self, id: BrowserId, loading: bool, back: bool, fwd: bool) {
        self.0.with(|st| st.loading_state(tab_id(id), loading, back, fwd));
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
        self.0.with(|st| st.address(tab_id(id), url));
    }

    fn on_title_change(&self, id: BrowserId, title: String) {
        self.0.with(|st| st.title(tab_id(id), title));
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

    fn on_cursor_change(&self, id: BrowserId, cursor: cef::Cursor) {
        self.0.with(|st| st.cursor(tab_id(id), cursor));
    }

    fn on_render_process_terminated(&self, id: BrowserId, why: String) {
        let why = format!("the renderer process ended: {why}");
        tracing::warn!(tab = id, "{why}");
        self.0.with(|st| st.renderer_gone(tab_id(id), why));
    }

    fn on_before_browse(&self, id: BrowserId, nav: cef::Navigation) -> bool {
        if !nav.is_redirect || !nav.main_frame {
            return false;
        }
        let id = tab_id(id);
        if !self
            .0
            .with(|st| st.tabs.get(&id).is_some_and(|t| t.meta.agent_nav))
        {
            return false;
        }
        // A public page may redirect the agent to 169.254.169.254: redirects meet the same rules.
        match self.0.services().nav_policy.check_destination(&nav.url) {
            Err(e) => {
                let rule = format!("redirect {e}");
                self.0.with(|st| st.refuse_navigation(id, rule));
                true
            }
            Ok(_) => false,
        }
    }

    fn on_document_available(&self, id: BrowserId) {
        self.0.with(|st| st.document_available(tab_id(id)));
    }

    fn on_script_reply(&self, _id: BrowserId, rid: u64, reply: Result<String, String>) {
        self.0.with(|st| st.rpc_reply(rid, reply));
    }

    fn on_devtools_message(&self, id: BrowserId, json: &[u8]) {
        let id = tab_id(id);
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(json) else {
            return;
        };
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
    let pending = a.with(|st| {
        st.tabs
            .get_mut(&id)
            .is_some_and(|t| std::mem::replace(&mut t.meta.doc_check_pending, false))
    });
    if !pending {
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
        a.with(|st| st.refuse_navigation(id, e.to_string()));
        // Navigating from inside a DevTools observer callback is what CEF forbids: stop and
        // leave the page once the callback has returned.
        a.defer(move |a| {
            if let Some(b) = a.browser(id) {
                b.stop_load();
                if let Some(f) = b.main_frame() {
                    f.load_url("about:blank");
                }
            }
        });
    }
}
