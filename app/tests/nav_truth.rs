//! The `browser_navigate` answer is the new page, or says plainly that it is still loading;
//! it never shows the previous page as the new one. Against the real headless browser, with
//! a fixture server that answers some paths late (a slow server, a script whose host is slow,
//! as the corpus's third-party hosts are offline).

use aperture_testkit::mcp::{Client, call, text};
use aperture_testkit::{Launch, Server, Spec};
use serde_json::json;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The previous page every navigation starts from; its words must never be in an answer
/// about another page.
const FIRST: &str = "<!doctype html><title>First</title><h1>First page</h1><p>OLDPAGE words</p>";

fn server() -> Server {
    // A page whose head waits on a script: nothing of its body exists until the script
    // arrives (or fails).
    let blocked = |script: &str, word: &str| {
        format!(
            "<!doctype html><html><head><title>{word} title</title><script src=\"{script}\"></script>\
             </head><body><h1>{word} heading</h1><p>{word}BODY after the script</p></body></html>"
        )
    };
    Server::spawn(Spec {
        routes: HashMap::from([
            ("/first".to_string(), FIRST.to_string()),
            ("/blocked".to_string(), blocked("/slow.js", "Blocked")),
            ("/stuck".to_string(), blocked("/never.js", "Stuck")),
        ]),
        delayed: HashMap::from([
            // Past the old 4 s subresource grace, within the parse wait.
            ("/slow.js".to_string(), (Duration::from_secs(7), String::new())),
            // Past the parse wait (and the test).
            ("/never.js".to_string(), (Duration::from_secs(60), String::new())),
            // Past the navigation deadline: the document itself is late.
            (
                "/late".to_string(),
                (
                    Duration::from_secs(60),
                    "<title>Late</title><p>LATEBODY</p>".into(),
                ),
            ),
        ]),
        ..Spec::default()
    })
}

async fn goto(c: &Client, url: &str) -> (bool, String, Duration) {
    let t = Instant::now();
    let r = call(c, "browser_navigate", json!({"action": "goto", "url": url})).await;
    (r.is_error == Some(true), text(&r), t.elapsed())
}

/// Puts the tab back on the first page, fully loaded.
async fn on_first(c: &Client, s: &Server) {
    let (err, t, _) = goto(c, &s.url("/first")).await;
    assert!(!err && t.contains("OLDPAGE"), "the first page: {t}");
}

#[tokio::test]
async fn navigate_answers_with_the_new_page_or_says_it_is_still_loading() {
    let s = server();
    let b = Launch::from_env_or(env!("CARGO_BIN_EXE_aperture")).start().await;
    let c = b.connect().await;
    let r = call(&c, "browser_tabs", json!({"action": "open"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));

    // A script in the head that takes 7 s: the answer waits for the parser and shows the
    // whole page (it used to come at 4 s with an empty body, called "loaded").
    on_first(&c, &s).await;
    let (err, t, took) = goto(&c, &s.url("/blocked")).await;
    assert!(!err, "{t}");
    assert!(
        t.contains("BlockedBODY") && t.contains("Blocked heading"),
        "after {took:?}, the answer shows the whole new page:\n{t}"
    );
    assert!(t.contains("loaded (HTTP 200)"), "{t}");
    assert!(!t.contains("OLDPAGE"), "{t}");
    assert!(t.contains(&format!("\"{}\"", s.url("/blocked"))), "{t}");
    eprintln!("the blocked page was answered after {took:?}");

    // A script that never comes in time: answered within the bound, with the new page as
    // far as it goes, and saying it is still loading.
    on_first(&c, &s).await;
    let (err, t, took) = goto(&c, &s.url("/stuck")).await;
    assert!(!err, "{t}");
    assert!(took < Duration::from_secs(25), "bounded: {took:?}");
    assert!(t.contains("still loading (HTTP 200)"), "after {took:?}:\n{t}");
    assert!(t.contains(&format!("\"{}\"", s.url("/stuck"))), "{t}");
    assert!(t.contains("Stuck title"), "what there is of it is shown:\n{t}");
    assert!(!t.contains("OLDPAGE") && !t.contains("First page"), "{t}");
    assert!(!t.contains(" loaded ("), "not called loaded:\n{t}");
    eprintln!("the stuck page was answered after {took:?}:\n{t}");

    // A document that has not arrived by the deadline: said plainly, and no snapshot of the
    // previous page stands in for it.
    on_first(&c, &s).await;
    let (err, t, took) = goto(&c, &s.url("/late")).await;
    assert!(err, "after {took:?}: {t}");
    assert!(t.contains("still loading"), "{t}");
    assert!(t.contains("previous page"), "{t}");
    assert!(
        !t.contains("OLDPAGE") && !t.contains("First page") && !t.contains("SNAPSHOT"),
        "no snapshot of the previous page:\n{t}"
    );
    eprintln!("the late page was answered after {took:?}:\n{t}");
}
