//! Reading a text field gives its text: `browser_read` on a textarea answered nothing (its
//! value is not in innerText), while a snapshot shows only the start of a long value, so a
//! task hidden at the end of a scrolled textarea could not be read. The textarea is then
//! scrolled to its end with `scroll` on its ref, as a person would, and the page reports where
//! it got to the fixture server, whose log no answer of the browser can influence.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, eventually, local_browser};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

#[tokio::test]
async fn a_text_field_reads_as_its_value() {
    let lines: String = (1..80).map(|i| format!("Line {i} of the terms.\n")).collect();
    let page = format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>Terms</title></head><body>
<label>Terms <textarea id="ta" rows="4" cols="40" readonly>{lines}The final word is PINEAPPLE.</textarea></label>
<label>Answer <input id="ans" value="typed before "></label>
<label>Notes <textarea id="notes">  indented
ends with a space </textarea></label>
<label>Secret <input id="pw" type="password" value="hunter2"></label>
<button onclick="const t = document.getElementById('ta');
  fetch('/at/' + (t.scrollTop + t.clientHeight >= t.scrollHeight - 2 ? 'end' : t.scrollTop), {{keepalive: true}})">Done</button>
</body></html>"#
    );
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/t".to_string(), page)]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/t")).await;
    assert!(
        !snap.contains("PINEAPPLE"),
        "the snapshot shows the start only:\n{snap}"
    );
    let terms = role_ref(&snap, "textbox", "Terms");
    let answer = role_ref(&snap, "textbox", "Answer");
    let secret = role_ref(&snap, "textbox", "Secret");
    let done = role_ref(&snap, "button", "Done");
    let notes = role_ref(&snap, "textbox", "Notes");
    // A value is shown exactly: spaces kept, a line break written `\n`; a textarea says it
    // takes several lines.
    assert!(
        snap.contains(r#"textbox "Answer" value="typed before ""#),
        "{snap}"
    );
    assert!(
        snap.contains(r#"textbox "Notes" value="  indented\nends with a space " multiline"#),
        "{snap}"
    );

    let (err, t) = tool(&c, "browser_read", json!({"refs": [terms, answer, secret]})).await;
    assert!(!err, "{t}");
    assert!(t.contains("The final word is PINEAPPLE."), "{t}");
    assert!(t.contains("Line 1 of the terms."), "{t}");
    assert!(t.contains("\"typed before \"\n"), "a value is read exactly: {t}");
    assert!(!t.contains("hunter2") && t.contains("••••"), "{t}");
    let (err, t) = tool(&c, "browser_read", json!({"refs": [notes]})).await;
    assert!(!err, "{t}");
    assert!(
        t.contains("\"  indented\"\n\"ends with a space \"\n"),
        "a quoted string per line, spaces kept: {t}"
    );

    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"steps": [
            {"action": "scroll", "ref": terms, "dy": 5000},
            {"action": "click", "ref": done},
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    let at = eventually(
        Duration::from_secs(20),
        "the textarea's scroll report",
        async || {
            let a = server
                .requests()
                .into_iter()
                .find_map(|p| p.strip_prefix("/at/").map(str::to_string));
            (a.is_some(), a)
        },
    )
    .await;
    assert_eq!(at.as_deref(), Some("end"));
}

/// A face-down card (its value drawn at font-size 0) reads as the snapshot shows it, with no
/// value; turned face up, it reads as its value.
#[tokio::test]
async fn reading_an_element_shows_no_text_drawn_at_size_zero() {
    let browser = launch().await;
    // A bar that sets size zero only to close the gaps between its own-sized words reads them.
    let page = include_str!("fixtures/zero-font.html").replace(
        "</body>",
        r#"<div id=bar onclick="1" style="font-size:0"><span style="font-size:16px">Sized words</span></div></body>"#,
    );
    let server = Server::start(HashMap::from([("/z".to_string(), page)]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/z")).await;
    let refs: Vec<String> = snap
        .lines()
        .filter(|l| l.contains("clickable"))
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| aperture_testkit::mcp::is_ref(w))
                .map(str::to_string)
        })
        .collect();
    assert_eq!(refs.len(), 3, "{snap}");
    let (err, t) = tool(&c, "browser_read", json!({"refs": [refs[0], refs[1], refs[2]]})).await;
    assert!(!err, "{t}");
    // The envelope's random nonces are digits: one held "14" once.
    let t = aperture_testkit::mcp::without_nonces(&t);
    assert!(!t.contains("14"), "a face-down value was read: {t}");
    assert!(t.contains('7'), "{t}");
    assert!(t.contains("Sized words"), "{t}");
}
