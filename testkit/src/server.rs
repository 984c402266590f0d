//! A loopback HTTP server for test fixtures.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What a [`Server`] serves.
#[derive(Default)]
pub struct Spec {
    /// The loopback address to bind (default `127.0.0.1`).
    pub ip: String,
    /// URL path → HTML body.
    pub routes: HashMap<String, String>,
    /// URL path → `Location` (302).
    pub redirects: HashMap<String, String>,
    /// URL path → a file download (`Content-Disposition: attachment`).
    pub attachments: HashMap<String, Attachment>,
    /// Files under this directory for other paths.
    pub dir: Option<PathBuf>,
    /// URL path → (pause, HTML body): answered only after the pause (a slow server, or a
    /// script whose host is slow to answer), without holding up other requests meanwhile.
    pub delayed: HashMap<String, (std::time::Duration, String)>,
    /// URL path → (Content-Type, body): a file that is not HTML (a PDF, an image).
    pub typed: HashMap<String, (String, Vec<u8>)>,
    /// URL path → (Content-Type, body) answered to a POST only (a form's result, such as an
    /// invoice), chunked with no length as a generated answer often is; a GET of it gets 405.
    pub post_only: HashMap<String, (String, Vec<u8>)>,
    /// URL path → (Content-Type, body) served once (a one-time link); later requests get 410.
    pub once: HashMap<String, (String, Vec<u8>)>,
    /// URL path → a page behind HTTP Basic authentication: answered 401 with a
    /// `WWW-Authenticate: Basic` challenge for its realm until a request brings its login.
    pub basic_auth: HashMap<String, BasicAuth>,
}

/// A page behind HTTP Basic authentication.
#[derive(Clone)]
pub struct BasicAuth {
    pub realm: String,
    pub user: String,
    pub password: String,
    /// The page shown once signed in.
    pub body: String,
    /// Ask with an HTTP Digest challenge (RFC 7616: MD5, `qop=auth`) instead of Basic; the
    /// password then never crosses the wire, only a hash the server checks.
    pub digest: bool,
}

/// The nonce every Digest challenge carries (a fixture has no replay to defend against).
const DIGEST_NONCE: &str = "aperture-fixture-nonce-5f2b";

fn md5_hex(s: &str) -> String {
    use md5::Digest as _;
    md5::Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `header` (an `Authorization` value) answers this page's Digest challenge with its
/// login, for a `method` request of `uri`.
fn digest_signed_in(b: &BasicAuth, header: &str, method: &str) -> bool {
    let Some(params) = header.strip_prefix("Digest ") else {
        return false;
    };
    let mut kv = HashMap::new();
    for part in params.split(',') {
        if let Some((k, v)) = part.trim().split_once('=') {
            kv.insert(k.trim().to_string(), v.trim().trim_matches('"').to_string());
        }
    }
    let get = |k: &str| kv.get(k).map(String::as_str).unwrap_or("");
    let ha1 = md5_hex(&format!("{}:{}:{}", b.user, b.realm, b.password));
    let ha2 = md5_hex(&format!("{method}:{}", get("uri")));
    let want = md5_hex(&format!(
        "{ha1}:{}:{}:{}:{}:{ha2}",
        get("nonce"),
        get("nc"),
        get("cnonce"),
        get("qop")
    ));
    get("username") == b.user
        && get("nonce") == DIGEST_NONCE
        && get("qop") == "auth"
        && get("response") == want
}

/// A download the server streams: `len` bytes of `x`, produced as they are sent (a gigabyte
/// costs no memory), optionally slowly.
#[derive(Clone)]
pub struct Attachment {
    /// The file name the server suggests (page-chosen, so tests use hostile ones too).
    pub name: String,
    pub len: u64,
    /// Pause after every 64 KiB chunk (a download that can be cancelled half-way).
    pub delay_per_chunk: std::time::Duration,
}

/// A body of `left` bytes of `x`, produced in 64 KiB chunks with a pause after each.
struct Slow {
    left: u64,
    delay: std::time::Duration,
}

impl std::io::Read for Slow {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Ok(0);
        }
        let n = buf.len().min(64 * 1024).min(self.left as usize);
        buf[..n].fill(b'x');
        self.left -= n as u64;
        if !self.delay.is_zero() {
            std::thread::sleep(self.delay);
        }
        Ok(n)
    }
}

/// A static HTTP server on 127.0.0.1: in-memory routes first, then files under an optional
/// directory, else 404. Every body is served as `text/html` (fixtures and saved pages are
/// HTML; anything else a page references should fail fast, as it does for the corpus).
/// Stops when dropped.
pub struct Server {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub base: String,
    /// Paths requested so far (without the query), in order.
    pub log: Arc<Mutex<Vec<String>>>,
    /// Each request's `Cache-Control` header (empty when it sent none), in the same order.
    cache_control: Arc<Mutex<Vec<String>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serves `routes` (URL path → body) and, for other paths, the files of `dir`.
    pub fn start(routes: HashMap<String, String>, dir: Option<PathBuf>) -> Server {
        Server::start_full("127.0.0.1", routes, HashMap::new(), dir)
    }

    /// Like [`Server::start`] on another loopback address (`127.0.0.2` is a different host to
    /// a browser, handy for policy tests), with `redirects` (path → `Location`, answered 302).
    pub fn start_full(
        ip: &str,
        routes: HashMap<String, String>,
        redirects: HashMap<String, String>,
        dir: Option<PathBuf>,
    ) -> Server {
        Server::spawn(Spec {
            ip: ip.to_string(),
            routes,
            redirects,
            dir,
            ..Spec::default()
        })
    }

    /// Starts a server described by `spec`.
    pub fn spawn(spec: Spec) -> Server {
        let Spec {
            ip,
            routes,
            redirects,
            dir,
            attachments,
            delayed,
            typed,
            post_only,
            mut once,
            basic_auth,
        } = spec;
        let ip = if ip.is_empty() {
            "127.0.0.1".to_string()
        } else {
            ip
        };
        let server = Arc::new(tiny_http::Server::http(format!("{ip}:0")).expect("bind a loopback port"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let cache_control = Arc::new(Mutex::new(Vec::new()));
        let (s, l, cc) = (server.clone(), log.clone(), cache_control.clone());
        let thread = std::thread::spawn(move || {
            for mut req in s.incoming_requests() {
                let path = req.url().split('?').next().unwrap_or("/").to_string();
                l.lock().unwrap_or_else(|p| p.into_inner()).push(path.clone());
                let asked = req
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Cache-Control"))
                    .map(|h| h.value.to_string())
                    .unwrap_or_default();
                cc.lock().unwrap_or_else(|p| p.into_inner()).push(asked);
                let html = tiny_http::Header::from_bytes("Content-Type", "text/html; charset=utf-8")
                    .expect("static header");
                if let Some(b) = basic_auth.get(&path) {
                    use base64::Engine as _;
                    let want = format!(
                        "Basic {}",
                        base64::engine::general_purpose::STANDARD
                            .encode(format!("{}:{}", b.user, b.password))
                    );
                    let method = req.method().as_str().to_string();
                    let signed_in = req.headers().iter().any(|h| {
                        h.field.equiv("Authorization")
                            && if b.digest {
                                digest_signed_in(b, h.value.as_str(), &method)
                            } else {
                                h.value.as_str() == want
                            }
                    });
                    let r = if signed_in {
                        tiny_http::Response::from_string(b.body.clone()).with_header(html)
                    } else {
                        let challenge = if b.digest {
                            format!(
                                "Digest realm=\"{}\", qop=\"auth\", algorithm=MD5, nonce=\"{DIGEST_NONCE}\", opaque=\"x\"",
                                b.realm
                            )
                        } else {
                            format!("Basic realm=\"{}\"", b.realm)
                        };
                        tiny_http::Response::from_string(
                            "<!doctype html><title>401</title><h1>Unauthorized</h1>",
                        )
                        .with_status_code(401)
                        .with_header(html)
                        .with_header(
                            tiny_http::Header::from_bytes("WWW-Authenticate", challenge.as_bytes())
                                .expect("a header"),
                        )
                    };
                    let _ = req.respond(r);
                } else if let Some(a) = attachments.get(&path) {
                    let cd = format!("attachment; filename=\"{}\"", a.name);
                    let headers = vec![
                        tiny_http::Header::from_bytes("Content-Type", "application/octet-stream")
                            .expect("static header"),
                        tiny_http::Header::from_bytes("Content-Disposition", cd.as_bytes())
                            .expect("a header"),
                    ];
                    let body = Slow {
                        left: a.len,
                        delay: a.delay_per_chunk,
                    };
                    // On its own thread: a slow download (a gigabyte trickling out) must not
                    // hold up the pages and other files the browser asks for meanwhile. It
                    // ends when the body is out or the browser hangs up (a cancel).
                    let len = a.len as usize;
                    std::thread::spawn(move || {
                        let _ = req.respond(tiny_http::Response::new(
                            tiny_http::StatusCode(200),
                            headers,
                            body,
                            Some(len),
                            None,
                        ));
                    });
                } else if let Some((pause, body)) = delayed.get(&path) {
                    let (pause, body) = (*pause, body.clone());
                    std::thread::spawn(move || {
                        std::thread::sleep(pause);
                        let _ = req.respond(tiny_http::Response::from_string(body).with_header(html));
                    });
                } else if let Some(to) = redirects.get(&path) {
                    let loc =
                        tiny_http::Header::from_bytes("Location", to.as_bytes()).expect("a Location header");
                    let _ = req.respond(tiny_http::Response::empty(302).with_header(loc));
                } else if let Some((ty, body)) = post_only.get(&path) {
                    if *req.method() == tiny_http::Method::Post {
                        // The form's fields are read (and dropped) before answering.
                        let _ = std::io::copy(req.as_reader(), &mut std::io::sink());
                        let ct =
                            tiny_http::Header::from_bytes("Content-Type", ty.as_bytes()).expect("a header");
                        let body = std::io::Cursor::new(body.clone());
                        let r = tiny_http::Response::new(200.into(), vec![ct], body, None, None);
                        let _ = req.respond(r.with_chunked_threshold(0));
                    } else {
                        let _ =
                            req.respond(tiny_http::Response::from_string("POST only").with_status_code(405));
                    }
                } else if once.contains_key(&path) {
                    match once.get_mut(&path).map(std::mem::take) {
                        Some((ty, body)) if !ty.is_empty() => {
                            let ct = tiny_http::Header::from_bytes("Content-Type", ty.as_bytes())
                                .expect("a header");
                            let _ = req.respond(tiny_http::Response::from_data(body).with_header(ct));
                        }
                        _ => {
                            let _ =
                                req.respond(tiny_http::Response::from_string("gone").with_status_code(410));
                        }
                    }
                } else if let Some((ty, body)) = typed.get(&path) {
                    let ct = tiny_http::Header::from_bytes("Content-Type", ty.as_bytes()).expect("a header");
                    let _ = req.respond(tiny_http::Response::from_data(body.clone()).with_header(ct));
                } else if let Some(body) = routes.get(&path) {
                    let _ = req.respond(tiny_http::Response::from_string(body.clone()).with_header(html));
                } else if let Some(bytes) = dir.as_deref().and_then(|d| read_under(d, &path)) {
                    let _ = req.respond(tiny_http::Response::from_data(bytes).with_header(html));
                } else {
                    let _ = req.respond(tiny_http::Response::from_string("not found").with_status_code(404));
                }
            }
        });
        Server {
            base: format!("http://{ip}:{port}"),
            log,
            cache_control,
            server,
            thread: Some(thread),
        }
    }

    /// Serves one page at `/` (every other path is a 404).
    pub fn page(html: &str) -> Server {
        Server::start(HashMap::from([("/".to_string(), html.to_string())]), None)
    }

    /// Serves the files of `dir` only.
    pub fn dir(dir: impl Into<PathBuf>) -> Server {
        Server::start(HashMap::new(), Some(dir.into()))
    }

    /// The absolute URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// The paths requested so far.
    pub fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The paths requested so far, each with the `Cache-Control` it was asked with (empty for
    /// none): `no-cache` is a reload that bypasses the cache, `max-age=0` an ordinary reload.
    pub fn requests_with_cache_control(&self) -> Vec<(String, String)> {
        let paths = self.requests();
        let cc = self
            .cache_control
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        paths.into_iter().zip(cc).collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The bytes of the file `path` names under `dir`; `None` for anything that is not a plain
/// file inside `dir` (no `..`, no absolute tricks).
fn read_under(dir: &Path, path: &str) -> Option<Vec<u8>> {
    let rel = Path::new(path.trim_start_matches('/'));
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let f = dir.join(rel);
    f.is_file().then(|| std::fs::read(&f).ok()).flatten()
}

/// A one-page PDF that says `text` (ASCII, in Helvetica): the smallest document Chromium's
/// viewer shows, with its cross-reference table's offsets computed.
pub fn tiny_pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 24 Tf 72 720 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_string(),
        format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn get(base: &str, path: &str) -> (u16, String) {
        let addr = base.trim_start_matches("http://");
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        let code = out.split_whitespace().nth(1).unwrap().parse().unwrap();
        let body = out
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (code, body)
    }

    #[test]
    fn routes_then_directory_then_404_and_everything_is_logged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret"), "outside the served directory").unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let s = Server::start(
            HashMap::from([("/r".to_string(), "from route".to_string())]),
            Some(sub.clone()),
        );
        std::fs::write(sub.join("a.html"), "from disk").unwrap();
        assert_eq!(get(&s.base, "/r?x=1"), (200, "from route".into()));
        assert_eq!(get(&s.base, "/a.html"), (200, "from disk".into()));
        assert_eq!(get(&s.base, "/missing").0, 404);
        assert_eq!(get(&s.base, "/../secret").0, 404, "no escape from the directory");
        assert_eq!(s.requests()[..3], ["/r", "/a.html", "/missing"]);
    }

    #[test]
    fn a_delayed_route_answers_after_its_pause_without_holding_up_others() {
        let pause = std::time::Duration::from_millis(600);
        let s = Server::spawn(Spec {
            routes: HashMap::from([("/quick".to_string(), "quick".to_string())]),
            delayed: HashMap::from([("/slow".to_string(), (pause, "slow".to_string()))]),
            ..Spec::default()
        });
        let base = s.base.clone();
        let t = std::time::Instant::now();
        let slow = std::thread::spawn(move || get(&base, "/slow"));
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(get(&s.base, "/quick"), (200, "quick".into()));
        assert!(t.elapsed() < pause, "the quick route waited for the slow one");
        assert_eq!(slow.join().unwrap(), (200, "slow".into()));
        assert!(t.elapsed() >= pause);
    }

    #[test]
    fn one_page_at_the_root() {
        let s = Server::page("<p>hi</p>");
        assert_eq!(get(&s.base, "/"), (200, "<p>hi</p>".into()));
        assert_eq!(get(&s.base, "/other").0, 404);
        assert_eq!(s.url("/x"), format!("{}/x", s.base));
    }
}
