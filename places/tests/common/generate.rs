//! Realistic synthetic history: a few thousand hosts with Zipf-like popularity, paths and
//! titles from a vocabulary, visits spread over a year, some typed. Deterministic.
//! Shared by the 100,000-row test and the benchmark.

#![allow(dead_code)]

use aperture_places::Places;

pub const DAY: i64 = 86_400_000;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// splitmix64
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Index in `0..n`, small indexes much more likely (roughly Zipf).
    pub fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (((n as f64 + 1.0).powf(u) - 1.0) as usize).min(n - 1)
    }
}

const WELL_KNOWN: &[&str] = &[
    "github.com",
    "stackoverflow.com",
    "en.wikipedia.org",
    "news.ycombinator.com",
    "www.reddit.com",
    "www.youtube.com",
    "docs.rs",
    "crates.io",
    "www.amazon.com",
    "www.bbc.co.uk",
    "www.nytimes.com",
    "developer.mozilla.org",
    "doc.rust-lang.org",
    "www.google.com",
    "mail.google.com",
    "twitter.com",
    "www.linkedin.com",
    "medium.com",
    "www.theguardian.com",
    "arxiv.org",
    "gitlab.com",
    "www.ebay.com",
    "www.imdb.com",
    "www.netflix.com",
    "maps.google.com",
    "www.wikipedia.org",
    "lwn.net",
    "www.bing.com",
    "duckduckgo.com",
    "www.spotify.com",
    "www.twitch.tv",
    "discord.com",
    "www.figma.com",
    "www.notion.so",
    "www.dropbox.com",
    "www.apple.com",
    "support.apple.com",
    "www.microsoft.com",
    "learn.microsoft.com",
    "www.python.org",
    "pypi.org",
    "www.npmjs.com",
    "nodejs.org",
    "kubernetes.io",
    "www.docker.com",
    "hub.docker.com",
    "aws.amazon.com",
    "cloud.google.com",
    "www.cloudflare.com",
    "www.booking.com",
];

pub const WORDS: &[&str] = &[
    "rust",
    "guide",
    "weather",
    "recipe",
    "forum",
    "video",
    "music",
    "docs",
    "shop",
    "travel",
    "sport",
    "news",
    "review",
    "release",
    "notes",
    "tutorial",
    "install",
    "error",
    "linux",
    "windows",
    "garden",
    "python",
    "market",
    "stock",
    "football",
    "election",
    "science",
    "space",
    "climate",
    "health",
    "diet",
    "bread",
    "coffee",
    "tea",
    "bike",
    "train",
    "flight",
    "hotel",
    "camera",
    "phone",
    "laptop",
    "keyboard",
    "monitor",
    "review",
    "benchmark",
    "database",
    "sqlite",
    "postgres",
    "index",
    "query",
    "memory",
    "thread",
    "async",
    "tokio",
    "serde",
    "compiler",
    "borrow",
    "trait",
    "macro",
    "crate",
    "cargo",
    "build",
    "test",
    "deploy",
    "server",
    "client",
    "browser",
    "chromium",
    "firefox",
    "privacy",
    "security",
    "password",
    "login",
    "account",
    "settings",
    "profile",
    "photo",
    "family",
    "holiday",
    "beach",
    "mountain",
    "river",
    "city",
    "london",
    "paris",
    "berlin",
    "tokyo",
    "history",
    "museum",
    "art",
    "painting",
    "film",
    "series",
    "episode",
    "season",
    "podcast",
    "book",
    "novel",
    "author",
    "poetry",
    "chess",
    "puzzle",
    "game",
    "score",
    "league",
    "cup",
    "final",
    "live",
    "stream",
    "chat",
    "email",
    "calendar",
    "meeting",
    "project",
    "issue",
    "pull",
    "request",
    "merge",
    "branch",
    "commit",
    "fix",
    "bug",
    "feature",
    "design",
    "color",
    "font",
];

const TLDS: &[&str] = &[".com", ".org", ".net", ".io", ".dev", ".co.uk", ".de"];

/// One generated page: URL, title, and its visits as (ms since epoch, typed).
pub struct Page {
    pub url: String,
    pub title: String,
    pub visits: Vec<(i64, bool)>,
}

/// `n` distinct pages visited over the year before `now`.
pub fn pages(n: usize, now: i64, seed: u64) -> Vec<Page> {
    let mut rng = Rng::new(seed);
    let mut hosts: Vec<String> = WELL_KNOWN.iter().map(|h| h.to_string()).collect();
    while hosts.len() < 3000 {
        let a = WORDS[rng.below(WORDS.len())];
        let b = WORDS[rng.below(WORDS.len())];
        let www = if rng.below(3) == 0 { "www." } else { "" };
        hosts.push(format!("{www}{a}{b}{}", TLDS[rng.below(TLDS.len())]));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let host = &hosts[rng.zipf(hosts.len())];
        let w = |rng: &mut Rng| WORDS[rng.below(WORDS.len())];
        let (w1, w2, w3) = (w(&mut rng), w(&mut rng), w(&mut rng));
        let path = match rng.below(5) {
            0 => format!("/{w1}/{w2}-{w3}-{i}"),
            1 => format!("/wiki/{}_{w2}_{i}", capitalise(w1)),
            2 => format!("/questions/{}/{w1}-{w2}", 10_000 + i),
            3 => format!("/watch?v={:011x}", rng.next() & 0xfff_ffff_ffff),
            _ => format!("/{w1}/{i}"),
        };
        let scheme = if rng.below(20) == 0 { "http" } else { "https" };
        let url = format!("{scheme}://{host}{path}");
        let title = format!("{} {w2} {w3} – {host} {i}", capitalise(w1));
        // Most pages are seen once or twice; a few often.
        let count = 1 + rng.zipf(6);
        let visits = (0..count)
            .map(|_| {
                let age = (rng.next() % (365 * DAY as u64)) as i64;
                (now - age, rng.below(10) == 0)
            })
            .collect();
        out.push(Page { url, title, visits });
    }
    out
}

fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// Records every page's visits and title through the public API, and waits for the writer.
pub fn load(p: &Places, container: &str, pages: &[Page]) {
    for page in pages {
        for &(at, typed) in &page.visits {
            p.record_visit(container, &page.url, typed, at);
        }
        p.set_title(container, &page.url, &page.title);
    }
    p.flush().unwrap();
}
