//! What a page asks of the browser: JavaScript dialogs, downloads, context menus, file
//! choosers, permissions and popup widgets. The values handed to [`crate::ClientHandler`] are
//! plain data plus a typed callback that answers CEF later (on the UI thread); dropping a
//! callback without answering is allowed (CEF then treats the request as cancelled when the
//! browser goes away), but the handler should answer every one it accepted.

use crate::api::{api, debug_assert_ui};
use crate::rc::{RcBox, Ref, call};
use crate::strings::{CefStr, from_cef, from_userfree};
use crate::sys::*;

/// The kind of a JavaScript dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsDialogKind {
    Alert,
    Confirm,
    Prompt,
    /// "Leave this page?" (`onbeforeunload`); `is_reload` tells reload from leaving.
    BeforeUnload {
        is_reload: bool,
    },
}

/// A JavaScript dialog a page opened.
#[derive(Debug, Clone)]
pub struct JsDialog {
    pub kind: JsDialogKind,
    /// The page's origin URL (empty for beforeunload, where CEF does not pass it).
    pub origin: String,
    pub message: String,
    /// Prompt dialogs only.
    pub default_text: String,
}

/// Answers one JavaScript dialog.
pub struct JsDialogCallback(pub(crate) Ref<cef_jsdialog_callback_t>);

impl JsDialogCallback {
    /// OK (`accept`) or Cancel, with the prompt's text.
    pub fn answer(self, accept: bool, text: &str) {
        debug_assert_ui();
        let s = CefStr::new(text);
        let cb = &self.0;
        // SAFETY: a live callback; the string is borrowed for the call (CEF copies it).
        unsafe { call!(cb.cont(accept as i32, s.as_ptr())) };
    }
}

/// A server (or proxy) asking for HTTP authentication (Basic, Digest, …) before it answers.
#[derive(Debug, Clone)]
pub struct AuthChallenge {
    /// The URL of the request that was challenged (its origin is what the sign-in is for).
    pub origin: String,
    /// A proxy asks, not the site.
    pub proxy: bool,
    pub host: String,
    pub port: u16,
    /// The server-chosen realm (page-chosen text; may be empty).
    pub realm: String,
    /// "basic", "digest", …
    pub scheme: String,
}

/// Answers one authentication challenge. Dropping it unanswered cancels the sign-in (the
/// request then fails with the server's 401 page).
pub struct AuthCallback(pub(crate) Ref<cef_auth_callback_t>);

// SAFETY: CEF's auth callback may be called on any thread: it hops to its own sequence before
// touching the request (libcef's AuthCallbackImpl), and its refcount is atomic.
unsafe impl Send for AuthCallback {}

impl AuthCallback {
    /// Sends the credentials (the server may challenge again if they are wrong).
    pub fn sign_in(self, username: &str, password: &str) {
        let (u, p) = (CefStr::new(username), CefStr::new(password));
        let cb = &self.0;
        // SAFETY: a live callback; the strings are borrowed for the call (CEF copies them).
        unsafe { call!(cb.cont(u.as_ptr(), p.as_ptr())) };
    }
    pub fn cancel(self) {
        let cb = &self.0;
        // SAFETY: a live callback.
        unsafe { call!(cb.cancel()) };
    }
}

/// A download's state, read from CEF's download item.
#[derive(Debug, Clone, Default)]
pub struct DownloadItem {
    /// CEF's id, unique for the life of the process.
    pub id: u32,
    pub url: String,
    /// The name the server or page suggested (page-chosen text).
    pub suggested_name: String,
    pub mime_type: String,
    pub received: i64,
    /// -1 when unknown.
    pub total: i64,
    pub in_progress: bool,
    pub complete: bool,
    pub canceled: bool,
    pub interrupted: bool,
    /// Chromium's interrupt reason code (0 = none).
    pub interrupt_reason: i32,
    /// Where CEF writes (the final path once chosen).
    pub full_path: String,
}

/// Chooses where a download is saved (or cancels it by being dropped).
pub struct BeforeDownloadCallback(pub(crate) Ref<cef_before_download_callback_t>);

impl BeforeDownloadCallback {
    /// Saves to `path`, with no dialog of CEF's own.
    pub fn save_to(self, path: &std::path::Path) {
        debug_assert_ui();
        let s = CefStr::new(&path.display().to_string());
        let cb = &self.0;
        // SAFETY: a live callback; the string is borrowed for the call.
        unsafe { call!(cb.cont(s.as_ptr(), 0)) };
    }
}

/// Controls a running download.
#[derive(Clone)]
pub struct DownloadControl(pub(crate) Ref<cef_download_item_callback_t>);

impl DownloadControl {
    pub fn cancel(&self) {
        debug_assert_ui();
        let cb = &self.0;
        // SAFETY: a live callback.
        unsafe { call!(cb.cancel()) };
    }

    /// Stops reading the download until [`DownloadControl::resume`] (Chromium keeps the
    /// connection and the partial file).
    pub fn pause(&self) {
        debug_assert_ui();
        let cb = &self.0;
        // SAFETY: a live callback.
        unsafe { call!(cb.pause()) };
    }

    pub fn resume(&self) {
        debug_assert_ui();
        let cb = &self.0;
        // SAFETY: a live callback.
        unsafe { call!(cb.resume()) };
    }
}

/// What was right-clicked, in view coordinates (DIP).
#[derive(Debug, Clone, Default)]
pub struct ContextMenu {
    pub x: i32,
    pub y: i32,
    pub link_url: String,
    /// The image, video or audio source URL, if any.
    pub source_url: String,
    pub has_image: bool,
    pub selection: String,
    pub editable: bool,
    pub page_url: String,
    /// The word under the pointer that spellcheck marked, if any, and Chromium's suggestions
    /// for it (best first).
    pub misspelled: String,
    pub suggestions: Vec<String>,
}

/// What a file chooser wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileDialogMode {
    Open,
    OpenMultiple,
    OpenFolder,
    Save,
}

/// A file chooser a page opened (`<input type=file>`, `showSaveFilePicker` …).
#[derive(Debug, Clone)]
pub struct FileDialog {
    pub mode: FileDialogMode,
    pub title: String,
    pub default_path: String,
    /// MIME types and extensions (`image/*`, `.png`).
    pub accept: Vec<String>,
}

/// Answers a file chooser.
pub struct FileDialogCallback(pub(crate) Ref<cef_file_dialog_callback_t>);

impl FileDialogCallback {
    pub fn choose(self, paths: &[std::path::PathBuf]) {
        debug_assert_ui();
        let a = api();
        // SAFETY: a fresh list we own, filled, passed for the call (CEF copies), then freed.
        unsafe {
            let list = (a.cef_string_list_alloc)();
            for p in paths {
                let s = CefStr::new(&p.display().to_string());
                (a.cef_string_list_append)(list, s.as_ptr());
            }
            let cb = &self.0;
            call!(cb.cont(list));
            (a.cef_string_list_free)(list);
        }
    }
    pub fn cancel(self) {
        debug_assert_ui();
        let cb = &self.0;
        // SAFETY: a live callback.
        unsafe { call!(cb.cancel()) };
    }
}

/// Permissions a page asks for (bits of CEF's `cef_permission_request_types_t` and media
/// access), in human words.
#[derive(Debug, Clone)]
pub struct PermissionRequest {
    /// CEF's prompt id (0 for a media-access request).
    pub id: u64,
    pub origin: String,
    pub kinds: Vec<&'static str>,
}

/// Answers a permission prompt or a media-access request.
pub struct PermissionCallback(pub(crate) PermissionCb);

pub(crate) enum PermissionCb {
    Prompt(Ref<cef_permission_prompt_callback_t>),
    Media(Ref<cef_media_access_callback_t>, u32),
}

/// How the human answered a permission prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// Allow.
    Allow,
    /// Block: Chromium keeps the site blocked for the session.
    Block,
    /// Dismissed (Escape): this request is refused, and Chromium lets the site ask again.
    Dismiss,
}

impl PermissionCallback {
    pub fn answer(self, answer: PermissionAnswer) {
        debug_assert_ui();
        use PermissionCb as PermissionCallback;
        let allow = answer == PermissionAnswer::Allow;
        // SAFETY: live callbacks.
        unsafe {
            match self.0 {
                PermissionCallback::Prompt(cb) => {
                    let r = match answer {
                        PermissionAnswer::Allow => {
                            cef_permission_request_result_t::CEF_PERMISSION_RESULT_ACCEPT
                        }
                        PermissionAnswer::Block => {
                            cef_permission_request_result_t::CEF_PERMISSION_RESULT_DENY
                        }
                        PermissionAnswer::Dismiss => {
                            cef_permission_request_result_t::CEF_PERMISSION_RESULT_DISMISS
                        }
                    };
                    call!(cb.cont(r));
                }
                PermissionCallback::Media(cb, asked) => {
                    if allow {
                        call!(cb.cont(asked));
                    } else {
                        call!(cb.cancel());
                    }
                }
            }
        }
    }
}

/// Human words for the permission bits CEF passes.
pub(crate) fn permission_words(bits: u32) -> Vec<&'static str> {
    // cef_permission_request_types_t (CEF 131).
    const WORDS: &[(u32, &str)] = &[
        (1, "use augmented reality"),
        (2, "use a camera to pan, tilt and zoom"),
        (4, "use your camera"),
        (8, "control captured surfaces"),
        (16, "read the clipboard"),
        (32, "access storage of other sites"),
        (64, "store data persistently"),
        (128, "find local fonts"),
        (256, "know your location"),
        (512, "track your hands"),
        (1024, "use identity providers"),
        (2048, "know when you are idle"),
        (4096, "use your microphone"),
        (8192, "use MIDI devices"),
        (16384, "download multiple files"),
        (32768, "show notifications"),
        (65536, "lock the keyboard"),
        (131072, "lock the pointer"),
        (262144, "play protected content"),
        (524288, "open links of a protocol"),
        (1048576, "use storage access"),
        (2097152, "use virtual reality"),
        (4194304, "install a web app"),
        (8388608, "manage windows"),
        (16777216, "access files"),
    ];
    let mut out: Vec<&'static str> = Vec::new();
    for (bit, w) in WORDS {
        if bits & bit != 0 && !out.contains(w) {
            out.push(w);
        }
    }
    if out.is_empty() {
        out.push("use a browser feature");
    }
    out
}

/// Human words for media-access bits (`cef_media_access_permission_types_t`).
pub(crate) fn media_words(bits: u32) -> Vec<&'static str> {
    let mut out = Vec::new();
    if bits & 0b01 != 0 {
        out.push("use your microphone");
    }
    if bits & 0b10 != 0 {
        out.push("use your camera");
    }
    if bits & 0b1100 != 0 {
        out.push("capture your screen");
    }
    if out.is_empty() {
        out.push("capture media");
    }
    out
}

/// Reads a download item CEF passed.
pub(crate) fn read_download(item: &Ref<cef_download_item_t>, suggested: String) -> DownloadItem {
    // SAFETY: a live item, read during the callback that passed it.
    unsafe {
        DownloadItem {
            id: call!(item.get_id()),
            url: from_userfree(call!(item.get_url())),
            suggested_name: if suggested.is_empty() {
                from_userfree(call!(item.get_suggested_file_name()))
            } else {
                suggested
            },
            mime_type: from_userfree(call!(item.get_mime_type())),
            received: call!(item.get_received_bytes()),
            total: call!(item.get_total_bytes()),
            in_progress: call!(item.is_in_progress()) != 0,
            complete: call!(item.is_complete()) != 0,
            canceled: call!(item.is_canceled()) != 0,
            interrupted: call!(item.is_interrupted()) != 0,
            interrupt_reason: call!(item.get_interrupt_reason()) as i32,
            full_path: from_userfree(call!(item.get_full_path())),
        }
    }
}

/// Reads the context-menu parameters CEF passed.
pub(crate) fn read_context_menu(p: &Ref<cef_context_menu_params_t>) -> ContextMenu {
    // SAFETY: live params, read during the callback that passed them.
    unsafe {
        ContextMenu {
            x: call!(p.get_xcoord()),
            y: call!(p.get_ycoord()),
            link_url: from_userfree(call!(p.get_link_url())),
            source_url: from_userfree(call!(p.get_source_url())),
            has_image: call!(p.has_image_contents()) != 0,
            selection: from_userfree(call!(p.get_selection_text())),
            editable: call!(p.is_editable()) != 0,
            page_url: from_userfree(call!(p.get_page_url())),
            misspelled: from_userfree(call!(p.get_misspelled_word())),
            suggestions: {
                let a = api();
                let list = (a.cef_string_list_alloc)();
                call!(p.get_dictionary_suggestions(list));
                let out = read_list(list);
                (a.cef_string_list_free)(list);
                out
            },
        }
    }
}

/// Reads a CEF string list (borrowed).
///
/// # Safety
/// `list` is NULL or a live string list for the duration of the call.
pub(crate) unsafe fn read_list(list: cef_string_list_t) -> Vec<String> {
    if list.is_null() {
        return Vec::new();
    }
    let a = api();
    let mut out = Vec::new();
    // SAFETY: by the contract; each value is copied into a string we own and clear.
    unsafe {
        for i in 0..(a.cef_string_list_size)(list) {
            let mut s = cef_string_t {
                str_: std::ptr::null_mut(),
                length: 0,
                dtor: None,
            };
            if (a.cef_string_list_value)(list, i, &mut s) != 0 {
                out.push(from_cef(&s));
            }
            (a.cef_string_utf16_clear)(&mut s);
        }
    }
    out
}

pub(crate) fn dialog_kind(t: cef_jsdialog_type_t) -> JsDialogKind {
    match t {
        cef_jsdialog_type_t::JSDIALOGTYPE_CONFIRM => JsDialogKind::Confirm,
        cef_jsdialog_type_t::JSDIALOGTYPE_PROMPT => JsDialogKind::Prompt,
        _ => JsDialogKind::Alert,
    }
}

pub(crate) fn file_mode(m: cef_file_dialog_mode_t) -> FileDialogMode {
    match m {
        cef_file_dialog_mode_t::FILE_DIALOG_OPEN_MULTIPLE => FileDialogMode::OpenMultiple,
        cef_file_dialog_mode_t::FILE_DIALOG_OPEN_FOLDER => FileDialogMode::OpenFolder,
        cef_file_dialog_mode_t::FILE_DIALOG_SAVE => FileDialogMode::Save,
        _ => FileDialogMode::Open,
    }
}

/// Where a page wants a new window or tab (`cef_window_open_disposition_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// A middle-click or Ctrl+click: a tab behind the current one.
    BackgroundTab,
    /// Shift+click, or a link with `target=_blank`.
    ForegroundTab,
    /// `window.open` with features, or a new window.
    Popup,
    Other,
}

pub(crate) fn disposition(d: cef_window_open_disposition_t) -> Disposition {
    match d {
        cef_window_open_disposition_t::CEF_WOD_NEW_BACKGROUND_TAB => Disposition::BackgroundTab,
        cef_window_open_disposition_t::CEF_WOD_NEW_FOREGROUND_TAB
        | cef_window_open_disposition_t::CEF_WOD_SINGLETON_TAB => Disposition::ForegroundTab,
        cef_window_open_disposition_t::CEF_WOD_NEW_POPUP
        | cef_window_open_disposition_t::CEF_WOD_NEW_WINDOW => Disposition::Popup,
        _ => Disposition::Other,
    }
}

/// The PDF callback's data: the closure, taken once. CEF calls back on the UI thread; the
/// Mutex only satisfies the handler object's `Sync` requirement.
type PdfData = std::sync::Mutex<Option<SendBox>>;
/// A UI-thread closure carried through a CEF callback object. CEF runs
/// `on_pdf_print_finished` on the UI thread, where the closure was made; the callback object
/// may be released elsewhere, which only drops the (then already taken) `None`.
struct SendBox(Box<dyn FnOnce(bool)>);
// SAFETY: see the type's doc: the closure is created and called on the UI thread only
// (checked in `on_pdf_done`); other threads can at most drop an empty slot.
unsafe impl Send for SendBox {}

extern "C" fn on_pdf_done(
    this: *mut cef_pdf_print_callback_t,
    _path: *const cef_string_t,
    ok: std::ffi::c_int,
) {
    debug_assert_ui();
    // SAFETY: the object is an RcBox made by pdf_callback.
    let f = unsafe { RcBox::<cef_pdf_print_callback_t, PdfData>::data(this) }
        .lock()
        .ok()
        .and_then(|mut d| d.take());
    if let Some(SendBox(f)) = f {
        f(ok != 0);
    }
}

pub(crate) fn pdf_callback(done: Box<dyn FnOnce(bool)>) -> *mut cef_pdf_print_callback_t {
    // SAFETY: a CEF handler struct; its reference goes to CEF with the call it is passed to.
    unsafe {
        RcBox::<cef_pdf_print_callback_t, PdfData>::new(
            |c| c.on_pdf_print_finished = Some(on_pdf_done),
            std::sync::Mutex::new(Some(SendBox(done))),
        )
    }
}

/// What CEF's print machinery tells the handler. On Linux every print that is not
/// [`crate::BrowserHost::print_to_pdf`] (a page's `window.print()`, the PDF viewer's print
/// button) comes through here; without a handler Chromium opens a GTK dialog that an
/// off-screen browser never draws, and the page's script waits on it forever.
pub enum PrintEvent {
    /// Printing started for the browser (before any dialog).
    Started,
    /// The page asked for the print dialog. The page's script is blocked until `answer` is
    /// answered (dropping it cancels, so it can never be left hanging).
    Dialog {
        has_selection: bool,
        answer: PrintDialogCallback,
    },
    /// The print job ended or was cancelled; the browser's print state is reset.
    Reset,
}

/// Answers a print dialog. There is no system dialog to show, so the only answer is to
/// cancel it (the page's `window.print()` then returns); dropping it unanswered cancels too.
pub struct PrintDialogCallback(pub(crate) Option<Ref<cef_print_dialog_callback_t>>);

impl PrintDialogCallback {
    pub fn cancel(mut self) {
        self.cancel_now();
    }
    fn cancel_now(&mut self) {
        if let Some(cb) = self.0.take() {
            // SAFETY: a live callback; CEF posts to its UI thread if called elsewhere.
            unsafe { call!(cb.cancel()) };
        }
    }
}

impl Drop for PrintDialogCallback {
    fn drop(&mut self) {
        self.cancel_now();
    }
}

/// Letter in device units at `dpu` units per inch: the paper [`crate::BrowserHost::print_to_pdf`]
/// uses by default, so both print paths agree.
pub(crate) fn pdf_paper_size(dpu: i32) -> cef_size_t {
    let dpu = dpu.max(72);
    cef_size_t {
        width: dpu * 17 / 2,
        height: dpu * 11,
    }
}

/// Fills `settings` with the defaults Chromium asks for before a page's print: Letter at
/// 300 dpi, portrait, one copy. Chromium refuses to go on with empty settings (no size, no
/// resolution) and the print would fail before the dialog that answers it is asked for.
pub(crate) fn default_print_settings(settings: &Ref<cef_print_settings_t>) {
    const DPI: i32 = 300;
    let size = pdf_paper_size(DPI);
    let area = cef_rect_t {
        x: 0,
        y: 0,
        width: size.width,
        height: size.height,
    };
    let name = CefStr::new("Save as PDF");
    // SAFETY: a live, writable settings object, during the callback that passed it; the
    // arguments are borrowed for each call (CEF copies them).
    unsafe {
        if call!(settings.is_valid()) == 0 || call!(settings.is_read_only()) != 0 {
            return;
        }
        call!(settings.set_device_name(name.as_ptr()));
        call!(settings.set_dpi(DPI));
        call!(settings.set_orientation(0));
        call!(settings.set_printer_printable_area(&size, &area, 0));
        call!(settings.set_copies(1));
        call!(settings.set_collate(0));
        call!(settings.set_selection_only(0));
    }
}
