//! Helpers of the app's integration tests: a real `aperture` process driven through
//! `--script -`, and walk accessors. What other crates' tests share too (the fixture server,
//! the page corpus, launching with MCP, the MCP client) lives in `aperture-testkit`.

#![allow(dead_code)]

pub use aperture_testkit::{Server, cef_dir, tagged_pids, unique_tag, wait_exit};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `aperture --headless --script -`, tagged so its processes can be found.
pub struct Browser {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub tag: String,
    pub profile: PathBuf,
    /// Left on disk when dropped (a test that restarts the browser on one profile).
    pub keep_profile: bool,
}

pub fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_aperture")
}

impl Browser {
    pub fn start() -> Browser {
        Self::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Browser {
        let tag = unique_tag("aperture-test");
        let profile = std::env::temp_dir().join(&tag);
        Self::start_in(profile, false, extra)
    }

    /// Starts on `profile`; when `keep`, the profile outlives this browser (the caller removes
    /// it).
    pub fn start_in(profile: PathBuf, keep: bool, extra: &[&str]) -> Browser {
        let tag = unique_tag("aperture-test");
        let mut child = aperture_testkit::browser_command(exe())
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
            keep_profile: keep,
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
        if !self.keep_profile {
            let _ = std::fs::remove_dir_all(&self.profile);
        }
    }
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
