//! The winit + glutin + egui_glow window that hosts the chrome, with an
//! externally pumped message loop for CEF.
//!
//! See the crate docs for the integration contract.

//! The GL bootstrap (context, window surfaces, the glow loader, the BGRA page
//! texture) is made of glutin and glow calls whose preconditions the compiler
//! cannot check, so it is done by `cef::gl`, the workspace's one crate allowed
//! such code; this crate forbids it. The only safe
//! stacks (eframe, wgpu) would replace this runner and its CEF-pumped event
//! loop. The native BGRA upload can fall back to the CPU path
//! (`APERTURE_UI_CPU_UPLOAD`) at a per-frame swizzle cost.

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cef::gl::{BgraTexture, Gl, GlError, GlWindow};
use egui::{Event, Key, ViewportId};
use egui_glow::glow::HasContext as _;
use glutin::context::PossiblyCurrentGlContext as _;
use glutin::surface::{GlSurface as _, SwapInterval};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::window::{WindowAttributes, WindowId};

use crate::chrome::{Chrome, ExternalPageTexture};
use crate::command::UiCommand;
use crate::model::{ChromeModel, PageFrame};

/// Events other threads (and CEF callbacks) send into the UI loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UiEvent {
    /// The model changed (CEF painted, a title changed, …): redraw.
    Repaint,
    /// CEF's `OnScheduleMessagePumpWork(delay_ms)`: call
    /// [`Host::do_work`] after `delay`.
    ScheduleWork(Duration),
    /// Read the window back after the next paint and hand it to
    /// [`Host::screenshot`].
    Screenshot,
    /// Leave the event loop ([`run`] returns).
    Quit,
}

/// The window's pixels as painted (chrome and page), top row first.
#[derive(Debug, Clone)]
pub struct WindowShot {
    /// Width in physical pixels.
    pub width: u32,
    /// Height in physical pixels.
    pub height: u32,
    /// `width * height * 4` bytes of RGBA.
    pub rgba: Vec<u8>,
}

impl WindowShot {
    /// The pixel at `(x, y)` as `[r, g, b, a]`.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
}

/// Cloneable, `Send` handle for waking the UI loop from any thread.
#[derive(Clone, Debug)]
pub struct UiWaker {
    proxy: EventLoopProxy<UiEvent>,
}

impl UiWaker {
    /// A waker for `event_loop`; create it before calling [`run`].
    pub fn new(event_loop: &EventLoop<UiEvent>) -> Self {
        UiWaker {
            proxy: event_loop.create_proxy(),
        }
    }

    /// Redraw soon. Cheap; call it after every model change that should
    /// show (at least every `OnPaint`).
    pub fn request_repaint(&self) {
        // Sending only fails once the loop is gone, when nothing needs waking.
        let _ = self.proxy.send_event(UiEvent::Repaint);
    }

    /// Ask for [`Host::do_work`] after `delay` (zero = as soon as possible).
    /// Call it from CEF's `OnScheduleMessagePumpWork`, on any thread.
    pub fn schedule_work(&self, delay: Duration) {
        let _ = self.proxy.send_event(UiEvent::ScheduleWork(delay));
    }

    /// Capture the window after its next paint ([`Host::screenshot`]).
    /// For tests: it reads the GL back buffer, so it sees exactly what was
    /// drawn without an X server screenshot tool.
    pub fn request_screenshot(&self) {
        let _ = self.proxy.send_event(UiEvent::Screenshot);
    }

    /// Make [`run`] return after the current iteration.
    pub fn quit(&self) {
        let _ = self.proxy.send_event(UiEvent::Quit);
    }
}

/// What the application plugs into [`run`]. All methods are called on the
/// main thread, from inside the event loop, never while the model lock is
/// held.
pub trait Host {
    /// Apply one command from the chrome.
    fn apply(&mut self, command: UiCommand);
    /// Do a slice of CEF work: `cef_do_message_loop_work()`.
    fn do_work(&mut self);
    /// The loop is about to return; CEF browsers should be closed by now.
    fn exiting(&mut self) {}
    /// Events for windows other than the browser window. The runner owns
    /// the event loop, so a second window (the password vault, which must
    /// not be a tab and so not be addressable by the agent) is created by
    /// the app in [`Host::event_loop_idle`] and driven from here.
    fn other_window_event(&mut self, event_loop: &ActiveEventLoop, id: WindowId, event: WindowEvent) {
        let _ = (event_loop, id, event);
    }
    /// Called once per loop iteration before the loop sleeps, with the
    /// event loop, e.g. to open the vault window after
    /// [`UiCommand::OpenVault`].
    fn event_loop_idle(&mut self, event_loop: &ActiveEventLoop) {
        let _ = event_loop;
    }
    /// Windows to open now, each drawn by its own [`WindowUi`] with its own
    /// egui context (polled once per loop iteration). This is how the vault
    /// window is opened after [`UiCommand::OpenVault`]: a plain OS window,
    /// never a tab, so nothing the agent can name reaches it, and it isn't
    /// CEF-rendered, so no page screenshot can contain it.
    fn take_window_requests(&mut self) -> Vec<(WindowSpec, Box<dyn WindowUi>)> {
        Vec::new()
    }
    /// A capture asked for with [`UiWaker::request_screenshot`].
    fn screenshot(&mut self, shot: WindowShot) {
        let _ = shot;
    }
}

/// An extra egui window, e.g. the password vault.
pub trait WindowUi {
    /// Draw one frame. Called on the main thread, on input, on
    /// [`UiWaker::request_repaint`] and on egui's own timers.
    fn ui(&mut self, ui: &mut egui::Ui);
    /// The human asked to close the window; `true` closes it.
    fn close_requested(&mut self) -> bool {
        true
    }
    /// The window closed (after `close_requested`, or at exit).
    fn closed(&mut self) {}
}

/// Size and title of a window from [`Host::take_window_requests`].
#[derive(Debug, Clone)]
pub struct WindowSpec {
    /// Title.
    pub title: String,
    /// Logical width.
    pub width: u32,
    /// Logical height.
    pub height: u32,
}

/// Window and pump settings for [`run`].
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Title used when no tab has one.
    pub title: String,
    /// Initial inner size in logical pixels.
    pub width: u32,
    /// Initial inner size in logical pixels.
    pub height: u32,
    /// Longest time between [`Host::do_work`] calls even without a
    /// `schedule_work`, as CEF's own external-pump sample does (1/30 s):
    /// some CEF work is never announced. `None` only pumps on request.
    pub max_work_interval: Option<Duration>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            title: "Aperture".to_string(),
            width: 1280,
            height: 800,
            max_work_interval: Some(Duration::from_millis(33)),
        }
    }
}

/// Why the window couldn't run.
#[derive(Debug, thiserror::Error)]
pub enum UiError {
    /// winit failed (no display, …).
    #[error("event loop: {0}")]
    EventLoop(#[from] winit::error::EventLoopError),
    /// No usable OpenGL / GLES context or surface.
    #[error("OpenGL setup: {0}")]
    Gl(String),
    /// The window couldn't be created.
    #[error("window: {0}")]
    Window(String),
}

impl From<GlError> for UiError {
    fn from(e: GlError) -> Self {
        match e {
            GlError::Window(e) => UiError::Window(e),
            e => UiError::Gl(e.to_string()),
        }
    }
}

/// Create the event loop [`run`] needs. Must be called on the main thread,
/// once per process (a winit rule).
pub fn event_loop() -> Result<EventLoop<UiEvent>, UiError> {
    Ok(EventLoop::<UiEvent>::with_user_event().build()?)
}

/// Open the browser window and run until [`UiWaker::quit`]. Blocks the
/// main thread; CEF work happens inside through [`Host::do_work`].
pub fn run(
    event_loop: EventLoop<UiEvent>,
    options: RunOptions,
    model: Arc<Mutex<ChromeModel>>,
    host: impl Host,
) -> Result<(), UiError> {
    let mut app = App {
        options,
        model,
        host,
        chrome: Chrome::new(),
        gfx: None,
        error: None,
        next_work: None,
        next_repaint: None,
        want_screenshot: false,
        title: String::new(),
        raised: 0,
        clipboard: arboard::Clipboard::new().ok(),
        secondaries: std::collections::HashMap::new(),
        #[cfg(target_os = "linux")]
        x_pointer: None,
    };
    event_loop.set_control_flow(ControlFlow::Wait);
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

// Field order is drop order: the painter before the surface (dropped with its
// window in `GlWindow`) before the context.
struct Gfx {
    painter: egui_glow::Painter,
    main: GlWindow,
    gl: Gl,
    egui_ctx: egui::Context,
    egui_winit: egui_winit::State,
    shown: bool,
    /// Desktop GL can take CEF's BGRA as is; GLES (the fallback context)
    /// can't portably, so it gets the chrome's CPU-converted texture.
    bgra_upload: bool,
    native_page: Option<NativePage>,
}

/// An extra window sharing the main GL context (made current on its own
/// surface while it draws). It has its own painter because egui texture ids
/// are per egui context and would collide in a shared one.
struct Secondary {
    painter: egui_glow::Painter,
    win: GlWindow,
    egui_ctx: egui::Context,
    egui_winit: egui_winit::State,
    ui: Box<dyn WindowUi>,
    shown: bool,
}

/// The page frame as a GL texture filled directly from BGRA.
struct NativePage {
    tex: BgraTexture,
    id: egui::TextureId,
    generation: u64,
}

struct App<H: Host> {
    options: RunOptions,
    model: Arc<Mutex<ChromeModel>>,
    host: H,
    chrome: Chrome,
    gfx: Option<Gfx>,
    error: Option<UiError>,
    next_work: Option<Instant>,
    next_repaint: Option<Instant>,
    want_screenshot: bool,
    /// The model's last [`ChromeModel::raise`] acted on.
    raised: u64,
    title: String,
    clipboard: Option<arboard::Clipboard>,
    secondaries: std::collections::HashMap<WindowId, Secondary>,
    /// Asks X where the pointer is while files are dragged over the window (made on first use).
    #[cfg(target_os = "linux")]
    x_pointer: Option<crate::xpointer::XPointer>,
}

impl<H: Host> App<H> {
    fn open_requested_windows(&mut self, event_loop: &ActiveEventLoop) {
        let requests = self.host.take_window_requests();
        let Some(gfx) = &self.gfx else { return };
        for (spec, ui) in requests {
            match open_secondary(event_loop, gfx, spec, ui) {
                Ok(sec) => {
                    sec.win.window().request_redraw();
                    self.secondaries.insert(sec.win.window().id(), sec);
                }
                Err(e) => eprintln!("aperture-ui: cannot open window: {e}"),
            }
        }
    }

    fn redraw_secondary(&mut self, id: WindowId) {
        let (Some(gfx), Some(sec)) = (&self.gfx, self.secondaries.get_mut(&id)) else {
            return;
        };
        if let Err(e) = gfx.gl.context().make_current(sec.win.surface()) {
            eprintln!("aperture-ui: make_current for a window failed: {e}");
            return;
        }
        let mut raw = sec.egui_winit.take_egui_input(sec.win.window());
        translate_clipboard(&mut raw, self.clipboard.as_mut(), false);
        let ui = &mut sec.ui;
        let output = sec.egui_ctx.run_ui(raw, |eui| ui.ui(eui));
        let mut platform = output.platform_output;
        take_copies(&mut platform, self.clipboard.as_mut());
        sec.egui_winit.handle_platform_output(sec.win.window(), platform);
        let size = sec.win.window().inner_size();
        let primitives = sec.egui_ctx.tessellate(output.shapes, output.pixels_per_point);
        let mut textures = output.textures_delta;
        sec.painter.clear([size.width, size.height], [0.1, 0.1, 0.1, 1.0]);
        sec.painter.paint_and_update_textures(
            [size.width, size.height],
            output.pixels_per_point,
            &primitives,
            &mut textures,
        );
        if let Err(e) = sec.win.surface().swap_buffers(gfx.gl.context()) {
            eprintln!("aperture-ui: swap_buffers failed: {e}");
        }
        if !sec.shown {
            sec.win.window().set_visible(true);
            sec.shown = true;
        }
        let viewport = output.viewport_output.get(&ViewportId::ROOT);
        // The one viewport command an extra window uses: a second click on the button that
        // opened it brings it to the front.
        if viewport.is_some_and(|v| v.commands.contains(&egui::ViewportCommand::Focus)) {
            sec.win.window().focus_window();
        }
        let delay = viewport.map_or(Duration::MAX, |v| v.repaint_delay);
        if delay.is_zero() {
            sec.win.window().request_redraw();
        } else if let Some(at) = Instant::now().checked_add(delay) {
            self.next_repaint = Some(self.next_repaint.map_or(at, |t| t.min(at)));
        }
        // The main window's redraw assumes its own surface is current.
        let _ = gfx.gl.context().make_current(gfx.main.surface());
    }

    fn close_secondary(&mut self, id: WindowId) {
        let Some(mut sec) = self.secondaries.remove(&id) else {
            return;
        };
        if let Some(gfx) = &self.gfx {
            let _ = gfx.gl.context().make_current(sec.win.surface());
            sec.painter.destroy();
            let _ = gfx.gl.context().make_current(gfx.main.surface());
        }
        sec.ui.closed();
    }

    fn request_redraw_all(&self) {
        if let Some(gfx) = &self.gfx {
            gfx.main.window().request_redraw();
        }
        for sec in self.secondaries.values() {
            sec.win.window().request_redraw();
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: UiError) {
        self.error = Some(e);
        event_loop.exit();
    }

    fn redraw(&mut self) {
        let Some(gfx) = &mut self.gfx else { return };
        if !self.secondaries.is_empty() {
            // Another window may have left its surface current.
            let _ = gfx.gl.context().make_current(gfx.main.surface());
        }
        let mut raw = gfx.egui_winit.take_egui_input(gfx.main.window());
        translate_clipboard(&mut raw, self.clipboard.as_mut(), self.chrome.page_focused());
        #[cfg(target_os = "linux")]
        if !raw.hovered_files.is_empty() || !raw.dropped_files.is_empty() {
            // Files from another application are over the window: winit says where nowhere,
            // so X is asked, and asked again soon while the drag goes on.
            if self.x_pointer.is_none() {
                self.x_pointer = crate::xpointer::XPointer::connect();
            }
            let window = gfx.main.window();
            if let Some((x, y)) = self.x_pointer.as_ref().and_then(|x| x.position(window)) {
                let ppp = window.scale_factor() as f32;
                raw.events
                    .push(egui::Event::PointerMoved(egui::pos2(x / ppp, y / ppp)));
            }
            if !raw.hovered_files.is_empty() {
                let at = Instant::now() + Duration::from_millis(50);
                self.next_repaint = Some(self.next_repaint.map_or(at, |t| t.min(at)));
            }
        }
        let (output, commands, title) = {
            let model = self.model.lock().unwrap_or_else(|p| p.into_inner());
            if gfx.bgra_upload {
                if let Some(frame) = &model.frame {
                    upload_native_page(gfx, frame);
                }
                self.chrome
                    .set_external_page_texture(gfx.native_page.as_ref().map(|n| ExternalPageTexture {
                        id: n.id,
                        size: n.tex.size(),
                        generation: n.generation,
                    }));
            }
            let (output, commands) = self.chrome.run(&gfx.egui_ctx, raw, &model);
            if model.raise != self.raised {
                self.raised = model.raise;
                // The window manager decides; under X this asks it with _NET_ACTIVE_WINDOW.
                gfx.main.window().focus_window();
            }
            let title = model.active_tab().map_or_else(
                || self.options.title.clone(),
                |t| format!("{} — Aperture", t.shown_title()),
            );
            (output, commands, title)
        };
        if title != self.title {
            gfx.main.window().set_title(&title);
            self.title = title;
        }

        let mut platform = output.platform_output;
        take_copies(&mut platform, self.clipboard.as_mut());
        gfx.egui_winit.handle_platform_output(gfx.main.window(), platform);

        let size = gfx.main.window().inner_size();
        let ppp = output.pixels_per_point;
        let primitives = gfx.egui_ctx.tessellate(output.shapes, ppp);
        let mut textures = output.textures_delta;
        gfx.painter.clear([size.width, size.height], [0.1, 0.1, 0.1, 1.0]);
        gfx.painter
            .paint_and_update_textures([size.width, size.height], ppp, &primitives, &mut textures);
        // Read the back buffer before the swap leaves it undefined.
        let shot = std::mem::take(&mut self.want_screenshot).then(|| {
            let image = gfx.painter.read_screen_rgba([size.width, size.height]);
            WindowShot {
                width: size.width,
                height: size.height,
                rgba: image.pixels.iter().flat_map(|c| c.to_array()).collect(),
            }
        });
        if let Err(e) = gfx.main.surface().swap_buffers(gfx.gl.context()) {
            eprintln!("aperture-ui: swap_buffers failed: {e}");
        }
        if !gfx.shown {
            // Shown only after the first frame so the human never sees an
            // uninitialised (often garbage) surface.
            gfx.main.window().set_visible(true);
            gfx.shown = true;
        }

        let delay = output
            .viewport_output
            .get(&ViewportId::ROOT)
            .map_or(Duration::MAX, |v| v.repaint_delay);
        if delay.is_zero() {
            gfx.main.window().request_redraw();
        } else if let Some(at) = Instant::now().checked_add(delay) {
            // Keep an earlier deadline another window asked for.
            self.next_repaint = Some(self.next_repaint.map_or(at, |t| t.min(at)));
        }

        for cmd in commands {
            self.host.apply(cmd);
        }
        if let Some(shot) = shot {
            self.host.screenshot(shot);
        }
    }
}

impl<H: Host> ApplicationHandler<UiEvent> for App<H> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match create_gfx(event_loop, &self.options) {
            Ok(gfx) => {
                let dark = match gfx.main.window().theme().or(event_loop.system_theme()) {
                    Some(t) => t == winit::window::Theme::Dark,
                    None => {
                        // winit can't tell (X11); ask the desktop, and make
                        // the chrome itself match when it answers.
                        let scheme = crate::dark::detect_system_scheme();
                        if let Some(s) = scheme {
                            gfx.egui_ctx.set_theme(match s {
                                crate::dark::ColorScheme::Dark => egui::Theme::Dark,
                                crate::dark::ColorScheme::Light => egui::Theme::Light,
                            });
                        }
                        scheme == Some(crate::dark::ColorScheme::Dark)
                    }
                };
                let size = gfx
                    .main
                    .window()
                    .inner_size()
                    .to_logical::<f64>(gfx.main.window().scale_factor());
                gfx.main.window().request_redraw();
                self.gfx = Some(gfx);
                self.host.apply(UiCommand::SystemTheme { dark });
                self.host.apply(UiCommand::WindowResized {
                    width: size.width.round() as u32,
                    height: size.height.round() as u32,
                });
                // CEF may have queued work before the window existed.
                self.next_work = Some(Instant::now());
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, id: WindowId, event: WindowEvent) {
        let Some(gfx) = &mut self.gfx else { return };
        if id != gfx.main.window().id() {
            if let Some(sec) = self.secondaries.get_mut(&id) {
                match &event {
                    WindowEvent::CloseRequested => {
                        if sec.ui.close_requested() {
                            self.close_secondary(id);
                        }
                    }
                    WindowEvent::RedrawRequested => self.redraw_secondary(id),
                    _ => {
                        if let WindowEvent::Resized(size) = &event
                            && let (Some(w), Some(h)) =
                                (NonZeroU32::new(size.width), NonZeroU32::new(size.height))
                        {
                            sec.win.surface().resize(gfx.gl.context(), w, h);
                        }
                        if sec.egui_winit.on_window_event(sec.win.window(), &event).repaint {
                            sec.win.window().request_redraw();
                        }
                    }
                }
            } else {
                // A window the app made itself in `event_loop_idle`.
                self.host.other_window_event(event_loop, id, event);
            }
            return;
        }
        match &event {
            WindowEvent::CloseRequested => {
                self.host.apply(UiCommand::CloseRequested);
                return;
            }
            WindowEvent::RedrawRequested => {
                self.redraw();
                return;
            }
            WindowEvent::Resized(size) => {
                if let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) {
                    gfx.main.surface().resize(gfx.gl.context(), w, h);
                }
                let logical = size.to_logical::<f64>(gfx.main.window().scale_factor());
                self.host.apply(UiCommand::WindowResized {
                    width: logical.width.round() as u32,
                    height: logical.height.round() as u32,
                });
            }
            WindowEvent::ThemeChanged(theme) => {
                self.host.apply(UiCommand::SystemTheme {
                    dark: *theme == winit::window::Theme::Dark,
                });
            }
            _ => {}
        }
        let Some(gfx) = &mut self.gfx else { return };
        let response = gfx.egui_winit.on_window_event(gfx.main.window(), &event);
        if response.repaint {
            gfx.main.window().request_redraw();
        }
        let _ = event_loop;
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: UiEvent) {
        match event {
            UiEvent::Repaint => self.request_redraw_all(),
            UiEvent::ScheduleWork(delay) => {
                let at = Instant::now() + delay;
                self.next_work = Some(self.next_work.map_or(at, |t| t.min(at)));
            }
            UiEvent::Screenshot => {
                self.want_screenshot = true;
                if let Some(gfx) = &self.gfx {
                    gfx.main.window().request_redraw();
                }
            }
            UiEvent::Quit => event_loop.exit(),
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        self.host.event_loop_idle(event_loop);
        self.open_requested_windows(event_loop);
        let now = Instant::now();
        if self.next_work.is_some_and(|t| t <= now) {
            self.next_work = None;
            self.host.do_work();
            if self.next_work.is_none() {
                self.next_work = self.options.max_work_interval.map(|d| Instant::now() + d);
            }
        }
        if self.next_repaint.is_some_and(|t| t <= now) {
            self.next_repaint = None;
            self.request_redraw_all();
        }
        let deadline = match (self.next_work, self.next_repaint) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        event_loop.set_control_flow(match deadline {
            Some(t) => ControlFlow::WaitUntil(t),
            None => ControlFlow::Wait,
        });
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        let ids: Vec<WindowId> = self.secondaries.keys().copied().collect();
        for id in ids {
            self.close_secondary(id);
        }
        self.host.exiting();
        if let Some(gfx) = &mut self.gfx {
            gfx.painter.destroy();
        }
    }
}

/// Upload a changed frame straight into the native texture (no swizzle).
fn upload_native_page(gfx: &mut Gfx, frame: &PageFrame) {
    let (w, h) = (frame.width, frame.height);
    let len = w as usize * h as usize * 4;
    if w == 0 || h == 0 || frame.bgra.len() < len {
        return;
    }
    if gfx
        .native_page
        .as_ref()
        .is_some_and(|n| n.generation == frame.generation)
    {
        return;
    }
    let mut page = match gfx.native_page.take() {
        Some(page) => page,
        None => {
            let Ok(tex) = BgraTexture::new(&gfx.gl) else {
                gfx.bgra_upload = false;
                return;
            };
            let id = gfx.painter.register_native_texture(tex.native());
            NativePage {
                tex,
                id,
                generation: frame.generation,
            }
        }
    };
    if let Err(e) = page.tex.upload(&gfx.gl, w, h, &frame.bgra) {
        eprintln!("aperture-ui: page upload failed: {e}");
    }
    page.generation = frame.generation;
    gfx.native_page = Some(page);
}

/// Send egui's copy requests to the system clipboard ourselves (egui-winit's
/// clipboard feature is off).
fn take_copies(platform: &mut egui::PlatformOutput, clipboard: Option<&mut arboard::Clipboard>) {
    let mut clipboard = clipboard;
    platform.commands.retain(|c| match c {
        egui::OutputCommand::CopyText(text) => {
            if let Some(cb) = clipboard.as_deref_mut() {
                let _ = cb.set_text(text.clone());
            }
            false
        }
        _ => true,
    });
}

fn open_secondary(
    event_loop: &ActiveEventLoop,
    gfx: &Gfx,
    spec: WindowSpec,
    ui: Box<dyn WindowUi>,
) -> Result<Secondary, UiError> {
    let attrs = WindowAttributes::default()
        .with_title(spec.title)
        .with_inner_size(winit::dpi::LogicalSize::new(spec.width, spec.height))
        .with_window_icon(crate::icon::window_icon())
        .with_visible(false);
    let attrs = with_class(attrs);
    let win = cef::gl::create_window(event_loop, &gfx.gl, attrs)?;
    gfx.gl
        .context()
        .make_current(win.surface())
        .map_err(|e| UiError::Gl(format!("make_current: {e}")))?;
    let painter = egui_glow::Painter::new(gfx.painter.gl().clone(), "", None, true);
    let _ = gfx.gl.context().make_current(gfx.main.surface());
    let painter = painter.map_err(|e| UiError::Gl(format!("egui painter: {e}")))?;
    let egui_ctx = egui::Context::default();
    egui_ctx.set_theme(gfx.egui_ctx.theme());
    let mut egui_winit = egui_winit::State::new(
        egui_ctx.clone(),
        ViewportId::ROOT,
        event_loop,
        Some(win.window().scale_factor() as f32),
        event_loop.system_theme(),
        Some(painter.max_texture_side()),
    );
    egui_winit.set_clipboard_shortcuts(false);
    Ok(Secondary {
        painter,
        win,
        egui_ctx,
        egui_winit,
        ui,
        shown: false,
    })
}

/// With egui-winit's clipboard feature off, translate the clipboard
/// shortcuts for egui widgets ourselves, but only while the chrome has
/// focus; while the page has it the keys go to CEF untouched.
fn translate_clipboard(
    raw: &mut egui::RawInput,
    clipboard: Option<&mut arboard::Clipboard>,
    page_focused: bool,
) {
    if page_focused {
        return;
    }
    let mut clipboard = clipboard;
    for ev in &mut raw.events {
        let Event::Key {
            key,
            pressed: true,
            modifiers,
            ..
        } = ev
        else {
            continue;
        };
        let cmd = modifiers.command && !modifiers.alt;
        let replacement = match key {
            Key::C if cmd => Some(Event::Copy),
            Key::X if cmd => Some(Event::Cut),
            Key::Copy => Some(Event::Copy),
            Key::Cut => Some(Event::Cut),
            Key::V | Key::Paste if cmd || *key == Key::Paste => {
                let text = clipboard
                    .as_deref_mut()
                    .and_then(|c| c.get_text().ok())
                    .unwrap_or_default();
                Some(Event::Paste(text.replace("\r\n", "\n")))
            }
            _ => None,
        };
        if let Some(r) = replacement {
            *ev = r;
        }
    }
}

/// The X11 class every window of the app carries (`WM_CLASS` "aperture", "Aperture"): desktops
/// group its windows under it and find its launcher by it.
fn with_class(attrs: WindowAttributes) -> WindowAttributes {
    #[cfg(target_os = "linux")]
    {
        use winit::platform::x11::WindowAttributesExtX11;
        // winit takes (class, instance); X stores the instance first.
        attrs.with_name("Aperture", "aperture")
    }
    #[cfg(not(target_os = "linux"))]
    attrs
}

fn create_gfx(event_loop: &ActiveEventLoop, options: &RunOptions) -> Result<Gfx, UiError> {
    let attrs = WindowAttributes::default()
        .with_title(options.title.clone())
        .with_inner_size(winit::dpi::LogicalSize::new(options.width, options.height))
        .with_min_inner_size(winit::dpi::LogicalSize::new(400, 300))
        .with_window_icon(crate::icon::window_icon())
        .with_visible(false);
    let attrs = with_class(attrs);
    let (main, gl) = cef::gl::create_main_window(event_loop, attrs)?;
    // Vsync where available; not fatal where it isn't (some Xvfb setups).
    let _ = main
        .surface()
        .set_swap_interval(gl.context(), SwapInterval::Wait(NonZeroU32::MIN));
    let bgra_upload =
        !gl.glow().version().is_embedded && std::env::var_os("APERTURE_UI_CPU_UPLOAD").is_none();
    let painter = egui_glow::Painter::new(gl.glow().clone(), "", None, true)
        .map_err(|e| UiError::Gl(format!("egui painter: {e}")))?;
    let egui_ctx = egui::Context::default();
    let mut egui_winit = egui_winit::State::new(
        egui_ctx.clone(),
        ViewportId::ROOT,
        event_loop,
        Some(main.window().scale_factor() as f32),
        event_loop.system_theme(),
        Some(painter.max_texture_side()),
    );
    // We translate clipboard keys ourselves (see `translate_clipboard`).
    egui_winit.set_clipboard_shortcuts(false);
    Ok(Gfx {
        painter,
        main,
        gl,
        egui_ctx,
        egui_winit,
        shown: false,
        bgra_upload,
        native_page: None,
    })
}
