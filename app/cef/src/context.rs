//! Request contexts: separate cookie jars, caches and storage (the browser's containers).

use crate::api::api;
use crate::rc::{RcBox, call};
use crate::strings;
use crate::sys::*;
use crate::types::RequestContext;
use std::path::Path;
use std::sync::Mutex;

/// What runs once a context is initialized, given the context (to set its preferences).
pub type ContextReady = Box<dyn FnOnce(&RequestContext) + Send>;

type Handler = RcBox<cef_request_context_handler_t, Mutex<Option<ContextReady>>>;

extern "C" fn on_initialized(this: *mut cef_request_context_handler_t, ctx: *mut cef_request_context_t) {
    // SAFETY: the argument carries a reference for us to release.
    let ctx = unsafe { RequestContext::adopt(ctx) };
    // SAFETY: the handler object is a Handler.
    let done = unsafe { Handler::data(this) }
        .lock()
        .ok()
        .and_then(|mut d| d.take());
    if let (Some(done), Some(ctx)) = (done, ctx) {
        done(&ctx);
    }
}

impl RequestContext {
    /// Creates a context storing its data at `cache_path` (which CEF requires to be directly
    /// under the root cache path). `done` runs once CEF has set it up (on the UI thread, before
    /// any browser can use it: the place to set its preferences); a browser
    /// created in it before then comes back NULL.
    pub fn create(
        cache_path: &Path,
        persist_session_cookies: bool,
        done: ContextReady,
    ) -> Option<RequestContext> {
        crate::api::debug_assert_ui();
        // SAFETY: a plain C struct; zero is the default of every field we do not set.
        let mut s: cef_request_context_settings_t = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<cef_request_context_settings_t>();
        strings::set(&mut s.cache_path, &cache_path.display().to_string());
        s.persist_session_cookies = persist_session_cookies as i32;
        // SAFETY: a CEF handler struct.
        let h = unsafe {
            Handler::new(
                |h| h.on_request_context_initialized = Some(on_initialized),
                Mutex::new(Some(done)),
            )
        };
        // SAFETY: valid settings; the handler reference is transferred; the result is ours.
        unsafe { RequestContext::adopt((api().cef_request_context_create_context)(&s, h)) }
    }
}

/// The content setting Chromium stores a prompt's answer in, for each of the words
/// `page::permission_words` and `page::media_words` use. Only a type Chromium prompted for is
/// ever touched: setting one this platform does not register crashes Chromium (protected
/// media, say, exists only on ChromeOS, Android and Windows).
fn permission_setting(word: &str) -> Option<cef_content_setting_types_t> {
    use cef_content_setting_types_t::*;
    Some(match word {
        "know your location" => CEF_CONTENT_SETTING_TYPE_GEOLOCATION,
        "show notifications" => CEF_CONTENT_SETTING_TYPE_NOTIFICATIONS,
        "use your camera" => CEF_CONTENT_SETTING_TYPE_MEDIASTREAM_CAMERA,
        "use your microphone" => CEF_CONTENT_SETTING_TYPE_MEDIASTREAM_MIC,
        "use a camera to pan, tilt and zoom" => CEF_CONTENT_SETTING_TYPE_CAMERA_PAN_TILT_ZOOM,
        "read the clipboard" => CEF_CONTENT_SETTING_TYPE_CLIPBOARD_READ_WRITE,
        "store data persistently" => CEF_CONTENT_SETTING_TYPE_DURABLE_STORAGE,
        "find local fonts" => CEF_CONTENT_SETTING_TYPE_LOCAL_FONTS,
        "know when you are idle" => CEF_CONTENT_SETTING_TYPE_IDLE_DETECTION,
        "use MIDI devices" => CEF_CONTENT_SETTING_TYPE_MIDI_SYSEX,
        "download multiple files" => CEF_CONTENT_SETTING_TYPE_AUTOMATIC_DOWNLOADS,
        "manage windows" => CEF_CONTENT_SETTING_TYPE_WINDOW_MANAGEMENT,
        "lock the keyboard" => CEF_CONTENT_SETTING_TYPE_KEYBOARD_LOCK,
        "lock the pointer" => CEF_CONTENT_SETTING_TYPE_POINTER_LOCK,
        _ => return None,
    })
}

impl RequestContext {
    /// Forgets the answers Chromium stored for `origin`'s prompts for `asked` (the words the
    /// prompt was given) in this context, so its next request comes to the permission handler
    /// again. Chromium keeps an answer a prompt was given and stops asking; a decision the
    /// human changes elsewhere would otherwise never be consulted. UI thread.
    pub fn forget_permissions(&self, origin: &str, asked: &[String]) {
        crate::api::debug_assert_ui();
        let o = crate::strings::CefStr::new(origin);
        let ctx = self.as_ptr();
        for t in asked.iter().filter_map(|w| permission_setting(w)) {
            // SAFETY: a live context on the UI thread; the strings are borrowed for the call.
            unsafe {
                call!((ctx).set_content_setting(
                    o.as_ptr(),
                    o.as_ptr(),
                    t,
                    cef_content_setting_values_t::CEF_CONTENT_SETTING_VALUE_DEFAULT,
                ))
            };
        }
    }
}

impl RequestContext {
    /// Lets pages of `origin` open pop-ups without a click in this context (Chromium's own
    /// pop-up blocker stops them before any handler hears of them), or puts the default
    /// (blocked) back. Chromium keeps the choice in a disk context's profile. UI thread.
    pub fn set_popups_allowed(&self, origin: &str, allow: bool) {
        crate::api::debug_assert_ui();
        let o = crate::strings::CefStr::new(origin);
        let value = if allow {
            cef_content_setting_values_t::CEF_CONTENT_SETTING_VALUE_ALLOW
        } else {
            cef_content_setting_values_t::CEF_CONTENT_SETTING_VALUE_DEFAULT
        };
        // SAFETY: a live context on the UI thread; the strings are borrowed for the call.
        unsafe {
            call!((self.as_ptr()).set_content_setting(
                o.as_ptr(),
                o.as_ptr(),
                cef_content_setting_types_t::CEF_CONTENT_SETTING_TYPE_POPUPS,
                value,
            ))
        };
    }
}

/// A value for [`RequestContext::set_preference`].
#[derive(Debug, Clone, Copy)]
pub enum Pref<'a> {
    Bool(bool),
    Int(i32),
    Str(&'a str),
    List(&'a [String]),
}

impl RequestContext {
    /// Sets a Chromium preference (`safebrowsing.enabled`, `spellcheck.dictionaries`…) in this
    /// context; the error is Chromium's own sentence (an unknown name, a wrong type, a
    /// preference policy holds). UI thread.
    pub fn set_preference(&self, name: &str, value: Pref<'_>) -> Result<(), String> {
        crate::api::debug_assert_ui();
        // SAFETY: cef_value_create gives us a new reference (NULL only when out of memory).
        let v = unsafe { crate::rc::Ref::adopt((api().cef_value_create)()) }
            .ok_or_else(|| "could not allocate a value".to_string())?;
        // SAFETY: `v` is a live value we own; CEF copies strings; `set_list` takes over the
        // list's reference, which `into_cef` hands it.
        unsafe {
            match value {
                Pref::Bool(b) => call!(v.set_bool(b as i32)),
                Pref::Int(i) => call!(v.set_int(i)),
                Pref::Str(t) => {
                    let t = strings::CefStr::new(t);
                    call!(v.set_string(t.as_ptr()))
                }
                Pref::List(items) => {
                    let l = crate::rc::Ref::adopt((api().cef_list_value_create)())
                        .ok_or_else(|| "could not allocate a list".to_string())?;
                    call!(l.set_size(items.len()));
                    for (i, t) in items.iter().enumerate() {
                        let t = strings::CefStr::new(t);
                        call!(l.set_string(i, t.as_ptr()));
                    }
                    call!(v.set_list(l.into_cef()))
                }
            }
        };
        let n = strings::CefStr::new(name);
        // SAFETY: an all-zero cef_string_t is the empty string.
        let mut err: cef_string_t = unsafe { std::mem::zeroed() };
        let ctx = self.as_ptr() as *mut cef_preference_manager_t;
        // SAFETY: a live context on the UI thread (its first member is the preference
        // manager); the value's reference is handed over; `err` is ours to clear.
        let ok = unsafe { call!((ctx).set_preference(n.as_ptr(), v.into_cef(), &mut err)) };
        // SAFETY: `err` is a CEF string CEF may have filled; cleared once, after reading.
        let why = unsafe {
            let w = strings::from_cef(&err);
            (api().cef_string_utf16_clear)(&mut err);
            w
        };
        if ok == 1 { Ok(()) } else { Err(why) }
    }
}
