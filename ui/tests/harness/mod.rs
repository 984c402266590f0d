//! The headless harness: one egui context and a [`Chrome`] driven frame by frame with
//! synthetic `RawInput`, recording the commands, the texts drawn and the textures used.

#![allow(dead_code)] // each test binary uses a different subset

use aperture_ui::dark::ThemeMode;
use aperture_ui::egui::{self, Event, Key, Modifiers, PointerButton, Pos2, RawInput, Rect, vec2};
use aperture_ui::{
    Chrome, ChromeModel, ContainerInfo, KeyNotTaken, PageInput, Rgb, TabId, TabView, UiCommand,
};

/// One chrome and its model, driven frame by frame.
pub struct Harness {
    pub ctx: egui::Context,
    pub chrome: Chrome,
    pub model: ChromeModel,
    pub time: f64,
    pub ppp: f32,
    /// Whether the last frame uploaded a texture other than the font atlas.
    pub uploaded_page: bool,
    /// Cursor and IME area the last frame asked the platform for.
    pub cursor: egui::CursorIcon,
    pub ime: bool,
    /// Every text drawn in the last frame.
    pub texts: Vec<String>,
    /// Textured meshes drawn in the last frame: (texture, bounding rect).
    pub images: Vec<(egui::TextureId, Rect)>,
    /// Text the chrome asked egui to copy to the clipboard.
    pub copied: Vec<String>,
}

pub fn container(id: &str, name: &str) -> ContainerInfo {
    ContainerInfo {
        id: id.into(),
        name: name.into(),
        colour: Rgb(0x37, 0x7D, 0xF0),
        private: false,
    }
}

pub fn tab(id: u64, url: &str) -> TabView {
    TabView {
        id: TabId(id),
        title: format!("Tab {id}"),
        url: url.into(),
        loading: false,
        can_go_back: true,
        can_go_forward: true,
        container: container("personal", "Personal"),
        agent_driving: false,
        human_driving: false,
        theme: Some(ThemeMode::Auto),
        ..TabView::default()
    }
}

pub fn model() -> ChromeModel {
    let mut agent_tab = tab(2, "https://bank.example.com/");
    agent_tab.agent_driving = true;
    agent_tab.container = container("banking", "Banking");
    ChromeModel {
        tabs: vec![tab(1, "https://example.com/"), agent_tab],
        active: Some(TabId(1)),
        containers: vec![
            container("personal", "Personal"),
            container("work", "Work"),
            container("banking", "Banking"),
        ],
        default_container: Some("work".into()),
        frame: None,
        cursor: Default::default(),
        ime_caret: None,
        dark_filter: Default::default(),
        ..Default::default()
    }
}

pub fn key(k: Key, modifiers: Modifiers, pressed: bool) -> Event {
    Event::Key {
        key: k,
        physical_key: Some(k),
        pressed,
        repeat: false,
        modifiers,
    }
}

pub fn press(k: Key, m: Modifiers) -> Vec<Event> {
    vec![key(k, m, true), key(k, m, false)]
}

impl Harness {
    /// The page leaves alone every key-down among `cmds` (sent to it), as CEF reports; gives
    /// the commands of the chrome's next frame.
    pub fn page_leaves(&mut self, cmds: &[UiCommand]) -> Vec<UiCommand> {
        for c in cmds {
            if let UiCommand::Page {
                tab,
                input: PageInput::KeyDown(k),
            } = c
            {
                let seq = self.model.keys_not_taken.last().map_or(1, |k| k.seq + 1);
                self.model.keys_not_taken.push(KeyNotTaken {
                    seq,
                    tab: *tab,
                    windows_key_code: k.windows_key_code,
                    modifiers: k.modifiers,
                });
            }
        }
        self.frame(vec![])
    }

    pub fn new() -> Self {
        Self::with_scale(1.0)
    }

    pub fn with_scale(ppp: f32) -> Self {
        let mut h = Harness {
            ctx: egui::Context::default(),
            chrome: Chrome::new(),
            model: model(),
            time: 0.0,
            ppp,
            uploaded_page: false,
            cursor: egui::CursorIcon::Default,
            ime: false,
            texts: Vec::new(),
            images: Vec::new(),
            copied: Vec::new(),
        };
        // Two frames so every control has a laid-out rect.
        h.frame(vec![]);
        h.frame(vec![]);
        h
    }

    pub fn frame(&mut self, events: Vec<Event>) -> Vec<UiCommand> {
        self.time += 0.1;
        let mut raw = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(1000.0, 700.0))),
            time: Some(self.time),
            events,
            ..Default::default()
        };
        raw.viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .native_pixels_per_point = Some(self.ppp);
        let (mut out, cmds) = self.chrome.run(&self.ctx, raw, &self.model);
        self.uploaded_page = out
            .textures_delta
            .set
            .iter()
            .any(|(id, _)| *id != egui::TextureId::default());
        out.textures_delta.clear();
        self.cursor = out.platform_output.cursor_icon;
        for c in &out.platform_output.commands {
            if let egui::OutputCommand::CopyText(t) = c {
                self.copied.push(t.clone());
            }
        }
        self.ime = out.platform_output.ime.is_some();
        self.texts.clear();
        self.images.clear();
        for clipped in &out.shapes {
            collect_shapes(&clipped.shape, &mut self.texts, &mut self.images);
        }
        cmds
    }

    /// Whether some text drawn last frame contains `needle`.
    pub fn shows(&self, needle: &str) -> bool {
        self.texts.iter().any(|t| t.contains(needle))
    }

    pub fn has(&self, name: &str) -> bool {
        self.chrome.control_rect(name).is_some()
    }

    pub fn rect(&self, name: &str) -> Rect {
        self.chrome
            .control_rect(name)
            .unwrap_or_else(|| panic!("no control {name}"))
    }

    /// Move, press, release: egui reports the click on release.
    pub fn click_at(&mut self, pos: Pos2, button: PointerButton) -> Vec<UiCommand> {
        let mut cmds = self.frame(vec![Event::PointerMoved(pos)]);
        cmds.extend(self.frame(vec![Event::PointerButton {
            pos,
            button,
            pressed: true,
            modifiers: Modifiers::NONE,
        }]));
        cmds.extend(self.frame(vec![Event::PointerButton {
            pos,
            button,
            pressed: false,
            modifiers: Modifiers::NONE,
        }]));
        cmds.extend(self.frame(vec![]));
        cmds
    }

    pub fn click(&mut self, name: &str) -> Vec<UiCommand> {
        let pos = self.rect(name).center();
        self.click_at(pos, PointerButton::Primary)
    }

    pub fn type_text(&mut self, text: &str) -> Vec<UiCommand> {
        self.frame(vec![Event::Text(text.into())])
    }
}

pub fn collect_shapes(
    shape: &egui::Shape,
    texts: &mut Vec<String>,
    images: &mut Vec<(egui::TextureId, Rect)>,
) {
    match shape {
        egui::Shape::Text(t) => texts.push(t.galley.text().to_string()),
        egui::Shape::Vec(v) => v.iter().for_each(|s| collect_shapes(s, texts, images)),
        egui::Shape::Mesh(m) if m.texture_id != egui::TextureId::default() => {
            images.push((m.texture_id, m.calc_bounds()))
        }
        _ => {}
    }
}

/// A key pressed in the focused page that the page gets first: the press must reach the page
/// and do nothing else; then the page leaves it alone (CEF's `OnKeyEvent`) and the chrome's
/// next frames act on it. Gives what they did.
pub fn via_page(h: &mut Harness, k: Key, m: Modifiers) -> Vec<UiCommand> {
    let sent = h.frame(press(k, m));
    let downs: Vec<_> = sent
        .iter()
        .filter(|c| {
            matches!(
                c,
                UiCommand::Page {
                    input: PageInput::KeyDown(_),
                    ..
                }
            )
        })
        .collect();
    assert_eq!(downs.len(), 1, "{k:?} {m:?} must reach the page first: {sent:?}");
    assert!(
        without_noise(sent.clone())
            .iter()
            .all(|c| matches!(c, UiCommand::Page { .. })),
        "{k:?} {m:?} acted before the page had it: {sent:?}"
    );
    let mut cmds = h.page_leaves(&sent);
    cmds.extend(h.frame(vec![]));
    without_noise(cmds)
}

/// A shortcut pressed wherever the keyboard is: when it reaches the page first, the page
/// leaves it alone. Gives what the chrome did, the page's key events left out.
pub fn shortcut(h: &mut Harness, k: Key, m: Modifiers) -> Vec<UiCommand> {
    let mut cmds = h.frame(press(k, m));
    cmds.extend(h.page_leaves(&cmds.clone()));
    without_noise(cmds)
        .into_iter()
        .filter(|c| !matches!(c, UiCommand::Page { .. }))
        .collect()
}

pub fn without_noise(cmds: Vec<UiCommand>) -> Vec<UiCommand> {
    cmds.into_iter()
        .filter(|c| {
            !matches!(
                c,
                UiCommand::Resize { .. }
                    | UiCommand::PageFocus { .. }
                    | UiCommand::Page {
                        input: PageInput::MouseMove { .. } | PageInput::MouseLeave { .. },
                        ..
                    }
            )
        })
        .collect()
}
