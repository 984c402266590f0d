//! A browser's session history as Chromium holds it (`get_navigation_entries`): the app keeps
//! its own view of a tab's back/forward list beside it, to save it in the session and to go
//! back past the start of a restored tab's history (CEF 131 cannot put entries back).

use crate::api::debug_assert_ui;
use crate::rc::{RcBox, Ref, call};
use crate::strings::from_userfree;
use crate::sys::*;
use crate::types::BrowserHost;
use std::cell::RefCell;
use std::ffi::c_int;

/// One entry of a browser's back/forward list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NavEntry {
    /// The page's URL (after redirects).
    pub url: String,
    /// The URL that was asked for, before redirects.
    pub original_url: String,
    /// The page's title; empty when it set none.
    pub title: String,
}

/// A browser's back/forward list and which entry is current (a history navigation under way
/// counts as current already, as in Chromium).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NavEntries {
    pub entries: Vec<NavEntry>,
    pub current: usize,
}

#[derive(Default)]
struct Visit {
    // CEF visits synchronously on the UI thread (we only call it there), so a RefCell is
    // enough; the visitor is not shared with another thread.
    out: RefCell<NavEntries>,
}

extern "C" fn visit(
    this: *mut cef_navigation_entry_visitor_t,
    entry: *mut cef_navigation_entry_t,
    current: c_int,
    _index: c_int,
    _total: c_int,
) -> c_int {
    // SAFETY: the object is an RcBox made by `navigation_entries`.
    let v = unsafe { RcBox::<cef_navigation_entry_visitor_t, Visit>::data(this) };
    // SAFETY: CEF passes an entry (with a reference that is ours) valid for this call.
    let Some(e) = (unsafe { Ref::adopt(entry) }) else {
        return 1;
    };
    // SAFETY: a live entry; the getters return userfree strings that become ours.
    let got = unsafe {
        if call!(e.is_valid()) == 0 {
            return 1;
        }
        NavEntry {
            url: from_userfree(call!(e.get_url())),
            original_url: from_userfree(call!(e.get_original_url())),
            title: from_userfree(call!(e.get_title())),
        }
    };
    let mut out = v.out.borrow_mut();
    // Its place in what is kept, not Chromium's index: an invalid entry skipped above would
    // shift every later one.
    if current != 0 {
        out.current = out.entries.len();
    }
    out.entries.push(got);
    1
}

impl BrowserHost {
    /// The browser's back/forward list as Chromium holds it now. UI thread only: there CEF
    /// visits the entries before returning (elsewhere it would post the visit for later).
    pub fn navigation_entries(&self) -> NavEntries {
        debug_assert_ui();
        // SAFETY: a CEF handler struct with one reference (ours).
        let visitor = unsafe {
            RcBox::<cef_navigation_entry_visitor_t, Visit>::new(|v| v.visit = Some(visit), Visit::default())
        };
        // SAFETY: a live host, on the UI thread; the visitor's added reference goes to CEF.
        unsafe {
            call!(self.get_navigation_entries(
                RcBox::<cef_navigation_entry_visitor_t, Visit>::add_ref(visitor),
                0
            ))
        };
        // SAFETY: our own reference keeps the visitor alive until we give it back below.
        let out = unsafe { RcBox::<cef_navigation_entry_visitor_t, Visit>::data(visitor) }
            .out
            .take();
        // SAFETY: give back our own reference.
        drop(unsafe { Ref::adopt(visitor) });
        out
    }
}

/// How the page a browser shows was delivered, as its navigation entry records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSecurity {
    /// Over TLS with a certificate Chromium accepted.
    Secure,
    /// Over TLS with a certificate Chromium refused, which the human chose to proceed past:
    /// the connection may not be to the real site.
    CertificateError,
    /// Not over TLS (http:, file:, data:, an internal page).
    NotSecure,
}

/// net's `CERT_STATUS_ALL_ERRORS` less its two minor errors (no revocation mechanism, unable to
/// check revocation), which Chromium does not treat as a broken certificate.
const CERT_ERRORS: u32 = 0xFF00_FFFF & !(16 | 32);

impl BrowserHost {
    /// How the shown page was delivered; `None` when there is no entry yet.
    pub fn page_security(&self) -> Option<PageSecurity> {
        debug_assert_ui();
        // SAFETY: a live host on the UI thread; the entry and status come with a reference
        // that becomes ours.
        let entry = unsafe { Ref::adopt(call!(self.get_visible_navigation_entry()))? };
        // SAFETY: a live entry.
        if unsafe { call!(entry.is_valid()) } == 0 {
            return None;
        }
        // SAFETY: as above.
        let Some(ssl) = (unsafe { Ref::adopt(call!(entry.get_sslstatus())) }) else {
            return Some(PageSecurity::NotSecure);
        };
        // SAFETY: a live status object.
        if unsafe { call!(ssl.is_secure_connection()) } == 0 {
            return Some(PageSecurity::NotSecure);
        }
        // The status is a bitmask that the bindings type as a Rust enum, which could not hold
        // a combination of flags: read it through the same function typed as returning u32
        // (what the C ABI returns for `cef_cert_status_t`).
        // SAFETY: a live status object; the vtable slot is a C function returning an unsigned
        // int-sized enum, so calling it as returning u32 reads the same register.
        let status = unsafe {
            let p = ssl.as_ptr();
            let f = (*p).get_cert_status.expect("get_cert_status");
            let f: unsafe extern "C" fn(*mut cef_sslstatus_t) -> u32 = std::mem::transmute(f);
            f(p)
        };
        Some(if status & CERT_ERRORS != 0 {
            PageSecurity::CertificateError
        } else {
            PageSecurity::Secure
        })
    }
}
