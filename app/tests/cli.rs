//! The command-line mirror of the tools against the real browser: each verb is one tool
//! call in a session kept between invocations, with exit codes a script can test.

use aperture_testkit::{Launch, Server};
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> std::path::PathBuf {
    std::env::var_os("APERTURE_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_aperture").into())
}

fn cli(profile: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .arg("--profile")
        .arg(profile)
        .args(args)
        .output()
        .expect("run aperture")
}

fn out(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const PAGE: &str = r#"<!doctype html><title>CLI page</title>
<h1>Counter</h1><p id="n">clicked 0 times</p>
<button onclick="let p=document.getElementById('n');p.textContent='clicked '+(+p.textContent.split(' ')[1]+1)+' times'">Add one</button>"#;

#[tokio::test(flavor = "multi_thread")]
async fn verbs_drive_the_running_browser_with_diffs_and_exit_codes() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let server = Server::page(PAGE);
    let browser = Launch::new(bin()).profile(&profile).start().await;

    let o = cli(&profile, &["open", &server.url("/")]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let snap = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(snap.contains("clicked 0 times"), "{snap}");
    // The session outlives the process: the page was seen in full by `open`, nothing changed
    // since, so the next look is the no-change line.
    let o = cli(&profile, &["snapshot"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let again = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(again.contains("no change"), "{}", out(&o));
    assert!(!again.contains("clicked 0 times"), "{again}");
    // --full starts over.
    let o = cli(&profile, &["snapshot", "--full"]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("clicked 0 times"),
        "{}",
        out(&o)
    );

    let button = aperture_testkit::mcp::role_ref(&snap, "button", "Add one");
    let o = cli(&profile, &["click", &button]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("clicked 1 times"),
        "{}",
        out(&o)
    );

    // A ref that does not exist: the tool refuses, exit 1.
    let o = cli(&profile, &["click", "e99999"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    // Usage errors: exit 2, nothing sent.
    let o = cli(&profile, &["click"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("usage"),
        "{}",
        out(&o)
    );

    let png = scratch.path().join("shot.png");
    let o = cli(&profile, &["screenshot", png.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
    // Just the button, and a point of it.
    let o = cli(&profile, &["screenshot", png.to_str().unwrap(), "--ref", &button]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let (w, h) = image::image_dimensions(&png).unwrap();
    assert!(w < 200 && h < 60, "the button alone: {w}x{h}");
    let o = cli(&profile, &["click", &button, "3", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("clicked 2 times"),
        "{}",
        out(&o)
    );

    let o = cli(&profile, &["--json", "tabs"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json prints the tool result");
    assert!(v["content"].is_array(), "{v}");

    // A reader that has gone (`| head -1`, here `| true`, gone before the answer) does not
    // turn a done call into a crash.
    let sh = format!(
        "{} --profile {} snapshot --full | true; echo \"rc=${{PIPESTATUS[0]}}\"",
        bin().display(),
        profile.display()
    );
    let o = Command::new("bash").args(["-c", &sh]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("rc=0"), "{}", out(&o));
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("panicked"),
        "{}",
        out(&o)
    );
    drop(browser);
}

#[test]
fn an_unreachable_browser_is_exit_code_3() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    // A browser that holds the profile but no longer answers: the lock is held (by us) and
    // its endpoint names a port nothing listens on.
    let lock = std::fs::File::create(profile.join("aperture.lock")).unwrap();
    lock.try_lock().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        profile.join("mcp-endpoint.json"),
        format!(
            r#"{{"url":"http://127.0.0.1:{port}/mcp","port":{port},"token":"{}"}}"#,
            "x".repeat(43)
        ),
    )
    .unwrap();
    let o = cli(&profile, &["tabs"]);
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not reachable"),
        "{}",
        out(&o)
    );
}

const LATE: &str = r#"<!doctype html><title>Late</title><p id="s">Loading</p>
<script>setTimeout(() => { document.getElementById("s").textContent = "Ready now"; }, 800);</script>"#;

/// `wait` blocks until the page shows the text (exit 0) or says it gave up (exit 1); `read
/// --url` reads a page logged out.
#[tokio::test(flavor = "multi_thread")]
async fn wait_and_read_url_verbs() {
    let scratch = tempfile::tempdir().unwrap();
    let profile = scratch.path().join("profile");
    let server = Server::page(LATE);
    let browser = Launch::new(bin()).profile(&profile).start().await;

    let o = cli(&profile, &["open", &server.url("/")]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let o = cli(&profile, &["wait", "Ready now"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("Ready now"),
        "{}",
        out(&o)
    );
    let t = std::time::Instant::now();
    let o = cli(&profile, &["wait", "--ms", "400", "Never shown"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a wait that runs out is a failure: {}",
        out(&o)
    );
    assert!(
        t.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        t.elapsed()
    );
    let o = cli(&profile, &["wait", "--bogus"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));

    let o = cli(&profile, &["read", "--url", &server.url("/")]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("Loading")
            || String::from_utf8_lossy(&o.stdout).contains("Ready now"),
        "{}",
        out(&o)
    );
    drop(browser);
}
