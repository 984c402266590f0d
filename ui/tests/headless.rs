//! Drive the chrome's state machine with synthetic egui input, no window.

#![forbid(unsafe_code)]

mod harness;

use aperture_ui::chrome::{
    container_control, context_container_control, controls, download_control, file_entry_control,
    tab_close_control, tab_control,
};
use aperture_ui::dark::ThemeMode;
use aperture_ui::egui::{self, Event, Key, Modifiers, PointerButton, Pos2, Rect, pos2, vec2};
use aperture_ui::{
    Chrome, ContextMenuView, DialogKind, DialogView, DownloadState, DownloadView, EditOp, FileChooserMode,
    FileChooserView, MouseButton, PageFrame, PageInput, PermissionView, PopupView, TabId, TabView, UiCommand,
};
use harness::*;

#[test]
fn ctrl_l_typing_and_enter_navigates() {
    let mut h = Harness::new();
    assert!(without_noise(h.frame(press(Key::L, Modifiers::COMMAND))).is_empty());
    h.frame(vec![]);
    let typed = h.type_text("localhost:8000");
    assert_eq!(
        without_noise(typed),
        vec![UiCommand::OmniboxInput {
            tab: TabId(1),
            text: "localhost:8000".into()
        }],
        "typing into the omnibox must not reach the page"
    );
    let cmds = h.frame(vec![key(Key::Enter, Modifiers::NONE, true)]);
    assert_eq!(
        without_noise(cmds),
        vec![UiCommand::Navigate {
            tab: TabId(1),
            input: "localhost:8000".into(),
            url: "http://localhost:8000".into()
        }]
    );
    // After Enter, keys go to the page — but not that Enter's release.
    assert!(h.chrome.page_focused());
    let cmds = h.frame(vec![key(Key::Enter, Modifiers::NONE, false)]);
    assert!(without_noise(cmds).is_empty());
    let cmds = h.frame(press(Key::Enter, Modifiers::NONE));
    assert_eq!(
        cmds.iter()
            .filter(|c| matches!(c, UiCommand::Page { .. }))
            .count(),
        2,
        "{cmds:?}"
    );
}

#[test]
fn with_every_tab_closed_the_omnibox_opens_what_is_typed_in_a_new_tab() {
    let mut h = Harness::new();
    h.model.tabs.clear();
    h.model.active = None;
    h.frame(vec![]);
    h.click(controls::OMNIBOX);
    h.type_text("example.org");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::OpenUrl {
            url: "https://example.org".into(),
            new_tab: false
        }]
    );
}

#[test]
fn clicking_the_omnibox_and_searching() {
    let mut h = Harness::new();
    // A click selects the whole URL, so typing replaces it.
    h.click(controls::OMNIBOX);
    h.type_text("rust egui");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::Navigate {
            tab: TabId(1),
            input: "rust egui".into(),
            url: "https://duckduckgo.com/?q=rust+egui".into()
        }]
    );
}

#[test]
fn escape_abandons_the_edit() {
    let mut h = Harness::new();
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.type_text("half-typed");
    let cmds = without_noise(h.frame(press(Key::Escape, Modifiers::NONE)));
    assert!(cmds.is_empty(), "{cmds:?}");
    // The URL comes back (and keeps the keyboard, as in Chrome): a later Enter never goes
    // to what was typed.
    h.frame(vec![]);
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert!(
        cmds.iter()
            .all(|c| !matches!(c, UiCommand::Navigate { input, .. } if input.contains("half-typed"))),
        "{cmds:?}"
    );
}

#[test]
fn shortcuts() {
    let mut h = Harness::new();
    assert_eq!(
        without_noise(h.frame(press(Key::T, Modifiers::COMMAND))),
        vec![UiCommand::NewTab {
            container: "work".into()
        }]
    );
    assert_eq!(
        without_noise(h.frame(press(Key::W, Modifiers::COMMAND))),
        vec![UiCommand::CloseTab { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.frame(press(Key::ArrowLeft, Modifiers::ALT))),
        vec![UiCommand::Back { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.frame(press(Key::ArrowRight, Modifiers::ALT))),
        vec![UiCommand::Forward { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.frame(press(Key::F5, Modifiers::NONE))),
        vec![UiCommand::Reload { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.frame(press(Key::Tab, Modifiers::CTRL))),
        vec![UiCommand::SelectTab { tab: TabId(2) }]
    );
}

#[test]
fn the_other_shortcuts_every_browser_has() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    let ctrl_shift = Modifiers {
        shift: true,
        ..Modifiers::COMMAND
    };
    let tab = TabId(1);
    // Hard reload three ways, Ctrl+U, which shows the source, and Ctrl+S, which saves the page:
    // from a focused page, the page gets them first and the browser acts once the page has left
    // them alone.
    for (k, m, want) in [
        (Key::R, ctrl_shift, UiCommand::HardReload { tab }),
        (Key::F5, Modifiers::SHIFT, UiCommand::HardReload { tab }),
        (Key::F5, Modifiers::COMMAND, UiCommand::HardReload { tab }),
        (Key::U, Modifiers::COMMAND, UiCommand::ViewSource { tab }),
        (Key::S, Modifiers::COMMAND, UiCommand::SavePage { tab }),
        (Key::F12, Modifiers::NONE, UiCommand::DevTools { tab }),
        (Key::I, ctrl_shift, UiCommand::DevTools { tab }),
    ] {
        h.click_at(page.center(), PointerButton::Primary);
        assert!(h.chrome.page_focused());
        assert_eq!(via_page(&mut h, k, m), vec![want], "{k:?} {m:?}");
    }
    // Ctrl+F4 closes and Ctrl+N opens a tab (one window): tab keys never reach the page.
    for (k, m, want) in [
        (Key::F4, Modifiers::COMMAND, UiCommand::CloseTab { tab }),
        (
            Key::N,
            Modifiers::COMMAND,
            UiCommand::NewTab {
                container: "work".into(),
            },
        ),
    ] {
        h.click_at(page.center(), PointerButton::Primary);
        assert!(h.chrome.page_focused());
        assert_eq!(without_noise(h.frame(press(k, m))), vec![want], "{k:?} {m:?}");
    }
    // Alt+D and F6 put the keyboard in the omnibox, as Ctrl+L does: typing no longer reaches
    // the page. The "d" X types with Alt+D goes nowhere, neither into the page nor over the
    // address.
    for (k, m) in [(Key::D, Modifiers::ALT), (Key::F6, Modifiers::NONE)] {
        h.click_at(page.center(), PointerButton::Primary);
        let mut done = if m.alt {
            without_noise(h.frame(vec![key(k, m, true), Event::Text("d".into()), key(k, m, false)]))
        } else {
            via_page(&mut h, k, m)
        };
        done.extend(without_noise(h.frame(vec![])));
        assert!(done.is_empty(), "{k:?}: {done:?}");
        assert!(!h.chrome.page_focused(), "{k:?}");
        assert!(
            without_noise(h.type_text("x"))
                .iter()
                .all(|c| !matches!(c, UiCommand::Page { .. })),
            "{k:?}"
        );
        h.frame(press(Key::Escape, Modifiers::NONE));
    }
    // Ctrl+Shift+Delete opens the settings at Privacy, where browsing data is cleared.
    h.click_at(page.center(), PointerButton::Primary);
    via_page(&mut h, Key::Delete, ctrl_shift);
    assert!(h.has(controls::SETTINGS) && h.has(controls::SETTINGS_CLEAR_OK));
    // Ctrl+J with no downloads yet opens the download folder; with some, their panel.
    assert_eq!(
        without_noise(h.frame(press(Key::J, Modifiers::COMMAND))),
        vec![UiCommand::OpenDownloadsFolder]
    );
    h.frame(press(Key::Escape, Modifiers::NONE));
    h.model.downloads = vec![download(1, "a.zip", 10, Some(10), DownloadState::Complete)];
    h.frame(vec![]);
    assert!(!h.has(controls::DOWNLOADS_PANEL));
    assert!(without_noise(h.frame(press(Key::J, Modifiers::COMMAND))).is_empty());
    h.frame(vec![]);
    assert!(h.has(controls::DOWNLOADS_PANEL));
}

#[test]
fn shortcuts_win_over_a_focused_page() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    let cmds = without_noise(h.frame(press(Key::W, Modifiers::COMMAND)));
    assert_eq!(
        cmds,
        vec![UiCommand::CloseTab { tab: TabId(1) }],
        "Ctrl+W must not reach the page"
    );
}

#[test]
fn the_mouse_back_and_forward_buttons_over_the_page_go_back_and_forward() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE).center();
    assert_eq!(
        without_noise(h.click_at(page, PointerButton::Extra1)),
        vec![UiCommand::Back { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.click_at(page, PointerButton::Extra2)),
        vec![UiCommand::Forward { tab: TabId(1) }]
    );
}

#[test]
fn take_over_and_hand_back() {
    let mut h = Harness::new();
    // Only the agent's tab has the control.
    assert!(h.chrome.control_rect(controls::DRIVE).is_none());
    h.model.active = Some(TabId(2));
    h.frame(vec![]);
    h.frame(vec![]);
    let cmds = without_noise(h.click(controls::DRIVE));
    assert_eq!(cmds, vec![UiCommand::TakeOver { tab: TabId(2) }]);
    h.model.tabs[1].human_driving = true;
    h.frame(vec![]);
    let cmds = without_noise(h.click(controls::DRIVE));
    assert_eq!(cmds, vec![UiCommand::HandBack { tab: TabId(2) }]);
}

#[test]
fn tabs_select_and_close() {
    let mut h = Harness::new();
    let cmds = without_noise(h.click(&tab_control(TabId(2))));
    assert_eq!(cmds, vec![UiCommand::SelectTab { tab: TabId(2) }]);
    let cmds = without_noise(h.click(&tab_close_control(TabId(1))));
    assert_eq!(cmds, vec![UiCommand::CloseTab { tab: TabId(1) }]);
    let mid = h.rect(&tab_control(TabId(2))).center();
    let cmds = without_noise(h.click_at(mid, PointerButton::Middle));
    assert_eq!(cmds, vec![UiCommand::CloseTab { tab: TabId(2) }]);
}

#[test]
fn container_picker_opens_tab_in_chosen_container() {
    let mut h = Harness::new();
    assert!(without_noise(h.click(controls::NEW_TAB)).is_empty());
    let row = container_control("banking");
    assert!(
        h.chrome.control_rect(&row).is_some(),
        "picker should list containers"
    );
    let cmds = without_noise(h.click(&row));
    assert_eq!(
        cmds,
        vec![UiCommand::NewTab {
            container: "banking".into()
        }]
    );
}

#[test]
fn toolbar_buttons_and_theme_menu() {
    let mut h = Harness::new();
    assert_eq!(
        without_noise(h.click(controls::BACK)),
        vec![UiCommand::Back { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.click(controls::FORWARD)),
        vec![UiCommand::Forward { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.click(controls::RELOAD)),
        vec![UiCommand::Reload { tab: TabId(1) }]
    );
    h.model.tabs[0].loading = true;
    h.frame(vec![]);
    assert_eq!(
        without_noise(h.click(controls::RELOAD)),
        vec![UiCommand::Stop { tab: TabId(1) }]
    );
    assert_eq!(
        without_noise(h.click(controls::VAULT)),
        vec![UiCommand::OpenVault]
    );
}

#[test]
fn dark_mode_menu_sets_site_mode_and_filter() {
    use aperture_ui::chrome::theme_mode_control;
    let mut h = Harness::new();
    assert!(without_noise(h.click(controls::THEME)).is_empty());
    let cmds = without_noise(h.click(&theme_mode_control(ThemeMode::On)));
    assert_eq!(
        cmds,
        vec![UiCommand::SetTheme {
            site: "example.com".into(),
            mode: ThemeMode::On
        }]
    );
    // Reopen; a click near the brightness slider's left end dims.
    h.click(controls::THEME);
    let b = h.rect(controls::BRIGHTNESS);
    let cmds = without_noise(h.click_at(b.left_center() + vec2(4.0, 0.0), PointerButton::Primary));
    // (Repeated while held: this model never applies it, so the slider
    // keeps showing 1.0.)
    assert!(!cmds.is_empty());
    assert!(
        cmds.iter()
            .all(|c| matches!(c, UiCommand::SetDarkFilter { options } if options.brightness < 0.7 && options.contrast == 1.0)),
        "{cmds:?}"
    );
}

#[test]
fn dark_mode_menu_is_disabled_without_a_site() {
    let mut h = Harness::new();
    h.model.tabs[0].url = "about:blank".into();
    h.frame(vec![]);
    assert!(without_noise(h.click(controls::THEME)).is_empty());
    assert!(
        h.chrome.control_rect(controls::BRIGHTNESS).is_none(),
        "menu must not open for about:blank"
    );
}

#[test]
fn a_blank_tab_is_a_new_tab_with_an_empty_omnibox() {
    let mut h = Harness::new();
    h.model.tabs[0].url = "about:blank".into();
    h.model.tabs[0].title = "about:blank".into();
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.texts.iter().any(|t| t == "New tab"), "{:?}", h.texts);
    assert!(
        !h.texts.iter().any(|t| t.contains("about:blank")),
        "{:?}",
        h.texts
    );
    // What is typed there is the whole address (nothing of about:blank is left in it).
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.type_text("example.org");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert!(
        cmds.iter()
            .any(|c| matches!(c, UiCommand::Navigate { input, .. } if input == "example.org")),
        "{cmds:?}"
    );
}

#[test]
fn page_gets_mouse_keys_and_text_in_page_coordinates() {
    let mut h = Harness::with_scale(2.0);
    let page = h.rect(controls::PAGE);
    let at = page.min + vec2(30.0, 40.0);
    let cmds = h.click_at(at, PointerButton::Primary);
    assert!(
        cmds.contains(&UiCommand::PageFocus {
            tab: TabId(1),
            focused: true
        }),
        "{cmds:?}"
    );
    let down = cmds.iter().find_map(|c| match c {
        UiCommand::Page {
            tab,
            input:
                PageInput::MouseDown {
                    x,
                    y,
                    button,
                    click_count,
                    ..
                },
        } => Some((*tab, *x, *y, *button, *click_count)),
        _ => None,
    });
    assert_eq!(down, Some((TabId(1), 30.0, 40.0, MouseButton::Left, 1)));
    assert!(cmds.iter().any(|c| matches!(
        c,
        UiCommand::Page {
            input: PageInput::MouseUp { .. },
            ..
        }
    )));

    let cmds = h.frame(vec![
        key(Key::A, Modifiers::SHIFT, true),
        Event::Text("A".into()),
        key(Key::A, Modifiers::SHIFT, false),
    ]);
    let inputs: Vec<PageInput> = cmds
        .into_iter()
        .filter_map(|c| match c {
            UiCommand::Page { input, .. } => Some(input),
            _ => None,
        })
        .collect();
    assert!(
        matches!(&inputs[0], PageInput::KeyDown(k) if k.windows_key_code == 0x41 && k.native_key_code == 38 && k.modifiers.shift)
    );
    assert_eq!(inputs[1], PageInput::Text { text: "A".into() });
    assert!(matches!(&inputs[2], PageInput::KeyUp(k) if k.windows_key_code == 0x41));

    // A second press without a release is an auto-repeat.
    let cmds = h.frame(vec![
        key(Key::B, Modifiers::NONE, true),
        key(Key::B, Modifiers::NONE, true),
        key(Key::B, Modifiers::NONE, false),
    ]);
    let repeats: Vec<bool> = cmds
        .iter()
        .filter_map(|c| match c {
            UiCommand::Page {
                input: PageInput::KeyDown(k),
                ..
            } => Some(k.repeat),
            _ => None,
        })
        .collect();
    assert_eq!(repeats, vec![false, true]);

    // Tab goes to the page, not to egui's focus cycling.
    let cmds = h.frame(press(Key::Tab, Modifiers::NONE));
    assert!(cmds.iter().any(|c| matches!(c, UiCommand::Page { input: PageInput::KeyDown(k), .. } if k.windows_key_code == 0x09 && k.character == Some('\t'))));
    assert!(h.chrome.page_focused());

    // Wheel lines become DIP.
    let cmds = h.frame(vec![Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: vec2(0.0, -1.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: Modifiers::NONE,
    }]);
    assert!(cmds.iter().any(|c| matches!(c, UiCommand::Page { input: PageInput::Wheel { delta_y, x, .. }, .. } if *delta_y == -40.0 && *x == 30.0)), "{cmds:?}");

    // Two quick clicks (0.1 s apart) make a double click.
    let btn = |pressed| Event::PointerButton {
        pos: at,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    let mut cmds = h.frame(vec![btn(true), btn(false)]);
    cmds.extend(h.frame(vec![btn(true), btn(false)]));
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            UiCommand::Page {
                input: PageInput::MouseDown { click_count: 1, .. },
                ..
            }
        )),
        "{cmds:?}"
    );
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            UiCommand::Page {
                input: PageInput::MouseDown { click_count: 2, .. },
                ..
            }
        )),
        "{cmds:?}"
    );
}

#[test]
fn clicking_the_omnibox_takes_focus_from_the_page() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    let cmds = h.click(controls::OMNIBOX);
    assert!(!h.chrome.page_focused());
    assert!(
        cmds.contains(&UiCommand::PageFocus {
            tab: TabId(1),
            focused: false
        }),
        "{cmds:?}"
    );
    let cmds = h.type_text("abc");
    assert!(cmds.iter().all(|c| !matches!(c, UiCommand::Page { .. })));
}

#[test]
fn resize_reports_page_area_and_scale_once() {
    let mut h = Harness {
        ctx: egui::Context::default(),
        chrome: Chrome::new(),
        model: model(),
        time: 0.0,
        ppp: 1.5,
        uploaded_page: false,
        cursor: egui::CursorIcon::Default,
        ime: false,
        texts: Vec::new(),
        images: Vec::new(),
        copied: Vec::new(),
    };
    let first = h.frame(vec![]);
    let resize: Vec<_> = first
        .iter()
        .filter(|c| matches!(c, UiCommand::Resize { .. }))
        .collect();
    assert_eq!(resize.len(), 1);
    let UiCommand::Resize { width, height, scale } = resize[0] else {
        unreachable!()
    };
    assert_eq!(*scale, 1.5);
    assert!((900..=1000).contains(width), "{width}");
    assert!((500..700).contains(height), "{height}");
    let again = h.frame(vec![]);
    assert!(
        again.iter().all(|c| !matches!(c, UiCommand::Resize { .. })),
        "only changes are reported"
    );
}

#[test]
fn texture_uploads_only_when_generation_changes() {
    let mut h = Harness::new();
    let frame = |generation| PageFrame {
        width: 4,
        height: 2,
        bgra: vec![255u8; 32].into(),
        generation,
    };
    h.model.frame = Some(frame(1));
    h.frame(vec![]);
    let uploaded = |h: &Harness| h.uploaded_page;
    assert!(uploaded(&h));
    h.frame(vec![]);
    assert!(!uploaded(&h), "same generation must not re-upload");
    h.model.frame = Some(frame(2));
    h.frame(vec![]);
    assert!(uploaded(&h));
}

#[test]
fn new_tab_without_containers_does_nothing() {
    let mut h = Harness::new();
    h.model.containers.clear();
    assert!(without_noise(h.frame(press(Key::T, Modifiers::COMMAND))).is_empty());
}

#[test]
fn drags_started_in_the_page_stay_with_the_page() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    let start = page.min + vec2(10.0, 10.0);
    let outside = Pos2::new(page.center().x, 5.0); // over the tab strip
    h.frame(vec![Event::PointerMoved(start)]);
    h.frame(vec![Event::PointerButton {
        pos: start,
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    }]);
    let cmds = h.frame(vec![Event::PointerMoved(outside)]);
    let moved = cmds.iter().find_map(|c| match c {
        UiCommand::Page {
            input: PageInput::MouseMove { y, modifiers, .. },
            ..
        } => Some((*y, modifiers.left_button)),
        _ => None,
    });
    let (y, held) = moved.expect("move outside the page during a drag still goes to the page");
    assert!(y < 0.0, "coordinates are page-relative even outside it: {y}");
    assert!(held, "left button flag set while dragging");
    let cmds = h.frame(vec![Event::PointerButton {
        pos: outside,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    }]);
    assert!(cmds.iter().any(|c| matches!(c, UiCommand::Page { input: PageInput::MouseUp { modifiers, .. }, .. } if !modifiers.left_button)), "{cmds:?}");
    // After release, moves outside the page no longer go to it.
    let cmds = h.frame(vec![Event::PointerMoved(outside + vec2(1.0, 0.0))]);
    assert!(
        cmds.iter().all(|c| !matches!(
            c,
            UiCommand::Page {
                input: PageInput::MouseMove { .. },
                ..
            }
        )),
        "{cmds:?}"
    );
}

#[test]
fn many_tabs_keep_the_new_tab_button_on_screen() {
    let mut h = Harness::new();
    let base = h.model.tabs[0].clone();
    h.model.tabs = (1..=40)
        .map(|i| TabView {
            id: TabId(i),
            ..base.clone()
        })
        .collect();
    h.frame(vec![]);
    h.frame(vec![]);
    let plus = h.rect(controls::NEW_TAB);
    assert!(plus.max.x <= 1000.0, "new-tab button pushed off-screen: {plus:?}");
    // Activating the last tab scrolls it into view.
    h.model.active = Some(TabId(40));
    for _ in 0..3 {
        h.frame(vec![]);
    }
    let last = h.rect(&tab_control(TabId(40)));
    assert!(
        last.min.x >= 0.0 && last.max.x <= plus.min.x + 1.0,
        "active tab not scrolled into view: {last:?}"
    );
}

#[test]
fn external_texture_skips_the_cpu_upload() {
    let mut h = Harness::new();
    h.model.frame = Some(PageFrame {
        width: 4,
        height: 2,
        bgra: vec![255u8; 32].into(),
        generation: 7,
    });
    h.chrome
        .set_external_page_texture(Some(aperture_ui::chrome::ExternalPageTexture {
            id: egui::TextureId::User(1),
            size: [4, 2],
            generation: 7,
        }));
    h.frame(vec![]);
    assert!(!h.uploaded_page, "renderer already has this frame");
    // A newer frame the renderer hasn't uploaded falls back to the CPU path.
    h.model.frame = Some(PageFrame {
        width: 4,
        height: 2,
        bgra: vec![0u8; 32].into(),
        generation: 8,
    });
    h.frame(vec![]);
    assert!(h.uploaded_page);
}

#[test]
fn cursor_follows_the_page_and_ime_is_enabled_for_it() {
    let mut h = Harness::new();
    h.model.cursor = aperture_ui::CursorShape::Text;
    let page = h.rect(controls::PAGE);
    h.frame(vec![Event::PointerMoved(page.center())]);
    assert_eq!(h.cursor, egui::CursorIcon::Text);
    h.model.cursor = aperture_ui::CursorShape::Pointer;
    h.frame(vec![]);
    assert_eq!(h.cursor, egui::CursorIcon::PointingHand);
    // Over the chrome the page's cursor doesn't apply.
    h.frame(vec![Event::PointerMoved(Pos2::new(500.0, 5.0))]);
    assert_ne!(h.cursor, egui::CursorIcon::PointingHand);

    assert!(!h.ime);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.ime, "page focus must ask the platform for IME");
    let cmds = h.frame(vec![
        Event::Ime(egui::ImeEvent::Preedit {
            text: "にほ".into(),
            active_range_chars: None,
        }),
        Event::Ime(egui::ImeEvent::Commit("日本".into())),
    ]);
    let ime: Vec<_> = cmds
        .into_iter()
        .filter_map(|c| match c {
            UiCommand::Page { input, .. } => Some(input),
            _ => None,
        })
        .collect();
    assert_eq!(
        ime,
        vec![
            PageInput::ImeComposition {
                text: "にほ".into()
            },
            PageInput::ImeCommit {
                text: "日本".into()
            }
        ]
    );
}

#[test]
fn ctrl_plus_does_not_zoom_the_chrome() {
    let mut h = Harness::new();
    h.click(controls::OMNIBOX);
    let before = h.ctx.pixels_per_point();
    h.frame(press(Key::Plus, Modifiers::COMMAND));
    h.frame(press(Key::Equals, Modifiers::COMMAND));
    h.frame(vec![]);
    assert_eq!(h.ctx.pixels_per_point(), before);
}

// ---- JavaScript dialogs ----

fn dialog(kind: DialogKind, message: &str) -> DialogView {
    DialogView {
        tab: TabId(1),
        id: 7,
        kind,
        origin: "127.0.0.1:8080".into(),
        message: message.into(),
        default_text: String::new(),
        offer_suppress: false,
        logins: Vec::new(),
    }
}

fn page_inputs(cmds: &[UiCommand]) -> Vec<&PageInput> {
    cmds.iter()
        .filter_map(|c| match c {
            UiCommand::Page { input, .. } => Some(input),
            _ => None,
        })
        .collect()
}

/// Page input other than the pointer leaving (which a sheet appearing may
/// legitimately send).
fn real_page_inputs(cmds: &[UiCommand]) -> Vec<&PageInput> {
    page_inputs(cmds)
        .into_iter()
        .filter(|i| !matches!(i, PageInput::MouseLeave { .. }))
        .collect()
}

#[test]
fn alert_sheet_names_the_origin_over_the_page_and_ok_answers_once() {
    let mut h = Harness::new();
    h.model.dialog = Some(dialog(DialogKind::Alert, "Hello from the page"));
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.shows("127.0.0.1:8080 says"), "{:?}", h.texts);
    assert!(h.shows("Hello from the page"));
    let sheet = h.rect(controls::DIALOG);
    let page = h.rect(controls::PAGE);
    assert!(
        page.expand(1.0).contains_rect(sheet) && (sheet.min.y - page.min.y).abs() < 1.0,
        "sheet {sheet:?} must hang from the top of the page {page:?}"
    );
    assert!(h.has(controls::DIALOG_OK));
    assert!(!h.has(controls::DIALOG_CANCEL), "alert has OK only");
    assert!(!h.has(controls::DIALOG_TEXT));
    assert!(!h.has(controls::DIALOG_SUPPRESS));
    let cmds = without_noise(h.click(controls::DIALOG_OK));
    assert_eq!(
        cmds,
        vec![UiCommand::AnswerDialog {
            tab: TabId(1),
            id: 7,
            accept: true,
            text: None,
            login: None,
            suppress: false
        }]
    );
    // The app hasn't cleared it yet: the sheet is gone all the same and a
    // second Enter does not answer again.
    assert!(!h.has(controls::DIALOG));
    let cmds = h.frame(press(Key::Enter, Modifiers::NONE));
    assert!(
        cmds.iter().all(|c| !matches!(c, UiCommand::AnswerDialog { .. })),
        "{cmds:?}"
    );
    // A new dialog (new id) shows again.
    h.model.dialog = Some(DialogView {
        id: 8,
        ..dialog(DialogKind::Alert, "again")
    });
    h.frame(vec![]);
    assert!(h.has(controls::DIALOG));
}

#[test]
fn prompt_is_prefilled_focused_and_enter_sends_the_text() {
    let mut h = Harness::new();
    h.model.dialog = Some(DialogView {
        default_text: "draft".into(),
        ..dialog(DialogKind::Prompt, "Your name?")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::DIALOG_TEXT));
    assert!(h.has(controls::DIALOG_CANCEL));
    // Focused with the default selected: typing replaces it.
    let cmds = h.type_text("Ada");
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::AnswerDialog {
            tab: TabId(1),
            id: 7,
            accept: true,
            text: Some("Ada".into()),
            login: None,
            suppress: false
        }]
    );
}

#[test]
fn a_sign_in_takes_a_username_then_a_password_and_sends_the_login() {
    let mut h = Harness::new();
    h.model.dialog = Some(DialogView {
        origin: "http://intranet.example:8080".into(),
        ..dialog(DialogKind::SignIn { proxy: false }, "Staff area")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::DIALOG_USER) && h.has(controls::DIALOG_PASSWORD));
    assert!(!h.has(controls::DIALOG_TEXT));
    // The username field has the focus; Tab moves to the password.
    let cmds = h.type_text("ada");
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    h.frame(press(Key::Tab, Modifiers::NONE));
    h.type_text("pa:ss");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::AnswerDialog {
            tab: TabId(1),
            id: 7,
            accept: true,
            text: None,
            login: Some(("ada".into(), "pa:ss".into())),
            suppress: false
        }]
    );
    // Escape cancels another, sending no login.
    h.model.dialog = Some(DialogView {
        id: 8,
        ..dialog(DialogKind::SignIn { proxy: true }, "")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    h.type_text("someone");
    let cmds = without_noise(h.frame(press(Key::Escape, Modifiers::NONE)));
    assert!(
        matches!(
            &cmds[..],
            [UiCommand::AnswerDialog {
                id: 8,
                accept: false,
                login: None,
                ..
            }]
        ),
        "{cmds:?}"
    );
}

#[test]
fn a_sign_in_offers_saved_logins_and_one_click_answers_with_it() {
    let mut h = Harness::new();
    h.model.dialog = Some(DialogView {
        logins: vec![aperture_ui::LoginOffer {
            entry: "e-1".into(),
            label: "Intranet".into(),
            username: "ada".into(),
        }],
        ..dialog(DialogKind::SignIn { proxy: false }, "Staff area")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    let saved = format!("{}:0", controls::DIALOG_SAVED);
    assert!(h.has(&saved));
    let cmds = without_noise(h.click(&saved));
    assert_eq!(
        cmds,
        vec![UiCommand::SignInWithSaved {
            tab: TabId(1),
            id: 7,
            entry: "e-1".into()
        }]
    );
    // Answered: the sheet is gone until the app shows another.
    h.frame(vec![]);
    assert!(!h.has(controls::DIALOG_USER));
}

#[test]
fn prompt_untouched_sends_its_default_and_cancel_sends_no_text() {
    let mut h = Harness::new();
    h.model.dialog = Some(DialogView {
        default_text: "draft".into(),
        ..dialog(DialogKind::Prompt, "?")
    });
    h.frame(vec![]);
    let cmds = without_noise(h.click(controls::DIALOG_OK));
    assert!(
        matches!(&cmds[..], [UiCommand::AnswerDialog { accept: true, text: Some(t), .. }] if t == "draft"),
        "{cmds:?}"
    );
    h.model.dialog = Some(DialogView {
        id: 9,
        ..dialog(DialogKind::Prompt, "?")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    h.type_text("typed");
    let cmds = without_noise(h.click(controls::DIALOG_CANCEL));
    assert_eq!(
        cmds,
        vec![UiCommand::AnswerDialog {
            tab: TabId(1),
            id: 9,
            accept: false,
            text: None,
            login: None,
            suppress: false
        }]
    );
}

#[test]
fn escape_cancels_a_confirm_and_beforeunload_says_leave_or_stay() {
    let mut h = Harness::new();
    h.model.dialog = Some(dialog(DialogKind::Confirm, "Sure?"));
    h.frame(vec![]);
    let cmds = without_noise(h.frame(press(Key::Escape, Modifiers::NONE)));
    assert!(
        matches!(
            &cmds[..],
            [UiCommand::AnswerDialog {
                accept: false,
                text: None,
                ..
            }]
        ),
        "{cmds:?}"
    );
    h.model.dialog = Some(DialogView {
        id: 10,
        ..dialog(DialogKind::BeforeUnload, "")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.shows("Leave") && h.shows("Stay"), "{:?}", h.texts);
    assert!(!h.shows("OK"));
    let cmds = without_noise(h.click(controls::DIALOG_CANCEL));
    assert!(
        matches!(
            &cmds[..],
            [UiCommand::AnswerDialog {
                id: 10,
                accept: false,
                ..
            }]
        ),
        "Stay must not leave: {cmds:?}"
    );
}

#[test]
fn suppress_checkbox_is_offered_and_sent() {
    let mut h = Harness::new();
    h.model.dialog = Some(DialogView {
        offer_suppress: true,
        ..dialog(DialogKind::Alert, "spam")
    });
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.shows("Don't let this page open more dialogs"));
    h.click(controls::DIALOG_SUPPRESS);
    let cmds = without_noise(h.click(controls::DIALOG_OK));
    assert!(
        matches!(
            &cmds[..],
            [UiCommand::AnswerDialog {
                accept: true,
                suppress: true,
                ..
            }]
        ),
        "{cmds:?}"
    );
}

#[test]
fn a_dialog_blocks_page_input_but_not_the_chrome() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    h.model.dialog = Some(dialog(DialogKind::Confirm, "Sure?"));
    let cmds = h.frame(vec![]);
    assert!(
        cmds.contains(&UiCommand::PageFocus {
            tab: TabId(1),
            focused: false
        }),
        "the page loses keyboard focus to the sheet: {cmds:?}"
    );
    // Clicks, moves, wheel and keys on the page area outside the sheet.
    let below = pos2(page.center().x, page.max.y - 20.0);
    let mut cmds = h.click_at(below, PointerButton::Primary);
    cmds.extend(h.frame(vec![Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: vec2(0.0, -1.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: Modifiers::NONE,
    }]));
    cmds.extend(h.frame(press(Key::A, Modifiers::NONE)));
    cmds.extend(h.type_text("a"));
    assert!(real_page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert!(cmds.iter().all(|c| !matches!(c, UiCommand::AnswerDialog { .. })));
    // The tab strip still works…
    let cmds = without_noise(h.click(&tab_control(TabId(2))));
    assert_eq!(cmds, vec![UiCommand::SelectTab { tab: TabId(2) }]);
    // …and so does the omnibox, whose Enter navigates rather than answering.
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.type_text("example.org");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert!(matches!(&cmds[..], [UiCommand::Navigate { .. }]), "{cmds:?}");
}

#[test]
fn answering_gives_the_keyboard_back_to_the_page() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    h.model.dialog = Some(dialog(DialogKind::Alert, "hi"));
    h.frame(vec![]);
    let cmds = h.frame(press(Key::Enter, Modifiers::NONE));
    assert!(
        cmds.iter()
            .any(|c| matches!(c, UiCommand::AnswerDialog { accept: true, .. }))
    );
    // The Enter that answered never reaches the page.
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert!(
        cmds.contains(&UiCommand::PageFocus {
            tab: TabId(1),
            focused: true
        }),
        "{cmds:?}"
    );
    h.model.dialog = None;
    h.frame(vec![]);
    let cmds = h.frame(press(Key::B, Modifiers::NONE));
    assert_eq!(real_page_inputs(&cmds).len(), 2, "{cmds:?}");
}

#[test]
fn a_background_tabs_dialog_waits_for_its_tab() {
    let mut h = Harness::new();
    h.model.dialog = Some(DialogView {
        tab: TabId(2),
        ..dialog(DialogKind::Alert, "from tab 2")
    });
    h.frame(vec![]);
    assert!(!h.has(controls::DIALOG));
    let page = h.rect(controls::PAGE);
    let cmds = h.click_at(page.center(), PointerButton::Primary);
    assert!(
        real_page_inputs(&cmds)
            .iter()
            .any(|i| matches!(i, PageInput::MouseDown { .. })),
        "{cmds:?}"
    );
    h.model.active = Some(TabId(2));
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::DIALOG));
    assert!(h.shows("from tab 2"));
}

// ---- Context menu ----

fn menu_at(x: f32, y: f32) -> ContextMenuView {
    ContextMenuView {
        tab: TabId(1),
        x,
        y,
        link_url: None,
        image_url: None,
        selection: None,
        editable: false,
        misspelled: None,
        suggestions: Vec::new(),
        can_back: true,
        can_forward: false,
    }
}

fn open_menu(h: &mut Harness, m: ContextMenuView) {
    h.model.context_menu = Some(m);
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::CONTEXT_MENU), "menu should be open");
}

#[test]
fn page_context_menu_opens_at_the_point_and_items_close_it() {
    let mut h = Harness::new();
    open_menu(&mut h, menu_at(100.0, 50.0));
    let page = h.rect(controls::PAGE);
    let menu = h.rect(controls::CONTEXT_MENU);
    let at = page.min + vec2(100.0, 50.0);
    assert!(
        (menu.min - at).length() < 2.0,
        "menu {menu:?} should open at {at:?}"
    );
    for item in [
        controls::CTX_BACK,
        controls::CTX_FORWARD,
        controls::CTX_RELOAD,
        controls::CTX_SAVE_PAGE,
        controls::CTX_PRINT,
        controls::CTX_VIEW_SOURCE,
        controls::CTX_INSPECT,
    ] {
        assert!(h.has(item), "{item}");
    }
    assert!(!h.has(controls::CTX_OPEN_LINK) && !h.has(controls::CTX_COPY));
    assert!(
        !h.has(controls::CTX_SEARCH),
        "nothing selected, nothing to search"
    );
    for (item, want) in [
        (controls::CTX_SAVE_PAGE, UiCommand::SavePage { tab: TabId(1) }),
        (controls::CTX_PRINT, UiCommand::Print { tab: TabId(1) }),
        (
            controls::CTX_INSPECT,
            UiCommand::Inspect {
                tab: TabId(1),
                x: 100.0,
                y: 50.0,
            },
        ),
    ] {
        assert_eq!(
            without_noise(h.click(item)),
            vec![want, UiCommand::CloseContextMenu],
            "{item}"
        );
        h.model.context_menu = None;
        h.frame(vec![]);
        open_menu(&mut h, menu_at(100.0, 50.0));
    }
    // Forward is disabled: clicking it does nothing and the menu stays.
    assert!(without_noise(h.click(controls::CTX_FORWARD)).is_empty());
    assert!(h.has(controls::CONTEXT_MENU));
    assert_eq!(
        without_noise(h.click(controls::CTX_VIEW_SOURCE)),
        vec![
            UiCommand::ViewSource { tab: TabId(1) },
            UiCommand::CloseContextMenu
        ]
    );
    assert!(!h.has(controls::CONTEXT_MENU), "closed before the app clears it");
    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, menu_at(100.0, 50.0));
    assert_eq!(
        without_noise(h.click(controls::CTX_BACK)),
        vec![UiCommand::Back { tab: TabId(1) }, UiCommand::CloseContextMenu]
    );
}

#[test]
fn link_context_menu_opens_in_new_and_container_tabs_and_copies() {
    let mut h = Harness::new();
    let link = ContextMenuView {
        link_url: Some("https://example.com/a".into()),
        ..menu_at(40.0, 40.0)
    };
    open_menu(&mut h, link.clone());
    assert!(!h.has(controls::CTX_BACK), "page items are for the bare page");
    assert_eq!(
        without_noise(h.click(controls::CTX_INSPECT)),
        vec![
            UiCommand::Inspect {
                tab: TabId(1),
                x: 40.0,
                y: 40.0
            },
            UiCommand::CloseContextMenu
        ],
        "Inspect is under every menu"
    );
    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, link.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_OPEN_LINK)),
        vec![
            UiCommand::OpenInNewTab {
                url: "https://example.com/a".into(),
                container: None,
                background: true
            },
            UiCommand::CloseContextMenu
        ]
    );
    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, link.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_COPY_LINK)),
        vec![
            UiCommand::CopyText {
                text: "https://example.com/a".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    // And the text is on its way to the system clipboard (the runner hands egui's copies to it).
    assert_eq!(h.copied.last().map(String::as_str), Some("https://example.com/a"));
    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, link.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_SAVE_LINK)),
        vec![
            UiCommand::SaveUrl {
                url: "https://example.com/a".into()
            },
            UiCommand::CloseContextMenu
        ],
        "Save link as… downloads what the link points at"
    );
    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, link.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_OPEN_LINK_PRIVATE)),
        vec![
            UiCommand::OpenInPrivateTab {
                url: "https://example.com/a".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, link);
    // The submenu lists the model's containers.
    assert!(without_noise(h.click(controls::CTX_OPEN_LINK_IN)).is_empty());
    let row = context_container_control("banking");
    assert!(h.has(&row), "submenu should list containers");
    assert_eq!(
        without_noise(h.click(&row)),
        vec![
            UiCommand::OpenInNewTab {
                url: "https://example.com/a".into(),
                container: Some("banking".into()),
                background: true
            },
            UiCommand::CloseContextMenu
        ]
    );
}

#[test]
fn image_selection_and_editable_menus() {
    let mut h = Harness::new();
    let reopen = |h: &mut Harness, m: ContextMenuView| {
        h.model.context_menu = None;
        h.frame(vec![]);
        open_menu(h, m);
    };
    let image = ContextMenuView {
        image_url: Some("https://example.com/i.png".into()),
        ..menu_at(10.0, 10.0)
    };
    reopen(&mut h, image.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_SAVE_IMAGE)),
        vec![
            UiCommand::SaveUrl {
                url: "https://example.com/i.png".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    reopen(&mut h, image.clone());
    assert!(matches!(
        &without_noise(h.click(controls::CTX_COPY_IMAGE))[..],
        [UiCommand::CopyText { text }, UiCommand::CloseContextMenu] if text == "https://example.com/i.png"
    ));
    reopen(&mut h, image);
    assert!(matches!(
        &without_noise(h.click(controls::CTX_OPEN_IMAGE))[..],
        [UiCommand::OpenInNewTab { url, container: None, .. }, UiCommand::CloseContextMenu] if url == "https://example.com/i.png"
    ));

    reopen(
        &mut h,
        ContextMenuView {
            selection: Some("some words".into()),
            ..menu_at(10.0, 10.0)
        },
    );
    assert!(!h.has(controls::CTX_PASTE), "no editing items outside a field");
    assert_eq!(
        without_noise(h.click(controls::CTX_COPY)),
        vec![
            UiCommand::CopyText {
                text: "some words".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    // The selection searched with the human's engine, in a new tab in front; a long one is
    // quoted short, on one line.
    let long = "A selection\nover two lines that runs on well past thirty characters";
    reopen(
        &mut h,
        ContextMenuView {
            selection: Some(long.into()),
            ..menu_at(10.0, 10.0)
        },
    );
    assert!(
        h.shows("Search DuckDuckGo for “A selection over two lines tha…”"),
        "{:?}",
        h.texts
    );
    assert!(matches!(
        &without_noise(h.click(controls::CTX_SEARCH))[..],
        [UiCommand::OpenInNewTab { url, container: None, background: false }, UiCommand::CloseContextMenu]
            if url.starts_with("https://duckduckgo.com/?q=A+selection+over+two+lines")
    ));

    let field = ContextMenuView {
        editable: true,
        ..menu_at(10.0, 10.0)
    };
    reopen(&mut h, field.clone());
    // Nothing selected: Cut and Copy are disabled.
    assert!(without_noise(h.click(controls::CTX_CUT)).is_empty());
    assert!(without_noise(h.click(controls::CTX_EDIT_COPY)).is_empty());
    let edit = |op| UiCommand::Edit { tab: TabId(1), op };
    assert_eq!(
        without_noise(h.click(controls::CTX_PASTE)),
        vec![edit(EditOp::Paste), UiCommand::CloseContextMenu]
    );
    reopen(&mut h, field.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_SELECT_ALL)),
        vec![edit(EditOp::SelectAll), UiCommand::CloseContextMenu]
    );
    reopen(
        &mut h,
        ContextMenuView {
            selection: Some("x".into()),
            ..field
        },
    );
    assert_eq!(
        without_noise(h.click(controls::CTX_CUT)),
        vec![edit(EditOp::Cut), UiCommand::CloseContextMenu]
    );
}

/// A marked word's menu leads with spellcheck's suggestions (at most five) and "Add to
/// dictionary"; with none, it says so; an unmarked field has neither.
#[test]
fn a_misspelled_words_menu_offers_its_replacements_and_the_dictionary() {
    let mut h = Harness::new();
    let reopen = |h: &mut Harness, m: ContextMenuView| {
        h.model.context_menu = None;
        h.frame(vec![]);
        open_menu(h, m);
    };
    let field = ContextMenuView {
        editable: true,
        misspelled: Some("mispeled".into()),
        suggestions: [
            "misspelled",
            "dispelled",
            "spelled",
            "misspell",
            "misled",
            "mislead",
        ]
        .map(String::from)
        .to_vec(),
        ..menu_at(10.0, 10.0)
    };
    open_menu(&mut h, field.clone());
    assert!(h.shows("misspelled") && h.shows("misled"));
    assert!(!h.shows("mislead"), "a sixth suggestion is not shown");
    // The suggestions come first: above the editing items.
    assert!(h.rect(controls::CTX_SPELL_FIRST).max.y <= h.rect(controls::CTX_UNDO).min.y);
    assert_eq!(
        without_noise(h.click(controls::CTX_SPELL_FIRST)),
        vec![
            UiCommand::ReplaceMisspelling {
                tab: TabId(1),
                word: "misspelled".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    reopen(&mut h, field.clone());
    assert_eq!(
        without_noise(h.click(&aperture_ui::chrome::spelling_control(2))),
        vec![
            UiCommand::ReplaceMisspelling {
                tab: TabId(1),
                word: "spelled".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    reopen(&mut h, field.clone());
    assert_eq!(
        without_noise(h.click(controls::CTX_ADD_WORD)),
        vec![
            UiCommand::AddToDictionary {
                tab: TabId(1),
                word: "mispeled".into()
            },
            UiCommand::CloseContextMenu
        ]
    );
    reopen(
        &mut h,
        ContextMenuView {
            suggestions: Vec::new(),
            ..field.clone()
        },
    );
    assert!(h.shows("No spelling suggestions"));
    assert!(h.has(controls::CTX_ADD_WORD));
    reopen(
        &mut h,
        ContextMenuView {
            misspelled: None,
            suggestions: Vec::new(),
            ..field
        },
    );
    assert!(!h.has(controls::CTX_ADD_WORD) && !h.has(controls::CTX_SPELL_FIRST));
}

#[test]
fn escape_or_a_click_outside_closes_the_menu_and_the_page_gets_neither() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    open_menu(&mut h, menu_at(100.0, 50.0));
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    assert_eq!(without_noise(cmds.clone()), vec![UiCommand::CloseContextMenu]);
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert!(!h.has(controls::CONTEXT_MENU));

    h.model.context_menu = None;
    h.frame(vec![]);
    open_menu(&mut h, menu_at(100.0, 50.0));
    // Keys typed while it's open don't reach the page.
    let cmds = h.frame(press(Key::A, Modifiers::NONE));
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    let cmds = h.click_at(pos2(page.max.x - 30.0, page.max.y - 30.0), PointerButton::Primary);
    assert_eq!(without_noise(cmds.clone()), vec![UiCommand::CloseContextMenu]);
    assert!(real_page_inputs(&cmds).is_empty(), "{cmds:?}");
    // Once closed, the page gets clicks again.
    h.model.context_menu = None;
    let cmds = h.click_at(page.center(), PointerButton::Primary);
    assert!(
        real_page_inputs(&cmds)
            .iter()
            .any(|i| matches!(i, PageInput::MouseDown { .. }))
    );
}

#[test]
fn the_right_release_that_follows_the_menu_keeps_it_open() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    let at = page.min + vec2(200.0, 100.0);
    h.frame(vec![Event::PointerMoved(at)]);
    let btn = |pressed| Event::PointerButton {
        pos: at,
        button: PointerButton::Secondary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    let cmds = h.frame(vec![btn(true)]);
    assert!(page_inputs(&cmds).iter().any(|i| matches!(
        i,
        PageInput::MouseDown {
            button: MouseButton::Right,
            ..
        }
    )));
    // CEF answers the press with a menu before the release.
    h.model.context_menu = Some(menu_at(200.0, 100.0));
    h.frame(vec![]);
    let cmds = h.frame(vec![btn(false)]);
    assert!(
        page_inputs(&cmds).iter().any(|i| matches!(
            i,
            PageInput::MouseUp {
                button: MouseButton::Right,
                ..
            }
        )),
        "the page must see the release of its press: {cmds:?}"
    );
    h.frame(vec![]);
    assert!(!cmds.contains(&UiCommand::CloseContextMenu), "{cmds:?}");
    assert!(h.has(controls::CONTEXT_MENU));
}

#[test]
fn a_menu_near_the_corner_stays_in_the_window() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    open_menu(&mut h, menu_at(page.width() - 5.0, page.height() - 5.0));
    h.frame(vec![]);
    let menu = h.rect(controls::CONTEXT_MENU);
    let window = Rect::from_min_size(Pos2::ZERO, vec2(1000.0, 700.0));
    assert!(window.contains_rect(menu), "{menu:?}");
}

// ---- Downloads ----

fn download(id: u32, name: &str, received: u64, total: Option<u64>, state: DownloadState) -> DownloadView {
    DownloadView {
        id,
        name: name.into(),
        received,
        total,
        state,
        path: None,
        paused: false,
    }
}

#[test]
fn downloads_button_appears_with_a_progress_ring() {
    let mut h = Harness::new();
    assert!(!h.has(controls::DOWNLOADS), "no button without downloads");
    assert_eq!(h.chrome.download_badge(), None);
    h.model.downloads = vec![download(
        1,
        "big.iso",
        256 * 1024,
        Some(1024 * 1024),
        DownloadState::InProgress,
    )];
    h.frame(vec![]);
    assert!(h.has(controls::DOWNLOADS));
    let badge = h.chrome.download_badge().expect("badge");
    assert_eq!(badge.in_progress, 1);
    assert_eq!(badge.fraction, Some(0.25));
    assert!(!badge.unseen);
    // Unknown size: still running, no fraction.
    h.model.downloads[0].total = None;
    h.frame(vec![]);
    let badge = h.chrome.download_badge().unwrap();
    assert_eq!((badge.in_progress, badge.fraction), (1, None));
}

#[test]
fn downloads_panel_lists_progress_and_offers_cancel_show_remove() {
    let mut h = Harness::new();
    h.model.downloads = vec![
        download(
            1,
            "report.pdf",
            3 * 1024 * 1024,
            Some(3 * 1024 * 1024),
            DownloadState::Complete,
        ),
        download(
            2,
            "big.iso",
            256 * 1024,
            Some(1024 * 1024),
            DownloadState::InProgress,
        ),
        download(3, "gone.zip", 10, None, DownloadState::Failed("disk full".into())),
        download(4, "stopped.bin", 10, Some(100), DownloadState::Cancelled),
    ];
    h.frame(vec![]);
    assert!(!h.has(controls::DOWNLOADS_PANEL));
    assert!(without_noise(h.click(controls::DOWNLOADS)).is_empty());
    assert!(h.has(controls::DOWNLOADS_PANEL));
    for text in [
        "report.pdf",
        "Done · 3.0 MB",
        "big.iso",
        "256 KB of 1.0 MB",
        "Failed — disk full",
        "Cancelled",
    ] {
        assert!(h.shows(text), "{text} not in {:?}", h.texts);
    }
    // Cancel only while running; Show in folder only when complete; Remove
    // once finished.
    assert!(h.has(&download_control("cancel", 2)));
    assert!(!h.has(&download_control("cancel", 1)));
    assert!(!h.has(&download_control("remove", 2)));
    assert!(h.has(&download_control("show", 1)));
    assert!(!h.has(&download_control("show", 3)));
    assert!(h.has(&download_control("open", 1)));
    assert!(!h.has(&download_control("open", 2)) && !h.has(&download_control("open", 3)));
    assert!(h.has(&download_control("remove", 3)) && h.has(&download_control("remove", 4)));
    assert_eq!(
        without_noise(h.click(&download_control("cancel", 2))),
        vec![UiCommand::CancelDownload { id: 2 }]
    );
    // A running download pauses; a paused one says so and resumes.
    assert!(!h.has(&download_control("pause", 1)) && !h.has(&download_control("resume", 2)));
    assert_eq!(
        without_noise(h.click(&download_control("pause", 2))),
        vec![UiCommand::PauseDownload { id: 2, pause: true }]
    );
    let i = h.model.downloads.iter().position(|d| d.id == 2).unwrap();
    h.model.downloads[i].paused = true;
    h.frame(vec![]);
    assert!(h.shows("Paused · 256 KB of 1.0 MB"), "{:?}", h.texts);
    assert!(!h.has(&download_control("pause", 2)));
    assert_eq!(
        without_noise(h.click(&download_control("resume", 2))),
        vec![UiCommand::PauseDownload { id: 2, pause: false }]
    );
    h.model.downloads[i].paused = false;
    h.frame(vec![]);
    assert_eq!(
        without_noise(h.click(&download_control("show", 1))),
        vec![UiCommand::OpenDownloadsFolder]
    );
    assert_eq!(
        without_noise(h.click(&download_control("open", 1))),
        vec![UiCommand::OpenDownload { id: 1 }]
    );
    assert_eq!(
        without_noise(h.click(&download_control("remove", 4))),
        vec![UiCommand::RemoveDownload { id: 4 }]
    );
    assert_eq!(
        without_noise(h.click(controls::DOWNLOADS_FOLDER)),
        vec![UiCommand::OpenDownloadsFolder]
    );
    // Escape closes it; so does a click elsewhere.
    h.frame(press(Key::Escape, Modifiers::NONE));
    assert!(!h.has(controls::DOWNLOADS_PANEL));
    h.click(controls::DOWNLOADS);
    assert!(h.has(controls::DOWNLOADS_PANEL));
    h.click(controls::BACK);
    assert!(!h.has(controls::DOWNLOADS_PANEL));
    // The button toggles it.
    h.click(controls::DOWNLOADS);
    h.click(controls::DOWNLOADS);
    assert!(!h.has(controls::DOWNLOADS_PANEL));
}

#[test]
fn a_finished_download_shows_a_dot_until_the_panel_is_opened() {
    let mut h = Harness::new();
    h.model.downloads = vec![download(5, "a.txt", 5, Some(10), DownloadState::InProgress)];
    h.frame(vec![]);
    assert!(!h.chrome.download_badge().unwrap().unseen);
    h.model.downloads[0].state = DownloadState::Complete;
    h.model.downloads[0].received = 10;
    h.frame(vec![]);
    let badge = h.chrome.download_badge().unwrap();
    assert!(badge.unseen, "{badge:?}");
    assert_eq!(badge.in_progress, 0);
    h.click(controls::DOWNLOADS);
    h.frame(press(Key::Escape, Modifiers::NONE));
    assert!(!h.chrome.download_badge().unwrap().unseen, "seen once opened");
    // Another one finishing brings the dot back.
    h.model
        .downloads
        .push(download(6, "b.txt", 1, Some(1), DownloadState::Complete));
    h.frame(vec![]);
    assert!(h.chrome.download_badge().unwrap().unseen);
}

#[test]
fn human_sizes() {
    let mut h = Harness::new();
    h.model.downloads = vec![
        download(1, "a", 512, None, DownloadState::InProgress),
        download(2, "b", 1536, None, DownloadState::InProgress),
        download(3, "c", 5 * 1024 * 1024 * 1024, None, DownloadState::Complete),
    ];
    h.frame(vec![]);
    h.click(controls::DOWNLOADS);
    for text in ["512 B", "1.5 KB", "Done · 5.0 GB"] {
        assert!(h.shows(text), "{text} not in {:?}", h.texts);
    }
}

// ---- Permission prompt ----

fn permission(tab: u64) -> PermissionView {
    PermissionView {
        tab: TabId(tab),
        id: 42,
        origin: "maps.example.com".into(),
        kinds: vec!["know your location".into(), "show notifications".into()],
    }
}

#[test]
fn permission_bubble_hangs_under_the_omnibox_and_answers() {
    let mut h = Harness::new();
    h.model.permission = Some(permission(1));
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.shows("maps.example.com wants to:"), "{:?}", h.texts);
    assert!(h.shows("know your location") && h.shows("show notifications"));
    let bubble = h.rect(controls::PERMISSION);
    let omnibox = h.rect(controls::OMNIBOX);
    assert!(
        bubble.min.y >= omnibox.max.y && bubble.min.y - omnibox.max.y < 10.0,
        "bubble {bubble:?} under omnibox {omnibox:?}"
    );
    assert!((bubble.min.x - omnibox.min.x).abs() < 2.0);
    assert_eq!(
        without_noise(h.click(controls::PERMISSION_ALLOW)),
        vec![UiCommand::AnswerPermission { id: 42, allow: true }]
    );
    assert!(!h.has(controls::PERMISSION), "gone once answered");
    // The next request shows again; Block says no.
    h.model.permission = Some(PermissionView {
        id: 43,
        ..permission(1)
    });
    h.frame(vec![]);
    assert_eq!(
        without_noise(h.click(controls::PERMISSION_BLOCK)),
        vec![UiCommand::AnswerPermission { id: 43, allow: false }]
    );
}

#[test]
fn escape_dismisses_and_the_page_stays_usable_under_the_bubble() {
    let mut h = Harness::new();
    h.model.permission = Some(permission(1));
    h.frame(vec![]);
    h.frame(vec![]);
    // Not modal: the page still gets clicks away from the bubble.
    let page = h.rect(controls::PAGE);
    let cmds = h.click_at(pos2(page.max.x - 40.0, page.max.y - 40.0), PointerButton::Primary);
    assert!(
        real_page_inputs(&cmds)
            .iter()
            .any(|i| matches!(i, PageInput::MouseDown { .. }))
    );
    assert!(h.has(controls::PERMISSION));
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    assert_eq!(
        without_noise(cmds.clone()),
        vec![UiCommand::DismissPermission { id: 42 }]
    );
    assert!(
        page_inputs(&cmds).is_empty(),
        "Escape went to the bubble: {cmds:?}"
    );
}

#[test]
fn another_tabs_permission_request_waits() {
    let mut h = Harness::new();
    h.model.permission = Some(permission(2));
    h.frame(vec![]);
    assert!(!h.has(controls::PERMISSION));
    assert!(without_noise(h.frame(press(Key::Escape, Modifiers::NONE))).is_empty());
    h.model.active = Some(TabId(2));
    h.frame(vec![]);
    assert!(h.has(controls::PERMISSION));
}

// ---- Popup widgets (<select> lists) ----

#[test]
fn a_select_popup_is_drawn_over_the_page_where_cef_put_it_and_gets_input() {
    let mut h = Harness::with_scale(2.0);
    let white = |w: u32, h: u32, generation| PageFrame {
        width: w,
        height: h,
        bgra: vec![255u8; (w * h * 4) as usize].into(),
        generation,
    };
    h.model.frame = Some(white(40, 20, 1));
    h.frame(vec![]);
    assert!(!h.has(controls::POPUP));
    let page_images = h.images.clone();
    assert_eq!(page_images.len(), 1, "{page_images:?}");
    // A 100×60 DIP list at (30, 40), painted at scale 2.
    h.model.popup = Some(PopupView {
        rect: [30, 40, 100, 60],
        frame: white(200, 120, 1),
    });
    h.frame(vec![]);
    let page = h.rect(controls::PAGE);
    let expected = Rect::from_min_size(page.min + vec2(30.0, 40.0), vec2(100.0, 60.0));
    assert_eq!(h.images.len(), 2, "{:?}", h.images);
    let (page_tex, _) = h.images[0];
    let (popup_tex, popup_rect) = h.images[1];
    assert_ne!(
        popup_tex, page_tex,
        "its own texture, drawn after (over) the page"
    );
    assert!(
        (popup_rect.min - expected.min).length() < 0.01 && (popup_rect.max - expected.max).length() < 0.01,
        "{popup_rect:?} vs {expected:?}"
    );
    // Clicks inside it go to the page (CEF hands them to the popup), in
    // page coordinates.
    let cmds = h.click_at(expected.min + vec2(10.0, 15.0), PointerButton::Primary);
    let down = page_inputs(&cmds).into_iter().find_map(|i| match i {
        PageInput::MouseDown { x, y, .. } => Some((*x, *y)),
        _ => None,
    });
    assert_eq!(down, Some((40.0, 55.0)), "{cmds:?}");
    // Keys too (arrows move through the list).
    let cmds = h.frame(press(Key::ArrowDown, Modifiers::NONE));
    assert_eq!(real_page_inputs(&cmds).len(), 2, "{cmds:?}");
    // Closed: gone.
    h.model.popup = None;
    h.frame(vec![]);
    assert_eq!(h.images.len(), 1);
}

// ---- File chooser ----

/// a.png, b.txt, .hidden.png, sub/inner.png
fn chooser_dir() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for f in ["a.png", "b.txt", ".hidden.png"] {
        std::fs::write(t.path().join(f), b"x").unwrap();
    }
    std::fs::create_dir(t.path().join("sub")).unwrap();
    std::fs::write(t.path().join("sub/inner.png"), b"x").unwrap();
    t
}

fn chooser(mode: FileChooserMode, accept: &[&str], default_path: &std::path::Path) -> FileChooserView {
    FileChooserView {
        tab: TabId(1),
        id: 3,
        mode,
        title: String::new(),
        accept: accept.iter().map(|s| s.to_string()).collect(),
        default_path: Some(default_path.to_path_buf()),
    }
}

fn show_chooser(h: &mut Harness, f: FileChooserView) {
    h.model.file_chooser = Some(f);
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::FILE_CHOOSER));
}

fn done(cmds: Vec<UiCommand>) -> Vec<UiCommand> {
    without_noise(cmds)
        .into_iter()
        .filter(|c| matches!(c, UiCommand::FileChooserDone { .. }))
        .collect()
}

#[test]
fn file_chooser_lists_the_folder_filtered_by_accept_and_opens_one_file() {
    let t = chooser_dir();
    let mut h = Harness::new();
    show_chooser(&mut h, chooser(FileChooserMode::Open, &[".png"], t.path()));
    assert!(h.shows("Open file"), "default title: {:?}", h.texts);
    assert!(h.has(&file_entry_control("a.png")));
    assert!(h.has(&file_entry_control("sub")), "folders always listed");
    assert!(!h.has(&file_entry_control("b.txt")), "filtered by accept");
    assert!(!h.has(&file_entry_control(".hidden.png")), "dot files hidden");
    // Nothing chosen yet: Open does nothing.
    assert!(done(h.click(controls::FILE_OK)).is_empty());
    h.click(&file_entry_control("a.png"));
    assert_eq!(
        done(h.click(controls::FILE_OK)),
        vec![UiCommand::FileChooserDone {
            id: 3,
            paths: vec![t.path().join("a.png")]
        }]
    );
    assert!(!h.has(controls::FILE_CHOOSER), "gone once answered");
}

#[test]
fn file_chooser_multiple_show_all_and_folders() {
    let t = chooser_dir();
    let mut h = Harness::new();
    show_chooser(
        &mut h,
        chooser(FileChooserMode::OpenMultiple, &["image/*"], t.path()),
    );
    h.click(&file_entry_control("a.png"));
    h.click(controls::FILE_SHOW_ALL);
    assert!(h.has(&file_entry_control("b.txt")), "show all lifts the filter");
    h.click(&file_entry_control("b.txt"));
    assert_eq!(
        done(h.click(controls::FILE_OK)),
        vec![UiCommand::FileChooserDone {
            id: 3,
            paths: vec![t.path().join("a.png"), t.path().join("b.txt")]
        }]
    );

    // Into a folder and back up.
    h.model.file_chooser = None;
    h.frame(vec![]);
    show_chooser(&mut h, chooser(FileChooserMode::Open, &[], t.path()));
    h.click(&file_entry_control("sub"));
    assert!(h.has(&file_entry_control("inner.png")));
    assert!(!h.has(&file_entry_control("a.png")));
    h.click(controls::FILE_UP);
    assert!(h.has(&file_entry_control("a.png")));
}

/// Ctrl+O (and the menu's "Open file…") opens the browser's own picker over the page: a file
/// typed into its path field loads in the tab; a folder opens in the picker; Cancel closes it
/// and loads nothing. Keys meanwhile go to the picker, not the page.
#[test]
fn ctrl_o_opens_a_file_of_the_computer_in_the_tab() {
    let t = chooser_dir();
    let mut h = Harness::new();
    assert!(without_noise(shortcut(&mut h, Key::O, Modifiers::COMMAND)).is_empty());
    h.frame(vec![]);
    assert!(h.has(controls::FILE_CHOOSER), "Ctrl+O shows a picker");
    assert!(h.shows("Open file"));
    h.click(controls::FILE_CANCEL);
    h.frame(vec![]);
    assert!(!h.has(controls::FILE_CHOOSER), "Cancel closes it");
    shortcut(&mut h, Key::O, Modifiers::COMMAND);
    h.frame(vec![]);
    assert!(h.has(controls::FILE_CHOOSER));
    let cmds = without_noise(h.frame(press(Key::Escape, Modifiers::NONE)));
    h.frame(vec![]);
    assert!(!h.has(controls::FILE_CHOOSER), "Escape closes it too");
    assert!(cmds.is_empty(), "and sends nothing: {cmds:?}");

    h.click(controls::MAIN_MENU);
    assert!(without_noise(h.click(controls::MAIN_MENU_OPEN_FILE)).is_empty());
    h.frame(vec![]);
    assert!(h.has(controls::FILE_CHOOSER), "the menu's item shows it too");
    h.click(controls::FILE_PATH);
    h.frame(press(Key::A, Modifiers::COMMAND));
    let typed = h.type_text(&t.path().display().to_string());
    assert!(
        !typed.iter().any(|c| matches!(c, UiCommand::Page { .. })),
        "the page got the keys: {typed:?}"
    );
    h.frame(press(Key::Enter, Modifiers::NONE));
    h.frame(vec![]);
    assert!(
        h.has(&file_entry_control("a.png")),
        "a folder opens in the picker"
    );
    h.click(&file_entry_control("b.txt"));
    let cmds = without_noise(h.click(controls::FILE_OK));
    assert_eq!(
        cmds,
        vec![UiCommand::OpenFile {
            tab: TabId(1),
            path: t.path().join("b.txt")
        }]
    );
    h.frame(vec![]);
    assert!(!h.has(controls::FILE_CHOOSER), "gone once a file is picked");
}

#[test]
fn folder_mode_selects_the_folder_shown() {
    let t = chooser_dir();
    let mut h = Harness::new();
    show_chooser(&mut h, chooser(FileChooserMode::OpenFolder, &[], t.path()));
    assert!(h.shows("Select folder"));
    assert!(!h.has(&file_entry_control("a.png")), "folders only");
    h.click(&file_entry_control("sub"));
    assert_eq!(
        done(h.click(controls::FILE_OK)),
        vec![UiCommand::FileChooserDone {
            id: 3,
            paths: vec![t.path().join("sub")]
        }]
    );
}

#[test]
fn save_mode_takes_the_suggested_name_and_needs_one() {
    let t = chooser_dir();
    let mut h = Harness::new();
    show_chooser(&mut h, chooser(FileChooserMode::Save, &[], t.path()));
    assert!(h.has(controls::FILE_NAME));
    assert!(done(h.click(controls::FILE_OK)).is_empty(), "no name, no save");
    h.model.file_chooser = None;
    h.frame(vec![]);
    show_chooser(
        &mut h,
        FileChooserView {
            id: 4,
            ..chooser(FileChooserMode::Save, &[], &t.path().join("report.pdf"))
        },
    );
    assert_eq!(
        done(h.click(controls::FILE_OK)),
        vec![UiCommand::FileChooserDone {
            id: 4,
            paths: vec![t.path().join("report.pdf")]
        }]
    );
}

#[test]
fn the_path_field_opens_a_typed_folder() {
    let t = chooser_dir();
    let mut h = Harness::new();
    show_chooser(&mut h, chooser(FileChooserMode::Open, &[], t.path()));
    h.click(controls::FILE_PATH);
    h.frame(press(Key::A, Modifiers::COMMAND));
    h.type_text(&t.path().join("sub").to_string_lossy());
    let cmds = h.frame(press(Key::Enter, Modifiers::NONE));
    assert!(done(cmds).is_empty());
    h.frame(vec![]);
    assert!(h.has(&file_entry_control("inner.png")), "{:?}", h.texts);
}

#[test]
fn file_chooser_cancel_and_escape_send_no_paths_and_it_is_modal() {
    let t = chooser_dir();
    let mut h = Harness::new();
    show_chooser(&mut h, chooser(FileChooserMode::Open, &[], t.path()));
    let page = h.rect(controls::PAGE);
    let cmds = h.click_at(pos2(page.min.x + 5.0, page.max.y - 5.0), PointerButton::Primary);
    assert!(real_page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert_eq!(
        done(h.click(controls::FILE_CANCEL)),
        vec![UiCommand::FileChooserDone { id: 3, paths: vec![] }]
    );
    show_chooser(
        &mut h,
        FileChooserView {
            id: 5,
            ..chooser(FileChooserMode::Open, &[], t.path())
        },
    );
    assert_eq!(
        done(h.frame(press(Key::Escape, Modifiers::NONE))),
        vec![UiCommand::FileChooserDone { id: 5, paths: vec![] }]
    );
}

// ---- Fullscreen, print, notices ----

#[test]
fn fullscreen_gives_the_page_the_whole_window() {
    let mut h = Harness::new();
    let windowed = h.rect(controls::PAGE);
    assert!(windowed.min.y > 40.0);
    h.model.fullscreen = true;
    let cmds = h.frame(vec![]);
    h.frame(vec![]);
    assert!(
        !h.has(controls::OMNIBOX) && !h.has(&tab_control(TabId(1))),
        "no chrome"
    );
    let page = h.rect(controls::PAGE);
    assert_eq!(page, Rect::from_min_size(Pos2::ZERO, vec2(1000.0, 700.0)));
    assert!(
        cmds.contains(&UiCommand::Resize {
            width: 1000,
            height: 700,
            scale: 1.0
        }),
        "{cmds:?}"
    );
    h.model.fullscreen = false;
    h.frame(vec![]);
    assert!(h.has(controls::OMNIBOX));
}

#[test]
fn f11_toggles_and_escape_leaves_fullscreen_without_reaching_the_page() {
    let mut h = Harness::new();
    assert_eq!(
        without_noise(h.frame(press(Key::F11, Modifiers::NONE))),
        vec![UiCommand::ToggleFullscreen]
    );
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    // Not fullscreen: Escape is the page's.
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    assert_eq!(real_page_inputs(&cmds).len(), 2, "{cmds:?}");
    h.model.fullscreen = true;
    h.frame(vec![]);
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    assert_eq!(without_noise(cmds.clone()), vec![UiCommand::ExitFullscreen]);
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    // F11 works from the focused page too.
    let cmds = h.frame(press(Key::F11, Modifiers::NONE));
    assert_eq!(without_noise(cmds), vec![UiCommand::ToggleFullscreen]);
}

#[test]
fn ctrl_p_prints_the_active_tab() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert_eq!(
        via_page(&mut h, Key::P, Modifiers::COMMAND),
        vec![UiCommand::Print { tab: TabId(1) }]
    );
}

#[test]
fn notice_bar_shows_and_closes() {
    let mut h = Harness::new();
    assert!(!h.has(controls::NOTICE));
    h.model.notice = Some("Saved PDF to /home/me/Downloads/page.pdf".into());
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.shows("Saved PDF to /home/me/Downloads/page.pdf"));
    let bar = h.rect(controls::NOTICE);
    let page = h.rect(controls::PAGE);
    assert!(
        page.expand(1.0).contains_rect(bar) && (bar.max.y - page.max.y).abs() < 1.0,
        "along the page's bottom: {bar:?} in {page:?}"
    );
    assert_eq!(
        without_noise(h.click(controls::NOTICE_CLOSE)),
        vec![UiCommand::DismissNotice]
    );
    assert!(!h.has(controls::NOTICE), "hidden before the app clears it");
    h.model.notice = Some("Popup blocked".into());
    h.frame(vec![]);
    assert!(h.has(controls::NOTICE));
    assert!(h.shows("Popup blocked"));
}

#[test]
fn switching_tabs_under_an_open_menu_closes_it() {
    let mut h = Harness::new();
    open_menu(&mut h, menu_at(100.0, 50.0));
    // Ctrl+Tab (a shortcut, so the open menu doesn't take it) or the app
    // switching tabs: the menu's tab is no longer shown.
    let cmds = without_noise(h.frame(press(Key::Tab, Modifiers::CTRL)));
    assert_eq!(cmds, vec![UiCommand::SelectTab { tab: TabId(2) }]);
    h.model.active = Some(TabId(2));
    let cmds = without_noise(h.frame(vec![]));
    assert_eq!(cmds, vec![UiCommand::CloseContextMenu]);
    assert!(without_noise(h.frame(vec![])).is_empty(), "once");
    assert!(!h.has(controls::CONTEXT_MENU));
}

#[test]
fn a_new_tab_shows_the_most_visited_sites_and_a_tile_opens_its_page_there() {
    let mut h = Harness::new();
    let site = |url: &str, title: &str| aperture_ui::SiteTile {
        url: url.into(),
        title: title.into(),
        favicon: None,
    };
    h.model.new_tab_sites = vec![
        site("https://docs.rs/serde", "serde - Rust"),
        site("https://news.example/", ""),
    ];
    // Not on a page: the tiles are the new, empty tab's alone.
    h.frame(vec![]);
    assert!(!h.has(&aperture_ui::chrome::site_tile(0)));
    h.model.tabs[0].url = "about:blank".into();
    h.model.tabs[0].new_tab_page = true;
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(
        h.shows("serde - Rust") && h.shows("news.example"),
        "{:?}",
        h.texts
    );
    assert!(!h.has(&aperture_ui::chrome::site_tile(2)));
    let page = h.rect(controls::PAGE);
    let tile = h.rect(&aperture_ui::chrome::site_tile(1));
    assert!(page.contains_rect(tile), "{tile:?} in {page:?}");
    let cmds = h.click(&aperture_ui::chrome::site_tile(1));
    assert!(
        cmds.contains(&UiCommand::Navigate {
            tab: TabId(1),
            input: "https://news.example/".into(),
            url: "https://news.example/".into(),
        }),
        "{cmds:?}"
    );
    // The empty page under the tiles gets none of the click.
    assert!(
        !cmds.iter().any(|c| matches!(
            c,
            UiCommand::Page {
                input: PageInput::MouseDown { .. } | PageInput::MouseUp { .. },
                ..
            }
        )),
        "{cmds:?}"
    );
}

#[test]
fn a_tab_using_the_camera_or_microphone_shows_the_recording_mark() {
    let mut h = Harness::new();
    let mark = aperture_ui::chrome::tab_capture_control(TabId(1));
    assert!(!h.has(&mark));
    h.model.tabs[0].capturing = (false, true);
    h.frame(vec![]);
    assert!(h.has(&mark));
    let tab = h.rect(&tab_control(TabId(1)));
    assert!(tab.contains_rect(h.rect(&mark)), "the mark is in its tab");
    h.model.tabs[0].capturing = (false, false);
    h.frame(vec![]);
    assert!(!h.has(&mark), "the mark goes when the page stops");
}

#[test]
fn a_new_tab_tile_can_be_taken_off_the_page() {
    let mut h = Harness::new();
    h.model.tabs[0].url = "about:blank".into();
    h.model.tabs[0].new_tab_page = true;
    h.model.new_tab_sites = vec![aperture_ui::SiteTile {
        url: "https://news.example/".into(),
        title: "News".into(),
        favicon: None,
    }];
    h.frame(vec![]);
    h.frame(vec![]);
    let tile = aperture_ui::chrome::site_tile(0);
    let remove = aperture_ui::chrome::site_tile_remove(0);
    assert!(!h.has(&remove), "the mark shows only over the tile");
    let over = h.rect(&tile).center();
    h.frame(vec![Event::PointerMoved(over)]);
    h.frame(vec![]);
    assert!(h.has(&remove));
    let cmds = without_noise(h.click(&remove));
    assert_eq!(
        cmds,
        vec![UiCommand::HideSite {
            url: "https://news.example/".into()
        }],
        "the mark takes the site off, and does not open it"
    );

    // With the last tile gone, the page still offers the removal back, or every removal.
    h.model.new_tab_sites.clear();
    h.model.new_tab_removed = Some("https://news.example/".into());
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.shows("Site removed."));
    assert_eq!(
        without_noise(h.click(aperture_ui::chrome::SITE_UNDO)),
        vec![UiCommand::RestoreSites {
            url: Some("https://news.example/".into())
        }]
    );
    assert_eq!(
        without_noise(h.click(aperture_ui::chrome::SITE_RESTORE_ALL)),
        vec![UiCommand::RestoreSites { url: None }]
    );
    h.model.new_tab_removed = None;
    h.frame(vec![]);
    assert!(!h.has(aperture_ui::chrome::SITE_UNDO) && !h.has(&tile));
}

/// Quitting while downloads run asks first, as Chrome and Firefox do: the bar says how many
/// would be cancelled, and each answer is its command. No question, no bar.
#[test]
fn quitting_with_running_downloads_asks_first() {
    let mut h = Harness::new();
    h.frame(vec![]);
    assert!(!h.has(controls::QUIT_BAR));
    h.model.quit_with_downloads = 2;
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::QUIT_BAR));
    assert!(
        h.shows("2 downloads are still running. Quitting now cancels them."),
        "{:?}",
        h.texts
    );
    assert_eq!(
        without_noise(h.click(controls::QUIT_KEEP)),
        vec![UiCommand::AnswerQuit { quit: false }]
    );
    assert_eq!(
        without_noise(h.click(controls::QUIT_ANYWAY)),
        vec![UiCommand::AnswerQuit { quit: true }]
    );
    h.model.quit_with_downloads = 0;
    h.frame(vec![]);
    assert!(!h.has(controls::QUIT_BAR));

    // How a person quits: Ctrl+Shift+Q, or Exit at the end of the main menu.
    let quit = |cmds: Vec<UiCommand>| cmds.contains(&UiCommand::CloseRequested);
    assert!(quit(
        h.frame(press(Key::Q, Modifiers::COMMAND | Modifiers::SHIFT))
    ));
    assert!(
        !quit(h.frame(press(Key::Q, Modifiers::COMMAND))),
        "Ctrl+Q alone is not quit"
    );
    h.click(controls::MAIN_MENU);
    assert!(quit(h.click(controls::MAIN_MENU_EXIT)));
}

/// Every character of the main menu is one the window's fonts can draw: a missing glyph shows
/// as a box (the Exit item's power sign did).
#[test]
fn the_main_menu_has_no_character_the_fonts_lack() {
    let mut h = Harness::new();
    h.click(controls::MAIN_MENU);
    h.frame(vec![]);
    assert!(h.shows("Exit"), "{:?}", h.texts);
    let font = egui::FontId::proportional(14.0);
    let missing: Vec<String> = h
        .texts
        .clone()
        .into_iter()
        .filter(|t| !h.ctx.fonts_mut(|f| f.has_glyphs(&font, t)))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

/// A blank new tab is "New tab" in the strip and in the window's title, not "about:blank"; a
/// page with no title is its address.
#[test]
fn a_tab_is_called_by_its_title_or_new_tab() {
    let mut t = tab(1, "about:blank");
    t.title = "about:blank".into();
    assert_eq!(t.shown_title(), "New tab");
    t.title.clear();
    assert_eq!(t.shown_title(), "New tab");
    t.url = "https://example.com/x".into();
    assert_eq!(t.shown_title(), "https://example.com/x");
    t.title = " Example ".into();
    assert_eq!(t.shown_title(), "Example");
}

/// Escape closes the main menu even while the page has the keyboard, and the page does not
/// get it.
#[test]
fn escape_closes_the_main_menu_over_a_focused_page() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    h.click(controls::MAIN_MENU);
    h.frame(vec![]);
    assert!(h.has(controls::MAIN_MENU_EXIT), "the menu is open");
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    h.frame(vec![]);
    assert!(!h.has(controls::MAIN_MENU_EXIT), "Escape closed the menu");
    assert!(page_inputs(&cmds).is_empty(), "the page got Escape: {cmds:?}");
}
