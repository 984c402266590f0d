//! Typed wrappers for the CEF objects the browser uses. Each owns one reference; `Clone` adds
//! one. `Send`/`Sync` where CEF documents the object as usable from any browser-process thread
//! (browser, host, frame, request context); methods CEF restricts to the UI thread check that
//! in debug builds.

use crate::api::{api, debug_assert_ui};
use crate::input::{DragData, DragOps, KeyEvent, MouseButton, MouseEvent};
use crate::rc::{Ref, call};
use crate::strings::{CefStr, from_userfree};
use crate::sys::*;

/// A CEF browser identifier: unique per browser for the life of the process.
pub type BrowserId = i32;

macro_rules! wrapper {
    ($(#[$m:meta])* $name:ident, $raw:ty, send) => {
        wrapper!($(#[$m])* $name, $raw);
        // SAFETY: CEF documents this object's functions as callable on any thread of the
        // browser process (unless a method says otherwise, which the wrapper checks), and
        // its reference count is atomic.
        unsafe impl Send for $name {}
        unsafe impl Sync for $name {}
    };
    ($(#[$m:meta])* $name:ident, $raw:ty) => {
        $(#[$m])*
        #[derive(Clone)]
        // The reference is what keeps the object (a registration: the observer) alive.
        #[allow(dead_code)]
        pub struct $name(pub(crate) Ref<$raw>);
        #[allow(dead_code)]
        impl $name {
            /// # Safety
            /// `p` is NULL or a live object carrying a reference that becomes ours.
            pub(crate) unsafe fn adopt(p: *mut $raw) -> Option<$name> {
                unsafe { Ref::adopt(p) }.map($name)
            }
            pub(crate) fn as_ptr(&self) -> *mut $raw {
                self.0.as_ptr()
            }
        }
    };
}

wrapper!(
    /// A browser (one tab).
    Browser, cef_browser_t, send
);
wrapper!(
    /// The browser-process side of a browser: input, focus, size, DevTools, closing.
    BrowserHost, cef_browser_host_t, send
);
wrapper!(
    /// A frame of a browser.
    Frame, cef_frame_t, send
);
wrapper!(
    /// A request context: one cookie jar, cache and storage (a container).
    RequestContext, cef_request_context_t, send
);
wrapper!(
    /// Keeps a DevTools message observer registered; dropping it unregisters.
    DevToolsRegistration, cef_registration_t, send
);

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Browser({})", self.id())
    }
}

impl Browser {
    pub fn id(&self) -> BrowserId {
        // SAFETY: a live browser; get_identifier has no thread restriction.
        unsafe { call!(self.get_identifier()) }
    }
    pub fn host(&self) -> Option<BrowserHost> {
        // SAFETY: get_host returns a new reference (or NULL in a renderer).
        unsafe { BrowserHost::adopt(call!(self.get_host())) }
    }
    pub fn main_frame(&self) -> Option<Frame> {
        // SAFETY: returns a new reference or NULL.
        unsafe { Frame::adopt(call!(self.get_main_frame())) }
    }
    pub fn focused_frame(&self) -> Option<Frame> {
        // SAFETY: returns a new reference or NULL.
        unsafe { Frame::adopt(call!(self.get_focused_frame())) }
    }
    /// The identifiers of every frame of the browser (cross-site frames in other renderers
    /// included), in no particular order.
    pub fn frame_ids(&self) -> Vec<String> {
        let a = api();
        // SAFETY: a list we allocate, fill through CEF and free once.
        unsafe {
            let list = (a.cef_string_list_alloc)();
            if list.is_null() {
                return Vec::new();
            }
            call!(self.get_frame_identifiers(list));
            let out = crate::page::read_list(list);
            (a.cef_string_list_free)(list);
            out
        }
    }
    /// The frame with identifier `id`, while it exists.
    pub fn frame(&self, id: &str) -> Option<Frame> {
        let s = CefStr::new(id);
        // SAFETY: a live browser; the string is borrowed for the call; a new reference or NULL.
        unsafe { Frame::adopt(call!(self.get_frame_by_identifier(s.as_ptr()))) }
    }
    pub fn can_go_back(&self) -> bool {
        // SAFETY: a live browser.
        unsafe { call!(self.can_go_back()) != 0 }
    }
    pub fn can_go_forward(&self) -> bool {
        // SAFETY: a live browser.
        unsafe { call!(self.can_go_forward()) != 0 }
    }
    pub fn go_back(&self) {
        // SAFETY: a live browser.
        unsafe { call!(self.go_back()) }
    }
    pub fn go_forward(&self) {
        // SAFETY: a live browser.
        unsafe { call!(self.go_forward()) }
    }
    pub fn reload(&self) {
        // SAFETY: a live browser.
        unsafe { call!(self.reload()) }
    }
    /// Reloads without the cache (Ctrl+Shift+R).
    pub fn reload_ignore_cache(&self) {
        // SAFETY: a live browser.
        unsafe { call!(self.reload_ignore_cache()) }
    }
    pub fn stop_load(&self) {
        // SAFETY: a live browser.
        unsafe { call!(self.stop_load()) }
    }
}

impl Frame {
    pub fn is_main(&self) -> bool {
        // SAFETY: a live frame.
        unsafe { call!(self.is_main()) != 0 }
    }
    /// The frame's identifier: unique for the frame's document host; a frame that swaps
    /// hosts (a cross-process navigation) gets a new one.
    pub fn id(&self) -> String {
        // SAFETY: get_identifier returns a userfree string we free once.
        unsafe { from_userfree(call!(self.get_identifier())) }
    }
    /// The frame that embeds this one (`None` for the main frame).
    pub fn parent(&self) -> Option<Frame> {
        // SAFETY: returns a new reference or NULL.
        unsafe { Frame::adopt(call!(self.get_parent())) }
    }
    /// Whether the frame still exists (it has not navigated away to another host or gone).
    pub fn is_valid(&self) -> bool {
        // SAFETY: a live frame object.
        unsafe { call!(self.is_valid()) != 0 }
    }
    pub fn url(&self) -> String {
        // SAFETY: get_url returns a userfree string we free once.
        unsafe { from_userfree(call!(self.get_url())) }
    }
    pub fn load_url(&self, url: &str) {
        let u = CefStr::new(url);
        // SAFETY: a live frame; CEF copies the string.
        unsafe { call!(self.load_url(u.as_ptr())) }
    }
    /// An editing command on the frame's focused element or selection.
    pub fn edit(&self, op: EditOp) {
        // SAFETY: a live frame; these take no arguments.
        unsafe {
            match op {
                EditOp::Undo => call!(self.undo()),
                EditOp::Redo => call!(self.redo()),
                EditOp::Cut => call!(self.cut()),
                EditOp::Copy => call!(self.copy()),
                EditOp::Paste => call!(self.paste()),
                EditOp::SelectAll => call!(self.select_all()),
            }
        }
    }
}

/// A zoom step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoomStep {
    In,
    Out,
    Reset,
}

/// Editing commands of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditOp {
    Undo,
    Redo,
    Cut,
    Copy,
    Paste,
    SelectAll,
}

impl BrowserHost {
    pub fn close(&self, force: bool) {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.close_browser(force as i32)) }
    }
    pub fn set_focus(&self, focus: bool) {
        // SAFETY: a live host.
        unsafe { call!(self.set_focus(focus as i32)) }
    }
    /// Silences (or un-silences) every sound of this browser's pages; the pages keep playing
    /// and cannot tell.
    pub fn set_audio_muted(&self, muted: bool) {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.set_audio_muted(muted as i32)) }
    }
    /// Whether Chromium has this browser's sound muted.
    pub fn is_audio_muted(&self) -> bool {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.is_audio_muted()) != 0 }
    }
    /// Opens this page's DevTools for the human, in a window of their own, or raises them if
    /// open; `inspect_at` (view DIP) selects the element there. CEF owns that browser: it gets
    /// no client of ours, so it never becomes a tab (nor anything the agent can reach), and it
    /// closes with this browser or by its own keys and close button.
    pub fn show_dev_tools(&self, inspect_at: Option<(i32, i32)>) {
        debug_assert_ui();
        // SAFETY: plain C structs; zero is "default" for every field not set (no parent
        // window: a top-level one; not windowless).
        let mut wi: cef_window_info_t = unsafe { std::mem::zeroed() };
        wi.bounds = cef_rect_t {
            x: 80,
            y: 80,
            width: 1100,
            height: 760,
        };
        // SAFETY: as above.
        let mut bs: cef_browser_settings_t = unsafe { std::mem::zeroed() };
        bs.size = std::mem::size_of::<cef_browser_settings_t>();
        let at = inspect_at.map(|(x, y)| cef_point_t { x, y });
        let at_ptr = at.as_ref().map_or(std::ptr::null(), |p| p as *const cef_point_t);
        // SAFETY: a live host on the UI thread; every pointer is valid for the call (CEF copies
        // the structs); a null client is allowed and means CEF's default handling.
        unsafe { call!(self.show_dev_tools(&wi, std::ptr::null_mut(), &bs, at_ptr)) }
    }
    /// Asks for a repaint of the whole view (the next `on_paint` follows).
    pub fn invalidate(&self) {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.invalidate(cef_paint_element_type_t::PET_VIEW)) }
    }
    /// The view's size or scale changed: CEF re-reads them from the client.
    pub fn resized(&self) {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        unsafe {
            call!(self.notify_screen_info_changed());
            call!(self.was_resized());
        }
    }
    /// Downloads `url` as if a link with `download` was clicked (the download handler
    /// decides where it goes).
    pub fn start_download(&self, url: &str) {
        let u = CefStr::new(url);
        // SAFETY: a live host; CEF copies the string.
        unsafe { call!(self.start_download(u.as_ptr())) }
    }
    /// Replaces the misspelled word the last context menu was opened on with `word`.
    pub fn replace_misspelling(&self, word: &str) {
        let w = CefStr::new(word);
        // SAFETY: a live host; CEF copies the string.
        unsafe { call!(self.replace_misspelling(w.as_ptr())) }
    }
    /// Adds `word` to the profile's own dictionary, so it is no longer marked.
    pub fn add_word_to_dictionary(&self, word: &str) {
        let w = CefStr::new(word);
        // SAFETY: a live host; CEF copies the string.
        unsafe { call!(self.add_word_to_dictionary(w.as_ptr())) }
    }
    /// Finds `text` in the page (`find_next`: continue the current search), highlighting
    /// matches; results arrive through `ClientHandler::on_find_result`.
    pub fn find(&self, text: &str, forward: bool, match_case: bool, find_next: bool) {
        let t = CefStr::new(text);
        // SAFETY: a live host; CEF copies the string.
        unsafe { call!(self.find(t.as_ptr(), forward as i32, match_case as i32, find_next as i32)) }
    }
    pub fn stop_finding(&self, clear_selection: bool) {
        // SAFETY: a live host.
        unsafe { call!(self.stop_finding(clear_selection as i32)) }
    }
    /// Chrome's zoom steps (in, out, reset), remembered per host by Chromium's profile.
    pub fn zoom(&self, step: ZoomStep) {
        debug_assert_ui();
        let c = match step {
            ZoomStep::In => cef_zoom_command_t::CEF_ZOOM_COMMAND_IN,
            ZoomStep::Out => cef_zoom_command_t::CEF_ZOOM_COMMAND_OUT,
            ZoomStep::Reset => cef_zoom_command_t::CEF_ZOOM_COMMAND_RESET,
        };
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.zoom(c)) }
    }
    /// The zoom as a percentage (100 = none).
    pub fn zoom_percent(&self) -> u32 {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        let level = unsafe { call!(self.get_zoom_level()) };
        // Chromium's zoom level is log base 1.2 of the factor.
        (1.2f64.powf(level) * 100.0).round() as u32
    }
    /// Sets the zoom to a percentage (a remembered per-site zoom).
    pub fn set_zoom_percent(&self, percent: f64) {
        debug_assert_ui();
        let level = (percent.clamp(25.0, 500.0) / 100.0).ln() / 1.2f64.ln();
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.set_zoom_level(level)) }
    }
    /// Leaves the page's element fullscreen (Escape).
    pub fn exit_fullscreen(&self) {
        debug_assert_ui();
        // SAFETY: a live host, on the UI thread.
        unsafe { call!(self.exit_fullscreen(1)) }
    }
    /// Prints the page to a PDF at `path` (A4-ish defaults); `done(ok)` runs on the UI thread.
    pub fn print_to_pdf(&self, path: &std::path::Path, done: Box<dyn FnOnce(bool)>) {
        debug_assert_ui();
        let p = CefStr::new(&path.display().to_string());
        // SAFETY: a plain C struct; zero is CEF's default for every field (Letter size,
        // default margins, portrait).
        let mut settings: cef_pdf_print_settings_t = unsafe { std::mem::zeroed() };
        settings.print_background = 1;
        let cb = crate::page::pdf_callback(done);
        // SAFETY: a live host; the string and settings are borrowed for the call, the
        // callback's reference goes to CEF.
        unsafe { call!(self.print_to_pdf(p.as_ptr(), &settings, cb)) }
    }
    /// The browser whose page opened this one (a popup CEF created), if any.
    pub fn opener_id(&self) -> Option<BrowserId> {
        // SAFETY: a live host; a plain getter (0 when there is no opener).
        let id = unsafe { call!(self.get_opener_identifier()) };
        (id != 0).then_some(id)
    }
    pub fn request_context(&self) -> Option<RequestContext> {
        // SAFETY: returns a new reference or NULL.
        unsafe { RequestContext::adopt(call!(self.get_request_context())) }
    }
    pub fn send_mouse_move(&self, e: &MouseEvent, leave: bool) {
        let e = e.raw();
        // SAFETY: a live host; the event is a plain struct valid for the call.
        unsafe { call!(self.send_mouse_move_event(&e, leave as i32)) }
    }
    pub fn send_mouse_click(&self, e: &MouseEvent, button: MouseButton, up: bool, count: i32) {
        let e = e.raw();
        // SAFETY: as above.
        unsafe { call!(self.send_mouse_click_event(&e, button.raw(), up as i32, count)) }
    }
    pub fn send_mouse_wheel(&self, e: &MouseEvent, dx: i32, dy: i32) {
        let e = e.raw();
        // SAFETY: as above.
        unsafe { call!(self.send_mouse_wheel_event(&e, dx, dy)) }
    }
    /// The pointer entered the view carrying `data` (a drag the page started: the view is both
    /// the drag's source and its target).
    pub fn drag_target_enter(&self, data: &DragData, e: &MouseEvent, allowed: DragOps) {
        debug_assert_ui();
        let e = e.raw();
        // SAFETY: a live host on the UI thread; CEF takes over the added reference to the data.
        unsafe { call!(self.drag_target_drag_enter(data.0.clone().into_cef(), &e, allowed.raw())) }
    }
    /// The dragging pointer moved over the view.
    pub fn drag_target_over(&self, e: &MouseEvent, allowed: DragOps) {
        debug_assert_ui();
        let e = e.raw();
        // SAFETY: a live host on the UI thread; the event is valid for the call.
        unsafe { call!(self.drag_target_drag_over(&e, allowed.raw())) }
    }
    /// The dragging pointer left the view.
    pub fn drag_target_leave(&self) {
        debug_assert_ui();
        // SAFETY: a live host on the UI thread.
        unsafe { call!(self.drag_target_drag_leave()) }
    }
    /// The drag was dropped at `e` (after [`BrowserHost::drag_target_enter`]).
    pub fn drag_target_drop(&self, e: &MouseEvent) {
        debug_assert_ui();
        let e = e.raw();
        // SAFETY: as above.
        unsafe { call!(self.drag_target_drop(&e)) }
    }
    /// The drag the page started ended at (x, y) with `op` (NONE: cancelled), and the drag is
    /// over; target calls come first, as CEF requires when the view is source and target.
    pub fn drag_source_end(&self, x: i32, y: i32, op: DragOps) {
        debug_assert_ui();
        // SAFETY: a live host on the UI thread.
        unsafe {
            call!(self.drag_source_ended_at(x, y, op.raw()));
            call!(self.drag_source_system_drag_ended());
        }
    }
    pub fn send_key(&self, e: &KeyEvent) {
        let e = e.raw();
        // SAFETY: as above.
        unsafe { call!(self.send_key_event(&e)) }
    }
    /// Shows `text` as the IME's composition (empty cancels it), caret at its end.
    pub fn ime_set_composition(&self, text: &str) {
        debug_assert_ui();
        if text.is_empty() {
            // SAFETY: a live host, on the UI thread.
            unsafe { call!(self.ime_cancel_composition()) };
            return;
        }
        let s = CefStr::new(text);
        let n = text.encode_utf16().count() as u32;
        let invalid = cef_range_t {
            from: u32::MAX,
            to: u32::MAX,
        };
        let caret = cef_range_t { from: n, to: n };
        // SAFETY: a live host; every pointer is valid for the call (no underlines: NULL, 0).
        unsafe { call!(self.ime_set_composition(s.as_ptr(), 0, std::ptr::null(), &invalid, &caret)) }
    }
    pub fn ime_commit(&self, text: &str) {
        debug_assert_ui();
        let s = CefStr::new(text);
        let invalid = cef_range_t {
            from: u32::MAX,
            to: u32::MAX,
        };
        // SAFETY: a live host; pointers valid for the call.
        unsafe { call!(self.ime_commit_text(s.as_ptr(), &invalid, 0)) }
    }
    /// Sends one DevTools protocol message (JSON). False when CEF did not accept it.
    pub fn send_devtools_message(&self, json: &str) -> bool {
        debug_assert_ui();
        // SAFETY: a live host; CEF copies the bytes.
        unsafe { call!(self.send_dev_tools_message(json.as_ptr() as *const _, json.len())) != 0 }
    }
}

/// Creates a windowless browser at `url` (UI thread). `on_after_created` runs before this
/// returns.
pub fn create_browser(
    url: &str,
    client: &crate::Client,
    context: Option<&RequestContext>,
) -> Option<Browser> {
    debug_assert_ui();
    // SAFETY: plain C structs; zero is "default" for every field we do not set.
    let mut wi: cef_window_info_t = unsafe { std::mem::zeroed() };
    wi.windowless_rendering_enabled = 1;
    // SAFETY: as above.
    let mut bs: cef_browser_settings_t = unsafe { std::mem::zeroed() };
    bs.size = std::mem::size_of::<cef_browser_settings_t>();
    bs.windowless_frame_rate = 30;
    bs.background_color = 0xFFFF_FFFF;
    let u = CefStr::new(url);
    let ctx = context
        .map(|c| c.0.clone().into_cef())
        .unwrap_or(std::ptr::null_mut());
    // SAFETY: all pointers are valid for the call; the client and context references we pass
    // are transferred to CEF, as the C API expects; the returned browser carries one for us.
    unsafe {
        Browser::adopt((api().cef_browser_host_create_browser_sync)(
            &wi,
            client.new_ref(),
            u.as_ptr(),
            &bs,
            std::ptr::null_mut(),
            ctx,
        ))
    }
}
