//! Tracker blocking on Brave's `adblock` engine, with a compiled-engine cache on disk.
//!
//! The hot path is [`Blocker::check`], called from CEF's resource-request handler on the IO
//! thread for every subresource. The engine is built without adblock's `single-thread` feature,
//! so [`Blocker`] is `Send + Sync`: put it in an `Arc` and call it from any thread. Regex filters
//! share one mutex inside the engine; everything else is lock-free reads of a flatbuffer.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use adblock::Engine;
use adblock::lists::{FilterSet, ParseOptions, RuleTypes};
use adblock::request::Request;
use adblock::url_parser;

use aperture_common::fs::write_atomic as atomic_write;

use crate::fsutil::sha256_hex;
use crate::lists::{ListError, ListSet};

/// Bump when anything that shapes the compiled engine changes (parse options, list handling),
/// so old cache files stop matching instead of being loaded with the wrong semantics.
const ENGINE_CACHE_FORMAT: &str = "aperture-privacy engine v1; adblock 0.13; network-only";

/// What kind of resource a request fetches.
///
/// Mirrors CEF's `cef_resource_type_t` one-to-one so the app can map with
/// [`ResourceType::from_cef`]; the mapping onto adblock's request types (which decide `$script`,
/// `$image`, `$third-party`-style options) lives here rather than in the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceType {
    /// Top-level document. Never blocked by lists; see [`Blocker::check`].
    MainFrame,
    /// An iframe document.
    SubFrame,
    /// CSS.
    Stylesheet,
    /// JavaScript.
    Script,
    /// An image.
    Image,
    /// A web font.
    Font,
    /// Anything else a page fetches that CEF cannot classify further.
    SubResource,
    /// `<object>`/`<embed>`.
    Object,
    /// Audio or video.
    Media,
    /// A dedicated worker's script.
    Worker,
    /// A shared worker's script.
    SharedWorker,
    /// `<link rel=prefetch>`.
    Prefetch,
    /// A favicon.
    Favicon,
    /// XMLHttpRequest or `fetch()` (CEF reports both as XHR).
    Xhr,
    /// `navigator.sendBeacon` / `<a ping>`.
    Ping,
    /// A service worker's script.
    ServiceWorker,
    /// A CSP violation report.
    CspReport,
    /// A plugin's request.
    Plugin,
    /// Navigation preload for a main frame.
    NavigationPreloadMainFrame,
    /// Navigation preload for a sub frame.
    NavigationPreloadSubFrame,
    /// A WebSocket handshake (the scheme also tells adblock this).
    WebSocket,
    /// Unknown.
    Other,
}

impl ResourceType {
    /// Maps CEF's `cef_resource_type_t` numeric value (CEF 131: `RT_MAIN_FRAME` = 0 …
    /// `RT_NAVIGATION_PRELOAD_SUB_FRAME` = 20; 18 is unused). Unknown values become `Other`.
    pub fn from_cef(raw: i32) -> Self {
        match raw {
            0 => Self::MainFrame,
            1 => Self::SubFrame,
            2 => Self::Stylesheet,
            3 => Self::Script,
            4 => Self::Image,
            5 => Self::Font,
            6 => Self::SubResource,
            7 => Self::Object,
            8 => Self::Media,
            9 => Self::Worker,
            10 => Self::SharedWorker,
            11 => Self::Prefetch,
            12 => Self::Favicon,
            13 => Self::Xhr,
            14 => Self::Ping,
            15 => Self::ServiceWorker,
            16 => Self::CspReport,
            17 => Self::Plugin,
            19 => Self::NavigationPreloadMainFrame,
            20 => Self::NavigationPreloadSubFrame,
            _ => Self::Other,
        }
    }

    /// The request-type string adblock understands (webRequest vocabulary).
    fn as_adblock(self) -> &'static str {
        match self {
            Self::MainFrame | Self::NavigationPreloadMainFrame => "main_frame",
            Self::SubFrame | Self::NavigationPreloadSubFrame => "sub_frame",
            Self::Stylesheet => "stylesheet",
            // Worker scripts are scripts as far as `$script` rules go, as in uBO.
            Self::Script | Self::Worker | Self::SharedWorker | Self::ServiceWorker => "script",
            Self::Image | Self::Favicon => "image",
            Self::Font => "font",
            Self::Object | Self::Plugin => "object",
            Self::Media => "media",
            Self::Xhr => "xmlhttprequest",
            Self::Ping => "ping",
            Self::CspReport => "csp_report",
            Self::WebSocket => "websocket",
            Self::SubResource | Self::Prefetch | Self::Other => "other",
        }
    }
}

/// The verdict for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Let it through unchanged.
    Allow,
    /// Cancel it (CEF: return `RV_CANCEL` from `OnBeforeResourceLoad`) and count it.
    Block,
    /// Let it through at this URL instead (a `$removeparam` rule stripped tracking parameters).
    Rewrite(String),
}

impl Decision {
    /// True for [`Decision::Block`].
    pub fn is_blocked(&self) -> bool {
        matches!(self, Decision::Block)
    }
}

/// Why the blocker could not be built or loaded.
#[derive(Debug, thiserror::Error)]
pub enum BlockerError {
    /// A list could not be read or failed its hash check.
    #[error(transparent)]
    List(#[from] ListError),
    /// The engine cache could not be written. Loading never fails on a bad cache file: it is
    /// rebuilt instead.
    #[error("write engine cache {path}: {source}")]
    CacheWrite {
        /// The cache file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// How [`Blocker::load_or_build`] got its engine, for the start-up log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadOutcome {
    /// Deserialized from the cache file.
    Cached {
        /// The file loaded.
        path: PathBuf,
        /// Its size in bytes.
        bytes: usize,
        /// Read + deserialize time.
        took: Duration,
    },
    /// Parsed from list text and written to the cache.
    Built {
        /// The file written.
        path: PathBuf,
        /// Its size in bytes.
        bytes: usize,
        /// Parse + compile time (excludes the write).
        took: Duration,
        /// Why the cache was not used.
        reason: RebuildReason,
    },
}

/// Why a cached engine was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebuildReason {
    /// No cache file for this exact list content.
    Missing,
    /// The file exists but adblock refused it (truncated, corrupt, other format version).
    Rejected(String),
}

/// A compiled tracker-blocking engine. `Send + Sync`; share it with `Arc`.
pub struct Blocker {
    engine: Engine,
    key: String,
}

impl std::fmt::Debug for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocker")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

// The IO-thread contract depends on this; fail the build, not the browser, if a feature flag
// ever brings `single-thread` back.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Blocker>();
    assert_send_sync::<BlockedCounters>();
};

impl Blocker {
    /// Parses and compiles `lists` (about 0.1 s for EasyList + EasyPrivacy in a release build,
    /// several times that in debug); prefer [`Blocker::load_or_build`] at start-up.
    pub fn build(lists: &ListSet) -> Result<Self, BlockerError> {
        let mut set = FilterSet::new(false);
        for l in lists.lists() {
            set.add_filter_list(l.read_text()?, parse_options());
        }
        Ok(Self {
            engine: Engine::new_with_filter_set(set),
            key: cache_key(lists),
        })
    }

    /// Compiles a handful of rules given inline (tests, user "block this" rules).
    pub fn from_rules(rules: &str) -> Self {
        let mut set = FilterSet::new(false);
        set.add_filter_list(rules.to_string(), parse_options());
        Self {
            engine: Engine::new_with_filter_set(set),
            key: sha256_hex(rules.as_bytes()),
        }
    }

    /// Loads the compiled engine for exactly this list content from `cache_dir`, or builds it
    /// and writes the cache (atomically), removing cache files for other list content.
    ///
    /// A corrupt or incompatible cache file is not an error: it is rebuilt and replaced.
    ///
    /// Trust: adblock skips flatbuffer verification for files written by the same crate
    /// version (its checksum still catches corruption). The cache lives in the user's own cache
    /// dir, so whoever can rewrite it can already run code as the user; keep `cache_dir` out
    /// of anywhere a web page or the agent can write.
    pub fn load_or_build(lists: &ListSet, cache_dir: &Path) -> Result<(Self, LoadOutcome), BlockerError> {
        let key = cache_key(lists);
        let path = cache_dir.join(format!("engine-{}.dat", &key[..32]));
        let reason = match fs::read(&path) {
            Ok(bytes) => {
                let start = Instant::now();
                let mut engine = Engine::default();
                match engine.deserialize(&bytes) {
                    Ok(()) => {
                        let outcome = LoadOutcome::Cached {
                            path,
                            bytes: bytes.len(),
                            took: start.elapsed(),
                        };
                        return Ok((Self { engine, key }, outcome));
                    }
                    Err(e) => RebuildReason::Rejected(e.to_string()),
                }
            }
            Err(_) => RebuildReason::Missing,
        };
        let start = Instant::now();
        let blocker = Self::build(lists)?;
        let took = start.elapsed();
        let bytes = blocker.serialize();
        atomic_write(&path, &bytes).map_err(|source| BlockerError::CacheWrite {
            path: path.clone(),
            source,
        })?;
        remove_stale_caches(cache_dir, &path);
        let outcome = LoadOutcome::Built {
            path,
            bytes: bytes.len(),
            took,
            reason,
        };
        Ok((blocker, outcome))
    }

    /// The compiled engine in adblock's binary format (what [`Blocker::load_or_build`] caches).
    pub fn serialize(&self) -> Vec<u8> {
        self.engine.serialize()
    }

    /// The cache key of the list content this engine was built from.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Decides one request. Cheap (a few µs), never blocks on I/O, callable from any thread.
    ///
    /// * `url`: the request URL.
    /// * `source_url`: the URL of the frame that made the request (CEF: the frame's URL, or the
    ///   request's referrer/initiator when the frame is gone); `""` if unknown, which makes the
    ///   request count as third-party.
    ///
    /// Top-level documents are always allowed: blocking the page the agent (or human) asked
    /// for would turn a deliberate navigation into an opaque error; whether a top-level load
    /// may happen is [`crate::NavigationPolicy`]'s call. Non-network schemes (`data:`,
    /// `blob:`, `chrome:`, …) are allowed without parsing: lists only describe network fetches.
    pub fn check(&self, url: &str, source_url: &str, resource_type: ResourceType) -> Decision {
        if matches!(
            resource_type,
            ResourceType::MainFrame | ResourceType::NavigationPreloadMainFrame
        ) {
            return Decision::Allow;
        }
        if !is_network_scheme(url) {
            return Decision::Allow;
        }
        let (url, source_url) = (lowercase_origin(url), lowercase_origin(source_url));
        let Some(request) = build_request(&url, &source_url, resource_type.as_adblock()) else {
            return Decision::Allow;
        };
        self.decide(&request)
    }

    /// [`Blocker::check`] through adblock's own `Request::new`, without the source-URL cache.
    /// Exists so tests can prove the fast path decides identically.
    #[doc(hidden)]
    pub fn check_reference(&self, url: &str, source_url: &str, resource_type: ResourceType) -> Decision {
        if matches!(
            resource_type,
            ResourceType::MainFrame | ResourceType::NavigationPreloadMainFrame
        ) {
            return Decision::Allow;
        }
        if !is_network_scheme(url) {
            return Decision::Allow;
        }
        let (url, source_url) = (lowercase_origin(url), lowercase_origin(source_url));
        let Ok(request) = Request::new(&url, &source_url, resource_type.as_adblock(), "get") else {
            return Decision::Allow;
        };
        self.decide(&request)
    }

    fn decide(&self, request: &Request) -> Decision {
        let result = self.engine.check_network_request(request);
        if result.should_block() {
            Decision::Block
        } else if let Some(u) = result.rewritten_url {
            Decision::Rewrite(u)
        } else {
            Decision::Allow
        }
    }
}

/// `$XDG_CACHE_HOME/aperture/adblock-engine` (else under `$HOME/.cache`): where the app keeps
/// the compiled engine. `None` when neither variable is set.
pub fn default_engine_cache_dir() -> Option<PathBuf> {
    aperture_common::xdg::cache_dir().map(|r| r.join("adblock-engine"))
}

fn parse_options() -> ParseOptions {
    // The app does no cosmetic (element-hiding) injection yet; keeping only network rules
    // roughly halves build time and cache size.
    ParseOptions {
        rule_types: RuleTypes::NetworkOnly,
        ..ParseOptions::default()
    }
}

fn cache_key(lists: &ListSet) -> String {
    sha256_hex(format!("{ENGINE_CACHE_FORMAT}\n{}", lists.content_key()).as_bytes())
}

fn is_network_scheme(url: &str) -> bool {
    let b = url.as_bytes();
    let starts = |p: &[u8]| b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p);
    starts(b"http://") || starts(b"https://") || starts(b"ws://") || starts(b"wss://")
}

thread_local! {
    // A page's subresources arrive in bursts from one frame, so the frame URL repeats; parsing
    // it (public-suffix lookup included) is a fifth of `Request::new`. One entry per thread
    // is enough: CEF calls the handler on its IO thread.
    static SOURCE: RefCell<(String, Option<(String, String)>)> = const { RefCell::new((String::new(), None)) };
}

/// Same request as adblock's `Request::new(url, source_url, ty, "get")`, with the source URL's
/// host and registrable domain cached per thread.
fn build_request(url: &str, source_url: &str, ty: &str) -> Option<Request> {
    let parsed = url_parser::parse_url(url)?;
    SOURCE.with(|cell| {
        let mut cache = cell.borrow_mut();
        if cache.0 != source_url {
            let src =
                url_parser::parse_url(source_url).map(|p| (p.hostname().to_string(), p.domain().to_string()));
            *cache = (source_url.to_string(), src);
        }
        // As in `Request::new`: no parseable source means third-party with no source host.
        let (source_host, third_party) = match &cache.1 {
            Some((host, domain)) => (host.as_str(), domain != parsed.domain()),
            None => ("", true),
        };
        Some(Request::preparsed(
            &parsed.url,
            parsed.hostname(),
            source_host,
            ty,
            third_party,
            "get",
        ))
    })
}

/// Lower-cases scheme and host. Chromium hands over canonical URLs, so this allocates only for
/// hand-written input; adblock's own parser compares hosts case-sensitively.
fn lowercase_origin(url: &str) -> std::borrow::Cow<'_, str> {
    // Byte loops: this runs twice per request, and `str::find` with char patterns showed up
    // in the profile.
    let b = url.as_bytes();
    let Some(colon) = b.iter().take(16).position(|&c| c == b':') else {
        return std::borrow::Cow::Borrowed(url);
    };
    if !b[colon..].starts_with(b"://") {
        return std::borrow::Cow::Borrowed(url);
    }
    let host_start = colon + 3;
    let end = b[host_start..]
        .iter()
        .position(|&c| matches!(c, b'/' | b'?' | b'#'))
        .map_or(b.len(), |p| p + host_start);
    if b[..end].iter().any(u8::is_ascii_uppercase) {
        let mut s = url[..end].to_ascii_lowercase();
        s.push_str(&url[end..]);
        std::borrow::Cow::Owned(s)
    } else {
        std::borrow::Cow::Borrowed(url)
    }
}

fn remove_stale_caches(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p != keep && name.starts_with("engine-") && name.ends_with(".dat") {
            let _ = fs::remove_file(p);
        }
    }
}

/// Per-tab blocked-request counters for the UI badge. `Send + Sync`.
///
/// Written from the IO thread (one increment per blocked request), read from the UI thread.
/// `K` is whatever the app keys tabs by (CEF browser id, the MCP `TabId`'s `u64`, …).
#[derive(Debug)]
pub struct BlockedCounters<K = u64> {
    // Read lock + atomic add on the hot path; the write lock is only taken the first time a
    // tab blocks something, or when the UI resets/removes a tab.
    tabs: RwLock<HashMap<K, AtomicU64>>,
}

impl<K> Default for BlockedCounters<K> {
    fn default() -> Self {
        Self {
            tabs: RwLock::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq + Copy> BlockedCounters<K> {
    /// Empty counters.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one blocked request for `tab`; returns the tab's new total.
    pub fn record_blocked(&self, tab: K) -> u64 {
        if let Some(c) = read(&self.tabs).get(&tab) {
            return c.fetch_add(1, Ordering::Relaxed) + 1;
        }
        let mut w = write(&self.tabs);
        w.entry(tab).or_default().fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Counts `decision` if it is a block; convenience for the resource handler.
    pub fn record(&self, tab: K, decision: &Decision) {
        if decision.is_blocked() {
            self.record_blocked(tab);
        }
    }

    /// Blocked requests for `tab` since its last reset.
    pub fn blocked(&self, tab: K) -> u64 {
        read(&self.tabs)
            .get(&tab)
            .map_or(0, |c| c.load(Ordering::Relaxed))
    }

    /// Zeroes `tab` (call on a new main-frame navigation, so the badge counts this page).
    pub fn reset(&self, tab: K) {
        if let Some(c) = read(&self.tabs).get(&tab) {
            c.store(0, Ordering::Relaxed);
        }
    }

    /// Forgets `tab` (call when it closes).
    pub fn remove(&self, tab: K) {
        write(&self.tabs).remove(&tab);
    }

    /// Every tab with its count, for a UI refresh.
    pub fn snapshot(&self) -> Vec<(K, u64)> {
        read(&self.tabs)
            .iter()
            .map(|(k, v)| (*k, v.load(Ordering::Relaxed)))
            .collect()
    }

    /// Sum over all tabs.
    pub fn total(&self) -> u64 {
        read(&self.tabs).values().map(|v| v.load(Ordering::Relaxed)).sum()
    }
}

// A panic while holding the lock leaves only counters behind it; keep counting rather than
// propagating the poison into CEF's IO thread.
fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}
fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &str = "||tracker.example^\n||ads.example^$script\n@@||tracker.example/ok.js\n";

    #[test]
    fn blocks_and_allows_small_rules() {
        let b = Blocker::from_rules(RULES);
        let src = "https://news.example/article";
        assert_eq!(
            b.check("https://tracker.example/t.gif", src, ResourceType::Image),
            Decision::Block
        );
        assert_eq!(
            b.check("https://tracker.example/ok.js", src, ResourceType::Script),
            Decision::Allow
        );
        assert_eq!(
            b.check("https://ads.example/a.js", src, ResourceType::Script),
            Decision::Block
        );
        // `$script` only.
        assert_eq!(
            b.check("https://ads.example/a.png", src, ResourceType::Image),
            Decision::Allow
        );
        assert_eq!(
            b.check("https://news.example/app.js", src, ResourceType::Script),
            Decision::Allow
        );
    }

    #[test]
    fn main_frame_and_non_network_schemes_pass() {
        let b = Blocker::from_rules(RULES);
        assert_eq!(
            b.check("https://tracker.example/", "", ResourceType::MainFrame),
            Decision::Allow
        );
        assert_eq!(
            b.check("data:image/png;base64,AAAA", "", ResourceType::Image),
            Decision::Allow
        );
        assert_eq!(b.check("not a url", "", ResourceType::Image), Decision::Allow);
        assert_eq!(
            b.check("HTTPS://TRACKER.EXAMPLE/x", "", ResourceType::Image),
            Decision::Block
        );
    }

    #[test]
    fn origin_lowercasing() {
        assert_eq!(
            lowercase_origin("HTTPS://A.Example/Path?Q=X"),
            "https://a.example/Path?Q=X"
        );
        assert_eq!(
            lowercase_origin("https://a.example/Path"),
            "https://a.example/Path"
        );
        assert_eq!(lowercase_origin("HTTP://A.EXAMPLE"), "http://a.example");
        assert_eq!(lowercase_origin(""), "");
        assert_eq!(lowercase_origin("Not A URL"), "Not A URL");
        assert!(matches!(
            lowercase_origin("https://x.example/A"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn cef_resource_types_map() {
        assert_eq!(ResourceType::from_cef(0), ResourceType::MainFrame);
        assert_eq!(ResourceType::from_cef(3), ResourceType::Script);
        assert_eq!(ResourceType::from_cef(13), ResourceType::Xhr);
        assert_eq!(ResourceType::from_cef(18), ResourceType::Other);
        assert_eq!(
            ResourceType::from_cef(20),
            ResourceType::NavigationPreloadSubFrame
        );
    }

    #[test]
    fn counters_count_reset_remove() {
        let c: BlockedCounters = BlockedCounters::new();
        assert_eq!(c.record_blocked(1), 1);
        assert_eq!(c.record_blocked(1), 2);
        c.record(2, &Decision::Block);
        c.record(2, &Decision::Allow);
        assert_eq!((c.blocked(1), c.blocked(2), c.total()), (2, 1, 3));
        c.reset(1);
        assert_eq!(c.blocked(1), 0);
        c.remove(2);
        assert_eq!(c.blocked(2), 0);
        assert_eq!(c.snapshot(), vec![(1, 0)]);
    }

    #[test]
    fn counters_are_shared_across_threads() {
        let c = std::sync::Arc::new(BlockedCounters::<u64>::new());
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        c.record_blocked(7);
                    }
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(c.blocked(7), 4000);
    }

    #[test]
    fn engine_cache_round_trip_and_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("l.txt");
        fs::write(&list, RULES).unwrap();
        let set = ListSet::from_files(&[&list]).unwrap();
        let cache = dir.path().join("cache");

        let (b1, o1) = Blocker::load_or_build(&set, &cache).unwrap();
        let LoadOutcome::Built {
            path,
            reason: RebuildReason::Missing,
            ..
        } = o1
        else {
            panic!("{o1:?}")
        };
        let (b2, o2) = Blocker::load_or_build(&set, &cache).unwrap();
        assert!(matches!(o2, LoadOutcome::Cached { .. }), "{o2:?}");
        for b in [&b1, &b2] {
            assert_eq!(
                b.check("https://tracker.example/x", "", ResourceType::Image),
                Decision::Block
            );
        }

        // A truncated cache file is rebuilt, not trusted.
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let (b3, o3) = Blocker::load_or_build(&set, &cache).unwrap();
        assert!(
            matches!(
                o3,
                LoadOutcome::Built {
                    reason: RebuildReason::Rejected(_),
                    ..
                }
            ),
            "{o3:?}"
        );
        assert_eq!(
            b3.check("https://tracker.example/x", "", ResourceType::Image),
            Decision::Block
        );

        // New list content gets a new cache file and the old one is removed.
        fs::write(&list, "||other.example^\n").unwrap();
        let set2 = ListSet::from_files(&[&list]).unwrap();
        let (_, o4) = Blocker::load_or_build(&set2, &cache).unwrap();
        let LoadOutcome::Built { path: p4, .. } = o4 else {
            panic!()
        };
        assert_ne!(p4, path);
        assert!(!path.exists());
    }
}
