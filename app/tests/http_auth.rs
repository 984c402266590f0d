//! Sites behind HTTP authentication (a `401` with `WWW-Authenticate: Basic`), against the real
//! browser and a real challenging server. Chromium asks the embedder for the login (CEF's
//! GetAuthCredentials, on its IO thread); without an answer the page is only the server's
//! refusal. Here:
//! - the agent's navigation is answered at once with the sign-in asked for (who asks, the
//!   realm fenced), reads and inputs are refused while it is open, and `dialog` answers it:
//!   with a username and password (a wrong one is asked again), or cancelled (the refusal
//!   page loads);
//! - `vault_request_fill` with an entry and no fields signs in from the vault, bound to the
//!   site asking, and the signed-in page reads the username as redacted;
//! - in the window the human signs in on the sheet with real keys.

#![forbid(unsafe_code)]

#[path = "support/window.rs"]
mod window;

#[path = "support/vault_cli.rs"]
mod vault_cli;

use aperture_testkit::mcp::tool;
use aperture_testkit::{BasicAuth, Launch, Server, Spec};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

const PASSWORD: &str = "c0rrect horse: battery";

/// The window tests take turns: two windows at the same place would take each other's clicks
/// and captures.
static WINDOWED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
const MAGENTA: [u8; 3] = [230, 20, 140];

fn staff_server() -> Server {
    let page = |realm: &str, body: &str| BasicAuth {
        realm: realm.into(),
        user: "ada".into(),
        password: PASSWORD.into(),
        body: body.into(),
        digest: false,
    };
    Server::spawn(Spec {
        basic_auth: HashMap::from([
            (
                "/staff".to_string(),
                page(
                    "Staff area",
                    r#"<!doctype html><title>Staff</title>
<body style="margin:0;background:rgb(230,20,140);min-height:100vh"><h1>Welcome, staff</h1><p>Signed in as ada</p></body>"#,
                ),
            ),
            (
                "/vault".to_string(),
                page(
                    "Archive",
                    "<!doctype html><title>Archive</title><p>Signed in as ada</p>",
                ),
            ),
            (
                "/digest".to_string(),
                BasicAuth {
                    digest: true,
                    ..page(
                        "Digest area",
                        "<!doctype html><title>Digest</title><p>Signed in by digest</p>",
                    )
                },
            ),
            (
                "/other".to_string(),
                page(
                    "Other area",
                    "<!doctype html><title>Other</title><p>Other side</p>",
                ),
            ),
        ]),
        ..Spec::default()
    })
}

/// Where the chrome draws control `name` on a sign-in sheet for `base` offering `logins`, at
/// the size of window `w` (the same chrome, run here).
fn sheet_control(
    w: &str,
    url: &str,
    base: &str,
    logins: Vec<aperture_ui::LoginOffer>,
    name: &str,
) -> aperture_ui::egui::Rect {
    let mut model = window::Layout::one_tab(url);
    model.dialog = Some(aperture_ui::DialogView {
        tab: aperture_ui::TabId(1),
        id: 1,
        kind: aperture_ui::model::DialogKind::SignIn { proxy: false },
        origin: base.to_string(),
        message: "Staff area".into(),
        default_text: String::new(),
        offer_suppress: false,
        logins,
    });
    window::Layout::new(window::size_of(w), model)
        .chrome
        .control_rect(name)
        .unwrap_or_else(|| panic!("the sheet has no {name}"))
}

/// Whether anything is drawn in `r` of `img` (it is not one flat colour).
fn drawn_in(img: &image::RgbImage, r: aperture_ui::egui::Rect) -> bool {
    let (x0, y0) = (r.min.x as u32, r.min.y as u32);
    let first = *img.get_pixel(x0 + 1, y0 + 1);
    (x0..r.max.x as u32)
        .flat_map(|x| (y0..r.max.y as u32).map(move |y| (x, y)))
        .any(|(x, y)| *img.get_pixel(x, y) != first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_is_told_of_a_sign_in_and_answers_it() {
    let server = staff_server();
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture")).start().await;
    let c = b.connect().await;

    // The navigation is answered as soon as the server asks, not at a load timeout.
    let started = std::time::Instant::now();
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/staff")}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("asks for a sign-in (HTTP authentication)"), "{t}");
    assert!(t.contains("Staff area"), "the realm is named: {t}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );

    // It holds the tab: reads and inputs are refused with the same words, nothing sent.
    let (err, t) = tool(&c, "browser_snapshot", json!({})).await;
    assert!(err && t.contains("asks for a sign-in"), "{t}");
    let (err, t) = tool(&c, "browser_act", json!({"action": "key", "key": "Enter"})).await;
    assert!(err && t.contains("asks for a sign-in"), "{t}");

    // Accepting needs the login; half of one is refused before anything is sent.
    let (err, t) = tool(&c, "browser_act", json!({"action": "dialog", "accept": true})).await;
    assert!(err && t.contains("needs a username and a password"), "{t}");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada"}),
    )
    .await;
    assert!(err && t.contains("both `username` and `password`"), "{t}");

    // A wrong password is sent, refused by the server, and asked for again.
    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada", "password": "nope"}),
    )
    .await;
    assert!(
        t.contains("signed in: the username and password were sent"),
        "{t}"
    );
    aperture_testkit::eventually(Duration::from_secs(20), "the sign-in asked again", async || {
        let (err, t) = tool(&c, "browser_snapshot", json!({})).await;
        (err && t.contains("asks for a sign-in"), t)
    })
    .await;

    // The right one loads the page.
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada", "password": PASSWORD}),
    )
    .await;
    assert!(!err, "{t}");
    aperture_testkit::eventually(Duration::from_secs(20), "the staff page", async || {
        let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (t.contains("Welcome, staff"), t)
    })
    .await;

    // Cancelled, the server's refusal page loads and can be read. (Another server: Chromium
    // would offer the login just given to every page beside /staff on this one.)
    let other = staff_server();
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": other.url("/other")}),
    )
    .await;
    assert!(err && t.contains("Other area"), "{t}");
    let (err, t) = tool(&c, "browser_act", json!({"action": "dialog", "accept": false})).await;
    assert!(!err, "{t}");
    assert!(t.contains("cancelled the sign-in"), "{t}");
    aperture_testkit::eventually(Duration::from_secs(20), "the refusal page", async || {
        let (err, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (!err && t.contains("Unauthorized"), t)
    })
    .await;
    // Going elsewhere while a sign-in is open withdraws it: the new page reads at once.
    let third = staff_server();
    let plain = Server::page("<!doctype html><title>Plain</title><p>No login here</p>");
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": third.url("/staff")}),
    )
    .await;
    assert!(err && t.contains("asks for a sign-in"), "{t}");
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": plain.url("/")}),
    )
    .await;
    assert!(!err && t.contains("No login here"), "{t}");
    let (err, t) = tool(&c, "browser_snapshot", json!({})).await;
    assert!(!err, "a withdrawn sign-in still holds the tab: {t}");

    // A logged-out read signs in nowhere: the server's refusal is its answer, at once.
    let fourth = staff_server();
    let started = std::time::Instant::now();
    let (_, t) = tool(&c, "browser_read", json!({"url": fourth.url("/staff")})).await;
    assert!(t.contains("blocked") && t.contains("401"), "{t}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );

    // The wrong login and the right one each reached the server after the first challenge.
    let asked = server.requests().iter().filter(|p| *p == "/staff").count();
    assert!(asked >= 3, "{:?}", server.requests());
}

/// A server that asks with HTTP Digest (the password never sent, only a hash of it with the
/// server's nonce) is answered the same way: the agent's login reaches it as a Digest
/// response the server checks, and a wrong password is refused and asked for again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_digest_sign_in_is_answered_too() {
    let server = staff_server();
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture")).start().await;
    let c = b.connect().await;
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/digest")}),
    )
    .await;
    assert!(
        err && t.contains("asks for a sign-in") && t.contains("Digest area"),
        "{t}"
    );
    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada", "password": "nope"}),
    )
    .await;
    assert!(
        t.contains("signed in: the username and password were sent"),
        "{t}"
    );
    aperture_testkit::eventually(Duration::from_secs(20), "the sign-in asked again", async || {
        let (err, t) = tool(&c, "browser_snapshot", json!({})).await;
        (err && t.contains("asks for a sign-in"), t)
    })
    .await;
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada", "password": PASSWORD}),
    )
    .await;
    assert!(!err, "{t}");
    aperture_testkit::eventually(Duration::from_secs(20), "the digest page", async || {
        let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (t.contains("Signed in by digest"), t)
    })
    .await;
}

/// `browser_tabs open` on a page a sign-in holds: the tab opens and is the agent's current
/// one (the answer gives its id and says the page cannot be observed yet, naming the sign-in),
/// so the sign-in is answered in that tab and its page read there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_opened_on_a_sign_in_is_the_agents_to_answer_it_in() {
    let server = staff_server();
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture")).start().await;
    let c = b.connect().await;
    let (_, t) = tool(
        &c,
        "browser_tabs",
        json!({"action": "open", "url": server.url("/staff")}),
    )
    .await;
    assert!(
        t.contains("asks for a sign-in") && t.contains("Staff area"),
        "{t}"
    );
    let id = aperture_testkit::mcp::opened_tab(&t);
    let (_, list) = tool(&c, "browser_tabs", json!({"action": "list"})).await;
    let line = list
        .lines()
        .find(|l| l.starts_with(&format!("tab {id} ")))
        .unwrap_or_else(|| panic!("tab {id} not listed: {list}"));
    assert!(line.contains("yours") && line.contains("current"), "{list}");
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada", "password": PASSWORD}),
    )
    .await;
    assert!(!err, "{t}");
    aperture_testkit::eventually(Duration::from_secs(20), "the staff page", async || {
        let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (t.contains("Welcome, staff"), t)
    })
    .await;
}

/// A proxy that wants a login (`407` with `Proxy-Authenticate: Basic`) before it serves
/// anything, and then answers every request itself with a page naming the URL asked for.
/// Answers the logins it was given, in order.
fn login_proxy() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 8192];
                let n = c.read(&mut buf).unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let url = head.split_whitespace().nth(1).unwrap_or("").to_string();
                let login = head
                    .lines()
                    .find_map(|l| l.strip_prefix("Proxy-Authorization: Basic "))
                    .map(str::trim)
                    .map(|b| {
                        use base64::Engine as _;
                        let raw = base64::engine::general_purpose::STANDARD
                            .decode(b)
                            .unwrap_or_default();
                        String::from_utf8_lossy(&raw).to_string()
                    });
                if let Some(l) = &login {
                    log.lock().unwrap().push(l.clone());
                }
                let reply = if login.as_deref() == Some(&format!("ada:{PASSWORD}")) {
                    let body = format!("<!doctype html><title>Via proxy</title><p>Proxied {url}</p>");
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                } else {
                    let body = "<!doctype html><title>407</title><p>Proxy login needed</p>";
                    format!(
                        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"Corporate proxy\"\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
                let _ = c.write_all(reply.as_bytes());
            });
        }
    });
    (port, seen)
}

/// A proxy's sign-in is asked of the agent as the proxy's (named by its host and port, not
/// the site's), and the login given reaches the proxy, which then serves the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxys_sign_in_is_the_proxys() {
    let (port, logins) = login_proxy();
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .args([
            "--chromium-switch".to_string(),
            format!("proxy-server=http://127.0.0.1:{port}"),
        ])
        // The proxy resolves names, not this machine (which has no DNS for it here); the
        // agent's policy would refuse a host it cannot resolve.
        .allow_hosts(["intranet.example"])
        .start()
        .await;
    let c = b.connect().await;
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": "http://intranet.example/report"}),
    )
    .await;
    assert!(err && t.contains("a proxy asks for a sign-in"), "{t}");
    assert!(
        t.contains(&format!("127.0.0.1:{port}")) && t.contains("Corporate proxy"),
        "{t}"
    );
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "dialog", "accept": true, "username": "ada", "password": PASSWORD}),
    )
    .await;
    assert!(!err, "{t}");
    aperture_testkit::eventually(Duration::from_secs(20), "the proxied page", async || {
        let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (t.contains("Proxied http://intranet.example/report"), t)
    })
    .await;
    assert!(
        logins.lock().unwrap().contains(&format!("ada:{PASSWORD}")),
        "{:?}",
        logins.lock().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vault_answers_a_sign_in_for_its_own_site_only() {
    let server = staff_server();
    let decoy = staff_server();
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    let entry = vault_cli::with_login(&profile, &pass, &server.base, "Staff", "ada", PASSWORD);
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .args([
            "--vault-allow-fill",
            &server.base,
            "--vault-allow-fill",
            &decoy.base,
        ])
        .profile(&profile)
        .start()
        .await;
    let c = b.connect().await;

    // Another site (another port) asking: the entry is not its, and nothing is sent.
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": decoy.url("/vault")}),
    )
    .await;
    assert!(err && t.contains("Archive"), "{t}");
    let (_, t) = tool(&c, "vault_entries_for_origin", json!({})).await;
    assert!(!t.contains(&entry), "the decoy is offered the entry: {t}");
    let (err, t) = tool(&c, "vault_request_fill", json!({"entry": entry})).await;
    assert!(err && t.contains("nothing was filled"), "{t}");
    let (err, t) = tool(&c, "browser_act", json!({"action": "dialog", "accept": false})).await;
    assert!(!err, "{t}");

    // Its own site: the entries are the asking site's, and the entry signs in.
    let (err, t) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": server.url("/vault")}),
    )
    .await;
    assert!(err && t.contains("Archive"), "{t}");
    let (_, t) = tool(&c, "vault_entries_for_origin", json!({})).await;
    assert!(t.contains(&entry), "{t}");
    let (err, t) = tool(&c, "vault_request_fill", json!({"entry": entry})).await;
    assert!(!err, "{t}");
    assert!(t.contains("signed in from the vault"), "{t}");
    assert!(!t.contains(PASSWORD), "{t}");
    let t = aperture_testkit::eventually(Duration::from_secs(20), "the archive page", async || {
        let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
        (t.contains("Signed in as"), t)
    })
    .await;
    // The username the vault sent reads back redacted, like a form fill's.
    assert!(t.contains("Signed in as [redacted:vault]"), "{t}");
    assert!(!t.contains(PASSWORD), "{t}");

    // With no sign-in open, no fields is a usage error.
    let (err, t) = tool(&c, "vault_request_fill", json!({"entry": entry})).await;
    assert!(err && t.contains("no sign-in"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_human_signs_in_on_the_sheet() {
    if !window::can_run("http_auth") {
        return;
    }
    let _turn = WINDOWED.lock().await;
    let server = staff_server();
    let url = server.url("/staff");
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .windowed()
        .args(["--size", "1000x700"])
        .arg(&url)
        .start()
        .await;
    let w = window::window_of(|| b.pids(), Duration::from_secs(60));
    // Where the sheet's username field is drawn, from the same chrome run at the window's size.
    let user = sheet_control(
        &w,
        &url,
        &server.base,
        Vec::new(),
        aperture_ui::chrome::controls::DIALOG_USER,
    );
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        window::xdo(&["windowfocus", "--sync", &w2]);
        // The sheet is up when the field's box is drawn there (the page behind is blank).
        aperture_testkit::eventually_blocking(Duration::from_secs(30), "the sign-in sheet", || {
            let img = window::capture(&w2);
            window::keep(&img, "http-auth-sheet");
            (drawn_in(&img, user), ())
        });
        // Into the username field (the harness test covers its focus on arrival), then the
        // login as a person types it.
        window::click(&w2, user.center(), 1);
        window::xdo(&["type", "--delay", "40", "ada"]);
        window::xdo(&["key", "Tab"]);
        window::xdo(&["type", "--delay", "40", PASSWORD]);
        window::xdo(&["key", "Return"]);
        aperture_testkit::eventually_blocking(Duration::from_secs(30), "the page signed in", || {
            let img = window::capture(&w2);
            window::keep(&img, "http-auth-signed-in");
            (window::block(&img, MAGENTA).is_some(), ())
        });
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sheet_offers_the_vaults_login_for_the_site_asking() {
    if !window::can_run("http_auth") {
        return;
    }
    let _turn = WINDOWED.lock().await;
    let server = staff_server();
    let url = server.url("/staff");
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    let entry = vault_cli::with_login(&profile, &pass, &server.base, "Staff", "ada", PASSWORD);
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .windowed()
        .args(["--size", "1000x700"])
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .arg(&url)
        .profile(&profile)
        .start()
        .await;
    let w = window::window_of(|| b.pids(), Duration::from_secs(60));
    let saved = sheet_control(
        &w,
        &url,
        &server.base,
        vec![aperture_ui::LoginOffer {
            entry,
            label: "Staff".into(),
            username: "ada".into(),
        }],
        &format!("{}:0", aperture_ui::chrome::controls::DIALOG_SAVED),
    );
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        window::xdo(&["windowfocus", "--sync", &w2]);
        // The button is drawn once the vault's offer reached the sheet.
        let drawn = |img: &image::RgbImage| {
            let (x0, y0) = (saved.min.x as u32, saved.min.y as u32);
            let first = *img.get_pixel(x0 + 1, y0 + 1);
            (x0..saved.max.x as u32)
                .flat_map(|x| (y0..saved.max.y as u32).map(move |y| (x, y)))
                .any(|(x, y)| *img.get_pixel(x, y) != first)
        };
        aperture_testkit::eventually_blocking(
            Duration::from_secs(30),
            "the saved login on the sheet",
            || {
                let img = window::capture(&w2);
                window::keep(&img, "http-auth-saved");
                (drawn(&img), ())
            },
        );
        window::click(&w2, saved.center(), 1);
        aperture_testkit::eventually_blocking(
            Duration::from_secs(30),
            "the page signed in from the vault",
            || {
                let img = window::capture(&w2);
                (window::block(&img, MAGENTA).is_some(), ())
            },
        );
    })
    .await
    .unwrap();
}
