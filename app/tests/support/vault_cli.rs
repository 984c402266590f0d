//! The human's vault command line (`aperture vault …`) for tests: the passphrase from a file,
//! secrets and profile facts on stdin (never argv, as the CLI requires).

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `aperture vault --profile PROFILE --passphrase-file PASS ARGS…` with `stdin`.
pub fn output(profile: &Path, pass: &Path, args: &[&str], stdin: &str) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_aperture"))
        .arg("vault")
        .arg("--profile")
        .arg(profile)
        .arg("--passphrase-file")
        .arg(pass)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aperture vault");
    c.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    c.wait_with_output().unwrap()
}

/// Like [`output`], asserting success; its stdout, trimmed.
pub fn run(profile: &Path, pass: &Path, args: &[&str], stdin: &str) -> String {
    let out = output(profile, pass, args, stdin);
    assert!(
        out.status.success(),
        "aperture vault {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A new vault on `profile` (passphrase in `pass`, written here; the fast test KDF) holding
/// one login for `origin`; the entry's id.
pub fn with_login(
    profile: &Path,
    pass: &Path,
    origin: &str,
    label: &str,
    username: &str,
    password: &str,
) -> String {
    std::fs::write(pass, "a long test passphrase\n").unwrap();
    run(profile, pass, &["init", "--insecure-fast-kdf"], "");
    run(
        profile,
        pass,
        &[
            "add",
            "--origin",
            origin,
            "--label",
            label,
            "--username",
            username,
        ],
        &format!("{password}\n"),
    )
}
