//! Autofill for the human: the vault's logins for the page in front are offered by the
//! omnibox key (`aperture_ui` draws it), and the one the human picks is typed into the page's
//! sign-in form by the browser with trusted input. The human asked, so no consent sheet; a
//! private tab is offered nothing (its key does not show) so a private session never suggests
//! the vault's contents.

use std::sync::Arc;
use std::time::{Duration, Instant};

use aperture_mcp::backend::TabId;
use aperture_ui::LoginOffer;

use crate::browser::Handle;
use crate::vault::VaultWiring;

/// How long the offers for one page are reused before the vault is asked again (it may have
/// been unlocked, locked or edited meanwhile).
const FRESH: Duration = Duration::from_secs(2);

/// The window's autofill: offers for the tab in front, and fills the human picks.
pub struct Autofill {
    wiring: Arc<VaultWiring>,
    cache: Option<(TabId, String, Instant, Vec<LoginOffer>)>,
}

impl Autofill {
    pub fn new(wiring: Arc<VaultWiring>) -> Autofill {
        Autofill { wiring, cache: None }
    }

    /// The logins to offer for tab `id` showing `url`; none in a private tab.
    pub fn offers(&mut self, id: TabId, url: &str, private: bool) -> Vec<LoginOffer> {
        if private {
            return Vec::new();
        }
        if let Some((t, u, at, offers)) = &self.cache
            && *t == id
            && u == url
            && at.elapsed() < FRESH
        {
            return offers.clone();
        }
        let offers = self.wiring.human_offers(url);
        self.cache = Some((id, url.to_owned(), Instant::now(), offers.clone()));
        offers
    }

    /// Fills login `entry` into tab `id`'s sign-in form, off the UI thread; a failure is said
    /// in the window's notice bar.
    pub fn fill(&self, rt: &tokio::runtime::Handle, h: Handle, id: TabId, entry: String) {
        let wiring = self.wiring.clone();
        rt.spawn(async move {
            if let Err(e) = wiring.fill_for_human(&h, id, &entry).await {
                let n = format!("Could not fill the saved login: {e}");
                tracing::warn!("{n}");
                let _ = h.on_ui(move |a| a.with(|st| st.notices.push(n))).await;
            }
        });
    }
}
