//! The bookmark tree: two roots (the bookmarks bar and Other bookmarks), folders, bookmarks.
//! Children of a folder have dense positions from 0. Writes run on the writer thread.

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;
use crate::history::{clamp_i64, index_words};
use crate::text::{clean_title, url_key};

/// A bookmark's or folder's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BookmarkId(pub i64);

impl BookmarkId {
    /// The bookmarks bar (a root folder): where [`crate::Places::toggle`] puts new bookmarks,
    /// as Chrome's star does, so they show on the bar.
    pub const BAR: BookmarkId = BookmarkId(1);
    /// Other bookmarks (a root folder).
    pub const OTHER: BookmarkId = BookmarkId(2);

    pub fn is_root(self) -> bool {
        self == Self::BAR || self == Self::OTHER
    }
}

impl std::fmt::Display for BookmarkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A folder or a bookmark in [`crate::Places::tree`].
#[derive(Debug, Clone, PartialEq)]
pub struct BookmarkNode {
    pub id: BookmarkId,
    pub title: String,
    pub added_ms: i64,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// Children in order.
    Folder(Vec<BookmarkNode>),
    Bookmark {
        url: String,
    },
}

impl BookmarkNode {
    pub fn url(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Bookmark { url } => Some(url),
            NodeKind::Folder(_) => None,
        }
    }

    /// A folder's children; empty for a bookmark.
    pub fn children(&self) -> &[BookmarkNode] {
        match &self.kind {
            NodeKind::Folder(children) => children,
            NodeKind::Bookmark { .. } => &[],
        }
    }
}

struct Item {
    parent: Option<i64>,
    position: i64,
    is_folder: bool,
}

fn item(conn: &Connection, id: BookmarkId) -> Result<Item, Error> {
    conn.prepare_cached("SELECT parent, position, is_folder FROM bookmarks WHERE id = ?1")?
        .query_row([id.0], |r| {
            Ok(Item {
                parent: r.get(0)?,
                position: r.get(1)?,
                is_folder: r.get(2)?,
            })
        })
        .optional()?
        .ok_or(Error::NoSuchBookmark(id))
}

fn folder(conn: &Connection, id: BookmarkId) -> Result<(), Error> {
    if item(conn, id)?.is_folder {
        Ok(())
    } else {
        Err(Error::NotAFolder(id))
    }
}

fn child_count(conn: &Connection, parent: BookmarkId) -> Result<i64, Error> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM bookmarks WHERE parent = ?1")?
        .query_row([parent.0], |r| r.get(0))?)
}

pub(crate) fn add_bookmark(
    conn: &Connection,
    url: &str,
    title: &str,
    parent: BookmarkId,
    added_ms: i64,
) -> Result<BookmarkId, Error> {
    folder(conn, parent)?;
    let title = clean_title(title);
    let position = child_count(conn, parent)?;
    conn.prepare_cached(
        "INSERT INTO bookmarks (parent, position, is_folder, title, url, url_key, added_at)
         VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![parent.0, position, title, url, url_key(url), added_ms])?;
    let id = conn.last_insert_rowid();
    index_words(conn, "bookmark_words", "bookmark_id", id, &title)?;
    Ok(BookmarkId(id))
}

pub(crate) fn create_folder(
    conn: &Connection,
    parent: BookmarkId,
    name: &str,
    added_ms: i64,
) -> Result<BookmarkId, Error> {
    folder(conn, parent)?;
    let position = child_count(conn, parent)?;
    conn.prepare_cached(
        "INSERT INTO bookmarks (parent, position, is_folder, title, added_at) VALUES (?1, ?2, 1, ?3, ?4)",
    )?
    .execute(params![parent.0, position, clean_title(name), added_ms])?;
    Ok(BookmarkId(conn.last_insert_rowid()))
}

/// Removes a bookmark, or a folder with everything in it.
pub(crate) fn remove(conn: &Connection, id: BookmarkId) -> Result<(), Error> {
    if id.is_root() {
        return Err(Error::RootFolder);
    }
    let it = item(conn, id)?;
    conn.execute("DELETE FROM bookmarks WHERE id = ?1", [id.0])?;
    conn.execute(
        "UPDATE bookmarks SET position = position - 1 WHERE parent = ?1 AND position > ?2",
        params![it.parent, it.position],
    )?;
    Ok(())
}

pub(crate) fn is_bookmarked(conn: &Connection, url: &str) -> Result<Option<BookmarkId>, Error> {
    Ok(conn
        .prepare_cached("SELECT id FROM bookmarks WHERE url = ?1 ORDER BY id LIMIT 1")?
        .query_row([url], |r| r.get(0))
        .optional()?
        .map(BookmarkId))
}

/// The star: removes every bookmark of `url` if there is one (`None`), else bookmarks it at
/// the end of the bookmarks bar (`Some(id)`).
pub(crate) fn toggle(
    conn: &Connection,
    url: &str,
    title: &str,
    now_ms: i64,
) -> Result<Option<BookmarkId>, Error> {
    let ids = conn
        .prepare_cached("SELECT id FROM bookmarks WHERE url = ?1")?
        .query_map([url], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    if ids.is_empty() {
        return add_bookmark(conn, url, title, BookmarkId::BAR, now_ms).map(Some);
    }
    for id in ids {
        remove(conn, BookmarkId(id))?;
    }
    Ok(None)
}

pub(crate) fn rename(conn: &Connection, id: BookmarkId, title: &str) -> Result<(), Error> {
    if id.is_root() {
        return Err(Error::RootFolder);
    }
    let it = item(conn, id)?;
    let title = clean_title(title);
    conn.execute(
        "UPDATE bookmarks SET title = ?2 WHERE id = ?1",
        params![id.0, title],
    )?;
    if !it.is_folder {
        index_words(conn, "bookmark_words", "bookmark_id", id.0, &title)?;
    }
    Ok(())
}

/// Moves `id` into `folder` at `position` among its children (past the end means last).
pub(crate) fn move_to(
    conn: &Connection,
    id: BookmarkId,
    target: BookmarkId,
    position: usize,
) -> Result<(), Error> {
    if id.is_root() {
        return Err(Error::RootFolder);
    }
    let it = item(conn, id)?;
    folder(conn, target)?;
    // The target must not be `id` or inside it.
    let mut up = Some(target.0);
    while let Some(at) = up {
        if at == id.0 {
            return Err(Error::FolderCycle);
        }
        up = conn
            .prepare_cached("SELECT parent FROM bookmarks WHERE id = ?1")?
            .query_row([at], |r| r.get(0))?;
    }
    let old_parent = it.parent.ok_or(Error::RootFolder)?;
    let mut siblings = children_ids(conn, target.0)?;
    siblings.retain(|&c| c != id.0);
    let at = position.min(siblings.len());
    siblings.insert(at, id.0);
    conn.execute(
        "UPDATE bookmarks SET parent = ?2 WHERE id = ?1",
        params![id.0, target.0],
    )?;
    renumber(conn, &siblings)?;
    if old_parent != target.0 {
        renumber(conn, &children_ids(conn, old_parent)?)?;
    }
    Ok(())
}

fn children_ids(conn: &Connection, parent: i64) -> Result<Vec<i64>, Error> {
    Ok(conn
        .prepare_cached("SELECT id FROM bookmarks WHERE parent = ?1 ORDER BY position, id")?
        .query_map([parent], |r| r.get(0))?
        .collect::<Result<Vec<_>, _>>()?)
}

fn renumber(conn: &Connection, ids: &[i64]) -> Result<(), Error> {
    let mut stmt =
        conn.prepare_cached("UPDATE bookmarks SET position = ?2 WHERE id = ?1 AND position != ?2")?;
    for (i, id) in ids.iter().enumerate() {
        stmt.execute(params![id, clamp_i64(i)])?;
    }
    Ok(())
}

/// The whole tree: the bar, then Other bookmarks, each with its children in order.
pub(crate) fn tree(conn: &Connection) -> Result<Vec<BookmarkNode>, Error> {
    struct Row {
        id: i64,
        parent: Option<i64>,
        title: String,
        url: Option<String>,
        added: i64,
    }
    let mut stmt = conn.prepare_cached(
        "SELECT id, parent, title, url, added_at FROM bookmarks ORDER BY parent, position, id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(Row {
                id: r.get(0)?,
                parent: r.get(1)?,
                title: r.get(2)?,
                url: r.get(3)?,
                added: r.get(4)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut by_parent: std::collections::HashMap<Option<i64>, Vec<&Row>> = std::collections::HashMap::new();
    for row in &rows {
        by_parent.entry(row.parent).or_default().push(row);
    }
    fn build(row: &Row, by_parent: &std::collections::HashMap<Option<i64>, Vec<&Row>>) -> BookmarkNode {
        let kind = match &row.url {
            Some(url) => NodeKind::Bookmark { url: url.clone() },
            None => NodeKind::Folder(by_parent.get(&Some(row.id)).map_or_else(Vec::new, |kids| {
                kids.iter().map(|k| build(k, by_parent)).collect()
            })),
        };
        BookmarkNode {
            id: BookmarkId(row.id),
            title: row.title.clone(),
            added_ms: row.added,
            kind,
        }
    }
    let mut roots: Vec<BookmarkNode> = by_parent
        .get(&None)
        .map_or_else(Vec::new, |r| r.iter().map(|r| build(r, &by_parent)).collect());
    roots.sort_by_key(|n| n.id);
    Ok(roots)
}
