//! Opens the real window (winit + glutin + egui_glow) with a synthetic page
//! frame, reads the painted window back and checks that both the chrome and
//! the page rendered. Needs an X display (Xvfb is fine: Mesa's software GL
//! works); without `DISPLAY` it reports itself skipped.
//!
//! `APERTURE_UI_SHOT=/tmp/x.ppm` also writes the capture for a human to look at.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aperture_ui::dark::ThemeMode;
use std::sync::atomic::{AtomicUsize, Ordering};

use aperture_ui::{
    ChromeModel, ContainerInfo, Host, PageFrame, Rgb, RunOptions, TabId, TabView, UiCommand, UiWaker,
    WindowShot, WindowSpec, WindowUi, egui,
};

/// A second window (how the vault opens); counts its frames.
struct Extra(Arc<AtomicUsize>);

impl WindowUi for Extra {
    fn ui(&mut self, ui: &mut egui::Ui) {
        self.0.fetch_add(1, Ordering::SeqCst);
        egui::CentralPanel::default_margins().show(ui, |ui| ui.heading("second window"));
    }
}

/// The synthetic page's background, BGRA order as CEF paints.
const PAGE_BGRA: [u8; 4] = [0x60, 0xA0, 0x30, 0xFF];
const AGENT_ORANGE: [u8; 3] = [0xE8, 0x8A, 0x1A];

struct Probe {
    model: Arc<Mutex<ChromeModel>>,
    waker: UiWaker,
    started: Instant,
    page: Option<(u32, u32, f32)>,
    frames_requested: bool,
    /// Not before this is another screenshot asked for (after one that failed its check).
    next_shot: Instant,
    /// What the last screenshot's check said, if it failed.
    last_error: Option<String>,
    outcome: Arc<Mutex<Option<Result<String, String>>>>,
    extra: Option<Box<dyn WindowUi>>,
    extra_frames: Arc<AtomicUsize>,
}

impl Probe {
    fn paint_page(&mut self, w: u32, h: u32, scale: f32) {
        let (pw, ph) = (
            (w as f32 * scale).round() as u32,
            (h as f32 * scale).round() as u32,
        );
        let mut buf = PAGE_BGRA.repeat((pw * ph) as usize);
        // A white block at DIP (20..220, 20..120) to check placement and scale.
        for y in (20.0 * scale) as u32..(120.0 * scale) as u32 {
            for x in (20.0 * scale) as u32..(220.0 * scale) as u32 {
                let i = ((y * pw + x) * 4) as usize;
                buf[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        let mut m = self.model.lock().unwrap();
        let generation = m.frame.as_ref().map_or(1, |f| f.generation + 1);
        m.frame = Some(PageFrame {
            width: pw,
            height: ph,
            bgra: buf.into(),
            generation,
        });
    }

    fn finish(&mut self, r: Result<String, String>) {
        *self.outcome.lock().unwrap() = Some(r);
        self.waker.quit();
    }
}

impl Host for Probe {
    fn apply(&mut self, command: UiCommand) {
        if let UiCommand::Resize { width, height, scale } = command {
            self.page = Some((width, height, scale));
            self.paint_page(width, height, scale);
            self.waker.request_repaint();
        }
    }

    fn do_work(&mut self) {
        if self.started.elapsed() > Duration::from_secs(30) {
            let last = self.last_error.take();
            self.finish(Err(last.unwrap_or_else(|| "no screenshot within 30 s".into())));
        } else if self.page.is_some()
            && !self.frames_requested
            && self.started.elapsed() > Duration::from_millis(500)
            && Instant::now() >= self.next_shot
        {
            // Let a frame or two settle (first texture upload, layout) first.
            self.frames_requested = true;
            self.waker.request_screenshot();
        }
    }

    fn take_window_requests(&mut self) -> Vec<(WindowSpec, Box<dyn WindowUi>)> {
        self.extra
            .take()
            .map(|ui| {
                (
                    WindowSpec {
                        title: "second".into(),
                        width: 300,
                        height: 200,
                    },
                    ui,
                )
            })
            .into_iter()
            .collect()
    }

    fn screenshot(&mut self, shot: WindowShot) {
        if let Ok(path) = std::env::var("APERTURE_UI_SHOT") {
            let mut ppm = format!("P6\n{} {}\n255\n", shot.width, shot.height).into_bytes();
            ppm.extend(shot.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
            std::fs::write(&path, ppm).expect("write APERTURE_UI_SHOT");
        }
        let mut result = check(&shot, self.page.expect("resized before capture"));
        let frames = self.extra_frames.load(Ordering::SeqCst);
        if result.is_ok() && frames == 0 {
            result = Err("the second window never drew".into());
        }
        match result {
            Ok(s) => self.finish(Ok(format!("{s}; second window drew {frames} frame(s)"))),
            // A loaded machine may not have drawn everything 500 ms in: look again until the
            // deadline, which then reports this.
            Err(e) => {
                self.last_error = Some(e);
                self.frames_requested = false;
                self.next_shot = Instant::now() + Duration::from_millis(250);
            }
        }
    }
}

fn check(shot: &WindowShot, (pw, ph, scale): (u32, u32, f32)) -> Result<String, String> {
    let page_w = (pw as f32 * scale).round() as u32;
    let page_h = (ph as f32 * scale).round() as u32;
    if page_w > shot.width || page_h >= shot.height {
        return Err(format!(
            "page {page_w}x{page_h} doesn't fit window {}x{}",
            shot.width, shot.height
        ));
    }
    let top = shot.height - page_h;
    let near = |a: [u8; 4], b: [u8; 3]| (0..3).all(|i| a[i].abs_diff(b[i]) <= 3);
    // Page background and the white block, at their DIP positions × scale.
    let bg = shot.pixel((300.0 * scale) as u32, top + (200.0 * scale) as u32);
    if !near(bg, [PAGE_BGRA[2], PAGE_BGRA[1], PAGE_BGRA[0]]) {
        return Err(format!(
            "page background is {bg:?}, expected the synthetic frame's colour"
        ));
    }
    let block = shot.pixel((100.0 * scale) as u32, top + (60.0 * scale) as u32);
    if !near(block, [255, 255, 255]) {
        return Err(format!("white block missing at its DIP position: {block:?}"));
    }
    // Chrome: text antialiasing gives many distinct colours; the agent
    // tab's mark is a known orange.
    let mut colours = std::collections::HashSet::new();
    let mut orange = 0;
    for y in 0..top {
        for x in 0..shot.width {
            let p = shot.pixel(x, y);
            colours.insert([p[0], p[1], p[2]]);
            if near(p, AGENT_ORANGE) {
                orange += 1;
            }
        }
    }
    if colours.len() < 20 {
        return Err(format!("chrome looks blank: {} distinct colours", colours.len()));
    }
    if orange < 50 {
        return Err(format!("agent mark not drawn ({orange} orange pixels)"));
    }
    Ok(format!(
        "window {}x{}, chrome {top} px tall with {} colours, page {page_w}x{page_h} at scale {scale}",
        shot.width,
        shot.height,
        colours.len()
    ))
}

fn model() -> ChromeModel {
    let c = ContainerInfo {
        id: "work".into(),
        name: "Work".into(),
        colour: Rgb(0xF0, 0x8C, 0x00),
        ..ContainerInfo::default()
    };
    let tab = |id, title: &str, agent| TabView {
        id: TabId(id),
        title: title.into(),
        url: format!("https://example.com/{id}"),
        loading: false,
        can_go_back: false,
        can_go_forward: false,
        container: c.clone(),
        agent_driving: agent,
        human_driving: false,
        theme: Some(ThemeMode::Auto),
        ..TabView::default()
    };
    ChromeModel {
        tabs: vec![tab(1, "First", false), tab(2, "Agent's tab", true)],
        active: Some(TabId(2)),
        containers: vec![c],
        default_container: None,
        frame: None,
        cursor: Default::default(),
        ime_caret: None,
        dark_filter: Default::default(),
        ..Default::default()
    }
}

fn main() -> ExitCode {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        if std::env::var_os("APERTURE_UI_REQUIRE").is_some() {
            println!("window test: FAILED: APERTURE_UI_REQUIRE is set but there is no DISPLAY");
            return ExitCode::FAILURE;
        }
        println!("window test: skipped (no DISPLAY)");
        return ExitCode::SUCCESS;
    }
    let model = Arc::new(Mutex::new(model()));
    let event_loop = aperture_ui::event_loop().expect("event loop");
    let waker = UiWaker::new(&event_loop);
    let outcome = Arc::new(Mutex::new(None));
    let extra_frames = Arc::new(AtomicUsize::new(0));
    let probe = Probe {
        model: model.clone(),
        waker,
        started: Instant::now(),
        page: None,
        frames_requested: false,
        next_shot: Instant::now(),
        last_error: None,
        outcome: outcome.clone(),
        extra: Some(Box::new(Extra(extra_frames.clone()))),
        extra_frames,
    };
    let options = RunOptions {
        title: "aperture-ui window test".into(),
        width: 900,
        height: 600,
        max_work_interval: Some(Duration::from_millis(50)),
    };
    if let Err(e) = aperture_ui::run(event_loop, options, model, probe) {
        println!("window test: FAILED: {e}");
        return ExitCode::FAILURE;
    }
    let result = outcome.lock().unwrap().take();
    match result {
        Some(Ok(summary)) => {
            println!("window test: ok: {summary}");
            println!("1 passed, 0 failed");
            ExitCode::SUCCESS
        }
        Some(Err(why)) => {
            println!("window test: FAILED: {why}");
            println!("0 passed, 1 failed");
            ExitCode::FAILURE
        }
        None => {
            println!("window test: FAILED: loop ended without a verdict");
            ExitCode::FAILURE
        }
    }
}
