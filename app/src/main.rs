//! `aperture`: the browser process, and (re-executed by CEF with `--type=…`) its own
//! subprocesses.

// `call!` forwards plain argument expressions into the unsafe call of a CEF vtable entry; the
// unsafety is the FFI call itself, which is what the macro is for.
#![allow(clippy::macro_metavars_in_unsafe)]

mod backend;
mod cef;
mod handlers;
mod headed;
mod imaging;
mod keys;
mod policy;
mod privacy;
mod renderer;
mod runtime;
mod script;
mod state;
mod tab;
mod vault;

use anyhow::{Context, Result};
use clap::Parser;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Aperture: a browser for an AI agent and the human who owns it.
#[derive(Parser, Debug)]
#[command(version, about)]
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
    /// Serve MCP over streamable HTTP on 127.0.0.1:PORT (0 = don't).
    #[arg(long, value_name = "PORT", default_value_t = aperture_mcp::DEFAULT_PORT)]
    mcp_port: u16,
    /// Serve MCP over stdin/stdout instead of HTTP (for hosts that only speak stdio).
    #[arg(long)]
    mcp_stdio: bool,
    /// Let the agent navigate to this otherwise-refused host (loopback, private network),
    /// e.g. `127.0.0.1` or `localhost:8080`. Repeatable.
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
    /// Pass an extra Chromium switch, `NAME` or `NAME=VALUE` (e.g.
    /// `host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1` for offline use). Repeatable.
    /// Switches that would re-enable phone-home features are refused.
    #[arg(long, value_name = "SWITCH")]
    chromium_switch: Vec<String>,
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
    /// scheme, host and port). Repeatable; fills on other origins are refused.
    #[arg(long, value_name = "ORIGIN")]
    vault_allow_fill: Vec<String>,
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

fn default_profile() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".local/share"));
    base.join("aperture").join("profiles").join("default")
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
    // `aperture vault …` is the human's vault CLI; it needs no Chromium.
    if args.get(1).is_some_and(|a| a == "vault") {
        std::process::exit(vault::cli_main(&args[2..], default_profile()));
    }
    if args.get(1).is_some_and(|a| a == "mcp") {
        args.remove(1);
        args = args
            .into_iter()
            .map(|a| if a == "--stdio" { "--mcp-stdio".into() } else { a })
            .collect();
        args.push("--headless".into());
    }
    let cli = Cli::parse_from(args);
    if cli.headless {
        // Chromium's GPU process reaches for the X server named by DISPLAY even under ozone
        // headless; a stale or unreachable one kills it and no page ever loads. Headless
        // means no display at all, for this process and the subprocesses it starts.
        // SAFETY: still single-threaded; nothing has read the environment concurrently.
        unsafe {
            std::env::remove_var("DISPLAY");
            std::env::remove_var("WAYLAND_DISPLAY");
        }
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
    if !cli.headless && std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        anyhow::bail!("there is no display (DISPLAY is unset): run with --headless, or under X11/Xvfb");
    }
    let profile = cli.profile.clone().unwrap_or_else(default_profile);
    let opts = runtime::Options {
        headless: cli.headless,
        cache_root: profile.clone(),
        extra_switches: {
            if let Some(bad) = aperture_privacy::switches::find_forbidden_switch(&cli.chromium_switch) {
                anyhow::bail!(
                    "--chromium-switch {bad} is refused: it would turn a phone-home feature back on"
                );
            }
            // Chromium keeps only the last --disable-features/--enable-features: a second one
            // would silently undo the privacy list.
            if let Some(f) = cli.chromium_switch.iter().find(|a| {
                let n = a.trim_start_matches('-');
                n.starts_with("disable-features") || n.starts_with("enable-features")
            }) {
                anyhow::bail!(
                    "--chromium-switch {f} is refused: feature lists are fixed by the privacy policy"
                );
            }
            let mut s = privacy::switches();
            s.extend(cli.chromium_switch.iter().map(|a| {
                let a = a.trim_start_matches('-');
                match a.split_once('=') {
                    Some((k, v)) => (k.to_string(), Some(v.to_string())),
                    None => (a.to_string(), None),
                }
            }));
            s
        },
    };
    if cli.no_block {
        tracing::info!("tracker blocking off (--no-block)");
    } else {
        match privacy::install_blocker(&cli.filter_list) {
            Ok(msg) => tracing::info!("{msg}"),
            Err(e) => eprintln!(
                "aperture: tracker blocking is off: {e} (run `cargo xtask provision` to install the lists)"
            ),
        }
    }
    let registry = privacy::registry(&profile).map_err(|e| anyhow::anyhow!("containers: {e}"))?;
    // Before Chromium starts, so a wrong passphrase fails fast and loudly.
    vault::install(vault::load(
        &profile,
        cli.vault_passphrase_file.as_deref(),
        &cli.vault_allow_fill,
    )?);
    // The CEF runtime is loaded (and checked) before anything else starts.
    runtime::init(&dir, &opts).context("starting Chromium")?;
    let rx = state::pump().take_receiver();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let done = Arc::new(AtomicBool::new(false));
    let code = Arc::new(std::sync::atomic::AtomicI32::new(0));
    {
        let done = done.clone();
        rt.spawn(async move {
            use tokio::signal::unix::{SignalKind, signal};
            let (mut int, mut term) = match (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
            {
                (Ok(i), Ok(t)) => (i, t),
                _ => return,
            };
            tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
            tracing::info!("signal received: shutting down");
            done.store(true, Ordering::SeqCst);
        });
    }
    // Headed: the window's event loop is the UI thread's loop (instead of run_loop); the
    // one-shot modes (--walk, --screenshot, --script) stay windowless.
    if !cli.headless && cli.walk.is_none() && cli.screenshot.is_none() && cli.script.is_none() {
        let policy = aperture_privacy::NavigationPolicy::with_allowed_hosts(&cli.allow_host)
            .map_err(|e| anyhow::anyhow!("--allow-host: {e}"))?;
        policy::set_nav_policy(policy.clone());
        let url = cli
            .url
            .clone()
            .map(|u| aperture_ui::omnibox::resolve_input(&u).unwrap_or(u))
            .unwrap_or_else(|| "about:blank".into());
        let cfg = headed::Config {
            url,
            container: cli.container.clone(),
            registry,
            policy,
            mcp_port: cli.mcp_port,
            mcp_stdio: cli.mcp_stdio,
            done: done.clone(),
            code: code.clone(),
        };
        let r = headed::run(cfg, rx, &rt);
        privacy::release_contexts();
        runtime::shutdown();
        rt.shutdown_timeout(std::time::Duration::from_millis(200));
        r?;
        return Ok(code.load(Ordering::SeqCst));
    }
    {
        let (done, code) = (done.clone(), code.clone());
        rt.spawn(async move {
            let r = task(cli, registry).await;
            match r {
                Ok(c) => code.store(c, Ordering::SeqCst),
                Err(e) => {
                    eprintln!("aperture: {e:#}");
                    code.store(1, Ordering::SeqCst);
                }
            }
            done.store(true, Ordering::SeqCst);
        });
    }
    runtime::run_loop(&rx, || done.load(Ordering::SeqCst));
    privacy::release_contexts();
    runtime::shutdown();
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(code.load(Ordering::SeqCst))
}

/// What the browser does once Chromium is up. Returns the exit code.
async fn task(cli: Cli, registry: Arc<std::sync::Mutex<aperture_privacy::ContainerRegistry>>) -> Result<i32> {
    let mut opts = tab::TabOptions {
        size: cli.size,
        ..Default::default()
    };
    if let Some(name) = &cli.container {
        let (ctx, name) = privacy::container_context(&registry, name, true)
            .await
            .map_err(|e| anyhow::anyhow!(e))?;
        opts.context = Some(ctx);
        opts.meta.container = name;
    }
    if let Some(url) = &cli.walk {
        let (t, _) = tab::open(url, opts).await?;
        let w = t.walk().await?;
        println!("{}", serde_json::to_string_pretty(&w)?);
        return Ok(0);
    }
    if let Some(v) = &cli.screenshot {
        let (t, _) = tab::open(&v[0], opts).await?;
        if cli.dark {
            t.devtools(
                "Emulation.setAutoDarkModeOverride",
                serde_json::json!({"enabled": true}),
            )
            .await?;
        }
        let (png, w, h) = t.screenshot(None).await?;
        std::fs::write(&v[1], png).with_context(|| format!("writing {}", v[1]))?;
        eprintln!("aperture: wrote {} ({w}x{h})", v[1]);
        return Ok(0);
    }
    if let Some(src) = &cli.script {
        return script::run(src, opts, registry).await;
    }
    // Browsing: open the page (a tab the human opened) and serve the agent until a signal.
    let policy = aperture_privacy::NavigationPolicy::with_allowed_hosts(&cli.allow_host)
        .map_err(|e| anyhow::anyhow!("--allow-host: {e}"))?;
    policy::set_nav_policy(policy.clone());
    let backend: Arc<dyn aperture_mcp::backend::Backend> =
        Arc::new(backend::AppBackend::new(policy, cli.size, registry).with_vault(vault::installed()));
    let url = cli.url.as_deref().unwrap_or("about:blank");
    let (t, outcome) = tab::open(url, opts).await?;
    if cli.mcp_stdio {
        eprintln!("aperture: serving MCP on stdio; tab {} at {}", t.id, outcome.url);
        aperture_mcp::serve_stdio(backend).await?;
        return Ok(0);
    }
    eprintln!(
        "aperture: tab {} at {} (status {})",
        t.id, outcome.url, outcome.status
    );
    if cli.mcp_port != 0 {
        let server =
            aperture_mcp::serve_http(aperture_mcp::HttpConfig::on_port(cli.mcp_port), backend).await?;
        match server.write_mcp_json() {
            Ok(p) => eprintln!("aperture: MCP config written to {}", p.display()),
            Err(e) => eprintln!("aperture: could not write mcp.json: {e}"),
        }
        // The one line a person pastes into their agent host.
        println!("{}", server.claude_add_line());
        server.wait().await?;
    } else {
        std::future::pending::<()>().await;
    }
    Ok(0)
}
