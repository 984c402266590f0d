//! Atomic, private file writes.
//!
//! Everything Aperture keeps on disk (settings, the vault, identity containers, `mcp.json` with
//! its live token, the block-list caches) is written through [`write_atomic`], so that:
//!
//! * a reader, or the next start after a crash or power loss, sees either the old file or the
//!   complete new one, never a torn mixture: the bytes go to a temp file in the same directory,
//!   which is fsync-ed, renamed over the target, and then the directory is fsync-ed so the
//!   rename itself is durable;
//! * the file is private from its first byte: the temp file is created `0600` (never chmod-ed
//!   after the fact, which would leave a window), and directories this module creates are
//!   `0700`. Directories that already exist keep their mode: tightening a directory the user
//!   made is not ours to do. The one deliberate exception is [`tighten_tree`], which the app
//!   runs on the profile directory it owns at start-up.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Part of every temp file name: `.<target name>.aperture-tmp-<unique>`. Lets
/// [`remove_stale_temps`] (and tests) recognise what a killed writer left behind.
pub const TEMP_MARK: &str = ".aperture-tmp-";

/// Replaces `path` with `bytes` atomically; the file is `0600`, missing parent directories are
/// created `0700`.
///
/// On an error before the rename, the old file (if any) is untouched and the temp file is
/// removed. An error from the final directory fsync means the new content is already in place
/// but may not survive a power loss.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    install(path, bytes, false)
}

/// Like [`write_atomic`] but fails with [`io::ErrorKind::AlreadyExists`] if `path` exists,
/// without a window in which a concurrently created file could be replaced (the temp file is
/// hard-linked into place, which, unlike rename, refuses an existing target).
pub fn create_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    install(path, bytes, true)
}

/// `create_dir_all`, with every directory it creates made `0700`. Existing ones are left as
/// they are.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }
    #[cfg(not(unix))]
    {
        fs::create_dir_all(dir)
    }
}

/// Removes the temp files that writers of `path` killed mid-write left beside it. Only safe
/// when the caller knows no other process is writing `path` at the moment (the vault calls it
/// at unlock, when it becomes the file's only writer).
pub fn remove_stale_temps(path: &Path) {
    let Some(name) = path.file_name() else { return };
    let prefix = format!(".{}{TEMP_MARK}", name.to_string_lossy());
    if let Ok(rd) = fs::read_dir(parent_dir(path)) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}

/// Takes group and other permissions off every directory and regular file under `root` (and
/// `root` itself), so a tree made before files were written private (a profile from an older
/// build, or files Chromium created under a permissive umask) ends up `0700`/`0600`. Returns how
/// many entries it changed.
///
/// Only group/other bits are removed: an owner-only mode (`0400`, `0500`) is private already and
/// is left alone. Symlinks inside the tree are neither followed nor changed (`chmod` would act
/// on their target, which may be outside the tree); `root` itself is followed, as it is the
/// directory the caller named. Sockets, FIFOs and devices are skipped. Entries that vanish
/// during the walk are skipped; any other error stops the walk and is returned with the path.
///
/// Not atomic against someone replacing an entry with a symlink between the check and the
/// `chmod`; only a writer inside the (by then `0700`) tree could do that.
pub fn tighten_tree(root: &Path) -> io::Result<usize> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let with_path = |p: &Path, e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", p.display()));
        let mut changed = 0;
        let mut stack = vec![(
            root.to_path_buf(),
            fs::metadata(root).map_err(|e| with_path(root, e))?,
        )];
        while let Some((path, meta)) = stack.pop() {
            let ft = meta.file_type();
            if !(ft.is_dir() || ft.is_file()) {
                continue;
            }
            let mode = meta.permissions().mode();
            if mode & 0o077 != 0 {
                match fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o700)) {
                    Ok(()) => changed += 1,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(with_path(&path, e)),
                }
            }
            if ft.is_dir() {
                let rd = match fs::read_dir(&path) {
                    Ok(rd) => rd,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(with_path(&path, e)),
                };
                for entry in rd {
                    let entry = entry.map_err(|e| with_path(&path, e))?;
                    let p = entry.path();
                    // symlink_metadata: a symlink is seen as a symlink, never as its target.
                    match fs::symlink_metadata(&p) {
                        Ok(m) => stack.push((p, m)),
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        Err(e) => return Err(with_path(&p, e)),
                    }
                }
            }
        }
        Ok(changed)
    }
    #[cfg(not(unix))]
    {
        // No POSIX modes; NTFS ACLs inherit from the user's profile directory.
        let _ = root;
        Ok(0)
    }
}

/// Removes the directory Chromium keeps its singleton socket in for the profile `profile`
/// (`/tmp/.org.chromium.Chromium.XXXXXX`, linked from `<profile>/SingletonSocket`). Chromium
/// removes it on a clean exit only, so an instance that was killed or crashed leaves it in the
/// temp dir until a reboot. Call it only while no instance runs on the profile. Only a
/// directory of that name, directly in a temp dir and owned by the profile's owner, is
/// touched, and only Chromium's two entries in it. The directory removed, if any.
#[cfg(unix)]
pub fn remove_chromium_singleton(profile: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let target = fs::read_link(profile.join("SingletonSocket")).ok()?;
    let dir = target.parent()?;
    let named = dir
        .file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|n| n.starts_with(".org.chromium.Chromium."));
    let in_tmp = dir
        .parent()
        .is_some_and(|p| p == std::env::temp_dir() || p == Path::new("/tmp"));
    let owner = |p: &Path| fs::symlink_metadata(p).map(|m| (m.is_dir(), m.uid())).ok();
    let mine = matches!((owner(dir), owner(profile)), (Some((true, a)), Some((_, b))) if a == b);
    if !(named && in_tmp && mine) {
        return None;
    }
    let _ = fs::remove_file(dir.join("SingletonSocket"));
    let _ = fs::remove_file(dir.join("SingletonCookie"));
    fs::remove_dir(dir).ok()?;
    Some(dir.to_path_buf())
}

fn install(path: &Path, bytes: &[u8], create_new: bool) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let dir = parent_dir(path);
    create_private_dir_all(&dir)?;
    let (tmp, mut f) = create_temp(&dir, name)?;
    let result = (|| {
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if create_new {
            link_new(&tmp, path)?;
        } else {
            fs::rename(&tmp, path)?;
        }
        sync_dir(&dir)
    })();
    // After a successful rename the temp name is gone; after a hard link it is a second name
    // for the new file and must go. A leftover would be harmless (never read) but untidy.
    if result.is_err() || create_new {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Puts `tmp` at `path` unless something is already there.
fn link_new(tmp: &Path, path: &Path) -> io::Result<()> {
    match fs::hard_link(tmp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        // Filesystems without hard links: check-then-rename, a narrower guarantee.
        Err(_) if fs::symlink_metadata(path).is_ok() => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", path.display()),
        )),
        Err(_) => fs::rename(tmp, path),
    }
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Creates a fresh `0600` temp file beside the target. `create_new` (O_EXCL) means a name that
/// is somehow taken (a leftover from a killed writer with a recycled pid) is skipped, never
/// opened, so two writers can never share a temp file.
fn create_temp(dir: &Path, name: &OsStr) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..16 {
        let tmp = dir.join(format!(
            ".{}{TEMP_MARK}{}",
            name.to_string_lossy(),
            unique_suffix()
        ));
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        match opts.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temp file name")))
}

/// Pid and a per-process counter make names unique among live writers; the randomly keyed hash
/// keeps a recycled pid from colliding with a dead writer's leftovers.
fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(n);
    format!("{:x}-{n:x}-{:016x}", std::process::id(), h.finish())
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    // Directory fsync is what makes the rename survive power loss on ext4/xfs.
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    // Windows has no directory handle fsync; NTFS journals the rename metadata itself.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn content_is_replaced_whole_and_no_temp_is_left() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f.json");
        write_atomic(&p, b"first version, much longer than the second").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        assert_eq!(names(d.path()), ["f.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn file_is_0600_even_over_a_world_readable_one() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("token");
        fs::write(&p, b"old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(mode(&p), 0o600);
        let q = d.path().join("fresh");
        create_atomic(&q, b"x").unwrap();
        assert_eq!(mode(&q), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn created_dirs_are_0700_and_existing_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        fs::set_permissions(d.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let p = d.path().join("a").join("b").join("f");
        write_atomic(&p, b"x").unwrap();
        assert_eq!(mode(&d.path().join("a")), 0o700);
        assert_eq!(mode(&d.path().join("a").join("b")), 0o700);
        assert_eq!(mode(d.path()), 0o755, "an existing dir is not ours to tighten");
    }

    #[test]
    fn failed_rename_keeps_the_target_and_removes_the_temp() {
        let d = tempfile::tempdir().unwrap();
        // A non-empty directory where the file should go: rename(2) refuses it, as root too.
        let target = d.path().join("settings.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside"), b"keep me").unwrap();
        assert!(write_atomic(&target, b"new").is_err());
        assert_eq!(fs::read(target.join("inside")).unwrap(), b"keep me");
        assert_eq!(names(d.path()), ["settings.json"]);
    }

    #[test]
    fn parent_that_is_a_file_fails_and_changes_nothing() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("plain");
        fs::write(&file, b"old content").unwrap();
        assert!(write_atomic(&file.join("child"), b"new").is_err());
        assert_eq!(fs::read(&file).unwrap(), b"old content");
        assert_eq!(names(d.path()), ["plain"]);
    }

    #[cfg(unix)]
    #[test]
    fn read_only_dir_fails_and_keeps_the_old_file() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        write_atomic(&p, b"old").unwrap();
        fs::set_permissions(d.path(), fs::Permissions::from_mode(0o500)).unwrap();
        // Root ignores directory permissions; then this case cannot be provoked here (the two
        // tests above cover the failure path without relying on permissions).
        let privileged = File::create(d.path().join("probe")).is_ok();
        let result = write_atomic(&p, b"new");
        fs::set_permissions(d.path(), fs::Permissions::from_mode(0o700)).unwrap();
        if privileged {
            eprintln!("skipped the read-only part: running with CAP_DAC_OVERRIDE");
            return;
        }
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(names(d.path()), ["f"]);
    }

    #[test]
    fn create_refuses_an_existing_file_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("vault.bin");
        create_atomic(&p, b"first").unwrap();
        let e = create_atomic(&p, b"second").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&p).unwrap(), b"first");
        assert_eq!(names(d.path()), ["vault.bin"]);
    }

    #[test]
    fn concurrent_writers_never_tear_the_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("shared");
        let bodies: Vec<Vec<u8>> = (0..8u8)
            .map(|i| vec![b'a' + i; 4096 * (i as usize + 1)])
            .collect();
        std::thread::scope(|s| {
            for b in &bodies {
                let p = &p;
                s.spawn(move || {
                    for _ in 0..20 {
                        write_atomic(p, b).unwrap();
                    }
                });
            }
        });
        let got = fs::read(&p).unwrap();
        assert!(bodies.contains(&got), "torn file of {} bytes", got.len());
        assert_eq!(names(d.path()), ["shared"]);
    }

    #[test]
    fn stale_temps_of_this_file_only_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("v.bin");
        write_atomic(&p, b"x").unwrap();
        fs::write(d.path().join(format!(".v.bin{TEMP_MARK}dead")), b"partial").unwrap();
        fs::write(d.path().join(format!(".other{TEMP_MARK}dead")), b"someone else's").unwrap();
        remove_stale_temps(&p);
        assert_eq!(
            names(d.path()),
            [format!(".other{TEMP_MARK}dead"), "v.bin".into()]
        );
    }

    #[cfg(unix)]
    #[test]
    fn tighten_tree_makes_a_loose_tree_private_without_following_symlinks() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("profile");
        let set = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
        fs::create_dir_all(root.join("Default").join("Cache")).unwrap();
        fs::write(root.join("vault.aperture"), b"v").unwrap();
        fs::write(root.join("Default").join("Cookies"), b"c").unwrap();
        fs::write(root.join("Default").join("Cache").join("data_0"), b"d").unwrap();
        fs::write(root.join("owner-only"), b"o").unwrap();
        set(&root, 0o755);
        set(&root.join("Default"), 0o775);
        set(&root.join("Default").join("Cache"), 0o711);
        set(&root.join("vault.aperture"), 0o644);
        set(&root.join("Default").join("Cookies"), 0o666);
        set(&root.join("Default").join("Cache").join("data_0"), 0o640);
        set(&root.join("owner-only"), 0o400);
        // A symlink out of the tree: its target must keep its mode.
        let outside = d.path().join("outside");
        fs::write(&outside, b"not ours").unwrap();
        set(&outside, 0o644);
        symlink(&outside, root.join("link")).unwrap();
        let outside_dir = d.path().join("outside-dir");
        fs::create_dir(&outside_dir).unwrap();
        fs::write(outside_dir.join("f"), b"x").unwrap();
        set(&outside_dir, 0o755);
        set(&outside_dir.join("f"), 0o644);
        symlink(&outside_dir, root.join("Default").join("dirlink")).unwrap();

        assert_eq!(tighten_tree(&root).unwrap(), 6);
        for dir in [
            root.clone(),
            root.join("Default"),
            root.join("Default").join("Cache"),
        ] {
            assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        }
        for f in ["vault.aperture", "Default/Cookies", "Default/Cache/data_0"] {
            assert_eq!(mode(&root.join(f)), 0o600, "{f}");
        }
        assert_eq!(
            mode(&root.join("owner-only")),
            0o400,
            "already private: left alone"
        );
        assert_eq!(
            mode(&outside),
            0o644,
            "symlink target outside the tree was changed"
        );
        assert_eq!(mode(&outside_dir), 0o755, "symlinked dir was changed");
        assert_eq!(mode(&outside_dir.join("f")), 0o644, "walk followed a dir symlink");
        // Idempotent: a second pass finds nothing to do.
        assert_eq!(tighten_tree(&root).unwrap(), 0);
        assert_eq!(
            tighten_tree(&d.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn a_path_without_a_file_name_is_refused() {
        assert_eq!(
            write_atomic(Path::new("/"), b"x").unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
    }
}

/// A page-suggested download name made safe to create in the download directory: no path
/// separators or `..`, no control, bidi or zero-width characters, no leading dot (hidden
/// files), at most 200 bytes (keeping the extension), never empty.
pub fn safe_file_name(suggested: &str) -> String {
    let cleaned: String = suggested
        .chars()
        .map(|c| match c {
            '/' | '\\' | '\0' => '_',
            c if c.is_control() => '_',
            '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{061C}' => '_',
            c => c,
        })
        .collect();
    let trimmed = cleaned
        .trim()
        .trim_start_matches('.')
        .trim_end_matches(['.', ' ']);
    let mut name = if trimmed.is_empty() {
        "download".to_string()
    } else {
        trimmed.to_string()
    };
    if name.len() > 200 {
        let ext = std::path::Path::new(&name)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .filter(|e| e.len() <= 16);
        let keep = 200 - ext.as_ref().map_or(0, |e| e.len() + 1);
        let mut cut = keep;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
        if let Some(e) = ext {
            name.push('.');
            name.push_str(&e);
        }
    }
    name
}

/// `dir/name`, or `dir/stem (N).ext` for the first N that names nothing yet (nor its
/// `.part` temporary). Never a path outside `dir`: `name` must come from [`safe_file_name`].
pub fn unique_path(dir: &Path, name: &str) -> std::path::PathBuf {
    let taken = |p: &Path| p.exists() || part_path(p).exists();
    let first = dir.join(name);
    if !taken(&first) {
        return first;
    }
    let p = Path::new(name);
    let (stem, ext) = match (p.file_stem(), p.extension()) {
        (Some(s), Some(e)) => (
            s.to_string_lossy().into_owned(),
            format!(".{}", e.to_string_lossy()),
        ),
        _ => (name.to_string(), String::new()),
    };
    (1..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|c| !taken(c))
        .expect("some number is free")
}

/// The temporary name a download is written under until it is complete.
pub fn part_path(final_path: &Path) -> std::path::PathBuf {
    let mut s = final_path.as_os_str().to_owned();
    s.push(".part");
    s.into()
}

/// Moves a finished download from its temporary name to its final one without ever
/// replacing a file: a hard link fails if the name is taken (then the next free name is
/// used), and the temporary is removed afterwards. Returns the final path.
pub fn publish_download(part: &Path, wanted: &Path) -> io::Result<std::path::PathBuf> {
    let dir = wanted.parent().unwrap_or(Path::new("."));
    let name = wanted
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut target = wanted.to_path_buf();
    for _ in 0..1000 {
        match std::fs::hard_link(part, &target) {
            Ok(()) => {
                std::fs::remove_file(part)?;
                return Ok(target);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                target = unique_path(dir, &name);
                // unique_path skips names whose .part exists, including ours: fine, it only
                // has to find a free final name.
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free file name"))
}

#[cfg(test)]
mod download_tests {
    use super::*;

    #[test]
    fn hostile_names_are_made_safe() {
        assert_eq!(safe_file_name("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(safe_file_name(".bashrc"), "bashrc");
        assert_eq!(safe_file_name(""), "download");
        assert_eq!(safe_file_name("  ..  "), "download");
        assert_eq!(safe_file_name("a\u{202E}gpj.exe"), "a_gpj.exe");
        assert_eq!(safe_file_name("line\nbreak.txt"), "line_break.txt");
        let long = format!("{}.pdf", "x".repeat(500));
        let s = safe_file_name(&long);
        assert!(s.len() <= 200 && s.ends_with(".pdf"), "{s}");
        assert!(!safe_file_name("é".repeat(300).as_str()).is_empty());
    }

    #[test]
    fn unique_names_never_overwrite() {
        let d = tempfile::tempdir().unwrap();
        let a = unique_path(d.path(), "report.pdf");
        assert_eq!(a, d.path().join("report.pdf"));
        std::fs::write(&a, b"1").unwrap();
        let b = unique_path(d.path(), "report.pdf");
        assert_eq!(b, d.path().join("report (1).pdf"));
        std::fs::write(part_path(&b), b"partial").unwrap();
        assert_eq!(
            unique_path(d.path(), "report.pdf"),
            d.path().join("report (2).pdf")
        );
    }

    #[test]
    fn publishing_moves_the_part_file_and_never_replaces() {
        let d = tempfile::tempdir().unwrap();
        let wanted = d.path().join("a.txt");
        std::fs::write(&wanted, b"someone else's").unwrap();
        let part = part_path(&d.path().join("a (1).txt"));
        std::fs::write(&part, b"mine").unwrap();
        let got = publish_download(&part, &wanted).unwrap();
        assert_ne!(got, wanted);
        assert_eq!(std::fs::read(&wanted).unwrap(), b"someone else's");
        assert_eq!(std::fs::read(&got).unwrap(), b"mine");
        assert!(!part.exists());
    }
}
