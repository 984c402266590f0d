//! Turning what the human typed into the omnibox into a URL to load, and the search engines
//! it can search with.

use serde::{Deserialize, Serialize};

/// Search engine used when the input isn't a URL and the human chose none. `%s` is replaced
/// by the form-encoded query.
pub const DEFAULT_SEARCH_TEMPLATE: &str = "https://duckduckgo.com/?q=%s";

/// Where the query goes in a search URL template (`https://example.com/?q=%s`), as in Chrome
/// and Firefox. `{}` is accepted too: templates saved before the settings view used it.
pub const QUERY_PLACEHOLDER: &str = "%s";
const LEGACY_PLACEHOLDER: &str = "{}";

/// The search engine the omnibox searches with.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchEngine {
    /// DuckDuckGo (the default).
    #[default]
    DuckDuckGo,
    /// Google.
    Google,
    /// Bing.
    Bing,
    /// Startpage.
    Startpage,
    /// A URL template of the human's, with `%s` where the query goes (see [`check_template`]).
    Custom(String),
}

impl SearchEngine {
    /// The engines offered by name, in the order the settings view lists them.
    pub const BUILT_IN: [SearchEngine; 4] = [
        SearchEngine::DuckDuckGo,
        SearchEngine::Google,
        SearchEngine::Bing,
        SearchEngine::Startpage,
    ];

    /// As the settings view names it.
    pub fn name(&self) -> &str {
        match self {
            SearchEngine::DuckDuckGo => "DuckDuckGo",
            SearchEngine::Google => "Google",
            SearchEngine::Bing => "Bing",
            SearchEngine::Startpage => "Startpage",
            SearchEngine::Custom(_) => "Custom",
        }
    }

    /// Its search URL template (`%s` = the query).
    pub fn template(&self) -> &str {
        match self {
            SearchEngine::DuckDuckGo => DEFAULT_SEARCH_TEMPLATE,
            SearchEngine::Google => "https://www.google.com/search?q=%s",
            SearchEngine::Bing => "https://www.bing.com/search?q=%s",
            SearchEngine::Startpage => "https://www.startpage.com/sp/search?query=%s",
            SearchEngine::Custom(t) => t,
        }
    }
}

/// Why a custom search template can't be used, in words for the settings view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// Not an `http://` or `https://` URL.
    #[error("the template must start with https:// or http://")]
    Scheme,
    /// No host after the scheme.
    #[error("the template has no host name")]
    NoHost,
    /// Nowhere to put the query.
    #[error("put %s where the search terms go")]
    NoPlaceholder,
    /// Spaces or control characters, which no search URL has.
    #[error("the template contains spaces")]
    Whitespace,
}

/// Checks a custom search URL template: an `http(s)` URL with a host and `%s` where the query
/// goes.
pub fn check_template(template: &str) -> Result<(), TemplateError> {
    let t = template.trim();
    let rest = t
        .strip_prefix("https://")
        .or_else(|| t.strip_prefix("http://"))
        .ok_or(TemplateError::Scheme)?;
    if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(TemplateError::Whitespace);
    }
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..host_end];
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    if host.is_empty() || host.starts_with(':') || host.starts_with('%') {
        return Err(TemplateError::NoHost);
    }
    if !t.contains(QUERY_PLACEHOLDER) && !t.contains(LEGACY_PLACEHOLDER) {
        return Err(TemplateError::NoPlaceholder);
    }
    Ok(())
}

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
    let url = resolve_raw(text, search_template)?;
    // What only looks like an address (`http://[::1`, a port past 65535, `exa mple..com`) is
    // searched for, as Chrome does, rather than dropped with the typing lost.
    Some(if url::Url::parse(&url).is_ok() {
        url
    } else {
        search_url(text, search_template)
    })
}

fn resolve_raw(text: &str, search_template: &str) -> Option<String> {
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

/// Build the search URL for `query`: every `%s` (or legacy `{}`) of `template` becomes the
/// form-encoded query.
pub fn search_url(query: &str, template: &str) -> String {
    let q = form_encode(query.trim());
    template
        .trim()
        .replace(QUERY_PLACEHOLDER, &q)
        .replace(LEGACY_PLACEHOLDER, &q)
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
        // Malformed addresses are searched for, never dropped.
        for bad in [
            "http://exa mple..com:99999/%%",
            "http://[::1",
            "example.com:99999",
        ] {
            let u = resolve_input(bad).unwrap();
            assert!(u.starts_with("https://duckduckgo.com/"), "{bad} → {u}");
            assert!(url::Url::parse(&u).is_ok(), "{u}");
        }
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
        assert_eq!(
            resolve_input_with("a b", "https://search.example/?s=%s&x=1").unwrap(),
            "https://search.example/?s=a+b&x=1"
        );
        // A query with a literal "%s" in it is encoded before it goes in, so it is not
        // substituted again.
        assert_eq!(
            resolve_input_with("100%s off", "http://127.0.0.1:8080/find?q=%s").unwrap(),
            "http://127.0.0.1:8080/find?q=100%25s+off"
        );
        // URLs stay URLs whatever the engine.
        assert_eq!(
            resolve_input_with("example.com", "https://search.example/?s=%s").unwrap(),
            "https://example.com"
        );
    }

    #[test]
    fn built_in_engines_search_where_their_names_say() {
        for (engine, start) in [
            (SearchEngine::DuckDuckGo, "https://duckduckgo.com/?q="),
            (SearchEngine::Google, "https://www.google.com/search?q="),
            (SearchEngine::Bing, "https://www.bing.com/search?q="),
            (
                SearchEngine::Startpage,
                "https://www.startpage.com/sp/search?query=",
            ),
        ] {
            assert_eq!(check_template(engine.template()), Ok(()), "{engine:?}");
            assert_eq!(
                resolve_input_with("rust egui", engine.template()).unwrap(),
                format!("{start}rust+egui")
            );
        }
        assert_eq!(SearchEngine::default().template(), DEFAULT_SEARCH_TEMPLATE);
    }

    #[test]
    fn custom_templates_are_checked() {
        assert_eq!(check_template("https://s.example/?q=%s"), Ok(()));
        assert_eq!(check_template("  http://127.0.0.1:8080/search?q=%s "), Ok(()));
        assert_eq!(check_template("https://s.example/?q={}"), Ok(()));
        assert_eq!(check_template("s.example/?q=%s"), Err(TemplateError::Scheme));
        assert_eq!(
            check_template("ftp://s.example/?q=%s"),
            Err(TemplateError::Scheme)
        );
        assert_eq!(check_template("https:///?q=%s"), Err(TemplateError::NoHost));
        assert_eq!(check_template("https://%s"), Err(TemplateError::NoHost));
        assert_eq!(
            check_template("https://s.example/?q="),
            Err(TemplateError::NoPlaceholder)
        );
        assert_eq!(
            check_template("https://s.example/?q=%s and more"),
            Err(TemplateError::Whitespace)
        );
        assert_eq!(check_template(""), Err(TemplateError::Scheme));
    }

    #[test]
    fn engines_are_saved_by_name() {
        assert_eq!(
            serde_json::to_string(&SearchEngine::DuckDuckGo).unwrap(),
            r#""duckduckgo""#
        );
        assert_eq!(
            serde_json::to_string(&SearchEngine::Custom("https://s.example/?q=%s".into())).unwrap(),
            r#"{"custom":"https://s.example/?q=%s"}"#
        );
        let back: SearchEngine = serde_json::from_str(r#""startpage""#).unwrap();
        assert_eq!(back, SearchEngine::Startpage);
    }
}
