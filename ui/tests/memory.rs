//! The browser-memory UI (issue 13) driven headlessly: find bar, zoom, tab shortcuts and
//! dragging, private tabs, bookmarks (star, menu, bar, actions, import), the history panel and
//! the omnibox's suggestions with inline completion.

#![forbid(unsafe_code)]

mod harness;

use std::time::{SystemTime, UNIX_EPOCH};

use aperture_ui::chrome::{
    ClearRange, bookmark_bar_control, bookmark_control, controls, history_delete_control,
    history_range_control, history_row_control, suggestion_control, tab_close_control, tab_control,
    tab_mute_control,
};
use aperture_ui::egui::{self, Event, Key, Modifiers, PointerButton, Pos2, vec2};
use aperture_ui::{
    BookmarkNode, FindView, HistoryRow, PageInput, Security, SuggestionView, TabId, TabView, UiCommand,
    ZoomStep,
};
use harness::*;

fn ctrl_shift() -> Modifiers {
    Modifiers {
        shift: true,
        ..Modifiers::COMMAND
    }
}

/// Commands that reached the page (keys, text, clicks; not moves).
fn page_inputs(cmds: &[UiCommand]) -> Vec<&PageInput> {
    cmds.iter()
        .filter_map(|c| match c {
            UiCommand::Page { input, .. }
                if !matches!(input, PageInput::MouseMove { .. } | PageInput::MouseLeave { .. }) =>
            {
                Some(input)
            }
            _ => None,
        })
        .collect()
}

fn focus_page(h: &mut Harness) {
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
}

fn find(text: &str, forward: bool, find_next: bool) -> UiCommand {
    UiCommand::Find {
        tab: TabId(1),
        text: text.into(),
        forward,
        find_next,
    }
}

fn settle(h: &mut Harness) -> Vec<UiCommand> {
    let mut cmds = h.frame(vec![]);
    cmds.extend(h.frame(vec![]));
    without_noise(cmds)
}

// ---- Find in page ----

#[test]
fn ctrl_f_opens_the_find_bar_and_typing_searches_without_reaching_the_page() {
    let mut h = Harness::new();
    focus_page(&mut h);
    // From the focused page, Ctrl+F goes to the page first (a web app may search itself).
    assert!(via_page(&mut h, Key::F, Modifiers::COMMAND).is_empty());
    settle(&mut h);
    assert!(h.has(controls::FIND_FIELD));
    assert!(!h.chrome.page_focused(), "keys must go to the find bar");
    // The bar hangs from the page's top edge, under the toolbar.
    let (bar, page) = (h.rect(controls::FIND), h.rect(controls::PAGE));
    assert!(
        (bar.min.y - page.min.y).abs() < 1.0 && bar.max.x <= page.max.x,
        "{bar:?} {page:?}"
    );

    let mut cmds = h.frame(vec![key(Key::C, Modifiers::NONE, true), Event::Text("c".into())]);
    cmds.extend(h.frame(vec![
        key(Key::C, Modifiers::NONE, false),
        Event::Text("at".into()),
    ]));
    assert!(
        page_inputs(&cmds).is_empty(),
        "typing in the find bar reached the page: {cmds:?}"
    );
    assert_eq!(
        without_noise(cmds),
        vec![find("c", true, false), find("cat", true, false)]
    );

    // Enter and Shift+Enter step through the matches; the field keeps the focus.
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(cmds, vec![find("cat", true, true)]);
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::SHIFT)));
    assert_eq!(cmds, vec![find("cat", false, true)]);
    let cmds = h.type_text("s");
    assert_eq!(without_noise(cmds), vec![find("cats", true, false)]);

    // The count is the app's, for the text typed.
    h.model.tabs[0].find = Some(FindView {
        text: "cats".into(),
        active: 3,
        count: 12,
        final_update: false,
    });
    h.frame(vec![]);
    assert!(h.shows("3 of 12"), "{:?}", h.texts);
    h.model.tabs[0].find = Some(FindView {
        text: "cats".into(),
        active: 0,
        count: 0,
        final_update: true,
    });
    h.frame(vec![]);
    assert!(h.shows("No results"));
    // A late result for an older text is not shown as this one's.
    h.model.tabs[0].find = Some(FindView {
        text: "cat".into(),
        active: 1,
        count: 2,
        final_update: true,
    });
    h.frame(vec![]);
    assert!(!h.shows("1 of 2") && !h.shows("No results"));

    // Escape closes the bar, clears the highlights and gives the keys back to the page.
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert_eq!(without_noise(cmds), vec![UiCommand::StopFind { tab: TabId(1) }]);
    h.frame(vec![]);
    assert!(!h.has(controls::FIND));
    assert!(h.chrome.page_focused());
}

#[test]
fn find_buttons_f3_and_an_emptied_field() {
    let mut h = Harness::new();
    h.frame(press(Key::F, Modifiers::COMMAND));
    h.frame(vec![]);
    h.type_text("dog");
    h.frame(vec![]);
    assert_eq!(
        without_noise(h.click(controls::FIND_NEXT)),
        vec![find("dog", true, true)]
    );
    assert_eq!(
        without_noise(h.click(controls::FIND_PREV)),
        vec![find("dog", false, true)]
    );
    // F3 / Shift+F3 / Ctrl+G work with the focus anywhere, the page included.
    focus_page(&mut h);
    assert_eq!(
        via_page(&mut h, Key::F3, Modifiers::NONE),
        vec![find("dog", true, true)]
    );
    assert_eq!(
        via_page(&mut h, Key::F3, Modifiers::SHIFT),
        vec![find("dog", false, true)]
    );
    assert_eq!(
        via_page(&mut h, Key::G, Modifiers::COMMAND),
        vec![find("dog", true, true)]
    );
    // Emptying the field stops finding (CEF's Find needs a text).
    via_page(&mut h, Key::F, Modifiers::COMMAND);
    h.frame(vec![]);
    let cmds = without_noise(h.frame(press(Key::Backspace, Modifiers::NONE)));
    assert_eq!(cmds, vec![UiCommand::StopFind { tab: TabId(1) }]);
    assert!(
        without_noise(h.click(controls::FIND_NEXT)).is_empty(),
        "nothing to find"
    );
    let cmds = without_noise(h.click(controls::FIND_CLOSE));
    assert_eq!(cmds, vec![UiCommand::StopFind { tab: TabId(1) }]);
    assert!(!h.has(controls::FIND));
}

#[test]
fn each_tab_keeps_its_find_bar_and_a_new_one_starts_with_the_last_text() {
    let mut h = Harness::new();
    h.frame(press(Key::F, Modifiers::COMMAND));
    h.frame(vec![]);
    h.type_text("owl");
    h.frame(vec![]);
    h.model.active = Some(TabId(2));
    settle(&mut h);
    assert!(!h.has(controls::FIND), "tab 2 has no find bar");
    // Ctrl+F there starts from the last text and searches it at once.
    let cmds = without_noise(h.frame(press(Key::F, Modifiers::COMMAND)));
    assert_eq!(
        cmds,
        vec![UiCommand::Find {
            tab: TabId(2),
            text: "owl".into(),
            forward: true,
            find_next: false
        }]
    );
    h.model.active = Some(TabId(1));
    settle(&mut h);
    assert!(h.has(controls::FIND));
    assert!(h.texts.iter().any(|t| t == "owl"));
    // A closed tab's bar is forgotten.
    h.model.tabs.retain(|t| t.id != TabId(2));
    h.frame(vec![]);
    h.model.tabs.push(tab(2, "https://bank.example.com/"));
    h.model.active = Some(TabId(2));
    settle(&mut h);
    assert!(!h.has(controls::FIND));
}

// ---- Zoom ----

#[test]
fn zoom_keys_a_page_leaves_go_to_the_app() {
    let mut h = Harness::new();
    focus_page(&mut h);
    let zoom = |step| UiCommand::Zoom { tab: TabId(1), step };
    for (k, m, step) in [
        (Key::Equals, Modifiers::COMMAND, ZoomStep::In),
        (Key::Plus, ctrl_shift(), ZoomStep::In),
        (Key::Minus, Modifiers::COMMAND, ZoomStep::Out),
        (Key::Num0, Modifiers::COMMAND, ZoomStep::Reset),
    ] {
        // The page gets them first (a map zooms itself); the browser zooms once it has left them.
        assert_eq!(via_page(&mut h, k, m), vec![zoom(step)], "{k:?}");
    }
}

#[test]
fn ctrl_wheel_over_the_page_zooms() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.frame(vec![Event::PointerMoved(page.center())]);
    let wheel = |unit, dy: f32, modifiers| Event::MouseWheel {
        unit,
        delta: vec2(0.0, dy),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers,
    };
    let zoom = |step| UiCommand::Zoom { tab: TabId(1), step };
    let cmds = h.frame(vec![wheel(egui::MouseWheelUnit::Line, 1.0, Modifiers::COMMAND)]);
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert_eq!(without_noise(cmds), vec![zoom(ZoomStep::In)]);
    let cmds = h.frame(vec![wheel(egui::MouseWheelUnit::Line, -2.0, Modifiers::CTRL)]);
    assert_eq!(
        without_noise(cmds),
        vec![zoom(ZoomStep::Out), zoom(ZoomStep::Out)]
    );
    // A touchpad's small deltas add up to one step.
    let cmds = h.frame(vec![wheel(egui::MouseWheelUnit::Point, 25.0, Modifiers::COMMAND)]);
    assert!(without_noise(cmds).is_empty());
    let cmds = h.frame(vec![wheel(egui::MouseWheelUnit::Point, 25.0, Modifiers::COMMAND)]);
    assert_eq!(without_noise(cmds), vec![zoom(ZoomStep::In)]);
    // Without Ctrl the wheel scrolls the page.
    let cmds = h.frame(vec![wheel(egui::MouseWheelUnit::Line, 1.0, Modifiers::NONE)]);
    assert!(
        matches!(page_inputs(&cmds)[..], [PageInput::Wheel { delta_y, .. }] if *delta_y == 40.0),
        "{cmds:?}"
    );
}

#[test]
fn the_zoom_chip_shows_a_non_default_zoom_and_resets_it() {
    let mut h = Harness::new();
    assert!(!h.has(controls::ZOOM), "100 % shows no chip");
    h.model.tabs[0].zoom_percent = 110;
    settle(&mut h);
    assert!(h.shows("110 %"));
    let (chip, omnibox) = (h.rect(controls::ZOOM), h.rect(controls::OMNIBOX));
    assert!(
        omnibox.contains_rect(chip),
        "the chip sits in the omnibox: {chip:?} {omnibox:?}"
    );
    let cmds = without_noise(h.click(controls::ZOOM));
    assert_eq!(
        cmds,
        vec![UiCommand::Zoom {
            tab: TabId(1),
            step: ZoomStep::Reset
        }]
    );
    h.model.tabs[0].zoom_percent = 100;
    settle(&mut h);
    assert!(!h.has(controls::ZOOM));
}

// ---- Tabs ----

#[test]
fn tab_shortcuts() {
    let mut h = Harness::new();
    h.model.tabs.push(tab(3, "https://three.example/"));
    settle(&mut h);
    let select = |id| vec![UiCommand::SelectTab { tab: TabId(id) }];
    let mut keys = |k, m| without_noise(h.frame(press(k, m)));
    assert_eq!(keys(Key::T, ctrl_shift()), vec![UiCommand::ReopenClosedTab]);
    assert_eq!(keys(Key::N, ctrl_shift()), vec![UiCommand::NewPrivateTab]);
    assert_eq!(keys(Key::PageDown, Modifiers::COMMAND), select(2));
    assert_eq!(keys(Key::PageUp, Modifiers::COMMAND), select(3), "wraps");
    assert_eq!(keys(Key::Tab, ctrl_shift()), select(3));
    assert_eq!(keys(Key::Num2, Modifiers::COMMAND), select(2));
    assert_eq!(
        keys(Key::Num9, Modifiers::COMMAND),
        select(3),
        "Ctrl+9 is the last tab"
    );
    assert!(keys(Key::Num1, Modifiers::COMMAND).is_empty(), "already active");
    assert!(keys(Key::Num5, Modifiers::COMMAND).is_empty(), "no fifth tab");
}

#[test]
fn ctrl_shortcuts_from_a_focused_page() {
    let mut h = Harness::new();
    focus_page(&mut h);
    // The keys that open, close and switch tabs never reach the page.
    for (k, m) in [
        (Key::T, ctrl_shift()),
        (Key::N, ctrl_shift()),
        (Key::Tab, Modifiers::COMMAND),
        (Key::PageDown, Modifiers::COMMAND),
    ] {
        focus_page(&mut h);
        let cmds = h.frame(press(k, m));
        assert!(page_inputs(&cmds).is_empty(), "{k:?} reached the page: {cmds:?}");
        assert!(!without_noise(cmds).is_empty(), "{k:?} did nothing");
    }
    // The others reach it first, and work once it has left them alone.
    for (k, m) in [
        (Key::Num2, Modifiers::COMMAND),
        (Key::D, Modifiers::COMMAND),
        (Key::B, ctrl_shift()),
        (Key::H, Modifiers::COMMAND),
    ] {
        focus_page(&mut h);
        assert!(!via_page(&mut h, k, m).is_empty(), "{k:?} did nothing");
    }
}

#[test]
fn a_page_whose_renderer_is_gone_does_not_get_the_keys_first() {
    let mut h = Harness::new();
    focus_page(&mut h);
    h.model.tabs[0].renderer_gone = true;
    settle(&mut h);
    // F5 reloads the crashed page at once: its renderer would never report the key back.
    let cmds = h.frame(press(Key::F5, Modifiers::NONE));
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    assert_eq!(without_noise(cmds), vec![UiCommand::Reload { tab: TabId(1) }]);
    // The page says so, over the whole page area, and its button reloads; clicks elsewhere on
    // it reach no page.
    assert!(h.shows("This page stopped working"), "{:?}", h.texts);
    assert!(h.rect(controls::PAGE).contains_rect(h.rect(controls::GONE_PAGE)));
    assert_eq!(
        without_noise(h.click(controls::GONE_RELOAD)),
        vec![UiCommand::Reload { tab: TabId(1) }]
    );
    let corner = h.rect(controls::PAGE).min + vec2(20.0, 20.0);
    assert!(page_inputs(&h.click_at(corner, PointerButton::Primary)).is_empty());
    // Not for a live page.
    h.model.tabs[0].renderer_gone = false;
    settle(&mut h);
    assert!(!h.has(controls::GONE_PAGE));
}

#[test]
fn only_a_key_the_human_offered_the_page_works_the_window() {
    let mut h = Harness::new();
    focus_page(&mut h);
    let bookmark = vec![UiCommand::ToggleBookmark { tab: TabId(1) }];
    // Ctrl+D goes to the page; until the page reports it left the key, nothing happens (a
    // page that takes it never reports it).
    let sent = h.frame(press(Key::D, Modifiers::COMMAND));
    assert!(!page_inputs(&sent).is_empty());
    assert!(settle(&mut h).is_empty());
    // A report from another tab matches no press made in this one.
    let elsewhere: Vec<_> = sent
        .iter()
        .map(|c| match c {
            UiCommand::Page { input, .. } => UiCommand::Page {
                tab: TabId(2),
                input: input.clone(),
            },
            c => c.clone(),
        })
        .collect();
    assert!(without_noise(h.page_leaves(&elsewhere)).is_empty());
    // The page's report of the press: the browser acts, once.
    assert_eq!(without_noise(h.page_leaves(&sent)), bookmark);
    // A second report (the agent's Ctrl+D, which reaches the same page the same way) matches
    // no press the human made: the agent's keys never work the window.
    assert!(without_noise(h.page_leaves(&sent)).is_empty());
}

/// Press at `from`, move in steps to `to`, release there.
fn drag(h: &mut Harness, from: Pos2, to: Pos2) -> Vec<UiCommand> {
    let mut cmds = h.frame(vec![Event::PointerMoved(from)]);
    cmds.extend(h.frame(vec![Event::PointerButton {
        pos: from,
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    }]));
    for i in 1..=6 {
        let p = from + (to - from) * (i as f32 / 6.0);
        cmds.extend(h.frame(vec![Event::PointerMoved(p)]));
    }
    cmds.extend(h.frame(vec![Event::PointerButton {
        pos: to,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    }]));
    cmds.extend(h.frame(vec![]));
    without_noise(cmds)
}

#[test]
fn dragging_a_tab_moves_it() {
    let mut h = Harness::new();
    h.model.tabs.push(tab(3, "https://three.example/"));
    settle(&mut h);
    let (t1, t2, t3) = (
        h.rect(&tab_control(TabId(1))),
        h.rect(&tab_control(TabId(2))),
        h.rect(&tab_control(TabId(3))),
    );
    // Past the second tab's middle: it becomes the second.
    let cmds = drag(&mut h, t1.center(), t2.center() + vec2(10.0, 0.0));
    assert_eq!(cmds, vec![UiCommand::MoveTab { tab: TabId(1), to: 1 }]);
    // All the way right: last.
    let cmds = drag(&mut h, t1.center(), t3.right_center() + vec2(30.0, 0.0));
    assert_eq!(cmds, vec![UiCommand::MoveTab { tab: TabId(1), to: 2 }]);
    // The last one to the front.
    let cmds = drag(&mut h, t3.center(), t1.left_center());
    assert_eq!(cmds, vec![UiCommand::MoveTab { tab: TabId(3), to: 0 }]);
    // A drag that doesn't pass a neighbour's middle changes nothing and selects nothing.
    let cmds = drag(&mut h, t2.center(), t2.center() + vec2(30.0, 0.0));
    assert!(cmds.is_empty(), "{cmds:?}");
}

#[test]
fn private_tabs_are_marked() {
    let mut h = Harness::new();
    assert!(!h.shows("Private"));
    let mut p = tab(3, "https://secret.example/");
    p.container = container("private", "Private browsing");
    p.container.private = true;
    h.model.tabs.push(p);
    settle(&mut h);
    assert!(h.shows("🕶"), "{:?}", h.texts);
    assert!(h.texts.iter().any(|t| t == "Private"));
    assert!(
        !h.has(controls::PRIVATE),
        "the omnibox chip is for the active tab"
    );
    h.model.active = Some(TabId(3));
    settle(&mut h);
    let (chip, omnibox) = (h.rect(controls::PRIVATE), h.rect(controls::OMNIBOX));
    assert!(omnibox.contains_rect(chip));
    assert!(h.shows("🕶 Private"));
}

#[test]
fn the_omnibox_says_not_secure_for_plain_http_and_a_refused_certificate() {
    let mut h = Harness::new();
    let mut show = |url: &str, security: Security, private: bool| {
        h.model.tabs[0].url = url.into();
        h.model.tabs[0].security = security;
        h.model.tabs[0].container.private = private;
        settle(&mut h);
        let chip = h.chrome.control_rect(controls::NOT_SECURE);
        if let Some(chip) = chip {
            assert!(h.rect(controls::OMNIBOX).contains_rect(chip), "{url}");
        }
        (chip.is_some(), h.texts.clone())
    };
    let (chip, texts) = show("http://news.example/a", Security::NotSecure, false);
    assert!(chip && texts.iter().any(|t| t == "Not secure"), "{texts:?}");
    let (chip, texts) = show("https://bank.example/", Security::CertificateError, false);
    assert!(chip && texts.iter().any(|t| t == "⚠ Not secure"), "{texts:?}");
    // Beside "Private", which shrinks to its mask so both fit.
    let (chip, texts) = show("https://bank.example/", Security::CertificateError, true);
    assert!(chip && texts.iter().any(|t| t == "🕶"), "{texts:?}");
    // Nothing for a good certificate, this machine's own servers, or while unknown.
    for (url, security) in [
        ("https://bank.example/", Security::Secure),
        ("http://127.0.0.1:8080/", Security::NotSecure),
        ("http://localhost:3000/x", Security::NotSecure),
        ("http://[::1]:80/", Security::NotSecure),
        ("http://news.example/", Security::Unknown),
    ] {
        assert!(!show(url, security, false).0, "{url} {security:?}");
    }
}

#[test]
fn new_private_tab_from_the_new_tab_menu() {
    let mut h = Harness::new();
    h.click(controls::NEW_TAB);
    let cmds = without_noise(h.click(controls::NEW_PRIVATE_TAB));
    assert_eq!(cmds, vec![UiCommand::NewPrivateTab]);
}

// ---- A tab's menu, muting ----

/// "Close other tabs" on `keep`: it comes to the front, then each of `closed` closes.
fn close_others(h: &mut Harness, keep: u64, closed: &[u64]) {
    tab_menu(h, keep);
    let mut want = vec![UiCommand::SelectTab { tab: TabId(keep) }];
    want.extend(closed.iter().map(|&t| UiCommand::CloseTab { tab: TabId(t) }));
    assert_eq!(without_noise(h.click(controls::TAB_CLOSE_OTHERS)), want);
}

/// Right-clicks tab `id`; the menu opens without a command.
fn tab_menu(h: &mut Harness, id: u64) {
    let at = h.rect(&tab_control(TabId(id))).center();
    let cmds = without_noise(h.click_at(at, PointerButton::Secondary));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert!(h.has(controls::TAB_ACTIONS));
}

#[test]
fn a_tabs_menu_reloads_duplicates_mutes_and_closes() {
    let mut h = Harness::new();
    h.model.tabs.push(tab(3, "https://three.example/"));
    settle(&mut h);
    // Tab 2 is not the front one: its own menu acts on it.
    tab_menu(&mut h, 2);
    let item = h.rect(controls::TAB_RELOAD);
    assert!(
        item.min.y >= h.rect(&tab_control(TabId(2))).min.y,
        "the menu opens where the tab was clicked"
    );
    assert_eq!(
        without_noise(h.click(controls::TAB_RELOAD)),
        vec![UiCommand::Reload { tab: TabId(2) }]
    );
    assert!(!h.has(controls::TAB_ACTIONS), "a choice closes the menu");
    tab_menu(&mut h, 2);
    assert_eq!(
        without_noise(h.click(controls::TAB_DUPLICATE)),
        vec![UiCommand::DuplicateTab { tab: TabId(2) }]
    );
    tab_menu(&mut h, 2);
    assert!(h.shows("Mute tab    Ctrl+M"));
    assert_eq!(
        without_noise(h.click(controls::TAB_MUTE)),
        vec![UiCommand::SetMuted {
            tab: TabId(2),
            muted: true
        }]
    );
    // Once muted (the app mirrors Chromium's state), the same item unmutes.
    h.model.tabs[1].muted = true;
    settle(&mut h);
    tab_menu(&mut h, 2);
    assert!(h.shows("Unmute tab    Ctrl+M"));
    assert_eq!(
        without_noise(h.click(controls::TAB_MUTE)),
        vec![UiCommand::SetMuted {
            tab: TabId(2),
            muted: false
        }]
    );
    tab_menu(&mut h, 2);
    assert_eq!(
        without_noise(h.click(controls::TAB_CLOSE)),
        vec![UiCommand::CloseTab { tab: TabId(2) }]
    );
    tab_menu(&mut h, 2);
    assert_eq!(
        without_noise(h.click(controls::TAB_REOPEN)),
        vec![UiCommand::ReopenClosedTab]
    );
    // Escape closes the menu with no command.
    tab_menu(&mut h, 2);
    assert!(without_noise(h.frame(press(Key::Escape, Modifiers::NONE))).is_empty());
    settle(&mut h);
    assert!(!h.has(controls::TAB_ACTIONS));
}

#[test]
fn close_other_tabs_and_tabs_to_the_right_keep_the_clicked_one_in_front() {
    let mut h = Harness::new();
    h.model.tabs.push(tab(3, "https://three.example/"));
    settle(&mut h);
    // The front tab (1) goes too: the kept tab comes to the front first.
    close_others(&mut h, 2, &[1, 3]);
    // To the right of the front tab: it stays in front, with no select.
    tab_menu(&mut h, 1);
    assert_eq!(
        without_noise(h.click(controls::TAB_CLOSE_RIGHT)),
        vec![
            UiCommand::CloseTab { tab: TabId(2) },
            UiCommand::CloseTab { tab: TabId(3) },
        ]
    );
    // The last tab has nothing to its right: the item is there but does nothing.
    tab_menu(&mut h, 3);
    assert!(without_noise(h.click(controls::TAB_CLOSE_RIGHT)).is_empty());
    assert!(
        h.has(controls::TAB_ACTIONS),
        "a disabled item leaves the menu open"
    );
}

#[test]
fn pinning_from_the_tab_menu_and_what_a_pinned_tab_looks_like() {
    let mut h = Harness::new();
    h.model.tabs.push(tab(3, "https://three.example/"));
    settle(&mut h);
    let wide = h.rect(&tab_control(TabId(2))).width();
    tab_menu(&mut h, 2);
    assert!(h.shows("Pin tab"));
    assert_eq!(
        without_noise(h.click(controls::TAB_PIN)),
        vec![UiCommand::SetPinned {
            tab: TabId(2),
            pinned: true
        }]
    );
    // The app puts it first; it is drawn narrow, with no close button, and its menu unpins.
    let pinned = h.model.tabs.remove(1);
    h.model.tabs.insert(
        0,
        TabView {
            pinned: true,
            ..pinned
        },
    );
    settle(&mut h);
    let r = h.rect(&tab_control(TabId(2)));
    assert!(r.width() < 50.0 && r.width() < wide, "{r:?}");
    assert!(
        r.max.x < h.rect(&tab_control(TabId(1))).min.x,
        "first in the strip"
    );
    assert!(!h.has(&tab_close_control(TabId(2))));
    tab_menu(&mut h, 2);
    assert!(h.shows("Unpin tab"));
    h.frame(press(Key::Escape, Modifiers::NONE));
    settle(&mut h);
    // Closing the others in bulk leaves it.
    close_others(&mut h, 2, &[1, 3]);
    close_others(&mut h, 1, &[3]);
    // A click selects it; a middle click still closes it.
    assert_eq!(
        without_noise(h.click(&tab_control(TabId(2)))),
        vec![UiCommand::SelectTab { tab: TabId(2) }]
    );
    let at = h.rect(&tab_control(TabId(2))).center();
    assert_eq!(
        without_noise(h.click_at(at, PointerButton::Middle)),
        vec![UiCommand::CloseTab { tab: TabId(2) }]
    );
}

#[test]
fn ctrl_m_mutes_the_front_tab_and_its_speaker_mark_unmutes_it() {
    let mut h = Harness::new();
    focus_page(&mut h);
    let cmds = via_page(&mut h, Key::M, Modifiers::COMMAND);
    assert_eq!(
        cmds,
        vec![UiCommand::SetMuted {
            tab: TabId(1),
            muted: true
        }],
        "Ctrl+M the page leaves mutes the tab"
    );
    assert!(!h.has(&tab_mute_control(TabId(1))), "no mark while not muted");
    h.model.tabs[0].muted = true;
    settle(&mut h);
    assert!(h.shows("🔇"));
    let mark = h.rect(&tab_mute_control(TabId(1)));
    assert!(h.rect(&tab_control(TabId(1))).contains_rect(mark));
    assert_eq!(
        via_page(&mut h, Key::M, Modifiers::COMMAND),
        vec![UiCommand::SetMuted {
            tab: TabId(1),
            muted: false
        }]
    );
    // The mark itself unmutes, without selecting the tab it sits on.
    h.model.active = Some(TabId(2));
    settle(&mut h);
    assert_eq!(
        without_noise(h.click(&tab_mute_control(TabId(1)))),
        vec![UiCommand::SetMuted {
            tab: TabId(1),
            muted: false
        }]
    );
}

// ---- Bookmarks ----

fn bookmark(id: i64, title: &str, url: &str) -> BookmarkNode {
    BookmarkNode {
        id,
        title: title.into(),
        url: Some(url.into()),
        children: vec![],
    }
}

fn folder(id: i64, title: &str, children: Vec<BookmarkNode>) -> BookmarkNode {
    BookmarkNode {
        id,
        title: title.into(),
        url: None,
        children,
    }
}

fn with_bookmarks(h: &mut Harness) {
    h.model.bookmarks = vec![
        folder(
            1,
            "Bookmarks bar",
            vec![
                bookmark(10, "Rust", "https://www.rust-lang.org/"),
                folder(11, "Docs", vec![bookmark(12, "egui", "https://docs.rs/egui")]),
            ],
        ),
        folder(
            2,
            "Other bookmarks",
            vec![bookmark(20, "", "https://example.org/")],
        ),
        bookmark(3, "Loose", "https://loose.example/"),
    ];
    settle(h);
}

fn open_url(url: &str, new_tab: bool) -> UiCommand {
    UiCommand::OpenUrl {
        url: url.into(),
        new_tab,
    }
}

#[test]
fn ctrl_d_and_the_star_toggle_the_bookmark() {
    let mut h = Harness::new();
    assert!(h.texts.iter().any(|t| t == "☆"));
    let toggle = vec![UiCommand::ToggleBookmark { tab: TabId(1) }];
    assert_eq!(without_noise(h.frame(press(Key::D, Modifiers::COMMAND))), toggle);
    assert_eq!(without_noise(h.click(controls::STAR)), toggle);
    h.model.tabs[0].bookmarked = true;
    h.frame(vec![]);
    assert!(h.texts.iter().any(|t| t == "★"));
    assert!(h.rect(controls::OMNIBOX).contains_rect(h.rect(controls::STAR)));
}

#[test]
fn bookmarks_menu_opens_bookmarks_in_this_or_a_new_tab() {
    let mut h = Harness::new();
    with_bookmarks(&mut h);
    assert!(without_noise(h.click(controls::BOOKMARKS)).is_empty());
    assert!(h.shows("📁 Bookmarks bar") && h.shows("📁 Other bookmarks") && h.shows("Loose"));
    let cmds = without_noise(h.click(&bookmark_control(3)));
    assert_eq!(cmds, vec![open_url("https://loose.example/", false)]);
    assert!(!h.has(&bookmark_control(3)), "a click closes the menu");

    // Folders are submenus: hover opens them.
    h.click(controls::BOOKMARKS);
    let f = h.rect(&bookmark_control(1));
    h.frame(vec![Event::PointerMoved(f.center())]);
    settle(&mut h);
    let docs = h.rect(&bookmark_control(11));
    h.frame(vec![Event::PointerMoved(docs.left_center() + vec2(4.0, 0.0))]);
    h.frame(vec![Event::PointerMoved(docs.center())]);
    settle(&mut h);
    assert!(
        h.has(&bookmark_control(12)),
        "nested folder did not open: {:?}",
        h.texts
    );
    // A middle click opens in a new background tab.
    let egui_item = h.rect(&bookmark_control(12)).center();
    h.frame(vec![Event::PointerMoved(egui_item)]);
    let cmds = without_noise(h.click_at(egui_item, PointerButton::Middle));
    assert_eq!(cmds, vec![open_url("https://docs.rs/egui", true)]);

    // Ctrl+click too; an untitled bookmark shows its URL.
    h.click(controls::BOOKMARKS);
    let other = h.rect(&bookmark_control(2));
    h.frame(vec![Event::PointerMoved(other.center())]);
    settle(&mut h);
    assert!(h.shows("https://example.org/"));
    let item = h.rect(&bookmark_control(20)).center();
    h.frame(vec![Event::PointerMoved(item)]);
    let click = |pressed| Event::PointerButton {
        pos: item,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::COMMAND,
    };
    let mut cmds = h.frame(vec![Event::ModifiersChanged(Modifiers::COMMAND), click(true)]);
    cmds.extend(h.frame(vec![click(false)]));
    cmds.extend(h.frame(vec![Event::ModifiersChanged(Modifiers::NONE)]));
    assert_eq!(without_noise(cmds), vec![open_url("https://example.org/", true)]);
}

#[test]
fn right_click_on_a_bookmark_offers_open_and_remove() {
    let mut h = Harness::new();
    with_bookmarks(&mut h);
    h.click(controls::BOOKMARKS);
    let loose = h.rect(&bookmark_control(3)).center();
    let cmds = without_noise(h.click_at(loose, PointerButton::Secondary));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert!(h.has(controls::BOOKMARK_ACTIONS));
    let cmds = without_noise(h.click(controls::BOOKMARK_REMOVE));
    assert_eq!(cmds, vec![UiCommand::RemoveBookmark { id: 3 }]);
    assert!(!h.has(controls::BOOKMARK_ACTIONS));

    h.click(controls::BOOKMARKS);
    let loose = h.rect(&bookmark_control(3)).center();
    h.click_at(loose, PointerButton::Secondary);
    let cmds = without_noise(h.click(controls::BOOKMARK_OPEN_NEW));
    assert_eq!(cmds, vec![open_url("https://loose.example/", true)]);

    // A folder can be removed; Escape closes the popup without a command.
    h.click(controls::BOOKMARKS);
    let f = h.rect(&bookmark_control(2)).center();
    h.click_at(f, PointerButton::Secondary);
    assert!(h.has(controls::BOOKMARK_REMOVE) && !h.has(controls::BOOKMARK_OPEN));
    let cmds = without_noise(h.frame(press(Key::Escape, Modifiers::NONE)));
    assert!(cmds.is_empty(), "{cmds:?}");
    h.frame(vec![]);
    assert!(!h.has(controls::BOOKMARK_ACTIONS));
}

#[test]
fn right_click_on_a_bookmark_renames_it_and_moves_it_between_the_bar_and_other() {
    let mut h = Harness::new();
    with_bookmarks(&mut h);
    // "Loose" is not on the bar: it moves there.
    h.click(controls::BOOKMARKS);
    let loose = h.rect(&bookmark_control(3)).center();
    h.click_at(loose, PointerButton::Secondary);
    assert!(h.shows("Move to the bookmarks bar"), "{:?}", h.texts);
    let cmds = without_noise(h.click(controls::BOOKMARK_MOVE));
    assert_eq!(cmds, vec![UiCommand::MoveBookmark { id: 3, to_bar: true }]);
    // "Rust" is on the bar: it moves to Other bookmarks.
    h.click(controls::BOOKMARKS);
    let bar = h.rect(&bookmark_control(1));
    h.frame(vec![Event::PointerMoved(bar.center())]);
    settle(&mut h);
    let rust = h.rect(&bookmark_control(10)).center();
    h.frame(vec![Event::PointerMoved(rust)]);
    h.click_at(rust, PointerButton::Secondary);
    assert!(h.shows("Move to Other bookmarks"), "{:?}", h.texts);
    // Rename…: the field starts with the name; Enter keeps the new one.
    assert!(without_noise(h.click(controls::BOOKMARK_RENAME)).is_empty());
    h.frame(vec![]);
    h.frame(vec![]);
    assert!(h.has(controls::BOOKMARK_NAME));
    h.frame(press(Key::A, Modifiers::COMMAND));
    h.type_text("Rust language");
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::RenameBookmark {
            id: 10,
            title: "Rust language".into()
        }]
    );
    h.frame(vec![]);
    assert!(!h.has(controls::BOOKMARK_ACTIONS));
}

#[test]
fn the_bookmarks_bar_shows_the_first_folder_and_is_toggled_by_ctrl_shift_b() {
    let mut h = Harness::new();
    with_bookmarks(&mut h);
    assert!(!h.has(controls::BOOKMARKS_BAR));
    let page_top = h.rect(controls::PAGE).min.y;
    assert_eq!(
        without_noise(h.frame(press(Key::B, ctrl_shift()))),
        vec![UiCommand::SetBookmarksBar(true)]
    );
    // The app applies it (and saves it in settings).
    h.model.show_bookmarks_bar = true;
    settle(&mut h);
    let bar = h.rect(controls::BOOKMARKS_BAR);
    assert!(
        h.rect(controls::PAGE).min.y > page_top,
        "the bar sits above the page"
    );
    assert!(bar.max.y <= h.rect(controls::PAGE).min.y + 1.0);
    assert!(h.has(&bookmark_bar_control(10)) && h.has(&bookmark_bar_control(11)));
    assert!(
        !h.has(&bookmark_bar_control(20)),
        "only the first folder's children"
    );
    let cmds = without_noise(h.click(&bookmark_bar_control(10)));
    assert_eq!(cmds, vec![open_url("https://www.rust-lang.org/", false)]);
    // A folder on the bar opens as a menu.
    h.click(&bookmark_bar_control(11));
    let cmds = without_noise(h.click(&bookmark_bar_control(12)));
    assert_eq!(cmds, vec![open_url("https://docs.rs/egui", false)]);
    // Right-click on the bar: Remove.
    let rust = h.rect(&bookmark_bar_control(10)).center();
    h.click_at(rust, PointerButton::Secondary);
    assert_eq!(
        without_noise(h.click(controls::BOOKMARK_REMOVE)),
        vec![UiCommand::RemoveBookmark { id: 10 }]
    );
    // The menu's entry toggles it too.
    h.click(controls::BOOKMARKS);
    assert_eq!(
        without_noise(h.click(controls::BOOKMARKS_BAR_TOGGLE)),
        vec![UiCommand::SetBookmarksBar(false)]
    );
    assert_eq!(
        without_noise(h.frame(press(Key::B, ctrl_shift()))),
        vec![UiCommand::SetBookmarksBar(false)]
    );
}

#[test]
fn bookmarks_menu_toggles_this_tab() {
    let mut h = Harness::new();
    h.click(controls::BOOKMARKS);
    assert!(h.shows("Bookmark this tab") && h.shows("No bookmarks yet"));
    assert_eq!(
        without_noise(h.click(controls::BOOKMARK_THIS)),
        vec![UiCommand::ToggleBookmark { tab: TabId(1) }]
    );
    h.model.tabs[0].bookmarked = true;
    h.click(controls::BOOKMARKS);
    assert!(h.shows("Remove bookmark"));
}

fn select_all_and_type(h: &mut Harness, text: &str) {
    h.frame(press(Key::A, Modifiers::COMMAND));
    h.type_text(text);
}

#[test]
fn importing_bookmarks_asks_for_a_file() {
    let mut h = Harness::new();
    h.click(controls::BOOKMARKS);
    assert!(without_noise(h.click(controls::BOOKMARKS_IMPORT)).is_empty());
    settle(&mut h);
    assert!(h.has(controls::IMPORT));
    assert!(
        h.texts.iter().any(|t| t.ends_with("/bookmarks.html")),
        "{:?}",
        h.texts
    );
    // The default path: Import sends it expanded.
    let cmds = without_noise(h.click(controls::IMPORT_OK));
    let [UiCommand::ImportBookmarks { path }] = &cmds[..] else {
        panic!("{cmds:?}")
    };
    assert!(path.is_absolute() && path.ends_with("bookmarks.html"), "{path:?}");
    assert!(!h.has(controls::IMPORT));

    // A typed path, Enter imports; the typing never reaches the page.
    h.click(controls::BOOKMARKS);
    h.click(controls::BOOKMARKS_IMPORT);
    settle(&mut h);
    select_all_and_type(&mut h, "/tmp/firefox export.html");
    let cmds = h.frame(press(Key::Enter, Modifiers::NONE));
    assert!(page_inputs(&cmds).is_empty());
    assert_eq!(
        without_noise(cmds),
        vec![UiCommand::ImportBookmarks {
            path: "/tmp/firefox export.html".into()
        }]
    );
    // Cancel and Escape import nothing.
    h.click(controls::BOOKMARKS);
    h.click(controls::BOOKMARKS_IMPORT);
    settle(&mut h);
    assert!(without_noise(h.click(controls::IMPORT_CANCEL)).is_empty());
    assert!(!h.has(controls::IMPORT));
    h.click(controls::BOOKMARKS);
    h.click(controls::BOOKMARKS_IMPORT);
    settle(&mut h);
    assert!(without_noise(h.frame(press(Key::Escape, Modifiers::NONE))).is_empty());
    h.frame(vec![]);
    assert!(!h.has(controls::IMPORT));
}

// ---- History ----

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn history_rows() -> Vec<HistoryRow> {
    let now = now_ms();
    let row = |id, url: &str, title: &str, ago_h: i64| HistoryRow {
        id,
        url: url.into(),
        title: title.into(),
        visited_at_ms: now - ago_h * 3_600_000,
        container: "Personal".into(),
    };
    vec![
        row(1, "https://www.rust-lang.org/", "Rust Programming Language", 0),
        row(2, "https://docs.rs/egui", "egui - Rust", 100),
        row(3, "https://example.com/untitled", "", 400),
    ]
}

#[test]
fn ctrl_h_opens_history_which_asks_the_app_and_searches() {
    let mut h = Harness::new();
    focus_page(&mut h);
    let cmds = via_page(&mut h, Key::H, Modifiers::COMMAND);
    assert_eq!(cmds, vec![UiCommand::HistoryQuery { text: String::new() }]);
    settle(&mut h);
    assert!(h.has(controls::HISTORY) && h.shows("No history"));
    // Beside the page, not over it.
    assert!(h.rect(controls::HISTORY).min.x >= h.rect(controls::PAGE).max.x - 1.0);
    h.model.history = history_rows();
    h.frame(vec![]);
    assert!(h.shows("Today") && h.shows("Rust Programming Language"));
    assert!(
        h.shows("https://example.com/untitled"),
        "untitled rows show their URL"
    );
    // Newest first: the rows' order on screen.
    let ys: Vec<f32> = [1, 2, 3]
        .iter()
        .map(|id| h.rect(&history_row_control(*id)).min.y)
        .collect();
    assert!(ys[0] < ys[1] && ys[1] < ys[2], "{ys:?}");

    // The search box has the keys.
    let cmds = h.type_text("rust");
    assert!(page_inputs(&cmds).is_empty());
    assert_eq!(
        without_noise(cmds),
        vec![UiCommand::HistoryQuery { text: "rust".into() }]
    );
    // Escape closes it; Ctrl+H again reopens and asks again.
    assert!(without_noise(h.frame(press(Key::Escape, Modifiers::NONE))).is_empty());
    h.frame(vec![]);
    assert!(!h.has(controls::HISTORY));
    assert!(h.chrome.page_focused());
    assert_eq!(
        without_noise(h.click(controls::HISTORY_BUTTON)),
        vec![UiCommand::HistoryQuery { text: String::new() }]
    );
    assert!(without_noise(h.click(controls::HISTORY_CLOSE)).is_empty());
    assert!(!h.has(controls::HISTORY));
}

#[test]
fn history_rows_open_and_delete() {
    let mut h = Harness::new();
    h.model.history = history_rows();
    h.frame(press(Key::H, Modifiers::COMMAND));
    settle(&mut h);
    let cmds = without_noise(h.click(&history_row_control(2)));
    assert_eq!(cmds, vec![open_url("https://docs.rs/egui", false)]);
    let row = h.rect(&history_row_control(1)).center();
    let cmds = without_noise(h.click_at(row, PointerButton::Middle));
    assert_eq!(cmds, vec![open_url("https://www.rust-lang.org/", true)]);
    let cmds = without_noise(h.click(&history_delete_control(3)));
    assert_eq!(cmds, vec![UiCommand::HistoryDelete { id: 3 }]);
}

#[test]
fn clearing_history_over_a_range() {
    let mut h = Harness::new();
    h.frame(press(Key::H, Modifiers::COMMAND));
    settle(&mut h);
    assert!(without_noise(h.click(controls::HISTORY_CLEAR)).is_empty());
    assert!(without_noise(h.click(&history_range_control(ClearRange::LastWeek))).is_empty());
    let before = now_ms();
    let cmds = without_noise(h.click(controls::HISTORY_CLEAR_OK));
    let after = now_ms();
    let [
        UiCommand::HistoryClear {
            since_ms: Some(since),
        },
    ] = cmds[..]
    else {
        panic!("{cmds:?}")
    };
    let week = 7 * 24 * 3_600_000;
    assert!(before - week <= since && since <= after - week, "{since}");
    // All time sends no start; Cancel sends nothing.
    h.click(controls::HISTORY_CLEAR);
    h.click(&history_range_control(ClearRange::AllTime));
    assert_eq!(
        without_noise(h.click(controls::HISTORY_CLEAR_OK)),
        vec![UiCommand::HistoryClear { since_ms: None }]
    );
    h.click(controls::HISTORY_CLEAR);
    assert!(without_noise(h.click(controls::HISTORY_CLEAR_CANCEL)).is_empty());
    assert!(!h.has(controls::HISTORY_CLEAR_OK));
}

// ---- Omnibox suggestions ----

fn omnibox_shows(h: &Harness, text: &str) -> bool {
    h.texts.iter().any(|t| t == text)
}

fn suggestions() -> Vec<SuggestionView> {
    vec![
        SuggestionView {
            url: "https://github.com/".into(),
            title: "GitHub".into(),
            bookmark: true,
            tab: None,
        },
        SuggestionView {
            url: "https://gitlab.com/explore".into(),
            title: "Explore · GitLab".into(),
            bookmark: false,
            tab: None,
        },
    ]
}

fn input(text: &str) -> UiCommand {
    UiCommand::OmniboxInput {
        tab: TabId(1),
        text: text.into(),
    }
}

#[test]
fn inline_completion_is_overwritten_by_typing_and_removed_by_backspace() {
    let mut h = Harness::new();
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.frame(vec![]);
    assert_eq!(without_noise(h.type_text("Git")), vec![input("Git")]);
    // The app answers.
    h.model.inline_completion = Some("github.com/".into());
    h.model.suggestions = suggestions();
    h.frame(vec![]);
    h.frame(vec![]);
    // What was typed keeps its capitals; the rest is the completion's.
    assert!(omnibox_shows(&h, "Github.com/"), "{:?}", h.texts);
    assert!(h.has(controls::SUGGESTIONS) && h.shows("Explore · GitLab"));
    // Typing goes on over the selected completion, which stays while it still fits.
    assert_eq!(without_noise(h.type_text("h")), vec![input("Gith")]);
    h.frame(vec![]);
    assert!(omnibox_shows(&h, "Github.com/"), "{:?}", h.texts);
    // Backspace takes the completion away, and only that.
    assert_eq!(
        without_noise(h.frame(press(Key::Backspace, Modifiers::NONE))),
        vec![input("Gith")]
    );
    settle(&mut h);
    assert!(omnibox_shows(&h, "Gith"), "{:?}", h.texts);
    // Enter goes where the text says.
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::Navigate {
            tab: TabId(1),
            input: "Gith".into(),
            url: "https://duckduckgo.com/?q=Gith".into()
        }]
    );
}

#[test]
fn enter_takes_the_inline_completion() {
    let mut h = Harness::new();
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.frame(vec![]);
    h.type_text("git");
    h.model.inline_completion = Some("github.com/".into());
    settle(&mut h);
    // A completion for some other input is not shown.
    h.model.inline_completion = Some("gitlab.com/".into());
    h.type_text("h");
    settle(&mut h);
    assert!(omnibox_shows(&h, "gith"), "{:?}", h.texts);
    h.model.inline_completion = Some("github.com/".into());
    settle(&mut h);
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::Navigate {
            tab: TabId(1),
            input: "github.com/".into(),
            url: "https://github.com/".into()
        }]
    );
}

#[test]
fn arrows_pick_a_suggestion_and_escape_closes_then_restores() {
    let mut h = Harness::new();
    h.model.suggestions = suggestions();
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.frame(vec![]);
    assert!(!h.has(controls::SUGGESTIONS), "nothing typed yet");
    h.type_text("gi");
    settle(&mut h);
    assert!(h.has(&suggestion_control(0)) && h.has(&suggestion_control(1)));
    let cmds = h.frame(press(Key::ArrowDown, Modifiers::NONE));
    assert!(without_noise(cmds).is_empty());
    h.frame(press(Key::ArrowDown, Modifiers::NONE));
    h.frame(vec![]);
    assert!(omnibox_shows(&h, "https://gitlab.com/explore"), "{:?}", h.texts);
    // Past the last comes back to what was typed; Up from there goes to the last.
    h.frame(press(Key::ArrowDown, Modifiers::NONE));
    h.frame(vec![]);
    assert!(omnibox_shows(&h, "gi"));
    h.frame(press(Key::ArrowUp, Modifiers::NONE));
    h.frame(press(Key::ArrowUp, Modifiers::NONE));
    h.frame(vec![]);
    assert!(omnibox_shows(&h, "https://github.com/"));
    // Escape closes the dropdown and keeps the edit…
    assert!(without_noise(h.frame(press(Key::Escape, Modifiers::NONE))).is_empty());
    settle(&mut h);
    assert!(!h.has(controls::SUGGESTIONS));
    assert!(omnibox_shows(&h, "gi"));
    // …a second one gives the URL back.
    h.frame(press(Key::Escape, Modifiers::NONE));
    settle(&mut h);
    assert!(omnibox_shows(&h, "https://example.com/"));
    // The omnibox keeps the keyboard (as in Chrome): Enter goes to the page's own address,
    // never to what was typed or picked.
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert!(
        cmds.iter()
            .all(|c| !matches!(c, UiCommand::Navigate { url, .. } if url != "https://example.com/")),
        "{cmds:?}"
    );

    // Enter on a picked suggestion goes there.
    shortcut(&mut h, Key::L, Modifiers::COMMAND);
    h.frame(vec![]);
    h.type_text("gi");
    settle(&mut h);
    h.frame(press(Key::ArrowDown, Modifiers::NONE));
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(
        cmds,
        vec![UiCommand::Navigate {
            tab: TabId(1),
            input: "https://github.com/".into(),
            url: "https://github.com/".into()
        }]
    );
}

#[test]
fn clicking_a_suggestion_navigates() {
    let mut h = Harness::new();
    h.model.suggestions = suggestions();
    h.click(controls::OMNIBOX);
    h.type_text("lab");
    settle(&mut h);
    let cmds = without_noise(h.click(&suggestion_control(1)));
    assert_eq!(
        cmds,
        vec![UiCommand::Navigate {
            tab: TabId(1),
            input: "https://gitlab.com/explore".into(),
            url: "https://gitlab.com/explore".into()
        }]
    );
    settle(&mut h);
    assert!(!h.has(controls::SUGGESTIONS));
    assert!(h.chrome.page_focused());
}

#[test]
fn switching_tabs_ends_the_edit_and_its_suggestions() {
    let mut h = Harness::new();
    h.model.suggestions = suggestions();
    h.model.inline_completion = Some("github.com/".into());
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.frame(vec![]);
    h.type_text("gi");
    settle(&mut h);
    assert!(h.has(controls::SUGGESTIONS) && omnibox_shows(&h, "github.com/"));
    h.model.active = Some(TabId(2));
    settle(&mut h);
    assert!(!h.has(controls::SUGGESTIONS));
    assert!(omnibox_shows(&h, "https://bank.example.com/"), "{:?}", h.texts);
}

#[test]
fn a_suggestion_another_tab_shows_switches_to_that_tab() {
    let mut h = Harness::new();
    h.model.tabs.push(TabView {
        id: TabId(2),
        title: "Inbox".into(),
        url: "https://mail.example/inbox".into(),
        ..h.model.tabs[0].clone()
    });
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.frame(vec![]);
    assert_eq!(without_noise(h.type_text("inb")), vec![input("inb")]);
    h.model.suggestions = vec![SuggestionView {
        url: "https://mail.example/inbox".into(),
        title: "Inbox".into(),
        bookmark: false,
        tab: Some(TabId(2)),
    }];
    settle(&mut h);
    assert!(
        h.shows("Switch to this tab · https://mail.example/inbox"),
        "{:?}",
        h.texts
    );
    // Down onto the row, Enter: the other tab comes to the front, nothing is loaded here.
    h.frame(press(Key::ArrowDown, Modifiers::NONE));
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert_eq!(cmds, vec![UiCommand::SelectTab { tab: TabId(2) }]);

    // A click on the row does the same.
    h.frame(press(Key::L, Modifiers::COMMAND));
    h.frame(vec![]);
    h.type_text("inb");
    settle(&mut h);
    let cmds = without_noise(h.click(&suggestion_control(0)));
    assert!(cmds.contains(&UiCommand::SelectTab { tab: TabId(2) }), "{cmds:?}");
    assert!(
        !cmds.iter().any(|c| matches!(c, UiCommand::Navigate { .. })),
        "{cmds:?}"
    );
}
