//! Finding and waiting for the processes a test started.
//!
//! Chromium forks renderer, GPU and utility processes; killing the browser does not always end
//! them. Each launch therefore carries `APERTURE_TEST_TAG=<tag>` in its environment, which the
//! children inherit, so a test can find (and clean up, or assert the absence of) all of them.

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// A tag unique to this test process and call, for `APERTURE_TEST_TAG`.
pub fn unique_tag(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}-{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Live (non-zombie) processes whose environment carries `APERTURE_TEST_TAG=tag`.
pub fn tagged_pids(tag: &str) -> Vec<u32> {
    let needle = format!("APERTURE_TEST_TAG={tag}");
    let mut out = Vec::new();
    let Ok(proc) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in proc.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if !env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("");
        if state != "Z" && state != "X" {
            out.push(pid);
        }
    }
    out
}

/// SIGKILLs every process tagged `tag` (what is left of a browser after a test).
pub fn kill_tagged(tag: &str) {
    for p in tagged_pids(tag) {
        let _ = std::process::Command::new("kill")
            .arg("-9")
            .arg(p.to_string())
            .status();
    }
}

/// Waits for `child` to exit; panics after `timeout`.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait for the child") {
            return s;
        }
        assert!(t.elapsed() < timeout, "process did not exit within {timeout:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_child_is_found_until_it_exits() {
        let tag = unique_tag("testkit-procs");
        assert_ne!(tag, unique_tag("testkit-procs"), "tags are unique");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env("APERTURE_TEST_TAG", &tag)
            .spawn()
            .expect("spawn sleep");
        // Right after fork the child still has the parent's environment until it execs, so
        // the tag appears a moment later; poll instead of reading once.
        let t = Instant::now();
        while tagged_pids(&tag).is_empty() && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(tagged_pids(&tag), vec![child.id()]);
        kill_tagged(&tag);
        let status = wait_exit(&mut child, Duration::from_secs(10));
        assert!(!status.success());
        assert!(tagged_pids(&tag).is_empty());
    }
}
