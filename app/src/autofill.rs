//! Autofill for the human: the vault's logins for the page in front are offered by the
//! omnibox key (`aperture_ui` draws it), and the one the human picks is typed into the page's
//! sign-in form by the browser with trusted input. The human asked, so no consent sheet; a
//! private tab is offered nothing (its key does not show) so a private session never suggests
//! the vault's contents.
//!
//! After a sign-in: when the human presses Enter or clicks in a page, the page's walker is
//! asked (before the input is sent, so the old document still answers) for the password the
//! form holds and the username before it; a login the unlocked vault does not hold is offered
//! for saving ("Save the password for …?"), one whose password changed for updating. The
//! values stay in this process, wiped when the offer goes. Not in private tabs, not in tabs
//! the agent drives, and not while the vault is locked (it cannot say what is new).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aperture_ui::SaveLoginView;
use zeroize::Zeroizing;

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
    /// The same for the site a sign-in sheet (HTTP authentication) asks for.
    sign_in_cache: Option<(TabId, String, Instant, Vec<LoginOffer>)>,
    /// The login offered for saving, filled in by a probe task.
    offer: Arc<Mutex<Option<SaveOffer>>>,
    next: Arc<AtomicU64>,
}

/// The vault's offers for `url` in tab `id`, from `cache` while fresh (the window asks every
/// frame; the vault is another process).
fn offers_cached(
    wiring: &VaultWiring,
    cache: &mut Option<(TabId, String, Instant, Vec<LoginOffer>)>,
    id: TabId,
    url: &str,
    private: bool,
) -> Vec<LoginOffer> {
    if private {
        return Vec::new();
    }
    if let Some((t, u, at, offers)) = cache.as_ref()
        && *t == id
        && u == url
        && at.elapsed() < FRESH
    {
        return offers.clone();
    }
    let offers = wiring.human_offers(url);
    *cache = Some((id, url.to_owned(), Instant::now(), offers.clone()));
    offers
}

/// A submitted login the vault does not hold yet.
struct SaveOffer {
    id: u64,
    url: String,
    host: String,
    username: String,
    password: Zeroizing<String>,
    update: Option<aperture_vault::EntryId>,
}

impl Autofill {
    pub fn new(wiring: Arc<VaultWiring>) -> Autofill {
        Autofill {
            wiring,
            cache: None,
            sign_in_cache: None,
            offer: Arc::default(),
            next: Arc::new(AtomicU64::new(1)),
        }
    }

    /// The logins to offer for tab `id` showing `url`; none in a private tab.
    pub fn offers(&mut self, id: TabId, url: &str, private: bool) -> Vec<LoginOffer> {
        offers_cached(&self.wiring, &mut self.cache, id, url, private)
    }

    /// The logins to offer on tab `id`'s sign-in sheet for the site at `url` (the request the
    /// server challenged); none in a private tab.
    pub fn sign_in_offers(&mut self, id: TabId, url: &str, private: bool) -> Vec<LoginOffer> {
        offers_cached(&self.wiring, &mut self.sign_in_cache, id, url, private)
    }

    /// The human picked saved login `entry` on sign-in sheet `dialog` of tab `id`.
    pub fn sign_in(&self, rt: &tokio::runtime::Handle, h: Handle, id: TabId, dialog: u64, entry: String) {
        let wiring = self.wiring.clone();
        rt.spawn(async move {
            if let Err(e) = wiring.sign_in_for_human(&h, id, dialog, &entry).await {
                let n = format!("Could not sign in with the saved login: {e}");
                tracing::warn!("{n}");
                let _ = h.on_ui(move |a| a.with(|st| st.notices.push(n))).await;
            }
        });
    }

    /// The human pressed Enter or clicked in tab `id` (showing `url`): if the page holds a
    /// password the vault does not have, offer to save it. Call before the input goes to the
    /// page.
    pub fn probe(&self, rt: &tokio::runtime::Handle, h: Handle, id: TabId, url: &str) {
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return;
        }
        let (wiring, offer, next, url) = (
            self.wiring.clone(),
            self.offer.clone(),
            self.next.clone(),
            url.to_owned(),
        );
        rt.spawn(async move {
            let Ok(v) = crate::tab::Tab::new(&h, id).login_values().await else {
                return;
            };
            let Some(password) = v.password.map(Zeroizing::new).filter(|p| !p.is_empty()) else {
                return;
            };
            let username = v.username.unwrap_or_default();
            let Some(update) = wiring.login_status(&url, &username, &password) else {
                return;
            };
            let host = url::Url::parse(&url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default();
            *offer.lock().unwrap_or_else(|e| e.into_inner()) = Some(SaveOffer {
                id: next.fetch_add(1, Ordering::Relaxed),
                url,
                host,
                username,
                password,
                update,
            });
            // Wakes the window, which then shows the offer.
            let _ = h.on_ui(|_| ()).await;
        });
    }

    /// The offer to show, if any.
    pub fn save_offer(&self) -> Option<SaveLoginView> {
        self.offer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|o| SaveLoginView {
                id: o.id,
                host: o.host.clone(),
                username: o.username.clone(),
                update: o.update.is_some(),
            })
    }

    /// The human's answer to offer `id`; what to tell them, when anything.
    pub fn answer(&self, id: u64, save: bool) -> Option<String> {
        let o = {
            let mut g = self.offer.lock().unwrap_or_else(|e| e.into_inner());
            if g.as_ref().map(|o| o.id) != Some(id) {
                return None;
            }
            g.take()?
        };
        if !save {
            return None;
        }
        Some(
            match self
                .wiring
                .save_login(&o.url, &o.username, &o.password, o.update.as_ref())
            {
                Ok(done) => done,
                Err(e) => format!("The password was not saved: {e}"),
            },
        )
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
