//! One browser per profile. The first instance holds an exclusive lock on
//! `<profile>/aperture.lock` (with its pid written inside) for as long as it runs; a windowed
//! instance also listens on `<profile>/aperture.sock`, so a second windowed launch hands its
//! URL over and exits, as a desktop browser does. Both live in the profile directory, which
//! is private to its user (0700), so only that user can reach the socket.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

const LOCK: &str = "aperture.lock";
const SOCKET: &str = "aperture.sock";
/// A URL handed over is one line; anything longer is not one.
const MAX_LINE: u64 = 16 * 1024;

/// The lock of a running instance; released when dropped (or when the process dies).
pub struct ProfileLock {
    _file: File,
    dir: PathBuf,
}

/// Why this instance cannot have the profile.
pub enum Busy {
    /// Another instance holds it; its pid if it wrote one.
    HeldBy(Option<u32>),
}

/// Creates the profile directory (0700) if needed and takes its lock.
pub fn lock(profile: &Path) -> Result<Result<ProfileLock, Busy>> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(profile)
        .with_context(|| format!("creating the profile directory {}", profile.display()))?;
    let path = profile.join(LOCK);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut s = String::new();
            let _ = file.read_to_string(&mut s);
            return Ok(Err(Busy::HeldBy(s.trim().parse().ok())));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", path.display()));
        }
    }
    file.set_len(0)?;
    write!(file, "{}", std::process::id())?;
    file.flush()?;
    // We hold the profile's lock now: a Chromium singleton link left in it is from an
    // instance that was killed or crashed.
    if let Some(d) = aperture_common::fs::remove_chromium_singleton(profile) {
        tracing::debug!(
            "removed {}, left by an instance that did not exit cleanly",
            d.display()
        );
    }
    Ok(Ok(ProfileLock {
        _file: file,
        dir: profile.to_path_buf(),
    }))
}

impl ProfileLock {
    /// Listens for URLs from later launches on this profile; `open` is called for each.
    pub fn listen(&self, open: impl Fn(String) + Send + Sync + 'static) -> Result<()> {
        let path = self.dir.join(SOCKET);
        // A socket left by an instance that died: we hold the lock, so it is not in use.
        let _ = std::fs::remove_file(&path);
        let listener = std::os::unix::net::UnixListener::bind(&path)
            .with_context(|| format!("listening on {}", path.display()))?;
        std::thread::Builder::new()
            .name("aperture-instance".into())
            .spawn(move || {
                for conn in listener.incoming().map_while(Result::ok) {
                    let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
                    let mut line = String::new();
                    if BufReader::new(conn.take(MAX_LINE)).read_line(&mut line).is_ok() {
                        let url = line.trim();
                        if !url.is_empty() {
                            open(url.to_string());
                        }
                    }
                }
            })?;
        Ok(())
    }
}

impl Drop for ProfileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.dir.join(SOCKET));
    }
}

/// Hands `url` to the windowed instance running on `profile`.
pub fn hand_over(profile: &Path, url: &str) -> std::io::Result<()> {
    let mut s = UnixStream::connect(profile.join(SOCKET))?;
    s.set_write_timeout(Some(Duration::from_secs(2)))?;
    writeln!(s, "{url}")
}
