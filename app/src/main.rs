//! `aperture`: the browser process, and (re-executed by CEF with `--type=…`) its own
//! subprocesses.

mod cef;
mod handlers;
mod imaging;
mod keys;
mod policy;
mod renderer;
mod runtime;
mod script;
mod state;
mod tab;

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
    /// Page to open.
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
    let cli = Cli::parse();
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
        cache_root: profile,
        extra_switches: vec![],
    };
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
    {
        let (done, code) = (done.clone(), code.clone());
        rt.spawn(async move {
            let r = task(cli).await;
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
    runtime::shutdown();
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(code.load(Ordering::SeqCst))
}

/// What the browser does once Chromium is up. Returns the exit code.
async fn task(cli: Cli) -> Result<i32> {
    let opts = tab::TabOptions {
        size: cli.size,
        ..Default::default()
    };
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
        return script::run(src, opts).await;
    }
    // Plain headless browsing: open the page and serve until a signal arrives.
    let url = cli.url.as_deref().unwrap_or("about:blank");
    let (t, outcome) = tab::open(url, opts).await?;
    println!(
        "aperture: ready; tab {} at {} (status {})",
        t.id, outcome.url, outcome.status
    );
    std::future::pending::<()>().await;
    Ok(0)
}
