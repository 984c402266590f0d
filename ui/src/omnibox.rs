//! Turning what the human typed into the omnibox into a URL to load.

/// Search engine used when the input isn't a URL. `{}` is replaced by the
/// form-encoded query.
pub const DEFAULT_SEARCH_TEMPLATE: &str = "https://duckduckgo.com/?q={}";

/// Schemes kept exactly as typed. A closed list because `host:port` and
/// `scheme:rest` are otherwise ambiguous (`localhost:8000`).
const KNOWN_SCHEMES: &[&str] = &[
    "http",
    "https",
    "file",
    "about",
    "data",
    "blob",
    "chrome",
    "devtools",
    "view-source",
    "ftp",
    "ws",
    "wss",
    "mailto",
];

/// Resolve omnibox input with the default search engine.
///
/// Returns `None` for blank input.
pub fn resolve_input(input: &str) -> Option<String> {
    resolve_input_with(input, DEFAULT_SEARCH_TEMPLATE)
}

/// Resolve omnibox input: a URL with a scheme is kept as typed, something
/// that looks like a host gets `https://` (`http://` for localhost and IP
/// literals, which rarely have certificates), anything else becomes a search.
pub fn resolve_input_with(input: &str, search_template: &str) -> Option<String> {
    let text = input.trim();
    if text.is_empty() {
        return None;
    }
    if let Some(scheme) = scheme_of(text) {
        // Spaces are legal-ish in typed URLs ("file:///a b"); the engine
        // percent-encodes them, so a typed scheme always wins.
        if KNOWN_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str())
            || text[scheme.len() + 1..].starts_with("//")
        {
            return Some(text.to_string());
        }
    }
    if text.chars().any(char::is_whitespace) {
        return Some(search_url(text, search_template));
    }
    match classify_host(host_part(text)) {
        HostKind::Local => Some(format!("http://{text}")),
        HostKind::Public => Some(format!("https://{text}")),
        HostKind::NotAHost => Some(search_url(text, search_template)),
    }
}

/// What the omnibox shows for `typed` given the app's inline completion (the whole text the
/// input completes to): `typed` exactly as the human typed it, followed by the rest of
/// `completion`. `None` when the completion doesn't extend `typed` (case-insensitively), e.g.
/// because it answers an older input.
pub fn inline_completion(typed: &str, completion: &str) -> Option<String> {
    if typed.is_empty() {
        return None;
    }
    let mut rest = completion.chars();
    for t in typed.chars() {
        let c = rest.next()?;
        if !t.to_lowercase().eq(c.to_lowercase()) {
            return None;
        }
    }
    let rest: String = rest.collect();
    (!rest.is_empty()).then(|| format!("{typed}{rest}"))
}

/// Build the search URL for `query`.
pub fn search_url(query: &str, template: &str) -> String {
    template.replace("{}", &form_encode(query.trim()))
}

/// The scheme if `text` starts with `scheme:`.
fn scheme_of(text: &str) -> Option<&str> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .then_some(scheme)
}

/// `host[:port]` from `host[:port][/path][?query][#frag]`, without userinfo.
fn host_part(text: &str) -> &str {
    let end = text.find(['/', '?', '#']).unwrap_or(text.len());
    let authority = &text[..end];
    authority.rsplit_once('@').map_or(authority, |(_, h)| h)
}

enum HostKind {
    Local,
    Public,
    NotAHost,
}

fn classify_host(authority: &str) -> HostKind {
    // Bracketed IPv6, optionally with a port.
    if let Some(rest) = authority.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((addr, tail)) if addr.parse::<std::net::Ipv6Addr>().is_ok() && port_ok(tail) => {
                HostKind::Local
            }
            _ => HostKind::NotAHost,
        };
    }
    let (host, tail) = match authority.find(':') {
        Some(i) => (&authority[..i], &authority[i..]),
        None => (authority, ""),
    };
    if !port_ok(tail) || host.is_empty() {
        return HostKind::NotAHost;
    }
    let host = host.to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return HostKind::Local;
    }
    if host.parse::<std::net::Ipv4Addr>().is_ok() {
        return HostKind::Local;
    }
    let labels: Vec<&str> = host.trim_end_matches('.').split('.').collect();
    let valid_label = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_alphanumeric() || c == '-')
    };
    let tld = labels.last().copied().unwrap_or("");
    // A dotted name whose last label is alphabetic ("example.com", "xn--p1ai"
    // counts via the alphanumeric rule) reads as a host; "v1.2" or "foo" don't.
    let tld_ok =
        tld.len() >= 2 && tld.chars().all(|c| c.is_alphabetic() || c == '-') || tld.starts_with("xn--");
    if labels.len() >= 2 && labels.iter().all(valid_label) && tld_ok {
        HostKind::Public
    } else {
        HostKind::NotAHost
    }
}

/// Empty, or `:` followed by 1–5 digits.
fn port_ok(tail: &str) -> bool {
    match tail.strip_prefix(':') {
        None => tail.is_empty(),
        Some(p) => !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// `application/x-www-form-urlencoded` encoding of a query value.
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        resolve_input(s).unwrap()
    }

    #[test]
    fn bare_domain_gets_https() {
        assert_eq!(r("example.com"), "https://example.com");
        assert_eq!(r("  example.com/a?b=c#d "), "https://example.com/a?b=c#d");
        assert_eq!(r("sub.example.co.uk:8443/x"), "https://sub.example.co.uk:8443/x");
    }

    #[test]
    fn localhost_and_ips_get_http() {
        assert_eq!(r("localhost:8000"), "http://localhost:8000");
        assert_eq!(r("localhost"), "http://localhost");
        assert_eq!(r("localhost:8000/path"), "http://localhost:8000/path");
        assert_eq!(r("app.localhost"), "http://app.localhost");
        assert_eq!(r("127.0.0.1:3000"), "http://127.0.0.1:3000");
        assert_eq!(r("[::1]:8080/"), "http://[::1]:8080/");
    }

    #[test]
    fn spaces_mean_search() {
        assert_eq!(r("rust egui tabs"), "https://duckduckgo.com/?q=rust+egui+tabs");
        assert_eq!(
            r("example.com is down"),
            "https://duckduckgo.com/?q=example.com+is+down"
        );
        assert_eq!(r("a&b=c"), "https://duckduckgo.com/?q=a%26b%3Dc");
        assert_eq!(r("ünï"), "https://duckduckgo.com/?q=%C3%BCn%C3%AF");
    }

    #[test]
    fn single_words_and_versions_are_searches() {
        assert_eq!(r("weather"), "https://duckduckgo.com/?q=weather");
        assert_eq!(r("v1.2"), "https://duckduckgo.com/?q=v1.2");
        assert_eq!(r("foo:bar"), "https://duckduckgo.com/?q=foo%3Abar");
        assert_eq!(
            r("localhost:99999999"),
            "https://duckduckgo.com/?q=localhost%3A99999999"
        );
    }

    #[test]
    fn typed_scheme_is_kept() {
        assert_eq!(r("http://example.com"), "http://example.com");
        assert_eq!(r("HTTPS://Example.com/"), "HTTPS://Example.com/");
        assert_eq!(r("file:///tmp/a b.html"), "file:///tmp/a b.html");
        assert_eq!(r("about:blank"), "about:blank");
        assert_eq!(r("data:text/html,<b>hi</b>"), "data:text/html,<b>hi</b>");
        assert_eq!(r("custom+scheme://x"), "custom+scheme://x");
    }

    #[test]
    fn blank_is_none() {
        assert_eq!(resolve_input("   "), None);
        assert_eq!(resolve_input(""), None);
    }

    #[test]
    fn inline_completion_keeps_what_was_typed() {
        assert_eq!(
            inline_completion("git", "github.com/").as_deref(),
            Some("github.com/")
        );
        // The human's capitals stay; only the rest comes from the completion.
        assert_eq!(
            inline_completion("GitH", "github.com/").as_deref(),
            Some("GitHub.com/")
        );
        assert_eq!(
            inline_completion("ünï", "üNïcode.example").as_deref(),
            Some("ünïcode.example")
        );
        // Nothing to add, or a completion for some other input.
        assert_eq!(inline_completion("github.com/", "github.com/"), None);
        assert_eq!(inline_completion("gix", "github.com/"), None);
        assert_eq!(inline_completion("github.com/x", "github.com/"), None);
        assert_eq!(inline_completion("", "github.com/"), None);
    }

    #[test]
    fn custom_search_template() {
        assert_eq!(
            resolve_input_with("a b", "https://search.example/?s={}&x=1").unwrap(),
            "https://search.example/?s=a+b&x=1"
        );
    }
}
