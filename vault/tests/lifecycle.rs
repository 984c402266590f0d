//! Vault file lifecycle: create, reopen, and every failure mode leaving the file untouched.

#![forbid(unsafe_code)]

use std::fs;
use std::path::PathBuf;

use aperture_vault::{AgentError, FillTarget, KdfParams, NewEntry, Origin, Totp, Vault, VaultError};

struct TempDir(PathBuf);
impl TempDir {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("apv-life-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        Self(d)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn fast() -> KdfParams {
    KdfParams::insecure_fast_for_tests()
}

fn make(dir: &TempDir) -> (PathBuf, Vault) {
    let path = dir.0.join("v.vault");
    let v = Vault::create_with_params(&path, "pass phrase", fast()).unwrap();
    let o = Origin::parse("https://example.com").unwrap();
    v.add_entry(NewEntry {
        origin: &o,
        label: "main",
        username: "ada",
        password: "pw-1234-xyz".into(),
        totp: None,
    })
    .unwrap();
    (path, v)
}

#[test]
fn roundtrip_across_processes_view() {
    let d = TempDir::new("rt");
    let (path, v) = make(&d);
    drop(v);
    let v = Vault::open(&path).unwrap();
    assert!(!v.is_unlocked());
    assert!(matches!(v.entries(), Err(VaultError::Locked)));
    v.unlock("pass phrase").unwrap();
    let e = &v.entries().unwrap()[0];
    assert_eq!(e.label, "main");
    assert_eq!(e.site, "https://example.com");
    assert_eq!(v.reveal_for_human(&e.id).unwrap().password(), "pw-1234-xyz");
    assert_eq!(v.kdf_params().unwrap(), fast());
}

#[test]
fn create_refuses_to_overwrite() {
    let d = TempDir::new("ow");
    let (path, _v) = make(&d);
    let before = fs::read(&path).unwrap();
    assert!(matches!(
        Vault::create_with_params(&path, "other", fast()),
        Err(VaultError::AlreadyExists(_))
    ));
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// Each damaged file gives its own error, and neither the failed open nor anything after it
/// writes to the file.
#[test]
fn failure_modes_are_distinct_and_never_write() {
    let d = TempDir::new("fail");
    let (path, v) = make(&d);
    drop(v);
    let good = fs::read(&path).unwrap();

    let check = |bytes: &[u8], pass: &str, want: fn(&VaultError) -> bool, what: &str| {
        fs::write(&path, bytes).unwrap();
        let err = Vault::open_unlocked(&path, pass)
            .err()
            .unwrap_or_else(|| panic!("{what}: opened"));
        assert!(want(&err), "{what}: {err:?}");
        assert_eq!(fs::read(&path).unwrap(), bytes, "{what}: file changed");
        // The message a human sees names the problem.
        assert!(!err.to_string().is_empty());
    };

    check(
        &good,
        "wrong",
        |e| matches!(e, VaultError::WrongPassphrase),
        "wrong passphrase",
    );
    check(
        &good[..good.len() - 10],
        "pass phrase",
        |e| matches!(e, VaultError::Truncated { .. }),
        "truncated",
    );
    check(
        &good[..50],
        "pass phrase",
        |e| matches!(e, VaultError::Truncated { .. }),
        "truncated header",
    );
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last - 20] ^= 0x40;
    check(
        &flipped,
        "pass phrase",
        |e| matches!(e, VaultError::Tampered),
        "flipped payload byte",
    );
    let mut flipped = good.clone();
    flipped[30] ^= 0x01; // inside the salt
    check(
        &flipped,
        "pass phrase",
        |e| matches!(e, VaultError::Corrupted(_)),
        "flipped header byte",
    );
    let mut future = good.clone();
    future[8..10].copy_from_slice(&3u16.to_le_bytes());
    check(
        &future,
        "pass phrase",
        |e| {
            matches!(
                e,
                VaultError::FutureVersion {
                    found: 3,
                    supported: 2
                }
            )
        },
        "future version",
    );
    check(
        b"{\"not\":\"a vault\"}",
        "pass phrase",
        |e| matches!(e, VaultError::NotAVault),
        "foreign file",
    );

    // A future-version file is already refused at open(), before any passphrase.
    fs::write(&path, &future).unwrap();
    assert!(matches!(
        Vault::open(&path),
        Err(VaultError::FutureVersion { .. })
    ));

    // And the intact file still opens afterwards.
    fs::write(&path, &good).unwrap();
    Vault::open_unlocked(&path, "pass phrase").unwrap();
}

#[test]
fn wrong_passphrase_leaves_vault_locked_and_retryable() {
    let d = TempDir::new("retry");
    let (path, v) = make(&d);
    drop(v);
    let v = Vault::open(&path).unwrap();
    assert!(matches!(v.unlock("nope"), Err(VaultError::WrongPassphrase)));
    assert!(!v.is_unlocked());
    v.unlock("pass phrase").unwrap();
    assert!(v.is_unlocked());
}

#[test]
fn lock_drops_secrets_and_voids_grants() {
    let d = TempDir::new("lock");
    let (_path, v) = make(&d);
    let agent = v.agent_view();
    let filler = v.filler();
    let page = Origin::parse("https://example.com/login").unwrap();
    let id = agent.entries_for_origin(&page).unwrap()[0].id.clone();
    let grant = agent.request_fill(&id, &page, FillTarget::Login).unwrap();
    v.lock();
    assert_eq!(agent.entries_for_origin(&page), Err(AgentError::Locked));
    assert!(filler.redeem(grant, &page).is_err());
    assert!(matches!(v.reveal_for_human(&id), Err(VaultError::Locked)));
    // A grant issued before lock stays void after a re-unlock.
    v.unlock("pass phrase").unwrap();
    let grant = agent.request_fill(&id, &page, FillTarget::Login).unwrap();
    v.lock();
    v.unlock("pass phrase").unwrap();
    assert_eq!(
        filler.redeem(grant, &page).unwrap_err(),
        aperture_vault::FillError::GrantInvalid
    );
}

#[test]
fn change_passphrase_rekeys_atomically() {
    let d = TempDir::new("chg");
    let (path, v) = make(&d);
    let old_salt = fs::read(&path).unwrap()[23..39].to_vec();
    v.change_passphrase("new phrase", Some(KdfParams::new(16, 2, 1).unwrap()))
        .unwrap();
    drop(v);
    assert!(matches!(
        Vault::open_unlocked(&path, "pass phrase"),
        Err(VaultError::WrongPassphrase)
    ));
    let v = Vault::open_unlocked(&path, "new phrase").unwrap();
    assert_eq!(v.kdf_params().unwrap(), KdfParams::new(16, 2, 1).unwrap());
    assert_ne!(fs::read(&path).unwrap()[23..39], old_salt[..]);
    assert_eq!(v.entries().unwrap().len(), 1);
}

#[test]
fn kdf_params_are_stored_in_the_header() {
    let d = TempDir::new("hdr");
    let path = d.0.join("h.vault");
    let p = KdfParams::new(24, 3, 2).unwrap();
    Vault::create_with_params(&path, "x", p).unwrap();
    let b = fs::read(&path).unwrap();
    let u = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!((u(11), u(15), u(19)), (24, 3, 2));
    assert_eq!(Vault::open_unlocked(&path, "x").unwrap().kdf_params().unwrap(), p);
}

#[test]
fn totp_for_human_and_nothing_in_debug_output() {
    let d = TempDir::new("totp");
    let (_path, v) = make(&d);
    let id = v.entries().unwrap()[0].id.clone();
    v.set_totp(
        &id,
        Some(Totp::from_base32("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").unwrap()),
    )
    .unwrap();
    let (code, left) = v.totp_now(&id).unwrap();
    assert_eq!(code.len(), 6);
    assert!((1..=30).contains(&left));
    let dbg = format!(
        "{:?} {:?}",
        v.reveal_for_human(&id).unwrap(),
        v.entries().unwrap()
    );
    assert!(!dbg.contains("pw-1234-xyz"), "{dbg}");
}

#[test]
fn stored_file_contains_no_plaintext() {
    let d = TempDir::new("plain");
    let (path, v) = make(&d);
    let id = v.entries().unwrap()[0].id.clone();
    v.set_notes(&id, "my bank pin is 4242").unwrap();
    let bytes = fs::read(&path).unwrap();
    let hay = String::from_utf8_lossy(&bytes);
    for needle in ["pw-1234-xyz", "ada", "4242", "example.com", "main"] {
        assert!(!hay.contains(needle), "{needle} in file");
    }
}

#[test]
fn edits_persist_and_failed_edits_change_nothing() {
    let d = TempDir::new("edit");
    let (path, v) = make(&d);
    let id = v.entries().unwrap()[0].id.clone();
    v.set_label(&id, "renamed").unwrap();
    v.set_username(&id, "ada2").unwrap();
    v.set_password(&id, "new-pw-5678".into()).unwrap();
    let before = fs::read(&path).unwrap();
    let missing = aperture_vault::EntryId::parse("e0000000000000000").unwrap();
    assert!(matches!(v.set_label(&missing, "x"), Err(VaultError::NotFound)));
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "a failed edit must not rewrite the file"
    );
    drop(v);
    let v = Vault::open_unlocked(&path, "pass phrase").unwrap();
    let e = &v.entries().unwrap()[0];
    assert_eq!((e.label.as_str(), e.username.as_str()), ("renamed", "ada2"));
    assert_eq!(v.reveal_for_human(&id).unwrap().password(), "new-pw-5678");
    v.delete_entry(&id).unwrap();
    assert!(v.entries().unwrap().is_empty());
    assert!(matches!(v.delete_entry(&id), Err(VaultError::NotFound)));
}

/// An older copy of the vault file put back in place is refused, at open and at unlock, with
/// a sentence saying what happened and how to accept it; nothing is written. Accepting it
/// makes that copy current, and then the newer copy it replaced is the one refused.
#[test]
fn an_older_copy_put_back_is_refused_until_accepted() {
    let d = TempDir::new("rollback");
    let (path, v) = make(&d);
    let old = fs::read(&path).unwrap();
    let o = Origin::parse("https://example.com").unwrap();
    v.add_entry(NewEntry {
        origin: &o,
        label: "saved later",
        username: "bob",
        password: "pw-later-5678".into(),
        totp: None,
    })
    .unwrap();
    let newer_generation = v.generation().unwrap();
    drop(v);
    let newer = fs::read(&path).unwrap();
    let record = aperture_vault::file::generation_path(&path);
    assert_eq!(record, d.0.join("v.generation"));
    assert_eq!(
        fs::read_to_string(&record).unwrap().trim(),
        newer_generation.to_string()
    );

    fs::write(&path, &old).unwrap();
    let err = Vault::open(&path).err().expect("an older copy opened");
    assert!(
        matches!(err, VaultError::RolledBack { found, last_seen } if found < last_seen && last_seen == newer_generation),
        "{err:?}"
    );
    let msg = err.to_string();
    for needle in [
        "older copy",
        "put back",
        "would be lost",
        "aperture vault accept-rollback",
    ] {
        assert!(msg.contains(needle), "{needle:?} missing from: {msg}");
    }
    // The unlock path checks the authenticated number too (a Vault opened before the file was
    // swapped must not unlock the old copy).
    fs::write(&path, &newer).unwrap();
    let handle = Vault::open(&path).unwrap();
    fs::write(&path, &old).unwrap();
    assert!(matches!(
        handle.unlock("pass phrase"),
        Err(VaultError::RolledBack { .. })
    ));
    assert!(!handle.is_unlocked());
    assert_eq!(fs::read(&path).unwrap(), old, "a refused open wrote the file");

    // The human accepts the old copy deliberately.
    assert!(matches!(
        Vault::accept_rollback(&path, "wrong"),
        Err(VaultError::WrongPassphrase)
    ));
    let (found, last_seen) = Vault::accept_rollback(&path, "pass phrase").unwrap();
    assert_eq!(last_seen, Some(newer_generation));
    assert!(found < newer_generation);
    let v = Vault::open_unlocked(&path, "pass phrase").unwrap();
    assert_eq!(v.entries().unwrap().len(), 1, "the accepted copy is the old one");
    assert!(v.generation().unwrap() > newer_generation);
    drop(v);
    // Now the formerly newer copy is the stale one.
    fs::write(&path, &newer).unwrap();
    assert!(matches!(Vault::open(&path), Err(VaultError::RolledBack { .. })));
}

/// A record that lags the file (a crash between the vault write and the record write, or a
/// vault from before records) is not a rollback, and unlocking moves it up.
#[test]
fn a_lagging_or_missing_record_is_caught_up() {
    let d = TempDir::new("lag");
    let (path, v) = make(&d);
    let g = v.generation().unwrap();
    drop(v);
    let record = aperture_vault::file::generation_path(&path);
    fs::write(&record, format!("{}\n", g - 1)).unwrap();
    Vault::open_unlocked(&path, "pass phrase").unwrap();
    assert_eq!(fs::read_to_string(&record).unwrap().trim(), g.to_string());
    fs::remove_file(&record).unwrap();
    Vault::open_unlocked(&path, "pass phrase").unwrap();
    assert_eq!(fs::read_to_string(&record).unwrap().trim(), g.to_string());
    // A damaged record is refused (it cannot vouch for anything), and accepting fixes it.
    fs::write(&record, "not a number").unwrap();
    assert!(matches!(Vault::open(&path), Err(VaultError::GenerationRecord(_))));
    Vault::accept_rollback(&path, "pass phrase").unwrap();
    Vault::open_unlocked(&path, "pass phrase").unwrap();
}

/// The vault file and its generation record are private from creation and stay so across
/// saves, even over a file someone made world-readable.
#[cfg(unix)]
#[test]
fn vault_files_are_0600() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let d = TempDir::new("mode");
    let (path, v) = make(&d);
    let record = aperture_vault::file::generation_path(&path);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&record), 0o600);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(&record, fs::Permissions::from_mode(0o644)).unwrap();
    v.set_label(&v.entries().unwrap()[0].id, "again").unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&record), 0o600);
}
