//! Chromium's own log lines (the DBus complaints printed at every start, GPU notes, …) go to
//! the profile's `chromium.log`, not to the terminal, where they would bury what the browser
//! has to say. Chromium writes them to file descriptor 2 from the browser process and every
//! subprocess, so fd 2 becomes a pipe, and a thread sorts each line: Chromium's format
//! (`[pid:tid:MMDD/HHMMSS.micros:LEVEL:file(line)] …`) to the file, everything else (our own
//! messages, panics) to the terminal as before.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The log file inside a profile.
pub const FILE: &str = "chromium.log";

/// Whether `line` is one of Chromium's log lines.
pub fn is_chromium_line(line: &[u8]) -> bool {
    // "[1234:5678:1203/094213.504239:ERROR:bus.cc(407)] …"
    let Some(rest) = line.strip_prefix(b"[") else {
        return false;
    };
    let Some(end) = rest.iter().position(|b| *b == b']') else {
        return false;
    };
    let head = &rest[..end];
    let fields: Vec<&[u8]> = head.splitn(5, |b| *b == b':').collect();
    fields.len() == 5
        && fields[..2]
            .iter()
            .all(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
        && fields[2].contains(&b'/')
        && fields[3].first().is_some_and(|c| c.is_ascii_uppercase())
}

/// While alive, fd 2 goes through the sorter. Dropping it puts the terminal back on fd 2 and
/// lets the sorter pass on what is still in the pipe, so the last words before exit are seen.
pub struct Split {
    term: std::os::fd::OwnedFd,
    done: std::sync::mpsc::Receiver<()>,
}

impl Drop for Split {
    fn drop(&mut self) {
        let _ = rustix::stdio::dup2_stderr(&self.term);
        // Chromium's subprocesses may keep the pipe open a little longer; do not wait on them.
        let _ = self.done.recv_timeout(std::time::Duration::from_millis(500));
    }
}

/// Routes fd 2 through the sorter. Call before Chromium starts (its subprocesses inherit fd 2).
pub fn split(profile: &Path) -> std::io::Result<Split> {
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(profile.join(FILE))?;
    let saved = std::io::stderr().as_fd().try_clone_to_owned()?;
    let mut term = File::from(saved.try_clone()?);
    let (reader, writer) = std::io::pipe()?;
    let (tx, done) = std::sync::mpsc::channel();
    rustix::stdio::dup2_stderr(&writer)?;
    drop(writer);
    std::thread::Builder::new()
        .name("aperture-stderr".into())
        .spawn(move || {
            let mut r = BufReader::new(reader);
            let mut line = Vec::new();
            while matches!(r.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                let out: &mut dyn Write = if is_chromium_line(&line) {
                    &mut log
                } else {
                    &mut term
                };
                let _ = out.write_all(&line);
                let _ = out.flush();
                line.clear();
            }
            let _ = tx.send(());
        })?;
    Ok(Split { term: saved, done })
}

#[cfg(test)]
mod tests {
    use super::is_chromium_line;

    #[test]
    fn chromium_lines_are_told_from_ours() {
        for l in [
            "[6437:6480:1203/094213.504239:ERROR:bus.cc(407)] Failed to connect to the bus",
            "[1:1:0101/000000.000001:VERBOSE1:x.cc(1)] v",
            "[23193:23193:1203/095353.899863:ERROR:command_buffer_proxy_impl.cc(331)] GPU state",
        ] {
            assert!(is_chromium_line(l.as_bytes()), "{l}");
        }
        for l in [
            "aperture: tab 1 at about:blank (status 200)",
            "[note] something",
            "[1:2:3] no level",
            "thread 'main' panicked at src/main.rs:1:1:",
            "",
        ] {
            assert!(!is_chromium_line(l.as_bytes()), "{l}");
        }
    }
}
