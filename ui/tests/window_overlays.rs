//! The overlays of issue 12 in the real window (winit + glutin + egui_glow),
//! read back as pixels: a `<select>` popup frame drawn over the page at its
//! DIP rect, then a JavaScript dialog sheet hanging from the page's top edge
//! with the page dimmed under it. Needs an X display (Xvfb is fine); without
//! one it reports itself skipped.
//!
//! `APERTURE_UI_SHOT=/tmp/x` also writes `/tmp/x-popup.ppm` and
//! `/tmp/x-dialog.ppm` for a human to look at.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aperture_ui::{
    ChromeModel, ContainerInfo, DialogKind, DialogView, Host, PageFrame, PopupView, Rgb, RunOptions, TabId,
    TabView, UiCommand, UiWaker, WindowShot,
};

/// The synthetic page's colour and the popup's, BGRA as CEF paints.
const PAGE_BGRA: [u8; 4] = [0x60, 0xA0, 0x30, 0xFF];
const POPUP_BGRA: [u8; 4] = [0xC0, 0x20, 0xE0, 0xFF];
/// The popup's rect in page DIP.
const POPUP_RECT: [i32; 4] = [300, 150, 120, 80];

fn rgb(bgra: [u8; 4]) -> [u8; 3] {
    [bgra[2], bgra[1], bgra[0]]
}

fn solid(bgra: [u8; 4], w: u32, h: u32, generation: u64) -> PageFrame {
    PageFrame {
        width: w,
        height: h,
        bgra: bgra.repeat((w * h) as usize).into(),
        generation,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Stage {
    Popup,
    Dialog,
}

struct Probe {
    model: Arc<Mutex<ChromeModel>>,
    waker: UiWaker,
    started: Instant,
    page: Option<(u32, u32, f32)>,
    stage: Stage,
    /// When the current stage's model was set; shoot a little later.
    stage_since: Instant,
    requested: bool,
    /// What the last screenshot's check said, if it failed (the stage is shot again).
    last_error: Option<String>,
    outcome: Arc<Mutex<Option<Result<String, String>>>>,
    notes: Vec<String>,
}

impl Probe {
    fn finish(&mut self, r: Result<String, String>) {
        *self.outcome.lock().unwrap() = Some(r);
        self.waker.quit();
    }
}

impl Host for Probe {
    fn apply(&mut self, command: UiCommand) {
        if let UiCommand::Resize { width, height, scale } = command {
            self.page = Some((width, height, scale));
            let (pw, ph) = (
                (width as f32 * scale).round() as u32,
                (height as f32 * scale).round() as u32,
            );
            let [_, _, w, h] = POPUP_RECT;
            let mut m = self.model.lock().unwrap();
            let generation = m.frame.as_ref().map_or(1, |f| f.generation + 1);
            m.frame = Some(solid(PAGE_BGRA, pw, ph, generation));
            m.popup = Some(PopupView {
                rect: POPUP_RECT,
                frame: solid(
                    POPUP_BGRA,
                    (w as f32 * scale).round() as u32,
                    (h as f32 * scale).round() as u32,
                    generation,
                ),
            });
            self.stage_since = Instant::now();
            self.waker.request_repaint();
        }
    }

    fn do_work(&mut self) {
        if self.started.elapsed() > Duration::from_secs(30) {
            let last = self.last_error.take();
            self.finish(Err(last.unwrap_or_else(|| "no screenshot within 30 s".into())));
        } else if self.page.is_some()
            && !self.requested
            && self.stage_since.elapsed() > Duration::from_millis(500)
        {
            self.requested = true;
            self.waker.request_screenshot();
        }
    }

    fn screenshot(&mut self, shot: WindowShot) {
        let stage = self.stage;
        if let Ok(base) = std::env::var("APERTURE_UI_SHOT") {
            let name = if stage == Stage::Popup { "popup" } else { "dialog" };
            let mut ppm = format!("P6\n{} {}\n255\n", shot.width, shot.height).into_bytes();
            ppm.extend(shot.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
            std::fs::write(format!("{base}-{name}.ppm"), ppm).expect("write APERTURE_UI_SHOT");
        }
        let page = self.page.expect("resized before capture");
        let result = match stage {
            Stage::Popup => check_popup(&shot, page),
            Stage::Dialog => check_dialog(&shot, page),
        };
        match (stage, result) {
            (Stage::Popup, Ok(note)) => {
                self.notes.push(note);
                // Next: a dialog over the page (a select list would have
                // closed on the blur).
                let mut m = self.model.lock().unwrap();
                m.popup = None;
                m.dialog = Some(DialogView {
                    tab: TabId(1),
                    id: 1,
                    kind: DialogKind::Confirm,
                    origin: "127.0.0.1:8080".into(),
                    message: "Leave this page? Your changes will be lost.".into(),
                    default_text: String::new(),
                    offer_suppress: true,
                    logins: Vec::new(),
                });
                drop(m);
                self.stage = Stage::Dialog;
                self.stage_since = Instant::now();
                self.requested = false;
                self.waker.request_repaint();
            }
            (Stage::Dialog, Ok(note)) => {
                self.notes.push(note);
                let summary = self.notes.join("; ");
                self.finish(Ok(summary));
            }
            // A loaded machine may not have drawn the stage 500 ms in: shoot it again a little
            // later until the deadline, which then reports this.
            (_, Err(e)) => {
                self.last_error = Some(e);
                self.stage_since = Instant::now() - Duration::from_millis(250);
                self.requested = false;
            }
        }
    }
}

fn near(a: [u8; 4], b: [u8; 3], tol: u8) -> bool {
    (0..3).all(|i| a[i].abs_diff(b[i]) <= tol)
}

/// Top of the page area in physical pixels.
fn page_top(shot: &WindowShot, (_, ph, scale): (u32, u32, f32)) -> u32 {
    shot.height - (ph as f32 * scale).round() as u32
}

fn check_popup(shot: &WindowShot, page: (u32, u32, f32)) -> Result<String, String> {
    let scale = page.2;
    let top = page_top(shot, page);
    let at = |x: f32, y: f32| shot.pixel((x * scale) as u32, top + (y * scale) as u32);
    let [x, y, w, h] = POPUP_RECT.map(|v| v as f32);
    // Inside the popup's rect (corners and centre) its colour, just outside it the page's.
    for (px, py) in [
        (x + 2.0, y + 2.0),
        (x + w - 3.0, y + h - 3.0),
        (x + w / 2.0, y + h / 2.0),
    ] {
        let p = at(px, py);
        if !near(p, rgb(POPUP_BGRA), 3) {
            return Err(format!("popup not drawn at DIP ({px}, {py}): {p:?}"));
        }
    }
    for (px, py) in [
        (x - 3.0, y + 10.0),
        (x + w + 3.0, y + 10.0),
        (x + 10.0, y + h + 3.0),
    ] {
        let p = at(px, py);
        if !near(p, rgb(PAGE_BGRA), 3) {
            return Err(format!(
                "popup spills outside its rect at DIP ({px}, {py}): {p:?}"
            ));
        }
    }
    Ok(format!("popup at DIP {POPUP_RECT:?} × {scale}"))
}

fn check_dialog(shot: &WindowShot, page: (u32, u32, f32)) -> Result<String, String> {
    let (pw, ph, scale) = page;
    let top = page_top(shot, page);
    let page_rgb = rgb(PAGE_BGRA);
    // Far from the sheet the page shows, dimmed: darker, same hue.
    let corner = shot.pixel(
        ((pw as f32 - 30.0) * scale) as u32,
        top + ((ph as f32 - 30.0) * scale) as u32,
    );
    let dimmed = (0..3).all(|i| corner[i] + 15 < page_rgb[i].max(16));
    if !dimmed {
        return Err(format!(
            "page under the sheet not dimmed: {corner:?} vs {page_rgb:?}"
        ));
    }
    // The sheet hangs from the page's top edge, centred: just below the edge
    // in the middle, neither page nor dimmed page.
    let cx = (pw as f32 * scale / 2.0) as u32;
    let mut sheet_rows = 0;
    for dy in 0..(120.0 * scale) as u32 {
        let p = shot.pixel(cx, top + dy);
        if !near(p, page_rgb, 12) && !near(p, [corner[0], corner[1], corner[2]], 12) {
            sheet_rows += 1;
        }
    }
    if sheet_rows < (60.0 * scale) as u32 {
        return Err(format!(
            "no dialog sheet under the page's top edge ({sheet_rows} rows of sheet at the centre)"
        ));
    }
    // Its text: many distinct colours where the message is (antialiasing).
    let mut colours = std::collections::HashSet::new();
    for y in top..top + (100.0 * scale) as u32 {
        for x in cx - (200.0 * scale) as u32..cx + (200.0 * scale) as u32 {
            let p = shot.pixel(x, y);
            colours.insert([p[0], p[1], p[2]]);
        }
    }
    if colours.len() < 10 {
        return Err(format!("dialog sheet has no text ({} colours)", colours.len()));
    }
    // The chrome above the page is not dimmed or covered: the toolbar still
    // shows its own (many) colours.
    Ok(format!(
        "dialog sheet {sheet_rows} px tall at the page's top with {} colours; page dimmed to {corner:?}",
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
    ChromeModel {
        tabs: vec![TabView {
            id: TabId(1),
            title: "Form".into(),
            url: "http://127.0.0.1:8080/form".into(),
            loading: false,
            can_go_back: false,
            can_go_forward: false,
            container: c.clone(),
            agent_driving: false,
            human_driving: false,
            theme: None,
            ..TabView::default()
        }],
        active: Some(TabId(1)),
        containers: vec![c],
        ..Default::default()
    }
}

fn main() -> ExitCode {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        if std::env::var_os("APERTURE_UI_REQUIRE").is_some() {
            println!("window overlays test: FAILED: APERTURE_UI_REQUIRE is set but there is no DISPLAY");
            return ExitCode::FAILURE;
        }
        println!("window overlays test: skipped (no DISPLAY)");
        return ExitCode::SUCCESS;
    }
    let model = Arc::new(Mutex::new(model()));
    let event_loop = aperture_ui::event_loop().expect("event loop");
    let waker = UiWaker::new(&event_loop);
    let outcome = Arc::new(Mutex::new(None));
    let probe = Probe {
        model: model.clone(),
        waker,
        started: Instant::now(),
        page: None,
        stage: Stage::Popup,
        stage_since: Instant::now(),
        requested: false,
        last_error: None,
        outcome: outcome.clone(),
        notes: Vec::new(),
    };
    let options = RunOptions {
        title: "aperture-ui overlays test".into(),
        width: 900,
        height: 600,
        max_work_interval: Some(Duration::from_millis(50)),
    };
    if let Err(e) = aperture_ui::run(event_loop, options, model, probe) {
        println!("window overlays test: FAILED: {e}");
        return ExitCode::FAILURE;
    }
    let result = outcome.lock().unwrap().take();
    match result {
        Some(Ok(summary)) => {
            println!("window overlays test: ok: {summary}");
            println!("1 passed, 0 failed");
            ExitCode::SUCCESS
        }
        Some(Err(why)) => {
            println!("window overlays test: FAILED: {why}");
            println!("0 passed, 1 failed");
            ExitCode::FAILURE
        }
        None => {
            println!("window overlays test: FAILED: loop ended without a verdict");
            ExitCode::FAILURE
        }
    }
}
