//! Request contexts: separate cookie jars, caches and storage (the browser's containers).

use crate::api::api;
use crate::rc::RcBox;
use crate::strings;
use crate::sys::*;
use crate::types::RequestContext;
use std::path::Path;
use std::sync::Mutex;

type Handler = RcBox<cef_request_context_handler_t, Mutex<Option<Box<dyn FnOnce() + Send>>>>;

extern "C" fn on_initialized(this: *mut cef_request_context_handler_t, ctx: *mut cef_request_context_t) {
    // SAFETY: the argument carries a reference for us to release.
    let _ctx = unsafe { RequestContext::adopt(ctx) };
    // SAFETY: the handler object is a Handler.
    let done = unsafe { Handler::data(this) }
        .lock()
        .ok()
        .and_then(|mut d| d.take());
    if let Some(done) = done {
        done();
    }
}

impl RequestContext {
    /// Creates a context storing its data at `cache_path` (which CEF requires to be directly
    /// under the root cache path). `done` runs once CEF has set it up; a browser
    /// created in it before then comes back NULL.
    pub fn create(
        cache_path: &Path,
        persist_session_cookies: bool,
        done: Box<dyn FnOnce() + Send>,
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
