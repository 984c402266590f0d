//! The renderer sandbox, read from /proc.
//!
//! As an ordinary user the browser runs its renderers in Chromium's sandbox: a seccomp-bpf
//! filter and their own user, PID and network namespaces; the GPU process and every utility,
//! the network service included, in a seccomp-bpf filter. As root it refuses to start unless told `--no-sandbox`. CI (`.ci/run`)
//! runs this file as an unprivileged user with `APERTURE_REQUIRE_SANDBOX=1`, so the sandbox
//! half cannot pass by being skipped; as root that half says why it does not apply and the
//! root half runs instead. The windowed variant needs an X server (`DISPLAY`); without one it
//! is skipped, unless `APERTURE_UI_REQUIRE=1` makes that a failure.

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

/// What /proc says about one process of the browser's tree.
#[derive(Debug)]
struct Proc {
    pid: u32,
    ppid: u32,
    /// `--type=` from the command line ("" for the browser process).
    kind: String,
    /// `--utility-sub-type=`, for utilities started by exec.
    sub: String,
    threads: Vec<String>,
    seccomp: String,
    no_new_privs: String,
    /// The vault process (its own argument), which has no `--type=` either.
    vault: bool,
    user_ns: String,
    pid_ns: String,
    net_ns: String,
}

impl Proc {
    fn has_thread(&self, name: &str) -> bool {
        self.threads.iter().any(|t| t == name)
    }
}

fn switch(cmdline: &[u8], name: &str) -> String {
    cmdline
        .split(|b| *b == 0)
        .filter_map(|a| std::str::from_utf8(a).ok())
        .find_map(|a| a.strip_prefix(name))
        .unwrap_or_default()
        .to_string()
}

fn inspect(pid: u32) -> Option<Proc> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .unwrap_or_default()
            .to_string()
    };
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let ns = |n: &str| {
        std::fs::read_link(format!("/proc/{pid}/ns/{n}"))
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    };
    let threads = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
                .map(|c| c.trim_end().to_string())
                .collect()
        })
        .unwrap_or_default();
    Some(Proc {
        pid,
        ppid: field("PPid:").parse().ok()?,
        kind: switch(&cmdline, "--type="),
        sub: switch(&cmdline, "--utility-sub-type="),
        threads,
        seccomp: field("Seccomp:"),
        no_new_privs: field("NoNewPrivs:"),
        vault: cmdline.split(|b| *b == 0).any(|a| a == b"__vault-process"),
        user_ns: ns("user"),
        pid_ns: ns("pid"),
        net_ns: ns("net"),
    })
}

/// Every live process under `root` (itself included), found through the parent links in
/// /proc, so a child that hides its environment (a sandboxed one is not dumpable) is not
/// missed.
fn tree(root: u32) -> Vec<Proc> {
    let all: Vec<Proc> = std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(inspect)
        .collect();
    let mut keep = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for p in &all {
            if !keep.contains(&p.pid) && keep.contains(&p.ppid) {
                keep.push(p.pid);
                grew = true;
            }
        }
    }
    all.into_iter().filter(|p| keep.contains(&p.pid)).collect()
}

/// What one of the browser's processes is for.
///
/// Chromium forks renderers (and some utilities, and on Linux the GPU process) from a zygote
/// without exec, so their /proc cmdline is the zygote's (`--type=zygote`): Chromium would
/// rewrite it with the real `--type=`, but that needs the process's original argv, and CEF
/// is handed a copy of it. What the child runs is then told apart by the threads only that
/// kind of process starts: a renderer's Blink compositor thread is `Compositor`, the GPU
/// process runs viz's `VizCompositorTh` and a `GpuWatchdog`. A zygote itself has one thread.
#[derive(Debug, PartialEq)]
enum Role {
    Browser,
    /// A zygote, or the PID-namespace init the sandboxed zygote runs under: they only fork.
    Zygote,
    Renderer,
    Gpu,
    /// A utility process; the sub-type when it was started by exec, else "forked".
    Utility(String),
    /// Aperture's own vault process (`aperture __vault-process`), confined by the browser
    /// (`app/src/confine.rs`), not by Chromium.
    Vault,
}

fn role(p: &Proc, browser: u32, procs: &[Proc]) -> Role {
    if p.pid == browser {
        return Role::Browser;
    }
    if p.vault {
        return Role::Vault;
    }
    let parent_is_zygote = procs.iter().any(|q| q.pid == p.ppid && q.kind == "zygote");
    match p.kind.as_str() {
        "zygote" if !parent_is_zygote || p.threads.len() == 1 => Role::Zygote,
        // A zygote's fork: what runs in it shows in its threads (see above).
        "zygote" if p.has_thread("Compositor") => Role::Renderer,
        "zygote" if p.has_thread("VizCompositorTh") || p.has_thread("GpuWatchdog") => Role::Gpu,
        "zygote" => Role::Utility("forked".into()),
        "renderer" => Role::Renderer,
        "gpu-process" => Role::Gpu,
        _ => Role::Utility(p.sub.clone()),
    }
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
    children_are_sandboxed(false).await;
}

#[tokio::test]
async fn windowed_the_gpu_process_and_renderers_are_sandboxed_too() {
    if std::env::var_os("DISPLAY").is_none() {
        assert!(
            std::env::var("APERTURE_UI_REQUIRE").as_deref() != Ok("1"),
            "DISPLAY is unset, and APERTURE_UI_REQUIRE=1"
        );
        eprintln!("skipped: DISPLAY is unset (the windowed browser needs an X server)");
        return;
    }
    children_are_sandboxed(true).await;
}

/// Opens two sites and checks every child of the browser against the sandbox it must be in.
async fn children_are_sandboxed(windowed: bool) {
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
    let mut launch = Launch::new(bin()).allow_hosts(["127.0.0.1", "127.0.0.2"]);
    if windowed {
        launch = launch.windowed();
    }
    let browser = launch.start().await;
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
    // The GPU process turns its seccomp policy on itself once GL is up, and is recognised by
    // threads it starts then: on a loaded machine that can be seconds after the pages
    // answered. Look until every child is where it must be; one that never gets there fails
    // with the last look.
    let browser_pid = *browser
        .pids()
        .iter()
        .find(|p| inspect(**p).is_some_and(|p| p.kind.is_empty() && !p.vault))
        .expect("the browser process (no --type=)");
    let last = aperture_testkit::eventually(
        Duration::from_secs(30),
        "every child in its sandbox, a renderer per site and a GPU process",
        async || {
            let (ok, report) = sandboxed(browser_pid);
            (ok, Report(report))
        },
    )
    .await;
    eprintln!("{}", last.0);
}

/// Text shown as is in a failure message.
struct Report(String);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\n{}", self.0)
    }
}

/// Checks every child of `browser_pid` against the sandbox it must be in: whether all are, and
/// every process with its role and every violation.
fn sandboxed(browser_pid: u32) -> (bool, String) {
    let procs = tree(browser_pid);
    let Some(top) = procs.iter().find(|p| p.pid == browser_pid) else {
        return (false, "the browser is not in /proc".into());
    };
    let mut renderers = 0;
    let mut gpus = 0;
    let mut listing = String::new();
    // Every violation, not only the first, so a failure shows the whole picture.
    let mut wrong = Vec::new();
    for p in &procs {
        let r = role(p, browser_pid, &procs);
        listing.push_str(&format!("{r:?} {p:?}\n"));
        let own_namespaces = p.user_ns != top.user_ns && p.pid_ns != top.pid_ns && p.net_ns != top.net_ns;
        match &r {
            Role::Browser | Role::Zygote => {}
            Role::Renderer => {
                renderers += 1;
                if p.seccomp != "2" || !own_namespaces {
                    wrong.push(format!(
                        "renderer {}: Seccomp {} (want 2), user/pid/net namespaces {} {} {} (the browser's: {} {} {})",
                        p.pid, p.seccomp, p.user_ns, p.pid_ns, p.net_ns, top.user_ns, top.pid_ns, top.net_ns
                    ));
                }
            }
            // The GPU process is forked from the unsandboxed zygote and starts its seccomp
            // policy itself once GL is up. Chromium skips the policy, with only a warning,
            // when GL start-up has made threads by then (SwiftShader does:
            // `InitializeSandbox() called with multiple threads in process gpu-process`), so
            // this is where a switch that brings a GL back shows.
            Role::Gpu => {
                gpus += 1;
                if p.seccomp != "2" {
                    wrong.push(format!(
                        "gpu {}: Seccomp {} (want 2), threads {:?}",
                        p.pid, p.seccomp, p.threads
                    ));
                }
            }
            // The network service too, since the browser turns on Chromium's
            // NetworkServiceSandbox (off by default on Linux): its own seccomp policy, with the
            // profile's files reached through the sandbox's broker. Without that feature it
            // runs with Seccomp 0 in the browser's namespaces and fails here.
            // It holds the unlocked vault: its own system-call filter (no sockets, no exec,
            // no reaching into other processes) and no new privileges.
            Role::Vault => {
                if p.seccomp != "2" || p.no_new_privs != "1" {
                    wrong.push(format!(
                        "vault process {}: Seccomp {} (want 2), NoNewPrivs {} (want 1)",
                        p.pid, p.seccomp, p.no_new_privs
                    ));
                }
            }
            Role::Utility(sub) => {
                if p.seccomp != "2" {
                    wrong.push(format!(
                        "utility {} ({sub}): Seccomp {} (want 2)",
                        p.pid, p.seccomp
                    ));
                }
            }
        }
    }
    // Two sites, so site isolation gives two renderers at least.
    if renderers < 2 {
        wrong.push(format!("expected a renderer per site (2), found {renderers}"));
    }
    // Software compositing still runs viz in a GPU process: had it gone unrecognised (its
    // threads renamed), the checks above would have passed it by.
    if gpus < 1 {
        wrong.push("no GPU process recognised (VizCompositorTh/GpuWatchdog threads)".into());
    }
    let ok = wrong.is_empty();
    (
        ok,
        format!(
            "{listing}children outside the sandbox or missing:\n{}",
            wrong.join("\n")
        ),
    )
}
