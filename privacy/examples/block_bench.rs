//! Tracker-blocking benchmark on real EasyList + EasyPrivacy and the corpus pages' resources.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/tgt/privacy cargo run --release -p aperture-privacy --example block_bench \
//!     [-- --out bench/blocking.md] [--apt-update] [--passes N]
//! ```
//!
//! Measures engine build time, serialized size, cached load time, and per-request
//! `Blocker::check` latency (median, p99) over at least 10 000 timed requests replayed from the
//! saved pages. Nothing is served or fetched: requests are checked, not made.
//!
//! A benchmark, not a test: it reads the full corpus of 130 pages, `$APERTURE_CORPUS_DIR`, else
//! `shared/corpus/pages` beside the checkout (the tests use the subset in `testdata/corpus`).

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use aperture_privacy::Blocker;
use aperture_privacy::corpus::{load_corpus, page_files};
use aperture_privacy::lists::{ListSet, PINNED_PACKAGE, ProvisionOptions};

const MIN_TIMED_REQUESTS: usize = 10_000;
const BUILD_RUNS: usize = 3;
const TARGET_MEDIAN_US: f64 = 5.0;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // First, so a checkout without the full corpus fails before minutes of engine builds.
    let dir = corpus_dir();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/blocking.md"));
    let opts = ProvisionOptions {
        allow_apt_update: args.iter().any(|a| a == "--apt-update"),
        ..Default::default()
    };
    let lists = ListSet::provision_pinned(&opts).unwrap_or_else(|e| die(&format!("lists: {e}")));
    let list_bytes: u64 = lists
        .lists()
        .iter()
        .map(|l| std::fs::metadata(&l.path).map_or(0, |m| m.len()))
        .sum();
    let list_lines: usize = lists
        .lists()
        .iter()
        .map(|l| l.read_text().map_or(0, |t| t.lines().count()))
        .sum();

    // Build: several runs, since the machine is shared and one run can be unlucky.
    let mut builds = Vec::new();
    let mut blocker = None;
    for _ in 0..BUILD_RUNS {
        let t = Instant::now();
        let b = Blocker::build(&lists).unwrap_or_else(|e| die(&format!("build: {e}")));
        builds.push(t.elapsed());
        blocker = Some(b);
    }
    let blocker = blocker.expect("built");
    builds.sort();

    let t = Instant::now();
    let serialized = blocker.serialize();
    let serialize_time = t.elapsed();

    // Cached start-up path, exactly as the app runs it.
    let cache = tempfile::tempdir().unwrap_or_else(|e| die(&format!("tempdir: {e}")));
    Blocker::load_or_build(&lists, cache.path()).unwrap_or_else(|e| die(&format!("cache write: {e}")));
    let mut loads = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let (_, outcome) =
            Blocker::load_or_build(&lists, cache.path()).unwrap_or_else(|e| die(&format!("cache load: {e}")));
        loads.push(t.elapsed());
        assert!(
            matches!(outcome, aperture_privacy::LoadOutcome::Cached { .. }),
            "{outcome:?}"
        );
    }
    loads.sort();

    let corpus = load_corpus(&dir).unwrap_or_else(|e| die(&format!("corpus {}: {e}", dir.display())));
    let pages: HashSet<&str> = corpus.iter().map(|r| r.page.as_str()).collect();
    let page_count = page_files(&dir).map_or(0, |p| p.len());
    let distinct: HashSet<&str> = corpus.iter().map(|r| r.url.as_str()).collect();
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    for r in &corpus {
        *by_type.entry(format!("{:?}", r.resource_type)).or_default() += 1;
    }

    // Warm-up pass: page in the engine and let the regex cache fill, as in a running browser.
    let mut blocked_per_pass = 0usize;
    for r in &corpus {
        if blocker.check(&r.url, &r.source_url, r.resource_type).is_blocked() {
            blocked_per_pass += 1;
        }
    }

    let timer_overhead = {
        let mut v: Vec<u64> = (0..10_000)
            .map(|_| {
                let t = Instant::now();
                black_box(());
                t.elapsed().as_nanos() as u64
            })
            .collect();
        v.sort_unstable();
        v[v.len() / 2]
    };

    let passes = args
        .iter()
        .position(|a| a == "--passes")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| MIN_TIMED_REQUESTS.div_ceil(corpus.len()).max(3));
    let mut samples: Vec<u64> = Vec::with_capacity(passes * corpus.len());
    let mut blocked_samples: Vec<u64> = Vec::new();
    let mut allowed_samples: Vec<u64> = Vec::new();
    let mut pass_medians = Vec::new();
    let wall = Instant::now();
    for _ in 0..passes {
        let start = samples.len();
        for r in &corpus {
            let t = Instant::now();
            let d = blocker.check(black_box(&r.url), black_box(&r.source_url), r.resource_type);
            let ns = t.elapsed().as_nanos() as u64;
            samples.push(ns);
            if d.is_blocked() {
                &mut blocked_samples
            } else {
                &mut allowed_samples
            }
            .push(ns);
            black_box(d);
        }
        let mut pass: Vec<u64> = samples[start..].to_vec();
        pass.sort_unstable();
        pass_medians.push(pct(&pass, 50.0));
    }
    let wall = wall.elapsed();
    for v in [&mut samples, &mut blocked_samples, &mut allowed_samples] {
        v.sort_unstable();
    }
    let median = pct(&samples, 50.0);
    let p99 = pct(&samples, 99.0);

    let rustc = std::process::Command::new("rustc")
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    // The machine is shared; the load average is what makes two runs' numbers comparable.
    let loadavg = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();

    let mut md = String::new();
    let us = |ns: u64| format!("{:.2} µs", ns as f64 / 1000.0);
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let _ = writeln!(md, "# Tracker blocking benchmark\n");
    let _ = writeln!(
        md,
        "Engine: `adblock` 0.13 (Brave), network rules only, `Send + Sync` build. Lists: EasyList + EasyPrivacy \
         from Debian `{} {}` ({} lines, {:.1} MB). Corpus: {} saved pages in `shared/corpus/pages` ({} of them reference \
         resources), resource URLs from `src`/`href`/`srcset` of `script`, `img`, `link`, `iframe`; nothing served.\n",
        PINNED_PACKAGE.name,
        PINNED_PACKAGE.version,
        list_lines,
        list_bytes as f64 / 1e6,
        page_count,
        pages.len()
    );
    let _ = writeln!(
        md,
        "Machine: {cores} cores shared with other engineers' builds (load average {loadavg} at the end \
         of the run); {rustc}; `--release`.\n"
    );
    let _ = writeln!(md, "## Results\n");
    let _ = writeln!(md, "| measure | value |\n| --- | --- |");
    let _ = writeln!(
        md,
        "| engine build (parse + compile), best of {BUILD_RUNS} | {} |",
        ms(builds[0])
    );
    let _ = writeln!(
        md,
        "| engine build, worst of {BUILD_RUNS} | {} |",
        ms(builds[builds.len() - 1])
    );
    let _ = writeln!(
        md,
        "| serialized engine size | {:.2} MB ({} bytes) |",
        serialized.len() as f64 / 1e6,
        serialized.len()
    );
    let _ = writeln!(md, "| serialize time | {} |", ms(serialize_time));
    let _ = writeln!(
        md,
        "| cached start-up (`load_or_build` hit: read + deserialize), median of 5 | {} |",
        ms(loads[loads.len() / 2])
    );
    let _ = writeln!(
        md,
        "| requests timed | {} ({} passes over {} resource requests, {} distinct URLs) |",
        samples.len(),
        passes,
        corpus.len(),
        distinct.len()
    );
    let _ = writeln!(
        md,
        "| **per-request `check` median** | **{}** (target ≤ {TARGET_MEDIAN_US} µs: {}) |",
        us(median),
        if median as f64 / 1000.0 <= TARGET_MEDIAN_US {
            "met"
        } else {
            "NOT met"
        }
    );
    let _ = writeln!(
        md,
        "| median of each pass | {} |",
        pass_medians.iter().map(|m| us(*m)).collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(md, "| per-request p90 | {} |", us(pct(&samples, 90.0)));
    let _ = writeln!(md, "| **per-request p99** | **{}** |", us(p99));
    let _ = writeln!(md, "| per-request p99.9 | {} |", us(pct(&samples, 99.9)));
    let _ = writeln!(md, "| per-request max | {} |", us(*samples.last().unwrap_or(&0)));
    let _ = writeln!(
        md,
        "| mean (wall time / requests) | {} |",
        us((wall.as_nanos() / samples.len() as u128) as u64)
    );
    let _ = writeln!(
        md,
        "| blocked requests | {blocked_per_pass} of {} per pass ({:.1} %) |",
        corpus.len(),
        blocked_per_pass as f64 * 100.0 / corpus.len() as f64
    );
    let _ = writeln!(
        md,
        "| median when blocked / allowed | {} / {} |",
        us(pct(&blocked_samples, 50.0)),
        us(pct(&allowed_samples, 50.0))
    );
    let _ = writeln!(
        md,
        "| timer overhead (median empty `Instant` pair, included above) | {timer_overhead} ns |"
    );
    let _ = writeln!(
        md,
        "\nRequests by type: {}\n",
        by_type
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(md, "## Method\n");
    let _ = writeln!(
        md,
        "Each request is one `Blocker::check(url, page_url, type)` call, timed individually with `Instant`; \
         that includes building adblock's `Request` (URL parse, public-suffix lookup, tokenising), i.e. the \
         full cost the CEF resource handler pays. The frame URL's parse is cached per thread (a page's \
         subresources share it), and the replay goes page by page as a real load does. The corpus holds fewer than 10 000 resource requests, so \
         it is replayed {passes} times after one untimed warm-up pass; distinct URLs are listed above. \
         Percentiles are over all timed calls. p99 and above on a shared 2-core machine are dominated by \
         preemption by other processes. The check is memory-bound (token lookups across a 4.5 MB \
         flatbuffer), so the median moves with how hard neighbours hit the shared caches: on this \
         machine it ranged from about 4.4 µs (load ≈ 4) to 7.5 µs (load ≈ 7) between runs minutes apart.\n"
    );
    let _ = writeln!(
        md,
        "Reproduce: `CARGO_TARGET_DIR=/work/tgt/privacy cargo run --release -p aperture-privacy --example block_bench`"
    );

    if let Some(parent) = out.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    std::fs::write(&out, &md).unwrap_or_else(|e| die(&format!("write {}: {e}", out.display())));
    print!("{md}");
    eprintln!("wrote {}", out.display());
}

fn pct(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The full page corpus; exits naming where it was looked for when it is not there.
fn corpus_dir() -> PathBuf {
    let dir = match std::env::var_os("APERTURE_CORPUS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/pages"),
    };
    if !dir.is_dir() {
        die(&format!(
            "no page corpus at {}: this benchmark needs the 130 saved pages of `shared/corpus/pages` \
             (put `shared/` beside the checkout, or set APERTURE_CORPUS_DIR to that directory)",
            dir.display()
        ));
    }
    dir
}

fn die(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1)
}
