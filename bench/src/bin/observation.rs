//! Observation v2 on the corpus, offline: Aperture's full and actionable-only first looks,
//! rendered by the engine from walks dumped through `aperture --script` (see
//! `bench/scripts/dump_walks.py`), against agent-browser's `snapshot -c` and `snapshot -i -c`
//! of the same pages (`bench/scripts/agent_browser.py`), in o200k tokens; and the coverage of
//! agent-browser's actionable refs in Aperture's full snapshot (`coverage::check`).
//!
//! `cargo run --release -p aperture-bench --bin observation -- WALKS_DIR AGENT_BROWSER_DIR`
//!
//! Prints one row per page both sides observed (page, Aperture full and interactive tokens,
//! agent-browser `-c` and `-i -c` tokens, agent-browser's actionable refs, how many Aperture
//! misses), then the medians, sums, per-page ratios and coverage, then the pages with misses.

#![forbid(unsafe_code)]

use anyhow::{Context as _, Result};
use aperture_bench::coverage;
use aperture_bench::parse::{agent_browser_refs, aperture_refs};
use aperture_bench::stats::summarize;
use aperture_bench::tokens::count as tok;
use aperture_engine::{Mode, TabSession, record::Walk};

fn first_look(w: &Walk, mode: Mode) -> String {
    let mut s = TabSession::new();
    s.set_mode(mode);
    s.observe(w, true, false).text
}

fn line(label: &str, v: &[f64]) {
    if let Some(s) = summarize(v) {
        println!(
            "{label}: median {:.0} (p10 {:.0}, p90 {:.0}), sum {:.0}",
            s.median,
            s.p10,
            s.p90,
            v.iter().sum::<f64>()
        );
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(walks), Some(ab)) = (args.get(1), args.get(2)) else {
        anyhow::bail!("usage: observation WALKS_DIR AGENT_BROWSER_DIR (see the module doc)");
    };
    let mut pages: Vec<_> = std::fs::read_dir(walks)
        .with_context(|| format!("reading {walks}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    pages.sort();
    let (mut full, mut inter, mut ab_c, mut ab_i, mut r_full, mut r_inter) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut total = coverage::Coverage::default();
    let mut misses: Vec<(String, Vec<String>)> = vec![];
    for p in pages {
        let page = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(c) = std::fs::read_to_string(format!("{ab}/{page}.c.txt")) else {
            continue;
        };
        if c.trim().is_empty() {
            continue;
        }
        let i = std::fs::read_to_string(format!("{ab}/{page}.i.txt")).unwrap_or_default();
        let w: Walk = serde_json::from_str(&std::fs::read_to_string(&p)?)
            .with_context(|| format!("{} is not a walk", p.display()))?;
        let f = first_look(&w, Mode::default());
        let it = first_look(
            &w,
            Mode {
                interactive: true,
                ..Mode::default()
            },
        );
        let (tf, ti, tc, tic) = (tok(&f), tok(&it), tok(&c), tok(&i));
        full.push(tf as f64);
        inter.push(ti as f64);
        ab_c.push(tc as f64);
        ab_i.push(tic as f64);
        r_full.push(tf as f64 / tc.max(1) as f64);
        r_inter.push(ti as f64 / tic.max(1) as f64);
        let cov = coverage::check(&agent_browser_refs(&c), &aperture_refs(&f));
        println!(
            "{page}\t{tf}\t{ti}\t{tc}\t{tic}\t{}\t{}",
            cov.actionable,
            cov.missing.len()
        );
        total.actionable += cov.actionable;
        total.exact += cov.exact;
        total.loose += cov.loose;
        total.counted += cov.counted;
        total.missing_in_frames += cov.missing_in_frames;
        if !cov.missing.is_empty() {
            total.missing.extend(cov.missing.iter().cloned());
            misses.push((page, cov.missing));
        }
    }
    println!("pages: {}", full.len());
    line("Aperture full snapshot, tokens", &full);
    line("Aperture interactive snapshot, tokens", &inter);
    line("agent-browser snapshot -c, tokens", &ab_c);
    line("agent-browser snapshot -i -c, tokens", &ab_i);
    if let (Some(a), Some(b)) = (summarize(&r_full), summarize(&r_inter)) {
        println!(
            "per-page ratio Aperture full / agent-browser -c: median {:.3}\nper-page ratio Aperture interactive / agent-browser -i -c: median {:.3}",
            a.median, b.median
        );
    }
    let pct = |k: usize| 100.0 * k as f64 / total.actionable.max(1) as f64;
    println!(
        "coverage of agent-browser's {} actionable refs: {} exact, {} loose, {} options counted by their select, {} missing ({} in iframes): {:.2} % addressable, {:.2} % without the counted options",
        total.actionable,
        total.exact,
        total.loose,
        total.counted,
        total.missing.len(),
        total.missing_in_frames,
        pct(total.exact + total.loose + total.counted),
        pct(total.exact + total.loose)
    );
    misses.sort_by_key(|m| std::cmp::Reverse(m.1.len()));
    for (page, m) in misses {
        let ex: Vec<&str> = m.iter().take(4).map(String::as_str).collect();
        println!("missing on {page}: {} ({})", m.len(), ex.join("; "));
    }
    Ok(())
}
