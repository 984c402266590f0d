//! The schema, as the list of migrations that builds it. `PRAGMA user_version` is the number of
//! migrations applied. A migration is never edited once released: change the schema by appending.

use rusqlite::Connection;

use crate::Error;

/// Migration `i` takes a database from version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Version 1: history and bookmarks.
///
/// `places` is one row per (URL, container): the precomputed aggregate suggestions rank by
/// (`frecency` is a decay date, see `frecency.rs`), looked up by `url_key` (the URL as typed:
/// no scheme, no `www.`, lower case) and by the words of its title in `place_words`. `visits` is
/// the history view's list. Bookmarks are one tree: roots 1 and 2 are the bar and "Other
/// bookmarks"; `position` is dense from 0 within a parent.
const V1: &str = r#"
CREATE TABLE places (
    id          INTEGER PRIMARY KEY,
    url         TEXT NOT NULL,
    container   TEXT NOT NULL,
    url_key     TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    fold        TEXT NOT NULL,
    visit_count INTEGER NOT NULL DEFAULT 0,
    typed_count INTEGER NOT NULL DEFAULT 0,
    last_visit  INTEGER NOT NULL DEFAULT 0,
    frecency    REAL NOT NULL DEFAULT 0,
    UNIQUE (url, container)
);
CREATE INDEX places_key ON places (url_key, frecency);
CREATE INDEX places_container_key ON places (container, url_key, frecency);
CREATE INDEX places_frecency ON places (frecency);
CREATE INDEX places_container_frecency ON places (container, frecency);

CREATE TABLE visits (
    id         INTEGER PRIMARY KEY,
    place_id   INTEGER NOT NULL REFERENCES places (id) ON DELETE CASCADE,
    visited_at INTEGER NOT NULL,
    typed      INTEGER NOT NULL
);
CREATE INDEX visits_time ON visits (visited_at);
CREATE INDEX visits_place ON visits (place_id);

CREATE TABLE place_words (
    word     TEXT NOT NULL,
    place_id INTEGER NOT NULL REFERENCES places (id) ON DELETE CASCADE,
    PRIMARY KEY (word, place_id)
) WITHOUT ROWID;
CREATE INDEX place_words_place ON place_words (place_id, word);

CREATE TABLE bookmarks (
    id        INTEGER PRIMARY KEY,
    parent    INTEGER REFERENCES bookmarks (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    is_folder INTEGER NOT NULL,
    title     TEXT NOT NULL,
    url       TEXT,
    url_key   TEXT,
    added_at  INTEGER NOT NULL,
    CHECK ((is_folder = 1) = (url IS NULL))
);
CREATE INDEX bookmarks_children ON bookmarks (parent, position);
CREATE INDEX bookmarks_url ON bookmarks (url);
CREATE INDEX bookmarks_key ON bookmarks (url_key);

CREATE TABLE bookmark_words (
    word        TEXT NOT NULL,
    bookmark_id INTEGER NOT NULL REFERENCES bookmarks (id) ON DELETE CASCADE,
    PRIMARY KEY (word, bookmark_id)
) WITHOUT ROWID;
CREATE INDEX bookmark_words_bookmark ON bookmark_words (bookmark_id);

INSERT INTO bookmarks (id, parent, position, is_folder, title, added_at)
VALUES (1, NULL, 0, 1, 'Bookmarks bar', 0), (2, NULL, 1, 1, 'Other bookmarks', 0);
"#;

/// Version 2: per-site preferences (zoom, in percent; no row means the default).
const V2: &str = r#"
CREATE TABLE site_prefs (
    site TEXT PRIMARY KEY,
    zoom REAL
) WITHOUT ROWID;
"#;

/// Version 3: indexes that answer suggestion lookups without reading the table rows until
/// the best few are known (`id`, `url_key` and `frecency` are all a lookup needs to filter and
/// rank; `places_rank` serves lookups driven by title words, which arrive as ids).
const V3: &str = r#"
DROP INDEX places_frecency;
DROP INDEX places_container_frecency;
CREATE INDEX places_frecency ON places (frecency, url_key);
CREATE INDEX places_container_frecency ON places (container, frecency, url_key);
CREATE INDEX places_rank ON places (id, container, frecency, url_key);
"#;

/// Version 4: the words of each page's URL (after scheme and `www.`), so that several typed
/// words can each be found at the start of a title word or a URL word through an index.
/// Filled for existing pages by [`backfill_url_words`].
const V4: &str = r#"
CREATE TABLE place_url_words (
    word     TEXT NOT NULL,
    place_id INTEGER NOT NULL REFERENCES places (id) ON DELETE CASCADE,
    PRIMARY KEY (word, place_id)
) WITHOUT ROWID;
CREATE INDEX place_url_words_place ON place_url_words (place_id, word);
"#;

/// Version 5: page icons (see `favicons.rs`), by page URL and by host.
const V5: &str = r#"
CREATE TABLE favicons (
    page_url   TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    icon_url   TEXT NOT NULL,
    width      INTEGER NOT NULL,
    height     INTEGER NOT NULL,
    rgba       BLOB NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX favicons_host ON favicons (host, updated_at);
"#;

/// Version 6: sites the human took off the new-tab page, per container (by `host[:port]`).
const V6: &str = r#"
CREATE TABLE hidden_sites (
    container TEXT NOT NULL,
    host      TEXT NOT NULL,
    PRIMARY KEY (container, host)
) WITHOUT ROWID;
"#;

/// Work a migration needs beyond SQL, run in the same transaction after it.
fn after(version: u32, conn: &Connection) -> Result<(), Error> {
    match version {
        4 => backfill_url_words(conn),
        _ => Ok(()),
    }
}

fn backfill_url_words(conn: &Connection) -> Result<(), Error> {
    let mut select = conn.prepare("SELECT id, url FROM places")?;
    let rows = select
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (id, url) in rows {
        crate::history::index_url_words(conn, id, &url)?;
    }
    Ok(())
}

/// Brings the database up to [`SCHEMA_VERSION`], one transaction per migration.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), Error> {
    migrate_to(conn, SCHEMA_VERSION)
}

pub(crate) fn migrate_to(conn: &mut Connection, target: u32) -> Result<(), Error> {
    let found: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(Error::TooNew {
            found,
            known: SCHEMA_VERSION,
        });
    }
    for version in found..target {
        let tx = conn.transaction()?;
        tx.execute_batch(MIGRATIONS[version as usize])?;
        after(version + 1, &tx)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
        tracing::info!(version = version + 1, "places schema migrated");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BookmarkId, Places, db::FILE_NAME};

    fn schema_of(conn: &Connection) -> Vec<(String, String)> {
        conn.prepare("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_version_1_database_is_migrated_and_keeps_its_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        {
            let mut conn = Connection::open(&path).unwrap();
            migrate_to(&mut conn, 1).unwrap();
            let v: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
            assert_eq!(v, 1);
            // Rows as a version-1 build wrote them, in version-1 columns.
            conn.execute_batch(
                "INSERT INTO places (id, url, container, url_key, title, fold, visit_count, typed_count,
                                     last_visit, frecency)
                 VALUES (7, 'https://old.example/', 'personal', 'old.example/', 'Old page',
                         'https://old.example/' || char(10) || 'old page', 1, 1, 1700000000000, 1700000000000);
                 INSERT INTO visits (place_id, visited_at, typed) VALUES (7, 1700000000000, 1);
                 INSERT INTO place_words (word, place_id) VALUES ('old', 7), ('page', 7);
                 INSERT INTO bookmarks (parent, position, is_folder, title, url, url_key, added_at)
                 VALUES (1, 0, 0, 'Old bookmark', 'https://old.example/b', 'old.example/b', 1700000000000);",
            )
            .unwrap();
            let has_prefs: i64 = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'site_prefs'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(has_prefs, 0);
        }
        let p = Places::open(dir.path()).unwrap();
        assert!(p.recovery().is_none());
        let v: u32 = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        // Version 4 indexed the URL's words of the page that was already there.
        assert_eq!(
            p.suggest("example old", None, 5).unwrap().len(),
            2,
            "'example' is a URL word of both"
        );
        let h = p.search("old", Some("personal"), 10, 0).unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].title, "Old page");
        assert!(h[0].typed);
        assert_eq!(
            p.suggest("old", None, 5).unwrap().len(),
            2,
            "the page and the bookmark"
        );
        assert_eq!(
            p.suggest("old page", None, 5).unwrap().len(),
            1,
            "only the page has both words"
        );
        assert_eq!(p.tree().unwrap()[0].children()[0].title, "Old bookmark");
        assert_eq!(
            p.is_bookmarked("https://old.example/b").unwrap(),
            Some(BookmarkId(3))
        );
        // Version 2's table exists and works.
        p.set_zoom("old.example", Some(90.0)).wait().unwrap();
        assert_eq!(p.zoom_for("old.example").unwrap(), Some(90.0));
    }

    #[test]
    fn migrating_step_by_step_builds_the_same_schema_as_a_fresh_database() {
        let mut stepwise = Connection::open_in_memory().unwrap();
        for v in 1..=SCHEMA_VERSION {
            migrate_to(&mut stepwise, v).unwrap();
        }
        let mut fresh = Connection::open_in_memory().unwrap();
        migrate(&mut fresh).unwrap();
        assert_eq!(schema_of(&stepwise), schema_of(&fresh));
        // Running it again is a no-op.
        migrate(&mut fresh).unwrap();
        let v: u32 = fresh.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
    }
}
