//! Generated passwords for sign-ups, against the real browser over MCP: the browser creates a
//! password, saves it for the password field's origin with the username the page holds, and
//! types it into the password and confirmation fields; the agent gets the entry id and never
//! the value; a later sign-in fill of that entry types the same value; a field that is not a
//! password input gets nothing and no entry is made.

#![forbid(unsafe_code)]

#[path = "support/vault_cli.rs"]
mod vault_cli;

use aperture_testkit::mcp::{CallToolResult, call, role_ref, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;

const EMAIL: &str = "ada@example.org";

/// The page shows, on submit, the password's length, a hash of it, and whether the two fields
/// matched, in its title (never the value).
const SIGNUP: &str = r#"<!doctype html><html><head><title>Sign up</title></head><body>
<form id="f">
<label>Email <input id="e" type="email" autocomplete="username"></label>
<label>New password <input id="p" type="password" autocomplete="new-password"></label>
<label>Confirm password <input id="c" type="password" autocomplete="new-password"></label>
<button type="submit">Create account</button>
</form>
<script>
function hash(p) { let h = 0; for (let i = 0; i < p.length; i++) h = (h * 31 + p.charCodeAt(i)) >>> 0; return h; }
document.getElementById("f").addEventListener("submit", ev => {
  ev.preventDefault();
  const p = document.getElementById("p").value, c = document.getElementById("c").value;
  document.title = "len " + p.length + " hash " + hash(p) + " match " + (p === c ? "yes" : "no");
});
</script></body></html>"#;

const LOGIN: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body>
<form id="f">
<label>Email <input id="e" autocomplete="username"></label>
<label>Password <input id="p" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>
<script>
function hash(p) { let h = 0; for (let i = 0; i < p.length; i++) h = (h * 31 + p.charCodeAt(i)) >>> 0; return h; }
document.getElementById("f").addEventListener("submit", ev => {
  ev.preventDefault();
  const p = document.getElementById("p").value;
  document.title = "login len " + p.length + " hash " + hash(p) + " user " + document.getElementById("e").value;
});
</script></body></html>"#;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_aperture")
}

fn ok(r: &CallToolResult) -> String {
    let t = text(r);
    assert_ne!(r.is_error, Some(true), "{t}");
    t
}

/// The page's title, as the tab list reports it, once the page has set one starting with
/// `prefix` (a submit handler runs after the click's answer, seconds later on a loaded machine).
async fn title(c: &aperture_testkit::mcp::Client, prefix: &str) -> String {
    let (line, tabs) = aperture_testkit::eventually(
        std::time::Duration::from_secs(20),
        &format!("a title starting {prefix:?}"),
        async || {
            let t = ok(&call(c, "browser_tabs", json!({"action": "list"})).await);
            let line = t
                .lines()
                .map(|l| l.trim_matches('"'))
                .find(|l| l.starts_with(prefix))
                .map(str::to_string);
            (line.is_some(), (line, t))
        },
    )
    .await;
    line.unwrap_or_else(|| panic!("found and then lost in {tabs}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_password_is_saved_for_the_field_origin_typed_twice_and_never_shown() {
    let server = Server::start(
        [
            ("/signup".to_string(), SIGNUP.to_string()),
            ("/login".to_string(), LOGIN.to_string()),
        ]
        .into(),
        None,
    );
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    vault_cli::run(&profile, &pass, &["init", "--insecure-fast-kdf"], "");

    // Generating needs no consent; the later sign-in fill of the saved entry does (headless:
    // the start-up allowlist).
    let origin = server.url("/").trim_end_matches('/').to_string();
    let b = Launch::new(exe())
        .args(["--vault-allow-fill", &origin])
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .profile(&profile)
        .start()
        .await;
    let c = b.connect().await;
    ok(&call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/signup")}),
    )
    .await);
    let snap = ok(&call(&c, "browser_snapshot", json!({"full": true})).await);
    let (email, pw, confirm) = (
        role_ref(&snap, "textbox", "Email"),
        role_ref(&snap, "textbox", "New password"),
        role_ref(&snap, "textbox", "Confirm password"),
    );
    let submit = role_ref(&snap, "button", "Create account");
    ok(&call(
        &c,
        "browser_act",
        json!({"action": "type", "ref": email, "text": EMAIL}),
    )
    .await);

    // Not a password input: refused, nothing generated or typed.
    let r = call(
        &c,
        "vault_request_fill",
        json!({"generate_password": true, "password": email}),
    )
    .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(t.contains("is not a password input"), "{t}");
    assert_eq!(
        vault_cli::run(&profile, &pass, &["list"], "").trim(),
        "",
        "no entry was made"
    );

    let r = call(
        &c,
        "vault_request_fill",
        json!({"generate_password": true, "username": email, "password": pw, "confirm_password": confirm}),
    )
    .await;
    let t = ok(&r);
    assert!(
        t.contains("generated a new password") && t.contains("[redacted:vault]"),
        "{t}"
    );
    let entry = t
        .split("as entry ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no entry id in {t}"))
        .to_string();
    assert!(t.contains(&origin), "the origin is named: {t}");

    // The human's list has it, for this site, with the username the page held.
    let list = vault_cli::run(&profile, &pass, &["list"], "");
    let line = list
        .lines()
        .find(|l| l.starts_with(&entry))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(line.contains(EMAIL) && line.contains("127.0.0.1"), "{line}");

    ok(&call(&c, "browser_act", json!({"action": "click", "ref": submit})).await);
    let signed_up = title(&c, "len ").await;
    assert!(
        signed_up.contains("match yes"),
        "both fields got the same value: {signed_up}"
    );
    let len: usize = signed_up.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(len >= 20, "a strong password: {signed_up}");
    let hash = signed_up.split_whitespace().nth(3).unwrap().to_string();

    // Signing in later with the saved entry types the very same password.
    ok(&call(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/login")}),
    )
    .await);
    let snap = ok(&call(&c, "browser_snapshot", json!({"full": true})).await);
    let (user, pass_ref) = (
        role_ref(&snap, "textbox", "Email"),
        role_ref(&snap, "textbox", "Password"),
    );
    let button = role_ref(&snap, "button", "Sign in");
    ok(&call(
        &c,
        "vault_request_fill",
        json!({"entry": entry, "username": user, "password": pass_ref}),
    )
    .await);
    ok(&call(&c, "browser_act", json!({"action": "click", "ref": button})).await);
    let signed_in = title(&c, "login len ").await;
    assert!(
        signed_in.contains(&format!("hash {hash} ")),
        "{signed_in} vs {signed_up}"
    );
    // The saved username went in too, and reads of it are redacted like every vault value.
    assert!(signed_in.ends_with("user [redacted:vault]"), "{signed_in}");
}

/// The same through `browser_act`: `type` with `generate_password` on the new-password field
/// makes, saves and types a password; it is refused in a batch, with `text`, and on a field
/// that is not a password input, with nothing generated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_act_type_can_generate_the_password() {
    let server = Server::start([("/signup".to_string(), SIGNUP.to_string())].into(), None);
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    vault_cli::run(&profile, &pass, &["init", "--insecure-fast-kdf"], "");
    let b = Launch::new(exe())
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .profile(&profile)
        .start()
        .await;
    let c = b.connect().await;
    ok(&call(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/signup")}),
    )
    .await);
    let snap = ok(&call(&c, "browser_snapshot", json!({"full": true})).await);
    let (email, pw) = (
        role_ref(&snap, "textbox", "Email"),
        role_ref(&snap, "textbox", "New password"),
    );
    for (args, why) in [
        (
            json!({"steps": [{"action": "type", "ref": pw, "generate_password": true}, {"action": "key", "key": "Enter"}]}),
            "single `type`",
        ),
        (
            json!({"action": "type", "ref": pw, "text": "x", "generate_password": true}),
            "without `text`",
        ),
        (
            json!({"action": "type", "ref": email, "generate_password": true}),
            "is not a password input",
        ),
    ] {
        let r = call(&c, "browser_act", args).await;
        let t = text(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(t.contains(why), "{why}: {t}");
    }
    assert_eq!(
        vault_cli::run(&profile, &pass, &["list"], "").trim(),
        "",
        "nothing was generated"
    );
    let t = ok(&call(
        &c,
        "browser_act",
        json!({"action": "type", "ref": pw, "generate_password": true}),
    )
    .await);
    assert!(
        t.contains("generated a new password") && t.contains("saved it in the vault as entry"),
        "{t}"
    );
    let list = vault_cli::run(&profile, &pass, &["list"], "");
    assert_eq!(
        list.lines().filter(|l| l.contains("127.0.0.1")).count(),
        1,
        "{list}"
    );
    assert!(
        t.contains(&format!("{pw} textbox \"New password\" value=\"••••\"")),
        "typed: {t}"
    );
}
