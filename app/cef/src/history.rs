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
