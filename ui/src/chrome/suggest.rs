//! The omnibox's suggestions and inline completion, Chrome's way: every edit is sent to the
//! app ([`UiCommand::OmniboxInput`]), which answers with suggestions (a dropdown under the
//! field) and the whole text the input completes to. The completion is shown selected after
//! what was typed, so typing on overwrites it and Backspace removes just the completion.
//! Up/Down pick a suggestion (the field shows its URL), Enter goes there, Escape first closes
//! the dropdown and then, as before, gives the URL back.

use egui::text::{CCursor, CCursorRange};
use egui::{Align2, Context, FontId, Id, Key, Order, Rect, Sense, Ui, pos2, vec2};

use super::{Chrome, STAR_COLOUR, controls, omnibox_id, suggestion_control};
use crate::command::UiCommand;
use crate::model::{ChromeModel, SuggestionView, TabId};
use crate::omnibox::inline_completion;

/// Rows the dropdown shows at most.
const MAX_ROWS: usize = 8;
const ROW_HEIGHT: f32 = 40.0;

impl Chrome {
    /// Whether the dropdown is showing: the human is editing in the omnibox, hasn't closed it
    /// with Escape, and the app has suggestions.
    pub(super) fn dropdown_open(&self, ctx: &Context, model: &ChromeModel) -> bool {
        self.omnibox_editing
            && !self.suggestions_dismissed
            && !model.suggestions.is_empty()
            && ctx.memory(|m| m.has_focus(omnibox_id()))
    }

    /// The human changed the omnibox text this frame: it is now what they typed (any
    /// completion was overwritten or deleted), and the app hears it.
    pub(super) fn omnibox_typed_changed(&mut self, ui: &Ui, tab: Option<TabId>) {
        // A deletion must not bring the completion straight back, or Backspace could never
        // remove it; the next typed character allows it again.
        let deleted = ui.input(|i| {
            i.key_pressed(Key::Backspace)
                || i.key_pressed(Key::Delete)
                || i.events.iter().any(|e| matches!(e, egui::Event::Cut))
        });
        self.omnibox_typed = self.omnibox_text.clone();
        self.inline_suppressed = deleted;
        self.suggestion = None;
        self.suggestions_dismissed = false;
        if let Some(tab) = tab {
            self.emit(UiCommand::OmniboxInput {
                tab,
                text: self.omnibox_typed.clone(),
            });
        }
        // The completion for this text may already be in the model: show it next frame.
        ui.ctx().request_repaint();
    }

    /// The edit is over (navigated, abandoned): forget what was typed.
    pub(super) fn end_omnibox_edit(&mut self) {
        self.omnibox_editing = false;
        self.omnibox_typed.clear();
        self.inline_suppressed = false;
        self.suggestion = None;
        self.suggestions_dismissed = false;
    }

    /// Show the model's inline completion after what was typed, selected, while the caret is
    /// where typing left it (at the end of the typed text, or with the previous completion
    /// still selected). A completion that no longer extends the typed text is taken away.
    pub(super) fn apply_inline_completion(&mut self, ctx: &Context, model: &ChromeModel) {
        let id = omnibox_id();
        if !self.omnibox_editing || self.suggestion.is_some() || !ctx.memory(|m| m.has_focus(id)) {
            return;
        }
        let typed_len = self.omnibox_typed.chars().count();
        let text_len = self.omnibox_text.chars().count();
        let mut state = egui::TextEdit::load_state(ctx, id).unwrap_or_default();
        let range = state
            .cursor
            .char_range()
            .map(|r| r.as_sorted_char_range())
            .map(|r| (r.start.0, r.end.0));
        let at_typed_end = self.omnibox_text == self.omnibox_typed && range == Some((typed_len, typed_len));
        let completion_selected = self.omnibox_text.starts_with(&self.omnibox_typed)
            && text_len > typed_len
            && range == Some((typed_len, text_len));
        if !at_typed_end && !completion_selected {
            return;
        }
        let want = if self.inline_suppressed {
            None
        } else {
            model
                .inline_completion
                .as_deref()
                .and_then(|c| inline_completion(&self.omnibox_typed, c))
        };
        let shown = want.unwrap_or_else(|| self.omnibox_typed.clone());
        if shown == self.omnibox_text {
            return;
        }
        let shown_len = shown.chars().count();
        self.omnibox_text = shown;
        state.cursor.set_char_range(Some(CCursorRange::two(
            CCursor::new(typed_len),
            CCursor::new(shown_len),
        )));
        egui::TextEdit::store_state(ctx, id, state);
    }

    /// Up, Down and Escape while the dropdown is open. `true` if used.
    pub(super) fn suggestion_key(&mut self, ctx: &Context, key: Key, model: &ChromeModel) -> bool {
        if !self.dropdown_open(ctx, model) {
            return false;
        }
        let n = model.suggestions.len().min(MAX_ROWS);
        match key {
            Key::ArrowDown => {
                // Past the last row comes back to what was typed, as in Chrome.
                self.pick_suggestion(
                    ctx,
                    model,
                    match self.suggestion {
                        None => Some(0),
                        Some(i) if i + 1 < n => Some(i + 1),
                        Some(_) => None,
                    },
                );
            }
            Key::ArrowUp => {
                self.pick_suggestion(
                    ctx,
                    model,
                    match self.suggestion {
                        None => n.checked_sub(1),
                        Some(0) => None,
                        Some(i) => Some(i - 1),
                    },
                );
            }
            Key::Escape => {
                self.suggestions_dismissed = true;
                self.inline_suppressed = true;
                self.pick_suggestion(ctx, model, None);
            }
            _ => return false,
        }
        true
    }

    /// Select a suggestion (the field shows its URL) or none (the field shows what was typed;
    /// the inline completion comes back unless suppressed). The caret goes to the end.
    fn pick_suggestion(&mut self, ctx: &Context, model: &ChromeModel, pick: Option<usize>) {
        self.suggestion = pick;
        self.omnibox_text = match pick.and_then(|i| model.suggestions.get(i)) {
            Some(s) => s.url.clone(),
            None => self.omnibox_typed.clone(),
        };
        let id = omnibox_id();
        let mut state = egui::TextEdit::load_state(ctx, id).unwrap_or_default();
        state.cursor.set_char_range(Some(CCursorRange::one(CCursor::new(
            self.omnibox_text.chars().count(),
        ))));
        egui::TextEdit::store_state(ctx, id, state);
    }

    /// The dropdown under the omnibox. Returns the suggestion clicked, if any.
    pub(super) fn suggestions_dropdown(
        &mut self,
        ctx: &Context,
        field: Rect,
        model: &ChromeModel,
    ) -> Option<SuggestionView> {
        let mut picked = None;
        let area = egui::Area::new(Id::unique("aperture_suggestions"))
            .order(Order::Foreground)
            .fixed_pos(field.left_bottom() + vec2(0.0, 2.0))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .inner_margin(egui::Margin::symmetric(0, 4))
                    .show(ui, |ui| {
                        ui.set_width(field.width());
                        ui.spacing_mut().item_spacing.y = 0.0;
                        for (i, s) in model.suggestions.iter().take(MAX_ROWS).enumerate() {
                            if self.suggestion_row(ui, i, s) {
                                picked = Some(s.clone());
                            }
                        }
                    });
            });
        self.rects
            .insert(controls::SUGGESTIONS.to_string(), area.response.rect);
        picked
    }

    fn suggestion_row(&mut self, ui: &mut Ui, i: usize, s: &SuggestionView) -> bool {
        let (rect, resp) = ui.allocate_exact_size(vec2(ui.available_width(), ROW_HEIGHT), Sense::click());
        self.rects.insert(suggestion_control(i), rect);
        let visuals = ui.visuals();
        if self.suggestion == Some(i) {
            ui.painter().rect_filled(rect, 0.0, visuals.selection.bg_fill);
        } else if resp.hovered() {
            ui.painter()
                .rect_filled(rect, 0.0, visuals.widgets.hovered.weak_bg_fill);
        }
        let painter = ui.painter_at(rect.shrink2(vec2(10.0, 0.0)));
        let (icon, icon_colour) = if s.tab.is_some() {
            ("🗗", visuals.hyperlink_color)
        } else if s.bookmark {
            ("★", STAR_COLOUR)
        } else {
            ("🕘", visuals.weak_text_color())
        };
        painter.text(
            pos2(rect.min.x + 12.0, rect.center().y),
            Align2::LEFT_CENTER,
            icon,
            FontId::proportional(13.0),
            icon_colour,
        );
        let x = rect.min.x + 34.0;
        let title = if s.title.is_empty() { &s.url } else { &s.title };
        painter.text(
            pos2(x, rect.center().y - 1.0),
            Align2::LEFT_BOTTOM,
            title,
            FontId::proportional(13.5),
            visuals.strong_text_color(),
        );
        let below = if s.tab.is_some() {
            format!("Switch to this tab · {}", s.url)
        } else {
            s.url.clone()
        };
        painter.text(
            pos2(x, rect.center().y + 1.0),
            Align2::LEFT_TOP,
            below,
            FontId::proportional(11.5),
            visuals.hyperlink_color,
        );
        resp.clicked()
    }
}
