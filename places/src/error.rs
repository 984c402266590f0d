use std::path::PathBuf;

use crate::BookmarkId;
use crate::prefs::{MAX_ZOOM, MIN_ZOOM};

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("places database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the places database has schema version {found}, newer than this build knows ({known}); \
         it was left untouched"
    )]
    TooNew { found: u32, known: u32 },
    #[error("the places database is damaged: {0}")]
    Damaged(String),
    #[error("SQLite would not use write-ahead logging (journal mode stayed {0:?})")]
    NoWal(String),
    #[error("the places writer stopped before answering (see the log)")]
    Abandoned,
    #[error("the places write could not be committed: {0}")]
    Commit(String),
    #[error("no bookmark or folder has id {0}")]
    NoSuchBookmark(BookmarkId),
    #[error("bookmark {0} is not a folder")]
    NotAFolder(BookmarkId),
    #[error("the bookmarks bar and Other bookmarks cannot be renamed, moved or removed")]
    RootFolder,
    #[error("a folder cannot be moved into itself or into one of its subfolders")]
    FolderCycle,
    #[error("not a bookmarks file: it has no <DL> list of bookmarks")]
    NotBookmarkFile,
    #[error("zoom is a percentage from {MIN_ZOOM} to {MAX_ZOOM}, not {0}")]
    InvalidZoom(f64),
    #[error("a favicon is 1 to 256 pixels a side in RGBA, not {width}×{height} in {bytes} bytes")]
    InvalidFavicon { width: u32, height: u32, bytes: usize },
}

impl Error {
    /// Whether SQLite says the file itself is damaged or not a database.
    pub(crate) fn is_damage(&self) -> bool {
        match self {
            Error::Damaged(_) => true,
            Error::Sqlite(e) => sqlite_damage(e),
            _ => false,
        }
    }
}

pub(crate) fn sqlite_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}
