//! Omnibox suggestions: history and bookmarks matching what is typed, ranked by frecency.
//!
//! Every lookup is an indexed range query: `url_key >= prefix AND url_key < upper` on the URL as
//! typed, or the same on `place_words.word` for title words. A short prefix can match a large
//! part of history; sorting all of those by frecency would grow with history, so when a capped
//! count says the prefix is dense the query walks the frecency index instead and stops at the
//! limit (dense means a match comes along every few rows).

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use crate::history::clamp_i64;
use crate::text::{prefix_upper, strip_typed_prefix, url_key, words};
use crate::{Error, frecency};

/// Where a suggestion comes from. A page that is both bookmarked and in history is `Bookmark`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SuggestionKind {
    History,
    Bookmark,
}

/// One omnibox suggestion.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub url: String,
    /// The bookmark's title for bookmarks (if it has one), else the page's title; may be empty.
    pub title: String,
    pub kind: SuggestionKind,
    /// Frecency now: 1.0 is one visit by a link right now; decays by half every 30 days;
    /// typed visits count 4, bookmarks multiply by 3. Only comparable within one answer.
    pub score: f64,
}

impl Suggestion {
    /// The text to show in the omnibox when `input` is typed and this suggestion is completed
    /// inline: `input` exactly as typed, followed by the completion (to be shown selected).
    ///
    /// Only when `input` is a prefix (ignoring case) of the URL as the user is typing it: with
    /// or without its scheme, with or without `www.`. Inside the host it completes to the end of
    /// the host and its slash (`git` → `github.com/`); past the host, to the end of the next
    /// path segment. `None` when there is nothing to add, when `input` has whitespace (that is
    /// a search, or a title match), or when it matches only the title: a completion never lands
    /// in the middle of a title word.
    pub fn inline_completion(&self, input: &str) -> Option<String> {
        if input.is_empty() || input.contains(char::is_whitespace) {
            return None;
        }
        for form in url_forms(&self.url) {
            let form = form.as_str();
            let Some(consumed) = prefix_len_ignoring_case(form, input) else {
                continue;
            };
            let rest = &form[consumed..];
            if rest.is_empty() {
                return None;
            }
            let host_end = host_end(form);
            let end = if consumed < host_end {
                // Through the slash after the host when there is one.
                if form[host_end..].starts_with('/') {
                    host_end + 1
                } else {
                    host_end
                }
            } else {
                rest.find('/').map_or(form.len(), |i| consumed + i + 1)
            };
            return Some(format!("{input}{}", &form[consumed..end]));
        }
        None
    }

    /// Whether `input` is a prefix of one of the URL's typed forms (so it can complete inline).
    fn url_matches(&self, input: &str) -> bool {
        !input.contains(char::is_whitespace)
            && url_forms(&self.url)
                .iter()
                .any(|f| prefix_len_ignoring_case(f, input).is_some())
    }
}

/// The forms of a URL a user may be typing: as is, without `www.`, without the scheme, and
/// without both (scheme and `www.` only for http and https). With the scheme first, so a typed
/// scheme is kept in the completion.
fn url_forms(url: &str) -> Vec<String> {
    let bare = strip_typed_prefix(url);
    let mut forms = vec![url.to_owned()];
    if bare.len() != url.len() {
        let scheme_end = url.find("://").map_or(0, |i| i + 3);
        let host = &url[scheme_end..];
        if host.len() != bare.len() {
            // `https://www.x/` is also typed as `https://x/`, and as `www.x/`.
            forms.push(format!("{}{bare}", &url[..scheme_end]));
            forms.push(host.to_owned());
        } else if scheme_end > 0 {
            forms.push(host.to_owned());
        }
        forms.push(bare.to_owned());
    }
    let mut unique: Vec<String> = Vec::with_capacity(forms.len());
    for f in forms {
        if !unique.contains(&f) {
            unique.push(f);
        }
    }
    unique
}

/// Byte length in `form` of a case-insensitive, char-by-char match of all of `input`.
fn prefix_len_ignoring_case(form: &str, input: &str) -> Option<usize> {
    let mut chars = form.char_indices();
    for want in input.chars() {
        let (_, got) = chars.next()?;
        if got != want && !got.to_lowercase().eq(want.to_lowercase()) {
            return None;
        }
    }
    Some(chars.next().map_or(form.len(), |(i, _)| i))
}

/// The end of the host part of a URL form (the first `/` after any `scheme://`).
fn host_end(form: &str) -> usize {
    let start = form.find("://").map_or(0, |i| i + 3);
    form[start..]
        .find(['/', '?', '#'])
        .map_or(form.len(), |i| start + i)
}

/// What was found for one URL while collecting candidates.
struct Candidate {
    page_title: String,
    /// Best frecency decay date among this URL's history rows (of the container asked for).
    history: Option<f64>,
    /// The bookmark's title and when it was added.
    bookmark: Option<(String, i64)>,
}

/// The two tables a suggestion can come from and their word indexes.
struct Source {
    words: &'static str,
    fk: &'static str,
}
const PLACES: Source = Source {
    words: "place_words",
    fk: "place_id",
};
const BOOKMARKS: Source = Source {
    words: "bookmark_words",
    fk: "bookmark_id",
};

/// A range `[lo, hi)` of strings sharing a prefix.
struct Prefix {
    lo: String,
    hi: String,
}

impl Prefix {
    fn new(prefix: &str) -> Option<Prefix> {
        Some(Prefix {
            lo: prefix.to_owned(),
            hi: prefix_upper(prefix)?,
        })
    }
}

/// SQL text and its parameters, built together so the numbering cannot drift.
#[derive(Default)]
struct Query {
    sql: String,
    values: Vec<Value>,
}

impl Query {
    fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }
    fn bind(&mut self, v: impl Into<Value>) -> &mut Self {
        self.values.push(v.into());
        self.sql.push_str(&format!("?{}", self.values.len()));
        self
    }
    fn range(&mut self, column: &str, p: &Prefix) -> &mut Self {
        self.push(&format!("{column} >= ")).bind(p.lo.clone());
        self.push(&format!(" AND {column} < ")).bind(p.hi.clone())
    }
    /// Every other term must start a title word or appear in the URL.
    fn other_terms(&mut self, src: &Source, alias: &str, terms: &[Prefix]) -> &mut Self {
        for t in terms {
            self.push(&format!(
                " AND (EXISTS (SELECT 1 FROM {} w WHERE w.{} = {alias}.id AND ",
                src.words, src.fk
            ));
            self.range("w.word", t);
            self.push(&format!(") OR instr({alias}.url_key, "))
                .bind(t.lo.clone())
                .push(") > 0)");
        }
        self
    }
}

pub(crate) fn suggest(
    conn: &Connection,
    input: &str,
    container: Option<&str>,
    limit: usize,
    now_ms: i64,
) -> Result<Vec<Suggestion>, Error> {
    let input = input.trim();
    if input.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    // A URL has no spaces; with spaces every term is a word to find (in the title or URL).
    let single = !input.contains(char::is_whitespace);
    let key = if single { url_key(input) } else { String::new() };
    let mut terms: Vec<String> = words(input);
    // The longest term is the most selective one to drive the index with.
    terms.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
    let term_ranges: Vec<Prefix> = terms.iter().filter_map(|t| Prefix::new(t)).collect();
    // Rows of other containers (or duplicates) are folded away below, so ask for more.
    let fetch = limit
        .saturating_mul(if container.is_none() { 3 } else { 2 })
        .max(10);

    let mut found: HashMap<String, Candidate> = HashMap::new();
    let mut history_row = |url: String, title: String, date: f64| {
        let c = found.entry(url).or_insert(Candidate {
            page_title: String::new(),
            history: None,
            bookmark: None,
        });
        if c.history.is_none_or(|d| date > d) {
            c.history = Some(date);
            c.page_title = title;
        }
    };

    if let Some(p) = (!key.is_empty()).then(|| Prefix::new(&key)).flatten() {
        for (url, title, date) in history_by_url(conn, &p, &term_ranges[..0], container, fetch)? {
            history_row(url, title, date);
        }
    }
    if let Some((first, rest)) = term_ranges.split_first() {
        for (url, title, date) in history_by_word(conn, first, rest, container, fetch)? {
            history_row(url, title, date);
        }
        if !single {
            // "github rust": the first term may be in the URL, not the title.
            for (url, title, date) in history_by_url(conn, first, rest, container, fetch)? {
                history_row(url, title, date);
            }
        }
    }

    let key_range = (!key.is_empty()).then(|| Prefix::new(&key)).flatten();
    for (url, title, added, date) in bookmarks(conn, key_range.as_ref(), &term_ranges, container)? {
        let c = found.entry(url).or_insert(Candidate {
            page_title: String::new(),
            history: None,
            bookmark: None,
        });
        c.bookmark = Some((title, added));
        if let Some(d) = date
            && c.history.is_none_or(|h| d > h)
        {
            c.history = Some(d);
        }
    }
    // A page found in history may be bookmarked under a title that did not match.
    let mut lookup =
        conn.prepare_cached("SELECT title, added_at FROM bookmarks WHERE url = ?1 ORDER BY id LIMIT 1")?;
    for (url, c) in found.iter_mut() {
        if c.bookmark.is_none() {
            c.bookmark = lookup
                .query_row([url], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
        }
    }

    let mut out: Vec<Suggestion> = found
        .into_iter()
        .map(|(url, c)| {
            let history = c.history.map_or(0.0, |d| frecency::score(d, now_ms));
            match c.bookmark {
                Some((title, added)) => Suggestion {
                    url,
                    title: if title.is_empty() { c.page_title } else { title },
                    kind: SuggestionKind::Bookmark,
                    score: (history + frecency::score(frecency::visit(added, frecency::LINK_WEIGHT), now_ms))
                        * frecency::BOOKMARK_BOOST,
                },
                None => Suggestion {
                    url,
                    title: c.page_title,
                    kind: SuggestionKind::History,
                    score: history,
                },
            }
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.url.cmp(&b.url)));
    // The best URL match leads: it is the one the omnibox completes inline.
    if let Some(i) = out.iter().position(|s| s.url_matches(input)) {
        let lead = out.remove(i);
        out.insert(0, lead);
    }
    out.truncate(limit);
    Ok(out)
}

type Row = (String, String, f64);

/// Whether at least `threshold` rows fall in a range (counting stops there).
fn at_least(conn: &Connection, q: Query, threshold: usize) -> Result<bool, Error> {
    let mut q = q;
    let sql = format!("SELECT count(*) FROM ({} LIMIT {threshold})", q.sql);
    q.sql = sql;
    let n: i64 = conn
        .prepare_cached(&q.sql)?
        .query_row(params_from_iter(q.values), |r| r.get(0))?;
    Ok(n as usize >= threshold)
}

/// Above this many matches, walking the frecency index finds `fetch` of them sooner than
/// sorting them all: sorting costs about `count`, walking about `fetch * rows / count`.
fn dense_threshold(conn: &Connection, fetch: usize) -> Result<usize, Error> {
    let rows: Option<i64> = conn.query_row("SELECT max(id) FROM places", [], |r| r.get(0))?;
    let rows = rows.unwrap_or(0).max(0) as f64;
    Ok(((fetch as f64 * rows).sqrt() as usize).clamp(256, 100_000))
}

fn history_by_url(
    conn: &Connection,
    key: &Prefix,
    others: &[Prefix],
    container: Option<&str>,
    fetch: usize,
) -> Result<Vec<Row>, Error> {
    let mut probe = Query::default();
    probe.push("SELECT 1 FROM places p WHERE ");
    if let Some(c) = container {
        probe.push("p.container = ").bind(c.to_owned()).push(" AND ");
    }
    probe.range("p.url_key", key);
    let dense = at_least(conn, probe, dense_threshold(conn, fetch)?)?;
    let mut q = Query::default();
    q.push("SELECT p.url, p.title, p.frecency FROM places p ");
    if dense {
        q.push(if container.is_some() {
            "INDEXED BY places_container_frecency "
        } else {
            "INDEXED BY places_frecency "
        });
    }
    q.push("WHERE ");
    if let Some(c) = container {
        q.push("p.container = ").bind(c.to_owned()).push(" AND ");
    }
    q.range("p.url_key", key).other_terms(&PLACES, "p", others);
    q.push(" ORDER BY p.frecency DESC LIMIT ").bind(clamp_i64(fetch));
    rows(conn, q)
}

fn history_by_word(
    conn: &Connection,
    first: &Prefix,
    others: &[Prefix],
    container: Option<&str>,
    fetch: usize,
) -> Result<Vec<Row>, Error> {
    let mut probe = Query::default();
    probe
        .push("SELECT 1 FROM place_words WHERE ")
        .range("word", first);
    let dense = at_least(conn, probe, dense_threshold(conn, fetch)?)?;
    let mut q = Query::default();
    q.push("SELECT p.url, p.title, p.frecency FROM places p ");
    if dense {
        q.push(if container.is_some() {
            "INDEXED BY places_container_frecency "
        } else {
            "INDEXED BY places_frecency "
        });
        q.push("WHERE EXISTS (SELECT 1 FROM place_words w WHERE w.place_id = p.id AND ")
            .range("w.word", first)
            .push(")");
    } else {
        q.push("WHERE p.id IN (SELECT place_id FROM place_words WHERE ")
            .range("word", first)
            .push(")");
    }
    if let Some(c) = container {
        q.push(" AND p.container = ").bind(c.to_owned());
    }
    q.other_terms(&PLACES, "p", others);
    q.push(" ORDER BY p.frecency DESC LIMIT ").bind(clamp_i64(fetch));
    rows(conn, q)
}

fn rows(conn: &Connection, q: Query) -> Result<Vec<Row>, Error> {
    let mut stmt = conn.prepare_cached(&q.sql)?;
    let rows = stmt.query_map(params_from_iter(q.values), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// URL, bookmark title, when added, and the page's best frecency date in history if any.
type BookmarkRow = (String, String, i64, Option<f64>);

/// Most bookmarks a suggestion query considers; bookmarks are hand-made and few next to history.
const MAX_BOOKMARK_MATCHES: i64 = 2000;

/// Bookmarks whose URL starts with `key` or whose title words start with every term, with the
/// best frecency date of the page in history.
fn bookmarks(
    conn: &Connection,
    key: Option<&Prefix>,
    terms: &[Prefix],
    container: Option<&str>,
) -> Result<Vec<BookmarkRow>, Error> {
    let mut q = Query::default();
    q.push("SELECT b.url, b.title, b.added_at, (SELECT max(p.frecency) FROM places p WHERE p.url = b.url");
    if let Some(c) = container {
        q.push(" AND p.container = ").bind(c.to_owned());
    }
    q.push(") FROM bookmarks b WHERE b.url IS NOT NULL AND (0");
    if let Some(k) = key {
        q.push(" OR (").range("b.url_key", k).push(")");
    }
    if let Some((first, rest)) = terms.split_first() {
        q.push(" OR (b.id IN (SELECT bookmark_id FROM bookmark_words WHERE ")
            .range("word", first)
            .push(")")
            .other_terms(&BOOKMARKS, "b", rest)
            .push(")");
        if key.is_none() {
            // "github rust": the first term may be in the URL.
            q.push(" OR (")
                .range("b.url_key", first)
                .other_terms(&BOOKMARKS, "b", rest)
                .push(")");
        }
    }
    q.push(") ORDER BY b.added_at DESC LIMIT ")
        .bind(MAX_BOOKMARK_MATCHES);
    let mut stmt = conn.prepare_cached(&q.sql)?;
    let rows = stmt.query_map(params_from_iter(q.values), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(url: &str) -> Suggestion {
        Suggestion {
            url: url.into(),
            title: "Git and GitHub".into(),
            kind: SuggestionKind::History,
            score: 1.0,
        }
    }

    #[test]
    fn completes_the_host_then_path_segments() {
        let g = s("https://github.com/rust-lang/rust");
        assert_eq!(g.inline_completion("git").as_deref(), Some("github.com/"));
        assert_eq!(g.inline_completion("GitH").as_deref(), Some("GitHub.com/"));
        assert_eq!(g.inline_completion("github.com").as_deref(), Some("github.com/"));
        assert_eq!(
            g.inline_completion("github.com/").as_deref(),
            Some("github.com/rust-lang/")
        );
        assert_eq!(
            g.inline_completion("github.com/rust-l").as_deref(),
            Some("github.com/rust-lang/")
        );
        assert_eq!(
            g.inline_completion("github.com/rust-lang/r").as_deref(),
            Some("github.com/rust-lang/rust")
        );
        assert_eq!(g.inline_completion("github.com/rust-lang/rust"), None);
    }

    #[test]
    fn completes_with_the_scheme_and_www_the_user_typed() {
        let g = s("https://www.github.com/");
        assert_eq!(
            g.inline_completion("https://git").as_deref(),
            Some("https://github.com/")
        );
        assert_eq!(
            g.inline_completion("https://www.git").as_deref(),
            Some("https://www.github.com/")
        );
        assert_eq!(g.inline_completion("www.gi").as_deref(), Some("www.github.com/"));
        assert_eq!(g.inline_completion("gi").as_deref(), Some("github.com/"));
        assert_eq!(g.inline_completion("http://gi"), None);
        let h = s("http://example.org");
        assert_eq!(h.inline_completion("ex").as_deref(), Some("example.org"));
    }

    #[test]
    fn never_completes_from_the_title_or_with_spaces_or_from_the_middle() {
        let g = s("https://github.com/");
        // "Git and GitHub" is the title; "and" is not a prefix of any URL form.
        assert_eq!(g.inline_completion("and"), None);
        assert_eq!(g.inline_completion("hub"), None);
        assert_eq!(g.inline_completion("git hub"), None);
        assert_eq!(g.inline_completion(""), None);
    }

    #[test]
    fn non_ascii_case_folding_keeps_byte_offsets_right() {
        let g = s("https://ÄBC.example/Über/x");
        assert_eq!(g.inline_completion("äb").as_deref(), Some("äbC.example/"));
        assert_eq!(
            g.inline_completion("äbc.example/üb").as_deref(),
            Some("äbc.example/über/")
        );
    }
}
