//! Diff and render on synthetic 1k/10k/50k-element pages. Results go in `engine/BENCH.md`.
//!
//! The page is a news-list shape (the shape real pages have most of: repeated rows of link +
//! metadata + action) plus a nav bar and a search form. The diff workload is one act-observe
//! step: a row jumps to the top and the searched text changes.

#![forbid(unsafe_code)]

use aperture_engine::record::{NodeRecord, Rect, Walk};
use aperture_engine::{TabSession, render_full};
use criterion::{BenchmarkId, Criterion, black_box, criterion_group};
use std::time::Duration;

fn rec(parent: Option<u32>, tag: &str, role: Option<&str>) -> NodeRecord {
    NodeRecord {
        parent,
        tag: tag.into(),
        role: role.map(Into::into),
        visible: true,
        bounds: Rect {
            x: 0.0,
            y: 0.0,
            w: 100.0,
            h: 18.0,
        },
        ..NodeRecord::default()
    }
}

/// A page of about `n` elements; `step` moves one row to the top and changes the search text.
fn page(n: usize, step: usize) -> Walk {
    let mut nodes: Vec<NodeRecord> = Vec::with_capacity(n + 8);
    let push = |mut r: NodeRecord, nodes: &mut Vec<NodeRecord>| {
        r.idx = nodes.len() as u32;
        r.uid = Some(r.idx as u64 + 1);
        nodes.push(r);
        r_idx(nodes)
    };
    fn r_idx(nodes: &[NodeRecord]) -> u32 {
        nodes.len() as u32 - 1
    }
    let nav = push(rec(None, "nav", Some("navigation")), &mut nodes);
    for i in 0..20 {
        let mut a = rec(Some(nav), "a", Some("link"));
        a.name = Some(format!("Section {i}"));
        a.href = Some(format!("https://news.test/s/{i}"));
        a.actionable = true;
        push(a, &mut nodes);
    }
    let form = push(rec(None, "form", Some("search")), &mut nodes);
    let mut q = rec(Some(form), "input", Some("searchbox"));
    q.name = Some("Search".into());
    q.name_attr = Some("q".into());
    q.actionable = true;
    q.state.value = Some(format!("query {step}"));
    push(q, &mut nodes);
    let main = push(rec(None, "main", Some("main")), &mut nodes);
    let list = push(rec(Some(main), "ol", Some("list")), &mut nodes);
    let rows = (n.saturating_sub(nodes.len())) / 5;
    let mut order: Vec<usize> = (0..rows).collect();
    if rows > 0 {
        let r = order.remove((step * 7919) % rows);
        order.insert(0, r);
    }
    for i in order {
        let li = push(rec(Some(list), "li", Some("listitem")), &mut nodes);
        let mut a = rec(Some(li), "a", Some("link"));
        a.name = Some(format!("Story number {i}: something happened somewhere"));
        a.href = Some(format!("https://news.test/item?id={i}"));
        a.actionable = true;
        push(a, &mut nodes);
        let mut by = rec(Some(li), "span", None);
        by.text = Some(format!("{} points by user{}", i % 300, i % 97));
        push(by, &mut nodes);
        let mut t = rec(Some(li), "span", None);
        t.text = Some(format!("{} hours ago", i % 23 + 1));
        push(t, &mut nodes);
        let mut h = rec(Some(li), "button", Some("button"));
        h.name = Some("hide".into());
        h.actionable = true;
        push(h, &mut nodes);
    }
    Walk {
        url: "https://news.test/".into(),
        title: "News".into(),
        nodes,
        ..Walk::default()
    }
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [1_000usize, 10_000, 50_000] {
        let walks: Vec<Walk> = (0..8).map(|s| page(n, s)).collect();
        g.bench_with_input(BenchmarkId::new("render_full", n), &walks[0], |b, w| {
            b.iter(|| black_box(render_full(w).len()))
        });
        // One act-observe step on a warm session: diff + render (+ the walk copy the session
        // keeps for resolve). The periodic resync is disabled so only diffs are timed.
        let mut s = TabSession::new();
        s.set_max_diffs(u32::MAX);
        s.observe(&walks[0], false, false);
        let search = s.observe(&walks[1], false, false);
        assert!(!search.full, "bench workload must be a diff");
        assert!(
            search.ops >= 2,
            "bench workload: a move and a value change: {}",
            search.text
        );
        let typed = search
            .text
            .lines()
            .find(|l| l.contains("searchbox"))
            .and_then(|l| l.split(' ').nth(1));
        if let Some(r) = typed {
            // The agent typed into the search box; keep its value changes reported.
            s.touch(r);
        }
        let mut k = 0usize;
        g.bench_with_input(BenchmarkId::new("observe_diff", n), &walks, |b, ws| {
            b.iter(|| {
                k += 1;
                let o = s.observe(&ws[k % ws.len()], false, false);
                black_box(o.text.len())
            })
        });
        // The same step when the caller hands the walk over (no copy kept by the session).
        g.bench_with_input(BenchmarkId::new("observe_owned_diff", n), &walks, |b, ws| {
            b.iter_batched(
                || {
                    k += 1;
                    ws[k % ws.len()].clone()
                },
                |w| black_box(s.observe_owned(w, false, false).text.len()),
                criterion::BatchSize::LargeInput,
            )
        });
        g.bench_with_input(BenchmarkId::new("walk_clone", n), &walks[0], |b, w| {
            b.iter(|| black_box(w.clone().nodes.len()))
        });
    }
    g.finish();
}

/// On-CPU time of this thread in nanoseconds (Linux schedstat). Wall-clock numbers on a machine
/// shared with other builds measure the queue for the CPU as much as the code; on-CPU time
/// does not.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Median on-CPU time per observe for the same workloads, printed before criterion runs.
fn cpu_report() {
    if cpu_ns().is_none() {
        return;
    }
    for n in [1_000usize, 10_000, 50_000] {
        let walks: Vec<Walk> = (0..8).map(|s| page(n, s)).collect();
        let mut s = TabSession::new();
        s.set_max_diffs(u32::MAX);
        s.observe(&walks[0], false, false);
        let o = s.observe(&walks[1], false, false);
        if let Some(r) = o
            .text
            .lines()
            .find(|l| l.contains("searchbox"))
            .and_then(|l| l.split(' ').nth(1))
        {
            s.touch(r);
        }
        let iters = (400_000 / n).max(20) as u64;
        // Each loop alternates walks so every step is a real diff (a move + a value change).
        let t = cpu_ns().unwrap_or(0);
        let mut diff_bytes = 0;
        let mut phases: Vec<(u32, u32)> = Vec::new();
        for k in 0..iters {
            let o = s.observe(&walks[(k % 8) as usize], false, false);
            diff_bytes += o.text.len();
            phases.push((o.timing.build_us, o.timing.diff_us));
        }
        let diff = (cpu_ns().unwrap_or(0) - t) as f64 / iters as f64 / 1e6;
        let mut b: Vec<u32> = phases.iter().map(|p| p.0).collect();
        let mut d: Vec<u32> = phases.iter().map(|p| p.1).collect();
        b.sort_unstable();
        d.sort_unstable();
        println!(
            "phases n={n} (wall, median): model build {} µs, reconcile + noise + diff render {} µs",
            b[b.len() / 2],
            d[d.len() / 2]
        );
        let owned_walks: Vec<Walk> = (0..iters).map(|k| walks[(k % 8) as usize].clone()).collect();
        let t = cpu_ns().unwrap_or(0);
        for w in owned_walks {
            black_box(s.observe_owned(w, false, false).text.len());
        }
        let owned = (cpu_ns().unwrap_or(0) - t) as f64 / iters as f64 / 1e6;
        let t = cpu_ns().unwrap_or(0);
        let mut full_bytes = 0;
        for k in 0..iters {
            full_bytes = render_full(&walks[(k % 8) as usize]).len();
        }
        let full = (cpu_ns().unwrap_or(0) - t) as f64 / iters as f64 / 1e6;
        println!(
            "cpu-time n={n}: observe_diff {diff:.3} ms, observe_owned_diff {owned:.3} ms, render_full {full:.3} ms \
             (mean over {iters}; diff text {} B avg, full text {full_bytes} B)",
            diff_bytes as u64 / iters
        );
    }
}

criterion_group!(engine, benches);

fn main() {
    if std::env::args().any(|a| a == "--bench") {
        cpu_report();
    }
    engine();
    Criterion::default().configure_from_args().final_summary();
}
