//! The vault window's UI driven headlessly: creating and unlocking by passphrase, the entry list
//! and search, reveal that hides itself, copy through egui's copy output, add/edit/delete/undo,
//! the generator, the two-factor countdown, locking, the auto-lock setting and the import
//! preview. The app side (the real vault behind these commands) is tested in the app crate.

#![forbid(unsafe_code)]

use aperture_ui::egui::{self, Event, Key, Modifiers, PointerButton, Pos2, RawInput, Rect, vec2};
use aperture_ui::vault_window::{
    EntryView, ImportPreview, REVEAL_FOR, Secret, TotpChange, TotpView, VaultCommand, VaultState, VaultView,
    VaultWindow, controls, entry_control,
};

struct H {
    ctx: egui::Context,
    w: VaultWindow,
    view: VaultView,
    time: f64,
    texts: Vec<String>,
    copied: Vec<String>,
}

fn entry(id: &str, site: &str, label: &str, user: &str, totp: bool) -> EntryView {
    EntryView {
        id: id.into(),
        site: site.into(),
        origin: format!("{site}/login"),
        label: label.into(),
        username: user.into(),
        has_totp: totp,
    }
}

fn unlocked() -> VaultView {
    VaultView {
        state: VaultState::Unlocked,
        location: "/profile/vault.aperture".into(),
        entries: vec![
            entry("e1", "https://example.com", "Work", "ada", false),
            entry("e2", "https://bank.example", "Bank", "ada.l", true),
            entry("e3", "https://example.com", "Home", "lovelace", false),
        ],
        auto_lock_minutes: 10,
        ..Default::default()
    }
}

fn collect(shape: &egui::Shape, out: &mut Vec<String>) {
    match shape {
        egui::Shape::Text(t) => out.push(t.galley.text().to_string()),
        egui::Shape::Vec(v) => v.iter().for_each(|s| collect(s, out)),
        _ => {}
    }
}

impl H {
    fn new(view: VaultView) -> H {
        let mut h = H {
            ctx: egui::Context::default(),
            w: VaultWindow::new(),
            view,
            time: 0.0,
            texts: Vec::new(),
            copied: Vec::new(),
        };
        h.frame(vec![]);
        h.frame(vec![]);
        h
    }

    fn frame(&mut self, events: Vec<Event>) -> Vec<VaultCommand> {
        self.time += 0.1;
        let raw = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(820.0, 560.0))),
            time: Some(self.time),
            events,
            ..Default::default()
        };
        let mut cmds = Vec::new();
        let (w, view) = (&mut self.w, &self.view);
        let mut out = self.ctx.run_ui(raw, |ui| cmds = w.show(ui, view));
        // No painter here: drop the texture updates (epaint insists someone takes them).
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
        cmds
    }

    /// Runs the app's side of a copy inside a frame, as the glue does.
    fn copy_in_frame(&mut self, text: &str) {
        self.time += 0.1;
        let raw = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(820.0, 560.0))),
            time: Some(self.time),
            ..Default::default()
        };
        let (w, view) = (&mut self.w, &self.view);
        let secret = Secret::new(text);
        let mut out = self.ctx.run_ui(raw, |ui| {
            w.show(ui, view);
            w.copy(ui.ctx(), &secret);
        });
        out.textures_delta.clear();
        for c in &out.platform_output.commands {
            if let egui::OutputCommand::CopyText(t) = c {
                self.copied.push(t.clone());
            }
        }
    }

    fn settle(&mut self) -> Vec<VaultCommand> {
        let mut c = self.frame(vec![]);
        c.extend(self.frame(vec![]));
        c
    }

    fn shows(&self, needle: &str) -> bool {
        self.texts.iter().any(|t| t.contains(needle))
    }

    fn rect(&self, name: &str) -> Rect {
        self.w
            .control_rect(name)
            .unwrap_or_else(|| panic!("no control {name}; texts: {:?}", self.texts))
    }

    fn has(&self, name: &str) -> bool {
        self.w.control_rect(name).is_some()
    }

    fn click(&mut self, name: &str) -> Vec<VaultCommand> {
        let pos = self.rect(name).center();
        let mut c = self.frame(vec![Event::PointerMoved(pos)]);
        for pressed in [true, false] {
            c.extend(self.frame(vec![Event::PointerButton {
                pos,
                button: PointerButton::Primary,
                pressed,
                modifiers: Modifiers::NONE,
            }]));
        }
        c.extend(self.frame(vec![]));
        c
    }

    fn type_into(&mut self, name: &str, text: &str) -> Vec<VaultCommand> {
        let mut c = self.click(name);
        c.extend(self.frame(vec![Event::Text(text.into())]));
        c
    }

    fn press(&mut self, key: Key) -> Vec<VaultCommand> {
        let ev = |pressed| Event::Key {
            key,
            physical_key: Some(key),
            pressed,
            repeat: false,
            modifiers: Modifiers::NONE,
        };
        let mut c = self.frame(vec![ev(true)]);
        c.extend(self.frame(vec![ev(false)]));
        c
    }

    /// Lets `secs` of egui time pass.
    fn wait(&mut self, secs: f64) {
        self.time += secs;
        self.frame(vec![]);
    }
}

// ---- Create and unlock ----

#[test]
fn first_use_creates_the_vault_only_when_both_passphrases_match() {
    let mut h = H::new(VaultView::default());
    assert!(h.shows("Create your vault"), "{:?}", h.texts);
    assert!(!h.has(controls::UNLOCK));

    h.type_into(controls::PASSPHRASE, "correct horse battery");
    h.type_into(controls::PASSPHRASE_AGAIN, "correct horse batery");
    let c = h.click(controls::CREATE);
    assert!(c.is_empty(), "{c:?}");
    h.settle();
    assert!(h.shows("The two passphrases differ"), "{:?}", h.texts);

    // The repeat field was emptied; a matching but short passphrase is refused too.
    h.type_into(controls::PASSPHRASE_AGAIN, "x");
    let c = h.click(controls::CREATE);
    assert!(c.is_empty(), "{c:?}");

    let mut h = H::new(VaultView::default());
    h.type_into(controls::PASSPHRASE, "short");
    h.type_into(controls::PASSPHRASE_AGAIN, "short");
    assert!(h.click(controls::CREATE).is_empty());
    h.settle();
    assert!(h.shows("at least 8 characters"), "{:?}", h.texts);

    let mut h = H::new(VaultView::default());
    h.type_into(controls::PASSPHRASE, "correct horse battery");
    h.type_into(controls::PASSPHRASE_AGAIN, "correct horse battery");
    // Enter in the second field creates, like the button.
    let c = h.press(Key::Enter);
    match c.as_slice() {
        [VaultCommand::Create { passphrase }] => assert_eq!(passphrase.expose(), "correct horse battery"),
        other => panic!("{other:?}"),
    }
    // Sent once; the fields are empty now, so the button is disabled.
    assert!(h.click(controls::CREATE).is_empty());
}

#[test]
fn unlocking_sends_the_typed_passphrase_and_shows_the_apps_error() {
    let mut h = H::new(VaultView {
        state: VaultState::Locked,
        ..Default::default()
    });
    assert!(h.shows("The vault is locked"));
    // The passphrase field has focus from the start: typing goes straight in.
    h.frame(vec![Event::Text("open sesame!".into())]);
    let c = h.press(Key::Enter);
    match c.as_slice() {
        [VaultCommand::Unlock { passphrase }] => assert_eq!(passphrase.expose(), "open sesame!"),
        other => panic!("{other:?}"),
    }
    // The app works on it for a while (the field is disabled), then says it was wrong.
    h.view.busy = Some("Unlocking…".into());
    for _ in 0..5 {
        h.frame(vec![]);
    }
    h.view.busy = None;
    h.view.error = Some("Wrong passphrase. Nothing was changed; try again.".into());
    h.settle();
    assert!(h.shows("Wrong passphrase"), "{:?}", h.texts);
    // The caret is back in the field: retyping needs no click.
    h.frame(vec![Event::Text("second try".into())]);
    match h.press(Key::Enter).as_slice() {
        [VaultCommand::Unlock { passphrase }] => assert_eq!(passphrase.expose(), "second try"),
        other => panic!("{other:?}"),
    }
    h.view.busy = None;
    h.settle();
    // Nothing typed now: the button does nothing.
    assert!(h.click(controls::UNLOCK).is_empty());
    h.type_into(controls::PASSPHRASE, "open sesame");
    match h.click(controls::UNLOCK).as_slice() {
        [VaultCommand::Unlock { passphrase }] => assert_eq!(passphrase.expose(), "open sesame"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn busy_disables_the_inputs() {
    let mut h = H::new(VaultView {
        state: VaultState::Locked,
        busy: Some("Unlocking…".into()),
        ..Default::default()
    });
    assert!(h.shows("Unlocking…"));
    h.type_into(controls::PASSPHRASE, "x");
    assert!(h.press(Key::Enter).is_empty());
    assert!(h.click(controls::UNLOCK).is_empty());
}

// ---- The list ----

#[test]
fn entries_are_grouped_by_site_and_searchable() {
    let mut h = H::new(unlocked());
    assert!(h.shows("example.com") && h.shows("bank.example"), "{:?}", h.texts);
    assert!(h.shows("Work — ada") && h.shows("Home — lovelace") && h.shows("Bank — ada.l"));
    // Rows of one site sit together under its heading, sites in order.
    let (bank, home, work) = (
        h.rect(&entry_control("e2")),
        h.rect(&entry_control("e3")),
        h.rect(&entry_control("e1")),
    );
    assert!(bank.min.y < home.min.y && home.min.y < work.min.y);

    h.type_into(controls::SEARCH, "LOVE");
    h.settle();
    assert!(h.has(&entry_control("e3")));
    assert!(!h.has(&entry_control("e1")) && !h.has(&entry_control("e2")));
    // By site too.
    let mut h = H::new(unlocked());
    h.type_into(controls::SEARCH, "bank");
    h.settle();
    assert!(h.has(&entry_control("e2")) && !h.has(&entry_control("e1")));
    let mut h = H::new(unlocked());
    h.type_into(controls::SEARCH, "nothing like it");
    h.settle();
    assert!(h.shows("Nothing matches"));
}

#[test]
fn a_revealed_password_hides_itself_after_five_seconds() {
    let mut h = H::new(unlocked());
    h.click(&entry_control("e1"));
    assert_eq!(h.w.selected(), Some("e1"));
    assert!(h.shows("••••"));
    let c = h.click(controls::REVEAL);
    assert!(
        matches!(c.as_slice(), [VaultCommand::Reveal { id }] if id == "e1"),
        "{c:?}"
    );
    h.w.reveal("e1", Secret::new("pw-e1-visible"));
    h.frame(vec![]);
    assert!(h.shows("pw-e1-visible"));
    h.wait(REVEAL_FOR.as_secs_f64() - 1.0);
    assert!(h.shows("pw-e1-visible"), "still within the five seconds");
    h.wait(1.2);
    h.frame(vec![]);
    assert!(!h.shows("pw-e1-visible"), "{:?}", h.texts);
    assert!(!h.w.is_revealed());

    // Selecting another entry hides it at once.
    h.w.reveal("e1", Secret::new("pw-e1-visible"));
    h.frame(vec![]);
    assert!(h.shows("pw-e1-visible"));
    h.click(&entry_control("e3"));
    assert!(!h.shows("pw-e1-visible") && !h.w.is_revealed());

    // So does Hide.
    h.w.reveal("e3", Secret::new("pw-e3"));
    h.frame(vec![]);
    assert!(h.click(controls::REVEAL).is_empty());
    assert!(!h.w.is_revealed());
}

#[test]
fn copy_buttons_ask_the_app_and_the_text_goes_out_through_egui() {
    let mut h = H::new(unlocked());
    h.click(&entry_control("e2"));
    let c = h.click(controls::COPY_PASSWORD);
    assert!(
        matches!(c.as_slice(), [VaultCommand::CopyPassword { id }] if id == "e2"),
        "{c:?}"
    );
    let c = h.click(controls::COPY_USERNAME);
    assert!(
        matches!(c.as_slice(), [VaultCommand::CopyUsername { id }] if id == "e2"),
        "{c:?}"
    );
    let c = h.click(controls::COPY_TOTP);
    assert!(
        matches!(c.as_slice(), [VaultCommand::CopyTotp { id }] if id == "e2"),
        "{c:?}"
    );
    assert!(h.copied.is_empty(), "nothing copied before the app answers");
    h.copy_in_frame("pw-bank");
    assert_eq!(h.copied, ["pw-bank"]);
}

#[test]
fn the_two_factor_code_counts_down() {
    let mut view = unlocked();
    view.totp = Some(TotpView {
        entry: "e2".into(),
        code: "492039".into(),
        remaining: 17,
        period: 30,
    });
    let mut h = H::new(view);
    h.click(&entry_control("e2"));
    assert!(h.shows("492 039") && h.shows("17 s"), "{:?}", h.texts);
    assert!(h.has(controls::TOTP_CODE));
    h.view.totp.as_mut().unwrap().remaining = 16;
    h.frame(vec![]);
    assert!(h.shows("16 s"));
    // An entry without a seed has no code row.
    h.click(&entry_control("e1"));
    assert!(!h.has(controls::TOTP_CODE) && !h.has(controls::COPY_TOTP));
}

// ---- Add, edit, delete ----

#[test]
fn adding_sends_the_form_and_waits_for_the_apps_answer() {
    let mut h = H::new(unlocked());
    h.click(controls::ADD);
    assert!(h.shows("New login"));
    // Nothing typed: the form says what is missing and sends nothing.
    assert!(h.click(controls::SAVE).is_empty());
    h.settle();
    assert!(h.shows("Give the web address"), "{:?}", h.texts);
    h.type_into(controls::FORM_URL, "news.example.org");
    h.type_into(controls::FORM_LABEL, "News");
    h.type_into(controls::FORM_USERNAME, "ada");
    assert!(h.click(controls::SAVE).is_empty());
    h.settle();
    assert!(h.shows("Type a password, or Generate one"));
    h.type_into(controls::FORM_PASSWORD, "pw-typed-1");
    h.type_into(controls::FORM_TOTP, "JBSWY3DPEHPK3PXP");
    let c = h.click(controls::SAVE);
    match c.as_slice() {
        [VaultCommand::Add(f)] => {
            assert_eq!(
                (f.url.as_str(), f.label.as_str(), f.username.as_str()),
                ("news.example.org", "News", "ada")
            );
            assert_eq!(f.password.as_ref().map(|p| p.expose()), Some("pw-typed-1"));
            assert!(matches!(&f.totp, TotpChange::Set(s) if s.expose() == "JBSWY3DPEHPK3PXP"));
        }
        other => panic!("{other:?}"),
    }
    // The app could not save: the form stays, with the reason.
    h.w.form_failed("That is not a web address.".into());
    h.settle();
    assert!(h.shows("New login") && h.shows("That is not a web address."));
    h.type_into(controls::FORM_PASSWORD, "pw-typed-2");
    let c = h.click(controls::SAVE);
    assert!(matches!(c.as_slice(), [VaultCommand::Add(_)]), "{c:?}");
    h.w.form_saved(Some("e3"));
    h.settle();
    assert!(!h.shows("New login"));
    assert_eq!(h.w.selected(), Some("e3"));
}

#[test]
fn the_generator_fills_the_password_field() {
    let mut h = H::new(unlocked());
    h.click(controls::ADD);
    h.type_into(controls::FORM_URL, "https://new.example");
    let c = h.click(controls::GENERATE);
    match c.as_slice() {
        [VaultCommand::Generate(o)] => assert_eq!((o.length, o.symbols), (20, true)),
        other => panic!("{other:?}"),
    }
    h.w.set_generated(Secret::new("Gen3rated-Pass#word"), 125.6);
    h.settle();
    assert!(h.shows("about 126 bits"), "{:?}", h.texts);
    assert!(!h.shows("Gen3rated-Pass#word"), "masked until Show is ticked");
    match h.click(controls::SAVE).as_slice() {
        [VaultCommand::Add(f)] => assert_eq!(f.password.as_ref().unwrap().expose(), "Gen3rated-Pass#word"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn editing_keeps_an_empty_password_and_can_remove_the_seed() {
    let mut h = H::new(unlocked());
    h.click(&entry_control("e2"));
    h.click(controls::EDIT);
    assert!(h.shows("Edit login"));
    h.click(controls::FORM_TOTP_REMOVE);
    match h.click(controls::SAVE).as_slice() {
        [VaultCommand::Update { id, form }] => {
            assert_eq!(id, "e2");
            assert_eq!(form.url, "https://bank.example/login");
            assert_eq!(form.username, "ada.l");
            assert!(form.password.is_none(), "an empty field keeps the password");
            assert!(matches!(form.totp, TotpChange::Remove));
        }
        other => panic!("{other:?}"),
    }
    // Escape cancels an edit without sending anything.
    h.w.form_saved(None);
    h.settle();
    h.click(controls::EDIT);
    assert!(h.press(Key::Escape).is_empty());
    h.settle();
    assert!(!h.shows("Edit login"));
}

#[test]
fn delete_then_undo() {
    let mut h = H::new(unlocked());
    h.click(&entry_control("e1"));
    let c = h.click(controls::DELETE);
    assert!(
        matches!(c.as_slice(), [VaultCommand::Delete { id }] if id == "e1"),
        "{c:?}"
    );
    // The app removed it and offers the undo.
    h.view.entries.retain(|e| e.id != "e1");
    h.view.undo = Some("Work".into());
    h.settle();
    assert!(h.shows("Deleted “Work”."), "{:?}", h.texts);
    assert!(h.w.selected().is_none());
    let c = h.click(controls::UNDO);
    assert!(matches!(c.as_slice(), [VaultCommand::Undo]), "{c:?}");
}

// ---- Locking ----

#[test]
fn locking_drops_what_the_window_showed() {
    let mut h = H::new(unlocked());
    h.click(&entry_control("e1"));
    h.w.reveal("e1", Secret::new("pw-e1"));
    h.frame(vec![]);
    let c = h.click(controls::LOCK);
    assert!(matches!(c.as_slice(), [VaultCommand::Lock]), "{c:?}");
    h.view = VaultView {
        state: VaultState::Locked,
        ..Default::default()
    };
    h.settle();
    assert!(!h.w.is_revealed() && h.w.selected().is_none());
    assert!(!h.shows("pw-e1") && !h.shows("Work"));
    assert!(h.shows("The vault is locked"));
    // Unlocked again (the idle timer locked it while a form was open): the form is gone.
    h.view = unlocked();
    h.settle();
    h.click(controls::ADD);
    h.type_into(controls::FORM_PASSWORD, "half-typed");
    h.view.state = VaultState::Locked;
    h.settle();
    h.view.state = VaultState::Unlocked;
    h.settle();
    assert!(!h.shows("New login"));
}

#[test]
fn the_auto_lock_delay_is_set_in_the_window() {
    let mut h = H::new(unlocked());
    assert!(h.shows("Lock after"));
    let field = h.rect(controls::AUTO_LOCK);
    // Drag it right: several steps up, sent once the drag ends.
    let (a, b) = (field.center(), field.center() + vec2(40.0, 0.0));
    h.frame(vec![Event::PointerMoved(a)]);
    h.frame(vec![Event::PointerButton {
        pos: a,
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    }]);
    let mut during = Vec::new();
    for i in 1..=8 {
        during.extend(h.frame(vec![Event::PointerMoved(a + vec2(5.0 * i as f32, 0.0))]));
    }
    assert!(during.is_empty(), "sent while dragging: {during:?}");
    let c = h.frame(vec![Event::PointerButton {
        pos: b,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    }]);
    let mut c = c;
    c.extend(h.settle());
    match c.as_slice() {
        [VaultCommand::SetAutoLock { minutes }] => assert!(*minutes > 10, "{minutes}"),
        other => panic!("{other:?}"),
    }
}

// ---- Import ----

#[test]
fn import_previews_then_confirms() {
    let mut h = H::new(unlocked());
    h.click(controls::IMPORT);
    assert!(h.shows("Chrome, Firefox or Bitwarden"), "{:?}", h.texts);
    h.type_into(controls::IMPORT_PATH, "/tmp/passwords.csv");
    let c = h.click(controls::IMPORT_PREVIEW);
    match c.as_slice() {
        [VaultCommand::PreviewImport { path }] => {
            assert_eq!(path, std::path::Path::new("/tmp/passwords.csv"))
        }
        other => panic!("{other:?}"),
    }
    h.view.import = Some(ImportPreview {
        format: "Bitwarden".into(),
        ready: 3,
        problems: vec![
            (4, "has no password".into()),
            (9, "a Bitwarden card item, not a login".into()),
        ],
    });
    h.settle();
    assert!(h.shows("Bitwarden export: 3 logins ready"), "{:?}", h.texts);
    assert!(h.shows("2 rows will not be imported"));
    assert!(h.shows("line 4: has no password") && h.shows("line 9: a Bitwarden card item"));
    let c = h.click(controls::IMPORT_OK);
    assert!(matches!(c.as_slice(), [VaultCommand::ConfirmImport]), "{c:?}");

    // Cancel drops a preview.
    h.view.import = Some(ImportPreview {
        format: "Chrome".into(),
        ready: 1,
        problems: vec![],
    });
    h.settle();
    let c = h.click(controls::IMPORT_CANCEL);
    assert!(matches!(c.as_slice(), [VaultCommand::CancelImport]), "{c:?}");
}

// ---- Keyboard ----

#[test]
fn the_window_works_from_the_keyboard() {
    let ctrl = |k: Key| {
        let ev = |pressed| Event::Key {
            key: k,
            physical_key: Some(k),
            pressed,
            repeat: false,
            modifiers: Modifiers::COMMAND,
        };
        vec![ev(true), ev(false)]
    };
    // Unlocking leaves the caret in the search field.
    let mut h = H::new(VaultView {
        state: VaultState::Locked,
        ..Default::default()
    });
    h.view = unlocked();
    h.settle();
    h.frame(vec![Event::Text("lovel".into())]);
    h.settle();
    assert!(h.has(&entry_control("e3")) && !h.has(&entry_control("e1")));

    // Ctrl+N: a new login with the caret in its first field; Tab moves on; Enter saves.
    h.frame(ctrl(Key::N));
    h.settle();
    assert!(h.shows("New login"));
    let tab = |h: &mut H| h.press(Key::Tab);
    h.frame(vec![Event::Text("kb.example.com".into())]);
    tab(&mut h);
    h.frame(vec![Event::Text("Keys".into())]);
    tab(&mut h);
    h.frame(vec![Event::Text("ada".into())]);
    tab(&mut h);
    h.frame(vec![Event::Text("pw-from-keys".into())]);
    let c = h.press(Key::Enter);
    match c.as_slice() {
        [VaultCommand::Add(f)] => {
            assert_eq!(
                (f.url.as_str(), f.label.as_str(), f.username.as_str()),
                ("kb.example.com", "Keys", "ada")
            );
            assert_eq!(f.password.as_ref().unwrap().expose(), "pw-from-keys");
        }
        other => panic!("{other:?}"),
    }
    h.w.form_saved(None);
    // Ctrl+L locks.
    let c = h.frame(ctrl(Key::L));
    assert!(matches!(c.as_slice(), [VaultCommand::Lock]), "{c:?}");
}
