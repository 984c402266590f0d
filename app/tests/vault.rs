//! The vault end to end, with the real browser: a vault created by the human's CLI in a temp
//! profile, the browser unlocking it from a passphrase file with fills pre-authorized for one
//! origin, and a real MCP client that lists entries, has the browser fill a login form, and
//! then tries to get the values back out (it must not), plus the refusals.
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
            "--totp",
            "JBSWY3DPEHPK3PXP",
        ],
        Some(&format!("{PASSWORD}\n")),
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
    let out = Command::new(exe())
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

    // The surface: the two vault tools, and nothing that could hand a secret over.
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
            ["tab", "entry", "username", "password", "one_time_code"].contains(&arg.as_str()),
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
