//! Shared helpers for the integration tests: a local HTTP server and a real `aperture`
//! process driven through `--script -`.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn corpus_dir() -> PathBuf {
    let d = repo_root().join("../shared/corpus/pages");
    assert!(
        d.is_dir(),
        "the page corpus is missing at {} (shared/ must sit beside the repo)",
        d.display()
    );
    d
}

/// The CEF runtime the tests run against; fails loudly (never skips) when it is missing.
pub fn cef_dir() -> PathBuf {
    let d = cef_sys_build::default_runtime_dir().expect("cache dir");
    assert!(
        cef_sys_build::is_installed(&d),
        "no CEF runtime at {}: run the suite with `cargo xtask test` (it provisions CEF)",
        d.display()
    );
    d
}

/// A static HTTP server on 127.0.0.1 with in-memory routes and an optional directory.
pub struct Server {
    pub base: String,
    /// Paths requested so far, in order.
    pub log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    _thread: std::thread::JoinHandle<()>,
}

impl Server {
    pub fn start(routes: HashMap<String, String>, dir: Option<PathBuf>) -> Server {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind");
        let port = server.server_addr().to_ip().unwrap().port();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log2 = log.clone();
        let t = std::thread::spawn(move || {
            for req in server.incoming_requests() {
                let path = req.url().split('?').next().unwrap_or("/").to_string();
                log2.lock().unwrap().push(path.clone());
                let html = tiny_http::Header::from_bytes("Content-Type", "text/html; charset=utf-8").unwrap();
                if let Some(body) = routes.get(&path) {
                    let _ = req.respond(tiny_http::Response::from_string(body.clone()).with_header(html));
                    continue;
                }
                if let Some(d) = &dir {
                    let f = d.join(path.trim_start_matches('/'));
                    if f.is_file() && f.starts_with(d) {
                        let bytes = std::fs::read(&f).unwrap_or_default();
                        let _ = req.respond(tiny_http::Response::from_data(bytes).with_header(html));
                        continue;
                    }
                }
                let _ = req.respond(tiny_http::Response::from_string("not found").with_status_code(404));
            }
        });
        Server {
            base: format!("http://127.0.0.1:{port}"),
            log,
            _thread: t,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

/// A running `aperture --headless --script -`, tagged so its processes can be found.
pub struct Browser {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub tag: String,
    pub profile: PathBuf,
}

pub fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_aperture")
}

impl Browser {
    pub fn start() -> Browser {
        Self::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Browser {
        let tag = format!("aperture-test-{}-{}", std::process::id(), rand_suffix());
        let profile = std::env::temp_dir().join(&tag);
        let mut child = Command::new(exe())
            .args(["--headless", "--script", "-", "--profile"])
            .arg(&profile)
            .args(extra)
            .env("APERTURE_TEST_TAG", &tag)
            .env(cef_sys_build::ENV_DIR, cef_dir())
            .env_remove("DISPLAY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn aperture");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut b = Browser {
            child,
            stdin,
            lines: rx,
            tag,
            profile,
        };
        let ready = b.read(Duration::from_secs(60));
        assert_eq!(ready["ready"], true, "browser did not start: {ready}");
        b
    }

    fn read(&mut self, timeout: Duration) -> Value {
        let l = self
            .lines
            .recv_timeout(timeout)
            .unwrap_or_else(|_| panic!("no answer within {timeout:?}"));
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}"))
    }

    /// Sends one command and returns its answer.
    pub fn cmd(&mut self, v: Value) -> Value {
        writeln!(self.stdin, "{v}").expect("write command");
        self.stdin.flush().unwrap();
        // Generous: a navigation may take NAV_TIMEOUT and a walk two RPC_TIMEOUTs on a
        // loaded 2-core machine before the browser itself answers with an error.
        self.read(Duration::from_secs(120))
    }

    /// Sends a command without waiting; its answer is the next line read.
    pub fn cmd_async(&mut self, v: Value) {
        writeln!(self.stdin, "{v}").expect("write command");
        self.stdin.flush().unwrap();
    }

    /// Reads the next answer.
    pub fn answer(&mut self) -> Value {
        self.read(Duration::from_secs(60))
    }

    /// Sends a command that must succeed.
    pub fn ok(&mut self, v: Value) -> Value {
        let r = self.cmd(v.clone());
        assert_eq!(r["ok"], true, "command {v} failed: {r}");
        r
    }

    pub fn open(&mut self, url: &str) -> i64 {
        self.ok(serde_json::json!({"cmd": "open", "url": url}))["tab"]
            .as_i64()
            .unwrap()
    }

    pub fn walk(&mut self, tab: i64) -> Value {
        self.ok(serde_json::json!({"cmd": "walk", "tab": tab}))["walk"].clone()
    }

    /// PIDs of every live process carrying this browser's tag (the browser and its children).
    pub fn pids(&self) -> Vec<u32> {
        tagged_pids(&self.tag)
    }

    pub fn quit(mut self) -> std::process::ExitStatus {
        let _ = writeln!(self.stdin, "{}", serde_json::json!({"cmd": "quit"}));
        wait_exit(&mut self.child, Duration::from_secs(20))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for p in tagged_pids(&self.tag) {
            let _ = Command::new("kill").arg("-9").arg(p.to_string()).status();
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

pub fn wait_exit(child: &mut Child, timeout: Duration) -> std::process::ExitStatus {
    let t = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t.elapsed() < timeout, "process did not exit within {timeout:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Live (non-zombie) processes whose environment carries `APERTURE_TEST_TAG=tag`.
pub fn tagged_pids(tag: &str) -> Vec<u32> {
    let needle = format!("APERTURE_TEST_TAG={tag}");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if !env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("");
        if state != "Z" && state != "X" {
            out.push(pid);
        }
    }
    out
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    );
    h.finish()
}

/// Nodes of a walk as a slice.
pub fn nodes(walk: &Value) -> &Vec<Value> {
    walk["nodes"].as_array().expect("nodes")
}

/// The first node matching a predicate, or a panic naming what was looked for.
pub fn find<'a>(walk: &'a Value, what: &str, f: impl Fn(&Value) -> bool) -> &'a Value {
    nodes(walk)
        .iter()
        .find(|n| f(n))
        .unwrap_or_else(|| panic!("no node {what} in walk: {}", short(walk)))
}

pub fn short(walk: &Value) -> String {
    let s = walk.to_string();
    s.chars().take(3000).collect()
}

/// Center of a node's bounds.
pub fn center(n: &Value) -> (f64, f64) {
    let b = &n["bounds"];
    (
        b["x"].as_f64().unwrap() + b["w"].as_f64().unwrap() / 2.0,
        b["y"].as_f64().unwrap() + b["h"].as_f64().unwrap() / 2.0,
    )
}
pub mod mcp;
