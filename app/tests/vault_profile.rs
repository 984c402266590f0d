//! Profile fills for the agent, against the real browser over MCP: the human saves a profile
//! with `aperture vault profile` (facts on stdin); `browser_profile` lists it, plans a form
//! (autocomplete first, labels second, the prose question left out, the date of birth marked
//! sensitive) without showing a value, and fills it with trusted input; headless, the start-up
//! allowlist approves everyday facts and a sensitive one is skipped; reads come back redacted.

#![forbid(unsafe_code)]

#[path = "support/vault_cli.rs"]
mod vault_cli;

use aperture_testkit::mcp::{CallToolResult, call, role_ref, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;

const FACTS: &str = "givenName=Ada\nfamilyName=Lovelace\nemail=ada@analytical.example\n\
countryName=United Kingdom\ndateOfBirth=1815-12-10\n";
const VALUES: [&str; 4] = ["Ada", "Lovelace", "ada@analytical.example", "1815"];

const FORM: &str = r#"<!doctype html><html><head><title>Apply</title></head><body>
<form id="f">
<label>First name <input id="g" autocomplete="given-name"></label>
<label>Last name <input id="l" name="last_name"></label>
<label>Email address <input id="e" type="email" name="email"></label>
<label>Country <select id="c" autocomplete="country-name"><option>France</option><option>United Kingdom</option></select></label>
<label>Date of birth <input id="d" autocomplete="bday"></label>
<label>Why do you want to work here? <textarea id="w"></textarea></label>
<button type="submit">Send application</button>
</form>
<script>
document.getElementById("f").addEventListener("submit", ev => {
  ev.preventDefault();
  const v = id => document.getElementById(id).value;
  document.title = ["given=" + (v("g") === "Ada" ? "ok" : "bad"),
    "family=" + (v("l") === "Lovelace" ? "ok" : "bad"),
    "email=" + (v("e") === "ada@analytical.example" ? "ok" : "bad"),
    "country=" + (v("c") === "United Kingdom" ? "ok" : "bad"),
    "dob=" + (v("d") === "" ? "empty" : "set"),
    "essay=" + (v("w") === "" ? "empty" : "set")].join(" ");
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

fn clean(t: &str, what: &str) {
    // The envelope's random nonces are digits: one held "1815" (a value here) once.
    let bare = aperture_testkit::mcp::without_nonces(t);
    for v in VALUES {
        assert!(!bare.contains(v), "{what} shows the profile value {v:?}:\n{t}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_is_planned_and_filled_without_the_agent_seeing_a_value() {
    let server = Server::page(FORM);
    let url = server.url("/");
    let origin = url.trim_end_matches('/').to_string();
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    assert!(
        vault_cli::output(&profile, &pass, &["init", "--insecure-fast-kdf"], "")
            .status
            .success()
    );

    // The human's side: an unknown fact is refused, naming the known ones; the facts never
    // ride on the command line.
    let bad = vault_cli::output(
        &profile,
        &pass,
        &["profile", "Personal"],
        "favouriteColour=blue\n",
    );
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("givenName") && err.contains("line 1"), "{err}");
    let saved = vault_cli::output(&profile, &pass, &["profile", "Personal"], FACTS);
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let listed = vault_cli::output(&profile, &pass, &["profiles"], "");
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "Personal\t5");

    let b = Launch::new(exe())
        .args(["--vault-allow-fill", &origin])
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .profile(&profile)
        .start()
        .await;
    let c = b.connect().await;
    ok(&call(&c, "browser_tabs", json!({"action": "open", "url": url})).await);
    let snap = ok(&call(&c, "browser_snapshot", json!({"full": true})).await);
    let (given, family, email) = (
        role_ref(&snap, "textbox", "First name"),
        role_ref(&snap, "textbox", "Last name"),
        role_ref(&snap, "textbox", "Email address"),
    );
    let (dob, essay) = (
        role_ref(&snap, "textbox", "Date of birth"),
        role_ref(&snap, "textbox", "Why do you want"),
    );
    let submit = role_ref(&snap, "button", "Send application");

    let list = ok(&call(&c, "browser_profile", json!({"action": "list"})).await);
    assert!(list.contains("\"Personal\": 5 facts"), "{list}");

    let missing = call(
        &c,
        "browser_profile",
        json!({"action": "plan", "profile": "Work"}),
    )
    .await;
    assert_eq!(missing.is_error, Some(true), "{}", text(&missing));

    let plan = ok(&call(
        &c,
        "browser_profile",
        json!({"action": "plan", "profile": "Personal"}),
    )
    .await);
    clean(&plan, "the plan");
    let row = |r: &str| {
        plan.lines()
            .find(|l| l.trim_start_matches('"').starts_with(&format!("{r} ")))
            .unwrap_or_else(|| panic!("no row for {r} in:\n{plan}"))
            .to_string()
    };
    assert!(
        row(&given).contains("-> givenName") && row(&given).contains(": fill"),
        "{plan}"
    );
    assert!(
        row(&family).contains("-> familyName") && row(&family).contains(": fill"),
        "{plan}"
    );
    assert!(
        row(&email).contains("-> email") && row(&email).contains(": fill"),
        "{plan}"
    );
    assert!(row(&dob).contains("sensitive"), "{plan}");
    assert!(
        !row(&essay).contains(": fill"),
        "a prose question is never filled: {plan}"
    );

    let applied = ok(&call(
        &c,
        "browser_profile",
        json!({"action": "apply", "profile": "Personal"}),
    )
    .await);
    clean(&applied, "the apply answer");
    assert!(
        applied.contains(&given) && applied.contains("filled"),
        "{applied}"
    );
    let skipped = applied
        .lines()
        .find(|l| l.starts_with("not filled"))
        .unwrap_or_else(|| panic!("the sensitive date of birth is reported as not filled:\n{applied}"));
    assert!(skipped.contains(&dob), "{skipped}");

    let read = ok(&call(&c, "browser_read", json!({})).await);
    clean(&read, "a read of the filled page");

    ok(&call(&c, "browser_act", json!({"action": "click", "ref": submit})).await);
    // The submit handler sets the title after the click's answer, seconds later under load.
    let title = aperture_testkit::eventually(
        std::time::Duration::from_secs(20),
        "the submitted form's title",
        async || {
            let tabs = ok(&call(&c, "browser_tabs", json!({"action": "list"})).await);
            (tabs.contains("given="), tabs)
        },
    )
    .await;
    assert!(
        title.contains("given=ok family=ok email=ok country=ok dob=empty essay=empty"),
        "{title}"
    );
}
