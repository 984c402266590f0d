//! Bookmarks: the toolbar's menu (this tab, the bar, import, then every bookmark with folders
//! as submenus), the optional bar under the toolbar (the first root folder's children), a
//! right-click actions popup (open, open in new tab, rename, move between the bar and Other
//! bookmarks, remove) and the import dialog.
//!
//! A click opens a bookmark in the active tab; a middle click or Ctrl+click opens it in a new
//! background tab ([`UiCommand::OpenUrl`]).

use std::collections::HashMap;
use std::path::PathBuf;

use egui::{Align, Context, Id, Layout, Pos2, Rect, Response, RichText, Ui, vec2};

use super::{Chrome, bookmark_bar_control, bookmark_control, controls};
use crate::command::UiCommand;
use crate::model::{BookmarkNode, ChromeModel, TabView};

/// Longest title the menu shows before "…".
const MENU_TITLE_CHARS: usize = 60;
/// Longest title a bar button shows before "…".
const BAR_TITLE_CHARS: usize = 24;

/// A right-clicked bookmark or folder: what its actions popup offers.
pub(super) struct Actions {
    id: i64,
    url: Option<String>,
    at: Pos2,
    /// Its name, being edited after Rename….
    rename: Option<String>,
    /// The name as it was, to start the edit from.
    title: String,
}

/// Whether bookmark `id` is somewhere under the bookmarks bar (the first root).
fn on_bar(model: &ChromeModel, id: i64) -> bool {
    fn has(n: &BookmarkNode, id: i64) -> bool {
        n.id == id || n.children.iter().any(|c| has(c, id))
    }
    model
        .bookmarks
        .first()
        .is_some_and(|bar| bar.children.iter().any(|c| has(c, id)))
}

/// The import dialog's state.
pub(super) struct ImportDialog {
    path: String,
    /// Frames left to try focusing the path field (see `find::FOCUS_TRIES`).
    focus: u8,
}

impl ImportDialog {
    fn new() -> Self {
        ImportDialog {
            path: default_import_path(),
            focus: super::find::FOCUS_TRIES,
        }
    }
}

/// `bookmarks.html` in the download directory, written with `~` for the home directory as
/// the human would type it.
fn default_import_path() -> String {
    let dir = aperture_common::xdg::download_dir().map(|d| d.join("bookmarks.html"));
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    match (dir, home) {
        (Some(d), Some(h)) => match d.strip_prefix(&h) {
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => d.display().to_string(),
        },
        (Some(d), None) => d.display().to_string(),
        (None, _) => "~/Downloads/bookmarks.html".to_string(),
    }
}

/// The path the human typed, absolute: a leading `~` is the home directory, and so is the
/// base of a relative path (the browser's working directory means nothing to the human).
pub fn expand_path(typed: &str, home: Option<&std::path::Path>) -> PathBuf {
    let t = typed.trim();
    let rest = if t == "~" { Some("") } else { t.strip_prefix("~/") };
    match (rest, home) {
        (Some(rest), Some(home)) => home.join(rest),
        (None, Some(home)) if !t.starts_with('/') => home.join(t),
        _ => PathBuf::from(t),
    }
}

/// A title for display: the title, else the URL, cut to `max` characters.
fn label(node: &BookmarkNode, max: usize) -> String {
    let full = match (&node.url, node.title.trim()) {
        (_, t) if !t.is_empty() => t,
        (Some(u), _) => u.as_str(),
        (None, _) => "(untitled folder)",
    };
    if full.chars().count() > max {
        let cut: String = full.chars().take(max - 1).collect();
        format!("{cut}…")
    } else {
        full.to_string()
    }
}

/// Where bookmark items record their rects and what the human asked for.
struct Sink<'a> {
    rects: &'a mut HashMap<String, Rect>,
    commands: Vec<UiCommand>,
    actions: Option<Actions>,
    control: fn(i64) -> String,
    max_chars: usize,
    /// Icons by host ([`ChromeModel::favicons`]).
    icons: &'a std::collections::BTreeMap<String, crate::model::Favicon>,
}

impl Sink<'_> {
    /// Bookmarks as menu items, folders as submenus.
    fn items(&mut self, ui: &mut Ui, nodes: &[BookmarkNode]) {
        for node in nodes {
            self.node(ui, node);
        }
    }

    fn node(&mut self, ui: &mut Ui, node: &BookmarkNode) {
        let text = label(node, self.max_chars);
        let resp = if node.is_folder() {
            ui.menu_button(format!("📁 {text}"), |ui| {
                ui.set_min_width(180.0);
                if node.children.is_empty() {
                    ui.label(RichText::new("(empty)").weak());
                } else {
                    // Inside a folder's menu the titles can be long again.
                    let bar_max = std::mem::replace(&mut self.max_chars, MENU_TITLE_CHARS);
                    self.items(ui, &node.children);
                    self.max_chars = bar_max;
                }
            })
            .response
        } else {
            let icon = node
                .url
                .as_deref()
                .and_then(|u| self.icons.get(super::history::host_of(u)))
                .and_then(|i| super::favicon::texture(ui.ctx(), i));
            let r = match icon {
                Some(t) => ui.add(egui::Button::image_and_text(
                    egui::Image::new((t, vec2(16.0, 16.0))),
                    text,
                )),
                None => ui.button(text),
            };
            match &node.url {
                Some(url) => r.on_hover_text(url),
                None => r,
            }
        };
        self.rects.insert((self.control)(node.id), resp.rect);
        self.clicked(ui, &resp, node);
    }

    fn clicked(&mut self, ui: &Ui, resp: &Response, node: &BookmarkNode) {
        if resp.secondary_clicked() {
            self.actions = Some(Actions {
                id: node.id,
                url: node.url.clone(),
                at: resp.interact_pointer_pos().unwrap_or(resp.rect.left_bottom()),
                rename: None,
                title: node.title.clone(),
            });
            return;
        }
        let Some(url) = &node.url else { return };
        let ctrl = ui.input(|i| i.modifiers.command || i.modifiers.ctrl);
        if resp.middle_clicked() || (resp.clicked() && ctrl) {
            self.commands.push(UiCommand::OpenUrl {
                url: url.clone(),
                new_tab: true,
            });
        } else if resp.clicked() {
            self.commands.push(UiCommand::OpenUrl {
                url: url.clone(),
                new_tab: false,
            });
            ui.close();
        }
    }
}

impl Chrome {
    fn take_sink(&mut self, sink_commands: Vec<UiCommand>, actions: Option<Actions>) {
        for c in sink_commands {
            self.emit(c);
        }
        if actions.is_some() {
            self.bookmark_actions = actions;
        }
    }

    /// The toolbar's bookmarks menu.
    pub(super) fn bookmarks_menu(&mut self, ui: &mut Ui, active: Option<&TabView>, model: &ChromeModel) {
        let mut sink = Sink {
            rects: &mut self.rects,
            commands: Vec::new(),
            actions: None,
            control: bookmark_control,
            max_chars: MENU_TITLE_CHARS,
            icons: &model.favicons,
        };
        let mut import = false;
        let button = egui::Button::new(RichText::new("🔖").size(15.0)).min_size(vec2(30.0, 26.0));
        let (resp, _) = egui::containers::menu::MenuButton::from_button(button).ui(ui, |ui| {
            ui.set_min_width(240.0);
            if let Some(t) = active {
                let text = if t.bookmarked {
                    "★ Remove bookmark"
                } else {
                    "☆ Bookmark this tab"
                };
                let r = ui.add(egui::Button::new(text).shortcut_text("Ctrl+D"));
                sink.rects.insert(controls::BOOKMARK_THIS.to_string(), r.rect);
                if r.clicked() {
                    sink.commands.push(UiCommand::ToggleBookmark { tab: t.id });
                }
            }
            let bar = model.show_bookmarks_bar;
            let r = ui.add(
                egui::Button::new("Show bookmarks bar")
                    .selected(bar)
                    .shortcut_text("Ctrl+Shift+B"),
            );
            sink.rects
                .insert(controls::BOOKMARKS_BAR_TOGGLE.to_string(), r.rect);
            if r.clicked() {
                sink.commands.push(UiCommand::SetBookmarksBar(!bar));
            }
            let r = ui.button("Import bookmarks from HTML file…");
            sink.rects.insert(controls::BOOKMARKS_IMPORT.to_string(), r.rect);
            import = r.clicked();
            ui.separator();
            if model.bookmarks.is_empty() {
                ui.label(RichText::new("No bookmarks yet").weak());
            } else {
                egui::ScrollArea::vertical().max_height(480.0).show(ui, |ui| {
                    sink.items(ui, &model.bookmarks);
                });
            }
        });
        let (commands, actions) = (sink.commands, sink.actions);
        self.rects.insert(controls::BOOKMARKS.to_string(), resp.rect);
        resp.on_hover_text("Bookmarks");
        self.take_sink(commands, actions);
        if import {
            self.import_dialog = Some(ImportDialog::new());
            self.page_focused = false;
        }
    }

    /// The bookmarks bar: the first root folder's children.
    pub(super) fn bookmarks_bar(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let items: &[BookmarkNode] = model
            .bookmarks
            .iter()
            .find(|n| n.is_folder())
            .map_or(&[], |f| f.children.as_slice());
        let mut sink = Sink {
            rects: &mut self.rects,
            commands: Vec::new(),
            actions: None,
            control: bookmark_bar_control,
            max_chars: BAR_TITLE_CHARS,
            icons: &model.favicons,
        };
        let bar = ui
            .horizontal(|ui| {
                ui.set_min_height(24.0);
                if items.is_empty() {
                    ui.label(
                        RichText::new("Bookmarks show here: Ctrl+D or the star bookmarks a page")
                            .small()
                            .weak(),
                    );
                    return;
                }
                egui::ScrollArea::horizontal()
                    .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysHidden)
                    .show(ui, |ui| {
                        ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                            ui.spacing_mut().button_padding = vec2(6.0, 2.0);
                            for node in items {
                                sink.node(ui, node);
                            }
                        });
                    });
            })
            .response;
        let (commands, actions) = (sink.commands, sink.actions);
        self.rects.insert(controls::BOOKMARKS_BAR.to_string(), bar.rect);
        self.take_sink(commands, actions);
    }

    /// The actions of a right-clicked bookmark, at the click.
    pub(super) fn bookmark_actions_popup(&mut self, ui: &Ui, model: &ChromeModel) {
        let Some(a) = &mut self.bookmark_actions else {
            return;
        };
        let (id, url, at) = (a.id, a.url.clone(), a.at);
        let bar = on_bar(model, id);
        let mut open = true;
        let mut chosen = None;
        let mut rects = Vec::new();
        let mut start_rename = false;
        let shown = super::menu_popup(ui, "aperture_bookmark_actions", at, &mut open).show(|ui| {
            ui.set_min_width(170.0);
            if let Some(name) = &mut a.rename {
                // Rename…: the name, Enter or Save keeps it, Escape (the menu's) drops it.
                let field = ui.add(egui::TextEdit::singleline(name).desired_width(220.0));
                rects.push((controls::BOOKMARK_NAME, field.rect));
                if !field.has_focus() && !field.lost_focus() {
                    field.request_focus();
                }
                let save = ui.button("Save");
                rects.push((controls::BOOKMARK_SAVE_NAME, save.rect));
                let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if (save.clicked() || enter) && !name.trim().is_empty() {
                    chosen = Some(UiCommand::RenameBookmark {
                        id,
                        title: name.trim().to_string(),
                    });
                }
                return;
            }
            if let Some(url) = &url {
                let r = ui.button("Open");
                rects.push((controls::BOOKMARK_OPEN, r.rect));
                if r.clicked() {
                    chosen = Some(UiCommand::OpenUrl {
                        url: url.clone(),
                        new_tab: false,
                    });
                }
                let r = ui.button("Open in new tab");
                rects.push((controls::BOOKMARK_OPEN_NEW, r.rect));
                if r.clicked() {
                    chosen = Some(UiCommand::OpenUrl {
                        url: url.clone(),
                        new_tab: true,
                    });
                }
                ui.separator();
            }
            let r = ui.button("Rename…");
            rects.push((controls::BOOKMARK_RENAME, r.rect));
            if r.clicked() {
                start_rename = true;
            }
            let r = ui.button(if bar {
                "Move to Other bookmarks"
            } else {
                "Move to the bookmarks bar"
            });
            rects.push((controls::BOOKMARK_MOVE, r.rect));
            if r.clicked() {
                chosen = Some(UiCommand::MoveBookmark { id, to_bar: !bar });
            }
            ui.separator();
            let r = ui.button(if url.is_some() {
                "Remove"
            } else {
                "Remove folder and its bookmarks"
            });
            rects.push((controls::BOOKMARK_REMOVE, r.rect));
            if r.clicked() {
                chosen = Some(UiCommand::RemoveBookmark { id });
            }
        });
        if start_rename {
            a.rename = Some(a.title.clone());
        }
        if let Some(r) = shown {
            self.rects
                .insert(controls::BOOKMARK_ACTIONS.to_string(), r.response.rect);
        }
        for (name, r) in rects {
            self.rects.insert(name.to_string(), r);
        }
        if let Some(c) = chosen {
            self.emit(c);
            self.bookmark_actions = None;
        } else if !open {
            self.bookmark_actions = None;
        }
    }

    /// The import dialog: a path and Import / Cancel. Enter imports, Escape cancels.
    pub(super) fn import_dialog(&mut self, ctx: &Context) {
        let Some(d) = &mut self.import_dialog else {
            return;
        };
        let field_id = Id::unique("aperture_import_path");
        if d.focus > 0 {
            d.focus -= 1;
            ctx.memory_mut(|m| m.request_focus(field_id));
        }
        let mut rects = Vec::new();
        let (mut import, mut cancel) = (false, false);
        let modal = egui::Modal::new(Id::unique("aperture_import")).show(ctx, |ui| {
            ui.set_width(440.0);
            ui.label(RichText::new("Import bookmarks").strong().size(15.0));
            ui.add_space(4.0);
            ui.label("An HTML bookmarks file, as Chrome, Firefox, Edge or Safari export it:");
            let field = ui.add(
                egui::TextEdit::singleline(&mut d.path)
                    .id(field_id)
                    .desired_width(f32::INFINITY),
            );
            rects.push((controls::IMPORT_PATH, field.rect));
            if field.has_focus() {
                d.focus = 0;
            }
            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                import = true;
            }
            ui.add_space(8.0);
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let ok = ui.add_enabled(
                    !d.path.trim().is_empty(),
                    egui::Button::new("Import").min_size(vec2(70.0, 24.0)),
                );
                let no = ui.add(egui::Button::new("Cancel").min_size(vec2(70.0, 24.0)));
                rects.push((controls::IMPORT_OK, ok.rect));
                rects.push((controls::IMPORT_CANCEL, no.rect));
                import |= ok.clicked();
                cancel = no.clicked();
            });
        });
        let close = modal.backdrop_response.clicked();
        self.rects
            .insert(controls::IMPORT.to_string(), modal.response.rect);
        for (name, r) in rects {
            self.rects.insert(name.to_string(), r);
        }
        let path = d.path.clone();
        if import && !path.trim().is_empty() {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from);
            self.emit(UiCommand::ImportBookmarks {
                path: expand_path(&path, home.as_deref()),
            });
            self.import_dialog = None;
        } else if cancel || close {
            self.import_dialog = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn typed_paths_become_absolute() {
        let home = Some(Path::new("/home/ada"));
        assert_eq!(
            expand_path("~/Downloads/bookmarks.html", home),
            Path::new("/home/ada/Downloads/bookmarks.html")
        );
        assert_eq!(expand_path(" ~ ", home), Path::new("/home/ada"));
        assert_eq!(expand_path("/tmp/b.html", home), Path::new("/tmp/b.html"));
        assert_eq!(expand_path("b.html", home), Path::new("/home/ada/b.html"));
        // "~user" is not ours to resolve.
        assert_eq!(
            expand_path("~bob/b.html", home),
            Path::new("/home/ada/~bob/b.html")
        );
        assert_eq!(expand_path("~/b.html", None), Path::new("~/b.html"));
    }

    #[test]
    fn labels_fall_back_to_the_url_and_are_cut() {
        let node = |title: &str, url: Option<&str>| BookmarkNode {
            id: 1,
            title: title.into(),
            url: url.map(Into::into),
            children: vec![],
        };
        assert_eq!(label(&node("Rust", Some("https://rust-lang.org/")), 24), "Rust");
        assert_eq!(
            label(&node(" ", Some("https://rust-lang.org/")), 60),
            "https://rust-lang.org/"
        );
        assert_eq!(label(&node("", None), 60), "(untitled folder)");
        assert_eq!(label(&node("abcdefghij", Some("x")), 5), "abcd…");
    }
}
