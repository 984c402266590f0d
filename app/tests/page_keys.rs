//! Shortcuts a page may take, in the real windowed browser under X with real keys. As in
//! Chrome, a key pressed in a focused page goes to the page first, and the browser acts only
//! if the page left it alone: a web app that takes Ctrl+F for its own search keeps it (the
//! browser's find bar does not open), Ctrl+M, which the page only watches, still mutes the
//! tab. The keys that open and close tabs never reach the page at all. And the agent's keys,
//! which reach the same page the same way, never work the window.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_testkit::mcp::{Client, call, text, tool};
use serde_json::json;
use std::time::Duration;
use window::{Layout, tab_lines, tabs_until};

const MAGENTA: [u8; 3] = [230, 20, 140];

/// A search field, and a script that logs every Ctrl key the page sees and keeps Ctrl+F for
/// itself, as web apps with their own search do. A rich-text editor beside it, whose title
/// says when its text is underlined.
const PAGE: &str = r#"<!doctype html><html><head><title>Keys</title></head>
<body style="margin:0;background:#fff">
<input id="q" aria-label="Query" style="position:absolute;left:40px;top:40px;width:300px;height:40px;font-size:20px">
<div style="position:absolute;left:40px;top:120px;width:300px;height:150px;background:rgb(230,20,140)"></div>
<p id="log" style="position:absolute;left:40px;top:300px">seen:</p>
<div id="ed" contenteditable="true" style="position:absolute;left:400px;top:40px;width:300px;height:40px;font-size:20px;border:1px solid #888">word</div>
<script>
const ed = document.getElementById('ed');
ed.addEventListener('input', () => {
  document.title = ed.innerHTML.includes('<u>') ? 'Underlined' : 'Keys';
});
document.addEventListener('keydown', e => {
  if (!e.ctrlKey || e.key === 'Control' || e.target === ed) return;
  document.getElementById('log').textContent += ' ' + e.key.toLowerCase();
  if (e.key.toLowerCase() === 'f') e.preventDefault();
});
</script>
</body></html>"#;

/// The page's snapshot, once `ok` holds for it (up to 30 s).
async fn page_until(c: &Client, what: &str, ok: impl Fn(&str) -> bool) -> String {
    aperture_testkit::eventually(Duration::from_secs(30), what, async || {
        let t = text(&call(c, "browser_snapshot", json!({"full": true})).await);
        (ok(&t), t)
    })
    .await
}

/// The keys the page logged (`seen: m f m`), from its snapshot.
fn seen(snapshot: &str) -> Vec<String> {
    let line = snapshot
        .lines()
        .find(|l| l.contains("seen:"))
        .unwrap_or_else(|| panic!("no log line in {snapshot}"));
    let after = line.split("seen:").nth(1).unwrap_or_default();
    after
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_takes_the_shortcuts_it_handles_and_the_browser_acts_on_the_rest() {
    if !window::can_run("page_keys") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let list = tabs_until(&c, "one tab", |t| tab_lines(t).len() == 1).await;
    let first = window::first_tab_id(&list);

    // The agent's Ctrl+M reaches the page, which leaves it alone, and the tab stays unmuted:
    // only keys the human pressed work the window.
    let (err, t) = tool(&c, "browser_act", json!({"action": "key", "key": "Control+m"})).await;
    assert!(!err, "{t}");
    page_until(&c, "the page to see the agent's Ctrl+M", |s| seen(s) == ["m"]).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let list = tabs_until(&c, "the tab list", |_| true).await;
    assert!(!list.contains("muted"), "the agent's key muted the tab: {list}");

    // The human clicks into the field, so the page has the keyboard.
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let field = aperture_ui::egui::pos2(page.min.x + 150.0, page.min.y + 60.0);
    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, field, 1);

    // Ctrl+F: the page keeps it for its own search, so the browser's find bar does not open
    // and what is typed next still goes into the page's field.
    window::xdo(&["key", "--clearmodifiers", "ctrl+f"]);
    page_until(&c, "the page to see Ctrl+F", |s| seen(s) == ["m", "f"]).await;
    window::xdo(&["type", "--delay", "60", "abc"]);
    let snap = page_until(&c, "the typing to reach the page's field", |s| {
        s.contains(r#"value="abc""#)
    })
    .await;
    assert!(!snap.contains("Find"), "{snap}");

    // Ctrl+M: the page sees it first, leaves it, and the browser mutes the tab.
    window::xdo(&["key", "--clearmodifiers", "ctrl+m"]);
    tabs_until(&c, "the human's Ctrl+M to mute the tab", |t| {
        tab_lines(t).iter().any(|l| l.contains("muted"))
    })
    .await;
    page_until(&c, "the page to see the human's Ctrl+M", |s| {
        seen(s) == ["m", "f", "m"]
    })
    .await;

    // Alt+D takes the keyboard to the address bar; the "d" X types with it reaches neither
    // the page's field nor the address.
    window::xdo(&["key", "--clearmodifiers", "alt+d"]);
    tokio::time::sleep(Duration::from_secs(1)).await;
    window::xdo(&["type", "--delay", "60", "zz"]);
    tokio::time::sleep(Duration::from_secs(1)).await;
    window::xdo(&["key", "Escape", "Escape"]);
    let snap = page_until(&c, "the field after Alt+D", |s| s.contains("value=")).await;
    assert!(snap.contains(r#"value="abc""#), "{snap}");

    // In the editor, Ctrl+U is Blink's underline, not the browser's view-source.
    let editor = aperture_ui::egui::pos2(page.min.x + 550.0, page.min.y + 60.0);
    window::click(&w, editor, 1);
    window::xdo(&["key", "--clearmodifiers", "ctrl+a"]);
    window::xdo(&["key", "--clearmodifiers", "ctrl+u"]);
    tabs_until(&c, "the editor's text to be underlined", |t| {
        t.contains("Underlined")
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let list = tabs_until(&c, "the tab list", |_| true).await;
    assert_eq!(tab_lines(&list).len(), 1, "Ctrl+U opened the source: {list}");

    // On the page itself, which leaves Ctrl+U alone, it opens the page's source in a new tab.
    let block = aperture_ui::egui::pos2(page.min.x + 190.0, page.min.y + 195.0);
    window::click(&w, block, 1);
    window::xdo(&["key", "--clearmodifiers", "ctrl+u"]);
    tabs_until(&c, "Ctrl+U to open the page's source", |t| {
        // Chromium titles the tab "view-source:" and the host, and reports the page's URL.
        tab_lines(t).len() == 2 && t.contains("\"view-source:127.0.0.1")
    })
    .await;

    // Ctrl+T opens a tab and never reaches the page, whatever the page would do with it.
    window::xdo(&["key", "--clearmodifiers", "ctrl+t"]);
    tabs_until(&c, "Ctrl+T to open a tab", |t| tab_lines(t).len() == 3).await;
    let win = w.clone();
    tokio::task::spawn_blocking(move || window::keep(&window::capture(&win), "page-keys-end"))
        .await
        .unwrap();
    let (err, t) = tool(&c, "browser_tabs", json!({"action": "select", "tab": first})).await;
    assert!(!err, "{t}");
    let snap = page_until(&c, "the first tab's page", |s| s.contains("seen:")).await;
    assert_eq!(seen(&snap), ["m", "f", "m", "u"], "Ctrl+T reached the page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_whose_renderer_crashed_says_so_and_f5_reloads_it() {
    if !window::can_run("page_keys") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let (_browser, c, w, _size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    // The human crashes the page's renderer the way Chromium offers (chrome://crash, typed).
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        window::xdo(&["windowfocus", "--sync", &w2]);
        window::xdo(&["key", "--clearmodifiers", "ctrl+l"]);
        std::thread::sleep(Duration::from_millis(400));
        window::xdo(&["type", "--delay", "30", "chrome://crash"]);
        window::xdo(&["key", "Return"]);
    })
    .await
    .unwrap();
    aperture_testkit::eventually(
        Duration::from_secs(30),
        "the tab to know its renderer is gone",
        async || {
            let (_, t) = tool(&c, "browser_snapshot", json!({})).await;
            (t.contains("renderer"), t)
        },
    )
    .await;
    // The window says so over the frozen page (which no longer shows).
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        aperture_testkit::eventually_blocking(Duration::from_secs(20), "the crashed page's notice", || {
            let img = window::capture(&w2);
            (window::block(&img, MAGENTA).is_none(), ())
        });
        window::keep(&window::capture(&w2), "page-keys-crashed");
    })
    .await
    .unwrap();
    let before = server.requests().iter().filter(|p| *p == "/").count();
    // F5, a real key: a live page would get it first; this one cannot answer, so the browser
    // reloads at once.
    window::xdo(&["key", "F5"]);
    aperture_testkit::eventually(Duration::from_secs(30), "F5 to reload the page", async || {
        let n = server.requests().iter().filter(|p| *p == "/").count();
        (n > before, n)
    })
    .await;
    let w2 = w.clone();
    tokio::task::spawn_blocking(move || {
        aperture_testkit::eventually_blocking(Duration::from_secs(30), "the page back", || {
            let img = window::capture(&w2);
            (window::block(&img, MAGENTA).is_some(), ())
        });
    })
    .await
    .unwrap();
}
