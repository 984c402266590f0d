//! Opening `places.sqlite`: private file, WAL, migrations, and moving a damaged file aside.

use std::fs::{self, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::{Error, schema, text};

/// The database's file name inside the profile directory.
pub const FILE_NAME: &str = "places.sqlite";
/// Left beside the database when SQLite reported corruption while running; the next open then
/// runs an integrity check (too slow to run on every start).
const SUSPECT_SUFFIX: &str = ".suspect";

/// A damaged database that [`crate::Places::open`] moved aside before starting a fresh one.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// Where the damaged file is now (its write-ahead log, if any, beside it with `-wal`).
    pub moved_to: PathBuf,
    /// What SQLite said about it.
    pub reason: String,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The history and bookmarks database was damaged ({}). It was kept as {} and a new, \
             empty one was started.",
            self.reason,
            self.moved_to.display()
        )
    }
}

pub(crate) struct Opened {
    pub writer: Connection,
    pub reader: Connection,
    pub recovery: Option<Recovery>,
}

pub(crate) fn open(dir: &Path) -> Result<Opened, Error> {
    let path = dir.join(FILE_NAME);
    let suspect = suspect_marker(&path);
    let check = suspect.exists();
    let (writer, recovery) = match open_writer(&path, check) {
        Ok(conn) => (conn, None),
        Err(e) if e.is_damage() => {
            let reason = e.to_string();
            let moved_to = move_aside(&path)?;
            tracing::error!(
                path = %path.display(), moved_to = %moved_to.display(), %reason,
                "damaged places database moved aside; starting a fresh one"
            );
            (open_writer(&path, false)?, Some(Recovery { moved_to, reason }))
        }
        Err(e) => return Err(e),
    };
    if check {
        // The check passed or the file was replaced; either way the suspicion is settled.
        fs::remove_file(&suspect).map_err(|source| Error::Io {
            path: suspect.clone(),
            source,
        })?;
    }
    let reader = open_reader(&path)?;
    Ok(Opened {
        writer,
        reader,
        recovery,
    })
}

/// Records that SQLite reported corruption at run time, so the next start checks the file.
pub(crate) fn note_damage(path: &Path, error: &rusqlite::Error) {
    let marker = suspect_marker(path);
    if marker.exists() {
        return;
    }
    tracing::error!(%error, path = %path.display(), "places database reported damage; it will be checked at next start");
    if let Err(e) = create_private(&marker) {
        tracing::warn!(error = %e, "could not leave the damage marker");
    }
}

fn suspect_marker(path: &Path) -> PathBuf {
    sibling(path, SUSPECT_SUFFIX)
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn open_writer(path: &Path, integrity_check: bool) -> Result<Connection, Error> {
    ensure_private(path)?;
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    // The first statement that reads the header: a file that is not SQLite fails here.
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::NoWal(mode));
    }
    // In WAL mode NORMAL loses at most the last transactions on power loss, never consistency.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", true)?;
    // Index inserts land at random places in large b-trees: with SQLite's 2 MB default cache
    // they spill and re-read pages all the time. Savepoint journals stay in memory.
    conn.pragma_update(None, "cache_size", -16 * 1024)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    if integrity_check {
        let verdict: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if verdict != "ok" {
            return Err(Error::Damaged(verdict));
        }
    }
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == 0 {
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if tables > 0 {
            // Some other program's database under our name: keep it, but not in our way.
            return Err(Error::Damaged("an SQLite database that is not Aperture's".into()));
        }
    }
    schema::migrate(&mut conn)?;
    Ok(conn)
}

fn open_reader(path: &Path) -> Result<Connection, Error> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "query_only", true)?;
    conn.pragma_update(None, "cache_size", -8 * 1024)?;
    // Suggestion lookups read index pages scattered over the file; mapped, a page already in
    // the OS cache costs no read call.
    conn.pragma_update(None, "mmap_size", 256 * 1024 * 1024)?;
    // Suggestions build a handful of query shapes per input form; keep them all prepared.
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

/// Creates the file 0600 before SQLite does (SQLite would honour the umask), or tightens an
/// existing one. SQLite gives its `-wal` and `-shm` files the database file's mode.
fn ensure_private(path: &Path) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    match create_private(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            let mode = fs::metadata(path).map_err(io)?.permissions().mode();
            if mode & 0o077 != 0 {
                fs::set_permissions(path, fs::Permissions::from_mode(0o600)).map_err(io)?;
            }
            Ok(())
        }
        Err(e) => Err(io(e)),
    }
}

fn create_private(path: &Path) -> std::io::Result<()> {
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.sync_all()
}

/// Renames the database (and its write-ahead log, which may hold the latest changes) to
/// `places.sqlite.damaged-<ms>`; the shared-memory index is derived data and is removed.
fn move_aside(path: &Path) -> Result<PathBuf, Error> {
    let io = |p: &Path| {
        let p = p.to_owned();
        move |source| Error::Io { path: p, source }
    };
    let stamp = text::now_ms();
    let mut target = sibling(path, &format!(".damaged-{stamp}"));
    let mut n = 1;
    while target.exists() {
        target = sibling(path, &format!(".damaged-{stamp}-{n}"));
        n += 1;
    }
    fs::rename(path, &target).map_err(io(path))?;
    let wal = sibling(path, "-wal");
    if wal.exists() {
        fs::rename(&wal, sibling(&target, "-wal")).map_err(io(&wal))?;
    }
    let shm = sibling(path, "-shm");
    match fs::remove_file(&shm) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(io(&shm)(e)),
    }
    if let Some(dir) = path.parent() {
        // Make the renames durable before a new file takes the old name.
        fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))?;
    }
    Ok(target)
}
