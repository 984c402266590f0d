//! Who may talk to the listener: a per-launch bearer token, and Host/Origin checks that keep a
//! web page from reaching a loopback server through DNS rebinding or a cross-origin fetch.

use std::fmt;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use rand::RngCore;
use subtle::ConstantTimeEq;

/// A bearer token. The browser keeps one per profile (0600, see
/// `config::ProfileEndpoint`) so an agent host registered once keeps working across restarts;
/// `--mcp-new-token` (or deleting the file) issues a new one when a token may have leaked.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// 256 random bits, URL-safe base64 without padding (43 characters).
    pub fn generate() -> Token {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Token(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Wraps a known token (tests, or a token handed down by a parent process).
    pub fn from_string(s: impl Into<String>) -> Token {
        Token(s.into())
    }

    /// The token text, for printing the `claude mcp add` line and writing `mcp.json`.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Constant-time comparison against a presented token, so response timing does not leak
    /// how many leading characters a guess got right.
    pub fn matches(&self, presented: &[u8]) -> bool {
        // `ct_eq` on slices of different lengths returns false without comparing contents;
        // length is not secret (every token is 43 characters).
        self.0.as_bytes().ct_eq(presented).into()
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(…)")
    }
}

/// What the access check needs to know about the listener.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    pub token: Token,
    pub port: u16,
}

/// Headers the gate decides on, which must therefore be unambiguous, with the names a refusal
/// shows.
const SINGLE_HEADERS: [(header::HeaderName, &str); 3] = [
    (header::HOST, "Host"),
    (header::ORIGIN, "Origin"),
    (header::AUTHORIZATION, "Authorization"),
];

/// Host names a loopback listener legitimately receives. Anything else in `Host` means a
/// name the attacker controls resolved to 127.0.0.1: the DNS rebinding signature.
const LOOPBACK_HOSTS: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];

impl Gate {
    fn host_ok(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        // `[::1]` contains colons; rsplit_once took the last one, which is the port separator.
        LOOPBACK_HOSTS.contains(&name) && port.parse::<u16>().ok() == Some(self.port)
    }

    fn origin_ok(&self, origin: &str) -> bool {
        // Only pages served by this listener itself could be same-origin; nothing is, but a
        // local tool that sets Origin to the server's own address is harmless.
        match origin.trim().to_ascii_lowercase().strip_prefix("http://") {
            Some(rest) => self.host_ok(rest),
            None => false,
        }
    }

    /// Checks one request. Host and Origin are checked before the token so that a foreign
    /// page learns nothing, not even whether its guess was well-formed.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        // Each checked header must come once: with two, the check below and a later reader
        // (rmcp, a proxy, a log) could each take a different one, so a good value placed first
        // would vouch for a bad one behind it. No browser or MCP client sends two.
        for (name, shown) in SINGLE_HEADERS {
            if headers.get_all(&name).iter().nth(1).is_some() {
                return Err(Refusal::Duplicate(shown));
            }
        }
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .ok_or(Refusal::Host)?;
        if !self.host_ok(host) {
            return Err(Refusal::Host);
        }
        for origin in headers.get_all(header::ORIGIN) {
            match origin.to_str() {
                Ok(o) if self.origin_ok(o) => {}
                _ => return Err(Refusal::Origin),
            }
        }
        let auth = headers.get(header::AUTHORIZATION).ok_or(Refusal::Token)?;
        let presented = bearer(auth).ok_or(Refusal::Token)?;
        if self.token.matches(presented) {
            Ok(())
        } else {
            Err(Refusal::Token)
        }
    }
}

fn bearer(v: &HeaderValue) -> Option<&[u8]> {
    let b = v.as_bytes();
    let (scheme, rest) = b.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then(|| rest.trim_ascii())
}

/// Why a request was turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The named header came more than once.
    Duplicate(&'static str),
    Host,
    Origin,
    Token,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, msg) = match self {
            Refusal::Duplicate(name) => {
                let msg = format!("bad request: more than one {name} header\n");
                let mut resp = Response::new(Body::from(msg));
                *resp.status_mut() = StatusCode::BAD_REQUEST;
                return resp;
            }
            Refusal::Host => (StatusCode::FORBIDDEN, "forbidden: Host is not this listener\n"),
            Refusal::Origin => (StatusCode::FORBIDDEN, "forbidden: cross-origin request\n"),
            Refusal::Token => (StatusCode::UNAUTHORIZED, "unauthorized: bearer token required\n"),
        };
        let mut resp = Response::new(Body::from(msg));
        *resp.status_mut() = status;
        if self == Refusal::Token {
            resp.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"aperture\""),
            );
        }
        resp
    }
}

/// axum middleware: every request passes [`Gate::check`] before reaching the MCP service.
pub(crate) async fn gate(State(gate): State<Gate>, req: Request, next: Next) -> Response {
    match gate.check(req.headers()) {
        Ok(()) => next.run(req).await,
        Err(refusal) => {
            tracing::warn!(?refusal, "refused MCP request");
            // Nothing more is taken on a connection that came without the token: it gives
            // its slot back (the listener's connection cap) at once.
            let mut r = refusal.into_response();
            r.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate() -> Gate {
        Gate {
            token: Token::from_string("secret-token"),
            port: 8817,
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn accepts_loopback_host_with_token() {
        for host in ["127.0.0.1:8817", "localhost:8817", "[::1]:8817", "LOCALHOST:8817"] {
            let h = headers(&[("host", host), ("authorization", "Bearer secret-token")]);
            assert_eq!(gate().check(&h), Ok(()), "{host}");
        }
    }

    #[test]
    fn refuses_foreign_or_portless_host() {
        for host in [
            "evil.example:8817",
            "127.0.0.1",
            "127.0.0.1:9999",
            "127.0.0.2:8817",
        ] {
            let h = headers(&[("host", host), ("authorization", "Bearer secret-token")]);
            assert_eq!(gate().check(&h), Err(Refusal::Host), "{host}");
        }
    }

    #[test]
    fn refuses_foreign_origin_even_with_token() {
        for origin in ["https://evil.example", "null", "http://127.0.0.1:1234", "file://"] {
            let h = headers(&[
                ("host", "127.0.0.1:8817"),
                ("origin", origin),
                ("authorization", "Bearer secret-token"),
            ]);
            assert_eq!(gate().check(&h), Err(Refusal::Origin), "{origin}");
        }
        let h = headers(&[
            ("host", "127.0.0.1:8817"),
            ("origin", "http://localhost:8817"),
            ("authorization", "Bearer secret-token"),
        ]);
        assert_eq!(gate().check(&h), Ok(()));
    }

    #[test]
    fn refuses_missing_or_wrong_token() {
        let cases: &[&[(&'static str, &'static str)]] = &[
            &[],
            &[("authorization", "Bearer wrong")],
            &[("authorization", "Bearer secret-toke")],
            &[("authorization", "Basic secret-token")],
            &[("authorization", "secret-token")],
        ];
        for extra in cases {
            let mut h = headers(&[("host", "127.0.0.1:8817")]);
            for (k, v) in *extra {
                h.append(*k, HeaderValue::from_str(v).unwrap());
            }
            assert_eq!(gate().check(&h), Err(Refusal::Token), "{extra:?}");
        }
    }

    #[test]
    fn refuses_doubled_host_origin_or_token_whichever_comes_first() {
        let good = [
            ("host", "127.0.0.1:8817"),
            ("origin", "http://127.0.0.1:8817"),
            ("authorization", "Bearer secret-token"),
        ];
        let bad = [
            ("host", "evil.example:8817"),
            ("origin", "https://evil.example"),
            ("authorization", "Bearer wrong"),
        ];
        let shown = ["Host", "Origin", "Authorization"];
        for i in 0..3 {
            // Twice the good value, the good one first, the good one second.
            for pair in [[good[i], good[i]], [good[i], bad[i]], [bad[i], good[i]]] {
                let mut h = HeaderMap::new();
                for (j, kv) in good.iter().enumerate() {
                    if j == i {
                        for (k, v) in pair {
                            h.append(k, HeaderValue::from_static(v));
                        }
                    } else {
                        h.append(kv.0, HeaderValue::from_static(kv.1));
                    }
                }
                assert_eq!(gate().check(&h), Err(Refusal::Duplicate(shown[i])), "{pair:?}");
            }
        }
    }

    #[test]
    fn generated_tokens_are_long_and_distinct() {
        let a = Token::generate();
        let b = Token::generate();
        assert_eq!(a.expose().len(), 43);
        assert_ne!(a, b);
        assert!(!format!("{a:?}").contains(a.expose()));
    }
}
