//! Taint sets: a value the vault filled must not come back out through a page read.
//!
//! Filling a field puts the secret into the page's DOM, and the agent has tools that read the
//! page (snapshots, text extraction, console, titles). Every string the app hands the agent
//! that was read from a tab goes through [`TaintSet::redact`] first.
//!
//! The replacement is the fixed [`REDACTION_MARKER`], never a length-preserving mask: the
//! length of a password is real information about it.
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

use crate::origin::{Origin, Site};
use crate::secret::SecretString;

/// What replaces a tainted value.
pub const REDACTION_MARKER: &str = "[redacted:vault]";
/// Shortest value tracked, in characters.
pub const MIN_TAINT_LEN: usize = 3;
/// Longest all-digit value treated as "short numeric" (site-scoped).
pub const SHORT_NUMERIC_MAX: usize = 8;

#[derive(Debug)]
struct Tainted {
    value: SecretString,
    filled_on: Site,
    site_scoped: bool,
}

/// The values the vault has put into one tab.
#[derive(Debug, Default)]
pub struct TaintSet {
    values: Vec<Tainted>,
}

impl TaintSet {
    /// An empty set (new tab).
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `value` was filled into a frame of `origin`. Also records the trimmed form
    /// when it differs, since pages commonly trim input.
    pub fn add(&mut self, value: &str, origin: &Origin) {
        for v in [value, value.trim()] {
            if v.chars().count() < MIN_TAINT_LEN || self.values.iter().any(|t| t.value.expose() == v) {
                continue;
            }
            let site_scoped = v.len() <= SHORT_NUMERIC_MAX && v.bytes().all(|b| b.is_ascii_digit());
            self.values.push(Tainted {
                value: SecretString::new(v),
                filled_on: origin.site(),
                site_scoped,
            });
        }
        // Longest first so a full name is replaced as one marker, not as given + family.
        self.values
            .sort_by_key(|t| std::cmp::Reverse(t.value.expose().len()));
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

    /// [`TaintSet::redact`] with the values of several sets at once (a tab's own and its
    /// site's), so a match of one overlapping a match of another still gives one marker.
    pub fn redact_all(sets: &[&TaintSet], text: &str, page: &Origin) -> String {
        if sets.iter().all(|s| s.values.is_empty()) {
            return text.to_owned();
        }
        let site = page.site();
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for t in sets.iter().flat_map(|s| &s.values) {
            if t.site_scoped && t.filled_on != site {
                continue;
            }
            let v = t.value.expose();
            let mut from = 0;
            while let Some(i) = text[from..].find(v) {
                let start = from + i;
                let end = start + v.len();
                // Digits inside a longer digit run are a different number, not our code.
                let boundary_ok = !t.site_scoped
                    || (!text[..start].ends_with(|c: char| c.is_ascii_digit())
                        && !text[end..].starts_with(|c: char| c.is_ascii_digit()));
                if boundary_ok {
                    ranges.push((start, end));
                }
                from = start + v.chars().next().map_or(1, char::len_utf8);
            }
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
