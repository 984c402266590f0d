//! Headed mode: the egui chrome (`aperture-ui`) in a real window over off-screen Chromium.
//!
//! The window's event loop owns the main thread, which is also CEF's UI thread, so
//! [`Host`] methods use the browser actor directly. Everything asynchronous (opening a tab in
//! a container, DevTools round trips for dark mode) runs on the tokio runtime and reaches this
//! thread only through the actor's job queue, which [`Host::do_work`] drains.
//!
//! The chrome only emits [`UiCommand`]s; this module applies them and keeps a
//! [`ChromeModel`] mirrored from the actor's state on every pump, so the agent's actions
//! (which go through the same actor) show up in the window without a second code path.

use crate::browser::pointer::Pointer;
use crate::browser::{Actor, Event, Job};
use crate::privacy::Containers;
use crate::tab::TabOptions;
use crate::theme::{DarkMode, Themes};
use anyhow::{Context, Result};
use aperture_mcp::backend as mb;
use aperture_ui::dark::{self, ColorScheme};
use aperture_ui::settings::{Settings, SettingsStore};
use aperture_ui::{
    ChromeModel, ContainerInfo, CursorShape, Host, KeyInput, Modifiers, MouseButton, PageFrame, PageInput,
    Rgb, RunOptions, TabView, UiCommand, UiWaker, WindowShot,
};
use mb::TabId;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest sleep between pumps; CEF does not announce all of its work (cefclient's 1/30 s).
const MAX_PUMP_IDLE: Duration = Duration::from_millis(33);
/// How long closing waits for CEF to destroy its browsers before leaving anyway.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
/// Window resizes and slider drags come in bursts; settings are written once they settle.
const SAVE_DEBOUNCE: Duration = Duration::from_millis(500);
/// The chrome's strip + toolbar, to size the first tab before the first `Resize` arrives.
const CHROME_HEIGHT: u32 = 80;

/// What `main` hands the headed loop.
pub struct Config {
    pub url: String,
    /// The human named a page to open (else the session is restored alone).
    pub url_given: bool,
    /// Where `session.json` lives.
    pub profile: PathBuf,
    /// `--container NAME` for the first tab (created if new, as the human's own flag may).
    pub container: Option<String>,
    pub containers: Containers,
    /// The per-site dark-mode table shared with the agent's `browser_theme`.
    pub themes: Arc<Themes>,
    /// Set by signals or by the MCP server ending: close the window.
    pub done: Arc<AtomicBool>,
    /// History and bookmarks (`None` when the database could not be opened).
    pub places: Option<aperture_places::Places>,
    /// The tracker blocker, whose per-site rules the settings view changes.
    pub blocker: Option<Arc<crate::privacy::BlockFilter>>,
    /// The profile's vault, for the vault window (`None` in the one-shot debug modes).
    pub vault: Option<Arc<crate::vault::VaultWiring>>,
    /// How long an agent's vault fill waits for the human's consent.
    pub vault_consent_timeout: Duration,
}

/// Runs the window until it closes (or `done`), on the main thread, after `runtime::init`.
pub fn run(cfg: Config, actor: &Actor, rx: Receiver<Job>, rt: &tokio::runtime::Runtime) -> Result<()> {
    let event_loop = aperture_ui::event_loop().context("opening the window")?;
    let waker = UiWaker::new(&event_loop);
    {
        let w = waker.clone();
        // Any job posted from another thread (or CEF asking for work) wakes the window's loop.
        actor
            .pump()
            .set_waker(Box::new(move || w.schedule_work(Duration::ZERO)));
    }
    let (settings, store) = crate::theme::load_settings();
    let themes = cfg.themes.clone();
    themes.set_policies(settings.theme.policies.clone());

    let model = Arc::new(Mutex::new(ChromeModel::default()));
    let opened: Opened = Rc::default();
    {
        let q = opened.clone();
        actor.subscribe(Box::new(move |_, ev| {
            if let Event::TabOpened {
                id,
                opener,
                url,
                background,
            } = ev
            {
                q.borrow_mut().push((*id, *opener, url.clone(), *background));
            }
        }));
    }
    // X11's PRIMARY selection follows what the human selects in the shown page (Chromium
    // only does that for windowed views); a background tab, which the agent may be working
    // in, never replaces it.
    let primary = std::cell::RefCell::new(None::<aperture_ui::selection::PrimarySelection>);
    let selections: Selections = Rc::new(RefCell::new(HashMap::new()));
    let sel = selections.clone();
    actor.subscribe(Box::new(move |a, ev| {
        if let Event::Selection { id, text } = ev {
            // What a copy in the page hands on to CLIPBOARD (see `PageCopy`).
            sel.borrow_mut().insert(*id, text.clone());
        }
        if let Event::Selection { id, text } = ev
            && a.with(|st| st.active == Some(*id))
        {
            // Made on first use and kept: the selection is served while it lives.
            let mut p = primary.borrow_mut();
            if p.is_none() {
                *p = aperture_ui::selection::PrimarySelection::new();
            }
            if let Some(p) = p.as_mut() {
                p.set(text);
            }
        }
    }));
    {
        // Keys a page left alone: the chrome runs the shortcuts it offered the page first.
        let (model, waker) = (model.clone(), waker.clone());
        let seq = std::cell::Cell::new(0u64);
        actor.subscribe(Box::new(move |_, ev| {
            let Event::KeyNotTaken { id, key } = ev else {
                return;
            };
            let m = key.modifiers;
            let function_key = (0x70..=0x87).contains(&key.windows_key_code);
            // Plain typing is never a shortcut; leave it out of the model.
            if !(m.contains(cef::EventFlags::CONTROL) || m.contains(cef::EventFlags::ALT) || function_key) {
                return;
            }
            seq.set(seq.get() + 1);
            let report = aperture_ui::KeyNotTaken {
                seq: seq.get(),
                tab: *id,
                windows_key_code: key.windows_key_code,
                modifiers: aperture_ui::Modifiers {
                    shift: m.contains(cef::EventFlags::SHIFT),
                    ctrl: m.contains(cef::EventFlags::CONTROL),
                    alt: m.contains(cef::EventFlags::ALT),
                    meta: m.contains(cef::EventFlags::META),
                    ..Default::default()
                },
            };
            let mut model = model.lock().unwrap_or_else(|e| e.into_inner());
            let keys = &mut model.keys_not_taken;
            keys.push(report);
            // The chrome reads them at its next frame; a few are plenty between two frames.
            if keys.len() > 8 {
                keys.remove(0);
            }
            drop(model);
            waker.request_repaint();
        }));
    }
    let page = (
        settings.window.width as i32,
        settings.window.height.saturating_sub(CHROME_HEIGHT).max(100) as i32,
        1.0,
    );
    let options = RunOptions {
        width: settings.window.width,
        height: settings.window.height,
        max_work_interval: Some(MAX_PUMP_IDLE),
        ..Default::default()
    };
    let mut host = Headed {
        actor: actor.clone(),
        model: model.clone(),
        waker: waker.clone(),
        rx,
        rt: rt.handle().clone(),
        containers: cfg.containers.clone(),
        dark: DarkMode::new(actor.handle(), rt.handle().clone()),
        themes,
        settings,
        store,
        save_due: None,
        page,
        active: None,
        order: Vec::new(),
        opened,
        shown: None,
        generation: 0,
        system_dark: false,
        was_loading: HashMap::new(),
        created: HashMap::new(),
        closing: None,
        quit_sent: false,
        done: cfg.done.clone(),
        last_mouse: (0, 0),
        selections,
        page_copy: None,
        page_clipboard: None,
        asks: crate::asks::Mirror::default(),
        profile: cfg.profile.clone(),
        closed_tabs: Vec::new(),
        memory: crate::memory::Memory::new(actor, cfg.places.clone()),
        glue: crate::settings_glue::Glue::new(
            actor,
            rt.handle().clone(),
            cfg.containers.clone(),
            cfg.places.clone(),
            cfg.blocker.clone(),
            cfg.profile.clone(),
        ),
        private_seen: false,
        session_saved: None,
        session_due: None,
        restore_offer: None,
        quit_asked: false,
        shot_path: std::env::var_os("APERTURE_HEADED_SHOT").map(PathBuf::from),
        vault_window: cfg
            .vault
            .clone()
            .map(|v| crate::vault_window::VaultWindows::new(v, waker.clone())),
        autofill: cfg.vault.clone().map(crate::autofill::Autofill::new),
        consent: cfg.vault.as_ref().map(|v| {
            let w = waker.clone();
            let c = Arc::new(crate::consent::Consent::load(
                &cfg.profile,
                Box::new(move || w.schedule_work(Duration::ZERO)),
                cfg.vault_consent_timeout,
            ));
            v.ask_human(c.clone());
            c
        }),
    };
    let restored = host.restore_session(!cfg.url_given);
    if cfg.url_given || !restored {
        host.open_first(cfg.url, cfg.container);
    }
    aperture_ui::run(event_loop, options, model, host).map_err(|e| anyhow::anyhow!("the window: {e}"))
}

/// Tabs pages opened, waiting to be shown: (tab, opener, url, background).
type Opened = Rc<RefCell<Vec<(TabId, TabId, String, bool)>>>;

/// Each tab's selected text, as its page last reported it (empty once it is cleared).
type Selections = Rc<RefCell<HashMap<TabId, String>>>;

/// How long after a copy in the page the selections Chromium claims are taken over: it
/// writes CLIPBOARD and PRIMARY a few tasks apart, some time after the key (nothing comes
/// when nothing was selected, or Chromium refused to copy).
const PAGE_COPY_WAIT: Duration = Duration::from_millis(2500);

/// A copy or cut in the page, to hand on to CLIPBOARD once Chromium has taken it
/// ([`aperture_ui::selection::PageClipboard`]).
struct PageCopy {
    tab: TabId,
    /// The selection when the human copied (a cut empties it before Chromium writes).
    text: String,
    until: Instant,
}

struct Headed {
    actor: Actor,
    /// Page requests (dialogs, menus, downloads …) mirrored into the model.
    asks: crate::asks::Mirror,
    profile: PathBuf,
    /// The human's recently closed tabs (Ctrl+Shift+T), most recent last.
    closed_tabs: Vec<crate::session::SavedTab>,
    /// Bookmarks, history view, suggestions, find, zoom.
    memory: crate::memory::Memory,
    /// What the settings view's choices do.
    glue: crate::settings_glue::Glue,
    /// A private tab was open: when none is left, the private session ends.
    private_seen: bool,
    /// The session as last written, and when the next write is due.
    session_saved: Option<crate::session::Session>,
    session_due: Option<Instant>,
    /// The last session, cut short, offered until the human answers.
    restore_offer: Option<crate::session::Session>,
    /// The human asked to quit while downloads ran, and is being asked whether to cancel them.
    quit_asked: bool,
    model: Arc<Mutex<ChromeModel>>,
    waker: UiWaker,
    rx: Receiver<Job>,
    rt: tokio::runtime::Handle,
    containers: Containers,
    /// Per-site dark-mode choices shared with the agent's `browser_theme`.
    themes: Arc<Themes>,
    dark: DarkMode,
    settings: Settings,
    store: Option<SettingsStore>,
    save_due: Option<Instant>,
    /// Page area: DIP width, height, device scale (from the chrome's `Resize`).
    page: (i32, i32, f32),
    active: Option<TabId>,
    /// Tab order as last mirrored (which tabs exist, for resizing and bookkeeping).
    order: Vec<TabId>,
    /// Tabs pages opened (popups, links to new tabs): (tab, opener, url, background).
    opened: Opened,
    /// (tab, frame_seq) of the frame in the model.
    shown: Option<(TabId, u64)>,
    generation: u64,
    system_dark: bool,
    was_loading: HashMap<TabId, bool>,
    /// The URL a tab was created with, shown until CEF reports its address: the chrome's
    /// omnibox keeps its caret, not its selection, when the text changes under it.
    created: HashMap<TabId, String>,
    closing: Option<Instant>,
    quit_sent: bool,
    done: Arc<AtomicBool>,
    last_mouse: (i32, i32),
    selections: Selections,
    /// A copy in the page not yet handed on to CLIPBOARD.
    page_copy: Option<PageCopy>,
    /// Made at the first copy in the page and kept: CLIPBOARD is served while it lives.
    page_clipboard: Option<aperture_ui::selection::PageClipboard>,
    /// Debug: `APERTURE_HEADED_SHOT=out.ppm` writes a window capture after each page load.
    shot_path: Option<PathBuf>,
    /// The vault window (its own OS window, never a tab).
    vault_window: Option<crate::vault_window::VaultWindows>,
    /// The human's consent to the agent's vault fills (the sheet over the page).
    consent: Option<Arc<crate::consent::Consent>>,
    /// Saved logins offered by the omnibox key.
    autofill: Option<crate::autofill::Autofill>,
}

impl Headed {
    fn open_first(&self, url: String, container: Option<String>) {
        let which = container.unwrap_or_else(|| self.containers.default_id());
        self.spawn_human_tab(url, which, true);
    }

    /// Opens a tab for the human in a container and brings it to the front, without waiting
    /// for its load (the window shows the spinner meanwhile).
    /// The name of the container with id `id`, if there is one.
    fn container_name(&self, id: &str) -> Option<String> {
        let registry = self.containers.registry.lock().expect("registry");
        let c = registry.containers().iter().find(|c| c.id.to_string() == id)?;
        Some(c.name.clone())
    }

    fn spawn_human_tab(&self, url: String, container: String, create: bool) {
        self.spawn_tab_in(url, container, create, None);
    }

    /// [`Self::spawn_human_tab`], placed right after tab `after.0` (in front unless `after.1`)
    /// instead of at the end and in front.
    fn spawn_tab_in(&self, url: String, container: String, create: bool, after: Option<(TabId, bool)>) {
        let (containers, page, h) = (self.containers.clone(), self.page, self.actor.handle());
        self.rt.spawn(async move {
            let r: Result<TabId, String> = async {
                let (ctx, name) = containers.context(&container, create).await?;
                let opts = TabOptions {
                    size: (page.0, page.1),
                    scale: page.2,
                    meta: crate::browser::state::TabMeta {
                        container: name,
                        ..Default::default()
                    },
                    context: Some(ctx),
                };
                h.on_ui(move |a| {
                    let id = a.create_browser(&url, opts)?;
                    if url == "about:blank" && after.is_none() {
                        mark_new_tab_page(a, id);
                    }
                    match after {
                        Some((of, background)) => crate::asks::place_after(a, of, id, background),
                        // The human's new tab comes to the front.
                        None => a.with(|st| st.active = Some(id)),
                    }
                    Ok(id)
                })
                .await
                .and_then(|r| r)
                .map_err(|e: crate::tab::TabError| e.to_string())
            }
            .await;
            if let Err(e) = r {
                eprintln!("aperture: could not open a tab: {e}");
            }
        });
    }

    fn human(&self) -> ColorScheme {
        self.settings.theme.prefer.unwrap_or(if self.system_dark {
            ColorScheme::Dark
        } else {
            ColorScheme::Light
        })
    }

    fn save_soon(&mut self) {
        self.save_due = Some(Instant::now() + SAVE_DEBOUNCE);
    }

    fn save_now(&mut self) {
        self.save_due = None;
        if let Some(s) = &self.store
            && let Err(e) = s.save(&self.settings)
        {
            eprintln!("aperture: {e}");
        }
    }

    fn select(&mut self, id: TabId) {
        self.active = Some(id);
        let pending = self.actor.with(|st| {
            st.activate(id);
            st.tabs.get_mut(&id).and_then(|t| t.pending_url.take())
        });
        // A restored tab loads its page the first time it is shown.
        if let Some(url) = pending
            && let Some(f) = self.actor.browser(id).and_then(|b| b.main_frame())
        {
            self.created.insert(id, url.clone());
            f.load_url(&url);
        }
        self.fit(id);
        if let Some(h) = self.actor.host(id) {
            // A tab that was in the background may have no current frame to show.
            h.invalidate();
        }
    }

    /// Gives a tab the page area's size (tabs the agent opened start at `--size`).
    fn fit(&self, id: TabId) {
        let (w, h, scale) = self.page;
        let changed = self.actor.with(|st| match st.tabs.get_mut(&id) {
            Some(t) if t.size != (w, h) || (t.scale - scale).abs() > 1e-3 => {
                t.size = (w, h);
                t.scale = scale;
                true
            }
            _ => false,
        });
        if changed && let Some(host) = self.actor.host(id) {
            host.resized();
        }
    }

    /// Tabs a page opened come to the front when their opener was in front, unless the
    /// human asked for a background tab (middle-click, Ctrl+click).
    fn show_opened(&mut self) {
        let opened = std::mem::take(&mut *self.opened.borrow_mut());
        for (id, opener, url, background) in opened {
            self.created.insert(id, url);
            if self.active == Some(opener) && !background {
                self.select(id);
            }
        }
    }

    /// Mirrors `state` into the model; repaints when anything visible changed.
    fn sync_model(&mut self) {
        // The actor keeps the front tab (the human's new tab, the agent's select, a neighbour
        // when the front tab closed); the window follows it.
        let (order, want) = self.actor.with(|st| {
            // Pinned tabs first, each group in its own order: wherever a tab was put (a new
            // one next to a pinned tab, a drag across the boundary), the strip stays in shape.
            let tabs = &st.tabs;
            let pinned = |id: &TabId| tabs.get(id).is_some_and(|t| t.pinned);
            let (mut order, rest): (Vec<TabId>, Vec<TabId>) = st.order.iter().partition(|id| pinned(id));
            order.extend(rest);
            st.order = order;
            (st.order.clone(), st.active)
        });
        match want.filter(|id| order.contains(id)) {
            Some(id) if self.active != Some(id) => self.select(id),
            Some(_) => {}
            None => self.active = None,
        }
        self.order = order;

        let registry = self.containers.registry.lock().expect("registry");
        let containers: Vec<ContainerInfo> = registry
            .containers()
            .iter()
            .map(|c| ContainerInfo {
                id: c.id.to_string(),
                name: c.name.clone(),
                colour: hex_rgb(c.colour.rgb()),
                ..Default::default()
            })
            .collect();
        let default_container = self
            .settings
            .last_container
            .clone()
            .filter(|d| containers.iter().any(|c| c.id == *d))
            .or_else(|| Some(registry.default_container().id.to_string()));
        drop(registry);
        let policies = &self.settings.theme.policies;
        let mut finished_loads = Vec::new();
        let mut first_seen = Vec::new();
        let (tabs, frame, cursor) = self.actor.with(|st| {
            let tabs: Vec<TabView> = st
                .order
                .iter()
                .filter_map(|id| st.tabs.get(id).map(|t| (*id, t)))
                .map(|(id, t)| {
                    let was = self.was_loading.insert(id, t.loading);
                    if was.is_none() {
                        first_seen.push(id);
                    }
                    if !t.loading && was != Some(false) && !t.url.is_empty() {
                        finished_loads.push((id, t.url.clone()));
                    }
                    let container = containers
                        .iter()
                        .find(|c| c.name == t.meta.container)
                        .cloned()
                        .unwrap_or_else(|| ContainerInfo {
                            id: String::new(),
                            // The agent's tabs without a container use the global profile.
                            name: if t.meta.container.is_empty() {
                                "No container".into()
                            } else {
                                t.meta.container.clone()
                            },
                            colour: Rgb(0x8f, 0x8f, 0x9d),
                            private: t.meta.private(),
                        });
                    let url = match (&t.pending_url, self.created.get(&id)) {
                        (Some(p), _) => p.clone(),
                        (None, Some(u)) if t.url.is_empty() => u.clone(),
                        _ => t.url.clone(),
                    };
                    TabView {
                        id,
                        title: t.title.clone(),
                        url,
                        loading: t.loading,
                        can_go_back: t.can_back,
                        can_go_forward: t.can_forward,
                        container,
                        agent_driving: t.meta.opened_by_agent || t.meta.agent_touched,
                        human_driving: t.meta.human_driving,
                        theme: dark::site_key(&t.url).map(|s| policies.mode_for_site(&s)),
                        status: t.status_text.clone(),
                        tooltip: t.tooltip.clone(),
                        // Chromium's own state, so the mark never disagrees with the sound.
                        muted: t.host.is_audio_muted(),
                        audible: !t.audible_frames.is_empty(),
                        capturing: t.capturing,
                        // Until it shows a page; never for a private tab (no history to show).
                        new_tab_page: t.new_tab_page
                            && (t.url.is_empty() || t.url == "about:blank")
                            && !t.meta.private(),
                        renderer_gone: t.renderer_dead.is_some(),
                        unresponsive: t.hang.stuck_since.is_some(),
                        pinned: t.pinned,
                        // Of the page shown, and only for the front tab (the omnibox shows no
                        // other): this runs every frame. Nothing is claimed while another page
                        // is on its way.
                        security: match (self.active == Some(id) && t.pending_url.is_none())
                            .then(|| t.host.page_security())
                            .flatten()
                        {
                            None => aperture_ui::Security::Unknown,
                            Some(cef::PageSecurity::Secure) => aperture_ui::Security::Secure,
                            Some(cef::PageSecurity::NotSecure) => aperture_ui::Security::NotSecure,
                            Some(cef::PageSecurity::CertificateError) => {
                                aperture_ui::Security::CertificateError
                            }
                        },
                        ..Default::default()
                    }
                })
                .collect();
            let active = self.active.and_then(|a| st.tabs.get(&a).map(|t| (a, t)));
            let frame = active.and_then(|(a, t)| {
                let f = t.frame.as_ref()?;
                (self.shown != Some((a, t.frame_seq))).then(|| (a, t.frame_seq, f.clone()))
            });
            let cursor = active.map(|(_, t)| t.cursor).unwrap_or_default();
            (tabs, frame, cursor)
        });
        // Tabs the agent opened start at `--size`; the window's size is the one it will see.
        for id in first_seen {
            self.fit(id);
        }
        // The address each tab really shows (a restored tab waiting to load shows none yet).
        let urls: Vec<(TabId, String)> = self.actor.with(|st| {
            st.order
                .iter()
                .filter_map(|id| st.tabs.get(id).map(|t| (*id, t)))
                .filter(|(_, t)| t.pending_url.is_none() && !t.url.is_empty())
                .map(|(id, t)| (id, t.url.clone()))
                .collect()
        });
        self.memory.track_zoom(&self.actor, &urls);
        // The private session ends with its last tab: its cookies and storage go with it.
        let private_open = self.actor.with(|st| st.tabs.values().any(|t| t.meta.private()));
        if private_open {
            self.private_seen = true;
        } else if self.private_seen {
            self.private_seen = false;
            self.containers.end_private();
        }
        let ids: HashSet<TabId> = self.order.iter().copied().collect();
        self.was_loading.retain(|id, _| ids.contains(id));
        self.created.retain(|id, _| ids.contains(id));
        self.dark.retain(&ids);

        let mut tabs = tabs;
        let save_login = self.autofill.as_ref().and_then(|af| af.save_offer());
        if let (Some(af), Some(active)) = (self.autofill.as_mut(), self.active) {
            let private = self
                .actor
                .with(|st| st.tabs.get(&active).is_some_and(|t| t.meta.private()));
            if let Some(tv) = tabs.iter_mut().find(|t| t.id == active) {
                tv.saved_logins = af.offers(active, &tv.url, private);
            }
        }
        let mut m = self.model.lock().unwrap_or_else(|p| p.into_inner());
        let offer_changed = m.save_login != save_login;
        m.save_login = save_login;
        let mut changed = offer_changed
            || m.tabs != tabs
            || m.active != self.active
            || m.containers != containers
            || m.default_container != default_container;
        m.tabs = tabs;
        m.active = self.active;
        m.containers = containers;
        m.default_container = default_container;
        m.dark_filter = self.settings.theme.filter;
        let shape = cursor_shape(cursor);
        changed |= m.cursor != shape;
        m.cursor = shape;
        if self.active.is_none() && m.frame.is_some() {
            m.frame = None;
            self.shown = None;
            changed = true;
        }
        // A sign-in sheet offers the vault's logins for the site asking (not the page shown).
        self.asks.sign_in_logins = match (self.autofill.as_mut(), self.active) {
            (Some(af), Some(active)) => {
                let asking = self.actor.with(|st| {
                    let t = st.tabs.get(&active)?;
                    let d = t.asks.dialog.as_ref()?;
                    (d.kind == crate::browser::page::Asked::SignIn { proxy: false })
                        .then(|| (d.origin.clone(), t.meta.private()))
                });
                asking
                    .map(|(url, private)| af.sign_in_offers(active, &url, private))
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        changed |= crate::asks::mirror(&self.actor, self.active, &mut m, &mut self.asks);
        let consent = self.consent.as_ref().and_then(|c| c.current());
        if m.vault_consent != consent {
            m.vault_consent = consent;
            changed = true;
        }
        changed |= self.memory.mirror(&self.actor, &mut m);
        changed |= self.glue.mirror(&self.actor, &self.settings, &mut m);
        // The question stands while downloads run; with none left it has no point.
        let quitting = if self.quit_asked {
            self.running_downloads()
        } else {
            0
        };
        self.quit_asked = quitting > 0;
        if m.quit_with_downloads != quitting {
            m.quit_with_downloads = quitting;
            changed = true;
        }
        let offer = self.restore_offer.as_ref().map(|s| s.tabs.len());
        if m.restore_offer != offer {
            m.restore_offer = offer;
            changed = true;
        }
        if m.show_bookmarks_bar != self.settings.show_bookmarks_bar {
            m.show_bookmarks_bar = self.settings.show_bookmarks_bar;
            changed = true;
        }
        if let Some((id, seq, f)) = frame {
            self.generation += 1;
            // The model wants `Arc<[u8]>`; one copy per paint of the visible tab only.
            m.frame = Some(PageFrame {
                width: f.w,
                height: f.h,
                bgra: Arc::from(f.bgra.as_slice()),
                generation: self.generation,
            });
            self.shown = Some((id, seq));
            changed = true;
        }
        drop(m);
        if changed {
            self.waker.request_repaint();
        }
        for (id, url) in finished_loads {
            self.plan_dark(id, Some(url));
            if self.shot_path.is_some() && self.active == Some(id) {
                self.waker.request_screenshot();
            }
        }
    }

    /// Starts a dark-mode plan for a tab (a new document, or `None` for the same one again).
    fn plan_dark(&mut self, id: TabId, doc: Option<String>) {
        let human = self.human();
        self.dark.plan(id, doc, &self.settings.theme, human);
    }

    fn collect_dark(&mut self) {
        let human = self.human();
        self.dark.collect(&self.settings.theme, human);
    }

    fn replan_all(&mut self, site: Option<&str>) {
        let human = self.human();
        self.dark.replan_all(site, &self.settings.theme, human);
    }

    /// Downloads still running, which quitting would cancel.
    fn running_downloads(&self) -> usize {
        self.actor.with(|st| st.running_downloads(None))
    }

    fn begin_close(&mut self) {
        if self.closing.is_none() {
            self.closing = Some(Instant::now());
            // Before the tabs go: this is the session the next start restores.
            self.save_session(true);
            self.actor.begin_shutdown();
        }
    }

    /// Restores the last session's tabs (only the front one loads now; the others when
    /// first shown). With `front: false` (the human named a page to open, which comes to the
    /// front) every restored tab waits in the background. A session cut short is offered
    /// instead (see `session`). False when nothing was restored.
    fn restore_session(&mut self, front: bool) -> bool {
        use crate::session::Loaded;
        let s = match crate::session::load(&self.profile) {
            Loaded::None => return false,
            Loaded::MovedAside(p, why) => {
                let n = format!(
                    "The saved tabs could not be read ({why}); the file was kept at {}",
                    p.display()
                );
                eprintln!("aperture: {n}");
                self.actor.with(|st| st.notices.push(n));
                return false;
            }
            Loaded::Found(s) => s,
        };
        self.closed_tabs = s.closed.clone();
        if crate::session::offer_first(&s) {
            self.restore_offer = Some(s);
            return false;
        }
        if s.tabs.is_empty() {
            return false;
        }
        let active = front.then(|| s.active.unwrap_or(0).min(s.tabs.len() - 1));
        crate::session::spawn_restore(
            &self.rt,
            self.actor.handle(),
            self.containers.clone(),
            self.page,
            s.tabs,
            active,
            None,
        );
        true
    }

    /// The human answered the offer to restore the last session.
    fn answer_restore(&mut self, restore: bool) {
        let Some(s) = self.restore_offer.take() else {
            return;
        };
        if restore && !s.tabs.is_empty() {
            let active = Some(s.active.unwrap_or(0).min(s.tabs.len() - 1));
            // The blank tab the window started with gives way to the restored ones.
            let replace = self.active.filter(|_| self.order.len() == 1);
            crate::session::spawn_restore(
                &self.rt,
                self.actor.handle(),
                self.containers.clone(),
                self.page,
                s.tabs,
                active,
                replace,
            );
        }
        // Either way the file no longer holds the offered tabs ahead of this run's.
        self.session_saved = None;
        self.session_due = Some(Instant::now());
    }

    /// The human's tabs as they are now.
    fn current_session(&self) -> crate::session::Session {
        let s = self.actor.with(|st| {
            let mut s = crate::session::Session::default();
            for id in &st.order {
                let Some(t) = st.tabs.get(id) else { continue };
                if t.meta.opened_by_agent || t.meta.private() {
                    // The agent's tabs are its working state, not the human's session; private
                    // tabs leave no trace.
                    continue;
                }
                let saved = saved_tab(t);
                if saved.url.is_empty() {
                    continue;
                }
                if st.active == Some(*id) {
                    s.active = Some(s.tabs.len());
                }
                s.tabs.push(saved);
            }
            s.closed = self.closed_tabs.clone();
            s
        });
        // Until the human answers the offer, its tabs stay in the file.
        match &self.restore_offer {
            Some(o) => crate::session::with_offered(o, s),
            None => s,
        }
    }

    /// Writes the session when it changed (debounced), or now with `clean` on quit.
    fn save_session(&mut self, clean: bool) {
        let mut s = self.current_session();
        if !clean && self.session_saved.as_ref() == Some(&s) {
            self.session_due = None;
            return;
        }
        if !clean {
            let due = *self
                .session_due
                .get_or_insert_with(|| Instant::now() + SAVE_DEBOUNCE);
            if due > Instant::now() {
                return;
            }
        }
        self.session_due = None;
        self.session_saved = Some(s.clone());
        s.clean_exit = clean;
        tracing::debug!(tabs = s.tabs.len(), clean, "saving the session");
        if let Err(e) = crate::session::save(&self.profile, &s) {
            tracing::warn!("could not save the session: {e}");
        }
    }

    /// The human copied or cut in tab `id`'s page (a key or the context menu): once Chromium
    /// has written it, hand it on to CLIPBOARD ([`Headed::hand_on_copy`]).
    fn page_copied(&mut self, id: TabId) {
        let text = self.selections.borrow().get(&id).cloned().unwrap_or_default();
        self.page_copy = Some(PageCopy {
            tab: id,
            text,
            until: Instant::now() + PAGE_COPY_WAIT,
        });
    }

    fn hand_on_copy(&mut self) {
        let Some(copy) = &self.page_copy else { return };
        if Instant::now() > copy.until {
            self.page_copy = None;
            return;
        }
        if self.page_clipboard.is_none() {
            self.page_clipboard = aperture_ui::selection::PageClipboard::new();
        }
        let Some(board) = self.page_clipboard.as_mut() else {
            self.page_copy = None;
            return;
        };
        let text = if copy.text.is_empty() {
            self.selections
                .borrow()
                .get(&copy.tab)
                .cloned()
                .unwrap_or_default()
        } else {
            copy.text.clone()
        };
        board.hand_on(&text);
    }

    fn page_input(&mut self, id: TabId, input: PageInput) {
        let Some(h) = self.actor.host(id) else { return };
        // A sign-in is usually submitted by Enter or a click: ask the page what it holds
        // before the input reaches it (see `autofill`).
        let submitting = match &input {
            PageInput::KeyDown(k) => k.windows_key_code == 0x0D,
            PageInput::MouseDown { button, .. } => *button == aperture_ui::MouseButton::Left,
            _ => false,
        };
        // A press, a key or the wheel is input a person waits to see answered: the page is
        // watched for not answering it (`browser::hang`).
        if matches!(
            input,
            PageInput::MouseDown { .. } | PageInput::KeyDown(_) | PageInput::Wheel { .. }
        ) {
            self.actor.with(|st| crate::browser::hang::human_input(st, id));
        }
        if submitting && let Some(af) = &self.autofill {
            let (url, human) = self.actor.with(|st| {
                st.tabs
                    .get(&id)
                    .map(|t| (t.url.clone(), !t.meta.private() && !t.meta.gated()))
                    .unwrap_or_default()
            });
            if human {
                af.probe(&self.rt, self.actor.handle(), id, &url);
            }
        }
        match input {
            PageInput::MouseMove { x, y, modifiers } => {
                let e = mouse_event(x, y, &modifiers);
                self.last_mouse = (e.x, e.y);
                self.actor.pointer(id, Pointer::Move(e));
            }
            PageInput::MouseLeave { modifiers } => {
                let e = cef::MouseEvent {
                    x: self.last_mouse.0,
                    y: self.last_mouse.1,
                    modifiers: flags(&modifiers),
                };
                self.actor.pointer(id, Pointer::Leave(e));
            }
            PageInput::MouseDown {
                x,
                y,
                button,
                click_count,
                modifiers,
            } => {
                let e = mouse_event(x, y, &modifiers);
                h.set_focus(true);
                self.actor
                    .pointer(id, Pointer::Down(e, cef_button(button), click_count as i32));
            }
            PageInput::MouseUp {
                x,
                y,
                button,
                click_count,
                modifiers,
            } => {
                let e = mouse_event(x, y, &modifiers);
                self.actor
                    .pointer(id, Pointer::Up(e, cef_button(button), click_count as i32));
            }
            PageInput::Wheel {
                x,
                y,
                delta_x,
                delta_y,
                modifiers,
            } => {
                let e = mouse_event(x, y, &modifiers);
                h.send_mouse_wheel(&e, delta_x.round() as i32, delta_y.round() as i32);
            }
            PageInput::KeyDown(k) => {
                if is_copy_chord(&k) {
                    self.page_copied(id);
                }
                h.send_key(&key_event(&k, cef::KeyEventKind::RawKeyDown, 0));
                if let Some(c) = k.character {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf).iter() {
                        h.send_key(&key_event(&k, cef::KeyEventKind::Char, *u));
                    }
                }
            }
            PageInput::KeyUp(k) => h.send_key(&key_event(&k, cef::KeyEventKind::KeyUp, 0)),
            PageInput::Text { text } => {
                for u in text.encode_utf16() {
                    h.send_key(&cef::KeyEvent {
                        kind: cef::KeyEventKind::Char,
                        modifiers: cef::EventFlags::NONE,
                        windows_key_code: u as i32,
                        native_key_code: 0,
                        character: u,
                        unmodified_character: u,
                    });
                }
            }
            PageInput::ImeComposition { text } => h.ime_set_composition(&text),
            PageInput::ImeCommit { text } => h.ime_commit(&text),
        }
    }
}

/// A tab as the session file keeps it (and as Ctrl+Shift+T brings it back): the page it shows
/// or will load, its title, container and back/forward lists.
fn saved_tab(t: &crate::browser::state::TabRec) -> crate::session::SavedTab {
    let (back, forward) = t.history.saved();
    crate::session::SavedTab {
        url: t.pending_url.clone().unwrap_or_else(|| t.url.clone()),
        title: t.title.clone(),
        container: t.meta.container.clone(),
        back,
        forward,
        pinned: t.pinned,
        index: None,
    }
}

impl Host for Headed {
    fn apply(&mut self, cmd: UiCommand) {
        if self.settings.apply(&cmd) {
            self.save_soon();
            self.themes.set_policies(self.settings.theme.policies.clone());
        }
        if let UiCommand::Edit {
            tab,
            op: aperture_ui::EditOp::Copy | aperture_ui::EditOp::Cut,
        } = &cmd
        {
            self.page_copied(*tab);
        }
        let cx = crate::asks::Ctx {
            actor: &self.actor,
            active: self.active,
            page: self.page,
            download_dir: self.actor.services().page.download_dir.borrow().clone(),
            rt: &self.rt,
        };
        if crate::asks::apply(&cx, &mut self.asks, &cmd)
            || self.memory.apply(&self.actor, &cmd)
            || self.glue.apply(&self.actor, &self.settings, &cmd)
        {
            self.sync_model();
            return;
        }
        // Leaving a page whose script never returns: the script is stopped first, or the new
        // document (in the same renderer when the site is the same) would wait on it.
        if let UiCommand::Navigate { tab, .. }
        | UiCommand::Back { tab }
        | UiCommand::Forward { tab }
        | UiCommand::Reload { tab }
        | UiCommand::HardReload { tab } = &cmd
        {
            crate::browser::hang::stop_script(&self.actor, *tab);
        }
        match cmd {
            UiCommand::NewTab { container } => {
                // A container whose context is ready gets its tab at once: a tab appearing a
                // moment after the human started typing its URL would take over the omnibox
                // under their fingers.
                let name = self.container_name(&container);
                match (self.containers.ready(&container), name) {
                    (Some(ctx), Some(name)) => {
                        let opts = TabOptions {
                            size: (self.page.0, self.page.1),
                            scale: self.page.2,
                            meta: crate::browser::state::TabMeta {
                                container: name,
                                ..Default::default()
                            },
                            context: Some(ctx),
                        };
                        match self.actor.create_browser("about:blank", opts) {
                            Ok(id) => {
                                mark_new_tab_page(&self.actor, id);
                                self.created.insert(id, "about:blank".into());
                                self.select(id);
                            }
                            Err(e) => eprintln!("aperture: could not open a tab: {e}"),
                        }
                    }
                    _ => self.spawn_human_tab("about:blank".into(), container, false),
                }
            }
            UiCommand::CloseTab { tab } => {
                let saved = self.actor.with(|st| {
                    // Its back/forward lists go with it, as in the saved session, and its place.
                    let index = st.order.iter().position(|t| *t == tab);
                    st.tabs
                        .get(&tab)
                        .filter(|t| !t.meta.private())
                        .map(|t| crate::session::SavedTab {
                            index,
                            ..saved_tab(t)
                        })
                });
                if let Some(s) = saved.filter(|s| !s.url.is_empty() && s.url != "about:blank") {
                    self.closed_tabs.push(s);
                    let over = self.closed_tabs.len().saturating_sub(crate::session::CLOSED_KEEP);
                    self.closed_tabs.drain(..over);
                }
                crate::browser::page::close_tab(&self.actor, tab);
            }
            UiCommand::SelectTab { tab } => self.select(tab),
            // A file the human picked (Ctrl+O) loads as its address typed would.
            UiCommand::OpenFile { tab, path } => match url::Url::from_file_path(&path) {
                Ok(url) => self.apply(UiCommand::Navigate {
                    tab,
                    input: path.display().to_string(),
                    url: url.to_string(),
                }),
                Err(()) => tracing::warn!(path = %path.display(), "not a file path that has a URL"),
            },
            UiCommand::Navigate { tab, url, .. } => {
                let id = tab;
                let Some(b) = self.actor.browser(id) else { return };
                self.actor.with(|st| {
                    if let Some(t) = st.tabs.get_mut(&id) {
                        // What we knew about the previous document no longer applies.
                        t.document_at = None;
                        t.status = 0;
                        t.meta.typed_nav = true;
                    }
                });
                if let Some(f) = b.main_frame() {
                    f.load_url(&url);
                }
            }
            // Chromium's entries, or a restored tab's saved ones (`browser::history`).
            UiCommand::Back { tab } => {
                crate::browser::history::go(&self.actor, tab, crate::browser::history::Dir::Back);
            }
            UiCommand::Forward { tab } => {
                crate::browser::history::go(&self.actor, tab, crate::browser::history::Dir::Forward);
            }
            UiCommand::Reload { tab } => {
                if let Some(b) = self.actor.browser(tab) {
                    b.reload();
                }
            }
            UiCommand::HardReload { tab } => {
                if let Some(b) = self.actor.browser(tab) {
                    b.reload_ignore_cache();
                }
            }
            UiCommand::Stop { tab } => {
                if let Some(b) = self.actor.browser(tab) {
                    b.stop_load();
                }
            }
            UiCommand::TakeOver { tab } => self.set_human_driving(tab, true),
            UiCommand::HandBack { tab } => self.set_human_driving(tab, false),
            UiCommand::SetTheme { site, .. } => self.replan_all(Some(&site)),
            UiCommand::SetDarkFilter { .. } | UiCommand::SetColorScheme(_) | UiCommand::SetDarkDefault(_) => {
                self.replan_all(None)
            }
            UiCommand::SaveLogin { id, save } => {
                if let Some(n) = self.autofill.as_ref().and_then(|af| af.answer(id, save)) {
                    self.actor.with(|st| st.notices.push(n));
                }
            }
            UiCommand::SignInWithSaved { tab, id, entry } => {
                if let Some(af) = &self.autofill {
                    af.sign_in(&self.rt, self.actor.handle(), tab, id, entry);
                }
            }
            UiCommand::FillSavedLogin { tab, entry } => {
                if let Some(af) = &self.autofill {
                    af.fill(&self.rt, self.actor.handle(), tab, entry);
                }
            }
            UiCommand::AnswerVaultConsent { id, answer } => {
                if let Some(c) = &self.consent {
                    c.answer(id, answer);
                }
            }
            UiCommand::OpenVault => match &self.vault_window {
                Some(v) => v.open(),
                None => eprintln!("aperture: this browser has no vault"),
            },
            UiCommand::PageFocus { tab, focused } => {
                if let Some(h) = self.actor.host(tab) {
                    h.set_focus(focused);
                }
            }
            UiCommand::Page { tab, input } => self.page_input(tab, input),
            UiCommand::Resize { width, height, scale } => {
                self.page = (width.max(1) as i32, height.max(1) as i32, scale);
                // Every tab, so the agent's screenshots of background tabs match the window.
                for id in self.order.clone() {
                    self.fit(id);
                }
            }
            UiCommand::WindowResized { .. } => {}
            UiCommand::SystemTheme { dark } => {
                self.system_dark = dark;
                self.replan_all(None);
            }
            // Quitting would cancel running downloads: the human is asked first.
            UiCommand::CloseRequested if self.running_downloads() > 0 => {
                self.quit_asked = true;
                self.waker.request_repaint();
            }
            UiCommand::CloseRequested => self.begin_close(),
            UiCommand::AnswerQuit { quit } => {
                self.quit_asked = false;
                if quit {
                    self.begin_close();
                }
                self.waker.request_repaint();
            }
            UiCommand::RestoreSession => self.answer_restore(true),
            UiCommand::DiscardSession => self.answer_restore(false),
            UiCommand::ReopenClosedTab => {
                if let Some(t) = self.closed_tabs.pop() {
                    // Restored like a saved session's tab, in front, so Back and Forward reach
                    // the pages it had been through.
                    crate::session::spawn_restore(
                        &self.rt,
                        self.actor.handle(),
                        self.containers.clone(),
                        self.page,
                        vec![t],
                        Some(0),
                        None,
                    );
                }
            }
            UiCommand::OpenInNewTab {
                url,
                container: Some(container),
                background,
            } => {
                let Some(active) = self.active else { return };
                let name = self.container_name(&container);
                let current = self
                    .actor
                    .with(|st| st.tabs.get(&active).map(|t| t.meta.container.clone()));
                if name.is_some() && name == current {
                    // The tab's own container: its very request context, as without a choice.
                    crate::asks::open_next_to(&self.actor, self.page, active, &url, background);
                } else {
                    self.spawn_tab_in(url, container, false, Some((active, background)));
                }
            }
            UiCommand::NewPrivateTab => {
                self.spawn_human_tab("about:blank".into(), crate::privacy::PRIVATE.into(), false);
            }
            UiCommand::OpenInPrivateTab { url } => {
                // Next to the tab the link is in, and in front, as browsers open a private window.
                let after = self.active.map(|a| (a, false));
                self.spawn_tab_in(url, crate::privacy::PRIVATE.into(), false, after);
            }
            UiCommand::OpenUrl { url, new_tab } => {
                let container = self
                    .active
                    .and_then(|a| {
                        self.actor
                            .with(|st| st.tabs.get(&a).map(|t| t.meta.container.clone()))
                    })
                    .filter(|c| !c.is_empty())
                    .unwrap_or_else(|| self.containers.default_id());
                match (new_tab, self.active) {
                    (false, Some(tab)) => self.apply(UiCommand::Navigate {
                        tab,
                        input: url.clone(),
                        url,
                    }),
                    _ => self.spawn_human_tab(url, container, false),
                }
            }
            UiCommand::SetMuted { tab, muted } => {
                if let Some(h) = self.actor.host(tab) {
                    h.set_audio_muted(muted);
                }
            }
            UiCommand::FileDrag { tab, phase, x, y } => {
                // Files from the desktop: the page is the drop target, as for its own drags.
                let Some(h) = self.actor.host(tab) else { return };
                let e = cef::MouseEvent {
                    x: x.round() as i32,
                    y: y.round() as i32,
                    modifiers: cef::EventFlags::NONE,
                };
                match phase {
                    aperture_ui::FileDrag::Enter(paths) => match cef::DragData::files(&paths) {
                        Some(data) => h.drag_target_enter(&data, &e, cef::DragOps::COPY),
                        None => tracing::warn!("the dragged files could not be handed to the page"),
                    },
                    aperture_ui::FileDrag::Over => h.drag_target_over(&e, cef::DragOps::COPY),
                    aperture_ui::FileDrag::Drop => h.drag_target_drop(&e),
                    aperture_ui::FileDrag::Leave => h.drag_target_leave(),
                }
            }
            UiCommand::DuplicateTab { tab } => {
                let url = self.actor.with(|st| {
                    st.tabs
                        .get(&tab)
                        .map(|t| t.pending_url.clone().unwrap_or_else(|| t.url.clone()))
                });
                let url = url
                    .filter(|u| !u.is_empty())
                    .unwrap_or_else(|| "about:blank".into());
                if let Some(id) = crate::asks::open_next_to(&self.actor, self.page, tab, &url, false) {
                    self.created.insert(id, url);
                    self.select(id);
                }
            }
            UiCommand::SetPinned { tab, pinned } => {
                self.actor.with(|st| {
                    if let Some(t) = st.tabs.get_mut(&tab) {
                        t.pinned = pinned;
                    }
                    // To the pinned group's end, or the start of the rest: `sync_model` keeps
                    // the groups apart, this puts the tab at the boundary.
                    if let Some(from) = st.order.iter().position(|t| *t == tab) {
                        st.order.remove(from);
                        let tabs = &st.tabs;
                        let at = st
                            .order
                            .iter()
                            .take_while(|id| tabs.get(id).is_some_and(|t| t.pinned))
                            .count();
                        st.order.insert(at, tab);
                    }
                });
            }
            UiCommand::MoveTab { tab, to } => {
                self.actor.with(|st| {
                    if let Some(from) = st.order.iter().position(|t| *t == tab) {
                        let id = st.order.remove(from);
                        let to = to.min(st.order.len());
                        st.order.insert(to, id);
                    }
                });
            }
            // Page requests were handled by `asks::apply` above.
            _ => {}
        }
        // Commands change state the model mirrors (human_driving, the active tab).
        self.sync_model();
    }

    fn do_work(&mut self) {
        self.actor.run_jobs(&self.rx);
        self.actor.pump().work(true);
        // Events CEF's callbacks raised during that work, and jobs they queued.
        self.actor.settle();
        crate::browser::hang::tick(&self.actor);
        self.actor.run_jobs(&self.rx);
        self.show_opened();
        self.hand_on_copy();
        for (site, mode) in self.themes.take_requests() {
            // The agent's choice goes the human's way: into settings, shown in the menu.
            self.apply(UiCommand::SetTheme { site, mode });
        }
        self.collect_dark();
        self.sync_model();
        if self.save_due.is_some_and(|t| t <= Instant::now()) {
            self.save_now();
        }
        if self.closing.is_none() {
            self.save_session(false);
        }
        if self.done.load(Ordering::SeqCst) {
            self.begin_close();
        }
        if let Some(t) = self.closing
            && !self.quit_sent
            && (self.actor.is_empty() || t.elapsed() > CLOSE_GRACE)
        {
            self.quit_sent = true;
            self.waker.quit();
        }
        // Wake again when CEF asked to (the runner keeps the earliest deadline).
        let mut next = self.actor.pump().next_timeout(MAX_PUMP_IDLE);
        if let Some(t) = self.save_due {
            next = next.min(t.saturating_duration_since(Instant::now()));
        }
        if let Some(t) = self.session_due {
            next = next.min(t.saturating_duration_since(Instant::now()));
        }
        self.waker.schedule_work(next);
    }

    fn exiting(&mut self) {
        if self.save_due.is_some() {
            self.save_now();
        }
        // CEF closes browsers only while pumped; the loop is gone, so finish here.
        for _ in 0..100 {
            if self.actor.is_empty() {
                break;
            }
            self.actor.run_jobs(&self.rx);
            self.actor.pump().work(true);
            self.actor.settle();
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn take_window_requests(&mut self) -> Vec<(aperture_ui::WindowSpec, Box<dyn aperture_ui::WindowUi>)> {
        self.vault_window
            .as_ref()
            .map(|v| v.take_window_requests())
            .unwrap_or_default()
    }

    fn screenshot(&mut self, shot: WindowShot) {
        let Some(p) = &self.shot_path else { return };
        // PPM: no encoder needed, and the tests read it back trivially.
        let mut out = format!("P6\n{} {}\n255\n", shot.width, shot.height).into_bytes();
        for px in shot.rgba.chunks_exact(4) {
            out.extend_from_slice(&px[..3]);
        }
        if let Err(e) = aperture_common::fs::write_atomic(p, &out) {
            eprintln!("aperture: could not write {}: {e}", p.display());
        }
    }
}

impl Headed {
    fn set_human_driving(&self, id: TabId, on: bool) {
        self.actor.with(|st| {
            if let Some(t) = st.tabs.get_mut(&id) {
                t.meta.human_driving = on;
            }
        });
    }
}

fn hex_rgb(s: &str) -> Rgb {
    let v = u32::from_str_radix(s.trim_start_matches('#'), 16).unwrap_or(0x8f8f9d);
    Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

fn flags(m: &Modifiers) -> cef::EventFlags {
    use cef::EventFlags as F;
    F::NONE
        .with(F::SHIFT, m.shift)
        .with(F::CONTROL, m.ctrl)
        .with(F::ALT, m.alt)
        .with(F::LEFT_BUTTON, m.left_button)
        .with(F::MIDDLE_BUTTON, m.middle_button)
        .with(F::RIGHT_BUTTON, m.right_button)
        .with(F::META, m.meta)
}

fn mouse_event(x: f32, y: f32, m: &Modifiers) -> cef::MouseEvent {
    cef::MouseEvent {
        x: x.round() as i32,
        y: y.round() as i32,
        modifiers: flags(m),
    }
}

fn cef_button(b: MouseButton) -> cef::MouseButton {
    match b {
        MouseButton::Left => cef::MouseButton::Left,
        MouseButton::Middle => cef::MouseButton::Middle,
        MouseButton::Right => cef::MouseButton::Right,
    }
}

fn key_event(k: &KeyInput, kind: cef::KeyEventKind, ch: u16) -> cef::KeyEvent {
    let m = flags(&k.modifiers)
        .with(cef::EventFlags::IS_KEY_PAD, k.is_keypad)
        .with(cef::EventFlags::IS_REPEAT, k.repeat);
    cef::KeyEvent {
        kind,
        modifiers: m,
        // CHAR events carry the character in the key code too, as Chromium's GTK path does.
        windows_key_code: if ch != 0 { ch as i32 } else { k.windows_key_code },
        native_key_code: k.native_key_code,
        character: ch,
        unmodified_character: ch,
    }
}

/// Ctrl+C, Ctrl+X, Ctrl+Insert and Shift+Delete: the keys Chromium copies or cuts on.
fn is_copy_chord(k: &KeyInput) -> bool {
    let m = &k.modifiers;
    let ctrl_only = m.ctrl && !m.shift && !m.alt && !m.meta;
    let shift_only = m.shift && !m.ctrl && !m.alt && !m.meta;
    match k.windows_key_code {
        0x43 | 0x58 | 0x2D => ctrl_only,
        0x2E => shift_only,
        _ => false,
    }
}

fn cursor_shape(c: cef::Cursor) -> CursorShape {
    use CursorShape as S;
    use cef::Cursor as C;
    match c {
        C::Default => S::Default,
        C::Crosshair => S::Crosshair,
        C::Pointer => S::Pointer,
        C::Text => S::Text,
        C::Wait => S::Wait,
        C::Help => S::Help,
        C::ResizeHorizontal => S::ResizeHorizontal,
        C::ResizeVertical => S::ResizeVertical,
        C::ResizeNwSe => S::ResizeNwSe,
        C::ResizeNeSw => S::ResizeNeSw,
        C::ResizeColumn => S::ResizeColumn,
        C::ResizeRow => S::ResizeRow,
        C::Move => S::Move,
        C::Progress => S::Progress,
        C::NotAllowed => S::NotAllowed,
        C::None => S::None,
        C::ZoomIn => S::ZoomIn,
        C::ZoomOut => S::ZoomOut,
        C::Grab => S::Grab,
        C::Grabbing => S::Grabbing,
    }
}

/// Tab `id` is the human's new, empty tab: the window shows the new-tab page over it.
fn mark_new_tab_page(a: &Actor, id: TabId) {
    a.with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.new_tab_page = true;
        }
    });
}
