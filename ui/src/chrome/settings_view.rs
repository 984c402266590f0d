//! The settings view (Ctrl+, or the main menu's "Settings…"): a side panel beside the page,
//! like the history panel, in four sections.
//!
//! * General: the search engine ([`UiCommand::SetSearchEngine`]; a custom one is a template
//!   with `%s`), the default container ([`UiCommand::SetDefaultContainer`]) and the download
//!   folder ([`UiCommand::SetDownloadDir`]).
//! * Appearance: the dark-mode defaults: the colour scheme pages are told
//!   ([`UiCommand::SetColorScheme`]), the policy of sites without their own
//!   ([`UiCommand::SetDarkDefault`]), the filter's brightness and contrast, and the sites with a
//!   choice of their own (forgetting one is [`UiCommand::SetTheme`] with the default).
//! * Privacy: "Clear browsing data" ([`UiCommand::ClearBrowsingData`]) and tracker blocking,
//!   on or off with per-site exceptions ([`UiCommand::SetBlocking`],
//!   [`UiCommand::SetSiteBlocking`]).
//! * Site permissions: what each site was allowed or refused, per container, changed to
//!   Allow, Block or Ask (forget the answer) ([`UiCommand::SetSitePermission`]).
//! * Agent: the MCP port of the next start ([`UiCommand::SetMcpPort`]).
//!
//! Every choice is one command; the values shown are the app's
//! ([`crate::model::SettingsView`]). The panel keeps only what is being typed; a field shows
//! the app's value again once what was typed in it is saved.

use std::path::PathBuf;

use egui::{Align, Context, Id, Layout, RichText, Ui, vec2};

use super::bookmarks::expand_path;
use super::{Chrome, ClearRange, controls};
use crate::command::{ClearData, UiCommand};
use crate::dark::{ColorScheme, FilterOptions, ThemeMode, site_key};
use crate::model::ChromeModel;
use crate::omnibox::{SearchEngine, check_template};

/// The lowest MCP port offered: ports below need root, which the browser never has.
pub const MIN_MCP_PORT: u16 = 1024;

/// A section of the settings view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsSection {
    /// Search engine, default container, downloads, spelling.
    General,
    /// Dark-mode defaults.
    Appearance,
    /// Clear browsing data, third-party cookies, tracker blocking.
    Privacy,
    /// Remembered permission answers per site and container.
    Permissions,
    /// The MCP port.
    Agent,
}

impl SettingsSection {
    /// Every section, in the order the view's tabs show them.
    pub const ALL: [SettingsSection; 5] = [
        SettingsSection::General,
        SettingsSection::Appearance,
        SettingsSection::Privacy,
        SettingsSection::Permissions,
        SettingsSection::Agent,
    ];

    /// As the view names it.
    pub fn label(self) -> &'static str {
        match self {
            SettingsSection::General => "General",
            SettingsSection::Appearance => "Appearance",
            SettingsSection::Privacy => "Privacy",
            SettingsSection::Permissions => "Permissions",
            SettingsSection::Agent => "Agent",
        }
    }

    pub(super) fn key(self) -> &'static str {
        match self {
            SettingsSection::General => "general",
            SettingsSection::Appearance => "appearance",
            SettingsSection::Privacy => "privacy",
            SettingsSection::Permissions => "permissions",
            SettingsSection::Agent => "agent",
        }
    }
}

/// The key of a search engine in control names.
pub(super) fn engine_key(e: &SearchEngine) -> &'static str {
    match e {
        SearchEngine::DuckDuckGo => "duckduckgo",
        SearchEngine::Google => "google",
        SearchEngine::Bing => "bing",
        SearchEngine::Startpage => "startpage",
        SearchEngine::Custom(_) => "custom",
    }
}

/// The key of a colour-scheme choice in control names.
pub(super) fn scheme_key(s: Option<ColorScheme>) -> &'static str {
    match s {
        None => "system",
        Some(ColorScheme::Light) => "light",
        Some(ColorScheme::Dark) => "dark",
    }
}

/// A text field that shows the app's value until the human edits it, and the app's value
/// again once the edit is saved.
#[derive(Default)]
struct Field {
    text: String,
    /// The app's value the text was last taken from.
    source: Option<String>,
    editing: bool,
    error: Option<String>,
}

impl Field {
    fn follow(&mut self, app: Option<String>) {
        if !self.editing && self.source != app {
            self.text = app.clone().unwrap_or_default();
            self.source = app;
            self.error = None;
        }
    }
}

/// "Clear browsing data" as chosen so far.
struct ClearChoice {
    range: ClearRange,
    /// A container id; `None` = all of them.
    container: Option<String>,
    history: bool,
    cookies: bool,
    cache: bool,
}

/// The open view's state.
pub(super) struct SettingsPanel {
    section: SettingsSection,
    /// "Custom" picked, its template not saved yet.
    custom_picked: bool,
    custom: Field,
    download: Field,
    port: Field,
    exception: Field,
    clear: ClearChoice,
    /// Focus this field on the next frame.
    focus: Option<Id>,
}

fn field_id(name: &str) -> Id {
    Id::unique(("aperture_settings_field", name))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The site a typed exception means: a host, a URL, or `www.` spellings all give
/// [`site_key`]'s key.
pub fn typed_site(typed: &str) -> Option<String> {
    let t = typed.trim();
    if t.is_empty() || t.chars().any(char::is_whitespace) {
        return None;
    }
    let url = if t.contains("://") {
        t.to_string()
    } else {
        format!("https://{t}")
    };
    site_key(&url).filter(|s| s != "file")
}

/// The control of one remembered permission's choice (`None` = Ask: forget the answer).
pub fn site_permission_control(
    container: &str,
    origin: &str,
    asked: &[String],
    allow: Option<bool>,
) -> String {
    let choice = match allow {
        Some(true) => "allow",
        Some(false) => "block",
        None => "ask",
    };
    format!(
        "settings:permission:{container}:{origin}:{}:{choice}",
        asked.join(",")
    )
}

/// The port typed in the Agent section, or why it can't be one.
pub fn typed_port(typed: &str) -> Result<u16, String> {
    let t = typed.trim();
    match t.parse::<u16>() {
        Ok(p) if p >= MIN_MCP_PORT => Ok(p),
        Ok(_) => Err(format!("pick a port from {MIN_MCP_PORT} to 65535")),
        Err(_) => Err(format!("a port is a number from {MIN_MCP_PORT} to 65535")),
    }
}

impl Chrome {
    /// Ctrl+, or the main menu: open the view (closing the history panel, which shares its
    /// side), or close it.
    pub(super) fn toggle_settings(&mut self, ctx: &Context) {
        if self.settings.is_some() {
            self.close_settings(ctx);
            return;
        }
        self.open_settings(ctx, SettingsSection::General);
    }

    /// Opens the view at `section` (Ctrl+Shift+Delete: Privacy, where browsing data is
    /// cleared), or moves an open one there.
    pub(super) fn open_settings(&mut self, ctx: &Context, section: SettingsSection) {
        if let Some(s) = &mut self.settings {
            s.section = section;
            return;
        }
        self.close_history(ctx);
        self.settings = Some(SettingsPanel {
            section,
            custom_picked: false,
            custom: Field::default(),
            download: Field::default(),
            port: Field::default(),
            exception: Field::default(),
            clear: ClearChoice {
                range: ClearRange::LastHour,
                container: None,
                history: true,
                cookies: true,
                cache: true,
            },
            focus: None,
        });
        self.set_page_focus(false);
    }

    pub(super) fn close_settings(&mut self, ctx: &Context) {
        self.settings = None;
        let focused = ctx.memory(|m| m.focused());
        if focused.is_some_and(|f| {
            ["custom", "download", "port", "exception"]
                .iter()
                .any(|n| f == field_id(n))
        }) {
            ctx.memory_mut(|m| m.surrender_focus(focused.expect("checked")));
            self.page_focused = true;
        }
    }

    /// Whether one of the view's text fields has the keyboard (Escape then closes the view).
    pub(super) fn settings_field_focused(&self, ctx: &Context) -> bool {
        self.settings.is_some()
            && ctx.memory(|m| {
                m.focused().is_some_and(|f| {
                    ["custom", "download", "port", "exception"]
                        .iter()
                        .any(|n| f == field_id(n))
                })
            })
    }

    pub(super) fn settings_panel(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let ctx = ui.ctx().clone();
        let Some(mut panel) = self.settings.take() else {
            return;
        };
        if let Some(id) = panel.focus.take() {
            ctx.memory_mut(|m| m.request_focus(id));
        }
        let view = &model.settings;
        let engine = view.values.search_engine();
        panel.custom.follow(match &engine {
            SearchEngine::Custom(t) => Some(t.clone()),
            _ => None,
        });
        panel
            .download
            .follow(view.download_dir.as_ref().map(|d| d.display().to_string()));
        panel.port.follow(view.mcp_port.map(|p| p.to_string()));
        let mut cmds = Vec::new();
        let mut close = false;
        let shown = egui::Panel::right("aperture_settings")
            .resizable(true)
            .default_size(420.0)
            .size_range(340.0..=720.0)
            .frame(
                egui::Frame::new()
                    .fill(ui.visuals().panel_fill)
                    .inner_margin(egui::Margin::same(10)),
            )
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label(RichText::new("Settings").strong().size(15.0));
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        let x = ui
                            .add(egui::Button::new(RichText::new("×").size(16.0)).frame(false))
                            .on_hover_text("Close (Ctrl+,)");
                        self.rects.insert(controls::SETTINGS_CLOSE.to_string(), x.rect);
                        close = x.clicked();
                    });
                });
                ui.horizontal(|ui| {
                    for s in SettingsSection::ALL {
                        let tab = ui.selectable_label(panel.section == s, s.label());
                        self.rects.insert(super::settings_section_control(s), tab.rect);
                        if tab.clicked() {
                            panel.section = s;
                        }
                    }
                });
                ui.separator();
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| match panel.section {
                        SettingsSection::General => self.settings_general(ui, &mut panel, model, &mut cmds),
                        SettingsSection::Appearance => self.settings_appearance(ui, model, &mut cmds),
                        SettingsSection::Privacy => self.settings_privacy(ui, &mut panel, model, &mut cmds),
                        SettingsSection::Permissions => self.settings_permissions(ui, model, &mut cmds),
                        SettingsSection::Agent => self.settings_agent(ui, &mut panel, model, &mut cmds),
                    });
            });
        self.rects
            .insert(controls::SETTINGS.to_string(), shown.response.rect);
        for c in cmds {
            self.emit(c);
        }
        if close {
            self.close_settings(&ctx);
        } else {
            self.settings = Some(panel);
        }
    }

    fn heading(ui: &mut Ui, text: &str) {
        ui.add_space(6.0);
        ui.label(RichText::new(text).strong());
    }

    /// A text field with a button after it; `Some(text)` when Enter or the button submits it.
    fn field_row(
        &mut self,
        ui: &mut Ui,
        field: &mut Field,
        name: &str,
        hint: &str,
        button: &str,
        controls: (&str, &str),
    ) -> Option<String> {
        let id = field_id(name);
        let mut submit = false;
        // Right to left, the button first: the field takes what is left of the panel's width,
        // so the row never widens the (resizable) panel, which would then widen it again.
        let row = vec2(ui.available_width(), ui.spacing().interact_size.y);
        ui.allocate_ui_with_layout(row, Layout::right_to_left(Align::Center), |ui| {
            let b = ui.button(button);
            self.rects.insert(controls.1.to_string(), b.rect);
            submit |= b.clicked();
            let r = ui.add(
                egui::TextEdit::singleline(&mut field.text)
                    .id(id)
                    .hint_text(hint)
                    .desired_width(ui.available_width()),
            );
            self.rects.insert(controls.0.to_string(), r.rect);
            if r.changed() {
                field.editing = true;
                field.error = None;
            }
            if r.lost_focus() {
                submit |= ui.input(|i| i.key_pressed(egui::Key::Enter));
            }
        });
        if let Some(e) = &field.error {
            ui.label(RichText::new(e).color(ui.visuals().error_fg_color).small());
        }
        submit.then(|| field.text.trim().to_string())
    }

    fn settings_general(
        &mut self,
        ui: &mut Ui,
        panel: &mut SettingsPanel,
        model: &ChromeModel,
        cmds: &mut Vec<UiCommand>,
    ) {
        let view = &model.settings;
        let engine = view.values.search_engine();
        Self::heading(ui, "Search engine");
        ui.label(
            RichText::new("What the address bar searches with when you type words, not an address.")
                .small()
                .weak(),
        );
        let custom_shown = panel.custom_picked || matches!(engine, SearchEngine::Custom(_));
        for e in SearchEngine::BUILT_IN {
            let picked = !custom_shown && engine == e;
            let r = ui.radio(picked, e.name());
            self.rects.insert(super::search_engine_control(&e), r.rect);
            if r.clicked() && !picked {
                panel.custom_picked = false;
                panel.custom.editing = false;
                cmds.push(UiCommand::SetSearchEngine(e));
            }
        }
        let r = ui.radio(custom_shown, "Custom");
        self.rects.insert(
            super::search_engine_control(&SearchEngine::Custom(String::new())),
            r.rect,
        );
        if r.clicked() && !custom_shown {
            panel.custom_picked = true;
            panel.focus = Some(field_id("custom"));
        }
        if custom_shown {
            ui.indent("aperture_settings_custom", |ui| {
                let typed = self.field_row(
                    ui,
                    &mut panel.custom,
                    "custom",
                    "https://search.example/?q=%s",
                    "Use",
                    (controls::SETTINGS_CUSTOM_TEMPLATE, controls::SETTINGS_CUSTOM_USE),
                );
                ui.label(RichText::new("%s stands for the search terms.").small().weak());
                if let Some(t) = typed {
                    match check_template(&t) {
                        Ok(()) => {
                            panel.custom.editing = false;
                            panel.custom.error = None;
                            panel.custom_picked = false;
                            cmds.push(UiCommand::SetSearchEngine(SearchEngine::Custom(t)));
                        }
                        Err(e) => panel.custom.error = Some(format!("Not saved: {e}")),
                    }
                }
            });
        }

        Self::heading(ui, "Default container");
        ui.label(
            RichText::new("Where the first tab and pages from other apps open.")
                .small()
                .weak(),
        );
        let current = view.default_container.as_deref();
        let name = model
            .containers
            .iter()
            .find(|c| Some(c.id.as_str()) == current)
            .map_or("—", |c| c.name.as_str());
        let combo = egui::ComboBox::from_id_salt("aperture_settings_container")
            .selected_text(name)
            .width(220.0)
            .show_ui(ui, |ui| {
                for c in &model.containers {
                    let item = ui.selectable_label(Some(c.id.as_str()) == current, &c.name);
                    self.rects
                        .insert(super::settings_container_control(&c.id), item.rect);
                    if item.clicked() && Some(c.id.as_str()) != current {
                        cmds.push(UiCommand::SetDefaultContainer {
                            container: c.id.clone(),
                        });
                    }
                }
            });
        self.rects
            .insert(controls::SETTINGS_CONTAINER.to_string(), combo.response.rect);

        Self::heading(ui, "Downloads");
        ui.label(
            RichText::new("Save files to this folder (from the next download on).")
                .small()
                .weak(),
        );
        if let Some(typed) = self.field_row(
            ui,
            &mut panel.download,
            "download",
            "~/Downloads",
            "Save",
            (controls::SETTINGS_DOWNLOAD_DIR, controls::SETTINGS_DOWNLOAD_SAVE),
        ) {
            if typed.is_empty() {
                panel.download.error = Some("Not saved: type a folder".into());
            } else {
                let home = std::env::var_os("HOME")
                    .filter(|h| !h.is_empty())
                    .map(PathBuf::from);
                let dir = expand_path(&typed, home.as_deref());
                if dir.is_absolute() {
                    panel.download.editing = false;
                    panel.download.error = None;
                    cmds.push(UiCommand::SetDownloadDir(dir));
                } else {
                    panel.download.error = Some("Not saved: give the folder's full path".into());
                }
            }
        }
        self.settings_spelling(ui, model, cmds);
    }

    fn settings_spelling(&mut self, ui: &mut Ui, model: &ChromeModel, cmds: &mut Vec<UiCommand>) {
        Self::heading(ui, "Spelling");
        let view = &model.settings;
        let langs = &view.spelling_languages;
        ui.add_enabled_ui(!langs.is_empty(), |ui| {
            let mut on = view.values.spellcheck;
            let r = ui.checkbox(&mut on, "Check spelling as you type");
            self.rects
                .insert(controls::SETTINGS_SPELLCHECK.to_string(), r.rect);
            if r.clicked() {
                cmds.push(UiCommand::SetSpellcheck(on));
            }
        });
        if !view.spelling_available.is_empty() {
            ui.label("Languages:");
            for lang in &view.spelling_available {
                let mut checked = langs.contains(lang);
                // The last language in use stays: with none, nothing would be checked.
                let last = checked && langs.len() == 1;
                let r = ui.add_enabled(!last, egui::Checkbox::new(&mut checked, lang.as_str()));
                self.rects.insert(super::spell_language_control(lang), r.rect);
                if r.clicked() {
                    let mut next: Vec<String> = view
                        .spelling_available
                        .iter()
                        .filter(|l| if *l == lang { checked } else { langs.contains(l) })
                        .cloned()
                        .collect();
                    next.sort();
                    cmds.push(UiCommand::SetSpellLanguages(next));
                }
            }
        }
        let note = if langs.is_empty() {
            "No dictionary on this machine: install your language's hunspell package \
             (hunspell-en-us for American English) and restart."
                .to_string()
        } else {
            format!(
                "Dictionaries: {}. Made from this machine's hunspell dictionaries; nothing is \
                 downloaded and no text leaves the browser.",
                langs.join(", ")
            )
        };
        ui.label(RichText::new(note).small().weak());
    }

    fn settings_appearance(&mut self, ui: &mut Ui, model: &ChromeModel, cmds: &mut Vec<UiCommand>) {
        let theme = &model.settings.values.theme;
        Self::heading(ui, "Colour scheme pages are told you prefer");
        for (choice, label) in [
            (None, "Follow the system"),
            (Some(ColorScheme::Light), "Light"),
            (Some(ColorScheme::Dark), "Dark"),
        ] {
            let r = ui.radio(theme.prefer == choice, label);
            self.rects.insert(super::color_scheme_control(choice), r.rect);
            if r.clicked() && theme.prefer != choice {
                cmds.push(UiCommand::SetColorScheme(choice));
            }
        }

        Self::heading(ui, "Dark mode for sites without their own setting");
        let default = theme.policies.default;
        ui.horizontal(|ui| {
            for m in ThemeMode::ALL {
                let r = ui.radio(default == m, m.label());
                self.rects.insert(super::dark_default_control(m), r.rect);
                if r.clicked() && default != m {
                    cmds.push(UiCommand::SetDarkDefault(m));
                }
            }
        });
        ui.label(
            RichText::new("Auto darkens light pages while you prefer dark; On always; Off never.")
                .small()
                .weak(),
        );

        Self::heading(ui, "Darkened pages");
        let filter = theme.filter;
        let mut f = filter;
        let b = ui.add(egui::Slider::new(&mut f.brightness, 0.5..=1.2).text("Brightness"));
        let c = ui.add(egui::Slider::new(&mut f.contrast, 0.5..=1.5).text("Contrast"));
        self.rects
            .insert(controls::SETTINGS_BRIGHTNESS.to_string(), b.rect);
        self.rects.insert(controls::SETTINGS_CONTRAST.to_string(), c.rect);
        if (b.changed() || c.changed()) && f != filter {
            cmds.push(UiCommand::SetDarkFilter { options: f });
        }
        let reset = ui.add_enabled(filter != FilterOptions::default(), egui::Button::new("Reset"));
        if reset.clicked() {
            cmds.push(UiCommand::SetDarkFilter {
                options: FilterOptions::default(),
            });
        }

        Self::heading(ui, "Sites with their own setting");
        if theme.policies.sites.is_empty() {
            ui.label(RichText::new("None: choose one from the toolbar's 🌙 menu on a site.").weak());
        }
        for (site, mode) in &theme.policies.sites {
            ui.horizontal(|ui| {
                ui.label(site);
                ui.label(RichText::new(mode.label()).weak());
                ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                    let x = ui
                        .small_button("Forget")
                        .on_hover_text("Use the default for this site");
                    self.rects.insert(super::dark_site_forget_control(site), x.rect);
                    if x.clicked() {
                        cmds.push(UiCommand::SetTheme {
                            site: site.clone(),
                            mode: default,
                        });
                    }
                });
            });
        }
    }

    fn settings_privacy(
        &mut self,
        ui: &mut Ui,
        panel: &mut SettingsPanel,
        model: &ChromeModel,
        cmds: &mut Vec<UiCommand>,
    ) {
        // Clearing comes first: its place in the view never moves with the exceptions list.
        Self::heading(ui, "Clear browsing data");
        let clear = &mut panel.clear;
        egui::Grid::new("aperture_settings_clear")
            .num_columns(2)
            .spacing([8.0, 6.0])
            .show(ui, |ui| {
                ui.label("Time range");
                let range = egui::ComboBox::from_id_salt("aperture_settings_clear_range")
                    .selected_text(clear.range.label())
                    .width(180.0)
                    .show_ui(ui, |ui| {
                        for r in ClearRange::ALL {
                            let item = ui.selectable_value(&mut clear.range, r, r.label());
                            self.rects.insert(super::clear_range_control(r), item.rect);
                        }
                    });
                self.rects
                    .insert(controls::SETTINGS_CLEAR_RANGE.to_string(), range.response.rect);
                ui.end_row();
                ui.label("Containers");
                let name = clear
                    .container
                    .as_deref()
                    .and_then(|id| model.containers.iter().find(|c| c.id == id))
                    .map_or("All containers", |c| c.name.as_str());
                let which = egui::ComboBox::from_id_salt("aperture_settings_clear_container")
                    .selected_text(name)
                    .width(180.0)
                    .show_ui(ui, |ui| {
                        let all = ui.selectable_value(&mut clear.container, None, "All containers");
                        self.rects.insert(super::clear_container_control(None), all.rect);
                        for c in &model.containers {
                            let item = ui.selectable_value(&mut clear.container, Some(c.id.clone()), &c.name);
                            self.rects
                                .insert(super::clear_container_control(Some(&c.id)), item.rect);
                        }
                    });
                self.rects.insert(
                    controls::SETTINGS_CLEAR_CONTAINER.to_string(),
                    which.response.rect,
                );
                ui.end_row();
            });
        let h = ui.checkbox(&mut clear.history, "Browsing history");
        let k = ui.checkbox(&mut clear.cookies, "Cookies");
        let c = ui.checkbox(&mut clear.cache, "Cached images and files");
        self.rects
            .insert(controls::SETTINGS_CLEAR_HISTORY.to_string(), h.rect);
        self.rects
            .insert(controls::SETTINGS_CLEAR_COOKIES.to_string(), k.rect);
        self.rects
            .insert(controls::SETTINGS_CLEAR_CACHE.to_string(), c.rect);
        if clear.cache && clear.range != ClearRange::AllTime {
            ui.label(
                RichText::new("Cached files go for all time: the cache keeps no dates to clear by.")
                    .small()
                    .weak(),
            );
        }
        let what = ClearData {
            since_ms: clear.range.since_ms(now_ms()),
            container: clear.container.clone(),
            history: clear.history,
            cookies: clear.cookies,
            cache: clear.cache,
        };
        let ok = ui.add_enabled(what.any(), egui::Button::new("Clear data"));
        self.rects
            .insert(controls::SETTINGS_CLEAR_OK.to_string(), ok.rect);
        if ok.clicked() {
            cmds.push(UiCommand::ClearBrowsingData(what));
        }

        ui.add_space(6.0);
        ui.separator();
        Self::heading(ui, "Cookies");
        let mut block = model.settings.values.block_third_party_cookies;
        let r = ui.checkbox(&mut block, "Block third-party cookies");
        self.rects
            .insert(controls::SETTINGS_THIRD_PARTY_COOKIES.to_string(), r.rect);
        if r.clicked() {
            cmds.push(UiCommand::SetThirdPartyCookies(block));
        }
        ui.label(
            RichText::new(
                "Frames of other sites keep no cookies. Some embedded sign-ins and comment boxes stop working. A change shows on a page's next load.",
            )
            .small()
            .weak(),
        );

        ui.add_space(6.0);
        ui.separator();
        Self::heading(ui, "Pop-ups");
        let origins = &model.settings.values.popup_origins;
        ui.label(if origins.is_empty() {
            "Pages open pop-ups only when you click. The bar that says one was stopped lets a site open them."
        } else {
            "Pages open pop-ups only when you click, except on:"
        });
        for origin in origins {
            ui.horizontal(|ui| {
                ui.label(super::overlays::shown_origin(origin));
                ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                    let x = ui.small_button("×").on_hover_text("Stop allowing pop-ups here");
                    self.rects.insert(super::popup_origin_control(origin), x.rect);
                    if x.clicked() {
                        cmds.push(UiCommand::SetPopupsAllowed {
                            origin: origin.clone(),
                            allow: false,
                        });
                    }
                });
            });
        }

        ui.add_space(6.0);
        ui.separator();
        Self::heading(ui, "Tracker blocking");
        let view = &model.settings;
        let blocking = &view.values.blocking;
        if !view.blocking_available {
            ui.label(
                RichText::new(
                    "Off in this session (started with --no-block, or the filter lists are not installed).",
                )
                .weak(),
            );
        }
        ui.add_enabled_ui(view.blocking_available, |ui| {
            let mut on = blocking.enabled;
            let all = ui.checkbox(&mut on, "Block trackers and ads on every site");
            self.rects
                .insert(controls::SETTINGS_BLOCKING.to_string(), all.rect);
            if all.clicked() {
                cmds.push(UiCommand::SetBlocking(on));
            }
            if let Some(site) = model
                .active_tab()
                .and_then(|t| site_key(&t.url))
                .filter(|s| s != "file")
            {
                let mut here = blocking.blocks_on(&site);
                let r = ui.checkbox(&mut here, format!("Block trackers on {site}"));
                self.rects
                    .insert(controls::SETTINGS_SITE_BLOCKING.to_string(), r.rect);
                if r.clicked() {
                    cmds.push(UiCommand::SetSiteBlocking { site, block: here });
                }
            }
            ui.label(
                RichText::new("A change shows on the site's next load.")
                    .small()
                    .weak(),
            );
            ui.add_space(4.0);
            ui.label(if blocking.enabled {
                "Sites where trackers are not blocked:"
            } else {
                "Sites where trackers are blocked:"
            });
            for (site, block) in &blocking.sites {
                ui.horizontal(|ui| {
                    ui.label(site);
                    ui.label(RichText::new(if *block { "blocked" } else { "not blocked" }).weak());
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        let x = ui.small_button("×").on_hover_text("Remove the exception");
                        self.rects.insert(super::blocking_exception_control(site), x.rect);
                        if x.clicked() {
                            cmds.push(UiCommand::SetSiteBlocking {
                                site: site.clone(),
                                block: blocking.enabled,
                            });
                        }
                    });
                });
            }
            let add = if blocking.enabled { "Don't block" } else { "Block" };
            if let Some(typed) = self.field_row(
                ui,
                &mut panel.exception,
                "exception",
                "example.com",
                add,
                (
                    controls::SETTINGS_EXCEPTION_SITE,
                    controls::SETTINGS_EXCEPTION_ADD,
                ),
            ) {
                match typed_site(&typed) {
                    Some(site) => {
                        panel.exception = Field::default();
                        cmds.push(UiCommand::SetSiteBlocking {
                            site,
                            block: !blocking.enabled,
                        });
                    }
                    None => panel.exception.error = Some("Type a site, like example.com".into()),
                }
            }
        });
    }

    fn settings_permissions(&mut self, ui: &mut Ui, model: &ChromeModel, cmds: &mut Vec<UiCommand>) {
        Self::heading(ui, "Site permissions");
        ui.label(
            RichText::new(
                "What you allowed or blocked when a site asked, in each container. Ask forgets the answer: the site asks again next time.",
            )
            .small()
            .weak(),
        );
        let perms = &model.settings.permissions;
        if perms.is_empty() {
            ui.add_space(4.0);
            ui.label(
                RichText::new("None yet: answers to a site's permission prompt are listed here.").weak(),
            );
            return;
        }
        let mut container: Option<&str> = None;
        for p in perms {
            if container != Some(p.container.as_str()) {
                container = Some(p.container.as_str());
                let name = model
                    .containers
                    .iter()
                    .find(|c| c.id == p.container)
                    .map_or(p.container.as_str(), |c| c.name.as_str());
                ui.add_space(6.0);
                ui.label(RichText::new(name).strong());
            }
            ui.add_space(2.0);
            ui.label(display_site(&p.origin));
            ui.horizontal(|ui| {
                ui.add_space(12.0);
                ui.label(RichText::new(p.asked.join(", ")).small().weak());
            });
            ui.horizontal(|ui| {
                ui.add_space(12.0);
                for (choice, label) in [(Some(true), "Allow"), (Some(false), "Block"), (None, "Ask")] {
                    let current = Some(p.allow) == choice;
                    let r = ui.selectable_label(current, label);
                    self.rects.insert(
                        site_permission_control(&p.container, &p.origin, &p.asked, choice),
                        r.rect,
                    );
                    if r.clicked() && !current {
                        cmds.push(UiCommand::SetSitePermission {
                            container: p.container.clone(),
                            origin: p.origin.clone(),
                            asked: p.asked.clone(),
                            allow: choice,
                        });
                    }
                }
            });
        }
    }

    fn settings_agent(
        &mut self,
        ui: &mut Ui,
        panel: &mut SettingsPanel,
        model: &ChromeModel,
        cmds: &mut Vec<UiCommand>,
    ) {
        let view = &model.settings;
        Self::heading(ui, "MCP server");
        match &view.mcp_url {
            Some(url) => ui.label(format!("Agents reach this browser at {url}")),
            None => ui.label(RichText::new("No MCP listener was recorded for this profile.").weak()),
        };
        ui.add_space(4.0);
        ui.label("Port (loopback only):");
        if let Some(typed) = self.field_row(
            ui,
            &mut panel.port,
            "port",
            "8817",
            "Save",
            (controls::SETTINGS_MCP_PORT, controls::SETTINGS_MCP_SAVE),
        ) {
            match typed_port(&typed) {
                Ok(p) => {
                    panel.port.editing = false;
                    panel.port.error = None;
                    cmds.push(UiCommand::SetMcpPort(p));
                }
                Err(e) => panel.port.error = Some(format!("Not saved: {e}")),
            }
        }
        ui.label(
            RichText::new(
                "A new port applies the next time Aperture starts; agents registered with the old one must be told.",
            )
            .small()
            .weak(),
        );
    }
}

/// `https://maps.example:8443/` → `maps.example:8443`; the scheme only when it is not https.
fn display_site(origin: &str) -> String {
    let o = origin.trim_end_matches('/');
    match o.strip_prefix("https://") {
        Some(rest) => rest.to_string(),
        None => o.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_shown_without_https() {
        assert_eq!(display_site("https://maps.example/"), "maps.example");
        assert_eq!(display_site("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
    }

    #[test]
    fn typed_sites_use_the_site_key() {
        assert_eq!(typed_site("www.Example.com").as_deref(), Some("example.com"));
        assert_eq!(
            typed_site("https://news.example.com/a?b").as_deref(),
            Some("news.example.com")
        );
        assert_eq!(typed_site(" shop.example ").as_deref(), Some("shop.example"));
        assert_eq!(typed_site(""), None);
        assert_eq!(typed_site("two words"), None);
        assert_eq!(typed_site("file:///tmp/a.html"), None);
    }

    #[test]
    fn typed_ports_are_unprivileged_numbers() {
        assert_eq!(typed_port(" 8817 "), Ok(8817));
        assert_eq!(typed_port("65535"), Ok(65535));
        assert!(typed_port("80").is_err());
        assert!(typed_port("0").is_err());
        assert!(typed_port("70000").is_err());
        assert!(typed_port("http").is_err());
    }
}
