//! `aperture mcp` (what a stdio-only agent host runs) reaches the browser already running on
//! the profile, or starts a headless one when none does, and the profile's MCP token outlives
//! a restart so a host is registered once.

use aperture_testkit::{Launch, McpBrowser, Server};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn bin() -> std::path::PathBuf {
    std::env::var_os("APERTURE_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_aperture").into())
}

/// `aperture mcp --profile DIR` as a host spawns it, speaking JSON-RPC lines on its stdio.
struct Stdio_ {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: std::path::PathBuf,
    next_id: u64,
    tag: String,
}

impl Stdio_ {
    fn spawn(profile: &Path, config_home: &Path, scratch: &Path) -> Stdio_ {
        let stderr = scratch.join("bridge-stderr.log");
        let tag = aperture_testkit::unique_tag("bridge");
        let mut child = Command::new(bin())
            .arg("mcp")
            .args(aperture_testkit::sandbox_args())
            .arg("--profile")
            .arg(profile)
            .env("XDG_CONFIG_HOME", config_home)
            .env(cef_sys_build_env(), aperture_testkit::cef_dir())
            .env_remove("DISPLAY")
            .env("APERTURE_TEST_TAG", &tag)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("spawn aperture mcp");
        let out: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Stdio_ {
            child,
            stdin,
            lines,
            stderr,
            next_id: 1,
            tag,
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn send(&mut self, v: Value) {
        let s = self.stdin.as_mut().expect("stdin open");
        writeln!(s, "{v}").unwrap();
        s.flush().unwrap();
    }

    /// Sends a request and waits for the answer with its id (every line must be JSON).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no answer to {method}; stderr:\n{}", self.stderr()));
            let v: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bridge-test", "version": "1"}}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    fn call(&mut self, tool: &str, args: Value) -> String {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        r["result"]["content"]
            .as_array()
            .unwrap_or_else(|| panic!("{tool}: {r}"))
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Closes stdin (the host went away) and waits for a clean exit.
    fn finish(mut self) {
        drop(self.stdin.take());
        let t = std::time::Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                assert!(s.success(), "aperture mcp exited {s}; stderr:\n{}", self.stderr());
                return;
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "aperture mcp did not exit after stdin closed; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Stdio_ {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        aperture_testkit::kill_tagged(&self.tag);
    }
}

fn cef_sys_build_env() -> &'static str {
    "APERTURE_CEF_DIR"
}

async fn launch(profile: &Path, extra: &[&str]) -> McpBrowser {
    Launch::new(bin())
        .profile(profile)
        .args(extra.iter().copied())
        .start()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stdio_host_drives_the_browser_already_running_on_the_profile() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let server =
        Server::page("<!doctype html><title>Bridged page</title><h1>Hello from the running browser</h1>");
    let page = server.url("/");
    let browser = launch(&profile, &[&page]).await;

    let mut host = Stdio_::spawn(&profile, &browser.config_home, scratch.path());
    let init = host.initialize();
    assert_eq!(
        init["result"]["serverInfo"]["name"]
            .as_str()
            .map(|n| n.contains("aperture")),
        Some(true),
        "{init}"
    );
    // The running browser's own tab is there: this is the human's browser, not a second one.
    // (The start page may still be loading when the listener is up.)
    let t = std::time::Instant::now();
    let tabs = loop {
        let tabs = host.call("browser_tabs", json!({"action": "list"}));
        if tabs.contains("Bridged page") || t.elapsed() > Duration::from_secs(30) {
            break tabs;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(tabs.contains("Bridged page"), "{tabs}");
    let err = host.stderr();
    assert!(
        err.contains("bridging MCP on stdio to the browser already running"),
        "{err}"
    );
    assert!(!err.contains("starting a headless one"), "{err}");
    // A whole act-and-observe round trip goes through the bridge.
    let snap = host.call("browser_snapshot", json!({}));
    assert!(snap.contains("Hello from the running browser"), "{snap}");
    host.finish();
    // The browser is still up for the human after the host left.
    let c = browser.connect().await;
    let r = aperture_testkit::mcp::call(&c, "browser_tabs", json!({"action": "list"})).await;
    assert!(aperture_testkit::mcp::text(&r).contains("Bridged page"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_running_browser_it_starts_a_headless_one_and_says_so() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let config = scratch.path().join("config");
    let mut host = Stdio_::spawn(&profile, &config, scratch.path());
    host.initialize();
    let tabs = host.call("browser_tabs", json!({"action": "list"}));
    assert!(!tabs.is_empty());
    let err = host.stderr();
    assert!(err.contains("no browser is running on the profile"), "{err}");
    assert!(err.contains("starting a headless one"), "{err}");
    host.finish();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_profile_keeps_its_token_across_a_restart() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let first = launch(&profile, &[]).await;
    let token = first.token().to_string();
    drop(first);
    let second = launch(&profile, &[]).await;
    assert_eq!(second.token(), token, "a host registered once must keep working");
    // The old registration connects.
    let c = aperture_testkit::mcp::try_connect(second.url(), Some(&token)).await;
    assert!(c.is_ok(), "the remembered token was refused");
    drop(second);
    // Rotating on request.
    let third = launch(&profile, &["--mcp-new-token"]).await;
    assert_ne!(third.token(), token);
    assert!(
        aperture_testkit::mcp::try_connect(third.url(), Some(&token))
            .await
            .is_err()
    );
}

/// The port a profile remembers is taken when it starts (another program, or one waiting on it
/// for an agent host's bearer token): the listener moves, and its token changes with it, so
/// hosts still holding the old address hand the squatter a token that opens nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_listener_that_had_to_move_gets_a_new_token() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let first = launch(&profile, &[]).await;
    let (old_url, token) = (first.url().to_string(), first.token().to_string());
    let port = old_url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse::<u16>().ok())
        .unwrap_or_else(|| panic!("a port in {old_url}"));
    drop(first);
    // Its own run again, on the port it remembers: the same address and token.
    let again = Launch::new(bin())
        .profile(&profile)
        .remembered_port()
        .start()
        .await;
    assert_eq!((again.url(), again.token()), (old_url.as_str(), token.as_str()));
    drop(again);
    // Someone else holds the port now.
    let squatter = std::net::TcpListener::bind(("127.0.0.1", port)).expect("the old port, free again");
    let moved = Launch::new(bin())
        .profile(&profile)
        .remembered_port()
        .start()
        .await;
    assert_ne!(moved.url(), old_url);
    assert_ne!(
        moved.token(),
        token,
        "the old token would open the moved listener"
    );
    assert!(
        aperture_testkit::mcp::try_connect(moved.url(), Some(&token))
            .await
            .is_err()
    );
    assert!(
        aperture_testkit::mcp::try_connect(moved.url(), Some(moved.token()))
            .await
            .is_ok()
    );
    let said = moved.stderr();
    assert!(said.contains("its bearer token is new too"), "{said}");
    drop(squatter);
}
