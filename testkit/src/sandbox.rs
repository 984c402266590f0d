//! The renderer sandbox in tests: root cannot use Chromium's sandbox, and the browser refuses
//! to run as root without an explicit `--no-sandbox`; the harness passes it there, and says so
//! once. As an ordinary user (CI runs the sandbox tests as one) nothing is added.

use std::ffi::OsStr;
use std::process::Command;
use std::sync::Once;

/// Whether this process runs as root (effective uid 0), read from /proc.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2))
                .map(|u| u == "0")
        })
        .unwrap_or(false)
}

/// The arguments every browser launch of a test needs for the sandbox: `--no-sandbox` as root
/// (printing one line that the sandbox is off and why), nothing otherwise.
pub fn sandbox_args() -> &'static [&'static str] {
    static SAID: Once = Once::new();
    if is_root() {
        SAID.call_once(|| {
            eprintln!(
                "testkit: running as root, so browsers start with --no-sandbox (Chromium's sandbox cannot run as root); \
                 the sandbox itself is tested as an unprivileged user by .ci/run"
            )
        });
        &["--no-sandbox"]
    } else {
        &[]
    }
}

/// `Command::new(bin)` with [`sandbox_args`]: for every launch of the browser itself (not its
/// `vault` subcommand).
pub fn browser_command(bin: impl AsRef<OsStr>) -> Command {
    let mut c = Command::new(bin);
    c.args(sandbox_args());
    c
}
