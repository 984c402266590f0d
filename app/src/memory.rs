//! The browser's memory: history recorded from every tab's navigations (the human's and the
//! agent's, in both modes; never a private tab's), and, in the window, bookmarks, omnibox
//! suggestions, the history view, find in page and per-site zoom.
//!
//! The database is `aperture_places` (`<profile>/places.sqlite`); its writes go to its own
//! thread and their answers are polled once per model sync, so nothing here blocks the UI
//! thread on disk. Reads (suggestions, the star, the bookmark tree, icons) are indexed queries
//! answered on the spot.
//!
//! Page icons: CEF reports the icons a page declares (`Event::Favicon`); the first is fetched
//! with the tab's own `download_image` (through its container's request context), shown in
//! the tab, and kept in places by page URL (never for a private tab), so a restored tab
//! that has not loaded yet and the history panel's rows show it too.

use crate::browser::{Actor, Event};
use aperture_mcp::backend::TabId;
use aperture_places::{BookmarkId, Places, Reply};
use aperture_ui::model::Favicon;
use aperture_ui::{BookmarkNode, ChromeModel, FindView, HistoryRow, SuggestionView, UiCommand, ZoomStep};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// Suggestions shown under the omnibox.
const SUGGESTIONS: usize = 8;
/// Rows the history view shows for one query.
const HISTORY_ROWS: usize = 500;
/// Icons are fetched at most this many pixels a side (they are drawn at 16 px, 32 on HiDPI).
const ICON_SIZE: u32 = 32;
/// Icon lookups kept between syncs; past this the memo starts over.
const ICON_MEMO: usize = 512;

/// Only addresses a person could come back to are history.
fn recordable(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://") || url.starts_with("file://")
}

/// The host a zoom is remembered for (Chrome remembers zoom per host too).
fn zoom_site(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    match u.scheme() {
        "http" | "https" => u.host_str().map(str::to_string),
        _ => None,
    }
}

/// Records history from the actor's address and title events. Installed in both modes.
pub fn record_history(actor: &Actor, places: Places) {
    // The address each tab last recorded, so a title update finds its visit and a reload of
    // the same address is not a second visit.
    let last: Rc<RefCell<HashMap<TabId, String>>> = Rc::default();
    actor.subscribe(Box::new(move |a, ev| match ev {
        Event::Address { id, url } => {
            let Some((container, private, typed)) = a.with(|st| {
                st.tabs.get_mut(id).map(|t| {
                    let typed = std::mem::take(&mut t.meta.typed_nav);
                    (t.meta.container.clone(), t.meta.private(), typed)
                })
            }) else {
                return;
            };
            if private || !recordable(url) {
                return;
            }
            if last.borrow().get(id) == Some(url) {
                return;
            }
            last.borrow_mut().insert(*id, url.clone());
            places.record_visit(&container, url, typed, aperture_places::now_ms());
        }
        Event::Title { id, title, url: of } => {
            let Some(url) = last.borrow().get(id).cloned() else {
                return;
            };
            // The title of another document than the visit's (an error page's, whose address
            // comes after its title) is not this page's.
            if of.as_ref().is_some_and(|of| *of != url) {
                return;
            }
            let Some(container) = a.with(|st| {
                st.tabs
                    .get(id)
                    .filter(|t| !t.meta.private() && t.url == url)
                    .map(|t| t.meta.container.clone())
            }) else {
                return;
            };
            if !title.is_empty() {
                places.set_title(&container, &url, title);
            }
        }
        _ => {}
    }));
}

/// A tab's icon as fetched: the page it was declared by, where it came from, the pixels.
struct TabIcon {
    page: String,
    icon_url: String,
    icon: Favicon,
}

/// What the window needs once a queued write has been answered.
enum After {
    Bookmarks,
    History,
    TopSites,
}

/// A write whose answer is polled each sync: its notice (if any) and what to refresh.
type Waiting = Box<dyn FnMut() -> Option<(Option<String>, After)>>;

/// The window's side of the browser's memory.
pub struct Memory {
    places: Option<Places>,
    /// What each tab's find bar searches for (CEF reports counts, not the text).
    find: HashMap<TabId, String>,
    /// Tabs whose search changed and has not yet been sent to its first match.
    find_to_first: HashSet<TabId>,
    /// The bookmark tree as last read, and whether it must be read again.
    bookmarks: Vec<BookmarkNode>,
    bookmarks_stale: bool,
    /// URL → bookmarked, for the star, until the bookmarks change.
    starred: RefCell<HashMap<String, bool>>,
    history: Vec<HistoryRow>,
    history_query: Option<String>,
    suggestions: Vec<SuggestionView>,
    inline: Option<String>,
    /// The site each tab's zoom was last applied for, and the zoom seen there.
    zoom: HashMap<TabId, (String, u32)>,
    /// Tabs whose zoom must be looked at: they reached a new address, or the human zoomed.
    zoom_due: Rc<RefCell<HashSet<TabId>>>,
    /// Icons fetched for each tab's page.
    icons: Rc<RefCell<HashMap<TabId, TabIcon>>>,
    /// Icons looked up in places, by page URL (`p:`) or host (`h:`); cleared when one is
    /// fetched.
    icon_memo: Rc<RefCell<HashMap<String, Option<Favicon>>>>,
    /// Writes whose answers are still to come.
    waiting: Vec<Waiting>,
    /// Messages for the chrome's notice line.
    notices: Vec<String>,
    /// The new-tab page's sites, for the container they were read for and when.
    top_sites: Option<(String, std::time::Instant, Vec<aperture_ui::SiteTile>)>,
    /// The site last taken off the new-tab page, and the container's: Undo puts it back.
    removed: Option<(String, String)>,
}

impl Memory {
    pub fn new(actor: &Actor, places: Option<Places>) -> Memory {
        let m = Memory {
            places,
            find: HashMap::new(),
            find_to_first: HashSet::new(),
            bookmarks: Vec::new(),
            bookmarks_stale: true,
            starred: RefCell::default(),
            history: Vec::new(),
            history_query: None,
            suggestions: Vec::new(),
            inline: None,
            zoom: HashMap::new(),
            zoom_due: Rc::default(),
            icons: Rc::default(),
            icon_memo: Rc::default(),
            waiting: Vec::new(),
            notices: Vec::new(),
            top_sites: None,
            removed: None,
        };
        let (due, icons, memo, places) = (
            m.zoom_due.clone(),
            m.icons.clone(),
            m.icon_memo.clone(),
            m.places.clone(),
        );
        actor.subscribe(Box::new(move |a, ev| match ev {
            Event::Address { id, url } => {
                due.borrow_mut().insert(*id);
                // Another site's page: its own icon will be reported; the old one goes.
                let mut icons = icons.borrow_mut();
                if icons
                    .get(id)
                    .is_some_and(|t| aperture_places::host_key(&t.page) != aperture_places::host_key(url))
                {
                    icons.remove(id);
                }
            }
            Event::Favicon { id, urls } => fetch_icon(a, *id, urls, &icons, &memo, places.clone()),
            _ => {}
        }));
        m
    }

    /// Polls the writes still waiting; applies their notices and refreshes.
    fn poll_waiting(&mut self) {
        let mut after = Vec::new();
        self.waiting.retain_mut(|w| match w() {
            Some(done) => {
                after.push(done);
                false
            }
            None => true,
        });
        for (notice, then) in after {
            if let Some(n) = notice {
                self.notices.push(n);
            }
            match then {
                After::Bookmarks => self.bookmarks_changed(),
                After::History => self.refresh_history(),
                After::TopSites => self.top_sites = None,
            }
        }
    }

    /// Waits for `reply` without blocking: `then` turns its answer into a notice and a
    /// refresh once it comes.
    fn when_done<T: 'static>(
        &mut self,
        mut reply: Reply<T>,
        then: impl FnOnce(Result<T, aperture_places::Error>) -> (Option<String>, After) + 'static,
    ) {
        let mut then = Some(then);
        self.waiting.push(Box::new(move || {
            let r = reply.try_take()?;
            then.take().map(|f| f(r))
        }));
    }

    /// Once write `reply` to the bookmarks is done, the window's bookmarks are read again;
    /// a failure is said ("Could not `verb` the bookmark: …").
    fn bookmarks_written<T: 'static>(&mut self, reply: Reply<T>, verb: &'static str) {
        self.when_done(reply, move |r| {
            let n = r.err().map(|e| format!("Could not {verb} the bookmark: {e}"));
            (n, After::Bookmarks)
        });
    }

    fn bookmarks_changed(&mut self) {
        self.bookmarks_stale = true;
        self.starred.borrow_mut().clear();
    }

    /// Handles the memory commands; `false` for any other command.
    pub fn apply(&mut self, actor: &Actor, cmd: &UiCommand) -> bool {
        match cmd {
            UiCommand::Find {
                tab,
                text,
                forward,
                find_next,
            } => {
                let Some(h) = actor.host(*tab) else { return true };
                if text.is_empty() {
                    h.stop_finding(true);
                    self.find.insert(*tab, String::new());
                    actor.with(|st| st.tabs.get_mut(tab).map(|t| t.asks.find = None));
                    return true;
                }
                let changed = self.find.get(tab) != Some(text);
                if changed {
                    actor.with(|st| st.tabs.get_mut(tab).map(|t| t.asks.find = None));
                }
                self.find.insert(*tab, text.clone());
                if changed {
                    self.find_to_first.insert(*tab);
                }
                h.find(text, *forward, false, *find_next && !changed);
            }
            UiCommand::StopFind { tab } => {
                if let Some(h) = actor.host(*tab) {
                    h.stop_finding(true);
                }
                self.find.remove(tab);
                actor.with(|st| st.tabs.get_mut(tab).map(|t| t.asks.find = None));
            }
            UiCommand::Zoom { tab, step } => {
                let Some(h) = actor.host(*tab) else { return true };
                h.zoom(match step {
                    ZoomStep::In => cef::ZoomStep::In,
                    ZoomStep::Out => cef::ZoomStep::Out,
                    ZoomStep::Reset => cef::ZoomStep::Reset,
                });
                self.zoom_due.borrow_mut().insert(*tab);
            }
            UiCommand::ToggleBookmark { tab } => {
                let Some(p) = &self.places else {
                    self.notices
                        .push("Bookmarks are unavailable: the places database did not open".into());
                    return true;
                };
                let Some((url, title)) =
                    actor.with(|st| st.tabs.get(tab).map(|t| (t.url.clone(), t.title.clone())))
                else {
                    return true;
                };
                if !recordable(&url) {
                    return true;
                }
                let r = p.toggle(&url, &title);
                self.bookmarks_written(r, "change");
            }
            UiCommand::RenameBookmark { id, title } => {
                if let Some(p) = &self.places {
                    let r = p.rename(BookmarkId(*id), title);
                    self.bookmarks_written(r, "rename");
                }
            }
            UiCommand::MoveBookmark { id, to_bar } => {
                if let Some(p) = &self.places {
                    let to = if *to_bar {
                        BookmarkId::BAR
                    } else {
                        BookmarkId::OTHER
                    };
                    let r = p.move_to(BookmarkId(*id), to, usize::MAX);
                    self.bookmarks_written(r, "move");
                }
            }
            UiCommand::RemoveBookmark { id } => {
                if let Some(p) = &self.places {
                    let r = p.remove_bookmark(BookmarkId(*id));
                    self.bookmarks_written(r, "remove");
                }
            }
            UiCommand::ImportBookmarks { path } => {
                let Some(p) = &self.places else { return true };
                match std::fs::read(path) {
                    Err(e) => self
                        .notices
                        .push(format!("Could not read {}: {e}", path.display())),
                    Ok(bytes) => {
                        let r = p.import_html(String::from_utf8_lossy(&bytes).into_owned());
                        let path = path.clone();
                        self.when_done(r, move |r| {
                            let msg = match r {
                                Ok(r) => format!(
                                    "Imported {} bookmarks in {} folders from {}{}",
                                    r.added,
                                    r.folders,
                                    path.display(),
                                    if r.skipped.is_empty() {
                                        String::new()
                                    } else {
                                        format!(" ({} entries skipped)", r.skipped.len())
                                    }
                                ),
                                Err(e) => format!("Nothing was imported from {}: {e}", path.display()),
                            };
                            (Some(msg), After::Bookmarks)
                        });
                    }
                }
            }
            UiCommand::HistoryQuery { text } => {
                self.history_query = Some(text.clone());
                self.refresh_history();
            }
            UiCommand::HistoryDelete { id } => {
                if let Some(p) = &self.places {
                    let r = p.delete_visit(aperture_places::VisitId(*id));
                    self.when_done(r, |r| {
                        let n = r.err().map(|e| format!("Could not delete the entry: {e}"));
                        (n, After::History)
                    });
                }
            }
            UiCommand::HistoryClear { since_ms } => {
                if let Some(p) = &self.places {
                    let r = match since_ms {
                        Some(from) => p.clear_range(None, *from, i64::MAX),
                        None => p.clear_all(None),
                    };
                    self.icon_memo.borrow_mut().clear();
                    self.when_done(r, |r| {
                        let n = match r {
                            Ok(n) => format!("Deleted {n} history entries"),
                            Err(e) => format!("Could not clear history: {e}"),
                        };
                        (Some(n), After::History)
                    });
                }
            }
            UiCommand::HideSite { url } => {
                let container = front_container(actor);
                if let (Some(p), Some(c)) = (&self.places, container) {
                    // Not waited for (the writer logs a failure); the tile goes from the page
                    // at once, and later reads of the page have the write.
                    drop(p.hide_site(&c, url));
                    self.removed = Some((c, url.clone()));
                }
                if let Some((_, _, tiles)) = &mut self.top_sites {
                    let host = aperture_places::host_key(url);
                    tiles.retain(|t| aperture_places::host_key(&t.url) != host);
                }
            }
            UiCommand::RestoreSites { url } => {
                self.removed = None;
                if let (Some(p), Some(c)) = (&self.places, front_container(actor)) {
                    // The page reads its sites again once the write is in.
                    self.when_done(p.unhide_sites(&c, url.as_deref()), |r| match r {
                        Ok(_) => (None, After::TopSites),
                        Err(e) => (Some(format!("Could not restore the sites: {e}")), After::TopSites),
                    });
                }
            }
            UiCommand::OmniboxInput { tab, text } => {
                self.suggestions.clear();
                self.inline = None;
                let (container, private) = actor
                    .with(|st| {
                        st.tabs
                            .get(tab)
                            .map(|t| (t.meta.container.clone(), t.meta.private()))
                    })
                    .unwrap_or_default();
                if text.trim().is_empty() {
                    return true;
                }
                // A private tab's omnibox still suggests from history (as Chrome's does);
                // it never adds to it.
                let Some(p) = &self.places else {
                    self.suggest_tabs(actor, *tab, text, private);
                    return true;
                };
                match p.suggest(
                    text,
                    Some(&container).filter(|c| !c.is_empty()).map(String::as_str),
                    SUGGESTIONS,
                ) {
                    Ok(s) => {
                        self.inline = s.first().and_then(|f| f.inline_completion(text));
                        self.suggestions = s
                            .into_iter()
                            .map(|s| SuggestionView {
                                bookmark: s.kind == aperture_places::SuggestionKind::Bookmark,
                                url: s.url,
                                title: s.title,
                                tab: None,
                            })
                            .collect();
                    }
                    Err(e) => tracing::warn!("suggestions: {e}"),
                }
                self.suggest_tabs(actor, *tab, text, private);
            }
            _ => return false,
        }
        true
    }

    /// The human's other open tabs in the suggestions, as Chrome's omnibox offers them: a
    /// suggested page another tab shows becomes a switch to it, and tabs whose title or
    /// address holds every typed word (ignoring case) come first, a few of them. Only tabs of
    /// the same kind (private or not) as the one typed in.
    fn suggest_tabs(&mut self, actor: &Actor, typing: TabId, text: &str, private: bool) {
        const TABS: usize = 3;
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        let open: Vec<(TabId, String, String)> = actor.with(|st| {
            st.order
                .iter()
                .filter(|id| **id != typing)
                .filter_map(|id| {
                    let t = st.tabs.get(id)?;
                    let shown = !t.meta.throwaway && !t.url.is_empty() && t.url != "about:blank";
                    (shown && t.meta.private() == private).then(|| (*id, t.url.clone(), t.title.clone()))
                })
                .collect()
        });
        for s in &mut self.suggestions {
            s.tab = open.iter().find(|(_, url, _)| *url == s.url).map(|(id, ..)| *id);
        }
        let mut tabs: Vec<SuggestionView> = open
            .iter()
            .filter(|(id, ..)| !self.suggestions.iter().any(|s| s.tab == Some(*id)))
            .filter(|(_, url, title)| {
                let (url, title) = (url.to_lowercase(), title.to_lowercase());
                words.iter().all(|w| url.contains(w) || title.contains(w))
            })
            .take(TABS)
            .map(|(id, url, title)| SuggestionView {
                url: url.clone(),
                title: title.clone(),
                bookmark: false,
                tab: Some(*id),
            })
            .collect();
        tabs.append(&mut self.suggestions);
        tabs.truncate(SUGGESTIONS);
        self.suggestions = tabs;
    }

    fn refresh_history(&mut self) {
        let (Some(p), Some(q)) = (&self.places, &self.history_query) else {
            return;
        };
        match p.search(q, None, HISTORY_ROWS, 0) {
            Ok(rows) => {
                self.history = rows
                    .into_iter()
                    .map(|e| HistoryRow {
                        id: e.id.0,
                        url: e.url,
                        title: e.title,
                        visited_at_ms: e.visited_at_ms,
                        container: e.container,
                    })
                    .collect();
            }
            Err(e) => self.notices.push(format!("Could not read history: {e}")),
        }
    }

    /// Applies the remembered zoom when a tab reaches another site, and remembers a zoom the
    /// human changed: only for the tabs that reached a new address or were zoomed since the
    /// last call (`tabs`: every tab and the address it really shows).
    pub fn track_zoom(&mut self, actor: &Actor, tabs: &[(TabId, String)]) {
        let Some(p) = &self.places else { return };
        self.zoom.retain(|id, _| tabs.iter().any(|(t, _)| t == id));
        if self.zoom_due.borrow().is_empty() {
            return;
        }
        let mut due = self.zoom_due.borrow_mut();
        for (id, url) in tabs {
            // A tab still waiting for its address (a restored one) stays due.
            if !due.remove(id) {
                continue;
            }
            let Some(site) = zoom_site(url) else { continue };
            let Some(h) = actor.host(*id) else { continue };
            let now = h.zoom_percent();
            match self.zoom.get(id) {
                Some((s, seen)) if *s == site => {
                    if *seen != now {
                        // The human zoomed: remember it for the site (the writer logs a
                        // failure; nobody waits for it).
                        let z = (now != 100).then_some(f64::from(now));
                        drop(p.set_zoom(&site, z));
                        self.zoom.insert(*id, (site, now));
                    }
                }
                _ => {
                    let want = p.zoom_for(&site).ok().flatten().map_or(100, |z| z.round() as u32);
                    if want != now {
                        h.set_zoom_percent(f64::from(want));
                    }
                    self.zoom.insert(*id, (site, want));
                }
            }
        }
        due.retain(|id| tabs.iter().any(|(t, _)| t == id) || actor.host(*id).is_some());
    }

    /// Fills the model's memory fields; true when anything changed.
    pub fn mirror(&mut self, actor: &Actor, m: &mut ChromeModel) -> bool {
        self.poll_waiting();
        let mut changed = false;
        if self.bookmarks_stale {
            self.bookmarks_stale = false;
            if let Some(p) = &self.places {
                match p.tree() {
                    Ok(t) => self.bookmarks = t.iter().map(node).collect(),
                    Err(e) => tracing::warn!("bookmarks: {e}"),
                }
            }
        }
        if m.bookmarks != self.bookmarks {
            m.bookmarks = self.bookmarks.clone();
            changed = true;
        }
        if m.history != self.history {
            m.history = self.history.clone();
            changed = true;
        }
        let mut urls: Vec<&str> = self.history.iter().map(|r| r.url.as_str()).collect();
        bookmark_urls(&self.bookmarks, &mut urls);
        let hosts: BTreeMap<String, Favicon> = urls
            .into_iter()
            .map(aperture_places::host_key)
            .collect::<HashSet<_>>()
            .into_iter()
            .filter_map(|h| self.host_icon(&h).map(|i| (h, i)))
            .collect();
        if m.favicons != hosts {
            m.favicons = hosts;
            changed = true;
        }
        // Compared before copied: this runs every frame while the page shows.
        let sites = self.new_tab_sites(m);
        if m.new_tab_sites != sites {
            m.new_tab_sites = sites.to_vec();
            changed = true;
        }
        // Undo is offered on the new-tab page of the container the site was removed from.
        let removed = self.removed.as_ref().and_then(|(c, url)| {
            m.active_tab()
                .filter(|t| t.new_tab_page && t.container.name == *c)
                .map(|_| url.clone())
        });
        if m.new_tab_removed != removed {
            m.new_tab_removed = removed;
            changed = true;
        }
        if m.suggestions != self.suggestions || m.inline_completion != self.inline {
            m.suggestions = self.suggestions.clone();
            m.inline_completion = self.inline.clone();
            changed = true;
        }
        for t in &mut m.tabs {
            let find = self.find.get(&t.id).filter(|s| !s.is_empty()).map(|text| {
                let r = actor.with(|st| st.tabs.get(&t.id).and_then(|r| r.asks.find));
                let (active, count, last) = r.unwrap_or((0, 0, false));
                // CEF's first request of a search counts the matches but makes none the active
                // one ("0 of N", nothing scrolled to); as in Chrome, typing goes to the first
                // match at once: once the count is in, one "next".
                if last
                    && count > 0
                    && self.find_to_first.remove(&t.id)
                    && active == 0
                    && let Some(h) = actor.host(t.id)
                {
                    h.find(text, true, false, true);
                }
                FindView {
                    text: text.clone(),
                    active: active as i32,
                    count: count as i32,
                    final_update: last,
                }
            });
            let zoom = actor.host(t.id).map_or(100, |h| h.zoom_percent());
            let bookmarked = self.is_starred(&t.url);
            let icon = self.tab_icon(t.id, &t.url);
            if t.find != find || t.zoom_percent != zoom || t.bookmarked != bookmarked || t.favicon != icon {
                changed = true;
            }
            t.find = find;
            t.zoom_percent = zoom;
            t.bookmarked = bookmarked;
            t.favicon = icon;
        }
        let live: HashSet<TabId> = m.tabs.iter().map(|t| t.id).collect();
        self.icons.borrow_mut().retain(|id, _| live.contains(id));
        if let Some(n) = self.notices.pop() {
            m.notice = Some(n);
            changed = true;
        }
        changed
    }

    /// The icon a tab shows: the one fetched for its page (kept through navigations within
    /// the site until the next page's own arrives), else the one places kept for its address
    /// (a restored tab that has not loaded yet).
    fn tab_icon(&self, id: TabId, url: &str) -> Option<Favicon> {
        if let Some(t) = self.icons.borrow().get(&id)
            && aperture_places::host_key(&t.page) == aperture_places::host_key(url)
        {
            return Some(t.icon.clone());
        }
        if !recordable(url) {
            return None;
        }
        self.memo(format!("p:{url}"), |p| p.favicon_for(url))
    }

    /// The sites for the new-tab page when the front tab shows it: its container's most
    /// visited, read again every few seconds while it shows (a visit in another tab moves them).
    fn new_tab_sites(&mut self, m: &ChromeModel) -> &[aperture_ui::SiteTile] {
        const SITES: usize = 8;
        const FRESH: std::time::Duration = std::time::Duration::from_secs(5);
        let Some(container) = m
            .active_tab()
            .filter(|t| t.new_tab_page)
            .map(|t| t.container.name.clone())
        else {
            return &[];
        };
        let fresh = self
            .top_sites
            .as_ref()
            .is_some_and(|(c, at, _)| *c == container && at.elapsed() < FRESH);
        if !fresh {
            let read = self.places.as_ref().map(|p| p.top_sites(&container, SITES));
            let sites = match read {
                Some(Ok(s)) => s,
                Some(Err(e)) => {
                    tracing::warn!("the new-tab page's sites: {e}");
                    Vec::new()
                }
                None => Vec::new(),
            };
            let tiles = sites
                .into_iter()
                .map(|s| aperture_ui::SiteTile {
                    favicon: self.host_icon(&aperture_places::host_key(&s.url)),
                    url: s.url,
                    title: s.title,
                })
                .collect();
            self.top_sites = Some((container, std::time::Instant::now(), tiles));
        }
        self.top_sites.as_ref().map_or(&[], |(_, _, t)| t.as_slice())
    }

    fn host_icon(&self, host: &str) -> Option<Favicon> {
        if host.is_empty() {
            return None;
        }
        self.memo(format!("h:{host}"), |p| p.favicon_for_host(host))
    }

    fn memo(
        &self,
        key: String,
        read: impl FnOnce(&Places) -> Result<Option<aperture_places::Favicon>, aperture_places::Error>,
    ) -> Option<Favicon> {
        let p = self.places.as_ref()?;
        if let Some(f) = self.icon_memo.borrow().get(&key) {
            return f.clone();
        }
        let f = match read(p) {
            Ok(f) => f.map(|f| favicon(&f.icon_url, f.width, f.height, f.rgba)),
            Err(e) => {
                tracing::warn!("icons: {e}");
                None
            }
        };
        let mut memo = self.icon_memo.borrow_mut();
        if memo.len() >= ICON_MEMO {
            memo.clear();
        }
        memo.insert(key, f.clone());
        f
    }

    fn is_starred(&self, url: &str) -> bool {
        let Some(p) = &self.places else { return false };
        if !recordable(url) {
            return false;
        }
        if let Some(b) = self.starred.borrow().get(url) {
            return *b;
        }
        let b = p.is_bookmarked(url).ok().flatten().is_some();
        self.starred.borrow_mut().insert(url.to_string(), b);
        b
    }
}

/// Every bookmark's URL in the tree.
fn bookmark_urls<'a>(nodes: &'a [BookmarkNode], out: &mut Vec<&'a str>) {
    for n in nodes {
        out.extend(n.url.as_deref());
        bookmark_urls(&n.children, out);
    }
}

fn node(n: &aperture_places::BookmarkNode) -> BookmarkNode {
    BookmarkNode {
        id: n.id.0,
        title: n.title.clone(),
        url: n.url().map(str::to_string),
        children: n.children().iter().map(node).collect(),
    }
}

/// The chrome's icon: the key names the pixels, so the chrome uploads each icon once.
fn favicon(icon_url: &str, width: u32, height: u32, rgba: Vec<u8>) -> Favicon {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (icon_url, width, height, &rgba).hash(&mut h);
    Favicon {
        key: h.finish(),
        width,
        height,
        rgba: Arc::from(rgba),
    }
}

/// Fetches the first icon a tab's page declared, through the tab's own request context, and
/// keeps it for the tab and (unless the tab is private) in places.
fn fetch_icon(
    a: &Actor,
    id: TabId,
    urls: &[String],
    icons: &Rc<RefCell<HashMap<TabId, TabIcon>>>,
    memo: &Rc<RefCell<HashMap<String, Option<Favicon>>>>,
    places: Option<Places>,
) {
    let Some((page, private, host)) = a.with(|st| {
        st.tabs
            .get(&id)
            .map(|t| (t.url.clone(), t.meta.private(), t.host.clone()))
    }) else {
        return;
    };
    let Some(icon_url) = urls
        .iter()
        .find(|u| u.starts_with("http://") || u.starts_with("https://") || u.starts_with("data:"))
        .cloned()
    else {
        icons.borrow_mut().remove(&id);
        return;
    };
    if icons
        .borrow()
        .get(&id)
        .is_some_and(|t| t.icon_url == icon_url && t.page == page)
    {
        return;
    }
    let (icons, memo, actor) = (icons.clone(), memo.clone(), a.clone());
    host.download_image(
        &icon_url.clone(),
        ICON_SIZE,
        Box::new(move |bitmap| {
            let Some(b) = bitmap else {
                tracing::debug!(tab = id.0, "no icon at {icon_url}");
                // The page's icon cannot be had: the tab shows none rather than its last page's.
                let mut icons = icons.borrow_mut();
                if icons.get(&id).is_some_and(|t| t.page != page) {
                    icons.remove(&id);
                    actor.with(|st| st.events.push(Event::Refresh));
                }
                return;
            };
            // The tab may have moved on while the icon came.
            let still = actor.with(|st| st.tabs.get(&id).is_some_and(|t| t.url == page));
            if !still {
                return;
            }
            if !private
                && recordable(&page)
                && let Some(p) = &places
            {
                p.set_favicon(
                    &page,
                    aperture_places::Favicon {
                        icon_url: icon_url.clone(),
                        width: b.width,
                        height: b.height,
                        rgba: b.rgba.clone(),
                    },
                );
            }
            memo.borrow_mut().clear();
            let icon = favicon(&icon_url, b.width, b.height, b.rgba);
            icons.borrow_mut().insert(id, TabIcon { page, icon_url, icon });
            actor.with(|st| st.events.push(Event::Refresh));
        }),
    );
}

/// The container of the front tab (its name, as places keys it).
fn front_container(actor: &Actor) -> Option<String> {
    actor.with(|st| {
        st.active
            .and_then(|a| st.tabs.get(&a))
            .map(|t| t.meta.container.clone())
    })
}
