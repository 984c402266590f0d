//! `aperture-bench`: runs the whole comparison and writes `bench/RESULTS.md`, `bench/results.csv`
//! and `bench/economics.csv`.
//!
//! Usage: `cargo xtask bench [-- --pages N] [--only incumbent|agent-browser|aperture] [--out DIR]`.
//! `APERTURE_BIN` names the browser binary (default: `aperture` beside this one, built with
//! `cargo build --release -p aperture` when missing); `APERTURE_BENCH_ARGS` adds switches to it;
//! see bench/README.md for the rest.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use aperture_bench::agent_browser::{self, AgentBrowser};
use aperture_bench::client::{self, Aperture, INCUMBENT_PACKAGE, Session};
use aperture_bench::parse::RefElement;
use aperture_bench::report::{self, Results};
use aperture_bench::run::{self, Arm, PageRow};
use aperture_bench::server;
use serde_json::json;

const FIXTURE: &[u8] = include_bytes!("../fixtures/workbench.html");
const FIXTURE_PATH: &str = "/fixtures/workbench.html";
/// Per-call ceiling: a page that hangs one browser is recorded as an error, not waited on.
const CALL_TIMEOUT: Duration = Duration::from_secs(45);

struct Args {
    pages: Option<usize>,
    only: Option<String>,
    out: PathBuf,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn parse_args() -> Result<Args> {
    let mut a = Args {
        pages: None,
        only: None,
        out: workspace_root().join("bench"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        match k.as_str() {
            "--pages" => a.pages = Some(it.next().context("--pages N")?.parse()?),
            "--only" => a.only = Some(it.next().context("--only incumbent|agent-browser|aperture")?),
            "--out" => a.out = PathBuf::from(it.next().context("--out DIR")?),
            other => bail!("unknown argument {other:?}; see the doc comment of bench/src/main.rs"),
        }
    }
    Ok(a)
}

fn sh(cmd: &str, args: &[&str]) -> String {
    std::process::Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':').map(|(_, v)| v.trim().to_string()))
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<f64>().ok()))
        })
        .map(|kb| format!("{:.0} GiB", kb / 1048576.0))
        .unwrap_or_default();
    format!(
        "{cpu}, {cores} cores available (shared with other engineers' builds), {mem} RAM, {}",
        sh("uname", &["-sr"])
    )
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The browser binary: `$APERTURE_BIN`, else `aperture` beside this executable, built first
/// when it is missing.
fn aperture_bin() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("APERTURE_BIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe()?;
    let beside = exe.parent().context("exe dir")?.join("aperture");
    if !beside.exists() {
        eprintln!("bench: building the browser (cargo build --release -p aperture)");
        let s = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "-p", "aperture"])
            .current_dir(workspace_root())
            .status()?;
        if !s.success() {
            bail!("building aperture failed ({s})");
        }
    }
    Ok(beside)
}

/// The full page corpus: `$APERTURE_BENCH_CORPUS`, else `shared/corpus/pages` beside the
/// checkout. Only the bench reads it (tests use the subset in `testdata/corpus`), so a clone
/// without `shared/` fails here, saying where the pages go.
fn corpus_dir(root: &Path) -> Result<PathBuf> {
    let dir = std::env::var_os("APERTURE_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/pages"));
    if !dir.is_dir() {
        bail!(
            "no page corpus at {}: the bench needs the 130 saved pages of `shared/corpus/pages`; put \
             `shared/` beside the checkout (so that directory exists) or set APERTURE_BENCH_CORPUS \
             to a copy of it",
            dir.display()
        );
    }
    Ok(dir)
}

fn progress(who: &str, i: usize, n: usize, t0: Instant) {
    if i.is_multiple_of(10) || i == n {
        eprintln!("bench: {who} {i}/{n} pages ({:.0} s)", t0.elapsed().as_secs_f64());
    }
}

async fn incumbent_pass(
    bin: &Path,
    chromium: &Path,
    work: &Path,
    pages: &[(String, String)],
    rows: &mut [PageRow],
    els: &mut [Vec<RefElement>],
    res: &mut Results,
) -> Result<()> {
    let s = client::start_incumbent(bin, chromium, work, CALL_TIMEOUT).await?;
    let (name, version) = s.server_version();
    res.ctx.versions.push((
        "incumbent".into(),
        format!("{INCUMBENT_PACKAGE} (npm; server reports {name} {version})"),
    ));
    res.incumbent_tools = Some(s.tools_size().await?);
    let t0 = Instant::now();
    for (i, (page, url)) in pages.iter().enumerate() {
        let (side, e) = run::incumbent_page(&s, url).await;
        if let Some(err) = &side.error {
            eprintln!("bench: incumbent {page}: {err}");
        }
        rows[i].incumbent = Some(side);
        els[i] = e;
        progress("incumbent", i + 1, pages.len(), t0);
    }
    close_incumbent(s).await;
    Ok(())
}

/// agent-browser over the corpus (one session), then over the fixture (a fresh one).
async fn agent_browser_pass(
    bin: &Path,
    chromium: &Path,
    pages: &[(String, String)],
    fixture: &str,
    rows: &mut [PageRow],
    els: &mut [Vec<RefElement>],
    res: &mut Results,
) -> Result<()> {
    let ab = AgentBrowser::new(bin, chromium, "corpus", CALL_TIMEOUT);
    let version = ab.version().await?;
    res.ctx.versions.push((
        "agent-browser".into(),
        format!(
            "{} (npm; its native binary {} reports {version})",
            agent_browser::PACKAGE,
            bin.display()
        ),
    ));
    res.ctx.commands.push((
        "agent-browser command".into(),
        format!(
            "AGENT_BROWSER_EXECUTABLE_PATH={} AGENT_BROWSER_SESSION=NAME AGENT_BROWSER_ARGS=\"{}\" (one switch per line) agent-browser-linux-x64 open URL | snapshot -c | snapshot -i -c | click @eN | fill @eN TEXT | snapshot -i --delta; the viewport is set to 1280x800 first (`set viewport 1280 800`)",
            chromium.display(),
            agent_browser::launch_args().join(" ")
        ),
    ));
    if let Err(e) = ab.start().await {
        ab.close().await;
        return Err(e);
    }
    let t0 = Instant::now();
    for (i, (page, url)) in pages.iter().enumerate() {
        let (side, e) = agent_browser::page(&ab, url).await;
        if let Some(err) = &side.error {
            eprintln!("bench: agent-browser {page}: {err}");
        }
        rows[i].agent_browser = Some(side);
        els[i] = e;
        progress("agent-browser", i + 1, pages.len(), t0);
    }
    ab.close().await;
    eprintln!("bench: economics, agent-browser");
    let econ = AgentBrowser::new(bin, chromium, "economics", CALL_TIMEOUT);
    let started = econ.start().await;
    if started.is_ok() {
        res.arms.push(agent_browser::economics(&econ, fixture).await);
    }
    econ.close().await;
    started.context("agent-browser's economics session")
}

async fn close_incumbent(s: Session) {
    let _ = s.call("browser_close", json!({})).await;
    s.close().await;
}

/// Tabs the Aperture pass loads pages in at once, which keeps the whole run within its time
/// budget (each page is loaded, settled and observed twice); per-call times are then
/// measured with neighbour tabs busy.
const APERTURE_TABS: usize = 3;

/// The tab id in an answer such as "opened tab 3 (yours; …)".
fn opened_tab(text: &str) -> Option<u64> {
    text.split_once("opened tab ")?
        .1
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

async fn aperture_pass(
    ap: &Aperture,
    pages: &[(String, String)],
    rows: &mut [PageRow],
    inc_els: &[Vec<RefElement>],
    ab_els: &[Vec<RefElement>],
    res: &mut Results,
) -> Result<()> {
    let s = &ap.session;
    res.aperture_tools = Some(s.tools_size().await?);
    let mut tabs = Vec::new();
    for _ in 0..APERTURE_TABS {
        let open = s.call("browser_tabs", json!({ "action": "open" })).await;
        match opened_tab(&open.text) {
            Some(t) if !open.is_error => tabs.push(t),
            _ => bail!("browser_tabs open failed: {}", open.text),
        }
    }
    let t0 = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(vec![None; pages.len()]);
    let worker = |tab: u64| {
        let (next, done, out) = (&next, &done, &out);
        async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((page, url)) = pages.get(i) else { break };
                let r = run::aperture_page(s, Some(tab), url).await;
                if let Some(err) = &r.0.error {
                    eprintln!("bench: aperture {page}: {err}");
                }
                out.lock().expect("results lock")[i] = Some(r);
                let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                progress("aperture", n, pages.len(), t0);
            }
        }
    };
    // One future per tab, polled together on this task (no spawn: they borrow the session).
    tokio::join!(worker(tabs[0]), worker(tabs[1]), worker(tabs[2]));
    for (i, r) in out.into_inner().expect("results lock").into_iter().enumerate() {
        let Some((side, e)) = r else { continue };
        let inc_ok = rows[i].incumbent.as_ref().is_some_and(|s| s.error.is_none());
        if inc_ok && side.error.is_none() {
            rows[i].coverage = Some(run::page_coverage(&inc_els[i], &e));
        }
        let ab_ok = rows[i].agent_browser.as_ref().is_some_and(|s| s.error.is_none());
        if ab_ok && side.error.is_none() {
            rows[i].ab_coverage = Some(run::page_coverage(&ab_els[i], &e));
        }
        rows[i].aperture = Some(side);
    }
    for t in tabs {
        let _ = s
            .call("browser_tabs", json!({ "action": "close", "tab": t }))
            .await;
    }
    Ok(())
}

async fn aperture_economics(ap: &Aperture, url: &str, res: &mut Results) -> Result<()> {
    for arm in [Arm::ApertureDiff, Arm::ApertureRedump] {
        let open = ap.session.call("browser_tabs", json!({ "action": "open" })).await;
        if open.is_error {
            bail!("browser_tabs open failed: {}", open.text);
        }
        eprintln!("bench: economics, {}", arm.label());
        res.arms.push(run::economics(&ap.session, arm, url).await);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = parse_args()?;
    let started = Instant::now();
    let root = workspace_root();
    let mut res = Results::default();
    res.ctx.date = sh("date", &["-u", "+%Y-%m-%d %H:%M"]);
    res.ctx.machine = machine();
    let load0 = load();
    // `APERTURE_BENCH_COMMIT` names the commit the browser binary was built from when that is
    // not this work tree (e.g. a clean export of HEAD while others edit the tree).
    let stamp = match std::env::var("APERTURE_BENCH_COMMIT") {
        Ok(c) => format!("commit {c} (browser built from a clean export of it)"),
        Err(_) => {
            let dir = root.to_str().unwrap_or(".");
            let commit = sh("git", &["-C", dir, "rev-parse", "--short=12", "HEAD"]);
            let dirty = !sh(
                "git",
                &["-C", dir, "status", "--porcelain", "--untracked-files=no"],
            )
            .is_empty();
            format!(
                "commit {commit}{}",
                if dirty {
                    " (work tree with uncommitted changes)"
                } else {
                    ""
                }
            )
        }
    };
    res.ctx.versions.push(("Aperture".into(), stamp));

    let corpus = corpus_dir(&root)?;
    let mut files = server::read_pages(&corpus)?;
    if let Some(n) = args.pages {
        files.truncate(n);
    }
    let mut served: HashMap<String, Vec<u8>> = HashMap::new();
    let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    for (n, body) in files {
        served.insert(format!("/corpus/{n}"), body);
    }
    served.insert(FIXTURE_PATH.into(), FIXTURE.to_vec());
    let srv = server::serve(served).await?;
    let pages: Vec<(String, String)> = names
        .iter()
        .map(|n| (n.clone(), srv.url(&format!("/corpus/{n}"))))
        .collect();
    let fixture = srv.url(FIXTURE_PATH);
    eprintln!("bench: serving {} pages at {}", pages.len(), srv.url("/"));

    let mut rows: Vec<PageRow> = names
        .iter()
        .map(|n| PageRow {
            page: n.clone(),
            ..Default::default()
        })
        .collect();
    let mut inc_els: Vec<Vec<RefElement>> = vec![Vec::new(); pages.len()];
    let mut ab_els: Vec<Vec<RefElement>> = vec![Vec::new(); pages.len()];
    let work = std::env::temp_dir().join(format!("aperture-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let want = |k: &str| args.only.as_deref().is_none_or(|o| o == k);

    if want("incumbent") {
        let r: Result<()> = async {
            let chromium = client::ensure_chromium()?;
            res.ctx.versions.push(("Chromium (incumbent's browser)".into(), sh(chromium.to_str().unwrap_or("chromium"), &["--version"])));
            res.ctx.versions.push(("Node.js".into(), sh("node", &["--version"])));
            let bin = client::ensure_incumbent(&client::cache_dir())?;
            res.ctx.commands.push((
                "Incumbent command".into(),
                format!(
                    "playwright-mcp --config CONFIG --executable-path {} --headless --no-sandbox --isolated --viewport-size 1280x800 --output-dir DIR (CONFIG adds Chromium switches {})",
                    chromium.display(),
                    client::CHROMIUM_QUIET_ARGS.join(" ")
                ),
            ));
            incumbent_pass(&bin, &chromium, &work.join("incumbent"), &pages, &mut rows, &mut inc_els, &mut res).await?;
            eprintln!("bench: economics, incumbent");
            let s = client::start_incumbent(&bin, &chromium, &work.join("incumbent-economics"), CALL_TIMEOUT).await?;
            res.arms.push(run::economics(&s, Arm::Incumbent, &fixture).await);
            close_incumbent(s).await;
            Ok(())
        }
        .await;
        if let Err(e) = r {
            eprintln!("bench: incumbent: {e:#}");
            res.ctx.gaps.push(format!("The incumbent side failed: {e:#}"));
        }
    } else {
        res.ctx
            .gaps
            .push("The incumbent side was not run (--only).".into());
    }

    if want("agent-browser") {
        let r: Result<()> = async {
            let chromium = client::ensure_chromium()?;
            let bin = agent_browser::ensure(&client::cache_dir())?;
            agent_browser_pass(
                &bin,
                &chromium,
                &pages,
                &fixture,
                &mut rows,
                &mut ab_els,
                &mut res,
            )
            .await
        }
        .await;
        if let Err(e) = r {
            eprintln!("bench: agent-browser: {e:#}");
            res.ab_failure = Some(format!("{e:#}"));
            res.ctx.gaps.push(format!(
                "The agent-browser side failed, so every comparison with it is missing or partial: {e:#}"
            ));
        }
    } else {
        res.ctx
            .gaps
            .push("The agent-browser side was not run (--only).".into());
    }

    if want("aperture") {
        let r: Result<()> = async {
            let bin = aperture_bin()?;
            res.ctx.versions.push((
                "Aperture binary".into(),
                format!(
                    "{} ({}){}",
                    sh(bin.to_str().unwrap_or("aperture"), &["--version"]),
                    bin.display(),
                    if bin.components().any(|c| c.as_os_str() == "debug") {
                        ", **a debug build**: its sizes and coverage are those of the code, its times are not a release build's"
                    } else {
                        ""
                    }
                ),
            ));
            if let Some(d) = std::env::var_os("APERTURE_CEF_DIR") {
                res.ctx.versions.push((
                    "CEF runtime".into(),
                    PathBuf::from(d)
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                ));
            }
            let ap = Aperture::start(&bin, &work, CALL_TIMEOUT).await?;
            res.ctx.commands.push((
                "Aperture command".into(),
                format!(
                    "aperture --headless --mcp-port PORT {} --profile DIR",
                    ap.args.join(" ")
                ),
            ));
            let pass = aperture_pass(&ap, &pages, &mut rows, &inc_els, &ab_els, &mut res).await;
            let econ = match &pass {
                Ok(()) => aperture_economics(&ap, &fixture, &mut res).await,
                Err(_) => Ok(()),
            };
            ap.stop().await;
            pass?;
            econ
        }
        .await;
        if let Err(e) = r {
            eprintln!("bench: aperture: {e:#}");
            res.ctx.gaps.push(format!("The Aperture side did not run: {e:#}"));
        }
    } else {
        res.ctx
            .gaps
            .push("The Aperture side was not run (--only).".into());
    }

    res.ctx.versions.push((
        "tokenizer".into(),
        "o200k_base, bundled in tiktoken-rs 0.7 (offline)".into(),
    ));
    res.ctx
        .versions
        .push(("rustc".into(), sh("rustc", &["--version"])));
    res.pages = rows;
    res.ctx.seconds = started.elapsed().as_secs_f64();
    res.ctx.load = format!("{load0} / {}", load());
    std::fs::create_dir_all(&args.out)?;
    std::fs::write(args.out.join("RESULTS.md"), report::markdown(&res))?;
    std::fs::write(args.out.join("results.csv"), report::pages_csv(&res.pages))?;
    std::fs::write(args.out.join("economics.csv"), report::economics_csv(&res.arms))?;
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "bench: wrote {} ({:.0} s)",
        args.out.join("RESULTS.md").display(),
        res.ctx.seconds
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn opened_tab_id_is_read() {
        assert_eq!(
            super::opened_tab("opened tab 12 (yours; it is now your current tab)"),
            Some(12)
        );
        assert_eq!(super::opened_tab("no tabs are open"), None);
    }
}
