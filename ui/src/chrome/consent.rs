//! The vault consent sheet: the agent asked to fill saved values into a page, and only the
//! human may say yes. It is drawn by the chrome at the top of the page area, whichever tab
//! is in front, because the agent's input goes to pages and never to the chrome: nothing the
//! agent sends can see, click or dismiss it. The origin shown is the one the browser read
//! from the tab, not anything the agent said.

use egui::{Align, Context, Id, Layout, Order, RichText, vec2};

use super::{Chrome, controls};
use crate::command::{ConsentAnswer, UiCommand};
use crate::model::{ChromeModel, VaultConsentView};

impl Chrome {
    /// The request on screen, unless this chrome already answered it.
    pub(super) fn shown_consent<'m>(&self, model: &'m ChromeModel) -> Option<&'m VaultConsentView> {
        model
            .vault_consent
            .as_ref()
            .filter(|c| Some(c.id) != self.answered_consent)
    }

    /// Forget an answer once the app has moved on from that request.
    pub(super) fn sync_consent(&mut self, model: &ChromeModel) {
        if model.vault_consent.as_ref().map(|c| c.id) != self.answered_consent {
            self.answered_consent = None;
        }
    }

    pub(super) fn answer_consent(&mut self, c: &VaultConsentView, answer: ConsentAnswer) {
        self.emit(UiCommand::AnswerVaultConsent { id: c.id, answer });
        self.answered_consent = Some(c.id);
    }

    pub(super) fn consent_sheet(&mut self, ctx: &Context, c: &VaultConsentView) {
        let Some(page) = self.page_rect else { return };
        const WIDTH: f32 = 420.0;
        let anchor = egui::pos2(page.center().x - WIDTH / 2.0, page.min.y + 12.0);
        let mut answer = None;
        let area = egui::Area::new(Id::unique("aperture_vault_consent"))
            .order(Order::Foreground)
            .fixed_pos(anchor)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .inner_margin(egui::Margin::same(14))
                    .show(ui, |ui| {
                        ui.set_width(WIDTH);
                        ui.label(RichText::new(format!("The agent wants to {}", c.what)).strong());
                        ui.add_space(4.0);
                        ui.label(RichText::new(&c.origin).monospace().strong());
                        if !c.tab_title.is_empty() {
                            ui.label(RichText::new(format!("in the tab “{}”", c.tab_title)).weak());
                        }
                        ui.label(format!("Fields: {}", c.fields.join(", ")));
                        if c.waiting > 0 {
                            ui.label(RichText::new(format!("{} more request(s) waiting", c.waiting)).weak());
                        }
                        ui.add_space(10.0);
                        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                            let size = vec2(72.0, 26.0);
                            let once = ui.add(egui::Button::new("Allow once").min_size(size));
                            let always = ui.add(egui::Button::new("Always for this site").min_size(size));
                            let deny = ui.add(egui::Button::new("Deny").min_size(size));
                            for (name, r) in [
                                (controls::VAULT_CONSENT_ONCE, &once),
                                (controls::VAULT_CONSENT_ALWAYS, &always),
                                (controls::VAULT_CONSENT_DENY, &deny),
                            ] {
                                self.rects.insert(name.to_string(), r.rect);
                            }
                            if once.clicked() {
                                answer = Some(ConsentAnswer::Once);
                            } else if always.clicked() {
                                answer = Some(ConsentAnswer::Always);
                            } else if deny.clicked() {
                                answer = Some(ConsentAnswer::Deny);
                            }
                        });
                    });
            });
        self.rects
            .insert(controls::VAULT_CONSENT.to_string(), area.response.rect);
        if let Some(a) = answer {
            self.answer_consent(c, a);
        }
    }
}
