//! The renderer sandbox, read from /proc.
//!
//! As an ordinary user the browser runs its renderers in Chromium's sandbox: a seccomp-bpf
//! filter and their own user, PID and network namespaces. As root it refuses to start unless
//! told `--no-sandbox`. CI (`.ci/run`) runs this file as an unprivileged user with
//! `APERTURE_REQUIRE_SANDBOX=1`, so the sandbox half cannot pass by being skipped; as root
//! that half says why it does not apply and the root half runs instead.

use aperture_testkit::mcp::{call, text};
use aperture_testkit::{Launch, Server, is_root, unique_tag};
use serde_json::json;
use std::process::Command;
use std::time::Duration;

fn bin() -> std::path::PathBuf {
    // CI runs this binary from a copy, as another user: it names the browser by env then.
    std::env::var_os("APERTURE_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_aperture").into())
}

/// What /proc says about one process.
#[derive(Debug)]
struct Proc {
    pid: u32,
    seccomp: String,
    user_ns: String,
    pid_ns: String,
    net_ns: String,
}

fn inspect(pid: u32) -> Option<Proc> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let seccomp = status
        .lines()
        .find(|l| l.starts_with("Seccomp:"))?
        .split_whitespace()
        .nth(1)?
        .to_string();
    let ns = |n: &str| {
        std::fs::read_link(format!("/proc/{pid}/ns/{n}"))
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    };
    Some(Proc {
        pid,
        seccomp,
        user_ns: ns("user"),
        pid_ns: ns("pid"),
        net_ns: ns("net"),
    })
}

#[test]
fn as_root_the_browser_refuses_to_start_without_an_explicit_no_sandbox() {
    if !is_root() {
        eprintln!("not root: the refusal applies to root only (the sandbox test below covers this user)");
        return;
    }
    let profile = std::env::temp_dir().join(unique_tag("aperture-sandbox-root"));
    let out = Command::new(bin())
        .args(["--headless", "--mcp-port", "0", "--profile"])
        .arg(&profile)
        .arg("about:blank")
        .env_remove("DISPLAY")
        .output()
        .expect("run aperture");
    let _ = std::fs::remove_dir_all(&profile);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "root without --no-sandbox must not start: {err}"
    );
    assert!(
        err.contains("as root") && err.contains("--no-sandbox"),
        "the refusal says why and what to do: {err}"
    );
    assert!(!profile.join("chromium.log").exists(), "Chromium never started");
}

#[tokio::test]
async fn renderers_run_in_a_seccomp_filter_and_their_own_namespaces() {
    if is_root() {
        assert!(
            std::env::var_os("APERTURE_REQUIRE_SANDBOX").is_none(),
            "APERTURE_REQUIRE_SANDBOX is set but this runs as root, where there is no sandbox"
        );
        eprintln!(
            "running as root: Chromium cannot sandbox here; .ci/run repeats this test as an unprivileged user"
        );
        return;
    }
    let a = Server::page("<!doctype html><title>one</title><h1>first site</h1>");
    // Another host, so site isolation gives it its own renderer.
    let b = Server::start_full(
        "127.0.0.2",
        std::collections::HashMap::from([(
            "/".to_string(),
            "<title>two</title><h1>second site</h1>".to_string(),
        )]),
        Default::default(),
        None,
    );
    let browser = Launch::new(bin())
        .allow_hosts(["127.0.0.1", "127.0.0.2"])
        .start()
        .await;
    assert!(
        !browser.stderr().contains("sandbox is OFF"),
        "an ordinary user gets the sandbox: {}",
        browser.stderr()
    );
    let c = browser.connect().await;
    for (url, want) in [(a.url("/"), "first site"), (b.url("/"), "second site")] {
        let r = text(&call(&c, "browser_tabs", json!({"action": "open", "url": url})).await);
        assert!(r.contains(want), "the page works in the sandbox: {r}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let me = inspect(std::process::id()).expect("/proc of the test");
    let procs: Vec<Proc> = browser.pids().into_iter().filter_map(inspect).collect();
    for p in &procs {
        eprintln!("{p:?}");
    }
    let sandboxed: Vec<&Proc> = procs
        .iter()
        .filter(|p| {
            p.seccomp == "2" && p.user_ns != me.user_ns && p.pid_ns != me.pid_ns && p.net_ns != me.net_ns
        })
        .collect();
    // Two sites' renderers at least (their zygote helper is sandboxed too).
    assert!(
        sandboxed.len() >= 2,
        "expected the renderers in a seccomp filter and their own user/pid/net namespaces; processes: {procs:?}"
    );
    // And none of them shares the browser's namespaces.
    let browser_proc = procs
        .iter()
        .find(|p| p.seccomp == "0")
        .expect("the browser process");
    for s in &sandboxed {
        assert_ne!(s.user_ns, browser_proc.user_ns, "pid {}", s.pid);
    }
}
