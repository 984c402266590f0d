//! `RESULTS.md` and the CSV files.

use std::fmt::Write as _;

use crate::client::ToolsSize;
use crate::coverage::Coverage;
use crate::run::{Arm, ArmRun, Measure, PageRow, PageSide};
use crate::stats::{Summary, ratio, summarize};

/// Facts about the run that the report states up front.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// UTC date and time the run started.
    pub date: String,
    /// Wall time of the whole run, seconds.
    pub seconds: f64,
    /// CPU model, cores, memory.
    pub machine: String,
    /// Load average at the start and the end.
    pub load: String,
    /// `name version` lines of everything measured or used.
    pub versions: Vec<(String, String)>,
    /// Exact command lines of both products.
    pub commands: Vec<(String, String)>,
    /// Things that did not run, said plainly (empty when all ran).
    pub gaps: Vec<String>,
}

/// Everything measured.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// Run facts.
    pub ctx: Context,
    /// Per-page rows of the corpus pass.
    pub pages: Vec<PageRow>,
    /// `tools/list` of the incumbent.
    pub incumbent_tools: Option<ToolsSize>,
    /// `tools/list` of Aperture.
    pub aperture_tools: Option<ToolsSize>,
    /// Diff-economics arms that ran.
    pub arms: Vec<ArmRun>,
    /// Why the agent-browser side did not run or stopped, when it did.
    pub ab_failure: Option<String>,
}

fn fmt_num(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn fmt_summary(s: Option<Summary>) -> String {
    match s {
        Some(s) => format!("{} ({}–{})", fmt_num(s.median), fmt_num(s.p10), fmt_num(s.p90)),
        None => "—".into(),
    }
}

/// Pages both products observed without an error.
fn both_ok(pages: &[PageRow]) -> Vec<(&PageRow, &PageSide, &PageSide)> {
    pages
        .iter()
        .filter_map(|p| match (&p.incumbent, &p.aperture) {
            (Some(i), Some(a)) if i.error.is_none() && a.error.is_none() => Some((p, i, a)),
            _ => None,
        })
        .collect()
}

fn side_values(
    pages: &[PageRow],
    pick: impl Fn(&PageRow) -> Option<&PageSide>,
    f: impl Fn(&PageSide) -> f64,
) -> Vec<f64> {
    pages
        .iter()
        .filter_map(|p| pick(p).filter(|s| s.error.is_none()).map(&f))
        .collect()
}

fn arm_totals(a: &ArmRun) -> Measure {
    a.steps.iter().fold(Measure::default(), |acc, s| acc + s.total)
}

/// Renders `RESULTS.md`.
pub fn markdown(r: &Results) -> String {
    let mut o = String::new();
    let c = &r.ctx;
    let _ = writeln!(
        o,
        "# Aperture vs `@playwright/mcp` and agent-browser: snapshot size, coverage, observation cost, action latency\n"
    );
    let _ = writeln!(
        o,
        "Written by `cargo xtask bench` (`cargo run --release -p aperture-bench`) on {} UTC; the run took {:.0} s.\n",
        c.date, c.seconds
    );
    let _ = writeln!(
        o,
        "Machine: {}. Load average at start / end: {}.\n",
        c.machine, c.load
    );
    o.push_str("| component | version |\n| --- | --- |\n");
    for (k, v) in &c.versions {
        let _ = writeln!(o, "| {k} | {v} |");
    }
    o.push('\n');
    for (k, v) in &c.commands {
        let _ = writeln!(o, "{k}: `{v}`\n");
    }
    if !c.gaps.is_empty() {
        o.push_str("## Not measured in this run\n\n");
        for g in &c.gaps {
            let _ = writeln!(o, "- {g}");
        }
        o.push('\n');
    }

    o.push_str(&headline(r));
    o.push_str(&targets(r));
    o.push_str(SCOPE);

    // Headline.
    let ok = both_ok(&r.pages);
    let inc = |f: &dyn Fn(&PageSide) -> f64| summarize(&side_values(&r.pages, |p| p.incumbent.as_ref(), f));
    let ap = |f: &dyn Fn(&PageSide) -> f64| summarize(&side_values(&r.pages, |p| p.aperture.as_ref(), f));
    let per_page_ratio = |f: &dyn Fn(&PageSide) -> f64| {
        summarize(
            &ok.iter()
                .filter_map(|(_, i, a)| ratio(f(a), f(i)))
                .collect::<Vec<_>>(),
        )
    };
    let n_inc = r
        .pages
        .iter()
        .filter(|p| p.incumbent.as_ref().is_some_and(|s| s.error.is_none()))
        .count();
    let n_ap = r
        .pages
        .iter()
        .filter(|p| p.aperture.as_ref().is_some_and(|s| s.error.is_none()))
        .count();
    let _ = writeln!(
        o,
        "## Corpus: {} pages\n\nObserved without error: incumbent {n_inc}, Aperture {n_ap}, both {}. Cells are median (p10–p90) over pages; the ratio column is the median (p10–p90) of per-page ratios Aperture / incumbent over the pages both observed.\n",
        r.pages.len(),
        ok.len()
    );
    o.push_str("| measure | incumbent | Aperture | Aperture / incumbent |\n| --- | --- | --- | --- |\n");
    type Pick = fn(&PageSide) -> f64;
    let rows: [(&str, Pick); 7] = [
        ("full snapshot, characters", |s| s.full.chars as f64),
        ("**full snapshot, tokens (o200k_base)**", |s| s.full.tokens as f64),
        ("refs handed out", |s| s.refs as f64),
        ("**no-change observation, tokens**", |s| s.no_change.tokens as f64),
        ("no-change observation, characters", |s| s.no_change.chars as f64),
        ("navigate answer, tokens", |s| s.nav.tokens as f64),
        ("full snapshot call, ms", |s| s.full.ms),
    ];
    for (name, f) in rows {
        let _ = writeln!(
            o,
            "| {name} | {} | {} | {} |",
            fmt_summary(inc(&f)),
            fmt_summary(ap(&f)),
            fmt_summary(per_page_ratio(&f))
        );
    }
    let nav_ms: Pick = |s| s.nav.ms;
    let _ = writeln!(
        o,
        "| navigate call, ms | {} | {} | {} |",
        fmt_summary(inc(&nav_ms)),
        fmt_summary(ap(&nav_ms)),
        fmt_summary(per_page_ratio(&nav_ms))
    );
    let sum = |f: Pick, side: fn(&PageRow) -> Option<&PageSide>| -> f64 {
        ok.iter().filter_map(|(p, _, _)| side(p)).map(f).sum()
    };
    let ap_n = r.pages.iter().filter(|p| p.aperture.is_some()).count();
    let early = r
        .pages
        .iter()
        .filter(|p| p.aperture.as_ref().is_some_and(|s| s.nav_early))
        .count();
    let unsettled = r
        .pages
        .iter()
        .filter(|p| p.aperture.as_ref().is_some_and(|s| s.settle_rounds > 0))
        .count();
    if ap_n > 0 {
        let _ = writeln!(
            o,
            "\nAperture's load wait: after every `browser_navigate` the harness polls `browser_tabs {{action: list}}` until the current tab is at the page, then takes default (diff) observations 200 ms apart until one says \"no change\" (at most {}), none of them counted, and only then the measured full snapshot: the incumbent's own load wait delivers a loaded page, and this gives Aperture the same. **Defect seen:** on {early} of {ap_n} pages the navigate answer's FULL SNAPSHOT showed another page or less than half of the page at rest, i.e. it was taken before the page had loaded; on {unsettled} pages the DOM was still changing at the first settle observation. The navigate-answer rows above include those early answers as they came.\n",
            crate::run::SETTLE_ROUNDS
        );
    }
    // A page Aperture shows as nearly empty while the incumbent shows a real page was most
    // likely measured before it loaded, despite the settle: say so rather than let it pass as
    // a size win or a coverage loss.
    let suspect: Vec<&str> = ok
        .iter()
        .filter(|(_, i, a)| i.full.tokens >= 1000 && a.full.tokens * 20 < i.full.tokens)
        .map(|(p, _, _)| p.page.as_str())
        .collect();
    if !suspect.is_empty() {
        let _ = writeln!(
            o,
            "\n**Suspect rows:** on {} page(s) ({}) Aperture's measured full snapshot is under 5 % of the incumbent's and the incumbent's is over 1000 tokens: most likely the page had not loaded when it was measured (the settle above is a heuristic). They are left in every aggregate above; their coverage misses are probably that too.\n",
            suspect.len(),
            suspect.join(", ")
        );
    }
    let dialog_pages: Vec<&str> = r
        .pages
        .iter()
        .filter(|p| p.incumbent.as_ref().is_some_and(|s| s.dialogs > 0))
        .map(|p| p.page.as_str())
        .collect();
    if !dialog_pages.is_empty() {
        let _ = writeln!(
            o,
            "\nThe incumbent stopped on a JavaScript dialog (`alert()`) on {} page(s) ({}): every tool call is refused until it is handled, so the harness answered it with `browser_handle_dialog {{accept: true}}` (uncounted) and then took the snapshot.\n",
            dialog_pages.len(),
            dialog_pages.join(", ")
        );
    }
    let tok: Pick = |s| s.full.tokens as f64;
    let (ti, ta) = (
        sum(tok, |p| p.incumbent.as_ref()),
        sum(tok, |p| p.aperture.as_ref()),
    );
    if ti > 0.0 {
        let _ = writeln!(
            o,
            "\nSummed over the {} pages both observed: incumbent {ti:.0} tokens, Aperture {ta:.0} tokens of full snapshots (Aperture / incumbent = {:.3}).\n",
            ok.len(),
            ta / ti
        );
    }

    o.push_str(&agent_browser_corpus(r));

    // tools/list.
    o.push_str("\n## `tools/list`\n\n| | tools | characters (JSON) | tokens |\n| --- | --- | --- | --- |\n");
    for (name, t) in [("incumbent", r.incumbent_tools), ("Aperture", r.aperture_tools)] {
        match t {
            Some(t) => {
                let _ = writeln!(o, "| {name} | {} | {} | {} |", t.count, t.chars, t.tokens);
            }
            None => {
                let _ = writeln!(o, "| {name} | — | — | — |");
            }
        }
    }
    if let (Some(i), Some(a)) = (r.incumbent_tools, r.aperture_tools) {
        let _ = writeln!(
            o,
            "\nAperture / incumbent: {:.3} in tokens. Clients re-send tool definitions with every model request, so this is paid per turn.",
            a.tokens as f64 / i.tokens as f64
        );
    }

    // Coverage, of each peer's actionable elements.
    let inc_cov: Vec<(&str, &Coverage)> = r
        .pages
        .iter()
        .filter_map(|p| p.coverage.as_ref().map(|c| (p.page.as_str(), c)))
        .collect();
    o.push_str(&coverage_section(
        "the incumbent's actionable refs in Aperture's snapshot",
        "the incumbent",
        "Of the misses, **{framed} are inside iframes** (the incumbent's refs whose frame prefix differs from the page root's; marked `[iframe]` below).",
        &inc_cov,
    ));
    let ab_cov: Vec<(&str, &Coverage)> = r
        .pages
        .iter()
        .filter_map(|p| p.ab_coverage.as_ref().map(|c| (p.page.as_str(), c)))
        .collect();
    o.push_str(&coverage_section(
        "agent-browser's actionable refs in Aperture's snapshot",
        "agent-browser",
        "agent-browser's elements are those of its `snapshot -i -c` and `snapshot -c` of the same load, each ref once; an element it marks `clickable` (cursor:pointer or a click listener) under a non-control role counts as role `clickable`.",
        &ab_cov,
    ));

    // Diff economics.
    if !r.arms.is_empty() {
        o.push_str(ECONOMICS);
        let mut head = String::from("| step | action |");
        let mut rule = String::from("| --- | --- |");
        for a in &r.arms {
            let _ = write!(head, " {} tokens |", a.arm.label());
            rule.push_str(" --- |");
        }
        let _ = writeln!(o, "{head}\n{rule}");
        let _ = write!(o, "| 0 | open the fixture (first observation) |");
        for a in &r.arms {
            let _ = write!(o, " {} |", a.initial.tokens);
        }
        o.push('\n');
        for i in 0..crate::script::STEPS.len() {
            let label = r.arms[0]
                .steps
                .get(i)
                .map(|s| s.label.clone())
                .unwrap_or_default();
            let _ = write!(o, "| {} | {} |", i + 1, md_cell(&label, 60));
            for a in &r.arms {
                match a.steps.get(i) {
                    Some(s) => {
                        let mark = if s.note.is_empty() { "" } else { " †" };
                        if s.observe.tokens > 0 && s.act.tokens > 0 {
                            let _ = write!(
                                o,
                                " {} ({} + {}){mark} |",
                                s.total.tokens, s.act.tokens, s.observe.tokens
                            );
                        } else {
                            let _ = write!(o, " {}{mark} |", s.total.tokens);
                        }
                    }
                    None => o.push_str(" — |"),
                }
            }
            o.push('\n');
        }
        let _ = write!(o, "| | **total over 20 actions** |");
        for a in &r.arms {
            let _ = write!(o, " **{}** |", arm_totals(a).tokens);
        }
        o.push('\n');
        let _ = write!(o, "| | median tokens per action |");
        for a in &r.arms {
            let v: Vec<f64> = a.steps.iter().map(|s| s.total.tokens as f64).collect();
            let _ = write!(o, " {} |", fmt_summary(summarize(&v)));
        }
        o.push('\n');
        let _ = write!(o, "| | action call round trip, ms, median (p10–p90) |");
        for a in &r.arms {
            let v: Vec<f64> = a
                .steps
                .iter()
                .filter(|s| s.act.tokens > 0)
                .map(|s| s.act.ms)
                .collect();
            let _ = write!(o, " {} |", fmt_summary(summarize(&v)));
        }
        o.push('\n');
        let _ = write!(o, "| | act and see the result, ms, median (p10–p90) |");
        for a in &r.arms {
            let v: Vec<f64> = a
                .steps
                .iter()
                .filter(|s| s.act.tokens > 0)
                .map(|s| s.total.ms)
                .collect();
            let _ = write!(o, " {} |", fmt_summary(summarize(&v)));
        }
        o.push('\n');
        let _ = write!(o, "| | end state correct |");
        for a in &r.arms {
            if a.end_problems.is_empty() {
                o.push_str(" yes |");
            } else {
                let _ = write!(o, " no: {} |", md_cell(&a.end_problems.join(", "), 120));
            }
        }
        o.push('\n');
        let totals: Vec<(&str, usize)> = r
            .arms
            .iter()
            .map(|a| (a.arm.label(), arm_totals(a).tokens))
            .collect();
        let get = |k: &str| totals.iter().find(|(l, _)| *l == k).map(|(_, t)| *t as f64);
        o.push('\n');
        if let (Some(d), Some(i)) = (get("aperture-diff"), get("incumbent")) {
            let _ = writeln!(
                o,
                "Aperture diff / incumbent over the 20 actions: **{:.3}**.",
                d / i
            );
        }
        if let (Some(d), Some(a)) = (get("aperture-diff"), get("agent-browser")) {
            let _ = writeln!(
                o,
                "Aperture diff / agent-browser `-i --delta` over the 20 actions: **{:.3}** (target ≤ 0.3).",
                d / a
            );
        }
        if let (Some(d), Some(f)) = (get("aperture-diff"), get("aperture-redump")) {
            let _ = writeln!(
                o,
                "Aperture diff / Aperture re-dump: **{:.3}** (the diff mechanism alone, same engine and dialect).",
                d / f
            );
        }
        if let (Some(f), Some(i)) = (get("aperture-redump"), get("incumbent")) {
            let _ = writeln!(
                o,
                "Aperture re-dump / incumbent: {:.3} (dialect and ref discipline alone).",
                f / i
            );
        }
        let notes: Vec<String> = r
            .arms
            .iter()
            .flat_map(|a| {
                a.steps
                    .iter()
                    .filter(|s| !s.note.is_empty())
                    .map(move |s| format!("{} step {}: {}", a.arm.label(), s.step, s.note))
            })
            .collect();
        if !notes.is_empty() {
            o.push_str("\n† Notes:\n\n");
            for n in notes {
                let _ = writeln!(o, "- {}", md_cell(&n, 200));
            }
        }
    }

    // Per page.
    if !r.pages.is_empty() {
        o.push_str("\n## Per page\n\nTokens are o200k_base of the whole tool answer. `ratio` is Aperture / incumbent full-snapshot tokens. `cov` is the share of the incumbent's actionable refs addressable in Aperture (options a select counts included). `ab -c` and `ab -i -c` are agent-browser's `snapshot -c` and `snapshot -i -c`, `ap inter` Aperture's actionable-only look, `ab cov` the share of agent-browser's actionable refs addressable in Aperture. The same numbers, with characters and timings, are in `results.csv`.\n\n| page | inc tokens | inc refs | ap tokens | ap refs | ratio | inc no-change | ap no-change | cov | ab -c | ab -i -c | ap inter | ab cov | error |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for p in &r.pages {
            let i = p.incumbent.as_ref();
            let a = p.aperture.as_ref();
            let cell = |s: Option<&PageSide>, f: fn(&PageSide) -> usize| {
                s.map(|s| f(s).to_string()).unwrap_or_else(|| "—".into())
            };
            let rat = match (i, a) {
                (Some(i), Some(a)) => ratio(a.full.tokens as f64, i.full.tokens as f64)
                    .map(|x| format!("{x:.3}"))
                    .unwrap_or_else(|| "—".into()),
                _ => "—".into(),
            };
            let cov_cell = |c: Option<&Coverage>| {
                c.map(|c| {
                    format!(
                        "{:.0} %",
                        pct(c.exact + c.loose + c.counted, c.actionable).floor()
                    )
                })
                .unwrap_or_else(|| "—".into())
            };
            let cov = cov_cell(p.coverage.as_ref());
            let b = p.agent_browser.as_ref();
            let bcell = |f: fn(&crate::agent_browser::AbSide) -> usize| {
                b.map(|s| f(s).to_string()).unwrap_or_else(|| "—".into())
            };
            let mut err: Vec<String> = [("inc", i), ("ap", a)]
                .iter()
                .filter_map(|(k, s)| {
                    s.and_then(|s| s.error.as_ref())
                        .map(|e| format!("{k}: {}", md_cell(e, 80)))
                })
                .collect();
            if let Some(e) = b.and_then(|s| s.error.as_ref()) {
                err.push(format!("ab: {}", md_cell(e, 80)));
            }
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {rat} | {} | {} | {cov} | {} | {} | {} | {} | {} |",
                p.page,
                cell(i, |s| s.full.tokens),
                cell(i, |s| s.refs),
                cell(a, |s| s.full.tokens),
                cell(a, |s| s.refs),
                cell(i, |s| s.no_change.tokens),
                cell(a, |s| s.no_change.tokens),
                bcell(|s| s.compact.tokens),
                bcell(|s| s.interactive.tokens),
                a.and_then(|s| s.interactive)
                    .map(|m| m.tokens.to_string())
                    .unwrap_or_else(|| "—".into()),
                cov_cell(p.ab_coverage.as_ref()),
                err.join("; ")
            );
        }
    }
    o
}

/// One target of issue 15: what it asks, what was measured, and whether it was met.
#[derive(Debug, Clone)]
pub struct Target {
    /// The target as the issue states it.
    pub goal: String,
    /// The measured figure and what it was computed from, or why it was not measured.
    pub measured: String,
    /// `Some(true)` met, `Some(false)` missed, `None` not measured.
    pub pass: Option<bool>,
}

/// Medians of `a` and `b` over the same pages, and the ratio of those medians.
fn median_ratio(pairs: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let a = summarize(&pairs.iter().map(|p| p.0).collect::<Vec<_>>())?.median;
    let b = summarize(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())?.median;
    Some((a, b, ratio(a, b)?))
}

fn ok_side(s: &Option<PageSide>) -> Option<&PageSide> {
    s.as_ref().filter(|s| s.error.is_none())
}

fn ok_ab(p: &PageRow) -> Option<&crate::agent_browser::AbSide> {
    p.agent_browser.as_ref().filter(|s| s.error.is_none())
}

/// A size target: the median of Aperture's `ap` over the median of the peer's `peer` on the
/// pages both observed, at most `max`.
fn size_target(
    goal: String,
    pairs: &[(f64, f64)],
    per_page: bool,
    max: f64,
    peer: &str,
    why_not: &str,
) -> Target {
    match median_ratio(pairs) {
        Some((a, b, x)) => {
            let pp = summarize(
                &pairs
                    .iter()
                    .filter_map(|(a, b)| ratio(*a, *b))
                    .collect::<Vec<_>>(),
            )
            .map(|s| s.median);
            Target {
                goal,
                measured: format!(
                    "{x:.3}× (Aperture median {a:.0} tokens / {peer} median {b:.0}, {} pages{})",
                    pairs.len(),
                    match (per_page, pp) {
                        (true, Some(m)) => format!("; median per-page ratio {m:.3}"),
                        _ => String::new(),
                    }
                ),
                pass: Some(x <= max),
            }
        }
        None => Target {
            goal,
            measured: format!("not measured: {why_not}"),
            pass: None,
        },
    }
}

/// The targets of issue 15, each against what this run measured.
pub fn target_rows(r: &Results) -> Vec<Target> {
    let ab_why = r
        .ab_failure
        .clone()
        .map(|e| format!("agent-browser did not run ({e})"))
        .unwrap_or_else(|| "no page was observed by both".into());
    let inc_full: Vec<(f64, f64)> = r
        .pages
        .iter()
        .filter_map(|p| {
            Some((
                ok_side(&p.aperture)?.full.tokens as f64,
                ok_side(&p.incumbent)?.full.tokens as f64,
            ))
        })
        .collect();
    let ab_full: Vec<(f64, f64)> = r
        .pages
        .iter()
        .filter_map(|p| {
            Some((
                ok_side(&p.aperture)?.full.tokens as f64,
                ok_ab(p)?.compact.tokens as f64,
            ))
        })
        .collect();
    let ab_inter: Vec<(f64, f64)> = r
        .pages
        .iter()
        .filter_map(|p| {
            Some((
                ok_side(&p.aperture)?.interactive?.tokens as f64,
                ok_ab(p)?.interactive.tokens as f64,
            ))
        })
        .collect();
    let mut t = vec![
        size_target(
            "median full first look ≤ 0.35× @playwright/mcp's".into(),
            &inc_full,
            true,
            0.35,
            "@playwright/mcp",
            "no page was observed by both",
        ),
        size_target(
            "median full first look ≤ 0.5× agent-browser `snapshot -c`".into(),
            &ab_full,
            true,
            0.5,
            "agent-browser -c",
            &ab_why,
        ),
        size_target(
            "actionable-only mode (`interactive: true`) ≤ agent-browser `snapshot -i -c` (median)".into(),
            &ab_inter,
            true,
            1.0,
            "agent-browser -i -c",
            &ab_why,
        ),
    ];
    for (peer, rows, why) in [
        (
            "@playwright/mcp",
            r.pages
                .iter()
                .filter_map(|p| p.coverage.as_ref().map(|c| (p.page.as_str(), c)))
                .collect::<Vec<_>>(),
            "no page was observed by both".to_string(),
        ),
        (
            "agent-browser",
            r.pages
                .iter()
                .filter_map(|p| p.ab_coverage.as_ref().map(|c| (p.page.as_str(), c)))
                .collect(),
            ab_why.clone(),
        ),
    ] {
        let goal = format!("coverage of {peer}'s actionable elements ≥ 99.5 % (select options included)");
        let (act, exact, loose, counted, miss, _) = coverage_totals(&rows);
        t.push(if rows.is_empty() {
            Target {
                goal,
                measured: format!("not measured: {why}"),
                pass: None,
            }
        } else {
            let share = pct(exact + loose + counted, act);
            Target {
                goal,
                measured: format!(
                    "{share:.2} % ({miss} of {act} missing over {} pages; {counted} options addressable through their select's count; {:.2} % shown by name)",
                    rows.len(),
                    pct(exact + loose, act)
                ),
                pass: Some(share >= 99.5),
            }
        });
    }
    let total = |k: Arm| r.arms.iter().find(|a| a.arm == k);
    let goal = "20-step act-and-observe total ≤ 0.3× agent-browser `-i --delta`".to_string();
    t.push(match (total(Arm::ApertureDiff), total(Arm::AgentBrowser)) {
        (Some(d), Some(a)) => {
            let (dt, at) = (arm_totals(d).tokens as f64, arm_totals(a).tokens as f64);
            let x = ratio(dt, at).unwrap_or(f64::INFINITY);
            let broken: Vec<&str> = [(d, "Aperture"), (a, "agent-browser")]
                .iter()
                .filter(|(arm, _)| !arm.end_problems.is_empty() || arm.steps.iter().any(|s| s.act.tokens == 0))
                .map(|(_, n)| *n)
                .collect();
            Target {
                goal,
                measured: format!(
                    "{x:.3}× (Aperture diff {dt:.0} tokens / agent-browser {at:.0}; with the first look: {} / {}){}",
                    dt as usize + d.initial.tokens,
                    at as usize + a.initial.tokens,
                    if broken.is_empty() {
                        String::new()
                    } else {
                        format!("; **not like for like**: the end state or a step failed for {}", broken.join(" and "))
                    }
                ),
                pass: Some(x <= 0.3 && broken.is_empty()),
            }
        }
        (None, _) => Target {
            goal,
            measured: "not measured: Aperture's diff arm did not run".into(),
            pass: None,
        },
        (_, None) => Target {
            goal,
            measured: format!("not measured: {ab_why}"),
            pass: None,
        },
    });
    t
}

/// The targets table, and the list of what was not reached.
fn targets(r: &Results) -> String {
    let rows = target_rows(r);
    let mut o = String::from(
        "## Targets (issue 15)\n\nSize targets compare the median of Aperture's tokens with the median of the peer's over the pages both observed without error (the per-page ratio's median is given beside it); coverage counts an option a select lists as `+N` as addressable (it is reached by label through `browser_act select`), and also gives the share shown by name.\n\n| target | measured | result |\n| --- | --- | --- |\n",
    );
    for t in &rows {
        let verdict = match t.pass {
            Some(true) => "**pass**",
            Some(false) => "**miss**",
            None => "not measured",
        };
        let _ = writeln!(o, "| {} | {} | {verdict} |", t.goal, md_cell(&t.measured, 400));
    }
    let missed: Vec<&Target> = rows.iter().filter(|t| t.pass != Some(true)).collect();
    if missed.is_empty() {
        o.push_str("\nEvery target was reached in this run.\n\n");
    } else {
        o.push_str("\nNot reached in this run:\n\n");
        for t in missed {
            let _ = writeln!(
                o,
                "- {}: {}",
                t.goal,
                if t.pass.is_none() {
                    t.measured.as_str()
                } else {
                    "missed (see the figure above and the sections below)"
                }
            );
        }
        o.push('\n');
    }
    o
}

/// Aperture's full and actionable-only first looks against agent-browser's `-c` and `-i -c`.
fn agent_browser_corpus(r: &Results) -> String {
    let mut o = String::new();
    let both: Vec<(&PageRow, &PageSide, &crate::agent_browser::AbSide)> = r
        .pages
        .iter()
        .filter_map(|p| Some((p, ok_side(&p.aperture)?, ok_ab(p)?)))
        .collect();
    let n_ab = r.pages.iter().filter(|p| ok_ab(p).is_some()).count();
    let ran = r.pages.iter().any(|p| p.agent_browser.is_some());
    o.push_str("\n## Corpus: Aperture against agent-browser\n\n");
    if !ran {
        let _ = writeln!(
            o,
            "Not measured: {}.\n",
            r.ab_failure
                .as_deref()
                .map(|e| format!("agent-browser did not run ({e})"))
                .unwrap_or_else(|| "agent-browser was not run".into())
        );
        return o;
    }
    let _ = writeln!(
        o,
        "agent-browser observed {n_ab} of {} pages without error; Aperture and agent-browser both: {}. After `open` (which waits for the load) the harness repeats `snapshot -c` 200 ms apart until two in a row are equal (at most 4 extra, uncounted; the last is measured), then takes `snapshot -i -c`. Aperture's actionable-only look is `browser_snapshot {{full: true, interactive: true}}` on the same load as its full snapshot. Cells are median (p10–p90) over the pages both observed; ratios are medians of per-page ratios.\n",
        r.pages.len(),
        both.len()
    );
    type Pair = fn(&PageSide, &crate::agent_browser::AbSide) -> Option<(f64, f64)>;
    let rows: [(&str, Pair); 4] = [
        (
            "full first look: Aperture full snapshot vs agent-browser `snapshot -c`, tokens",
            |a, b| Some((a.full.tokens as f64, b.compact.tokens as f64)),
        ),
        (
            "actionable only: Aperture `interactive` vs agent-browser `snapshot -i -c`, tokens",
            |a, b| Some((a.interactive?.tokens as f64, b.interactive.tokens as f64)),
        ),
        (
            "refs handed out (Aperture full snapshot vs agent-browser `-c`)",
            |a, b| Some((a.refs as f64, b.refs as f64)),
        ),
        (
            "snapshot call, ms (Aperture full vs agent-browser `-c`)",
            |a, b| Some((a.full.ms, b.compact.ms)),
        ),
    ];
    o.push_str(
        "| measure | agent-browser | Aperture | Aperture / agent-browser |\n| --- | --- | --- | --- |\n",
    );
    for (name, f) in rows {
        let pairs: Vec<(f64, f64)> = both.iter().filter_map(|(_, a, b)| f(a, b)).collect();
        let _ = writeln!(
            o,
            "| {name} | {} | {} | {} |",
            fmt_summary(summarize(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())),
            fmt_summary(summarize(&pairs.iter().map(|p| p.0).collect::<Vec<_>>())),
            fmt_summary(summarize(
                &pairs
                    .iter()
                    .filter_map(|(a, b)| ratio(*a, *b))
                    .collect::<Vec<_>>()
            ))
        );
    }
    let sum = |f: Pair| {
        both.iter()
            .filter_map(|(_, a, b)| f(a, b))
            .fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1))
    };
    let (fa, fb) = sum(|a, b| Some((a.full.tokens as f64, b.compact.tokens as f64)));
    let (ia, ib) = sum(|a, b| Some((a.interactive?.tokens as f64, b.interactive.tokens as f64)));
    if fb > 0.0 && ib > 0.0 {
        let _ = writeln!(
            o,
            "\nSummed over those pages: full first looks Aperture {fa:.0} / agent-browser `-c` {fb:.0} tokens ({:.3}); actionable only Aperture {ia:.0} / agent-browser `-i -c` {ib:.0} ({:.3}).",
            fa / fb,
            ia / ib
        );
    }
    let over: Vec<String> = both
        .iter()
        .filter_map(|(p, a, b)| {
            let x = ratio(a.interactive?.tokens as f64, b.interactive.tokens as f64)?;
            (x > 1.0).then(|| format!("{} ({x:.2})", p.page))
        })
        .collect();
    if !over.is_empty() {
        let _ = writeln!(
            o,
            "\nPages where Aperture's actionable-only look is larger than agent-browser's `-i -c` ({}): {}.",
            over.len(),
            over.join(", ")
        );
    }
    let errs: Vec<String> = r
        .pages
        .iter()
        .filter_map(|p| {
            p.agent_browser
                .as_ref()?
                .error
                .as_ref()
                .map(|e| format!("{}: {}", p.page, md_cell(e, 100)))
        })
        .collect();
    if !errs.is_empty() {
        let _ = writeln!(o, "\nagent-browser errors ({}): {}.", errs.len(), errs.join("; "));
    }
    let unsettled = r
        .pages
        .iter()
        .filter(|p| p.agent_browser.as_ref().is_some_and(|s| s.settle_rounds >= 4))
        .count();
    if unsettled > 0 {
        let _ = writeln!(
            o,
            "\nOn {unsettled} page(s) agent-browser's `snapshot -c` still changed after 4 extra rounds (a ticking clock or an animation); the last was measured."
        );
    }
    o
}

/// Totals of coverage rows: (actionable, exact, loose, counted, missing, missing in frames).
fn coverage_totals(rows: &[(&str, &Coverage)]) -> (usize, usize, usize, usize, usize, usize) {
    rows.iter().fold((0, 0, 0, 0, 0, 0), |t, (_, c)| {
        (
            t.0 + c.actionable,
            t.1 + c.exact,
            t.2 + c.loose,
            t.3 + c.counted,
            t.4 + c.missing.len(),
            t.5 + c.missing_in_frames,
        )
    })
}

/// Share of `act` that `k` is, in per cent (100 when there is nothing to cover).
fn pct(k: usize, act: usize) -> f64 {
    if act == 0 {
        100.0
    } else {
        100.0 * k as f64 / act as f64
    }
}

/// The coverage section of one peer, with its misses by page. `frames` is said after the
/// totals; `{framed}` in it is replaced by the misses inside iframes.
fn coverage_section(what: &str, peer: &str, frames: &str, rows: &[(&str, &Coverage)]) -> String {
    let mut o = String::new();
    if rows.is_empty() {
        return o;
    }
    let (act, exact, loose, counted, miss, framed) = coverage_totals(rows);
    let _ = writeln!(
        o,
        "\n## Coverage: {what}\n\nOver {} pages both observed: {peer} gave refs to **{act}** actionable elements (roles: {}). In Aperture's full snapshot of the same load, {exact} have a ref'd element of the same kind and name, {loose} match loosely (same name on another role, e.g. `clickable`; or an unnamed control of the same kind), {counted} are options of a select that Aperture counts (`+N`) instead of listing (addressable by label through `browser_act select`, not shown; counted as addressable), and **{miss} are missing** ({:.2} % addressable, {:.2} % without the counted options). Matching is one-to-one in document order; names compare case-insensitively with whitespace and invisible characters removed (the products join text nodes differently, and Aperture strips invisible characters), and a name Aperture cut at its 200-character cap matches by prefix. {}\n",
        rows.len(),
        crate::coverage::ACTIONABLE.join(", "),
        pct(exact + loose + counted, act),
        pct(exact + loose, act),
        frames.replace("{framed}", &framed.to_string()),
    );
    let mut with_miss: Vec<&(&str, &Coverage)> = rows.iter().filter(|(_, c)| !c.missing.is_empty()).collect();
    with_miss.sort_by_key(|(_, c)| std::cmp::Reverse(c.missing.len()));
    if !with_miss.is_empty() {
        let _ = writeln!(
            o,
            "Misses of {peer}'s elements by page ({} pages with at least one; all of them, most first; up to 6 examples each):\n\n| page | actionable | missing | examples |\n| --- | --- | --- | --- |",
            with_miss.len()
        );
        for (page, c) in with_miss {
            let ex: Vec<String> = c.missing.iter().take(6).map(|m| md_cell(m, 60)).collect();
            let _ = writeln!(
                o,
                "| {page} | {} | {} | {} |",
                c.actionable,
                c.missing.len(),
                ex.join("; ")
            );
        }
    }
    o
}

/// The few numbers a reader wants first, each pointing at the section that qualifies it.
fn headline(r: &Results) -> String {
    let mut o = String::from("## Headline\n\n");
    let ok = both_ok(&r.pages);
    let med = |v: Vec<f64>| summarize(&v).map(|s| s.median);
    if !ok.is_empty() {
        let ti = med(ok.iter().map(|(_, i, _)| i.full.tokens as f64).collect());
        let ta = med(ok.iter().map(|(_, _, a)| a.full.tokens as f64).collect());
        let rt = med(ok
            .iter()
            .filter_map(|(_, i, a)| ratio(a.full.tokens as f64, i.full.tokens as f64))
            .collect());
        if let (Some(ti), Some(ta), Some(rt)) = (ti, ta, rt) {
            let _ = writeln!(
                o,
                "- Full snapshot, median over the {} corpus pages both observed: incumbent {ti:.0} tokens, Aperture {ta:.0}; median per-page ratio Aperture / incumbent **{rt:.3}**.",
                ok.len()
            );
        }
        let ni = med(ok.iter().map(|(_, i, _)| i.no_change.tokens as f64).collect());
        let na = med(ok.iter().map(|(_, _, a)| a.no_change.tokens as f64).collect());
        if let (Some(ni), Some(na)) = (ni, na) {
            let _ = writeln!(
                o,
                "- Observation with nothing changed, median: incumbent {ni:.0} tokens (a re-dump), Aperture {na:.0}."
            );
        }
        let (mut act, mut miss, mut framed) = (0, 0, 0);
        for p in r.pages.iter().filter_map(|p| p.coverage.as_ref()) {
            act += p.actionable;
            miss += p.missing.len();
            framed += p.missing_in_frames;
        }
        if act > 0 {
            let _ = writeln!(
                o,
                "- Coverage: {miss} of the incumbent's {act} actionable refs have no addressable counterpart in Aperture's snapshot ({:.1} % covered); {framed} of those misses are inside iframes.",
                100.0 * (act - miss) as f64 / act as f64
            );
        }
    }
    if let (Some(i), Some(a)) = (r.incumbent_tools, r.aperture_tools) {
        let _ = writeln!(
            o,
            "- `tools/list`: incumbent {} tools, {} tokens; Aperture {} tools, {} tokens.",
            i.count, i.tokens, a.count, a.tokens
        );
    }
    let total = |k: Arm| {
        r.arms
            .iter()
            .find(|a| a.arm == k)
            .map(|a| arm_totals(a).tokens as f64)
    };
    let rtt = |k: Arm| {
        r.arms.iter().find(|a| a.arm == k).and_then(|a| {
            med(a
                .steps
                .iter()
                .filter(|s| s.act.tokens > 0)
                .map(|s| s.total.ms)
                .collect())
        })
    };
    if let (Some(i), Some(d)) = (total(Arm::Incumbent), total(Arm::ApertureDiff)) {
        let redump = total(Arm::ApertureRedump)
            .map(|f| {
                format!(
                    ", Aperture forced to re-dump {f:.0} (diff / re-dump {:.3})",
                    d / f
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "- 20 scripted actions on the interactive fixture, tokens to act and see each result: incumbent {i:.0}, Aperture diff {d:.0} (**{:.3}×**){redump}.",
            d / i
        );
    }
    let ab_pairs: Vec<(f64, f64, f64, f64)> = r
        .pages
        .iter()
        .filter_map(|p| {
            let a = ok_side(&p.aperture)?;
            let b = ok_ab(p)?;
            Some((
                a.full.tokens as f64,
                b.compact.tokens as f64,
                a.interactive?.tokens as f64,
                b.interactive.tokens as f64,
            ))
        })
        .collect();
    if let (Some(af), Some(bc), Some(ai), Some(bi)) = (
        med(ab_pairs.iter().map(|p| p.0).collect()),
        med(ab_pairs.iter().map(|p| p.1).collect()),
        med(ab_pairs.iter().map(|p| p.2).collect()),
        med(ab_pairs.iter().map(|p| p.3).collect()),
    ) {
        let _ = writeln!(
            o,
            "- Against agent-browser, medians over the {} pages both observed: full first look Aperture {af:.0} tokens, agent-browser `snapshot -c` {bc:.0}; actionable only Aperture {ai:.0}, agent-browser `snapshot -i -c` {bi:.0}.",
            ab_pairs.len()
        );
    }
    if let (Some(b), Some(d)) = (total(Arm::AgentBrowser), total(Arm::ApertureDiff)) {
        let _ = writeln!(
            o,
            "- The same 20 actions through agent-browser, observing each with `snapshot -i --delta`: {b:.0} tokens; Aperture diff / agent-browser **{:.3}×**.",
            d / b
        );
    }
    if let (Some(i), Some(d)) = (rtt(Arm::Incumbent), rtt(Arm::ApertureDiff)) {
        let _ = writeln!(
            o,
            "- Act and see the result, median round trip: incumbent {i:.0} ms (action + snapshot), Aperture {d:.0} ms (action answered with its diff)."
        );
    }
    if o.ends_with("\n\n") {
        o.push_str("- Nothing was compared in this run: see above for what did not run.\n");
    }
    o.push('\n');
    o
}

/// Text made safe for one Markdown table cell, shortened to `max` characters.
pub fn md_cell(s: &str, max: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut t: String = one.chars().take(max).collect();
    if one.chars().count() > max {
        t.push('…');
    }
    t.replace('|', "\\|").replace('`', "'")
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `results.csv`: one row per corpus page.
pub fn pages_csv(pages: &[PageRow]) -> String {
    let mut o = String::from(
        "page,inc_full_chars,inc_full_tokens,inc_refs,inc_nochange_chars,inc_nochange_tokens,inc_nav_tokens,inc_nav_ms,inc_full_ms,ap_full_chars,ap_full_tokens,ap_refs,ap_nochange_chars,ap_nochange_tokens,ap_nav_tokens,ap_nav_ms,ap_full_ms,ap_nav_early,ap_settle_rounds,inc_dialogs,ratio_chars,ratio_tokens,cov_actionable,cov_exact,cov_loose,cov_missing,inc_error,ap_error,missing,ap_interactive_tokens,ab_open_ms,ab_c_chars,ab_c_tokens,ab_c_ms,ab_ic_chars,ab_ic_tokens,ab_refs,ab_settle_rounds,abcov_actionable,abcov_exact,abcov_loose,abcov_counted,abcov_missing,ab_error,ab_missing\n",
    );
    for p in pages {
        let mut f: Vec<String> = vec![csv_field(&p.page)];
        for s in [&p.incumbent, &p.aperture] {
            match s {
                Some(s) => {
                    f.extend([
                        s.full.chars.to_string(),
                        s.full.tokens.to_string(),
                        s.refs.to_string(),
                        s.no_change.chars.to_string(),
                        s.no_change.tokens.to_string(),
                        s.nav.tokens.to_string(),
                        format!("{:.1}", s.nav.ms),
                        format!("{:.1}", s.full.ms),
                    ]);
                }
                None => f.extend(std::iter::repeat_n(String::new(), 8)),
            }
        }
        let (i, a) = (&p.incumbent, &p.aperture);
        f.push(a.as_ref().map(|s| s.nav_early.to_string()).unwrap_or_default());
        f.push(
            a.as_ref()
                .map(|s| s.settle_rounds.to_string())
                .unwrap_or_default(),
        );
        f.push(i.as_ref().map(|s| s.dialogs.to_string()).unwrap_or_default());
        let r = |g: fn(&PageSide) -> f64| match (i, a) {
            (Some(i), Some(a)) => ratio(g(a), g(i)).map(|x| format!("{x:.4}")).unwrap_or_default(),
            _ => String::new(),
        };
        f.push(r(|s| s.full.chars as f64));
        f.push(r(|s| s.full.tokens as f64));
        match &p.coverage {
            Some(c) => f.extend([
                c.actionable.to_string(),
                c.exact.to_string(),
                c.loose.to_string(),
                c.missing.len().to_string(),
            ]),
            None => f.extend(std::iter::repeat_n(String::new(), 4)),
        }
        for s in [i, a] {
            f.push(csv_field(
                s.as_ref().and_then(|s| s.error.as_deref()).unwrap_or(""),
            ));
        }
        f.push(csv_field(
            &p.coverage
                .as_ref()
                .map(|c| c.missing.join(" | "))
                .unwrap_or_default(),
        ));
        f.push(
            a.as_ref()
                .and_then(|s| s.interactive)
                .map(|m| m.tokens.to_string())
                .unwrap_or_default(),
        );
        match &p.agent_browser {
            Some(b) => f.extend([
                format!("{:.1}", b.open.ms),
                b.compact.chars.to_string(),
                b.compact.tokens.to_string(),
                format!("{:.1}", b.compact.ms),
                b.interactive.chars.to_string(),
                b.interactive.tokens.to_string(),
                b.refs.to_string(),
                b.settle_rounds.to_string(),
            ]),
            None => f.extend(std::iter::repeat_n(String::new(), 8)),
        }
        match &p.ab_coverage {
            Some(c) => f.extend([
                c.actionable.to_string(),
                c.exact.to_string(),
                c.loose.to_string(),
                c.counted.to_string(),
                c.missing.len().to_string(),
            ]),
            None => f.extend(std::iter::repeat_n(String::new(), 5)),
        }
        f.push(csv_field(
            p.agent_browser
                .as_ref()
                .and_then(|s| s.error.as_deref())
                .unwrap_or(""),
        ));
        f.push(csv_field(
            &p.ab_coverage
                .as_ref()
                .map(|c| c.missing.join(" | "))
                .unwrap_or_default(),
        ));
        o.push_str(&f.join(","));
        o.push('\n');
    }
    o
}

/// `economics.csv`: one row per arm and step.
pub fn economics_csv(arms: &[ArmRun]) -> String {
    let mut o = String::from(
        "arm,step,action,act_chars,act_tokens,act_ms,observe_chars,observe_tokens,observe_ms,total_tokens,note\n",
    );
    for a in arms {
        let _ = writeln!(
            o,
            "{},0,open fixture,{},{},{:.1},0,0,0,{},",
            a.arm.label(),
            a.initial.chars,
            a.initial.tokens,
            a.initial.ms,
            a.initial.tokens
        );
        for s in &a.steps {
            let _ = writeln!(
                o,
                "{},{},{},{},{},{:.1},{},{},{:.1},{},{}",
                a.arm.label(),
                s.step,
                csv_field(&s.label),
                s.act.chars,
                s.act.tokens,
                s.act.ms,
                s.observe.chars,
                s.observe.tokens,
                s.observe.ms,
                s.total.tokens,
                csv_field(&s.note)
            );
        }
    }
    o
}

const SCOPE: &str = "## Scope\n\n\
- Both MCP products are driven over MCP by this harness as a client would drive them: the incumbent over stdio (rmcp's child-process transport), Aperture over streamable HTTP with its bearer token. agent-browser is driven through its CLI, one command per call, as its own guide tells an agent to; what is counted is the command's whole output (stdout and stderr). No model is in the loop; nothing here measures task success or agent cost per episode.\n\
- agent-browser runs on the same Debian Chromium as the incumbent with the same switches (`--no-sandbox` and the offline ones, through `AGENT_BROWSER_ARGS`), in a session of its own for the corpus and another for the fixture. Its refs are `@eN`; its snapshots are taken after `open`, which waits for the load event.\n\
- Pages are the 130 saved pages of `shared/corpus/pages`, served by one loopback HTTP server in the harness. Only the HTML itself is served: any subresource on the same server is a 404 and the machine has no route out, so pages render without the third-party scripts, styles and images they reference, identically for both browsers.\n\
- \"Full snapshot\" is the whole text answer of an explicit `browser_snapshot` call right after the navigation (`{full: true}` for Aperture), including each product's headers and envelope: what an agent's context pays. The incumbent's `browser_navigate` answer in this version carries only a link to a snapshot file, so an agent must call `browser_snapshot` to see the page.\n\
- \"No-change observation\" is a second `browser_snapshot` immediately after the first, nothing done in between (Aperture's default mode: a diff; the incumbent has no diff and re-dumps).\n\
- Refs handed out: distinct refs in the full snapshot. The incumbent numbers nearly every element; Aperture gives refs only to actionable ones.\n\
- Load conditions are the same for all three: each browser is started with `--host-resolver-rules` that fail every host but 127.0.0.1 at once (Aperture through its `--chromium-switch`, the others through their Chromium arguments), so no load waits on a lookup of a saved page's third-party hosts, which could not succeed on this machine anyway.\n\
- Aperture's corpus pass loads pages in three tabs at once (to keep the run within its time budget); the incumbent's pass is one page at a time. Per-call times of Aperture's corpus pass were therefore taken with neighbour tabs busy; the diff-economics run is one tab at a time for every arm.\n\
- Aperture runs with its defaults (tracker blocking on); the incumbent with its defaults (code generation on, so its action answers carry the Playwright code they ran).\n\
- One run, single pass, on a shared 2-core machine: times are indicative, not benchmarks of either engine. Timings include each product's own waiting (the incumbent waits for triggered work to settle after an action).\n\n";

const ECONOMICS: &str = "\n## Diff economics: 20 scripted actions on an interactive fixture\n\n\
Fixture: `bench/fixtures/workbench.html`, one page with a list that is rebuilt from scratch on every change (rows with identical `Edit` buttons and named `Remove …` buttons), a form that is typed into with a live character counter and a status line, a three-tab panel, and a clock that ticks every second throughout. Navigation chrome and footer links give it a modest weight. Each arm gets a fresh tab (Aperture) or session (incumbent, agent-browser) and runs the same 20 actions, aiming each by role and name at the ref that product last showed.\n\n\
- **incumbent**: `browser_click` / `browser_type`, then `browser_snapshot` to see the result (its action answers name a snapshot file rather than carrying one). Cell: total (action answer + snapshot).\n\
- **aperture-diff**: `browser_act`; its answer is the diff against what the agent holds, and that is the observation. A refused stale ref would cost a full re-observation and a retry, counted in the step (†).\n\
- **agent-browser**: `click @eN` / `fill @eN TEXT` on its CLI, then `snapshot -i --delta` (its actionable-only view, answered after the first time by `unchanged`, a JSON delta, or the whole view again when the change is structural). A failed ref costs `snapshot -i --delta --full` and a retry, counted in the step (†). Cell: total (action output + observation).\n\
- **aperture-redump**: `browser_act`, then `browser_snapshot {full: true}` every time. Cell: total (action answer, which still carries a diff, + full snapshot); a true re-dump engine would not send the diff, so the second number alone is the re-dump observation.\n\n\
Tokens are o200k_base of the whole tool answers.\n\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn side(tokens: usize) -> PageSide {
        PageSide {
            full: Measure {
                chars: tokens * 4,
                tokens,
                ms: 10.0,
                is_error: false,
            },
            refs: tokens / 10,
            ..Default::default()
        }
    }

    #[test]
    fn report_and_csv_carry_every_page_and_the_ratio() {
        let pages = vec![
            PageRow {
                page: "a.html".into(),
                incumbent: Some(side(1000)),
                aperture: Some(side(400)),
                coverage: Some(Coverage {
                    actionable: 3,
                    exact: 2,
                    loose: 0,
                    counted: 0,
                    missing: vec!["link \"x|y\"".into()],
                    missing_in_frames: 0,
                }),
                ..Default::default()
            },
            PageRow {
                page: "b,c.html".into(),
                incumbent: Some(side(2000)),
                ..Default::default()
            },
        ];
        let r = Results {
            pages: pages.clone(),
            ..Default::default()
        };
        let md = markdown(&r);
        assert!(md.contains("| a.html | 1000 | 100 | 400 | 40 | 0.400 |"), "{md}");
        assert!(md.contains("link \"x\\|y\""), "pipes are escaped in cells");
        assert!(md.contains("**1 are missing**"));
        let csv = pages_csv(&pages);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        let cols = lines[0].split(',').count();
        assert_eq!(lines[1].split(',').count(), cols, "{}", lines[1]);
        assert!(lines[1].contains(",0.4000,"));
        assert!(lines[2].starts_with("\"b,c.html\","));
    }

    fn ab(compact: usize, interactive: usize) -> crate::agent_browser::AbSide {
        let m = |tokens| Measure {
            tokens,
            ..Default::default()
        };
        crate::agent_browser::AbSide {
            compact: m(compact),
            interactive: m(interactive),
            ..Default::default()
        }
    }

    fn cov(actionable: usize, exact: usize, counted: usize) -> Coverage {
        Coverage {
            actionable,
            exact,
            counted,
            missing: (exact + counted..actionable)
                .map(|i| format!("link \"m{i}\""))
                .collect(),
            ..Default::default()
        }
    }

    fn arm(arm: Arm, per_step: usize) -> ArmRun {
        let m = Measure {
            tokens: per_step,
            ..Default::default()
        };
        ArmRun {
            arm,
            initial: m,
            steps: (1..=20)
                .map(|step| crate::run::StepRow {
                    step,
                    label: String::new(),
                    act: m,
                    observe: Measure::default(),
                    total: m,
                    note: String::new(),
                })
                .collect(),
            end_problems: Vec::new(),
        }
    }

    #[test]
    fn targets_are_judged_against_both_peers() {
        let mut ap = side(300);
        ap.interactive = Some(Measure {
            tokens: 90,
            ..Default::default()
        });
        let page = |name: &str| PageRow {
            page: name.into(),
            incumbent: Some(side(1000)),
            aperture: Some(ap.clone()),
            coverage: Some(cov(1000, 996, 0)),
            agent_browser: Some(ab(700, 100)),
            ab_coverage: Some(cov(1000, 990, 6)),
        };
        let r = Results {
            pages: vec![page("a.html"), page("b.html")],
            arms: vec![arm(Arm::ApertureDiff, 10), arm(Arm::AgentBrowser, 40)],
            ..Default::default()
        };
        let t = target_rows(&r);
        let verdicts: Vec<Option<bool>> = t.iter().map(|t| t.pass).collect();
        // 0.3 ≤ 0.35; 0.43 ≤ 0.5; 90 ≤ 100; 99.6 % ≥ 99.5; 99.6 % counting 6 counted options;
        // 200 / 800 = 0.25 ≤ 0.3.
        assert_eq!(verdicts, vec![Some(true); 6], "{t:?}");
        assert!(t[4].measured.starts_with("99.60 %"), "{}", t[4].measured);

        let mut worse = r.clone();
        worse.pages[0].ab_coverage = Some(cov(1000, 980, 0));
        worse.arms[0] = arm(Arm::ApertureDiff, 13);
        let t = target_rows(&worse);
        assert_eq!(t[4].pass, Some(false), "98.8 % over both pages");
        assert_eq!(t[5].pass, Some(false), "0.325×");
        let md = markdown(&worse);
        assert!(md.contains("Not reached in this run"));
        assert!(md.contains("Misses of agent-browser's elements by page"));
        assert!(md.contains("| a.html | 1000 | 20 |"), "{md}");

        let mut none = r.clone();
        for p in &mut none.pages {
            p.agent_browser = None;
            p.ab_coverage = None;
        }
        none.arms.truncate(1);
        none.ab_failure = Some("npm install agent-browser@0.41.2 failed".into());
        let t = target_rows(&none);
        assert_eq!(t[0].pass, Some(true));
        for k in [1, 2, 4, 5] {
            assert_eq!(t[k].pass, None);
            assert!(
                t[k].measured.contains("npm install agent-browser@0.41.2 failed"),
                "{}",
                t[k].measured
            );
        }
        let md = markdown(&none);
        assert!(md.contains("| not measured |"));
        assert!(md.contains("## Corpus: Aperture against agent-browser\n\nNot measured: agent-browser did not run (npm install"));
    }

    #[test]
    fn cells_are_shortened_and_escaped() {
        assert_eq!(md_cell("a  b\n|c", 10), "a b \\|c");
        assert_eq!(md_cell("abcdef", 3), "abc…");
    }
}
