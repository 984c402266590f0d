//! A tab's back/forward list as the human and the agent see it: Chromium's own entries plus
//! entries saved in the session that Chromium no longer has. CEF 131 has no way to put
//! navigation entries back into a new browser, so a restored tab starts with one Chromium entry
//! (its current page) and keeps the rest here:
//!
//! - `back`: saved entries before the first of Chromium's entries that count (`base`), oldest
//!   first; `forward`: saved entries after Chromium's last entry, nearest first.
//! - The list shown is `back ++ chromium[base..] ++ forward`; its current entry is Chromium's.
//! - Back at `base` with saved entries left loads the last saved one as a new navigation
//!   (Chromium appends it after its current entry and drops its own forward entries). Once it
//!   commits it becomes the new `base`; everything that was shown from the old base on, then
//!   the saved forward entries, becomes the saved forward list, so Forward returns through the
//!   same pages in the same order. Chromium's entries before the new base are hidden.
//! - Forward at Chromium's last entry with saved forward entries loads the first of them; once
//!   it commits it is Chromium's newest entry and leaves the saved list.
//! - A new navigation (a link, a typed address, `pushState`) that is not one of ours drops the
//!   saved forward entries, as every browser drops forward history then; the saved back
//!   entries stay behind it.
//! - A page's own `history.back()` past `base` reaches the hidden entries: the saved lists no
//!   longer describe where the tab is, so they are dropped and Chromium's list is the whole
//!   history from then on (it is never shown out of order).
//! - Chromium keeps at most 50 entries and drops the oldest: the hidden entries are found
//!   again by their URLs so `base` follows them.
//!
//! Refreshed from Chromium (`refresh`) after every loading-state, address and title change, so
//! the window's Back/Forward buttons and the agent's `back`/`forward` use the same truth.

use super::{Actor, Event};
use aperture_mcp::backend::TabId;
use serde::{Deserialize, Serialize};

/// How many entries the session keeps each way from the current one.
pub const KEEP: usize = 50;

/// One back/forward entry as the session saves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Entry {
    pub url: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
}

impl From<&cef::NavEntry> for Entry {
    fn from(e: &cef::NavEntry) -> Entry {
        Entry {
            url: e.url.clone(),
            title: e.title.clone(),
        }
    }
}

/// A navigation we started to reach a saved entry, until it commits.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expect {
    /// A restored tab's page: the first entry it commits (its URL, or any page but the blank
    /// placeholder a background tab starts on) becomes `base`.
    Restore(Entry),
    /// Going back to `back[back.len() - pops]`; `forward` is the saved forward list once there.
    Back {
        url: String,
        pops: usize,
        forward: Vec<Entry>,
    },
    /// Going forward to `forward[pops - 1]`.
    Forward { url: String, pops: usize },
}

/// How Chromium's list changed between two reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// Same entries (titles may differ), maybe another current one (back/forward in Chromium).
    Traversal,
    /// The current entry's URL changed in place (`replaceState`, `location.replace`).
    Replaced,
    /// A new entry was committed (Chromium dropped its forward entries, maybe its oldest).
    NewEntry,
}

/// What going back or forward takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Chromium's own back/forward.
    Chromium(Dir),
    /// Load this saved entry's URL.
    Load(String),
    /// There is nowhere to go.
    Nowhere,
}

/// Which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Back,
    Forward,
}

#[derive(Debug, Clone, Default)]
pub struct TabHistory {
    back: Vec<Entry>,
    forward: Vec<Entry>,
    chromium: Vec<cef::NavEntry>,
    current: usize,
    base: usize,
    expect: Option<Expect>,
}

impl TabHistory {
    /// A restored tab: `current` is the page it loads; `back` and `forward` the saved entries
    /// around it (in list order).
    pub fn restored(back: Vec<Entry>, current: Entry, forward: Vec<Entry>) -> TabHistory {
        TabHistory {
            back,
            forward,
            expect: Some(Expect::Restore(current)),
            ..Default::default()
        }
    }

    /// Takes in Chromium's list as it is now.
    pub fn update(&mut self, now: cef::NavEntries) {
        if now.entries.is_empty() {
            return;
        }
        let current = now.current.min(now.entries.len() - 1);
        let change = classify(&self.chromium, self.current, &now.entries, current);
        let cur = now.entries[current].clone();
        let is = |url: &str| cur.url == url || cur.original_url == url;
        let shift = hidden_shift(&self.chromium, &now.entries, self.base);
        let old_base = self.base;
        self.chromium = now.entries;
        self.current = current;
        match (self.expect.take(), change) {
            (Some(Expect::Restore(e)), _) => {
                if is(&e.url) || (change == Change::NewEntry && !is("about:blank")) {
                    self.base = current;
                } else {
                    self.expect = Some(Expect::Restore(e));
                }
                return;
            }
            (Some(Expect::Back { url, pops, forward }), Change::NewEntry) if is(&url) => {
                self.back.truncate(self.back.len().saturating_sub(pops));
                self.forward = forward;
                self.base = current;
                return;
            }
            (Some(Expect::Forward { url, pops }), Change::NewEntry) if is(&url) => {
                self.forward.drain(..pops.min(self.forward.len()));
                self.base = old_base.saturating_sub(shift);
            }
            // Superseded by another navigation: an ordinary new entry.
            (Some(_), Change::NewEntry) => {
                self.forward.clear();
                self.base = old_base.saturating_sub(shift);
            }
            (Some(e), _) => self.expect = Some(e),
            (None, Change::NewEntry) => {
                self.forward.clear();
                self.base = old_base.saturating_sub(shift);
            }
            (None, _) => {}
        }
        if self.current < self.base {
            // The page went back into the hidden entries itself (see the module comment).
            self.back.clear();
            self.forward.clear();
            self.base = 0;
        }
    }

    /// Whether a restored tab's page has not committed yet (its entries are all saved ones).
    fn restoring(&self) -> Option<&Entry> {
        match &self.expect {
            Some(Expect::Restore(e)) => Some(e),
            _ => None,
        }
    }

    pub fn can_back(&self) -> bool {
        if self.restoring().is_some() || self.chromium.is_empty() {
            return !self.back.is_empty();
        }
        self.current > self.base || !self.back.is_empty()
    }

    pub fn can_forward(&self) -> bool {
        if self.restoring().is_some() || self.chromium.is_empty() {
            return !self.forward.is_empty();
        }
        self.current + 1 < self.chromium.len() || !self.forward.is_empty()
    }

    /// Decides how to go one step `dir`, and remembers a saved entry it loads until it
    /// commits. A step asked for while the previous saved entry is still loading goes one
    /// further (a double click on Back goes back two).
    pub fn plan(&mut self, dir: Dir) -> Step {
        match dir {
            Dir::Back => self.plan_back(),
            Dir::Forward => self.plan_forward(),
        }
    }

    fn plan_back(&mut self) -> Step {
        let pending = match &self.expect {
            Some(Expect::Back { pops, forward, .. }) => Some((*pops, forward.clone())),
            _ => None,
        };
        if pending.is_none() && self.restoring().is_none() && self.current > self.base {
            return Step::Chromium(Dir::Back);
        }
        let (pops, forward) = match pending {
            // One further than the saved entry still loading, which comes forward first.
            Some((pops, mut forward)) => {
                let Some(was) = self.back.len().checked_sub(pops).and_then(|i| self.back.get(i)) else {
                    return Step::Nowhere;
                };
                forward.insert(0, was.clone());
                (pops + 1, forward)
            }
            None => {
                let mut forward: Vec<Entry> = match self.restoring() {
                    Some(e) => vec![e.clone()],
                    None => self.chromium[self.base..].iter().map(Entry::from).collect(),
                };
                forward.extend(self.forward.iter().cloned());
                (1, forward)
            }
        };
        let Some(to) = self.back.len().checked_sub(pops).and_then(|i| self.back.get(i)) else {
            return Step::Nowhere;
        };
        let url = to.url.clone();
        self.expect = Some(Expect::Back {
            url: url.clone(),
            pops,
            forward,
        });
        Step::Load(url)
    }

    fn plan_forward(&mut self) -> Step {
        let pending = match &self.expect {
            Some(Expect::Forward { pops, .. }) => Some(*pops),
            _ => None,
        };
        if pending.is_none() && self.restoring().is_none() && self.current + 1 < self.chromium.len() {
            return Step::Chromium(Dir::Forward);
        }
        let pops = pending.unwrap_or(0) + 1;
        let Some(to) = self.forward.get(pops - 1) else {
            return Step::Nowhere;
        };
        let url = to.url.clone();
        self.expect = Some(Expect::Forward {
            url: url.clone(),
            pops,
        });
        Step::Load(url)
    }

    /// The entries before and after the current one, in list order, at most [`KEEP`] each way,
    /// blank pages left out: what the session saves.
    pub fn saved(&self) -> (Vec<Entry>, Vec<Entry>) {
        let (mut back, mut forward) = if self.restoring().is_some() || self.chromium.is_empty() {
            (self.back.clone(), self.forward.clone())
        } else {
            let base = self.base.min(self.current);
            let mut back = self.back.clone();
            back.extend(self.chromium[base..self.current].iter().map(Entry::from));
            let mut forward: Vec<Entry> = self.chromium[self.current + 1..]
                .iter()
                .map(Entry::from)
                .collect();
            forward.extend(self.forward.iter().cloned());
            (back, forward)
        };
        // A blank page (the one a new tab starts on before its first address) is nothing to
        // go back to after a restart.
        back.retain(|e| e.url != "about:blank");
        forward.retain(|e| e.url != "about:blank");
        back.drain(..back.len().saturating_sub(KEEP));
        forward.truncate(KEEP);
        (back, forward)
    }
}

fn classify(old: &[cef::NavEntry], old_cur: usize, new: &[cef::NavEntry], new_cur: usize) -> Change {
    if old.is_empty() {
        return Change::NewEntry;
    }
    let differ: Vec<usize> = if old.len() == new.len() {
        (0..new.len()).filter(|i| old[*i].url != new[*i].url).collect()
    } else {
        return Change::NewEntry;
    };
    match differ.as_slice() {
        [] => Change::Traversal,
        [i] if *i == new_cur && new_cur == old_cur => Change::Replaced,
        _ => Change::NewEntry,
    }
}

/// How many of the `base` hidden entries at the front of `old` Chromium dropped from the front
/// of its list (it keeps at most 50): the smallest `k` for which `new` starts with the rest.
fn hidden_shift(old: &[cef::NavEntry], new: &[cef::NavEntry], base: usize) -> usize {
    let base = base.min(old.len());
    (0..=base)
        .find(|k| {
            let rest = &old[*k..base];
            new.len() >= rest.len() && rest.iter().zip(new).all(|(a, b)| a.url == b.url)
        })
        .unwrap_or(base)
}

/// Re-reads tab `id`'s back/forward list from Chromium and updates what Back and Forward
/// offer. UI thread, outside any state borrow and any CEF callback.
pub fn refresh(a: &Actor, id: TabId) {
    let Some(host) = a.host(id) else { return };
    let now = host.navigation_entries();
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.history.update(now);
            let (b, f) = (t.history.can_back(), t.history.can_forward());
            if (b, f) != (t.can_back, t.can_forward) {
                t.can_back = b;
                t.can_forward = f;
                st.events.push(Event::Refresh);
            }
        }
    });
}

/// Decides how tab `id` goes one step `dir` (reading Chromium's list first); a saved entry
/// it will load is remembered until it commits, so [`take`] must follow unless it is
/// [`Step::Nowhere`].
pub fn plan(a: &Actor, id: TabId, dir: Dir) -> Step {
    refresh(a, id);
    a.with(|st| {
        let Some(t) = st.tabs.get_mut(&id) else {
            return Step::Nowhere;
        };
        let step = t.history.plan(dir);
        if matches!(step, Step::Load(_)) {
            // A restored tab not shown yet goes where it is sent, not to its saved page later.
            t.pending_url = None;
        }
        step
    })
}

/// Starts the navigation [`plan`] decided on. False when nothing was started.
pub fn take(a: &Actor, id: TabId, step: Step) -> bool {
    let Some(b) = a.browser(id) else { return false };
    match step {
        Step::Chromium(Dir::Back) => b.go_back(),
        Step::Chromium(Dir::Forward) => b.go_forward(),
        Step::Load(url) => match b.main_frame() {
            Some(f) => f.load_url(&url),
            None => return false,
        },
        Step::Nowhere => return false,
    }
    true
}

/// Goes one step `dir` in tab `id` (the window's Back and Forward). False when there is
/// nowhere to go.
pub fn go(a: &Actor, id: TabId, dir: Dir) -> bool {
    let step = plan(a, id, dir);
    take(a, id, step)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nav(urls: &[&str], current: usize) -> cef::NavEntries {
        cef::NavEntries {
            entries: urls
                .iter()
                .map(|u| cef::NavEntry {
                    url: (*u).into(),
                    original_url: (*u).into(),
                    title: format!("T {u}"),
                })
                .collect(),
            current,
        }
    }

    fn e(u: &str) -> Entry {
        Entry {
            url: u.into(),
            title: format!("T {u}"),
        }
    }

    fn urls(v: &[Entry]) -> Vec<&str> {
        v.iter().map(|e| e.url.as_str()).collect()
    }

    /// A tab restored at C with A, B before it and D after it, shown (background tabs start
    /// on a blank placeholder).
    fn restored_at_c() -> TabHistory {
        let mut h = TabHistory::restored(vec![e("A"), e("B")], e("C"), vec![e("D")]);
        assert!(h.can_back() && h.can_forward());
        h.update(nav(&["about:blank"], 0));
        assert!(
            h.restoring().is_some(),
            "the placeholder is not the restored page"
        );
        h.update(nav(&["about:blank", "C"], 1));
        assert_eq!(h.saved(), (vec![e("A"), e("B")], vec![e("D")]));
        h
    }

    #[test]
    fn back_past_chromium_loads_saved_entries_and_forward_returns_in_order() {
        let mut h = restored_at_c();
        assert_eq!(h.plan(Dir::Back), Step::Load("B".into()));
        h.update(nav(&["about:blank", "C", "B"], 2));
        assert_eq!(h.saved(), (vec![e("A")], vec![e("C"), e("D")]));
        assert!(h.can_back() && h.can_forward());
        assert_eq!(h.plan(Dir::Back), Step::Load("A".into()));
        h.update(nav(&["about:blank", "C", "B", "A"], 3));
        assert_eq!(h.saved(), (vec![], vec![e("B"), e("C"), e("D")]));
        assert!(!h.can_back());
        assert_eq!(h.plan(Dir::Back), Step::Nowhere);
        // Forward through the saved entries, each one Chromium's newest once committed.
        assert_eq!(h.plan(Dir::Forward), Step::Load("B".into()));
        h.update(nav(&["about:blank", "C", "B", "A", "B"], 4));
        assert_eq!(h.saved(), (vec![e("A")], vec![e("C"), e("D")]));
        // Back now is Chromium's own.
        assert_eq!(h.plan(Dir::Back), Step::Chromium(Dir::Back));
        h.update(nav(&["about:blank", "C", "B", "A", "B"], 3));
        assert_eq!(h.saved(), (vec![], vec![e("B"), e("C"), e("D")]));
        assert_eq!(h.plan(Dir::Forward), Step::Chromium(Dir::Forward));
        h.update(nav(&["about:blank", "C", "B", "A", "B"], 4));
        assert_eq!(h.plan(Dir::Forward), Step::Load("C".into()));
        h.update(nav(&["about:blank", "C", "B", "A", "B", "C"], 5));
        assert_eq!(urls(&h.saved().0), ["A", "B"]);
        assert_eq!(urls(&h.saved().1), ["D"]);
    }

    #[test]
    fn a_new_navigation_drops_saved_forward_entries_and_keeps_back_ones() {
        let mut h = restored_at_c();
        h.update(nav(&["about:blank", "C", "X"], 2));
        assert_eq!(urls(&h.saved().0), ["A", "B", "C"]);
        assert!(h.saved().1.is_empty());
        assert!(!h.can_forward());
        // replaceState keeps the forward list.
        let mut h = restored_at_c();
        h.update(nav(&["about:blank", "C2"], 1));
        assert_eq!(urls(&h.saved().1), ["D"]);
    }

    #[test]
    fn a_double_back_goes_two_entries_back() {
        let mut h = restored_at_c();
        assert_eq!(h.plan(Dir::Back), Step::Load("B".into()));
        assert_eq!(h.plan(Dir::Back), Step::Load("A".into()));
        // The first load was superseded; only the second commits.
        h.update(nav(&["about:blank", "C", "A"], 2));
        assert_eq!(h.saved(), (vec![], vec![e("B"), e("C"), e("D")]));
    }

    #[test]
    fn a_page_going_back_into_hidden_entries_makes_chromium_the_whole_history() {
        let mut h = restored_at_c();
        h.plan(Dir::Back);
        h.update(nav(&["about:blank", "C", "B"], 2));
        h.update(nav(&["about:blank", "C", "B"], 1));
        assert_eq!(h.saved(), (vec![], vec![e("B")]));
        assert!(
            h.can_back(),
            "Chromium's own blank entry is still there to go back to"
        );
    }

    #[test]
    fn the_hidden_entries_follow_chromium_dropping_its_oldest() {
        let mut h = restored_at_c();
        h.plan(Dir::Back);
        h.update(nav(&["about:blank", "C", "B"], 2));
        assert_eq!(h.base, 2);
        // Chromium at its cap: a new entry drops "about:blank" from the front.
        h.update(nav(&["C", "B", "N"], 2));
        assert_eq!(h.base, 1);
        assert_eq!(urls(&h.saved().0), ["A", "B"]);
    }

    #[test]
    fn an_unrestored_tab_keeps_and_caps_its_entries() {
        let many: Vec<Entry> = (0..80).map(|i| e(&format!("u{i}"))).collect();
        let h = TabHistory::restored(many.clone(), e("C"), many.clone());
        let (b, f) = h.saved();
        assert_eq!(b.len(), KEEP);
        assert_eq!(b.last(), many.last());
        assert_eq!(f.len(), KEEP);
        assert_eq!(f.first(), many.first());
        // A fresh tab: Chromium's list alone.
        let mut h = TabHistory::default();
        assert!(!h.can_back());
        h.update(nav(&["about:blank", "A", "B", "C"], 2));
        assert_eq!(
            h.saved(),
            (vec![e("A")], vec![e("C")]),
            "blank pages are not saved"
        );
        assert_eq!(h.plan(Dir::Back), Step::Chromium(Dir::Back));
    }
}
