//! A tab's right-click menu: reload, duplicate, mute, pin, close it, close the others or the
//! ones to its right (pinned tabs stay), reopen the last closed tab. What Chrome and Firefox
//! offer on a tab.
//!
//! Closing several tabs is several [`UiCommand::CloseTab`]s, so each goes through the one close
//! path (and onto the reopen stack) like a tab closed by hand.

use egui::{Pos2, Ui};

use super::{Chrome, controls};
use crate::command::UiCommand;
use crate::model::{ChromeModel, TabId};

/// A right-clicked tab and where the click was.
pub(super) struct TabActions {
    pub(super) tab: TabId,
    pub(super) at: Pos2,
}

impl Chrome {
    /// The open tab menu: one frame of it.
    pub(super) fn tab_actions_popup(&mut self, ui: &Ui, model: &ChromeModel) {
        let Some(a) = &self.tab_actions else { return };
        let (tab, at) = (a.tab, a.at);
        let Some(i) = model.tabs.iter().position(|t| t.id == tab) else {
            self.tab_actions = None;
            return;
        };
        let (muted, pinned) = (model.tabs[i].muted, model.tabs[i].pinned);
        // Pinned tabs stay when others are closed in bulk, as in Chrome.
        let unpinned = |t: &&crate::model::TabView| !t.pinned;
        let others: Vec<TabId> = model
            .tabs
            .iter()
            .filter(unpinned)
            .map(|t| t.id)
            .filter(|t| *t != tab)
            .collect();
        let right: Vec<TabId> = model.tabs[i + 1..]
            .iter()
            .filter(unpinned)
            .map(|t| t.id)
            .collect();
        let mut open = true;
        let mut chosen: Vec<UiCommand> = Vec::new();
        let mut rects = Vec::new();
        let shown = super::menu_popup(ui, "aperture_tab_actions", at, &mut open).show(|ui| {
            ui.set_min_width(200.0);
            let mut item = |ui: &mut Ui, name: &'static str, label: &str, enabled: bool| {
                let r = ui.add_enabled(enabled, egui::Button::new(label));
                rects.push((name, r.rect));
                r.clicked()
            };
            if item(ui, controls::TAB_RELOAD, "Reload    Ctrl+R", true) {
                chosen.push(UiCommand::Reload { tab });
            }
            if item(ui, controls::TAB_DUPLICATE, "Duplicate", true) {
                chosen.push(UiCommand::DuplicateTab { tab });
            }
            let mute = if muted {
                "Unmute tab    Ctrl+M"
            } else {
                "Mute tab    Ctrl+M"
            };
            if item(ui, controls::TAB_MUTE, mute, true) {
                chosen.push(UiCommand::SetMuted { tab, muted: !muted });
            }
            let pin = if pinned { "Unpin tab" } else { "Pin tab" };
            if item(ui, controls::TAB_PIN, pin, true) {
                chosen.push(UiCommand::SetPinned { tab, pinned: !pinned });
            }
            ui.separator();
            if item(ui, controls::TAB_CLOSE, "Close tab    Ctrl+W", true) {
                chosen.push(UiCommand::CloseTab { tab });
            }
            if item(
                ui,
                controls::TAB_CLOSE_OTHERS,
                "Close other tabs",
                !others.is_empty(),
            ) {
                // The kept tab comes to the front first, as in Chrome, so closing the
                // front tab does not bring some other one forward on the way.
                chosen.push(UiCommand::SelectTab { tab });
                chosen.extend(others.iter().map(|&t| UiCommand::CloseTab { tab: t }));
            }
            if item(
                ui,
                controls::TAB_CLOSE_RIGHT,
                "Close tabs to the right",
                !right.is_empty(),
            ) {
                if right.contains(&model.active.unwrap_or(tab)) {
                    chosen.push(UiCommand::SelectTab { tab });
                }
                chosen.extend(right.iter().map(|&t| UiCommand::CloseTab { tab: t }));
            }
            ui.separator();
            if item(
                ui,
                controls::TAB_REOPEN,
                "Reopen closed tab    Ctrl+Shift+T",
                true,
            ) {
                chosen.push(UiCommand::ReopenClosedTab);
            }
        });
        if let Some(r) = shown {
            self.rects
                .insert(controls::TAB_ACTIONS.to_string(), r.response.rect);
        }
        for (name, r) in rects {
            self.rects.insert(name.to_string(), r);
        }
        if !chosen.is_empty() {
            for c in chosen {
                self.emit(c);
            }
            self.tab_actions = None;
        } else if !open {
            self.tab_actions = None;
        }
    }
}
