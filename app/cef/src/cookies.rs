//! A request context's cookies by creation time: "clear cookies from the last hour" deletes
//! only the cookies created since then (DevTools can clear a context's cookies, but knows no
//! creation time).

use crate::api::api;
use crate::rc::{RcBox, Ref, call};
use crate::sys::*;
use crate::types::RequestContext;
use std::ffi::c_int;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Microseconds from CEF's time origin (1601-01-01, as Chromium's `base::Time`) to the Unix
/// epoch.
const UNIX_EPOCH_US: i64 = 11_644_473_600_000_000;

/// What a cookie clearing reports: how many cookies it deleted, or why it could not.
pub type ClearDone = Box<dyn FnOnce(Result<usize, String>) + Send>;

struct Visit {
    /// Cookies created at or after this (CEF time, microseconds) go.
    since: i64,
    deleted: AtomicUsize,
    done: Mutex<Option<ClearDone>>,
}

impl Drop for Visit {
    // CEF releases the visitor when the visit is over (it calls `visit` not at all when there
    // are no cookies), so the last release is the one moment that knows it finished.
    fn drop(&mut self) {
        if let Some(done) = self.done.get_mut().ok().and_then(Option::take) {
            done(Ok(self.deleted.load(Ordering::SeqCst)));
        }
    }
}

extern "C" fn visit(
    this: *mut cef_cookie_visitor_t,
    cookie: *const cef_cookie_t,
    _count: c_int,
    _total: c_int,
    delete: *mut c_int,
) -> c_int {
    // SAFETY: the object is an RcBox made by `delete_cookies_since`.
    let v = unsafe { RcBox::<cef_cookie_visitor_t, Visit>::data(this) };
    // SAFETY: CEF passes a valid cookie and out-parameter for the call.
    unsafe {
        if let (Some(c), false) = (cookie.as_ref(), delete.is_null())
            && c.creation.val >= v.since
        {
            *delete = 1;
            v.deleted.fetch_add(1, Ordering::SeqCst);
        }
    }
    1
}

impl RequestContext {
    /// The global request context (the profile's own storage: tabs without a container).
    pub fn global() -> Option<RequestContext> {
        // SAFETY: returns a new reference or NULL.
        unsafe { RequestContext::adopt((api().cef_request_context_get_global_context)()) }
    }

    /// Deletes this context's cookies created at or after `since_unix_ms` (all of them for
    /// `i64::MIN`); `done` gets the number deleted once CEF has visited them all.
    pub fn delete_cookies_since(&self, since_unix_ms: i64, done: ClearDone) {
        let since = since_unix_ms.saturating_mul(1000).saturating_add(UNIX_EPOCH_US);
        // SAFETY: a live context; NULL callback: the manager queues work until its store is
        // ready. The returned manager carries a reference that becomes ours.
        let Some(mgr) = (unsafe { Ref::adopt(call!(self.get_cookie_manager(std::ptr::null_mut()))) }) else {
            done(Err("this container has no cookie store".into()));
            return;
        };
        let data = Visit {
            since,
            deleted: AtomicUsize::new(0),
            done: Mutex::new(Some(done)),
        };
        // SAFETY: a CEF handler struct; we keep one reference until the call returns.
        let visitor = unsafe { RcBox::<cef_cookie_visitor_t, Visit>::new(|v| v.visit = Some(visit), data) };
        // SAFETY: the visitor's added reference goes to CEF with the call.
        let ok =
            unsafe { call!(mgr.visit_all_cookies(RcBox::<cef_cookie_visitor_t, Visit>::add_ref(visitor))) };
        if ok == 0 {
            // SAFETY: our reference to a live visitor.
            let d = unsafe { RcBox::<cef_cookie_visitor_t, Visit>::data(visitor) }
                .done
                .lock()
                .ok()
                .and_then(|mut d| d.take());
            if let Some(d) = d {
                d(Err("the cookie store cannot be read".into()));
            }
        }
        // SAFETY: give back our own reference (CEF holds its own while it visits).
        drop(unsafe { Ref::adopt(visitor) });
    }
}
