//! Why a form did not go, as a person sees it. A submit the browser blocks for a field's
//! constraints shows its reason only in a bubble no DOM holds ("Please fill out this field."),
//! so the agent's click was answered "no change". Now the blocked fields say
//! `invalid="…"` with the browser's own message once they have been edited or submitted
//! (`:user-invalid`, the state Chromium outlines in red), and a field a page marks invalid
//! (`aria-invalid`) says so, with the message its `aria-errormessage` points at; one it marks
//! only by drawing its border red says `look="red border"`. The fixture
//! server's log (which no answer of the browser can influence) says whether the form went.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{Server, local_browser};
use serde_json::json;
use std::collections::HashMap;

const FORM: &str = r##"<!doctype html><html><head><title>Sign up</title></head><body>
<form action="/sent">
<label>Email <input type=email name=email required></label>
<label>Age <input type=number name=age min=18></label>
<label>Handle <input name=handle id=handle aria-errormessage=taken></label>
<span id=taken hidden>That handle is taken</span>
<button>Create account</button>
</form>
<style>.bad { border: 1px solid #dc3545 }</style>
<label>Zip <input id=zip></label>
<button type=button id=check>Check zip</button>
<script>
// The page's own check, as form libraries do it: mark the field and show the message.
document.getElementById('handle').addEventListener('input', e => {
  const bad = e.target.value === 'admin';
  e.target.setAttribute('aria-invalid', bad ? 'true' : 'false');
  document.getElementById('taken').hidden = !bad;
});
// A page's check that marks a field only by its looks: a class that draws the border red.
document.getElementById('check').addEventListener('click', () => {
  document.getElementById('zip').classList.toggle('bad', !/^[0-9]{5}$/.test(document.getElementById('zip').value));
});
</script></body></html>"##;

fn line_of<'a>(text: &'a str, r: &str) -> &'a str {
    let tag = format!("{r} ");
    text.lines()
        .find(|l| l.trim_start_matches(['~', ' ']).starts_with(&tag))
        .unwrap_or_default()
}

#[tokio::test]
async fn a_blocked_submit_says_which_fields_and_why() {
    let browser = local_browser(env!("CARGO_BIN_EXE_aperture")).await;
    let server = Server::start(HashMap::from([("/f".to_string(), FORM.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/f")).await;
    let email = role_ref(&snap, "textbox", "Email");
    let age = role_ref(&snap, "spinbutton", "Age");
    let handle = role_ref(&snap, "textbox", "Handle");
    let create = role_ref(&snap, "button", "Create account");
    // Nothing is judged before anyone touched the form: a required empty field is not yet
    // shown as wrong (as Chromium draws it).
    assert!(!snap.contains("invalid"), "{snap}");

    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": create})).await;
    assert!(!err, "{t}");
    assert!(
        line_of(&t, &email).contains("invalid=\"Please fill out this field.\""),
        "the blocked submit names the empty required field and why:\n{t}"
    );
    assert!(
        !line_of(&t, &age).contains("invalid"),
        "an empty optional field is valid:\n{t}"
    );
    // Pressed again, nothing changes on the page: the answer names the field in the way.
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": create})).await;
    assert!(!err, "{t}");
    assert!(
        t.contains(&format!("nothing changed; {email} is marked invalid")),
        "{t}"
    );

    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": email, "text": "bob"}),
    )
    .await;
    let l = line_of(&t, &email);
    assert!(
        l.contains("invalid=\"") && l.contains('@'),
        "the message follows the value:\n{t}"
    );
    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": age, "text": "12"}),
    )
    .await;
    assert!(
        line_of(&t, &age).contains("invalid=\"Value must be greater than or equal to 18.\""),
        "{t}"
    );

    // The page's own mark, with the message it points at; and gone once the page clears it.
    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": handle, "text": "admin"}),
    )
    .await;
    assert!(
        line_of(&t, &handle).contains("invalid=\"That handle is taken\""),
        "{t}"
    );
    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": handle, "text": "2"}),
    )
    .await;
    assert!(!line_of(&t, &handle).contains("invalid"), "{t}");

    // Put right, each field loses its mark, and the form goes.
    tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": email, "text": "@x.io"}),
    )
    .await;
    let (_, t) = tool(
        &c,
        "browser_act",
        json!({"action": "key", "ref": age, "key": "Backspace", "count": 2}),
    )
    .await;
    assert!(!t.contains("invalid=\"Value must"), "{t}");
    tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": age, "text": "30"}),
    )
    .await;
    let (_, t) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(!t.contains("invalid"), "{t}");
    assert!(
        !server.requests().iter().any(|p| p.starts_with("/sent")),
        "no blocked submit went out"
    );
    let (err, t) = tool(&c, "browser_act", json!({"action": "click", "ref": create})).await;
    assert!(!err, "{t}");
    aperture_testkit::eventually(std::time::Duration::from_secs(20), "the form sent", async || {
        let r = server.requests();
        (r.iter().any(|p| p == "/sent"), r)
    })
    .await;
    // The click's answer is the new page, at the address the form built.
    assert!(t.contains("/sent?email=bob%40x.io&age=30&handle=admin2"), "{t}");

    // A mark drawn only in the field's border: worded once it is red, and gone with it.
    let snap = goto(&c, &server.url("/f")).await;
    assert!(
        !snap.contains("look="),
        "an ordinary border says nothing:\n{snap}"
    );
    let zip = role_ref(&snap, "textbox", "Zip");
    let check = role_ref(&snap, "button", "Check zip");
    tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": zip, "text": "12"}),
    )
    .await;
    let (_, t) = tool(&c, "browser_act", json!({"action": "click", "ref": check})).await;
    assert!(line_of(&t, &zip).contains("look=\"red border\""), "{t}");
    tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": zip, "text": "345"}),
    )
    .await;
    let (_, t) = tool(&c, "browser_act", json!({"action": "click", "ref": check})).await;
    assert!(!t.contains("red border"), "{t}");
    assert!(
        line_of(&t, &zip).starts_with('~'),
        "the mark's going is a change:\n{t}"
    );
}
