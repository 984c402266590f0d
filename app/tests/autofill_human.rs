//! Autofill for the human (issue 16 item 3, first half): on a site with a saved login, the
//! omnibox shows a key; the human clicks it, picks the login, and the browser types it into
//! the page's sign-in form. The real windowed browser under X, driven with real X clicks.

#[path = "support/window.rs"]
mod window;

#[path = "support/vault_cli.rs"]
mod vault_cli;
use aperture_testkit::Server;
use aperture_ui::LoginOffer;
use aperture_ui::chrome::controls;
use window::{App, Layout, Scratch};

/// One window at a time: they would share the display and its keyboard focus.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const GREEN: [u8; 3] = [20, 200, 60];
const USERNAME: &str = "charles.babbage";
const PASSWORD: &str = "difference-Engine-2";

/// The page turns green once the form holds the saved username and a password of the saved
/// one's length (the test knows both; the page compares).
const LOGIN: &str = r#"<!doctype html><html><head><title>Sign in</title></head>
<body style="margin:0;background:#fff">
<form style="padding:8px">
<label>Username <input id="u" autocomplete="username"></label>
<label>Password <input id="p" type="password"></label>
<button>Sign in</button>
</form>
<div id="ok" style="display:none;position:absolute;left:40px;top:120px;width:400px;height:250px;background:rgb(20,200,60)"></div>
<script>
function check() {
  const good = document.getElementById("u").value === "charles.babbage"
    && document.getElementById("p").value === "difference-Engine-2";
  document.getElementById("ok").style.display = good ? "block" : "none";
}
for (const id of ["u", "p"]) document.getElementById(id).addEventListener("input", check);
</script></body></html>"#;

#[test]
fn the_omnibox_key_fills_a_saved_login_for_the_human() {
    if !window::can_run("autofill_human") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::page(LOGIN);
    let url = server.url("/");
    let dir = Scratch::new("autofill");
    let profile = dir.profile();
    let pass = dir.0.join("pass");
    let entry = vault_cli::with_login(&profile, &pass, &url, "Babbage", USERNAME, PASSWORD);

    let app = App::launch(
        &dir.0,
        0,
        &["--vault-passphrase-file", pass.to_str().unwrap(), &url],
    );
    // The page has been asked for (so the 2 s below are the page's, not start-up's).
    aperture_testkit::eventually_blocking(std::time::Duration::from_secs(60), "the page requested", || {
        (!server.requests().is_empty(), server.requests())
    });
    app.never(GREEN, 2, "nothing is filled before the human asks");

    // Where the key and its menu row are, from the same chrome run headless at this size.
    let mut model = Layout::one_tab(&url);
    model.tabs[0].saved_logins = vec![LoginOffer {
        entry: entry.clone(),
        label: "Babbage".into(),
        username: USERNAME.into(),
    }];
    let mut layout = Layout::new(app.size(), model);
    let key = layout.click(controls::LOGINS);
    let row = layout.click(&format!("login:{entry}"));
    // The key shows once the page's address is known and the vault was asked, which on a
    // loaded machine can take seconds. Until the page turns green, open the menu and pick the
    // row again: a click before the key showed lands on the bare omnibox, and the next key
    // click after one that opened the menu (if its row click came too early) closes it, so
    // at worst every other round is a real try. Nothing else fills the form.
    let t = std::time::Instant::now();
    let green = |img: &image::RgbImage| window::block(img, GREEN).is_some_and(|(w, h)| w >= 250 && h >= 150);
    'rounds: loop {
        app.click(key, 1);
        app.click(row, 1);
        let round = std::time::Instant::now();
        while round.elapsed() < std::time::Duration::from_secs(4) {
            if green(&app.capture()) {
                break 'rounds;
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
        }
        if t.elapsed() > std::time::Duration::from_secs(60) {
            window::keep(&app.capture(), "autofill");
            panic!(
                "the saved login was never typed into the form; stderr:\n{}",
                app.stderr()
            );
        }
    }
    app.wait_for(GREEN, "the saved login was typed into the form");
}

const YELLOW: [u8; 3] = [250, 210, 0];
const CYAN: [u8; 3] = [0, 200, 200];

/// A sign-in form whose two fields are big coloured blocks the test can find and click.
const SIGN_IN: &str = r#"<!doctype html><html><head><title>Sign in</title></head>
<body style="margin:0;background:#fff">
<form action="/done" method="get">
<input id="u" name="u" autocomplete="username" style="position:absolute;left:40px;top:100px;width:300px;height:160px;background:rgb(250,210,0);border:0">
<input id="p" name="p" type="password" style="position:absolute;left:40px;top:300px;width:300px;height:160px;background:rgb(0,200,200);border:0">
</form></body></html>"#;

/// After the human signs in with a login the vault does not hold, a bar offers to save it;
/// Save puts it in the vault.
#[test]
fn a_new_sign_in_is_offered_for_saving_and_saved() {
    if !window::can_run("save_login") {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = Server::start(
        [
            ("/".to_string(), SIGN_IN.to_string()),
            (
                "/done".to_string(),
                "<!doctype html><title>Welcome</title><p>Welcome".to_string(),
            ),
        ]
        .into(),
        None,
    );
    let url = server.url("/");
    let dir = Scratch::new("save-login");
    let profile = dir.profile();
    let pass = dir.0.join("pass");
    std::fs::write(&pass, "a long test passphrase\n").unwrap();
    vault_cli::run(&profile, &pass, &["init", "--insecure-fast-kdf"], "");

    let app = App::launch(
        &dir.0,
        0,
        &["--vault-passphrase-file", pass.to_str().unwrap(), &url],
    );
    app.wait_for(YELLOW, "the sign-in form");
    let img = app.capture();
    let centre = |c| window::centre(&img, c).expect("the field");
    let (user, pw) = (centre(YELLOW), centre(CYAN));
    // Keyboard focus to the window first: xdotool types into the focused X window.
    window::xdo(&["windowfocus", "--sync", &app.window]);
    app.click(user, 1);
    app.type_text("ada@example.org");
    app.click(pw, 1);
    app.type_text("correct-Horse-9");
    app.key("Return");

    let mut model = Layout::one_tab(&url);
    model.save_login = Some(aperture_ui::SaveLoginView {
        id: 1,
        host: "127.0.0.1".into(),
        username: "ada@example.org".into(),
        update: false,
    });
    let mut layout = Layout::new(app.size(), model);
    let save = layout.click(controls::SAVE_LOGIN_YES);
    let t = std::time::Instant::now();
    loop {
        app.click(save, 1);
        let list = vault_cli::run(&profile, &pass, &["list"], "");
        if list.contains("ada@example.org") {
            assert!(list.contains("127.0.0.1"), "{list}");
            break;
        }
        if t.elapsed() > std::time::Duration::from_secs(20) {
            window::keep(&app.capture(), "save-login");
            panic!("the login was never saved; vault list: {list:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
}
