//! Chromium's certificate warning is the human's, in the real window under X: a sign-in page
//! served with a self-signed certificate shows the warning; the agent can read it but neither
//! click nor type on it (its "Proceed" and the typed bypass are the human's choice); nothing
//! reaches the server meanwhile. Once the human has typed past it, the page loads, and the
//! vault still fills nothing there, for an entry bound to that very origin with the agent's
//! fills pre-approved: the page's origin proves nothing when its certificate was refused.

#![forbid(unsafe_code)]

#[path = "support/window.rs"]
mod window;

#[path = "support/vault_cli.rs"]
mod vault_cli;

use aperture_testkit::mcp::{role_ref, tool};
use aperture_testkit::{Launch, Server, TlsFront};
use serde_json::json;
use std::time::Duration;

const MAGENTA: [u8; 3] = [230, 20, 140];
const PASSWORD: &str = "n0t-For-Impostors!";

const LOGIN: &str = r#"<!doctype html><html><head><title>Bank sign-in</title></head>
<body style="margin:0;background:rgb(230,20,140);min-height:100vh">
<form style="padding:8px">
<label>Username <input id="u" autocomplete="username"></label>
<label>Password <input id="p" type="password" autocomplete="current-password"></label>
</form>
</body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_certificate_warning_and_what_lies_past_it_are_the_humans() {
    if !window::can_run("cert_warning") {
        return;
    }
    let server = Server::page(LOGIN);
    let tls = TlsFront::start(&server);
    let url = tls.url("/");
    let scratch = tempfile::tempdir().unwrap();
    let (profile, pass) = (scratch.path().join("profile"), scratch.path().join("pass"));
    let entry = vault_cli::with_login(&profile, &pass, &tls.base, "Bank", "ada", PASSWORD);
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .windowed()
        .args(["--size", "1000x700", "--vault-allow-fill", &tls.base])
        .arg("--vault-passphrase-file")
        .arg(&pass)
        .arg(&url)
        .profile(&profile)
        .start()
        .await;
    let c = b.connect().await;
    let w = window::window_of(|| b.pids(), Duration::from_secs(60));

    // The human's tab shows the warning; the agent picks it.
    let list = window::tabs_until(&c, "the warning's tab", |t| t.contains("Privacy error")).await;
    let id = window::first_tab_id(&list);
    let (err, t) = tool(&c, "browser_tabs", json!({"action": "select", "tab": id})).await;
    assert!(!err, "{t}");

    // The agent reads the warning, and can act on none of it.
    let (_, snap) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    let advanced = role_ref(&snap, "button", "Advanced");
    for args in [
        json!({"action": "click", "ref": advanced}),
        json!({"action": "key", "key": "Enter"}),
        json!({"action": "type", "ref": advanced, "text": "thisisunsafe"}),
    ] {
        let (err, t) = tool(&c, "browser_act", args.clone()).await;
        assert!(err, "{args}: {t}");
        assert!(t.contains("certificate warning"), "{args}: {t}");
    }
    assert!(server.requests().is_empty(), "{:?}", server.requests());

    // The human types past it in the window (Chromium's own bypass), and the page loads.
    let page = window::Layout::new(window::size_of(&w), window::Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        window::xdo(&["windowfocus", "--sync", &w2]);
        window::click(
            &w2,
            aperture_ui::egui::pos2(page.min.x + 20.0, page.max.y - 20.0),
            1,
        );
        window::xdo(&["type", "--delay", "40", "thisisunsafe"]);
        aperture_testkit::eventually_blocking(Duration::from_secs(30), "the page past the warning", || {
            let img = window::capture(&w2);
            (window::block(&img, MAGENTA).is_some(), ())
        });
    })
    .await
    .unwrap();
    assert!(
        server.requests().iter().any(|p| p == "/"),
        "{:?}",
        server.requests()
    );

    // The omnibox says so, in red, where the chrome draws its "Not secure" chip.
    let mut model = window::Layout::one_tab(&url);
    model.tabs[0].security = aperture_ui::Security::CertificateError;
    let chip = window::Layout::new(window::size_of(&w), model)
        .chrome
        .control_rect(aperture_ui::chrome::controls::NOT_SECURE)
        .expect("a Not secure chip");
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        aperture_testkit::eventually_blocking(Duration::from_secs(20), "the red Not secure chip", || {
            let img = window::capture(&w2);
            let red = (chip.min.y as u32..chip.max.y as u32)
                .flat_map(|y| (chip.min.x as u32..chip.max.x as u32).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    let p = img.get_pixel(x, y).0;
                    p[0] > 170 && p[1] < 70 && p[2] < 70
                })
                .count();
            (red > 100, red)
        });
    })
    .await
    .unwrap();

    // The vault fills nothing there, though the entry is for this origin and fills on it
    // need no consent.
    let (_, snap) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    let (user, password) = (
        role_ref(&snap, "textbox", "Username"),
        role_ref(&snap, "textbox", "Password"),
    );
    let (err, t) = tool(
        &c,
        "vault_request_fill",
        json!({"entry": entry, "username": user, "password": password}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("certificate warning"), "{t}");
    let (_, snap) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(!snap.contains("value="), "something was typed: {snap}");
}
