//! The human's vault window, on the app side: the [`VaultWindow`] UI (`aperture_ui`) drawn in
//! its own OS window, applied to the profile's one vault, which lives in the vault process
//! (reached through [`VaultWiring::remote`], shared with the agent's fill path, so an entry
//! added here is fillable at once and a lock here stops fills too). The passphrase typed here
//! is sent to the vault process, which keeps the key; this process gets an entry's password
//! only when the human reveals or copies it, and the profile facts while its profiles dialog
//! is open.
//!
//! Why a window and not a page: the agent addresses tabs. This window is not one, is not
//! rendered by Chromium, and appears in nothing the MCP server lists or captures, so no tool
//! argument can reach it (`app/tests/vault_window.rs` checks `browser_tabs` never lists it).
//!
//! What it does:
//! * First use creates the vault (the passphrase typed twice; Argon2id calibrated on this
//!   machine, off the UI thread). Unlocking is by the passphrase typed here; a wrong one says
//!   so and changes nothing. Passphrases are never logged, never in argv, and are wiped after
//!   use (the UI's `Secret`; the vault crate zeroizes its own copies).
//! * It locks on demand, and after [`aperture_ui::vault_window::DEFAULT_AUTO_LOCK_MINUTES`] (or
//!   what the human sets, saved in `<profile>/vault-window.json`) without use of this window,
//!   whether the window is open or not. Use means input in this window; the agent's fills do
//!   not count. This also applies to a vault unlocked at start-up with
//!   `--vault-passphrase-file`: once the browser has a window, the human is the one keeping
//!   the vault open.
//! * Add, edit (one save per edit), delete with undo of the last delete (the deleted entry is
//!   kept in memory, wiped on drop, until undone, replaced, or the vault locks), reveal (shown
//!   for five seconds), copy username, password or the current two-factor code (the clipboard
//!   is cleared 30 s later if it still holds that text: `ClipboardClearer`), the generator,
//!   and import from Chrome, Firefox and Bitwarden CSV exports (preview first; then every
//!   ready login is saved in one write, or none).
//! * One window at a time: the Vault button again raises the open one.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use aperture_ui::egui;
use aperture_ui::vault_window::{
    AttachmentView, CLIPBOARD_CLEAR_AFTER, ClipboardClearer, DEFAULT_AUTO_LOCK_MINUTES, EntryForm, EntryView,
    GeneratorOptions, ImportPreview, ProfileView, Secret, TotpChange, TotpView, VaultCommand, VaultState,
    VaultView, VaultWindow,
};
use aperture_ui::{UiWaker, WindowSpec, WindowUi};
use aperture_vault::remote::{self, KdfChoice, RemoteDeleted, RemoteError, RemoteVault};
use aperture_vault::{EntryId, NewEntry, Origin, PasswordPolicy, SecretString, Totp};

use crate::vault::VaultWiring;

/// The window's title (tests find the window by it).
pub const TITLE: &str = "Aperture — Vault";
/// Where the human's auto-lock choice is kept, in the profile.
const SETTINGS_FILE: &str = "vault-window.json";
/// How often the idle lock asks the vault process whether it is unlocked.
const TICK: Duration = Duration::from_millis(200);

/// The vault window as `headed` holds it: opened by the Vault button, driven by the runner.
pub struct VaultWindows {
    glue: Rc<RefCell<Glue>>,
}

impl VaultWindows {
    /// For the profile's vault; `waker` redraws the window when work done elsewhere lands.
    pub fn new(wiring: Arc<VaultWiring>, waker: UiWaker) -> VaultWindows {
        let waker = std::sync::Mutex::new(waker);
        let repaint: Repaint =
            Arc::new(move || waker.lock().unwrap_or_else(|e| e.into_inner()).request_repaint());
        VaultWindows {
            glue: Rc::new(RefCell::new(Glue::new(wiring, repaint))),
        }
    }

    /// The Vault button: opens the window, or raises it when it is open.
    pub fn open(&self) {
        let mut g = self.glue.borrow_mut();
        match g.window {
            Shown::Closed => g.window = Shown::Requested,
            Shown::Requested => {}
            Shown::Open => {
                g.raise = true;
                (g.repaint)();
            }
        }
    }

    /// Called on every turn of the event loop ([`aperture_ui::Host::take_window_requests`]):
    /// runs the idle lock and lands finished work, and hands the runner the window to open.
    pub fn take_window_requests(&self) -> Vec<(WindowSpec, Box<dyn WindowUi>)> {
        let mut g = self.glue.borrow_mut();
        g.tick();
        if g.window != Shown::Requested {
            return Vec::new();
        }
        g.window = Shown::Open;
        g.ui = Some(VaultWindow::new());
        g.last_use = Instant::now();
        vec![(
            WindowSpec {
                title: TITLE.into(),
                width: 860,
                height: 580,
            },
            Box::new(VaultUi(self.glue.clone())),
        )]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Closed,
    Requested,
    Open,
}

/// Work off the UI thread (Argon2id takes about half a second; calibrating it, longer).
struct Job {
    busy: &'static str,
    /// `Ok(true)`: a vault was created.
    rx: mpsc::Receiver<Result<bool, String>>,
}

/// Redraws the window (from any thread).
type Repaint = Arc<dyn Fn() + Send + Sync>;

struct Glue {
    wiring: Arc<VaultWiring>,
    repaint: Repaint,
    /// What one "minute" of the auto-lock setting lasts (shorter in tests).
    minute: Duration,
    window: Shown,
    raise: bool,
    /// The UI's state while the window is open (dropped with it: nothing typed survives).
    ui: Option<VaultWindow>,
    job: Option<Job>,
    /// The last deleted entry, for Undo.
    undo: Option<RemoteDeleted>,
    /// An export the vault process parsed and holds until confirmed.
    import: Option<remote::ImportPreview>,
    error: Option<String>,
    notice: Option<String>,
    last_use: Instant,
    /// When `tick` last asked the vault process.
    last_tick: Instant,
    auto_lock_minutes: u32,
    clipboard: ClipboardClearer,
    /// The state last shown, shown again while work holds the vault.
    shown_state: VaultState,
}

struct VaultUi(Rc<RefCell<Glue>>);

impl WindowUi for VaultUi {
    fn ui(&mut self, ui: &mut egui::Ui) {
        self.0.borrow_mut().frame(ui);
    }

    fn closed(&mut self) {
        self.0.borrow_mut().window_closed();
    }
}

impl Drop for VaultUi {
    // Also when the runner could not open the window at all: the next click tries again.
    fn drop(&mut self) {
        if let Ok(mut g) = self.0.try_borrow_mut() {
            g.window_closed();
        }
    }
}

fn settings_path(profile: &Path) -> PathBuf {
    profile.join(SETTINGS_FILE)
}

fn load_auto_lock(profile: &Path) -> u32 {
    std::fs::read(settings_path(profile))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("auto_lock_minutes")?.as_u64())
        .and_then(|m| u32::try_from(m).ok())
        .filter(|m| *m >= 1)
        .unwrap_or(DEFAULT_AUTO_LOCK_MINUTES)
}

/// A web address as the human types it: a bare host is taken as `https://`.
fn parse_origin(typed: &str) -> Result<Origin, String> {
    let t = typed.trim();
    Origin::parse(t)
        .or_else(|e| {
            if t.contains("://") {
                Err(e)
            } else {
                Origin::parse(&format!("https://{t}"))
            }
        })
        .map_err(|_| format!("“{t}” is not a web address (http or https)."))
}

fn parse_totp(seed: &str) -> Result<Totp, String> {
    let s = seed.trim();
    if s.to_ascii_lowercase().starts_with("otpauth://") {
        Totp::from_uri(s)
    } else {
        Totp::from_base32(s)
    }
    .map_err(|e| format!("The two-factor seed is not usable: {e}."))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Glue {
    fn new(wiring: Arc<VaultWiring>, repaint: Repaint) -> Glue {
        let auto_lock_minutes = load_auto_lock(wiring.profile());
        Glue {
            wiring,
            repaint,
            minute: Duration::from_secs(60),
            window: Shown::Closed,
            raise: false,
            ui: None,
            job: None,
            undo: None,
            import: None,
            error: None,
            notice: None,
            last_use: Instant::now(),
            last_tick: Instant::now() - TICK,
            auto_lock_minutes,
            clipboard: ClipboardClearer::new(CLIPBOARD_CLEAR_AFTER),
            shown_state: VaultState::NoVault,
        }
    }

    fn window_closed(&mut self) {
        self.window = Shown::Closed;
        self.ui = None;
        self.raise = false;
    }

    fn vault(&self) -> &Arc<RemoteVault> {
        self.wiring.remote()
    }

    /// Once per loop turn, window open or not.
    fn tick(&mut self) {
        self.poll_job();
        if self.job.is_some() {
            // An unlock holds the vault's lock for the whole key derivation: asking the vault
            // anything now would stall this (CEF's) thread until it is done.
            return;
        }
        // Asked at most a few times a second: each is a round trip to the vault process.
        if self.last_tick.elapsed() < TICK {
            return;
        }
        self.last_tick = Instant::now();
        let v = self.vault().clone();
        if !v.is_unlocked() {
            // Locked by any path: what the window kept of the contents goes too.
            self.undo = None;
            self.import = None;
            return;
        }
        let idle = self.minute * self.auto_lock_minutes;
        if self.job.is_none() && self.last_use.elapsed() >= idle {
            let _ = v.lock();
            self.undo = None;
            self.import = None;
            self.error = None;
            self.notice = Some(format!(
                "Locked after {} without use.",
                plural(self.auto_lock_minutes as usize, "minute", "minutes")
            ));
            tracing::info!("vault locked after {} idle minutes", self.auto_lock_minutes);
            (self.repaint)();
        }
    }

    fn poll_job(&mut self) {
        let Some(job) = &self.job else { return };
        let got = match job.rx.try_recv() {
            Ok(r) => r,
            Err(mpsc::TryRecvError::Empty) => return,
            Err(mpsc::TryRecvError::Disconnected) => Err("the vault's worker stopped unexpectedly".into()),
        };
        self.job = None;
        self.last_use = Instant::now();
        match got {
            Ok(created) => {
                if created {
                    self.notice =
                        Some("Vault created. Add logins, or import a browser's export (Import…).".into());
                } else {
                    self.notice = None;
                }
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
        (self.repaint)();
    }

    fn state(&self) -> (VaultState, Option<Arc<RemoteVault>>, Option<String>) {
        let v = self.vault().clone();
        match v.status() {
            Ok((false, _)) => (VaultState::NoVault, None, None),
            Ok((true, true)) => (VaultState::Unlocked, Some(v), None),
            Ok((true, false)) => (VaultState::Locked, Some(v), None),
            Err(RemoteError::Gone) => (
                VaultState::Locked,
                Some(v),
                Some("The vault's process stopped and was restarted; the vault is locked.".into()),
            ),
            Err(e) => (
                VaultState::Locked,
                None,
                Some(crate::vault::explain_remote(e, self.wiring.profile()).to_string()),
            ),
        }
    }

    /// What the window shows. `profiles_open`: the profiles dialog was drawn last frame, the
    /// only place profile facts are shown, so only then are they asked of the vault process.
    fn view(&mut self, selected: Option<&str>, profiles_open: bool) -> (VaultView, Option<Arc<RemoteVault>>) {
        if let Some(job) = &self.job {
            // Not the vault itself while an unlock holds it (see `tick`): what was shown.
            let view = VaultView {
                state: self.shown_state,
                location: self.wiring.path().display().to_string(),
                busy: Some(job.busy.to_string()),
                auto_lock_minutes: self.auto_lock_minutes,
                ..Default::default()
            };
            return (view, None);
        }
        let (state, vault, file_error) = self.state();
        self.shown_state = state;
        let mut view = VaultView {
            state,
            location: self.wiring.path().display().to_string(),
            error: self.error.clone().or(file_error),
            notice: self.notice.clone(),
            busy: self.job.as_ref().map(|j| j.busy.to_string()),
            undo: self.undo.as_ref().map(|d| d.label().to_string()),
            auto_lock_minutes: self.auto_lock_minutes,
            import: self.import.as_ref().map(|i| ImportPreview {
                format: i.format.clone(),
                ready: i.ready,
                problems: i.problems.clone(),
            }),
            ..Default::default()
        };
        if let (VaultState::Unlocked, Some(v)) = (state, &vault) {
            let entries = v.entries().unwrap_or_default();
            if let Some(sel) = selected
                && let Some(e) = entries.iter().find(|e| e.id.as_str() == sel && e.has_totp)
                && let Ok((code, remaining)) = v.totp_now(&e.id)
            {
                view.totp = Some(TotpView {
                    entry: sel.to_string(),
                    code,
                    remaining,
                    period: e.totp_period.unwrap_or(30),
                });
            }
            view.entries = entries
                .into_iter()
                .map(|e| EntryView {
                    id: e.id.to_string(),
                    site: e.site,
                    origin: e.origin,
                    label: e.label,
                    username: e.username,
                    has_totp: e.has_totp,
                })
                .collect();
            view.profile_fields = aperture_vault::HUMAN_FIELDS
                .iter()
                .map(|(f, label)| (f.as_str().to_string(), label.to_string()))
                .collect();
            view.profiles = v
                .profiles()
                .unwrap_or_default()
                .into_iter()
                .map(|p| match v.profile(&p.name) {
                    Ok(p) if profiles_open => ProfileView {
                        values: p
                            .values_for_human()
                            .into_iter()
                            .map(|(f, value)| (f.as_str().to_string(), value))
                            .collect(),
                        name: p.name,
                    },
                    _ => ProfileView {
                        name: p.name,
                        values: Vec::new(),
                    },
                })
                .collect();
            view.attachments = v
                .attachments()
                .unwrap_or_default()
                .into_iter()
                .map(|a| AttachmentView {
                    id: a.id.to_string(),
                    label: a.label,
                    file_name: a.file_name,
                    size: a.size,
                })
                .collect();
        }
        (view, vault)
    }

    fn frame(&mut self, ui: &mut egui::Ui) {
        let used = ui.input(|i| {
            i.events.iter().any(|e| {
                matches!(
                    e,
                    egui::Event::Key { .. }
                        | egui::Event::Text(_)
                        | egui::Event::Paste(_)
                        | egui::Event::PointerButton { .. }
                        | egui::Event::PointerMoved(_)
                        | egui::Event::MouseWheel { .. }
                )
            })
        });
        if used {
            self.last_use = Instant::now();
        }
        self.poll_job();
        if std::mem::take(&mut self.raise) {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Focus);
        }
        let Some(mut w) = self.ui.take() else { return };
        let profiles_open = w
            .control_rect(aperture_ui::vault_window::controls::PROFILES_CLOSE)
            .is_some();
        let (view, vault) = self.view(w.selected(), profiles_open);
        let commands = w.show(ui, &view);
        let any = !commands.is_empty();
        for c in commands {
            self.apply(c, &mut w, vault.as_ref(), ui.ctx());
        }
        self.ui = Some(w);
        if any {
            self.last_use = Instant::now();
            ui.ctx().request_repaint();
        }
        if self.job.is_some() {
            ui.ctx().request_repaint_after(Duration::from_millis(100));
        }
    }

    fn start(&mut self, busy: &'static str, work: impl FnOnce() -> Result<bool, String> + Send + 'static) {
        let (tx, rx) = mpsc::channel();
        let repaint = self.repaint.clone();
        let spawned = std::thread::Builder::new()
            .name("vault-unlock".into())
            .spawn(move || {
                let _ = tx.send(work());
                repaint();
            });
        match spawned {
            Ok(_) => {
                self.error = None;
                self.notice = None;
                self.job = Some(Job { busy, rx });
            }
            Err(e) => self.error = Some(format!("could not start the vault's worker: {e}")),
        }
    }

    fn apply(
        &mut self,
        c: VaultCommand,
        w: &mut VaultWindow,
        vault: Option<&Arc<RemoteVault>>,
        ctx: &egui::Context,
    ) {
        if self.job.is_some() {
            // The UI disables its inputs while busy; a command racing that is dropped.
            return;
        }
        match c {
            VaultCommand::Create { passphrase } => {
                let (profile, path) = (self.wiring.profile().to_owned(), self.wiring.path().to_owned());
                let v = self.vault().clone();
                self.start(
                    "Creating the vault (tuning the key derivation to this computer)…",
                    move || {
                        aperture_common::fs::create_private_dir_all(&profile)
                            .map_err(|e| format!("could not create {}: {e}", profile.display()))?;
                        // The vault process creates it and keeps the key.
                        v.create(passphrase.expose(), KdfChoice::Calibrate)
                            .map(|()| true)
                            .map_err(|e| match e {
                                RemoteError::AlreadyExists => format!(
                                    "A vault already exists at {}; unlock it instead.",
                                    path.display()
                                ),
                                other => format!("The vault was not created: {other}"),
                            })
                    },
                );
            }
            VaultCommand::Unlock { passphrase } => {
                let profile = self.wiring.profile().to_owned();
                let v = self.vault().clone();
                self.start("Unlocking…", move || {
                    // Sent to the vault process, which derives and keeps the key.
                    v.unlock(passphrase.expose())
                        .map(|()| false)
                        .map_err(|e| match e {
                            RemoteError::NoVault => "There is no vault to unlock.".to_string(),
                            RemoteError::WrongPassphrase => {
                                "Wrong passphrase. Nothing was changed; type it again.".to_string()
                            }
                            e @ RemoteError::RolledBack(_) => {
                                crate::vault::explain_remote(e, &profile).to_string()
                            }
                            other => format!("The vault could not be unlocked: {other}"),
                        })
                });
            }
            VaultCommand::Lock => {
                if let Some(v) = vault {
                    let _ = v.lock();
                }
                self.undo = None;
                self.import = None;
                self.error = None;
                self.notice = Some("Locked.".into());
            }
            VaultCommand::Dismiss => {
                self.error = None;
                self.notice = None;
            }
            VaultCommand::SetAutoLock { minutes } => {
                self.auto_lock_minutes = minutes.max(1);
                let body = serde_json::json!({ "auto_lock_minutes": self.auto_lock_minutes }).to_string();
                let path = settings_path(self.wiring.profile());
                if let Err(e) = aperture_common::fs::write_atomic(&path, body.as_bytes()) {
                    self.error = Some(format!("The auto-lock time could not be saved: {e}"));
                }
            }
            other => {
                let Some(v) = vault.filter(|v| v.is_unlocked()).cloned() else {
                    self.error = Some("The vault is locked.".into());
                    return;
                };
                self.apply_unlocked(other, w, &v, ctx);
            }
        }
    }

    fn apply_unlocked(&mut self, c: VaultCommand, w: &mut VaultWindow, v: &RemoteVault, ctx: &egui::Context) {
        let id_of = |s: &str| EntryId::parse(s).ok_or(RemoteError::NotFound);
        match c {
            VaultCommand::Add(form) => match self.add(v, form) {
                Ok((id, label)) => {
                    w.form_saved(Some(id.as_str()));
                    self.notice = Some(format!("Saved “{label}”."));
                    self.error = None;
                }
                Err(e) => w.form_failed(e),
            },
            VaultCommand::Update { id, form } => match self.update(v, &id, form) {
                Ok(label) => {
                    w.form_saved(Some(&id));
                    self.notice = Some(format!("Saved “{label}”."));
                    self.error = None;
                }
                Err(e) => w.form_failed(e),
            },
            VaultCommand::Delete { id } => match id_of(&id).and_then(|id| v.take_entry(&id)) {
                Ok(d) => {
                    self.notice = None;
                    self.undo = Some(d);
                }
                Err(e) => self.error = Some(format!("Not deleted: {e}")),
            },
            VaultCommand::SaveProfile { name, values } => {
                let mut p = aperture_vault::Profile::new(name.clone());
                let mut bad = None;
                for (key, value) in &values {
                    match serde_json::from_value::<aperture_vault::ProfileField>(serde_json::Value::String(
                        key.clone(),
                    )) {
                        Ok(f) => p.set(f, value),
                        Err(_) => bad = Some(key.clone()),
                    }
                }
                match bad {
                    Some(k) => self.error = Some(format!("Not saved: unknown fact {k}")),
                    None => match v.put_profile(p) {
                        Ok(()) => {
                            self.error = None;
                            self.notice = Some(format!("Profile “{name}” saved."));
                        }
                        Err(e) => self.error = Some(format!("Not saved: {e}")),
                    },
                }
            }
            VaultCommand::DeleteProfile { name } => match v.delete_profile(&name) {
                Ok(()) => self.notice = Some(format!("Profile “{name}” deleted.")),
                Err(e) => self.error = Some(format!("Not deleted: {e}")),
            },
            VaultCommand::AddAttachment { path, label } => {
                match v.add_attachment(&path, &label, crate::vault::media_type_of(&path)) {
                    Ok(_) => {
                        self.error = None;
                        self.notice = Some(format!("“{label}” is in the vault's files."));
                    }
                    Err(e) => self.error = Some(format!("Not added ({}): {e}", path.display())),
                }
            }
            VaultCommand::RemoveAttachment { id } => {
                match aperture_vault::AttachmentId::parse(&id)
                    .ok_or(RemoteError::NotFound)
                    .and_then(|a| v.remove_attachment(&a))
                {
                    Ok(()) => self.notice = Some("File removed.".into()),
                    Err(e) => self.error = Some(format!("Not removed: {e}")),
                }
            }
            VaultCommand::Undo => {
                if let Some(d) = self.undo.take() {
                    let label = d.label().to_string();
                    match v.restore_entry(d) {
                        Ok(_) => self.notice = Some(format!("“{label}” is back.")),
                        Err(e) => self.error = Some(format!("Could not undo: {e}")),
                    }
                }
            }
            VaultCommand::Reveal { id } => match id_of(&id).and_then(|eid| v.password_for_human(&eid)) {
                Ok(p) => w.reveal(&id, Secret::new(p.as_str())),
                Err(e) => self.error = Some(format!("Cannot show it: {e}")),
            },
            VaultCommand::CopyUsername { id } => {
                // The list has it already; no password is asked for.
                let r = id_of(&id).and_then(|eid| {
                    v.entries()?
                        .into_iter()
                        .find(|e| e.id == eid)
                        .map(|e| Secret::new(e.username))
                        .ok_or(RemoteError::NotFound)
                });
                self.copy(w, ctx, r, "Username");
            }
            VaultCommand::CopyPassword { id } => {
                let r = id_of(&id).and_then(|eid| v.password_for_human(&eid));
                self.copy(w, ctx, r.map(|p| Secret::new(p.as_str())), "Password");
            }
            VaultCommand::CopyTotp { id } => {
                let r = id_of(&id).and_then(|eid| v.totp_now(&eid));
                self.copy(w, ctx, r.map(|(code, _)| Secret::new(code)), "Code");
            }
            VaultCommand::Generate(o) => match v.generate_for_human(&policy(o)) {
                Ok(g) => w.set_generated(Secret::new(g.password()), g.entropy_bits()),
                Err(e) => w.form_failed(format!("No password generated: {e}.")),
            },
            // The vault process reads and parses the export: its passwords never enter this one.
            VaultCommand::PreviewImport { path } => match v.preview_import(&path) {
                Ok(i) => {
                    self.error = None;
                    self.import = Some(i);
                }
                Err(e) => {
                    self.import = None;
                    self.error = Some(e.to_string());
                }
            },
            VaultCommand::ConfirmImport => {
                if let Some(i) = self.import.take() {
                    let skipped = i.problems.len();
                    match v.confirm_import() {
                        Ok(o) => {
                            let mut n = format!("Imported {}", plural(o.added, "login", "logins"));
                            if o.duplicates > 0 {
                                n.push_str(&format!(" ({} already saved)", o.duplicates));
                            }
                            if skipped > 0 {
                                n.push_str(&format!("; {} not imported", plural(skipped, "row", "rows")));
                            }
                            n.push_str(". The export file holds your passwords in plain text: delete it.");
                            self.notice = Some(n);
                            self.error = None;
                        }
                        Err(e) => self.error = Some(format!("Nothing was imported: {e}")),
                    }
                }
            }
            VaultCommand::CancelImport => {
                self.import = None;
                let _ = v.cancel_import();
            }
            // Handled in `apply`.
            VaultCommand::Create { .. }
            | VaultCommand::Unlock { .. }
            | VaultCommand::Lock
            | VaultCommand::Dismiss
            | VaultCommand::SetAutoLock { .. } => {}
        }
    }

    fn copy(
        &mut self,
        w: &mut VaultWindow,
        ctx: &egui::Context,
        text: Result<Secret, RemoteError>,
        what: &str,
    ) {
        match text {
            Ok(s) if s.is_empty() => self.error = Some(format!("{what}: nothing saved to copy.")),
            Ok(s) => {
                w.copy(ctx, &s);
                self.clipboard.copied(s);
                self.error = None;
                self.notice = Some(format!(
                    "{what} copied. The clipboard is cleared in {} s.",
                    CLIPBOARD_CLEAR_AFTER.as_secs()
                ));
            }
            Err(e) => self.error = Some(format!("{what} not copied: {e}")),
        }
    }

    fn add(&self, v: &RemoteVault, form: EntryForm) -> Result<(EntryId, String), String> {
        let origin = parse_origin(&form.url)?;
        let totp = match &form.totp {
            TotpChange::Set(s) => Some(parse_totp(s.expose())?),
            TotpChange::Keep | TotpChange::Remove => None,
        };
        let password = form
            .password
            .as_ref()
            .ok_or("Type a password, or Generate one.")?;
        let label = if form.label.is_empty() {
            origin.host().to_string()
        } else {
            form.label.clone()
        };
        let id = v
            .add_entry(NewEntry {
                origin: &origin,
                label: &label,
                username: &form.username,
                password: SecretString::new(password.expose()),
                totp,
            })
            .map_err(|e| format!("Not saved: {e}"))?;
        Ok((id, label))
    }

    fn update(&self, v: &RemoteVault, id: &str, form: EntryForm) -> Result<String, String> {
        let id = EntryId::parse(id).ok_or("That login is gone.")?;
        let origin = parse_origin(&form.url)?;
        let totp = match &form.totp {
            TotpChange::Keep => remote::TotpChange::Keep,
            TotpChange::Remove => remote::TotpChange::Remove,
            TotpChange::Set(s) => remote::TotpChange::Set(parse_totp(s.expose())?),
        };
        let label = if form.label.is_empty() {
            origin.host().to_string()
        } else {
            form.label.clone()
        };
        v.update_entry(
            &id,
            &origin,
            &label,
            &form.username,
            form.password.as_ref().map(|p| SecretString::new(p.expose())),
            totp,
        )
        .map_err(|e| format!("Not saved: {e}"))?;
        Ok(label)
    }
}

fn policy(o: GeneratorOptions) -> PasswordPolicy {
    PasswordPolicy {
        length: o.length,
        lowercase: o.lowercase,
        uppercase: o.uppercase,
        digits: o.digits,
        symbols: o.symbols,
        avoid_ambiguous: o.avoid_ambiguous,
        require_each_class: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aperture_ui::egui::{Event, Modifiers, PointerButton, Pos2, RawInput, Rect, vec2};
    use aperture_ui::vault_window::{controls, entry_control};
    use aperture_vault::{KdfParams, Vault};

    const PASS: &str = "correct horse battery";

    /// The glue with its window open, driven frame by frame like the runner does.
    struct T {
        ctx: egui::Context,
        glue: Glue,
        wiring: Arc<VaultWiring>,
        time: f64,
        copied: Vec<String>,
        texts: Vec<String>,
        _dir: tempfile::TempDir,
    }

    fn collect(shape: &egui::Shape, out: &mut Vec<String>) {
        match shape {
            egui::Shape::Text(t) => out.push(t.galley.text().to_string()),
            egui::Shape::Vec(v) => v.iter().for_each(|s| collect(s, out)),
            _ => {}
        }
    }

    impl T {
        /// A profile with no vault, or with one made here (cheap KDF) and left locked.
        fn new(with_vault: bool) -> T {
            let dir = tempfile::tempdir().unwrap();
            if with_vault {
                let v = Vault::create_with_params(
                    crate::vault::vault_path(dir.path()),
                    PASS,
                    KdfParams::insecure_fast_for_tests(),
                )
                .unwrap();
                let o = Origin::parse("https://accounts.example.com/login").unwrap();
                v.add_entry(NewEntry {
                    origin: &o,
                    label: "Work",
                    username: "ada",
                    password: "pw-work-1".into(),
                    totp: Some(Totp::from_base32("JBSWY3DPEHPK3PXP").unwrap()),
                })
                .unwrap();
            }
            let wiring = VaultWiring::served_in_thread(dir.path());
            let mut glue = Glue::new(wiring.clone(), Arc::new(|| {}));
            glue.window = Shown::Open;
            glue.ui = Some(VaultWindow::new());
            let mut t = T {
                ctx: egui::Context::default(),
                glue,
                wiring,
                time: 0.0,
                copied: Vec::new(),
                texts: Vec::new(),
                _dir: dir,
            };
            t.frame(vec![]);
            t.frame(vec![]);
            t
        }

        fn vault(&self) -> Arc<RemoteVault> {
            self.wiring.remote().clone()
        }

        fn frame(&mut self, events: Vec<Event>) {
            self.time += 0.1;
            let raw = RawInput {
                screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(860.0, 580.0))),
                time: Some(self.time),
                events,
                ..Default::default()
            };
            let glue = &mut self.glue;
            let mut out = self.ctx.run_ui(raw, |ui| glue.frame(ui));
            out.textures_delta.clear();
            for c in &out.platform_output.commands {
                if let egui::OutputCommand::CopyText(t) = c {
                    self.copied.push(t.clone());
                }
            }
            self.texts.clear();
            for s in &out.shapes {
                collect(&s.shape, &mut self.texts);
            }
        }

        fn shows(&self, needle: &str) -> bool {
            self.texts.iter().any(|t| t.contains(needle))
        }

        fn click(&mut self, name: &str) {
            // A dialog that just changed size is re-centred on the next frame.
            self.frame(vec![]);
            let pos = self
                .glue
                .ui
                .as_ref()
                .and_then(|w| w.control_rect(name))
                .unwrap_or_else(|| panic!("no control {name}: {:?}", self.texts))
                .center();
            self.frame(vec![Event::PointerMoved(pos)]);
            for pressed in [true, false] {
                self.frame(vec![Event::PointerButton {
                    pos,
                    button: PointerButton::Primary,
                    pressed,
                    modifiers: Modifiers::NONE,
                }]);
            }
            self.frame(vec![]);
        }

        fn type_into(&mut self, name: &str, text: &str) {
            self.click(name);
            self.frame(vec![Event::Text(text.into())]);
        }

        /// Frames until the worker's result has landed.
        fn finish_job(&mut self) {
            let end = Instant::now() + Duration::from_secs(120);
            while self.glue.job.is_some() {
                assert!(Instant::now() < end, "the vault worker never finished");
                std::thread::sleep(Duration::from_millis(20));
                self.frame(vec![]);
            }
            self.frame(vec![]);
            self.frame(vec![]);
        }

        fn unlock(&mut self, pass: &str) {
            self.type_into(controls::PASSPHRASE, pass);
            self.click(controls::UNLOCK);
            self.finish_job();
        }

        fn select(&mut self, label: &str) -> EntryId {
            let id = self
                .vault()
                .entries()
                .unwrap()
                .into_iter()
                .find(|e| e.label == label)
                .unwrap_or_else(|| panic!("no entry {label}"))
                .id;
            self.click(&entry_control(id.as_str()));
            id
        }
    }

    fn agent_labels(v: &RemoteVault, url: &str) -> Vec<String> {
        v.entries_for_origin(&Origin::parse(url).unwrap())
            .unwrap()
            .into_iter()
            .map(|e| e.label)
            .collect()
    }

    #[test]
    fn first_use_creates_the_vault_and_the_fill_path_sees_what_is_added() {
        let mut t = T::new(false);
        assert!(t.shows("Create your vault"), "{:?}", t.texts);
        assert!(!t.wiring.path().exists());
        t.type_into(controls::PASSPHRASE, PASS);
        t.type_into(controls::PASSPHRASE_AGAIN, PASS);
        t.click(controls::CREATE);
        assert!(t.glue.job.is_some(), "created off the UI thread");
        t.finish_job();
        assert!(t.shows("Vault created"), "{:?}", t.texts);
        let path = t.wiring.path().to_owned();
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let v = t.vault();
        assert!(v.is_unlocked());

        t.click(controls::ADD);
        t.type_into(controls::FORM_URL, "shop.example.net/signin");
        t.type_into(controls::FORM_USERNAME, "ada@example.net");
        t.type_into(controls::FORM_PASSWORD, "pw-shop-9");
        t.click(controls::SAVE);
        assert!(t.shows("Saved “shop.example.net”"), "{:?}", t.texts);
        // The agent's side of the same vault lists it for the site, at once.
        assert_eq!(agent_labels(&v, "https://www.example.net/"), ["shop.example.net"]);
        // And it is on disk: the passphrase typed in the window opens the file.
        let again = Vault::open_unlocked(&path, PASS).unwrap();
        assert_eq!(again.entries().unwrap().len(), 1);
    }

    #[test]
    fn a_wrong_passphrase_says_so_and_changes_nothing() {
        let mut t = T::new(true);
        assert!(t.shows("The vault is locked"));
        let before = std::fs::read(t.wiring.path()).unwrap();
        t.unlock("correct horse batterY");
        assert!(t.shows("Wrong passphrase"), "{:?}", t.texts);
        assert!(!t.vault().is_unlocked());
        assert_eq!(
            std::fs::read(t.wiring.path()).unwrap(),
            before,
            "the file was written"
        );
        t.unlock(PASS);
        assert!(t.vault().is_unlocked());
        assert!(t.shows("Work — ada"), "{:?}", t.texts);
        assert!(!t.shows("Wrong passphrase"));
    }

    #[test]
    fn unlocking_does_not_stall_the_window() {
        let mut t = T::new(false);
        // A vault with the real, calibrated key derivation (about half a second per unlock).
        Vault::create(t.wiring.path(), PASS).unwrap();
        t.frame(vec![]);
        t.frame(vec![]);
        assert!(t.shows("The vault is locked"), "{:?}", t.texts);
        // A turn of the window that asked the vault during the unlock would wait on it until
        // the key derivation is done, so most of the unlock. Compared with the unlock's own
        // length on the same machine under the same load, not with a fixed bound that a slow
        // machine breaks: the vault is asked at most every TICK, so a stall is well over a third.
        t.type_into(controls::PASSPHRASE, PASS);
        let clicked = Instant::now();
        t.click(controls::UNLOCK);
        assert!(t.glue.job.is_some(), "unlocking off the UI thread");
        let mut busy_turns = 0;
        let mut slowest = Duration::ZERO;
        while t.glue.job.is_some() {
            assert!(
                clicked.elapsed() < Duration::from_secs(120),
                "the unlock never finished"
            );
            let start = Instant::now();
            t.frame(vec![]);
            t.glue.tick();
            slowest = slowest.max(start.elapsed());
            busy_turns += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
        let unlock = clicked.elapsed();
        assert!(
            busy_turns >= 3,
            "the unlock was not off the UI thread ({busy_turns} turns)"
        );
        assert!(
            slowest < unlock / 3,
            "a turn of the window took {slowest:?} of the {unlock:?} unlock"
        );
        t.frame(vec![]);
        assert!(t.vault().is_unlocked());
    }

    #[test]
    fn lock_on_demand_and_after_the_idle_time() {
        let mut t = T::new(true);
        // Idle time is simulated by moving `last_use` back (and `last_tick`, so the tick asks
        // at once). The idle limit is far longer than any stall a loaded machine puts between
        // one step and the next, so only the simulated idle time can reach it.
        t.glue.minute = Duration::from_secs(60);
        t.glue.auto_lock_minutes = 1;
        let idle_for = |t: &mut T, d: Duration| {
            t.glue.last_use = Instant::now() - d;
            t.glue.last_tick = Instant::now() - TICK;
        };
        let past_the_limit = Duration::from_secs(61);
        t.unlock(PASS);
        t.click(controls::LOCK);
        assert!(!t.vault().is_unlocked());
        assert!(t.shows("The vault is locked"));
        // The agent is refused while locked.
        assert!(
            t.vault()
                .entries_for_origin(&Origin::parse("https://example.com").unwrap())
                .is_err()
        );

        t.unlock(PASS);
        // Use keeps it open: each move of the mouse over the window counts, however long the
        // window sat unused before it.
        for _ in 0..5 {
            idle_for(&mut t, past_the_limit);
            t.frame(vec![Event::PointerMoved(Pos2::new(200.0, 200.0 + t.time as f32))]);
            t.glue.last_tick = Instant::now() - TICK;
            t.glue.tick();
            assert!(t.vault().is_unlocked(), "locked while in use");
        }
        // Just short of the limit without input: still open.
        idle_for(&mut t, Duration::from_secs(50));
        t.glue.tick();
        assert!(t.vault().is_unlocked(), "locked before the idle time");
        // Then past it with no input: locked by the tick, window open or not.
        t.glue.window_closed();
        idle_for(&mut t, past_the_limit);
        t.glue.tick();
        assert!(!t.vault().is_unlocked());
        assert_eq!(
            t.glue.notice.as_deref(),
            Some("Locked after 1 minute without use.")
        );
    }

    #[test]
    fn the_auto_lock_choice_is_saved_in_the_profile() {
        let mut t = T::new(true);
        t.unlock(PASS);
        t.glue.apply(
            VaultCommand::SetAutoLock { minutes: 25 },
            &mut VaultWindow::new(),
            Some(&t.vault()),
            &t.ctx.clone(),
        );
        assert_eq!(load_auto_lock(t.wiring.profile()), 25);
        let g = Glue::new(t.wiring.clone(), Arc::new(|| {}));
        assert_eq!(g.auto_lock_minutes, 25);
    }

    #[test]
    fn reveal_copy_and_the_live_code() {
        let mut t = T::new(true);
        t.unlock(PASS);
        let id = t.select("Work");
        let (code, _) = t.vault().totp_now(&id).unwrap();
        assert!(
            t.shows(&code[..3]) && t.shows(&code[3..]),
            "{code} in {:?}",
            t.texts
        );
        assert!(!t.shows("pw-work-1"));
        t.click(controls::REVEAL);
        assert!(t.shows("pw-work-1"), "{:?}", t.texts);
        t.click(controls::COPY_PASSWORD);
        t.click(controls::COPY_USERNAME);
        t.click(controls::COPY_TOTP);
        assert_eq!(t.copied[..2], ["pw-work-1".to_string(), "ada".to_string()]);
        assert_eq!(t.copied[2].len(), 6);
        assert!(t.shows("The clipboard is cleared in 30 s"), "{:?}", t.texts);
    }

    #[test]
    fn edit_delete_and_undo() {
        let mut t = T::new(true);
        t.unlock(PASS);
        let id = t.select("Work");
        t.click(controls::EDIT);
        t.type_into(controls::FORM_USERNAME, "-renamed");
        t.click(controls::FORM_TOTP_REMOVE);
        t.click(controls::SAVE);
        let e = t.vault().entries().unwrap().remove(0);
        assert_eq!((e.username.as_str(), e.has_totp), ("ada-renamed", false));
        assert_eq!(
            t.vault().password_for_human(&id).unwrap().as_str(),
            "pw-work-1",
            "kept"
        );

        t.select("Work");
        t.click(controls::DELETE);
        assert!(t.vault().entries().unwrap().is_empty());
        assert!(agent_labels(&t.vault(), "https://example.com").is_empty());
        assert!(t.shows("Deleted “Work”."), "{:?}", t.texts);
        t.click(controls::UNDO);
        let back = t.vault().entries().unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].id, id, "the same entry, same id");
        assert_eq!(t.vault().password_for_human(&id).unwrap().as_str(), "pw-work-1");
        assert_eq!(agent_labels(&t.vault(), "https://example.com"), ["Work"]);
        // Undo of a delete does not survive a lock.
        t.select("Work");
        t.click(controls::DELETE);
        t.click(controls::LOCK);
        assert!(t.glue.undo.is_none());
    }

    #[test]
    fn generate_a_password_for_a_new_login() {
        let mut t = T::new(true);
        t.unlock(PASS);
        t.click(controls::ADD);
        t.type_into(controls::FORM_URL, "https://new.example.org");
        t.click(controls::GENERATE);
        assert!(t.shows("bits of randomness"), "{:?}", t.texts);
        t.click(controls::SAVE);
        let e = t
            .vault()
            .entries()
            .unwrap()
            .into_iter()
            .find(|e| e.site == "https://example.org")
            .unwrap();
        let pw = t.vault().password_for_human(&e.id).unwrap().as_str().to_string();
        assert_eq!(pw.chars().count(), 20);
        assert!(pw.chars().any(|c| c.is_ascii_digit()) && pw.chars().any(|c| c.is_ascii_uppercase()));
    }

    #[test]
    fn import_previews_then_saves_all_ready_rows_at_once() {
        let mut t = T::new(true);
        t.unlock(PASS);
        let csv = t._dir.path().join("export.csv");
        std::fs::write(
            &csv,
            "name,url,username,password\n\
             Mail,https://mail.example.org/,ada,pw-mail\n\
             Broken,,bob,pw-x\n\
             Shop,https://shop.example.net/,carol,pw-shop\n",
        )
        .unwrap();
        let path = t.wiring.path().to_owned();
        let generation = || Vault::open_unlocked(&path, PASS).unwrap().generation().unwrap();
        let g0 = generation();
        t.click(controls::IMPORT);
        t.type_into(controls::IMPORT_PATH, csv.to_str().unwrap());
        t.click(controls::IMPORT_PREVIEW);
        assert!(t.shows("Chrome export: 2 logins ready"), "{:?}", t.texts);
        assert!(t.shows("line 3: has no web address"));
        assert_eq!(
            t.vault().entries().unwrap().len(),
            1,
            "nothing saved by a preview"
        );
        t.click(controls::IMPORT_OK);
        assert_eq!(t.vault().entries().unwrap().len(), 3);
        assert_eq!(generation(), g0 + 1, "one write");
        assert!(t.shows("Imported 2 logins; 1 row not imported"), "{:?}", t.texts);
        assert_eq!(agent_labels(&t.vault(), "https://www.example.net"), ["Shop"]);

        // A file that is not an export: an error, nothing changes.
        std::fs::write(&csv, "hello,world\n1,2\n").unwrap();
        t.click(controls::IMPORT);
        t.type_into(controls::IMPORT_PATH, csv.to_str().unwrap());
        t.click(controls::IMPORT_PREVIEW);
        assert!(
            t.shows("not a Chrome, Firefox or Bitwarden password export"),
            "{:?}",
            t.texts
        );
        assert_eq!(t.vault().entries().unwrap().len(), 3);
    }

    #[test]
    fn the_files_library_adds_and_removes_files_the_agent_sees_by_id() {
        let mut t = T::new(true);
        t.unlock(PASS);
        let cv = t._dir.path().join("cv.pdf");
        std::fs::write(&cv, b"%PDF-1.4 a CV").unwrap();
        t.click(controls::FILES);
        t.type_into(controls::FILE_PATH, cv.to_str().unwrap());
        t.type_into(controls::FILE_LABEL, "CV 2026");
        t.click(controls::FILE_ADD);
        let files = t.vault().attachments().unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(
            (
                files[0].label.as_str(),
                files[0].file_name.as_str(),
                files[0].media_type.as_str()
            ),
            ("CV 2026", "cv.pdf", "application/pdf")
        );
        t.frame(vec![]);
        assert!(t.shows("CV 2026"), "{:?}", t.texts);

        // A path that is not there: said, nothing added.
        t.type_into(controls::FILE_PATH, "/nonexistent/letter.pdf");
        t.type_into(controls::FILE_LABEL, "Letter");
        t.click(controls::FILE_ADD);
        assert!(t.shows("Not added"), "{:?}", t.texts);
        assert_eq!(t.vault().attachments().unwrap().len(), 1);

        t.click(&controls::file_remove_control(&files[0].id.to_string()));
        assert!(t.vault().attachments().unwrap().is_empty());
    }

    #[test]
    fn profiles_are_made_edited_and_deleted_and_the_agent_plans_with_them() {
        let mut t = T::new(true);
        t.unlock(PASS);
        t.click(controls::PROFILES);
        t.type_into(controls::PROFILE_NAME, "Personal");
        t.type_into(&controls::profile_fact_control("givenName"), "Ada");
        t.type_into(&controls::profile_fact_control("email"), "ada@example.org");
        t.click(controls::PROFILE_SAVE);
        let listed = t.vault().profiles().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!((listed[0].name.as_str(), listed[0].fields), ("Personal", 2));
        // The values went where the agent's plan finds them (previewed only for the human's
        // test here; the agent's answer never carries them).
        let desc = aperture_vault::FieldDescriptor {
            field_ref: "e1".into(),
            tag: "input".into(),
            autocomplete: Some("given-name".into()),
            ..Default::default()
        };
        let plan = t.vault().plan_profile_fill("Personal", &[desc]).unwrap();
        // The plan's rows carry no value; the fact is there to fill.
        assert_eq!(plan.rows[0].field, Some(aperture_vault::ProfileField::GivenName));
        assert_eq!(plan.rows[0].decision, aperture_vault::Decision::Fill);
        // The window asks for the facts only while the profiles dialog is open (shown last
        // frame); otherwise it lists the names alone.
        let (open, _) = t.glue.view(None, true);
        assert!(open.profiles[0].values.iter().any(|(_, v)| v == "Ada"));
        let (closed, _) = t.glue.view(None, false);
        assert_eq!(closed.profiles[0].name, "Personal");
        assert!(closed.profiles[0].values.is_empty());

        // Edit: a cleared fact is gone, a new one kept.
        t.click(&controls::profile_fact_control("email"));
        let key = |key, pressed, modifiers| Event::Key {
            key,
            physical_key: None,
            pressed,
            repeat: false,
            modifiers,
        };
        t.frame(vec![
            key(egui::Key::A, true, Modifiers::COMMAND),
            key(egui::Key::A, false, Modifiers::COMMAND),
            key(egui::Key::Backspace, true, Modifiers::NONE),
            key(egui::Key::Backspace, false, Modifiers::NONE),
        ]);
        t.type_into(&controls::profile_fact_control("city"), "London");
        t.click(controls::PROFILE_SAVE);
        let p = t.vault().profile("Personal").unwrap();
        let mut facts: Vec<String> = p
            .values_for_human()
            .into_iter()
            .map(|(f, v)| format!("{}={v}", f.as_str()))
            .collect();
        facts.sort();
        assert_eq!(facts, ["city=London", "givenName=Ada"]);

        t.click(controls::PROFILE_DELETE);
        assert!(t.vault().profiles().unwrap().is_empty());
    }

    #[test]
    fn a_second_click_raises_the_open_window() {
        let dir = tempfile::tempdir().unwrap();
        // Served by a thread: this test binary cannot be started as the vault process.
        let wiring = crate::vault::VaultWiring::served_in_thread(dir.path());
        let repaints = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let r = repaints.clone();
        let w = VaultWindows {
            glue: Rc::new(RefCell::new(Glue::new(
                wiring,
                Arc::new(move || {
                    r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }),
            ))),
        };
        assert!(w.take_window_requests().is_empty());
        w.open();
        w.open();
        let mut opened = w.take_window_requests();
        assert_eq!(opened.len(), 1, "one window for two clicks");
        assert_eq!(opened[0].0.title, TITLE);
        assert!(w.take_window_requests().is_empty());
        w.open();
        assert!(
            w.take_window_requests().is_empty(),
            "the open one is raised, not a second"
        );
        assert!(w.glue.borrow().raise);
        assert_eq!(repaints.load(std::sync::atomic::Ordering::SeqCst), 1);
        // The raise goes out as a viewport command on the window's next frame.
        let ctx = egui::Context::default();
        let mut out = ctx.run_ui(RawInput::default(), |ui| opened[0].1.ui(ui));
        out.textures_delta.clear();
        let vp = &out.viewport_output[&egui::ViewportId::ROOT];
        assert!(
            vp.commands.contains(&egui::ViewportCommand::Focus),
            "{:?}",
            vp.commands
        );
        // Closed (or never opened by the runner): the next click opens a new one.
        drop(opened);
        w.open();
        assert_eq!(w.take_window_requests().len(), 1);
    }
    #[test]
    fn typed_addresses_and_seeds() {
        assert_eq!(
            parse_origin("example.com").unwrap().to_string(),
            "https://example.com"
        );
        assert_eq!(
            parse_origin(" http://127.0.0.1:8080/login ").unwrap().to_string(),
            "http://127.0.0.1:8080"
        );
        assert!(parse_origin("ftp://example.com").is_err());
        assert!(parse_origin("").is_err());
        assert!(parse_totp("JBSW Y3DP EHPK 3PXP").is_ok());
        assert!(parse_totp("otpauth://totp/X:ada?secret=JBSWY3DPEHPK3PXP&issuer=X").is_ok());
        assert!(parse_totp("not base32!").is_err());
    }

    #[test]
    fn the_auto_lock_choice_is_read_back_and_bad_files_fall_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_auto_lock(dir.path()), DEFAULT_AUTO_LOCK_MINUTES);
        std::fs::write(settings_path(dir.path()), r#"{"auto_lock_minutes": 3}"#).unwrap();
        assert_eq!(load_auto_lock(dir.path()), 3);
        std::fs::write(settings_path(dir.path()), r#"{"auto_lock_minutes": 0}"#).unwrap();
        assert_eq!(load_auto_lock(dir.path()), DEFAULT_AUTO_LOCK_MINUTES);
        std::fs::write(settings_path(dir.path()), "{nope").unwrap();
        assert_eq!(load_auto_lock(dir.path()), DEFAULT_AUTO_LOCK_MINUTES);
    }
}
