//! The browser client: one `cef_client_t` shared by every browser, whose callbacks are turned
//! into calls on a [`ClientHandler`] with typed arguments. Nothing the handler receives is a
//! raw pointer, and every argument reference CEF passed is released when the callback returns.

use crate::api::on_ui_thread;
use crate::capture::Documents;
use crate::input::{ConsoleLevel, Cursor, DragData, DragOps, KeyEvent, ResourceType};
use crate::page::{
    AuthCallback, AuthChallenge, BeforeDownloadCallback, ContextMenu, Disposition, DownloadControl,
    DownloadItem, FileDialog, FileDialogCallback, JsDialog, JsDialogCallback, JsDialogKind,
    PermissionCallback, PermissionRequest, PrintDialogCallback, PrintEvent,
};
use crate::rc::{RcBox, Ref, call};
use crate::strings::{CefStr, from_cef, from_userfree};
use crate::sys::*;
use crate::types::{Browser, BrowserHost, BrowserId, DevToolsRegistration, Frame};
use std::ffi::{c_int, c_ulong, c_void};
use std::rc::Rc;
use std::sync::Arc;

/// A navigation CEF is about to start in a frame.
#[derive(Debug, Clone)]
pub struct Navigation {
    pub url: String,
    pub main_frame: bool,
    pub is_redirect: bool,
    pub user_gesture: bool,
}

/// Browser events, called on CEF's UI thread (inside `do_message_loop_work` or a CEF call
/// that re-enters). Implementations must not call back into CEF objects in ways CEF forbids
/// from inside a callback (navigation from a DevTools observer, closing from a close
/// callback): queue that work for after the callback instead.
pub trait ClientHandler: 'static {
    /// A browser exists. `devtools` keeps its DevTools observer registered.
    fn on_after_created(&self, browser: Browser, host: BrowserHost, devtools: Option<DevToolsRegistration>);
    fn on_before_close(&self, id: BrowserId);
    /// A page opened a popup or a link targets a new window or tab (`how`); `user_gesture`: a
    /// click or key caused it. Return true to let CEF create it, as a windowless browser of
    /// this client whose page keeps its opener (`window.open` returns it, the popup can
    /// `postMessage` back: OAuth and payment windows rely on both); its `on_after_created`
    /// follows, with [`BrowserHost::opener_id`] naming `opener`, or `on_popup_aborted`.
    /// False cancels it (`window.open` returns null).
    fn on_popup(
        &self,
        opener: BrowserId,
        popup_id: i32,
        url: String,
        how: Disposition,
        user_gesture: bool,
    ) -> bool;
    /// A popup `on_popup` allowed could not be created.
    fn on_popup_aborted(&self, opener: BrowserId, popup_id: i32);
    /// The human asked for a link elsewhere (middle-click, Ctrl+click, Shift+click; `how`):
    /// CEF would navigate the tab itself, so it is cancelled and the handler opens the tab.
    fn on_open_elsewhere(&self, opener: BrowserId, url: String, how: Disposition, user_gesture: bool);
    fn on_loading_state_change(&self, id: BrowserId, loading: bool, can_back: bool, can_forward: bool);
    fn on_main_load_end(&self, id: BrowserId, status: i32, url: String);
    fn on_main_load_error(&self, id: BrowserId, code: i32, text: String, url: String);
    /// The view's size in DIP and its device scale factor.
    fn view_size(&self, id: BrowserId) -> (i32, i32, f32);
    /// A painted view: BGRA pixels, `w * h * 4` bytes, valid only during the call.
    fn on_paint(&self, id: BrowserId, w: u32, h: u32, bgra: &[u8]);
    fn on_main_address_change(&self, id: BrowserId, url: String);
    fn on_title_change(&self, id: BrowserId, title: String);
    /// The status text changed: a hovered link's address, empty when the pointer leaves it.
    fn on_status_message(&self, id: BrowserId, text: String);
    /// The text the page's element under the pointer gives as its tooltip (its `title`), or
    /// empty when there is none. Off-screen rendering draws no tooltip itself: the embedder does.
    fn on_tooltip(&self, id: BrowserId, text: String);
    /// The page started or stopped using the camera (`video`) or the microphone (`audio`).
    fn on_media_access_change(&self, id: BrowserId, video: bool, audio: bool);
    /// A server or proxy asks for HTTP authentication for a request of this browser. CEF asks
    /// on its IO thread; this is called on the UI thread a moment later. Answer (or drop) `cb`.
    fn on_auth_request(&self, id: BrowserId, challenge: AuthChallenge, cb: AuthCallback);
    fn on_console_message(&self, id: BrowserId, level: ConsoleLevel, text: String, source: String, line: i32);
    fn on_cursor_change(&self, id: BrowserId, cursor: Cursor);
    fn on_render_process_terminated(&self, id: BrowserId, why: String);
    /// Returns true to cancel the navigation.
    fn on_before_browse(&self, id: BrowserId, nav: Navigation) -> bool;
    /// The main frame's new document can run script (before its subresources load).
    fn on_document_available(&self, id: BrowserId);
    /// The renderer answered request `rid` sent with [`Frame::send_script_request`].
    fn on_script_reply(&self, id: BrowserId, rid: u64, reply: Result<String, String>);
    /// The script in frame `frame` (the main frame: `main`) told of something as it happened
    /// (`body`, its own small JSON); `{"ev":"gone"}` when that frame's document is gone.
    fn on_page_event(&self, id: BrowserId, frame: String, main: bool, body: String);
    /// A DevTools protocol message (a method reply or an event), UTF-8 JSON.
    fn on_devtools_message(&self, id: BrowserId, json: &[u8]);
    /// A page opened a JavaScript dialog. Return false to suppress it (the page's call
    /// returns at once, as cancelled); true means the handler answers `cb` later. A
    /// beforeunload dialog cannot be suppressed: the handler answers it either way.
    fn on_js_dialog(&self, id: BrowserId, dialog: JsDialog, cb: JsDialogCallback) -> bool;
    /// The browser's pending dialogs are void (it navigated or is closing).
    fn on_reset_dialogs(&self, id: BrowserId);
    /// A download starts: the handler must answer `cb` (save somewhere) or drop it (cancel).
    fn on_before_download(&self, id: BrowserId, item: DownloadItem, cb: BeforeDownloadCallback);
    /// A download progressed, finished, failed or was cancelled.
    fn on_download_updated(&self, id: BrowserId, item: DownloadItem, ctl: DownloadControl);
    /// The page was right-clicked; CEF's own menu is suppressed.
    fn on_context_menu(&self, id: BrowserId, menu: ContextMenu);
    /// A page opened a file chooser; the handler answers `cb` (choose or cancel).
    fn on_file_dialog(&self, id: BrowserId, dialog: FileDialog, cb: FileDialogCallback);
    /// A page asks for a permission; the handler answers `cb`.
    fn on_permission_request(&self, id: BrowserId, req: PermissionRequest, cb: PermissionCallback);
    /// CEF dismissed permission prompt `prompt` itself (navigation, close).
    fn on_permission_dismissed(&self, id: BrowserId, prompt: u64);
    /// A popup widget (a `<select>` list, a date picker) opens or closes.
    fn on_popup_show(&self, id: BrowserId, show: bool);
    /// Where the popup widget is, in view DIP.
    fn on_popup_size(&self, id: BrowserId, x: i32, y: i32, w: i32, h: i32);
    /// The popup widget's pixels (BGRA, `w * h * 4`, valid during the call).
    fn on_popup_paint(&self, id: BrowserId, w: u32, h: u32, bgra: &[u8]);
    /// The page entered or left element fullscreen (the Fullscreen API).
    fn on_fullscreen(&self, id: BrowserId, fullscreen: bool);
    /// Find-in-page results: `active` of `count` matches (`last`: no more updates coming).
    fn on_find_result(&self, id: BrowserId, count: i32, active: i32, last: bool);
    /// A key event the page did not take: it reached the renderer and neither the page's script
    /// (`preventDefault`) nor Blink's editing used it. Where Chrome runs its shortcuts that a
    /// page may override.
    fn on_key_not_taken(&self, id: BrowserId, key: KeyEvent);
    /// CEF's print machinery (a page's `window.print()`); see [`PrintEvent`].
    fn on_print(&self, id: BrowserId, ev: PrintEvent);
    /// The text selected in the page changed (`text` empty: nothing is selected).
    fn on_text_selection(&self, id: BrowserId, text: String);
    /// The page's icons changed (`<link rel=icon>` URLs, best first; empty: none declared).
    fn on_favicon_urls(&self, id: BrowserId, urls: Vec<String>);
    /// The page started an HTML drag at view point (x, y) that may do `allowed`. Return true to
    /// take it: the handler then routes the pointer to the host's `drag_target_*` calls and
    /// ends it with `drag_source_end`; false cancels the drag at once.
    fn on_start_dragging(&self, id: BrowserId, data: DragData, allowed: DragOps, x: i32, y: i32) -> bool;
    /// What the drop target under the pointer would do now (NONE: it would refuse the drop).
    fn on_drag_operation(&self, id: BrowserId, op: DragOps);
}

/// Decides, on CEF's IO thread, whether a network request is cancelled.
pub trait ResourceFilter: Send + Sync + 'static {
    fn should_block(&self, tab: Option<BrowserId>, url: &str, referrer: &str, kind: ResourceType) -> bool;
}

/// A value only touched on CEF's UI thread. The `Send`/`Sync` impls exist because CEF's
/// handler objects are reachable from its IO thread too; every access checks the thread (in
/// release builds as well), which is what makes them sound.
struct UiOnly<T>(T);
// SAFETY: see the type's doc: `get` refuses any thread but the UI thread.
unsafe impl<T> Send for UiOnly<T> {}
unsafe impl<T> Sync for UiOnly<T> {}
impl<T> UiOnly<T> {
    #[track_caller]
    fn get(&self) -> &T {
        assert!(
            on_ui_thread(),
            "a UI-thread-only handler was called on another thread"
        );
        &self.0
    }
}

struct Shared {
    ui: UiOnly<Rc<dyn ClientHandler>>,
    filter: Option<Arc<dyn ResourceFilter>>,
    /// The PDFs main frames show, copied on their way to the viewer (IO thread).
    documents: Arc<Documents>,
    /// Set once, right after the handler objects (which point back here) exist.
    handlers: std::sync::OnceLock<Handlers>,
}

struct Handlers {
    life: *mut cef_life_span_handler_t,
    load: *mut cef_load_handler_t,
    render: *mut cef_render_handler_t,
    display: *mut cef_display_handler_t,
    request: *mut cef_request_handler_t,
    resource: *mut cef_resource_request_handler_t,
    jsdialog: *mut cef_jsdialog_handler_t,
    download: *mut cef_download_handler_t,
    menu: *mut cef_context_menu_handler_t,
    dialog: *mut cef_dialog_handler_t,
    permission: *mut cef_permission_handler_t,
    find: *mut cef_find_handler_t,
    print: *mut cef_print_handler_t,
    keyboard: *mut cef_keyboard_handler_t,
}
// SAFETY: immortal CEF handler objects with atomic reference counts; only add_ref is called
// on them from here, which CEF allows on any thread.
unsafe impl Send for Handlers {}
unsafe impl Sync for Handlers {}

type Data = &'static Shared;

/// The client every browser is created with. Made once, on the UI thread; it lives for the
/// rest of the process (CEF may release its last reference on any thread, so it is never
/// freed, and neither is the handler it calls).
pub struct Client(Ref<cef_client_t>, Arc<Documents>);

fn shared<C>(p: *mut C) -> Data {
    // SAFETY: every handler object of this module is an RcBox<C, Data> made in Client::new.
    unsafe { RcBox::<C, Data>::data(p) }
}

impl Client {
    pub fn new(handler: Rc<dyn ClientHandler>, filter: Option<Arc<dyn ResourceFilter>>) -> Client {
        crate::api::debug_assert_ui();
        let documents = Arc::new(Documents::default());
        let sh: &'static Shared = Box::leak(Box::new(Shared {
            ui: UiOnly(handler),
            filter,
            documents: documents.clone(),
            handlers: std::sync::OnceLock::new(),
        }));
        // SAFETY (every RcBox::new below): the C types are CEF handler structs.
        let life = unsafe {
            RcBox::<cef_life_span_handler_t, Data>::new(
                |h| {
                    h.on_after_created = Some(on_after_created);
                    h.on_before_close = Some(on_before_close);
                    h.on_before_popup = Some(on_before_popup);
                    h.on_before_popup_aborted = Some(on_before_popup_aborted);
                },
                sh,
            )
        };
        let load = unsafe {
            RcBox::<cef_load_handler_t, Data>::new(
                |h| {
                    h.on_loading_state_change = Some(on_loading_state_change);
                    h.on_load_end = Some(on_load_end);
                    h.on_load_error = Some(on_load_error);
                },
                sh,
            )
        };
        let render = unsafe {
            RcBox::<cef_render_handler_t, Data>::new(
                |h| {
                    h.get_view_rect = Some(get_view_rect);
                    h.get_screen_info = Some(get_screen_info);
                    h.on_paint = Some(on_paint);
                    h.on_popup_show = Some(on_popup_show);
                    h.on_popup_size = Some(on_popup_size);
                    h.on_text_selection_changed = Some(on_text_selection_changed);
                    h.start_dragging = Some(start_dragging);
                    h.update_drag_cursor = Some(update_drag_cursor);
                },
                sh,
            )
        };
        let display = unsafe {
            RcBox::<cef_display_handler_t, Data>::new(
                |h| {
                    h.on_address_change = Some(on_address_change);
                    h.on_title_change = Some(on_title_change);
                    h.on_status_message = Some(on_status_message);
                    h.on_tooltip = Some(on_tooltip);
                    h.on_media_access_change = Some(on_media_access_change);
                    h.on_console_message = Some(on_console_message);
                    h.on_cursor_change = Some(on_cursor_change);
                    h.on_fullscreen_mode_change = Some(on_fullscreen_mode_change);
                    h.on_favicon_urlchange = Some(on_favicon_urlchange);
                },
                sh,
            )
        };
        let request = unsafe {
            RcBox::<cef_request_handler_t, Data>::new(
                |h| {
                    h.on_before_browse = Some(on_before_browse);
                    h.on_open_urlfrom_tab = Some(on_open_url_from_tab);
                    h.on_render_process_terminated = Some(on_render_process_terminated);
                    h.get_auth_credentials = Some(get_auth_credentials);
                    h.on_document_available_in_main_frame = Some(on_document_available);
                    h.get_resource_request_handler = Some(get_resource_request_handler);
                },
                sh,
            )
        };
        let resource = unsafe {
            RcBox::<cef_resource_request_handler_t, Data>::new(
                |h| {
                    h.on_before_resource_load = Some(on_before_resource_load);
                    h.get_resource_response_filter = Some(get_resource_response_filter);
                    h.on_resource_load_complete = Some(on_resource_load_complete);
                },
                sh,
            )
        };
        let jsdialog = unsafe {
            RcBox::<cef_jsdialog_handler_t, Data>::new(
                |h| {
                    h.on_jsdialog = Some(on_jsdialog);
                    h.on_before_unload_dialog = Some(on_before_unload_dialog);
                    h.on_reset_dialog_state = Some(on_reset_dialog_state);
                },
                sh,
            )
        };
        let download = unsafe {
            RcBox::<cef_download_handler_t, Data>::new(
                |h| {
                    // CEF's C++ side treats a missing `can_download` as "no": every download
                    // would be cancelled silently.
                    h.can_download = Some(can_download);
                    h.on_before_download = Some(on_before_download);
                    h.on_download_updated = Some(on_download_updated);
                },
                sh,
            )
        };
        let menu = unsafe {
            RcBox::<cef_context_menu_handler_t, Data>::new(
                |h| h.on_before_context_menu = Some(on_before_context_menu),
                sh,
            )
        };
        let dialog = unsafe {
            RcBox::<cef_dialog_handler_t, Data>::new(|h| h.on_file_dialog = Some(on_file_dialog), sh)
        };
        let permission = unsafe {
            RcBox::<cef_permission_handler_t, Data>::new(
                |h| {
                    h.on_request_media_access_permission = Some(on_media_access);
                    h.on_show_permission_prompt = Some(on_show_permission_prompt);
                    h.on_dismiss_permission_prompt = Some(on_dismiss_permission_prompt);
                },
                sh,
            )
        };
        let find = unsafe {
            RcBox::<cef_find_handler_t, Data>::new(|h| h.on_find_result = Some(on_find_result), sh)
        };
        let print = unsafe {
            RcBox::<cef_print_handler_t, Data>::new(
                |h| {
                    h.on_print_start = Some(on_print_start);
                    h.on_print_settings = Some(on_print_settings);
                    h.on_print_dialog = Some(on_print_dialog);
                    h.on_print_job = Some(on_print_job);
                    h.on_print_reset = Some(on_print_reset);
                    h.get_pdf_paper_size = Some(get_pdf_paper_size);
                },
                sh,
            )
        };
        let keyboard = unsafe {
            RcBox::<cef_keyboard_handler_t, Data>::new(|h| h.on_key_event = Some(on_key_event), sh)
        };
        // The handler objects point at `sh`, and `sh` names them: set once they all exist.
        let _ = sh.handlers.set(Handlers {
            life,
            load,
            render,
            display,
            request,
            resource,
            jsdialog,
            download,
            menu,
            dialog,
            permission,
            find,
            print,
            keyboard,
        });
        let client = unsafe {
            RcBox::<cef_client_t, Data>::new(
                |c| {
                    c.get_life_span_handler = Some(client_life);
                    c.get_load_handler = Some(client_load);
                    c.get_render_handler = Some(client_render);
                    c.get_display_handler = Some(client_display);
                    c.get_request_handler = Some(client_request);
                    c.get_jsdialog_handler = Some(client_jsdialog);
                    c.get_download_handler = Some(client_download);
                    c.get_context_menu_handler = Some(client_menu);
                    c.get_dialog_handler = Some(client_dialog);
                    c.get_permission_handler = Some(client_permission);
                    c.get_find_handler = Some(client_find);
                    c.get_print_handler = Some(client_print);
                    c.get_keyboard_handler = Some(client_keyboard);
                    c.on_process_message_received = Some(on_process_message_received);
                },
                sh,
            )
        };
        // SAFETY: a fresh object with our one reference.
        Client(unsafe { Ref::adopt(client) }.expect("non-null"), documents)
    }

    /// The PDFs the browsers' main frames show, as they were received.
    pub fn documents(&self) -> &Arc<Documents> {
        &self.1
    }

    /// A new reference for CEF to take.
    pub(crate) fn new_ref(&self) -> *mut cef_client_t {
        self.0.clone().into_cef()
    }
}

fn handlers(sh: Data) -> &'static Handlers {
    sh.handlers
        .get()
        .expect("handlers are set before CEF sees the client")
}

macro_rules! getter {
    ($name:ident, $field:ident, $t:ty) => {
        extern "C" fn $name(this: *mut cef_client_t) -> *mut $t {
            // SAFETY: the handler objects are alive forever; CEF takes the added reference.
            unsafe { RcBox::<$t, Data>::add_ref(handlers(shared(this)).$field) }
        }
    };
}
getter!(client_life, life, cef_life_span_handler_t);
getter!(client_load, load, cef_load_handler_t);
getter!(client_render, render, cef_render_handler_t);
getter!(client_display, display, cef_display_handler_t);
getter!(client_request, request, cef_request_handler_t);
getter!(client_jsdialog, jsdialog, cef_jsdialog_handler_t);
getter!(client_download, download, cef_download_handler_t);
getter!(client_menu, menu, cef_context_menu_handler_t);
getter!(client_dialog, dialog, cef_dialog_handler_t);
getter!(client_permission, permission, cef_permission_handler_t);
getter!(client_find, find, cef_find_handler_t);
getter!(client_print, print, cef_print_handler_t);
getter!(client_keyboard, keyboard, cef_keyboard_handler_t);

/// Adopts the references CEF passed with a callback's arguments, so they are released when the
/// callback returns.
macro_rules! adopt {
    ($t:ident, $p:expr) => {
        // SAFETY: CEF passes callback arguments with a reference for the callee to release.
        unsafe { $t::adopt($p) }
    };
}

extern "C" fn on_after_created(this: *mut cef_life_span_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    let Some(host) = b.host() else { return };
    // DevTools without a port: one observer per browser, kept alive by its registration.
    let id = b.id();
    // SAFETY: a CEF handler struct; the observer's reference goes to CEF with the call.
    let obs = unsafe {
        RcBox::<cef_dev_tools_message_observer_t, (Data, BrowserId)>::new(
            |o| o.on_dev_tools_message = Some(on_dev_tools_message),
            (shared(this), id),
        )
    };
    // SAFETY: a live host; the returned registration carries a reference for us.
    let reg = unsafe { DevToolsRegistration::adopt(call!(host.add_dev_tools_message_observer(obs))) };
    shared(this).ui.get().on_after_created(b, host, reg);
}

extern "C" fn on_before_close(this: *mut cef_life_span_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).documents.forget(b.id());
    shared(this).ui.get().on_before_close(b.id());
}

#[allow(clippy::too_many_arguments)]
extern "C" fn on_before_popup(
    this: *mut cef_life_span_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    popup_id: c_int,
    target_url: *const cef_string_t,
    _target_frame_name: *const cef_string_t,
    disposition: cef_window_open_disposition_t,
    user_gesture: c_int,
    _features: *const cef_popup_features_t,
    window_info: *mut cef_window_info_t,
    _client: *mut *mut cef_client_t,
    _settings: *mut cef_browser_settings_t,
    _extra: *mut *mut cef_dictionary_value_t,
    _no_js_access: *mut c_int,
) -> c_int {
    let b = adopt!(Browser, b);
    let _f = adopt!(Frame, f);
    // SAFETY: a string argument valid for the call.
    let url = unsafe { from_cef(target_url) };
    let Some(b) = b else { return 1 };
    let how = crate::page::disposition(disposition);
    let open = shared(this)
        .ui
        .get()
        .on_popup(b.id(), popup_id, url, how, user_gesture != 0);
    match std::ptr::NonNull::new(window_info) {
        Some(wi) if open => {
            // Drawn off-screen like every tab, never a native window of CEF's; the client and
            // the settings are the opener's (CEF's defaults).
            // SAFETY: CEF's in/out parameter, valid for the call.
            unsafe { (*wi.as_ptr()).windowless_rendering_enabled = 1 };
            0
        }
        _ => 1,
    }
}

extern "C" fn on_before_popup_aborted(
    this: *mut cef_life_span_handler_t,
    b: *mut cef_browser_t,
    popup_id: c_int,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_popup_aborted(b.id(), popup_id);
}

/// A link the human asked to open elsewhere (middle-click, Ctrl+click, Shift+click): CEF
/// would navigate the tab itself; it becomes a new tab as a popup does.
extern "C" fn on_open_url_from_tab(
    this: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    target_url: *const cef_string_t,
    disposition: cef_window_open_disposition_t,
    user_gesture: c_int,
) -> c_int {
    let b = adopt!(Browser, b);
    let _f = adopt!(Frame, f);
    let how = crate::page::disposition(disposition);
    let (Some(b), false) = (b, how == Disposition::Other) else {
        return 0;
    };
    // SAFETY: a string argument valid for the call.
    let url = unsafe { from_cef(target_url) };
    shared(this)
        .ui
        .get()
        .on_open_elsewhere(b.id(), url, how, user_gesture != 0);
    1
}

extern "C" fn on_loading_state_change(
    this: *mut cef_load_handler_t,
    b: *mut cef_browser_t,
    loading: c_int,
    back: c_int,
    fwd: c_int,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this)
        .ui
        .get()
        .on_loading_state_change(b.id(), loading != 0, back != 0, fwd != 0);
}

extern "C" fn on_load_end(
    this: *mut cef_load_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    status: c_int,
) {
    let (Some(b), Some(f)) = (adopt!(Browser, b), adopt!(Frame, f)) else {
        return;
    };
    if f.is_main() {
        shared(this).ui.get().on_main_load_end(b.id(), status, f.url());
    }
}

extern "C" fn on_load_error(
    this: *mut cef_load_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    code: cef_errorcode_t,
    text: *const cef_string_t,
    url: *const cef_string_t,
) {
    let (Some(b), Some(f)) = (adopt!(Browser, b), adopt!(Frame, f)) else {
        return;
    };
    if f.is_main() {
        // SAFETY: string arguments valid for the call.
        let (text, url) = unsafe { (from_cef(text), from_cef(url)) };
        shared(this)
            .ui
            .get()
            .on_main_load_error(b.id(), code as i32, text, url);
    }
}

extern "C" fn get_view_rect(this: *mut cef_render_handler_t, b: *mut cef_browser_t, rect: *mut cef_rect_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    let (w, h, _) = shared(this).ui.get().view_size(b.id());
    // SAFETY: CEF passes a writable rect.
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
    this: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    info: *mut cef_screen_info_t,
) -> c_int {
    let Some(b) = adopt!(Browser, b) else { return 0 };
    let (w, h, scale) = shared(this).ui.get().view_size(b.id());
    // SAFETY: CEF passes a writable screen info struct.
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
    this: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    kind: cef_paint_element_type_t,
    _n: usize,
    _rects: *const cef_rect_t,
    buffer: *const c_void,
    w: c_int,
    h: c_int,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    if buffer.is_null() || w <= 0 || h <= 0 {
        return;
    }
    let len = w as usize * h as usize * 4;
    // SAFETY: CEF hands a BGRA buffer of width*height*4 bytes valid for this call.
    let bgra = unsafe { std::slice::from_raw_parts(buffer as *const u8, len) };
    let ui = shared(this).ui.get();
    if kind == cef_paint_element_type_t::PET_POPUP {
        ui.on_popup_paint(b.id(), w as u32, h as u32, bgra);
    } else {
        ui.on_paint(b.id(), w as u32, h as u32, bgra);
    }
}

extern "C" fn on_address_change(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    url: *const cef_string_t,
) {
    let (Some(b), Some(f)) = (adopt!(Browser, b), adopt!(Frame, f)) else {
        return;
    };
    if f.is_main() {
        // SAFETY: a string argument valid for the call.
        let url = unsafe { from_cef(url) };
        shared(this).ui.get().on_main_address_change(b.id(), url);
    }
}

extern "C" fn on_title_change(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    title: *const cef_string_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    // SAFETY: a string argument valid for the call.
    let title = unsafe { from_cef(title) };
    shared(this).ui.get().on_title_change(b.id(), title);
}

extern "C" fn on_status_message(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    text: *const cef_string_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    // SAFETY: a string argument valid for the call (NULL reads as empty).
    let text = unsafe { from_cef(text) };
    shared(this).ui.get().on_status_message(b.id(), text);
}

extern "C" fn on_tooltip(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    text: *mut cef_string_t,
) -> c_int {
    let Some(b) = adopt!(Browser, b) else { return 0 };
    // SAFETY: a string argument valid for the call (NULL reads as empty); we only read it.
    let text = unsafe { from_cef(text) };
    shared(this).ui.get().on_tooltip(b.id(), text);
    // Handled: the embedder draws it (CEF would otherwise leave it to a native tooltip that
    // off-screen rendering does not have).
    1
}

extern "C" fn on_media_access_change(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    video: c_int,
    audio: c_int,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this)
        .ui
        .get()
        .on_media_access_change(b.id(), video != 0, audio != 0);
}

/// The handler as the IO thread may carry it to the UI thread: only `ui` is touched there, and
/// `UiOnly::get` checks the thread.
struct ToUi(Data);
// SAFETY: see above; `Shared` itself is leaked ('static) and never freed.
unsafe impl Send for ToUi {}

#[allow(clippy::too_many_arguments)]
extern "C" fn get_auth_credentials(
    this: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    origin_url: *const cef_string_t,
    is_proxy: c_int,
    host: *const cef_string_t,
    port: c_int,
    realm: *const cef_string_t,
    scheme: *const cef_string_t,
    cb: *mut cef_auth_callback_t,
) -> c_int {
    // IO thread. The browser's id needs no particular thread; the rest goes to the UI thread.
    tracing::debug!("auth challenge");
    let b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    // SAFETY: string arguments valid for the call.
    let challenge = unsafe {
        AuthChallenge {
            origin: from_cef(origin_url),
            proxy: is_proxy != 0,
            host: from_cef(host),
            port: u16::try_from(port).unwrap_or(0),
            realm: from_cef(realm),
            scheme: from_cef(scheme),
        }
    };
    let (id, to) = (b.id(), ToUi(shared(this)));
    let cb = AuthCallback(cb);
    crate::api::post_ui(move || {
        let to = to;
        to.0.ui.get().on_auth_request(id, challenge, cb);
    });
    1
}

extern "C" fn on_console_message(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    level: cef_log_severity_t,
    message: *const cef_string_t,
    source: *const cef_string_t,
    line: c_int,
) -> c_int {
    let Some(b) = adopt!(Browser, b) else { return 0 };
    let level = match level {
        cef_log_severity_t::LOGSEVERITY_ERROR | cef_log_severity_t::LOGSEVERITY_FATAL => ConsoleLevel::Error,
        cef_log_severity_t::LOGSEVERITY_WARNING => ConsoleLevel::Warning,
        _ => ConsoleLevel::Info,
    };
    // SAFETY: string arguments valid for the call.
    let (text, source) = unsafe { (from_cef(message), from_cef(source)) };
    shared(this)
        .ui
        .get()
        .on_console_message(b.id(), level, text, source, line);
    1 // Keep page console output out of our own log.
}

extern "C" fn on_cursor_change(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    _cursor: c_ulong,
    kind: cef_cursor_type_t,
    _info: *const cef_cursor_info_t,
) -> c_int {
    let Some(b) = adopt!(Browser, b) else { return 0 };
    shared(this)
        .ui
        .get()
        .on_cursor_change(b.id(), Cursor::from_raw(kind));
    1
}

extern "C" fn on_render_process_terminated(
    this: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    status: cef_termination_status_t,
    code: c_int,
    _err: *const cef_string_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    let why = match status {
        cef_termination_status_t::TS_ABNORMAL_TERMINATION => format!("it exited abnormally, code {code}"),
        cef_termination_status_t::TS_PROCESS_WAS_KILLED => format!("it was killed, code {code}"),
        cef_termination_status_t::TS_PROCESS_CRASHED => format!("it crashed, code {code}"),
        cef_termination_status_t::TS_PROCESS_OOM => "it ran out of memory".to_string(),
        other => format!("{other:?}, code {code}"),
    };
    shared(this).ui.get().on_render_process_terminated(b.id(), why);
}

extern "C" fn on_before_browse(
    this: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    gesture: c_int,
    is_redirect: c_int,
) -> c_int {
    let (Some(b), Some(f)) = (adopt!(Browser, b), adopt!(Frame, f)) else {
        return 0;
    };
    // SAFETY: the request reference is ours to release.
    let Some(r) = (unsafe { Ref::adopt(r) }) else {
        return 0;
    };
    // SAFETY: get_url returns a userfree string.
    let url = unsafe { from_userfree(call!(r.get_url())) };
    let nav = Navigation {
        url,
        main_frame: f.is_main(),
        is_redirect: is_redirect != 0,
        user_gesture: gesture != 0,
    };
    shared(this).ui.get().on_before_browse(b.id(), nav) as c_int
}

extern "C" fn on_document_available(this: *mut cef_request_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_document_available(b.id());
}

#[allow(clippy::too_many_arguments)]
extern "C" fn get_resource_request_handler(
    this: *mut cef_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    _nav: c_int,
    _dl: c_int,
    _initiator: *const cef_string_t,
    _disable: *mut c_int,
) -> *mut cef_resource_request_handler_t {
    // IO thread: nothing UI-only is touched. Release what we were given; the decision is
    // made per request below.
    let (_b, _f) = (adopt!(Browser, b), adopt!(Frame, f));
    // SAFETY: the request reference is ours to release.
    let _r = unsafe { Ref::adopt(r) };
    // Always: besides the filter it copies PDFs (`capture`).
    // SAFETY: the resource handler is alive forever; CEF takes the added reference.
    unsafe { RcBox::<cef_resource_request_handler_t, Data>::add_ref(handlers(shared(this)).resource) }
}

extern "C" fn on_before_resource_load(
    this: *mut cef_resource_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    cb: *mut cef_callback_t,
) -> cef_return_value_t {
    // IO thread: only the thread-safe filter is used.
    let (b, _f) = (adopt!(Browser, b), adopt!(Frame, f));
    // SAFETY: request and callback references are ours to release.
    let (r, _cb) = unsafe { (Ref::adopt(r), Ref::adopt(cb)) };
    let (Some(r), Some(filter)) = (r, shared(this).filter.as_ref()) else {
        return cef_return_value_t::RV_CONTINUE;
    };
    // SAFETY: getters on a live request; userfree strings freed once.
    let (url, referrer, kind) = unsafe {
        (
            from_userfree(call!(r.get_url())),
            from_userfree(call!(r.get_referrer_url())),
            ResourceType::from_raw(call!(r.get_resource_type())),
        )
    };
    if filter.should_block(b.map(|b| b.id()), &url, &referrer, kind) {
        cef_return_value_t::RV_CANCEL
    } else {
        cef_return_value_t::RV_CONTINUE
    }
}

/// A main frame's response: a PDF gets a filter that copies its body into [`Documents`]; any
/// other main-frame document drops the browser's copy.
extern "C" fn get_resource_response_filter(
    this: *mut cef_resource_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    resp: *mut cef_response_t,
) -> *mut cef_response_filter_t {
    // IO thread: only the thread-safe document store is used.
    let (b, _f) = (adopt!(Browser, b), adopt!(Frame, f));
    // SAFETY: request and response references are ours to release.
    let (r, resp) = unsafe { (Ref::adopt(r), Ref::adopt(resp)) };
    let (Some(b), Some(r), Some(resp)) = (b, r, resp) else {
        return std::ptr::null_mut();
    };
    // SAFETY: getters on a live request and response; userfree strings freed once.
    let (pdf, ok, url, expected) = unsafe {
        if ResourceType::from_raw(call!(r.get_resource_type())) != ResourceType::MainFrame {
            return std::ptr::null_mut();
        }
        let mime = from_userfree(call!(resp.get_mime_type()));
        let status = call!(resp.get_status());
        let header = |name: &str| {
            let n = CefStr::new(name);
            from_userfree(call!(resp.get_header_by_name(n.as_ptr())))
        };
        // Content-Length counts the bytes on the wire: with a content coding the filter sees
        // more, so only an uncoded body's length is the one to reach.
        let coding = header("Content-Encoding");
        let expected = (coding.is_empty() || coding.eq_ignore_ascii_case("identity"))
            .then(|| header("Content-Length").trim().parse::<usize>().ok())
            .flatten();
        (
            mime.eq_ignore_ascii_case("application/pdf"),
            (200..300).contains(&status),
            from_userfree(call!(r.get_url())),
            expected,
        )
    };
    let docs = &shared(this).documents;
    if !(pdf && ok) {
        // The viewer's own document (its extension's page) is the PDF's, not another one.
        if !url.starts_with("chrome-extension://") {
            docs.forget(b.id());
        }
        return std::ptr::null_mut();
    }
    let generation = docs.begin(b.id(), &url, expected);
    // SAFETY: a CEF handler struct; its one reference goes to CEF with the return.
    unsafe {
        RcBox::<cef_response_filter_t, CopyFilter>::new(
            |h| {
                h.init_filter = Some(copy_filter_init);
                h.filter = Some(copy_filter);
            },
            CopyFilter {
                docs: docs.clone(),
                browser: b.id(),
                generation,
            },
        )
    }
}

/// A pass-through response filter that copies what passes into [`Documents`].
struct CopyFilter {
    docs: Arc<Documents>,
    browser: BrowserId,
    generation: u64,
}

/// CEF releases the filter when the body's stream is done with.
impl Drop for CopyFilter {
    fn drop(&mut self) {
        self.docs.ended(self.browser, self.generation);
    }
}

extern "C" fn copy_filter_init(_this: *mut cef_response_filter_t) -> c_int {
    1
}

extern "C" fn copy_filter(
    this: *mut cef_response_filter_t,
    data_in: *mut std::ffi::c_void,
    in_size: usize,
    in_read: *mut usize,
    data_out: *mut std::ffi::c_void,
    out_size: usize,
    out_written: *mut usize,
) -> cef_response_filter_status_t {
    let n = in_size.min(out_size);
    // SAFETY: CEF passes buffers of the sizes given (data_in NULL only when in_size is 0) and
    // valid out-parameters; the two buffers are distinct. `this` is a CopyFilter RcBox.
    unsafe {
        let chunk: &[u8] = if n == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(data_in as *const u8, n)
        };
        if n > 0 {
            std::ptr::copy_nonoverlapping(chunk.as_ptr(), data_out as *mut u8, n);
        }
        *in_read = n;
        *out_written = n;
        let f = RcBox::<cef_response_filter_t, CopyFilter>::data(this);
        f.docs.append(f.browser, f.generation, chunk);
    }
    // The rest of the input (an output buffer smaller than it) comes back in the next call.
    if n < in_size {
        cef_response_filter_status_t::RESPONSE_FILTER_NEED_MORE_DATA
    } else {
        cef_response_filter_status_t::RESPONSE_FILTER_DONE
    }
}

/// A main-frame load ended: a PDF copied during it counts only if it completed.
#[allow(clippy::too_many_arguments)]
extern "C" fn on_resource_load_complete(
    this: *mut cef_resource_request_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    r: *mut cef_request_t,
    resp: *mut cef_response_t,
    status: cef_urlrequest_status_t,
    _received: i64,
) {
    let (b, _f) = (adopt!(Browser, b), adopt!(Frame, f));
    // SAFETY: request and response references are ours to release.
    let (r, _resp) = unsafe { (Ref::adopt(r), Ref::adopt(resp)) };
    let (Some(b), Some(r)) = (b, r) else { return };
    // SAFETY: getters on a live request; the userfree string freed once.
    let url = unsafe {
        if ResourceType::from_raw(call!(r.get_resource_type())) != ResourceType::MainFrame {
            return;
        }
        from_userfree(call!(r.get_url()))
    };
    let ok = status == cef_urlrequest_status_t::UR_SUCCESS;
    shared(this).documents.complete(b.id(), &url, ok);
}

extern "C" fn on_process_message_received(
    this: *mut cef_client_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    _src: cef_process_id_t,
    msg: *mut cef_process_message_t,
) -> c_int {
    let (b, f) = (adopt!(Browser, b), adopt!(Frame, f));
    // SAFETY: the message reference is ours to release.
    let Some(msg) = (unsafe { Ref::adopt(msg) }) else {
        return 0;
    };
    if let Some(body) = crate::script::read_event(&msg) {
        if let (Some(b), Some(f)) = (b, f) {
            shared(this)
                .ui
                .get()
                .on_page_event(b.id(), f.id(), f.is_main(), body);
        }
        return 1;
    }
    let Some((rid, reply)) = crate::script::read_reply(&msg) else {
        return 0;
    };
    if let Some(b) = b {
        shared(this).ui.get().on_script_reply(b.id(), rid, reply);
    }
    1
}

extern "C" fn on_dev_tools_message(
    this: *mut cef_dev_tools_message_observer_t,
    b: *mut cef_browser_t,
    message: *const c_void,
    size: usize,
) -> c_int {
    let _b = adopt!(Browser, b);
    // SAFETY: the observer is an RcBox made in on_after_created.
    let (sh, id) = unsafe { *RcBox::<cef_dev_tools_message_observer_t, (Data, BrowserId)>::data(this) };
    if message.is_null() {
        return 1;
    }
    // SAFETY: CEF passes `size` bytes of UTF-8 JSON valid for this call.
    let bytes = unsafe { std::slice::from_raw_parts(message as *const u8, size) };
    sh.ui.get().on_devtools_message(id, bytes);
    1
}

extern "C" fn on_popup_show(this: *mut cef_render_handler_t, b: *mut cef_browser_t, show: c_int) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_popup_show(b.id(), show != 0);
}

extern "C" fn on_popup_size(this: *mut cef_render_handler_t, b: *mut cef_browser_t, r: *const cef_rect_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    // SAFETY: CEF passes a rect valid for the call.
    let Some(r) = (unsafe { r.as_ref() }) else { return };
    shared(this)
        .ui
        .get()
        .on_popup_size(b.id(), r.x, r.y, r.width, r.height);
}

#[allow(clippy::too_many_arguments)]
extern "C" fn on_jsdialog(
    this: *mut cef_jsdialog_handler_t,
    b: *mut cef_browser_t,
    origin: *const cef_string_t,
    kind: cef_jsdialog_type_t,
    message: *const cef_string_t,
    default_text: *const cef_string_t,
    cb: *mut cef_jsdialog_callback_t,
    suppress: *mut c_int,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    // SAFETY: string arguments valid for the call.
    let d = unsafe {
        JsDialog {
            kind: crate::page::dialog_kind(kind),
            origin: from_cef(origin),
            message: from_cef(message),
            default_text: from_cef(default_text),
        }
    };
    if shared(this)
        .ui
        .get()
        .on_js_dialog(b.id(), d, JsDialogCallback(cb))
    {
        1
    } else {
        // SAFETY: CEF passes a writable flag.
        unsafe {
            if !suppress.is_null() {
                *suppress = 1;
            }
        }
        0
    }
}

extern "C" fn on_before_unload_dialog(
    this: *mut cef_jsdialog_handler_t,
    b: *mut cef_browser_t,
    message: *const cef_string_t,
    is_reload: c_int,
    cb: *mut cef_jsdialog_callback_t,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    let d = JsDialog {
        kind: JsDialogKind::BeforeUnload {
            is_reload: is_reload != 0,
        },
        origin: String::new(),
        // SAFETY: a string argument valid for the call.
        message: unsafe { from_cef(message) },
        default_text: String::new(),
    };
    // There is no suppress flag for beforeunload (returning 0 would ask for CEF's own dialog,
    // which needs a native window): the handler answers `cb` whatever it returns.
    let _ = shared(this)
        .ui
        .get()
        .on_js_dialog(b.id(), d, JsDialogCallback(cb));
    1
}

extern "C" fn on_reset_dialog_state(this: *mut cef_jsdialog_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_reset_dialogs(b.id());
}

extern "C" fn can_download(
    _this: *mut cef_download_handler_t,
    b: *mut cef_browser_t,
    _url: *const cef_string_t,
    _method: *const cef_string_t,
) -> c_int {
    let _b = adopt!(Browser, b);
    // Where it goes is decided in on_before_download (always the download directory).
    1
}

extern "C" fn on_before_download(
    this: *mut cef_download_handler_t,
    b: *mut cef_browser_t,
    item: *mut cef_download_item_t,
    suggested: *const cef_string_t,
    cb: *mut cef_before_download_callback_t,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the item's and the callback's references are ours.
    let (item, cb) = unsafe { (Ref::adopt(item), Ref::adopt(cb)) };
    let (Some(b), Some(item), Some(cb)) = (b, item, cb) else {
        return 0;
    };
    // SAFETY: a string argument valid for the call.
    let d = crate::page::read_download(&item, unsafe { from_cef(suggested) });
    shared(this)
        .ui
        .get()
        .on_before_download(b.id(), d, BeforeDownloadCallback(cb));
    1
}

extern "C" fn on_download_updated(
    this: *mut cef_download_handler_t,
    b: *mut cef_browser_t,
    item: *mut cef_download_item_t,
    cb: *mut cef_download_item_callback_t,
) {
    let b = adopt!(Browser, b);
    // SAFETY: the item's and the callback's references are ours.
    let (item, cb) = unsafe { (Ref::adopt(item), Ref::adopt(cb)) };
    let (Some(b), Some(item), Some(cb)) = (b, item, cb) else {
        return;
    };
    let d = crate::page::read_download(&item, String::new());
    shared(this)
        .ui
        .get()
        .on_download_updated(b.id(), d, DownloadControl(cb));
}

extern "C" fn on_before_context_menu(
    this: *mut cef_context_menu_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    params: *mut cef_context_menu_params_t,
    model: *mut cef_menu_model_t,
) {
    let b = adopt!(Browser, b);
    let _f = adopt!(Frame, f);
    // SAFETY: the references of params and model are ours.
    let (params, model) = unsafe { (Ref::adopt(params), Ref::adopt(model)) };
    if let Some(m) = &model {
        // An empty model shows nothing: CEF's own menu needs a native window we do not have;
        // the chrome draws ours.
        // SAFETY: a live menu model.
        unsafe { call!(m.clear()) };
    }
    if let (Some(b), Some(p)) = (b, params) {
        let menu: ContextMenu = crate::page::read_context_menu(&p);
        shared(this).ui.get().on_context_menu(b.id(), menu);
    }
}

#[allow(clippy::too_many_arguments)]
extern "C" fn on_file_dialog(
    this: *mut cef_dialog_handler_t,
    b: *mut cef_browser_t,
    mode: cef_file_dialog_mode_t,
    title: *const cef_string_t,
    default_path: *const cef_string_t,
    accept_filters: cef_string_list_t,
    _accept_extensions: cef_string_list_t,
    _accept_descriptions: cef_string_list_t,
    cb: *mut cef_file_dialog_callback_t,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    // SAFETY: arguments valid for the call.
    let d = unsafe {
        FileDialog {
            mode: crate::page::file_mode(mode),
            title: from_cef(title),
            default_path: from_cef(default_path),
            accept: crate::page::read_list(accept_filters),
        }
    };
    shared(this)
        .ui
        .get()
        .on_file_dialog(b.id(), d, FileDialogCallback(cb));
    1 // Never CEF's own (GTK) dialog.
}

extern "C" fn on_media_access(
    this: *mut cef_permission_handler_t,
    b: *mut cef_browser_t,
    f: *mut cef_frame_t,
    origin: *const cef_string_t,
    asked: u32,
    cb: *mut cef_media_access_callback_t,
) -> c_int {
    let b = adopt!(Browser, b);
    let _f = adopt!(Frame, f);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    let req = PermissionRequest {
        id: 0,
        // SAFETY: a string argument valid for the call.
        origin: unsafe { from_cef(origin) },
        kinds: crate::page::media_words(asked),
    };
    shared(this).ui.get().on_permission_request(
        b.id(),
        req,
        PermissionCallback(crate::page::PermissionCb::Media(cb, asked)),
    );
    1
}

extern "C" fn on_show_permission_prompt(
    this: *mut cef_permission_handler_t,
    b: *mut cef_browser_t,
    prompt: u64,
    origin: *const cef_string_t,
    asked: u32,
    cb: *mut cef_permission_prompt_callback_t,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    let req = PermissionRequest {
        id: prompt,
        // SAFETY: a string argument valid for the call.
        origin: unsafe { from_cef(origin) },
        kinds: crate::page::permission_words(asked),
    };
    shared(this).ui.get().on_permission_request(
        b.id(),
        req,
        PermissionCallback(crate::page::PermissionCb::Prompt(cb)),
    );
    1
}

extern "C" fn on_dismiss_permission_prompt(
    this: *mut cef_permission_handler_t,
    b: *mut cef_browser_t,
    prompt: u64,
    _result: cef_permission_request_result_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_permission_dismissed(b.id(), prompt);
}

extern "C" fn on_fullscreen_mode_change(this: *mut cef_display_handler_t, b: *mut cef_browser_t, on: c_int) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_fullscreen(b.id(), on != 0);
}

extern "C" fn on_favicon_urlchange(
    this: *mut cef_display_handler_t,
    b: *mut cef_browser_t,
    urls: cef_string_list_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    let a = crate::api::api();
    let mut out = Vec::new();
    if !urls.is_null() {
        // SAFETY: a list CEF owns, valid for the call; each value is copied into a string we
        // clear.
        unsafe {
            for i in 0..(a.cef_string_list_size)(urls) {
                let mut s: cef_string_t = std::mem::zeroed();
                if (a.cef_string_list_value)(urls, i, &mut s) != 0 {
                    out.push(from_cef(&s));
                }
                (a.cef_string_utf16_clear)(&mut s);
            }
        }
    }
    shared(this).ui.get().on_favicon_urls(b.id(), out);
}

extern "C" fn on_find_result(
    this: *mut cef_find_handler_t,
    b: *mut cef_browser_t,
    _identifier: c_int,
    count: c_int,
    _rect: *const cef_rect_t,
    active: c_int,
    last: c_int,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this)
        .ui
        .get()
        .on_find_result(b.id(), count, active, last != 0);
}

extern "C" fn on_key_event(
    this: *mut cef_keyboard_handler_t,
    b: *mut cef_browser_t,
    event: *const cef_key_event_t,
    _os_event: *mut XEvent,
) -> c_int {
    let Some(b) = adopt!(Browser, b) else { return 0 };
    // SAFETY: CEF passes a valid event for the duration of the call (or none).
    let Some(key) = (unsafe { event.as_ref() }).and_then(KeyEvent::from_raw) else {
        return 0;
    };
    shared(this).ui.get().on_key_not_taken(b.id(), key);
    // Not handled here: the window acts on it later, and CEF has nothing else to do with it.
    0
}

extern "C" fn on_text_selection_changed(
    this: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    text: *const cef_string_t,
    _range: *const cef_range_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    // SAFETY: a string argument valid for the call (NULL reads as empty).
    let text = unsafe { from_cef(text) };
    shared(this).ui.get().on_text_selection(b.id(), text);
}

extern "C" fn start_dragging(
    this: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    data: *mut cef_drag_data_t,
    allowed: cef_drag_operations_mask_t,
    x: c_int,
    y: c_int,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the drag data's reference is ours.
    let data = unsafe { Ref::adopt(data) };
    let (Some(b), Some(data)) = (b, data) else {
        return 0;
    };
    shared(this)
        .ui
        .get()
        .on_start_dragging(b.id(), DragData(data), DragOps::from_raw(allowed), x, y) as c_int
}

extern "C" fn update_drag_cursor(
    this: *mut cef_render_handler_t,
    b: *mut cef_browser_t,
    op: cef_drag_operations_mask_t,
) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this)
        .ui
        .get()
        .on_drag_operation(b.id(), DragOps::from_raw(op));
}

extern "C" fn on_print_start(this: *mut cef_print_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_print(b.id(), PrintEvent::Started);
}

extern "C" fn on_print_settings(
    _this: *mut cef_print_handler_t,
    b: *mut cef_browser_t,
    settings: *mut cef_print_settings_t,
    get_defaults: c_int,
) {
    let _b = adopt!(Browser, b);
    // SAFETY: the settings reference is ours to release (CEF forbids keeping it).
    let Some(settings) = (unsafe { Ref::adopt(settings) }) else {
        return;
    };
    // Otherwise Chromium's own values stand (nothing of ours to sync).
    if get_defaults != 0 {
        crate::page::default_print_settings(&settings);
    }
}

extern "C" fn on_print_dialog(
    this: *mut cef_print_handler_t,
    b: *mut cef_browser_t,
    has_selection: c_int,
    cb: *mut cef_print_dialog_callback_t,
) -> c_int {
    let b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours.
    let cb = unsafe { Ref::adopt(cb) };
    let (Some(b), Some(cb)) = (b, cb) else { return 0 };
    let ev = PrintEvent::Dialog {
        has_selection: has_selection != 0,
        answer: PrintDialogCallback(Some(cb)),
    };
    shared(this).ui.get().on_print(b.id(), ev);
    // The handler answers (or drops, which cancels) the callback.
    1
}

extern "C" fn on_print_job(
    _this: *mut cef_print_handler_t,
    b: *mut cef_browser_t,
    _document_name: *const cef_string_t,
    _pdf_file_path: *const cef_string_t,
    cb: *mut cef_print_job_callback_t,
) -> c_int {
    let _b = adopt!(Browser, b);
    // SAFETY: the callback's reference is ours to release.
    let _cb = unsafe { Ref::adopt(cb) };
    // Dialogs are always cancelled, so no job is ever sent to a printer: refuse any that
    // comes (CEF then deletes its temporary PDF).
    0
}

extern "C" fn on_print_reset(this: *mut cef_print_handler_t, b: *mut cef_browser_t) {
    let Some(b) = adopt!(Browser, b) else { return };
    shared(this).ui.get().on_print(b.id(), PrintEvent::Reset);
}

extern "C" fn get_pdf_paper_size(
    _this: *mut cef_print_handler_t,
    b: *mut cef_browser_t,
    device_units_per_inch: c_int,
) -> cef_size_t {
    let _b = adopt!(Browser, b);
    crate::page::pdf_paper_size(device_units_per_inch)
}
