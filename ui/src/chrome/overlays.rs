//! What the chrome draws over the page when the page or the app asks: the
//! JavaScript dialog sheet, the context menu, the downloads panel, the
//! permission bubble, the file chooser and the notice bar.
//!
//! Each is shown from the model and answered with one command. The chrome
//! hides an overlay as soon as it has sent the answer (it remembers which
//! one), so a second Enter can't answer twice while the app catches up.

use egui::{Align, Context, Id, Key, Layout, Order, RichText, Ui, pos2, vec2};

use super::file_picker::{FilePicker, Outcome};
use super::{
    Chrome, DownloadBadge, context_container_control, controls, download_control, omnibox_id,
    spelling_control,
};
use crate::command::{EditOp, UiCommand};
use crate::model::{
    BlockedPopupView, ChromeModel, ContextMenuView, DialogKind, DialogView, DownloadState, DownloadView,
    FileChooserView, PermissionView, TabId,
};

/// What the human has done so far in the dialog on screen.
pub(super) struct DialogState {
    key: (TabId, u64),
    /// A prompt's text; a sign-in's password.
    text: String,
    /// A sign-in's username.
    user: String,
    suppress: bool,
    /// Focus the prompt field on the first frame it exists.
    focus_text: bool,
}

/// Where context menu items record their rects and the command chosen.
struct MenuSink<'a> {
    rects: &'a mut std::collections::HashMap<String, egui::Rect>,
    chosen: Vec<UiCommand>,
}

impl MenuSink<'_> {
    fn item(&mut self, ui: &mut Ui, name: &str, enabled: bool, label: &str, cmd: UiCommand) {
        let r = ui.add_enabled(enabled, egui::Button::new(label));
        self.rects.insert(name.to_string(), r.rect);
        if r.clicked() {
            self.chosen.push(cmd);
        }
    }
}

/// A selection as a menu item quotes it: at most 30 characters.
fn menu_quote(text: &str) -> String {
    match text.char_indices().nth(30) {
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
        None => text.to_string(),
    }
}

fn omnibox_focused(ctx: &Context) -> bool {
    ctx.memory(|m| m.has_focus(omnibox_id()))
}

impl Chrome {
    /// Forget answered overlays once the app has cleared them, and start
    /// fresh state for new ones.
    pub(super) fn sync_overlays(&mut self, model: &ChromeModel) {
        if model.notice != self.dismissed_notice {
            self.dismissed_notice = None;
        }
        if model.file_chooser.as_ref().map(|f| (f.tab, f.id)) != self.answered_chooser {
            self.answered_chooser = None;
        }
        match self.shown_chooser(model) {
            Some(f) if self.file_picker.as_ref().is_some_and(|p| p.key == (f.tab, f.id)) => {}
            Some(f) => self.file_picker = Some(FilePicker::new(f)),
            None if model.file_chooser.is_none() => self.file_picker = None,
            None => {}
        }
        if model.permission.as_ref().map(|p| p.id) != self.answered_permission {
            self.answered_permission = None;
        }
        self.sync_consent(model);
        if model.downloads.is_empty() || model.fullscreen {
            self.downloads_open = false;
        }
        // Ids the app dropped from the list can't come back as unseen.
        self.seen_downloads
            .retain(|id| model.downloads.iter().any(|d| d.id == *id));
        match &model.context_menu {
            None => self.dismissed_menu = None,
            // The human switched tabs under an open menu: it's over, and the
            // app must hear so (CEF waits for an answer to every menu).
            Some(m) if Some(m.tab) != model.active && self.dismissed_menu.as_ref() != Some(m) => {
                let m = m.clone();
                self.close_menu(&m);
            }
            Some(_) => {}
        }
        if model.dialog.as_ref().map(|d| (d.tab, d.id)) != self.answered_dialog {
            self.answered_dialog = None;
        }
        match self.shown_dialog(model) {
            Some(d) if self.dialog.as_ref().is_some_and(|s| s.key == (d.tab, d.id)) => {}
            Some(d) => {
                self.dialog = Some(DialogState {
                    key: (d.tab, d.id),
                    text: d.default_text.clone(),
                    user: String::new(),
                    suppress: false,
                    focus_text: matches!(d.kind, DialogKind::Prompt | DialogKind::SignIn { .. }),
                })
            }
            // Keep the typed text while the human looks at another tab.
            None if model.dialog.is_none() => self.dialog = None,
            None => {}
        }
    }

    /// The dialog to draw: the model's, if it belongs to the active tab and
    /// hasn't been answered yet.
    pub(super) fn shown_dialog<'m>(&self, model: &'m ChromeModel) -> Option<&'m DialogView> {
        model
            .dialog
            .as_ref()
            .filter(|d| Some(d.tab) == model.active && Some((d.tab, d.id)) != self.answered_dialog)
    }

    /// Whether a tab-modal sheet covers the page: it then gets no input.
    pub(super) fn page_modal(&self, model: &ChromeModel) -> bool {
        self.shown_dialog(model).is_some()
            || self.shown_chooser(model).is_some()
            || self.shown_open_file(model)
    }

    /// The "Open file…" picker shows over the tab it was opened for, while no page's own
    /// chooser is up there.
    fn shown_open_file(&self, model: &ChromeModel) -> bool {
        self.open_file
            .as_ref()
            .is_some_and(|p| Some(p.key.0) == model.active)
            && self.shown_chooser(model).is_none()
    }

    fn shown_chooser<'m>(&self, model: &'m ChromeModel) -> Option<&'m FileChooserView> {
        model
            .file_chooser
            .as_ref()
            .filter(|f| Some(f.tab) == model.active && Some((f.tab, f.id)) != self.answered_chooser)
    }

    fn finish_chooser(&mut self, ctx: &Context, f: &FileChooserView, paths: Vec<std::path::PathBuf>) {
        self.emit(UiCommand::FileChooserDone { id: f.id, paths });
        self.answered_chooser = Some((f.tab, f.id));
        self.file_picker = None;
        self.return_focus_to_page(ctx);
    }

    /// After a sheet is answered keys go back to the page, as in every
    /// browser, unless the human has moved on to the omnibox.
    fn return_focus_to_page(&mut self, ctx: &Context) {
        if !omnibox_focused(ctx) {
            ctx.memory_mut(|m| {
                if let Some(f) = m.focused() {
                    m.surrender_focus(f);
                }
            });
            self.page_focused = true;
        }
    }

    /// The context menu to draw: the model's, for the active tab, unless the
    /// human already closed it.
    fn shown_menu<'m>(&self, model: &'m ChromeModel) -> Option<&'m ContextMenuView> {
        model
            .context_menu
            .as_ref()
            .filter(|m| Some(m.tab) == model.active && self.dismissed_menu.as_ref() != Some(*m))
    }

    /// Whether the context menu is open over the page: it then takes the
    /// keyboard and new pointer presses.
    pub(super) fn menu_open(&self, model: &ChromeModel) -> bool {
        self.shown_menu(model).is_some()
    }

    fn close_menu(&mut self, m: &ContextMenuView) {
        self.emit(UiCommand::CloseContextMenu);
        self.dismissed_menu = Some(m.clone());
    }

    /// Keys the overlays take before shortcuts and the page: Escape and
    /// Enter. `true` if used.
    pub(super) fn overlay_key(
        &mut self,
        ctx: &Context,
        key: Key,
        m: egui::Modifiers,
        model: &ChromeModel,
    ) -> bool {
        // The omnibox keeps its own Enter and Escape even while a sheet is
        // up: the human may navigate away from a page that nags.
        let omnibox = omnibox_focused(ctx);
        match key {
            Key::Escape if self.menu_open(model) => {
                if let Some(m) = self.shown_menu(model).cloned() {
                    self.close_menu(&m);
                }
                true
            }
            Key::Escape if !omnibox => {
                // The vault question first: it is the one over everything else.
                if let Some(c) = self.shown_consent(model).cloned() {
                    self.answer_consent(&c, crate::command::ConsentAnswer::Deny);
                    return true;
                }
                if let Some(f) = self.shown_chooser(model).cloned() {
                    self.finish_chooser(ctx, &f, Vec::new());
                    return true;
                }
                if self.shown_open_file(model) {
                    self.open_file = None;
                    self.return_focus_to_page(ctx);
                    return true;
                }
                if let Some(d) = self.shown_dialog(model).cloned() {
                    self.answer_dialog(ctx, &d, false);
                    return true;
                }
                if self.downloads_open {
                    self.downloads_open = false;
                    return true;
                }
                // Escape dismisses the bubble: this request is refused, but
                // nothing is remembered, so the site may ask again.
                if let Some(p) = self.shown_permission(model).cloned() {
                    self.emit(UiCommand::DismissPermission { id: p.id });
                    self.answered_permission = Some(p.id);
                    return true;
                }
                // Escape leaves fullscreen and isn't the page's: the way out
                // must work whatever the page does with keys.
                if model.fullscreen {
                    self.emit(UiCommand::ExitFullscreen);
                    return true;
                }
                false
            }
            Key::Enter if !omnibox && !m.any() => {
                if let Some(d) = self.shown_dialog(model).cloned() {
                    self.answer_dialog(ctx, &d, true);
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    fn answer_dialog(&mut self, ctx: &Context, d: &DialogView, accept: bool) {
        let (text, user, suppress) = self
            .dialog
            .as_ref()
            .filter(|s| s.key == (d.tab, d.id))
            .map_or_else(
                || (d.default_text.clone(), String::new(), false),
                |s| (s.text.clone(), s.user.clone(), s.suppress),
            );
        let sign_in = matches!(d.kind, DialogKind::SignIn { .. });
        self.emit(UiCommand::AnswerDialog {
            tab: d.tab,
            id: d.id,
            accept,
            login: (accept && sign_in).then(|| (user, text.clone())),
            text: (accept && d.kind == DialogKind::Prompt).then_some(text),
            suppress: suppress && d.offer_suppress,
        });
        self.answered_dialog = Some((d.tab, d.id));
        self.dialog = None;
        self.return_focus_to_page(ctx);
    }

    /// Draw whatever overlays the model asks for.
    pub(super) fn overlays(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let ctx = ui.ctx().clone();
        if let Some(d) = self.shown_dialog(model).cloned() {
            self.dialog_sheet(&ctx, &d);
        }
        if let Some(f) = self.shown_chooser(model).cloned() {
            self.file_chooser(&ctx, &f);
        } else if self.shown_open_file(model) {
            self.open_file_sheet(&ctx);
        }
        if let Some(m) = self.shown_menu(model).cloned() {
            self.context_menu(ui, &m, model);
        }
        if self.downloads_open {
            self.downloads_panel(&ctx, model);
        }
        if let Some(p) = self.shown_permission(model).cloned() {
            self.permission_bubble(&ctx, &p);
        }
        if let Some(b) = model
            .blocked_popup
            .as_ref()
            .filter(|b| Some(b.tab) == model.active)
            .cloned()
        {
            self.blocked_popup_bar(&ctx, &b);
        }
        if let Some(t) = model.active_tab().filter(|t| t.unresponsive && !t.renderer_gone) {
            self.unresponsive_bar(&ctx, t.id);
        }
        // Last, so it sits above every other overlay.
        if let Some(c) = self.shown_consent(model).cloned() {
            self.consent_sheet(&ctx, &c);
        }
        if let Some(text) = model
            .notice
            .as_ref()
            .filter(|n| self.dismissed_notice.as_ref() != Some(*n))
        {
            self.notice_bar(&ctx, text);
        }
    }

    /// A one-line bar along the bottom of the page area, over the page (so
    /// a notice coming and going doesn't resize the page).
    fn notice_bar(&mut self, ctx: &Context, text: &str) {
        let Some(page) = self.page_rect else { return };
        let mut close = false;
        let area = page_bar(ctx, page, "aperture_notice", Edge::Bottom, 6, |ui| {
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let x = bar_close(ui, "Dismiss");
                self.rects.insert(controls::NOTICE_CLOSE.to_string(), x.rect);
                close = x.clicked();
                ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                    ui.add(egui::Label::new(text).truncate());
                });
            });
        });
        self.rects.insert(controls::NOTICE.to_string(), area);
        if close {
            self.emit(UiCommand::DismissNotice);
            self.dismissed_notice = Some(text.to_string());
        }
    }

    /// A bar along the top of the page area, over the page, as Firefox's: the page tried to
    /// open a pop-up without a click. It stays until answered, closed, or the tab leaves the
    /// page.
    fn blocked_popup_bar(&mut self, ctx: &Context, b: &BlockedPopupView) {
        let Some(page) = self.page_rect else { return };
        let mut cmd = None;
        let area = page_bar(ctx, page, "aperture_blocked_popup", Edge::Top, 6, |ui| {
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let x = bar_close(ui, "Close");
                self.rects
                    .insert(controls::BLOCKED_POPUP_CLOSE.to_string(), x.rect);
                if x.clicked() {
                    cmd = Some(UiCommand::DismissBlockedPopup { tab: b.tab });
                }
                if let Some(origin) = &b.origin {
                    let allow = ui.button(format!("Always allow on {}", shown_origin(origin)));
                    self.rects
                        .insert(controls::BLOCKED_POPUP_ALLOW.to_string(), allow.rect);
                    if allow.clicked() {
                        cmd = Some(UiCommand::SetPopupsAllowed {
                            origin: origin.clone(),
                            allow: true,
                        });
                    }
                }
                let open = ui.button("Open it");
                self.rects
                    .insert(controls::BLOCKED_POPUP_OPEN.to_string(), open.rect);
                if open.clicked() {
                    cmd = Some(UiCommand::OpenBlockedPopup { tab: b.tab });
                }
                ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                    let what = match b.count {
                        1 => "This page tried to open a pop-up; it was stopped:".to_string(),
                        n => format!("This page tried to open {n} pop-ups; they were stopped. The last:"),
                    };
                    ui.label(what);
                    ui.add(egui::Label::new(RichText::new(&b.url).weak()).truncate());
                });
            });
        });
        self.rects.insert(controls::BLOCKED_POPUP.to_string(), area);
        if let Some(c) = cmd {
            self.emit(c);
        }
    }

    /// A bar along the top of the page area, as Firefox's slow-script bar: the page has stopped
    /// answering (a script that does not return). Wait, or stop the script (the page stays).
    /// It goes by itself when the page answers again.
    fn unresponsive_bar(&mut self, ctx: &Context, tab: TabId) {
        let Some(page) = self.page_rect else { return };
        let mut cmd = None;
        let area = page_bar(ctx, page, "aperture_unresponsive", Edge::Top, 6, |ui| {
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let stop = ui.button("Stop script");
                self.rects
                    .insert(controls::UNRESPONSIVE_STOP.to_string(), stop.rect);
                if stop.clicked() {
                    cmd = Some(UiCommand::AnswerUnresponsive { tab, wait: false });
                }
                let wait = ui.button("Wait");
                self.rects
                    .insert(controls::UNRESPONSIVE_WAIT.to_string(), wait.rect);
                if wait.clicked() {
                    cmd = Some(UiCommand::AnswerUnresponsive { tab, wait: true });
                }
                ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                    ui.add(
                        egui::Label::new("This page isn't responding: a script on it keeps it busy.")
                            .truncate(),
                    );
                });
            });
        });
        self.rects.insert(controls::UNRESPONSIVE.to_string(), area);
        if let Some(c) = cmd {
            self.emit(c);
        }
    }

    fn shown_permission<'m>(&self, model: &'m ChromeModel) -> Option<&'m PermissionView> {
        model
            .permission
            .as_ref()
            .filter(|p| Some(p.tab) == model.active && Some(p.id) != self.answered_permission)
    }

    fn answer_permission(&mut self, p: &PermissionView, allow: bool) {
        self.emit(UiCommand::AnswerPermission { id: p.id, allow });
        self.answered_permission = Some(p.id);
    }

    fn permission_bubble(&mut self, ctx: &Context, p: &PermissionView) {
        // Under the omnibox, where the site's name is; in fullscreen there
        // is none, so the page's top-left corner.
        let anchor = match (self.rects.get(controls::OMNIBOX), self.page_rect) {
            (Some(o), _) => o.left_bottom() + vec2(0.0, 4.0),
            (None, Some(page)) => page.min + vec2(8.0, 8.0),
            (None, None) => return,
        };
        let mut answer = None;
        let area = egui::Area::new(Id::unique("aperture_permission"))
            .order(Order::Foreground)
            .fixed_pos(anchor)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .inner_margin(egui::Margin::same(12))
                    .show(ui, |ui| {
                        ui.set_width(300.0);
                        ui.label(RichText::new(format!("{} wants to:", p.origin)).strong());
                        for kind in &p.kinds {
                            ui.label(format!("• {kind}"));
                        }
                        ui.add_space(8.0);
                        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                            let allow = ui.add(egui::Button::new("Allow").min_size(vec2(64.0, 24.0)));
                            let block = ui.add(egui::Button::new("Block").min_size(vec2(64.0, 24.0)));
                            self.rects
                                .insert(controls::PERMISSION_ALLOW.to_string(), allow.rect);
                            self.rects
                                .insert(controls::PERMISSION_BLOCK.to_string(), block.rect);
                            if allow.clicked() {
                                answer = Some(true);
                            } else if block.clicked() {
                                answer = Some(false);
                            }
                        });
                    });
            });
        self.rects
            .insert(controls::PERMISSION.to_string(), area.response.rect);
        if let Some(allow) = answer {
            self.answer_permission(p, allow);
        }
    }

    /// The toolbar's downloads button: only once there are downloads, with a
    /// progress ring while any is running and a dot for finished ones the
    /// human hasn't looked at.
    pub(super) fn downloads_button(&mut self, ui: &mut Ui, model: &ChromeModel) {
        if model.downloads.is_empty() {
            return;
        }
        let running: Vec<&DownloadView> = model.downloads.iter().filter(|d| !d.finished()).collect();
        let (got, total) = running
            .iter()
            .filter_map(|d| d.total.filter(|t| *t > 0).map(|t| (d.received.min(t), t)))
            .fold((0u64, 0u64), |(g, t), (a, b)| (g + a, t + b));
        let badge = DownloadBadge {
            in_progress: running.len(),
            fraction: (total > 0).then(|| got as f32 / total as f32),
            unseen: model
                .downloads
                .iter()
                .any(|d| d.finished() && !self.seen_downloads.contains(&d.id)),
        };
        self.download_badge = Some(badge);
        let resp = ui
            .add(egui::Button::new(RichText::new("⬇").size(15.0)).min_size(vec2(30.0, 26.0)))
            .on_hover_text("Downloads");
        self.rects.insert(controls::DOWNLOADS.to_string(), resp.rect);
        let painter = ui.painter();
        let accent = ui.visuals().selection.bg_fill;
        if badge.in_progress > 0 {
            let c = resp.rect.center();
            let r = 10.5;
            painter.circle_stroke(
                c,
                r,
                egui::Stroke::new(2.0, ui.visuals().weak_text_color().gamma_multiply(0.4)),
            );
            // Known size: the ring fills clockwise from the top. Unknown: a
            // quarter arc goes round, at the spinner's ~8 fps.
            let (start, sweep) = match badge.fraction {
                Some(f) => (0.0, f.clamp(0.02, 1.0)),
                None => {
                    ui.ctx()
                        .request_repaint_after(std::time::Duration::from_millis(120));
                    ((ui.input(|i| i.time) as f32 * 0.8).fract(), 0.25)
                }
            };
            let steps = (sweep * 48.0).ceil().max(2.0) as usize;
            let points: Vec<egui::Pos2> = (0..=steps)
                .map(|i| {
                    let turn = start + sweep * i as f32 / steps as f32;
                    let a = turn * std::f32::consts::TAU - std::f32::consts::FRAC_PI_2;
                    c + r * vec2(a.cos(), a.sin())
                })
                .collect();
            painter.add(egui::Shape::line(points, egui::Stroke::new(2.5, accent)));
        }
        if badge.unseen {
            painter.circle_filled(resp.rect.right_top() + vec2(-5.0, 5.0), 3.5, accent);
        }
        if resp.clicked() {
            self.downloads_open = !self.downloads_open;
        }
    }

    fn downloads_panel(&mut self, ctx: &Context, model: &ChromeModel) {
        let Some(button) = self.rects.get(controls::DOWNLOADS).copied() else {
            return;
        };
        // Open means seen: the dot goes once the human has looked.
        self.seen_downloads
            .extend(model.downloads.iter().filter(|d| d.finished()).map(|d| d.id));
        let mut cmds = Vec::new();
        let area = egui::Area::new(Id::unique("aperture_downloads"))
            .order(Order::Foreground)
            .pivot(egui::Align2::RIGHT_TOP)
            .fixed_pos(button.right_bottom() + vec2(0.0, 4.0))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_width(340.0);
                    ui.label(RichText::new("Downloads").strong());
                    ui.separator();
                    egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                        // Newest first, as browsers list them.
                        for d in model.downloads.iter().rev() {
                            self.download_row(ui, d, &mut cmds);
                            ui.separator();
                        }
                    });
                    let folder = ui.link("Open downloads folder");
                    self.rects
                        .insert(controls::DOWNLOADS_FOLDER.to_string(), folder.rect);
                    if folder.clicked() {
                        cmds.push(UiCommand::OpenDownloadsFolder);
                    }
                });
            });
        let panel = area.response.rect;
        self.rects.insert(controls::DOWNLOADS_PANEL.to_string(), panel);
        for cmd in cmds {
            self.emit(cmd);
        }
        // A press anywhere but the panel or its button closes it (the
        // button's own click toggles it).
        let pressed_outside = ctx.input(|i| {
            i.pointer.any_pressed()
                && i.pointer
                    .press_origin()
                    .is_some_and(|p| !panel.contains(p) && !button.contains(p))
        });
        if pressed_outside {
            self.downloads_open = false;
        }
    }

    fn download_row(&mut self, ui: &mut Ui, d: &DownloadView, cmds: &mut Vec<UiCommand>) {
        ui.add(egui::Label::new(RichText::new(&d.name).strong()).truncate());
        let status = match &d.state {
            DownloadState::InProgress => {
                let got = match d.total {
                    Some(t) => format!("{} of {}", human_bytes(d.received), human_bytes(t)),
                    None => human_bytes(d.received),
                };
                if d.paused { format!("Paused · {got}") } else { got }
            }
            DownloadState::Complete => format!("Done · {}", human_bytes(d.total.unwrap_or(d.received))),
            DownloadState::Cancelled => "Cancelled".to_string(),
            DownloadState::Failed(why) => format!("Failed — {why}"),
        };
        let colour = match d.state {
            DownloadState::Failed(_) => ui.visuals().error_fg_color,
            _ => ui.visuals().weak_text_color(),
        };
        ui.label(RichText::new(status).small().color(colour));
        if d.state == DownloadState::InProgress
            && let Some(t) = d.total.filter(|t| *t > 0)
        {
            ui.add(egui::ProgressBar::new(d.received as f32 / t as f32).desired_height(4.0));
        }
        ui.horizontal(|ui| {
            let mut button = |ui: &mut Ui, action: &str, label: &str, cmd: UiCommand| {
                let r = ui.small_button(label);
                self.rects.insert(download_control(action, d.id), r.rect);
                if r.clicked() {
                    cmds.push(cmd);
                }
            };
            match d.state {
                DownloadState::InProgress => {
                    if d.paused {
                        button(
                            ui,
                            "resume",
                            "Resume",
                            UiCommand::PauseDownload {
                                id: d.id,
                                pause: false,
                            },
                        );
                    } else {
                        button(
                            ui,
                            "pause",
                            "Pause",
                            UiCommand::PauseDownload {
                                id: d.id,
                                pause: true,
                            },
                        );
                    }
                    button(ui, "cancel", "Cancel", UiCommand::CancelDownload { id: d.id });
                }
                DownloadState::Complete => {
                    button(ui, "open", "Open", UiCommand::OpenDownload { id: d.id });
                    button(ui, "show", "Show in folder", UiCommand::OpenDownloadsFolder);
                }
                _ => {}
            }
            if d.finished() {
                button(
                    ui,
                    "remove",
                    "Remove from list",
                    UiCommand::RemoveDownload { id: d.id },
                );
            }
        });
    }

    fn context_menu(&mut self, ui: &Ui, m: &ContextMenuView, model: &ChromeModel) {
        let Some(page) = self.page_rect else { return };
        let at = page.min + vec2(m.x, m.y);
        let mut open = true;
        let mut sink = MenuSink {
            rects: &mut self.rects,
            chosen: Vec::new(),
        };
        let tab = m.tab;
        // The container list is a real hover submenu, with arrow keys.
        let shown = super::menu_popup(ui, "aperture_context_menu", at, &mut open).show(|ui| {
            ui.set_min_width(210.0);
            let mut sections = 0;
            let mut section = |ui: &mut Ui| {
                if sections > 0 {
                    ui.separator();
                }
                sections += 1;
            };
            if let Some(url) = &m.link_url {
                section(ui);
                sink.item(
                    ui,
                    controls::CTX_OPEN_LINK,
                    true,
                    "Open link in new tab",
                    UiCommand::OpenInNewTab {
                        url: url.clone(),
                        container: None,
                        background: true,
                    },
                );
                if !model.containers.is_empty() {
                    let sub = ui.menu_button("Open link in container tab", |ui| {
                        for c in &model.containers {
                            let r = ui.button(&c.name);
                            sink.rects.insert(context_container_control(&c.id), r.rect);
                            if r.clicked() {
                                sink.chosen.push(UiCommand::OpenInNewTab {
                                    url: url.clone(),
                                    container: Some(c.id.clone()),
                                    background: true,
                                });
                            }
                        }
                    });
                    sink.rects
                        .insert(controls::CTX_OPEN_LINK_IN.to_string(), sub.response.rect);
                }
                sink.item(
                    ui,
                    controls::CTX_OPEN_LINK_PRIVATE,
                    true,
                    "Open link in private tab",
                    UiCommand::OpenInPrivateTab { url: url.clone() },
                );
                sink.item(
                    ui,
                    controls::CTX_SAVE_LINK,
                    true,
                    "Save link as…",
                    UiCommand::SaveUrl { url: url.clone() },
                );
                sink.item(
                    ui,
                    controls::CTX_COPY_LINK,
                    true,
                    "Copy link address",
                    UiCommand::CopyText { text: url.clone() },
                );
            }
            if let Some(url) = &m.image_url {
                section(ui);
                sink.item(
                    ui,
                    controls::CTX_OPEN_IMAGE,
                    true,
                    "Open image in new tab",
                    UiCommand::OpenInNewTab {
                        url: url.clone(),
                        container: None,
                        background: true,
                    },
                );
                sink.item(
                    ui,
                    controls::CTX_SAVE_IMAGE,
                    true,
                    "Save image as…",
                    UiCommand::SaveUrl { url: url.clone() },
                );
                sink.item(
                    ui,
                    controls::CTX_COPY_IMAGE,
                    true,
                    "Copy image address",
                    UiCommand::CopyText { text: url.clone() },
                );
            }
            let selected = m.selection.as_ref().filter(|s| !s.is_empty());
            if let Some(word) = &m.misspelled {
                // First, as in every browser: what the human right-clicked a marked word for.
                section(ui);
                if m.suggestions.is_empty() {
                    ui.add_enabled(false, egui::Button::new("No spelling suggestions"));
                }
                for (i, s) in m.suggestions.iter().take(5).enumerate() {
                    sink.item(
                        ui,
                        &spelling_control(i),
                        true,
                        s,
                        UiCommand::ReplaceMisspelling { tab, word: s.clone() },
                    );
                }
                sink.item(
                    ui,
                    controls::CTX_ADD_WORD,
                    true,
                    "Add to dictionary",
                    UiCommand::AddToDictionary {
                        tab,
                        word: word.clone(),
                    },
                );
            }
            if m.editable {
                section(ui);
                let edit = |op| UiCommand::Edit { tab, op };
                sink.item(ui, controls::CTX_UNDO, true, "Undo", edit(EditOp::Undo));
                sink.item(ui, controls::CTX_REDO, true, "Redo", edit(EditOp::Redo));
                ui.separator();
                sink.item(
                    ui,
                    controls::CTX_CUT,
                    selected.is_some(),
                    "Cut",
                    edit(EditOp::Cut),
                );
                sink.item(
                    ui,
                    controls::CTX_EDIT_COPY,
                    selected.is_some(),
                    "Copy",
                    edit(EditOp::Copy),
                );
                sink.item(ui, controls::CTX_PASTE, true, "Paste", edit(EditOp::Paste));
                ui.separator();
                sink.item(
                    ui,
                    controls::CTX_SELECT_ALL,
                    true,
                    "Select all",
                    edit(EditOp::SelectAll),
                );
            } else if let Some(text) = selected {
                section(ui);
                // The text CEF reported, through the app's clipboard: the
                // same path copying a link address takes.
                sink.item(
                    ui,
                    controls::CTX_COPY,
                    true,
                    "Copy",
                    UiCommand::CopyText { text: text.clone() },
                );
            }
            if let Some(text) = selected {
                // As in every browser: the selection searched in a new tab, in front.
                let engine = model.settings.values.search_engine();
                let engine = match engine {
                    crate::omnibox::SearchEngine::Custom(_) => "the web",
                    ref e => e.name(),
                };
                // One line, as typed into a search box.
                let query = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let label = format!("Search {engine} for “{}”", menu_quote(&query));
                let url = crate::omnibox::search_url(&query, &model.settings.values.search_template());
                sink.item(
                    ui,
                    controls::CTX_SEARCH,
                    true,
                    &label,
                    UiCommand::OpenInNewTab {
                        url,
                        container: None,
                        background: false,
                    },
                );
            }
            let sections = sections;
            let inspect = UiCommand::Inspect { tab, x: m.x, y: m.y };
            if sections == 0 {
                // Nothing under the pointer but the page itself.
                sink.item(
                    ui,
                    controls::CTX_BACK,
                    m.can_back,
                    "Back",
                    UiCommand::Back { tab },
                );
                sink.item(
                    ui,
                    controls::CTX_FORWARD,
                    m.can_forward,
                    "Forward",
                    UiCommand::Forward { tab },
                );
                sink.item(
                    ui,
                    controls::CTX_RELOAD,
                    true,
                    "Reload",
                    UiCommand::Reload { tab },
                );
                ui.separator();
                sink.item(
                    ui,
                    controls::CTX_SAVE_PAGE,
                    true,
                    "Save page as…",
                    UiCommand::SavePage { tab },
                );
                sink.item(ui, controls::CTX_PRINT, true, "Print…", UiCommand::Print { tab });
                ui.separator();
                sink.item(
                    ui,
                    controls::CTX_VIEW_SOURCE,
                    true,
                    "View page source",
                    UiCommand::ViewSource { tab },
                );
                sink.item(ui, controls::CTX_INSPECT, true, "Inspect", inspect);
            } else {
                // Under every menu, as in Chrome: the element right-clicked, in DevTools.
                ui.separator();
                sink.item(ui, controls::CTX_INSPECT, true, "Inspect", inspect);
            }
        });
        let chosen = sink.chosen;
        if let Some(r) = shown {
            self.rects
                .insert(controls::CONTEXT_MENU.to_string(), r.response.rect);
        }
        if !chosen.is_empty() {
            for cmd in chosen {
                self.emit(cmd);
            }
            self.close_menu(m);
        } else if !open {
            self.close_menu(m);
        }
    }

    fn file_chooser(&mut self, ctx: &Context, f: &FileChooserView) {
        let Some(mut picker) = self.file_picker.take() else {
            return;
        };
        let outcome = self.picker_sheet(ctx, &mut picker);
        self.file_picker = Some(picker);
        if let Some(Outcome::Done(paths)) = outcome {
            self.finish_chooser(ctx, f, paths);
        }
    }

    /// Ctrl+O's picker: a file picked loads in its tab; cancelling just closes it.
    fn open_file_sheet(&mut self, ctx: &Context) {
        let Some(mut picker) = self.open_file.take() else {
            return;
        };
        match self.picker_sheet(ctx, &mut picker) {
            Some(Outcome::Done(paths)) => {
                if let Some(path) = paths.into_iter().next() {
                    self.emit(UiCommand::OpenFile {
                        tab: picker.key.0,
                        path,
                    });
                }
                self.return_focus_to_page(ctx);
            }
            None => self.open_file = Some(picker),
        }
    }

    /// A file picker in a sheet hanging from the top of the page; what the human decided, once
    /// they did.
    fn picker_sheet(&mut self, ctx: &Context, picker: &mut FilePicker) -> Option<Outcome> {
        let page = self.page_rect?;
        let width = (page.width() - 40.0).clamp(280.0, 640.0);
        let max_height = page.height() - 20.0;
        let mut outcome = None;
        let area = egui::Area::new(Id::unique("aperture_file_chooser"))
            .order(Order::Foreground)
            .pivot(egui::Align2::CENTER_TOP)
            .fixed_pos(pos2(page.center().x, page.min.y + 10.0))
            .constrain_to(page)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .inner_margin(egui::Margin::same(14))
                    .show(ui, |ui| {
                        ui.set_width(width - 28.0);
                        outcome = picker.ui(ui, &mut self.rects, max_height);
                    });
            });
        self.rects
            .insert(controls::FILE_CHOOSER.to_string(), area.response.rect);
        outcome
    }

    fn dialog_sheet(&mut self, ctx: &Context, d: &DialogView) {
        let Some(page) = self.page_rect else { return };
        let width = (page.width() - 32.0).clamp(200.0, 460.0);
        // Hangs from the top edge of the page, centred: over the page it
        // belongs to, never over the chrome.
        let pos = pos2(page.center().x - width / 2.0, page.min.y);
        let mut answer = None;
        let mut saved: Option<String> = None;
        let area = egui::Area::new(Id::unique("aperture_dialog"))
            .order(Order::Foreground)
            .fixed_pos(pos)
            .constrain_to(page)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .corner_radius(egui::CornerRadius {
                        nw: 0,
                        ne: 0,
                        sw: 8,
                        se: 8,
                    })
                    .inner_margin(egui::Margin::same(14))
                    .show(ui, |ui| {
                        ui.set_width(width - 28.0);
                        if let DialogKind::SignIn { proxy } = d.kind {
                            if let Some(state) = self.dialog.as_mut().filter(|s| s.key == (d.tab, d.id)) {
                                sign_in_fields(ui, d, proxy, state, &mut self.rects);
                            }
                            // The vault's logins for the site asking: one click signs in.
                            if !d.logins.is_empty() {
                                ui.add_space(8.0);
                                ui.label(RichText::new("Saved in your vault").weak());
                                for (i, l) in d.logins.iter().enumerate() {
                                    let b = ui
                                        .add(egui::Button::new(format!("Use {}", l.username)))
                                        .on_hover_text(&l.label);
                                    self.rects
                                        .insert(format!("{}:{i}", controls::DIALOG_SAVED), b.rect);
                                    if b.clicked() {
                                        saved = Some(l.entry.clone());
                                    }
                                }
                            }
                        } else {
                            let who = if d.origin.is_empty() {
                                "This page says".to_string()
                            } else {
                                format!("{} says", d.origin)
                            };
                            ui.label(RichText::new(who).strong().size(15.0));
                            ui.add_space(6.0);
                            // The message is the page's; a long one scrolls
                            // instead of pushing the buttons off-screen.
                            egui::ScrollArea::vertical()
                                .max_height((page.height() * 0.5).max(60.0))
                                .show(ui, |ui| {
                                    ui.add(egui::Label::new(&d.message).wrap());
                                });
                            let state = self.dialog.as_mut().filter(|s| s.key == (d.tab, d.id));
                            let Some(state) = state else { return };
                            if d.kind == DialogKind::Prompt {
                                ui.add_space(6.0);
                                let id = Id::unique("aperture_dialog_text");
                                let resp = ui.add(
                                    egui::TextEdit::singleline(&mut state.text)
                                        .id(id)
                                        .desired_width(f32::INFINITY),
                                );
                                self.rects.insert(controls::DIALOG_TEXT.to_string(), resp.rect);
                                if state.focus_text {
                                    state.focus_text = false;
                                    if !ui.ctx().memory(|m| m.has_focus(omnibox_id())) {
                                        resp.request_focus();
                                        // Pre-filled and selected, so typing replaces it.
                                        let mut ts =
                                            egui::TextEdit::load_state(ui.ctx(), id).unwrap_or_default();
                                        let n = state.text.chars().count();
                                        ts.cursor.set_char_range(Some(egui::text::CCursorRange::two(
                                            egui::text::CCursor::new(0),
                                            egui::text::CCursor::new(n),
                                        )));
                                        egui::TextEdit::store_state(ui.ctx(), id, ts);
                                    }
                                }
                            }
                            if d.offer_suppress {
                                ui.add_space(6.0);
                                let resp =
                                    ui.checkbox(&mut state.suppress, "Don't let this page open more dialogs");
                                self.rects
                                    .insert(controls::DIALOG_SUPPRESS.to_string(), resp.rect);
                            }
                        }
                        ui.add_space(10.0);
                        let (ok, cancel) = match d.kind {
                            DialogKind::Alert => ("OK", None),
                            DialogKind::Confirm | DialogKind::Prompt => ("OK", Some("Cancel")),
                            DialogKind::BeforeUnload => ("Leave", Some("Stay")),
                            DialogKind::SignIn { .. } => ("Sign in", Some("Cancel")),
                        };
                        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                            let okb = ui.add(
                                egui::Button::new(RichText::new(ok).strong())
                                    .min_size(vec2(72.0, 26.0))
                                    .fill(ui.visuals().selection.bg_fill),
                            );
                            self.rects.insert(controls::DIALOG_OK.to_string(), okb.rect);
                            if okb.clicked() {
                                answer = Some(true);
                            }
                            if let Some(cancel) = cancel {
                                let c = ui.add(egui::Button::new(cancel).min_size(vec2(72.0, 26.0)));
                                self.rects.insert(controls::DIALOG_CANCEL.to_string(), c.rect);
                                if c.clicked() {
                                    answer = Some(false);
                                }
                            }
                        });
                    });
            });
        self.rects
            .insert(controls::DIALOG.to_string(), area.response.rect);
        if let Some(entry) = saved {
            self.emit(UiCommand::SignInWithSaved {
                tab: d.tab,
                id: d.id,
                entry,
            });
            self.answered_dialog = Some((d.tab, d.id));
            self.dialog = None;
            self.return_focus_to_page(ctx);
        } else if let Some(accept) = answer {
            self.answer_dialog(ctx, d, accept);
        }
    }
}

/// A sign-in's text: who asks (never the realm, which the server words as it likes), a warning
/// when the login would cross the network unencrypted, and the two fields, the username's
/// focused first.
fn sign_in_fields(
    ui: &mut Ui,
    d: &DialogView,
    proxy: bool,
    state: &mut DialogState,
    rects: &mut std::collections::HashMap<String, egui::Rect>,
) {
    ui.label(RichText::new("Sign in").strong().size(15.0));
    ui.add_space(4.0);
    let who = if proxy {
        format!("The proxy {} requires a username and password", d.origin)
    } else {
        d.origin.clone()
    };
    ui.add(egui::Label::new(who).wrap());
    if !proxy && d.origin.starts_with("http://") {
        ui.label(
            RichText::new("Your connection to this site is not private").color(ui.visuals().warn_fg_color),
        );
    }
    ui.add_space(8.0);
    let user_id = Id::unique("aperture_dialog_user");
    egui::Grid::new(Id::unique("aperture_dialog_login"))
        .num_columns(2)
        .spacing(vec2(8.0, 6.0))
        .show(ui, |ui| {
            ui.label("Username");
            let u = ui.add(
                egui::TextEdit::singleline(&mut state.user)
                    .id(user_id)
                    .desired_width(f32::INFINITY),
            );
            rects.insert(controls::DIALOG_USER.to_string(), u.rect);
            ui.end_row();
            ui.label("Password");
            let p = ui.add(
                egui::TextEdit::singleline(&mut state.text)
                    .id(Id::unique("aperture_dialog_password"))
                    .password(true)
                    .desired_width(f32::INFINITY),
            );
            rects.insert(controls::DIALOG_PASSWORD.to_string(), p.rect);
            ui.end_row();
            if state.focus_text {
                state.focus_text = false;
                if !ui.ctx().memory(|m| m.has_focus(omnibox_id())) {
                    u.request_focus();
                }
            }
        });
}

/// Bytes for people: "512 B", "1.5 KB", "256 KB", "1.0 MB" (binary units, as
/// browsers show them).
pub(super) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v < 10.0 {
        format!("{v:.1} {}", UNITS[unit])
    } else {
        format!("{v:.0} {}", UNITS[unit])
    }
}

/// An origin as people read it: `https://example.com` is `example.com`, and a port or a
/// plain-HTTP scheme stays, since they make it another origin.
pub(crate) fn shown_origin(origin: &str) -> &str {
    origin.strip_prefix("https://").unwrap_or(origin)
}

/// A [`page_bar`]'s close button: a frameless ×, saying `hover` under the pointer.
fn bar_close(ui: &mut Ui, hover: &str) -> egui::Response {
    ui.add(egui::Button::new(RichText::new("×").size(15.0)).frame(false))
        .on_hover_text(hover)
}

/// Which edge of the page area a [`page_bar`] runs along.
#[derive(Clone, Copy)]
pub(super) enum Edge {
    Top,
    Bottom,
}

/// A one-line bar across the page area, over the page (so a bar coming and going doesn't
/// resize the page), along its top or bottom edge, holding `contents` laid out in a row.
/// Where it was drawn.
pub(super) fn page_bar(
    ctx: &Context,
    page: egui::Rect,
    id: &str,
    edge: Edge,
    margin_y: i8,
    contents: impl FnOnce(&mut Ui),
) -> egui::Rect {
    let (pivot, at) = match edge {
        Edge::Top => (egui::Align2::LEFT_TOP, page.left_top()),
        Edge::Bottom => (egui::Align2::LEFT_BOTTOM, page.left_bottom()),
    };
    egui::Area::new(Id::unique(id))
        .order(Order::Foreground)
        .pivot(pivot)
        .fixed_pos(at)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(ui.visuals().panel_fill)
                .stroke(ui.visuals().window_stroke)
                .inner_margin(egui::Margin::symmetric(10, margin_y))
                .show(ui, |ui| {
                    // Less the margins and the 1 pt stroke on each side.
                    ui.set_width(page.width() - 22.0);
                    ui.horizontal(contents);
                });
        })
        .response
        .rect
}
