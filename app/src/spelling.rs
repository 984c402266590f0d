//! Spelling dictionaries. Chromium checks spelling only with its own `.bdic` dictionaries in
//! `<profile>/Dictionaries`, and fetches a missing one from Google; this browser makes them
//! from the system's hunspell dictionaries instead (`aperture_spell`), so spellcheck works
//! offline and asks nobody. Languages without a dictionary on this machine are left out of
//! the spellcheck list, which is what keeps Chromium from downloading one.

use std::path::{Path, PathBuf};

/// Where hunspell dictionaries are installed: hunspell's own `DICPATH` when set (colon
/// separated), else the user's own, Debian's `hunspell-*` packages and older `myspell-*` ones.
pub fn source_dirs() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("DICPATH").filter(|p| !p.is_empty()) {
        return std::env::split_paths(&p).collect();
    }
    let mut dirs = Vec::new();
    if let Some(d) = aperture_common::xdg::data_home() {
        dirs.push(d.join("hunspell"));
    }
    for d in [
        "/usr/share/hunspell",
        "/usr/share/myspell/dicts",
        "/usr/share/myspell",
    ] {
        dirs.push(PathBuf::from(d));
    }
    dirs
}

/// The languages to check: the user's own (from `LANGUAGE`/`LC_ALL`/`LC_MESSAGES`/`LANG`,
/// `de_DE.UTF-8` → `de-DE`), then American English, as Chromium's own default.
pub fn wanted(env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for var in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
        let Some(v) = env(var).filter(|v| !v.is_empty()) else {
            continue;
        };
        for item in v.split(':') {
            let code = item.split(['.', '@']).next().unwrap_or("").replace('_', "-");
            if code.len() >= 2 && code != "C" && code != "POSIX" && !out.contains(&code) {
                out.push(code);
            }
        }
        break;
    }
    if !out.iter().any(|l| l == "en-US") {
        out.push("en-US".into());
    }
    out
}

/// Makes sure `<root>/Dictionaries` holds a `.bdic` for each of `languages` that this machine
/// has a hunspell dictionary for (converting it the first time, and again when the system's
/// copy is newer), and returns those languages. A failure leaves that language out, said on
/// stderr; the browser starts either way.
pub fn install(root: &Path, languages: &[String], sources: &[PathBuf]) -> Vec<String> {
    let dir = root.join("Dictionaries");
    let mut ready = Vec::new();
    for lang in languages {
        let Some(file) = aperture_spell::bdic_file_name(lang) else {
            continue;
        };
        let base = aperture_spell::hunspell_name(lang);
        let src = sources.iter().find_map(|d| {
            let (aff, dic) = (d.join(format!("{base}.aff")), d.join(format!("{base}.dic")));
            (aff.is_file() && dic.is_file()).then_some((aff, dic))
        });
        let dest = dir.join(&file);
        let Some((aff, dic)) = src else {
            if dest.is_file() {
                ready.push(lang.clone());
            }
            continue;
        };
        let modified = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
        let fresh = match (modified(&dest), modified(&dic), modified(&aff)) {
            (Some(d), Some(a), Some(b)) => d >= a && d >= b,
            _ => false,
        };
        if fresh {
            ready.push(lang.clone());
            continue;
        }
        match build(&aff, &dic, &dir, &dest) {
            Ok(()) => {
                tracing::info!(language = %lang, from = %dic.display(), "spelling dictionary made");
                ready.push(lang.clone());
            }
            Err(e) => eprintln!(
                "aperture: no spellcheck in {lang}: could not convert {}: {e}",
                dic.display()
            ),
        }
    }
    if ready.is_empty() {
        eprintln!(
            "aperture: spellcheck is off: no hunspell dictionary for {} on this machine (install hunspell-en-us or your language's hunspell package)",
            languages.join(", ")
        );
    }
    ready
}

fn build(aff: &Path, dic: &Path, dir: &Path, dest: &Path) -> Result<(), String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("reading {}: {e}", p.display()));
    let (aff, dic) = (read(aff)?, read(dic)?);
    // The files are the system's, not ours: a converter bug on one must cost that language,
    // never the browser's start.
    let bytes = std::panic::catch_unwind(|| aperture_spell::convert(&aff, &dic))
        .map_err(|_| "the converter failed on this dictionary (a bug; please report it)".to_string())?
        .map_err(|e| e.to_string())?;
    aperture_common::fs::create_private_dir_all(dir)
        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
    aperture_common::fs::write_atomic(dest, &bytes).map_err(|e| format!("writing {}: {e}", dest.display()))
}

/// The languages the human chose in the settings view, else the automatic choice
/// ([`wanted`]), made ready with [`install`] from this machine's dictionaries.
pub fn install_for_user(root: &Path, chosen: &[String]) -> Vec<String> {
    let langs = if chosen.is_empty() {
        wanted(&|k| std::env::var(k).ok())
    } else {
        chosen.to_vec()
    };
    install(root, &langs, &source_dirs())
}

/// The spellcheck languages this machine has a hunspell dictionary for (`de-DE`, `en-US`…),
/// sorted: what the settings view offers.
pub fn available(sources: &[PathBuf]) -> Vec<String> {
    let mut out: Vec<String> = sources
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".dic")?;
            let lang = stem.replace('_', "-");
            let aff = e.path().with_extension("aff");
            (aperture_spell::bdic_file_name(&lang).is_some()
                && aperture_spell::hunspell_name(&lang) == stem
                && aff.is_file())
            .then_some(lang)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    /// A dictionary is offered when Chromium has a name for its language and both its files
    /// are there.
    #[test]
    fn the_languages_offered_are_those_with_both_files() {
        let t = tempfile::tempdir().unwrap();
        for f in [
            "en_US.aff",
            "en_US.dic",
            "de_DE.aff",
            "de_DE.dic",
            "fr_FR.dic",
            "xx_YY.aff",
            "xx_YY.dic",
        ] {
            std::fs::write(t.path().join(f), b"").unwrap();
        }
        let other = t.path().join("more");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("en_US.aff"), b"").unwrap();
        std::fs::write(other.join("en_US.dic"), b"").unwrap();
        assert_eq!(available(&[t.path().to_path_buf(), other]), ["de-DE", "en-US"]);
    }

    #[test]
    fn the_users_language_comes_first_and_american_english_is_always_there() {
        assert_eq!(wanted(&env(&[("LANG", "de_DE.UTF-8")])), ["de-DE", "en-US"]);
        assert_eq!(
            wanted(&env(&[("LANGUAGE", "fr_FR:en_GB"), ("LANG", "de_DE.UTF-8")])),
            ["fr-FR", "en-GB", "en-US"]
        );
        assert_eq!(wanted(&env(&[("LANG", "C.UTF-8")])), ["en-US"]);
        assert_eq!(wanted(&env(&[])), ["en-US"]);
        assert_eq!(wanted(&env(&[("LANG", "en_US.UTF-8")])), ["en-US"]);
    }

    /// A language with no source and no dictionary is left out; one whose source is there is
    /// converted once into a private file, and kept while it is newer than its source.
    #[test]
    fn dictionaries_are_made_from_hunspell_sources_once() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spell/tests/fixtures");
        std::fs::copy(fixtures.join("tiny.aff"), src.join("en_US.aff")).unwrap();
        std::fs::copy(fixtures.join("tiny.dic"), src.join("en_US.dic")).unwrap();
        let root = t.path().join("profile");
        let langs = ["de-DE".to_string(), "en-US".to_string()];
        assert_eq!(install(&root, &langs, std::slice::from_ref(&src)), ["en-US"]);
        let made = root.join("Dictionaries/en-US-10-1.bdic");
        assert_eq!(
            std::fs::read(&made).unwrap(),
            std::fs::read(fixtures.join("tiny.bdic")).unwrap()
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(made.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        // Kept as it is while fresh: a marker written into it survives a second start.
        std::fs::write(&made, b"kept").unwrap();
        assert_eq!(install(&root, &langs, &[src]), ["en-US"]);
        assert_eq!(std::fs::read(&made).unwrap(), b"kept");
        // With the source gone, the dictionary already made still counts.
        assert_eq!(install(&root, &langs, &[]), ["en-US"]);
        assert!(install(&t.path().join("other"), &langs, &[]).is_empty());
    }
}

/// Writes the spelling languages into the Chromium profile at `profile_dir` (`Preferences`)
/// before Chromium opens it. Chromium starts its spellchecker, and fetches any missing
/// dictionary from Google, as the profile loads: before `SetPreference` can reach the new
/// context. Only the two spelling keys change; a file Chromium could not read either is left
/// for Chromium (which starts such a profile afresh).
pub fn seed_preferences(profile_dir: &Path, spelling: &[String], on: bool) -> Result<(), String> {
    let path = profile_dir.join("Preferences");
    let mut prefs: serde_json::Value = match std::fs::read(&path) {
        Ok(b) => match serde_json::from_slice(&b) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            _ => {
                return Err(format!(
                    "{} is not a preferences file; left as it is",
                    path.display()
                ));
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    let obj = prefs.as_object_mut().expect("an object");
    let section = |obj: &mut serde_json::Map<String, serde_json::Value>, k: &str| {
        let v = obj.entry(k).or_insert_with(|| serde_json::json!({}));
        if !v.is_object() {
            *v = serde_json::json!({});
        }
        v.as_object_mut().expect("an object").clone()
    };
    let mut spell = section(obj, "spellcheck");
    spell.insert("dictionaries".into(), serde_json::json!(spelling));
    // The old single-language key defaults to the browser's locale, and Chromium moves a
    // non-empty one into the list at start: `[]` would become `["en-US"]` and be fetched.
    spell.insert("dictionary".into(), serde_json::json!(""));
    obj.insert("spellcheck".into(), spell.into());
    let mut browser = section(obj, "browser");
    browser.insert(
        "enable_spellchecking".into(),
        serde_json::json!(on && !spelling.is_empty()),
    );
    obj.insert("browser".into(), browser.into());
    aperture_common::fs::create_private_dir_all(profile_dir)
        .map_err(|e| format!("creating {}: {e}", profile_dir.display()))?;
    let bytes = serde_json::to_vec(&prefs).expect("JSON");
    aperture_common::fs::write_atomic(&path, &bytes).map_err(|e| format!("writing {}: {e}", path.display()))
}

#[cfg(test)]
mod seed_tests {
    use super::*;

    /// The spelling keys are set and everything else Chromium keeps is kept; a file that is
    /// not JSON is left alone.
    #[test]
    fn seeding_sets_the_spelling_keys_and_keeps_the_rest() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("default");
        seed_preferences(&dir, &[], true).unwrap();
        let read = || -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(dir.join("Preferences")).unwrap()).unwrap()
        };
        assert_eq!(read()["spellcheck"]["dictionaries"], serde_json::json!([]));
        assert_eq!(read()["spellcheck"]["dictionary"], "");
        assert_eq!(read()["browser"]["enable_spellchecking"], false);
        std::fs::write(
            dir.join("Preferences"),
            r#"{"browser":{"window_placement":{"x":3}},"spellcheck":{"use_spelling_service":false},"zoom":1}"#,
        )
        .unwrap();
        seed_preferences(&dir, &["en-US".to_string()], true).unwrap();
        let v = read();
        assert_eq!(v["spellcheck"]["dictionaries"], serde_json::json!(["en-US"]));
        assert_eq!(v["spellcheck"]["use_spelling_service"], false);
        assert_eq!(v["browser"]["enable_spellchecking"], true);
        assert_eq!(v["browser"]["window_placement"]["x"], 3);
        assert_eq!(v["zoom"], 1);
        std::fs::write(dir.join("Preferences"), b"{not json").unwrap();
        assert!(seed_preferences(&dir, &[], true).is_err());
        assert_eq!(std::fs::read(dir.join("Preferences")).unwrap(), b"{not json");
    }
}
