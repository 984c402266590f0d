//! The vault process's confinement. It holds the unlocked key and every decrypted entry, so what
//! it can do is cut to what it needs (read and write its vault file and the upload directory,
//! talk over the channel it was started with) before it reads a byte from that channel:
//!
//! - not dumpable: no core file with secrets in it, and other processes of the same user can
//!   neither attach a debugger to it nor read its memory through `/proc`;
//! - no new privileges, which also lets an unprivileged process install a system-call filter;
//! - a seccomp filter refusing (EPERM) new network endpoints (`socket`, `connect`, `bind`,
//!   `listen`, `accept`), running other programs (`execve`), and reaching into other
//!   processes (`ptrace`, `process_vm_readv`/`writev`), plus namespace and mount changes. A bug
//!   in the vault process can then neither phone a secret out nor start a helper that could.
//!
//! It is a deny list, not an allow list: the process's allocator, thread and file work keep
//! every call they need, so a libc update cannot kill the vault mid-write.

use anyhow::{Context, Result};
use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
use std::collections::BTreeMap;

/// The calls the vault process never makes.
const DENIED: &[i64] = &[
    libc::SYS_socket,
    libc::SYS_connect,
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_keyctl,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
];

/// Confines the calling process (all its threads) as above. Irreversible.
pub fn vault_process() -> Result<()> {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .context("making the vault process undumpable")?;
    rustix::thread::set_no_new_privs(true).context("setting no_new_privs")?;
    let arch = if cfg!(target_arch = "x86_64") {
        TargetArch::x86_64
    } else if cfg!(target_arch = "aarch64") {
        TargetArch::aarch64
    } else {
        anyhow::bail!("no system-call filter for this architecture");
    };
    let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> =
        DENIED.iter().map(|&n| (n, Vec::new())).collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .context("building the vault process's system-call filter")?;
    let prog: BpfProgram = filter.try_into().context("compiling the system-call filter")?;
    seccompiler::apply_filter_all_threads(&prog).context("installing the system-call filter")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    /// In a child process (the filter cannot be undone): after confinement a socket cannot
    /// be made, a program cannot be run, and files still work.
    #[test]
    fn a_confined_process_cannot_open_a_socket_or_run_a_program() {
        if std::env::var_os("APERTURE_CONFINE_CHILD").is_some() {
            super::vault_process().expect("confine");
            let sock = std::net::TcpListener::bind("127.0.0.1:0");
            assert!(sock.is_err(), "a socket after confinement");
            let run = std::process::Command::new("/bin/true").status();
            assert!(run.is_err() || !run.unwrap().success(), "exec after confinement");
            let f = std::env::temp_dir().join(format!("confine-{}", std::process::id()));
            std::fs::write(&f, b"ok").expect("files still work");
            std::fs::remove_file(&f).ok();
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            assert!(
                status
                    .lines()
                    .any(|l| l.starts_with("Seccomp:") && l.ends_with('2')),
                "{status}"
            );
            assert!(
                status
                    .lines()
                    .any(|l| l.starts_with("NoNewPrivs:") && l.ends_with('1')),
                "{status}"
            );
            return;
        }
        let exe = std::env::current_exe().unwrap();
        let out = std::process::Command::new(exe)
            .args([
                "--exact",
                "confine::tests::a_confined_process_cannot_open_a_socket_or_run_a_program",
                "--nocapture",
            ])
            .env("APERTURE_CONFINE_CHILD", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    }
}
