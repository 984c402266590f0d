//! CEF strings are UTF-16 (`cef_string_t`). Conversions happen here, in Rust.

use crate::api::api;
use crate::sys::{cef_string_t, cef_string_userfree_t};

/// A UTF-16 buffer presented to CEF as a borrowed `cef_string_t` (CEF copies what it keeps).
pub(crate) struct CefStr {
    buf: Vec<u16>,
    raw: cef_string_t,
}

impl CefStr {
    pub(crate) fn new(s: &str) -> Box<CefStr> {
        let buf: Vec<u16> = s.encode_utf16().collect();
        let mut b = Box::new(CefStr {
            buf,
            raw: cef_string_t {
                str_: std::ptr::null_mut(),
                length: 0,
                dtor: None,
            },
        });
        b.raw.str_ = b.buf.as_mut_ptr();
        b.raw.length = b.buf.len();
        b
    }
    pub(crate) fn as_ptr(&self) -> *const cef_string_t {
        &self.raw
    }
}

/// Writes `s` into a CEF-owned settings/out string (CEF frees it).
pub(crate) fn set(dst: &mut cef_string_t, s: &str) {
    let buf: Vec<u16> = s.encode_utf16().collect();
    // SAFETY: copy=1 makes CEF allocate its own buffer and dtor.
    unsafe { (api().cef_string_utf16_set)(buf.as_ptr(), buf.len(), dst, 1) };
}

/// Reads a borrowed `const cef_string_t*` (may be NULL).
///
/// # Safety
/// `s` is NULL or points to a valid CEF string for the duration of the call.
pub(crate) unsafe fn from_cef(s: *const cef_string_t) -> String {
    // SAFETY: by the contract, str_/length describe a valid buffer while the call lasts.
    unsafe {
        match s.as_ref() {
            Some(r) if !r.str_.is_null() && r.length > 0 => {
                String::from_utf16_lossy(std::slice::from_raw_parts(r.str_ as *const u16, r.length))
            }
            _ => String::new(),
        }
    }
}

/// Reads and frees a `cef_string_userfree_t` a CEF getter returned.
///
/// # Safety
/// `s` is NULL or a userfree string CEF just returned, not freed elsewhere.
pub(crate) unsafe fn from_userfree(s: cef_string_userfree_t) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: a userfree string is a valid CEF string until freed.
    let out = unsafe { from_cef(s) };
    // SAFETY: userfree strings are ours to free, exactly once.
    unsafe { (api().cef_string_userfree_utf16_free)(s) };
    out
}
