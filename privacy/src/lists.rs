//! Filter-list provisioning: real EasyList + EasyPrivacy from a pinned Debian package, or files
//! the user supplies.
//!
//! The project may only reach package registries, and the one that ships the raw ABP text is
//! Debian: `webext-ublock-origin-chromium` bundles uBlock Origin's `assets/thirdparties/easylist/`
//! snapshot of `easylist.txt` and `easyprivacy.txt`. We pin the package version and, more
//! importantly, the SHA-256 of each list file, so every machine compiles byte-identical rules and
//! a swapped mirror cannot slip different rules in.
//!
//! Provisioning order (first hit wins, every hit is hash-checked):
//! 1. the content-addressed copy already in the cache (`$XDG_CACHE_HOME/aperture/filter-lists`);
//! 2. the files of an installed package (`apt-get install webext-ublock-origin-chromium`);
//! 3. a `.deb` the caller hands over ([`ProvisionOptions::deb_file`]) or one apt already cached;
//! 4. `apt-get download` of the pinned version (after one `apt-get update` if allowed).
//!
//! Users who want fresher rules point [`ListSet::from_files`] at their own downloads; those are
//! hashed too, so the compiled-engine cache still keys on exact content.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use aperture_common::fs::write_atomic as atomic_write;
use aperture_common::xdg;

use crate::fsutil::sha256_hex;

/// A Debian package pinned by version and by the hash of the `.deb` itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedPackage {
    /// Debian binary package name.
    pub name: &'static str,
    /// Exact Debian version string (`apt-get download NAME=VERSION`).
    pub version: &'static str,
    /// The Debian suite that carries this version; informational, for error messages.
    pub suite: &'static str,
    /// SHA-256 of the `.deb` as published in the suite's `Packages` index.
    pub deb_sha256: &'static str,
    /// The list files inside the package.
    pub lists: &'static [PinnedList],
}

/// One list file inside a [`PinnedPackage`], pinned by content hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedList {
    /// Human name, as the list's own `! Title:` header says.
    pub name: &'static str,
    /// Path inside the package's filesystem tree, without the leading `/`.
    pub path_in_package: &'static str,
    /// SHA-256 of the file's bytes.
    pub sha256: &'static str,
    /// Size in bytes; lets us report a truncated download before hashing.
    pub size: u64,
}

/// The pinned source of EasyList and EasyPrivacy.
///
/// Debian 12 "bookworm" ships uBlock Origin 1.67.0 with the lists snapshotted at its build time.
/// Bump all three hashes together when moving to a newer package; [`ListSet::from_files`] is the
/// route for users who want newer rules without a code change.
pub const PINNED_PACKAGE: PinnedPackage = PinnedPackage {
    name: "webext-ublock-origin-chromium",
    version: "1.67.0+dfsg-1~deb12u1",
    suite: "bookworm",
    deb_sha256: "7c43dd25f680613f2a7e83bc643e42eec624a8f47a3822518123e48e87a143f4",
    lists: &[
        PinnedList {
            name: "EasyList",
            path_in_package: "usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt",
            sha256: "c639747681d5a0dc957f940e1f13158d04ca83bcb985cdad9679a03fa50c8a07",
            size: 1_958_282,
        },
        PinnedList {
            name: "EasyPrivacy",
            path_in_package: "usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easyprivacy.txt",
            sha256: "9c369a03b8952c56726da45e5c2328e1a6c597357ccef05ed66c4c2c9796ae73",
            size: 1_440_879,
        },
    ],
};

/// Why list provisioning or loading failed.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// Neither `XDG_CACHE_HOME` nor `HOME` is set and no cache dir was given.
    #[error("cannot find a cache directory: neither XDG_CACHE_HOME nor HOME is set")]
    NoCacheDir,
    /// A filesystem operation failed.
    #[error("{op} {path}: {source}")]
    Io {
        /// What we were doing ("read", "write", ...).
        op: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A file's content does not match its pinned SHA-256.
    #[error("{what} at {path} has sha256 {actual}, expected {expected}")]
    HashMismatch {
        /// What the file is ("EasyList", "the .deb", ...).
        what: String,
        /// Where it was read from.
        path: PathBuf,
        /// The pinned hash.
        expected: String,
        /// The hash of what we found.
        actual: String,
    },
    /// A list file changed on disk after the [`ListSet`] hashed it, so the cache key is stale.
    #[error("{path} changed after it was hashed (now sha256 {actual}, was {expected}); rebuild the ListSet")]
    ListChanged {
        /// The list file.
        path: PathBuf,
        /// The hash recorded when the set was made.
        expected: String,
        /// The hash now.
        actual: String,
    },
    /// A helper program could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// Program name.
        program: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A helper program ran and failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    CommandFailed {
        /// The command line, for the human to re-run.
        command: String,
        /// Exit status.
        status: String,
        /// Its stderr, trimmed.
        stderr: String,
    },
    /// The pinned package version is not downloadable from the configured apt sources.
    #[error(
        "cannot download {package}={version} (Debian {suite}) with apt: {detail}. \
         Run `apt-get update` (as root), or supply list files with --filter-list"
    )]
    PinnedVersionUnavailable {
        /// Package name.
        package: &'static str,
        /// Pinned version.
        version: &'static str,
        /// Suite that carries it.
        suite: &'static str,
        /// What apt said.
        detail: String,
    },
    /// A list set with no lists would build an engine that blocks nothing, silently.
    #[error("no filter lists given")]
    Empty,
}

fn io_err(op: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ListError {
    let path = path.to_path_buf();
    move |source| ListError::Io { op, path, source }
}

/// A filter list on disk with the SHA-256 it had when it was registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterList {
    /// Display name (the list's `! Title:` header, else the file name).
    pub name: String,
    /// Where the text lives.
    pub path: PathBuf,
    /// SHA-256 of the file when this value was made; the engine cache is keyed on it.
    pub sha256: String,
}

impl FilterList {
    /// Registers a user-supplied list file, hashing its current content.
    pub fn from_file(path: impl Into<PathBuf>) -> Result<Self, ListError> {
        let path = path.into();
        let bytes = fs::read(&path).map_err(io_err("read", &path))?;
        let name = list_title(&bytes).unwrap_or_else(|| {
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        Ok(Self {
            name,
            sha256: sha256_hex(&bytes),
            path,
        })
    }

    /// Reads the list text, refusing it if it no longer matches the registered hash.
    ///
    /// Re-hashing costs a few milliseconds and only happens on an engine-cache miss; it keeps a
    /// list edited in place from being compiled under the old content's cache key.
    pub fn read_text(&self) -> Result<String, ListError> {
        let bytes = fs::read(&self.path).map_err(io_err("read", &self.path))?;
        let actual = sha256_hex(&bytes);
        if actual != self.sha256 {
            return Err(ListError::ListChanged {
                path: self.path.clone(),
                expected: self.sha256.clone(),
                actual,
            });
        }
        // Filter lists are ASCII in practice; a stray invalid byte should cost one rule, not
        // the whole list.
        Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
}

fn list_title(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(4096)];
    String::from_utf8_lossy(head).lines().take(30).find_map(|l| {
        l.strip_prefix("! Title:")
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    })
}

/// An ordered set of filter lists; the input to [`crate::Blocker::load_or_build`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSet {
    lists: Vec<FilterList>,
}

/// Knobs for [`ListSet::provision_pinned`].
#[derive(Debug, Clone, Default)]
pub struct ProvisionOptions {
    /// Where verified lists are kept; default `$XDG_CACHE_HOME/aperture/filter-lists`.
    pub cache_dir: Option<PathBuf>,
    /// A local copy of the pinned `.deb` (for offline CI artefacts); hash-checked like a download.
    pub deb_file: Option<PathBuf>,
    /// Run `apt-get update` once if the first download attempt fails. Needs root; off by default
    /// because refreshing the machine's package index is the owner's call, not a library's.
    pub allow_apt_update: bool,
    /// Skip the installed-package and apt-archive lookups (tests use this to force a download).
    pub skip_system_copies: bool,
}

impl ListSet {
    /// A set from already-registered lists. Order matters only for display.
    pub fn new(lists: Vec<FilterList>) -> Result<Self, ListError> {
        if lists.is_empty() {
            return Err(ListError::Empty);
        }
        Ok(Self { lists })
    }

    /// A set from user-supplied list files (e.g. newer EasyList downloads).
    pub fn from_files<P: AsRef<Path>>(paths: &[P]) -> Result<Self, ListError> {
        Self::new(
            paths
                .iter()
                .map(|p| FilterList::from_file(p.as_ref()))
                .collect::<Result<_, _>>()?,
        )
    }

    /// The lists in this set.
    pub fn lists(&self) -> &[FilterList] {
        &self.lists
    }

    /// Stable identity of the set's content, used to key the compiled-engine cache.
    pub fn content_key(&self) -> String {
        let mut joined = String::new();
        for l in &self.lists {
            joined.push_str(&l.sha256);
            joined.push('\n');
        }
        sha256_hex(joined.as_bytes())
    }

    /// Provides the pinned EasyList + EasyPrivacy, downloading the pinned Debian package if no
    /// verified copy is cached. Idempotent and cheap when the cache is warm (two file hashes).
    ///
    /// This is what xtask, CI and the app call; see the module docs for the lookup order.
    pub fn provision_pinned(opts: &ProvisionOptions) -> Result<Self, ListError> {
        let cache = match &opts.cache_dir {
            Some(d) => d.clone(),
            None => xdg::cache_dir()
                .ok_or(ListError::NoCacheDir)?
                .join("filter-lists"),
        };
        let pkg = &PINNED_PACKAGE;
        let targets: Vec<PathBuf> = pkg.lists.iter().map(|l| cached_path(&cache, l)).collect();

        if let Some(set) = verified_set(pkg, &targets) {
            return Ok(set);
        }

        if !opts.skip_system_copies {
            // An installed package puts the files at their package paths; copying them is
            // cheaper and works without network.
            let system: Vec<PathBuf> = pkg
                .lists
                .iter()
                .map(|l| Path::new("/").join(l.path_in_package))
                .collect();
            if pkg
                .lists
                .iter()
                .zip(&system)
                .all(|(l, p)| file_matches(p, l.sha256))
            {
                for (src, dst) in system.iter().zip(&targets) {
                    let bytes = fs::read(src).map_err(io_err("read", src))?;
                    atomic_write(dst, &bytes).map_err(io_err("write", dst))?;
                }
                if let Some(set) = verified_set(pkg, &targets) {
                    return Ok(set);
                }
            }
        }

        fs::create_dir_all(&cache).map_err(io_err("create", &cache))?;
        let work = cache.join(format!(
            ".provision-{}-{:08x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        fs::create_dir_all(&work).map_err(io_err("create", &work))?;
        let result = (|| {
            let deb = obtain_deb(pkg, opts, &work)?;
            extract_lists(pkg, &deb, &work, &targets)?;
            verified_set(pkg, &targets).ok_or_else(|| ListError::HashMismatch {
                // Only reachable if another process rewrote the cache between our write and
                // this read; report it rather than hand out unverified lists.
                what: "cached filter lists (changed while provisioning)".into(),
                path: cache.clone(),
                expected: pkg.lists.iter().map(|l| l.sha256).collect::<Vec<_>>().join(","),
                actual: "different content".into(),
            })
        })();
        let _ = fs::remove_dir_all(&work);
        result
    }
}

fn cached_path(cache: &Path, l: &PinnedList) -> PathBuf {
    let file = Path::new(l.path_in_package)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    // Content-addressed name: a newer pin never collides with an older cached copy.
    cache.join(format!(
        "{}-{}.txt",
        file.unwrap_or_else(|| "list".into()),
        &l.sha256[..16]
    ))
}

fn file_matches(path: &Path, sha256: &str) -> bool {
    fs::read(path).map(|b| sha256_hex(&b) == sha256).unwrap_or(false)
}

fn verified_set(pkg: &PinnedPackage, targets: &[PathBuf]) -> Option<ListSet> {
    let lists = pkg
        .lists
        .iter()
        .zip(targets)
        .map(|(l, p)| {
            file_matches(p, l.sha256).then(|| FilterList {
                name: l.name.to_string(),
                path: p.clone(),
                sha256: l.sha256.to_string(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(ListSet { lists })
}

fn deb_file_name(pkg: &PinnedPackage) -> String {
    // apt escapes an epoch colon as %3a; our pin has no epoch but keep the rule for bumps.
    format!("{}_{}_all.deb", pkg.name, pkg.version.replace(':', "%3a"))
}

fn check_deb(pkg: &PinnedPackage, path: &Path) -> Result<(), ListError> {
    let bytes = fs::read(path).map_err(io_err("read", path))?;
    let actual = sha256_hex(&bytes);
    if actual != pkg.deb_sha256 {
        return Err(ListError::HashMismatch {
            what: format!("{} {}", pkg.name, pkg.version),
            path: path.to_path_buf(),
            expected: pkg.deb_sha256.to_string(),
            actual,
        });
    }
    Ok(())
}

fn obtain_deb(pkg: &PinnedPackage, opts: &ProvisionOptions, work: &Path) -> Result<PathBuf, ListError> {
    if let Some(deb) = &opts.deb_file {
        check_deb(pkg, deb)?;
        return Ok(deb.clone());
    }
    if !opts.skip_system_copies {
        let archived = Path::new("/var/cache/apt/archives").join(deb_file_name(pkg));
        if check_deb(pkg, &archived).is_ok() {
            return Ok(archived);
        }
    }
    let spec = format!("{}={}", pkg.name, pkg.version);
    let mut attempt = apt_download(&spec, work);
    if attempt.is_err() && opts.allow_apt_update {
        run(
            Command::new("apt-get").args(["update", "-qq"]),
            "apt-get update -qq",
        )?;
        attempt = apt_download(&spec, work);
    }
    if let Err(e) = attempt {
        let detail = match e {
            ListError::CommandFailed { stderr, .. } => stderr,
            other => other.to_string(),
        };
        return Err(ListError::PinnedVersionUnavailable {
            package: pkg.name,
            version: pkg.version,
            suite: pkg.suite,
            detail,
        });
    }
    let deb = fs::read_dir(work)
        .map_err(io_err("list", work))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or_else(|| ListError::CommandFailed {
            command: format!("apt-get download {spec}"),
            status: "exit 0".into(),
            stderr: "no .deb file appeared".into(),
        })?;
    check_deb(pkg, &deb)?;
    Ok(deb)
}

fn apt_download(spec: &str, work: &Path) -> Result<(), ListError> {
    run(
        Command::new("apt-get")
            .args(["download", "-qq", spec])
            .current_dir(work),
        &format!("apt-get download {spec}"),
    )
}

fn extract_lists(pkg: &PinnedPackage, deb: &Path, work: &Path, targets: &[PathBuf]) -> Result<(), ListError> {
    let root = work.join("root");
    // dpkg-deb is on every Debian-family machine and knows every data.tar compression; doing
    // ar + xz by hand would add two crates for one call.
    run(
        Command::new("dpkg-deb").arg("-x").arg(deb).arg(&root),
        &format!("dpkg-deb -x {}", deb.display()),
    )?;
    for (l, dst) in pkg.lists.iter().zip(targets) {
        let src = root.join(l.path_in_package);
        let bytes = fs::read(&src).map_err(io_err("read", &src))?;
        let actual = sha256_hex(&bytes);
        if actual != l.sha256 {
            return Err(ListError::HashMismatch {
                what: l.name.to_string(),
                path: src,
                expected: l.sha256.to_string(),
                actual,
            });
        }
        atomic_write(dst, &bytes).map_err(io_err("write", dst))?;
    }
    Ok(())
}

fn run(cmd: &mut Command, shown: &str) -> Result<(), ListError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .output()
        .map_err(|source| ListError::Spawn { program, source })?;
    if out.status.success() {
        return Ok(());
    }
    Err(ListError::CommandFailed {
        command: shown.to_string(),
        status: out.status.to_string(),
        stderr: String::from_utf8_lossy(&out.stderr)
            .trim()
            .chars()
            .take(2000)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_lists_are_hashed_and_titled() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mine.txt");
        fs::write(&p, "[Adblock Plus 2.0]\n! Title: My List\n||tracker.example^\n").unwrap();
        let set = ListSet::from_files(&[&p]).unwrap();
        assert_eq!(set.lists()[0].name, "My List");
        assert_eq!(set.lists()[0].sha256.len(), 64);
        assert!(set.lists()[0].read_text().unwrap().contains("tracker.example"));
    }

    #[test]
    fn edited_list_is_refused_until_rehashed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.txt");
        fs::write(&p, "||a.example^\n").unwrap();
        let l = FilterList::from_file(&p).unwrap();
        fs::write(&p, "||b.example^\n").unwrap();
        assert!(matches!(l.read_text(), Err(ListError::ListChanged { .. })));
    }

    #[test]
    fn content_key_depends_on_content_only() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        fs::write(&a, "||x.example^\n").unwrap();
        fs::write(&b, "||x.example^\n").unwrap();
        let ka = ListSet::from_files(&[&a]).unwrap().content_key();
        let kb = ListSet::from_files(&[&b]).unwrap().content_key();
        assert_eq!(ka, kb);
        fs::write(&b, "||y.example^\n").unwrap();
        assert_ne!(ka, ListSet::from_files(&[&b]).unwrap().content_key());
    }

    #[test]
    fn empty_set_is_an_error() {
        assert!(matches!(ListSet::new(vec![]), Err(ListError::Empty)));
    }

    #[test]
    fn wrong_deb_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake.deb");
        fs::write(&fake, b"not a deb").unwrap();
        let err = ListSet::provision_pinned(&ProvisionOptions {
            cache_dir: Some(dir.path().join("cache")),
            deb_file: Some(fake),
            skip_system_copies: true,
            ..Default::default()
        })
        .unwrap_err();
        assert!(matches!(err, ListError::HashMismatch { .. }), "{err}");
    }
}
