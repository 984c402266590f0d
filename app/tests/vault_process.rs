//! The vault in its own process, with the real browser: the browser's memory holds no saved
//! password, before a fill or after it (the vault process's does, which shows the scan can
//! find one),
//! the channel between them is an unnamed socket, killing the vault process makes the agent's
//! next vault call answer "locked" instead of hanging (a new vault process, locked, takes
//! over), and killing the browser makes the vault process exit. The vault file survives both.
//! The same kills landing mid-write are in `vault/tests/crash.rs`.

use aperture_testkit::mcp::{call, text};
use aperture_testkit::{Launch, Server, cef_dir};

use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use serde_json::json;

#[path = "support/vault_cli.rs"]
mod vault_cli;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_aperture")
}

/// Short enough to be typed in one chunk of key events (16 characters), so a copy of the
/// chunk would hold all of it; long and odd enough to be found nowhere else.
const PASSWORD: &str = "Vp0-vlt-only-7Qz";

const LOGIN: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body>
<label>Username <input id="u" autocomplete="username"></label>
<label>Password <input id="p" type="password" autocomplete="current-password"></label>
<script>
document.getElementById("p").addEventListener("input", e => {
  document.title = "password len " + e.target.value.length;
});
</script></body></html>"#;

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

/// The vault processes among `pids`.
fn vault_processes(pids: &[u32]) -> Vec<u32> {
    pids.iter()
        .copied()
        .filter(|p| cmdline(*p).contains(" __vault-process "))
        .collect()
}

/// Whether `needle` is anywhere in the process's anonymous memory (heap, stacks, anonymous
/// mappings: where a decrypted value would be).
fn memory_holds(pid: u32, needle: &[u8]) -> bool {
    readable_memory_holds(pid, needle).expect("the process's memory can be read")
}

/// [`memory_holds`], or `None` when this user may not read the process's memory (the vault
/// process makes itself undumpable; only a user with CAP_SYS_PTRACE, such as root, may).
fn readable_memory_holds(pid: u32, needle: &[u8]) -> Option<bool> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    let mem = std::fs::File::open(format!("/proc/{pid}/mem")).ok()?;
    let mut buf = vec![0u8; 1 << 20];
    for line in maps.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let anonymous = f.len() < 6 || f[5].starts_with("[heap") || f[5].starts_with("[stack");
        if !f[1].starts_with('r') || !anonymous {
            continue;
        }
        let (a, b) = f[0].split_once('-').unwrap();
        let (start, end) = (
            u64::from_str_radix(a, 16).unwrap(),
            u64::from_str_radix(b, 16).unwrap(),
        );
        let mut at = start;
        while at < end {
            // Chunks overlap by the needle's length so a value across a boundary is found.
            let len = ((end - at) as usize).min(buf.len());
            let Ok(n) = mem.read_at(&mut buf[..len], at) else {
                break;
            };
            if n == 0 {
                break;
            }
            let chunk = &buf[..n];
            let first = needle[0];
            let mut i = 0;
            while let Some(p) = chunk[i..].iter().position(|&c| c == first) {
                let s = i + p;
                if chunk[s..].starts_with(needle) {
                    // APERTURE_DUMP_HIT=1 prints where a copy was found (which mapping, and
                    // the bytes around it), the first clue to what made it.
                    if std::env::var_os("APERTURE_DUMP_HIT").is_some() {
                        let a = s.saturating_sub(160);
                        let b = (s + needle.len() + 160).min(chunk.len());
                        eprintln!(
                            "HIT in {line} at +{s}: {:?}",
                            String::from_utf8_lossy(&chunk[a..b])
                        );
                    }
                    return Some(true);
                }
                i = s + 1;
            }
            if (n as u64) < (end - at) && n > needle.len() {
                at += (n - needle.len()) as u64;
            } else {
                at += n as u64;
            }
        }
    }
    Some(false)
}

/// The pids holding the other end of the unix socket whose inode is `inode`, as `ss` reports
/// them (`ss -xp` lists every process holding a socket, and each end's peer inode).
fn socket_peer_holders(inode: &str) -> Vec<u32> {
    let out = std::process::Command::new("ss")
        .args(["-xpn"])
        .output()
        .expect("ss (iproute2) lists the unix sockets");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // Netid State Recv-Q Send-Q Local Port Peer Port Process
            f.len() >= 8 && f[7] == inode && f[5] != inode
        })
        .unwrap_or_else(|| panic!("no socket whose peer is {inode}:\n{text}"));
    line.split("pid=")
        .skip(1)
        .filter_map(|p| p.split(',').next()?.parse().ok())
        .collect()
}

async fn wait_for<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let t = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(t.elapsed() < timeout, "{what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_vault_lives_in_its_own_process_and_survives_either_being_killed() {
    cef_dir();
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let pass = scratch.path().join("passphrase");
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    let site = Server::start(HashMap::from([("/login".to_string(), LOGIN.to_string())]), None);
    vault_cli::run(&profile, &pass, &["init", "--insecure-fast-kdf"], "");
    let id = vault_cli::run(
        &profile,
        &pass,
        &[
            "add",
            "--origin",
            &site.url("/login"),
            "--label",
            "Site",
            "--username",
            "ada",
        ],
        &format!("{PASSWORD}\n"),
    );

    let browser = Launch::new(exe())
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .args(["--vault-allow-fill", &site.base])
        .profile(&profile)
        .start()
        .await;
    let cl = browser.connect().await;
    let pids = browser.pids();
    let browser_pid = *pids
        .iter()
        .find(|p| {
            let c = cmdline(**p);
            !c.contains("--type=") && !c.contains("__vault-process")
        })
        .expect("the browser process");
    let vaults = vault_processes(&pids);
    assert_eq!(vaults.len(), 1, "one vault process: {vaults:?}");
    let vault = vaults[0];
    assert_eq!(parent(vault), Some(browser_pid), "started by the browser");
    // The channel is the inherited, unnamed socket on its stdin: nothing on disk or a port.
    let fd0 = std::fs::read_link(format!("/proc/{vault}/fd/0")).unwrap();
    assert!(fd0.to_string_lossy().starts_with("socket:"), "{fd0:?}");
    assert!(!cmdline(vault).contains("passphrase"), "{}", cmdline(vault));
    // The other end is held by the browser process alone: no renderer, zygote or GPU process
    // inherited it (it is close-on-exec), so none of them can send the vault a request.
    let inode = fd0
        .to_string_lossy()
        .trim_start_matches("socket:[")
        .trim_end_matches(']')
        .to_owned();
    let holders = socket_peer_holders(&inode);
    assert_eq!(
        holders,
        [browser_pid],
        "the browser's end of the channel is held by {holders:?}"
    );

    // Unlocked at start (the passphrase went to the vault process) and usable by the agent.
    call(
        &cl,
        "browser_tabs",
        json!({"action": "open", "url": site.url("/login")}),
    )
    .await;
    let r = text(&call(&cl, "vault_entries_for_origin", json!({})).await);
    assert!(r.contains(&id), "{r}");

    // The decrypted entries are in the vault process, not in the browser.
    let needle = PASSWORD.as_bytes();
    // Where it may be read (root): the password is there, in the vault process.
    if let Some(found) = readable_memory_holds(vault, needle) {
        assert!(found, "the scan did not find the password in the vault process");
    }
    assert!(
        !memory_holds(browser_pid, needle),
        "the browser process holds a saved password nobody filled"
    );

    // The fill still works through the process.
    let snap = text(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let user = aperture_testkit::mcp::role_ref(&snap, "textbox", "Username");
    let pw = aperture_testkit::mcp::role_ref(&snap, "textbox", "Password");
    let r = call(
        &cl,
        "vault_request_fill",
        json!({"entry": id, "username": user, "password": pw}),
    )
    .await;
    assert!(!r.is_error.unwrap_or(false), "{}", text(&r));
    let snap = text(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    assert!(
        snap.contains(&format!("password len {}", PASSWORD.len())),
        "{snap}"
    );
    // Nor after the fill: the values it typed were wiped, and its redaction sets keep digests.
    // (The MCP token, which the browser keeps for its whole life, shows the scan sees its
    // memory.)
    assert!(
        memory_holds(browser_pid, browser.token().as_bytes()),
        "the scan cannot see the browser's memory"
    );
    assert!(
        !memory_holds(browser_pid, needle),
        "the browser process kept a copy of the password it typed"
    );

    // kill -9 the vault process: the agent is told the vault is locked, promptly, and a new
    // vault process (locked) takes over.
    std::process::Command::new("kill")
        .args(["-9", &vault.to_string()])
        .status()
        .unwrap();
    wait_for(
        "the killed vault process was reaped",
        Duration::from_secs(10),
        || (!alive(vault)).then_some(()),
    )
    .await;
    let t = Instant::now();
    let r = call(&cl, "vault_entries_for_origin", json!({})).await;
    assert!(r.is_error.unwrap_or(false));
    assert!(text(&r).contains("locked"), "{}", text(&r));
    let r = call(&cl, "vault_request_fill", json!({"entry": id, "password": pw})).await;
    assert!(text(&r).contains("locked"), "{}", text(&r));
    assert!(t.elapsed() < Duration::from_secs(10), "took {:?}", t.elapsed());
    let again = vault_processes(&browser.pids());
    assert_eq!(again.len(), 1, "{again:?}");
    assert_ne!(again[0], vault);
    assert_eq!(parent(again[0]), Some(browser_pid));
    // Nothing was lost: the file opens with its entry.
    let listed = vault_cli::run(&profile, &pass, &["list"], "");
    assert!(listed.contains(&id), "{listed}");

    // kill -9 the browser: its vault process sees the channel close and exits by itself.
    let second = again[0];
    std::process::Command::new("kill")
        .args(["-9", &browser_pid.to_string()])
        .status()
        .unwrap();
    wait_for(
        "the vault process outlived the browser",
        Duration::from_secs(20),
        || (!alive(second)).then_some(()),
    )
    .await;
    let listed = vault_cli::run(&profile, &pass, &["list"], "");
    assert!(listed.contains(&id), "{listed}");
    drop(browser);
}
