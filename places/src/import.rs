//! Import of the HTML bookmark export of Chrome, Firefox and others (the Netscape bookmark file
//! format): a forgiving hand-written reader, since these files are HTML written by string
//! concatenation, with unclosed `<DT>` and `<p>` everywhere, and old exports worse than that.
//!
//! Shape: `<DL>` opens a list; `<DT><H3 ...>name</H3>` then a `<DL>` is a folder;
//! `<DT><A HREF=... ADD_DATE=...>title</A>` is a bookmark; `<HR>` a separator; `<DD>` a
//! description (ignored). `PERSONAL_TOOLBAR_FOLDER="true"` marks the toolbar folder, whose
//! contents go to the bookmarks bar; Firefox's `UNFILED_BOOKMARKS_FOLDER` ("Other Bookmarks")
//! merges into Other bookmarks; everything else at the top level goes to Other bookmarks too.

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;
use crate::bookmarks::{self, BookmarkId};
use crate::text::clean_title;

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// Bookmarks added.
    pub added: usize,
    /// Folders created (folders that already existed under the same name were merged into).
    pub folders: usize,
    pub skipped: Vec<Skipped>,
}

/// An entry of the file that was not imported, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub title: String,
    /// Empty for separators and entries without an address.
    pub url: String,
    pub reason: SkipReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// A `javascript:` URL: a script to run on a page, which this browser does not import.
    Bookmarklet,
    /// A Firefox `place:` query (Most Visited, Recent Tags): only meaningful inside Firefox.
    PlaceQuery,
    /// A `data:` URL.
    DataUrl,
    /// An `<A>` without an `HREF` (a Firefox live bookmark has only a `FEEDURL`).
    NoAddress,
    /// A separator line (`<HR>`): the bookmark tree here has no separators.
    Separator,
    /// The same URL is already in that folder (importing a file twice adds nothing).
    Duplicate,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SkipReason::Bookmarklet => "bookmarklet (javascript:)",
            SkipReason::PlaceQuery => "Firefox query (place:)",
            SkipReason::DataUrl => "data: URL",
            SkipReason::NoAddress => "no address",
            SkipReason::Separator => "separator",
            SkipReason::Duplicate => "already bookmarked in that folder",
        })
    }
}

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Folder {
    pub title: String,
    pub added_ms: Option<i64>,
    pub toolbar: bool,
    pub unfiled: bool,
    pub items: Vec<Entry>,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Entry {
    Folder(Folder),
    Link {
        title: String,
        href: Option<String>,
        feed: Option<String>,
        added_ms: Option<i64>,
    },
    Separator,
}

/// Folders nested deeper than this are flattened into their parent (real exports are a few
/// levels deep; this bounds recursion on hostile files).
const MAX_DEPTH: usize = 64;

/// Reads a bookmark file into its top-level folder (the items of the outermost `<DL>`).
pub(crate) fn parse(html: &str) -> Result<Folder, Error> {
    let mut p = Parser::default();
    for token in (Tokens { s: html, at: 0 }) {
        p.token(token);
    }
    p.finish()
}

#[derive(Default)]
struct Parser {
    /// Open lists: the root first. `None` marks a `<DL>` with no heading (its items belong to
    /// the list around it).
    stack: Vec<(Option<Folder>, Vec<Entry>)>,
    seen_list: bool,
    /// A folder heading waiting for its `<DL>`.
    pending: Option<Folder>,
    /// The heading or link whose text is being read.
    open: Option<Open>,
}

enum Open {
    Heading(Folder, String),
    Link {
        href: Option<String>,
        feed: Option<String>,
        added_ms: Option<i64>,
        text: String,
    },
}

impl Parser {
    fn items(&mut self) -> &mut Vec<Entry> {
        if self.stack.is_empty() {
            // Entries before any <DL>: tolerated as top-level.
            self.stack.push((None, Vec::new()));
        }
        &mut self.stack.last_mut().expect("just ensured").1
    }

    /// Ends the heading or link being read, if any.
    fn close_open(&mut self) {
        match self.open.take() {
            Some(Open::Heading(mut folder, text)) => {
                folder.title = clean_title(&text);
                self.settle_pending();
                self.pending = Some(folder);
            }
            Some(Open::Link {
                href,
                feed,
                added_ms,
                text,
            }) => {
                self.settle_pending();
                let title = clean_title(&text);
                self.items().push(Entry::Link {
                    title,
                    href,
                    feed,
                    added_ms,
                });
            }
            None => {}
        }
    }

    /// A heading that was not followed by a list is an empty folder.
    fn settle_pending(&mut self) {
        if let Some(folder) = self.pending.take() {
            self.items().push(Entry::Folder(folder));
        }
    }

    fn token(&mut self, token: Token<'_>) {
        match token {
            Token::Text(t) => match &mut self.open {
                Some(Open::Heading(_, text) | Open::Link { text, .. }) => text.push_str(&decode(t)),
                None => {}
            },
            Token::Open { name, attrs } => match name.as_str() {
                "DL" => {
                    self.close_open();
                    self.seen_list = true;
                    let heading = self.pending.take();
                    if self.stack.is_empty() && heading.is_none() {
                        self.stack.push((None, Vec::new()));
                    } else if self.stack.len() >= MAX_DEPTH {
                        // Too deep: the heading is dropped and its list joins the parent's.
                        self.stack.push((None, Vec::new()));
                    } else {
                        if self.stack.is_empty() {
                            self.stack.push((None, Vec::new()));
                        }
                        self.stack.push((heading, Vec::new()));
                    }
                }
                "H3" => {
                    self.close_open();
                    let flag = |k: &str| attr(&attrs, k).is_some_and(|v| v.eq_ignore_ascii_case("true"));
                    let folder = Folder {
                        added_ms: attr(&attrs, "ADD_DATE").and_then(parse_date),
                        toolbar: flag("PERSONAL_TOOLBAR_FOLDER"),
                        unfiled: flag("UNFILED_BOOKMARKS_FOLDER"),
                        ..Folder::default()
                    };
                    self.open = Some(Open::Heading(folder, String::new()));
                }
                "A" => {
                    self.close_open();
                    let nonempty = |k: &str| {
                        attr(&attrs, k)
                            .filter(|v| !v.trim().is_empty())
                            .map(|v| v.trim().to_owned())
                    };
                    self.open = Some(Open::Link {
                        href: nonempty("HREF"),
                        feed: nonempty("FEEDURL"),
                        added_ms: attr(&attrs, "ADD_DATE").and_then(parse_date),
                        text: String::new(),
                    });
                }
                "HR" => {
                    self.close_open();
                    self.settle_pending();
                    self.items().push(Entry::Separator);
                }
                // Structure that ends a heading's or link's text when its close tag is missing.
                "DT" | "DD" => self.close_open(),
                _ => {}
            },
            Token::Close(name) => match name.as_str() {
                "H3" | "A" => self.close_open(),
                "DL" => {
                    self.close_open();
                    self.settle_pending();
                    if self.stack.len() > 1 {
                        let (heading, items) = self.stack.pop().expect("len > 1");
                        let parent = &mut self.stack.last_mut().expect("len > 1").1;
                        match heading {
                            Some(mut folder) => {
                                folder.items = items;
                                parent.push(Entry::Folder(folder));
                            }
                            None => parent.extend(items),
                        }
                    }
                }
                _ => {}
            },
        }
    }

    fn finish(mut self) -> Result<Folder, Error> {
        self.close_open();
        self.settle_pending();
        if !self.seen_list {
            return Err(Error::NotBookmarkFile);
        }
        // Unclosed lists close at the end of the file.
        while self.stack.len() > 1 {
            self.token(Token::Close("DL".into()));
        }
        let (_, items) = self.stack.pop().unwrap_or((None, Vec::new()));
        Ok(Folder {
            items,
            ..Folder::default()
        })
    }
}

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// `ADD_DATE` is seconds since the epoch; some writers used milliseconds or microseconds.
fn parse_date(v: &str) -> Option<i64> {
    let n: i64 = v.trim().parse().ok().filter(|&n| n > 0)?;
    Some(match n {
        n if n >= 100_000_000_000_000 => n / 1000,
        n if n >= 100_000_000_000 => n,
        n => n.saturating_mul(1000),
    })
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    /// Tag name upper case; attribute names upper case, values decoded.
    Open {
        name: String,
        attrs: Vec<(String, String)>,
    },
    Close(String),
    Text(&'a str),
}

struct Tokens<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            let rest = &self.s[self.at..];
            if rest.is_empty() {
                return None;
            }
            if !rest.starts_with('<') {
                let end = rest.find('<').unwrap_or(rest.len());
                self.at += end;
                return Some(Token::Text(&rest[..end]));
            }
            if let Some(comment) = rest.strip_prefix("<!--") {
                self.at += 4 + comment.find("-->").map_or(comment.len(), |i| i + 3);
                continue;
            }
            let after = &rest[1..];
            let (closing, name_start) = match after.strip_prefix('/') {
                Some(a) => (true, a),
                None => (false, after),
            };
            if !name_start.starts_with(|c: char| c.is_ascii_alphabetic()) {
                if after.starts_with(['!', '?']) {
                    // <!DOCTYPE ...>, <?xml ...?>
                    self.at += rest.find('>').map_or(rest.len(), |i| i + 1);
                    continue;
                }
                // A lone `<` in text.
                self.at += 1;
                return Some(Token::Text(&rest[..1]));
            }
            let name_len = name_start
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(name_start.len());
            let name = name_start[..name_len].to_ascii_uppercase();
            let body_start = self.at + 1 + usize::from(closing) + name_len;
            let (attrs, end) = read_attrs(self.s, body_start);
            self.at = end;
            return Some(if closing {
                Token::Close(name)
            } else {
                Token::Open { name, attrs }
            });
        }
    }
}

/// Reads attributes from `at` to the closing `>`; returns them and the offset after the `>`.
fn read_attrs(s: &str, mut at: usize) -> (Vec<(String, String)>, usize) {
    let mut attrs = Vec::new();
    let b = s.as_bytes();
    loop {
        while at < b.len() && (b[at].is_ascii_whitespace() || b[at] == b'/') {
            at += 1;
        }
        if at >= b.len() {
            return (attrs, at);
        }
        if b[at] == b'>' {
            return (attrs, at + 1);
        }
        let name_start = at;
        while at < b.len() && !b[at].is_ascii_whitespace() && !matches!(b[at], b'=' | b'>' | b'/') {
            at += 1;
        }
        let name = s[name_start..at].to_ascii_uppercase();
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        let mut value = String::new();
        if at < b.len() && b[at] == b'=' {
            at += 1;
            while at < b.len() && b[at].is_ascii_whitespace() {
                at += 1;
            }
            if at < b.len() && matches!(b[at], b'"' | b'\'') {
                let quote = b[at];
                let start = at + 1;
                // Values may hold `>` (a data: URL), but exports put one entry per line: a
                // quote not closed on its line ends at the tag's end instead of swallowing
                // the entries after it.
                let line = s[start..].find('\n').map_or(s.len(), |i| start + i);
                let end = s[start..line]
                    .find(quote as char)
                    .or_else(|| s[start..line].find('>'))
                    .map_or(line, |i| start + i);
                value = decode(&s[start..end]);
                at = if end < s.len() && b[end] == quote {
                    end + 1
                } else {
                    end
                };
            } else {
                let start = at;
                while at < b.len() && !b[at].is_ascii_whitespace() && b[at] != b'>' {
                    at += 1;
                }
                value = decode(&s[start..at]);
            }
        }
        if !name.is_empty() {
            attrs.push((name, value));
        }
    }
}

/// Decodes character references: the named ones these files use and numeric ones. Anything
/// else is left as written.
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest[1..].find(';').filter(|&j| j <= 10).and_then(|j| {
            let name = &rest[1..1 + j];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let n = name.strip_prefix('#')?;
                    let code = match n.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => n.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, j + 2))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
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

/// Adds a parsed file to the tree. Runs inside the writer's transaction (a savepoint of its
/// own), so an error leaves nothing of the import behind.
pub(crate) fn apply(conn: &Connection, file: Folder, now_ms: i64) -> Result<ImportReport, Error> {
    let mut report = ImportReport::default();
    for entry in file.items {
        match entry {
            Entry::Folder(f) if f.toolbar => add_items(conn, BookmarkId::BAR, f.items, now_ms, &mut report)?,
            Entry::Folder(f) if f.unfiled => {
                add_items(conn, BookmarkId::OTHER, f.items, now_ms, &mut report)?
            }
            other => add_items(conn, BookmarkId::OTHER, vec![other], now_ms, &mut report)?,
        }
    }
    Ok(report)
}

fn add_items(
    conn: &Connection,
    parent: BookmarkId,
    items: Vec<Entry>,
    now_ms: i64,
    report: &mut ImportReport,
) -> Result<(), Error> {
    for entry in items {
        match entry {
            Entry::Separator => report.skipped.push(Skipped {
                title: String::new(),
                url: String::new(),
                reason: SkipReason::Separator,
            }),
            Entry::Link {
                title,
                href,
                feed,
                added_ms,
            } => {
                let Some(url) = href else {
                    report.skipped.push(Skipped {
                        title,
                        url: feed.unwrap_or_default(),
                        reason: SkipReason::NoAddress,
                    });
                    continue;
                };
                let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
                let refused = match scheme.as_str() {
                    "javascript" => Some(SkipReason::Bookmarklet),
                    "place" => Some(SkipReason::PlaceQuery),
                    "data" => Some(SkipReason::DataUrl),
                    _ => None,
                };
                let duplicate = || -> Result<bool, Error> {
                    Ok(conn
                        .prepare_cached("SELECT 1 FROM bookmarks WHERE parent = ?1 AND url = ?2")?
                        .query_row(params![parent.0, url], |_| Ok(()))
                        .optional()?
                        .is_some())
                };
                let reason = match refused {
                    Some(r) => Some(r),
                    None if duplicate()? => Some(SkipReason::Duplicate),
                    None => None,
                };
                if let Some(reason) = reason {
                    report.skipped.push(Skipped { title, url, reason });
                    continue;
                }
                bookmarks::add_bookmark(conn, &url, &title, parent, added_ms.unwrap_or(now_ms))?;
                report.added += 1;
            }
            Entry::Folder(f) => {
                let existing: Option<i64> = conn
                    .prepare_cached(
                        "SELECT id FROM bookmarks WHERE parent = ?1 AND is_folder = 1 AND title = ?2 ORDER BY position LIMIT 1",
                    )?
                    .query_row(params![parent.0, f.title], |r| r.get(0))
                    .optional()?;
                let folder = match existing {
                    Some(id) => BookmarkId(id),
                    None => {
                        report.folders += 1;
                        bookmarks::create_folder(conn, parent, &f.title, f.added_ms.unwrap_or(now_ms))?
                    }
                };
                add_items(conn, folder, f.items, now_ms, report)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_handles_named_numeric_and_broken_references() {
        assert_eq!(
            decode("a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#x27; &#8212;"),
            "a & b <c> \"d\" 'e' —"
        );
        assert_eq!(decode("AT&T &amp"), "AT&T &amp");
        assert_eq!(decode("&#xZZ; &#1114112; &;"), "&#xZZ; &#1114112; &;");
        assert_eq!(decode("no refs"), "no refs");
    }

    #[test]
    fn add_dates_in_seconds_milliseconds_or_microseconds() {
        assert_eq!(parse_date("1700000000"), Some(1_700_000_000_000));
        assert_eq!(parse_date("1700000000123"), Some(1_700_000_000_123));
        assert_eq!(parse_date("1700000000123456"), Some(1_700_000_000_123));
        assert_eq!(parse_date("0"), None);
        assert_eq!(parse_date("soon"), None);
    }

    #[test]
    fn tokens_skip_doctype_and_comments_and_read_attributes() {
        let toks: Vec<Token<'_>> = Tokens {
            s: "<!DOCTYPE x><!-- <A> --><a HREF=\"u?a=1&amp;b\" x=y flag q='it''s'>T</A><",
            at: 0,
        }
        .collect();
        assert_eq!(
            toks,
            [
                Token::Open {
                    name: "A".into(),
                    attrs: vec![
                        ("HREF".into(), "u?a=1&b".into()),
                        ("X".into(), "y".into()),
                        ("FLAG".into(), String::new()),
                        ("Q".into(), "it".into()),
                        ("'S'".into(), String::new()),
                    ]
                },
                Token::Text("T"),
                Token::Close("A".into()),
                Token::Text("<"),
            ]
        );
    }

    #[test]
    fn an_unterminated_quote_ends_at_the_tag_not_the_file() {
        let f = parse(
            "<DL>\n<DT><A HREF=\"https://a.example/>A</A>\n<DT><A HREF=\"https://b.example/\">B</A>\n</DL>",
        )
        .unwrap();
        assert_eq!(f.items.len(), 2);
        assert!(matches!(&f.items[1], Entry::Link { href: Some(h), .. } if h == "https://b.example/"));
    }
}
