//! `RESULTS.md` and the CSV files.

use std::fmt::Write as _;

use crate::client::ToolsSize;
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
        "# Aperture vs `@playwright/mcp`: snapshot size, observation cost, action latency\n"
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

    // Coverage.
    let covered: Vec<&PageRow> = r.pages.iter().filter(|p| p.coverage.is_some()).collect();
    if !covered.is_empty() {
        let (mut act, mut exact, mut loose, mut miss, mut framed, mut counted) = (0, 0, 0, 0, 0, 0);
        for p in &covered {
            let c = p.coverage.as_ref().expect("filtered");
            act += c.actionable;
            exact += c.exact;
            loose += c.loose;
            counted += c.counted;
            miss += c.missing.len();
            framed += c.missing_in_frames;
        }
        let _ = writeln!(
            o,
            "\n## Coverage: the incumbent's actionable refs in Aperture's snapshot\n\nOver {} pages both observed: the incumbent gave refs to **{act}** actionable elements (roles: {}). In Aperture's full snapshot of the same load, {exact} have a ref'd element of the same kind and name, {loose} match loosely (same name on another role, e.g. `clickable`; or an unnamed control of the same kind), {counted} are options of a select that Aperture counts (`+N`) instead of listing (addressable by label through `browser_act select`, not shown; counted as addressable), and **{miss} are missing** ({:.1} % addressable, {:.1} % without the counted options). Matching is one-to-one in document order; names compare case-insensitively with whitespace and invisible characters removed (the two products join text nodes differently, and Aperture strips invisible characters), and a name Aperture cut at its 200-character cap matches by prefix. Of the misses, **{framed} are inside iframes** (the incumbent's refs whose frame prefix differs from the page root's; marked `[iframe]` below).\n",
            covered.len(),
            crate::coverage::ACTIONABLE.join(", "),
            if act == 0 {
                100.0
            } else {
                100.0 * (exact + loose + counted) as f64 / act as f64
            },
            if act == 0 {
                100.0
            } else {
                100.0 * (exact + loose) as f64 / act as f64
            }
        );
        let mut with_miss: Vec<&&PageRow> = covered
            .iter()
            .filter(|p| !p.coverage.as_ref().expect("filtered").missing.is_empty())
            .collect();
        with_miss.sort_by_key(|p| std::cmp::Reverse(p.coverage.as_ref().expect("filtered").missing.len()));
        if !with_miss.is_empty() {
            let _ = writeln!(
                o,
                "Misses by page ({} pages with at least one; all of them, most first; up to 6 examples each):\n\n| page | actionable | missing | examples |\n| --- | --- | --- | --- |",
                with_miss.len()
            );
            for p in with_miss {
                let c = p.coverage.as_ref().expect("filtered");
                let ex: Vec<String> = c.missing.iter().take(6).map(|m| md_cell(m, 60)).collect();
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} |",
                    p.page,
                    c.actionable,
                    c.missing.len(),
                    ex.join("; ")
                );
            }
        }
    }

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
        o.push_str("\n## Per page\n\nTokens are o200k_base of the whole tool answer. `ratio` is Aperture / incumbent full-snapshot tokens. `cov` is the share of the incumbent's actionable refs addressable in Aperture. The same numbers, with characters and timings, are in `results.csv`.\n\n| page | inc tokens | inc refs | ap tokens | ap refs | ratio | inc no-change | ap no-change | cov | error |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
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
            let cov = p
                .coverage
                .as_ref()
                .map(|c| format!("{:.0} %", 100.0 * c.share()))
                .unwrap_or_else(|| "—".into());
            let err: Vec<String> = [("inc", i), ("ap", a)]
                .iter()
                .filter_map(|(k, s)| {
                    s.and_then(|s| s.error.as_ref())
                        .map(|e| format!("{k}: {}", md_cell(e, 80)))
                })
                .collect();
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {rat} | {} | {} | {cov} | {} |",
                p.page,
                cell(i, |s| s.full.tokens),
                cell(i, |s| s.refs),
                cell(a, |s| s.full.tokens),
                cell(a, |s| s.refs),
                cell(i, |s| s.no_change.tokens),
                cell(a, |s| s.no_change.tokens),
                err.join("; ")
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
        "page,inc_full_chars,inc_full_tokens,inc_refs,inc_nochange_chars,inc_nochange_tokens,inc_nav_tokens,inc_nav_ms,inc_full_ms,ap_full_chars,ap_full_tokens,ap_refs,ap_nochange_chars,ap_nochange_tokens,ap_nav_tokens,ap_nav_ms,ap_full_ms,ap_nav_early,ap_settle_rounds,inc_dialogs,ratio_chars,ratio_tokens,cov_actionable,cov_exact,cov_loose,cov_missing,inc_error,ap_error,missing\n",
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
- Both products are driven over MCP by this harness as a client would drive them: the incumbent over stdio (rmcp's child-process transport), Aperture over streamable HTTP with its bearer token. No model is in the loop; nothing here measures task success or agent cost per episode.\n\
- Pages are the 130 saved pages of `shared/corpus/pages`, served by one loopback HTTP server in the harness. Only the HTML itself is served: any subresource on the same server is a 404 and the machine has no route out, so pages render without the third-party scripts, styles and images they reference, identically for both browsers.\n\
- \"Full snapshot\" is the whole text answer of an explicit `browser_snapshot` call right after the navigation (`{full: true}` for Aperture), including each product's headers and envelope: what an agent's context pays. The incumbent's `browser_navigate` answer in this version carries only a link to a snapshot file, so an agent must call `browser_snapshot` to see the page.\n\
- \"No-change observation\" is a second `browser_snapshot` immediately after the first, nothing done in between (Aperture's default mode: a diff; the incumbent has no diff and re-dumps).\n\
- Refs handed out: distinct refs in the full snapshot. The incumbent numbers nearly every element; Aperture gives refs only to actionable ones.\n\
- Load conditions differ in one respect, and it only touches load times: the incumbent's Chromium is started with `--host-resolver-rules` that fail every host but 127.0.0.1 at once, while Aperture offers no way to pass a Chromium switch, so its loads wait out failing lookups of each saved page's third-party hosts. Neither browser can fetch those resources; the navigate timings are therefore not comparable, and are reported only as what each took here.\n\
- Aperture's corpus pass loads pages in three tabs at once (its loads mostly wait on those failing lookups, and one tab at a time would not fit the run's time budget); the incumbent's pass is one page at a time. Per-call times of Aperture's corpus pass were therefore taken with neighbour tabs busy; the diff-economics run is one tab at a time for every arm.\n\
- Aperture runs with its defaults (tracker blocking on); the incumbent with its defaults (code generation on, so its action answers carry the Playwright code they ran).\n\
- One run, single pass, on a shared 2-core machine: times are indicative, not benchmarks of either engine. Timings include each product's own waiting (the incumbent waits for triggered work to settle after an action).\n\n";

const ECONOMICS: &str = "\n## Diff economics: 20 scripted actions on an interactive fixture\n\n\
Fixture: `bench/fixtures/workbench.html`, one page with a list that is rebuilt from scratch on every change (rows with identical `Edit` buttons and named `Remove …` buttons), a form that is typed into with a live character counter and a status line, a three-tab panel, and a clock that ticks every second throughout. Navigation chrome and footer links give it a modest weight. Each arm gets a fresh tab (Aperture) or session (incumbent) and runs the same 20 actions, aiming each by role and name at the ref that product last showed.\n\n\
- **incumbent**: `browser_click` / `browser_type`, then `browser_snapshot` to see the result (its action answers name a snapshot file rather than carrying one). Cell: total (action answer + snapshot).\n\
- **aperture-diff**: `browser_act`; its answer is the diff against what the agent holds, and that is the observation. A refused stale ref would cost a full re-observation and a retry, counted in the step (†).\n\
- **aperture-redump**: `browser_act`, then `browser_snapshot {full: true}` every time. Cell: total (action answer, which still carries a diff, + full snapshot); a true re-dump engine would not send the diff, so the second number alone is the re-dump observation.\n\n\
Tokens are o200k_base of the whole tool answers.\n\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::Coverage;

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
            },
            PageRow {
                page: "b,c.html".into(),
                incumbent: Some(side(2000)),
                aperture: None,
                coverage: None,
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

    #[test]
    fn cells_are_shortened_and_escaped() {
        assert_eq!(md_cell("a  b\n|c", 10), "a b \\|c");
        assert_eq!(md_cell("abcdef", 3), "abc…");
    }
}
