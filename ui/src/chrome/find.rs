//! The find bar: Ctrl+F opens it for the active tab, hanging from the page's top-right
//! corner under the toolbar. Typing searches ([`UiCommand::Find`] with `find_next: false`),
//! Enter / Shift+Enter and the arrows go to the next / previous match, Escape or × closes it
//! ([`UiCommand::StopFind`]). Each tab keeps its own bar while it is open. Keys typed into it
//! never reach the page: the field has egui's focus, so the page hasn't.

use egui::text::{CCursor, CCursorRange};
use egui::{Context, Id, Key, Order, RichText, vec2};

use super::{Chrome, controls};
use crate::command::UiCommand;
use crate::model::{FindView, TabId, TabView};

/// One tab's find bar.
pub(super) struct FindBar {
    text: String,
    /// Frames left to try focusing the field (its text selected). A new area is laid out
    /// invisibly on its first frame, when its field can't take focus yet, so a request is
    /// repeated until it holds.
    focus: u8,
}

/// Frames a focus request is repeated for.
pub(super) const FOCUS_TRIES: u8 = 3;

fn field_id(tab: TabId) -> Id {
    Id::unique(("aperture_find", tab.0))
}

/// What the bar says about the results: "3 of 12", "No results", or nothing while the
/// results (if any) are for some other text.
fn find_status(text: &str, view: Option<&FindView>) -> Option<String> {
    let v = view.filter(|v| !text.is_empty() && v.text == text)?;
    if v.count > 0 {
        Some(format!("{} of {}", v.active.max(0), v.count))
    } else if v.final_update {
        Some("No results".to_string())
    } else {
        None
    }
}

impl Chrome {
    /// Open (or re-focus) the find bar of `tab`. A new bar starts with the last text searched
    /// for, already searching, as in Chrome.
    pub(super) fn open_find(&mut self, tab: TabId) {
        if !self.find_bars.contains_key(&tab) {
            let text = self.last_find.clone();
            if !text.is_empty() {
                self.emit(UiCommand::Find {
                    tab,
                    text: text.clone(),
                    forward: true,
                    find_next: false,
                });
            }
            self.find_bars.insert(tab, FindBar { text, focus: 0 });
        }
        if let Some(bar) = self.find_bars.get_mut(&tab) {
            bar.focus = FOCUS_TRIES;
        }
        self.set_page_focus(false);
    }

    /// F3 / Ctrl+G (Shift: backwards): the next match of the bar's text, or open the bar.
    pub(super) fn find_again(&mut self, tab: TabId, forward: bool) {
        match self.find_bars.get(&tab).filter(|b| !b.text.is_empty()) {
            Some(bar) => {
                let text = bar.text.clone();
                self.emit(UiCommand::Find {
                    tab,
                    text,
                    forward,
                    find_next: true,
                });
            }
            None => self.open_find(tab),
        }
    }

    /// Close `tab`'s find bar and clear the page's highlights; keys go back to the page if
    /// they were in the bar.
    fn close_find(&mut self, ctx: &Context, tab: TabId) {
        if self.find_bars.remove(&tab).is_none() {
            return;
        }
        self.emit(UiCommand::StopFind { tab });
        if ctx.memory(|m| m.has_focus(field_id(tab))) {
            ctx.memory_mut(|m| m.surrender_focus(field_id(tab)));
            self.page_focused = true;
        }
    }

    /// Enter, Shift+Enter and Escape while the active tab's find field has focus, taken
    /// before egui (a single-line field would drop its focus on Enter). `true` if used.
    pub(super) fn find_key(
        &mut self,
        ctx: &Context,
        key: Key,
        m: egui::Modifiers,
        model: &crate::model::ChromeModel,
    ) -> bool {
        let Some(tab) = model.active else { return false };
        if !self.find_bars.contains_key(&tab) || !ctx.memory(|mem| mem.has_focus(field_id(tab))) {
            return false;
        }
        match key {
            Key::Enter if !m.command && !m.ctrl && !m.alt => {
                self.find_again(tab, !m.shift);
                true
            }
            Key::Escape if !m.any() => {
                self.close_find(ctx, tab);
                true
            }
            _ => false,
        }
    }

    pub(super) fn find_bar(&mut self, ctx: &Context, tab: &TabView) {
        let Some(page) = self.page_rect else { return };
        let id = field_id(tab.id);
        let Some(bar) = self.find_bars.get_mut(&tab.id) else {
            return;
        };
        if bar.focus > 0 {
            bar.focus -= 1;
            ctx.memory_mut(|m| m.request_focus(id));
            let mut state = egui::TextEdit::load_state(ctx, id).unwrap_or_default();
            state.cursor.set_char_range(Some(CCursorRange::two(
                CCursor::new(0),
                CCursor::new(bar.text.chars().count()),
            )));
            egui::TextEdit::store_state(ctx, id, state);
        }
        let mut text = bar.text.clone();
        let status = find_status(&text, tab.find.as_ref());
        let (mut changed, mut focused) = (false, false);
        let (mut prev, mut next, mut close) = (false, false, false);
        let mut rects = Vec::new();
        let area = egui::Area::new(Id::unique("aperture_find_bar"))
            .order(Order::Foreground)
            .pivot(egui::Align2::RIGHT_TOP)
            .fixed_pos(page.right_top() + vec2(-16.0, 0.0))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .inner_margin(egui::Margin::symmetric(8, 6))
                    .show(ui, |ui| {
                        ui.horizontal(|ui| {
                            let field = ui.add(
                                egui::TextEdit::singleline(&mut text)
                                    .id(id)
                                    .hint_text("Find in page")
                                    .desired_width(190.0),
                            );
                            rects.push((controls::FIND_FIELD, field.rect));
                            changed = field.changed();
                            focused = field.has_focus();
                            // Fixed width, so the buttons don't jump as the count changes.
                            let (slot, _) = ui.allocate_exact_size(vec2(74.0, 18.0), egui::Sense::hover());
                            if let Some(status) = &status {
                                let colour = if status == "No results" {
                                    ui.visuals().error_fg_color
                                } else {
                                    ui.visuals().weak_text_color()
                                };
                                let r = ui.painter().text(
                                    slot.center(),
                                    egui::Align2::CENTER_CENTER,
                                    status,
                                    egui::FontId::proportional(12.0),
                                    colour,
                                );
                                rects.push((controls::FIND_STATUS, r));
                            }
                            ui.separator();
                            let searchable = !text.is_empty();
                            let button = |ui: &mut egui::Ui, label: &str, hint: &str| {
                                ui.add_enabled(
                                    searchable,
                                    egui::Button::new(RichText::new(label).size(13.0)).frame(false),
                                )
                                .on_hover_text(hint)
                            };
                            let p = button(ui, "⏶", "Previous match (Shift+Enter)");
                            let n = button(ui, "⏷", "Next match (Enter)");
                            let x = ui
                                .add(egui::Button::new(RichText::new("×").size(15.0)).frame(false))
                                .on_hover_text("Close (Escape)");
                            rects.push((controls::FIND_PREV, p.rect));
                            rects.push((controls::FIND_NEXT, n.rect));
                            rects.push((controls::FIND_CLOSE, x.rect));
                            (prev, next, close) = (p.clicked(), n.clicked(), x.clicked());
                        });
                    });
            });
        self.rects.insert(controls::FIND.to_string(), area.response.rect);
        for (name, r) in rects {
            self.rects.insert(name.to_string(), r);
        }
        if focused && let Some(bar) = self.find_bars.get_mut(&tab.id) {
            bar.focus = 0;
        }
        if close {
            self.close_find(ctx, tab.id);
            return;
        }
        if changed {
            if let Some(bar) = self.find_bars.get_mut(&tab.id) {
                bar.text = text.clone();
            }
            if text.is_empty() {
                self.emit(UiCommand::StopFind { tab: tab.id });
            } else {
                self.last_find = text.clone();
                self.emit(UiCommand::Find {
                    tab: tab.id,
                    text,
                    forward: true,
                    find_next: false,
                });
            }
        } else if prev || next {
            self.find_again(tab.id, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str, active: i32, count: i32, final_update: bool) -> FindView {
        FindView {
            text: text.into(),
            active,
            count,
            final_update,
        }
    }

    #[test]
    fn status_counts_matches_of_the_text_typed() {
        assert_eq!(
            find_status("cat", Some(&view("cat", 3, 12, false))).as_deref(),
            Some("3 of 12")
        );
        assert_eq!(
            find_status("cat", Some(&view("cat", 0, 0, true))).as_deref(),
            Some("No results")
        );
        // Still counting: no verdict yet.
        assert_eq!(find_status("cat", Some(&view("cat", 0, 0, false))), None);
        // Results of an older text, or none yet, or nothing typed.
        assert_eq!(find_status("cats", Some(&view("cat", 1, 4, true))), None);
        assert_eq!(find_status("cat", None), None);
        assert_eq!(find_status("", Some(&view("", 0, 0, true))), None);
    }
}
