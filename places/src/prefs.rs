//! Per-site preferences: for now the zoom level a site was last left at.

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;

/// Chromium's zoom range, in percent.
pub const MIN_ZOOM: f64 = 25.0;
pub const MAX_ZOOM: f64 = 500.0;

/// Sites are compared without case (hosts are case-insensitive).
pub(crate) fn site_key(site: &str) -> String {
    site.trim().to_lowercase()
}

pub(crate) fn check_zoom(zoom: Option<f64>) -> Result<(), Error> {
    match zoom {
        Some(z) if !(MIN_ZOOM..=MAX_ZOOM).contains(&z) => Err(Error::InvalidZoom(z)),
        _ => Ok(()),
    }
}

pub(crate) fn zoom_for(conn: &Connection, site: &str) -> Result<Option<f64>, Error> {
    Ok(conn
        .prepare_cached("SELECT zoom FROM site_prefs WHERE site = ?1")?
        .query_row([site_key(site)], |r| r.get::<_, Option<f64>>(0))
        .optional()?
        .flatten())
}

pub(crate) fn set_zoom(conn: &Connection, site: &str, zoom: Option<f64>) -> Result<(), Error> {
    let site = site_key(site);
    match zoom {
        Some(z) => conn
            .prepare_cached(
                "INSERT INTO site_prefs (site, zoom) VALUES (?1, ?2) ON CONFLICT (site) DO UPDATE SET zoom = ?2",
            )?
            .execute(params![site, z])?,
        // The only preference so far: no zoom means no row.
        None => conn.prepare_cached("DELETE FROM site_prefs WHERE site = ?1")?.execute([site])?,
    };
    Ok(())
}
