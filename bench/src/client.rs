//! MCP client sessions to both products, as a real agent's client would hold them.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use process_wrap::tokio::{CommandWrap, ProcessGroup};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::tokens;

/// The incumbent's package, pinned.
pub const INCUMBENT_PACKAGE: &str = "@playwright/mcp@0.0.83";

/// Chromium switches that keep it from phoning home: the machine has no route out, and
/// without them Chromium's background connections fail many at a time and slow it down. The
/// resolver rule makes every name but the loopback page server fail at once: on this network
/// Chromium's own lookups of a saved page's third-party hosts otherwise stall a load by 5–10 s,
/// and whether they stall or fail, those resources never arrive.
pub const CHROMIUM_QUIET_ARGS: &[&str] = &[
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--metrics-recording-only",
    "--no-default-browser-check",
];

/// One tool call's answer, measured.
#[derive(Debug, Clone)]
pub struct Answer {
    /// All text content of the result, joined by newlines (what the agent reads).
    pub text: String,
    /// Characters (Unicode scalar values) of `text`.
    pub chars: usize,
    /// `o200k_base` tokens of `text`.
    pub tokens: usize,
    /// Wall time from sending the request to having the whole result.
    pub ms: f64,
    /// The result was marked as an error (or the call failed outright).
    pub is_error: bool,
}

impl Answer {
    /// An answer of `text`, measured.
    pub fn new(text: String, ms: f64, is_error: bool) -> Answer {
        Answer {
            chars: text.chars().count(),
            tokens: tokens::count(&text),
            text,
            ms,
            is_error,
        }
    }
}

/// Size of a server's `tools/list`, serialised as JSON the way it crosses the wire.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolsSize {
    /// Number of tools.
    pub count: usize,
    /// Characters of the JSON array of tool definitions.
    pub chars: usize,
    /// `o200k_base` tokens of that JSON.
    pub tokens: usize,
}

/// An initialised MCP client session.
pub struct Session {
    client: RunningService<RoleClient, ()>,
    timeout: Duration,
}

impl Session {
    /// Calls `tool` with `args` (a JSON object). A transport failure or timeout comes back as
    /// an error answer rather than an `Err`, so one bad page does not end the run.
    pub async fn call(&self, tool: &str, args: Value) -> Answer {
        let args = match args {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let t = Instant::now();
        let r = tokio::time::timeout(self.timeout, self.client.call_tool(params)).await;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let a = match r {
            Ok(Ok(res)) => {
                let text = res
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect::<Vec<_>>()
                    .join("\n");
                Answer::new(text, ms, res.is_error == Some(true))
            }
            Ok(Err(e)) => Answer::new(format!("call failed: {e}"), ms, true),
            Err(_) => Answer::new(format!("timed out after {:?}", self.timeout), ms, true),
        };
        dump(tool, &a.text);
        a
    }

    /// Lists all tools and measures the listing.
    pub async fn tools_size(&self) -> Result<ToolsSize> {
        let tools = self.client.list_all_tools().await?;
        let json = serde_json::to_string(&tools)?;
        Ok(ToolsSize {
            count: tools.len(),
            chars: json.chars().count(),
            tokens: tokens::count(&json),
        })
    }

    /// `(name, version)` the server reported at initialisation.
    pub fn server_version(&self) -> (String, String) {
        match self.client.peer_info() {
            Some(i) => match i.server_info.as_ref() {
                Some(s) => (s.name.clone(), s.version.clone()),
                None => Default::default(),
            },
            None => Default::default(),
        }
    }

    /// Ends the session (closing the transport).
    pub async fn close(self) {
        let _ = tokio::time::timeout(Duration::from_secs(10), self.client.cancel()).await;
    }
}

/// Writes every answer to `$APERTURE_BENCH_DUMP/NNNNN-TOOL.txt` when that is set, so a
/// surprising number can be checked against the text that produced it.
pub(crate) fn dump(tool: &str, text: &str) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    if let Some(dir) = std::env::var_os("APERTURE_BENCH_DUMP") {
        let n = N.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(PathBuf::from(dir).join(format!("{n:05}-{tool}.txt")), text);
    }
}

/// Where the incumbent is installed: `$APERTURE_BENCH_CACHE`, else
/// `$XDG_CACHE_HOME/aperture/bench`, else `~/.cache/aperture/bench`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("APERTURE_BENCH_CACHE") {
        return PathBuf::from(d);
    }
    // Without HOME this stays relative to the working directory, as it always was.
    aperture_common::xdg::cache_dir()
        .unwrap_or_else(|| PathBuf::from(".cache").join(aperture_common::xdg::APP_DIR))
        .join("bench")
}

/// Installs the pinned incumbent into `cache` with npm when it is not there yet, and returns
/// the path of its `playwright-mcp` launcher.
pub fn ensure_incumbent(cache: &Path) -> Result<PathBuf> {
    let bin = cache.join("node_modules/.bin/playwright-mcp");
    let pkg = cache.join("node_modules/@playwright/mcp/package.json");
    let pinned = std::fs::read_to_string(&pkg)
        .ok()
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .and_then(|v| v["version"].as_str().map(String::from));
    if bin.exists() && pinned.as_deref() == INCUMBENT_PACKAGE.rsplit('@').next() {
        return Ok(bin);
    }
    std::fs::create_dir_all(cache)?;
    eprintln!("bench: npm install {INCUMBENT_PACKAGE} into {}", cache.display());
    let s = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", INCUMBENT_PACKAGE])
        .current_dir(cache)
        .status()
        .context("running npm (is Node.js installed?)")?;
    if !s.success() || !bin.exists() {
        bail!("npm install {INCUMBENT_PACKAGE} failed ({s})");
    }
    Ok(bin)
}

/// Debian's Chromium: `/usr/bin/chromium`, installed with apt-get when missing and running as
/// root (the incumbent must not download a browser of its own).
pub fn ensure_chromium() -> Result<PathBuf> {
    let p = PathBuf::from("/usr/bin/chromium");
    if p.exists() {
        return Ok(p);
    }
    eprintln!("bench: apt-get install -y chromium");
    let ok = std::process::Command::new("sh")
        .args(["-c", "apt-get update -qq && apt-get install -y -qq chromium"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if ok && p.exists() {
        Ok(p)
    } else {
        bail!("Debian's chromium is not installed and apt-get could not install it")
    }
}

/// Starts the incumbent over stdio against `chromium`, working in `workdir` (where it writes
/// its snapshot and console files).
pub async fn start_incumbent(
    bin: &Path,
    chromium: &Path,
    workdir: &Path,
    timeout: Duration,
) -> Result<Session> {
    std::fs::create_dir_all(workdir)?;
    let config = serde_json::json!({
        "browser": {
            "browserName": "chromium",
            "isolated": true,
            "launchOptions": {
                "executablePath": chromium,
                "headless": true,
                "chromiumSandbox": false,
                "args": CHROMIUM_QUIET_ARGS,
            },
        },
    });
    let cfg = workdir.join("playwright-mcp.json");
    std::fs::write(&cfg, serde_json::to_vec_pretty(&config)?)?;
    let mut cmd = tokio::process::Command::new(bin);
    cmd.arg("--config")
        .arg(&cfg)
        .arg("--executable-path")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--isolated",
            "--viewport-size",
            "1280x800",
        ])
        .arg("--output-dir")
        .arg(workdir.join("output"))
        .current_dir(workdir);
    let mut wrapped = CommandWrap::from(cmd);
    // Its own process group, so ending the session also ends the Chromium it started.
    wrapped.wrap(ProcessGroup::leader());
    let (transport, _) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::null())
        .spawn()
        .context("starting playwright-mcp")?;
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .map_err(|_| anyhow!("playwright-mcp did not initialise within 60 s"))??;
    Ok(Session { client, timeout })
}

/// A running Aperture process with its MCP session.
pub struct Aperture {
    child: tokio::process::Child,
    /// The MCP session over streamable HTTP.
    pub session: Session,
    /// Extra switches the harness passed (from `--help`), for the report.
    pub args: Vec<String>,
}

/// Switches of `aperture --help` the harness passes when offered: loopback pages must be
/// allowed, since agent navigation to private addresses is refused by default; and the
/// resolver rule the other browsers get (see [`CHROMIUM_QUIET_ARGS`]), so that no product's
/// load waits on third-party lookups that cannot succeed, and loads end the same way each run.
fn extra_args(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    if help.contains("--allow-host") {
        out.extend(["--allow-host".into(), "127.0.0.1".into()]);
    }
    if help.contains("--chromium-switch") {
        let rule = CHROMIUM_QUIET_ARGS[0].trim_start_matches('-');
        out.extend(["--chromium-switch".into(), rule.to_string()]);
    }
    out
}

/// The token from a `claude mcp add … -H "Authorization: Bearer TOKEN"` line.
pub fn bearer_from_line(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("Authorization: Bearer ")?;
    let t = rest.trim().trim_end_matches(['"', '\'']).trim();
    (!t.is_empty()).then(|| t.to_string())
}

impl Aperture {
    /// Starts `bin --headless --mcp-port PORT` with a fresh profile under `workdir`, waits for
    /// its `claude mcp add` line and connects.
    pub async fn start(bin: &Path, workdir: &Path, timeout: Duration) -> Result<Aperture> {
        let help = std::process::Command::new(bin)
            .arg("--help")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        if !help.contains("--mcp-port") {
            bail!("{} has no --mcp-port switch yet", bin.display());
        }
        let mut args = extra_args(&help);
        if let Ok(more) = std::env::var("APERTURE_BENCH_ARGS") {
            args.extend(more.split_whitespace().map(String::from));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let profile = workdir.join("aperture-profile");
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile)?;
        let mut cmd = tokio::process::Command::new(bin);
        // The competitors' Chromium runs without its sandbox too (and the bench may run as
        // root, where aperture refuses the sandbox): like for like.
        cmd.args(["--headless", "--no-sandbox", "--mcp-port", &port.to_string()])
            .args(&args)
            .arg("--profile")
            .arg(&profile)
            // Its mcp.json (a live credential) goes under the work dir, not the user's config.
            .env("XDG_CONFIG_HOME", workdir.join("config"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let found = tokio::time::timeout(Duration::from_secs(90), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(t) = bearer_from_line(&line) {
                    let url = line
                        .split_whitespace()
                        .find(|w| w.starts_with("http://"))
                        .map(String::from)
                        .unwrap_or_else(|| format!("http://127.0.0.1:{port}/mcp"));
                    return Some((url, t));
                }
            }
            None
        })
        .await;
        let Ok(Some((url, token))) = found else {
            let _ = child.start_kill();
            bail!("aperture did not print its `claude mcp add` line within 90 s");
        };
        // Keep draining stdout so the browser never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.as_str()).auth_header(token),
        );
        let client = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
            .await
            .map_err(|_| anyhow!("aperture's MCP endpoint did not initialise within 30 s"))??;
        Ok(Aperture {
            child,
            session: Session { client, timeout },
            args,
        })
    }

    /// Closes the session and stops the browser (SIGTERM to its process group, then SIGKILL).
    pub async fn stop(mut self) {
        self.session.close().await;
        if let Some(pid) = self.child.id() {
            let group = format!("-{pid}");
            let _ = std::process::Command::new("kill")
                .args(["-TERM", "--", &group])
                .status();
            if tokio::time::timeout(Duration::from_secs(10), self.child.wait())
                .await
                .is_err()
            {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", "--", &group])
                    .status();
            }
        }
        let _ = self.child.wait().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_line_is_parsed() {
        let l = r#"claude mcp add --transport http aperture http://127.0.0.1:8817/mcp -H "Authorization: Bearer abc123""#;
        assert_eq!(bearer_from_line(l).as_deref(), Some("abc123"));
        assert_eq!(bearer_from_line("aperture: ready"), None);
    }

    #[test]
    fn loopback_switch_is_taken_from_help() {
        assert_eq!(
            extra_args("  --allow-host <HOST>  allow agent navigation to HOST"),
            vec!["--allow-host", "127.0.0.1"]
        );
        assert!(extra_args("  --headless").is_empty());
    }
}
