//! History writes and the history view's queries. Every function takes the connection it runs
//! on: writes run on the writer thread inside its transaction, reads on the read connection.

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use crate::text::{clean_title, fold, recordable, url_key, url_words, words};
use crate::{Error, frecency};

/// One visit in the history view.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    pub id: VisitId,
    pub container: String,
    pub url: String,
    /// The page's latest title (empty until one arrived).
    pub title: String,
    pub visited_at_ms: i64,
    pub typed: bool,
}

/// A visit's id, for [`crate::Places::delete_visit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VisitId(pub i64);

/// Titles longer than this are cut (some pages put whole paragraphs in `<title>`).
const MAX_TITLE_CHARS: usize = 1024;

pub(crate) fn record_visit(
    conn: &Connection,
    container: &str,
    url: &str,
    typed: bool,
    at_ms: i64,
) -> Result<(), Error> {
    if !recordable(url) {
        tracing::debug!(url_len = url.len(), "navigation not recorded in history");
        return Ok(());
    }
    let visit = frecency::visit(at_ms, frecency::weight(typed));
    let existing: Option<(i64, f64)> = conn
        .prepare_cached("SELECT id, frecency FROM places WHERE url = ?1 AND container = ?2")?
        .query_row(params![url, container], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let place_id = match existing {
        Some((id, date)) => {
            conn.prepare_cached(
                "UPDATE places SET visit_count = visit_count + 1, typed_count = typed_count + ?2,
                 last_visit = max(last_visit, ?3), frecency = ?4 WHERE id = ?1",
            )?
            .execute(params![id, typed, at_ms, frecency::add(date, visit)])?;
            id
        }
        None => {
            conn.prepare_cached(
                "INSERT INTO places (url, container, url_key, fold, visit_count, typed_count,
                 last_visit, frecency) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7)",
            )?
            .execute(params![
                url,
                container,
                url_key(url),
                fold(url, ""),
                typed,
                at_ms,
                visit
            ])?;
            let id = conn.last_insert_rowid();
            index_url_words(conn, id, url)?;
            id
        }
    };
    conn.prepare_cached("INSERT INTO visits (place_id, visited_at, typed) VALUES (?1, ?2, ?3)")?
        .execute(params![place_id, at_ms, typed])?;
    Ok(())
}

/// Sets the title of a page already in this container's history; a title for a page that was
/// never recorded (a private container's, a refused URL) is ignored.
pub(crate) fn set_title(conn: &Connection, container: &str, url: &str, title: &str) -> Result<bool, Error> {
    let title: String = clean_title(title).chars().take(MAX_TITLE_CHARS).collect();
    let row: Option<(i64, String)> = conn
        .prepare_cached("SELECT id, title FROM places WHERE url = ?1 AND container = ?2")?
        .query_row(params![url, container], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((id, old)) = row else { return Ok(false) };
    if old == title {
        return Ok(true);
    }
    conn.prepare_cached("UPDATE places SET title = ?2, fold = ?3 WHERE id = ?1")?
        .execute(params![id, title, fold(url, &title)])?;
    index_words(conn, "place_words", "place_id", id, &title)?;
    Ok(true)
}

/// Replaces the word index rows of one place or bookmark.
pub(crate) fn index_words(
    conn: &Connection,
    table: &str,
    fk: &str,
    id: i64,
    title: &str,
) -> Result<(), Error> {
    conn.prepare_cached(&format!("DELETE FROM {table} WHERE {fk} = ?1"))?
        .execute([id])?;
    let mut insert = conn.prepare_cached(&format!(
        "INSERT OR IGNORE INTO {table} (word, {fk}) VALUES (?1, ?2)"
    ))?;
    for word in words(title) {
        insert.execute(params![word, id])?;
    }
    Ok(())
}

/// Indexes the words of a new place's URL (a URL never changes, so neither do they).
pub(crate) fn index_url_words(conn: &Connection, id: i64, url: &str) -> Result<(), Error> {
    let mut insert =
        conn.prepare_cached("INSERT OR IGNORE INTO place_url_words (word, place_id) VALUES (?1, ?2)")?;
    for word in url_words(url) {
        insert.execute(params![word, id])?;
    }
    Ok(())
}

/// Recomputes a place's aggregate from its remaining visits, or deletes it if none remain.
fn recompute(conn: &Connection, place_id: i64) -> Result<(), Error> {
    let mut stmt = conn.prepare_cached("SELECT visited_at, typed FROM visits WHERE place_id = ?1")?;
    let visits = stmt
        .query_map([place_id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, bool>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    if visits.is_empty() {
        conn.prepare_cached("DELETE FROM places WHERE id = ?1")?
            .execute([place_id])?;
        return Ok(());
    }
    let date = visits
        .iter()
        .map(|&(at, typed)| frecency::visit(at, frecency::weight(typed)))
        .reduce(frecency::add)
        .unwrap_or(0.0);
    let typed = visits.iter().filter(|v| v.1).count() as i64;
    let last = visits.iter().map(|v| v.0).max().unwrap_or(0);
    conn.prepare_cached(
        "UPDATE places SET visit_count = ?2, typed_count = ?3, last_visit = ?4, frecency = ?5 WHERE id = ?1",
    )?
    .execute(params![place_id, visits.len() as i64, typed, last, date])?;
    Ok(())
}

pub(crate) fn delete_visit(conn: &Connection, id: VisitId) -> Result<bool, Error> {
    let place: Option<i64> = conn
        .query_row("SELECT place_id FROM visits WHERE id = ?1", [id.0], |r| r.get(0))
        .optional()?;
    let Some(place) = place else { return Ok(false) };
    conn.execute("DELETE FROM visits WHERE id = ?1", [id.0])?;
    recompute(conn, place)?;
    Ok(true)
}

/// Forgets a URL in every container. Returns the number of visits removed.
pub(crate) fn delete_url(conn: &Connection, url: &str) -> Result<usize, Error> {
    let visits: i64 = conn.query_row(
        "SELECT count(*) FROM visits WHERE place_id IN (SELECT id FROM places WHERE url = ?1)",
        [url],
        |r| r.get(0),
    )?;
    conn.execute("DELETE FROM places WHERE url = ?1", [url])?;
    Ok(visits as usize)
}

/// Removes visits in `[from_ms, to_ms)`. Returns the number removed.
pub(crate) fn clear_range(
    conn: &Connection,
    container: Option<&str>,
    from_ms: i64,
    to_ms: i64,
) -> Result<usize, Error> {
    let filter = "FROM visits v JOIN places p ON p.id = v.place_id
                  WHERE v.visited_at >= ?1 AND v.visited_at < ?2 AND (?3 IS NULL OR p.container = ?3)";
    let places = conn
        .prepare(&format!("SELECT DISTINCT v.place_id {filter}"))?
        .query_map(params![from_ms, to_ms, container], |r| r.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let removed = conn.execute(
        &format!("DELETE FROM visits WHERE id IN (SELECT v.id {filter})"),
        params![from_ms, to_ms, container],
    )?;
    for place in places {
        recompute(conn, place)?;
    }
    Ok(removed)
}

/// Removes all history (of one container, or of all). Returns the number of visits removed.
pub(crate) fn clear_all(conn: &Connection, container: Option<&str>) -> Result<usize, Error> {
    let visits: i64 = conn.query_row(
        "SELECT count(*) FROM visits v JOIN places p ON p.id = v.place_id WHERE ?1 IS NULL OR p.container = ?1",
        [container],
        |r| r.get(0),
    )?;
    conn.execute(
        "DELETE FROM places WHERE ?1 IS NULL OR container = ?1",
        [container],
    )?;
    Ok(visits as usize)
}

/// Visits whose URL or title contains every whitespace-separated term of `query` (ignoring
/// case), newest first. An empty query lists everything.
///
/// Substrings cannot use an index. Matches of a common term are among the latest visits, so
/// the newest `RECENT` visits are tried first; a rarer term reads every page once instead
/// (pages, not visits: fewer rows) and sorts the visits of those that match.
/// A site the human goes to most, for the new-tab page.
#[derive(Debug, Clone, PartialEq)]
pub struct TopSite {
    /// The site's most frecent page.
    pub url: String,
    /// That page's latest title (may be empty).
    pub title: String,
}

/// The `limit` sites of `container` with the most frecent pages, best first, one page per
/// site (`host[:port]`), web pages only. Walks the frecency index from the top and stops once
/// enough sites are found (or after a few hundred pages: a history of one site's pages).
pub(crate) fn top_sites(conn: &Connection, container: &str, limit: usize) -> Result<Vec<TopSite>, Error> {
    const SCAN: i64 = 400;
    // The sites the human took off the page count as seen already.
    let mut seen: std::collections::HashSet<String> = conn
        .prepare_cached("SELECT host FROM hidden_sites WHERE container = ?1")?
        .query_map([container], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT url, title FROM places WHERE container = ?1 AND visit_count > 0
         ORDER BY frecency DESC LIMIT ?2",
    )?;
    let mut rows = stmt.query(params![container, SCAN])?;
    let mut out: Vec<TopSite> = Vec::new();
    while let Some(r) = rows.next()? {
        let (url, title): (String, String) = (r.get(0)?, r.get(1)?);
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            continue;
        }
        if seen.insert(crate::favicons::host_key(&url)) {
            out.push(TopSite { url, title });
            if out.len() >= limit {
                break;
            }
        }
    }
    Ok(out)
}

/// Puts sites the human took off `container`'s new-tab page back: `url`'s, or all of them.
/// Answers how many came back.
pub(crate) fn unhide_sites(conn: &Connection, container: &str, url: Option<&str>) -> Result<usize, Error> {
    Ok(match url {
        Some(u) => conn
            .prepare_cached("DELETE FROM hidden_sites WHERE container = ?1 AND host = ?2")?
            .execute(params![container, crate::favicons::host_key(u)])?,
        None => conn
            .prepare_cached("DELETE FROM hidden_sites WHERE container = ?1")?
            .execute([container])?,
    })
}

/// Takes `url`'s site off `container`'s new-tab page for good (its history stays).
pub(crate) fn hide_site(conn: &Connection, container: &str, url: &str) -> Result<(), Error> {
    conn.prepare_cached("INSERT OR IGNORE INTO hidden_sites (container, host) VALUES (?1, ?2)")?
        .execute(params![container, crate::favicons::host_key(url)])?;
    Ok(())
}

pub(crate) fn search(
    conn: &Connection,
    query: &str,
    container: Option<&str>,
    limit: usize,
    offset: usize,
) -> Result<Vec<HistoryEntry>, Error> {
    const RECENT: i64 = 5000;
    let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let wanted = limit.saturating_add(offset);
    let recent = format!("(SELECT * FROM visits ORDER BY visited_at DESC, id DESC LIMIT {RECENT})");
    if terms.is_empty() {
        return search_in(conn, "visits", &terms, container, limit, offset);
    }
    let found = search_in(conn, &recent, &terms, container, wanted, 0)?;
    let total: i64 = conn.query_row(
        "SELECT count(*) FROM (SELECT 1 FROM visits LIMIT ?1)",
        [RECENT + 1],
        |r| r.get(0),
    )?;
    if found.len() >= wanted || total <= RECENT {
        return Ok(found.into_iter().skip(offset).take(limit).collect());
    }
    search_in(conn, "places", &terms, container, limit, offset)
}

/// One search query: `from` is `visits` (or a subquery of the latest of them) walked by time,
/// or `places`, filtered first and joined to their visits.
fn search_in(
    conn: &Connection,
    from: &str,
    terms: &[String],
    container: Option<&str>,
    limit: usize,
    offset: usize,
) -> Result<Vec<HistoryEntry>, Error> {
    let mut sql = if from == "places" {
        String::from(
            "SELECT v.id, p.container, p.url, p.title, v.visited_at, v.typed
             FROM places p CROSS JOIN visits v ON v.place_id = p.id WHERE 1",
        )
    } else {
        format!(
            "SELECT v.id, p.container, p.url, p.title, v.visited_at, v.typed
             FROM {from} v CROSS JOIN places p ON p.id = v.place_id WHERE 1"
        )
    };
    let mut values: Vec<Value> = Vec::new();
    if let Some(c) = container {
        values.push(Value::Text(c.to_owned()));
        sql.push_str(&format!(" AND p.container = ?{}", values.len()));
    }
    for term in terms {
        values.push(Value::Text(term.clone()));
        sql.push_str(&format!(" AND instr(p.fold, ?{}) > 0", values.len()));
    }
    values.push(Value::Integer(clamp_i64(limit)));
    values.push(Value::Integer(clamp_i64(offset)));
    sql.push_str(&format!(
        " ORDER BY v.visited_at DESC, v.id DESC LIMIT ?{} OFFSET ?{}",
        values.len() - 1,
        values.len()
    ));
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(values), |r| {
        Ok(HistoryEntry {
            id: VisitId(r.get(0)?),
            container: r.get(1)?,
            url: r.get(2)?,
            title: r.get(3)?,
            visited_at_ms: r.get(4)?,
            typed: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

pub(crate) fn clamp_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
