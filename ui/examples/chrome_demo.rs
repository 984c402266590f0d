//! The real chrome window with a synthetic page instead of CEF.
//!
//! `cargo run -p aperture-ui --example chrome_demo [-- --exit-after SECS]`
//!
//! The "page" is drawn into a BGRA buffer at exactly the size the chrome
//! asks for (DIP × scale), the way CEF's OnPaint would deliver it. Clicks on
//! the page leave a dot, so input forwarding is visible in a screenshot; the
//! dark-mode menu inverts the page the way the filter layer would.

#![forbid(unsafe_code)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aperture_ui::dark::ThemeMode;
use aperture_ui::{
    BookmarkNode, ChromeModel, ContainerInfo, CursorShape, FindView, Host, PageFrame, PageInput, Rgb,
    RunOptions, SuggestionView, TabId, TabView, UiCommand, UiWaker, WindowSpec, WindowUi, ZoomStep, egui,
};

/// Stand-in for the vault window: its own OS window and egui context.
struct VaultDemo {
    revealed: bool,
}

impl WindowUi for VaultDemo {
    fn ui(&mut self, ui: &mut egui::Ui) {
        egui::CentralPanel::default_margins().show(ui, |ui| {
            ui.heading("Vault");
            ui.label("Not a tab: the agent has no id for this window.");
            ui.separator();
            ui.horizontal(|ui| {
                ui.label("bank.example.com  ·  anna@example.com  ·");
                ui.monospace(if self.revealed {
                    "correct horse"
                } else {
                    "••••••••"
                });
                if ui.button(if self.revealed { "Hide" } else { "Reveal" }).clicked() {
                    self.revealed = !self.revealed;
                }
            });
        });
    }
}

struct Demo {
    model: Arc<Mutex<ChromeModel>>,
    waker: UiWaker,
    size: (u32, u32, f32),
    dots: Vec<(f32, f32)>,
    next_id: u64,
    generation: u64,
    quit_at: Option<Instant>,
    windows: Vec<(WindowSpec, Box<dyn WindowUi>)>,
}

fn containers() -> Vec<ContainerInfo> {
    vec![
        ContainerInfo {
            id: "personal".into(),
            name: "Personal".into(),
            colour: Rgb(0x37, 0x7D, 0xF0),
            ..ContainerInfo::default()
        },
        ContainerInfo {
            id: "work".into(),
            name: "Work".into(),
            colour: Rgb(0xF0, 0x8C, 0x00),
            ..ContainerInfo::default()
        },
        ContainerInfo {
            id: "banking".into(),
            name: "Banking".into(),
            colour: Rgb(0x2E, 0xA0, 0x43),
            ..ContainerInfo::default()
        },
    ]
}

fn tab(id: u64, title: &str, url: &str, container: &ContainerInfo) -> TabView {
    TabView {
        id: TabId(id),
        title: title.into(),
        url: url.into(),
        loading: false,
        can_go_back: true,
        can_go_forward: false,
        container: container.clone(),
        agent_driving: false,
        human_driving: false,
        theme: Some(ThemeMode::Auto),
        ..TabView::default()
    }
}

impl Demo {
    /// Paint a page-like picture: header bar, text lines, a photo block.
    fn repaint_page(&mut self) {
        let (w, h, scale) = self.size;
        let (pw, ph) = (
            (w as f32 * scale).round() as u32,
            (h as f32 * scale).round() as u32,
        );
        let mut m = self.model.lock().unwrap();
        let dark = m.active_tab().and_then(|t| t.theme) == Some(ThemeMode::On);
        let seed = m.active.map_or(0, |t| t.0) as u32;
        let mut buf = vec![0u8; (pw * ph * 4) as usize];
        let s = |v: f32| (v * scale) as u32;
        for y in 0..ph {
            for x in 0..pw {
                let (mut r, mut g, mut b) = (255u8, 255u8, 255u8);
                if y < s(56.0) {
                    (r, g, b) = (0x24, 0x29, 0x2F);
                } else if x > s(40.0) && x < s(40.0 + 260.0) && y > s(90.0) && y < s(90.0 + 180.0) {
                    // "Photo": a warm gradient, which must not be inverted in dark mode.
                    let t = (x - s(40.0)) as f32 / s(260.0) as f32;
                    (r, g, b) = (
                        (200.0 + 55.0 * t) as u8,
                        (120.0 + 60.0 * t) as u8,
                        (40 + seed * 40 % 120) as u8,
                    );
                } else {
                    let line = (y as f32 / scale - 90.0) / 22.0;
                    let in_text_col = x > s(330.0) && x + s(40.0) < pw;
                    let len = 0.55 + 0.4 * (((line as u32 * 7 + seed) % 5) as f32 / 5.0);
                    if line > 0.0
                        && line.fract() < 0.45
                        && in_text_col
                        && (x as f32) < s(330.0) as f32 + (pw as f32 - s(370.0) as f32) * len
                    {
                        (r, g, b) = (0x44, 0x44, 0x44);
                    }
                }
                if dark && !(x > s(40.0) && x < s(300.0) && y > s(90.0) && y < s(270.0)) {
                    (r, g, b) = (255 - r, 255 - g, 255 - b);
                }
                let i = ((y * pw + x) * 4) as usize;
                buf[i..i + 4].copy_from_slice(&[b, g, r, 255]);
            }
        }
        for &(dx, dy) in &self.dots {
            let (cx, cy) = (dx * scale, dy * scale);
            let rad = 6.0 * scale;
            for y in (cy - rad).max(0.0) as u32..((cy + rad) as u32).min(ph) {
                for x in (cx - rad).max(0.0) as u32..((cx + rad) as u32).min(pw) {
                    if (x as f32 - cx).hypot(y as f32 - cy) <= rad {
                        let i = ((y * pw + x) * 4) as usize;
                        buf[i..i + 4].copy_from_slice(&[0x20, 0x20, 0xE0, 255]);
                    }
                }
            }
        }
        self.generation += 1;
        m.frame = Some(PageFrame {
            width: pw,
            height: ph,
            bgra: buf.into(),
            generation: self.generation,
        });
        drop(m);
        self.waker.request_repaint();
    }

    fn with_tab(&mut self, id: TabId, f: impl FnOnce(&mut TabView)) {
        let mut m = self.model.lock().unwrap();
        if let Some(t) = m.tabs.iter_mut().find(|t| t.id == id) {
            f(t);
        }
    }
}

impl Host for Demo {
    fn apply(&mut self, command: UiCommand) {
        eprintln!("command: {command:?}");
        let mut repaint_page = false;
        match command {
            UiCommand::Resize { width, height, scale } => {
                self.size = (width, height, scale);
                repaint_page = true;
            }
            UiCommand::NewTab { container } => {
                let mut m = self.model.lock().unwrap();
                let c = m.containers.iter().find(|c| c.id == container).cloned().unwrap();
                self.next_id += 1;
                m.tabs.push(tab(self.next_id, "", "", &c));
                m.active = Some(TabId(self.next_id));
                m.default_container = Some(container);
                repaint_page = true;
            }
            UiCommand::CloseTab { tab } => {
                let mut m = self.model.lock().unwrap();
                m.tabs.retain(|t| t.id != tab);
                if m.active == Some(tab) {
                    m.active = m.tabs.last().map(|t| t.id);
                }
                repaint_page = true;
            }
            UiCommand::SelectTab { tab } => {
                self.model.lock().unwrap().active = Some(tab);
                repaint_page = true;
            }
            UiCommand::Navigate { tab, url, .. } => self.with_tab(tab, |t| {
                t.title = url.clone();
                t.url = url;
                t.loading = true;
            }),
            UiCommand::Stop { tab } | UiCommand::Reload { tab } => {
                self.with_tab(tab, |t| t.loading = !t.loading)
            }
            UiCommand::TakeOver { tab } => self.with_tab(tab, |t| t.human_driving = true),
            UiCommand::HandBack { tab } => self.with_tab(tab, |t| t.human_driving = false),
            UiCommand::SetTheme { mode, .. } => {
                let active = self.model.lock().unwrap().active;
                if let Some(id) = active {
                    self.with_tab(id, |t| t.theme = Some(mode));
                }
                repaint_page = true;
            }
            UiCommand::Page {
                input: PageInput::MouseDown { x, y, .. },
                ..
            } => {
                self.dots.push((x, y));
                repaint_page = true;
            }
            UiCommand::Page {
                input: PageInput::MouseMove { x, .. },
                ..
            } => {
                // Hand cursor over the left "photo" column, text cursor elsewhere.
                self.model.lock().unwrap().cursor = if x < 300.0 {
                    CursorShape::Pointer
                } else {
                    CursorShape::Text
                };
            }
            UiCommand::SetDarkFilter { options } => self.model.lock().unwrap().dark_filter = options,
            UiCommand::OpenVault => self.windows.push((
                WindowSpec {
                    title: "Aperture vault".into(),
                    width: 520,
                    height: 220,
                },
                Box::new(VaultDemo { revealed: false }),
            )),
            UiCommand::CloseRequested => self.waker.quit(),
            // Issue 13's memory UI, faked just enough to look at.
            UiCommand::ToggleBookmark { tab } => self.with_tab(tab, |t| t.bookmarked = !t.bookmarked),
            UiCommand::SetBookmarksBar(show) => self.model.lock().unwrap().show_bookmarks_bar = show,
            UiCommand::Zoom { tab, step } => self.with_tab(tab, |t| {
                t.zoom_percent = match step {
                    ZoomStep::In => (t.zoom_percent + 10).min(500),
                    ZoomStep::Out => t.zoom_percent.saturating_sub(10).max(25),
                    ZoomStep::Reset => 100,
                }
            }),
            UiCommand::Find { tab, text, .. } => self.with_tab(tab, |t| {
                let count = t.title.to_lowercase().matches(&text.to_lowercase()).count() as i32;
                t.find = Some(FindView {
                    text,
                    active: count.min(1),
                    count,
                    final_update: true,
                });
            }),
            UiCommand::StopFind { tab } => self.with_tab(tab, |t| t.find = None),
            UiCommand::MoveTab { tab, to } => {
                let mut m = self.model.lock().unwrap();
                if let Some(from) = m.tabs.iter().position(|t| t.id == tab) {
                    let t = m.tabs.remove(from);
                    let to = to.min(m.tabs.len());
                    m.tabs.insert(to, t);
                }
            }
            UiCommand::NewPrivateTab => {
                let mut m = self.model.lock().unwrap();
                let c = ContainerInfo {
                    id: "private".into(),
                    name: "Private".into(),
                    colour: Rgb(0x8F, 0x5C, 0xD8),
                    private: true,
                };
                self.next_id += 1;
                m.tabs.push(tab(self.next_id, "", "", &c));
                m.active = Some(TabId(self.next_id));
                repaint_page = true;
            }
            UiCommand::OmniboxInput { text, .. } => {
                let mut m = self.model.lock().unwrap();
                let typed = text.to_lowercase();
                m.suggestions = m
                    .tabs
                    .iter()
                    .filter(|t| !typed.is_empty() && t.url.to_lowercase().contains(&typed))
                    .map(|t| SuggestionView {
                        url: t.url.clone(),
                        title: t.title.clone(),
                        bookmark: t.bookmarked,
                        tab: None,
                    })
                    .collect();
                m.inline_completion = m.tabs.iter().find_map(|t| {
                    let bare = t.url.split_once("://").map_or(t.url.as_str(), |(_, r)| r);
                    bare.to_lowercase().starts_with(&typed).then(|| bare.to_string())
                });
            }
            _ => {}
        }
        if repaint_page {
            self.repaint_page();
        }
        self.waker.request_repaint();
    }

    fn take_window_requests(&mut self) -> Vec<(WindowSpec, Box<dyn WindowUi>)> {
        std::mem::take(&mut self.windows)
    }

    fn do_work(&mut self) {
        if self.quit_at.is_some_and(|t| Instant::now() >= t) {
            self.waker.quit();
        }
    }
}

fn main() -> Result<(), aperture_ui::UiError> {
    let exit_after = std::env::args()
        .skip_while(|a| a != "--exit-after")
        .nth(1)
        .and_then(|s| s.parse::<f64>().ok());
    let cs = containers();
    let mut docs = tab(2, "Docs — loading", "https://docs.example.org/guide", &cs[1]);
    docs.loading = true;
    let mut bank = tab(3, "Account overview", "https://bank.example.com/accounts", &cs[2]);
    bank.agent_driving = true;
    let model = ChromeModel {
        tabs: vec![
            tab(1, "Example Domain", "https://example.com/", &cs[0]),
            docs,
            bank,
        ],
        active: Some(TabId(3)),
        containers: cs,
        default_container: Some("personal".into()),
        frame: None,
        cursor: CursorShape::Default,
        ime_caret: None,
        dark_filter: Default::default(),
        bookmarks: vec![BookmarkNode {
            id: 1,
            title: "Bookmarks bar".into(),
            url: None,
            children: vec![
                BookmarkNode {
                    id: 2,
                    title: "Example".into(),
                    url: Some("https://example.com/".into()),
                    children: vec![],
                },
                BookmarkNode {
                    id: 3,
                    title: "Reading".into(),
                    url: None,
                    children: vec![BookmarkNode {
                        id: 4,
                        title: "The Rust book".into(),
                        url: Some("https://doc.rust-lang.org/book/".into()),
                        children: vec![],
                    }],
                },
            ],
        }],
        show_bookmarks_bar: true,
        ..Default::default()
    };
    let model = Arc::new(Mutex::new(model));
    let event_loop = aperture_ui::event_loop()?;
    let waker = UiWaker::new(&event_loop);
    let demo = Demo {
        model: model.clone(),
        waker: waker.clone(),
        size: (1, 1, 1.0),
        dots: Vec::new(),
        next_id: 3,
        generation: 0,
        quit_at: exit_after.map(|s| Instant::now() + Duration::from_secs_f64(s)),
        windows: Vec::new(),
    };
    let options = RunOptions {
        title: "Aperture (demo)".into(),
        width: 1100,
        height: 700,
        // No CEF here; wake only to honour --exit-after.
        max_work_interval: exit_after.map(|_| Duration::from_millis(200)),
    };
    aperture_ui::run(event_loop, options, model, demo)
}
