mod common;

use aperture_places::{BookmarkId, SuggestionKind, now_ms};
use common::{DAY, open, profile, urls};

#[path = "common/generate.rs"]
mod generate;

#[test]
fn frecency_orders_by_visits_decayed_by_age() {
    let dir = profile();
    let p = open(&dir);
    let now = now_ms();
    // Ten visits a year ago lose to one yesterday; three this week beat one today.
    for i in 0..10 {
        p.record_visit(
            "c",
            "https://shop.example/old-favourite",
            false,
            now - 365 * DAY - i,
        );
    }
    p.record_visit("c", "https://shop.example/yesterday", false, now - DAY);
    for d in 1..=3 {
        p.record_visit("c", "https://shop.example/this-week", false, now - d * DAY);
    }
    p.record_visit("c", "https://shop.example/today", false, now - 1000);
    p.flush().unwrap();
    let s = p.suggest("shop.example/", Some("c"), 10).unwrap();
    assert_eq!(
        urls(&s),
        [
            "https://shop.example/this-week",
            "https://shop.example/today",
            "https://shop.example/yesterday",
            "https://shop.example/old-favourite",
        ]
    );
    assert!(s.windows(2).all(|w| w[0].score >= w[1].score));
    // Scores are visits-now: one link visit today is about 1.
    assert!((s[1].score - 1.0).abs() < 0.01, "{}", s[1].score);
}

#[test]
fn typed_visits_and_bookmarks_are_boosted() {
    let dir = profile();
    let p = open(&dir);
    let now = now_ms();
    p.record_visit("c", "https://a.example/linked-twice", false, now - 1000);
    p.record_visit("c", "https://a.example/linked-twice", false, now - 2000);
    p.record_visit("c", "https://a.example/typed-once", true, now - 3000);
    p.record_visit("c", "https://a.example/bookmarked", false, now - 4000);
    p.add_bookmark("https://a.example/bookmarked", "Saved", BookmarkId::BAR)
        .wait()
        .unwrap();
    let s = p.suggest("a.example", Some("c"), 10).unwrap();
    assert_eq!(
        urls(&s),
        [
            "https://a.example/bookmarked",
            "https://a.example/typed-once",
            "https://a.example/linked-twice"
        ]
    );
    assert_eq!(s[0].kind, SuggestionKind::Bookmark);
    assert_eq!(s[0].title, "Saved");
    assert_eq!(s[1].kind, SuggestionKind::History);
}

#[test]
fn matches_the_url_with_or_without_scheme_and_www_and_title_words_but_not_inside_words() {
    let dir = profile();
    let p = open(&dir);
    let now = now_ms();
    p.record_visit("c", "https://www.github.com/rust-lang/rust", false, now);
    p.set_title(
        "c",
        "https://www.github.com/rust-lang/rust",
        "The Rust Programming Language",
    );
    p.record_visit("c", "http://example.org/", false, now);
    p.set_title("c", "http://example.org/", "Example Domain");
    p.flush().unwrap();
    let one = |input: &str| {
        urls(&p.suggest(input, None, 5).unwrap())
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    for input in [
        "git",
        "GitHub.com/rust",
        "www.github",
        "https://www.github.com/",
        "https://github.com/r",
        "prog",
        "language",
        "rust",
    ] {
        assert_eq!(one(input), ["https://www.github.com/rust-lang/rust"], "{input:?}");
    }
    for input in ["exa", "http://example", "example.org/", "domain"] {
        assert_eq!(one(input), ["http://example.org/"], "{input:?}");
    }
    // Not in the middle of a title word, nor the middle of the URL.
    for input in ["ogramming", "ust", "hub", "ample", "zzz"] {
        assert!(one(input).is_empty(), "{input:?}: {:?}", one(input));
    }
    // `www.` is dropped from what is typed as from URLs, but completion only offers forms the
    // URL really has.
    let www = p.suggest("www.exa", None, 5).unwrap();
    assert_eq!(urls(&www), ["http://example.org/"]);
    assert_eq!(www[0].inline_completion("www.exa"), None);
    // Several words: each must start a word of the title or of the URL, never the middle.
    assert_eq!(one("rust lang"), ["https://www.github.com/rust-lang/rust"]);
    assert_eq!(
        one("github programming"),
        ["https://www.github.com/rust-lang/rust"]
    );
    assert!(one("rust domain").is_empty());
    assert!(one("rust ang").is_empty(), "'ang' is inside 'lang'");
    assert!(one("lang example").is_empty());
    assert_eq!(one("org domain"), ["http://example.org/"]);
    assert!(p.suggest("   ", None, 5).unwrap().is_empty());
    assert!(p.suggest("git", None, 0).unwrap().is_empty());
}

#[test]
fn typing_git_completes_github_even_when_a_title_match_scores_higher() {
    let dir = profile();
    let p = open(&dir);
    let now = now_ms();
    p.record_visit("c", "https://github.com/", true, now - DAY);
    for i in 0..20 {
        p.record_visit("c", "https://book.example/git-basics", false, now - i);
    }
    p.set_title("c", "https://book.example/git-basics", "Git basics");
    p.flush().unwrap();
    let s = p.suggest("git", Some("c"), 5).unwrap();
    assert_eq!(
        urls(&s),
        ["https://github.com/", "https://book.example/git-basics"]
    );
    assert!(
        s[1].score > s[0].score,
        "the title match scores higher but the URL match leads"
    );
    assert_eq!(s[0].inline_completion("git").as_deref(), Some("github.com/"));
    assert_eq!(s[1].inline_completion("git"), None);
}

#[test]
fn a_bookmark_never_visited_is_suggested_by_url_and_title() {
    let dir = profile();
    let p = open(&dir);
    p.add_bookmark(
        "https://www.openstreetmap.org/",
        "OpenStreetMap world map",
        BookmarkId::OTHER,
    )
    .wait()
    .unwrap();
    for input in ["open", "openstreetmap.org", "world", "map", "world map"] {
        let s = p.suggest(input, Some("any"), 5).unwrap();
        assert_eq!(urls(&s), ["https://www.openstreetmap.org/"], "{input:?}");
        assert_eq!(s[0].kind, SuggestionKind::Bookmark);
        assert!(
            s[0].score > 2.9,
            "one visit's worth at the time it was added, boosted: {}",
            s[0].score
        );
    }
    assert_eq!(
        p.suggest("open", None, 5).unwrap()[0]
            .inline_completion("open")
            .as_deref(),
        Some("openstreetmap.org/")
    );
}

#[test]
fn the_whole_history_of_every_container_gives_one_entry_per_url() {
    let dir = profile();
    let p = open(&dir);
    let now = now_ms();
    p.record_visit("a", "https://both.example/", false, now - 10 * DAY);
    p.set_title("a", "https://both.example/", "Old title");
    p.record_visit("b", "https://both.example/", true, now);
    p.set_title("b", "https://both.example/", "New title");
    p.flush().unwrap();
    let s = p.suggest("both", None, 5).unwrap();
    assert_eq!(s.len(), 1);
    // The best container's row wins: its title and its score.
    assert_eq!(s[0].title, "New title");
    assert!((s[0].score - 4.0).abs() < 0.01, "{}", s[0].score);
    let a = p.suggest("both", Some("a"), 5).unwrap();
    assert_eq!(a[0].title, "Old title");
}

/// The test's own reading of the documented ranking: score = Σ weight · 2^(−age / 30 days),
/// typed visits weigh 4; the best URL match leads. One token matches a page when it is a
/// prefix of the URL without scheme and `www.`, or when each of its words is a prefix of one of
/// the title's words. Several tokens: each word must start a word of the title or of the URL
/// (without scheme and `www.`).
fn expected(pages: &[&generate::Page], input: &str, now: i64, limit: usize) -> Vec<String> {
    let key = input.to_lowercase();
    let split = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let input_words = split(&key);
    let single = !key.contains(' ');
    let mut hits: Vec<(f64, bool, &str)> = pages
        .iter()
        .filter_map(|pg| {
            let bare = pg.url.split_once("://").map_or(pg.url.as_str(), |(_, r)| r);
            let bare = bare.strip_prefix("www.").unwrap_or(bare).to_lowercase();
            let title_words = split(&pg.title.to_lowercase());
            let in_title = |w: &String| title_words.iter().any(|t| t.starts_with(w.as_str()));
            let url_match = single && bare.starts_with(&key);
            let matched = if single {
                url_match || (!input_words.is_empty() && input_words.iter().all(in_title))
            } else {
                let url_words = split(&bare);
                let in_url = |w: &String| url_words.iter().any(|u| u.starts_with(w.as_str()));
                !input_words.is_empty() && input_words.iter().all(|w| in_title(w) || in_url(w))
            };
            matched.then(|| {
                let score = pg
                    .visits
                    .iter()
                    .map(|&(at, typed)| {
                        let w = if typed { 4.0 } else { 1.0 };
                        w * 0.5f64.powf((now - at) as f64 / (30.0 * DAY as f64))
                    })
                    .sum::<f64>();
                (score, url_match, pg.url.as_str())
            })
        })
        .collect();
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.cmp(b.2)));
    if let Some(i) = hits.iter().position(|h| h.1) {
        let lead = hits.remove(i);
        hits.insert(0, lead);
    }
    hits.into_iter().take(limit).map(|h| h.2.to_owned()).collect()
}

#[test]
fn over_100k_pages_suggest_returns_the_right_top_results() {
    let dir = profile();
    let p = open(&dir);
    let now = now_ms();
    let mut pages = generate::pages(100_000, now, 13);
    // A common prefix (and title word) whose pages are nearly all long forgotten: the best
    // rows by frecency hold only a few of them, so the lookup must not stop there.
    for i in 0..3000 {
        let recent = i % 1000 == 0;
        pages.push(generate::Page {
            url: format!("https://archive.example/item/{i}"),
            title: format!("Archived item {i}"),
            visits: vec![if recent {
                (now - 1000, true)
            } else {
                (now - 700 * DAY - i, false)
            }],
        });
    }
    generate::load(&p, "personal", &pages);
    // Another container's pages must not show up in personal's suggestions.
    let work = generate::Page {
        url: "https://github.com/work-only".into(),
        title: String::new(),
        visits: vec![(now, true)],
    };
    p.record_visit("work", &work.url, true, now);
    p.flush().unwrap();
    let personal: Vec<&generate::Page> = pages.iter().collect();
    let everywhere: Vec<&generate::Page> = pages.iter().chain([&work]).collect();

    // Dense (one letter, thousands of matches), medium, sparse, title-only, several words
    // (common, rare, one only in the URL), and no match.
    let inputs = [
        "g",
        "s",
        "git",
        "github.com/",
        "en.wikipedia.org/wiki/R",
        "stackoverflow.com/questions/1234",
        "rust",
        "benchmark",
        "tokio async",
        "g s",
        "github rust",
        "questions chess",
        "archive.example/",
        "archived",
        "archived item",
        "xq",
        "zz top",
    ];
    for input in inputs {
        let got = p.suggest(input, Some("personal"), 10).unwrap();
        assert_eq!(urls(&got), expected(&personal, input, now, 10), "{input:?}");
    }
    for input in ["g", "github.com/w", "rust", "tokio async"] {
        let got = p.suggest(input, None, 10).unwrap();
        assert_eq!(
            urls(&got),
            expected(&everywhere, input, now, 10),
            "{input:?} in every container"
        );
    }
    assert!(
        p.suggest("github.com/work", Some("personal"), 10)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        urls(&p.suggest("github.com/work", None, 10).unwrap()),
        ["https://github.com/work-only"]
    );
}
