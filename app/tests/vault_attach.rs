//! Attachments from the vault library, against the real browser over MCP: the human keeps a
//! file in the vault (`aperture vault attach`), the agent sees it listed by id and uploads it
//! through a file input by ref; the browser answers the chooser itself, the page receives the
//! exact bytes, and no answer carries a path or the contents. A ref that is not a file input
//! gets nothing.

#![forbid(unsafe_code)]

#[path = "support/vault_cli.rs"]
mod vault_cli;

use aperture_testkit::mcp::{CallToolResult, call, role_ref, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;

const CONTENT: &str = "Ada Lovelace - curriculum vitae\nNotes on the Analytical Engine, 1843\n";

/// The page reports the chosen file's name, size and a hash of its text in its title.
const UPLOAD: &str = r#"<!doctype html><html><head><title>Upload</title></head><body>
<label>Your CV <input id="f" type="file" accept=".txt,.pdf"></label>
<label>Name <input id="n"></label>
<script>
document.getElementById("f").addEventListener("change", async ev => {
  const file = ev.target.files[0];
  const t = await file.text();
  let h = 0;
  for (let i = 0; i < t.length; i++) h = (h * 31 + t.charCodeAt(i)) >>> 0;
  document.title = "got " + file.name + " " + file.size + " " + h;
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

fn js_hash(s: &str) -> u32 {
    s.encode_utf16()
        .fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(c as u32))
}

/// A vault in a scratch profile holding the CV as a library file labelled `label`, and a
/// browser on it that may fill on `origin` (`--vault-allow-fill`). The scratch directory, the
/// browser and the file's id.
async fn browser_with_cv(
    origin: &str,
    label: &str,
) -> (tempfile::TempDir, aperture_testkit::McpBrowser, String) {
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    let source = scratch.path().join("ada-cv.txt");
    std::fs::write(&source, CONTENT).unwrap();
    vault_cli::run(&profile, &pass, &["init", "--insecure-fast-kdf"], "");
    let id = vault_cli::run(
        &profile,
        &pass,
        &["attach", source.to_str().unwrap(), "--label", label],
        "",
    );
    let listed = vault_cli::run(&profile, &pass, &["attachments"], "");
    assert!(
        listed.starts_with(&id) && listed.contains("ada-cv.txt\ttext/plain"),
        "{listed}"
    );
    let b = Launch::new(exe())
        .args(["--vault-allow-fill", origin])
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .profile(&profile)
        .start()
        .await;
    (scratch, b, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_file_is_uploaded_by_id_and_the_page_gets_its_bytes() {
    let server = Server::page(UPLOAD);
    let url = server.url("/");
    let origin = url.trim_end_matches('/').to_string();
    let (scratch, b, id) = browser_with_cv(&origin, "CV 2026").await;
    let profile = scratch.path().join("profile");
    let c = b.connect().await;
    ok(&call(&c, "browser_tabs", json!({"action": "open", "url": url})).await);
    let snap = ok(&call(&c, "browser_snapshot", json!({"full": true})).await);
    let name = role_ref(&snap, "textbox", "Name");
    let file = snap
        .lines()
        .find(|l| l.contains("Your CV") && !l.contains("textbox \"Name\""))
        .and_then(|l| {
            l.split_whitespace()
                .find(|w| aperture_testkit::mcp::is_ref(w.trim_start_matches('[')))
        })
        .map(|w| w.trim_start_matches('[').to_string())
        .unwrap_or_else(|| panic!("no file input in:\n{snap}"));

    let listing = ok(&call(&c, "vault_entries_for_origin", json!({})).await);
    assert!(
        listing.contains(&id) && listing.contains("\"CV 2026\""),
        "{listing}"
    );

    // Not a file input: refused, nothing attached.
    let r = call(
        &c,
        "vault_request_fill",
        json!({"attachment": id, "file_input": name}),
    )
    .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(t.contains("not an enabled file input"), "{t}");

    let r = call(
        &c,
        "vault_request_fill",
        json!({"attachment": id, "file_input": file}),
    )
    .await;
    let t = ok(&r);
    assert!(t.contains("attached the vault library file"), "{t}");
    assert!(
        !t.contains("uploads") && !t.contains(&profile.display().to_string()),
        "no path: {t}"
    );
    assert!(!t.contains("Analytical Engine"), "no contents: {t}");

    let want = format!("got ada-cv.txt {} {}", CONTENT.len(), js_hash(CONTENT));
    // The page sets its title when its change handler has read the file, which on a loaded
    // machine can take seconds after the tool has answered.
    let tabs = aperture_testkit::eventually(
        std::time::Duration::from_secs(20),
        "the page's title reporting the attached file",
        async || {
            let tabs = ok(&call(&c, "browser_tabs", json!({"action": "list"})).await);
            (tabs.contains("got "), tabs)
        },
    )
    .await;
    assert!(tabs.contains(&want), "{want} in {tabs}");

    // An unknown id is refused like another site's entry: nothing is attached.
    let r = call(
        &c,
        "vault_request_fill",
        json!({"attachment": "a0000000000000000", "file_input": file}),
    )
    .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
}

/// A file input inside an embedded frame of another site: uploads were allowed for the page's
/// origin, not the frame's, so nothing is attached and the frame's site receives nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_input_in_a_frame_of_another_site_gets_nothing() {
    const INNER: &str = r#"<!doctype html><html><body>
<label>Upload <input id="f" type="file"></label>
<script>
document.getElementById("f").addEventListener("change", async ev => {
  fetch("/got?" + encodeURIComponent(await ev.target.files[0].text()));
});
</script></body></html>"#;
    let widget = Server::page(INNER);
    let outer = format!(
        r#"<!doctype html><html><head><title>Apply</title></head><body><h1>Apply</h1>
<iframe src="{}" width="400" height="120"></iframe></body></html>"#,
        widget.url("/")
    );
    let server = Server::page(&outer);
    let url = server.url("/");
    let origin = url.trim_end_matches('/').to_string();
    let (_scratch, b, id) = browser_with_cv(&origin, "CV").await;
    let c = b.connect().await;
    ok(&call(&c, "browser_tabs", json!({"action": "open", "url": url})).await);
    let snap = aperture_testkit::eventually(
        std::time::Duration::from_secs(20),
        "the frame's file input",
        async || {
            let s = ok(&call(&c, "browser_snapshot", json!({"full": true})).await);
            (s.contains("Upload"), s)
        },
    )
    .await;
    let file = snap
        .lines()
        .find(|l| l.contains("Upload"))
        .and_then(|l| {
            l.split_whitespace()
                .find(|w| aperture_testkit::mcp::is_ref(w.trim_start_matches('[')))
        })
        .map(|w| w.trim_start_matches('[').to_string())
        .unwrap_or_else(|| panic!("no file input in:\n{snap}"));

    let r = call(
        &c,
        "vault_request_fill",
        json!({"attachment": id, "file_input": file}),
    )
    .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(t.contains("not in a frame of the page's own origin"), "{t}");
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert!(
        !widget.requests().iter().any(|p| p.starts_with("/got")),
        "{:?}",
        widget.requests()
    );
}
