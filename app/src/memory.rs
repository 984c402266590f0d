//! The browser's memory: history recorded from every tab's navigations (the human's and the
//! agent's, in both modes; never a private tab's), and, in the window, bookmarks, omnibox
//! suggestions, the history view, find in page and per-site zoom.
//!
//! The database is `aperture_places` (`<profile>/places.sqlite`); its writes go to its own
//! thread, so nothing here blocks the UI thread on disk. Reads (suggestions, the star, the
//! bookmark tree) are indexed queries answered on the spot.

use crate::browser::{Actor, Event};
use aperture_mcp::backend::TabId;
use aperture_places::{BookmarkId, Places};
use aperture_ui::{BookmarkNode, ChromeModel, FindView, HistoryRow, SuggestionView, UiCommand, ZoomStep};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Suggestions shown under the omnibox.
const SUGGESTIONS: usize = 8;
/// Rows the history view shows for one query.
const HISTORY_ROWS: usize = 500;

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
        Event::Title { id, title } => {
            let Some(url) = last.borrow().get(id).cloned() else {
                return;
            };
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

/// The window's side of the browser's memory.
pub struct Memory {
    places: Option<Places>,
    /// What each tab's find bar searches for (CEF reports counts, not the text).
    find: HashMap<TabId, String>,
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
    /// Messages for the chrome's notice line.
    notices: Vec<String>,
}

impl Memory {
    pub fn new(places: Option<Places>) -> Memory {
        Memory {
            places,
            find: HashMap::new(),
            bookmarks: Vec::new(),
            bookmarks_stale: true,
            starred: RefCell::default(),
            history: Vec::new(),
            history_query: None,
            suggestions: Vec::new(),
            inline: None,
            zoom: HashMap::new(),
            notices: Vec::new(),
        }
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
                if let Err(e) = p.toggle(&url, &title).wait() {
                    self.notices.push(format!("Could not change the bookmark: {e}"));
                }
                self.bookmarks_changed();
            }
            UiCommand::RemoveBookmark { id } => {
                if let Some(p) = &self.places
                    && let Err(e) = p.remove_bookmark(BookmarkId(*id)).wait()
                {
                    self.notices.push(format!("Could not remove the bookmark: {e}"));
                }
                self.bookmarks_changed();
            }
            UiCommand::ImportBookmarks { path } => {
                let Some(p) = &self.places else { return true };
                let msg = match std::fs::read(path) {
                    Err(e) => format!("Could not read {}: {e}", path.display()),
                    Ok(bytes) => match p.import_html(String::from_utf8_lossy(&bytes).into_owned()).wait() {
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
                    },
                };
                self.notices.push(msg);
                self.bookmarks_changed();
            }
            UiCommand::HistoryQuery { text } => {
                self.history_query = Some(text.clone());
                self.refresh_history();
            }
            UiCommand::HistoryDelete { id } => {
                if let Some(p) = &self.places
                    && let Err(e) = p.delete_visit(aperture_places::VisitId(*id)).wait()
                {
                    self.notices.push(format!("Could not delete the entry: {e}"));
                }
                self.refresh_history();
            }
            UiCommand::HistoryClear { since_ms } => {
                if let Some(p) = &self.places {
                    let r = match since_ms {
                        Some(from) => p.clear_range(None, *from, i64::MAX).wait(),
                        None => p.clear_all(None).wait(),
                    };
                    match r {
                        Ok(n) => self.notices.push(format!("Deleted {n} history entries")),
                        Err(e) => self.notices.push(format!("Could not clear history: {e}")),
                    }
                }
                self.refresh_history();
            }
            UiCommand::OmniboxInput { tab, text } => {
                self.suggestions.clear();
                self.inline = None;
                let Some(p) = &self.places else { return true };
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
                let _ = private;
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
                            })
                            .collect();
                    }
                    Err(e) => tracing::warn!("suggestions: {e}"),
                }
            }
            _ => return false,
        }
        true
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
    /// human changed. Called on every model sync for the tabs that exist.
    pub fn track_zoom(&mut self, actor: &Actor, tabs: &[(TabId, String)]) {
        let Some(p) = &self.places else { return };
        self.zoom.retain(|id, _| tabs.iter().any(|(t, _)| t == id));
        for (id, url) in tabs {
            let Some(site) = zoom_site(url) else { continue };
            let Some(h) = actor.host(*id) else { continue };
            let now = h.zoom_percent();
            match self.zoom.get(id) {
                Some((s, seen)) if *s == site => {
                    if *seen != now {
                        // The human zoomed (or Chromium applied its own per-host zoom):
                        // remember it for the site.
                        let z = (now != 100).then_some(f64::from(now));
                        if let Err(e) = p.set_zoom(&site, z).wait() {
                            tracing::warn!("could not remember the zoom of {site}: {e}");
                        }
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
    }

    /// Fills the model's memory fields; true when anything changed.
    pub fn mirror(&mut self, actor: &Actor, m: &mut ChromeModel) -> bool {
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
        if m.suggestions != self.suggestions || m.inline_completion != self.inline {
            m.suggestions = self.suggestions.clone();
            m.inline_completion = self.inline.clone();
            changed = true;
        }
        for t in &mut m.tabs {
            let find = self.find.get(&t.id).filter(|s| !s.is_empty()).map(|text| {
                let r = actor.with(|st| st.tabs.get(&t.id).and_then(|r| r.asks.find));
                let (active, count, last) = r.unwrap_or((0, 0, false));
                FindView {
                    text: text.clone(),
                    active: active as i32,
                    count: count as i32,
                    final_update: last,
                }
            });
            let zoom = actor.host(t.id).map_or(100, |h| h.zoom_percent());
            let bookmarked = self.is_starred(&t.url);
            if t.find != find || t.zoom_percent != zoom || t.bookmarked != bookmarked {
                changed = true;
            }
            t.find = find;
            t.zoom_percent = zoom;
            t.bookmarked = bookmarked;
        }
        if let Some(n) = self.notices.pop() {
            m.notice = Some(n);
            changed = true;
        }
        changed
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

fn node(n: &aperture_places::BookmarkNode) -> BookmarkNode {
    BookmarkNode {
        id: n.id.0,
        title: n.title.clone(),
        url: n.url().map(str::to_string),
        children: n.children().iter().map(node).collect(),
    }
}
