//! Frames of another site (issue 15, item 2): a sign-in form in a cross-origin iframe, which
//! under site isolation lives in a renderer of its own, is in the snapshot with refs, is filled
//! and submitted through those refs with input landing inside the frame, and a ref from the
//! frame is refused once the frame has navigated.

use aperture_testkit::mcp::{CallToolResult, Client, call, role_ref, text};
use aperture_testkit::{Launch, McpBrowser, Server, eventually};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

async fn launch() -> McpBrowser {
    Launch::from_env_or(env!("CARGO_BIN_EXE_aperture"))
        // 127.0.0.1 and localhost are two sites: the frame gets a renderer of its own.
        .allow_hosts(["127.0.0.1", "127.0.0.2", "localhost"])
        .start()
        .await
}

/// The top page: the frame sits right of the page's left edge, inside a border and padding, so
/// input aimed at the frame's elements must be moved by the iframe's content-box origin. The
/// page says whether its script can reach the frame's document (it must not: another origin).
fn top_page(frame_url: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>Checkout</title></head><body style="margin:0">
<h1>Checkout</h1>
<p id=xo>checking</p>
<iframe id=f title="Sign-in frame" src="{frame_url}" style="margin-left:120px;border:6px solid #999;padding:9px;width:420px;height:320px"></iframe>
<p><button onclick="this.textContent='Top pressed'">Top button</button></p>
<script>
addEventListener('load', () => {{
  document.getElementById('xo').textContent =
    document.getElementById('f').contentDocument === null ? 'frame is cross-origin' : 'frame is same-origin';
}});
</script></body></html>"#
    )
}

/// The sign-in form. Submitting reports what it got to the fixture server (its log, which no
/// answer of the browser can influence) and navigates the frame to a welcome page.
const LOGIN: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body style="margin:0">
<form id=f action="/welcome" style="margin-top:40px">
<p><label for=user>Username</label> <input id=user name=user></p>
<p><label for=pass>Password</label> <input id=pass name=pass type=password></p>
<p><label for=region>Region</label> <select id=region name=region><option>Europe</option><option>Americas</option></select></p>
<p><button id=go>Sign in</button></p>
</form>
<script>
fetch('/login-ran');
document.getElementById('f').addEventListener('submit', () => {
  const v = (id) => encodeURIComponent(document.getElementById(id).value);
  fetch('/got/' + v('user') + '/' + v('pass') + '/' + v('region'), {keepalive: true});
});
</script></body></html>"#;

const WELCOME: &str = r#"<!doctype html><html><head><title>Welcome</title></head><body>
<p id=w>welcome</p>
<button onclick="setTimeout(() => { location.href = '/login'; }, 300)">Continue</button>
<button onclick="fetch('/later', {keepalive: true})">Later</button>
<script>
document.getElementById('w').textContent = 'Signed in as ' + new URLSearchParams(location.search).get('user');
</script></body></html>"#;

async fn act(c: &Client, args: Value) -> (bool, String) {
    let r: CallToolResult = call(c, "browser_act", args).await;
    (r.is_error == Some(true), text(&r))
}

async fn snapshot(c: &Client) -> String {
    text(&call(c, "browser_snapshot", json!({"full": true})).await)
}

/// Snapshots until one contains `needle` (a frame loads on its own schedule).
async fn snapshot_with(c: &Client, needle: &str) -> String {
    eventually(
        Duration::from_secs(20),
        &format!("a snapshot with {needle:?}"),
        async || {
            let s = snapshot(c).await;
            (s.contains(needle), s)
        },
    )
    .await
}

/// The paths `server` logged that `keep` accepts, once there are at least `n` and a settle has
/// passed in which a second report of something sent once would have arrived too.
async fn logged(server: &Server, n: usize, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let got = || {
        server
            .requests()
            .into_iter()
            .filter(|p| keep(p))
            .collect::<Vec<_>>()
    };
    eventually(Duration::from_secs(20), "the frame's report", async || {
        let g = got();
        (g.len() >= n, server.requests())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    got()
}

#[tokio::test]
async fn a_sign_in_form_in_a_frame_of_another_site_is_seen_filled_and_submitted() {
    let browser = launch().await;
    let frame_site = Server::start(
        HashMap::from([
            ("/login".to_string(), LOGIN.to_string()),
            ("/welcome".to_string(), WELCOME.to_string()),
        ]),
        None,
    );
    let frame_url = frame_site.url("/login").replace("127.0.0.1", "localhost");
    let top = Server::page(&top_page(&frame_url));
    let c = browser.connect().await;
    call(&c, "browser_tabs", json!({"action": "open", "url": top.url("/")})).await;

    // The frame's form, under the iframe, with refs.
    let snap = snapshot_with(&c, "Sign in").await;
    assert!(snap.contains("frame is cross-origin"), "{snap}");
    let user = role_ref(&snap, "textbox", "Username");
    let pass = role_ref(&snap, "textbox", "Password");
    let go = role_ref(&snap, "button", "Sign in");
    let region = role_ref(&snap, "combobox", "Region");
    let lines: Vec<&str> = snap.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in:\n{snap}"))
    };
    let indent = |i: usize| lines[i].len() - lines[i].trim_start().len();
    let (iframe, field) = (at("Sign-in frame"), at(&format!("{user} ")));
    assert!(
        iframe < field && indent(field) > indent(iframe),
        "the frame's content is under its iframe:\n{snap}"
    );
    // Refs of the frame are apart from the page's own, and stable across observations.
    let top_button = role_ref(&snap, "button", "Top button");
    assert_ne!(top_button, go);
    let again = snapshot(&c).await;
    assert_eq!(role_ref(&again, "textbox", "Username"), user, "{again}");
    assert_eq!(role_ref(&again, "button", "Sign in"), go, "{again}");

    // Filling types into the frame's fields (focus, keys and their counting in the frame).
    let r = call(
        &c,
        "browser_fill_form",
        json!({"fields": [
            {"ref": user, "value": "alice"},
            {"ref": pass, "value": "s3cret"},
            {"ref": region, "value": "Americas"},
        ]}),
    )
    .await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    let snap = snapshot(&c).await;
    assert!(snap.contains(r#"value="alice""#), "{snap}");
    assert!(snap.contains(r#"*"Americas""#), "{snap}");

    // The page's own button still works (its elements are the main frame's).
    let (err, t) = act(&c, json!({"action": "click", "ref": top_button})).await;
    assert!(!err, "{t}");

    // A trusted click on the frame's button lands on it: the form is submitted with the values.
    let (err, t) = act(&c, json!({"action": "click", "ref": go})).await;
    assert!(!err, "{t}");
    let got = logged(&frame_site, 1, |p| p.starts_with("/got/")).await;
    assert_eq!(
        got,
        ["/got/alice/s3cret/Americas"],
        "the frame's form got the typed values once"
    );
    let snap = snapshot_with(&c, "Signed in as alice").await;
    assert!(snap.contains("Signed in as alice"), "{snap}");
    assert!(snap.contains("Top pressed"), "{snap}");
    // Reading the page reads the frame's text too.
    let page = text(&call(&c, "browser_read", json!({})).await);
    assert!(
        page.contains("Checkout") && page.contains("Signed in as alice"),
        "{page}"
    );

    // The frame navigated: a ref to its old document's field is refused, nothing is typed.
    let (err, t) = act(&c, json!({"action": "type", "ref": user, "text": "mallory"})).await;
    assert!(err, "a ref from the frame's previous document is refused: {t}");
    assert!(t.contains(&format!("{user} is gone")), "{t}");
    assert!(!snapshot(&c).await.contains("mallory"));

    // The frame navigates on its own after the last observation: its old refs are refused
    // by the frame (or found gone), never sent to the new document.
    let snap = snapshot(&c).await;
    let later = role_ref(&snap, "button", "Later");
    let (err, t) = act(
        &c,
        json!({"action": "click", "ref": role_ref(&snap, "button", "Continue")}),
    )
    .await;
    assert!(!err, "{t}");
    // The new document has run its script (not merely been requested) before the click.
    logged(&frame_site, 2, |p| p == "/login-ran").await;
    let (err, t) = act(&c, json!({"action": "click", "ref": later})).await;
    assert!(err, "a ref from the frame's previous document is refused: {t}");
    assert!(t.contains("nothing was sent"), "{t}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !frame_site.requests().iter().any(|p| p == "/later"),
        "nothing reached the new document"
    );
}

/// A frame of a third site inside the frame of another: both levels are walked in their own
/// renderers, placed under their iframes, and a click on the inner frame's button goes through
/// both iframes' offsets.
#[tokio::test]
async fn a_frame_inside_a_frame_of_another_site_is_seen_and_clicked() {
    let browser = launch().await;
    let inner = Server::start_full(
        "127.0.0.2",
        HashMap::from([(
            "/inner".to_string(),
            r#"<!doctype html><html><head><title>Inner</title></head><body style="margin:0">
<p style="height:50px">Inner frame</p>
<button onclick="fetch('/pressed', {keepalive: true}); this.textContent = 'Pay done'" style="margin-left:30px">Pay now</button>
</body></html>"#
                .to_string(),
        )]),
        HashMap::new(),
        None,
    );
    let middle = Server::start(
        HashMap::from([(
            "/middle".to_string(),
            format!(
                r#"<!doctype html><html><head><title>Middle</title></head><body style="margin:0">
<p>Middle frame</p>
<iframe title="Payment" src="{}" style="margin-left:40px;border:4px solid #555;width:300px;height:160px"></iframe>
</body></html>"#,
                inner.url("/inner")
            ),
        )]),
        None,
    );
    let middle_url = middle.url("/middle").replace("127.0.0.1", "localhost");
    let top = Server::page(&format!(
        r#"<!doctype html><html><head><title>Top</title></head><body style="margin:0">
<h1>Top</h1>
<iframe title="Outer" src="{middle_url}" style="margin-left:60px;border:3px solid #999;padding:5px;width:420px;height:300px"></iframe>
</body></html>"#
    ));
    let c = browser.connect().await;
    call(&c, "browser_tabs", json!({"action": "open", "url": top.url("/")})).await;
    let snap = snapshot_with(&c, "Pay now").await;
    let pay = role_ref(&snap, "button", "Pay now");
    let lines: Vec<&str> = snap.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in:\n{snap}"))
    };
    let indent = |i: usize| lines[i].len() - lines[i].trim_start().len();
    let (outer, payment, button) = (at("Outer"), at("Payment"), at("Pay now"));
    assert!(
        outer < payment
            && payment < button
            && indent(outer) < indent(payment)
            && indent(payment) < indent(button),
        "each frame is under its iframe:\n{snap}"
    );

    // Reading a ref of the inner frame asks that frame's walker.
    let r = call(&c, "browser_read", json!({"refs": [pay]})).await;
    assert!(text(&r).contains("Pay now"), "{}", text(&r));

    let (err, t) = act(&c, json!({"action": "click", "ref": pay})).await;
    assert!(!err, "{t}");
    assert_eq!(
        logged(&inner, 1, |p| p == "/pressed").await.len(),
        1,
        "the click landed on the inner frame's button once"
    );
    let snap = snapshot_with(&c, "Pay done").await;
    assert!(snap.contains("Pay done"), "{snap}");
}

/// The page's own banner over a frame's button: the click is refused with the banner named,
/// nothing reaches the frame; once the banner is gone the click lands.
#[tokio::test]
async fn a_banner_of_the_page_over_a_frame_is_reported_as_the_cover() {
    let browser = launch().await;
    let frame_site = Server::start(
        HashMap::from([(
            "/pay".to_string(),
            r#"<!doctype html><html><head><title>Pay</title></head><body style="margin:0">
<button onclick="fetch('/paid', {keepalive: true})" style="margin:20px;width:160px;height:40px">Pay now</button>
</body></html>"#
                .to_string(),
        )]),
        None,
    );
    let frame_url = frame_site.url("/pay").replace("127.0.0.1", "localhost");
    let top = Server::page(&format!(
        r#"<!doctype html><html><head><title>Shop</title></head><body style="margin:0">
<iframe title="Payment" src="{frame_url}" style="border:0;margin:30px;width:400px;height:200px"></iframe>
<div id=banner style="position:absolute;left:0;top:0;width:600px;height:150px;background:#eee">
Cookie banner <button onclick="document.getElementById('banner').remove()">Accept</button></div>
</body></html>"#
    ));
    let c = browser.connect().await;
    call(&c, "browser_tabs", json!({"action": "open", "url": top.url("/")})).await;
    let snap = snapshot_with(&c, "Pay now").await;
    let pay = role_ref(&snap, "button", "Pay now");
    let (err, t) = act(&c, json!({"action": "click", "ref": pay})).await;
    assert!(err, "{t}");
    assert!(t.contains("Cookie banner"), "the cover is named: {t}");
    let (err, t) = act(
        &c,
        json!({"action": "click", "ref": role_ref(&snap, "button", "Accept")}),
    )
    .await;
    assert!(!err, "{t}");
    let (err, t) = act(&c, json!({"action": "click", "ref": pay})).await;
    assert!(!err, "{t}");
    assert_eq!(
        logged(&frame_site, 1, |p| p == "/paid").await.len(),
        1,
        "only the click after the banner went reached the frame"
    );
}

/// A frame of another site inside a same-origin frame (which the page's own walker walks
/// inline): it is placed under its iframe there and clicked through both offsets.
#[tokio::test]
async fn a_frame_of_another_site_inside_a_same_origin_frame_is_seen_and_clicked() {
    let browser = launch().await;
    let frame_site = Server::start(
        HashMap::from([(
            "/pay".to_string(),
            r#"<!doctype html><html><head><title>Pay</title></head><body style="margin:0">
<button onclick="fetch('/paid', {keepalive: true})" style="margin:25px 0 0 35px">Pay inside</button>
</body></html>"#
                .to_string(),
        )]),
        None,
    );
    let frame_url = frame_site.url("/pay").replace("127.0.0.1", "localhost");
    let top = Server::start(
        HashMap::from([
            (
                "/".to_string(),
                r#"<!doctype html><html><head><title>Top</title></head><body style="margin:0">
<h1>Top</h1>
<iframe title="Wrapper" src="/wrap" style="margin-left:50px;border:2px solid #999;width:500px;height:300px"></iframe>
</body></html>"#
                    .to_string(),
            ),
            (
                "/wrap".to_string(),
                format!(
                    r#"<!doctype html><html><head><title>Wrap</title></head><body style="margin:0">
<p style="height:40px">Wrapper page</p>
<iframe title="Inner payment" src="{frame_url}" style="margin-left:20px;border:5px solid #555;width:300px;height:150px"></iframe>
</body></html>"#
                ),
            ),
        ]),
        None,
    );
    let c = browser.connect().await;
    call(&c, "browser_tabs", json!({"action": "open", "url": top.url("/")})).await;
    let snap = snapshot_with(&c, "Pay inside").await;
    assert!(snap.contains("Wrapper page"), "{snap}");
    let lines: Vec<&str> = snap.lines().collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in:\n{snap}"))
    };
    let indent = |i: usize| lines[i].len() - lines[i].trim_start().len();
    let (inner, button) = (at("Inner payment"), at("Pay inside"));
    assert!(
        inner < button && indent(inner) < indent(button),
        "the frame is under its iframe in the same-origin frame:\n{snap}"
    );
    let (err, t) = act(
        &c,
        json!({"action": "click", "ref": role_ref(&snap, "button", "Pay inside")}),
    )
    .await;
    assert!(!err, "{t}");
    assert_eq!(
        logged(&frame_site, 1, |p| p == "/paid").await.len(),
        1,
        "the click landed once"
    );
}
