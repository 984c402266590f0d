//! The password vault's window: plain data in ([`VaultView`]), commands out ([`VaultCommand`]).
//!
//! It is drawn in its own OS window (a [`crate::WindowUi`] the app returns from
//! [`crate::Host::take_window_requests`]), never in a tab: the agent addresses tabs, so a window
//! that is not one has nothing it can name, click or read, and no page screenshot can contain it.
//!
//! This module knows no vault cryptography and no vault type. The app turns the vault's state
//! into a [`VaultView`] every frame, applies the [`VaultCommand`]s this window emits, and hands
//! back what only the vault can produce through [`VaultWindow::reveal`],
//! [`VaultWindow::copy`] and [`VaultWindow::set_generated`].
//!
//! What the window does on its own, because it is about what the human sees:
//! * a revealed password is shown for [`REVEAL_FOR`] and then dropped (also on selecting
//!   another entry, on locking, and when the window closes);
//! * passphrase and password fields are wiped (best effort, see [`Secret`]) as soon as they
//!   are submitted, and egui's copy of the field state (its undo history) is forgotten;
//! * the two passphrases of a new vault must match before anything is sent.
//!
//! Clipboard: [`VaultWindow::copy`] puts the text on the clipboard the way the chrome's own
//! copies go (egui's copy output, which the runner hands to the system clipboard), and
//! [`ClipboardClearer`] clears it [`CLIPBOARD_CLEAR_AFTER`] later if it still holds that text,
//! whether or not the window is still open.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use egui::{Align, Color32, Id, Key, Layout, Rect, RichText, Ui, vec2};

/// How long a revealed password stays on screen.
pub const REVEAL_FOR: Duration = Duration::from_secs(5);
/// How long a copied username, password or code stays on the clipboard.
pub const CLIPBOARD_CLEAR_AFTER: Duration = Duration::from_secs(30);
/// Auto-lock after this many minutes without use, unless the human sets otherwise.
pub const DEFAULT_AUTO_LOCK_MINUTES: u32 = 10;
/// The shortest passphrase a new vault accepts. Argon2id slows guessing; it cannot make a
/// four-letter word strong.
pub const MIN_PASSPHRASE_CHARS: usize = 8;

/// Names of the window's controls, for [`VaultWindow::control_rect`] (tests click them).
pub mod controls {
    /// Passphrase field (unlock and create).
    pub const PASSPHRASE: &str = "vault:passphrase";
    /// Repeat-passphrase field (create).
    pub const PASSPHRASE_AGAIN: &str = "vault:passphrase_again";
    /// Create button.
    pub const CREATE: &str = "vault:create";
    /// Unlock button.
    pub const UNLOCK: &str = "vault:unlock";
    /// Lock button.
    pub const LOCK: &str = "vault:lock";
    /// Auto-lock minutes.
    pub const AUTO_LOCK: &str = "vault:auto_lock";
    /// Search field.
    pub const SEARCH: &str = "vault:search";
    /// Add button.
    pub const ADD: &str = "vault:add";
    /// Import button.
    pub const IMPORT: &str = "vault:import";
    /// The profiles button.
    pub const PROFILES: &str = "vault:profiles";
    /// The new profile's name field.
    pub const PROFILE_NAME: &str = "vault:profile:name";
    /// Save the profile being edited.
    pub const PROFILE_SAVE: &str = "vault:profile:save";
    /// Delete the profile being edited.
    pub const PROFILE_DELETE: &str = "vault:profile:delete";
    /// Close the profiles dialog.
    pub const PROFILES_CLOSE: &str = "vault:profiles:close";
    /// A fact's field is `vault:profile:fact:<key>`; a profile in the list `vault:profile:pick:<name>`.
    pub fn profile_fact_control(key: &str) -> String {
        format!("vault:profile:fact:{key}")
    }
    /// A profile's button in the list.
    pub fn profile_pick_control(name: &str) -> String {
        format!("vault:profile:pick:{name}")
    }
    /// The files library button.
    pub const FILES: &str = "vault:files";
    /// The library's path field.
    pub const FILE_PATH: &str = "vault:file:path";
    /// The library's label field.
    pub const FILE_LABEL: &str = "vault:file:label";
    /// The library's Add button.
    pub const FILE_ADD: &str = "vault:file:add";
    /// The library's Close button.
    pub const FILES_CLOSE: &str = "vault:files:close";
    /// Remove buttons are `vault:file:remove:<id>` ([`file_remove_control`]).
    pub fn file_remove_control(id: &str) -> String {
        format!("vault:file:remove:{id}")
    }
    /// Reveal button of the selected entry.
    pub const REVEAL: &str = "vault:reveal";
    /// The selected entry's password as shown (dots, or the revealed text).
    pub const PASSWORD_TEXT: &str = "vault:password_text";
    /// Copy username.
    pub const COPY_USERNAME: &str = "vault:copy_username";
    /// Copy password.
    pub const COPY_PASSWORD: &str = "vault:copy_password";
    /// Copy the two-factor code.
    pub const COPY_TOTP: &str = "vault:copy_totp";
    /// The two-factor code.
    pub const TOTP_CODE: &str = "vault:totp_code";
    /// Edit the selected entry.
    pub const EDIT: &str = "vault:edit";
    /// Delete the selected entry.
    pub const DELETE: &str = "vault:delete";
    /// Undo the last delete.
    pub const UNDO: &str = "vault:undo";
    /// Form: web address.
    pub const FORM_URL: &str = "vault:form_url";
    /// Form: label.
    pub const FORM_LABEL: &str = "vault:form_label";
    /// Form: username.
    pub const FORM_USERNAME: &str = "vault:form_username";
    /// Form: password.
    pub const FORM_PASSWORD: &str = "vault:form_password";
    /// Form: two-factor seed.
    pub const FORM_TOTP: &str = "vault:form_totp";
    /// Form: remove the two-factor seed (edit).
    pub const FORM_TOTP_REMOVE: &str = "vault:form_totp_remove";
    /// Form: generate a password.
    pub const GENERATE: &str = "vault:generate";
    /// Generator: length.
    pub const GENERATE_LENGTH: &str = "vault:generate_length";
    /// Generator: symbols on/off.
    pub const GENERATE_SYMBOLS: &str = "vault:generate_symbols";
    /// Form: save.
    pub const SAVE: &str = "vault:save";
    /// Form: cancel.
    pub const CANCEL: &str = "vault:cancel";
    /// Import dialog: path.
    pub const IMPORT_PATH: &str = "vault:import_path";
    /// Import dialog: read the file and show what would be imported.
    pub const IMPORT_PREVIEW: &str = "vault:import_preview";
    /// Import dialog: import.
    pub const IMPORT_OK: &str = "vault:import_ok";
    /// Import dialog: cancel.
    pub const IMPORT_CANCEL: &str = "vault:import_cancel";
}

/// The control name of an entry's row in the list.
pub fn entry_control(id: &str) -> String {
    format!("vault:entry:{id}")
}

/// Text that must not linger: a passphrase, a password, a two-factor seed or code.
///
/// `Debug` prints a placeholder and the bytes are overwritten when it is dropped. Best effort:
/// egui, the allocator and the clipboard may hold copies this cannot reach (this crate does not
/// depend on the vault's `zeroize`, and writes through `black_box` so the overwrite is not
/// optimised away).
#[derive(Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `s`; the caller's other copies are the caller's business.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The text.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Takes the text out of a field and wipes the field.
    pub fn take(field: &mut String) -> Secret {
        let s = Secret(field.clone());
        wipe(field);
        s
    }
}

impl Drop for Secret {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Overwrites a string's bytes and empties it.
pub fn wipe(s: &mut String) {
    let mut bytes = std::mem::take(s).into_bytes();
    bytes.iter_mut().for_each(|b| *b = 0);
    std::hint::black_box(&bytes);
}

/// Whether the vault exists and is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VaultState {
    /// There is no vault file yet: the window offers to create one.
    #[default]
    NoVault,
    /// The vault is locked: the window asks for the passphrase.
    Locked,
    /// Open: entries can be seen and changed.
    Unlocked,
}

/// One login as the window lists it. No password.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryView {
    /// The vault's id for it.
    pub id: String,
    /// The site it is bound to (`https://example.com`).
    pub site: String,
    /// The address it was saved from.
    pub origin: String,
    /// The human's label.
    pub label: String,
    /// Username.
    pub username: String,
    /// Whether a two-factor seed is stored.
    pub has_totp: bool,
}

/// The live two-factor code of the selected entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotpView {
    /// Entry id.
    pub entry: String,
    /// The code now.
    pub code: String,
    /// Seconds until it changes.
    pub remaining: u64,
    /// Its period in seconds.
    pub period: u64,
}

/// What an import would do, shown before anything is saved.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportPreview {
    /// Which manager wrote the file ("Chrome").
    pub format: String,
    /// Logins that will be saved.
    pub ready: usize,
    /// Records that will not, as (line, reason).
    pub problems: Vec<(usize, String)>,
}

/// Everything the window draws, built by the app each frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VaultView {
    /// Exists, locked, open.
    pub state: VaultState,
    /// Where the vault file is (shown small, so the human knows which vault this is).
    pub location: String,
    /// All entries (the window filters and groups them).
    pub entries: Vec<EntryView>,
    /// The selected entry's two-factor code, when it has one.
    pub totp: Option<TotpView>,
    /// Something failed (wrong passphrase, a save that did not happen).
    pub error: Option<String>,
    /// Something happened that the human should know ("Imported 12 logins").
    pub notice: Option<String>,
    /// Work under way ("Unlocking…"): inputs are disabled meanwhile.
    pub busy: Option<String>,
    /// The label of the entry Undo would bring back.
    pub undo: Option<String>,
    /// Auto-lock after this many minutes without use.
    pub auto_lock_minutes: u32,
    /// An import waiting for the human's go-ahead.
    pub import: Option<ImportPreview>,
    /// The files library (CV, cover letter) the agent can upload by id.
    pub attachments: Vec<AttachmentView>,
    /// The autofill profiles, with their facts (the human's to see and edit).
    pub profiles: Vec<ProfileView>,
    /// The facts a profile can hold: (key, label), in display order.
    pub profile_fields: Vec<(String, String)>,
}

/// An autofill profile as the vault window edits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileView {
    /// Its name.
    pub name: String,
    /// Its stored facts: (key, value).
    pub values: Vec<(String, String)>,
}

/// A file in the vault's library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentView {
    /// Its id (what the agent names).
    pub id: String,
    /// The human's label.
    pub label: String,
    /// The file name uploads carry.
    pub file_name: String,
    /// Size in bytes.
    pub size: u64,
}

/// What to do with an entry's two-factor seed.
#[derive(Debug, Default)]
pub enum TotpChange {
    /// Leave it (editing), or none (adding).
    #[default]
    Keep,
    /// Remove it.
    Remove,
    /// Set it: an `otpauth://` URI or a base32 secret.
    Set(Secret),
}

/// An entry as the human filled in the add or edit form.
#[derive(Debug, Default)]
pub struct EntryForm {
    /// The web address (a bare host is taken as `https://`).
    pub url: String,
    /// Label.
    pub label: String,
    /// Username.
    pub username: String,
    /// The password; `None` when editing and the field was left empty (keep it).
    pub password: Option<Secret>,
    /// Two-factor seed.
    pub totp: TotpChange,
}

/// The password generator's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorOptions {
    /// Characters.
    pub length: usize,
    /// a–z.
    pub lowercase: bool,
    /// A–Z.
    pub uppercase: bool,
    /// 0–9.
    pub digits: bool,
    /// Symbols.
    pub symbols: bool,
    /// Leave out look-alikes (I, l, 1, O, 0, o).
    pub avoid_ambiguous: bool,
}

impl Default for GeneratorOptions {
    fn default() -> Self {
        GeneratorOptions {
            length: 20,
            lowercase: true,
            uppercase: true,
            digits: true,
            symbols: true,
            avoid_ambiguous: false,
        }
    }
}

/// What the window asks the app to do.
#[derive(Debug)]
pub enum VaultCommand {
    /// Create the vault (the two passphrases matched).
    Create {
        /// The passphrase.
        passphrase: Secret,
    },
    /// Unlock.
    Unlock {
        /// The passphrase.
        passphrase: Secret,
    },
    /// Lock now.
    Lock,
    /// Save a new entry. Answer with [`VaultWindow::form_saved`] or
    /// [`VaultWindow::form_failed`].
    Add(EntryForm),
    /// Save an edited entry. Answered like `Add`.
    Update {
        /// Entry id.
        id: String,
        /// The form.
        form: EntryForm,
    },
    /// Delete an entry (undoable).
    Delete {
        /// Entry id.
        id: String,
    },
    /// Bring back the last deleted entry.
    Undo,
    /// Show an entry's password: answer with [`VaultWindow::reveal`].
    Reveal {
        /// Entry id.
        id: String,
    },
    /// Copy the username: answer with [`VaultWindow::copy`].
    CopyUsername {
        /// Entry id.
        id: String,
    },
    /// Copy the password: answer with [`VaultWindow::copy`].
    CopyPassword {
        /// Entry id.
        id: String,
    },
    /// Copy the current two-factor code: answer with [`VaultWindow::copy`].
    CopyTotp {
        /// Entry id.
        id: String,
    },
    /// Generate a password for the form: answer with [`VaultWindow::set_generated`].
    Generate(GeneratorOptions),
    /// Lock after this many minutes without use.
    SetAutoLock {
        /// Minutes, 1 or more.
        minutes: u32,
    },
    /// Save (create or replace) the autofill profile `name` with these facts (key, value);
    /// empty values are left out.
    SaveProfile {
        /// Its name.
        name: String,
        /// Its facts.
        values: Vec<(String, String)>,
    },
    /// Delete the autofill profile `name`.
    DeleteProfile {
        /// Its name.
        name: String,
    },
    /// Copy a file into the library, encrypted.
    AddAttachment {
        /// The file the human named.
        path: PathBuf,
        /// Its label.
        label: String,
    },
    /// Remove a file from the library.
    RemoveAttachment {
        /// Its id.
        id: String,
    },
    /// Read an export and show what importing it would do.
    PreviewImport {
        /// The file the human named.
        path: PathBuf,
    },
    /// Import what the preview showed.
    ConfirmImport,
    /// Drop the previewed import.
    CancelImport,
    /// The human closed the error or notice.
    Dismiss,
}

#[derive(Default)]
struct Form {
    /// The entry being edited; `None` adds.
    editing: Option<String>,
    url: String,
    label: String,
    username: String,
    password: String,
    show_password: bool,
    totp_seed: String,
    remove_totp: bool,
    had_totp: bool,
    /// Entropy of the generated password in the field, while it is unchanged.
    generated_bits: Option<f64>,
    error: Option<String>,
    /// A save is in flight: the form waits for the app's answer.
    saving: bool,
    gen_options: GeneratorOptions,
    show_generator: bool,
    /// Frames left to put the caret in the first field (egui needs the field laid out first).
    focus_first: u8,
}

impl Form {
    fn opened() -> Form {
        let mut f = Form::default();
        f.focus_first = 2;
        f
    }
}

impl Drop for Form {
    fn drop(&mut self) {
        wipe(&mut self.password);
        wipe(&mut self.totp_seed);
    }
}

struct Revealed {
    id: String,
    password: Secret,
    /// Set on the first frame it is drawn.
    until: Option<f64>,
}

#[derive(Default)]
struct ImportDialog {
    path: String,
    focus: u8,
}

/// The profiles dialog: the profile being edited and what is typed into it.
#[derive(Default)]
struct ProfilesDialog {
    /// The name being edited (an existing profile's, or a new one's).
    name: String,
    /// Loaded from this profile (so a change of selection reloads).
    loaded: Option<String>,
    values: std::collections::BTreeMap<String, String>,
}

/// The files library dialog: what is being typed for the next file.
#[derive(Default)]
struct FilesDialog {
    path: String,
    label: String,
}

/// The window's own state (what is typed, selected and shown), between frames.
#[derive(Default)]
pub struct VaultWindow {
    passphrase: String,
    passphrase_again: String,
    local_error: Option<String>,
    search: String,
    selected: Option<String>,
    form: Option<Form>,
    revealed: Option<Revealed>,
    import: Option<ImportDialog>,
    /// The files library dialog, while open.
    files: Option<FilesDialog>,
    /// The profiles dialog, while open.
    profiles: Option<ProfilesDialog>,
    auto_lock_field: Option<u32>,
    commands: Vec<VaultCommand>,
    rects: HashMap<String, Rect>,
    last_state: Option<VaultState>,
    focus_passphrase: u8,
    focus_search: u8,
}

impl Drop for VaultWindow {
    fn drop(&mut self) {
        wipe(&mut self.passphrase);
        wipe(&mut self.passphrase_again);
    }
}

fn passphrase_id() -> Id {
    Id::unique("aperture_vault_passphrase")
}
fn passphrase_again_id() -> Id {
    Id::unique("aperture_vault_passphrase_again")
}
fn form_password_id() -> Id {
    Id::unique("aperture_vault_form_password")
}
fn form_totp_id() -> Id {
    Id::unique("aperture_vault_form_totp")
}
fn form_url_id() -> Id {
    Id::unique("aperture_vault_form_url")
}
fn search_id() -> Id {
    Id::unique("aperture_vault_search")
}

/// Drops egui's remembered state of a text field (its undo history holds earlier texts).
fn forget_field(ctx: &egui::Context, id: Id) {
    ctx.data_mut(|d| d.remove::<egui::text_edit::TextEditState>(id));
}

impl VaultWindow {
    /// A window with nothing typed yet.
    pub fn new() -> VaultWindow {
        let mut w = VaultWindow::default();
        w.focus_passphrase = 2;
        w
    }

    /// Where a control was drawn last frame, by the names in [`controls`] and
    /// [`entry_control`].
    pub fn control_rect(&self, name: &str) -> Option<Rect> {
        self.rects.get(name).copied()
    }

    /// The entry the human has selected (the app puts its two-factor code in
    /// [`VaultView::totp`]).
    pub fn selected(&self) -> Option<&str> {
        self.selected.as_deref()
    }

    /// Whether a password is on screen now.
    pub fn is_revealed(&self) -> bool {
        self.revealed.is_some()
    }

    /// Shows `password` for entry `id` for [`REVEAL_FOR`].
    pub fn reveal(&mut self, id: &str, password: Secret) {
        self.revealed = Some(Revealed {
            id: id.to_string(),
            password,
            until: None,
        });
    }

    /// Puts `text` on the clipboard through egui's copy output. The app hands the same text to
    /// a [`ClipboardClearer`].
    pub fn copy(&mut self, ctx: &egui::Context, text: &Secret) {
        ctx.copy_text(text.expose().to_string());
    }

    /// Puts a generated password into the open form.
    pub fn set_generated(&mut self, password: Secret, entropy_bits: f64) {
        if let Some(f) = &mut self.form {
            wipe(&mut f.password);
            f.password = password.expose().to_string();
            f.generated_bits = Some(entropy_bits);
        }
    }

    /// The app saved the form: close it (and select what was saved, when known).
    pub fn form_saved(&mut self, id: Option<&str>) {
        self.form = None;
        if let Some(id) = id {
            self.selected = Some(id.to_string());
        }
    }

    /// The app could not save the form: keep it open with `error`.
    pub fn form_failed(&mut self, error: String) {
        if let Some(f) = &mut self.form {
            f.saving = false;
            f.error = Some(error);
        }
    }

    /// Draws one frame of the window and returns what the human asked for.
    pub fn show(&mut self, ui: &mut Ui, view: &VaultView) -> Vec<VaultCommand> {
        self.rects.clear();
        let now = ui.input(|i| i.time);
        if self.last_state != Some(view.state) {
            if view.state != VaultState::Unlocked {
                // Locked (by the human, the idle timer, or not yet open): nothing of the
                // vault's contents stays in the window.
                self.revealed = None;
                self.form = None;
                self.import = None;
                self.selected = None;
                self.focus_passphrase = 2;
            } else {
                wipe(&mut self.passphrase);
                wipe(&mut self.passphrase_again);
                forget_field(ui.ctx(), passphrase_id());
                forget_field(ui.ctx(), passphrase_again_id());
                // Open: typing searches at once.
                self.focus_search = 2;
            }
            self.local_error = None;
            self.last_state = Some(view.state);
        }
        self.expire_reveal(ui.ctx(), now);
        if self
            .selected
            .as_ref()
            .is_some_and(|s| !view.entries.iter().any(|e| &e.id == s))
        {
            self.selected = None;
        }
        if view.totp.is_some() {
            // The countdown ticks once a second.
            ui.ctx().request_repaint_after(Duration::from_millis(500));
        }
        let busy = view.busy.is_some();
        if view.state == VaultState::Unlocked && !busy && self.import.is_none() && view.import.is_none() {
            // Ctrl+N new login, Ctrl+F search, Ctrl+L lock: the window works from the keyboard.
            let (new, find, lock) = ui.input_mut(|i| {
                (
                    i.consume_key(egui::Modifiers::COMMAND, Key::N),
                    i.consume_key(egui::Modifiers::COMMAND, Key::F),
                    i.consume_key(egui::Modifiers::COMMAND, Key::L),
                )
            });
            if new && self.form.as_ref().is_none_or(|f| f.editing.is_some()) {
                self.form = Some(Form::opened());
            }
            if find {
                self.form = None;
                self.focus_search = 2;
            }
            if lock {
                self.emit(VaultCommand::Lock);
            }
        }
        egui::Panel::top("aperture_vault_top")
            .frame(
                egui::Frame::new()
                    .fill(ui.visuals().panel_fill)
                    .inner_margin(egui::Margin::symmetric(10, 6)),
            )
            .show(ui, |ui| self.top_bar(ui, view, busy));
        egui::Panel::bottom("aperture_vault_bottom")
            .frame(
                egui::Frame::new()
                    .fill(ui.visuals().panel_fill)
                    .inner_margin(egui::Margin::symmetric(10, 6)),
            )
            .show(ui, |ui| self.bottom_bar(ui, view));
        match view.state {
            VaultState::NoVault => {
                egui::CentralPanel::default().show(ui, |ui| self.create_screen(ui, view, busy));
            }
            VaultState::Locked => {
                egui::CentralPanel::default().show(ui, |ui| self.unlock_screen(ui, view, busy));
            }
            VaultState::Unlocked => {
                egui::Panel::left("aperture_vault_list")
                    .default_size(300.0)
                    .resizable(true)
                    .show(ui, |ui| self.entry_list(ui, view, busy));
                egui::CentralPanel::default().show(ui, |ui| {
                    if self.form.is_some() {
                        self.form_ui(ui, busy);
                    } else {
                        self.details(ui, view, busy);
                    }
                });
                self.import_dialog(ui.ctx(), view, busy);
                self.files_dialog(ui.ctx(), view, busy);
                self.profiles_dialog(ui.ctx(), view, busy);
            }
        }
        std::mem::take(&mut self.commands)
    }

    fn emit(&mut self, c: VaultCommand) {
        self.commands.push(c);
    }

    fn rect(&mut self, name: &str, r: Rect) {
        self.rects.insert(name.to_string(), r);
    }

    fn expire_reveal(&mut self, ctx: &egui::Context, now: f64) {
        let Some(r) = &mut self.revealed else { return };
        if self.selected.as_deref() != Some(r.id.as_str()) {
            self.revealed = None;
            return;
        }
        let until = *r.until.get_or_insert(now + REVEAL_FOR.as_secs_f64());
        if now >= until {
            self.revealed = None;
        } else {
            ctx.request_repaint_after(Duration::from_secs_f64((until - now).max(0.01)));
        }
    }

    fn top_bar(&mut self, ui: &mut Ui, view: &VaultView, busy: bool) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("🔑 Vault").strong().size(16.0));
            let (state, colour) = match view.state {
                VaultState::NoVault => ("not created yet", ui.visuals().weak_text_color()),
                VaultState::Locked => ("locked", ui.visuals().warn_fg_color),
                VaultState::Unlocked => ("unlocked", Color32::from_rgb(0x3f, 0xa3, 0x5a)),
            };
            ui.label(RichText::new(state).color(colour));
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                if view.state == VaultState::Unlocked {
                    let lock = ui.add_enabled(!busy, egui::Button::new("🔒 Lock"));
                    self.rect(controls::LOCK, lock.rect);
                    if lock.clicked() {
                        self.emit(VaultCommand::Lock);
                    }
                    ui.label("min");
                    let mut minutes = self.auto_lock_field.unwrap_or(view.auto_lock_minutes.max(1));
                    let field = ui
                        .add(egui::DragValue::new(&mut minutes).range(1..=1440).speed(0.2))
                        .on_hover_text("Lock the vault after this many minutes without use of this window");
                    self.rect(controls::AUTO_LOCK, field.rect);
                    if field.changed() {
                        self.auto_lock_field = Some(minutes);
                    }
                    // Sent once the human is done typing or dragging, not on every step.
                    if !field.has_focus()
                        && !field.dragged()
                        && let Some(m) = self.auto_lock_field.take()
                        && m != view.auto_lock_minutes
                    {
                        self.emit(VaultCommand::SetAutoLock { minutes: m });
                    }
                    ui.label("Lock after");
                    ui.separator();
                    let profiles = ui.add_enabled(!busy, egui::Button::new("Profiles…"));
                    self.rect(controls::PROFILES, profiles.rect);
                    if profiles.clicked() {
                        self.profiles = Some(ProfilesDialog::default());
                    }
                    let files = ui.add_enabled(!busy, egui::Button::new("Files…"));
                    self.rect(controls::FILES, files.rect);
                    if files.clicked() {
                        self.files = Some(FilesDialog::default());
                    }
                    let import = ui.add_enabled(!busy, egui::Button::new("Import…"));
                    self.rect(controls::IMPORT, import.rect);
                    if import.clicked() {
                        self.import = Some(ImportDialog {
                            path: String::new(),
                            focus: 2,
                        });
                    }
                }
            });
        });
    }

    fn bottom_bar(&mut self, ui: &mut Ui, view: &VaultView) {
        ui.horizontal_wrapped(|ui| {
            if let Some(b) = &view.busy {
                ui.add(egui::Spinner::new());
                ui.label(b);
            } else if let Some(e) = view.error.clone().filter(|_| view.state == VaultState::Unlocked) {
                ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
                if ui.small_button("×").clicked() {
                    self.emit(VaultCommand::Dismiss);
                }
            } else if let Some(n) = &view.notice {
                ui.label(n);
                if ui.small_button("×").clicked() {
                    self.emit(VaultCommand::Dismiss);
                }
            }
            if let Some(label) = &view.undo {
                ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                    let undo = ui.button("Undo");
                    self.rect(controls::UNDO, undo.rect);
                    if undo.clicked() {
                        self.emit(VaultCommand::Undo);
                    }
                    ui.label(format!("Deleted “{label}”."));
                });
            }
        });
        if !view.location.is_empty() {
            ui.label(RichText::new(&view.location).small().weak());
        }
    }

    fn passphrase_field(&mut self, ui: &mut Ui, again: bool, enabled: bool) -> egui::Response {
        let (id, name) = if again {
            (passphrase_again_id(), controls::PASSPHRASE_AGAIN)
        } else {
            (passphrase_id(), controls::PASSPHRASE)
        };
        let text = if again {
            &mut self.passphrase_again
        } else {
            &mut self.passphrase
        };
        let r = ui.add_enabled(
            enabled,
            egui::TextEdit::singleline(text)
                .id(id)
                .password(true)
                .desired_width(280.0),
        );
        self.rect(name, r.rect);
        r
    }

    /// Puts the caret in the passphrase field, once it can take it: a disabled field (while
    /// the app works) would drop the request, and the human retypes after a wrong one.
    fn take_focus(&mut self, ui: &Ui, busy: bool) {
        if self.focus_passphrase > 0 && !busy {
            self.focus_passphrase -= 1;
            ui.ctx().memory_mut(|m| m.request_focus(passphrase_id()));
        }
    }

    fn create_screen(&mut self, ui: &mut Ui, view: &VaultView, busy: bool) {
        self.take_focus(ui, busy);
        ui.vertical_centered(|ui| {
            ui.add_space(30.0);
            ui.label(RichText::new("Create your vault").strong().size(18.0));
            ui.add_space(6.0);
            ui.label(
                "Passwords are kept in one encrypted file, opened only by this passphrase. \
                 The agent can ask the browser to fill a login; it never sees a password, \
                 and it cannot open this window.",
            );
            ui.label(
                RichText::new("There is no way to recover a forgotten passphrase.")
                    .color(ui.visuals().warn_fg_color),
            );
            ui.add_space(10.0);
            ui.label("Passphrase");
            let a = self.passphrase_field(ui, false, !busy);
            ui.label("Repeat it");
            let b = self.passphrase_field(ui, true, !busy);
            ui.add_space(8.0);
            let ready = !self.passphrase.is_empty() && !self.passphrase_again.is_empty();
            let create = ui.add_enabled(ready && !busy, egui::Button::new("Create vault"));
            self.rect(controls::CREATE, create.rect);
            let enter = (a.lost_focus() || b.lost_focus()) && ui.input(|i| i.key_pressed(Key::Enter));
            if (create.clicked() || (enter && ready)) && !busy {
                self.submit_create(ui.ctx());
            }
            if let Some(e) = self.local_error.as_ref().or(view.error.as_ref()) {
                ui.add_space(6.0);
                ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
            }
        });
    }

    fn submit_create(&mut self, ctx: &egui::Context) {
        if self.passphrase != self.passphrase_again {
            self.local_error = Some("The two passphrases differ. Type them again.".into());
            wipe(&mut self.passphrase_again);
            forget_field(ctx, passphrase_again_id());
            return;
        }
        if self.passphrase.chars().count() < MIN_PASSPHRASE_CHARS {
            self.local_error = Some(format!(
                "Use at least {MIN_PASSPHRASE_CHARS} characters; a few words are easier to remember than symbols."
            ));
            return;
        }
        self.local_error = None;
        wipe(&mut self.passphrase_again);
        let passphrase = Secret::take(&mut self.passphrase);
        forget_field(ctx, passphrase_id());
        forget_field(ctx, passphrase_again_id());
        self.emit(VaultCommand::Create { passphrase });
    }

    fn unlock_screen(&mut self, ui: &mut Ui, view: &VaultView, busy: bool) {
        self.take_focus(ui, busy);
        ui.vertical_centered(|ui| {
            ui.add_space(40.0);
            ui.label(RichText::new("The vault is locked").strong().size(18.0));
            ui.add_space(10.0);
            ui.label("Passphrase");
            let field = self.passphrase_field(ui, false, !busy);
            ui.add_space(8.0);
            let unlock = ui.add_enabled(!busy && !self.passphrase.is_empty(), egui::Button::new("Unlock"));
            self.rect(controls::UNLOCK, unlock.rect);
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            if (unlock.clicked() || enter) && !busy && !self.passphrase.is_empty() {
                let passphrase = Secret::take(&mut self.passphrase);
                forget_field(ui.ctx(), passphrase_id());
                self.focus_passphrase = 2;
                self.emit(VaultCommand::Unlock { passphrase });
            }
            if let Some(e) = &view.error {
                ui.add_space(6.0);
                ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
            }
        });
    }

    fn matches(&self, e: &EntryView) -> bool {
        let q = self.search.trim().to_lowercase();
        q.is_empty()
            || [&e.site, &e.origin, &e.label, &e.username]
                .iter()
                .any(|f| f.to_lowercase().contains(&q))
    }

    fn entry_list(&mut self, ui: &mut Ui, view: &VaultView, busy: bool) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            if self.focus_search > 0 && self.form.is_none() {
                self.focus_search -= 1;
                ui.ctx().memory_mut(|m| m.request_focus(search_id()));
            }
            let search = ui.add(
                egui::TextEdit::singleline(&mut self.search)
                    .id(search_id())
                    .hint_text("Search sites, names, usernames (Ctrl+F)")
                    .desired_width(ui.available_width() - 60.0),
            );
            self.rect(controls::SEARCH, search.rect);
            let add = ui
                .add_enabled(!busy, egui::Button::new("+ Add"))
                .on_hover_text("New login (Ctrl+N)");
            self.rect(controls::ADD, add.rect);
            if add.clicked() {
                self.form = Some(Form::opened());
            }
        });
        ui.separator();
        let mut shown: Vec<&EntryView> = view.entries.iter().filter(|e| self.matches(e)).collect();
        shown.sort_by(|a, b| {
            (site_name(&a.site), a.label.to_lowercase(), &a.username).cmp(&(
                site_name(&b.site),
                b.label.to_lowercase(),
                &b.username,
            ))
        });
        if view.entries.is_empty() {
            ui.label(RichText::new("No logins saved yet. Add one, or import a browser's export.").weak());
        } else if shown.is_empty() {
            ui.label(RichText::new("Nothing matches.").weak());
        }
        let mut clicked = None;
        let mut rects = Vec::new();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let mut last_site = None;
                for e in shown {
                    if last_site != Some(e.site.as_str()) {
                        ui.add_space(4.0);
                        ui.label(RichText::new(site_name(&e.site)).strong());
                        last_site = Some(e.site.as_str());
                    }
                    let selected = self.selected.as_deref() == Some(e.id.as_str());
                    let text = if e.username.is_empty() {
                        e.label.clone()
                    } else {
                        format!("{} — {}", e.label, e.username)
                    };
                    let r = ui.selectable_label(selected, text);
                    rects.push((entry_control(&e.id), r.rect));
                    if r.clicked() {
                        clicked = Some(e.id.clone());
                    }
                }
            });
        for (n, r) in rects {
            self.rects.insert(n, r);
        }
        if let Some(id) = clicked {
            self.selected = Some(id);
            self.form = None;
        }
    }

    fn details(&mut self, ui: &mut Ui, view: &VaultView, busy: bool) {
        let Some(e) = self
            .selected
            .as_ref()
            .and_then(|s| view.entries.iter().find(|e| &e.id == s))
            .cloned()
        else {
            ui.add_space(30.0);
            ui.vertical_centered(|ui| {
                ui.label(RichText::new("Select a login to see it.").weak());
            });
            return;
        };
        ui.add_space(6.0);
        ui.label(RichText::new(&e.label).strong().size(17.0));
        ui.label(RichText::new(&e.origin).weak());
        ui.add_space(8.0);
        egui::Grid::new("aperture_vault_details")
            .num_columns(3)
            .spacing(vec2(10.0, 8.0))
            .show(ui, |ui| {
                ui.label("Site");
                ui.label(&e.site);
                ui.end_row();

                ui.label("Username");
                ui.label(if e.username.is_empty() { "—" } else { &e.username });
                let copy = ui.add_enabled(!busy && !e.username.is_empty(), egui::Button::new("Copy"));
                self.rect(controls::COPY_USERNAME, copy.rect);
                if copy.clicked() {
                    self.emit(VaultCommand::CopyUsername { id: e.id.clone() });
                }
                ui.end_row();

                ui.label("Password");
                let shown = self
                    .revealed
                    .as_ref()
                    .filter(|r| r.id == e.id)
                    .map(|r| r.password.expose().to_string());
                let is_shown = shown.is_some();
                let text = ui.label(RichText::new(shown.unwrap_or_else(|| "••••••••••".into())).monospace());
                self.rect(controls::PASSWORD_TEXT, text.rect);
                ui.horizontal(|ui| {
                    let reveal = ui
                        .add_enabled(!busy, egui::Button::new(if is_shown { "Hide" } else { "Show" }))
                        .on_hover_text("Shown for 5 seconds");
                    self.rect(controls::REVEAL, reveal.rect);
                    if reveal.clicked() {
                        if is_shown {
                            self.revealed = None;
                        } else {
                            self.emit(VaultCommand::Reveal { id: e.id.clone() });
                        }
                    }
                    let copy = ui
                        .add_enabled(!busy, egui::Button::new("Copy"))
                        .on_hover_text("The clipboard is cleared after 30 seconds");
                    self.rect(controls::COPY_PASSWORD, copy.rect);
                    if copy.clicked() {
                        self.emit(VaultCommand::CopyPassword { id: e.id.clone() });
                    }
                });
                ui.end_row();

                if e.has_totp {
                    ui.label("Two-factor");
                    match view.totp.as_ref().filter(|t| t.entry == e.id) {
                        Some(t) => {
                            ui.horizontal(|ui| {
                                let code =
                                    ui.label(RichText::new(group_code(&t.code)).monospace().size(18.0));
                                self.rect(controls::TOTP_CODE, code.rect);
                                let frac = t.remaining as f32 / t.period.max(1) as f32;
                                ui.add(
                                    egui::ProgressBar::new(frac)
                                        .desired_width(70.0)
                                        .text(format!("{} s", t.remaining)),
                                );
                            });
                        }
                        None => {
                            ui.label("—");
                        }
                    }
                    let copy = ui.add_enabled(!busy, egui::Button::new("Copy"));
                    self.rect(controls::COPY_TOTP, copy.rect);
                    if copy.clicked() {
                        self.emit(VaultCommand::CopyTotp { id: e.id.clone() });
                    }
                    ui.end_row();
                }
            });
        ui.add_space(14.0);
        ui.horizontal(|ui| {
            let edit = ui.add_enabled(!busy, egui::Button::new("Edit"));
            self.rect(controls::EDIT, edit.rect);
            if edit.clicked() {
                self.revealed = None;
                let mut f = Form::opened();
                f.editing = Some(e.id.clone());
                f.url = e.origin.clone();
                f.label = e.label.clone();
                f.username = e.username.clone();
                f.had_totp = e.has_totp;
                self.form = Some(f);
            }
            let delete = ui.add_enabled(!busy, egui::Button::new("Delete"));
            self.rect(controls::DELETE, delete.rect);
            if delete.clicked() {
                self.revealed = None;
                self.selected = None;
                self.emit(VaultCommand::Delete { id: e.id.clone() });
            }
        });
    }

    fn form_ui(&mut self, ui: &mut Ui, busy: bool) {
        let Some(mut f) = self.form.take() else { return };
        let editing = f.editing.is_some();
        let mut rects: Vec<(&str, Rect)> = Vec::new();
        let (mut save, mut cancel, mut generate) = (false, false, false);
        if f.focus_first > 0 {
            f.focus_first -= 1;
            ui.ctx().memory_mut(|m| m.request_focus(form_url_id()));
        }
        // Enter in any text field saves, as in a web form.
        let mut enter = false;
        let mut entered = |ui: &Ui, r: &egui::Response| {
            if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                enter = true;
            }
        };
        ui.add_space(6.0);
        ui.label(
            RichText::new(if editing { "Edit login" } else { "New login" })
                .strong()
                .size(17.0),
        );
        ui.add_space(6.0);
        let enabled = !busy && !f.saving;
        egui::Grid::new("aperture_vault_form")
            .num_columns(2)
            .spacing(vec2(10.0, 8.0))
            .show(ui, |ui| {
                ui.label("Web address");
                let r = ui.add_enabled(
                    enabled,
                    egui::TextEdit::singleline(&mut f.url)
                        .id(form_url_id())
                        .hint_text("https://example.com/login")
                        .desired_width(320.0),
                );
                entered(ui, &r);
                rects.push((controls::FORM_URL, r.rect));
                ui.end_row();

                ui.label("Name");
                let r = ui.add_enabled(
                    enabled,
                    egui::TextEdit::singleline(&mut f.label)
                        .hint_text("shown in this list")
                        .desired_width(320.0),
                );
                entered(ui, &r);
                rects.push((controls::FORM_LABEL, r.rect));
                ui.end_row();

                ui.label("Username");
                let r = ui.add_enabled(
                    enabled,
                    egui::TextEdit::singleline(&mut f.username).desired_width(320.0),
                );
                entered(ui, &r);
                rects.push((controls::FORM_USERNAME, r.rect));
                ui.end_row();

                ui.label("Password");
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        let before = f.password.len();
                        let r = ui.add_enabled(
                            enabled,
                            egui::TextEdit::singleline(&mut f.password)
                                .id(form_password_id())
                                .password(!f.show_password)
                                .hint_text(if editing { "unchanged" } else { "" })
                                .desired_width(230.0),
                        );
                        entered(ui, &r);
                        rects.push((controls::FORM_PASSWORD, r.rect));
                        if r.changed() || f.password.len() != before {
                            f.generated_bits = None;
                        }
                        ui.checkbox(&mut f.show_password, "Show");
                        let g = ui.add_enabled(enabled, egui::Button::new("Generate"));
                        rects.push((controls::GENERATE, g.rect));
                        generate = g.clicked();
                        if ui
                            .small_button(if f.show_generator {
                                "Fewer options"
                            } else {
                                "Options"
                            })
                            .on_hover_text("Generator options")
                            .clicked()
                        {
                            f.show_generator = !f.show_generator;
                        }
                    });
                    if let Some(bits) = f.generated_bits {
                        ui.label(
                            RichText::new(format!("Generated: about {bits:.0} bits of randomness")).weak(),
                        );
                    }
                    if f.show_generator {
                        let o = &mut f.gen_options;
                        ui.horizontal(|ui| {
                            ui.label("Length");
                            let r = ui.add(egui::Slider::new(&mut o.length, 8..=64));
                            rects.push((controls::GENERATE_LENGTH, r.rect));
                        });
                        ui.horizontal(|ui| {
                            ui.checkbox(&mut o.lowercase, "a–z");
                            ui.checkbox(&mut o.uppercase, "A–Z");
                            ui.checkbox(&mut o.digits, "0–9");
                            let r = ui.checkbox(&mut o.symbols, "!#$%");
                            rects.push((controls::GENERATE_SYMBOLS, r.rect));
                            ui.checkbox(&mut o.avoid_ambiguous, "no look-alikes");
                        });
                    }
                });
                ui.end_row();

                ui.label("Two-factor");
                ui.vertical(|ui| {
                    if f.had_totp {
                        let r = ui.checkbox(&mut f.remove_totp, "Remove the saved two-factor seed");
                        rects.push((controls::FORM_TOTP_REMOVE, r.rect));
                    }
                    if !f.remove_totp {
                        let r = ui.add_enabled(
                            enabled,
                            egui::TextEdit::singleline(&mut f.totp_seed)
                                .id(form_totp_id())
                                .password(true)
                                .hint_text(if f.had_totp {
                                    "a new seed replaces the saved one"
                                } else {
                                    "otpauth:// URI or base32 secret (optional)"
                                })
                                .desired_width(320.0),
                        );
                        entered(ui, &r);
                        rects.push((controls::FORM_TOTP, r.rect));
                    }
                });
                ui.end_row();
            });
        if let Some(e) = &f.error {
            ui.add_space(4.0);
            ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
        }
        ui.add_space(10.0);
        ui.horizontal(|ui| {
            let s = ui.add_enabled(enabled, egui::Button::new("Save").min_size(vec2(70.0, 24.0)));
            rects.push((controls::SAVE, s.rect));
            save = s.clicked() || enter;
            let c = ui.add(egui::Button::new("Cancel").min_size(vec2(70.0, 24.0)));
            rects.push((controls::CANCEL, c.rect));
            cancel = c.clicked() || ui.input(|i| i.key_pressed(Key::Escape));
        });
        for (n, r) in rects {
            self.rect(n, r);
        }
        if generate {
            self.emit(VaultCommand::Generate(f.gen_options));
        }
        if cancel {
            forget_field(ui.ctx(), form_password_id());
            forget_field(ui.ctx(), form_totp_id());
            return;
        }
        if save && enabled {
            if let Some(err) = form_problem(&f) {
                f.error = Some(err);
            } else {
                f.error = None;
                f.saving = true;
                let form = EntryForm {
                    url: f.url.trim().to_string(),
                    label: f.label.trim().to_string(),
                    username: f.username.trim().to_string(),
                    password: (!f.password.is_empty()).then(|| Secret::take(&mut f.password)),
                    totp: if f.remove_totp {
                        TotpChange::Remove
                    } else if f.totp_seed.trim().is_empty() {
                        TotpChange::Keep
                    } else {
                        TotpChange::Set(Secret::take(&mut f.totp_seed))
                    },
                };
                forget_field(ui.ctx(), form_password_id());
                forget_field(ui.ctx(), form_totp_id());
                self.emit(match f.editing.clone() {
                    Some(id) => VaultCommand::Update { id, form },
                    None => VaultCommand::Add(form),
                });
            }
        }
        self.form = Some(f);
    }

    /// The autofill profiles: facts the agent can have the browser type into forms (after the
    /// human allows it), never seeing them.
    fn profiles_dialog(&mut self, ctx: &egui::Context, view: &VaultView, busy: bool) {
        let Some(mut d) = self.profiles.take() else { return };
        let mut rects: Vec<(String, Rect)> = Vec::new();
        let mut close = false;
        egui::Modal::new(Id::unique("aperture_vault_profiles")).show(ctx, |ui| {
            ui.set_width(560.0);
            ui.label(RichText::new("Profiles").strong().size(15.0));
            ui.label(
                RichText::new(
                    "Facts for forms (name, address…). The agent can ask the browser to type them into \
                     a form after you allow it; it never sees them. A date of birth or national id asks \
                     you every time.",
                )
                .weak(),
            );
            ui.add_space(6.0);
            ui.horizontal_wrapped(|ui| {
                for p in &view.profiles {
                    let b = ui.selectable_label(d.loaded.as_deref() == Some(p.name.as_str()), &p.name);
                    rects.push((controls::profile_pick_control(&p.name), b.rect));
                    if b.clicked() {
                        d.name = p.name.clone();
                        d.loaded = Some(p.name.clone());
                        d.values = p.values.iter().cloned().collect();
                    }
                }
            });
            ui.horizontal(|ui| {
                ui.label("Name");
                let n = ui.add_enabled(
                    !busy,
                    egui::TextEdit::singleline(&mut d.name)
                        .hint_text("Personal")
                        .desired_width(200.0),
                );
                rects.push((controls::PROFILE_NAME.to_string(), n.rect));
            });
            egui::ScrollArea::vertical().max_height(240.0).show(ui, |ui| {
                egui::Grid::new("aperture_vault_profile_grid")
                    .num_columns(2)
                    .show(ui, |ui| {
                        for (key, label) in &view.profile_fields {
                            ui.label(label);
                            let v = d.values.entry(key.clone()).or_default();
                            let f = ui.add_enabled(!busy, egui::TextEdit::singleline(v).desired_width(300.0));
                            rects.push((controls::profile_fact_control(key), f.rect));
                            ui.end_row();
                        }
                    });
            });
            if let Some(e) = &view.error {
                ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
            }
            ui.add_space(8.0);
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let save = ui.add_enabled(
                    !busy && !d.name.trim().is_empty(),
                    egui::Button::new("Save").min_size(vec2(70.0, 24.0)),
                );
                rects.push((controls::PROFILE_SAVE.to_string(), save.rect));
                if save.clicked() {
                    self.commands.push(VaultCommand::SaveProfile {
                        name: d.name.trim().to_string(),
                        values: d
                            .values
                            .iter()
                            .filter(|(_, v)| !v.trim().is_empty())
                            .map(|(k, v)| (k.clone(), v.trim().to_string()))
                            .collect(),
                    });
                    d.loaded = Some(d.name.trim().to_string());
                }
                let exists = view.profiles.iter().any(|p| p.name == d.name.trim());
                let del = ui.add_enabled(!busy && exists, egui::Button::new("Delete"));
                rects.push((controls::PROFILE_DELETE.to_string(), del.rect));
                if del.clicked() {
                    self.commands.push(VaultCommand::DeleteProfile {
                        name: d.name.trim().to_string(),
                    });
                    d = ProfilesDialog::default();
                }
                let done = ui.add(egui::Button::new("Close").min_size(vec2(70.0, 24.0)));
                rects.push((controls::PROFILES_CLOSE.to_string(), done.rect));
                close = done.clicked();
            });
        });
        for (n, r) in rects {
            self.rects.insert(n, r);
        }
        if !close {
            self.profiles = Some(d);
        }
    }

    /// The files library: the agent uploads these by id (never by path) to a file input.
    fn files_dialog(&mut self, ctx: &egui::Context, view: &VaultView, busy: bool) {
        let Some(mut d) = self.files.take() else { return };
        let mut rects: Vec<(String, Rect)> = Vec::new();
        let mut close = false;
        egui::Modal::new(Id::unique("aperture_vault_files")).show(ctx, |ui| {
            ui.set_width(520.0);
            ui.label(RichText::new("Files").strong().size(15.0));
            ui.label(
                RichText::new(
                    "Kept encrypted in the vault. The agent can upload one to a form's file input by its \
                     id, after you allow it; it never sees a path or the contents.",
                )
                .weak(),
            );
            ui.add_space(6.0);
            if view.attachments.is_empty() {
                ui.label("No files yet.");
            }
            for a in &view.attachments {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(&a.label).strong());
                    ui.label(format!("{} · {} KB", a.file_name, a.size.div_ceil(1024)));
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        let rm = ui.add_enabled(!busy, egui::Button::new("Remove"));
                        rects.push((controls::file_remove_control(&a.id), rm.rect));
                        if rm.clicked() {
                            self.commands
                                .push(VaultCommand::RemoveAttachment { id: a.id.clone() });
                        }
                    });
                });
            }
            ui.separator();
            ui.label("Add a file:");
            let path = ui.add_enabled(
                !busy,
                egui::TextEdit::singleline(&mut d.path)
                    .hint_text("~/Documents/cv.pdf")
                    .desired_width(f32::INFINITY),
            );
            rects.push((controls::FILE_PATH.to_string(), path.rect));
            let label = ui.add_enabled(
                !busy,
                egui::TextEdit::singleline(&mut d.label)
                    .hint_text("Label, e.g. CV 2026")
                    .desired_width(f32::INFINITY),
            );
            rects.push((controls::FILE_LABEL.to_string(), label.rect));
            if let Some(e) = &view.error {
                ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
            }
            ui.add_space(8.0);
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                let add = ui.add_enabled(
                    !busy && !d.path.trim().is_empty() && !d.label.trim().is_empty(),
                    egui::Button::new("Add").min_size(vec2(70.0, 24.0)),
                );
                rects.push((controls::FILE_ADD.to_string(), add.rect));
                if add.clicked() {
                    self.commands.push(VaultCommand::AddAttachment {
                        path: expand_path(
                            &d.path,
                            std::env::var_os("HOME")
                                .filter(|h| !h.is_empty())
                                .map(PathBuf::from)
                                .as_deref(),
                        ),
                        label: d.label.trim().to_string(),
                    });
                    d = FilesDialog::default();
                }
                let done = ui.add(egui::Button::new("Close").min_size(vec2(70.0, 24.0)));
                rects.push((controls::FILES_CLOSE.to_string(), done.rect));
                close = done.clicked();
            });
        });
        for (n, r) in rects {
            self.rects.insert(n, r);
        }
        if !close {
            self.files = Some(d);
        }
    }

    fn import_dialog(&mut self, ctx: &egui::Context, view: &VaultView, busy: bool) {
        if self.import.is_none() && view.import.is_none() {
            return;
        }
        let field_id = Id::unique("aperture_vault_import_path");
        let mut d = self.import.take().unwrap_or_default();
        if d.focus > 0 {
            d.focus -= 1;
            ctx.memory_mut(|m| m.request_focus(field_id));
        }
        let mut rects: Vec<(&str, Rect)> = Vec::new();
        let (mut preview, mut confirm, mut cancel) = (false, false, false);
        let modal = egui::Modal::new(Id::unique("aperture_vault_import")).show(ctx, |ui| {
            ui.set_width(480.0);
            ui.label(RichText::new("Import logins").strong().size(15.0));
            ui.add_space(4.0);
            match &view.import {
                None => {
                    ui.label("A CSV export from Chrome, Firefox or Bitwarden:");
                    let field = ui.add_enabled(
                        !busy,
                        egui::TextEdit::singleline(&mut d.path)
                            .id(field_id)
                            .hint_text("~/Downloads/passwords.csv")
                            .desired_width(f32::INFINITY),
                    );
                    rects.push((controls::IMPORT_PATH, field.rect));
                    if field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                        preview = true;
                    }
                    if let Some(e) = &view.error {
                        ui.label(RichText::new(e).color(ui.visuals().error_fg_color));
                    }
                    ui.add_space(8.0);
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        let ok = ui.add_enabled(
                            !busy && !d.path.trim().is_empty(),
                            egui::Button::new("Read file").min_size(vec2(80.0, 24.0)),
                        );
                        rects.push((controls::IMPORT_PREVIEW, ok.rect));
                        preview |= ok.clicked();
                        let no = ui.add(egui::Button::new("Cancel").min_size(vec2(70.0, 24.0)));
                        rects.push((controls::IMPORT_CANCEL, no.rect));
                        cancel = no.clicked();
                    });
                }
                Some(p) => {
                    ui.label(format!(
                        "{} export: {} login{} ready to import.",
                        p.format,
                        p.ready,
                        if p.ready == 1 { "" } else { "s" }
                    ));
                    if !p.problems.is_empty() {
                        ui.label(
                            RichText::new(format!(
                                "{} row{} will not be imported:",
                                p.problems.len(),
                                if p.problems.len() == 1 { "" } else { "s" }
                            ))
                            .color(ui.visuals().warn_fg_color),
                        );
                        egui::ScrollArea::vertical().max_height(160.0).show(ui, |ui| {
                            for (line, reason) in &p.problems {
                                ui.label(format!("line {line}: {reason}"));
                            }
                        });
                    }
                    ui.label(
                        RichText::new(
                            "Nothing is saved until you import; then every ready login is saved at once.",
                        )
                        .weak(),
                    );
                    ui.add_space(8.0);
                    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                        let ok = ui.add_enabled(
                            !busy && p.ready > 0,
                            egui::Button::new(format!("Import {}", p.ready)).min_size(vec2(80.0, 24.0)),
                        );
                        rects.push((controls::IMPORT_OK, ok.rect));
                        confirm = ok.clicked();
                        let no = ui.add(egui::Button::new("Cancel").min_size(vec2(70.0, 24.0)));
                        rects.push((controls::IMPORT_CANCEL, no.rect));
                        cancel = no.clicked();
                    });
                }
            }
        });
        for (n, r) in rects {
            self.rect(n, r);
        }
        cancel |= modal.backdrop_response.clicked() || ctx.input(|i| i.key_pressed(Key::Escape));
        if cancel {
            if view.import.is_some() {
                self.emit(VaultCommand::CancelImport);
            }
            return;
        }
        if confirm {
            self.emit(VaultCommand::ConfirmImport);
            return;
        }
        if preview && !d.path.trim().is_empty() {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from);
            self.emit(VaultCommand::PreviewImport {
                path: expand_path(&d.path, home.as_deref()),
            });
        }
        self.import = Some(d);
    }
}

/// A typed path made absolute: `~/x` under the home directory, a relative one under it too
/// (the browser's working directory means nothing to the human).
fn expand_path(typed: &str, home: Option<&std::path::Path>) -> PathBuf {
    let t = typed.trim();
    let rest = if t == "~" { Some("") } else { t.strip_prefix("~/") };
    match (rest, home) {
        (Some(rest), Some(home)) => home.join(rest),
        (None, Some(home)) if !t.starts_with('/') => home.join(t),
        _ => PathBuf::from(t),
    }
}

/// What is wrong with the form before it is sent, in the human's words.
fn form_problem(f: &Form) -> Option<String> {
    if f.url.trim().is_empty() {
        return Some("Give the web address of the site this login is for.".into());
    }
    if f.editing.is_none() && f.password.is_empty() {
        return Some("Type a password, or Generate one.".into());
    }
    None
}

/// `https://example.com` → `example.com`, for headings and sorting.
fn site_name(site: &str) -> &str {
    site.split_once("://").map_or(site, |(_, rest)| rest)
}

/// `123456` → `123 456`: easier to read off and type.
fn group_code(code: &str) -> String {
    let n = code.chars().count();
    if n < 6 {
        return code.to_string();
    }
    let half = n / 2;
    let (a, b): (String, String) = (
        code.chars().take(half).collect(),
        code.chars().skip(half).collect(),
    );
    format!("{a} {b}")
}

/// Clears the clipboard [`CLIPBOARD_CLEAR_AFTER`] (or a given delay) after the vault put a
/// secret on it, if the clipboard still holds that secret.
///
/// A background thread does it, so the clear happens whether or not the vault window is still
/// open. It reads the clipboard first: if the human has since copied something else, that is
/// left alone, and so is a clipboard that is empty or holds only non-text content (it no longer
/// holds our text). When the read fails for another reason, whether it is still ours cannot be
/// known and the clipboard is cleared regardless. When the clipboard cannot be opened at all,
/// nothing can be done. A newer copy replaces
/// the older one's pending clear (the newer text displaced it). Dropping the clearer (the
/// browser exiting) clears a pending secret at once. Clipboard managers that keep a history
/// may have copied the text already; that copy is out of reach.
pub struct ClipboardClearer {
    tx: Option<mpsc::Sender<Secret>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ClipboardClearer {
    /// A clearer that waits `after` before clearing.
    pub fn new(after: Duration) -> ClipboardClearer {
        let (tx, rx) = mpsc::channel::<Secret>();
        let thread = std::thread::Builder::new()
            .name("vault-clipboard".into())
            .spawn(move || {
                let mut pending: Option<(Secret, Instant)> = None;
                loop {
                    let got = match &pending {
                        Some((_, at)) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                        None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                    };
                    match got {
                        Ok(s) => pending = Some((s, Instant::now() + after)),
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            if let Some((s, _)) = pending.take() {
                                clear_if_holding(&s);
                            }
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            if let Some((s, _)) = pending.take() {
                                clear_if_holding(&s);
                            }
                            return;
                        }
                    }
                }
            })
            .ok();
        ClipboardClearer {
            tx: thread.is_some().then_some(tx),
            thread,
        }
    }

    /// `text` was just put on the clipboard: clear it later.
    pub fn copied(&self, text: Secret) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(text);
        }
    }
}

impl Drop for ClipboardClearer {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Empties the system clipboard if it holds `text`. Returns whether it did.
pub fn clear_if_holding(text: &Secret) -> bool {
    let Ok(mut cb) = arboard::Clipboard::new() else {
        return false;
    };
    match cb.get_text() {
        Ok(mut now) => {
            let ours = now == text.expose();
            wipe(&mut now);
            ours && cb.clear().is_ok()
        }
        // Empty, or holding something that is not text: not ours any more.
        Err(arboard::Error::ContentNotAvailable) => false,
        // Cannot tell (another program is slow to answer, …): clear rather than leave a
        // password there.
        Err(_) => cb.clear().is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_grouped_and_sites_named() {
        assert_eq!(group_code("123456"), "123 456");
        assert_eq!(group_code("12345678"), "1234 5678");
        assert_eq!(group_code("123"), "123");
        assert_eq!(site_name("https://example.com"), "example.com");
        assert_eq!(site_name("127.0.0.1:8080"), "127.0.0.1:8080");
    }

    #[test]
    fn secrets_hide_in_debug_and_take_wipes_the_field() {
        let mut field = String::from("hunter2hunter2");
        let s = Secret::take(&mut field);
        assert!(field.is_empty());
        assert_eq!(s.expose(), "hunter2hunter2");
        assert_eq!(format!("{s:?}"), "Secret(<redacted>)");
    }
}
