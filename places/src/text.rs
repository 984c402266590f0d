//! The keys suggestions are looked up by: the URL as people type it, and title words.

/// Milliseconds since the Unix epoch, the unit of every time in this crate.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Drops `http://` or `https://`, then a leading `www.`; people type neither.
pub(crate) fn strip_typed_prefix(s: &str) -> &str {
    let rest = strip_prefix_ascii_ci(s, "https://")
        .or_else(|| strip_prefix_ascii_ci(s, "http://"))
        .unwrap_or(s);
    strip_prefix_ascii_ci(rest, "www.").unwrap_or(rest)
}

fn strip_prefix_ascii_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

/// The indexed form of a URL: lower case, without scheme or `www.` (`github.com/rust-lang/`).
pub(crate) fn url_key(url: &str) -> String {
    strip_typed_prefix(url).to_lowercase()
}

/// The text searched by the history view: URL and title, lower case, separated by a character
/// no search term can contain.
pub(crate) fn fold(url: &str, title: &str) -> String {
    let mut s = url.to_lowercase();
    s.push('\n');
    s.push_str(&title.to_lowercase());
    s
}

/// The smallest string greater than every string that starts with `prefix` (UTF-8 byte order is
/// code point order, which is SQLite's BINARY collation), or `None` when there is none.
pub(crate) fn prefix_upper(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let mut next = last as u32 + 1;
        if (0xD800..0xE000).contains(&next) {
            next = 0xE000;
        }
        if let Some(c) = char::from_u32(next) {
            chars.push(c);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

const MAX_WORDS: usize = 48;
const MAX_WORD_CHARS: usize = 64;

/// The distinct words of a title, lower case, in order: runs of letters and digits.
pub(crate) fn words(title: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in title.split(|c: char| !c.is_alphanumeric()) {
        if raw.is_empty() {
            continue;
        }
        let word: String = raw.to_lowercase().chars().take(MAX_WORD_CHARS).collect();
        if !out.contains(&word) {
            out.push(word);
            if out.len() == MAX_WORDS {
                break;
            }
        }
    }
    out
}

/// The words of a URL as typed (no scheme, no `www.`): `github.com/rust-lang/rust` →
/// `github`, `com`, `rust`, `lang`.
pub(crate) fn url_words(url: &str) -> Vec<String> {
    words(strip_typed_prefix(url))
}

/// Whether a navigation to `url` belongs in history: not pages that typing the URL cannot bring
/// back (`about:`, `data:`, `blob:`, `javascript:`), nor DevTools, nor absurdly long URLs.
pub(crate) fn recordable(url: &str) -> bool {
    const NOT: [&str; 6] = [
        "about:",
        "data:",
        "blob:",
        "javascript:",
        "devtools:",
        "view-source:",
    ];
    const MAX_URL_BYTES: usize = 16 * 1024;
    !url.is_empty()
        && url.len() <= MAX_URL_BYTES
        && !NOT
            .iter()
            .any(|scheme| strip_prefix_ascii_ci(url, scheme).is_some())
}

/// Collapses runs of whitespace to one space and trims, for titles from pages and files.
pub(crate) fn clean_title(title: &str) -> String {
    title.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_key_drops_scheme_and_www_only_at_the_start() {
        assert_eq!(url_key("https://www.GitHub.com/Rust"), "github.com/rust");
        assert_eq!(url_key("http://example.org/www.x"), "example.org/www.x");
        assert_eq!(url_key("HTTPS://WWW.a.b/"), "a.b/");
        assert_eq!(url_key("file:///home/x"), "file:///home/x");
        assert_eq!(url_key("wwwx.com"), "wwwx.com");
    }

    #[test]
    fn prefix_upper_bounds_exactly_the_strings_with_the_prefix() {
        let upper = prefix_upper("git").unwrap();
        assert_eq!(upper, "giu");
        for s in ["git", "github.com/", "git\u{10FFFF}"] {
            assert!(s >= "git" && s < upper.as_str(), "{s}");
        }
        assert!("giu" >= upper.as_str());
        assert_eq!(prefix_upper("a\u{D7FF}").unwrap(), "a\u{E000}");
        assert_eq!(prefix_upper("a\u{10FFFF}").unwrap(), "b");
        assert_eq!(prefix_upper("\u{10FFFF}"), None);
    }

    #[test]
    fn words_split_on_non_alphanumerics_lowercase_and_dedupe() {
        assert_eq!(
            words("Rust: The Rust Programming Language — Überblick (2024)"),
            ["rust", "the", "programming", "language", "überblick", "2024"]
        );
        assert!(words(" -- ").is_empty());
    }

    #[test]
    fn url_words_skip_scheme_and_www() {
        assert_eq!(
            url_words("https://www.GitHub.com/rust-lang/rust?q=1"),
            ["github", "com", "rust", "lang", "q", "1"]
        );
        assert_eq!(url_words("file:///home/a.html"), ["file", "home", "a", "html"]);
    }

    #[test]
    fn recordable_refuses_pages_typing_cannot_bring_back() {
        assert!(recordable("https://example.com/"));
        assert!(recordable("file:///tmp/a.html"));
        for url in [
            "",
            "about:blank",
            "DATA:text/html,hi",
            "javascript:alert(1)",
            "blob:https://a/1",
        ] {
            assert!(!recordable(url), "{url}");
        }
        assert!(!recordable(&format!("https://a.com/{}", "x".repeat(20_000))));
    }

    #[test]
    fn clean_title_collapses_whitespace() {
        assert_eq!(clean_title("  a \n\t b  "), "a b");
    }
}
