//! Files dragged in from another application (a file manager) and dropped on a page's drop
//! zone, in the real window under X: the test plays the file manager's side of XDND (it owns
//! the drag's selection, offers `text/uri-list`, and sends the enter, position and drop
//! messages), moves the real pointer over the zone meanwhile, and the page's `drop` handler
//! gets the file, its name and its bytes, as in any browser.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::egui::pos2;
use std::time::{Duration, Instant};
use window::{Layout, tab_lines, tabs_until};
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    ClientMessageEvent, ConnectionExt, CreateWindowAux, EventMask, PropMode, SelectionNotifyEvent,
    WindowClass,
};

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Upload</title></head>
<body style="margin:0;background:#fff">
<div id="zone" style="position:absolute;left:40px;top:40px;width:400px;height:300px;background:rgb(230,20,140)">drop here</div>
<script>
const zone = document.getElementById('zone');
let overs = 0;
zone.addEventListener('dragover', e => { e.preventDefault(); overs++; });
zone.addEventListener('drop', async e => {
  e.preventDefault();
  const f = e.dataTransfer.files[0];
  document.title = 'dropped ' + e.dataTransfer.files.length + ' ' + f.name + ' ' + f.size + ' ' + (await f.text()) + ' overs>0:' + (overs > 0);
});
</script>
</body></html>"#;

/// Plays a file manager: drags `files` onto X window `target` and drops them there, calling
/// `meanwhile` once the window accepted the drag (to move the pointer). Panics when the window
/// does not take part in XDND.
fn xdnd_drop(target: u32, files: &[std::path::PathBuf], meanwhile: impl FnOnce()) {
    let (conn, screen) = x11rb::connect(None).expect("an X connection");
    let root = conn.setup().roots[screen].root;
    let atom = |name: &str| {
        conn.intern_atom(false, name.as_bytes())
            .unwrap()
            .reply()
            .unwrap()
            .atom
    };
    let (selection, enter, position, status, drop, finished, copy, uri_list) = (
        atom("XdndSelection"),
        atom("XdndEnter"),
        atom("XdndPosition"),
        atom("XdndStatus"),
        atom("XdndDrop"),
        atom("XdndFinished"),
        atom("XdndActionCopy"),
        atom("text/uri-list"),
    );
    let source = conn.generate_id().unwrap();
    conn.create_window(
        0,
        source,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &CreateWindowAux::new(),
    )
    .unwrap();
    conn.set_selection_owner(source, selection, x11rb::CURRENT_TIME)
        .unwrap();
    let send = |kind: u32, data: [u32; 5]| {
        let ev = ClientMessageEvent::new(32, target, kind, data);
        conn.send_event(false, target, EventMask::NO_EVENT, ev).unwrap();
        conn.flush().unwrap();
    };
    let uris: String = files
        .iter()
        .map(|p| format!("{}\r\n", url::Url::from_file_path(p).unwrap()))
        .collect();
    send(enter, [source, 5 << 24, uri_list, 0, 0]);
    send(position, [source, 0, (100 << 16) | 100, 0, copy]);
    let mut meanwhile = Some(meanwhile);
    let t = Instant::now();
    loop {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the window did not finish the drop"
        );
        let Some(ev) = conn.poll_for_event().unwrap() else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        match ev {
            // The window asks for the dragged data: the files' URIs.
            Event::SelectionRequest(r) => {
                conn.change_property(
                    PropMode::REPLACE,
                    r.requestor,
                    r.property,
                    r.target,
                    8,
                    uris.len() as u32,
                    uris.as_bytes(),
                )
                .unwrap();
                let notify = SelectionNotifyEvent {
                    response_type: x11rb::protocol::xproto::SELECTION_NOTIFY_EVENT,
                    sequence: 0,
                    time: r.time,
                    requestor: r.requestor,
                    selection: r.selection,
                    target: r.target,
                    property: r.property,
                };
                conn.send_event(false, r.requestor, EventMask::NO_EVENT, notify)
                    .unwrap();
                conn.flush().unwrap();
            }
            Event::ClientMessage(m) if m.type_ == status => {
                if let Some(f) = meanwhile.take() {
                    assert_eq!(m.data.as_data32()[1] & 1, 1, "the window refused the drag");
                    f();
                    send(drop, [source, 0, 0, 0, 0]);
                }
            }
            Event::ClientMessage(m) if m.type_ == finished => break,
            _ => {}
        }
    }
    let _ = conn.destroy_window(source);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_dragged_from_the_desktop_drops_into_the_page() {
    if !window::can_run("file_drop") {
        return;
    }
    let server = Server::page(PAGE);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.txt");
    std::fs::write(&file, "quarterly-7c1e").unwrap();
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing(&url, dir.path(), MAGENTA).await;
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let target: u32 = w.parse().expect("an X window id");
    let (first, second) = (
        pos2(page.min.x + 120.0, page.min.y + 120.0),
        pos2(page.min.x + 300.0, page.min.y + 250.0),
    );
    window::hover(&w, first);
    let wid = w.clone();
    let files = vec![file.clone()];
    tokio::task::spawn_blocking(move || {
        xdnd_drop(target, &files, || {
            // The drag moves across the zone before it is let go: the page sees it move.
            std::thread::sleep(Duration::from_millis(600));
            window::hover(&wid, second);
            std::thread::sleep(Duration::from_millis(600));
        })
    })
    .await
    .unwrap();
    let list = tabs_until(&c, "the page to get the file", |t| t.contains("dropped")).await;
    let line = tab_lines(&list).join("\n");
    assert!(
        list.contains("dropped 1 report.txt 14 quarterly-7c1e overs>0:true"),
        "{line}\n{list}"
    );
}
