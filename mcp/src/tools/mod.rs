//! The tool surface: one file per tool, its argument schema beside its handler.
//!
//! Kept small on purpose (at most 14 tools): every listed tool costs schema tokens in every
//! session, so related operations share a tool behind an `action` discriminator. The vault's
//! three tools (`vault_entries_for_origin`, `vault_request_fill`, `browser_profile`) are the
//! whole of its agent surface: there is deliberately no tool that returns a secret.

use rmcp::handler::server::router::tool::ToolRouter;

use crate::server::Aperture;

mod act;
mod capture;
mod console;
mod container;
mod fill_form;
mod navigate;
mod profile;
mod read;
mod schema;
mod snapshot;
mod tabs;
mod theme;
mod vault_entries;
mod vault_fill;

/// Upper bound on the number of tools, vault tools included.
pub const MAX_TOOLS: usize = 14;

/// Every tool this crate serves.
pub(crate) fn router() -> ToolRouter<Aperture> {
    Aperture::tabs_router()
        + Aperture::navigate_router()
        + Aperture::snapshot_router()
        + Aperture::read_router()
        + Aperture::act_router()
        + Aperture::fill_form_router()
        + Aperture::capture_router()
        + Aperture::console_router()
        + Aperture::theme_router()
        + Aperture::container_router()
        + Aperture::vault_entries_router()
        + Aperture::vault_fill_router()
        + Aperture::profile_router()
}
