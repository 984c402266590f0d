//! `cargo xtask`: project chores (provision the CEF runtime, run, test, lint, bench).
//!
//! Usage: `cargo xtask run [-- ARGS]`, `cargo xtask test [-- CARGO TEST ARGS]`,
//! `cargo xtask lint`, `cargo xtask provision`, `cargo xtask bench`.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let cmd = args.next().unwrap_or_default();
    let rest: Vec<String> = args.skip_while(|a| a == "--").collect();
    let result = match cmd.as_str() {
        "provision" => provision().map(|dir| println!("{}", dir.display())),
        "run" => provision().and_then(|dir| run(&dir, &rest)),
        "test" => provision().and_then(|dir| test(&dir, &rest)),
        "lint" => lint(),
        "bench" => provision().and_then(|dir| bench(&dir, &rest)),
        _ => Err(
            "usage: cargo xtask <run|test|lint|provision|bench> [-- ARGS]\n  run        provision CEF, build, start the browser (headless when there is no display)\n  test       provision CEF and run the whole suite\n  lint       cargo fmt --check and clippy -D warnings\n  provision  install the CEF runtime and print its directory\n  bench      run the benchmarks and write bench/RESULTS.md"
        .to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn provision() -> Result<PathBuf, String> {
    let dir = cef_sys_build::default_runtime_dir().map_err(|e| e.to_string())?;
    if !cef_sys_build::is_installed(&dir) {
        eprintln!(
            "xtask: installing the CEF {} runtime into {}",
            cef_sys_build::CEF_VERSION,
            dir.display()
        );
    }
    let dir = cef_sys_build::provision(&dir, &mut |m| eprintln!("xtask: {m}")).map_err(|e| e.to_string())?;
    provision_filter_lists()?;
    Ok(dir)
}

/// The pinned EasyList + EasyPrivacy (from a Debian package, hash-checked) for tracker blocking.
fn provision_filter_lists() -> Result<(), String> {
    let mut c = cargo();
    c.args([
        "run",
        "--quiet",
        "-p",
        "aperture-privacy",
        "--example",
        "provision_lists",
        "--",
        "--apt-update",
    ]);
    status(c).map_err(|e| format!("could not provision the tracker filter lists: {e}"))
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(workspace_root());
    c
}

fn status(mut c: Command) -> Result<(), String> {
    let s = c.status().map_err(|e| format!("could not start {c:?}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{c:?} failed ({s})"))
    }
}

fn run(cef: &Path, args: &[String]) -> Result<(), String> {
    let mut b = cargo();
    b.args(["build", "--release", "-p", "aperture"]);
    status(b)?;
    let exe = target_dir().join("release").join("aperture");
    let mut args = args.to_vec();
    let has_display = std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !has_display && !args.iter().any(|a| a == "--headless") {
        eprintln!("xtask: no DISPLAY: starting headless");
        args.insert(0, "--headless".into());
    }
    // Chromium's sandbox cannot run as root, and the browser refuses root without an explicit
    // --no-sandbox: pass it, and say so, so the README's command works for root too.
    if is_root() && !args.iter().any(|a| a == "--no-sandbox") {
        eprintln!(
            "xtask: running as root: starting with --no-sandbox (Chromium's sandbox cannot run as root; run as an ordinary user to keep it)"
        );
        args.insert(0, "--no-sandbox".into());
    }
    let mut c = Command::new(exe);
    c.args(&args).env(cef_sys_build::ENV_DIR, cef);
    use std::os::unix::process::CommandExt;
    Err(format!("could not start the browser: {}", c.exec()))
}

/// Effective uid 0, read from /proc.
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2))
                .map(|u| u == "0")
        })
        .unwrap_or(false)
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

fn test(cef: &Path, args: &[String]) -> Result<(), String> {
    if is_root() {
        eprintln!(
            "xtask: running as root: the tests start the browser with --no-sandbox (Chromium's sandbox cannot run as root); .ci/run also runs the sandbox tests as an unprivileged user"
        );
    }
    // The MCP crate's real-browser tests drive the binary named by APERTURE_BIN.
    let mut b = cargo();
    b.args(["build", "-p", "aperture"]);
    status(b)?;
    let mut c = cargo();
    c.args(["test", "--workspace", "--no-fail-fast"])
        .args(args)
        .env(cef_sys_build::ENV_DIR, cef)
        .env("APERTURE_BIN", target_dir().join("debug").join("aperture"));
    status(c)
}

fn lint() -> Result<(), String> {
    let mut f = cargo();
    f.args(["fmt", "--all", "--check"]);
    status(f)?;
    let mut c = cargo();
    c.args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]);
    status(c)
}

fn bench(cef: &Path, args: &[String]) -> Result<(), String> {
    let mut c = cargo();
    // `--bin`: the bench crate also has the `observation` tool.
    c.args([
        "run",
        "--release",
        "-p",
        "aperture-bench",
        "--bin",
        "aperture-bench",
        "--",
    ])
    .args(args)
    .env(cef_sys_build::ENV_DIR, cef);
    status(c)
}
