//! The window's session: the human's tabs (URL, title, container, order, the front one) and
//! the last closed ones, in `<profile>/session.json`, written atomically whenever they change
//! and once more, marked clean, on quit. A session not marked clean was cut short (a crash, a
//! kill): the next start restores it all the same and says so.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const VERSION: u32 = 1;
/// How many closed tabs Ctrl+Shift+T can bring back.
pub const CLOSED_KEEP: usize = 25;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SavedTab {
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The container's name.
    pub container: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Session {
    pub version: u32,
    /// Written by a clean quit; false while the browser runs.
    pub clean_exit: bool,
    pub tabs: Vec<SavedTab>,
    /// Index into `tabs` of the tab in front.
    pub active: Option<usize>,
    /// Most recently closed last.
    #[serde(default)]
    pub closed: Vec<SavedTab>,
}

pub fn path(profile: &Path) -> PathBuf {
    profile.join("session.json")
}

/// What was found on disk.
#[derive(Debug)]
pub enum Loaded {
    None,
    Found(Session),
    /// The file could not be read as a session; it was moved to the path given.
    MovedAside(PathBuf, String),
}

/// Reads the session. A damaged file is moved aside (never deleted) and reported.
pub fn load(profile: &Path) -> Loaded {
    let p = path(profile);
    let bytes = match std::fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::None,
        Err(e) => return Loaded::MovedAside(p, format!("could not read it: {e}")),
    };
    match serde_json::from_slice::<Session>(&bytes) {
        Ok(s) if s.version == VERSION => Loaded::Found(s),
        Ok(s) => aside(&p, format!("it has version {}, not {VERSION}", s.version)),
        Err(e) => aside(&p, e.to_string()),
    }
}

fn aside(p: &Path, why: String) -> Loaded {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let to = p.with_extension(format!("json.damaged-{stamp}"));
    match std::fs::rename(p, &to) {
        Ok(()) => Loaded::MovedAside(to, why),
        Err(e) => Loaded::MovedAside(p.to_path_buf(), format!("{why}; moving it aside failed: {e}")),
    }
}

/// Marks the session on disk as ended cleanly (a SIGTERM or SIGINT: a requested shutdown).
/// Chromium's own signal handling may end the process before the window loop runs again, so
/// the signal handler does this itself; the tabs are those of the last (debounced) write.
pub fn mark_clean(profile: &Path) {
    if let Loaded::Found(mut s) = load(profile) {
        s.clean_exit = true;
        if let Err(e) = save(profile, &s) {
            tracing::warn!("could not mark the session clean: {e}");
        }
    }
}

/// Writes the session atomically (0600).
pub fn save(profile: &Path, s: &Session) -> std::io::Result<()> {
    let mut s = s.clone();
    s.version = VERSION;
    let bytes = serde_json::to_vec_pretty(&s).map_err(std::io::Error::other)?;
    aperture_common::fs::write_atomic(&path(profile), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(u: &str) -> SavedTab {
        SavedTab {
            url: u.into(),
            title: "t".into(),
            container: "Personal".into(),
        }
    }

    #[test]
    fn round_trip_and_private_file() {
        let d = tempfile::tempdir().unwrap();
        assert!(matches!(load(d.path()), Loaded::None));
        let s = Session {
            version: 0,
            clean_exit: true,
            tabs: vec![tab("https://a.example/"), tab("https://b.example/")],
            active: Some(1),
            closed: vec![tab("https://c.example/")],
        };
        save(d.path(), &s).unwrap();
        match load(d.path()) {
            Loaded::Found(got) => {
                assert_eq!(got.tabs, s.tabs);
                assert_eq!(got.active, Some(1));
                assert_eq!(got.closed, s.closed);
                assert_eq!(got.version, VERSION);
            }
            other => panic!("{other:?}"),
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path(d.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_damaged_file_is_moved_aside_not_lost() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(path(d.path()), b"{ not json").unwrap();
        match load(d.path()) {
            Loaded::MovedAside(to, why) => {
                assert!(!why.is_empty());
                assert_eq!(std::fs::read(&to).unwrap(), b"{ not json");
                assert!(!path(d.path()).exists());
            }
            other => panic!("{other:?}"),
        }
    }
}
