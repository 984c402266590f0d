//! CEF start-up, the headless main loop, and shutdown.

use crate::cef::{self, strings, sys::*};
use crate::handlers::{AppData, new_app};
use crate::state;
use anyhow::{Context, Result, bail};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where libcef lives: `--cef-dir`, else `$APERTURE_CEF_DIR`, else the provisioned cache.
pub fn runtime_dir(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    cef_sys_build::default_runtime_dir().map_err(|e| anyhow::anyhow!(e.to_string()))
}

struct MainArgs {
    _args: Vec<CString>,
    argv: Vec<*mut std::ffi::c_char>,
}

fn main_args() -> MainArgs {
    let args: Vec<CString> = std::env::args_os()
        .map(|a| CString::new(a.as_encoded_bytes()).unwrap_or_default())
        .collect();
    let argv = args.iter().map(|a| a.as_ptr() as *mut _).collect();
    MainArgs { _args: args, argv }
}

/// In a CEF subprocess (renderer, GPU, utility, zygote): runs it and returns its exit code.
pub fn run_subprocess(dir: &Path) -> Result<i32> {
    let api = cef::api::load(dir)?;
    let mut ma = main_args();
    let args = cef_main_args_t {
        argc: ma.argv.len() as i32,
        argv: ma.argv.as_mut_ptr(),
    };
    let app = new_app(AppData {
        headless: true,
        extra_switches: vec![],
    });
    // SAFETY: first CEF call of this process, with valid args.
    Ok(unsafe { (api.cef_execute_process)(&args, app, std::ptr::null_mut()) })
}

/// Options for the browser process.
pub struct Options {
    pub headless: bool,
    pub cache_root: PathBuf,
    pub extra_switches: Vec<(String, Option<String>)>,
}

/// Initializes CEF in the browser process and waits for its context.
pub fn init(dir: &Path, opts: &Options) -> Result<()> {
    let api = cef::api::load(dir)?;
    // Children find the runtime the same way we did.
    // SAFETY: still single-threaded at this point.
    unsafe { std::env::set_var(cef_sys_build::ENV_DIR, dir) };
    let mut ma = main_args();
    let args = cef_main_args_t {
        argc: ma.argv.len() as i32,
        argv: ma.argv.as_mut_ptr(),
    };
    let app = new_app(AppData {
        headless: opts.headless,
        extra_switches: opts.extra_switches.clone(),
    });
    let code = unsafe { (api.cef_execute_process)(&args, new_app_ref(app), std::ptr::null_mut()) };
    if code >= 0 {
        bail!("internal error: the browser process was started as a CEF subprocess");
    }
    std::fs::create_dir_all(&opts.cache_root)
        .with_context(|| format!("creating the profile directory {}", opts.cache_root.display()))?;
    let mut s: cef_settings_t = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<cef_settings_t>();
    s.no_sandbox = 1;
    s.windowless_rendering_enabled = 1;
    s.external_message_pump = 1;
    s.multi_threaded_message_loop = 0;
    // Our own flags (--headless, --walk, a URL) are not Chromium switches: keep argv away
    // from Chromium; the switches it needs are appended in on_before_command_line_processing.
    s.command_line_args_disabled = 1;
    s.log_severity = cef_log_severity_t::LOGSEVERITY_ERROR;
    s.background_color = 0xFFFF_FFFF;
    let root = opts.cache_root.display().to_string();
    strings::set(&mut s.root_cache_path, &root);
    strings::set(&mut s.cache_path, &format!("{root}/default"));
    strings::set(&mut s.log_file, &format!("{root}/cef.log"));
    strings::set(&mut s.locale, "en-US");
    let t = Instant::now();
    // SAFETY: main thread, once, with valid settings.
    let ok = unsafe { (api.cef_initialize)(&args, &s, app, std::ptr::null_mut()) };
    if ok != 1 {
        bail!(
            "Chromium failed to start (cef_initialize returned {ok}); its log is at {root}/cef.log{}",
            if opts.headless {
                ""
            } else {
                " — without a display, use --headless"
            }
        );
    }
    tracing::info!(ms = t.elapsed().as_millis() as u64, "CEF initialized");
    // Wait for the global context (on_context_initialized) while pumping.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !state::pump().is_initialized() {
        if Instant::now() > deadline {
            bail!("Chromium did not finish starting within 30 s");
        }
        state::pump().work(true);
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(())
}

fn new_app_ref(app: *mut cef_app_t) -> *mut cef_app_t {
    // The same app object goes to execute_process and initialize; each call takes a ref.
    unsafe { crate::cef::RcBox::<cef_app_t, crate::handlers::AppData>::add_ref(app) }
}

/// Runs the UI-thread loop until `done()` says stop and every browser has closed.
pub fn run_loop(rx: &std::sync::mpsc::Receiver<state::Job>, mut done: impl FnMut() -> bool) {
    let mut shutdown_started: Option<Instant> = None;
    loop {
        // CEF asks for work through on_schedule_message_pump_work, but (as cefclient's
        // external pump does) we also run it at least every MAX_IDLE, since not every piece
        // of pending work is announced.
        const MAX_IDLE: Duration = Duration::from_millis(10);
        let timeout = state::pump().next_timeout(MAX_IDLE);
        let timed_out = match rx.recv_timeout(timeout) {
            Ok(job) => {
                job();
                false
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => true,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        while let Ok(job) = rx.try_recv() {
            job();
        }
        state::pump().work(timed_out);
        if shutdown_started.is_none() && done() {
            crate::tab::begin_shutdown();
            shutdown_started = Some(Instant::now());
        }
        if let Some(t) = shutdown_started {
            let empty = state::with(|st| st.tabs.is_empty());
            if empty || t.elapsed() > Duration::from_secs(5) {
                break;
            }
            state::pump().work(true);
        }
    }
}

/// Shuts CEF down. Every browser must be closed.
pub fn shutdown() {
    // Let CEF finish closing work it queued.
    for _ in 0..20 {
        state::pump().work(true);
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: main thread, after all browsers closed.
    unsafe { (cef::api().cef_shutdown)() };
}
