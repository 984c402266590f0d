//! `aperture`: the browser process, and (re-executed by CEF with `--type=…`) its own
//! subprocesses. `main` is the composition root: services are built once here, then the
//! browser runs headless or in the window, and one place serves MCP.

#![forbid(unsafe_code)]

mod asks;
mod autofill;
mod backend;
mod browser;
mod chromelog;
mod cli;
mod confine;
mod consent;
mod headed;
mod imaging;
mod instance;
mod keys;
mod memory;
mod privacy;
mod runtime;
mod script;
mod session;
mod settings_glue;
mod spelling;
mod tab;
mod theme;
mod vault;
mod vault_window;

use anyhow::{Context, Result};
use clap::Parser;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Aperture: a browser for an AI agent and the human who owns it.
#[derive(Parser, Debug)]
#[command(
    version,
    about,
    after_help = "From a shell, the agent's tools are verbs: `aperture help` lists them."
)]
struct Cli {
    /// Run without a window (no display needed).
    #[arg(long)]
    headless: bool,
    /// Print the page's walk as JSON and exit (with --headless).
    #[arg(long, value_name = "URL", conflicts_with_all = ["screenshot", "script"])]
    walk: Option<String>,
    /// Save a PNG of URL to OUT and exit: --screenshot URL OUT.png
    #[arg(long, num_args = 2, value_names = ["URL", "OUT"], conflicts_with = "script")]
    screenshot: Option<Vec<String>>,
    /// Read JSON commands, one per line, from FILE (or - for stdin) and answer each on stdout.
    #[arg(long, value_name = "FILE")]
    script: Option<String>,
    /// Apply Chromium's automatic dark mode (DevTools Emulation.setAutoDarkModeOverride).
    #[arg(long)]
    dark: bool,
    /// Profile directory (cookies, cache, settings). Default: $XDG_DATA_HOME/aperture/profiles/default.
    #[arg(long, value_name = "DIR")]
    profile: Option<PathBuf>,
    /// The CEF runtime directory (default: the provisioned one).
    #[arg(long, value_name = "DIR")]
    cef_dir: Option<PathBuf>,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    size: (i32, i32),
    /// Serve MCP over streamable HTTP on 127.0.0.1:PORT (0 = don't). Default: the port this
    /// profile used last, else 8817, else a free one (remembered for next time).
    #[arg(long, value_name = "PORT")]
    mcp_port: Option<u16>,
    /// Issue a new MCP bearer token (the profile keeps its token across launches, so an agent
    /// host registered once keeps working; use this when it may have leaked).
    #[arg(long)]
    mcp_new_token: bool,
    /// Serve MCP over stdin/stdout instead of HTTP (for hosts that only speak stdio).
    #[arg(long)]
    mcp_stdio: bool,
    /// Let the agent navigate to this otherwise-refused host (loopback, private network),
    /// e.g. `127.0.0.1` or `localhost:8080`. Repeatable.
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
    /// Pass an extra Chromium switch, `NAME` or `NAME=VALUE` (e.g.
    /// `host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1` for offline use). Repeatable.
    /// Switches that would re-enable phone-home features, open a DevTools port or weaken the
    /// sandbox or site isolation are refused.
    #[arg(long, value_name = "SWITCH")]
    chromium_switch: Vec<String>,
    /// Give pages WebGL through software GL (SwiftShader). Chromium then cannot sandbox the
    /// GPU process, which SwiftShader starts threads in before the sandbox (see SECURITY.md);
    /// without it pages get no WebGL and every GPU-process child is in its seccomp filter.
    #[arg(long)]
    webgl: bool,
    /// Turn tracker blocking off.
    #[arg(long)]
    no_block: bool,
    /// Use these filter-list files (EasyList syntax) instead of the pinned EasyList+EasyPrivacy.
    #[arg(long, value_name = "FILE")]
    filter_list: Vec<PathBuf>,
    /// Open the first tab in this identity container (by name; created if new).
    #[arg(long, value_name = "NAME")]
    container: Option<String>,
    /// Unlock the profile's vault (`<profile>/vault.aperture`) with the first line of FILE,
    /// read once at start-up. Without it the vault stays locked.
    #[arg(long, value_name = "FILE")]
    vault_passphrase_file: Option<PathBuf>,
    /// The human's consent for the agent's vault fills on ORIGIN (`https://example.com`, exact
    /// scheme, host and port). Repeatable. Headless, fills on other origins are refused; with a
    /// window, they ask the human.
    #[arg(long, value_name = "ORIGIN")]
    vault_allow_fill: Vec<String>,
    /// With a window: how long an agent's vault fill waits for the human's answer before it
    /// is refused.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    vault_consent_timeout: u64,
    /// Save downloads here (default: the XDG download directory, usually ~/Downloads).
    #[arg(long, value_name = "DIR")]
    download_dir: Option<PathBuf>,
    /// Headless: dismiss a JavaScript dialog nobody answered after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    dialog_timeout: u64,
    /// Run Chromium's renderer, GPU and utility processes without their sandbox. Required
    /// when running as root (the sandbox cannot work there); never the default.
    #[arg(long)]
    no_sandbox: bool,
    /// Page to open (or `mcp` followed by `--stdio`).
    url: Option<String>,
}

fn parse_size(s: &str) -> Result<(i32, i32), String> {
    let (w, h) = s.split_once('x').ok_or("expected WIDTHxHEIGHT, e.g. 1280x800")?;
    let p = |v: &str| {
        v.parse::<i32>()
            .ok()
            .filter(|n| (16..=8192).contains(n))
            .ok_or(format!("bad size {v:?}"))
    };
    Ok((p(w)?, p(h)?))
}

/// `$XDG_DATA_HOME/aperture/profiles/default`; with neither XDG_DATA_HOME nor HOME set there
/// is no sensible place, and the browser says so instead of using the working directory.
/// The first argument that is neither a flag nor a flag's value (`--profile DIR`).
fn first_word(args: &[String]) -> Option<&str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--profile" => {
                it.next();
            }
            "--json" | "--no-sandbox" => {}
            _ => return Some(a),
        }
    }
    None
}

fn default_profile() -> Option<PathBuf> {
    aperture_common::xdg::data_dir().map(|d| d.join("profiles").join("default"))
}

/// Re-executes this binary with the environment Chromium must see, when it differs from
/// ours: `--headless` drops DISPLAY/WAYLAND_DISPLAY (Chromium's GPU process reaches for the X
/// server named there even under ozone headless, and a stale one kills it), and a
/// `--cef-dir` reaches CEF's subprocesses through the environment. Changing our own
/// environment in a process that may already have threads is unsound; a new image is not.
fn reexec_for_chromium(cli: &Cli) -> Result<()> {
    let drop_display = cli.headless
        && (std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some());
    let set_dir = cli
        .cef_dir
        .as_ref()
        .filter(|d| std::env::var_os(cef_sys_build::ENV_DIR).as_deref() != Some(d.as_os_str()));
    if !drop_display && set_dir.is_none() {
        return Ok(());
    }
    let exe = std::env::current_exe().context("finding this executable")?;
    let mut c = std::process::Command::new(exe);
    c.args(std::env::args_os().skip(1));
    if drop_display {
        c.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    }
    if let Some(d) = set_dir {
        c.env(cef_sys_build::ENV_DIR, d);
    }
    use std::os::unix::process::CommandExt;
    Err(anyhow::anyhow!("could not restart for Chromium: {}", c.exec()))
}

fn main() {
    // CEF re-executes this binary for its subprocesses; they must not parse our flags.
    if std::env::args().any(|a| a.starts_with("--type=")) {
        let dir = runtime::runtime_dir(None).unwrap_or_default();
        match runtime::run_subprocess(&dir) {
            Ok(code) => std::process::exit(code),
            Err(e) => {
                eprintln!("aperture: {e}");
                std::process::exit(1);
            }
        }
    }
    // `aperture mcp --stdio` is the spelling MCP hosts expect.
    let mut args: Vec<String> = std::env::args().collect();
    // The browser's vault process: this binary again, serving the vault over its stdin.
    if args.get(1).is_some_and(|a| a == vault::VAULT_PROCESS_ARG) {
        std::process::exit(vault::vault_process_main(&args[2..]));
    }
    // `aperture vault …` is the human's vault CLI; it needs no Chromium.
    if args.get(1).is_some_and(|a| a == "vault") {
        std::process::exit(vault::cli_main(&args[2..], default_profile()));
    }
    // `aperture open URL`, `aperture snapshot`, …: the tools from a shell. The verb may follow
    // the CLI's own flags (`--profile DIR`, `--json`, `--no-sandbox`).
    if let Some(verb) = first_word(&args[1..])
        && cli::is_verb(verb)
    {
        std::process::exit(cli::main(&args[1..], default_profile()));
    }
    // Not a page to open: `help` was taken for an address (and started a browser).
    if matches!(first_word(&args[1..]), Some("help" | "verbs")) {
        // Not println!: a closed pipe (`aperture help | head`) is no reason to panic.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stdout(),
            "{}\nthe browser's own options: aperture --help",
            cli::USAGE
        );
        std::process::exit(0);
    }
    if args.get(1).is_some_and(|a| a == "mcp") {
        args.remove(1);
        // Stdio is what `aperture mcp` is for; `--stdio` is accepted as hosts spell it.
        args.retain(|a| a != "--stdio");
        args.push("--mcp-stdio".into());
        args.push("--headless".into());
    }
    let cli = Cli::parse_from(args);
    if let Err(e) = reexec_for_chromium(&cli) {
        eprintln!("aperture: {e:#}");
        std::process::exit(1);
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("APERTURE_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("aperture: {e:#}");
            std::process::exit(1);
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    let dir = runtime::runtime_dir(cli.cef_dir.as_deref())?;
    runtime::check_sandbox(cli.no_sandbox)?;
    if !cli.headless && std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        anyhow::bail!("there is no display (DISPLAY is unset): run with --headless, or under X11/Xvfb");
    }
    let profile = cli.profile.clone().or_else(default_profile).ok_or_else(|| {
        anyhow::anyhow!("no profile directory: set HOME or XDG_DATA_HOME, or pass --profile DIR")
    })?;
    let one_shot = cli.walk.is_some() || cli.screenshot.is_some() || cli.script.is_some();
    let start_url = cli
        .url
        .clone()
        .map(|u| aperture_ui::omnibox::resolve_input(&u).unwrap_or(u))
        .unwrap_or_else(|| "about:blank".into());
    // One browser per profile: Chromium's storage is not shared between processes.
    let lock = match instance::lock(&profile)? {
        Ok(l) => l,
        Err(instance::Busy::HeldBy(pid)) => {
            let who = pid.map_or("another aperture".to_string(), |p| format!("aperture (pid {p})"));
            if cli.mcp_stdio && !one_shot {
                // `aperture mcp` from a stdio-only host: reach the browser the human is
                // already using rather than a second one (which the profile lock forbids).
                return bridge_to_running(&profile, &who);
            }
            if !cli.headless && !one_shot {
                // A second windowed launch opens its page in the running window, as desktop
                // browsers do.
                return match instance::hand_over(&profile, &start_url) {
                    Ok(()) => {
                        eprintln!(
                            "aperture: opened {start_url} in the browser already running on this profile ({who})"
                        );
                        Ok(0)
                    }
                    Err(e) => Err(anyhow::anyhow!(
                        "the profile {} is in use by {who}, which did not take the page ({e})",
                        profile.display()
                    )),
                };
            }
            anyhow::bail!(
                "the profile {} is in use by {who}: stop it, or use another --profile",
                profile.display()
            );
        }
    };
    // Now that the profile is ours: files an older build or Chromium left group- or
    // world-readable (cookies, containers.json, the vault, logs) become private.
    match aperture_common::fs::tighten_tree(&profile) {
        Ok(0) => {}
        Ok(n) => tracing::info!("made {n} entries of the profile private (0700/0600)"),
        Err(e) => tracing::warn!("could not make the profile private: {e}"),
    }
    let opts = runtime::Options {
        headless: cli.headless,
        cache_root: profile.clone(),
        extra_switches: {
            let mut s = chromium_switches(&cli.chromium_switch)?;
            if cli.webgl {
                eprintln!("aperture: --webgl: pages get WebGL, and the GPU process runs outside the sandbox");
                s.extend(runtime::webgl_switches());
            }
            s
        },
        sandbox: !cli.no_sandbox,
    };
    if cli.mcp_stdio && !one_shot {
        eprintln!(
            "aperture: no browser is running on the profile {}; starting a headless one for this MCP session",
            profile.display()
        );
    }
    // The port is taken before Chromium starts, so a busy one is a single clear message and
    // not a browser running without its agent.
    let (listener, moved) = if one_shot || cli.mcp_stdio || cli.mcp_port == Some(0) {
        (None, false)
    } else {
        let (l, moved) = mcp_listener(&profile, cli.mcp_port)?;
        (Some(l), moved)
    };
    let blocker = if cli.no_block {
        tracing::info!("tracker blocking off (--no-block)");
        None
    } else {
        match privacy::load_blocker(&cli.filter_list) {
            Ok((b, msg)) => {
                tracing::info!("{msg}");
                Some(b)
            }
            Err(e) => {
                eprintln!(
                    "aperture: tracker blocking is off: {e} (run `cargo xtask provision` to install the lists)"
                );
                None
            }
        }
    };
    let (registry, registry_repaired) =
        privacy::registry(&profile).map_err(|e| anyhow::anyhow!("containers: {e}"))?;
    if let Some(said) = &registry_repaired {
        eprintln!("aperture: {said}");
    }
    // Before Chromium starts, so a wrong passphrase fails fast and loudly.
    let vault = vault::load(
        &profile,
        cli.vault_passphrase_file.as_deref(),
        &cli.vault_allow_fill,
    )?;
    let policy = aperture_privacy::NavigationPolicy::with_allowed_hosts(&cli.allow_host)
        .map_err(|e| anyhow::anyhow!("--allow-host: {e}"))?;

    let _log = match chromelog::split(&profile) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("aperture: Chromium's log lines will show here ({e})");
            None
        }
    };
    // The human's settings view choices that apply in both modes (the window reports a
    // damaged file when it loads it).
    let saved = settings_glue::peek();
    let spell_on = saved.as_ref().is_none_or(|s| s.spellcheck);
    let block_third_party_cookies = saved.as_ref().is_some_and(|s| s.block_third_party_cookies);
    // Chromium reads its dictionaries once a context starts, so they are made first.
    let chosen = saved
        .as_ref()
        .map(|s| s.spell_languages.clone())
        .unwrap_or_default();
    let spelling = spelling::install_for_user(&profile, &chosen);
    // `default` is the profile's own context; `Default` the one Chromium opens at start
    // before any context is asked for.
    for dir in ["default", "Default"] {
        if let Err(e) = spelling::seed_preferences(&profile.join(dir), &spelling, spell_on) {
            tracing::warn!(error = %e, "spelling languages not seeded");
        }
    }
    let popup_origins: Vec<String> = saved
        .as_ref()
        .map(|s| s.popup_origins.iter().cloned().collect())
        .unwrap_or_default();
    let prefs = privacy::ContextPrefs {
        spelling,
        spell_on,
        block_third_party_cookies,
        popup_origins: popup_origins.clone(),
    };
    // The CEF runtime is loaded (and checked) before anything else starts.
    let (pump, rx) = runtime::init(&dir, &opts).context("starting Chromium")?;
    // The profile's own context (tabs of the default container) gets the same preferences as
    // every container's.
    match cef::RequestContext::global() {
        Some(g) => privacy::apply_preferences(&g, &prefs),
        None => tracing::warn!("no global request context to set preferences in"),
    }
    let filter = blocker.clone().map(|b| b as Arc<dyn cef::ResourceFilter>);
    let actor = browser::Actor::new(
        pump.clone(),
        browser::Services {
            nav_policy: policy.clone(),
            page: browser::page::PagePolicy {
                headless: cli.headless,
                dialog_timeout: std::time::Duration::from_secs(cli.dialog_timeout.max(1)),
                download_dir: std::cell::RefCell::new(
                    cli.download_dir
                        .clone()
                        .or_else(|| saved.as_ref().and_then(|s| s.download_dir.clone()))
                        .or_else(aperture_common::xdg::download_dir),
                ),
                // Only a window has a human to answer permission prompts.
                permissions_file: (!cli.headless && !one_shot).then(|| profile.join("permissions.json")),
            },
        },
        filter,
    );
    actor.with(|st| st.popup_origins = popup_origins.into_iter().collect());
    if let Some(b) = &blocker {
        settings_glue::watch_blocking(&actor, b, saved.as_ref());
    }
    if let Some(p) = &actor.services().page.permissions_file {
        let saved = browser::page::load_permissions(p);
        actor.with(|st| st.permission_memory = saved);
    }
    let h = actor.handle();
    // What start-up had to repair is the human's to know: in the window's notice bar too.
    if let Some(said) = registry_repaired {
        actor.with(|st| st.notices.push(said));
    }
    let containers = privacy::Containers::new(registry, h.clone(), prefs);
    // History and bookmarks: every navigation of a non-private tab, the agent's included.
    let places = if one_shot {
        None
    } else {
        match aperture_places::Places::open(&profile) {
            Ok(p) => {
                if let Some(r) = p.recovery() {
                    let said = format!("The history database was damaged and a new one was started: {r}");
                    eprintln!("aperture: {said}");
                    actor.with(|st| st.notices.push(said));
                }
                memory::record_history(&actor, p.clone());
                Some(p)
            }
            Err(e) => {
                eprintln!("aperture: history and bookmarks are off: {e}");
                None
            }
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let done = Arc::new(AtomicBool::new(false));
    let code = Arc::new(std::sync::atomic::AtomicI32::new(0));
    {
        let done = done.clone();
        let session_profile = (!cli.headless && !one_shot).then(|| profile.clone());
        rt.spawn(async move {
            use tokio::signal::unix::{SignalKind, signal};
            let (mut int, mut term) = match (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
            {
                (Ok(i), Ok(t)) => (i, t),
                _ => return,
            };
            tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
            tracing::info!("signal received: shutting down");
            if let Some(p) = &session_profile {
                session::mark_clean(p);
            }
            done.store(true, Ordering::SeqCst);
        });
    }
    let finish = |code: &std::sync::atomic::AtomicI32, r: Result<i32>| match r {
        Ok(c) => code.store(c, Ordering::SeqCst),
        Err(e) => {
            eprintln!("aperture: {e:#}");
            code.store(1, Ordering::SeqCst);
        }
    };

    if one_shot {
        // The debug verbs: no agent, no window.
        let (done2, code2, h2, containers2) = (done.clone(), code.clone(), h.clone(), containers.clone());
        rt.spawn(async move {
            let r = one_shot_task(cli, h2, containers2, blocker).await;
            finish(&code2, r);
            done2.store(true, Ordering::SeqCst);
        });
        runtime::run_loop(&actor, &rx, || done.load(Ordering::SeqCst));
    } else {
        let themes = Arc::new(theme::Themes::default());
        let backend: Arc<dyn aperture_mcp::backend::Backend> = Arc::new(
            backend::AppBackend::new(h.clone(), policy, cli.size, containers.clone(), themes.clone())
                .with_vault(vault.clone()),
        );
        // MCP is served before the first page loads: a slow or failing start page never keeps
        // the agent out.
        {
            let (done, code, stdio) = (done.clone(), code.clone(), cli.mcp_stdio);
            // A listener that had to move gets a new token: hosts still holding the old
            // address would hand the old one to whoever took the port.
            let (profile, new_token) = (profile.clone(), cli.mcp_new_token || moved);
            rt.spawn(async move {
                let r = serve_mcp(backend, listener, stdio, &profile, new_token).await;
                finish(&code, r.map(|()| 0));
                // A stdio session ends when the host closes the channel; an HTTP server that
                // stopped leaves the browser without its agent, which is worth exiting on.
                done.store(true, Ordering::SeqCst);
            });
        }
        let url = start_url;
        if cli.headless {
            let (h2, containers2, size, container) =
                (h.clone(), containers.clone(), cli.size, cli.container.clone());
            rt.spawn(async move {
                // The human's first tab. A page that fails to load is the page's problem: the
                // browser stays up and serving.
                match open_first_tab(&h2, &containers2, &url, size, container.as_deref()).await {
                    Ok((id, o)) => eprintln!("aperture: tab {} at {} (status {})", id.0, o.url, o.status),
                    Err(e) => eprintln!("aperture: the first tab: {e}"),
                }
            });
            let mut dark = theme::Headless::new(themes.clone(), h.clone(), rt.handle().clone());
            runtime::run_loop(&actor, &rx, || {
                dark.tick(&actor);
                done.load(Ordering::SeqCst)
            });
            dark.save();
        } else {
            // Later windowed launches on this profile open their page here, in front.
            let (h2, containers2, rt2) = (h.clone(), containers.clone(), rt.handle().clone());
            lock.listen(move |url| {
                let (h, containers) = (h2.clone(), containers2.clone());
                rt2.spawn(async move {
                    if let Err(e) = open_handed_over(&h, &containers, url).await {
                        eprintln!("aperture: could not open a page from another launch: {e}");
                    }
                });
            })?;
            let cfg = headed::Config {
                url_given: cli.url.is_some(),
                profile: profile.clone(),
                url,
                container: cli.container.clone(),
                containers: containers.clone(),
                themes: themes.clone(),
                done: done.clone(),
                places: places.clone(),
                blocker: blocker.clone(),
                vault: vault.clone(),
                vault_consent_timeout: std::time::Duration::from_secs(cli.vault_consent_timeout.max(1)),
            };
            if let Err(e) = headed::run(cfg, &actor, rx, &rt) {
                finish(&code, Err(e));
            }
        }
    }
    containers.release();
    // The history writer finishes what is queued before the process ends.
    if let Some(p) = places
        && let Err(e) = p.flush()
    {
        eprintln!("aperture: the last history entries were not saved: {e}");
    }
    drop(actor);
    runtime::shutdown(&pump, &profile);
    drop(lock);
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(code.load(Ordering::SeqCst))
}

/// `--chromium-switch` values on top of the privacy crate's switches, refusing the ones that
/// would undo the privacy policy.
fn chromium_switches(extra: &[String]) -> Result<Vec<(String, Option<String>)>> {
    if let Some(bad) = aperture_privacy::switches::find_forbidden_switch(extra) {
        anyhow::bail!("--chromium-switch {bad} is refused: it would turn a phone-home feature back on");
    }
    if let Some((bad, why)) = aperture_privacy::switches::find_unsafe_switch(extra) {
        anyhow::bail!("--chromium-switch {bad} is refused: {why}");
    }
    // Chromium keeps only the last --disable-features/--enable-features: a second one would
    // silently undo the privacy list.
    if let Some(f) = extra.iter().find(|a| {
        let n = a.trim_start_matches('-');
        n.starts_with("disable-features") || n.starts_with("enable-features")
    }) {
        anyhow::bail!("--chromium-switch {f} is refused: feature lists are fixed by the privacy policy");
    }
    let mut s = privacy::switches();
    s.extend(extra.iter().map(|a| {
        let a = a.trim_start_matches('-');
        match a.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (a.to_string(), None),
        }
    }));
    Ok(s)
}

/// Opens the human's first tab (in `--container` when given) and waits for its load.
async fn open_first_tab(
    h: &browser::Handle,
    containers: &privacy::Containers,
    url: &str,
    size: (i32, i32),
    container: Option<&str>,
) -> Result<(aperture_mcp::backend::TabId, browser::state::LoadOutcome)> {
    // The human's first tab is in their default container, as in the window (`--container`
    // names another, created if new, as the human's own flag may).
    let (which, create) = match container {
        Some(name) => (name.to_string(), true),
        None => (containers.default_id(), false),
    };
    let (ctx, name) = containers
        .context(&which, create)
        .await
        .map_err(anyhow::Error::msg)?;
    let mut opts = tab::TabOptions {
        size,
        context: Some(ctx),
        ..Default::default()
    };
    opts.meta.container = name;
    match tab::open(h, url, opts.clone()).await {
        Ok((t, o)) => Ok((t.id, o)),
        // Not a URL a browser can load: say so and give the human an empty tab.
        Err(e @ tab::TabError::BadUrl { .. }) => {
            h.on_ui(move |a| a.create_browser("about:blank", opts)).await??;
            Err(e.into())
        }
        // Any other failure leaves the tab showing Chromium's error page.
        Err(e) => Err(e.into()),
    }
}

/// Opens a page another launch handed over: a human tab in the default container, in front.
async fn open_handed_over(h: &browser::Handle, containers: &privacy::Containers, url: String) -> Result<()> {
    let (ctx, name) = containers
        .context(&containers.default_id(), false)
        .await
        .map_err(anyhow::Error::msg)?;
    let mut opts = tab::TabOptions {
        context: Some(ctx),
        ..Default::default()
    };
    opts.meta.container = name;
    h.on_ui(move |a| -> Result<(), tab::TabError> {
        let id = a.create_browser(&url, opts)?;
        a.with(|st| st.active = Some(id));
        Ok(())
    })
    .await??;
    Ok(())
}

/// Binds the profile's MCP port: the one asked for (a busy one is an error), else the one
/// the profile used last or 8817, falling back to a free port that is then remembered. True
/// with it when the profile's remembered port was taken and the listener moved: whatever holds
/// that port now (another program, or one waiting for an agent host's bearer token) is not
/// this browser, so the token moves too.
fn mcp_listener(profile: &std::path::Path, asked: Option<u16>) -> Result<(std::net::TcpListener, bool)> {
    let bind = |port: u16| std::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, port));
    if let Some(port) = asked {
        return bind(port).map(|l| (l, false)).map_err(|e| {
            anyhow::anyhow!(
                "the MCP port 127.0.0.1:{port} is not available ({e}); another browser may be \
                 serving there: pick another with --mcp-port, or 0 for none"
            )
        });
    }
    let remembered = aperture_mcp::config::read_profile_endpoint(profile)
        .unwrap_or_else(|e| {
            tracing::warn!("ignoring the profile's MCP endpoint file: {e}");
            None
        })
        .map(|e| e.port);
    let want = remembered.unwrap_or(aperture_mcp::DEFAULT_PORT);
    match bind(want) {
        Ok(l) => Ok((l, false)),
        Err(e) => {
            let l = bind(0).context("binding a loopback port for MCP")?;
            let got = l.local_addr()?.port();
            let token = if remembered.is_some() {
                "; its bearer token is new too (hosts with the old address would send the old \
                 one to whatever holds that port), so agent hosts must take the new address and \
                 token"
            } else {
                ""
            };
            eprintln!(
                "aperture: 127.0.0.1:{want} is taken ({e}); this profile's MCP listener moves to port {got}{token}"
            );
            Ok((l, remembered.is_some()))
        }
    }
}

/// `aperture mcp` while a browser runs on the profile: bridges stdio to its listener.
fn bridge_to_running(profile: &std::path::Path, who: &str) -> Result<i32> {
    let e = aperture_mcp::config::read_profile_endpoint(profile)?.ok_or_else(|| {
        anyhow::anyhow!(
            "{who} runs on the profile {} without an MCP listener (started with --mcp-port 0?); \
             restart it with one",
            profile.display()
        )
    })?;
    eprintln!(
        "aperture: bridging MCP on stdio to the browser already running on this profile ({who}) at {}",
        e.url
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(aperture_mcp::bridge::bridge_stdio(
        aperture_mcp::bridge::BridgeTarget {
            url: e.url,
            token: e.token,
        },
    ))?;
    Ok(0)
}

/// Serves MCP on stdio, or on the listener taken at start-up, until it ends.
async fn serve_mcp(
    backend: Arc<dyn aperture_mcp::backend::Backend>,
    listener: Option<std::net::TcpListener>,
    stdio: bool,
    profile: &std::path::Path,
    new_token: bool,
) -> Result<()> {
    if stdio {
        eprintln!("aperture: serving MCP on stdio");
        aperture_mcp::serve_stdio(backend).await?;
        return Ok(());
    }
    let Some(listener) = listener else {
        std::future::pending::<()>().await;
        return Ok(());
    };
    use aperture_mcp::config;
    // The profile's token, so a host registered once keeps working after a restart.
    let token = config::read_profile_endpoint(profile)
        .ok()
        .flatten()
        .filter(|e| !new_token && e.token.len() >= 32)
        .map(|e| aperture_mcp::Token::from_string(e.token))
        .unwrap_or_else(aperture_mcp::Token::generate);
    let server = aperture_mcp::serve_http_on(listener, token, backend).await?;
    if let Err(e) = config::write_profile_endpoint(profile, server.addr(), server.token()) {
        eprintln!(
            "aperture: could not record the MCP endpoint in the profile ({e}); `aperture mcp` cannot bridge to this browser"
        );
    }
    let name = config::server_name_for(profile, default_profile().as_deref());
    match config::config_dir()
        .ok_or_else(|| std::io::Error::other("neither XDG_CONFIG_HOME nor HOME is set"))
        .and_then(|d| config::write_mcp_json_entry(&d, &name, server.addr(), server.token()))
    {
        Ok(p) => eprintln!("aperture: MCP config written to {} (entry {name:?})", p.display()),
        Err(e) => eprintln!("aperture: could not write mcp.json: {e}"),
    }
    let profile_arg = if name == config::SERVER_NAME {
        String::new()
    } else {
        format!(" --profile {}", profile.display())
    };
    eprintln!("aperture: register once for stdio hosts: claude mcp add {name} -- aperture mcp{profile_arg}");
    // The one line a person pastes into an HTTP agent host.
    println!(
        "{}",
        server.claude_add_line().replacen(config::SERVER_NAME, &name, 1)
    );
    server.wait().await?;
    Ok(())
}

/// The debug verbs (`--walk`, `--screenshot`, `--script`). Returns the exit code.
async fn one_shot_task(
    cli: Cli,
    h: browser::Handle,
    containers: privacy::Containers,
    blocker: Option<Arc<privacy::BlockFilter>>,
) -> Result<i32> {
    let mut opts = tab::TabOptions {
        size: cli.size,
        ..Default::default()
    };
    if let Some(name) = &cli.container {
        let (ctx, name) = containers.context(name, true).await.map_err(anyhow::Error::msg)?;
        opts.context = Some(ctx);
        opts.meta.container = name;
    }
    if let Some(url) = &cli.walk {
        let (t, _) = tab::open(&h, url, opts).await?;
        let w = t.walk().await?;
        println!("{}", serde_json::to_string_pretty(&w)?);
        return Ok(0);
    }
    if let Some(v) = &cli.screenshot {
        let (t, _) = tab::open(&h, &v[0], opts).await?;
        if cli.dark {
            t.devtools(
                "Emulation.setAutoDarkModeOverride",
                serde_json::json!({"enabled": true}),
            )
            .await?;
        }
        let (png, w, hgt) = t.screenshot(None, None).await?;
        std::fs::write(&v[1], png).with_context(|| format!("writing {}", v[1]))?;
        eprintln!("aperture: wrote {} ({w}x{hgt})", v[1]);
        return Ok(0);
    }
    let src = cli.script.as_deref().unwrap_or("-");
    script::run(
        src,
        script::Ctx {
            h,
            opts,
            containers,
            blocker,
        },
    )
    .await
}
