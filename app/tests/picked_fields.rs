//! Fields a person sets through a picker or a slider (date, time, month, color, range) are
//! set as the picker sets them, through `browser_fill_form` and `browser_act type`: typing
//! `2026-12-25` into a date field's segments made year 61225. A value the field does not
//! take is refused with its format named and the field left as it was. The page reports
//! every `input` and `change` event and the value it then read to the fixture server, whose
//! log no answer of the browser can influence.

use aperture_testkit::mcp::{goto, role_ref, tool};
use aperture_testkit::{McpBrowser, Server, eventually, local_browser};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

const PAGE: &str = r##"<!doctype html><html><head><title>Picked</title></head><body>
<label>Arrival <input type=date id=date value="2026-01-02"></label>
<label>Time <input type=time id=time></label>
<label>Month <input type=month id=month></label>
<label>Shade <input type=color id=color value="#000000"></label>
<label>Volume <input type=range id=vol min=0 max=100 step=5 value=20></label>
<label>Locked <input type=date id=locked disabled></label>
<script>
function report(u) { const x = new XMLHttpRequest(); x.open('GET', u, false); try { x.send(); } catch (e) {} }
for (const el of document.querySelectorAll('input')) {
  for (const ev of ['input', 'change']) {
    // A synchronous request: each report has reached the server before the next event runs
    // (two keepalive fetches fired back to back lost one on a loaded CI machine).
    el.addEventListener(ev, () => report('/ev/' + el.id + '/' + ev + '/' + encodeURIComponent(el.value)));
  }
}
</script></body></html>"##;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

/// The events the page reported for field `id`, once `n` have come in, sorted.
async fn events(server: &Server, id: &str, n: usize) -> Vec<String> {
    let prefix = format!("/ev/{id}/");
    let of = || {
        server
            .requests()
            .into_iter()
            .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
            .collect::<Vec<_>>()
    };
    // Sorted: the assertions say which events came, not in what order.
    let mut e = eventually(
        Duration::from_secs(20),
        &format!("{n} events of {id}"),
        async || {
            let e = of();
            (e.len() >= n, e)
        },
    )
    .await;
    e.sort();
    e
}

#[tokio::test]
async fn picker_fields_are_set_as_their_picker_sets_them() {
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/p".to_string(), PAGE.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/p")).await;
    let date = role_ref(&snap, "textbox", "Arrival");
    let time = role_ref(&snap, "textbox", "Time");
    let month = role_ref(&snap, "textbox", "Month");
    let color = role_ref(&snap, "button", "Shade");
    let vol = role_ref(&snap, "slider", "Volume");
    let locked = role_ref(&snap, "textbox", "Locked");

    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [
            {"ref": date, "value": "Dec 25, 2026"},
            {"ref": month, "value": "2027-03"},
            {"ref": color, "value": "#ff8800"},
            {"ref": vol, "value": "73"},
        ]}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(
        t.contains(&format!(
            "{date} set to 2026-12-25 (the field's form of \"Dec 25, 2026\")"
        )),
        "{t}"
    );
    assert!(
        t.contains(&format!("{vol} set to 75 (the nearest value the slider allows)")),
        "{t}"
    );
    assert!(t.contains("2026-12-25"), "the diff shows the new value:\n{t}");
    assert_eq!(
        events(&server, "date", 2).await,
        ["change/2026-12-25", "input/2026-12-25"]
    );
    assert_eq!(
        events(&server, "month", 2).await,
        ["change/2027-03", "input/2027-03"]
    );
    assert_eq!(
        events(&server, "color", 2).await,
        ["change/%23ff8800", "input/%23ff8800"]
    );
    assert_eq!(events(&server, "vol", 2).await, ["change/75", "input/75"]);

    // A color in capitals is a color: the field keeps it in lower case, and it is not refused.
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": color, "value": "#00AAFF"}]}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains(&format!("{color} filled")), "{t}");
    assert_eq!(
        events(&server, "color", 4).await,
        [
            "change/%2300aaff",
            "change/%23ff8800",
            "input/%2300aaff",
            "input/%23ff8800"
        ]
    );

    // browser_act type on a time field sets it whole.
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": time, "text": "14:30"}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(t.contains(&format!("set {time} to the value given")), "{t}");
    assert_eq!(
        events(&server, "time", 2).await,
        ["change/14%3A30", "input/14%3A30"]
    );
    // A time as people write it is set in the field's form, and the answer says which.
    let (err, t) = tool(
        &c,
        "browser_act",
        json!({"action": "type", "ref": time, "text": "2:45 pm"}),
    )
    .await;
    assert!(!err, "{t}");
    assert!(
        t.contains(&format!("{time} set to 14:45 (the field's form of \"2:45 pm\")")),
        "{t}"
    );
    assert_eq!(
        events(&server, "time", 4).await,
        [
            "change/14%3A30",
            "change/14%3A45",
            "input/14%3A30",
            "input/14%3A45"
        ]
    );

    // A value in another format (a day and month that read both ways) is refused, the format
    // is named, and the field keeps its value with no event fired.
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": date, "value": "12/05/2026"}]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("a date field takes YYYY-MM-DD"), "{t}");
    let (_, read) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(read.contains("value=\"2026-12-25\""), "{read}");

    // A slider takes a number only as HTML writes one: "+40" (which Number() reads as 40) is
    // refused and the slider stays where it was, not moved to its default and called near.
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": vol, "value": "+40"}]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(!t.contains("nearest value"), "{t}");
    let (_, read) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    assert!(read.contains("value=\"75\""), "{read}");

    // A disabled one is refused before anything is touched.
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": locked, "value": "2026-12-25"}]}),
    )
    .await;
    assert!(err, "{t}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ev = server.requests();
    assert!(
        !ev.iter().any(|p| p.starts_with("/ev/locked/")),
        "nothing reached the disabled field: {ev:?}"
    );
    assert_eq!(
        ev.iter().filter(|p| p.starts_with("/ev/date/")).count(),
        2,
        "the refused value fired nothing: {ev:?}"
    );
    assert_eq!(
        ev.iter().filter(|p| p.starts_with("/ev/vol/")).count(),
        2,
        "the refused slider value fired nothing: {ev:?}"
    );
}

/// A disabled checkbox or select keeps its ref (flagged disabled), but no user can change it:
/// `browser_fill_form` refuses it, never reports it checked or chosen, and the page sees no
/// event.
#[tokio::test]
async fn disabled_checkboxes_and_selects_are_refused_untouched() {
    const DISABLED: &str = r##"<!doctype html><html><head><title>Disabled</title></head><body>
<label>Terms <input type=checkbox id=terms disabled></label>
<label>Size <select id=size disabled><option>Small</option><option>Medium</option></select></label>
<label>Note <input id=note></label>
<script>
function report(u) { const x = new XMLHttpRequest(); x.open('GET', u, false); try { x.send(); } catch (e) {} }
for (const el of document.querySelectorAll('input, select')) {
  for (const ev of ['input', 'change', 'click']) {
    el.addEventListener(ev, () => report('/ev/' + el.id + '/' + ev));
  }
}
</script></body></html>"##;
    let browser = launch().await;
    let server = Server::start(HashMap::from([("/d".to_string(), DISABLED.to_string())]), None);
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/d")).await;
    let terms = role_ref(&snap, "checkbox", "Terms");
    let size = role_ref(&snap, "combobox", "Size");
    let note = role_ref(&snap, "textbox", "Note");
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [
            {"ref": terms, "value": "true"},
            {"ref": size, "value": "Medium"},
            {"ref": note, "value": "hi"},
        ]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(!t.contains(&format!("{terms} checked")), "{t}");
    assert!(!t.contains(&format!("{size} option chosen")), "{t}");
    // The enabled field after them is filled: what comes last has arrived once its events have.
    let typed = eventually(Duration::from_secs(20), "the note's events", async || {
        let r = server.requests();
        (r.iter().any(|p| p == "/ev/note/change"), r)
    })
    .await;
    assert!(
        !typed
            .iter()
            .any(|p| p.starts_with("/ev/terms/") || p.starts_with("/ev/size/")),
        "nothing reached the disabled fields: {typed:?}"
    );
    let (_, read) = tool(&c, "browser_snapshot", json!({"full": true})).await;
    let line = read.lines().find(|l| l.contains(&size)).unwrap_or_default();
    assert!(line.contains("*\"Small\""), "{read}");
}

/// A read-only text field (a date field the page fills from its own calendar) is refused with
/// what to do instead: click it, and pick in what opens.
#[tokio::test]
async fn a_read_only_field_is_refused_with_the_way_a_person_sets_it() {
    let browser = launch().await;
    let server = Server::start(
        HashMap::from([(
            "/r".to_string(),
            r#"<!doctype html><html><head><title>Trip</title></head><body>
<label>Departure <input id=dep readonly placeholder="mm/dd/yyyy"></label></body></html>"#
                .to_string(),
        )]),
        None,
    );
    let c = browser.connect().await;
    let snap = goto(&c, &server.url("/r")).await;
    let dep = role_ref(&snap, "textbox", "Departure");
    let (err, t) = tool(
        &c,
        "browser_fill_form",
        json!({"fields": [{"ref": dep, "value": "01/05/2016"}]}),
    )
    .await;
    assert!(err, "{t}");
    assert!(t.contains("is read-only") && t.contains("click"), "{t}");
}
