//! A site's notifications reach the desktop, in the real window under X with real clicks: the
//! page asks to show notifications, the human allows it on the permission bubble, and its
//! `new Notification(...)` arrives at the desktop's notification server over D-Bus
//! (`org.freedesktop.Notifications.Notify`), titled as the page titled it and naming the site.
//! The server here is a stand-in on a private session bus: a few lines of Python with the
//! `jeepney` D-Bus library, which writes down what it is sent.
//!
//! Runs where `dbus-daemon` and a Python with `jeepney` are at hand (`$APERTURE_TEST_PYTHON`,
//! else `python3`; `.ci/run` installs it); elsewhere it says why it skipped and passes.

#[path = "support/window.rs"]
mod window;

use aperture_testkit::Server;
use aperture_ui::egui::pos2;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use window::Layout;

const MAGENTA: [u8; 3] = [230, 20, 140];

const PAGE: &str = r#"<!doctype html><html><head><title>Mail</title></head>
<body style="margin:0;background:#fff">
<button onclick="Notification.requestPermission().then(p => { if (p === 'granted') { const n = new Notification('New mail', {body: 'from Ada'}); n.onclick = () => fetch('/clicked'); } })"
 style="position:absolute;left:40px;top:40px;width:300px;height:200px;border:0;background:rgb(230,20,140)">notify me</button>
</body></html>"#;

/// A stand-in notification server: owns the name, answers what Chromium asks, logs `Notify`.
const SERVER: &str = r#"
import os, sys, threading, time
from jeepney import MessageType, HeaderFields, DBusAddress, new_method_return, new_error, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
log = open(sys.argv[1], 'a', buffering=1)
conn = open_dbus_connection(bus='SESSION')
# The human clicking the last notification: once the file argv[2] appears, the server says
# its default action was invoked, as a desktop's notification server does on a click.
def clicker():
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.1)
    at = DBusAddress('/org/freedesktop/Notifications', interface='org.freedesktop.Notifications')
    conn.send(new_signal(at, 'ActionInvoked', 'us', (n, 'default')))
    log.write('clicked %d\n' % n)
threading.Thread(target=clicker, daemon=True).start()
conn.send_and_get_reply(message_bus.RequestName('org.freedesktop.Notifications'))
log.write('ready\n')
n = 0
while True:
    msg = conn.receive()
    if msg.header.message_type != MessageType.method_call:
        continue
    m = msg.header.fields.get(HeaderFields.member)
    if m == 'GetCapabilities':
        conn.send(new_method_return(msg, 'as', (['body', 'actions'],)))
    elif m == 'GetServerInformation':
        conn.send(new_method_return(msg, 'ssss', ('stand-in', 'aperture', '1', '1.2')))
    elif m == 'Notify':
        n += 1
        log.write('notify %r %r\n' % (msg.body[3], msg.body[4]))
        conn.send(new_method_return(msg, 'u', (n,)))
    elif m == 'CloseNotification':
        conn.send(new_method_return(msg, '', ()))
    else:
        conn.send(new_error(msg, 'org.freedesktop.DBus.Error.UnknownMethod'))
"#;

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A Python with jeepney, or why there is none.
fn python_with_jeepney() -> Result<String, String> {
    let python = std::env::var("APERTURE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    match Command::new(&python).args(["-c", "import jeepney"]).output() {
        Err(e) => Err(format!("cannot run {python}: {e}")),
        Ok(o) if !o.status.success() => Err(format!("{python} has no `jeepney` (pip install jeepney)")),
        Ok(_) => Ok(python),
    }
}

/// A private session bus: the daemon and its address.
fn session_bus() -> Result<(Kill, String), String> {
    let mut child = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--print-address=1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run dbus-daemon: {e}"))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    Ok((Kill(child), line.trim().to_string()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_site_notifies_through_the_desktop_server() {
    if !window::can_run("notifications") {
        return;
    }
    let python = match python_with_jeepney() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED notifications: {why}");
            return;
        }
    };
    let (_bus, address) = match session_bus() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("SKIPPED notifications: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let (script, log) = (dir.path().join("server.py"), dir.path().join("notified.log"));
    std::fs::write(&script, SERVER).unwrap();
    let _server = Kill(
        Command::new(&python)
            .arg(&script)
            .arg(&log)
            .arg(dir.path().join("click"))
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .spawn()
            .expect("the stand-in server"),
    );
    aperture_testkit::eventually(
        Duration::from_secs(20),
        "the stand-in server to own its name",
        async || {
            let l = std::fs::read_to_string(&log).unwrap_or_default();
            (l.contains("ready"), l)
        },
    )
    .await;

    let server = Server::page(PAGE);
    let url = server.url("/");
    let (_browser, c, w, size) = window::start_showing_env(
        &url,
        dir.path(),
        MAGENTA,
        &[],
        &[("DBUS_SESSION_BUS_ADDRESS", address.as_str())],
    )
    .await;
    let page = Layout::new(size, Layout::one_tab(&url))
        .chrome
        .page_rect()
        .expect("a page area");
    let origin = server.base.trim_start_matches("http://");
    let (allow, _) = window::permission_buttons(size, &url, origin, &["show notifications"]);

    window::xdo(&["windowfocus", "--sync", &w]);
    window::click(&w, pos2(page.min.x + 150.0, page.min.y + 120.0), 1);
    std::thread::sleep(Duration::from_secs(1));
    window::keep(&window::capture(&w), "notification-asked");
    window::click(&w, allow, 1);
    let got = aperture_testkit::eventually(
        Duration::from_secs(20),
        "the notification at the desktop",
        async || {
            let l = std::fs::read_to_string(&log).unwrap_or_default();
            (l.contains("notify"), l)
        },
    )
    .await;
    let line = got.lines().find(|l| l.starts_with("notify")).unwrap();
    assert!(line.contains("'New mail'"), "{line}");
    assert!(
        line.contains("from Ada") && line.contains("127.0.0.1"),
        "the body names the site: {line}"
    );

    // The human goes to another tab, then clicks the notification on the desktop: the tab
    // that sent it comes back to the front.
    let sender = window::first_tab_id(
        &window::tabs_until(&c, "the one tab", |l| window::tab_lines(l).len() == 1).await,
    );
    let is_sender = move |line: &str| line.starts_with(&format!("tab {sender} "));
    window::xdo(&["windowfocus", "--sync", &w]);
    window::xdo(&["key", "--clearmodifiers", "ctrl+t"]);
    let front = |list: &str| {
        window::tab_lines(list)
            .into_iter()
            .find(|l| l.contains("foreground"))
            .map(str::to_string)
            .unwrap_or_default()
    };
    let list = window::tabs_until(&c, "a new tab in front", |l| {
        window::tab_lines(l).len() == 2 && !is_sender(&front(l))
    })
    .await;
    assert!(list.contains(&url), "{list}");
    std::fs::write(dir.path().join("click"), "").unwrap();
    // Chromium hands the click to the page (its `onclick` reports it to the server).
    aperture_testkit::eventually(
        Duration::from_secs(20),
        "the page told of the click",
        async || {
            let r = server.requests();
            (r.iter().any(|p| p == "/clicked"), r)
        },
    )
    .await;
    window::tabs_until(&c, "the notifying tab in front again", |l| is_sender(&front(l))).await;
    let l = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(l.contains("clicked"), "{l}");
}
