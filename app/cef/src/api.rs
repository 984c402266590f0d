//! The global CEF entry points, loaded with `dlopen` so a missing or damaged runtime is a
//! sentence the user can act on rather than a dynamic-loader failure before `main`.

use crate::sys::*;
use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Why the CEF runtime could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(
        "the CEF runtime is not installed at {0} (no libcef.so there); run `cargo xtask provision` or point {env} at a runtime directory",
        env = cef_sys_build::ENV_DIR
    )]
    Missing(PathBuf),
    #[error(
        "the CEF runtime at {dir} is damaged or incomplete ({why}); reinstall it: remove that directory and run `cargo xtask provision`"
    )]
    Damaged { dir: PathBuf, why: String },
}

macro_rules! cef_api {
    ($($name:ident : fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// Function pointers into libcef.so.
        #[allow(non_snake_case, missing_docs)]
        pub(crate) struct Api {
            _lib: libloading::Library,
            $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }
        impl Api {
            fn load(dir: &Path) -> Result<Api, RuntimeError> {
                let so = dir.join("libcef.so");
                if !so.is_file() {
                    return Err(RuntimeError::Missing(dir.to_path_buf()));
                }
                let damaged = |why: String| RuntimeError::Damaged { dir: dir.to_path_buf(), why };
                for needed in ["icudtl.dat", "resources.pak", "v8_context_snapshot.bin", "locales/en-US.pak"] {
                    if !dir.join(needed).is_file() {
                        return Err(damaged(format!("{needed} is missing")));
                    }
                }
                // SAFETY: loading libcef runs its static initialisers, which is what CEF expects.
                let lib = unsafe { libloading::Library::new(&so) }.map_err(|e| damaged(e.to_string()))?;
                unsafe {
                    Ok(Api {
                        $($name: *lib
                            .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(concat!(stringify!($name), "\0").as_bytes())
                            .map_err(|e| damaged(format!("symbol {}: {e}", stringify!($name))))?,)*
                        _lib: lib,
                    })
                }
            }
        }
    };
}

cef_api! {
    cef_execute_process: fn(*const cef_main_args_t, *mut cef_app_t, *mut c_void) -> c_int;
    cef_initialize: fn(*const cef_main_args_t, *const cef_settings_t, *mut cef_app_t, *mut c_void) -> c_int;
    cef_shutdown: fn();
    cef_do_message_loop_work: fn();
    cef_browser_host_create_browser_sync: fn(*const cef_window_info_t, *mut cef_client_t, *const cef_string_t, *const cef_browser_settings_t, *mut cef_dictionary_value_t, *mut cef_request_context_t) -> *mut cef_browser_t;
    cef_string_utf16_set: fn(*const char16_t, usize, *mut cef_string_utf16_t, c_int) -> c_int;
    cef_string_userfree_utf16_free: fn(cef_string_userfree_utf16_t);
    cef_process_message_create: fn(*const cef_string_t) -> *mut cef_process_message_t;
    cef_v8value_create_string: fn(*const cef_string_t) -> *mut cef_v8value_t;
    cef_v8value_create_function: fn(*const cef_string_t, *mut cef_v8handler_t) -> *mut cef_v8value_t;
    cef_v8context_get_current_context: fn() -> *mut cef_v8context_t;
    cef_drag_data_create: fn() -> *mut cef_drag_data_t;
    cef_value_create: fn() -> *mut cef_value_t;
    cef_list_value_create: fn() -> *mut cef_list_value_t;
    cef_request_context_create_context: fn(*const cef_request_context_settings_t, *mut cef_request_context_handler_t) -> *mut cef_request_context_t;
    cef_currently_on: fn(cef_thread_id_t) -> c_int;
    cef_string_utf16_clear: fn(*mut cef_string_utf16_t);
    cef_string_list_alloc: fn() -> cef_string_list_t;
    cef_string_list_size: fn(cef_string_list_t) -> usize;
    cef_string_list_value: fn(cef_string_list_t, usize, *mut cef_string_t) -> c_int;
    cef_string_list_append: fn(cef_string_list_t, *const cef_string_t);
    cef_string_list_free: fn(cef_string_list_t);
    cef_request_context_get_global_context: fn() -> *mut cef_request_context_t;
    cef_post_task: fn(cef_thread_id_t, *mut cef_task_t) -> c_int;
}

// The one process global of the CEF layer: the loaded library's entry points, which exist
// once per process by nature (dlopen), are immutable once loaded, and are needed by every
// wrapper's Drop.
static API: OnceLock<Api> = OnceLock::new();

/// Loads libcef from `dir`. Call once, before anything else touches CEF.
pub(crate) fn load(dir: &Path) -> Result<&'static Api, RuntimeError> {
    if let Some(a) = API.get() {
        return Ok(a);
    }
    let a = Api::load(dir)?;
    Ok(API.get_or_init(|| a))
}

/// Whether the calling thread is CEF's UI thread (false before the runtime is loaded).
pub fn on_ui_thread() -> bool {
    // SAFETY: cef_currently_on has no preconditions once libcef is loaded.
    API.get()
        .is_some_and(|a| unsafe { (a.cef_currently_on)(cef_thread_id_t::TID_UI) } != 0)
}

/// Runs `f` on CEF's UI thread, soon (from any thread). Dropped unrun when CEF is shutting
/// down, so whatever it owns (a callback) is released and cancels itself.
pub(crate) fn post_ui(f: impl FnOnce() + Send + 'static) {
    type Job = std::sync::Mutex<Option<Box<dyn FnOnce() + Send>>>;
    extern "C" fn execute(this: *mut cef_task_t) {
        // SAFETY: `this` is the task made below, alive while CEF runs it.
        let job = unsafe { crate::rc::RcBox::<cef_task_t, Job>::data(this) };
        let f = job.lock().ok().and_then(|mut j| j.take());
        if let Some(f) = f {
            f();
        }
    }
    let job: Job = std::sync::Mutex::new(Some(Box::new(f)));
    // SAFETY: cef_task_t is a handler struct (ref-counted base, then a nullable callback); our
    // reference goes to CEF with the call, which releases it after running the task (or at
    // once, when it cannot post).
    unsafe {
        let task = crate::rc::RcBox::<cef_task_t, Job>::new(|t| t.execute = Some(execute), job);
        (api().cef_post_task)(cef_thread_id_t::TID_UI, task);
    }
}

/// Debug builds check that UI-thread-only CEF calls are made on the UI thread.
#[track_caller]
pub(crate) fn debug_assert_ui() {
    debug_assert!(
        on_ui_thread(),
        "a UI-thread-only CEF call was made on another thread"
    );
}

/// The loaded API. Panics if [`load`] has not succeeded: every entry point loads it first.
pub(crate) fn api() -> &'static Api {
    API.get().expect("CEF API used before the runtime was loaded")
}
