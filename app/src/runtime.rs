//! Chromium's start-up, the headless main loop, and shutdown, on top of the `cef` crate.

use crate::browser::{Actor, Job, Pump};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Chromium switches for every launch. Each has a reason; the privacy crate adds its own.
const SWITCHES: &[(&str, Option<&str>)] = &[
    // No display is needed: render through ozone's headless platform.
    ("ozone-platform", Some("headless")),
    // No GL in the GPU process, so it enters its seccomp sandbox. Pages are drawn off-screen
    // and handed over as BGRA bitmaps (OnPaint), which software compositing provides; the
    // window uploads them to its own GL texture. SwiftShader, the only GL here, starts worker
    // threads during GL start-up, and Chromium skips the GPU sandbox for a process that has
    // threads by then (app/tests/sandbox.rs). `disable-gpu` alone falls back to SwiftShader
    // for WebGL; `disable-software-rasterizer` stops that. The cost: pages get no WebGL.
    ("disable-gpu", None),
    ("disable-software-rasterizer", None),
    // The network service in its own seccomp sandbox, which Chromium leaves off on Linux; it
    // reaches the profile's cookie and cache files through the sandbox's broker (cookies in
    // containers persist with it: app/tests/sandbox.rs runs as an ordinary user). The privacy
    // policy's features go in `--disable-features`; this is the only `--enable-features`.
    ("enable-features", Some("NetworkServiceSandbox")),
    // Back/forward-cache frame swaps make the CEF 131 browser-info race (cef#4001) likelier.
    ("disable-back-forward-cache", None),
    // No "restore pages?" or first-run UI in an embedded browser.
    ("no-first-run", None),
    ("no-default-browser-check", None),
    ("password-store", Some("basic")),
    // HTTP authentication goes to CEF's GetAuthCredentials (our sign-in sheet and the agent's
    // `dialog`). Without this the Chrome runtime routes it to Chrome's own login prompt, which
    // needs Chrome's tab UI that an off-screen browser lacks, and every 401 challenge fails at
    // once with ERR_INVALID_AUTH_CREDENTIALS (cef#3603).
    ("disable-chrome-login-prompt", None),
];

/// Where libcef lives: `--cef-dir`, else `$APERTURE_CEF_DIR`, else the provisioned cache.
pub fn runtime_dir(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    cef_sys_build::default_runtime_dir().map_err(|e| anyhow::anyhow!(e.to_string()))
}

/// `--webgl`: software GL for pages again, at the price of an unsandboxed GPU process.
const WEBGL: &[(&str, Option<&str>)] = &[
    ("use-angle", Some("swiftshader")),
    ("enable-unsafe-swiftshader", None),
];

fn app(headless: bool, extra: &[(String, Option<String>)], pump: Option<Arc<Pump>>) -> cef::App {
    // `--webgl` arrives as its switches in `extra`; then the GPU is not disabled.
    let webgl = extra.iter().any(|(k, _)| k == WEBGL[1].0);
    let mut switches: Vec<(String, Option<String>)> = SWITCHES
        .iter()
        // Headed mode keeps the X11 platform instead of ozone headless.
        .filter(|(k, _)| headless || *k != "ozone-platform")
        .filter(|(k, _)| !webgl || !matches!(*k, "disable-gpu" | "disable-software-rasterizer"))
        .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
        .collect();
    switches.extend(extra.iter().cloned());
    let config = cef::AppConfig {
        switches,
        renderer_script: aperture_engine::WALKER_JS,
        pid_request: aperture_engine::protocol::PID_REQUEST,
    };
    cef::App::new(config, pump.map(|p| p as Arc<dyn cef::ProcessHandler>))
}

/// In a CEF subprocess (renderer, GPU, utility, zygote): runs it and returns its exit code.
pub fn run_subprocess(dir: &Path) -> Result<i32> {
    cef::load(dir)?;
    let app = app(true, &[], None);
    cef::execute_process(&app).ok_or_else(|| anyhow::anyhow!("not a CEF subprocess"))
}

/// The switches `--webgl` adds.
pub fn webgl_switches() -> Vec<(String, Option<String>)> {
    WEBGL
        .iter()
        .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
        .collect()
}

/// Options for the browser process.
pub struct Options {
    pub headless: bool,
    pub cache_root: PathBuf,
    pub extra_switches: Vec<(String, Option<String>)>,
    /// Chromium's process sandbox (namespaces + seccomp-bpf) for every child process.
    pub sandbox: bool,
}

/// Decides whether the browser may start with the sandbox setting asked for.
///
/// The engine is many releases behind upstream Chromium and this process holds the unlocked
/// vault, the MCP token and every login: a renderer exploit must land in a sandbox. As root
/// Chromium's sandbox cannot work, so root must say `--no-sandbox` explicitly; without root
/// the sandbox is on unless the human turned it off.
pub fn check_sandbox(no_sandbox: bool) -> Result<()> {
    let root = effective_uid() == Some(0);
    match (root, no_sandbox) {
        (true, false) => bail!(
            "refusing to run as root with the renderer sandbox: Chromium's sandbox does not work for root. \
             Run aperture as an ordinary user, or pass --no-sandbox to run without the sandbox \
             (page exploits then run with root's rights)"
        ),
        // Said once Chromium is about to start (`init`), so an earlier error stays one line.
        _ => Ok(()),
    }
}

/// The effective uid, from /proc (no libc call needed).
fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

/// Initializes CEF in the browser process and waits for its context. Returns the pump (for
/// the actor) and the receiver of UI-thread jobs (for the loop).
pub fn init(dir: &Path, opts: &Options) -> Result<(Arc<Pump>, Receiver<Job>)> {
    // Children find the runtime the same way we did: the default, or the environment (which
    // `--cef-dir` sets by re-executing; see main).
    cef::load(dir)?;
    if !opts.sandbox {
        eprintln!(
            "aperture: the renderer sandbox is OFF (--no-sandbox{}): a compromised page runs with this user's rights",
            if effective_uid() == Some(0) {
                ", running as root"
            } else {
                ""
            }
        );
    }
    let (pump, rx) = Pump::new();
    let app = app(opts.headless, &opts.extra_switches, Some(pump.clone()));
    if cef::execute_process(&app).is_some() {
        bail!("internal error: the browser process was started as a CEF subprocess");
    }
    std::fs::create_dir_all(&opts.cache_root)
        .with_context(|| format!("creating the profile directory {}", opts.cache_root.display()))?;
    let root = &opts.cache_root;
    let settings = cef::Settings {
        root_cache_path: root.clone(),
        cache_path: root.join("default"),
        log_file: root.join("cef.log"),
        locale: "en-US".into(),
        no_sandbox: !opts.sandbox,
    };
    let t = Instant::now();
    if !cef::initialize(&settings, &app) {
        bail!(
            "Chromium failed to start; its log is at {}{}",
            root.join("cef.log").display(),
            if opts.headless {
                ""
            } else {
                " — without a display, use --headless"
            }
        );
    }
    tracing::info!(ms = t.elapsed().as_millis() as u64, "CEF initialized");
    // The log Chromium just created with the umask's mode: it names the sites visited.
    {
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(root.join("cef.log"), std::fs::Permissions::from_mode(0o600));
    }
    // Wait for the global context (on_context_initialized) while pumping.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !pump.is_initialized() {
        if Instant::now() > deadline {
            bail!("Chromium did not finish starting within 30 s");
        }
        pump.work(true);
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok((pump, rx))
}

/// Runs the UI-thread loop until `done()` says stop and every browser has closed.
pub fn run_loop(actor: &Actor, rx: &Receiver<Job>, mut done: impl FnMut() -> bool) {
    let pump = actor.pump().clone();
    let mut shutdown_started: Option<Instant> = None;
    loop {
        // CEF asks for work through on_schedule_message_pump_work, but (as cefclient's
        // external pump does) we also run it at least every MAX_IDLE, since not every piece
        // of pending work is announced.
        const MAX_IDLE: Duration = Duration::from_millis(10);
        let timeout = pump.next_timeout(MAX_IDLE);
        let timed_out = match rx.recv_timeout(timeout) {
            Ok(job) => {
                job(actor);
                actor.settle();
                false
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => true,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        actor.run_jobs(rx);
        pump.work(timed_out);
        actor.settle();
        crate::browser::page::tick(actor);
        crate::browser::hang::tick(actor);
        actor.settle();
        if shutdown_started.is_none() && done() {
            actor.begin_shutdown();
            shutdown_started = Some(Instant::now());
        }
        if let Some(t) = shutdown_started {
            if actor.is_empty() || t.elapsed() > Duration::from_secs(5) {
                break;
            }
            pump.work(true);
            actor.settle();
        }
    }
}

/// Shuts CEF down. Every browser must be closed and every CEF object released. Then the
/// profile at `root` is made the owner's alone.
pub fn shutdown(pump: &Pump, root: &std::path::Path) {
    // Let CEF finish closing work it queued.
    for _ in 0..20 {
        pump.work(true);
        std::thread::sleep(Duration::from_millis(5));
    }
    cef::shutdown();
    // Chromium creates some files with the umask's mode (0644) while it runs: `Visited
    // Links`, `Variations`, its logs. The directory is 0700, so nobody else could reach them;
    // this keeps each file private on its own too (a copied profile), as start-up does.
    if let Err(e) = aperture_common::fs::tighten_tree(root) {
        tracing::warn!("could not make the profile private: {e}");
    }
}
