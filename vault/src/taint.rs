//! Taint sets: a value the vault filled must not come back out through a page read.
//!
//! Filling a field puts the secret into the page's DOM, and the agent has tools that read the
//! page (snapshots, text extraction, console, titles). Every string the app hands the agent
//! that was read from a tab goes through [`TaintSet::redact`] first.
//!
//! The replacement is the fixed [`REDACTION_MARKER`], never a length-preserving mask: the
//! length of a password is real information about it.
//!
//! A set keeps no value, only a salted digest of each (see [`TaintSet`]): the sets live in the
//! browser process for as long as their scope, and the vault's values should not.
//!
//! # Known limits (this is best effort, not a boundary)
//!
//! Matching is exact substring matching, so anything that transforms the value defeats it: a
//! reformatted date (filled `1990-01-05`, echoed "January 5, 1990"), a case change, a value
//! split across text nodes or elements, base64, reversal, HTML entities. It also over-redacts:
//! if your first name is Anna, every "Anna" on the page becomes a marker. The real boundaries
//! are origin binding and the fact that the agent surface has no getter; this raises the cost
//! of an accidental echo.
//!
//! Two deliberate bounds:
//! * Values shorter than [`MIN_TAINT_LEN`] characters are not tracked: a middle initial would
//!   turn every "A" on every page into a marker.
//! * A short all-digit value (up to [`SHORT_NUMERIC_MAX`] digits: one-time codes, account
//!   numbers) is redacted only on the site it was filled into. On any other site the tab
//!   later visits, nothing distinguishes those digits from the page's own order number, and a
//!   marker that is sometimes a lie is worse than coverage that is sometimes absent.
//!
//! Two scopes, both applied to every read:
//! * per tab ([`TaintSet`]): survives navigation within that tab (a confirmation page on another
//!   origin echoing the email is exactly the case to catch); the app drops it with the tab;
//! * per container and site ([`SiteTaint`]): a value filled on a site is a value that site has,
//!   and its pages can keep it (localStorage, a cookie, the server) and show it in any other tab
//!   of that site in the same container (same cookies and storage). So every tab of that site in
//!   that container is redacted for those values, for the life of the browser, whichever tab
//!   the fill went into. Another container has separate storage and is not covered.

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::origin::{Origin, Site};

/// What replaces a tainted value.
pub const REDACTION_MARKER: &str = "[redacted:vault]";
/// Shortest value tracked, in characters.
pub const MIN_TAINT_LEN: usize = 3;
/// Longest all-digit value treated as "short numeric" (site-scoped).
pub const SHORT_NUMERIC_MAX: usize = 8;

/// `s` percent-encoded as `encodeURIComponent` does, or (`form`) as a form's
/// `application/x-www-form-urlencoded` body and query do (space as `+`).
fn url_encode(s: &str, form: bool) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    // Capacity set once, and digits pushed straight in: no copy of the value is left behind
    // in a reallocated or temporary buffer (the caller wipes this one).
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || if form {
                b"*-._".contains(&b)
            } else {
                b"-_.!~*'()".contains(&b)
            };
        if keep {
            out.push(b as char);
        } else if form && b == b' ' {
            out.push('+');
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

/// One tracked value, without the value: its length, a salted SHA-256 of it, and 16 bits of a
/// rolling hash that pick the few places in a text worth hashing.
#[derive(Debug)]
struct Tainted {
    len: usize,
    digest: [u8; 32],
    prefilter: u16,
    filled_on: Site,
    site_scoped: bool,
}

/// The values the vault has put into one tab.
///
/// It keeps no value: only each value's length, a SHA-256 of it salted with this set's random
/// key, and 16 bits of a rolling hash (a prefilter that narrows where the digest is computed).
/// Whoever reads this process's memory can still test guesses against a digest (the key is
/// beside it), so a weak password is not safe from that; a strong one, or a generated one, is
/// not recoverable from it.
#[derive(Debug)]
pub struct TaintSet {
    values: Vec<Tainted>,
    key: [u8; 32],
    base: u64,
}

impl Default for TaintSet {
    fn default() -> Self {
        let mut key = [0u8; 32];
        let mut base = [0u8; 8];
        getrandom::fill(&mut key).expect("OS random number generator unavailable");
        getrandom::fill(&mut base).expect("OS random number generator unavailable");
        TaintSet {
            values: Vec::new(),
            key,
            // Odd, so multiplying by it loses no bits modulo 2^64.
            base: u64::from_le_bytes(base) | 1,
        }
    }
}

impl TaintSet {
    /// An empty set (new tab).
    pub fn new() -> Self {
        Self::default()
    }

    /// SHA-256 of the key, the length and `bytes`, zero-padded to whole 64-byte blocks.
    ///
    /// Why the padding: a hasher keeps an unfinished block in its own buffer, and that buffer
    /// is copied wherever the hasher moves (`finalize` takes it by value), so fed the key and
    /// then a value it left the key and the value side by side in freed stack memory (the
    /// vault-process test found the password there after a fill). Fed whole blocks from one
    /// buffer that is wiped here, the hasher compresses them straight from that buffer and
    /// its own only ever holds the final padding. The length keeps the encoding one-to-one.
    fn digest(&self, bytes: &[u8]) -> [u8; 32] {
        let len = self.key.len() + 8 + bytes.len();
        let padded = len.div_ceil(64) * 64;
        // Capacity set once: a growing Vec would leave unwiped copies behind.
        let mut msg = Zeroizing::new(Vec::with_capacity(padded));
        msg.extend_from_slice(&self.key);
        msg.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        msg.extend_from_slice(bytes);
        msg.resize(padded, 0);
        let mut h = Sha256::new();
        h.update(msg.as_slice());
        h.finalize().into()
    }

    /// The rolling hash of `bytes` (polynomial in [`TaintSet::base`], modulo 2^64).
    fn roll(&self, bytes: &[u8]) -> u64 {
        bytes
            .iter()
            .fold(0u64, |h, b| h.wrapping_mul(self.base).wrapping_add(u64::from(*b)))
    }

    /// Records that `value` was filled into a frame of `origin`. Also records the trimmed form
    /// when it differs, since pages commonly trim input, and its URL-encoded forms (as
    /// `encodeURIComponent` and a GET form write it into an address). Only digests are kept
    /// (see the type).
    pub fn add(&mut self, value: &str, origin: &Origin) {
        let t = value.trim();
        let (component, form) = (
            Zeroizing::new(url_encode(t, false)),
            Zeroizing::new(url_encode(t, true)),
        );
        for v in [value, t, component.as_str(), form.as_str()] {
            self.add_exact(v, origin);
        }
    }

    /// Records exactly `v` (when long enough and not yet recorded).
    fn add_exact(&mut self, v: &str, origin: &Origin) {
        if v.chars().count() < MIN_TAINT_LEN {
            return;
        }
        let digest = self.digest(v.as_bytes());
        if self.values.iter().any(|t| t.len == v.len() && t.digest == digest) {
            return;
        }
        let site_scoped = v.len() <= SHORT_NUMERIC_MAX && v.bytes().all(|b| b.is_ascii_digit());
        let prefilter = (self.roll(v.as_bytes()) >> 48) as u16;
        self.values.push(Tainted {
            len: v.len(),
            digest,
            prefilter,
            filled_on: origin.site(),
            site_scoped,
        });
    }

    /// Records every value of a redeemed fill.
    pub fn add_fill(&mut self, fill: &crate::FillSecret, origin: &Origin) {
        for v in fill.values() {
            self.add(v, origin);
        }
    }

    /// Records every value of a redeemed profile fill.
    pub fn add_profile_fill(&mut self, fill: &crate::ProfileFill, origin: &Origin) {
        for (_, v) in fill.values() {
            self.add(v, origin);
        }
    }

    /// Number of tracked values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether nothing is tracked.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Forgets everything (tab closed).
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// Replaces every occurrence of a tracked value in `text` (read from a page currently on
    /// `page`) with [`REDACTION_MARKER`]. Overlapping matches collapse into one marker.
    pub fn redact(&self, text: &str, page: &Origin) -> String {
        Self::redact_all(&[self], text, page)
    }

    /// The byte ranges of `text` holding a value of this set that applies on `site`.
    fn find(&self, text: &str, site: &Site, ranges: &mut Vec<(usize, usize)>) {
        let bytes = text.as_bytes();
        let mut lens: Vec<usize> = self.values.iter().map(|t| t.len).collect();
        lens.sort_unstable();
        lens.dedup();
        for len in lens {
            if len == 0 || len > bytes.len() {
                continue;
            }
            let group: Vec<&Tainted> = self
                .values
                .iter()
                .filter(|t| t.len == len && !(t.site_scoped && t.filled_on != *site))
                .collect();
            if group.is_empty() {
                continue;
            }
            let top = self.base.wrapping_pow((len - 1) as u32);
            let mut h = self.roll(&bytes[..len]);
            let mut start = 0;
            loop {
                let pf = (h >> 48) as u16;
                if group.iter().any(|t| t.prefilter == pf) {
                    let d = self.digest(&bytes[start..start + len]);
                    if let Some(t) = group.iter().find(|t| t.prefilter == pf && t.digest == d) {
                        // A match equals a whole UTF-8 value, so it lies on char boundaries.
                        let end = start + len;
                        // Digits inside a longer digit run are a different number, not our code.
                        let boundary_ok = !t.site_scoped
                            || (!text[..start].ends_with(|c: char| c.is_ascii_digit())
                                && !text[end..].starts_with(|c: char| c.is_ascii_digit()));
                        if boundary_ok {
                            ranges.push((start, end));
                        }
                    }
                }
                if start + len >= bytes.len() {
                    break;
                }
                h = h
                    .wrapping_sub(u64::from(bytes[start]).wrapping_mul(top))
                    .wrapping_mul(self.base)
                    .wrapping_add(u64::from(bytes[start + len]));
                start += 1;
            }
        }
    }

    /// [`TaintSet::redact`] with the values of several sets at once (a tab's own and its
    /// site's), so a match of one overlapping a match of another still gives one marker.
    pub fn redact_all(sets: &[&TaintSet], text: &str, page: &Origin) -> String {
        if sets.iter().all(|s| s.values.is_empty()) {
            return text.to_owned();
        }
        let site = page.site();
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for s in sets {
            s.find(text, &site, &mut ranges);
        }
        if ranges.is_empty() {
            return text.to_owned();
        }
        ranges.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        let mut iter = ranges.into_iter().peekable();
        while let Some((s, mut e)) = iter.next() {
            while let Some(&(ns, ne)) = iter.peek() {
                if ns <= e {
                    e = e.max(ne);
                    iter.next();
                } else {
                    break;
                }
            }
            if s >= pos {
                out.push_str(&text[pos..s]);
                out.push_str(REDACTION_MARKER);
                pos = e;
            } else if e > pos {
                pos = e;
            }
        }
        out.push_str(&text[pos..]);
        out
    }
}

/// Values the vault filled, per (container, site), kept for the life of the browser. See the
/// module docs for why a fill taints the whole site in its container and not only its tab.
///
/// The container is whatever string the app uses to tell storage partitions apart (the empty
/// string for the default one).
#[derive(Debug, Default)]
pub struct SiteTaint {
    sets: HashMap<(String, Site), TaintSet>,
}

impl SiteTaint {
    /// Nothing filled yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn set_for(&mut self, container: &str, origin: &Origin) -> &mut TaintSet {
        self.sets
            .entry((container.to_owned(), origin.site()))
            .or_default()
    }

    /// Records a redeemed fill into a frame of `origin`, in `container`.
    pub fn add_fill(&mut self, container: &str, fill: &crate::FillSecret, origin: &Origin) {
        self.set_for(container, origin).add_fill(fill, origin);
    }

    /// Records a redeemed profile fill into a frame of `origin`, in `container`.
    pub fn add_profile_fill(&mut self, container: &str, fill: &crate::ProfileFill, origin: &Origin) {
        self.set_for(container, origin).add_profile_fill(fill, origin);
    }

    /// Records one value filled into a frame of `origin`, in `container`.
    pub fn add(&mut self, container: &str, value: &str, origin: &Origin) {
        self.set_for(container, origin).add(value, origin);
    }

    /// The values to redact from a page on `page`'s site in `container`, if any.
    pub fn for_page(&self, container: &str, page: &Origin) -> Option<&TaintSet> {
        self.sets
            .get(&(container.to_owned(), page.site()))
            .filter(|t| !t.is_empty())
    }

    /// Whether anything was filled on any site of `container` (a cheap pre-check before
    /// finding out which site a tab is on).
    pub fn any_in(&self, container: &str) -> bool {
        self.sets
            .iter()
            .any(|((c, _), t)| c == container && !t.is_empty())
    }

    /// Whether nothing is tracked in any container.
    pub fn is_empty(&self) -> bool {
        self.sets.values().all(TaintSet::is_empty)
    }

    /// Forgets everything (the vault locked, or the browser is going away).
    pub fn clear(&mut self) {
        self.sets.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(s: &str) -> Origin {
        Origin::parse(s).unwrap()
    }

    #[test]
    fn redacts_with_fixed_marker_not_length() {
        let mut t = TaintSet::new();
        t.add("hunter2hunter2", &o("https://example.com"));
        t.add("x9", &o("https://example.com"));
        let out = t.redact("pw is hunter2hunter2, ok", &o("https://example.com/login"));
        assert_eq!(out, format!("pw is {REDACTION_MARKER}, ok"));
        let short = TaintSet::new();
        assert_eq!(short.redact("abc", &o("https://example.com")), "abc");
        assert_eq!(t.len(), 1, "2-char value not tracked");
    }

    #[test]
    fn overlapping_values_give_one_marker() {
        let mut t = TaintSet::new();
        let page = o("https://jobs.example.com");
        t.add("Ada", &page);
        t.add("Ada Lovelace", &page);
        t.add("Lovelace", &page);
        assert_eq!(
            t.redact("Hi Ada Lovelace!", &page),
            format!("Hi {REDACTION_MARKER}!")
        );
        // Over-redaction is the documented cost.
        assert_eq!(t.redact("Adam", &page), format!("{REDACTION_MARKER}m"));
    }

    #[test]
    fn follows_the_tab_across_sites_for_long_values() {
        let mut t = TaintSet::new();
        t.add("ada@example.org", &o("https://jobs.acme.com"));
        assert_eq!(
            t.redact("thanks ada@example.org", &o("https://confirm.other.net")),
            format!("thanks {REDACTION_MARKER}")
        );
    }

    #[test]
    fn short_numeric_values_are_site_scoped_and_digit_bounded() {
        let mut t = TaintSet::new();
        let bank = o("https://bank.example.com");
        t.add("123456", &bank);
        // On the site it was filled into: redacted, but not inside a longer number.
        assert_eq!(
            t.redact("code 123456.", &bank),
            format!("code {REDACTION_MARKER}.")
        );
        assert_eq!(t.redact("order 91234567", &bank), "order 91234567");
        // Elsewhere: left alone (documented bound, not a leak through under-redaction here).
        assert_eq!(
            t.redact("order 123456", &o("https://shop.example.net")),
            "order 123456"
        );
    }

    #[test]
    fn documented_limits_hold_as_documented() {
        let mut t = TaintSet::new();
        let p = o("https://example.com");
        t.add("1990-01-05", &p);
        assert_eq!(t.redact("Born January 5, 1990", &p), "Born January 5, 1990");
        t.add("Secretpass", &p);
        assert_eq!(t.redact("SECRETPASS", &p), "SECRETPASS");
    }

    #[test]
    fn site_taint_covers_that_site_in_that_container_only() {
        let mut s = SiteTaint::new();
        let login = o("https://accounts.example.com/login");
        s.add("", "correct-horse-battery", &login);
        s.add("", "123456", &login);
        // Another origin of the same site (registrable domain), same container: covered.
        let other_page = o("https://www.example.com/profile");
        let t = s.for_page("", &other_page).expect("same site, same container");
        assert_eq!(
            t.redact("pw correct-horse-battery code 123456", &other_page),
            format!("pw {REDACTION_MARKER} code {REDACTION_MARKER}")
        );
        // Another site, or another container (separate storage): not this set's business.
        assert!(s.for_page("", &o("https://example.net")).is_none());
        assert!(s.for_page("work", &login).is_none());
        assert!(s.any_in("") && !s.any_in("work"));
        assert!(!s.is_empty());
        s.clear();
        assert!(s.for_page("", &login).is_none());
        assert!(s.is_empty());
    }

    #[test]
    fn redact_all_merges_overlaps_across_sets() {
        let p = o("https://example.com");
        let (mut a, mut b) = (TaintSet::new(), TaintSet::new());
        a.add("Ada Lovelace", &p);
        b.add("Lovelace Byron", &p);
        assert_eq!(
            TaintSet::redact_all(&[&a, &b], "Ada Lovelace Byron!", &p),
            format!("{REDACTION_MARKER}!")
        );
        assert_eq!(TaintSet::redact_all(&[], "Ada", &p), "Ada");
    }

    /// The plain substring search these digests replace, as the reference.
    fn naive(values: &[(&str, bool)], text: &str) -> String {
        let mut ranges = Vec::new();
        for (v, scoped) in values {
            let mut from = 0;
            while let Some(i) = text[from..].find(v) {
                let (start, end) = (from + i, from + i + v.len());
                let ok = !scoped
                    || (!text[..start].ends_with(|c: char| c.is_ascii_digit())
                        && !text[end..].starts_with(|c: char| c.is_ascii_digit()));
                if ok {
                    ranges.push((start, end));
                }
                from = start + v.chars().next().map_or(1, char::len_utf8);
            }
        }
        ranges.sort_unstable();
        let mut out = String::new();
        let mut pos = 0;
        let mut iter = ranges.into_iter().peekable();
        while let Some((s, mut e)) = iter.next() {
            while let Some(&(ns, ne)) = iter.peek() {
                if ns > e {
                    break;
                }
                e = e.max(ne);
                iter.next();
            }
            if s >= pos {
                out.push_str(&text[pos..s]);
                out.push_str(REDACTION_MARKER);
                pos = e;
            } else if e > pos {
                pos = e;
            }
        }
        out.push_str(&text[pos..]);
        out
    }

    #[test]
    fn digests_find_what_substring_search_finds() {
        // A small alphabet (with a multibyte letter and digits) makes many near misses and
        // overlaps; every value is also planted whole in the text.
        let alphabet: Vec<char> = "ab1é2 ".chars().collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let p = o("https://example.com");
        for _ in 0..300 {
            let word = |next: &mut dyn FnMut(usize) -> usize, len: usize| {
                (0..len)
                    .map(|_| alphabet[next(alphabet.len())])
                    .collect::<String>()
            };
            let count = 1 + next(4);
            let values: Vec<String> = (0..count)
                .map(|_| {
                    let len = 3 + next(5);
                    word(&mut next, len)
                })
                .collect();
            let len = next(60);
            let mut text = word(&mut next, len);
            for v in &values {
                let at = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .nth(next(text.chars().count() + 1));
                text.insert_str(at.unwrap_or(text.len()), v);
            }
            let mut t = TaintSet::new();
            let mut reference: Vec<(String, bool)> = Vec::new();
            for v in &values {
                t.add(v, &p);
                for w in [v.as_str(), v.trim()] {
                    if w.chars().count() >= MIN_TAINT_LEN && !reference.iter().any(|(r, _)| r == w) {
                        let scoped = w.len() <= SHORT_NUMERIC_MAX && w.bytes().all(|b| b.is_ascii_digit());
                        reference.push((w.to_owned(), scoped));
                    }
                }
            }
            let r: Vec<(&str, bool)> = reference.iter().map(|(v, s)| (v.as_str(), *s)).collect();
            assert_eq!(
                t.redact(&text, &p),
                naive(&r, &text),
                "values {values:?} in {text:?}"
            );
        }
    }

    #[test]
    fn encoded_forms_are_redacted_and_prefixes_are_not() {
        let p = o("https://example.com");
        let mut t = TaintSet::new();
        t.add("k9Ci+Igx4$hm?$.iQi?l", &p);
        t.add("ada lovelace@x.org", &p);
        t.add("Zoë Ünal", &p);
        let m = REDACTION_MARKER;
        // As a URL and a form carry them.
        assert_eq!(
            t.redact("/f?pw=k9Ci%2BIgx4%24hm%3F%24.iQi%3Fl&x", &p),
            format!("/f?pw={m}&x")
        );
        assert_eq!(t.redact("u=ada+lovelace%40x.org", &p), format!("u={m}"));
        assert_eq!(t.redact("u=ada%20lovelace%40x.org", &p), format!("u={m}"));
        assert_eq!(t.redact("n=Zo%C3%AB%20%C3%9Cnal", &p), format!("n={m}"));
        // A prefix is not redacted: that would answer, a character at a time, whether a
        // guess shown on a page is the start of the password.
        assert_eq!(t.redact("pw=k9Ci+Igx4$hm?$.iQi?", &p), "pw=k9Ci+Igx4$hm?$.iQi?");
    }

    #[test]
    fn the_set_keeps_no_value() {
        let mut t = TaintSet::new();
        t.add("correct-horse-battery", &o("https://example.com"));
        let shown = format!("{t:?}");
        assert!(!shown.contains("correct-horse"), "{shown}");
        // Two sets digest the same value differently (each has its own key).
        let mut u = TaintSet::new();
        u.add("correct-horse-battery", &o("https://example.com"));
        assert_ne!(t.values[0].digest, u.values[0].digest);
    }

    #[test]
    fn multibyte_text_is_safe() {
        let mut t = TaintSet::new();
        let p = o("https://example.com");
        t.add("Zoë", &p);
        assert_eq!(t.redact("ééZoëé", &p), format!("éé{REDACTION_MARKER}é"));
        t.clear();
        assert!(t.is_empty());
    }
}
