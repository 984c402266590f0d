//! Start-up survives ordinary failures: a start page that hangs or fails, a busy MCP port, a
//! profile already in use. Each runs the real binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    std::env::var_os("APERTURE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_aperture")))
}

/// The test's scratch directory, removed when the test ends (declared before the browser it
/// holds, so the browser is gone first).
fn tmp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("aperture-startup-{name}-"))
        .tempdir()
        .unwrap()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running browser whose stdout and stderr lines are collected.
struct Running {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
    err_seen: Vec<String>,
    profile: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Killed, Chromium leaves its singleton directory in /tmp.
        aperture_common::fs::remove_chromium_singleton(&self.profile);
    }
}

fn lines(r: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

fn start(profile: &Path, args: &[&str]) -> Running {
    let mut child = aperture_testkit::browser_command(bin())
        .args(["--headless", "--profile"])
        .arg(profile)
        .args(args)
        // mcp.json and settings of this run stay in the test's directory.
        .env("XDG_CONFIG_HOME", profile.join("config"))
        .env("XDG_DATA_HOME", profile.join("data"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start aperture");
    let out = lines(child.stdout.take().unwrap());
    let err = lines(child.stderr.take().unwrap());
    Running {
        child,
        out,
        err,
        err_seen: Vec::new(),
        profile: profile.to_path_buf(),
    }
}

impl Running {
    /// The bearer token from the `claude mcp add` line, once MCP is serving.
    fn token(&mut self, within: Duration) -> String {
        let line = self
            .out
            .recv_timeout(within)
            .expect("the browser printed no `claude mcp add` line");
        line.split_once("Authorization: Bearer ")
            .map(|(_, t)| t.trim_end_matches('"').to_string())
            .unwrap_or_else(|| panic!("not a claude line: {line}"))
    }

    /// Waits for a stderr line containing `needle`.
    fn stderr_until(&mut self, needle: &str, within: Duration) -> String {
        let end = Instant::now() + within;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.err.recv_timeout(left) {
                Ok(l) => {
                    self.err_seen.push(l.clone());
                    if l.contains(needle) {
                        return l;
                    }
                }
                Err(_) => break,
            }
        }
        panic!(
            "no stderr line with {needle:?}; saw:\n{}",
            self.err_seen.join("\n")
        );
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

/// An MCP `initialize` over raw HTTP: the status code.
fn mcp_initialize(port: u16, token: &str) -> u16 {
    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect to MCP");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{INIT}",
        INIT.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]);
    head.split_whitespace().nth(1).unwrap_or("0").parse().unwrap_or(0)
}

#[test]
fn mcp_is_served_before_a_hanging_start_page_loads() {
    // A server that accepts and never answers: the first page never finishes loading.
    let hang = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/", hang.local_addr().unwrap().port());
    let held = std::thread::spawn(move || {
        let conns: Vec<_> = hang.incoming().take(2).collect();
        std::thread::sleep(Duration::from_secs(60));
        drop(conns);
    });
    let scratch = tmp("hang");
    let dir = scratch.path();
    let port = free_port();
    let mut b = start(dir, &["--mcp-port", &port.to_string(), &url]);
    let token = b.token(Duration::from_secs(60));
    assert_eq!(
        mcp_initialize(port, &token),
        200,
        "MCP must answer while the start page hangs"
    );
    assert!(b.alive());
    drop(held);
}

#[test]
fn a_start_page_that_fails_leaves_the_browser_serving() {
    // Nothing listens on this port: the first load fails with a connection error.
    let closed = free_port();
    let scratch = tmp("fail");
    let dir = scratch.path();
    let port = free_port();
    let mut b = start(
        dir,
        &[
            "--mcp-port",
            &port.to_string(),
            &format!("http://127.0.0.1:{closed}/"),
        ],
    );
    let token = b.token(Duration::from_secs(60));
    let said = b.stderr_until("the first tab", Duration::from_secs(60));
    assert!(said.contains("could not load"), "{said}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(b.alive(), "the browser exited after its start page failed");
    assert_eq!(mcp_initialize(port, &token), 200);
}

#[test]
fn a_busy_mcp_port_is_reported_once_before_chromium_starts() {
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let scratch = tmp("busy");
    let dir = scratch.path();
    let profile = dir.join("profile");
    let out = aperture_testkit::browser_command(bin())
        .args(["--headless", "--profile"])
        .arg(&profile)
        .args(["--mcp-port", &port.to_string(), "about:blank"])
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .output()
        .expect("run aperture");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("is not available").count(), 1, "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    // Chromium never started: it would have created its profile files.
    assert!(!profile.join("Local State").exists(), "Chromium started anyway");
    assert!(!profile.join("cef.log").exists(), "Chromium started anyway");
}

#[test]
fn a_profile_in_use_names_the_process_that_holds_it() {
    let scratch = tmp("inuse");
    let dir = scratch.path();
    let mut first = start(dir, &["--mcp-port", "0", "about:blank"]);
    first.stderr_until("aperture: tab", Duration::from_secs(60));
    let out = aperture_testkit::browser_command(bin())
        .args(["--headless", "--profile"])
        .arg(dir)
        .args(["--mcp-port", "0", "about:blank"])
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .output()
        .expect("run aperture");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("in use by aperture (pid {})", first.child.id())),
        "{err}"
    );
    assert!(first.alive(), "the first browser was disturbed");
}

/// Serves one page and reports each path requested.
fn page_server() -> (u16, Receiver<String>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for mut s in l.incoming().map_while(Result::ok) {
            let mut buf = [0u8; 2048];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = req.split_whitespace().nth(1).unwrap_or("").to_string();
            let body = "<title>handed</title><p>handed over";
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = tx.send(path);
        }
    });
    (port, rx)
}

#[test]
fn a_second_windowed_launch_opens_its_page_in_the_running_window() {
    if std::env::var_os("DISPLAY").is_none() {
        assert!(
            std::env::var("APERTURE_UI_REQUIRE").as_deref() != Ok("1"),
            "DISPLAY is unset, and APERTURE_UI_REQUIRE=1"
        );
        eprintln!("skipped: DISPLAY is unset");
        return;
    }
    let scratch = tmp("handover");
    let dir = scratch.path();
    let (port, paths) = page_server();
    let run = |args: &[&str]| {
        aperture_testkit::browser_command(bin())
            .arg("--profile")
            .arg(dir)
            .args(args)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start aperture")
    };
    let mut first = run(&["--mcp-port", "0", "about:blank"]);
    let first_err = lines(first.stderr.take().unwrap());
    // The window is up once its lock is taken and the socket listens.
    let sock = dir.join("aperture.sock");
    let end = Instant::now() + Duration::from_secs(60);
    while !sock.exists() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        sock.exists(),
        "the first window never listened for other launches"
    );
    let url = format!("http://127.0.0.1:{port}/handed");
    let second = run(&[&url]).wait_with_output().expect("second launch");
    let said = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(0), "{said}");
    assert!(said.contains("already running on this profile"), "{said}");
    let got = paths.recv_timeout(Duration::from_secs(30));
    let _ = first.kill();
    let _ = first.wait();
    aperture_common::fs::remove_chromium_singleton(dir);
    let seen: Vec<String> = first_err.try_iter().collect();
    assert_eq!(
        got.as_deref(),
        Ok("/handed"),
        "the running window did not open the page; its stderr:\n{}",
        seen.join("\n")
    );
}

#[test]
fn chromium_log_lines_go_to_the_profile_not_the_terminal() {
    let scratch = tmp("chromelog");
    let dir = scratch.path();
    let page = dir.join("p.html");
    std::fs::write(&page, "<title>t</title><p>hi").unwrap();
    let out = aperture_testkit::browser_command(bin())
        .args(["--headless", "--profile"])
        .arg(dir)
        // Verbose logging makes Chromium print on every machine, DBus or not.
        .args(["--chromium-switch", "v=1", "--walk"])
        .arg(format!("file://{}", page.display()))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .output()
        .expect("run aperture");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let chromium = |l: &&str| {
        l.starts_with('[')
            && l.split(':')
                .nth(3)
                .is_some_and(|lvl| lvl.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    let leaked: Vec<&str> = err.lines().filter(chromium).collect();
    assert!(
        leaked.is_empty(),
        "Chromium's lines reached the terminal:\n{}",
        leaked.join("\n")
    );
    let log = std::fs::read_to_string(dir.join("chromium.log")).expect("chromium.log");
    assert!(
        log.lines().filter(|l| chromium(l)).count() > 0,
        "chromium.log has no Chromium lines"
    );
}

/// Chromium keeps its singleton socket in a directory of its own in /tmp and removes it only
/// on a clean exit. A killed browser's directory goes the next time the profile is used, rather
/// than staying until a reboot (one per crash).
#[test]
fn a_killed_browsers_directory_in_tmp_goes_when_the_profile_is_used_again() {
    let scratch = tmp("singleton");
    let dir = scratch.path();
    let socket_dir = || -> PathBuf {
        let link = aperture_testkit::eventually_blocking(
            Duration::from_secs(60),
            "Chromium's SingletonSocket link",
            || {
                let t = std::fs::read_link(dir.join("SingletonSocket"));
                (t.is_ok(), t.ok())
            },
        );
        link.unwrap().parent().expect("a directory").to_path_buf()
    };
    let mut first = start(dir, &["--mcp-port", "0", "about:blank"]);
    first.stderr_until("aperture: tab", Duration::from_secs(60));
    let stale = socket_dir();
    assert!(stale.join("SingletonSocket").exists(), "{}", stale.display());
    // SIGKILL, with no clean exit, and without the harness's own clean-up.
    let _ = first.child.kill();
    let _ = first.child.wait();
    std::mem::forget(first);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        stale.exists(),
        "the killed browser's directory is expected to stay"
    );
    let mut second = start(dir, &["--mcp-port", "0", "about:blank"]);
    second.stderr_until("aperture: tab", Duration::from_secs(60));
    assert!(
        !stale.exists(),
        "{} stayed after the profile was used again",
        stale.display()
    );
    assert_ne!(socket_dir(), stale);
    // Dropping `second` kills it and removes its directory.
    drop(second);
}

/// Every file the browser and Chromium leave in the profile is the owner's alone, including
/// those Chromium creates with the umask's mode while it runs (its log, `Visited Links`).
#[test]
fn a_profile_is_private_while_running_and_after_a_clean_exit() {
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = tmp("private");
    let dir = scratch.path();
    let (port, paths) = page_server();
    let url = format!("http://127.0.0.1:{port}/visited");
    let mcp = free_port().to_string();
    let mut b = start(dir, &["--mcp-port", &mcp, &url]);
    b.token(Duration::from_secs(60));
    paths
        .recv_timeout(Duration::from_secs(30))
        .expect("the start page was requested");
    let log = dir.join("cef.log");
    let mode = |p: &Path| p.symlink_metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&log), 0o600, "cef.log while running");
    std::thread::sleep(Duration::from_secs(2));
    let pid = b.child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let end = Instant::now() + Duration::from_secs(30);
    while b.alive() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!b.alive(), "the browser did not exit on SIGTERM");
    let mut open = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let m = e.path().symlink_metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else if !m.is_file() {
                continue;
            }
            if m.permissions().mode() & 0o077 != 0 {
                open.push(format!(
                    "{:o} {}",
                    m.permissions().mode() & 0o777,
                    e.path().display()
                ));
            }
        }
    }
    assert!(open.is_empty(), "readable by others:\n{}", open.join("\n"));
}
