//! Wiring of the `aperture-privacy` crate into CEF: the tracker blocker on the IO thread,
//! phone-home switches at launch, and identity containers as separate request contexts.

use crate::browser::Handle;
use aperture_mcp::backend::TabId;
use aperture_privacy::{Blocker, ContainerId, ContainerRegistry, ListSet, ProvisionOptions, ResourceType};
use aperture_ui::settings::BlockingSettings;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::oneshot;

/// Chromium switches from the privacy crate (phone-home off, WebRTC IP policy), as
/// `(name, value)` pairs for `on_before_command_line_processing`.
pub fn switches() -> Vec<(String, Option<String>)> {
    aperture_privacy::switches::chromium_switch_args()
        .into_iter()
        .map(|a| {
            let a = a.trim_start_matches("--").to_string();
            match a.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (a, None),
            }
        })
        .collect()
}

/// The tracker blocker on CEF's IO thread, with per-tab counts of what it blocked and the
/// human's per-site exceptions.
pub struct BlockFilter {
    blocker: Blocker,
    blocked: Mutex<HashMap<TabId, u64>>,
    /// Blocking on or off, and the sites that differ (the settings' `blocking`).
    rules: RwLock<BlockingSettings>,
    /// Each tab's top-level site: an exception is for the site the human sees in the omnibox,
    /// so a page's third-party frames and requests follow it.
    top: Mutex<HashMap<TabId, String>>,
}

impl BlockFilter {
    fn new(blocker: Blocker) -> BlockFilter {
        BlockFilter {
            blocker,
            blocked: Mutex::new(HashMap::new()),
            rules: RwLock::new(BlockingSettings::default()),
            top: Mutex::new(HashMap::new()),
        }
    }

    /// Requests blocked in a tab so far.
    pub fn blocked(&self, tab: TabId) -> u64 {
        self.blocked
            .lock()
            .map(|m| m.get(&tab).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Uses the human's blocking choices from the next request on.
    pub fn set_rules(&self, rules: &BlockingSettings) {
        *self.rules.write().unwrap_or_else(|e| e.into_inner()) = rules.clone();
    }

    /// The tab's page is now at `url` (its main-frame request, or the address it committed).
    pub fn note_top_level(&self, tab: TabId, url: &str) {
        let mut top = self.top.lock().unwrap_or_else(|e| e.into_inner());
        match aperture_ui::dark::site_key(url) {
            Some(site) => {
                top.insert(tab, site);
            }
            None => {
                top.remove(&tab);
            }
        }
    }

    /// Whether a request of `tab` (or, without one, from `referrer`) is checked against the
    /// lists: by the rules for the tab's top-level site.
    fn blocks_for(&self, tab: Option<TabId>, referrer: &str) -> bool {
        let site = tab
            .and_then(|t| {
                self.top
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&t)
                    .cloned()
            })
            .or_else(|| aperture_ui::dark::site_key(referrer));
        let rules = self.rules.read().unwrap_or_else(|e| e.into_inner());
        match site {
            Some(s) => rules.blocks_on(&s),
            None => rules.enabled,
        }
    }
}

impl cef::ResourceFilter for BlockFilter {
    fn should_block(
        &self,
        tab: Option<cef::BrowserId>,
        url: &str,
        referrer: &str,
        kind: cef::ResourceType,
    ) -> bool {
        let tab = tab.map(crate::browser::tab_id);
        if let (Some(t), cef::ResourceType::MainFrame) = (tab, kind) {
            // Before any request of the new document, which the new site's rules then govern.
            self.note_top_level(t, url);
        }
        if !self.blocks_for(tab, referrer) {
            return false;
        }
        let block = self
            .blocker
            .check(url, referrer, resource_type(kind))
            .is_blocked();
        if block && let Some(t) = tab {
            *self.blocked.lock().expect("blocked").entry(t).or_default() += 1;
        }
        block
    }
}

/// CEF's request kinds in the privacy crate's words (it knows nothing of CEF).
fn resource_type(k: cef::ResourceType) -> ResourceType {
    use cef::ResourceType as C;
    match k {
        C::MainFrame => ResourceType::MainFrame,
        C::SubFrame => ResourceType::SubFrame,
        C::Stylesheet => ResourceType::Stylesheet,
        C::Script => ResourceType::Script,
        C::Image => ResourceType::Image,
        C::Font => ResourceType::Font,
        C::SubResource => ResourceType::SubResource,
        C::Object => ResourceType::Object,
        C::Media => ResourceType::Media,
        C::Worker => ResourceType::Worker,
        C::SharedWorker => ResourceType::SharedWorker,
        C::Prefetch => ResourceType::Prefetch,
        C::Favicon => ResourceType::Favicon,
        C::Xhr => ResourceType::Xhr,
        C::Ping => ResourceType::Ping,
        C::ServiceWorker => ResourceType::ServiceWorker,
        C::CspReport => ResourceType::CspReport,
        C::Plugin => ResourceType::Plugin,
        C::NavigationPreloadMainFrame => ResourceType::NavigationPreloadMainFrame,
        C::NavigationPreloadSubFrame => ResourceType::NavigationPreloadSubFrame,
        C::Other => ResourceType::Other,
    }
}

/// Loads the blocker (compiled engine from disk when its lists are unchanged). Returns it and
/// a one-line status for the log.
pub fn load_blocker(user_lists: &[PathBuf]) -> Result<(Arc<BlockFilter>, String), String> {
    let lists = if user_lists.is_empty() {
        // No apt-get at browser start: provisioning is `cargo xtask provision`'s job.
        ListSet::provision_pinned(&ProvisionOptions::default()).map_err(|e| e.to_string())?
    } else {
        ListSet::from_files(user_lists).map_err(|e| e.to_string())?
    };
    let cache = aperture_privacy::blocking::default_engine_cache_dir().ok_or("no cache directory")?;
    let t = std::time::Instant::now();
    let (blocker, how) = Blocker::load_or_build(&lists, &cache).map_err(|e| e.to_string())?;
    let status = format!("tracker blocking on ({how:?} in {} ms)", t.elapsed().as_millis());
    Ok((Arc::new(BlockFilter::new(blocker)), status))
}

/// The container registry of this profile, and what it says to the human when an unreadable
/// one had to be rebuilt (see [`ContainerRegistry::open_or_recover`]).
pub fn registry(profile: &Path) -> Result<(Arc<Mutex<ContainerRegistry>>, Option<String>), String> {
    let (r, recovered) = ContainerRegistry::open_or_recover(profile).map_err(|e| e.to_string())?;
    let said = recovered.map(|rec| {
        format!(
            "The container list could not be read ({}) and was kept as {}; {} container(s) were \
             rebuilt from their saved data, logins included (their names, colours and site \
             bindings were only in the list)",
            rec.reason,
            rec.moved_to.display(),
            rec.containers
        )
    });
    Ok((Arc::new(Mutex::new(r)), said))
}

/// The private container's key and the name its tabs carry (never a registry id: those are
/// `c-…`). Private tabs keep nothing: no disk storage, no history, no session entry.
pub const PRIVATE: &str = aperture_privacy::PRIVATE_NAME;

/// The profile's containers: the registry on disk and the request contexts made so far.
/// Shared by the window, the agent's backend and the debug script.
#[derive(Clone)]
pub struct Containers {
    pub registry: Arc<Mutex<ContainerRegistry>>,
    ready: Arc<Mutex<HashMap<String, cef::RequestContext>>>,
    h: Handle,
    /// The preferences every context is given as it is made (the settings view changes them).
    prefs: Arc<Mutex<ContextPrefs>>,
}

/// The human's choices every request context carries as Chromium preferences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextPrefs {
    /// The spelling languages with a dictionary on disk (see `crate::spelling`).
    pub spelling: Vec<String>,
    /// "Check spelling as you type".
    pub spell_on: bool,
    /// "Block third-party cookies": frames of other sites keep no cookies (partitioned ones
    /// aside).
    pub block_third_party_cookies: bool,
    /// Origins whose pages may open pop-ups without a click (the human's "Always allow").
    pub popup_origins: Vec<String>,
}

/// Sets the privacy preferences (`aperture_privacy::request_context_preferences`) and the
/// spelling languages in a request context, before any tab uses it. Spellcheck lists only
/// languages whose dictionary is on disk: for any other, Chromium would download one from
/// Google. A preference Chromium refuses is logged, and the rest still apply. UI thread.
pub fn apply_preferences(ctx: &cef::RequestContext, prefs: &ContextPrefs) {
    use aperture_privacy::PrefValue;
    let set = |name: &str, v: cef::Pref<'_>| {
        if let Err(e) = ctx.set_preference(name, v) {
            tracing::warn!(name, error = %e, "Chromium refused a preference");
        }
    };
    for (name, v, _) in aperture_privacy::request_context_preferences() {
        set(
            name,
            match *v {
                PrefValue::Bool(b) => cef::Pref::Bool(b),
                PrefValue::Int(i) => cef::Pref::Int(i),
                PrefValue::Str(t) => cef::Pref::Str(t),
            },
        );
    }
    apply_spelling(ctx, &prefs.spelling, prefs.spell_on);
    apply_cookie_controls(ctx, prefs.block_third_party_cookies);
    for o in &prefs.popup_origins {
        ctx.set_popups_allowed(o, true);
    }
}

/// Blocks third-party cookies in a context, or allows them (`profile.cookie_controls_mode`:
/// 1 blocks them in every tab, 0 in none). UI thread.
pub fn apply_cookie_controls(ctx: &cef::RequestContext, block: bool) {
    if let Err(e) = ctx.set_preference("profile.cookie_controls_mode", cef::Pref::Int(block as i32)) {
        tracing::warn!(error = %e, "Chromium refused the third-party cookie setting");
    }
}

/// Sets a context's spelling languages and whether it checks spelling. UI thread.
pub fn apply_spelling(ctx: &cef::RequestContext, spelling: &[String], spell_on: bool) {
    let set = |name: &str, v: cef::Pref<'_>| {
        if let Err(e) = ctx.set_preference(name, v) {
            tracing::warn!(name, error = %e, "Chromium refused a preference");
        }
    };
    set("spellcheck.dictionaries", cef::Pref::List(spelling));
    set(
        "browser.enable_spellchecking",
        cef::Pref::Bool(spell_on && !spelling.is_empty()),
    );
}

impl Containers {
    pub fn new(registry: Arc<Mutex<ContainerRegistry>>, h: Handle, prefs: ContextPrefs) -> Containers {
        Containers {
            registry,
            ready: Arc::default(),
            h,
            prefs: Arc::new(Mutex::new(prefs)),
        }
    }

    /// The preferences contexts made now get.
    pub fn prefs(&self) -> ContextPrefs {
        self.prefs.lock().expect("prefs").clone()
    }

    /// Changes the preferences for contexts made from now on (the caller sets the existing
    /// ones).
    pub fn update_prefs(&self, f: impl FnOnce(&mut ContextPrefs)) {
        f(&mut self.prefs.lock().expect("prefs"));
    }

    /// Every container context made so far.
    pub fn all_ready(&self) -> Vec<cef::RequestContext> {
        self.ready.lock().expect("ctx").values().cloned().collect()
    }

    /// The request context of a container (created on first use, with its own cache path, and
    /// only handed out once CEF says it is initialized — browsers created earlier come back
    /// NULL).
    ///
    /// `cache_path: None` is the private container: Chromium keeps everything in memory.
    async fn context_for(
        &self,
        key: &str,
        cache_path: Option<PathBuf>,
    ) -> Result<cef::RequestContext, String> {
        if let Some(c) = self.ready(key) {
            return Ok(c);
        }
        let (tx, rx) = oneshot::channel::<()>();
        let prefs = self.prefs();
        let ctx = self
            .h
            .on_ui(move |_| -> Result<cef::RequestContext, String> {
                if let Some(p) = &cache_path {
                    aperture_common::fs::create_private_dir_all(p)
                        .map_err(|e| format!("creating {}: {e}", p.display()))?;
                    if let Err(e) = crate::spelling::seed_preferences(p, &prefs.spelling, prefs.spell_on) {
                        tracing::warn!(error = %e, "spelling languages not seeded");
                    }
                }
                let cache_path = cache_path.unwrap_or_default();
                let done = Box::new(move |ctx: &cef::RequestContext| {
                    apply_preferences(ctx, &prefs);
                    let _ = tx.send(());
                });
                cef::RequestContext::create(&cache_path, true, done)
                    .ok_or_else(|| "CEF could not create the container's request context".to_string())
            })
            .await
            .map_err(|e| e.to_string())??;
        tokio::time::timeout(std::time::Duration::from_secs(10), rx)
            .await
            .map_err(|_| "the container's request context did not initialize".to_string())?
            .map_err(|_| "the container's request context went away".to_string())?;
        self.ready
            .lock()
            .expect("ctx")
            .insert(key.to_string(), ctx.clone());
        Ok(ctx)
    }

    /// The private container's request context: one in-memory context shared by every
    /// private tab until the last of them closes ([`Containers::end_private`]), so a new
    /// private session starts with no cookies, storage or cache.
    pub async fn private_context(&self) -> Result<cef::RequestContext, String> {
        self.context_for(PRIVATE, None).await
    }

    /// Forgets the private context once no private tab is left: Chromium frees its
    /// in-memory storage with the last reference.
    pub fn end_private(&self) {
        let gone = self.ready.lock().expect("ctx").remove(PRIVATE);
        if gone.is_some() {
            tracing::info!("the private session ended; its cookies and storage are gone");
        }
    }

    /// The id of the profile's default container (where the human's tabs open).
    pub fn default_id(&self) -> String {
        self.registry
            .lock()
            .expect("registry")
            .default_container()
            .id
            .to_string()
    }

    /// An initialized context by container id, if there is one already (no waiting).
    pub fn ready(&self, id: &str) -> Option<cef::RequestContext> {
        self.ready.lock().expect("ctx").get(id).cloned()
    }

    /// Forgets the contexts (before CEF shuts down, which requires them released).
    pub fn release(&self) {
        let all = std::mem::take(&mut *self.ready.lock().expect("ctx"));
        drop(all);
    }

    /// Resolves a container by id or name (creating it by that name when `create`, which only
    /// the human's own flags and the debug script may do) and returns its request context and
    /// name.
    pub async fn context(&self, which: &str, create: bool) -> Result<(cef::RequestContext, String), String> {
        if which.eq_ignore_ascii_case(PRIVATE) {
            return Ok((self.private_context().await?, PRIVATE.to_string()));
        }
        let (id, name, path) = {
            let mut r = self.registry.lock().expect("registry");
            let found = ContainerId::parse(which)
                .ok()
                .and_then(|id| r.get(&id).cloned())
                .or_else(|| r.by_name(which).cloned());
            let c = match found {
                Some(c) => c,
                None if create => {
                    let id = r
                        .create(which, aperture_privacy::Colour::Blue)
                        .map_err(|e| e.to_string())?;
                    r.get(&id).cloned().ok_or("container vanished")?
                }
                None => {
                    return Err(format!(
                        "no container named {which:?}; the human creates containers"
                    ));
                }
            };
            let path = r.cache_path(&c.id);
            (c.id, c.name, path)
        };
        Ok((self.context_for(id.as_str(), Some(path)).await?, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cef::ResourceFilter;

    const TRACKER: &str = "https://tracker.example/pixel.js";

    fn filter() -> BlockFilter {
        BlockFilter::new(Blocker::from_rules("||tracker.example^"))
    }

    fn script(f: &BlockFilter, tab: Option<cef::BrowserId>, referrer: &str) -> bool {
        f.should_block(tab, TRACKER, referrer, cef::ResourceType::Script)
    }

    #[test]
    fn an_exception_is_for_the_tab_s_top_level_site() {
        let f = filter();
        let mut rules = BlockingSettings::default();
        rules.set("news.example", false);
        f.set_rules(&rules);
        // The tab's page is news.example: its trackers pass, even requested from a frame of
        // another site.
        assert!(!f.should_block(
            Some(1),
            "https://www.news.example/",
            "",
            cef::ResourceType::MainFrame
        ));
        assert!(!script(&f, Some(1), "https://ads-frame.example/"));
        assert_eq!(f.blocked(TabId(1)), 0);
        // Another tab, another site: blocked and counted.
        assert!(!f.should_block(Some(2), "https://shop.example/", "", cef::ResourceType::MainFrame));
        assert!(script(&f, Some(2), "https://shop.example/"));
        assert_eq!(f.blocked(TabId(2)), 1);
        // The first tab moves on to a site without an exception.
        f.note_top_level(TabId(1), "https://shop.example/cart");
        assert!(script(&f, Some(1), "https://news.example/"));
        // Without a tab, the referrer's site decides.
        assert!(!script(&f, None, "https://news.example/a"));
        assert!(script(&f, None, "https://shop.example/a"));
    }

    #[test]
    fn blocking_off_with_an_exception_that_blocks() {
        let f = filter();
        let mut rules = BlockingSettings {
            enabled: false,
            ..Default::default()
        };
        f.set_rules(&rules);
        f.note_top_level(TabId(3), "https://shop.example/");
        assert!(!script(&f, Some(3), ""));
        rules.set("shop.example", true);
        f.set_rules(&rules);
        assert!(script(&f, Some(3), ""), "the rules apply from the next request");
        // An unknown site follows the default.
        assert!(!script(&f, None, ""));
        f.set_rules(&BlockingSettings::default());
        assert!(script(&f, None, ""));
    }
}
