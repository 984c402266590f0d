//! Page icons, so a tab restored without loading its page, a history row and a bookmark show
//! the icon the page had. One row per page URL; a site's newest icon is found by its host
//! (for rows of pages whose own icon was never seen). Icons are history: clearing history clears the icons of
//! pages it no longer has.

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;

/// Icons larger than this (in pixels per side) are not kept: a favicon is drawn at 16 px.
pub const MAX_SIDE: u32 = 256;

/// A page's icon: `width * height` RGBA pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Favicon {
    /// Where the page said its icon is.
    pub icon_url: String,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Favicon {
    pub(crate) fn check(&self) -> Result<(), Error> {
        let ok = (1..=MAX_SIDE).contains(&self.width)
            && (1..=MAX_SIDE).contains(&self.height)
            && self.rgba.len() == (self.width as usize) * (self.height as usize) * 4;
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidFavicon {
                width: self.width,
                height: self.height,
                bytes: self.rgba.len(),
            })
        }
    }
}

/// The authority of a URL (`host[:port]`, lower case), the key its site's icon is found by.
pub fn host_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    // Credentials are never part of the key.
    authority.rsplit('@').next().unwrap_or(authority).to_lowercase()
}

pub(crate) fn set(conn: &Connection, page_url: &str, icon: &Favicon, at_ms: i64) -> Result<(), Error> {
    conn.prepare_cached(
        "INSERT INTO favicons (page_url, host, icon_url, width, height, rgba, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (page_url) DO UPDATE SET host = ?2, icon_url = ?3, width = ?4, height = ?5,
             rgba = ?6, updated_at = ?7",
    )?
    .execute(params![
        page_url,
        host_key(page_url),
        icon.icon_url,
        icon.width,
        icon.height,
        icon.rgba,
        at_ms
    ])?;
    Ok(())
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Favicon> {
    Ok(Favicon {
        icon_url: r.get(0)?,
        width: r.get(1)?,
        height: r.get(2)?,
        rgba: r.get(3)?,
    })
}

/// The icon kept for `page_url`.
pub(crate) fn for_page(conn: &Connection, page_url: &str) -> Result<Option<Favicon>, Error> {
    Ok(conn
        .prepare_cached("SELECT icon_url, width, height, rgba FROM favicons WHERE page_url = ?1")?
        .query_row([page_url], row)
        .optional()?)
}

/// The newest icon seen on `host` (a [`host_key`]).
pub(crate) fn for_host(conn: &Connection, host: &str) -> Result<Option<Favicon>, Error> {
    Ok(conn
        .prepare_cached(
            "SELECT icon_url, width, height, rgba FROM favicons WHERE host = ?1
             ORDER BY updated_at DESC LIMIT 1",
        )?
        .query_row([host.to_lowercase()], row)
        .optional()?)
}

/// Forgets the icons of pages history no longer has (after history was cleared) and of
/// pages whose icon was seen from `from_ms` on (a cleared time range).
pub(crate) fn prune(conn: &Connection, from_ms: Option<i64>) -> Result<usize, Error> {
    let mut n = conn.execute(
        "DELETE FROM favicons WHERE page_url NOT IN (SELECT url FROM places)
             AND page_url NOT IN (SELECT url FROM bookmarks WHERE url IS NOT NULL)",
        [],
    )?;
    if let Some(from) = from_ms {
        n += conn.execute(
            "DELETE FROM favicons WHERE updated_at >= ?1
                 AND page_url NOT IN (SELECT url FROM bookmarks WHERE url IS NOT NULL)",
            [from],
        )?;
    }
    Ok(n)
}
