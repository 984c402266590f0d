//! Kills a real writer process mid-save, many times, and checks the vault always opens with
//! either the last generation the writer confirmed or the one it was writing.
//!
//! The writer is this same test binary re-executed with an environment variable set (so no
//! extra binary target is needed): `child_writer` becomes an endless save loop when it sees
//! `APERTURE_VAULT_CRASH_CHILD`, and is a no-op otherwise. Two modes:
//!
//! * `api`: saves through `Vault::set_notes`, the full production path (serialise, seal,
//!   atomic write). In a debug build most of a save is spent sealing, so kills mostly land
//!   before the file is touched; this mode proves the end-to-end path survives kills.
//! * `raw`: rewrites pre-sealed vault images (made through the public API) with the same
//!   `file::atomic_write` the vault uses, so nearly all the child's time is inside a write and
//!   kills land mid-write. The test asserts that at least one kill left a temp file behind,
//!   i.e. really interrupted a write.

#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aperture_vault::{EntryId, KdfParams, NewEntry, Origin, Vault};

const ENV: &str = "APERTURE_VAULT_CRASH_CHILD";
const PASS: &str = "crash test passphrase";
const IMAGES: u64 = 3;

fn note_for(generation: u64, size: usize) -> String {
    let mut s = format!("generation {generation}\n");
    while s.len() < size {
        s.push_str("lorem ipsum dolor sit amet ");
    }
    s
}

fn generation_of(note: &str) -> u64 {
    note.lines()
        .next()
        .and_then(|l| l.strip_prefix("generation "))
        .and_then(|n| n.parse().ok())
        .expect("header line")
}

#[test]
fn child_writer() {
    let Ok(path) = std::env::var(ENV) else { return };
    let mode = std::env::var("APERTURE_VAULT_CRASH_MODE").unwrap();
    let mut out = std::io::stdout();
    if mode == "api" {
        let vault = Vault::open_unlocked(&path, PASS).expect("child unlock");
        let id = EntryId::parse(&std::env::var("APERTURE_VAULT_CRASH_ID").unwrap()).unwrap();
        for generation in 1u64.. {
            vault
                .set_notes(&id, &note_for(generation, 64 * 1024))
                .expect("save");
            // Printed only after the save returned: the parent relies on it being durable.
            writeln!(out, "\nsaved {generation}").unwrap();
            out.flush().unwrap();
        }
    } else {
        let path = PathBuf::from(path);
        let images: Vec<Vec<u8>> = (1..=IMAGES)
            .map(|g| std::fs::read(image_path(&path, g)).unwrap())
            .collect();
        for k in 1u64.. {
            aperture_vault::file::atomic_write(&path, &images[((k - 1) % IMAGES) as usize]).expect("write");
            writeln!(out, "\nsaved {k}").unwrap();
            out.flush().unwrap();
        }
    }
}

fn image_path(vault: &Path, generation: u64) -> PathBuf {
    vault.with_file_name(format!("image-{generation}"))
}

fn temp_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("aperture-tmp"))
        .count()
}

/// Runs one child until its first confirmed save, waits `extra`, SIGKILLs it, and returns the
/// last save it confirmed.
fn run_and_kill(path: &Path, mode: &str, id: &EntryId, extra: Duration) -> u64 {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
        .env(ENV, path)
        .env("APERTURE_VAULT_CRASH_MODE", mode)
        .env("APERTURE_VAULT_CRASH_ID", id.as_str())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("saved ") {
                let _ = tx.send(n.trim().parse::<u64>().unwrap());
            }
        }
    });
    let mut last = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("child never saved");
    let deadline = Instant::now() + extra;
    while Instant::now() < deadline {
        if let Ok(n) = rx.try_recv() {
            last = n;
        }
    }
    child.kill().unwrap(); // SIGKILL: no destructors, no flush, no cleanup.
    child.wait().unwrap();
    reader.join().unwrap();
    while let Ok(n) = rx.try_recv() {
        last = n;
    }
    last
}

fn setup(name: &str) -> (PathBuf, PathBuf, EntryId) {
    let dir = std::env::temp_dir().join(format!("apv-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("crash.vault");
    let vault = Vault::create_with_params(&path, PASS, KdfParams::insecure_fast_for_tests()).unwrap();
    let origin = Origin::parse("https://example.com").unwrap();
    let id = vault
        .add_entry(NewEntry {
            origin: &origin,
            label: "x",
            username: "u",
            password: "p4ssword".into(),
            totp: None,
        })
        .unwrap();
    vault.set_notes(&id, &note_for(0, 64 * 1024)).unwrap();
    (dir, path, id)
}

#[test]
fn killing_an_api_writer_never_loses_the_file() {
    if std::env::var(ENV).is_ok() {
        return;
    }
    let (dir, path, id) = setup("api");
    for round in 0..4u64 {
        let last = run_and_kill(&path, "api", &id, Duration::from_millis(5 + round * 40));
        let reopened = Vault::open_unlocked(&path, PASS).expect("vault must open after a kill");
        let found = generation_of(&reopened.notes(&id).unwrap());
        // The child counts from 1 each round: either its last confirmed save, or the one in
        // flight that completed its rename just before the kill.
        assert!(
            found == last || found == last + 1,
            "round {round}: confirmed {last}, found {found}"
        );
        assert_eq!(reopened.entries().unwrap().len(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn killing_a_writer_mid_write_leaves_old_or_new_file() {
    if std::env::var(ENV).is_ok() {
        return;
    }
    let (dir, path, id) = setup("raw");
    {
        let vault = Vault::open_unlocked(&path, PASS).unwrap();
        for g in 1..=IMAGES {
            vault.set_notes(&id, &note_for(g, 1024 * 1024)).unwrap();
            std::fs::copy(&path, image_path(&path, g)).unwrap();
        }
    }
    let generation_of_write = |k: u64| (k - 1) % IMAGES + 1;
    let mut interrupted = 0;
    const ROUNDS: u64 = 10;
    for round in 0..ROUNDS {
        let last = run_and_kill(&path, "raw", &id, Duration::from_millis(1 + round * 3));
        // A temp file beside the vault proves this kill interrupted a write in progress.
        if temp_files(&dir) > 0 {
            interrupted += 1;
        }
        // The raw writer cycles through pre-made images, i.e. deliberately puts older copies
        // back; that is a rollback by design here, and this test is about torn writes.
        let _ = std::fs::remove_file(aperture_vault::file::generation_path(&path));
        let reopened = Vault::open_unlocked(&path, PASS).expect("vault must open after a kill");
        let found = generation_of(&reopened.notes(&id).unwrap());
        let old = generation_of_write(last);
        let new = generation_of_write(last + 1);
        assert!(
            found == old || found == new,
            "round {round}: write {last} confirmed, found gen {found}"
        );
        // Unlock swept the killed writer's temp file.
        assert_eq!(temp_files(&dir), 0);
    }
    eprintln!("{ROUNDS} kills, {interrupted} interrupted a write in progress");
    // If no kill landed inside a write, the test did not exercise what it claims to.
    assert!(interrupted > 0, "no kill landed mid-write");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// The vault in its own process (`aperture_vault::remote`): the same kills, through the channel
// the browser uses. `child_vault_process` is the vault process (this binary re-executed, the
// channel as its stdin); `child_browser` is a stand-in browser that starts one and saves
// through it until it is killed.

const VAULT_ENV: &str = "APERTURE_VAULT_PROCESS_CHILD";
const BROWSER_ENV: &str = "APERTURE_VAULT_BROWSER_CHILD";

/// Where a vault process that returned from `serve_stdin` without error says so.
fn clean_exit_marker(vault: &Path) -> PathBuf {
    vault.with_file_name("vault-process-exited-cleanly")
}

#[test]
fn child_vault_process() {
    let Ok(path) = std::env::var(VAULT_ENV) else {
        return;
    };
    let path = PathBuf::from(path);
    aperture_vault::remote::serve_stdin(&path).expect("vault process");
    std::fs::write(clean_exit_marker(&path), std::process::id().to_string()).unwrap();
}

fn vault_process_launcher(path: &Path) -> aperture_vault::remote::Launcher {
    let path = path.to_owned();
    Box::new(move || {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args([
            "--exact",
            "child_vault_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(VAULT_ENV, &path)
        .env_remove(BROWSER_ENV)
        .stderr(Stdio::null());
        c
    })
}

#[test]
fn child_browser() {
    let Ok(path) = std::env::var(BROWSER_ENV) else {
        return;
    };
    let path = PathBuf::from(path);
    let id = EntryId::parse(&std::env::var("APERTURE_VAULT_CRASH_ID").unwrap()).unwrap();
    let remote = aperture_vault::remote::RemoteVault::start(vault_process_launcher(&path)).unwrap();
    remote.unlock(PASS).expect("unlock through the vault process");
    let mut out = std::io::stdout();
    writeln!(out, "\nvault-pid {}", remote.pid().unwrap()).unwrap();
    out.flush().unwrap();
    for generation in 1u64.. {
        remote
            .set_notes(&id, &note_for(generation, 64 * 1024))
            .expect("save through the vault process");
        writeln!(out, "\nsaved {generation}").unwrap();
        out.flush().unwrap();
    }
}

fn alive(pid: u32) -> bool {
    // A zombie (exited, not yet reaped by whoever inherited it) has exited.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

#[test]
fn killing_the_vault_process_mid_write_leaves_the_file_and_restarts_locked() {
    if std::env::var(ENV).is_ok() || std::env::var(VAULT_ENV).is_ok() || std::env::var(BROWSER_ENV).is_ok() {
        return;
    }
    let (dir, path, id) = setup("process");
    let remote = std::sync::Arc::new(
        aperture_vault::remote::RemoteVault::start(vault_process_launcher(&path)).unwrap(),
    );
    for round in 0..4u64 {
        remote.unlock(PASS).expect("unlock");
        let pid = remote.pid().expect("a vault process runs");
        let saved = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let writer = {
            let (remote, saved, id) = (remote.clone(), saved.clone(), id.clone());
            std::thread::spawn(move || {
                for generation in 1u64.. {
                    match remote.set_notes(&id, &note_for(generation, 64 * 1024)) {
                        Ok(()) => saved.store(generation, std::sync::atomic::Ordering::SeqCst),
                        // The kill: the request in flight fails, it does not hang.
                        Err(e) => return e,
                    }
                }
                unreachable!()
            })
        };
        while saved.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(3 + round * 25));
        let killed = Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let err = writer.join().unwrap();
        assert_eq!(err, aperture_vault::remote::RemoteError::Gone, "round {round}");
        let last = saved.load(std::sync::atomic::Ordering::SeqCst);
        assert!(!alive(pid), "round {round}: the killed vault process was reaped");
        let reopened = Vault::open_unlocked(&path, PASS).expect("vault must open after a kill");
        let found = generation_of(&reopened.notes(&id).unwrap());
        assert!(
            found == last || found == last + 1,
            "round {round}: confirmed {last}, found {found}"
        );
        assert_eq!(reopened.entries().unwrap().len(), 1);
        drop(reopened);
        // The next request starts a new vault process, and it is locked.
        assert_eq!(remote.status(), Ok((true, false)), "round {round}");
        assert_eq!(remote.restarts(), round as u32 + 1);
        assert_ne!(remote.pid(), Some(pid));
        assert_eq!(
            remote.entries_for_origin(&Origin::parse("https://example.com").unwrap()),
            Err(aperture_vault::remote::RemoteError::Locked)
        );
    }
    drop(remote);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn killing_the_browser_mid_save_lets_the_vault_process_finish_and_exit() {
    if std::env::var(ENV).is_ok() || std::env::var(VAULT_ENV).is_ok() || std::env::var(BROWSER_ENV).is_ok() {
        return;
    }
    let (dir, path, id) = setup("browser");
    for round in 0..3u64 {
        let _ = std::fs::remove_file(clean_exit_marker(&path));
        let mut browser = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_browser", "--nocapture", "--test-threads=1"])
            .env(BROWSER_ENV, &path)
            .env("APERTURE_VAULT_CRASH_ID", id.as_str())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = browser.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(n) = line.strip_prefix("saved ") {
                    let _ = tx.send(Ok(n.trim().parse::<u64>().unwrap()));
                } else if let Some(p) = line.strip_prefix("vault-pid ") {
                    let _ = tx.send(Err(p.trim().parse::<u32>().unwrap()));
                }
            }
        });
        let Err(vault_pid) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("no vault process")
        else {
            panic!("saved before unlocking");
        };
        let mut last = 0;
        while last == 0 {
            if let Ok(n) = rx.recv_timeout(Duration::from_secs(60)).expect("never saved") {
                last = n;
            }
        }
        std::thread::sleep(Duration::from_millis(5 + round * 30));
        browser.kill().unwrap(); // SIGKILL mid-operation: no destructor closes the channel.
        browser.wait().unwrap();
        reader.join().unwrap();
        while let Ok(Ok(n)) = rx.try_recv() {
            last = n;
        }
        // The kernel closed the dead browser's end; the vault process sees EOF (after finishing
        // any save it was in) and returns from serve_stdin without error.
        let deadline = Instant::now() + Duration::from_secs(30);
        while alive(vault_pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !alive(vault_pid),
            "round {round}: the vault process outlived its browser"
        );
        assert!(
            clean_exit_marker(&path).exists(),
            "round {round}: the vault process did not exit cleanly"
        );
        let reopened = Vault::open_unlocked(&path, PASS).expect("vault must open after the browser died");
        let found = generation_of(&reopened.notes(&id).unwrap());
        assert!(
            found == last || found == last + 1,
            "round {round}: confirmed {last}, found {found}"
        );
        assert_eq!(temp_files(&dir), 0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stuck_vault_process_is_replaced_instead_of_hanging_the_browser() {
    if std::env::var(ENV).is_ok() || std::env::var(VAULT_ENV).is_ok() || std::env::var(BROWSER_ENV).is_ok() {
        return;
    }
    let (dir, path, _id) = setup("stuck");
    let remote = aperture_vault::remote::RemoteVault::start(vault_process_launcher(&path))
        .unwrap()
        .with_call_timeout(Duration::from_secs(2));
    remote.unlock(PASS).unwrap();
    let pid = remote.pid().unwrap();
    // SIGSTOP: alive, holding the channel, answering nothing.
    assert!(
        Command::new("kill")
            .args(["-STOP", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    // The signal is delivered asynchronously: wait until the kernel reports it stopped.
    let stopped = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('T'))
        })
    };
    let t = Instant::now();
    while !stopped() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the vault process did not stop"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let t = Instant::now();
    let page = Origin::parse("https://example.com").unwrap();
    assert_eq!(
        remote.entries_for_origin(&page),
        Err(aperture_vault::remote::RemoteError::Gone)
    );
    assert!(t.elapsed() < Duration::from_secs(10), "waited {:?}", t.elapsed());
    // The stuck one was killed and reaped; the next request gets a new one, locked.
    assert!(!alive(pid));
    assert_eq!(
        remote.entries_for_origin(&page),
        Err(aperture_vault::remote::RemoteError::Locked)
    );
    assert_ne!(remote.pid(), Some(pid));
    drop(remote);
    let _ = std::fs::remove_dir_all(&dir);
}
