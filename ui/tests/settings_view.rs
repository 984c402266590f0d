//! The settings view driven headlessly: opened with Ctrl+, and from the main menu, each
//! section's choices as the commands the app applies, the search engine the omnibox then
//! uses, what is refused before it becomes a command, and keys that stay in the view.

#![forbid(unsafe_code)]

mod harness;

use std::path::PathBuf;

use aperture_ui::chrome::{
    ClearRange, SettingsSection, blocking_exception_control, clear_container_control, clear_range_control,
    color_scheme_control, controls, dark_default_control, dark_site_forget_control, search_engine_control,
    settings_container_control, settings_section_control, site_permission_control,
};
use aperture_ui::dark::{ColorScheme, FilterOptions, ThemeMode};
use aperture_ui::egui::{Key, Modifiers, PointerButton};
use aperture_ui::omnibox::SearchEngine;
use aperture_ui::{ClearData, PageInput, SitePermission, TabId, UiCommand, ZoomStep};
use harness::*;

fn settle(h: &mut Harness) -> Vec<UiCommand> {
    let mut cmds = h.frame(vec![]);
    cmds.extend(h.frame(vec![]));
    without_noise(cmds)
}

fn open(h: &mut Harness) {
    let cmds = shortcut(h, Key::Comma, Modifiers::COMMAND);
    assert!(cmds.is_empty(), "opening asks the app for nothing");
    settle(h);
    assert!(h.has(controls::SETTINGS), "Ctrl+, did not open the settings view");
}

fn section(h: &mut Harness, s: SettingsSection) {
    assert!(without_noise(h.click(&settings_section_control(s))).is_empty());
    settle(h);
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

/// Clicks into a field, selects what it holds and types `text` over it.
fn retype(h: &mut Harness, field: &str, text: &str) -> Vec<UiCommand> {
    let mut cmds = h.click(field);
    cmds.extend(h.frame(press(Key::A, Modifiers::COMMAND)));
    cmds.extend(h.type_text(text));
    cmds
}

fn omnibox_search(h: &mut Harness, words: &str) -> Option<String> {
    h.click(controls::OMNIBOX);
    h.frame(press(Key::A, Modifiers::COMMAND));
    h.type_text(words);
    h.frame(press(Key::Enter, Modifiers::NONE))
        .into_iter()
        .find_map(|c| match c {
            UiCommand::Navigate { url, .. } => Some(url),
            _ => None,
        })
}

#[test]
fn ctrl_comma_and_the_main_menu_open_the_view_beside_the_page() {
    let mut h = Harness::new();
    let page = h.rect(controls::PAGE);
    h.click_at(page.center(), PointerButton::Primary);
    assert!(h.chrome.page_focused());
    // The page gets it first; once the page has left it, the view opens.
    assert!(via_page(&mut h, Key::Comma, Modifiers::COMMAND).is_empty());
    settle(&mut h);
    assert!(h.has(controls::SETTINGS));
    assert!(
        !h.chrome.page_focused(),
        "the view takes the keyboard from the page"
    );
    assert!(h.shows("Search engine") && h.shows("Default container") && h.shows("Downloads"));
    // Beside the page, not over it.
    assert!(h.rect(controls::SETTINGS).min.x >= h.rect(controls::PAGE).max.x - 1.0);
    // Ctrl+, again closes it.
    h.frame(press(Key::Comma, Modifiers::COMMAND));
    settle(&mut h);
    assert!(!h.has(controls::SETTINGS));

    // The main menu at the strip's right end.
    let menu = h.rect(controls::MAIN_MENU);
    assert!(menu.min.x > h.rect(controls::NEW_TAB).max.x, "{menu:?}");
    assert!(without_noise(h.click(controls::MAIN_MENU)).is_empty());
    assert!(without_noise(h.click(controls::MAIN_MENU_SETTINGS)).is_empty());
    settle(&mut h);
    assert!(h.has(controls::SETTINGS));
    // History shares the side: opening it closes settings, and the other way round.
    h.frame(press(Key::H, Modifiers::COMMAND));
    settle(&mut h);
    assert!(h.has(controls::HISTORY) && !h.has(controls::SETTINGS));
    h.frame(press(Key::Comma, Modifiers::COMMAND));
    settle(&mut h);
    assert!(h.has(controls::SETTINGS) && !h.has(controls::HISTORY));
    assert!(without_noise(h.click(controls::SETTINGS_CLOSE)).is_empty());
    assert!(!h.has(controls::SETTINGS));
    // The menu's other items.
    h.click(controls::MAIN_MENU);
    assert_eq!(
        without_noise(h.click(controls::MAIN_MENU_PRIVATE)),
        vec![UiCommand::NewPrivateTab]
    );
    h.click(controls::MAIN_MENU);
    assert_eq!(
        without_noise(h.click(controls::MAIN_MENU_HISTORY)),
        vec![UiCommand::HistoryQuery { text: String::new() }]
    );
    // Each of the rest is its shortcut, run as if its keys were pressed.
    let tab = TabId(1);
    for (item, want) in [
        (controls::MAIN_MENU_REOPEN, UiCommand::ReopenClosedTab),
        (controls::MAIN_MENU_DOWNLOADS, UiCommand::OpenDownloadsFolder),
        (
            controls::MAIN_MENU_BOOKMARKS_BAR,
            UiCommand::SetBookmarksBar(true),
        ),
        (controls::MAIN_MENU_PRINT, UiCommand::Print { tab }),
        (controls::MAIN_MENU_SAVE, UiCommand::SavePage { tab }),
        (controls::MAIN_MENU_DEVTOOLS, UiCommand::DevTools { tab }),
    ] {
        h.click(controls::MAIN_MENU);
        assert_eq!(without_noise(h.click(item)), vec![want], "{item}");
        settle(&mut h);
    }
    // The zoom row keeps the menu open while the level is set.
    h.click(controls::MAIN_MENU);
    for (item, step) in [
        (controls::MAIN_MENU_ZOOM_IN, ZoomStep::In),
        (controls::MAIN_MENU_ZOOM_IN, ZoomStep::In),
        (controls::MAIN_MENU_ZOOM_RESET, ZoomStep::Reset),
        (controls::MAIN_MENU_ZOOM_OUT, ZoomStep::Out),
    ] {
        assert_eq!(
            without_noise(h.click(item)),
            vec![UiCommand::Zoom { tab, step }],
            "{item}"
        );
    }
    h.frame(press(Key::Escape, Modifiers::NONE));
    settle(&mut h);
    // Find opens the find bar; a new tab asks for one in the default container.
    h.click(controls::MAIN_MENU);
    h.click(controls::MAIN_MENU_FIND);
    settle(&mut h);
    assert!(h.has(controls::FIND), "the find bar opened");
    h.frame(press(Key::Escape, Modifiers::NONE));
    settle(&mut h);
    h.click(controls::MAIN_MENU);
    let cmds = without_noise(h.click(controls::MAIN_MENU_NEW_TAB));
    assert!(matches!(cmds.as_slice(), [UiCommand::NewTab { .. }]), "{cmds:?}");
}

#[test]
fn the_omnibox_searches_with_the_chosen_engine_and_duckduckgo_until_one_is_chosen() {
    let mut h = Harness::new();
    assert_eq!(
        omnibox_search(&mut h, "rust egui").as_deref(),
        Some("https://duckduckgo.com/?q=rust+egui"),
        "unset must keep the old default"
    );
    open(&mut h);
    assert_eq!(
        without_noise(h.click(&search_engine_control(&SearchEngine::Google))),
        vec![UiCommand::SetSearchEngine(SearchEngine::Google)]
    );
    // The chrome searches with what the app holds.
    h.model.settings.values.search_engine = Some(SearchEngine::Google);
    settle(&mut h);
    assert!(
        without_noise(h.click(&search_engine_control(&SearchEngine::Google))).is_empty(),
        "choosing the current engine again is no change"
    );
    assert_eq!(
        omnibox_search(&mut h, "rust egui").as_deref(),
        Some("https://www.google.com/search?q=rust+egui")
    );
    // Addresses are still addresses.
    assert_eq!(
        omnibox_search(&mut h, "example.org").as_deref(),
        Some("https://example.org")
    );
}

#[test]
fn a_custom_engine_is_a_checked_template() {
    let mut h = Harness::new();
    open(&mut h);
    assert!(!h.has(controls::SETTINGS_CUSTOM_TEMPLATE));
    let cmds = without_noise(h.click(&search_engine_control(&SearchEngine::Custom(String::new()))));
    assert!(cmds.is_empty(), "picking Custom saves nothing yet: {cmds:?}");
    settle(&mut h);
    assert!(h.has(controls::SETTINGS_CUSTOM_TEMPLATE));
    // The field has the keyboard at once; typing there never reaches the page.
    let cmds = h.type_text("http://127.0.0.1:8080/find?q=");
    assert!(page_inputs(&cmds).is_empty() && without_noise(cmds).is_empty());
    let cmds = without_noise(h.frame(press(Key::Enter, Modifiers::NONE)));
    assert!(cmds.is_empty(), "a template without %s was saved: {cmds:?}");
    h.frame(vec![]);
    assert!(h.shows("put %s where the search terms go"), "{:?}", h.texts);
    let cmds = retype(
        &mut h,
        controls::SETTINGS_CUSTOM_TEMPLATE,
        "http://127.0.0.1:8080/find?q=%s",
    );
    assert!(without_noise(cmds).is_empty());
    let template = "http://127.0.0.1:8080/find?q=%s".to_string();
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_CUSTOM_USE)),
        vec![UiCommand::SetSearchEngine(SearchEngine::Custom(template.clone()))]
    );
    h.model.settings.values.search_engine = Some(SearchEngine::Custom(template));
    settle(&mut h);
    assert!(!h.shows("put %s"), "the error outlived the fix");
    assert_eq!(
        omnibox_search(&mut h, "100% cotton").as_deref(),
        Some("http://127.0.0.1:8080/find?q=100%25+cotton")
    );
    // Back to a named engine.
    h.frame(press(Key::Comma, Modifiers::COMMAND));
    settle(&mut h);
    if !h.has(controls::SETTINGS) {
        open(&mut h);
    }
    assert_eq!(
        without_noise(h.click(&search_engine_control(&SearchEngine::Bing))),
        vec![UiCommand::SetSearchEngine(SearchEngine::Bing)]
    );
}

#[test]
fn default_container_and_download_folder() {
    let mut h = Harness::new();
    h.model.settings.default_container = Some("personal".into());
    h.model.settings.download_dir = Some(PathBuf::from("/home/ada/Downloads"));
    open(&mut h);
    assert!(h.shows("Personal"));
    assert!(without_noise(h.click(controls::SETTINGS_CONTAINER)).is_empty());
    assert_eq!(
        without_noise(h.click(&settings_container_control("banking"))),
        vec![UiCommand::SetDefaultContainer {
            container: "banking".into()
        }]
    );

    // The field shows the app's folder.
    assert!(h.shows("/home/ada/Downloads"), "{:?}", h.texts);
    let cmds = retype(&mut h, controls::SETTINGS_DOWNLOAD_DIR, "/srv/incoming");
    assert!(page_inputs(&cmds).is_empty() && without_noise(cmds).is_empty());
    assert_eq!(
        without_noise(h.frame(press(Key::Enter, Modifiers::NONE))),
        vec![UiCommand::SetDownloadDir(PathBuf::from("/srv/incoming"))]
    );
    // A leading ~ is the home directory.
    retype(&mut h, controls::SETTINGS_DOWNLOAD_DIR, "~/dl");
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    let cmds = without_noise(h.click(controls::SETTINGS_DOWNLOAD_SAVE));
    match home {
        Some(home) => assert_eq!(cmds, vec![UiCommand::SetDownloadDir(home.join("dl"))]),
        None => assert!(cmds.is_empty(), "{cmds:?}"),
    }
    // Nothing typed is not a folder.
    retype(&mut h, controls::SETTINGS_DOWNLOAD_DIR, " ");
    assert!(without_noise(h.click(controls::SETTINGS_DOWNLOAD_SAVE)).is_empty());
    h.frame(vec![]);
    assert!(h.shows("type a folder"));
    // Once the app has the new folder, the field shows it.
    h.model.settings.download_dir = Some(PathBuf::from("/srv/incoming"));
    retype(&mut h, controls::SETTINGS_DOWNLOAD_DIR, "/srv/incoming");
    h.frame(press(Key::Enter, Modifiers::NONE));
    h.model.settings.download_dir = Some(PathBuf::from("/srv/other"));
    settle(&mut h);
    assert!(h.shows("/srv/other"), "{:?}", h.texts);
}

#[test]
fn appearance_sets_the_dark_mode_defaults() {
    let mut h = Harness::new();
    h.model
        .settings
        .values
        .theme
        .policies
        .set("bright.example", ThemeMode::Off);
    open(&mut h);
    section(&mut h, SettingsSection::Appearance);
    assert!(h.shows("bright.example"));
    assert_eq!(
        without_noise(h.click(&color_scheme_control(Some(ColorScheme::Dark)))),
        vec![UiCommand::SetColorScheme(Some(ColorScheme::Dark))]
    );
    h.model.settings.values.theme.prefer = Some(ColorScheme::Dark);
    settle(&mut h);
    assert_eq!(
        without_noise(h.click(&color_scheme_control(None))),
        vec![UiCommand::SetColorScheme(None)]
    );
    assert_eq!(
        without_noise(h.click(&dark_default_control(ThemeMode::On))),
        vec![UiCommand::SetDarkDefault(ThemeMode::On)]
    );
    assert!(
        without_noise(h.click(&dark_default_control(ThemeMode::Auto))).is_empty(),
        "Auto is already the default"
    );
    // Forgetting a site's choice sets it to the default, which removes it.
    assert_eq!(
        without_noise(h.click(&dark_site_forget_control("bright.example"))),
        vec![UiCommand::SetTheme {
            site: "bright.example".into(),
            mode: ThemeMode::Auto
        }]
    );
    // The brightness slider is the filter's.
    let b = h.rect(controls::SETTINGS_BRIGHTNESS);
    let cmds = without_noise(h.click_at(
        b.left_center() + aperture_ui::egui::vec2(2.0, 0.0),
        PointerButton::Primary,
    ));
    // (The press and the release each send it while the app hasn't applied the first.)
    assert!(!cmds.is_empty());
    for c in &cmds {
        match c {
            UiCommand::SetDarkFilter { options } => {
                assert!(
                    options.brightness < FilterOptions::default().brightness,
                    "{options:?}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn clear_browsing_data_sends_what_was_ticked() {
    let mut h = Harness::new();
    open(&mut h);
    section(&mut h, SettingsSection::Privacy);
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let cmds = without_noise(h.click(controls::SETTINGS_CLEAR_OK));
    let [UiCommand::ClearBrowsingData(what)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    // By default: everything of the last hour in every container.
    let since = what.since_ms.expect("a range");
    assert!(
        (since - (before - 3_600_000)).abs() < 5_000,
        "{since} vs {before}"
    );
    assert!(what.container.is_none() && what.history && what.cookies && what.cache);
    assert!(h.shows("Cached files go for all time"));

    // All time, one container, history only.
    h.click(controls::SETTINGS_CLEAR_RANGE);
    h.click(&clear_range_control(ClearRange::AllTime));
    h.click(controls::SETTINGS_CLEAR_CONTAINER);
    h.click(&clear_container_control(Some("work")));
    h.click(controls::SETTINGS_CLEAR_COOKIES);
    h.click(controls::SETTINGS_CLEAR_CACHE);
    settle(&mut h);
    assert!(h.shows("All time") && h.shows("Work"));
    assert!(!h.shows("Cached files go for all time"));
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_CLEAR_OK)),
        vec![UiCommand::ClearBrowsingData(ClearData {
            since_ms: None,
            container: Some("work".into()),
            history: true,
            cookies: false,
            cache: false,
        })]
    );
    // Nothing ticked: the button does nothing.
    h.click(controls::SETTINGS_CLEAR_HISTORY);
    assert!(without_noise(h.click(controls::SETTINGS_CLEAR_OK)).is_empty());
    // Back to all containers.
    h.click(controls::SETTINGS_CLEAR_CONTAINER);
    h.click(&clear_container_control(None));
    h.click(controls::SETTINGS_CLEAR_COOKIES);
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_CLEAR_OK)),
        vec![UiCommand::ClearBrowsingData(ClearData {
            since_ms: None,
            container: None,
            history: false,
            cookies: true,
            cache: false,
        })]
    );
}

#[test]
fn tracker_blocking_on_off_and_per_site() {
    let mut h = Harness::new();
    h.model.settings.blocking_available = true;
    open(&mut h);
    section(&mut h, SettingsSection::Privacy);
    // The active tab is on example.com.
    assert!(h.shows("Block trackers on example.com"));
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_SITE_BLOCKING)),
        vec![UiCommand::SetSiteBlocking {
            site: "example.com".into(),
            block: false
        }]
    );
    h.model.settings.values.blocking.set("example.com", false);
    settle(&mut h);
    assert!(h.shows("not blocked"));
    // Removing the exception goes back to the default.
    assert_eq!(
        without_noise(h.click(&blocking_exception_control("example.com"))),
        vec![UiCommand::SetSiteBlocking {
            site: "example.com".into(),
            block: true
        }]
    );
    // A typed exception, in any spelling of the site.
    let cmds = retype(
        &mut h,
        controls::SETTINGS_EXCEPTION_SITE,
        "https://www.News.example/today",
    );
    assert!(page_inputs(&cmds).is_empty());
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_EXCEPTION_ADD)),
        vec![UiCommand::SetSiteBlocking {
            site: "news.example".into(),
            block: false
        }]
    );
    retype(&mut h, controls::SETTINGS_EXCEPTION_SITE, "not a site");
    assert!(without_noise(h.frame(press(Key::Enter, Modifiers::NONE))).is_empty());
    h.frame(vec![]);
    assert!(h.shows("Type a site"));
    // Off everywhere; then an exception blocks.
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_BLOCKING)),
        vec![UiCommand::SetBlocking(false)]
    );
    h.model.settings.values.blocking.enabled = false;
    settle(&mut h);
    retype(&mut h, controls::SETTINGS_EXCEPTION_SITE, "shop.example");
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_EXCEPTION_ADD)),
        vec![UiCommand::SetSiteBlocking {
            site: "shop.example".into(),
            block: true
        }]
    );

    // Third-party cookies: off by default, and the box says what to set.
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_THIRD_PARTY_COOKIES)),
        vec![UiCommand::SetThirdPartyCookies(true)]
    );
    h.model.settings.values.block_third_party_cookies = true;
    settle(&mut h);
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_THIRD_PARTY_COOKIES)),
        vec![UiCommand::SetThirdPartyCookies(false)]
    );

    // An origin allowed to open pop-ups is listed, and its × takes that back.
    h.model
        .settings
        .values
        .popup_origins
        .insert("https://bank.example".into());
    settle(&mut h);
    assert!(h.shows("bank.example"));
    assert_eq!(
        without_noise(h.click(&aperture_ui::chrome::popup_origin_control("https://bank.example"))),
        vec![UiCommand::SetPopupsAllowed {
            origin: "https://bank.example".into(),
            allow: false
        }]
    );

    // Without a blocker in this session the switches do nothing and say why.
    h.model.settings.blocking_available = false;
    settle(&mut h);
    assert!(h.shows("Off in this session"));
    assert!(without_noise(h.click(controls::SETTINGS_BLOCKING)).is_empty());
}

/// "Check spelling as you type" sends its new state; without a dictionary it does nothing and
/// says what to install.
#[test]
fn the_spelling_switch_is_offered_when_there_is_a_dictionary() {
    let mut h = Harness::new();
    h.model.settings.spelling_languages = vec!["en-US".into()];
    h.model.settings.values.spellcheck = true;
    open(&mut h);
    assert!(h.shows("en-US"), "{:?}", h.texts);
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_SPELLCHECK)),
        vec![UiCommand::SetSpellcheck(false)]
    );
    h.model.settings.values.spellcheck = false;
    settle(&mut h);
    assert_eq!(
        without_noise(h.click(controls::SETTINGS_SPELLCHECK)),
        vec![UiCommand::SetSpellcheck(true)]
    );
    // The languages this machine has: one more is added; the last one in use stays.
    h.model.settings.spelling_available = vec!["de-DE".into(), "en-US".into()];
    settle(&mut h);
    assert_eq!(
        without_noise(h.click(&aperture_ui::chrome::spell_language_control("de-DE"))),
        vec![UiCommand::SetSpellLanguages(vec!["de-DE".into(), "en-US".into()])]
    );
    assert!(without_noise(h.click(&aperture_ui::chrome::spell_language_control("en-US"))).is_empty());
    h.model.settings.spelling_languages = vec!["de-DE".into(), "en-US".into()];
    settle(&mut h);
    assert_eq!(
        without_noise(h.click(&aperture_ui::chrome::spell_language_control("en-US"))),
        vec![UiCommand::SetSpellLanguages(vec!["de-DE".into()])]
    );
    h.model.settings.spelling_available = Vec::new();
    h.model.settings.spelling_languages = Vec::new();
    settle(&mut h);
    assert!(h.shows("hunspell-en-us"), "{:?}", h.texts);
    assert!(without_noise(h.click(controls::SETTINGS_SPELLCHECK)).is_empty());
}

#[test]
fn the_mcp_port_is_checked_and_saved() {
    let mut h = Harness::new();
    h.model.settings.mcp_port = Some(8817);
    h.model.settings.mcp_url = Some("http://127.0.0.1:8817/mcp".into());
    open(&mut h);
    section(&mut h, SettingsSection::Agent);
    assert!(h.shows("http://127.0.0.1:8817/mcp") && h.shows("8817"));
    retype(&mut h, controls::SETTINGS_MCP_PORT, "80");
    assert!(without_noise(h.click(controls::SETTINGS_MCP_SAVE)).is_empty());
    h.frame(vec![]);
    assert!(h.shows("from 1024 to 65535"), "{:?}", h.texts);
    retype(&mut h, controls::SETTINGS_MCP_PORT, "9123");
    assert_eq!(
        without_noise(h.frame(press(Key::Enter, Modifiers::NONE))),
        vec![UiCommand::SetMcpPort(9123)]
    );
}

#[test]
fn escape_in_a_settings_field_closes_the_view_and_gives_the_page_its_keys_back() {
    let mut h = Harness::new();
    open(&mut h);
    h.click(controls::SETTINGS_DOWNLOAD_DIR);
    let cmds = h.frame(press(Key::Escape, Modifiers::NONE));
    assert!(page_inputs(&cmds).is_empty(), "{cmds:?}");
    settle(&mut h);
    assert!(!h.has(controls::SETTINGS));
    assert!(h.chrome.page_focused());
    let cmds = h.type_text("x");
    assert_eq!(page_inputs(&cmds), vec![&PageInput::Text { text: "x".into() }]);
}

#[test]
fn no_section_widens_the_panel() {
    let mut h = Harness::new();
    h.model.settings.blocking_available = true;
    h.model
        .settings
        .values
        .blocking
        .set("a-rather-long-site-name.example.org", false);
    h.model.settings.mcp_url = Some("http://127.0.0.1:8817/mcp".into());
    open(&mut h);
    h.click(&search_engine_control(&SearchEngine::Custom(String::new())));
    for s in SettingsSection::ALL {
        section(&mut h, s);
        let first = h.rect(controls::SETTINGS).width();
        for _ in 0..10 {
            h.frame(vec![]);
        }
        let last = h.rect(controls::SETTINGS).width();
        assert!(
            (last - first).abs() < 0.5 && last <= 421.0,
            "{s:?}: the panel went from {first} to {last} points wide"
        );
    }
}

#[test]
fn site_permissions_are_listed_per_container_and_each_answer_can_be_changed() {
    let mut h = Harness::new();
    open(&mut h);
    section(&mut h, SettingsSection::Permissions);
    assert!(h.shows("None yet"), "an empty list says so");
    let location = vec!["know your location".to_string()];
    let notify = vec!["show notifications".to_string()];
    h.model.settings.permissions = vec![
        SitePermission {
            container: "personal".into(),
            origin: "https://maps.example".into(),
            asked: location.clone(),
            allow: true,
        },
        SitePermission {
            container: "work".into(),
            origin: "https://maps.example".into(),
            asked: notify.clone(),
            allow: false,
        },
    ];
    settle(&mut h);
    assert!(h.shows("maps.example") && h.shows("know your location") && h.shows("show notifications"));
    // The same site in another container is its own row, with its own answer.
    let allow_personal = site_permission_control("personal", "https://maps.example", &location, Some(true));
    let allow_work = site_permission_control("work", "https://maps.example", &notify, Some(true));
    assert!(h.has(&allow_personal) && h.has(&allow_work));
    assert!(h.rect(&allow_work).top() > h.rect(&allow_personal).bottom());
    // Choosing the answer it already has asks for nothing.
    assert!(without_noise(h.click(&allow_personal)).is_empty());
    assert_eq!(
        without_noise(h.click(&site_permission_control(
            "personal",
            "https://maps.example",
            &location,
            Some(false)
        ))),
        vec![UiCommand::SetSitePermission {
            container: "personal".into(),
            origin: "https://maps.example".into(),
            asked: location.clone(),
            allow: Some(false),
        }]
    );
    assert_eq!(
        without_noise(h.click(&site_permission_control(
            "work",
            "https://maps.example",
            &notify,
            None
        ))),
        vec![UiCommand::SetSitePermission {
            container: "work".into(),
            origin: "https://maps.example".into(),
            asked: notify.clone(),
            allow: None,
        }]
    );
    assert_eq!(
        without_noise(h.click(&allow_work)),
        vec![UiCommand::SetSitePermission {
            container: "work".into(),
            origin: "https://maps.example".into(),
            asked: notify,
            allow: Some(true),
        }]
    );
}
