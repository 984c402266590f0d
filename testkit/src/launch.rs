//! Launching the real browser with an MCP listener, and finding its endpoint and token.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::mcp::{self, Client};
use crate::procs::{kill_tagged, tagged_pids, unique_tag};

/// The CEF runtime the browser runs against (`$APERTURE_CEF_DIR`, else the per-user cache);
/// fails loudly, never skips, when it is missing.
pub fn cef_dir() -> PathBuf {
    let d = cef_sys_build::default_runtime_dir().expect("a cache directory (HOME or XDG_CACHE_HOME)");
    assert!(
        cef_sys_build::is_installed(&d),
        "no CEF runtime at {}: run the suite with `cargo xtask test` (it provisions CEF)",
        d.display()
    );
    d
}

/// Where a browser started with `XDG_CONFIG_HOME=config_home` writes its `mcp.json`
/// (`aperture_mcp::config::config_dir`, i.e. `$XDG_CONFIG_HOME/aperture`). Not read through
/// that function: it looks at this process's environment, and each launch has its own.
pub fn mcp_json_path(config_home: &Path) -> PathBuf {
    config_home.join("aperture").join("mcp.json")
}

/// An MCP listener as a client finds it in `mcp.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The bearer token (without `Bearer `).
    pub token: String,
}

impl Endpoint {
    /// `127.0.0.1:PORT`: what a raw HTTP request connects to and names as `Host`.
    pub fn host_port(&self) -> &str {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or_default()
    }
}

/// The endpoint in `config_home`'s `mcp.json`, if the file is there and complete. The browser
/// writes it (atomically) once its listener is up.
pub fn read_endpoint(config_home: &Path) -> Option<Endpoint> {
    let bytes = std::fs::read(mcp_json_path(config_home)).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    // `aperture` for the default profile, `aperture-<dir>` for the others (tests use their
    // own config home, so there is one entry).
    let server = v["mcpServers"]
        .as_object()?
        .iter()
        .find(|(k, _)| k.starts_with("aperture"))
        .map(|(_, s)| s)?;
    let token = server["headers"]["Authorization"]
        .as_str()?
        .strip_prefix("Bearer ")?;
    Some(Endpoint {
        url: server["url"].as_str()?.to_string(),
        token: token.to_string(),
    })
}

/// Waits until `config_home`'s `mcp.json` names an endpoint; panics after `timeout`.
pub async fn wait_endpoint(config_home: &Path, timeout: Duration) -> Endpoint {
    let t = Instant::now();
    loop {
        if let Some(e) = read_endpoint(config_home) {
            return e;
        }
        assert!(
            t.elapsed() < timeout,
            "no mcp.json at {} within {timeout:?}",
            mcp_json_path(config_home).display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How to start `aperture --headless --mcp-port PORT --allow-host 127.0.0.1 --profile DIR`:
/// a fresh temporary profile (unless [`Launch::profile`] names one) and a config dir of its own
/// (`XDG_CONFIG_HOME`), so parallel tests never read each other's `mcp.json`.
#[must_use]
pub struct Launch {
    bin: PathBuf,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    profile: Option<PathBuf>,
    timeout: Duration,
    windowed: bool,
    allow_hosts: Vec<String>,
    /// Leave out `--mcp-port`: the browser takes the port its profile remembers.
    remembered_port: bool,
}

impl Launch {
    /// Launches `bin`. App tests pass `env!("CARGO_BIN_EXE_aperture")`.
    pub fn new(bin: impl Into<PathBuf>) -> Launch {
        Launch {
            bin: bin.into(),
            args: Vec::new(),
            envs: Vec::new(),
            profile: None,
            // Generous: the first start on a loaded 2-core machine builds the blocking engine.
            timeout: Duration::from_secs(120),
            windowed: false,
            allow_hosts: vec!["127.0.0.1".into()],
            remembered_port: false,
        }
    }

    /// Runs the windowed browser on the test's `DISPLAY` (an X server such as Xvfb) instead
    /// of headless, with its settings in the test's own config directory.
    pub fn windowed(mut self) -> Launch {
        self.windowed = true;
        self
    }

    /// Starts without `--mcp-port`, so the browser listens where its profile last did (the
    /// profile must have run before, or it takes the default port).
    pub fn remembered_port(mut self) -> Launch {
        self.remembered_port = true;
        self
    }

    /// Replaces the default `--allow-host 127.0.0.1` (every port of it) with these specs, for
    /// tests of the navigation policy itself.
    pub fn allow_hosts<S: Into<String>>(mut self, specs: impl IntoIterator<Item = S>) -> Launch {
        self.allow_hosts = specs.into_iter().map(Into::into).collect();
        self
    }

    /// Launches the binary `$APERTURE_BIN` names (what `cargo xtask test` sets for crates that
    /// cannot name the binary themselves), or `None` when it is unset.
    pub fn from_env() -> Option<Launch> {
        std::env::var_os("APERTURE_BIN").map(Launch::new)
    }

    /// [`Launch::from_env`], else the binary at `bin` (a test passes its crate's
    /// `env!("CARGO_BIN_EXE_aperture")`).
    pub fn from_env_or(bin: &str) -> Launch {
        Launch::from_env().unwrap_or_else(|| Launch::new(bin))
    }

    /// One more command-line argument (after the defaults).
    pub fn arg(mut self, a: impl Into<OsString>) -> Launch {
        self.args.push(a.into());
        self
    }

    /// More command-line arguments (after the defaults).
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Launch {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// One more environment variable for the browser.
    pub fn env(mut self, k: impl Into<OsString>, v: impl Into<OsString>) -> Launch {
        self.envs.push((k.into(), v.into()));
        self
    }

    /// Runs in this profile directory (which the test owns and cleans up) instead of a fresh
    /// temporary one.
    pub fn profile(mut self, dir: impl Into<PathBuf>) -> Launch {
        self.profile = Some(dir.into());
        self
    }

    /// Starts the browser and waits for its `mcp.json`. Panics, with the browser's stderr,
    /// when it exits first or does not get there in time.
    pub async fn start(self) -> McpBrowser {
        let scratch = tempfile::Builder::new()
            .prefix("aperture-testkit-")
            .tempdir()
            .expect("a scratch dir");
        let profile = self
            .profile
            .clone()
            .unwrap_or_else(|| scratch.path().join("profile"));
        let config_home = scratch.path().join("config");
        let stdout = scratch.path().join("stdout.log");
        let stderr = scratch.path().join("stderr.log");
        let tag = unique_tag("aperture-testkit");
        let mut attempt = 0;
        let (child, endpoint) = loop {
            attempt += 1;
            // The browser binds the port itself; one that was free a moment ago almost always
            // still is, and the real address is read back from mcp.json anyway. When another
            // process took it meanwhile (the parallel tests' browsers open connections from
            // ephemeral ports), the browser says so and exits, and another port is tried.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free loopback port")
                .port();
            let mut cmd = crate::sandbox::browser_command(&self.bin);
            if !self.windowed {
                cmd.arg("--headless")
                    // Headless must not need (or touch) a display, even when the test has one.
                    .env_remove("DISPLAY")
                    .env_remove("WAYLAND_DISPLAY");
            }
            if !self.remembered_port {
                cmd.args(["--mcp-port", &port.to_string()]);
            }
            for h in &self.allow_hosts {
                cmd.args(["--allow-host", h]);
            }
            cmd.arg("--profile")
                .arg(&profile)
                .args(&self.args)
                .env("XDG_CONFIG_HOME", &config_home)
                .env("APERTURE_TEST_TAG", &tag)
                .env(cef_sys_build::ENV_DIR, cef_dir())
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(&stdout).expect("stdout log"))
                .stderr(std::fs::File::create(&stderr).expect("stderr log"));
            for (k, v) in &self.envs {
                cmd.env(k, v);
            }
            let mut child = cmd
                .spawn()
                .unwrap_or_else(|e| panic!("spawn {}: {e}", self.bin.display()));
            let said = || std::fs::read_to_string(&stderr).unwrap_or_default();
            let t = Instant::now();
            let found = loop {
                if let Some(e) = read_endpoint(&config_home) {
                    break Some(e);
                }
                if let Ok(Some(status)) = child.try_wait() {
                    let text = said();
                    if attempt < 3 && text.contains("is not available (Address already in use") {
                        break None;
                    }
                    panic!(
                        "{} exited ({status}) before writing mcp.json; stderr:\n{text}",
                        self.bin.display()
                    );
                }
                if t.elapsed() > self.timeout {
                    panic!(
                        "no mcp.json at {} within {:?}; stderr:\n{}",
                        mcp_json_path(&config_home).display(),
                        self.timeout,
                        said()
                    );
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            };
            if let Some(e) = found {
                break (child, e);
            }
        };
        McpBrowser {
            child,
            endpoint,
            profile,
            config_home,
            stderr,
            tag,
            _scratch: scratch,
        }
    }
}

/// A running headless browser serving MCP. Dropping it kills the browser and every process it
/// started, and removes its scratch dir (profile, config, logs).
pub struct McpBrowser {
    child: Child,
    endpoint: Endpoint,
    /// The profile directory it runs in.
    pub profile: PathBuf,
    /// Its `XDG_CONFIG_HOME` (where `aperture/mcp.json` is).
    pub config_home: PathBuf,
    stderr: PathBuf,
    tag: String,
    _scratch: tempfile::TempDir,
}

impl McpBrowser {
    /// The endpoint and token from its `mcp.json`.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.endpoint.url
    }

    /// The bearer token.
    pub fn token(&self) -> &str {
        &self.endpoint.token
    }

    /// A fresh MCP session with the bearer token.
    pub async fn connect(&self) -> Client {
        mcp::connect(&self.endpoint.url, &self.endpoint.token).await
    }

    /// What the browser has written to stderr so far (for failure messages).
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// PIDs of the browser and every live process it started.
    pub fn pids(&self) -> Vec<u32> {
        tagged_pids(&self.tag)
    }

    /// Asks the browser to quit as a desktop session's end or `kill` does (SIGTERM), and waits
    /// up to `timeout` for it to exit; its exit status.
    pub fn terminate(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        crate::procs::wait_exit(&mut self.child, timeout)
    }
}

impl Drop for McpBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        kill_tagged(&self.tag);
        // Killed, Chromium leaves its singleton directory in /tmp (a clean quit removes it).
        aperture_common::fs::remove_chromium_singleton(&self.profile);
    }
}

/// A headless browser whose agent may visit the loopback fixture servers (`127.0.0.1`): how
/// most real-browser tests start one. `bin` as for [`Launch::from_env_or`].
pub async fn local_browser(bin: &str) -> McpBrowser {
    Launch::from_env_or(bin).allow_hosts(["127.0.0.1"]).start().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_read_from_the_file_the_browser_writes() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(read_endpoint(home.path()), None, "no file yet");
        let path = mcp_json_path(home.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{\"mcpServers\": {").unwrap();
        assert_eq!(read_endpoint(home.path()), None, "a torn file is not an endpoint");
        // The shape `aperture_mcp::config::mcp_json` writes.
        std::fs::write(
            &path,
            r#"{"mcpServers":{"aperture":{"type":"http","url":"http://127.0.0.1:8817/mcp",
               "headers":{"Authorization":"Bearer abc123"}}}}"#,
        )
        .unwrap();
        let e = read_endpoint(home.path()).expect("endpoint");
        assert_eq!(e.url, "http://127.0.0.1:8817/mcp");
        assert_eq!(e.token, "abc123");
        assert_eq!(e.host_port(), "127.0.0.1:8817");
    }
}
