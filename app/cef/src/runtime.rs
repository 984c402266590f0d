//! The CEF process lifecycle: the `cef_app_t` every process shares (command-line switches,
//! browser-process events, the renderer's script host), start-up, the message loop and
//! shutdown.

use crate::api::{self, RuntimeError, api, debug_assert_ui};
use crate::rc::{RcBox, Ref, call};
use crate::strings::{self, CefStr, from_cef};
use crate::sys::*;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Browser-process events that may arrive on any thread.
pub trait ProcessHandler: Send + Sync + 'static {
    /// CEF's global context exists: browsers may be created (UI thread).
    fn on_context_initialized(&self);
    /// CEF wants `cef_do_message_loop_work` called in `delay_ms` (any thread).
    fn on_schedule_message_pump_work(&self, delay_ms: i64);
}

/// What the `cef_app_t` does in each process.
pub struct AppConfig {
    /// Chromium switches for the browser process (children inherit what they need).
    pub switches: Vec<(String, Option<String>)>,
    /// The script every main-frame context of every renderer gets (see [`crate::script`]).
    pub renderer_script: &'static str,
    /// The one request the renderer answers itself, with its process id.
    pub pid_request: &'static str,
}

struct AppData {
    config: AppConfig,
    process: Option<Arc<dyn ProcessHandler>>,
    /// The browser-process handler object, made once.
    bph: *mut cef_browser_process_handler_t,
    /// The render-process handler, made on first request. CEF asks for it on one thread per
    /// process (a renderer's main thread), so a plain cell is enough.
    rph: std::cell::OnceCell<*mut cef_render_process_handler_t>,
}

type AppBox = RcBox<cef_app_t, AppData>;
type Bph = RcBox<cef_browser_process_handler_t, Arc<dyn ProcessHandler>>;

/// The application object passed to `cef_execute_process` and `cef_initialize`.
pub struct App(Ref<cef_app_t>);

impl App {
    /// `process` is required in the browser process and unused in subprocesses.
    pub fn new(config: AppConfig, process: Option<Arc<dyn ProcessHandler>>) -> App {
        // SAFETY: CEF handler structs.
        let bph = match &process {
            Some(p) => unsafe {
                Bph::new(
                    |h| {
                        h.on_context_initialized = Some(on_context_initialized);
                        h.on_schedule_message_pump_work = Some(on_schedule_message_pump_work);
                    },
                    p.clone(),
                )
            },
            None => std::ptr::null_mut(),
        };
        let app = unsafe {
            AppBox::new(
                |a| {
                    a.on_before_command_line_processing = Some(on_before_command_line_processing);
                    a.get_browser_process_handler = Some(get_browser_process_handler);
                    a.get_render_process_handler = Some(get_render_process_handler);
                },
                AppData {
                    config,
                    process,
                    bph,
                    rph: std::cell::OnceCell::new(),
                },
            )
        };
        // SAFETY: a fresh object with our one reference.
        App(unsafe { Ref::adopt(app) }.expect("non-null"))
    }
}

extern "C" fn on_before_command_line_processing(
    this: *mut cef_app_t,
    process_type: *const cef_string_t,
    cl: *mut cef_command_line_t,
) {
    // Only the browser process: children get their switches from it.
    // SAFETY: a string argument valid for the call.
    if !unsafe { from_cef(process_type) }.is_empty() {
        return;
    }
    // SAFETY: the app object is an AppBox.
    let data = unsafe { AppBox::data(this) };
    for (k, v) in &data.config.switches {
        let k = CefStr::new(k);
        // SAFETY: a live command line for the duration of the callback; CEF copies strings.
        unsafe {
            match v {
                Some(v) => {
                    let v = CefStr::new(v);
                    call!((cl).append_switch_with_value(k.as_ptr(), v.as_ptr()));
                }
                None => call!((cl).append_switch(k.as_ptr())),
            }
        }
    }
}

extern "C" fn get_browser_process_handler(this: *mut cef_app_t) -> *mut cef_browser_process_handler_t {
    // SAFETY: the app object is an AppBox; the handler lives as long as the app.
    let data = unsafe { AppBox::data(this) };
    if data.bph.is_null() || data.process.is_none() {
        return std::ptr::null_mut();
    }
    // SAFETY: CEF takes the added reference.
    unsafe { Bph::add_ref(data.bph) }
}

extern "C" fn get_render_process_handler(this: *mut cef_app_t) -> *mut cef_render_process_handler_t {
    // SAFETY: the app object is an AppBox.
    let data = unsafe { AppBox::data(this) };
    let h = *data.rph.get_or_init(|| {
        crate::script::render_process_handler(data.config.renderer_script, data.config.pid_request)
    });
    // SAFETY: our own live handler object (the app keeps its first reference); CEF takes the
    // added one.
    unsafe { RcBox::<cef_render_process_handler_t, crate::script::ScriptHost>::add_ref(h) }
}

extern "C" fn on_context_initialized(this: *mut cef_browser_process_handler_t) {
    // SAFETY: the handler object is a Bph.
    unsafe { Bph::data(this) }.on_context_initialized();
}

extern "C" fn on_schedule_message_pump_work(this: *mut cef_browser_process_handler_t, delay_ms: i64) {
    // SAFETY: the handler object is a Bph; the handler is Send + Sync (any thread).
    unsafe { Bph::data(this) }.on_schedule_message_pump_work(delay_ms);
}

struct MainArgs {
    _args: Vec<CString>,
    argv: Vec<*mut std::ffi::c_char>,
}

impl MainArgs {
    fn new() -> MainArgs {
        let args: Vec<CString> = std::env::args_os()
            .map(|a| CString::new(a.as_encoded_bytes()).unwrap_or_default())
            .collect();
        let argv = args.iter().map(|a| a.as_ptr() as *mut _).collect();
        MainArgs { _args: args, argv }
    }
    fn raw(&mut self) -> cef_main_args_t {
        cef_main_args_t {
            argc: self.argv.len() as i32,
            argv: self.argv.as_mut_ptr(),
        }
    }
}

/// Loads libcef from `dir` (once per process) and checks the runtime files are there.
pub fn load(dir: &Path) -> Result<(), RuntimeError> {
    api::load(dir).map(|_| ())
}

/// Runs this process as a CEF subprocess if it is one (`--type=…`): returns its exit code.
/// In the browser process it returns `None`.
pub fn execute_process(app: &App) -> Option<i32> {
    let mut ma = MainArgs::new();
    let args = ma.raw();
    // SAFETY: first CEF call of the process, with valid args; CEF takes the app reference.
    let code = unsafe { (api().cef_execute_process)(&args, app.0.clone().into_cef(), std::ptr::null_mut()) };
    (code >= 0).then_some(code)
}

/// Browser-process settings.
pub struct Settings {
    pub root_cache_path: PathBuf,
    pub cache_path: PathBuf,
    pub log_file: PathBuf,
    pub locale: String,
    /// Renderers without Chromium's sandbox (see docs/ARCHITECTURE.md).
    pub no_sandbox: bool,
}

/// Starts CEF in the browser process (main thread, once). Our own flags are kept away from
/// Chromium: switches come only from [`AppConfig::switches`].
/// The signals the embedder handles itself (a requested shutdown: the window closes, the
/// session is saved, and `shutdown` runs, which is when Chromium writes what it holds, such as
/// cookies set in the last 30 s).
const EMBEDDER_SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// Runs `f` (CEF's initialisation) and then puts back the embedder's handlers for
/// [`EMBEDDER_SIGNALS`]: Chromium installs its own during start-up, and on SIGTERM those end
/// the process without the embedder's shutdown, losing unwritten cookies.
fn keeping_signal_handlers<T>(f: impl FnOnce() -> T) -> T {
    let mut saved = Vec::new();
    for sig in EMBEDDER_SIGNALS {
        // SAFETY: a plain C struct, filled in by sigaction; reading the current action with a
        // null new action changes nothing.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        if unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) } == 0 {
            saved.push((sig, old));
        }
    }
    let r = f();
    for (sig, old) in &saved {
        // SAFETY: restores an action read above, whose handler (if any) is still installed
        // code of this process.
        if unsafe { libc::sigaction(*sig, old, std::ptr::null_mut()) } != 0 {
            tracing::warn!(sig, "could not restore the signal handler after CEF's start-up");
        }
    }
    r
}

pub fn initialize(settings: &Settings, app: &App) -> bool {
    let mut ma = MainArgs::new();
    let args = ma.raw();
    // SAFETY: a plain C struct; zero is the default of every field we do not set.
    let mut s: cef_settings_t = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<cef_settings_t>();
    s.no_sandbox = settings.no_sandbox as i32;
    s.windowless_rendering_enabled = 1;
    s.external_message_pump = 1;
    s.multi_threaded_message_loop = 0;
    s.command_line_args_disabled = 1;
    s.log_severity = cef_log_severity_t::LOGSEVERITY_ERROR;
    s.background_color = 0xFFFF_FFFF;
    strings::set(
        &mut s.root_cache_path,
        &settings.root_cache_path.display().to_string(),
    );
    strings::set(&mut s.cache_path, &settings.cache_path.display().to_string());
    strings::set(&mut s.log_file, &settings.log_file.display().to_string());
    strings::set(&mut s.locale, &settings.locale);
    // SAFETY: main thread, once, with valid settings; CEF takes the app reference. The
    // settings strings were allocated by CEF (strings::set) and are CEF's to keep.
    keeping_signal_handlers(|| unsafe {
        (api().cef_initialize)(&args, &s, app.0.clone().into_cef(), std::ptr::null_mut()) == 1
    })
}

/// Does the work CEF has queued on the UI thread.
pub fn do_message_loop_work() {
    debug_assert_ui();
    // SAFETY: the UI thread, after initialize.
    unsafe { (api().cef_do_message_loop_work)() }
}

/// Shuts CEF down: every browser closed and every CEF object released first.
pub fn shutdown() {
    debug_assert_ui();
    // SAFETY: the UI thread, after every browser closed.
    unsafe { (api().cef_shutdown)() }
}
