//! The vault end to end, with the real browser: a vault created by the human's CLI in a temp
//! profile, the browser unlocking it from a passphrase file with fills pre-authorized for one
//! origin, and a real MCP client that lists entries, has the browser fill a login form, and
//! then tries to get the values back out (it must not), plus the refusals.
//!
//! Also: the vault at rest (private files, rollback refused, TOTP seeds never on argv) and
//! redaction following a filled value into another tab of the same site.
//!
//! Uses `vault init --insecure-fast-kdf` (a hidden, test-only flag) so the KDF costs
//! milliseconds instead of the calibrated half second per unlock.

use aperture_testkit::mcp::{CallToolResult, call, role_ref, text};
use aperture_testkit::{Launch, Server, cef_dir};

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_aperture")
}

const USERNAME: &str = "ada.lovelace";
const PASSWORD: &str = "Tr0ub4dor&3-correct-horse";
const MARKER: &str = "[redacted:vault]";

/// A sign-in form. On submit the page proves it received the password (its length and a hash,
/// never the value) in the title, whether every keystroke was trusted, and echoes the username
/// into the page, which is exactly the echo redaction must catch.
const LOGIN: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body>
<h1>Sign in</h1>
<form id="f">
<label>Username <input id="u" name="username" autocomplete="username"></label>
<label>Password <input id="p" type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>
<p id="out">not signed in</p>
<script>
let trusted = true, keys = 0;
for (const id of ["u", "p"]) {
  document.getElementById(id).addEventListener("keydown", e => { keys++; trusted = trusted && e.isTrusted; });
}
document.getElementById("f").addEventListener("submit", e => {
  e.preventDefault();
  const u = document.getElementById("u").value, p = document.getElementById("p").value;
  let h = 0;
  for (let i = 0; i < p.length; i++) h = (h * 31 + p.charCodeAt(i)) >>> 0;
  document.title = "got len " + p.length + " hash " + h + " trusted " + (trusted && keys > 0 ? "yes" : "no");
  document.getElementById("out").textContent = "Welcome back, " + u + "!";
  console.error("signed in as " + u);
});
</script></body></html>"#;

/// A two-factor step: proves it got a code of six digits and echoes it.
const OTP: &str = r#"<!doctype html><html><head><title>Two-factor</title></head><body>
<label>Code <input id="c" autocomplete="one-time-code" inputmode="numeric"></label>
<button id="b">Verify</button><p id="o"></p>
<script>
document.getElementById("b").onclick = () => {
  const v = document.getElementById("c").value;
  document.title = "otp len " + v.length + " digits " + (/^[0-9]+$/.test(v) ? "yes" : "no");
  document.getElementById("o").textContent = "You entered " + v;
};
</script></body></html>"#;

fn js_hash(s: &str) -> u32 {
    s.encode_utf16()
        .fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(c as u32))
}

fn vault_cli(profile: &Path, pass: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let mut c = Command::new(exe())
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
    let mut i = c.stdin.take().unwrap();
    if let Some(s) = stdin {
        i.write_all(s.as_bytes()).unwrap();
    }
    drop(i);
    let out = c.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "aperture vault {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `aperture vault --profile P --passphrase-file F ARGS`, with `stdin`, whatever the outcome.
fn vault_cli_output(profile: &Path, pass: &Path, args: &[&str], stdin: &str) -> std::process::Output {
    let mut c = Command::new(exe())
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
    let mut i = c.stdin.take().unwrap();
    // A command refused before it reads stdin (a seed on the command line) may have exited
    // already: the write then fails with a broken pipe, and its output is what is checked.
    let _ = i.write_all(stdin.as_bytes());
    drop(i);
    c.wait_with_output().unwrap()
}

/// A scratch directory with a passphrase file and (not yet created) profile, removed on drop.
struct Scratch {
    dir: std::path::PathBuf,
    profile: std::path::PathBuf,
    pass: std::path::PathBuf,
}

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("aperture-vault-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pass = dir.join("passphrase");
        std::fs::write(&pass, "a long test passphrase\n").unwrap();
        Scratch {
            profile: dir.join("profile"),
            pass,
            dir,
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o777
}

#[cfg(unix)]
fn set_mode(p: &Path, m: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

fn ok(r: &CallToolResult) -> String {
    let t = text(r);
    assert_ne!(r.is_error, Some(true), "{t}");
    t
}

fn refused(r: &CallToolResult) -> String {
    let t = text(r);
    assert_eq!(r.is_error, Some(true), "expected a refusal:\n{t}");
    t
}

/// Neither secret, in any form the test can think of, anywhere in `t`.
fn assert_clean(t: &str, what: &str) {
    assert!(!t.contains(USERNAME), "{what} leaked the username:\n{t}");
    assert!(!t.contains(PASSWORD), "{what} leaked the password:\n{t}");
}

fn ref_on(snapshot: &str, needle: &str) -> String {
    role_ref(snapshot, "textbox", needle)
}

fn button_ref(snapshot: &str, needle: &str) -> String {
    role_ref(snapshot, "button", needle)
}

/// The last harness line of a refusal (its reason), without tab numbers.
fn reason(t: &str) -> String {
    t.lines()
        .find(|l| l.starts_with("vault:"))
        .unwrap_or_else(|| panic!("no vault reason in:\n{t}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn vault_fill_end_to_end() {
    cef_dir();
    let scratch = std::env::temp_dir().join(format!("aperture-vault-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let profile = scratch.join("profile");
    let pass = scratch.join("passphrase");
    std::fs::write(&pass, "a long test passphrase\n").unwrap();

    // A: has an entry, fills allowed. B: no entry, fills allowed. C: has an entry, not allowed.
    let routes = || {
        HashMap::from([
            ("/login".to_string(), LOGIN.to_string()),
            ("/otp".to_string(), OTP.to_string()),
        ])
    };
    let (a, b, c) = (
        Server::start(routes(), None),
        Server::start(routes(), None),
        Server::start(routes(), None),
    );

    // The human's side: create, add, list. The CLI takes the password on stdin only.
    vault_cli(&profile, &pass, &["init", "--insecure-fast-kdf"], None);
    let id_a = vault_cli(
        &profile,
        &pass,
        &[
            "add",
            "--origin",
            &a.url("/login"),
            "--label",
            "Test login",
            "--username",
            USERNAME,
            // The seed comes on stdin, after the password (never on the command line).
            "--totp",
        ],
        Some(&format!("{PASSWORD}\nJBSWY3DPEHPK3PXP\n")),
    )
    .trim()
    .to_string();
    let id_c = vault_cli(
        &profile,
        &pass,
        &[
            "add",
            "--origin",
            &c.url("/"),
            "--label",
            "Other site",
            "--username",
            "someone.else",
        ],
        Some("another-password-123\n"),
    )
    .trim()
    .to_string();
    assert!(id_a.starts_with('e') && id_c.starts_with('e') && id_a != id_c);
    let listed = vault_cli(&profile, &pass, &["list"], None);
    assert!(
        listed.contains(&id_a) && listed.contains("Test login"),
        "{listed}"
    );
    assert!(
        !listed.contains(PASSWORD),
        "`vault list` printed a password:\n{listed}"
    );
    // A wrong passphrase is refused by the CLI.
    let bad = scratch.join("bad");
    std::fs::write(&bad, "not it\n").unwrap();
    let out = Command::new(exe())
        .args(["vault", "--profile"])
        .arg(&profile)
        .arg("--passphrase-file")
        .arg(&bad)
        .arg("list")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong passphrase"));
    // So is the browser, before Chromium starts: it never runs with a vault the human thinks
    // is open.
    let out = aperture_testkit::browser_command(exe())
        .args(["--headless", "--mcp-port", "0", "--vault-passphrase-file"])
        .arg(&bad)
        .arg("--profile")
        .arg(&profile)
        .env("XDG_CONFIG_HOME", scratch.join("config"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wrong passphrase"),
        "{out:?}"
    );

    // The browser, unlocked from the file, consent given for A and B only.
    let browser = Launch::new(exe())
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .args(["--vault-allow-fill", &a.base, "--vault-allow-fill", &b.base])
        .profile(&profile)
        .start()
        .await;
    let cl = browser.connect().await;

    // The surface: the vault tools, and nothing that could hand a secret over.
    let tools = cl.list_all_tools().await.unwrap();
    assert!(tools.len() <= 14);
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"vault_entries_for_origin") && names.contains(&"vault_request_fill"),
        "{names:?}"
    );
    for t in &tools {
        let all = format!(
            "{} {} {}",
            t.name,
            t.description.as_deref().unwrap_or(""),
            serde_json::Value::Object((*t.input_schema).clone())
        )
        .to_lowercase();
        for bad in ["reveal", "export", "unlock", "get_password", "show_password"] {
            assert!(!all.contains(bad), "tool {} mentions {bad:?}", t.name);
        }
    }
    let fill_schema = serde_json::Value::Object(
        (*tools
            .iter()
            .find(|t| t.name == "vault_request_fill")
            .unwrap()
            .input_schema)
            .clone(),
    );
    for arg in fill_schema["properties"].as_object().unwrap().keys() {
        assert!(
            [
                "tab",
                "entry",
                "username",
                "password",
                "one_time_code",
                "generate_password",
                "confirm_password",
                "attachment",
                "file_input",
            ]
            .contains(&arg.as_str()),
            "vault_request_fill takes {arg:?}: no origin, path or override argument may exist"
        );
    }

    // A: the entry is listed by id and label, with nothing secret.
    ok(&call(
        &cl,
        "browser_tabs",
        json!({"action": "open", "url": a.url("/login")}),
    )
    .await);
    let r = ok(&call(&cl, "vault_entries_for_origin", json!({})).await);
    assert!(r.contains(&id_a) && r.contains("\"Test login\""), "{r}");
    assert!(!r.contains(&id_c), "another site's entry was listed:\n{r}");
    assert_clean(&r, "vault_entries_for_origin");

    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let user_ref = ref_on(&snap, "Username");
    let pass_ref = ref_on(&snap, "Password");
    let submit = button_ref(&snap, "Sign in");

    // A password goes only into a password input.
    refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": id_a, "password": user_ref}),
        )
        .await,
    );

    let r = call(
        &cl,
        "vault_request_fill",
        json!({"entry": id_a, "username": user_ref, "password": pass_ref}),
    )
    .await;
    let r = ok(&r);
    assert_clean(&r, "vault_request_fill");
    assert!(r.contains("filled"), "{r}");
    // The field holds the value, but the observation shows the marker in its place.
    let value_line = r
        .lines()
        .find(|l| l.contains(&user_ref) && l.contains("value="))
        .unwrap_or("");
    assert!(value_line.contains(MARKER), "{r}");

    // Reading the fields does not return the values either.
    let r = ok(&call(&cl, "browser_read", json!({"refs": [user_ref, pass_ref]})).await);
    assert_clean(&r, "browser_read of the filled fields");

    // Submit: the page got the real password through trusted keystrokes, and echoes the
    // username, which must not reach the agent.
    let r = ok(&call(&cl, "browser_act", json!({"action": "click", "ref": submit})).await);
    assert_clean(&r, "the diff after submitting");
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    assert_clean(&snap, "a full snapshot after the fill");
    let want = format!(
        "got len {} hash {} trusted yes",
        PASSWORD.len(),
        js_hash(PASSWORD)
    );
    assert!(
        snap.contains(&want),
        "the page did not receive the password ({want}):\n{snap}"
    );
    let page = ok(&call(&cl, "browser_read", json!({})).await);
    assert_clean(&page, "browser_read of the page");
    assert!(page.contains(&format!("Welcome back, {MARKER}!")), "{page}");
    let console = ok(&call(&cl, "browser_console", json!({})).await);
    assert_clean(&console, "browser_console");
    assert!(console.contains("signed in as"), "{console}");
    let tabs = ok(&call(&cl, "browser_tabs", json!({"action": "list"})).await);
    assert_clean(&tabs, "browser_tabs");

    // A's two-factor step: the code is typed, reaches the page, and its echo is redacted.
    assert!(
        text(&call(&cl, "vault_entries_for_origin", json!({})).await).contains("one-time code available")
    );
    ok(&call(
        &cl,
        "browser_navigate",
        json!({"action": "goto", "url": a.url("/otp")}),
    )
    .await);
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let code = ref_on(&snap, "Code");
    let verify = button_ref(&snap, "Verify");
    ok(&call(
        &cl,
        "vault_request_fill",
        json!({"entry": id_a, "one_time_code": code}),
    )
    .await);
    ok(&call(&cl, "browser_act", json!({"action": "click", "ref": verify})).await);
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    assert!(snap.contains("otp len 6 digits yes"), "{snap}");
    let page = ok(&call(&cl, "browser_read", json!({})).await);
    assert!(page.contains(&format!("You entered {MARKER}")), "{page}");
    ok(&call(
        &cl,
        "browser_navigate",
        json!({"action": "goto", "url": a.url("/login")}),
    )
    .await);
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let user_ref = ref_on(&snap, "Username");

    // On A, another site's id and a made-up id are refused with the same words.
    let foreign = reason(&refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": id_c, "username": user_ref}),
        )
        .await,
    ));
    let unknown = reason(&refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": "e0123456789abcdef", "username": user_ref}),
        )
        .await,
    ));
    let garbage = reason(&refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": "../../etc/passwd", "username": user_ref}),
        )
        .await,
    ));
    assert_eq!(foreign, unknown);
    assert_eq!(foreign, garbage);
    assert!(
        foreign.contains("no such entry for this page's origin"),
        "{foreign}"
    );

    // B (fills allowed, no entry): nothing listed, A's id refused the same way.
    ok(&call(
        &cl,
        "browser_navigate",
        json!({"action": "goto", "url": b.url("/login")}),
    )
    .await);
    let r = ok(&call(&cl, "vault_entries_for_origin", json!({})).await);
    assert!(
        !r.contains(&id_a) && !r.contains(&id_c) && r.contains("none saved"),
        "{r}"
    );
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let (u, p) = (ref_on(&snap, "Username"), ref_on(&snap, "Password"));
    let t = refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": id_a, "username": u, "password": p}),
        )
        .await,
    );
    assert_eq!(reason(&t), foreign);

    // C (an entry exists, the human did not allow fills): refused before the id is looked at.
    ok(&call(
        &cl,
        "browser_navigate",
        json!({"action": "goto", "url": c.url("/login")}),
    )
    .await);
    let r = ok(&call(&cl, "vault_entries_for_origin", json!({})).await);
    assert!(r.contains(&id_c) && !r.contains(&id_a), "{r}");
    assert!(
        !r.contains("someone.else") && !r.contains("another-password-123"),
        "{r}"
    );
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let (u, p) = (ref_on(&snap, "Username"), ref_on(&snap, "Password"));
    let t = refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": id_c, "username": u, "password": p}),
        )
        .await,
    );
    assert!(reason(&t).contains("has not allowed vault fills"), "{t}");
    let r = ok(&call(&cl, "browser_read", json!({"refs": [u]})).await);
    assert!(!r.contains("someone.else"), "a refused fill typed anyway:\n{r}");

    drop(cl);
    // The browser first (kill and wait), then the profile it ran in.
    drop(browser);
    std::fs::remove_dir_all(&scratch).ok();
}

/// A TOTP seed is never taken from the command line: `--totp SEED` (either spelling) is refused
/// without echoing the seed and without touching the vault; `--totp` alone reads it from stdin,
/// the line after the password.
#[test]
fn totp_seed_is_never_taken_from_argv() {
    const SEED: &str = "JBSWY3DPEHPK3PXP";
    let s = Scratch::new("totp");
    vault_cli(&s.profile, &s.pass, &["init", "--insecure-fast-kdf"], None);
    let before = std::fs::read(s.profile.join("vault.aperture")).unwrap();
    let add = |extra: &[&str], stdin: &str| {
        let mut args = vec!["add", "--origin", "https://example.com/login", "--label", "L"];
        args.extend_from_slice(extra);
        vault_cli_output(&s.profile, &s.pass, &args, stdin)
    };
    for argv in [vec!["--totp", SEED], vec!["--totp=JBSWY3DPEHPK3PXP"]] {
        let out = add(&argv, "pw-123456\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{argv:?} was accepted");
        assert!(err.contains("--totp takes no value"), "{argv:?}: {err}");
        assert!(err.contains("stdin"), "the refusal says how to pass it: {err}");
        assert!(!err.contains(SEED), "the refusal repeated the seed: {err}");
    }
    assert_eq!(
        std::fs::read(s.profile.join("vault.aperture")).unwrap(),
        before,
        "a refused add wrote the vault"
    );
    // --totp without a seed on stdin: refused, not stored without one.
    let out = add(&["--totp"], "pw-123456\n");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no seed on stdin"),
        "{out:?}"
    );
    // The supported way.
    let out = add(&["--totp"], &format!("pw-123456\n{SEED}\n"));
    assert!(out.status.success(), "{out:?}");
    let listed = vault_cli(&s.profile, &s.pass, &["list"], None);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(listed.trim_end().ends_with("\ttotp"), "{listed}");
    // Without --totp, a second stdin line is not taken as a seed.
    let out = add(&[], &format!("pw-654321\n{SEED}\n"));
    assert!(out.status.success(), "{out:?}");
    let listed = vault_cli(&s.profile, &s.pass, &["list"], None);
    assert_eq!(listed.matches("\ttotp").count(), 1, "{listed}");
}

/// An older copy of the vault file put back in place is refused by the CLI and by the browser
/// (before Chromium starts), with a sentence saying what happened and the command that accepts
/// it; `aperture vault accept-rollback` then makes that copy current.
#[test]
fn a_rolled_back_vault_is_refused_until_the_human_accepts_it() {
    cef_dir();
    let s = Scratch::new("rollback");
    let vault = s.profile.join("vault.aperture");
    vault_cli(&s.profile, &s.pass, &["init", "--insecure-fast-kdf"], None);
    let add = |label: &str| {
        vault_cli(
            &s.profile,
            &s.pass,
            &["add", "--origin", "https://example.com/", "--label", label],
            Some("a-password-123\n"),
        )
    };
    add("kept");
    let old = std::fs::read(&vault).unwrap();
    add("saved later");
    let newer = std::fs::read(&vault).unwrap();
    std::fs::write(&vault, &old).unwrap();

    let check = |err: &str, who: &str| {
        for needle in [
            "older copy of the vault was put back",
            "would be lost",
            "accept-rollback",
            &format!("aperture vault --profile {} accept-rollback", s.profile.display()),
        ] {
            assert!(err.contains(needle), "{who}: {needle:?} missing from:\n{err}");
        }
    };
    let out = vault_cli_output(&s.profile, &s.pass, &["list"], "");
    assert!(!out.status.success(), "the CLI opened an older copy");
    check(&String::from_utf8_lossy(&out.stderr), "vault list");
    let out = aperture_testkit::browser_command(exe())
        .args(["--headless", "--mcp-port", "0", "--vault-passphrase-file"])
        .arg(&s.pass)
        .arg("--profile")
        .arg(&s.profile)
        .env("XDG_CONFIG_HOME", s.dir.join("config"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "the browser started on an older copy");
    check(&String::from_utf8_lossy(&out.stderr), "the browser");
    assert_eq!(std::fs::read(&vault).unwrap(), old, "a refusal wrote the vault");

    // The human accepts it: the old copy is the vault now, and the newer one is the stale copy.
    let out = vault_cli_output(&s.profile, &s.pass, &["accept-rollback"], "");
    assert!(out.status.success(), "{out:?}");
    let listed = vault_cli(&s.profile, &s.pass, &["list"], None);
    assert!(
        listed.contains("kept") && !listed.contains("saved later"),
        "{listed}"
    );
    std::fs::write(&vault, &newer).unwrap();
    let out = vault_cli_output(&s.profile, &s.pass, &["list"], "");
    assert!(!out.status.success(), "the replaced copy opened after the accept");
}

/// The vault file is written 0600, and a profile left group/world-readable (by an older build,
/// or by hand) is made private when the browser starts on it.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn the_profile_is_made_private_on_start() {
    cef_dir();
    let s = Scratch::new("modes");
    vault_cli(&s.profile, &s.pass, &["init", "--insecure-fast-kdf"], None);
    let vault = s.profile.join("vault.aperture");
    let record = s.profile.join("vault.generation");
    assert_eq!(mode(&s.profile), 0o700, "vault init made a non-private profile");
    assert_eq!(mode(&vault), 0o600);
    assert_eq!(mode(&record), 0o600);
    // Loosen everything the way an older build left it.
    let default = s.profile.join("Default");
    std::fs::create_dir_all(default.join("Local Storage")).unwrap();
    std::fs::write(default.join("Cookies"), b"").unwrap();
    std::fs::write(s.profile.join("notes.txt"), b"the human's own file").unwrap();
    let loose_files = [
        vault.clone(),
        record.clone(),
        default.join("Cookies"),
        s.profile.join("notes.txt"),
    ];
    let loose_dirs = [s.profile.clone(), default.clone(), default.join("Local Storage")];
    for f in &loose_files {
        set_mode(f, 0o644);
    }
    for d in &loose_dirs {
        set_mode(d, 0o755);
    }

    let browser = Launch::new(exe())
        .arg("--vault-passphrase-file")
        .arg(&s.pass)
        .profile(&s.profile)
        .start()
        .await;
    let cl = browser.connect().await;
    ok(&call(&cl, "browser_tabs", json!({"action": "list"})).await);
    for d in &loose_dirs {
        assert_eq!(mode(d), 0o700, "{}", d.display());
    }
    for f in &loose_files {
        if f.exists() {
            assert_eq!(mode(f), 0o600, "{}", f.display());
        }
    }
    assert_eq!(mode(&vault), 0o600);
    drop(cl);
    drop(browser);
}

/// Redaction follows the secret, not the tab: the page the vault filled keeps the password in
/// localStorage, the filled tab is closed, and a new tab of the same site (same container)
/// writes it into the DOM. Nothing read from that tab may carry it.
#[tokio::test(flavor = "multi_thread")]
async fn a_value_filled_on_a_site_is_redacted_in_its_other_tabs() {
    cef_dir();
    const STORE: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body>
<form id="f">
<label>Username <input id="u" name="username" autocomplete="username"></label>
<label>Password <input id="p" type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>
<script>
document.getElementById("p").addEventListener("input", e => localStorage.setItem("pw", e.target.value));
</script></body></html>"#;
    // Proves it has the value (length and hash in the title) and shows it in the page.
    const SHOW: &str = r#"<!doctype html><html><head><title>Account</title></head><body>
<p id="o"></p>
<script>
const v = localStorage.getItem("pw") || "";
let h = 0;
for (let i = 0; i < v.length; i++) h = (h * 31 + v.charCodeAt(i)) >>> 0;
document.title = "stored len " + v.length + " hash " + h;
document.getElementById("o").textContent = "Your password is " + v;
console.log("stored " + v);
</script></body></html>"#;
    let s = Scratch::new("follow");
    let server = Server::start(
        HashMap::from([
            ("/login".to_string(), STORE.to_string()),
            ("/show".to_string(), SHOW.to_string()),
        ]),
        None,
    );
    vault_cli(&s.profile, &s.pass, &["init", "--insecure-fast-kdf"], None);
    let id = vault_cli(
        &s.profile,
        &s.pass,
        &[
            "add",
            "--origin",
            &server.url("/login"),
            "--label",
            "L",
            "--username",
            USERNAME,
        ],
        Some(&format!("{PASSWORD}\n")),
    )
    .trim()
    .to_string();
    let browser = Launch::new(exe())
        .arg("--vault-passphrase-file")
        .arg(&s.pass)
        .args(["--vault-allow-fill", &server.base])
        .profile(&s.profile)
        .start()
        .await;
    let cl = browser.connect().await;

    // Tab A: the fill.
    let opened = ok(&call(
        &cl,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/login")}),
    )
    .await);
    let tab_a = aperture_testkit::mcp::opened_tab(&opened);
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let (u, p) = (ref_on(&snap, "Username"), ref_on(&snap, "Password"));
    ok(&call(
        &cl,
        "vault_request_fill",
        json!({"entry": id, "username": u, "password": p}),
    )
    .await);
    // The fill's own tab is closed: what remains is the site's copy in localStorage.
    ok(&call(&cl, "browser_tabs", json!({"action": "close", "tab": tab_a})).await);

    // Tab B: same site, same (default) container, never filled.
    let opened = ok(&call(
        &cl,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/show")}),
    )
    .await);
    assert!(!opened.contains(&format!("opened tab {tab_a} ")), "{opened}");
    assert_clean(&opened, "opening the second tab");
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let want = format!("stored len {} hash {}", PASSWORD.len(), js_hash(PASSWORD));
    assert!(
        snap.contains(&want),
        "the page did not get the password from localStorage ({want}):\n{snap}"
    );
    assert_clean(&snap, "a snapshot of the second tab");
    let page = ok(&call(&cl, "browser_read", json!({})).await);
    assert_clean(&page, "browser_read of the second tab");
    assert!(page.contains(&format!("Your password is {MARKER}")), "{page}");
    let console = ok(&call(&cl, "browser_console", json!({})).await);
    assert_clean(&console, "browser_console of the second tab");
    let tabs = ok(&call(&cl, "browser_tabs", json!({"action": "list"})).await);
    assert_clean(&tabs, "browser_tabs");
    // Searching the tab's text for words would answer guesses about the filled value one at a
    // time: refused on this tab whatever the words, and nothing is selected.
    for probe in [PASSWORD, "Your password"] {
        let r = call(
            &cl,
            "browser_act",
            json!({"action": "select_text", "text": probe}),
        )
        .await;
        let t = text(&r);
        assert!(
            r.is_error == Some(true) && t.contains("vault") && t.contains("before any input was sent"),
            "select_text {probe:?} on a tab the vault's value reached:\n{t}"
        );
        assert_clean(&t, "select_text");
    }

    drop(cl);
    drop(browser);
}

/// Sign-in forms whose field hands focus to a cookie banner the moment it gets it: on `/first`
/// the username field does, on `/second` the password field. Every key the page receives is
/// reported to `/k/<target id>`.
fn focus_thief(thief: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>Sign in</title></head><body>
<label>Username <input id="u" autocomplete="username"></label>
<label>Password <input id="p" type="password" autocomplete="current-password"></label>
<div role="dialog" aria-label="Cookies"><button id="ok">Accept cookies</button></div>
<script>
document.getElementById("{thief}").addEventListener("focus", () => document.getElementById("ok").focus());
document.addEventListener("keydown", (e) => fetch("/k/" + e.target.id, {{keepalive: true}}));
</script></body></html>"#
    )
}

/// A fill whose focus never reaches the field types nothing and says so: a refusal with
/// nothing sent when it is the first field, and "the username was filled, nothing was typed
/// into the password field" when it is the second; never OUTCOME UNKNOWN, which is only for
/// characters that may have gone in.
#[tokio::test(flavor = "multi_thread")]
async fn a_fill_whose_focus_is_taken_types_nothing_and_says_so() {
    cef_dir();
    let s = Scratch::new("focus-thief");
    let server = Server::start(
        HashMap::from([
            ("/first".to_string(), focus_thief("u")),
            ("/second".to_string(), focus_thief("p")),
        ]),
        None,
    );
    vault_cli(&s.profile, &s.pass, &["init", "--insecure-fast-kdf"], None);
    let entry = vault_cli(
        &s.profile,
        &s.pass,
        &[
            "add",
            "--origin",
            &server.base,
            "--label",
            "Login",
            "--username",
            USERNAME,
        ],
        Some(&format!("{PASSWORD}\n")),
    )
    .trim()
    .to_string();
    let browser = Launch::new(exe())
        .arg("--vault-passphrase-file")
        .arg(&s.pass)
        .args(["--vault-allow-fill", &server.base])
        .profile(&s.profile)
        .start()
        .await;
    let cl = browser.connect().await;
    let keys = || -> Vec<String> {
        server
            .requests()
            .into_iter()
            .filter(|p| p.starts_with("/k/"))
            .collect()
    };

    ok(&call(
        &cl,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/first")}),
    )
    .await);
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let (u, p) = (ref_on(&snap, "Username"), ref_on(&snap, "Password"));
    let t = refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": entry, "username": u, "password": p}),
        )
        .await,
    );
    assert_clean(&t, "the refused fill");
    assert!(!t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(t.contains("nothing was filled:"), "{t}");
    assert!(
        t.contains("keyboard focus is not on the field, so nothing was typed; focus is on:"),
        "{t}"
    );
    assert!(t.contains("Accept cookies"), "{t}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(keys().is_empty(), "keys reached the page: {:?}", keys());

    // The second field's focus is taken: the username is in, the password field untouched.
    ok(&call(
        &cl,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/second")}),
    )
    .await);
    let snap = ok(&call(&cl, "browser_snapshot", json!({"full": true})).await);
    let (u, p) = (ref_on(&snap, "Username"), ref_on(&snap, "Password"));
    let t = refused(
        &call(
            &cl,
            "vault_request_fill",
            json!({"entry": entry, "username": u, "password": p}),
        )
        .await,
    );
    assert_clean(&t, "the stopped fill");
    assert!(!t.contains("OUTCOME UNKNOWN"), "{t}");
    assert!(
        t.contains("the username was filled; nothing was typed into the password field: keyboard focus is not on the field"),
        "{t}"
    );
    // The page reports each key with a fetch of its own, which can reach the server well after
    // the tool has answered on a loaded machine: wait for the first, then give any stray key
    // into the password field the same settle the refused fill above got before checking.
    aperture_testkit::eventually(
        std::time::Duration::from_secs(20),
        "the username's keys reaching the page",
        async || {
            let got = keys();
            (!got.is_empty(), got)
        },
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let got = keys();
    // Keys into the username field only (a character without a key, such as '.', has no keydown).
    assert!(!got.is_empty() && got.iter().all(|k| k == "/k/u"), "{got:?}");

    drop(cl);
    drop(browser);
}
