//! A PDF in an agent's tab, against the real browser: it opens in Chromium's viewer (a frame
//! of the viewer's own extension, which the agent-navigation gate once refused, leaving the
//! agent an error and a blank tab), the snapshot says that its text is not in the model, and
//! `browser_read` gives the text read out of the file. A file that is not a PDF inside says so
//! and the tab lives on; the viewer is no destination the agent may navigate to itself.

use aperture_testkit::mcp::{goto, tool};
use aperture_testkit::{McpBrowser, Server, Spec, local_browser, tiny_pdf};
use serde_json::json;
use std::collections::HashMap;

async fn launch() -> McpBrowser {
    local_browser(env!("CARGO_BIN_EXE_aperture")).await
}

fn pdf_server() -> Server {
    let pdf = |b: Vec<u8>| ("application/pdf".to_string(), b);
    Server::spawn(Spec {
        typed: HashMap::from([
            (
                "/report.pdf".to_string(),
                pdf(tiny_pdf("Quarterly revenue grew 42 percent")),
            ),
            (
                "/broken.pdf".to_string(),
                pdf(b"%PDF-1.4\nthis is not a PDF at all".to_vec()),
            ),
            ("/scan.pdf".to_string(), pdf(tiny_pdf(""))),
        ]),
        routes: HashMap::from([(
            "/".to_string(),
            r#"<!doctype html><title>Reports</title><a href="/report.pdf">Q3 report</a>"#.to_string(),
        )]),
        ..Spec::default()
    })
}

#[tokio::test]
async fn a_pdf_opens_in_the_viewer_and_reads_as_its_text() {
    let browser = launch().await;
    let server = pdf_server();
    let c = browser.connect().await;

    let ans = goto(&c, &server.url("/report.pdf")).await;
    assert!(
        ans.contains("note: the page is a PDF") && ans.contains("browser_read"),
        "the snapshot says where the text is:\n{ans}"
    );
    assert!(
        ans.contains("title \"report.pdf\""),
        "titled by its file name:\n{ans}"
    );
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(!err, "{read}");
    assert!(read.contains("(a PDF in the viewer"), "{read}");
    assert!(read.contains("Quarterly revenue grew 42 percent"), "{read}");
    let (_, console) = tool(&c, "browser_console", json!({})).await;
    assert!(
        !console.contains("refused"),
        "the viewer was let through:\n{console}"
    );

    // Reached by a click as well (another navigation path through the gate).
    let page = goto(&c, &server.url("/")).await;
    let link = aperture_testkit::mcp::role_ref(&page, "link", "Q3 report");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": link})).await;
    assert!(!err && ans.contains("note: the page is a PDF"), "{ans}");
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(!err && read.contains("Quarterly revenue"), "{read}");

    // A file that says it is a PDF and is not: a clear error, and the tab goes on.
    goto(&c, &server.url("/broken.pdf")).await;
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(err && read.contains("the PDF could not be read"), "{read}");
    let page = goto(&c, &server.url("/")).await;
    assert!(page.contains("Q3 report"), "{page}");

    // One with no text at all (a scan's pages are pictures) says so, not an empty text.
    goto(&c, &server.url("/scan.pdf")).await;
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(err && read.contains("the PDF has no text to read"), "{read}");

    // The viewer is a part of the browser, not a place the agent may send a tab.
    let (err, ans) = tool(
        &c,
        "browser_navigate",
        json!({"action": "goto", "url": "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/index.html"}),
    )
    .await;
    assert!(err && ans.contains("refused by rule scheme"), "{ans}");
}

/// A PDF that cannot be fetched again reads from the bytes Chromium received: an invoice a
/// form's POST answers (a GET of its URL is refused), and a one-time link (gone after its
/// first use). Both used to fail: the text was read from a second request.
#[tokio::test]
async fn a_pdf_answering_a_post_or_served_once_reads_from_what_the_tab_received() {
    let browser = launch().await;
    let pdf = |t: &str| ("application/pdf".to_string(), tiny_pdf(t));
    let server = Server::spawn(Spec {
        post_only: HashMap::from([("/invoice".to_string(), pdf("Invoice 1187 total due 310 euros"))]),
        once: HashMap::from([("/once.pdf".to_string(), pdf("Your one time statement"))]),
        routes: HashMap::from([(
            "/".to_string(),
            r#"<!doctype html><title>Billing</title>
<form method="post" action="/invoice"><input name="month" value="11"><button>Get invoice</button></form>"#
                .to_string(),
        )]),
        ..Spec::default()
    });
    let c = browser.connect().await;

    let page = goto(&c, &server.url("/")).await;
    let button = aperture_testkit::mcp::role_ref(&page, "button", "Get invoice");
    let (err, ans) = tool(&c, "browser_act", json!({"action": "click", "ref": button})).await;
    assert!(!err && ans.contains("note: the page is a PDF"), "{ans}");
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(!err, "{read}");
    assert!(read.contains("Invoice 1187 total due 310 euros"), "{read}");
    assert_eq!(
        server.requests().iter().filter(|p| *p == "/invoice").count(),
        1,
        "read without asking the server again: {:?}",
        server.requests()
    );

    let ans = goto(&c, &server.url("/once.pdf")).await;
    assert!(ans.contains("note: the page is a PDF"), "{ans}");
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(!err && read.contains("Your one time statement"), "{read}");
    // Read again: still the received copy, not the server's 410.
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(!err && read.contains("Your one time statement"), "{read}");

    // Another page drops the copy: going back to the spent link does not read the old bytes
    // as if the server had answered again.
    goto(&c, &server.url("/")).await;
    let ans = goto(&c, &server.url("/once.pdf")).await;
    let (err, read) = tool(&c, "browser_read", json!({})).await;
    assert!(
        !read.contains("Your one time statement"),
        "the spent link's answer is not the old file:\n{ans}\n{read} ({err})"
    );
}
