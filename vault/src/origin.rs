//! Binding entries to sites under the Public Suffix List.
//!
//! An entry is bound to a [`Site`]: scheme plus *registrable domain* (eTLD+1) as the PSL
//! defines it, private section included. Subdomains of one registrable domain share entries
//! (`accounts.example.com` and `www.example.com` are one site, which is how logins actually
//! work), but two customers of a hosting suffix never do: `github.io` is a private-section
//! suffix, so `alice.github.io` and `bob.github.io` are different sites. Without the private
//! section, any user of a shared host could phish every other user's saved password.
//!
//! The scheme is part of the site so an `https` entry is never offered to an `http` page of the
//! same domain (a network attacker can inject an `http` page; they cannot forge TLS).
//! Hosts that have no registrable domain (IP literals, `localhost`, a bare public suffix) are
//! matched exactly, port included, because there is no authority to say two of them belong
//! together.

use serde::{Deserialize, Serialize};

use crate::error::VaultError;

/// A page origin as the browser reports it for the frame in question. Parsed and normalised
/// (lowercase, IDNA to punycode, so a homograph is a different site, not the same one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    /// Parses a URL or origin string. Only `http` and `https` with a host are accepted: `file:`,
    /// `data:`, `about:blank` and other opaque origins have nothing to bind to.
    pub fn parse(s: &str) -> Result<Self, VaultError> {
        let url = url::Url::parse(s).map_err(|e| VaultError::BadOrigin(format!("{s}: {e}")))?;
        let scheme = url.scheme().to_owned();
        if scheme != "https" && scheme != "http" {
            return Err(VaultError::BadOrigin(format!("unsupported scheme {scheme}")));
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.trim_end_matches('.').to_owned(),
            Some(url::Host::Ipv4(a)) => a.to_string(),
            Some(url::Host::Ipv6(a)) => format!("[{a}]"),
            None => return Err(VaultError::BadOrigin("no host".into())),
        };
        if host.is_empty() {
            return Err(VaultError::BadOrigin("empty host".into()));
        }
        Ok(Self {
            scheme,
            host,
            port: url.port(),
        })
    }

    /// The normalised host.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The scheme (`http` or `https`).
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The site this origin belongs to.
    pub fn site(&self) -> Site {
        let registrable = if self.host.starts_with('[') || self.host.parse::<std::net::Ipv4Addr>().is_ok() {
            None
        } else {
            registrable_domain(&self.host)
        };
        match registrable {
            Some(domain) => Site {
                scheme: self.scheme.clone(),
                domain,
                port: None,
            },
            None => Site {
                scheme: self.scheme.clone(),
                domain: self.host.clone(),
                port: self.port,
            },
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.port {
            Some(p) => write!(f, "{}://{}:{p}", self.scheme, self.host),
            None => write!(f, "{}://{}", self.scheme, self.host),
        }
    }
}

/// The unit entries are bound to: scheme + registrable domain (or exact host and port when the
/// host has no registrable domain).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Site {
    scheme: String,
    domain: String,
    port: Option<u16>,
}

impl Site {
    /// The registrable domain (or exact host).
    pub fn domain(&self) -> &str {
        &self.domain
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.port {
            Some(p) => write!(f, "{}://{}:{p}", self.scheme, self.domain),
            None => write!(f, "{}://{}", self.scheme, self.domain),
        }
    }
}

/// eTLD+1 of `host` under the embedded PSL, or `None` when the host is itself a public suffix
/// or has a single label.
fn registrable_domain(host: &str) -> Option<String> {
    // A single-label host (`localhost`, an intranet name) would otherwise hit the PSL's
    // implicit `*` rule and be treated as a TLD.
    if !host.contains('.') {
        return None;
    }
    psl::domain_str(host).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(s: &str) -> Site {
        Origin::parse(s).unwrap().site()
    }

    #[test]
    fn private_suffix_separates_tenants() {
        assert_ne!(site("https://alice.github.io"), site("https://bob.github.io"));
        assert_eq!(
            site("https://alice.github.io/x"),
            site("https://www.alice.github.io")
        );
        assert_ne!(site("https://a.blogspot.com"), site("https://b.blogspot.com"));
    }

    #[test]
    fn subdomains_share_a_site() {
        assert_eq!(
            site("https://accounts.google.com"),
            site("https://mail.google.com")
        );
        assert_eq!(site("https://www.bbc.co.uk"), site("https://bbc.co.uk/news"));
        assert_ne!(site("https://bbc.co.uk"), site("https://itv.co.uk"));
    }

    #[test]
    fn scheme_is_part_of_the_site() {
        assert_ne!(site("https://example.com"), site("http://example.com"));
    }

    #[test]
    fn lookalikes_and_suffix_tricks_differ() {
        assert_ne!(site("https://google.com"), site("https://google.com.evil.net"));
        assert_ne!(site("https://google.com"), site("https://xn--ggle-0nda.com"));
        // IDNA normalises to punycode, so a Unicode homograph is its own site.
        assert_eq!(site("https://gооgle.com").domain(), "xn--ggle-55da.com");
    }

    #[test]
    fn hosts_without_registrable_domain_match_exactly() {
        assert_ne!(site("http://127.0.0.1:3000"), site("http://127.0.0.1:8080"));
        assert_ne!(site("http://localhost:3000"), site("http://localhost:8080"));
        assert_eq!(site("https://github.io").domain(), "github.io");
        assert_ne!(site("https://github.io"), site("https://alice.github.io"));
        assert_eq!(site("http://[::1]:80").domain(), "[::1]");
    }

    #[test]
    fn opaque_origins_rejected() {
        for s in [
            "about:blank",
            "data:text/html,hi",
            "file:///etc/passwd",
            "javascript:1",
            "not a url",
        ] {
            assert!(Origin::parse(s).is_err(), "{s}");
        }
    }

    #[test]
    fn case_and_trailing_dot_normalised() {
        assert_eq!(site("https://EXAMPLE.com."), site("https://example.com"));
    }
}
