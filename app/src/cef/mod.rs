//! A thin, hand-written layer over CEF's C API (types from `cef-dll-sys`, entry points loaded
//! from `libcef.so` at run time).
//!
//! Why not the `cef` crate's wrappers: against this runtime they mis-convert strings, free
//! lists CEF owns and lose out-parameters (see docs/ARCHITECTURE.md). Here every callback is a
//! raw `extern "C"` function, strings are converted in Rust, and reference counting follows
//! the C API's rules: objects CEF passes into a callback carry a reference we release
//! ([`Ref`]); objects we hand to CEF (arguments or return values) carry one we add.

pub mod api;
pub mod rc;
pub mod strings;

pub use api::api;
pub use cef_dll_sys as sys;
pub use rc::{RcBox, Ref};
pub use strings::{CefStr, from_cef, from_userfree};
