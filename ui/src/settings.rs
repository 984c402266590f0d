//! Settings persisted as JSON in the XDG config dir
//! (`$XDG_CONFIG_HOME/aperture/settings.json`, else `~/.config/...`).
//!
//! Writes are atomic (temp file, fsync, rename, fsync of the directory; the
//! shared `aperture_common::fs::write_atomic`) so a crash mid-save leaves
//! either the old or the new file, never half of one.
//! A file that doesn't parse is moved aside to
//! `settings.json.corrupt-<UTC timestamp>` before defaults replace it, so a
//! bug or a hand-edit typo never silently destroys the human's choices.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::command::UiCommand;
use crate::dark::{ColorScheme, FilterOptions, SitePolicies};
use crate::omnibox::{DEFAULT_SEARCH_TEMPLATE, SearchEngine, check_template};

/// File name inside the config dir's `aperture/` folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// Everything persisted. Every field has a default so older or partial
/// files load; unknown fields are ignored so a newer file still loads in an
/// older build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Format version, for future migrations.
    pub version: u32,
    /// Main window geometry.
    pub window: WindowSettings,
    /// Container picked for the last new tab; Ctrl+T reuses it.
    pub last_container: Option<String>,
    /// Dark-mode settings.
    pub theme: ThemeSettings,
    /// Search URL template (`{}` or `%s` = query) from files written before
    /// [`Settings::search_engine`]; used only while that is unset. Choosing an engine clears it.
    pub search_template: Option<String>,
    /// Show the bookmarks bar under the toolbar (Ctrl+Shift+B).
    pub show_bookmarks_bar: bool,
    /// The omnibox's search engine; `None` is DuckDuckGo (see [`Settings::search_engine`]).
    pub search_engine: Option<SearchEngine>,
    /// Where downloads go; `None` is the XDG download directory. `--download-dir` wins over
    /// it for one run.
    pub download_dir: Option<PathBuf>,
    /// Tracker blocking, on or off, with per-site exceptions.
    pub blocking: BlockingSettings,
    /// Mark misspelled words in text fields (with the dictionaries this machine has).
    pub spellcheck: bool,
    /// The languages to check (`de-DE`, `en-US`); empty is the automatic choice (the user's
    /// language and American English).
    pub spell_languages: Vec<String>,
    /// Frames of other sites keep no cookies (Chromium's "Block third-party cookies").
    pub block_third_party_cookies: bool,
    /// Origins (`https://example.com`) whose pages may open pop-ups without a click. A
    /// `BTreeSet` so the file diffs stably.
    pub popup_origins: std::collections::BTreeSet<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            version: 1,
            window: WindowSettings::default(),
            last_container: None,
            theme: ThemeSettings::default(),
            search_template: None,
            show_bookmarks_bar: false,
            search_engine: None,
            download_dir: None,
            blocking: BlockingSettings::default(),
            spellcheck: true,
            spell_languages: Vec::new(),
            block_third_party_cookies: false,
            popup_origins: Default::default(),
        }
    }
}

impl Settings {
    /// Fold a chrome command into the settings it implies (site theme,
    /// filter knobs, last container, window size). Returns whether anything
    /// changed, i.e. whether to save. Window resizes arrive in bursts, so
    /// debounce saves (or save on exit) rather than saving on each one.
    pub fn apply(&mut self, command: &UiCommand) -> bool {
        let before = self.clone();
        match command {
            UiCommand::SetTheme { site, mode } => self.theme.policies.set(site, *mode),
            UiCommand::SetDarkFilter { options } => self.theme.filter = *options,
            UiCommand::NewTab { container } => self.last_container = Some(container.clone()),
            UiCommand::SetBookmarksBar(show) => self.show_bookmarks_bar = *show,
            // A template that can't search is refused here too, whatever sent it.
            UiCommand::SetSearchEngine(SearchEngine::Custom(t)) if check_template(t).is_err() => {}
            UiCommand::SetSearchEngine(engine) => {
                self.search_engine = Some(match engine {
                    SearchEngine::Custom(t) => SearchEngine::Custom(t.trim().to_string()),
                    e => e.clone(),
                });
                self.search_template = None;
            }
            UiCommand::SetDefaultContainer { container } => self.last_container = Some(container.clone()),
            UiCommand::SetDownloadDir(dir) if dir.is_absolute() => self.download_dir = Some(dir.clone()),
            UiCommand::SetColorScheme(prefer) => self.theme.prefer = *prefer,
            UiCommand::SetDarkDefault(mode) => self.theme.policies.default = *mode,
            UiCommand::SetBlocking(on) => self.blocking.enabled = *on,
            UiCommand::SetSpellcheck(on) => self.spellcheck = *on,
            UiCommand::SetThirdPartyCookies(block) => self.block_third_party_cookies = *block,
            UiCommand::SetSpellLanguages(langs) if !langs.is_empty() => self.spell_languages = langs.clone(),
            UiCommand::SetSiteBlocking { site, block } => self.blocking.set(site, *block),
            UiCommand::SetPopupsAllowed { origin, allow: true } if !origin.trim().is_empty() => {
                self.popup_origins.insert(origin.trim().to_string());
            }
            UiCommand::SetPopupsAllowed { origin, allow: false } => {
                self.popup_origins.remove(origin.trim());
            }
            UiCommand::WindowResized { width, height } if *width > 0 && *height > 0 => {
                self.window = WindowSettings {
                    width: *width,
                    height: *height,
                }
            }
            _ => {}
        }
        *self != before
    }

    /// The search engine the omnibox uses: the chosen one, else a template from an older
    /// file (as a custom engine, when it can search), else DuckDuckGo.
    pub fn search_engine(&self) -> SearchEngine {
        if let Some(e) = &self.search_engine {
            return e.clone();
        }
        match &self.search_template {
            Some(t) if check_template(t).is_ok() => SearchEngine::Custom(t.trim().to_string()),
            _ => SearchEngine::default(),
        }
    }

    /// The template of [`Settings::search_engine`], for [`crate::omnibox::resolve_input_with`].
    pub fn search_template(&self) -> String {
        match self.search_engine() {
            SearchEngine::Custom(t) if check_template(&t).is_ok() => t,
            SearchEngine::Custom(_) => DEFAULT_SEARCH_TEMPLATE.to_string(),
            e => e.template().to_string(),
        }
    }
}

/// Tracker blocking: the default for every site, and the sites the human set otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockingSettings {
    /// Block trackers on sites without an exception.
    pub enabled: bool,
    /// Per-site choices (`true` = block), keyed by [`crate::dark::site_key`]; only sites whose
    /// choice differs from [`BlockingSettings::enabled`] when it was made. A `BTreeMap` so the
    /// file diffs stably.
    pub sites: BTreeMap<String, bool>,
}

impl Default for BlockingSettings {
    fn default() -> Self {
        BlockingSettings {
            enabled: true,
            sites: BTreeMap::new(),
        }
    }
}

impl BlockingSettings {
    /// Whether requests made by pages of `site` are checked against the filter lists.
    pub fn blocks_on(&self, site: &str) -> bool {
        self.sites.get(site).copied().unwrap_or(self.enabled)
    }

    /// Records a site's choice. Choosing the default removes the exception, so the file only
    /// lists real exceptions.
    pub fn set(&mut self, site: &str, block: bool) {
        if block == self.enabled {
            self.sites.remove(site);
        } else {
            self.sites.insert(site.to_string(), block);
        }
    }
}

/// Main window geometry in logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowSettings {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl Default for WindowSettings {
    fn default() -> Self {
        WindowSettings {
            width: 1280,
            height: 800,
        }
    }
}

/// Dark-mode settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ThemeSettings {
    /// Per-site Auto/On/Off.
    pub policies: SitePolicies,
    /// Brightness/contrast for the filter layer.
    pub filter: FilterOptions,
    /// Override of the system light/dark preference; `None` follows the OS.
    pub prefer: Option<ColorScheme>,
}

/// Why settings couldn't be loaded or saved. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Neither `XDG_CONFIG_HOME` nor `HOME` gives a config directory.
    #[error("no config directory: set XDG_CONFIG_HOME or HOME")]
    NoConfigDir,
    /// The file exists but couldn't be read; it is left untouched.
    #[error("cannot read settings {path}: {source}")]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file didn't parse. It was moved to `backup` and defaults were
    /// written in its place.
    #[error("settings {path} were corrupt ({source}); kept the old file as {backup}, using defaults")]
    Corrupt {
        /// The settings file.
        path: PathBuf,
        /// Where the unreadable file now is.
        backup: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The file didn't parse and couldn't be moved aside either; nothing was
    /// overwritten.
    #[error("settings {path} are corrupt ({parse}) and could not be backed up to {backup}: {source}")]
    Backup {
        /// The settings file.
        path: PathBuf,
        /// The backup path attempted.
        backup: PathBuf,
        /// The parse error.
        parse: serde_json::Error,
        /// Why the backup failed.
        source: io::Error,
    },
    /// Saving failed; the previous file, if any, is intact (unless only the
    /// final directory fsync failed, after the new file was in place).
    #[error("cannot write settings {path}: {source}")]
    Write {
        /// The settings file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// Result of [`SettingsStore::load`].
#[derive(Debug)]
pub struct Loaded {
    /// Settings to use.
    pub settings: Settings,
    /// Set when the file was corrupt and got replaced (always
    /// [`SettingsError::Corrupt`]); the app should tell the human.
    pub recovered: Option<SettingsError>,
}

/// Reads and writes one settings file.
#[derive(Debug, Clone)]
pub struct SettingsStore {
    path: PathBuf,
}

impl SettingsStore {
    /// The store in the XDG config dir.
    pub fn xdg() -> Result<Self, SettingsError> {
        let dir = aperture_common::xdg::config_dir().ok_or(SettingsError::NoConfigDir)?;
        Ok(Self::at(dir.join(SETTINGS_FILE)))
    }

    /// A store at an explicit path (tests, `--profile`).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        SettingsStore { path: path.into() }
    }

    /// The settings file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Load settings. A missing file gives defaults; a corrupt one is moved
    /// aside, replaced by defaults and reported in [`Loaded::recovered`];
    /// an unreadable one is an error and is left alone.
    pub fn load(&self) -> Result<Loaded, SettingsError> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Loaded {
                    settings: Settings::default(),
                    recovered: None,
                });
            }
            Err(source) => {
                return Err(SettingsError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        match serde_json::from_slice::<Settings>(&bytes) {
            Ok(settings) => Ok(Loaded {
                settings,
                recovered: None,
            }),
            Err(parse) => {
                let backup = self.backup_path(SystemTime::now());
                // Rename rather than copy: atomic, and the original bytes are
                // kept exactly even if the disk is nearly full.
                if let Err(source) = fs::rename(&self.path, &backup) {
                    return Err(SettingsError::Backup {
                        path: self.path.clone(),
                        backup,
                        parse,
                        source,
                    });
                }
                let settings = Settings::default();
                // A failed rewrite is harmless: the file is gone, so the next
                // start gets defaults anyway.
                let _ = self.save(&settings);
                Ok(Loaded {
                    settings,
                    recovered: Some(SettingsError::Corrupt {
                        path: self.path.clone(),
                        backup,
                        source: parse,
                    }),
                })
            }
        }
    }

    /// Save atomically and privately through [`aperture_common::fs::write_atomic`]: a 0600
    /// temp file beside the target, fsync, rename over the target, fsync of the directory
    /// (created 0700 if missing).
    pub fn save(&self, settings: &Settings) -> Result<(), SettingsError> {
        let err = |source| SettingsError::Write {
            path: self.path.clone(),
            source,
        };
        let mut json = serde_json::to_vec_pretty(settings).map_err(|e| err(io::Error::other(e)))?;
        json.push(b'\n');
        aperture_common::fs::write_atomic(&self.path, &json).map_err(err)
    }

    /// `settings.json.corrupt-<timestamp>`, with `-N` appended if taken.
    fn backup_path(&self, now: SystemTime) -> PathBuf {
        let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let base = format!("{}.corrupt-{}", self.file_name(), utc_stamp(secs));
        let dir = self.path.parent().unwrap_or(Path::new(""));
        let mut candidate = dir.join(&base);
        let mut n = 1;
        while candidate.exists() {
            candidate = dir.join(format!("{base}-{n}"));
            n += 1;
        }
        candidate
    }

    fn file_name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(|| SETTINGS_FILE.to_string(), |n| n.to_string_lossy().into_owned())
    }
}

/// `YYYYMMDDTHHMMSSZ` for a Unix time, without a date crate.
fn utc_stamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil conversion (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dark::ThemeMode;

    fn store() -> (tempfile::TempDir, SettingsStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = SettingsStore::at(dir.path().join("aperture").join(SETTINGS_FILE));
        (dir, s)
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Spellcheck is on unless the human turned it off, also for files from before the
    /// setting existed.
    #[test]
    fn spellcheck_is_on_by_default_and_follows_the_switch() {
        let old: Settings = serde_json::from_str(r#"{"version":1,"show_bookmarks_bar":true}"#).unwrap();
        assert!(old.spellcheck && old.show_bookmarks_bar);
        let mut s = Settings::default();
        assert!(s.apply(&UiCommand::SetSpellcheck(false)));
        assert!(!s.spellcheck);
        assert!(
            !s.apply(&UiCommand::SetSpellcheck(false)),
            "no change, nothing to save"
        );
        assert!(old.spell_languages.is_empty(), "automatic");
        assert!(!s.apply(&UiCommand::SetSpellLanguages(Vec::new())), "never none");
        assert!(s.apply(&UiCommand::SetSpellLanguages(vec!["de-DE".into()])));
        let back: Settings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert!(!back.spellcheck);
        assert_eq!(back.spell_languages, ["de-DE"]);
        assert!(
            !back.block_third_party_cookies,
            "allowed unless the human blocks them"
        );
        assert!(s.apply(&UiCommand::SetThirdPartyCookies(true)));
        assert!(s.block_third_party_cookies);
        // Pop-ups: none allowed until the human allows an origin; taken back, none again.
        assert!(s.popup_origins.is_empty());
        let allow = |origin: &str, allow| UiCommand::SetPopupsAllowed {
            origin: origin.into(),
            allow,
        };
        assert!(s.apply(&allow("https://bank.example", true)));
        assert!(!s.apply(&allow("https://bank.example", true)), "once");
        assert!(!s.apply(&allow("  ", true)), "no origin, nothing to allow");
        let back: Settings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(
            back.popup_origins.iter().collect::<Vec<_>>(),
            ["https://bank.example"]
        );
        assert!(s.apply(&allow("https://bank.example", false)));
        assert!(s.popup_origins.is_empty());
    }

    #[test]
    fn missing_file_gives_defaults() {
        let (_d, s) = store();
        let l = s.load().unwrap();
        assert_eq!(l.settings, Settings::default());
        assert!(l.recovered.is_none());
        assert!(!s.path().exists(), "loading must not create the file");
    }

    #[test]
    fn round_trip_and_no_temp_left_behind() {
        let (_d, s) = store();
        let mut st = Settings {
            window: WindowSettings {
                width: 900,
                height: 700,
            },
            last_container: Some("work".into()),
            ..Settings::default()
        };
        st.theme.policies.set("example.com", ThemeMode::On);
        st.theme.filter.brightness = 0.85;
        s.save(&st).unwrap();
        st.theme.policies.set("dark.example", ThemeMode::Off);
        s.save(&st).unwrap();
        assert_eq!(s.load().unwrap().settings, st);
        assert_eq!(
            entries(s.path().parent().unwrap()),
            vec![SETTINGS_FILE.to_string()]
        );
    }

    #[test]
    fn partial_file_fills_defaults_and_ignores_unknown_fields() {
        let (_d, s) = store();
        fs::create_dir_all(s.path().parent().unwrap()).unwrap();
        fs::write(s.path(), r#"{"last_container":"bank","from_the_future":[1,2]}"#).unwrap();
        let l = s.load().unwrap();
        assert!(l.recovered.is_none());
        assert_eq!(l.settings.last_container.as_deref(), Some("bank"));
        assert_eq!(l.settings.window, WindowSettings::default());
    }

    #[test]
    fn corrupt_file_is_kept_reported_and_replaced() {
        let (_d, s) = store();
        let dir = s.path().parent().unwrap().to_path_buf();
        fs::create_dir_all(&dir).unwrap();
        fs::write(s.path(), b"{\"window\": {\"width\": tru").unwrap();
        let l = s.load().unwrap();
        assert_eq!(l.settings, Settings::default());
        let Some(SettingsError::Corrupt { path, backup, .. }) = &l.recovered else {
            panic!("expected Corrupt, got {:?}", l.recovered)
        };
        assert_eq!(path, s.path());
        assert_eq!(fs::read(backup).unwrap(), b"{\"window\": {\"width\": tru");
        let name = backup.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("settings.json.corrupt-"), "{name}");
        let msg = l.recovered.as_ref().unwrap().to_string();
        assert!(msg.contains(&s.path().display().to_string()), "{msg}");
        // Defaults were written in place, so the next load is clean.
        let again = s.load().unwrap();
        assert!(again.recovered.is_none());
        // A second corruption in the same second doesn't clobber the first copy.
        fs::write(s.path(), b"[").unwrap();
        let l2 = s.load().unwrap();
        let Some(SettingsError::Corrupt { backup: b2, .. }) = &l2.recovered else {
            panic!()
        };
        assert_ne!(b2, backup);
        assert_eq!(fs::read(backup).unwrap(), b"{\"window\": {\"width\": tru");
        assert_eq!(entries(&dir).len(), 3);
    }

    #[test]
    fn wrong_types_count_as_corrupt() {
        let (_d, s) = store();
        fs::create_dir_all(s.path().parent().unwrap()).unwrap();
        fs::write(
            s.path(),
            r#"{"theme":{"policies":{"sites":{"a.com":"sideways"}}}}"#,
        )
        .unwrap();
        assert!(matches!(
            s.load().unwrap().recovered,
            Some(SettingsError::Corrupt { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_file_is_an_error_and_untouched() {
        let (_d, s) = store();
        // A directory where the file should be: read fails with something
        // other than NotFound, even as root.
        fs::create_dir_all(s.path()).unwrap();
        let e = s.load().unwrap_err();
        assert!(matches!(e, SettingsError::Read { .. }), "{e:?}");
        assert!(s.path().is_dir());
    }

    #[test]
    fn failed_save_reports_path_and_keeps_old_file() {
        let (_d, s) = store();
        s.save(&Settings::default()).unwrap();
        let before = fs::read(s.path()).unwrap();
        // Make the rename target a non-empty directory so the rename fails.
        let blocked = SettingsStore::at(s.path().parent().unwrap());
        let e = blocked.save(&Settings::default()).unwrap_err();
        assert!(matches!(e, SettingsError::Write { .. }));
        assert_eq!(fs::read(s.path()).unwrap(), before);
        assert_eq!(
            entries(s.path().parent().unwrap()),
            vec![SETTINGS_FILE.to_string()]
        );
    }

    #[test]
    fn commands_update_settings() {
        let mut st = Settings::default();
        assert!(st.apply(&UiCommand::SetTheme {
            site: "example.com".into(),
            mode: ThemeMode::Off
        }));
        assert_eq!(st.theme.policies.mode_for_site("example.com"), ThemeMode::Off);
        assert!(st.apply(&UiCommand::NewTab {
            container: "work".into()
        }));
        assert_eq!(st.last_container.as_deref(), Some("work"));
        assert!(st.apply(&UiCommand::WindowResized {
            width: 1000,
            height: 640
        }));
        assert!(!st.apply(&UiCommand::WindowResized {
            width: 1000,
            height: 640
        }));
        assert!(
            !st.apply(&UiCommand::WindowResized { width: 0, height: 0 }),
            "minimised"
        );
        assert!(st.apply(&UiCommand::SetDarkFilter {
            options: FilterOptions {
                brightness: 0.8,
                contrast: 1.1
            }
        }));
        assert!(!st.apply(&UiCommand::OpenVault));
        assert!(
            !st.apply(&UiCommand::NewPrivateTab),
            "a private tab is not the last container"
        );
        assert_eq!(st.last_container.as_deref(), Some("work"));
    }

    #[test]
    fn bookmarks_bar_is_remembered() {
        let (_d, s) = store();
        let mut st = Settings::default();
        assert!(!st.show_bookmarks_bar);
        assert!(st.apply(&UiCommand::SetBookmarksBar(true)));
        assert!(!st.apply(&UiCommand::SetBookmarksBar(true)));
        s.save(&st).unwrap();
        assert!(s.load().unwrap().settings.show_bookmarks_bar);
        assert!(st.apply(&UiCommand::SetBookmarksBar(false)));
        assert!(!st.show_bookmarks_bar);
        // Files from before the field load with the bar off.
        fs::write(s.path(), r#"{"version":1}"#).unwrap();
        assert!(!s.load().unwrap().settings.show_bookmarks_bar);
    }

    #[test]
    fn settings_view_choices_are_remembered() {
        let (_d, s) = store();
        let mut st = Settings::default();
        let custom = SearchEngine::Custom("http://127.0.0.1:8080/find?q=%s".into());
        assert!(st.apply(&UiCommand::SetSearchEngine(custom.clone())));
        assert!(!st.apply(&UiCommand::SetSearchEngine(custom.clone())));
        assert!(st.apply(&UiCommand::SetDownloadDir("/data/dl".into())));
        assert!(st.apply(&UiCommand::SetColorScheme(Some(ColorScheme::Dark))));
        assert!(st.apply(&UiCommand::SetDarkDefault(ThemeMode::On)));
        assert!(st.apply(&UiCommand::SetSiteBlocking {
            site: "news.example".into(),
            block: false
        }));
        assert!(st.apply(&UiCommand::SetDefaultContainer {
            container: "c-work".into()
        }));
        s.save(&st).unwrap();
        let back = s.load().unwrap();
        assert!(back.recovered.is_none());
        let back = back.settings;
        assert_eq!(back, st);
        assert_eq!(back.search_engine(), custom);
        assert_eq!(back.search_template(), "http://127.0.0.1:8080/find?q=%s");
        assert_eq!(back.download_dir.as_deref(), Some(Path::new("/data/dl")));
        assert_eq!(back.theme.prefer, Some(ColorScheme::Dark));
        assert_eq!(back.theme.policies.default, ThemeMode::On);
        assert!(!back.blocking.blocks_on("news.example"));
        assert!(back.blocking.blocks_on("other.example"));
        assert_eq!(back.last_container.as_deref(), Some("c-work"));
        // Back to a named engine.
        assert!(st.apply(&UiCommand::SetSearchEngine(SearchEngine::Startpage)));
        s.save(&st).unwrap();
        let text = fs::read_to_string(s.path()).unwrap();
        assert!(text.contains(r#""search_engine": "startpage""#), "{text}");
        assert_eq!(
            s.load().unwrap().settings.search_engine(),
            SearchEngine::Startpage
        );
    }

    #[test]
    fn new_fields_missing_from_an_old_file_take_their_defaults() {
        let (_d, s) = store();
        fs::create_dir_all(s.path().parent().unwrap()).unwrap();
        // A file as the build before the settings view wrote it.
        fs::write(
            s.path(),
            r#"{"version":1,"window":{"width":900,"height":700},"last_container":"work",
               "theme":{"policies":{"default":"auto","sites":{"a.example":"on"}},
                        "filter":{"brightness":0.9,"contrast":1.0},"prefer":null},
               "search_template":null,"show_bookmarks_bar":true}"#,
        )
        .unwrap();
        let l = s.load().unwrap();
        assert!(l.recovered.is_none(), "{:?}", l.recovered);
        let st = l.settings;
        assert_eq!(st.window.width, 900);
        assert!(st.show_bookmarks_bar);
        assert_eq!(st.search_engine, None);
        assert_eq!(st.search_engine(), SearchEngine::DuckDuckGo);
        assert_eq!(st.search_template(), DEFAULT_SEARCH_TEMPLATE);
        assert_eq!(st.download_dir, None);
        assert_eq!(st.blocking, BlockingSettings::default());
        assert!(st.blocking.enabled && st.blocking.blocks_on("a.example"));
        // A hand-written template from before keeps searching there, as a custom engine.
        fs::write(s.path(), r#"{"search_template":"https://s.example/?q={}"}"#).unwrap();
        let st = s.load().unwrap().settings;
        assert_eq!(
            st.search_engine(),
            SearchEngine::Custom("https://s.example/?q={}".into())
        );
        assert_eq!(
            crate::omnibox::resolve_input_with("a b", &st.search_template()).unwrap(),
            "https://s.example/?q=a+b"
        );
        // One that cannot search is ignored, not fatal.
        fs::write(s.path(), r#"{"search_template":"not a url"}"#).unwrap();
        let l = s.load().unwrap();
        assert!(l.recovered.is_none());
        assert_eq!(l.settings.search_template(), DEFAULT_SEARCH_TEMPLATE);
    }

    #[test]
    fn a_corrupt_file_with_the_new_fields_is_kept_aside_too() {
        let (_d, s) = store();
        fs::create_dir_all(s.path().parent().unwrap()).unwrap();
        for bad in [
            r#"{"search_engine":"altavista"}"#,
            r#"{"blocking":{"sites":{"a.example":"sometimes"}}}"#,
            r#"{"download_dir":42}"#,
        ] {
            fs::write(s.path(), bad).unwrap();
            let l = s.load().unwrap();
            let Some(SettingsError::Corrupt { backup, .. }) = &l.recovered else {
                panic!("{bad} was not reported: {:?}", l.recovered)
            };
            assert_eq!(fs::read_to_string(backup).unwrap(), bad);
            assert_eq!(l.settings, Settings::default());
        }
    }

    #[test]
    fn invalid_choices_change_nothing() {
        let mut st = Settings::default();
        assert!(!st.apply(&UiCommand::SetSearchEngine(SearchEngine::Custom(
            "https://s.example/".into()
        ))));
        assert!(!st.apply(&UiCommand::SetDownloadDir("relative/dir".into())));
        assert_eq!(st, Settings::default());
    }

    #[test]
    fn blocking_exceptions_are_only_the_differences() {
        let mut b = BlockingSettings::default();
        b.set("a.example", false);
        b.set("b.example", true);
        assert_eq!(b.sites.len(), 1, "{b:?}");
        assert!(!b.blocks_on("a.example") && b.blocks_on("b.example"));
        b.set("a.example", true);
        assert!(b.sites.is_empty());
        // With blocking off, an exception turns it on for one site.
        b.enabled = false;
        b.set("shop.example", true);
        assert!(b.blocks_on("shop.example") && !b.blocks_on("c.example"));
    }

    #[test]
    fn timestamps() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        assert_eq!(utc_stamp(1_796_225_400), "20261202T153000Z");
    }
}
