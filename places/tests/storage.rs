mod common;

use std::os::unix::fs::PermissionsExt;

use aperture_places::{Error, FILE_NAME, Places, SCHEMA_VERSION, now_ms};
use common::{open, profile};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_database_and_its_wal_files_are_private_and_in_wal_mode() {
    let dir = profile();
    let p = open(&dir);
    p.record_visit("c", "https://a.example/", false, now_ms());
    p.flush().unwrap();
    let db = dir.path().join(FILE_NAME);
    assert_eq!(mode(&db), 0o600);
    for suffix in ["-wal", "-shm"] {
        let f = dir.path().join(format!("{FILE_NAME}{suffix}"));
        assert!(f.exists(), "{suffix} exists while open (WAL mode)");
        assert_eq!(mode(&f), 0o600, "{suffix}");
    }
    let raw = rusqlite::Connection::open(&db).unwrap();
    let journal: String = raw.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(journal, "wal");
    let version: u32 = raw.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn an_existing_world_readable_file_is_tightened() {
    let dir = profile();
    drop(open(&dir));
    let db = dir.path().join(FILE_NAME);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    drop(open(&dir));
    assert_eq!(mode(&db), 0o600);
}

fn damaged_copies(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("places.sqlite.damaged-")
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_file_that_is_not_sqlite_is_moved_aside_intact_and_a_fresh_database_started() {
    let dir = profile();
    let garbage = b"this is not a database, but somebody's bytes that must not be lost\n".repeat(100);
    std::fs::write(dir.path().join(FILE_NAME), &garbage).unwrap();

    let p = open(&dir);
    let rec = p.recovery().expect("recovery reported").clone();
    assert!(rec.reason.contains("not a database"), "{}", rec.reason);
    assert_eq!(
        std::fs::read(&rec.moved_to).unwrap(),
        garbage,
        "kept byte for byte"
    );
    assert_eq!(damaged_copies(dir.path()), std::slice::from_ref(&rec.moved_to));
    let message = rec.to_string();
    assert!(
        message.contains("damaged") && message.contains(&rec.moved_to.display().to_string()),
        "{message}"
    );

    // The fresh database works and persists.
    p.record_visit("c", "https://after.example/", false, now_ms());
    p.flush().unwrap();
    drop(p);
    let p = open(&dir);
    assert!(p.recovery().is_none());
    assert_eq!(p.search("", None, 10, 0).unwrap().len(), 1);
    assert_eq!(mode(&dir.path().join(FILE_NAME)), 0o600);
}

#[test]
fn another_programs_sqlite_database_is_not_taken_over() {
    let dir = profile();
    {
        let other = rusqlite::Connection::open(dir.path().join(FILE_NAME)).unwrap();
        other
            .execute_batch("CREATE TABLE places (x); INSERT INTO places VALUES ('theirs');")
            .unwrap();
    }
    let p = open(&dir);
    let rec = p.recovery().expect("moved aside");
    let theirs = rusqlite::Connection::open(&rec.moved_to).unwrap();
    let x: String = theirs
        .query_row("SELECT x FROM places", [], |r| r.get(0))
        .unwrap();
    assert_eq!(x, "theirs");
    assert!(p.tree().unwrap().len() == 2);
}

#[test]
fn a_database_from_a_newer_build_is_refused_and_left_untouched() {
    let dir = profile();
    drop(open(&dir));
    let db = dir.path().join(FILE_NAME);
    {
        let raw = rusqlite::Connection::open(&db).unwrap();
        raw.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    match Places::open(dir.path()) {
        Err(Error::TooNew { found, known }) => {
            assert_eq!((found, known), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        }
        other => panic!("expected TooNew, got {other:?}"),
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert!(damaged_copies(dir.path()).is_empty());
}

#[test]
fn damage_inside_a_valid_header_is_caught_by_the_check_a_marker_asks_for() {
    let dir = profile();
    {
        let p = open(&dir);
        for i in 0..2000 {
            p.record_visit(
                "c",
                &format!("https://filler.example/{i}/{}", "x".repeat(100)),
                false,
                now_ms(),
            );
        }
        p.flush().unwrap();
    }
    let db = dir.path().join(FILE_NAME);
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(bytes.len() > 64 * 4096, "{}", bytes.len());
    // Keep page 1 (header and schema), scribble over b-tree pages further in.
    for b in &mut bytes[8 * 4096..40 * 4096] {
        *b = 0x5a;
    }
    std::fs::write(&db, &bytes).unwrap();
    // What a running writer or reader leaves when SQLite reports SQLITE_CORRUPT.
    std::fs::write(dir.path().join(format!("{FILE_NAME}.suspect")), b"").unwrap();

    let p = open(&dir);
    let rec = p.recovery().expect("quick_check found the damage");
    assert_eq!(std::fs::read(&rec.moved_to).unwrap(), bytes);
    assert!(!dir.path().join(format!("{FILE_NAME}.suspect")).exists());
    assert!(p.search("", None, 10, 0).unwrap().is_empty());
}

#[test]
fn a_marker_on_a_healthy_database_costs_a_check_and_nothing_else() {
    let dir = profile();
    {
        let p = open(&dir);
        p.record_visit("c", "https://fine.example/", false, now_ms());
    }
    std::fs::write(dir.path().join(format!("{FILE_NAME}.suspect")), b"").unwrap();
    let p = open(&dir);
    assert!(p.recovery().is_none());
    assert_eq!(p.search("", None, 10, 0).unwrap().len(), 1);
    assert!(!dir.path().join(format!("{FILE_NAME}.suspect")).exists());
}

#[test]
fn a_missing_profile_directory_is_an_error_not_a_panic() {
    let dir = profile();
    let missing = dir.path().join("nope");
    assert!(matches!(Places::open(&missing), Err(Error::Io { .. })));
}
