//! The omnibox key: when the vault holds logins for the page in front, a key shows at the
//! omnibox's end; clicking it lists them (label and username) and choosing one asks the app
//! to fill the page's sign-in form. Chrome, never page: the agent cannot see or press it.

use super::overlays::{Edge, page_bar};
use egui::{Align2, Id, Order, Rect, RichText, Ui, pos2, vec2};

use super::{Chrome, controls};
use crate::command::UiCommand;
use crate::model::{SaveLoginView, TabView};

impl Chrome {
    /// Draws the key left of `star` when `tab` has saved logins, and its menu when open.
    /// Returns the key's rect (what the next chip goes left of), or `None` when not shown.
    pub(super) fn login_chip(&mut self, ui: &mut Ui, star: Rect, tab: &TabView) -> Option<Rect> {
        if tab.saved_logins.is_empty() {
            if self.logins_open == Some(tab.id) {
                self.logins_open = None;
            }
            return None;
        }
        let key_rect =
            Rect::from_center_size(pos2(star.center().x - 26.0, star.center().y), vec2(24.0, 22.0));
        let key = ui
            .put(
                key_rect,
                egui::Button::new(RichText::new("🔑").size(14.0)).frame(false),
            )
            .on_hover_text("Fill a saved login from the vault");
        self.rects.insert(controls::LOGINS.to_string(), key.rect);
        if key.clicked() {
            self.logins_open = if self.logins_open == Some(tab.id) {
                None
            } else {
                Some(tab.id)
            };
        }
        if self.logins_open == Some(tab.id) {
            let mut chosen = None;
            let mut close = false;
            let area = egui::Area::new(Id::unique("aperture_logins_menu"))
                .order(Order::Foreground)
                .pivot(Align2::RIGHT_TOP)
                .fixed_pos(key_rect.right_bottom() + vec2(0.0, 6.0))
                .show(ui.ctx(), |ui| {
                    egui::Frame::popup(ui.style()).show(ui, |ui| {
                        ui.set_min_width(220.0);
                        ui.label(RichText::new("Saved logins for this site").strong());
                        for l in &tab.saved_logins {
                            let text = if l.username.is_empty() {
                                l.label.clone()
                            } else {
                                format!("{} — {}", l.label, l.username)
                            };
                            let row = ui.add(egui::Button::new(text).frame(false));
                            self.rects.insert(format!("login:{}", l.entry), row.rect);
                            if row.clicked() {
                                chosen = Some(l.entry.clone());
                            }
                        }
                        if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                            close = true;
                        }
                    });
                });
            self.rects
                .insert(controls::LOGINS_MENU.to_string(), area.response.rect);
            if let Some(entry) = chosen {
                self.emit(UiCommand::FillSavedLogin { tab: tab.id, entry });
                close = true;
            }
            // A click anywhere else closes it, like any menu.
            if area.response.clicked_elsewhere() && !key.clicked() {
                close = true;
            }
            if close {
                self.logins_open = None;
            }
        }
        Some(key_rect)
    }

    /// "Save the password for this site?" after the human signed in: a bar along the top of
    /// the page area (over it, so it does not resize the page) until answered. Only the
    /// human's chrome draws it; the values stay in the app.
    pub(super) fn save_login_bar(&mut self, ctx: &egui::Context, s: &SaveLoginView) {
        let Some(page) = self.page_rect else { return };
        if self.answered_save_login == Some(s.id) {
            return;
        }
        let (mut yes, mut no) = (false, false);
        page_bar(ctx, page, "aperture_save_login", Edge::Top, 8, |ui| {
            ui.label(RichText::new("🔑").size(14.0));
            let who = if s.username.is_empty() {
                String::new()
            } else {
                format!(" ({})", s.username)
            };
            ui.label(if s.update {
                format!("Update the saved password for {}{who} in the vault?", s.host)
            } else {
                format!("Save the password for {}{who} in the vault?", s.host)
            });
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let n = ui.button("Not now");
                let y = ui.button(RichText::new(if s.update { "Update" } else { "Save" }).strong());
                self.rects.insert(controls::SAVE_LOGIN_NO.to_string(), n.rect);
                self.rects.insert(controls::SAVE_LOGIN_YES.to_string(), y.rect);
                yes = y.clicked();
                no = n.clicked();
            });
        });
        if yes || no {
            self.answered_save_login = Some(s.id);
            self.emit(UiCommand::SaveLogin { id: s.id, save: yes });
        }
    }
}
