//! Omnibox suggestions over 100,000 history pages (issue 13 asks for under 20 ms per typed
//! prefix). The history is generated (`tests/common/generate.rs`: a few thousand hosts with
//! Zipf-like popularity, paths and titles from a vocabulary, 1-7 visits each over a year) and
//! written through the public API into a real `places.sqlite`, with a few hundred bookmarks.
//!
//! `cargo bench -p aperture-places --bench suggest`

use std::hint::black_box;
use std::time::Duration;

use aperture_places::{BookmarkId, Places, now_ms};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/common/generate.rs"]
mod generate;

fn suggest(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let places = Places::open(dir.path()).unwrap();
    let now = now_ms();
    let pages = generate::pages(100_000, now, 13);
    let started = std::time::Instant::now();
    generate::load(&places, "personal", &pages);
    for page in pages.iter().step_by(250) {
        // The write happens whether or not the reply is looked at.
        drop(places.add_bookmark(&page.url, &page.title, BookmarkId::OTHER));
    }
    places.flush().unwrap();
    eprintln!("loaded {} pages in {:.1?}", pages.len(), started.elapsed());

    let mut group = c.benchmark_group("suggest_100k");
    group
        .sample_size(60)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    // One letter (thousands of matches), a host, a path, title words, several words (rare
    // together, and one of them in the URL), no match.
    let inputs = [
        "g",
        "s",
        "r",
        "git",
        "github.com/",
        "en.wikipedia.org/wiki/r",
        "rust",
        "tokio async",
        "github rust",
        "xq",
    ];
    for input in inputs {
        group.bench_function(format!("container/{input}"), |b| {
            b.iter(|| black_box(places.suggest(black_box(input), Some("personal"), 10).unwrap()))
        });
    }
    for input in ["g", "git", "rust", "tokio async"] {
        group.bench_function(format!("all/{input}"), |b| {
            b.iter(|| black_box(places.suggest(black_box(input), None, 10).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, suggest);
criterion_main!(benches);
