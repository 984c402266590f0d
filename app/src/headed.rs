//! Headed mode: the egui chrome (`aperture-ui`) in a real window over off-screen Chromium.
//!
//! The window's event loop owns the main thread, which is also CEF's UI thread, so
//! [`Host`] methods run where `state::with` and direct CEF calls are allowed. Everything
//! asynchronous (opening a tab in a container, DevTools round trips for dark mode, the MCP
//! server) runs on the tokio runtime and reaches this thread only through the job queue
//! that [`Host::do_work`] drains.
//!
//! The chrome only emits [`UiCommand`]s; this module applies them and keeps a
//! [`ChromeModel`] mirrored from `state` on every pump, so the agent's actions (which go
//! through the same `state`) show up in the window without a second code path.

use crate::cef::{CefStr, Ref, sys::*};
use crate::state::{self, Event, Job};
use crate::tab::{self, Tab, TabOptions};
use anyhow::{Context, Result};
use aperture_mcp::backend as mb;
use aperture_privacy::ContainerRegistry;
use aperture_ui::dark::{self, ColorScheme, DarkPlan, ThemeMode};
use aperture_ui::settings::{Settings, SettingsStore};
use aperture_ui::{
    ChromeModel, ContainerInfo, CursorShape, Host, KeyInput, Modifiers, MouseButton, PageFrame, PageInput,
    Rgb, RunOptions, TabId, TabView, UiCommand, UiWaker, WindowShot,
};
use async_trait::async_trait;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
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
    /// `--container NAME` for the first tab (created if new, as the human's own flag may).
    pub container: Option<String>,
    pub registry: Arc<Mutex<ContainerRegistry>>,
    pub policy: aperture_privacy::NavigationPolicy,
    pub mcp_port: u16,
    pub mcp_stdio: bool,
    /// Set by signals or by the MCP server ending: close the window.
    pub done: Arc<AtomicBool>,
    pub code: Arc<AtomicI32>,
}

/// State the tokio side (MCP backend, tab-opening tasks) shares with the UI thread.
#[derive(Default)]
struct Shared {
    /// The tab the window shows (what `tabs` reports as active to the agent).
    active: Option<i32>,
    /// Tabs the agent acted on: they carry the agent mark and offer Take over.
    agent_touched: HashSet<i32>,
    /// A tab to bring to the front (a tab the human just opened, or the agent's select).
    select: Option<i32>,
    /// Finished dark-mode plans, keyed by tab.
    dark_done: HashMap<i32, DarkOutcome>,
    /// The human's per-site dark-mode policies as last saved, for the agent's `theme` reads.
    policies: dark::SitePolicies,
    /// Per-site modes the agent set, for the UI thread to apply like the human's own choice.
    theme_requests: Vec<(String, ThemeMode)>,
    /// Request contexts of containers already initialized, by the id the chrome names them
    /// with, so Ctrl+T can create its tab at once: a tab that appears a moment after the
    /// human started typing its URL would take over the omnibox under their fingers.
    contexts: HashMap<String, (Ref<cef_request_context_t>, String)>,
}

type SharedRef = Arc<Mutex<Shared>>;

fn shared(s: &SharedRef) -> std::sync::MutexGuard<'_, Shared> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs the window until it closes (or `done`), on the main thread, after `runtime::init`.
pub fn run(cfg: Config, rx: Receiver<Job>, rt: &tokio::runtime::Runtime) -> Result<()> {
    let event_loop = aperture_ui::event_loop().context("opening the window")?;
    let waker = UiWaker::new(&event_loop);
    {
        let w = waker.clone();
        // Any job posted from another thread (or CEF asking for work) wakes the window's loop.
        state::pump().set_waker(Box::new(move || w.schedule_work(Duration::ZERO)));
    }
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
    let sh: SharedRef = Arc::default();
    shared(&sh).policies = settings.theme.policies.clone();

    let backend: Arc<dyn mb::Backend> = Arc::new(Tracked {
        inner: crate::backend::AppBackend::new(
            cfg.policy.clone(),
            (settings.window.width as i32, settings.window.height as i32),
            cfg.registry.clone(),
        )
        .with_vault(crate::vault::installed()),
        shared: sh.clone(),
    });
    if cfg.mcp_stdio || cfg.mcp_port != 0 {
        let (done, code, port, stdio) = (cfg.done.clone(), cfg.code.clone(), cfg.mcp_port, cfg.mcp_stdio);
        rt.spawn(async move {
            if let Err(e) = serve_mcp(backend, port, stdio).await {
                eprintln!("aperture: {e:#}");
                code.store(1, Ordering::SeqCst);
            }
            // The agent's channel closing ends a stdio session; an HTTP server that stopped
            // leaves the window without its agent, which is an error worth exiting on.
            done.store(true, Ordering::SeqCst);
        });
    }

    let model = Arc::new(Mutex::new(ChromeModel::default()));
    let events: Rc<RefCell<Vec<(i32, String)>>> = Rc::default();
    {
        let q = events.clone();
        state::with(|st| {
            st.listeners.push(Box::new(move |ev| {
                if let Event::Popup { opener, url } = ev {
                    q.borrow_mut().push((*opener, url.clone()));
                }
            }))
        });
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
    let host = Headed {
        model: model.clone(),
        waker: waker.clone(),
        rx,
        rt: rt.handle().clone(),
        registry: cfg.registry.clone(),
        shared: sh,
        settings,
        store,
        save_due: None,
        page,
        active: None,
        order: Vec::new(),
        popups: events,
        shown: None,
        generation: 0,
        system_dark: false,
        dark: HashMap::new(),
        was_loading: HashMap::new(),
        created: HashMap::new(),
        closing: None,
        quit_sent: false,
        done: cfg.done.clone(),
        last_mouse: (0, 0),
        shot_path: std::env::var_os("APERTURE_HEADED_SHOT").map(PathBuf::from),
    };
    host.open_first(cfg.url, cfg.container);
    aperture_ui::run(event_loop, options, model, host).map_err(|e| anyhow::anyhow!("the window: {e}"))
}

async fn serve_mcp(backend: Arc<dyn mb::Backend>, port: u16, stdio: bool) -> Result<()> {
    if stdio {
        eprintln!("aperture: serving MCP on stdio");
        aperture_mcp::serve_stdio(backend).await?;
        return Ok(());
    }
    let server = aperture_mcp::serve_http(aperture_mcp::HttpConfig::on_port(port), backend).await?;
    match server.write_mcp_json() {
        Ok(p) => eprintln!("aperture: MCP config written to {}", p.display()),
        Err(e) => eprintln!("aperture: could not write mcp.json: {e}"),
    }
    // The one line a person pastes into their agent host (same as headless).
    println!("{}", server.claude_add_line());
    server.wait().await?;
    Ok(())
}

/// Per-tab dark-mode bookkeeping on the UI thread.
#[derive(Default)]
struct DarkTab {
    /// The document the last plan was for (Auto latches its measurement per document).
    doc: String,
    measured: Option<f32>,
    /// Whether our layers 2/3 are currently on (a re-measurement must clear them first).
    darkened: bool,
    /// A plan is in flight; a newer request waits for it.
    busy: bool,
    /// Re-plan once the one in flight is done (the human changed a setting meanwhile).
    again: bool,
}

#[derive(Debug, Clone)]
struct DarkOutcome {
    doc: String,
    measured: Option<f32>,
    darkened: bool,
}

struct Headed {
    model: Arc<Mutex<ChromeModel>>,
    waker: UiWaker,
    rx: Receiver<Job>,
    rt: tokio::runtime::Handle,
    registry: Arc<Mutex<ContainerRegistry>>,
    shared: SharedRef,
    settings: Settings,
    store: Option<SettingsStore>,
    save_due: Option<Instant>,
    /// Page area: DIP width, height, device scale (from the chrome's `Resize`).
    page: (i32, i32, f32),
    active: Option<i32>,
    /// Tab order as last mirrored, to pick a neighbour when the active tab closes.
    order: Vec<i32>,
    popups: Rc<RefCell<Vec<(i32, String)>>>,
    /// (tab, frame_seq) of the frame in the model.
    shown: Option<(i32, u64)>,
    generation: u64,
    system_dark: bool,
    dark: HashMap<i32, DarkTab>,
    was_loading: HashMap<i32, bool>,
    /// The URL a tab was created with, shown until CEF reports its address: the chrome's
    /// omnibox keeps its caret, not its selection, when the text changes under it.
    created: HashMap<i32, String>,
    closing: Option<Instant>,
    quit_sent: bool,
    done: Arc<AtomicBool>,
    last_mouse: (i32, i32),
    /// Debug: `APERTURE_HEADED_SHOT=out.ppm` writes a window capture after each page load.
    shot_path: Option<PathBuf>,
}

impl Headed {
    fn open_first(&self, url: String, container: Option<String>) {
        let which = container.unwrap_or_else(|| {
            self.registry
                .lock()
                .expect("registry")
                .default_container()
                .id
                .to_string()
        });
        self.spawn_human_tab(url, which, true);
    }

    /// Opens a tab for the human in a container and brings it to the front, without waiting
    /// for its load (the window shows the spinner meanwhile).
    fn spawn_human_tab(&self, url: String, container: String, create: bool) {
        let (registry, sh, page) = (self.registry.clone(), self.shared.clone(), self.page);
        self.rt.spawn(async move {
            let r: Result<i32, String> = async {
                let (ctx, name) = crate::privacy::container_context(&registry, &container, create).await?;
                shared(&sh)
                    .contexts
                    .insert(container.clone(), (ctx.clone(), name.clone()));
                let opts = TabOptions {
                    size: (page.0, page.1),
                    scale: page.2,
                    meta: state::TabMeta {
                        container: name,
                        ..Default::default()
                    },
                    context: Some(ctx),
                };
                tab::on_ui(move || tab::create_browser(&url, opts))
                    .await
                    .and_then(|r| r)
                    .map_err(|e| e.to_string())
            }
            .await;
            match r {
                Ok(id) => shared(&sh).select = Some(id),
                Err(e) => eprintln!("aperture: could not open a tab: {e}"),
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

    fn select(&mut self, id: i32) {
        self.active = Some(id);
        shared(&self.shared).active = Some(id);
        self.fit(id);
        if let Some(h) = host_of(id) {
            // A tab that was in the background may have no current frame to show.
            crate::call!(h.invalidate(cef_paint_element_type_t::PET_VIEW));
        }
    }

    /// Gives a tab the page area's size (tabs the agent opened start at `--size`).
    fn fit(&self, id: i32) {
        let (w, h, scale) = self.page;
        let changed = state::with(|st| match st.tabs.get_mut(&id) {
            Some(t) if t.size != (w, h) || (t.scale - scale).abs() > 1e-3 => {
                t.size = (w, h);
                t.scale = scale;
                true
            }
            _ => false,
        });
        if changed && let Some(host) = host_of(id) {
            crate::call!(host.notify_screen_info_changed());
            crate::call!(host.was_resized());
        }
    }

    fn open_popups(&mut self) {
        let popups = std::mem::take(&mut *self.popups.borrow_mut());
        for (opener, url) in popups {
            // Same request context (container) and provenance as the page that opened it.
            let Some((host, meta)) =
                state::with(|st| st.tabs.get(&opener).map(|t| (t.host.clone(), t.meta.clone())))
            else {
                continue;
            };
            let ctx = Ref::adopt(crate::call!(host.get_request_context()));
            let opts = TabOptions {
                size: (self.page.0, self.page.1),
                scale: self.page.2,
                meta: state::TabMeta {
                    human_driving: false,
                    ..meta
                },
                context: ctx,
            };
            match tab::create_browser(&url, opts) {
                Ok(id) => {
                    self.created.insert(id, url);
                    if self.active == Some(opener) {
                        self.select(id);
                    }
                }
                Err(e) => eprintln!("aperture: could not open the popup {url}: {e}"),
            }
        }
    }

    /// Mirrors `state` into the model; repaints when anything visible changed.
    fn sync_model(&mut self) {
        let order: Vec<i32> = state::with(|st| st.order.clone());
        // Bring a requested tab forward; otherwise keep the active tab or pick a neighbour.
        let want = shared(&self.shared).select.take();
        if let Some(id) = want.filter(|id| order.contains(id)) {
            self.select(id);
        } else if let Some(id) = want {
            // Not registered yet (the job creating it runs later): try again next pump.
            shared(&self.shared).select.get_or_insert(id);
        }
        if self.active.is_none_or(|a| !order.contains(&a)) {
            let next = self.active.and_then(|gone| {
                let i = self.order.iter().position(|x| *x == gone)?;
                self.order[..i]
                    .iter()
                    .rev()
                    .chain(self.order[i + 1..].iter())
                    .find(|x| order.contains(x))
                    .copied()
            });
            match next.or_else(|| order.last().copied()) {
                Some(id) => self.select(id),
                None => {
                    self.active = None;
                    shared(&self.shared).active = None;
                }
            }
        }
        self.order = order;

        let touched = shared(&self.shared).agent_touched.clone();
        let registry = self.registry.lock().expect("registry");
        let containers: Vec<ContainerInfo> = registry
            .containers()
            .iter()
            .map(|c| ContainerInfo {
                id: c.id.to_string(),
                name: c.name.clone(),
                colour: hex_rgb(c.colour.rgb()),
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
        let (tabs, frame, cursor) = state::with(|st| {
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
                        });
                    let url = match self.created.get(&id) {
                        Some(u) if t.url.is_empty() => u.clone(),
                        _ => t.url.clone(),
                    };
                    TabView {
                        id: TabId(id as u64),
                        title: t.title.clone(),
                        url,
                        loading: t.loading,
                        can_go_back: t.can_back,
                        can_go_forward: t.can_forward,
                        container,
                        agent_driving: t.meta.opened_by_agent || touched.contains(&id),
                        human_driving: t.meta.human_driving,
                        theme: dark::site_key(&t.url).map(|s| policies.mode_for_site(&s)),
                    }
                })
                .collect();
            let active = self.active.and_then(|a| st.tabs.get(&a).map(|t| (a, t)));
            let frame = active.and_then(|(a, t)| {
                let f = t.frame.as_ref()?;
                (self.shown != Some((a, t.frame_seq))).then(|| (a, t.frame_seq, f.clone()))
            });
            let cursor = active.map(|(_, t)| t.cursor).unwrap_or(0);
            (tabs, frame, cursor)
        });
        // Tabs the agent opened start at `--size`; the window's size is the one it will see.
        for id in first_seen {
            self.fit(id);
        }
        let ids: HashSet<i32> = self.order.iter().copied().collect();
        self.was_loading.retain(|id, _| ids.contains(id));
        self.created.retain(|id, _| ids.contains(id));
        self.dark.retain(|id, _| ids.contains(id));

        let mut m = self.model.lock().unwrap_or_else(|p| p.into_inner());
        let mut changed = m.tabs != tabs
            || m.active != self.active.map(|a| TabId(a as u64))
            || m.containers != containers
            || m.default_container != default_container;
        m.tabs = tabs;
        m.active = self.active.map(|a| TabId(a as u64));
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

    /// Starts a dark-mode plan for a tab: for a new document (`doc`), or again for the same
    /// one after a setting changed (`None`, reusing the latched measurement).
    fn plan_dark(&mut self, id: i32, doc: Option<String>) {
        let human = self.human();
        let filter = self.settings.theme.filter;
        let d = self.dark.entry(id).or_default();
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
        let mode = self.settings.theme.policies.mode_for_url(&d.doc);
        let (doc, measured, darkened) = (d.doc.clone(), d.measured, d.darkened);
        let sh = self.shared.clone();
        self.rt.spawn(async move {
            let out = apply_dark(Tab { id }, doc, mode, human, filter, measured, darkened).await;
            shared(&sh).dark_done.insert(id, out);
        });
    }

    fn collect_dark(&mut self) {
        let done: Vec<(i32, DarkOutcome)> = shared(&self.shared).dark_done.drain().collect();
        for (id, out) in done {
            let Some(d) = self.dark.get_mut(&id) else { continue };
            d.busy = false;
            d.darkened = out.darkened;
            if d.doc == out.doc {
                d.measured = out.measured;
            }
            // A navigation or a setting changed while the plan ran.
            if d.again || d.doc != out.doc {
                self.plan_dark(id, None);
            }
        }
    }

    fn replan_all(&mut self, site: Option<&str>) {
        let ids: Vec<i32> = self
            .dark
            .iter()
            .filter(|(_, d)| site.is_none_or(|s| dark::site_key(&d.doc).as_deref() == Some(s)))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.plan_dark(id, None);
        }
    }

    fn begin_close(&mut self) {
        if self.closing.is_none() {
            self.closing = Some(Instant::now());
            tab::begin_shutdown();
        }
    }

    fn page_input(&mut self, id: i32, input: PageInput) {
        let Some(h) = host_of(id) else { return };
        match input {
            PageInput::MouseMove { x, y, modifiers } => {
                let e = mouse_event(x, y, &modifiers);
                self.last_mouse = (e.x, e.y);
                crate::call!(h.send_mouse_move_event(&e, 0));
            }
            PageInput::MouseLeave { modifiers } => {
                let e = cef_mouse_event_t {
                    x: self.last_mouse.0,
                    y: self.last_mouse.1,
                    modifiers: flags(&modifiers),
                };
                crate::call!(h.send_mouse_move_event(&e, 1));
            }
            PageInput::MouseDown {
                x,
                y,
                button,
                click_count,
                modifiers,
            } => {
                let e = mouse_event(x, y, &modifiers);
                crate::call!(h.set_focus(1));
                crate::call!(h.send_mouse_click_event(&e, cef_button(button), 0, click_count as i32));
            }
            PageInput::MouseUp {
                x,
                y,
                button,
                click_count,
                modifiers,
            } => {
                let e = mouse_event(x, y, &modifiers);
                crate::call!(h.send_mouse_click_event(&e, cef_button(button), 1, click_count as i32));
            }
            PageInput::Wheel {
                x,
                y,
                delta_x,
                delta_y,
                modifiers,
            } => {
                let e = mouse_event(x, y, &modifiers);
                crate::call!(h.send_mouse_wheel_event(&e, delta_x.round() as i32, delta_y.round() as i32));
            }
            PageInput::KeyDown(k) => {
                crate::call!(h.send_key_event(&key_event(&k, cef_key_event_type_t::KEYEVENT_RAWKEYDOWN, 0)));
                if let Some(c) = k.character {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf).iter() {
                        crate::call!(h.send_key_event(&key_event(
                            &k,
                            cef_key_event_type_t::KEYEVENT_CHAR,
                            *u
                        )));
                    }
                }
            }
            PageInput::KeyUp(k) => {
                crate::call!(h.send_key_event(&key_event(&k, cef_key_event_type_t::KEYEVENT_KEYUP, 0)));
            }
            PageInput::Text { text } => {
                for u in text.encode_utf16() {
                    let e = cef_key_event_t {
                        type_: cef_key_event_type_t::KEYEVENT_CHAR,
                        modifiers: 0,
                        windows_key_code: u as i32,
                        native_key_code: 0,
                        is_system_key: 0,
                        character: u,
                        unmodified_character: u,
                        focus_on_editable_field: 0,
                    };
                    crate::call!(h.send_key_event(&e));
                }
            }
            PageInput::ImeComposition { text } => {
                let s = CefStr::new(&text);
                let n = text.encode_utf16().count() as u32;
                let invalid = cef_range_t {
                    from: u32::MAX,
                    to: u32::MAX,
                };
                let caret = cef_range_t { from: n, to: n };
                if text.is_empty() {
                    crate::call!(h.ime_cancel_composition());
                } else {
                    crate::call!(h.ime_set_composition(s.as_ptr(), 0, std::ptr::null(), &invalid, &caret));
                }
            }
            PageInput::ImeCommit { text } => {
                let s = CefStr::new(&text);
                let invalid = cef_range_t {
                    from: u32::MAX,
                    to: u32::MAX,
                };
                crate::call!(h.ime_commit_text(s.as_ptr(), &invalid, 0));
            }
        }
    }
}

impl Host for Headed {
    fn apply(&mut self, cmd: UiCommand) {
        if self.settings.apply(&cmd) {
            self.save_soon();
            shared(&self.shared).policies = self.settings.theme.policies.clone();
        }
        let id_of = |t: TabId| t.0 as i32;
        match cmd {
            UiCommand::NewTab { container } => {
                let known = shared(&self.shared).contexts.get(&container).cloned();
                match known {
                    Some((ctx, name)) => {
                        let opts = TabOptions {
                            size: (self.page.0, self.page.1),
                            scale: self.page.2,
                            meta: state::TabMeta {
                                container: name,
                                ..Default::default()
                            },
                            context: Some(ctx),
                        };
                        match tab::create_browser("about:blank", opts) {
                            Ok(id) => {
                                self.created.insert(id, "about:blank".into());
                                self.select(id);
                            }
                            Err(e) => eprintln!("aperture: could not open a tab: {e}"),
                        }
                    }
                    None => self.spawn_human_tab("about:blank".into(), container, false),
                }
            }
            UiCommand::CloseTab { tab } => {
                if let Some(h) = host_of(id_of(tab)) {
                    crate::call!(h.close_browser(1));
                }
            }
            UiCommand::SelectTab { tab } => self.select(id_of(tab)),
            UiCommand::Navigate { tab, url, .. } => {
                let id = id_of(tab);
                let Some(b) = browser_of(id) else { return };
                state::with(|st| {
                    if let Some(t) = st.tabs.get_mut(&id) {
                        // What we knew about the previous document no longer applies.
                        t.document_at = None;
                        t.status = 0;
                    }
                });
                if let Some(f) = Ref::adopt(crate::call!(b.get_main_frame())) {
                    let u = CefStr::new(&url);
                    crate::call!(f.load_url(u.as_ptr()));
                }
            }
            UiCommand::Back { tab } => {
                if let Some(b) = browser_of(id_of(tab)) {
                    crate::call!(b.go_back());
                }
            }
            UiCommand::Forward { tab } => {
                if let Some(b) = browser_of(id_of(tab)) {
                    crate::call!(b.go_forward());
                }
            }
            UiCommand::Reload { tab } => {
                if let Some(b) = browser_of(id_of(tab)) {
                    crate::call!(b.reload());
                }
            }
            UiCommand::Stop { tab } => {
                if let Some(b) = browser_of(id_of(tab)) {
                    crate::call!(b.stop_load());
                }
            }
            UiCommand::TakeOver { tab } => set_human_driving(id_of(tab), true),
            UiCommand::HandBack { tab } => set_human_driving(id_of(tab), false),
            UiCommand::SetTheme { site, .. } => self.replan_all(Some(&site)),
            UiCommand::SetDarkFilter { .. } => self.replan_all(None),
            UiCommand::OpenVault => {
                eprintln!("aperture: the vault window is not available in this build");
            }
            UiCommand::PageFocus { tab, focused } => {
                if let Some(h) = host_of(id_of(tab)) {
                    crate::call!(h.set_focus(focused as i32));
                }
            }
            UiCommand::Page { tab, input } => self.page_input(id_of(tab), input),
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
            UiCommand::CloseRequested => self.begin_close(),
        }
        // Commands change state the model mirrors (human_driving, the active tab).
        self.sync_model();
    }

    fn do_work(&mut self) {
        while let Ok(job) = self.rx.try_recv() {
            job();
        }
        state::pump().work(true);
        // Notifications CEF's callbacks posted during that work.
        while let Ok(job) = self.rx.try_recv() {
            job();
        }
        self.open_popups();
        let requests = std::mem::take(&mut shared(&self.shared).theme_requests);
        for (site, mode) in requests {
            // The agent's choice goes the human's way: into settings, shown in the menu.
            self.apply(UiCommand::SetTheme { site, mode });
        }
        self.collect_dark();
        self.sync_model();
        if self.save_due.is_some_and(|t| t <= Instant::now()) {
            self.save_now();
        }
        if self.done.load(Ordering::SeqCst) {
            self.begin_close();
        }
        if let Some(t) = self.closing
            && !self.quit_sent
            && (state::with(|st| st.tabs.is_empty()) || t.elapsed() > CLOSE_GRACE)
        {
            self.quit_sent = true;
            self.waker.quit();
        }
        // Wake again when CEF asked to (the runner keeps the earliest deadline).
        let mut next = state::pump().next_timeout(MAX_PUMP_IDLE);
        if let Some(t) = self.save_due {
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
            if state::with(|st| st.tabs.is_empty()) {
                break;
            }
            while let Ok(job) = self.rx.try_recv() {
                job();
            }
            state::pump().work(true);
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn screenshot(&mut self, shot: WindowShot) {
        let Some(p) = &self.shot_path else { return };
        // PPM: no encoder needed, and the tests read it back trivially.
        let mut out = format!("P6\n{} {}\n255\n", shot.width, shot.height).into_bytes();
        for px in shot.rgba.chunks_exact(4) {
            out.extend_from_slice(&px[..3]);
        }
        let tmp = p.with_extension("tmp");
        if std::fs::write(&tmp, out)
            .and_then(|_| std::fs::rename(&tmp, p))
            .is_err()
        {
            eprintln!("aperture: could not write {}", p.display());
        }
    }
}

fn host_of(id: i32) -> Option<Ref<cef_browser_host_t>> {
    state::with(|st| st.tabs.get(&id).map(|t| t.host.clone()))
}

fn browser_of(id: i32) -> Option<Ref<cef_browser_t>> {
    state::with(|st| st.tabs.get(&id).map(|t| t.browser.clone()))
}

fn set_human_driving(id: i32, on: bool) {
    state::with(|st| {
        if let Some(t) = st.tabs.get_mut(&id) {
            t.meta.human_driving = on;
        }
    });
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
    let send = |c: dark::CdpCall| async move { tab.devtools(c.method, c.params).await };
    let eval = |js: String| async move {
        tab.devtools(
            "Runtime.evaluate",
            serde_json::json!({"expression": js, "returnByValue": true}),
        )
        .await
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
        tracing::warn!(tab = tab.id, "dark-mode stylesheet: {e}");
    }
    DarkOutcome {
        doc,
        measured,
        darkened: *force_dark || css.is_some(),
    }
}

fn hex_rgb(s: &str) -> Rgb {
    let v = u32::from_str_radix(s.trim_start_matches('#'), 16).unwrap_or(0x8f8f9d);
    Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

fn flags(m: &Modifiers) -> u32 {
    let mut f = 0;
    for (on, bit) in [
        (m.shift, 1 << 1),
        (m.ctrl, 1 << 2),
        (m.alt, 1 << 3),
        (m.left_button, 1 << 4),
        (m.middle_button, 1 << 5),
        (m.right_button, 1 << 6),
        (m.meta, 1 << 7),
    ] {
        if on {
            f |= bit;
        }
    }
    f
}

fn mouse_event(x: f32, y: f32, m: &Modifiers) -> cef_mouse_event_t {
    cef_mouse_event_t {
        x: x.round() as i32,
        y: y.round() as i32,
        modifiers: flags(m),
    }
}

fn cef_button(b: MouseButton) -> cef_mouse_button_type_t {
    match b {
        MouseButton::Left => cef_mouse_button_type_t::MBT_LEFT,
        MouseButton::Middle => cef_mouse_button_type_t::MBT_MIDDLE,
        MouseButton::Right => cef_mouse_button_type_t::MBT_RIGHT,
    }
}

fn key_event(k: &KeyInput, kind: cef_key_event_type_t, ch: u16) -> cef_key_event_t {
    const IS_KEY_PAD: u32 = 1 << 9;
    const IS_REPEAT: u32 = 1 << 13;
    let mut m = flags(&k.modifiers);
    if k.is_keypad {
        m |= IS_KEY_PAD;
    }
    if k.repeat {
        m |= IS_REPEAT;
    }
    cef_key_event_t {
        type_: kind,
        modifiers: m,
        // CHAR events carry the character in the key code too, as Chromium's GTK path does.
        windows_key_code: if ch != 0 { ch as i32 } else { k.windows_key_code },
        native_key_code: k.native_key_code,
        is_system_key: 0,
        character: ch,
        unmodified_character: ch,
        focus_on_editable_field: 0,
    }
}

fn cursor_shape(kind: i32) -> CursorShape {
    use CursorShape as C;
    match kind {
        1 => C::Crosshair,
        2 => C::Pointer,
        3 | 30 => C::Text,
        4 => C::Wait,
        5 => C::Help,
        6 | 13 | 15 => C::ResizeHorizontal,
        7 | 10 | 14 => C::ResizeVertical,
        9 | 11 | 17 => C::ResizeNwSe,
        8 | 12 | 16 => C::ResizeNeSw,
        18 => C::ResizeColumn,
        19 => C::ResizeRow,
        20..=29 => C::Move,
        34 => C::Progress,
        35 | 38 => C::NotAllowed,
        37 => C::None,
        39 => C::ZoomIn,
        40 => C::ZoomOut,
        41 => C::Grab,
        42 => C::Grabbing,
        _ => C::Default,
    }
}

// ---------------------------------------------------------------------------------------------
// The agent's backend in headed mode: the same AppBackend, plus what the window needs to know
// (which tabs the agent drives, which tab is in front).

struct Tracked {
    inner: crate::backend::AppBackend,
    shared: SharedRef,
}

impl Tracked {
    fn touch(&self, id: mb::TabId) {
        shared(&self.shared).agent_touched.insert(id.0 as i32);
    }
}

#[async_trait]
impl mb::Backend for Tracked {
    async fn tabs(&self) -> mb::BackendResult<Vec<mb::TabInfo>> {
        let mut list = self.inner.tabs().await?;
        let active = shared(&self.shared).active;
        for t in &mut list {
            t.active = active == Some(t.id.0 as i32);
        }
        Ok(list)
    }
    async fn open_tab(&self, url: Option<String>, container: Option<String>) -> mb::BackendResult<mb::TabId> {
        self.inner.open_tab(url, container).await
    }
    async fn close_tab(&self, id: mb::TabId) -> mb::BackendResult<()> {
        self.inner.close_tab(id).await
    }
    async fn select_tab(&self, id: mb::TabId) -> mb::BackendResult<()> {
        self.inner.select_tab(id).await?;
        // The human sees what the agent looks at, unless they are driving the tab in front.
        let front = shared(&self.shared).active;
        let front_is_human = match front {
            Some(a) => {
                tab::on_ui(move || state::with(|st| st.tabs.get(&a).is_some_and(|t| t.meta.human_driving)))
                    .await
                    .unwrap_or(false)
            }
            None => false,
        };
        if !front_is_human {
            shared(&self.shared).select = Some(id.0 as i32);
        }
        Ok(())
    }
    async fn navigate(&self, id: mb::TabId, nav: mb::Nav) -> mb::BackendResult<mb::LoadOutcome> {
        let r = self.inner.navigate(id, nav).await;
        if !matches!(r, Err(mb::BackendError::HumanDriving { .. })) {
            self.touch(id);
        }
        r
    }
    async fn settle(&self, id: mb::TabId, max: Duration) -> mb::BackendResult<()> {
        self.inner.settle(id, max).await
    }
    async fn document(&self, id: mb::TabId) -> mb::BackendResult<Option<u64>> {
        self.inner.document(id).await
    }
    async fn walk(&self, id: mb::TabId) -> mb::BackendResult<mb::Walk> {
        self.inner.walk(id).await
    }
    async fn element(
        &self,
        id: mb::TabId,
        walk_id: u64,
        idx: u32,
        op: mb::ElementOp,
    ) -> mb::BackendResult<mb::ElementReply> {
        self.inner.element(id, walk_id, idx, op).await
    }
    async fn page_text(&self, id: mb::TabId, cap: usize) -> mb::BackendResult<mb::PageText> {
        self.inner.page_text(id, cap).await
    }
    async fn click_at(
        &self,
        id: mb::TabId,
        x: f32,
        y: f32,
        button: mb::MouseButton,
        count: u8,
    ) -> mb::BackendResult<()> {
        let r = self.inner.click_at(id, x, y, button, count).await;
        if r.is_ok() {
            self.touch(id);
        }
        r
    }
    async fn move_to(&self, id: mb::TabId, x: f32, y: f32) -> mb::BackendResult<()> {
        self.inner.move_to(id, x, y).await
    }
    async fn scroll(&self, id: mb::TabId, x: f32, y: f32, dx: f32, dy: f32) -> mb::BackendResult<()> {
        let r = self.inner.scroll(id, x, y, dx, dy).await;
        if r.is_ok() {
            self.touch(id);
        }
        r
    }
    async fn key(&self, id: mb::TabId, key: &str) -> mb::BackendResult<()> {
        let r = self.inner.key(id, key).await;
        if r.is_ok() {
            self.touch(id);
        }
        r
    }
    async fn type_text(&self, id: mb::TabId, text: &str) -> mb::BackendResult<()> {
        let r = self.inner.type_text(id, text).await;
        if r.is_ok() {
            self.touch(id);
        }
        r
    }
    async fn screenshot(&self, id: mb::TabId, max_long_edge: u32) -> mb::BackendResult<mb::Png> {
        self.inner.screenshot(id, max_long_edge).await
    }
    async fn console(&self, id: mb::TabId) -> mb::BackendResult<Vec<mb::ConsoleEntry>> {
        self.inner.console(id).await
    }
    /// The window's per-site policy (the same one the human's menu sets), not a separate
    /// agent-only table: the two must never disagree about how a site looks.
    async fn theme(
        &self,
        target: mb::ThemeTarget,
        set: Option<mb::ThemeMode>,
    ) -> mb::BackendResult<mb::ThemeState> {
        let site = match target {
            mb::ThemeTarget::Host(h) => dark::site_key(&format!("https://{h}/")).unwrap_or(h),
            mb::ThemeTarget::Tab(id) => {
                let url = self
                    .inner
                    .tabs()
                    .await?
                    .into_iter()
                    .find(|t| t.id == id)
                    .ok_or(mb::BackendError::NoSuchTab(id))?
                    .url;
                dark::site_key(&url).ok_or(mb::BackendError::Other(format!(
                    "the tab shows {url:?}, which has no site to set a theme for"
                )))?
            }
        };
        let mut sh = shared(&self.shared);
        let mode = match set {
            Some(m) => {
                let m = match m {
                    mb::ThemeMode::Auto => ThemeMode::Auto,
                    mb::ThemeMode::On => ThemeMode::On,
                    mb::ThemeMode::Off => ThemeMode::Off,
                };
                sh.theme_requests.push((site.clone(), m));
                m
            }
            None => sh.policies.mode_for_site(&site),
        };
        Ok(mb::ThemeState {
            host: site,
            mode: match mode {
                ThemeMode::Auto => mb::ThemeMode::Auto,
                ThemeMode::On => mb::ThemeMode::On,
                ThemeMode::Off => mb::ThemeMode::Off,
            },
        })
    }
    async fn containers(&self) -> mb::BackendResult<Vec<mb::ContainerInfo>> {
        self.inner.containers().await
    }
    async fn vault_entries(&self, id: mb::TabId) -> mb::BackendResult<Vec<mb::VaultEntry>> {
        self.inner.vault_entries(id).await
    }
    async fn vault_entries_for_tab(&self, id: mb::TabId) -> mb::BackendResult<mb::VaultEntries> {
        self.inner.vault_entries_for_tab(id).await
    }
    async fn vault_fill(
        &self,
        id: mb::TabId,
        entry: &str,
        targets: Vec<mb::VaultTarget>,
    ) -> mb::BackendResult<()> {
        let r = self.inner.vault_fill(id, entry, targets).await;
        if r.is_ok() {
            self.touch(id);
        }
        r
    }
}
