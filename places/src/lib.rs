//! History, bookmarks and per-site preferences of one profile, in one SQLite database
//! (`<profile>/places.sqlite`). No CEF.
//!
//! *Invariant*: `places.sqlite` is written only by the one writer thread a [`Places`] handle
//! owns (every write is a job queued to it, so no write ever blocks the caller's thread) and
//! read through one read-only connection; the file is 0600, in WAL mode, and its schema is
//! exactly the migrations in `schema.rs` applied in order (`PRAGMA user_version` counts them;
//! a newer file is refused, never downgraded). A file SQLite calls damaged is moved aside as
//! `places.sqlite.damaged-<ms>` and reported ([`Places::recovery`]), never deleted or
//! overwritten. Which navigations are recorded is the caller's decision: this crate records
//! whatever it is given (minus URLs typing cannot bring back, like `about:` and `data:`), so
//! the app must never call [`Places::record_visit`] or [`Places::set_title`] for a private
//! container. Suggestions are indexed prefix lookups over a per-(URL, container) aggregate row
//! (`places`), never a scan of visits.
//!
//! Reads ([`Places::search`], [`Places::suggest`], [`Places::tree`], [`Places::is_bookmarked`],
//! [`Places::zoom_for`]) run on the calling thread against what the writer has committed;
//! [`Places::flush`] waits for every write queued before it.

#![forbid(unsafe_code)]

mod bookmarks;
mod db;
mod error;
mod favicons;
mod frecency;
mod history;
mod import;
mod prefs;
mod reply;
mod schema;
mod suggest;
mod text;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use rusqlite::Connection;

pub use bookmarks::{BookmarkId, BookmarkNode, NodeKind};
pub use db::{FILE_NAME, Recovery};
pub use error::Error;
pub use favicons::{Favicon, host_key};
pub use history::{HistoryEntry, TopSite, VisitId};
pub use import::{ImportReport, SkipReason, Skipped};
pub use prefs::{MAX_ZOOM, MIN_ZOOM};
pub use reply::Reply;
pub use schema::SCHEMA_VERSION;
pub use suggest::{Suggestion, SuggestionKind};
pub use text::now_ms;

use writer::{Finish, Job, Msg};

/// A handle on one profile's places database. Cheap to clone; every clone shares the writer
/// thread and the read connection. When the last clone is dropped, the writer finishes the
/// queued writes and the drop waits for it.
#[derive(Clone)]
pub struct Places {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    jobs: Sender<Msg>,
    reader: Mutex<Connection>,
    writer: Option<JoinHandle<()>>,
    recovery: Option<Recovery>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let _ = self.jobs.send(Msg::Shutdown);
        if let Some(writer) = self.writer.take()
            && writer.join().is_err()
        {
            tracing::error!("the places writer thread panicked");
        }
    }
}

impl std::fmt::Debug for Places {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Places")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

impl Places {
    /// Opens (or creates) `<profile_dir>/places.sqlite` and brings its schema up to date. The
    /// directory must exist (the app creates the profile directory 0700).
    ///
    /// A file that is not an SQLite database, is damaged, or is someone else's database is
    /// moved aside and a fresh one created: this returns `Ok` and [`Places::recovery`] says
    /// what happened, for the app to tell the human. A database from a newer build is
    /// [`Error::TooNew`] and is left alone.
    pub fn open(profile_dir: &Path) -> Result<Places, Error> {
        let opened = db::open(profile_dir)?;
        let path = profile_dir.join(FILE_NAME);
        let (jobs, queue) = mpsc::channel();
        let writer_path = path.clone();
        let writer = std::thread::Builder::new()
            .name("places-writer".into())
            .spawn(move || writer::run(opened.writer, queue, writer_path))
            .map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        Ok(Places {
            inner: Arc::new(Inner {
                path,
                jobs,
                reader: Mutex::new(opened.reader),
                writer: Some(writer),
                recovery: opened.recovery,
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Set when [`Places::open`] found the database damaged and started a new one.
    pub fn recovery(&self) -> Option<&Recovery> {
        self.inner.recovery.as_ref()
    }

    /// Waits until every write queued before this call is committed (tests, shutdown).
    pub fn flush(&self) -> Result<(), Error> {
        self.write("flush", |_| Ok(())).wait()
    }

    // ----- history -----

    /// Records a top-level navigation of `container` at `at_ms` (ms since the epoch; see
    /// [`now_ms`]); `typed` when the human typed the address or picked it in the omnibox.
    /// Fire-and-forget. Never call this for a private container.
    pub fn record_visit(&self, container: &str, url: &str, typed: bool, at_ms: i64) {
        let (container, url) = (container.to_owned(), url.to_owned());
        self.fire("record_visit", move |c| {
            history::record_visit(c, &container, &url, typed, at_ms)
        });
    }

    /// Sets the title of a page in `container`'s history once the page has one (a page not
    /// recorded there is ignored). Fire-and-forget.
    pub fn set_title(&self, container: &str, url: &str, title: &str) {
        let (container, url, title) = (container.to_owned(), url.to_owned(), title.to_owned());
        self.fire("set_title", move |c| {
            history::set_title(c, &container, &url, &title).map(drop)
        });
    }

    /// The history view: visits whose URL or title contains every whitespace-separated word of
    /// `query` (ignoring case; empty matches all), of one container or all, newest first.
    /// Substring search cannot use an index: a term found among the newest 5,000 visits costs a
    /// few milliseconds, a rare one reads every page (tens of milliseconds at 100,000 pages).
    pub fn search(
        &self,
        query: &str,
        container: Option<&str>,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<HistoryEntry>, Error> {
        self.read(|c| history::search(c, query, container, limit, offset))
    }

    /// The sites `container`'s history goes to most, best first, one page each (see
    /// [`TopSite`]): the new-tab page's tiles. An index walk; well under a millisecond.
    pub fn top_sites(&self, container: &str, limit: usize) -> Result<Vec<TopSite>, Error> {
        self.read(|c| history::top_sites(c, container, limit))
    }

    /// Takes `url`'s site off `container`'s new-tab page for good; its history stays.
    pub fn hide_site(&self, container: &str, url: &str) -> Reply<()> {
        let (container, url) = (container.to_owned(), url.to_owned());
        self.write("hide_site", move |c| history::hide_site(c, &container, &url))
    }

    /// Puts `url`'s site (`None`: every site) back on `container`'s new-tab page; answers how
    /// many came back.
    pub fn unhide_sites(&self, container: &str, url: Option<&str>) -> Reply<usize> {
        let (container, url) = (container.to_owned(), url.map(str::to_owned));
        self.write("unhide_sites", move |c| {
            history::unhide_sites(c, &container, url.as_deref())
        })
    }

    /// Deletes one visit. `true` if it existed.
    pub fn delete_visit(&self, id: VisitId) -> Reply<bool> {
        self.write("delete_visit", move |c| history::delete_visit(c, id))
    }

    /// Deletes every visit of `url` in every container. Answers the number of visits deleted.
    pub fn delete_url(&self, url: &str) -> Reply<usize> {
        let url = url.to_owned();
        self.write("delete_url", move |c| history::delete_url(c, &url))
    }

    /// Deletes the visits from `from_ms` (inclusive) to `to_ms` (exclusive), of one container
    /// or of all, and the icons of pages history no longer has or that were seen in the range
    /// (a bookmarked page keeps its icon). Answers the number of visits deleted.
    pub fn clear_range(&self, container: Option<&str>, from_ms: i64, to_ms: i64) -> Reply<usize> {
        let container = container.map(str::to_owned);
        self.write("clear_range", move |c| {
            let n = history::clear_range(c, container.as_deref(), from_ms, to_ms)?;
            favicons::prune(c, Some(from_ms))?;
            Ok(n)
        })
    }

    /// Deletes all history, of one container or of all, and the icons of pages it no longer
    /// has. Bookmarks (and their icons) and site preferences stay.
    pub fn clear_all(&self, container: Option<&str>) -> Reply<usize> {
        let container = container.map(str::to_owned);
        self.write("clear_all", move |c| {
            let n = history::clear_all(c, container.as_deref())?;
            favicons::prune(c, None)?;
            Ok(n)
        })
    }

    // ----- icons -----

    /// Remembers `page_url`'s icon. Fire-and-forget; never call this for a private container.
    pub fn set_favicon(&self, page_url: &str, icon: Favicon) {
        if let Err(e) = icon.check() {
            tracing::warn!("favicon of {page_url} not kept: {e}");
            return;
        }
        let (url, now) = (page_url.to_owned(), now_ms());
        self.fire("set_favicon", move |c| favicons::set(c, &url, &icon, now));
    }

    /// The icon kept for `page_url` (see [`Places::favicon_for_host`] for its site's).
    pub fn favicon_for(&self, page_url: &str) -> Result<Option<Favicon>, Error> {
        self.read(|c| favicons::for_page(c, page_url))
    }

    /// The newest icon seen on `host` (a [`host_key`]: `host[:port]`).
    pub fn favicon_for_host(&self, host: &str) -> Result<Option<Favicon>, Error> {
        self.read(|c| favicons::for_host(c, host))
    }

    /// Omnibox suggestions for `input`, best first, at most `limit`: history of `container`
    /// (or of every container, one entry per URL, its best row) and bookmarks. A single token
    /// matches URLs that start with it (with or without scheme and `www.`) and titles with a
    /// word starting with each of its words; with spaces, every word must start a word of the
    /// title or of the URL. The first suggestion is the best URL-prefix match when there is
    /// one (the one to complete inline with [`Suggestion::inline_completion`]); the rest follow
    /// by score. Indexed lookups only (see `suggest.rs`); a few milliseconds over 100,000 pages.
    pub fn suggest(
        &self,
        input: &str,
        container: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Suggestion>, Error> {
        let now = now_ms();
        self.read(|c| suggest::suggest(c, input, container, limit, now))
    }

    // ----- bookmarks -----

    /// Adds a bookmark at the end of `folder`.
    pub fn add_bookmark(&self, url: &str, title: &str, folder: BookmarkId) -> Reply<BookmarkId> {
        let (url, title, now) = (url.to_owned(), title.to_owned(), now_ms());
        self.write("add_bookmark", move |c| {
            bookmarks::add_bookmark(c, &url, &title, folder, now)
        })
    }

    /// Removes a bookmark, or a folder and everything in it. The roots cannot be removed.
    pub fn remove_bookmark(&self, id: BookmarkId) -> Reply<()> {
        self.write("remove_bookmark", move |c| bookmarks::remove(c, id))
    }

    /// The first bookmark of `url`, if any (what the omnibox star shows).
    pub fn is_bookmarked(&self, url: &str) -> Result<Option<BookmarkId>, Error> {
        self.read(|c| bookmarks::is_bookmarked(c, url))
    }

    /// The star (Ctrl+D): if `url` is bookmarked, removes every bookmark of it and answers
    /// `None`; else bookmarks it at the end of the bookmarks bar and answers its id.
    pub fn toggle(&self, url: &str, title: &str) -> Reply<Option<BookmarkId>> {
        let (url, title, now) = (url.to_owned(), title.to_owned(), now_ms());
        self.write("toggle_bookmark", move |c| {
            bookmarks::toggle(c, &url, &title, now)
        })
    }

    /// Renames a bookmark or folder (not a root).
    pub fn rename(&self, id: BookmarkId, title: &str) -> Reply<()> {
        let title = title.to_owned();
        self.write("rename_bookmark", move |c| bookmarks::rename(c, id, &title))
    }

    /// Moves a bookmark or folder into `folder` at `position` among its children (clamped to
    /// the end). A folder cannot move into itself or its own subfolders; roots do not move.
    pub fn move_to(&self, id: BookmarkId, folder: BookmarkId, position: usize) -> Reply<()> {
        self.write("move_bookmark", move |c| {
            bookmarks::move_to(c, id, folder, position)
        })
    }

    /// Creates a folder at the end of `parent`.
    pub fn create_folder(&self, parent: BookmarkId, name: &str) -> Reply<BookmarkId> {
        let (name, now) = (name.to_owned(), now_ms());
        self.write("create_folder", move |c| {
            bookmarks::create_folder(c, parent, &name, now)
        })
    }

    /// The bookmark tree: `[bookmarks bar, Other bookmarks]`, children in order.
    pub fn tree(&self) -> Result<Vec<BookmarkNode>, Error> {
        self.read(bookmarks::tree)
    }

    /// Imports a Chrome or Firefox HTML bookmark export (the Netscape bookmark file format):
    /// the toolbar folder's contents go to the bookmarks bar, the rest to Other bookmarks,
    /// folders merged by name, URLs already in their folder skipped. All or nothing: if
    /// anything fails, nothing is added. Parsing happens on the writer thread too.
    pub fn import_html(&self, html: String) -> Reply<ImportReport> {
        let now = now_ms();
        self.write("import_bookmarks", move |c| {
            import::apply(c, import::parse(&html)?, now)
        })
    }

    // ----- site preferences -----

    /// The zoom (percent) remembered for `site` (a host), `None` for the default (100 %).
    pub fn zoom_for(&self, site: &str) -> Result<Option<f64>, Error> {
        self.read(|c| prefs::zoom_for(c, site))
    }

    /// Remembers the zoom (percent, [`MIN_ZOOM`]..=[`MAX_ZOOM`]) for `site`; `None` forgets it.
    pub fn set_zoom(&self, site: &str, zoom: Option<f64>) -> Reply<()> {
        if let Err(e) = prefs::check_zoom(zoom) {
            return Reply::ready(Err(e));
        }
        let site = site.to_owned();
        self.write("set_zoom", move |c| prefs::set_zoom(c, &site, zoom))
    }

    // ----- plumbing -----

    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Error>) -> Result<T, Error> {
        let conn = self.reader();
        let result = f(&conn);
        if let Err(Error::Sqlite(e)) = &result
            && error::sqlite_damage(e)
        {
            db::note_damage(&self.inner.path, e);
        }
        result
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        // A panic inside a read leaves no partial state in the connection worth refusing.
        self.inner
            .reader
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues a write whose answer the caller may want.
    fn write<T: Send + 'static>(
        &self,
        what: &'static str,
        f: impl FnOnce(&Connection) -> Result<T, Error> + Send + 'static,
    ) -> Reply<T> {
        let (reply, slot) = reply::pair();
        let job: Job = Box::new(move |conn| {
            let result = f(conn);
            if let Err(e) = &result {
                tracing::warn!(op = what, error = %e, "places write failed");
            }
            let ok = result.is_ok();
            let finish: Finish = Box::new(move |committed| {
                slot.set(match (result, committed) {
                    (Err(e), _) => Err(e),
                    (Ok(v), Ok(())) => Ok(v),
                    (Ok(_), Err(msg)) => Err(Error::Commit(msg.to_owned())),
                })
            });
            (ok, finish)
        });
        if self.inner.jobs.send(Msg::Job(job)).is_err() {
            // The job (and its slot) came back with the error and is dropped here: the reply
            // answers `Error::Abandoned`.
            tracing::error!(op = what, "the places writer has stopped");
        }
        reply
    }

    /// Queues a write nobody waits for (failures are logged by [`Places::write`]).
    fn fire(&self, what: &'static str, f: impl FnOnce(&Connection) -> Result<(), Error> + Send + 'static) {
        drop(self.write(what, f));
    }
}
