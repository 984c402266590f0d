//! The only crate of Aperture that knows CEF or contains `unsafe`: libcef loaded with
//! `dlopen`, reference counting, strings, typed wrappers for the CEF objects the browser uses,
//! and handler adapters that turn CEF's C callbacks into typed trait calls.
//!
//! API boundary: no raw pointer and no `cef-dll-sys` type leaves this crate. Handler traits
//! get owned, typed values ([`Browser`], [`Frame`], `String`s, enums); objects CEF documents as
//! thread-safe are `Send + Sync`, renderer-side V8 objects never leave the crate.
//!
//! Why not the `cef` crate's wrappers: against this runtime they mis-convert strings, free
//! lists CEF owns and lose out-parameters. Here strings are converted in Rust and reference
//! counting follows the C API's rules: objects CEF passes into a callback carry a reference
//! we release; objects we hand to CEF carry one we add.

#![deny(unsafe_op_in_unsafe_fn)]
// The vtable calls forward plain argument expressions into the FFI call; the unsafety is the
// call itself, stated at each use.
#![allow(clippy::macro_metavars_in_unsafe)]

mod api;
mod capture;
mod client;
mod context;
mod cookies;
#[cfg(feature = "gl")]
pub mod gl;
mod history;
mod icons;
mod input;
mod page;
mod rc;
mod runtime;
pub mod script;
mod strings;
mod types;

use cef_dll_sys as sys;

pub use api::{RuntimeError, on_ui_thread};
pub use capture::{Captured, DOCUMENT_CAP, Documents};
pub use client::{Client, ClientHandler, Navigation, ResourceFilter};
pub use context::{ContextReady, Pref};
pub use cookies::ClearDone;
pub use history::{NavEntries, NavEntry, PageSecurity};
pub use icons::Bitmap;
pub use input::{
    ConsoleLevel, Cursor, DragData, DragOps, EventFlags, KeyEvent, KeyEventKind, MouseButton, MouseEvent,
    ResourceType,
};
pub use page::{
    AuthCallback, AuthChallenge, BeforeDownloadCallback, ContextMenu, Disposition, DownloadControl,
    DownloadItem, FileDialog, FileDialogCallback, FileDialogMode, JsDialog, JsDialogCallback, JsDialogKind,
    PermissionAnswer, PermissionCallback, PermissionRequest, PrintDialogCallback, PrintEvent,
};
pub use runtime::{
    App, AppConfig, ProcessHandler, Settings, do_message_loop_work, execute_process, initialize, load,
    shutdown,
};
pub use types::{
    Browser, BrowserHost, BrowserId, DevToolsRegistration, EditOp, Frame, RequestContext, ZoomStep,
    create_browser,
};
