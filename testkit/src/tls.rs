//! A TLS front for a fixture [`Server`]: `https://127.0.0.1:PORT` with a self-signed
//! certificate (`data/self-signed.crt`, valid for 127.0.0.1 and localhost), which browsers
//! refuse, so tests can meet the certificate warning. Each TLS connection carries one request,
//! passed to the server in plain HTTP; the server's log is the log.

use crate::Server;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const CERT: &[u8] = include_bytes!("../data/self-signed.crt");
const KEY: &[u8] = include_bytes!("../data/self-signed.key");

/// HTTPS in front of a [`Server`], until dropped.
pub struct TlsFront {
    /// `https://127.0.0.1:PORT`, without a trailing slash.
    pub base: String,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl TlsFront {
    /// Serves `backend` over TLS on a free loopback port.
    pub fn start(backend: &Server) -> TlsFront {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cert = CertificateDer::from_pem_slice(CERT).expect("the fixture certificate");
        let key = PrivateKeyDer::from_pem_slice(KEY).expect("the fixture key");
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .expect("the fixture certificate and key");
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let plain = backend
            .base
            .strip_prefix("http://")
            .expect("an http server")
            .to_string();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (config, plain) = (config.clone(), plain.clone());
                // A browser that refuses the certificate drops the handshake; that is the point.
                std::thread::spawn(move || {
                    let _ = serve(conn, config, &plain);
                });
            }
        });
        TlsFront {
            base: format!("https://127.0.0.1:{port}"),
            stop,
            port,
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

impl Drop for TlsFront {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// One request: read it from the TLS stream, ask the plain server with the connection closed
/// after the answer, and hand the whole answer back.
fn serve(conn: TcpStream, config: Arc<rustls::ServerConfig>, plain: &str) -> std::io::Result<()> {
    let tls = rustls::ServerConnection::new(config).map_err(std::io::Error::other)?;
    let mut tls = rustls::StreamOwned::new(tls, conn);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = tls.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = tls.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    // The same request, asking the server to close once it has answered.
    let mut out: String = head
        .trim_end()
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .map(|l| format!("{l}\r\n"))
        .collect();
    out.push_str("Connection: close\r\n\r\n");
    let mut upstream = TcpStream::connect(plain)?;
    upstream.write_all(out.as_bytes())?;
    upstream.write_all(&buf[head_end..])?;
    let mut answer = Vec::new();
    upstream.read_to_end(&mut answer)?;
    tls.write_all(&answer)?;
    tls.flush()?;
    tls.conn.send_close_notify();
    let _ = tls.flush();
    Ok(())
}
