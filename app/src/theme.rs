//! Dark mode, the same in the window and headless: one per-site policy table (the human's
//! menu and the agent's `browser_theme` both write it, keyed by site, persisted in settings)
//! and one orchestrator that realises the three layers for each document (the human's real
//! `prefers-color-scheme`, Chromium's force-dark, the filter fallback).

use crate::browser::{Actor, Handle};
use crate::tab::Tab;
use aperture_mcp::backend::TabId;
use aperture_ui::UiCommand;
use aperture_ui::dark::{self, ColorScheme, DarkPlan, SitePolicies, ThemeMode};
use aperture_ui::settings::{Settings, SettingsStore, ThemeSettings};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Settings are written once a burst of changes settles.
const SAVE_DEBOUNCE: Duration = Duration::from_millis(500);

/// The per-site policies as the agent side sees them, and the agent's pending choices for the
/// UI thread to apply like the human's own. Shared between threads.
#[derive(Default)]
pub struct Themes {
    policies: Mutex<SitePolicies>,
    requests: Mutex<Vec<(String, ThemeMode)>>,
}

impl Themes {
    pub fn set_policies(&self, p: SitePolicies) {
        *self.policies.lock().unwrap_or_else(|e| e.into_inner()) = p;
    }

    pub fn mode_for_site(&self, site: &str) -> ThemeMode {
        self.policies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .mode_for_site(site)
    }

    /// The agent sets a site's mode: visible to its next read at once, applied (saved, shown
    /// in the menu, realised on the site's tabs) by the UI thread.
    pub fn request(&self, site: &str, mode: ThemeMode) {
        self.policies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .set(site, mode);
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((site.to_string(), mode));
    }

    pub fn take_requests(&self) -> Vec<(String, ThemeMode)> {
        std::mem::take(&mut *self.requests.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Loads the settings file, saying (not failing) when it is unusable.
pub fn load_settings() -> (Settings, Option<SettingsStore>) {
    let store = match SettingsStore::xdg() {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("aperture: settings will not be saved: {e}");
            None
        }
    };
    let settings = match store.as_ref().map(|s| s.load()) {
        Some(Ok(l)) => {
            if let Some(r) = l.recovered {
                eprintln!("aperture: {r}");
            }
            l.settings
        }
        Some(Err(e)) => {
            eprintln!("aperture: {e}");
            Settings::default()
        }
        None => Settings::default(),
    };
    (settings, store)
}

/// Per-tab dark-mode bookkeeping.
#[derive(Default)]
struct DarkTab {
    /// The document the last plan was for (Auto latches its measurement per document).
    doc: String,
    measured: Option<f32>,
    /// Whether our layers 2/3 are currently on (a re-measurement must clear them first).
    darkened: bool,
    /// A plan is in flight; a newer request waits for it.
    busy: bool,
    /// Re-plan once the one in flight is done (a setting changed meanwhile).
    again: bool,
}

#[derive(Debug, Clone)]
struct DarkOutcome {
    doc: String,
    measured: Option<f32>,
    darkened: bool,
}

/// Realises dark mode for each tab's documents (UI thread; the DevTools work runs on tokio).
pub struct DarkMode {
    tabs: HashMap<TabId, DarkTab>,
    done: Arc<Mutex<HashMap<TabId, DarkOutcome>>>,
    h: Handle,
    rt: tokio::runtime::Handle,
}

impl DarkMode {
    pub fn new(h: Handle, rt: tokio::runtime::Handle) -> DarkMode {
        DarkMode {
            tabs: HashMap::new(),
            done: Arc::default(),
            h,
            rt,
        }
    }

    /// Starts a plan for a tab: for a new document (`doc`), or again for the same one after a
    /// setting changed (`None`, reusing the latched measurement).
    pub fn plan(&mut self, id: TabId, doc: Option<String>, theme: &ThemeSettings, human: ColorScheme) {
        let filter = theme.filter;
        let d = self.tabs.entry(id).or_default();
        if let Some(doc) = doc {
            if d.doc != doc {
                d.measured = None;
            }
            d.doc = doc;
        }
        if d.busy {
            d.again = true;
            return;
        }
        if d.doc.is_empty() {
            return;
        }
        d.busy = true;
        d.again = false;
        let mode = theme.policies.mode_for_url(&d.doc);
        let (doc, measured, darkened) = (d.doc.clone(), d.measured, d.darkened);
        let (done, tab) = (self.done.clone(), Tab::new(&self.h, id));
        self.rt.spawn(async move {
            let out = apply_dark(tab, doc, mode, human, filter, measured, darkened).await;
            done.lock().unwrap_or_else(|e| e.into_inner()).insert(id, out);
        });
    }

    /// Takes finished plans; re-plans where something changed while they ran.
    pub fn collect(&mut self, theme: &ThemeSettings, human: ColorScheme) {
        let done: Vec<(TabId, DarkOutcome)> = self
            .done
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .collect();
        for (id, out) in done {
            let Some(d) = self.tabs.get_mut(&id) else { continue };
            d.busy = false;
            d.darkened = out.darkened;
            if d.doc == out.doc {
                d.measured = out.measured;
            }
            if d.again || d.doc != out.doc {
                self.plan(id, None, theme, human);
            }
        }
    }

    /// Plans again every tab on `site` (every tab when `None`).
    pub fn replan_all(&mut self, site: Option<&str>, theme: &ThemeSettings, human: ColorScheme) {
        let ids: Vec<TabId> = self
            .tabs
            .iter()
            .filter(|(_, d)| site.is_none_or(|s| dark::site_key(&d.doc).as_deref() == Some(s)))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.plan(id, None, theme, human);
        }
    }

    /// Forgets closed tabs.
    pub fn retain(&mut self, live: &HashSet<TabId>) {
        self.tabs.retain(|id, _| live.contains(id));
    }
}

/// Realises the three dark-mode layers for one document and reports what it did.
async fn apply_dark(
    tab: Tab,
    doc: String,
    mode: ThemeMode,
    human: ColorScheme,
    filter: dark::FilterOptions,
    measured: Option<f32>,
    darkened: bool,
) -> DarkOutcome {
    let send = |c: dark::CdpCall| {
        let tab = tab.clone();
        async move { tab.devtools(c.method, c.params).await }
    };
    let eval = |js: String| {
        let tab = tab.clone();
        async move {
            tab.devtools(
                "Runtime.evaluate",
                serde_json::json!({"expression": js, "returnByValue": true}),
            )
            .await
        }
    };
    // Layer 1: the human's real preference, so sites with their own dark theme use it.
    let _ = send(dark::emulated_media_call(human)).await;
    let mut measured = measured;
    if measured.is_none() && dark::plan(mode, human, None, true, &filter) == DarkPlan::NeedsMeasurement {
        if darkened {
            // Measure the page as its author made it, not as we darkened it.
            let _ = send(dark::auto_dark_override_call(None)).await;
            let _ = eval(dark::filter_install_js(None)).await;
        }
        // The page must have drawn itself first: until its first frames, Chromium keeps
        // showing the previous document (paint holding), and a measurement of that would
        // latch the old page's darkness for this one. Two animation frames of the new
        // document have been produced once this resolves (bounded by the call's timeout).
        let _ = tab
            .devtools(
                "Runtime.evaluate",
                serde_json::json!({
                    "expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))",
                    "awaitPromise": true,
                    "returnByValue": true
                }),
            )
            .await;
        measured = tab.frame().await.ok().and_then(|f| dark::mean_luminance(&f.bgra));
    }
    let mut plan = dark::plan(mode, human, measured, true, &filter);
    let Some((call, mut js)) = plan.actions() else {
        return DarkOutcome {
            doc,
            measured,
            darkened,
        };
    };
    if send(call).await.is_err() && matches!(plan, DarkPlan::Apply { force_dark: true, .. }) {
        // Layer 3 stands in where force-dark is unavailable.
        plan = dark::plan(mode, human, measured, false, &filter);
        if let Some((_, j)) = plan.actions() {
            js = j;
        }
    }
    let DarkPlan::Apply { force_dark, css } = &plan else {
        unreachable!("actions() returned Some")
    };
    if css.as_deref().is_some_and(|c| c.contains("invert(1)")) {
        let _ = eval(dark::MARK_BACKGROUND_IMAGES_JS.to_string()).await;
    }
    if let Err(e) = eval(js).await {
        tracing::warn!(tab = tab.id.0, "dark-mode stylesheet: {e}");
    }
    DarkOutcome {
        doc,
        measured,
        darkened: *force_dark || css.is_some(),
    }
}

/// Headless dark mode: no window, but the same settings, policies and layers. Driven by the
/// headless loop between CEF's work.
pub struct Headless {
    settings: Settings,
    store: Option<SettingsStore>,
    save_due: Option<Instant>,
    themes: Arc<Themes>,
    dark: DarkMode,
    was_loading: HashMap<TabId, bool>,
}

impl Headless {
    pub fn new(themes: Arc<Themes>, h: Handle, rt: tokio::runtime::Handle) -> Headless {
        let (settings, store) = load_settings();
        themes.set_policies(settings.theme.policies.clone());
        Headless {
            settings,
            store,
            save_due: None,
            themes,
            dark: DarkMode::new(h, rt),
            was_loading: HashMap::new(),
        }
    }

    /// Nobody is at a headless browser: the scheme is the saved preference, else light.
    fn human(&self) -> ColorScheme {
        self.settings.theme.prefer.unwrap_or(ColorScheme::Light)
    }

    /// Plans new documents, applies the agent's choices, saves settings when due.
    pub fn tick(&mut self, actor: &Actor) {
        let human = self.human();
        let loads: Vec<(TabId, Option<String>)> = actor.with(|st| {
            st.order
                .iter()
                .filter_map(|id| st.tabs.get(id).map(|t| (*id, t)))
                .filter_map(|(id, t)| {
                    let was = self.was_loading.insert(id, t.loading);
                    (!t.loading && was != Some(false) && !t.url.is_empty()).then(|| (id, Some(t.url.clone())))
                })
                .collect()
        });
        let live: HashSet<TabId> = actor.with(|st| st.tabs.keys().copied().collect());
        self.was_loading.retain(|id, _| live.contains(id));
        self.dark.retain(&live);
        for (id, url) in loads {
            self.dark.plan(id, url, &self.settings.theme, human);
        }
        for (site, mode) in self.themes.take_requests() {
            if self.settings.apply(&UiCommand::SetTheme {
                site: site.clone(),
                mode,
            }) {
                self.save_due = Some(Instant::now() + SAVE_DEBOUNCE);
            }
            self.dark.replan_all(Some(&site), &self.settings.theme, human);
        }
        self.dark.collect(&self.settings.theme, human);
        if self.save_due.is_some_and(|t| t <= Instant::now()) {
            self.save();
        }
    }

    /// Writes pending settings (also at exit).
    pub fn save(&mut self) {
        if self.save_due.take().is_some()
            && let Some(s) = &self.store
            && let Err(e) = s.save(&self.settings)
        {
            eprintln!("aperture: {e}");
        }
    }
}
