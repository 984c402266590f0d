//! Provisions the pinned CEF runtime (libcef and its resources) for Aperture.
//!
//! The runtime comes from the PyPI wheel `cef-capi-py==131.3.5`, which ships a complete
//! Linux x86_64 CEF 131.3.5 build. pip is used only as a download client, with
//! `--require-hashes`, so the wheel is verified before a byte of it is used; the extracted
//! `libcef.so` is verified again against the hash recorded in the wheel. The result lives in
//! the per-user cache (`$XDG_CACHE_HOME/aperture/cef/131.3.5`), is installed by an atomic
//! rename, and is marked by a file named after the wheel hash, so provisioning is idempotent.

#![forbid(unsafe_code)]

use sha2::{Digest, Sha256};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// CEF version the runtime provides (and the bindings are generated for, ABI-wise).
pub const CEF_VERSION: &str = "131.3.5";
/// The Chromium build inside it.
pub const CHROMIUM_VERSION: &str = "131.0.6778.205";
/// The PyPI requirement the runtime is downloaded as.
pub const WHEEL_REQUIREMENT: &str = "cef-capi-py==131.3.5";
/// File name of the wheel pip saves.
pub const WHEEL_FILE: &str = "cef_capi_py-131.3.5-py3-none-manylinux2014_x86_64.whl";
/// sha256 of the wheel, enforced by pip (`--require-hashes`) and again here.
pub const WHEEL_SHA256: &str = "f8dc3866425a668a78504b38ef20255c788332cd4561a9d2521c3a9ec57e5bf5";
/// sha256 of `libcef.so` inside the wheel (from the wheel's RECORD).
pub const LIBCEF_SHA256: &str = "70a08ad12b87a8d67555513217e2f190d44f55614375e664c0a0857379fe1ad2";
/// Where inside the wheel the runtime sits.
const WHEEL_PREFIX: &str = "cef_capi/runtime/";
/// Download plus unpacked runtime plus slack; checked up front so a full disk fails early
/// with a sentence instead of half-way through extraction.
const NEEDED_BYTES: u64 = 550 * 1024 * 1024;
/// Name of the marker file that records a complete, verified install.
const MARKER: &str = ".aperture-verified";

/// Environment variable naming an already-downloaded wheel (offline installs).
pub const ENV_WHEEL: &str = "APERTURE_CEF_WHEEL";
/// Environment variable overriding the runtime directory (used by the app and by xtask).
pub const ENV_DIR: &str = "APERTURE_CEF_DIR";

/// Why provisioning failed. Every variant's message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ProvisionError {
    #[error(
        "python3 with pip is needed to download the CEF runtime, but `python3 -m pip` failed to start ({0}); install it with `apt-get install python3-pip`, or set {ENV_WHEEL}=<path to {WHEEL_FILE}>"
    )]
    NoPip(String),
    #[error(
        "pip could not download {WHEEL_REQUIREMENT} (exit {code}): {detail}\nCheck that PyPI is reachable (proxy settings, network), or download the wheel elsewhere and set {ENV_WHEEL}=<path>"
    )]
    Download { code: i32, detail: String },
    #[error(
        "not enough free disk space in {dir}: {free_mb} MB free, about {need_mb} MB needed for the CEF runtime; free some space or set XDG_CACHE_HOME to a larger disk"
    )]
    DiskSpace {
        dir: PathBuf,
        free_mb: u64,
        need_mb: u64,
    },
    #[error(
        "{what} has sha256 {found}, expected {expected}; the download is corrupt or was tampered with. Delete it and run `cargo xtask provision` again"
    )]
    HashMismatch {
        what: String,
        found: String,
        expected: String,
    },
    #[error("the wheel {0} does not contain a CEF runtime under {WHEEL_PREFIX}")]
    NotARuntime(PathBuf),
    #[error("could not read the wheel {path}: {source}")]
    Zip {
        path: PathBuf,
        source: zip::result::ZipError,
    },
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
    #[error("cannot find a cache directory: neither XDG_CACHE_HOME nor HOME is set")]
    NoCacheDir,
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> ProvisionError {
    let context = context.into();
    move |source| ProvisionError::Io { context, source }
}

/// The per-user directory the runtime is installed in, unless [`ENV_DIR`] overrides it.
pub fn default_runtime_dir() -> Result<PathBuf, ProvisionError> {
    if let Some(dir) = std::env::var_os(ENV_DIR) {
        return Ok(PathBuf::from(dir));
    }
    let cache = aperture_common::xdg::cache_dir().ok_or(ProvisionError::NoCacheDir)?;
    Ok(cache.join("cef").join(CEF_VERSION))
}

/// True when `dir` holds a complete install made by [`provision`].
pub fn is_installed(dir: &Path) -> bool {
    fs::read_to_string(dir.join(MARKER)).is_ok_and(|s| s.trim() == WHEEL_SHA256)
        && dir.join("libcef.so").is_file()
}

/// Makes sure the runtime is installed in `dir` and returns `dir`. Idempotent: an existing
/// verified install is left alone. `progress` receives one-line status messages.
pub fn provision(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ProvisionError> {
    if is_installed(dir) {
        return Ok(dir.to_path_buf());
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_err(format!("creating {}", parent.display())))?;
    check_space(parent)?;

    // Work next to the destination so the final rename is atomic (same filesystem).
    let work = parent.join(format!(".provision-{}", std::process::id()));
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).map_err(io_err(format!("creating {}", work.display())))?;
    let result = (|| {
        let wheel = obtain_wheel(&work, progress)?;
        progress(&format!("verifying {}", wheel.display()));
        verify_sha256(&wheel, WHEEL_SHA256, "the CEF wheel")?;
        progress("unpacking the CEF runtime (~290 MB)");
        let staged = work.join("runtime");
        extract_runtime(&wheel, &staged)?;
        verify_sha256(&staged.join("libcef.so"), LIBCEF_SHA256, "libcef.so")?;
        fs::write(staged.join(MARKER), WHEEL_SHA256).map_err(io_err("writing the install marker"))?;
        if dir.exists() {
            // A partial or foreign install: replace it whole.
            fs::remove_dir_all(dir).map_err(io_err(format!(
                "removing the incomplete install at {}",
                dir.display()
            )))?;
        }
        fs::rename(&staged, dir).map_err(io_err(format!("moving the runtime into {}", dir.display())))?;
        Ok(dir.to_path_buf())
    })();
    let _ = fs::remove_dir_all(&work);
    result
}

/// Bytes available to unprivileged users on `dir`'s filesystem (what `df` reports), `None`
/// when it cannot be told.
fn free_bytes(dir: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(dir).ok()?;
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

fn check_space(dir: &Path) -> Result<(), ProvisionError> {
    let Some(free) = free_bytes(dir) else {
        return Ok(()); // Unknown: let the real write report the problem.
    };
    if free < NEEDED_BYTES {
        return Err(ProvisionError::DiskSpace {
            dir: dir.to_path_buf(),
            free_mb: free / (1024 * 1024),
            need_mb: NEEDED_BYTES / (1024 * 1024),
        });
    }
    Ok(())
}

fn obtain_wheel(work: &Path, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ProvisionError> {
    if let Some(w) = std::env::var_os(ENV_WHEEL) {
        let w = PathBuf::from(w);
        progress(&format!("using the pre-downloaded wheel {}", w.display()));
        return Ok(w);
    }
    let req = work.join("requirements.txt");
    fs::write(
        &req,
        format!("{WHEEL_REQUIREMENT} --hash=sha256:{WHEEL_SHA256}\n"),
    )
    .map_err(io_err("writing the pip requirements file"))?;
    progress(&format!(
        "downloading {WHEEL_REQUIREMENT} (124 MB) with pip --require-hashes"
    ));
    let mut child = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .args(["--platform", "manylinux2014_x86_64", "--python-version", "3.11"])
        .args([
            "--require-hashes",
            "--progress-bar",
            "on",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(&req)
        .arg("-d")
        .arg(work)
        .stdout(Stdio::inherit()) // pip's own progress line
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ProvisionError::NoPip(e.to_string()))?;
    let mut err = String::new();
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    let status = child.wait().map_err(|e| ProvisionError::NoPip(e.to_string()))?;
    if !status.success() {
        if err.contains("No module named pip") {
            return Err(ProvisionError::NoPip(err.trim().to_string()));
        }
        let detail: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        let detail = detail[detail.len().saturating_sub(4)..].join("\n");
        return Err(ProvisionError::Download {
            code: status.code().unwrap_or(-1),
            detail,
        });
    }
    Ok(work.join(WHEEL_FILE))
}

/// sha256 of a file, as lower-case hex.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut f = fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn verify_sha256(path: &Path, expected: &str, what: &str) -> Result<(), ProvisionError> {
    let found = sha256_file(path).map_err(io_err(format!("reading {}", path.display())))?;
    if found != expected {
        return Err(ProvisionError::HashMismatch {
            what: format!("{what} ({})", path.display()),
            found,
            expected: expected.to_string(),
        });
    }
    Ok(())
}

fn extract_runtime(wheel: &Path, dest: &Path) -> Result<(), ProvisionError> {
    let zerr = |source| ProvisionError::Zip {
        path: wheel.to_path_buf(),
        source,
    };
    let f = fs::File::open(wheel).map_err(io_err(format!("opening {}", wheel.display())))?;
    let mut z = zip::ZipArchive::new(f).map_err(zerr)?;
    let mut found = false;
    for i in 0..z.len() {
        let mut entry = z.by_index(i).map_err(zerr)?;
        let Some(name) = entry.enclosed_name() else {
            continue;
        };
        let Ok(rel) = name.strip_prefix(WHEEL_PREFIX) else {
            continue;
        };
        if rel.as_os_str().is_empty() || rel == Path::new("cefsimple") {
            continue; // The sample app is not needed.
        }
        found = true;
        let out = dest.join(rel);
        if entry.is_dir() {
            fs::create_dir_all(&out).map_err(io_err(format!("creating {}", out.display())))?;
            continue;
        }
        if let Some(p) = out.parent() {
            fs::create_dir_all(p).map_err(io_err(format!("creating {}", p.display())))?;
        }
        let mut w = fs::File::create(&out).map_err(io_err(format!("writing {}", out.display())))?;
        io::copy(&mut entry, &mut w).map_err(io_err(format!("writing {}", out.display())))?;
        // Wheels do not reliably carry exec bits; shared objects and helpers need them.
        let exec = rel.extension().is_some_and(|e| e == "so")
            || rel.to_string_lossy().contains(".so.")
            || rel == Path::new("chrome-sandbox");
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&out, fs::Permissions::from_mode(if exec { 0o755 } else { 0o644 }))
            .map_err(io_err(format!("setting permissions on {}", out.display())))?;
    }
    if !found {
        return Err(ProvisionError::NotARuntime(wheel.to_path_buf()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_is_read_without_unsafe() {
        // The temp dir's filesystem has some room (the tests write there), and a path that
        // does not exist cannot be asked: check_space then lets the real write decide.
        let free = free_bytes(&std::env::temp_dir()).expect("statvfs on the temp dir");
        assert!(free > 0);
        assert_eq!(free_bytes(Path::new("/nonexistent/aperture/statvfs")), None);
        assert!(check_space(Path::new("/nonexistent/aperture/statvfs")).is_ok());
    }

    #[test]
    fn a_wheel_without_a_runtime_is_refused() {
        let dir = std::env::temp_dir().join(format!("csb-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let wheel = dir.join("empty.whl");
        {
            let mut z = zip::ZipWriter::new(fs::File::create(&wheel).unwrap());
            z.start_file("other/readme.txt", zip::write::SimpleFileOptions::default())
                .unwrap();
            std::io::Write::write_all(&mut z, b"hi").unwrap();
            z.finish().unwrap();
        }
        let err = extract_runtime(&wheel, &dir.join("out")).unwrap_err();
        assert!(matches!(err, ProvisionError::NotARuntime(_)), "{err}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_corrupt_file_fails_the_hash_check_with_both_hashes() {
        let dir = std::env::temp_dir().join(format!("csb-hash-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("libcef.so");
        fs::write(&f, b"not really libcef").unwrap();
        let err = verify_sha256(&f, LIBCEF_SHA256, "libcef.so")
            .unwrap_err()
            .to_string();
        assert!(err.contains(LIBCEF_SHA256) && err.contains("tampered"), "{err}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_incomplete_install_is_not_installed() {
        let dir = std::env::temp_dir().join(format!("csb-marker-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("libcef.so"), b"x").unwrap();
        assert!(!is_installed(&dir));
        fs::write(dir.join(MARKER), WHEEL_SHA256).unwrap();
        assert!(is_installed(&dir));
        let _ = fs::remove_dir_all(&dir);
    }
}
