//! The window's session: the human's tabs (URL, title, container, order, the front one) and
//! the last closed ones, in `<profile>/session.json`, written atomically whenever they change
//! and once more, marked clean, on quit. A session marked clean comes back at the next start;
//! one not marked clean was cut short (a crash, a kill), and the next start offers it instead
//! ("Restore N tabs from your last session?"): Restore brings the tabs back, Don't drops them
//! for good. Until the human answers, the offered tabs stay in the file ahead of the new
//! ones, so a second crash loses nothing and a clean quit keeps them to restore next time.
//! Restored tabs load lazily: only the front one loads at once, the others when first shown.
//! Headless browsers keep no session (the agent's tabs are its working state).

use crate::browser::Handle;
pub use crate::browser::history::Entry;
use crate::privacy::Containers;
use crate::tab::TabOptions;
use aperture_mcp::backend::TabId;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file's format. Fields added with a default (a tab's `back`/`forward`) do not change
/// it: an older Aperture ignores them and still restores the tabs, where a new version number
/// would make it move the whole file aside.
const VERSION: u32 = 1;
/// How many closed tabs Ctrl+Shift+T can bring back.
pub const CLOSED_KEEP: usize = 25;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SavedTab {
    /// The current entry's address.
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The container's name.
    pub container: String,
    /// The back/forward list around the current entry, in list order: `back` ends with the
    /// entry Back goes to, `forward` starts with the one Forward goes to (at most
    /// `history::KEEP` each). Files written before they existed load with none; they are left
    /// out when empty, so such a file reads the same to an older Aperture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub back: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forward: Vec<Entry>,
    /// Pinned in the strip; left out when not, like the lists above.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// For a closed tab, where it stood in the strip: reopened, it goes back there, as in
    /// Chrome. Left out for a session's tabs, which are restored in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
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

/// Whether a saved session is offered first rather than restored at start: it was cut short
/// and has a page worth offering (blank tabs alone are not).
pub fn offer_first(s: &Session) -> bool {
    !s.clean_exit && s.tabs.iter().any(|t| t.url != "about:blank")
}

/// The session to write while an offer is unanswered: the offered tabs, then the tabs of
/// this run (the front one is this run's).
pub fn with_offered(offered: &Session, mut now: Session) -> Session {
    let n = offered.tabs.len();
    let mut tabs = offered.tabs.clone();
    tabs.append(&mut now.tabs);
    now.tabs = tabs;
    now.active = now.active.map(|a| a + n).or(offered.active);
    now
}

/// Where restored tabs go: the window's page area (DIP width, height, scale).
pub type PageSize = (i32, i32, f32);

/// Recreates `tabs` in order on the runtime, each in its container (the default one if its
/// container was deleted since). Only the tab at `active` loads now and comes to the front;
/// the others wait with their address until first shown. `None`: every tab waits in the
/// background (the human named a page to open, which takes the front). Once all are made,
/// `replace` (the blank tab the window started with) is closed if it is still blank.
pub fn spawn_restore(
    rt: &tokio::runtime::Handle,
    h: Handle,
    containers: Containers,
    page: PageSize,
    tabs: Vec<SavedTab>,
    active: Option<usize>,
    replace: Option<TabId>,
) {
    rt.spawn(async move {
        // One after the other, so the strip keeps the saved order.
        for (i, t) in tabs.into_iter().enumerate() {
            let ctx = match containers.context(&t.container, false).await {
                Ok(c) => c,
                Err(_) => match containers.context(&containers.default_id(), false).await {
                    Ok(c) => c,
                    Err(e) => {
                        eprintln!("aperture: could not restore a tab: {e}");
                        continue;
                    }
                },
            };
            let (ctx, name) = ctx;
            let front = Some(i) == active;
            let opts = TabOptions {
                size: (page.0, page.1),
                scale: page.2,
                meta: crate::browser::state::TabMeta {
                    container: name,
                    ..Default::default()
                },
                context: Some(ctx),
            };
            let r = h
                .on_ui(move |a| {
                    let first = if front { t.url.as_str() } else { "about:blank" };
                    let id = a.create_browser(first, opts)?;
                    a.with(|st| {
                        if let Some(rec) = st.tabs.get_mut(&id) {
                            // Chromium starts with the current entry alone; Back and Forward
                            // reach the saved ones through `browser::history`.
                            let current = Entry {
                                url: t.url.clone(),
                                title: t.title.clone(),
                            };
                            rec.history = crate::browser::history::TabHistory::restored(
                                t.back.clone(),
                                current,
                                t.forward.clone(),
                            );
                            rec.can_back = !t.back.is_empty();
                            rec.can_forward = !t.forward.is_empty();
                            rec.pinned = t.pinned;
                        }
                        if let Some(at) = t.index {
                            st.order.retain(|o| *o != id);
                            st.order.insert(at.min(st.order.len()), id);
                        }
                        if !front && let Some(rec) = st.tabs.get_mut(&id) {
                            rec.pending_url = Some(t.url.clone());
                            rec.title = t.title.clone();
                        }
                        if front {
                            st.active = Some(id);
                        } else if st.active == Some(id) {
                            // The first tab made becomes the active one; a background tab
                            // shown before the front one arrives would load its page.
                            st.active = None;
                        }
                    });
                    Ok::<_, crate::tab::TabError>(id)
                })
                .await;
            if let Ok(Err(e)) | Err(e) = r.map(|r| r.map(|_| ())) {
                eprintln!("aperture: could not restore a tab: {e}");
            }
        }
        let _ = h
            .on_ui(move |a| {
                // The front tab could not be restored: show the first one rather than none
                // (when the human named a page, that page takes the front instead).
                if active.is_some() {
                    a.with(|st| {
                        if st.active.is_none() {
                            st.active = st.order.first().copied();
                        }
                    });
                }
                let blank = replace.and_then(|id| {
                    a.with(|st| {
                        let t = st.tabs.get(&id)?;
                        let blank = t.pending_url.is_none()
                            && !t.can_back
                            && (t.url.is_empty() || t.url == "about:blank");
                        (blank && st.order.len() > 1).then(|| t.host.clone())
                    })
                });
                if let Some(host) = blank {
                    host.close(true);
                }
            })
            .await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(u: &str) -> SavedTab {
        SavedTab {
            url: u.into(),
            title: "t".into(),
            container: "Personal".into(),
            ..Default::default()
        }
    }

    fn entry(u: &str) -> Entry {
        Entry {
            url: u.into(),
            title: format!("title of {u}"),
        }
    }

    #[test]
    fn a_file_from_before_back_forward_lists_loads_and_new_files_keep_the_lists() {
        // Written by an Aperture whose tabs had no back/forward list.
        let old = br#"{
  "version": 1,
  "clean_exit": true,
  "tabs": [
    { "url": "https://a.example/", "title": "A", "container": "Personal" },
    { "url": "https://b.example/", "container": "Work" }
  ],
  "active": 1,
  "closed": [ { "url": "https://c.example/", "title": "C", "container": "Personal" } ]
}"#;
        let d = tempfile::tempdir().unwrap();
        std::fs::write(path(d.path()), old).unwrap();
        let got = match load(d.path()) {
            Loaded::Found(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(got.tabs.len(), 2);
        assert_eq!(got.tabs[1].title, "");
        assert!(got.tabs.iter().all(|t| t.back.is_empty() && t.forward.is_empty()));
        assert_eq!(got.active, Some(1));
        assert_eq!(got.closed[0].url, "https://c.example/");

        // The lists round-trip, and the version stays the one older builds accept.
        let mut s = got.clone();
        s.tabs[0].back = vec![entry("https://a.example/1"), entry("https://a.example/2")];
        s.tabs[0].forward = vec![entry("https://a.example/4")];
        save(d.path(), &s).unwrap();
        match load(d.path()) {
            Loaded::Found(again) => assert_eq!(again.tabs, s.tabs),
            other => panic!("{other:?}"),
        }
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path(d.path())).unwrap()).unwrap();
        assert_eq!(v["version"], 1);
        assert_eq!(v["tabs"][0]["back"][1]["url"], "https://a.example/2");
        // A tab without a list writes none: the file reads as before.
        assert!(v["tabs"][1].get("back").is_none() && v["tabs"][1].get("forward").is_none());

        // What an older Aperture reads of the new file: its own fields, the lists ignored.
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct OldTab {
            url: String,
            #[serde(default)]
            title: String,
            container: String,
        }
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct OldSession {
            version: u32,
            clean_exit: bool,
            tabs: Vec<OldTab>,
            active: Option<usize>,
            #[serde(default)]
            closed: Vec<OldTab>,
        }
        let older: OldSession = serde_json::from_slice(&std::fs::read(path(d.path())).unwrap()).unwrap();
        assert_eq!(older.version, 1);
        assert_eq!(older.tabs[0].url, "https://a.example/");
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
    fn an_unclean_session_is_offered_and_kept_ahead_of_the_new_tabs_until_answered() {
        let crashed = Session {
            version: VERSION,
            clean_exit: false,
            tabs: vec![tab("https://a.example/"), tab("https://b.example/")],
            active: Some(1),
            closed: vec![],
        };
        assert!(offer_first(&crashed));
        assert!(!offer_first(&Session {
            clean_exit: true,
            ..crashed.clone()
        }));
        assert!(!offer_first(&Session {
            tabs: vec![],
            ..crashed.clone()
        }));
        assert!(!offer_first(&Session {
            tabs: vec![tab("about:blank")],
            ..crashed.clone()
        }));
        let now = Session {
            tabs: vec![tab("about:blank")],
            active: Some(0),
            closed: vec![tab("https://c.example/")],
            ..Default::default()
        };
        let w = with_offered(&crashed, now.clone());
        let urls: Vec<&str> = w.tabs.iter().map(|t| t.url.as_str()).collect();
        assert_eq!(urls, ["https://a.example/", "https://b.example/", "about:blank"]);
        assert_eq!(w.active, Some(2), "this run's front tab stays in front");
        assert_eq!(w.closed, now.closed);
        let w = with_offered(&crashed, Session { active: None, ..now });
        assert_eq!(w.active, Some(1), "with no tab of its own, the offered front one");
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
