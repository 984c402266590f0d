#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;

use aperture_places::Places;

pub const DAY: i64 = 86_400_000;

/// A profile directory as the app makes it (0700).
pub fn profile() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

pub fn open(dir: &tempfile::TempDir) -> Places {
    Places::open(dir.path()).unwrap()
}

pub fn urls(s: &[aperture_places::Suggestion]) -> Vec<&str> {
    s.iter().map(|s| s.url.as_str()).collect()
}
