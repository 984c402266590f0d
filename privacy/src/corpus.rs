//! Resource URLs from saved HTML pages, for the blocking benchmark and corpus tests.
//!
//! Not a browser: a tolerant tag scanner that pulls `src`/`href`/`srcset` from `script`, `img`,
//! `link` and `iframe`, resolves them against the page URL and types them the way the
//! browser's request would be typed. Good enough to replay a page's subresource requests
//! through [`crate::Blocker::check`] without serving anything.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use url::Url;

use crate::blocking::ResourceType;

/// One subresource request a page would make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRef {
    /// Absolute http(s) URL of the resource.
    pub url: String,
    /// The page's URL (the request's source).
    pub source_url: String,
    /// How the browser would classify the request.
    pub resource_type: ResourceType,
    /// The page file it came from.
    pub page: String,
}

/// Every resource of every `*.html` page in `dir` (also `*/source.html` page folders), pages
/// in name order.
pub fn load_corpus(dir: &Path) -> io::Result<Vec<ResourceRef>> {
    let mut out = Vec::new();
    for p in page_files(dir)? {
        let html = String::from_utf8_lossy(&fs::read(&p)?).into_owned();
        let name = p
            .strip_prefix(dir)
            .unwrap_or(&p)
            .to_string_lossy()
            .trim_end_matches("/source.html")
            .to_string();
        let base = page_url(&html, &name);
        for (url, resource_type) in extract_resources(&html, &base) {
            out.push(ResourceRef {
                url,
                source_url: base.to_string(),
                resource_type,
                page: name.clone(),
            });
        }
    }
    Ok(out)
}

/// The page files in `dir` (`*.html`, or `*/source.html`), sorted.
pub fn page_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut pages: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter_map(|p| {
            if p.is_dir() {
                Some(p.join("source.html")).filter(|s| s.is_file())
            } else {
                p.extension().is_some_and(|x| x == "html").then_some(p)
            }
        })
        .collect();
    pages.sort();
    Ok(pages)
}

/// The page's own URL: `<base href>`, else `<link rel=canonical>`, else `og:url`, else a
/// placeholder under `.invalid` named after the file (so relative URLs stay first-party).
pub fn page_url(html: &str, page_name: &str) -> Url {
    let mut canonical = None;
    let mut og = None;
    for tag in Tags::new(html) {
        let abs = |v: Option<String>| v.and_then(|v| Url::parse(&v).ok()).filter(is_http);
        match tag.name.as_str() {
            "base" => {
                if let Some(u) = abs(tag.attr("href")) {
                    return u;
                }
            }
            "link" if canonical.is_none() && rel_has(&tag, "canonical") => canonical = abs(tag.attr("href")),
            "meta" if og.is_none() && tag.attr("property").as_deref() == Some("og:url") => {
                og = abs(tag.attr("content"))
            }
            _ => {}
        }
    }
    canonical.or(og).unwrap_or_else(|| {
        let stem: String = page_name
            .trim_end_matches(".html")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        Url::parse(&format!("https://{stem}.corpus.invalid/")).expect("valid placeholder")
    })
}

fn is_http(u: &Url) -> bool {
    matches!(u.scheme(), "http" | "https")
}

fn rel_has(tag: &Tag, word: &str) -> bool {
    tag.attr("rel")
        .is_some_and(|r| r.split_ascii_whitespace().any(|w| w.eq_ignore_ascii_case(word)))
}

/// The typed, absolute http(s) resource URLs in `html`, in document order.
pub fn extract_resources(html: &str, base: &Url) -> Vec<(String, ResourceType)> {
    let mut out = Vec::new();
    let mut push = |raw: &str, ty: ResourceType| {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            return;
        }
        if let Ok(u) = base.join(raw)
            && is_http(&u)
        {
            out.push((u.to_string(), ty));
        }
    };
    for tag in Tags::new(html) {
        match tag.name.as_str() {
            "script" => {
                if let Some(s) = tag.attr("src") {
                    push(&s, ResourceType::Script);
                }
            }
            "iframe" => {
                if let Some(s) = tag.attr("src") {
                    push(&s, ResourceType::SubFrame);
                }
            }
            "img" => {
                if let Some(s) = tag.attr("src") {
                    push(&s, ResourceType::Image);
                }
                if let Some(set) = tag.attr("srcset") {
                    for candidate in set.split(',') {
                        if let Some(u) = candidate.split_ascii_whitespace().next() {
                            push(u, ResourceType::Image);
                        }
                    }
                }
            }
            "link" => {
                if let Some(h) = tag.attr("href") {
                    push(&h, link_type(&tag));
                }
            }
            _ => {}
        }
    }
    out
}

fn link_type(tag: &Tag) -> ResourceType {
    if rel_has(tag, "stylesheet") {
        return ResourceType::Stylesheet;
    }
    if rel_has(tag, "icon")
        || rel_has(tag, "apple-touch-icon")
        || rel_has(tag, "apple-touch-icon-precomposed")
    {
        return ResourceType::Favicon;
    }
    if rel_has(tag, "preload") || rel_has(tag, "prefetch") || rel_has(tag, "modulepreload") {
        return match tag.attr("as").as_deref() {
            Some("script") => ResourceType::Script,
            Some("style") => ResourceType::Stylesheet,
            Some("font") => ResourceType::Font,
            Some("image") => ResourceType::Image,
            _ if rel_has(tag, "modulepreload") => ResourceType::Script,
            _ => ResourceType::Prefetch,
        };
    }
    ResourceType::Other
}

struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<String> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}

/// Iterates start tags, skipping comments and the bodies of `script`/`style` (whose text would
/// otherwise yield tags that no parser sees).
struct Tags<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Tags<'a> {
    fn new(s: &'a str) -> Self {
        Self { s, i: 0 }
    }
}

impl Iterator for Tags<'_> {
    type Item = Tag;

    fn next(&mut self) -> Option<Tag> {
        let b = self.s.as_bytes();
        loop {
            let lt = self.i + memchr_lt(&b[self.i..])?;
            self.i = lt + 1;
            if b[lt..].starts_with(b"<!--") {
                self.i = find(b, lt + 4, b"-->").map_or(b.len(), |e| e + 3);
                continue;
            }
            let name_start = lt + 1;
            let mut j = name_start;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
                j += 1;
            }
            if j == name_start || !b[name_start].is_ascii_alphabetic() {
                continue;
            }
            let name = self.s[name_start..j].to_ascii_lowercase();
            let (attrs, end) = parse_attrs(self.s, j);
            self.i = end;
            if name == "script" || name == "style" {
                let close = format!("</{name}");
                self.i = find_ci(b, self.i, close.as_bytes()).unwrap_or(b.len());
            }
            return Some(Tag { name, attrs });
        }
    }
}

fn memchr_lt(b: &[u8]) -> Option<usize> {
    memchr::memchr(b'<', b)
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, pat).map(|p| p + from)
}

/// Case-insensitive `find` for a pattern starting with `</` (closing tags).
fn find_ci(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    let hay = b.get(from..)?;
    memchr::memmem::find_iter(hay, &pat[..2])
        .find(|&p| {
            hay.get(p..p + pat.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(pat))
        })
        .map(|p| p + from)
}

/// Parses attributes from `i` to the closing `>`; returns them and the index after `>`.
fn parse_attrs(s: &str, mut i: usize) -> (Vec<(String, String)>, usize) {
    let b = s.as_bytes();
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() {
            return (attrs, i);
        }
        if b[i] == b'>' {
            return (attrs, i + 1);
        }
        let k0 = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let key = s[k0..i].to_ascii_lowercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                let v0 = i + 1;
                let v1 = b[v0..].iter().position(|&c| c == q).map_or(b.len(), |p| p + v0);
                value = decode_entities(&s[v0..v1]);
                i = (v1 + 1).min(b.len());
            } else {
                let v0 = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                    i += 1;
                }
                value = decode_entities(&s[v0..i]);
            }
        }
        if key.is_empty() {
            i += 1;
            continue;
        }
        attrs.push((key, value));
    }
}

fn decode_entities(v: &str) -> String {
    if !v.contains('&') {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        // Byte search: `;` is ASCII, so its index is always a char boundary.
        let Some(semi) = rest.as_bytes()[..rest.len().min(12)]
            .iter()
            .position(|&c| c == b';')
        else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..semi];
        let ch = match ent {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "nbsp" => Some('\u{a0}'),
            _ if ent.starts_with("#x") || ent.starts_with("#X") => {
                u32::from_str_radix(&ent[2..], 16).ok().and_then(char::from_u32)
            }
            _ if ent.starts_with('#') => ent[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_and_types_resources() {
        let html = r#"<html><head>
            <link rel="canonical" href="https://news.example/story">
            <link rel="stylesheet" href="/css/site.css">
            <link rel="shortcut icon" href="favicon.ico">
            <link rel=preload as=font href="//cdn.example/f.woff2">
            <script src="https://www.google-analytics.com/analytics.js"></script>
            <script>var s = '<img src="/not-a-tag.png">';</script>
            <!-- <img src="/commented.png"> -->
            </head><body>
            <img src='/a.png' srcset="/a-2x.png 2x, /a-3x.png 3x">
            <IFRAME SRC="https://ads.example/frame?x=1&amp;y=2"></IFRAME>
            <img src="data:image/gif;base64,AAAA"><script src="javascript:void(0)"></script>
            </body></html>"#;
        let base = page_url(html, "story.html");
        assert_eq!(base.as_str(), "https://news.example/story");
        let got = extract_resources(html, &base);
        let want = vec![
            ("https://news.example/story", ResourceType::Other),
            ("https://news.example/css/site.css", ResourceType::Stylesheet),
            ("https://news.example/favicon.ico", ResourceType::Favicon),
            ("https://cdn.example/f.woff2", ResourceType::Font),
            (
                "https://www.google-analytics.com/analytics.js",
                ResourceType::Script,
            ),
            ("https://news.example/a.png", ResourceType::Image),
            ("https://news.example/a-2x.png", ResourceType::Image),
            ("https://news.example/a-3x.png", ResourceType::Image),
            ("https://ads.example/frame?x=1&y=2", ResourceType::SubFrame),
        ];
        let got: Vec<(&str, ResourceType)> = got.iter().map(|(u, t)| (u.as_str(), *t)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn placeholder_page_url() {
        assert_eq!(
            page_url("<p>hi</p>", "ars-1.html").as_str(),
            "https://ars-1.corpus.invalid/"
        );
        assert_eq!(
            page_url(r#"<base href="http://b.example/dir/">"#, "x.html").as_str(),
            "http://b.example/dir/"
        );
    }

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a&amp;b&#38;c&#x26;d&bogus;e&"),
            "a&b&c&d&bogus;e&"
        );
        assert_eq!(decode_entities("&quot; isn’t"), "\" isn’t");
        assert_eq!(decode_entities("&’’’’’;"), "&’’’’’;");
    }
}
