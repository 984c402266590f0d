//! Bars along the top of the page area, over the page (so one coming and going doesn't
//! resize the page), that wait for the human's answer: the offer to restore the last session
//! after an unclean exit, and the question before quitting while downloads run.

use super::overlays::{Edge, page_bar};
use egui::{Align, Context, Layout, RichText};

use super::{Chrome, controls};
use crate::command::UiCommand;

impl Chrome {
    pub(super) fn restore_bar(&mut self, ctx: &Context, tabs: usize) {
        let Some(page) = self.page_rect else { return };
        let (mut yes, mut no) = (false, false);
        let area = page_bar(ctx, page, "aperture_restore_offer", Edge::Top, 8, |ui| {
            ui.label(RichText::new("⟲").size(16.0));
            let what = if tabs == 1 {
                "1 tab"
            } else {
                &format!("{tabs} tabs")
            };
            ui.label(format!(
                "Aperture did not quit properly. Restore {what} from your last session?"
            ));
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let n = ui.button("Don't");
                let y = ui.button(RichText::new("Restore").strong());
                self.rects.insert(controls::RESTORE_NO.to_string(), n.rect);
                self.rects.insert(controls::RESTORE_YES.to_string(), y.rect);
                yes = y.clicked();
                no = n.clicked();
            });
        });
        self.rects.insert(controls::RESTORE_BAR.to_string(), area);
        if yes {
            self.emit(UiCommand::RestoreSession);
        } else if no {
            self.emit(UiCommand::DiscardSession);
        }
    }

    /// Quitting cancels running downloads (as in Chrome and Firefox, the human is asked).
    pub(super) fn quit_bar(&mut self, ctx: &Context, downloads: usize) {
        let Some(page) = self.page_rect else { return };
        let (mut quit, mut keep) = (false, false);
        let area = page_bar(ctx, page, "aperture_quit_downloads", Edge::Top, 8, |ui| {
            let what = if downloads == 1 {
                "1 download is".to_string()
            } else {
                format!("{downloads} downloads are")
            };
            ui.label(format!("{what} still running. Quitting now cancels them."));
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let q = ui.button("Quit anyway");
                let k = ui.button(RichText::new("Keep downloading").strong());
                self.rects.insert(controls::QUIT_ANYWAY.to_string(), q.rect);
                self.rects.insert(controls::QUIT_KEEP.to_string(), k.rect);
                quit = q.clicked();
                keep = k.clicked();
            });
        });
        self.rects.insert(controls::QUIT_BAR.to_string(), area);
        if quit {
            self.emit(UiCommand::AnswerQuit { quit: true });
        } else if keep {
            self.emit(UiCommand::AnswerQuit { quit: false });
        }
    }
}
