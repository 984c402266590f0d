//! The CEF handler objects of the browser process (client, life span, load, render, display,
//! request, DevTools observer) and of all processes (the app). Every callback runs on CEF's
//! UI thread — our main thread, inside `cef_do_message_loop_work` — except where noted.

use crate::cef::{RcBox, Ref, from_cef, strings, sys::*};
use crate::state::{self, ConsoleEntry, Frame};
use std::ffi::{c_int, c_ulong, c_void};

/// Chromium switches for every launch. Each has a reason; the privacy crate adds its own.
const SWITCHES: &[(&str, Option<&str>)] = &[
    // No display is needed: render through ozone's headless platform and SwiftShader.
    ("ozone-platform", Some("headless")),
    ("use-angle", Some("swiftshader")),
    ("enable-unsafe-swiftshader", None),
    // Back/forward-cache frame swaps make the CEF 131 browser-info race (cef#4001) likelier.
    ("disable-back-forward-cache", None),
    // No "restore pages?" or first-run UI in an embedded browser.
    ("no-first-run", None),
    ("no-default-browser-check", None),
    ("password-store", Some("basic")),
];

pub struct AppData {
    /// Headed mode keeps the X11 platform instead of ozone headless.
    pub headless: bool,
    pub extra_switches: Vec<(String, Option<String>)>,
}

type App = RcBox<cef_app_t, AppData>;

/// The `cef_app_t` used by every process (browser and subprocesses).
pub fn new_app(data: AppData) -> *mut cef_app_t {
    App::new(
        |a| {
            a.on_before_command_line_processing = Some(on_before_command_line_processing);
            a.get_browser_process_handler = Some(get_browser_process_handler);
            a.get_render_process_handler = Some(get_render_process_handler);
        },
        data,
    )
}

extern "C" fn on_before_command_line_processing(
    this: *mut cef_app_t,
    process_type: *const cef_string_t,
    cl: *mut cef_command_line_t,
) {
    // Only the browser process: children get their switches from it.
    if !from_cef(process_type).is_empty() {
        return;
    }
    let data = unsafe { App::data(this) };
    let add = |k: &str, v: Option<&str>| {
        let k = strings::CefStr::new(k);
        match v {
            Some(v) => {
                let v = strings::CefStr::new(v);
                crate::call!((cl).append_switch_with_value(k.as_ptr(), v.as_ptr()));
            }
            None => crate::call!((cl).append_switch(k.as_ptr())),
        }
    };
    for (k, v) in SWITCHES {
        if !data.headless && *k == "ozone-platform" {
            continue;
        }
        add(k, *v);
    }
    for (k, v) in &data.extra_switches {
        add(k, v.as_deref());
    }
}

fn bph() -> *mut cef_browser_process_handler_t {
    thread_local! {
        static H: *mut cef_browser_process_handler_t = RcBox::<cef_browser_process_handler_t, ()>::new(
            |h| {
                h.on_context_initialized = Some(on_context_initialized);
                h.on_schedule_message_pump_work = Some(on_schedule_message_pump_work);
            },
            (),
        );
    }
    H.with(|h| unsafe { RcBox::<cef_browser_process_handler_t, ()>::add_ref(*h) })
}

extern "C" fn get_browser_process_handler(_: *mut cef_app_t) -> *mut cef_browser_process_handler_t {
    bph()
}

extern "C" fn get_render_process_handler(_: *mut cef_app_t) -> *mut cef_render_process_handler_t {
    crate::renderer::handler()
}

extern "C" fn on_context_initialized(_: *mut cef_browser_process_handler_t) {
    state::pump().context_initialized();
}

extern "C" fn on_schedule_message_pump_work(_: *mut cef_browser_process_handler_t, delay_ms: i64) {
    // May be called on any thread.
    state::pump().schedule(delay_ms);
}

// ---------------------------------------------------------------------------------------------
// Client: one object shared by every browser; per-browser state is looked up by identifier.

struct Handlers {
    life: *mut cef_life_span_handler_t,
    load: *mut cef_load_handler_t,
    render: *mut cef_render_handler_t,
    display: *mut cef_display_handler_t,
    request: *mut cef_request_handler_t,
    resource: *mut cef_resource_request_handler_t,
}
// SAFETY: these are immortal, thread-safe refcounted CEF objects created once.
unsafe impl Send for Handlers {}
unsafe impl Sync for Handlers {}

fn handlers() -> &'static Handlers {
    static H: std::sync::OnceLock<Handlers> = std::sync::OnceLock::new();
    H.get_or_init(|| Handlers {
        life: RcBox::<cef_life_span_handler_t, ()>::new(
            |h| {
                h.on_after_created = Some(on_after_created);
                h.on_before_close = Some(on_before_close);
                h.on_before_popup = Some(on_before_popup);
            },
            (),
        ),
        load: RcBox::<cef_load_handler_t, ()>::new(
            |h| {
                h.on_loading_state_change = Some(on_loading_state_change);
                h.on_load_end = Some(on_load_end);
                h.on_load_error = Some(on_load_error);
            },
            (),
        ),
        render: RcBox::<cef_render_handler_t, ()>::new(
            |h| {
                h.get_view_rect = Some(get_view_rect);
                h.get_screen_info = Some(get_screen_info);
                h.on_paint = Some(on_paint);
            },
            (),
        ),
        display: RcBox::<cef_display_handler_t, ()>::new(
            |h| {
                h.on_address_change = Some(on_address_change);
                h.on_title_change = Some(on_title_change);
                h.on_console_message = Some(on_console_message);
                h.on_cursor_change = Some(on_cursor_change);
            },
            (),
        ),
        request: RcBox::<cef_request_handler_t, ()>::new(
            |h| {
                h.on_render_process_terminated = Some(on_render_process_terminated);
                h.on_document_available_in_main_frame = Some(on_document_available);
                h.on_before_browse = Some(on_before_browse);
                h.get_resource_request_handler = Some(get_resource_request_handler);
            },
            (),
        ),
        resource: RcBox::<cef_resource_request_handler_t, ()>::new(
            |h| {
                h.on_before_resource_load = Some(on_before_resource_load);
            },
            (),
        ),
    })
}

macro_rules! getter {
    ($fn:ident, $field:ident, $ty:ty) => {
        extern "C" fn $fn(_: *mut cef_client_t) -> *mut $ty {
            unsafe { RcBox::<$ty, ()>::add_ref(handlers().$field) }
        }
    };
}
getter!(client_life, life, cef_life_span_handler_t);
getter!(client_load, load, cef_load_handler_t);
getter!(client_render, render, cef_render_handler_t);
getter!(client_display, display, cef_display_handler_t);
getter!(client_request, request, cef_request_handler_t);

/// A new reference to the shared client, for `create_browser_sync`.
pub fn client() -> *mut cef_client_t {
    struct C(*mut cef_client_t);
    unsafe impl Send for C {}
    unsafe impl Sync for C {}
    static CL: std::sync::OnceLock<C> = std::sync::OnceLock::new();
    let c = CL.get_or_init(|| {
        C(RcBox::<cef_client_t, ()>::new(
            |c| {
                c.get_life_span_handler = Some(client_life);
                c.get_load_handler = Some(client_load);
                c.get_render_handler = Some(client_render);
                c.get_display_handler = Some(client_display);
                c.get_request_handler = Some(client_request);
                c.on_process_message_received = Some(on_process_message_received);
            },
            (),
        ))
    });
    unsafe { RcBox::<cef_client_t, ()>::add_ref(c.0) }
}

fn browser_id(b: *mut cef_browser_t) -> i32 {
    crate::call!((b).get_identifier())
}

/// Adopts the reference CEF passed with a callback argument, so it is released on return.
fn adopt<T>(p: *mut T) -> Option<Ref<T>> {
    Ref::adopt(p)
}

extern "C" fn on_after_created(_: *mut cef_life_span_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    let host = Ref::adopt(crate::call!(b.get_host()));
    let Some(host) = host else { return };
    // DevTools without a port: one observer per browser, kept alive by its registration.
    let obs = RcBox::<cef_dev_tools_message_observer_t, i32>::new(
        |o| {
            o.on_dev_tools_message = Some(on_dev_tools_message);
        },
        id,
    );
    let reg = Ref::adopt(crate::call!(host.add_dev_tools_message_observer(obs)));
    state::with(|st| st.browser_created(id, b.clone(), host.clone(), reg));
}

extern "C" fn on_before_close(_: *mut cef_life_span_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    let removed = state::with(|st| st.browser_closed(id));
    drop(removed); // Release CEF references outside the state borrow.
}

#[allow(clippy::too_many_arguments)]
extern "C" fn on_before_popup(
    _: *mut cef_life_span_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    _popup_id: c_int,
    target_url: *const cef_string_t,
    _target_frame_name: *const cef_string_t,
    _disposition: cef_window_open_disposition_t,
    _user_gesture: c_int,
    _features: *const cef_popup_features_t,
    _window_info: *mut cef_window_info_t,
    _client: *mut *mut cef_client_t,
    _settings: *mut cef_browser_settings_t,
    _extra: *mut *mut cef_dictionary_value_t,
    _no_js_access: *mut c_int,
) -> c_int {
    let b = adopt(b);
    let _f = adopt(f);
    let url = from_cef(target_url);
    if let Some(b) = b {
        let opener = browser_id(b.as_ptr());
        // Popups and new windows become ordinary tabs (in the opener's container), created
        // after this callback returns.
        state::post_popup(opener, url);
    }
    1 // Cancel CEF's own popup window.
}

extern "C" fn on_loading_state_change(
    _: *mut cef_load_handler_t,
    b: *mut cef_browser_t,
    loading: c_int,
    back: c_int,
    fwd: c_int,
) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    state::with(|st| st.loading_state(id, loading != 0, back != 0, fwd != 0));
}

extern "C" fn on_load_end(
    _: *mut cef_load_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    status: c_int,
) {
    let (Some(b), Some(f)) = (adopt(b), adopt(f)) else {
        return;
    };
    if crate::call!(f.is_main()) == 0 {
        return;
    }
    let id = browser_id(b.as_ptr());
    let url = crate::cef::from_userfree(crate::call!(f.get_url()));
    state::with(|st| st.load_end(id, status, url));
}

extern "C" fn on_load_error(
    _: *mut cef_load_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    code: cef_errorcode_t,
    text: *const cef_string_t,
    url: *const cef_string_t,
) {
    let (Some(b), Some(f)) = (adopt(b), adopt(f)) else {
        return;
    };
    if crate::call!(f.is_main()) == 0 {
        return;
    }
    let id = browser_id(b.as_ptr());
    let (text, url) = (from_cef(text), from_cef(url));
    state::with(|st| st.load_error(id, code as i32, text, url));
}

extern "C" fn get_view_rect(_: *mut cef_render_handler_t, b: *mut cef_browser_t, rect: *mut cef_rect_t) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    let (w, h, _) = state::with(|st| st.view_size(id));
    unsafe {
        *rect = cef_rect_t {
            x: 0,
            y: 0,
            width: w.max(1),
            height: h.max(1),
        };
    }
}

extern "C" fn get_screen_info(
    _: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    info: *mut cef_screen_info_t,
) -> c_int {
    let Some(b) = adopt(b) else { return 0 };
    let id = browser_id(b.as_ptr());
    let (w, h, scale) = state::with(|st| st.view_size(id));
    unsafe {
        (*info).device_scale_factor = scale;
        (*info).depth = 24;
        (*info).depth_per_component = 8;
        (*info).rect = cef_rect_t {
            x: 0,
            y: 0,
            width: w,
            height: h,
        };
        (*info).available_rect = (*info).rect;
    }
    1
}

#[allow(clippy::too_many_arguments)]
extern "C" fn on_paint(
    _: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    kind: cef_paint_element_type_t,
    _n: usize,
    _rects: *const cef_rect_t,
    buffer: *const c_void,
    w: c_int,
    h: c_int,
) {
    let Some(b) = adopt(b) else { return };
    if kind != cef_paint_element_type_t::PET_VIEW || buffer.is_null() || w <= 0 || h <= 0 {
        return;
    }
    let id = browser_id(b.as_ptr());
    let len = w as usize * h as usize * 4;
    // SAFETY: CEF hands a BGRA buffer of width*height*4 bytes valid for this call.
    let bgra = unsafe { std::slice::from_raw_parts(buffer as *const u8, len) }.to_vec();
    state::with(|st| {
        st.paint(
            id,
            Frame {
                w: w as u32,
                h: h as u32,
                bgra: std::sync::Arc::new(bgra),
            },
        )
    });
}

extern "C" fn on_address_change(
    _: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    url: *const cef_string_t,
) {
    let (Some(b), Some(f)) = (adopt(b), adopt(f)) else {
        return;
    };
    if crate::call!(f.is_main()) == 0 {
        return;
    }
    let id = browser_id(b.as_ptr());
    let url = from_cef(url);
    state::with(|st| st.address(id, url));
}

extern "C" fn on_title_change(
    _: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    title: *const cef_string_t,
) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    let title = from_cef(title);
    state::with(|st| st.title(id, title));
}

extern "C" fn on_console_message(
    _: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    level: cef_log_severity_t,
    message: *const cef_string_t,
    source: *const cef_string_t,
    line: c_int,
) -> c_int {
    let Some(b) = adopt(b) else { return 0 };
    let id = browser_id(b.as_ptr());
    let level = match level {
        cef_log_severity_t::LOGSEVERITY_ERROR | cef_log_severity_t::LOGSEVERITY_FATAL => "error",
        cef_log_severity_t::LOGSEVERITY_WARNING => "warning",
        _ => "info",
    };
    let e = ConsoleEntry {
        level: level.into(),
        text: from_cef(message),
        source: from_cef(source),
        line,
    };
    state::with(|st| st.console(id, e));
    1 // Keep page console output out of our own log.
}

extern "C" fn on_cursor_change(
    _: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    _cursor: c_ulong,
    kind: cef_cursor_type_t,
    _info: *const cef_cursor_info_t,
) -> c_int {
    let Some(b) = adopt(b) else { return 0 };
    let id = browser_id(b.as_ptr());
    state::with(|st| st.cursor(id, kind as i32));
    1
}

extern "C" fn on_render_process_terminated(
    _: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    status: cef_termination_status_t,
    code: c_int,
    _err: *const cef_string_t,
) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    let why = format!("renderer process ended ({status:?}, code {code})");
    tracing::warn!(tab = id, "{why}");
    state::with(|st| st.renderer_gone(id, why));
}

extern "C" fn on_before_browse(
    _: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    _gesture: c_int,
    is_redirect: c_int,
) -> c_int {
    let (Some(b), Some(f), Some(r)) = (adopt(b), adopt(f), adopt(r)) else {
        return 0;
    };
    if is_redirect == 0 || crate::call!(f.is_main()) == 0 {
        return 0;
    }
    let id = browser_id(b.as_ptr());
    if !state::with(|st| st.tabs.get(&id).is_some_and(|t| t.meta.agent_nav)) {
        return 0;
    }
    let url = crate::cef::from_userfree(crate::call!(r.get_url()));
    // A public page may redirect the agent to 169.254.169.254: redirects meet the same rules.
    match crate::policy::nav_policy().map(|p| p.check_destination(&url)) {
        Some(Err(e)) => {
            let rule = format!("redirect {e}");
            state::with(|st| st.refuse_navigation(id, rule));
            1
        }
        _ => 0,
    }
}

/// `Network.responseReceived` for the main document of an agent navigation: the connected
/// address must pass the policy too (DNS may have answered differently than our lookup).
fn check_document_response(id: i32, v: &serde_json::Value) {
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
        state::with(|st| st.console(id, e));
    }
    if p["type"] != "Document" {
        return;
    }
    let pending = state::with(|st| {
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
    let (Some(policy), Ok(addr)) = (crate::policy::nav_policy(), ip.parse::<std::net::IpAddr>()) else {
        return;
    };
    let verdict = policy
        .check_destination(url)
        .and_then(|c| policy.check_connected_address(&c, addr));
    if let Err(e) = verdict {
        let browser = state::with(|st| {
            st.refuse_navigation(id, e.to_string());
            st.tabs.get(&id).map(|t| t.browser.clone())
        });
        if let Some(b) = browser {
            crate::call!(b.stop_load());
            if let Some(f) = Ref::adopt(crate::call!(b.get_main_frame())) {
                let blank = strings::CefStr::new("about:blank");
                crate::call!(f.load_url(blank.as_ptr()));
            }
        }
    }
}

extern "C" fn on_document_available(_: *mut cef_request_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt(b) else { return };
    let id = browser_id(b.as_ptr());
    state::with(|st| st.document_available(id));
}

#[allow(clippy::too_many_arguments)]
extern "C" fn get_resource_request_handler(
    _: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    _nav: c_int,
    _dl: c_int,
    _initiator: *const cef_string_t,
    _disable: *mut c_int,
) -> *mut cef_resource_request_handler_t {
    // IO thread. Release what we were given; blocking decisions happen per request below.
    let (_b, _f, _r) = (adopt(b), adopt(f), adopt(r));
    if crate::policy::blocking_enabled() {
        unsafe { RcBox::<cef_resource_request_handler_t, ()>::add_ref(handlers().resource) }
    } else {
        std::ptr::null_mut()
    }
}

extern "C" fn on_before_resource_load(
    _: *mut cef_resource_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    cb: *mut cef_callback_t,
) -> cef_return_value_t {
    // IO thread: must not touch UI-thread state. Blocking uses its own thread-safe engine.
    let (b, _f, r, _cb) = (adopt(b), adopt(f), adopt(r), adopt(cb));
    let Some(r) = r else {
        return cef_return_value_t::RV_CONTINUE;
    };
    let url = crate::cef::from_userfree(crate::call!(r.get_url()));
    let referrer = crate::cef::from_userfree(crate::call!(r.get_referrer_url()));
    let rtype = crate::call!(r.get_resource_type());
    let tab = b.map(|b| browser_id(b.as_ptr())).unwrap_or(-1);
    if crate::policy::should_block(tab, &url, &referrer, rtype) {
        cef_return_value_t::RV_CANCEL
    } else {
        cef_return_value_t::RV_CONTINUE
    }
}

extern "C" fn on_process_message_received(
    _: *mut cef_client_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    _src: cef_process_id_t,
    msg: *mut cef_process_message_t,
) -> c_int {
    let (_b, _f) = (adopt(b), adopt(f));
    let Some(msg) = adopt(msg) else { return 0 };
    let name = crate::cef::from_userfree(crate::call!(msg.get_name()));
    if name != crate::renderer::REPLY {
        return 0;
    }
    let Some(args) = Ref::adopt(crate::call!(msg.get_argument_list())) else {
        return 1;
    };
    let id =
        crate::call!(args.get_int(0)) as u32 as u64 | ((crate::call!(args.get_int(1)) as u32 as u64) << 32);
    let body = crate::cef::from_userfree(crate::call!(args.get_string(2)));
    let err = crate::cef::from_userfree(crate::call!(args.get_string(3)));
    state::with(|st| st.rpc_reply(id, if err.is_empty() { Ok(body) } else { Err(err) }));
    1
}

extern "C" fn on_dev_tools_message(
    this: *mut cef_dev_tools_message_observer_t,
    _b: *mut cef_browser_t,
    message: *const c_void,
    size: usize,
) -> c_int {
    let _b = adopt(_b);
    let id = unsafe { *RcBox::<cef_dev_tools_message_observer_t, i32>::data(this) };
    // SAFETY: CEF passes `size` bytes of UTF-8 JSON valid for this call.
    let bytes = unsafe { std::slice::from_raw_parts(message as *const u8, size) };
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return 1;
    };
    if v.get("method").and_then(|m| m.as_str()) == Some("Network.responseReceived") {
        check_document_response(id, &v);
        return 1;
    }
    if let Some(mid) = v.get("id").and_then(|x| x.as_i64()) {
        let result = match v.get("error") {
            Some(e) => Err(e.to_string()),
            None => Ok(v.get("result").cloned().unwrap_or(serde_json::Value::Null)),
        };
        state::with(|st| st.devtools_reply(id, mid, result));
    }
    1
}
