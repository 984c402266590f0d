//! The second peer, agent-browser (npm `agent-browser@0.41.2`): a CLI whose native binary starts
//! a daemon per session that drives Chromium over CDP. It is driven here as an agent drives it,
//! one command line per call, and what the agent reads is the command's whole output.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

use crate::client::{Answer, CHROMIUM_QUIET_ARGS, dump};
use crate::parse::{self, RefElement};
use crate::run::{self, Arm, ArmRun, Measure, StepRow};
use crate::script::{self, STEPS, Verb};

/// The peer's package, pinned.
pub const PACKAGE: &str = "agent-browser@0.41.2";

/// The native binary inside the package (its `bin/agent-browser.js` only picks one of these).
const NATIVE: &str = "node_modules/agent-browser/bin/agent-browser-linux-x64";

/// Installs the pinned package into `cache` with npm when it is not there yet, and returns the
/// path of its native Linux binary.
pub fn ensure(cache: &Path) -> Result<PathBuf> {
    let bin = cache.join(NATIVE);
    let pkg = cache.join("node_modules/agent-browser/package.json");
    let installed = std::fs::read_to_string(&pkg)
        .ok()
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .and_then(|v| v["version"].as_str().map(String::from));
    if !(bin.exists() && installed.as_deref() == PACKAGE.rsplit('@').next()) {
        std::fs::create_dir_all(cache)?;
        eprintln!("bench: npm install {PACKAGE} into {}", cache.display());
        let s = std::process::Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--save-exact", PACKAGE])
            .current_dir(cache)
            .status()
            .context("running npm (is Node.js installed?)")?;
        if !s.success() || !bin.exists() {
            bail!("npm install {PACKAGE} failed ({s}) or left no {NATIVE}");
        }
    }
    // The package's install script (which npm may decline to run) is what marks the binary
    // executable.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&bin)?.permissions().mode();
    if mode & 0o111 == 0 {
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(mode | 0o755))?;
    }
    Ok(bin)
}

/// Chromium switches agent-browser passes on (`AGENT_BROWSER_ARGS`, one per line): no sandbox
/// (the bench may run as root) and the incumbent's offline switches.
pub fn launch_args() -> Vec<String> {
    std::iter::once("--no-sandbox")
        .chain(CHROMIUM_QUIET_ARGS.iter().copied())
        .map(String::from)
        .collect()
}

/// One agent-browser session (its own daemon and Chromium).
pub struct AgentBrowser {
    bin: PathBuf,
    chromium: PathBuf,
    session: String,
    timeout: Duration,
}

impl AgentBrowser {
    /// A session named `aperture-bench-PID-TAG`; its browser starts with the first command.
    pub fn new(bin: &Path, chromium: &Path, tag: &str, timeout: Duration) -> AgentBrowser {
        AgentBrowser {
            bin: bin.to_path_buf(),
            chromium: chromium.to_path_buf(),
            session: format!("aperture-bench-{}-{tag}", std::process::id()),
            timeout,
        }
    }

    /// Runs one command; its stdout and stderr together are the answer (an agent reads both),
    /// an exit status other than 0 marks it an error, and a command that outlives the per-call
    /// ceiling is killed and answered as an error.
    pub async fn run(&self, args: &[&str]) -> Answer {
        let mut cmd = tokio::process::Command::new(&self.bin);
        cmd.args(args)
            .env("AGENT_BROWSER_EXECUTABLE_PATH", &self.chromium)
            .env("AGENT_BROWSER_SESSION", &self.session)
            .env("AGENT_BROWSER_ARGS", launch_args().join("\n"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let t = Instant::now();
        let r = tokio::time::timeout(self.timeout, cmd.output()).await;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let a = match r {
            Ok(Ok(out)) => {
                let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
                let err = String::from_utf8_lossy(&out.stderr);
                if !err.trim().is_empty() {
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&err);
                }
                Answer::new(text, ms, !out.status.success())
            }
            Ok(Err(e)) => Answer::new(format!("could not run agent-browser: {e}"), ms, true),
            Err(_) => Answer::new(format!("timed out after {:?}", self.timeout), ms, true),
        };
        dump(&format!("agent-browser-{}", args.first().unwrap_or(&"")), &a.text);
        a
    }

    /// `agent-browser --version`, or why it did not answer.
    pub async fn version(&self) -> Result<String> {
        let a = self.run(&["--version"]).await;
        if a.is_error {
            bail!("{} --version failed: {}", self.bin.display(), run::short(&a.text));
        }
        Ok(a.text.trim().to_string())
    }

    /// Opens `about:blank` at the incumbent's viewport, proving the binary can start its
    /// browser here.
    pub async fn start(&self) -> Result<()> {
        let open = self.run(&["open", "about:blank"]).await;
        if open.is_error {
            bail!("agent-browser could not open a page: {}", run::short(&open.text));
        }
        let vp = self.run(&["set", "viewport", "1280", "800"]).await;
        if vp.is_error {
            bail!("agent-browser set viewport failed: {}", run::short(&vp.text));
        }
        Ok(())
    }

    /// Closes this session's browser and daemon, and removes the last-tab note the daemon
    /// leaves behind per session name (`~/.agent-browser/NAME.target`), since every run's
    /// names are new.
    pub async fn close(&self) {
        let _ = self.run(&["close"]).await;
        if let Some(home) = std::env::var_os("HOME") {
            let note = PathBuf::from(home)
                .join(".agent-browser")
                .join(format!("{}.target", self.session));
            let _ = std::fs::remove_file(note);
        }
    }
}

/// agent-browser's observations of one corpus page.
#[derive(Debug, Clone, Default)]
pub struct AbSide {
    /// The `open URL` call (it waits for the load).
    pub open: Measure,
    /// `snapshot -c`: the page with empty structure removed.
    pub compact: Measure,
    /// `snapshot -i -c`: interactive elements only, its recommended mode.
    pub interactive: Measure,
    /// Refs in the `-c` snapshot.
    pub refs: usize,
    /// Uncounted `snapshot -c` calls taken after the load until two in a row were equal.
    pub settle_rounds: usize,
    /// First error met, shortened.
    pub error: Option<String>,
}

/// Most uncounted `snapshot -c` rounds spent waiting for a page to stop changing.
const SETTLE_ROUNDS: usize = 4;

/// The elements of both snapshots, each ref once: `-i -c` first (it names what `-c` spells
/// out as children, e.g. a clickable list item), then the rest of `-c`.
pub fn union_refs(interactive: &[RefElement], compact: &[RefElement]) -> Vec<RefElement> {
    let mut out: Vec<RefElement> = interactive.to_vec();
    for e in compact {
        if !out.iter().any(|o| o.reference == e.reference) {
            out.push(e.clone());
        }
    }
    out
}

/// agent-browser on one page: `open`, then `snapshot -c` until two in a row agree (the page at
/// rest, as the harness gives Aperture; only the last is counted), then `snapshot -i -c`.
/// Returns the side and the elements of both snapshots.
pub async fn page(ab: &AgentBrowser, url: &str) -> (AbSide, Vec<RefElement>) {
    let open = ab.run(&["open", url]).await;
    let mut compact = ab.run(&["snapshot", "-c"]).await;
    let mut settle_rounds = 0;
    while settle_rounds < SETTLE_ROUNDS && !compact.is_error {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let next = ab.run(&["snapshot", "-c"]).await;
        if next.text == compact.text {
            break;
        }
        compact = next;
        settle_rounds += 1;
    }
    let inter = ab.run(&["snapshot", "-i", "-c"]).await;
    let c_els = parse::agent_browser_refs(&compact.text);
    let els = union_refs(&parse::agent_browser_refs(&inter.text), &c_els);
    let error = [&open, &compact, &inter]
        .iter()
        .find(|a| a.is_error)
        .map(|a| run::short(&a.text));
    let side = AbSide {
        open: (&open).into(),
        compact: (&compact).into(),
        interactive: (&inter).into(),
        refs: parse::distinct_refs(&c_els),
        settle_rounds,
        error,
    };
    (side, els)
}

/// The action command for `step` on `reference` (`fill` clears first, as the incumbent's
/// `browser_type` does).
async fn act(ab: &AgentBrowser, verb: Verb, reference: &str) -> Answer {
    let r = format!("@{reference}");
    match verb {
        Verb::Click => ab.run(&["click", &r]).await,
        Verb::Type(t) => ab.run(&["fill", &r, t]).await,
    }
}

/// The 20 scripted actions on `url`, observing each with `snapshot -i --delta` (the first in
/// a fresh session is the full state and sets the baseline). `ab` must be a session of its own.
pub async fn economics(ab: &AgentBrowser, url: &str) -> ArmRun {
    let nav = ab.run(&["open", url]).await;
    let first = ab.run(&["snapshot", "-i", "--delta"]).await;
    let initial = Measure::from(&nav) + Measure::from(&first);
    let mut seen = parse::agent_browser_refs(&first.text);
    let mut steps = Vec::new();
    for (i, step) in STEPS.iter().enumerate() {
        let mut note = String::new();
        let mut observe = Measure::default();
        let Some(reference) = run::find_ref(&seen, step) else {
            steps.push(StepRow {
                step: i + 1,
                label: step.label(),
                act: Measure::default(),
                observe,
                total: Measure::default(),
                note: "target not found in what the agent was shown; skipped".into(),
            });
            continue;
        };
        let mut a = act(ab, step.verb, &reference).await;
        let mut act_m = Measure::from(&a);
        if a.is_error {
            // What an agent does with a failed ref: re-observe in full and retry once, both
            // paid for in this step.
            let snap = ab.run(&["snapshot", "-i", "--delta", "--full"]).await;
            observe = observe + Measure::from(&snap);
            seen.extend(parse::agent_browser_refs(&snap.text));
            note = format!(
                "action failed ({}); full re-observation and retry",
                run::short(&a.text)
            );
            if let Some(r2) = run::find_ref(&seen, step) {
                a = act(ab, step.verb, &r2).await;
                act_m = act_m + Measure::from(&a);
            }
            if a.is_error {
                note.push_str(&format!("; retry failed: {}", run::short(&a.text)));
            }
        }
        let snap = ab.run(&["snapshot", "-i", "--delta"]).await;
        observe = observe + Measure::from(&snap);
        seen.extend(parse::agent_browser_refs(&snap.text));
        steps.push(StepRow {
            step: i + 1,
            label: step.label(),
            act: act_m,
            observe,
            total: act_m + observe,
            note,
        });
    }
    let last = ab.run(&["snapshot", "-c"]).await;
    ArmRun {
        arm: Arm::AgentBrowser,
        initial,
        steps,
        end_problems: script::end_state_problems(&last.text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_args_carry_no_sandbox_and_the_offline_switches() {
        let a = launch_args();
        assert_eq!(a[0], "--no-sandbox");
        assert!(a.iter().any(|s| s.starts_with("--host-resolver-rules=")));
        assert_eq!(a.len(), CHROMIUM_QUIET_ARGS.len() + 1);
    }

    #[test]
    fn union_keeps_each_ref_once_preferring_the_interactive_naming() {
        let el = |r: &str, role: &str, name: Option<&str>| RefElement {
            reference: r.into(),
            role: role.into(),
            name: name.map(Into::into),
            counted: false,
        };
        let i = vec![el("e4", "clickable", Some("Menu"))];
        let c = vec![el("e1", "heading", Some("Hi")), el("e4", "clickable", None)];
        let u = union_refs(&i, &c);
        assert_eq!(u.len(), 2);
        assert_eq!(u[0].name.as_deref(), Some("Menu"));
        assert_eq!(u[1].reference, "e1");
    }
}
