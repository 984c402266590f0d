//! A page's `window.print()` against the real browser: there is no print dialog to draw, so
//! the browser answers it the way Ctrl+P is answered, with a PDF of the page in the download
//! directory; the page's script goes on at once (it never hangs on a dialog nobody sees), the
//! agent is told in the tab's console and finds the PDF among the downloads, and a page that
//! prints in a loop gets one PDF at a time, not a disk full of them.

use aperture_testkit::mcp::{call, role_ref, text};
use aperture_testkit::{Launch, Server};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PAGE: &str = r#"<!doctype html><title>Invoice 42</title>
<p id=out>not printed</p>
<p>Total due: 99 euros</p>
<button onclick="window.print(); out.textContent = 'print returned'">print me</button>
<button onclick="for (let i = 0; i < 20; i++) window.print(); out.textContent = 'loop done'">print loop</button>"#;

fn pdfs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

async fn snapshot_until(c: &aperture_testkit::mcp::Client, needle: &str) -> String {
    let t = Instant::now();
    loop {
        let r = call(c, "browser_snapshot", json!({"full": true})).await;
        let s = text(&r);
        if r.is_error != Some(true) && s.contains(needle) {
            return s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the page never showed {needle:?}: {s}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test]
async fn window_print_saves_a_pdf_in_the_download_dir_and_the_page_goes_on() {
    let scratch = tempfile::tempdir().unwrap();
    let dl = scratch.path().join("Downloads");
    let s = Server::page(PAGE);
    let b = Launch::new(env!("CARGO_BIN_EXE_aperture"))
        .arg("--download-dir")
        .arg(&dl)
        .start()
        .await;
    let c = b.connect().await;
    let first = text(&call(&c, "browser_tabs", json!({"action": "open", "url": s.url("/")})).await);
    let r = call(
        &c,
        "browser_act",
        json!({"action": "click", "ref": role_ref(&first, "button", "print me")}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));

    // window.print() returned (nothing waits on a dialog), and the tab reads as usual.
    snapshot_until(&c, "print returned").await;

    // The PDF: under the page's title, complete (no temporary left), a real PDF.
    let t = Instant::now();
    let pdf = loop {
        let got = pdfs(&dl);
        if let [one] = got.as_slice()
            && one.extension().is_some_and(|e| e == "pdf")
        {
            break one.clone();
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no PDF in {}: {got:?}; stderr:\n{}",
            dl.display(),
            b.stderr()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(pdf.file_name().unwrap(), "Invoice 42.pdf");
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(
        bytes.starts_with(b"%PDF"),
        "not a PDF: {:?}",
        &bytes[..bytes.len().min(16)]
    );
    assert!(bytes.len() > 500, "an empty PDF ({} bytes)", bytes.len());

    // The agent is told, and finds it among the downloads.
    let console = text(&call(&c, "browser_console", json!({})).await);
    assert!(
        console.contains("asked to print") && console.contains("Invoice 42.pdf"),
        "{console}"
    );
    let downloads = text(&call(&c, "browser_tabs", json!({"action": "downloads"})).await);
    assert!(
        downloads.contains("Invoice 42.pdf") && downloads.contains("application/pdf"),
        "{downloads}"
    );
    assert!(downloads.contains("complete"), "{downloads}");

    // Printing twenty times in a loop: the loop finishes, and at most a PDF or two more
    // (never one per call) land; a second print of the same title never overwrites the first.
    let snap = text(&call(&c, "browser_snapshot", json!({"full": true})).await);
    call(
        &c,
        "browser_act",
        json!({"action": "click", "ref": role_ref(&snap, "button", "print loop")}),
    )
    .await;
    snapshot_until(&c, "loop done").await;
    let t = Instant::now();
    while pdfs(&dl)
        .iter()
        .any(|p| p.extension().is_some_and(|e| e == "part"))
        || pdfs(&dl).len() < 2
    {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the loop's PDF did not finish: {:?}",
            pdfs(&dl)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let all = pdfs(&dl);
    assert!(
        (2..=3).contains(&all.len()),
        "twenty prints made {} files: {all:?}",
        all.len()
    );
    assert_eq!(std::fs::read(&pdf).unwrap(), bytes, "the first PDF was replaced");
    assert!(
        all.iter().any(|p| p.file_name().unwrap() == "Invoice 42 (1).pdf"),
        "{all:?}"
    );
    // And the page is still there to read.
    let after = text(&call(&c, "browser_snapshot", json!({"full": true})).await);
    assert!(after.contains("Total due"), "{after}");
}
