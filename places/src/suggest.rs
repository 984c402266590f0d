//! Omnibox suggestions: history and bookmarks matching what is typed, ranked by frecency.
//!
//! What matches: one token (no spaces) matches a page whose URL, without scheme and `www.`,
//! starts with it, or whose title has a word starting with each of the token's words
//! (`node.js` → `node`, `js`). Several tokens: each word must start a word of the title or
//! of the URL (`rust lang` finds `github.com/rust-lang/rust`). Never the middle of a word.
//!
//! Every lookup is driven by index ranges: `url_key >= prefix AND url_key < upper` on the
//! URL as typed, or the same on `place_words.word` / `place_url_words.word` for a word. A rare
//! prefix is cheap: fetch its few rows, sort them by frecency; several words intersect their
//! id sets from the rarest up, so the work follows the rarest word. A common prefix ("g") can
//! match a large part of history, and sorting all of that would grow with history; so when a
//! capped count says the match is common, the lookup first walks a bounded window of the best
//! rows by frecency (the frecency index, best first) and keeps the matches. If the window holds
//! enough of them they are the answer (nothing outside the window can score higher); if not,
//! the matches are rare after all and the range lookup runs. Either way the result is exact.
//! Every query picks ids from covering indexes; only the few rows returned are read in full.

use std::collections::{HashMap, HashSet};

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use crate::history::clamp_i64;
use crate::text::{prefix_upper, strip_typed_prefix, url_key, url_words, words};
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
    /// Every other term must start a title word, or (`in_url`, places only) a URL word.
    fn other_terms(&mut self, src: &Source, alias: &str, terms: &[&Prefix], in_url: bool) -> &mut Self {
        for t in terms {
            self.push(&format!(
                " AND (EXISTS (SELECT 1 FROM {} w WHERE w.{} = {alias}.id AND ",
                src.words, src.fk
            ));
            self.range("w.word", t);
            self.push(")");
            if in_url {
                self.push(" OR EXISTS (SELECT 1 FROM place_url_words u WHERE u.place_id = ")
                    .push(alias)
                    .push(".id AND ")
                    .range("u.word", t)
                    .push(")");
            }
            self.push(")");
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
    // One token is a URL prefix, or words that must all start title words ("node.js").
    // Several tokens are words to find, each at the start of a title word or in the URL.
    let single = !input.contains(char::is_whitespace);
    let key = if single { url_key(input) } else { String::new() };
    let terms: Vec<String> = words(input);
    let term_ranges: Vec<Prefix> = terms.iter().filter_map(|t| Prefix::new(t)).collect();
    // Each lookup returns its best `fetch`; the best `limit` of their union is exact when one
    // container is asked for. Across containers one URL can fill several rows, so ask more.
    let fetch = if container.is_none() {
        limit.saturating_mul(3)
    } else {
        limit
    };

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

    let lookup = Lookup::new(conn, container, fetch)?;
    if let Some(p) = (!key.is_empty()).then(|| Prefix::new(&key)).flatten() {
        let common = lookup.count(conn, Driver::Url(&p))? >= lookup.common;
        let best = match common
            .then(|| lookup.window(conn, Driver::Url(&p), &[]))
            .transpose()?
            .flatten()
        {
            Some(best) => best,
            None => lookup.by_url(conn, &p)?,
        };
        for (url, title, date) in best {
            history_row(url, title, date);
        }
    }
    if !term_ranges.is_empty() {
        // One token: each of its words must start a title word. Several: each must start a
        // word of the title or of the URL. Every match has the rarest word, so it drives.
        let in_url = !single;
        let mut counted = Vec::with_capacity(term_ranges.len());
        for t in &term_ranges {
            counted.push((lookup.count(conn, Driver::Words(t, in_url))?, t));
        }
        counted.sort_by_key(|(n, _)| *n);
        let (least, rarest) = counted[0];
        let others: Vec<&Prefix> = counted[1..].iter().map(|(_, t)| *t).collect();
        // Words counted exactly give an estimate of how many pages have them all (as if they
        // were independent): few, and the rarest word's range is the cheaper way to them.
        let exact = counted.iter().all(|(n, _)| *n < lookup.cap());
        let rows = lookup.rows.max(1) as f64;
        let together = counted.iter().fold(rows, |acc, (n, _)| acc * (*n as f64 / rows));
        let common = least >= lookup.common && (!exact || together >= lookup.common as f64);
        if least > 0 {
            let driver = Driver::Words(rarest, in_url);
            let best = match common
                .then(|| lookup.window(conn, driver, &others))
                .transpose()?
                .flatten()
            {
                Some(best) => best,
                None => {
                    // Pages having every word: intersect the words' id sets, starting from the
                    // rarest; a word too common to fetch is checked on the survivors instead.
                    let mut ids = lookup
                        .word_ids(conn, rarest, in_url, usize::MAX)?
                        .unwrap_or_default();
                    let mut unchecked = Vec::new();
                    for &(_, t) in &counted[1..] {
                        if ids.is_empty() {
                            break;
                        }
                        // Fetching ids is cheaper per row than checking each survivor, up to a
                        // point: a very common word (a letter) is checked instead.
                        match lookup.word_ids(conn, t, in_url, 4 * lookup.cap())? {
                            Some(other) => ids.retain(|id| other.contains(id)),
                            None => unchecked.push(t),
                        }
                    }
                    lookup.by_ids(conn, &ids, &unchecked, in_url)?
                }
            };
            for (url, title, date) in best {
                history_row(url, title, date);
            }
        }
    }

    let key_range = (!key.is_empty()).then(|| Prefix::new(&key)).flatten();
    for (url, title, added, date) in bookmarks(conn, key_range.as_ref(), &term_ranges, single, container)? {
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

/// What drives a history lookup: a prefix of the URL as typed, or of a title word.
#[derive(Clone, Copy)]
enum Driver<'a> {
    Url(&'a Prefix),
    /// A word prefix in the title, or (`true`) in the title or the URL.
    Words(&'a Prefix, bool),
}

/// One suggest call's history lookups: which container, how many rows each must return.
struct Lookup<'a> {
    container: Option<&'a str>,
    fetch: usize,
    /// A driving prefix with at least this many rows is common (see the module doc): walking
    /// the frecency index costs about `fetch * rows / count`, sorting the range about `count`,
    /// and the two are equal at `sqrt(fetch * rows)`.
    common: usize,
    /// How many of the best rows the window holds: enough that a prefix just past `common`
    /// still fills the answer with room to spare.
    window: usize,
    rows: usize,
}

impl<'a> Lookup<'a> {
    fn new(conn: &Connection, container: Option<&'a str>, fetch: usize) -> Result<Lookup<'a>, Error> {
        // The largest id bounds the row count, in O(log n).
        let rows: Option<i64> = conn.query_row("SELECT max(id) FROM places", [], |r| r.get(0))?;
        let rows = rows.unwrap_or(0).max(0) as usize;
        let common = ((fetch as f64 * rows as f64).sqrt() as usize).clamp(256, 100_000);
        Ok(Lookup {
            container,
            fetch,
            common,
            window: 4 * common,
            rows,
        })
    }

    /// Counts stop here: enough to tell common from rare and to compare words.
    fn cap(&self) -> usize {
        8 * self.common
    }

    /// Rows the driving prefix alone matches, counted up to [`Lookup::cap`] (an index-only scan).
    fn count(&self, conn: &Connection, driver: Driver<'_>) -> Result<usize, Error> {
        let mut q = Query::default();
        match driver {
            Driver::Url(k) => {
                q.push("SELECT 1 FROM places WHERE ");
                if let Some(c) = self.container {
                    q.push("container = ").bind(c.to_owned()).push(" AND ");
                }
                q.range("url_key", k);
            }
            Driver::Words(w, false) => {
                q.push("SELECT 1 FROM place_words WHERE ").range("word", w);
            }
            Driver::Words(w, true) => {
                // Title and URL words of one page are counted twice: an upper bound.
                q.push("SELECT 1 FROM place_words WHERE ").range("word", w);
                q.push(" UNION ALL SELECT 1 FROM place_url_words WHERE ")
                    .range("word", w);
            }
        }
        let sql = format!("SELECT count(*) FROM ({} LIMIT {})", q.sql, self.cap());
        let n: i64 = conn
            .prepare_cached(&sql)?
            .query_row(params_from_iter(q.values), |r| r.get(0))?;
        Ok(n as usize)
    }

    /// The window (see the module doc): the best `fetch` pages among the `window` best of the
    /// container that match the driver and every other word, or `None` if the window holds
    /// fewer than `fetch` of them and there are pages outside it.
    ///
    /// Every query here picks ids from an index that holds everything its filter and order need
    /// (`k` is that narrow row: id, container, frecency, url_key); only the picked rows are
    /// then read from the table.
    fn window(
        &self,
        conn: &Connection,
        driver: Driver<'_>,
        others: &[&Prefix],
    ) -> Result<Option<Vec<Row>>, Error> {
        let mut q = Query::default();
        q.push("SELECT k.id, k.frecency FROM (SELECT id, frecency, url_key FROM places ");
        match self.container {
            Some(c) => {
                q.push("INDEXED BY places_container_frecency WHERE container = ")
                    .bind(c.to_owned());
            }
            None => {
                q.push("INDEXED BY places_frecency");
            }
        }
        q.push(" ORDER BY frecency DESC LIMIT ")
            .bind(clamp_i64(self.window))
            .push(") k WHERE ");
        let in_url = match driver {
            Driver::Url(k) => {
                q.range("k.url_key", k);
                false
            }
            Driver::Words(w, in_url) => {
                q.push("(EXISTS (SELECT 1 FROM place_words w WHERE w.place_id = k.id AND ")
                    .range("w.word", w);
                if in_url {
                    q.push(") OR EXISTS (SELECT 1 FROM place_url_words u WHERE u.place_id = k.id AND ")
                        .range("u.word", w);
                }
                q.push("))");
                in_url
            }
        };
        q.other_terms(&PLACES, "k", others, in_url);
        let found = rows(conn, q, self.fetch)?;
        Ok((found.len() >= self.fetch || self.rows <= self.window).then_some(found))
    }

    /// The best `fetch` pages of the container whose URL starts with `key`.
    fn by_url(&self, conn: &Connection, key: &Prefix) -> Result<Vec<Row>, Error> {
        let mut q = Query::default();
        q.push("SELECT k.id, k.frecency FROM places k ");
        match self.container {
            Some(c) => q
                .push("INDEXED BY places_container_key WHERE k.container = ")
                .bind(c.to_owned())
                .push(" AND "),
            None => q.push("INDEXED BY places_key WHERE "),
        };
        q.range("k.url_key", key);
        rows(conn, q, self.fetch)
    }

    /// Ids of pages with a word starting with `w` in the title (or, `in_url`, in the URL);
    /// `None` if there are more than `most` index entries.
    fn word_ids(
        &self,
        conn: &Connection,
        w: &Prefix,
        in_url: bool,
        most: usize,
    ) -> Result<Option<HashSet<i64>>, Error> {
        let mut q = Query::default();
        q.push("SELECT place_id FROM place_words WHERE ").range("word", w);
        if in_url {
            q.push(" UNION ALL SELECT place_id FROM place_url_words WHERE ")
                .range("word", w);
        }
        q.push(" LIMIT ").bind(clamp_i64(most.saturating_add(1)));
        let mut stmt = conn.prepare_cached(&q.sql)?;
        let mut rows = stmt.query(params_from_iter(q.values))?;
        let mut ids = HashSet::new();
        let mut entries = 0usize;
        while let Some(row) = rows.next()? {
            entries += 1;
            if entries > most {
                return Ok(None);
            }
            ids.insert(row.get::<_, i64>(0)?);
        }
        Ok(Some(ids))
    }

    /// The best `fetch` of the container among `ids`, also having every word of `others`.
    fn by_ids(
        &self,
        conn: &Connection,
        ids: &HashSet<i64>,
        others: &[&Prefix],
        in_url: bool,
    ) -> Result<Vec<Row>, Error> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list = format!(
            "[{}]",
            ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
        );
        let mut q = Query::default();
        q.push("SELECT k.id, k.frecency FROM places k INDEXED BY places_rank WHERE ");
        if let Some(c) = self.container {
            q.push("k.container = ").bind(c.to_owned()).push(" AND ");
        }
        q.push("k.id IN (SELECT value FROM json_each(")
            .bind(list)
            .push("))");
        q.other_terms(&PLACES, "k", others, in_url);
        rows(conn, q, self.fetch)
    }
}

/// Runs an id-picking query (`SELECT k.id, k.frecency ... WHERE ...`), keeping the best
/// `fetch` by frecency, and reads those rows' URL and title.
fn rows(conn: &Connection, mut q: Query, fetch: usize) -> Result<Vec<Row>, Error> {
    q.push(" ORDER BY k.frecency DESC LIMIT ").bind(clamp_i64(fetch));
    q.sql = format!(
        "SELECT p.url, p.title, k.frecency FROM ({}) k CROSS JOIN places p ON p.id = k.id ORDER BY k.frecency DESC",
        q.sql
    );
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
    single: bool,
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
    if single {
        // Every word at the start of a title word.
        if let Some((first, rest)) = terms.split_first() {
            let rest: Vec<&Prefix> = rest.iter().collect();
            q.push(" OR (b.id IN (SELECT bookmark_id FROM bookmark_words WHERE ")
                .range("word", first)
                .push(")")
                .other_terms(&BOOKMARKS, "b", &rest, false)
                .push(")");
        }
    } else if !terms.is_empty() {
        // Every word at the start of a title or URL word: containing each is a superset the
        // query can test (bookmarks are few: a scan); the words are checked below.
        q.push(" OR (1");
        for t in terms {
            q.push(" AND (instr(lower(b.title), ")
                .bind(t.lo.clone())
                .push(") > 0 OR instr(b.url_key, ");
            q.bind(t.lo.clone()).push(") > 0)");
        }
        q.push(")");
    }
    q.push(") ORDER BY b.added_at DESC LIMIT ")
        .bind(MAX_BOOKMARK_MATCHES);
    let mut stmt = conn.prepare_cached(&q.sql)?;
    let rows = stmt.query_map(params_from_iter(q.values), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    let mut rows = rows.collect::<Result<Vec<BookmarkRow>, _>>()?;
    if !single {
        rows.retain(|(url, title, ..)| {
            let mut found = words(title);
            found.extend(url_words(url));
            terms.iter().all(|t| found.iter().any(|w| w.starts_with(&t.lo)))
        });
    }
    Ok(rows)
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
