//! The browser chrome: tab strip, toolbar, omnibox, the page area and what
//! is drawn over it when a page asks (`overlays`: dialogs, context menu,
//! downloads, permissions, file chooser, notices), and the browser's memory
//! (`find`: the find bar; `bookmarks`: menu, bar, import; `history`: the
//! history panel; `suggest`: the omnibox's suggestions and inline completion), the main menu
//! and the settings view (`settings_view`).
//!
//! [`Chrome::run`] is one egui frame: it reads the [`ChromeModel`], draws,
//! and returns the [`UiCommand`]s the human's input produced. It owns only
//! UI-local state (omnibox text being edited, focus, the page texture).

use std::collections::HashMap;

use egui::text::{CCursor, CCursorRange};
use egui::{
    Align, Align2, Color32, Context, CornerRadius, CursorIcon, Event, FontId, FullOutput, Id, Key, Layout,
    PointerButton, Pos2, RawInput, Rect, RichText, Sense, TextureHandle, TextureOptions, Ui, Vec2, pos2,
    vec2,
};

use crate::command::{MouseButton, PageInput, UiCommand, ZoomStep};
use crate::dark::{FilterOptions, ThemeMode, site_key};
use crate::keys;
use crate::model::{ChromeModel, CursorShape, PageFrame, Rgb, TabId, TabView};
use crate::omnibox::{SearchEngine, resolve_input_with};

mod bookmarks;
mod consent;
mod favicon;
mod file_picker;
mod find;
mod history;
mod logins;
mod new_tab;
mod overlays;
mod restore;
mod settings_view;
mod suggest;
mod tab_menu;

pub use file_picker::file_entry_control;
pub use settings_view::{MIN_MCP_PORT, SettingsSection, site_permission_control, typed_port, typed_site};

/// DIP per wheel "line": what Chromium's GTK port scrolls per notch.
const WHEEL_LINE_DIP: f32 = 40.0;
/// Two presses closer than this (seconds, points) count as a double click.
const MULTI_CLICK_TIME: f64 = 0.5;
const MULTI_CLICK_DIST: f32 = 4.0;

const TAB_HEIGHT: f32 = 38.0;
const TAB_MAX_WIDTH: f32 = 220.0;
/// The address of a new tab's blank page.
const BLANK: &str = "about:blank";
const TAB_MIN_WIDTH: f32 = 64.0;
/// A pinned tab: its icon and nothing else.
const PINNED_WIDTH: f32 = 40.0;

/// Colour of the "agent is driving" mark.
const AGENT_COLOUR: Color32 = Color32::from_rgb(0xE8, 0x8A, 0x1A);
/// Colour of the "you are driving" mark.
const HUMAN_COLOUR: Color32 = Color32::from_rgb(0x2E, 0xA0, 0x43);
/// Private tabs: dark whatever the theme, so they never pass for ordinary ones.
const PRIVATE_BG: Color32 = Color32::from_rgb(0x24, 0x1B, 0x33);
const PRIVATE_HOVER: Color32 = Color32::from_rgb(0x33, 0x26, 0x48);
const PRIVATE_ACTIVE: Color32 = Color32::from_rgb(0x45, 0x2F, 0x66);
const PRIVATE_ACCENT: Color32 = Color32::from_rgb(0xB9, 0x8C, 0xF5);
/// The filled star of a bookmarked page.
const STAR_COLOUR: Color32 = Color32::from_rgb(0xF2, 0xB7, 0x05);

/// How long a shortcut offered to a page waits for the page to leave it. Far longer than a
/// busy renderer takes to answer; short enough that a press the page took cannot be matched
/// by an unrelated key much later.
const OFFER_LIFETIME: std::time::Duration = std::time::Duration::from_secs(5);

/// A chip at the omnibox's left end.
enum LeftChip {
    Private(&'static str),
    /// Plain HTTP to a host that is not this machine.
    NotSecure,
    /// A page reached past a certificate warning.
    CertificateError,
}

impl LeftChip {
    fn label(&self) -> &'static str {
        match self {
            LeftChip::Private(l) => l,
            LeftChip::NotSecure => "Not secure",
            LeftChip::CertificateError => "⚠ Not secure",
        }
    }
    fn control(&self) -> &'static str {
        match self {
            LeftChip::Private(_) => controls::PRIVATE,
            _ => controls::NOT_SECURE,
        }
    }
    fn hint(&self) -> &'static str {
        match self {
            LeftChip::Private(_) => {
                "Private tab: no history; its cookies and storage are forgotten when its last tab closes"
            }
            LeftChip::NotSecure => {
                "This page came over plain HTTP: what you send or see here can be read or changed on the way"
            }
            LeftChip::CertificateError => {
                "This site's certificate was refused and you went on anyway: this may not be the real site. The vault fills nothing here"
            }
        }
    }
    fn fill(&self) -> Color32 {
        match self {
            LeftChip::Private(_) => PRIVATE_ACTIVE,
            LeftChip::NotSecure => Color32::from_rgb(0x6b, 0x6b, 0x6b),
            LeftChip::CertificateError => Color32::from_rgb(0xc5, 0x22, 0x1f),
        }
    }
    fn text(&self) -> Color32 {
        Color32::WHITE
    }
}

/// The chip a tab's page earns: a certificate refused and proceeded past, or plain HTTP to
/// another machine (as Chrome, this machine's own servers are not marked).
fn security_chip(tab: &TabView) -> Option<LeftChip> {
    match tab.security {
        crate::model::Security::CertificateError => Some(LeftChip::CertificateError),
        crate::model::Security::NotSecure => {
            let rest = tab.url.strip_prefix("http://")?;
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            let name = match host.strip_prefix('[') {
                Some(v6) => v6.split(']').next().unwrap_or_default(),
                None => host.split(':').next().unwrap_or_default(),
            };
            let local = name.eq_ignore_ascii_case("localhost")
                || name.to_ascii_lowercase().ends_with(".localhost")
                || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
            (!local).then_some(LeftChip::NotSecure)
        }
        _ => None,
    }
}

/// A shortcut press the page gets first (see [`page_goes_first`]).
struct OfferedKey {
    tab: TabId,
    key: Key,
    modifiers: egui::Modifiers,
    /// The key as the page got it, to match the page's report.
    code: i32,
    flags: crate::command::Modifiers,
    at: std::time::Instant,
}

/// Whether a key pressed in a focused page goes to the page before the browser's shortcut
/// for it, as in Chrome: an editor's Ctrl+U underlines, a web app's Ctrl+F opens its own
/// search, and the browser acts only on what the page leaves alone. The keys that open, close
/// and switch tabs and leave fullscreen stay the browser's (Chrome's reserved commands): a
/// page must not be able to keep the human in it. Alt chords stay the browser's too: with Alt
/// held the window system still types the letter, which the page would get.
pub fn page_goes_first(key: Key, m: egui::Modifiers) -> bool {
    let ctrl = m.command || m.ctrl;
    let function_key = matches!(
        key,
        Key::F1
            | Key::F2
            | Key::F3
            | Key::F4
            | Key::F5
            | Key::F6
            | Key::F7
            | Key::F8
            | Key::F9
            | Key::F10
            | Key::F11
            | Key::F12
    );
    if m.alt || !(ctrl || function_key) {
        return false;
    }
    let reserved = match key {
        Key::T | Key::N | Key::W | Key::F4 | Key::Tab | Key::PageUp | Key::PageDown => ctrl,
        // Quitting, as in Chrome: no page may keep the human in the browser.
        Key::Q => ctrl && m.shift,
        Key::F11 => true,
        _ => false,
    };
    !reserved
}

/// Names of controls whose last-drawn rectangle [`Chrome::control_rect`]
/// reports; tests use them to click without knowing the layout.
pub mod controls {
    /// The omnibox text field.
    pub const OMNIBOX: &str = "omnibox";
    /// The new-tab (container picker) button.
    pub const NEW_TAB: &str = "new_tab";
    /// Take over / Hand back in the toolbar.
    pub const DRIVE: &str = "drive";
    /// Back.
    pub const BACK: &str = "back";
    /// Forward.
    pub const FORWARD: &str = "forward";
    /// Reload / Stop.
    pub const RELOAD: &str = "reload";
    /// Dark-mode menu.
    pub const THEME: &str = "theme";
    /// Vault button.
    pub const VAULT: &str = "vault";
    /// Brightness slider in the dark-mode menu (while open).
    pub const BRIGHTNESS: &str = "brightness";
    /// Contrast slider in the dark-mode menu (while open).
    pub const CONTRAST: &str = "contrast";
    /// The page area.
    pub const PAGE: &str = "page";
    /// The JavaScript dialog sheet (while shown).
    pub const DIALOG: &str = "dialog";
    /// The dialog's OK / Leave button.
    pub const DIALOG_OK: &str = "dialog:ok";
    /// The dialog's Cancel / Stay button.
    pub const DIALOG_CANCEL: &str = "dialog:cancel";
    /// The prompt's text field.
    pub const DIALOG_TEXT: &str = "dialog:text";
    /// A sign-in's username field.
    pub const DIALOG_USER: &str = "dialog:user";
    /// A sign-in's password field.
    pub const DIALOG_PASSWORD: &str = "dialog:password";
    /// A sign-in's "Use …" button for its `i`th saved login: `dialog:saved:i`.
    pub const DIALOG_SAVED: &str = "dialog:saved";
    /// "Don't let this page open more dialogs".
    pub const DIALOG_SUPPRESS: &str = "dialog:suppress";
    /// The context menu (while open).
    pub const CONTEXT_MENU: &str = "ctx";
    /// Context menu: Back.
    pub const CTX_BACK: &str = "ctx:back";
    /// Context menu: Forward.
    pub const CTX_FORWARD: &str = "ctx:forward";
    /// Context menu: Reload.
    pub const CTX_RELOAD: &str = "ctx:reload";
    /// Context menu: View page source.
    pub const CTX_VIEW_SOURCE: &str = "ctx:view_source";
    /// Over a page whose renderer process ended: the notice, and its Reload button.
    pub const GONE_PAGE: &str = "gone_page";
    /// See [`GONE_PAGE`].
    pub const GONE_RELOAD: &str = "gone_page:reload";
    /// Context menu: Inspect (the page's DevTools at the point).
    pub const CTX_INSPECT: &str = "ctx:inspect";
    /// Context menu: Save page as….
    pub const CTX_SAVE_PAGE: &str = "ctx:save_page";
    /// Context menu: Print….
    pub const CTX_PRINT: &str = "ctx:print";
    /// Context menu: search the web for the selected text.
    pub const CTX_SEARCH: &str = "ctx:search";
    /// Context menu: Open link in new tab.
    pub const CTX_OPEN_LINK: &str = "ctx:open_link";
    /// Context menu: Open link in container tab (the submenu's button; rows
    /// are [`super::context_container_control`]).
    pub const CTX_OPEN_LINK_IN: &str = "ctx:open_link_in";
    /// Context menu: Copy link address.
    pub const CTX_COPY_LINK: &str = "ctx:copy_link";
    /// Context menu: Open link in private tab.
    pub const CTX_OPEN_LINK_PRIVATE: &str = "ctx:open_link_private";
    /// Context menu: Save link as… (the linked file, as a download).
    pub const CTX_SAVE_LINK: &str = "ctx:save_link";
    /// Context menu: Open image in new tab.
    pub const CTX_OPEN_IMAGE: &str = "ctx:open_image";
    /// Context menu: Save image as….
    pub const CTX_SAVE_IMAGE: &str = "ctx:save_image";
    /// Context menu: Copy image address.
    pub const CTX_COPY_IMAGE: &str = "ctx:copy_image";
    /// Context menu: Copy (selected page text, outside an editable field).
    pub const CTX_COPY: &str = "ctx:copy";
    /// Context menu in an editable field: Undo.
    pub const CTX_UNDO: &str = "ctx:undo";
    /// Context menu in an editable field: Redo.
    pub const CTX_REDO: &str = "ctx:redo";
    /// Context menu in an editable field: Cut.
    pub const CTX_CUT: &str = "ctx:cut";
    /// Context menu in an editable field: Copy.
    pub const CTX_EDIT_COPY: &str = "ctx:edit_copy";
    /// Context menu in an editable field: Paste.
    pub const CTX_PASTE: &str = "ctx:paste";
    /// Context menu in an editable field: Select all.
    pub const CTX_SELECT_ALL: &str = "ctx:select_all";
    /// "Add to dictionary" for the misspelled word under the pointer.
    pub const CTX_ADD_WORD: &str = "ctx:add_word";
    /// Settings: "Block third-party cookies".
    pub const SETTINGS_THIRD_PARTY_COOKIES: &str = "settings:third_party_cookies";
    /// Settings: "Check spelling as you type".
    pub const SETTINGS_SPELLCHECK: &str = "settings:spellcheck";
    /// The first spelling suggestion; the others are `ctx:spell:N` ([`spelling_control`]).
    pub const CTX_SPELL_FIRST: &str = "ctx:spell:0";
    /// The toolbar's downloads button (only while there are downloads).
    pub const DOWNLOADS: &str = "downloads";
    /// The downloads panel (while open).
    pub const DOWNLOADS_PANEL: &str = "downloads:panel";
    /// "Open downloads folder" at the foot of the panel.
    pub const DOWNLOADS_FOLDER: &str = "downloads:folder";
    /// The vault consent sheet (while shown).
    pub const VAULT_CONSENT: &str = "vault_consent";
    /// Its "Allow once".
    pub const VAULT_CONSENT_ONCE: &str = "vault_consent:once";
    /// Its "Always for this site".
    pub const VAULT_CONSENT_ALWAYS: &str = "vault_consent:always";
    /// Its "Deny".
    pub const VAULT_CONSENT_DENY: &str = "vault_consent:deny";
    /// The permission bubble under the omnibox (while shown).
    pub const PERMISSION: &str = "permission";
    /// The permission bubble's Allow.
    pub const PERMISSION_ALLOW: &str = "permission:allow";
    /// The permission bubble's Block.
    pub const PERMISSION_BLOCK: &str = "permission:block";
    /// The bar over a page that stopped handling input.
    pub const UNRESPONSIVE: &str = "unresponsive";
    /// Its "Wait" button.
    pub const UNRESPONSIVE_WAIT: &str = "unresponsive:wait";
    /// Its "Stop script" button.
    pub const UNRESPONSIVE_STOP: &str = "unresponsive:stop";
    /// The bar saying the front tab's page was stopped from opening a pop-up.
    pub const BLOCKED_POPUP: &str = "blocked-popup";
    /// Its "Open it" button.
    pub const BLOCKED_POPUP_OPEN: &str = "blocked-popup:open";
    /// Its "Always allow on SITE" button.
    pub const BLOCKED_POPUP_ALLOW: &str = "blocked-popup:allow";
    /// Its close button.
    pub const BLOCKED_POPUP_CLOSE: &str = "blocked-popup:close";
    /// Where the page's popup widget (a `<select>` list) was drawn.
    pub const POPUP: &str = "popup";
    /// The file chooser (while shown); entries are
    /// [`super::file_entry_control`].
    pub const FILE_CHOOSER: &str = "file";
    /// The file chooser's Up button.
    pub const FILE_UP: &str = "file:^up";
    /// The file chooser's path field (Enter opens a folder or picks a file).
    pub const FILE_PATH: &str = "file:^path";
    /// The file chooser's name field (Save mode).
    pub const FILE_NAME: &str = "file:^name";
    /// The file chooser's Open / Select folder / Save.
    pub const FILE_OK: &str = "file:^ok";
    /// The file chooser's Cancel.
    pub const FILE_CANCEL: &str = "file:^cancel";
    /// "Show all files" (when the input has an `accept` filter).
    pub const FILE_SHOW_ALL: &str = "file:^all";
    /// The offer to restore the last session (while shown).
    pub const RESTORE_BAR: &str = "restore";
    /// The offer's Restore.
    pub const RESTORE_YES: &str = "restore:yes";
    /// The offer's Don't.
    pub const RESTORE_NO: &str = "restore:no";
    /// The question before quitting while downloads run (while shown).
    pub const QUIT_BAR: &str = "quit";
    /// Its "Quit anyway" (the downloads are cancelled).
    pub const QUIT_ANYWAY: &str = "quit:anyway";
    /// Its "Keep downloading" (the window stays).
    pub const QUIT_KEEP: &str = "quit:keep";
    /// The notice bar (while shown).
    pub const NOTICE: &str = "notice";
    /// The notice bar's close button.
    pub const NOTICE_CLOSE: &str = "notice:close";
    /// The find bar (while open for the active tab).
    pub const FIND: &str = "find";
    /// The find bar's text field.
    pub const FIND_FIELD: &str = "find:field";
    /// The find bar's "N of M" / "No results" (while it shows one).
    pub const FIND_STATUS: &str = "find:status";
    /// The find bar's previous-match button.
    pub const FIND_PREV: &str = "find:prev";
    /// The find bar's next-match button.
    pub const FIND_NEXT: &str = "find:next";
    /// The find bar's close button.
    pub const FIND_CLOSE: &str = "find:close";
    /// The omnibox's zoom chip ("110 %"; only while the zoom isn't 100 %).
    pub const ZOOM: &str = "zoom";
    /// The omnibox's bookmark star.
    pub const STAR: &str = "star";
    /// The omnibox's key (saved logins for the page), while there are some.
    pub const LOGINS: &str = "logins";
    /// "Save this login?": Save.
    pub const SAVE_LOGIN_YES: &str = "save_login:yes";
    /// "Save this login?": Not now.
    pub const SAVE_LOGIN_NO: &str = "save_login:no";
    /// The saved-logins menu (while open); its rows are `login:<entry id>`.
    pub const LOGINS_MENU: &str = "logins:menu";
    /// The omnibox's "Private" chip (active tab in a private container).
    pub const PRIVATE: &str = "private";
    /// The omnibox's "Not secure" chip (plain HTTP, or a page past a certificate warning).
    pub const NOT_SECURE: &str = "not_secure";
    /// "New private tab" in the new-tab menu.
    pub const NEW_PRIVATE_TAB: &str = "new_private_tab";
    /// The toolbar's bookmarks menu button.
    pub const BOOKMARKS: &str = "bookmarks";
    /// Bookmarks menu: "Bookmark this tab" / "Remove bookmark".
    pub const BOOKMARK_THIS: &str = "bookmarks:this";
    /// Bookmarks menu: "Show bookmarks bar".
    pub const BOOKMARKS_BAR_TOGGLE: &str = "bookmarks:bar";
    /// Bookmarks menu: "Import bookmarks from HTML file…".
    pub const BOOKMARKS_IMPORT: &str = "bookmarks:import";
    /// The bookmarks bar (while shown).
    pub const BOOKMARKS_BAR: &str = "bookmarks_bar";
    /// The actions popup of a right-clicked bookmark (while open).
    pub const BOOKMARK_ACTIONS: &str = "bookmark_actions";
    /// Bookmark actions: Open.
    pub const BOOKMARK_OPEN: &str = "bookmark_actions:open";
    /// Bookmark actions: Open in new tab.
    pub const BOOKMARK_OPEN_NEW: &str = "bookmark_actions:open_new";
    /// Bookmark actions: Remove.
    pub const BOOKMARK_REMOVE: &str = "bookmark_actions:remove";
    /// Bookmark actions: Rename… (then its name field, and Save).
    pub const BOOKMARK_RENAME: &str = "bookmark_actions:rename";
    /// Bookmark actions: the new name's field.
    pub const BOOKMARK_NAME: &str = "bookmark_actions:name";
    /// Bookmark actions: Save the new name.
    pub const BOOKMARK_SAVE_NAME: &str = "bookmark_actions:save_name";
    /// Bookmark actions: Move to the other root (the bookmarks bar, or Other bookmarks).
    pub const BOOKMARK_MOVE: &str = "bookmark_actions:move";
    /// The right-click menu of a tab (while open).
    pub const TAB_ACTIONS: &str = "tab_actions";
    /// Tab menu: Reload.
    pub const TAB_RELOAD: &str = "tab_actions:reload";
    /// Tab menu: Duplicate.
    pub const TAB_DUPLICATE: &str = "tab_actions:duplicate";
    /// Tab menu: Mute tab / Unmute tab.
    pub const TAB_MUTE: &str = "tab_actions:mute";
    /// Tab menu: Pin tab / Unpin tab.
    pub const TAB_PIN: &str = "tab_actions:pin";
    /// Tab menu: Close tab.
    pub const TAB_CLOSE: &str = "tab_actions:close";
    /// Tab menu: Close other tabs.
    pub const TAB_CLOSE_OTHERS: &str = "tab_actions:close_others";
    /// Tab menu: Close tabs to the right.
    pub const TAB_CLOSE_RIGHT: &str = "tab_actions:close_right";
    /// Tab menu: Reopen closed tab.
    pub const TAB_REOPEN: &str = "tab_actions:reopen";
    /// The import dialog (while open).
    pub const IMPORT: &str = "import";
    /// The import dialog's path field.
    pub const IMPORT_PATH: &str = "import:path";
    /// The import dialog's Import button.
    pub const IMPORT_OK: &str = "import:ok";
    /// The import dialog's Cancel button.
    pub const IMPORT_CANCEL: &str = "import:cancel";
    /// The toolbar's history button.
    pub const HISTORY_BUTTON: &str = "history_button";
    /// The history panel (while open).
    pub const HISTORY: &str = "history";
    /// The history panel's search field.
    pub const HISTORY_SEARCH: &str = "history:search";
    /// The history panel's close button.
    pub const HISTORY_CLOSE: &str = "history:close";
    /// "Clear browsing history…" (opens the range choice).
    pub const HISTORY_CLEAR: &str = "history:clear";
    /// The range choice's Clear button.
    pub const HISTORY_CLEAR_OK: &str = "history:clear:ok";
    /// The range choice's Cancel button.
    pub const HISTORY_CLEAR_CANCEL: &str = "history:clear:cancel";
    /// The omnibox's suggestion dropdown (while open); rows are
    /// [`super::suggestion_control`].
    pub const SUGGESTIONS: &str = "suggestions";
    /// The main menu's button (the strip's right end).
    pub const MAIN_MENU: &str = "main_menu";
    /// Main menu: "New tab".
    pub const MAIN_MENU_NEW_TAB: &str = "main_menu:new_tab";
    /// Main menu: "New private tab".
    pub const MAIN_MENU_PRIVATE: &str = "main_menu:private";
    /// Main menu: "Reopen closed tab".
    pub const MAIN_MENU_REOPEN: &str = "main_menu:reopen";
    /// Main menu: "Open file…".
    pub const MAIN_MENU_OPEN_FILE: &str = "main_menu:open_file";
    /// Main menu: "Downloads".
    pub const MAIN_MENU_DOWNLOADS: &str = "main_menu:downloads";
    /// Main menu: "Show / Hide bookmarks bar".
    pub const MAIN_MENU_BOOKMARKS_BAR: &str = "main_menu:bookmarks_bar";
    /// Main menu: the zoom row's "−".
    pub const MAIN_MENU_ZOOM_OUT: &str = "main_menu:zoom_out";
    /// Main menu: the zoom row's level, which sets it back to 100 %.
    pub const MAIN_MENU_ZOOM_RESET: &str = "main_menu:zoom_reset";
    /// Main menu: the zoom row's "+".
    pub const MAIN_MENU_ZOOM_IN: &str = "main_menu:zoom_in";
    /// Main menu: "Find in page…".
    pub const MAIN_MENU_FIND: &str = "main_menu:find";
    /// Main menu: "Print…".
    pub const MAIN_MENU_PRINT: &str = "main_menu:print";
    /// Main menu: "Save page as…".
    pub const MAIN_MENU_SAVE: &str = "main_menu:save";
    /// Main menu: "Developer tools".
    pub const MAIN_MENU_DEVTOOLS: &str = "main_menu:devtools";
    /// Main menu: "History".
    pub const MAIN_MENU_HISTORY: &str = "main_menu:history";
    /// Main menu: "Settings".
    pub const MAIN_MENU_SETTINGS: &str = "main_menu:settings";
    /// The main menu's Exit (Ctrl+Shift+Q): quit, asking first while downloads run.
    pub const MAIN_MENU_EXIT: &str = "main_menu:exit";
    /// The settings view (while open); its section tabs are
    /// [`super::settings_section_control`].
    pub const SETTINGS: &str = "settings";
    /// The settings view's close button.
    pub const SETTINGS_CLOSE: &str = "settings:close";
    /// General: the custom search template's field (while "Custom" is chosen); the engines'
    /// radio buttons are [`super::search_engine_control`].
    pub const SETTINGS_CUSTOM_TEMPLATE: &str = "settings:custom";
    /// General: the custom template's "Use".
    pub const SETTINGS_CUSTOM_USE: &str = "settings:custom:use";
    /// General: the default container's drop-down (rows:
    /// [`super::settings_container_control`]).
    pub const SETTINGS_CONTAINER: &str = "settings:container";
    /// General: the download folder's field.
    pub const SETTINGS_DOWNLOAD_DIR: &str = "settings:download";
    /// General: the download folder's "Save".
    pub const SETTINGS_DOWNLOAD_SAVE: &str = "settings:download:save";
    /// Appearance: the brightness slider.
    pub const SETTINGS_BRIGHTNESS: &str = "settings:brightness";
    /// Appearance: the contrast slider.
    pub const SETTINGS_CONTRAST: &str = "settings:contrast";
    /// Privacy: the time range drop-down of "Clear browsing data" (rows:
    /// [`super::clear_range_control`]).
    pub const SETTINGS_CLEAR_RANGE: &str = "settings:clear:range";
    /// Privacy: the containers drop-down of "Clear browsing data" (rows:
    /// [`super::clear_container_control`]).
    pub const SETTINGS_CLEAR_CONTAINER: &str = "settings:clear:container";
    /// Privacy: "Browsing history".
    pub const SETTINGS_CLEAR_HISTORY: &str = "settings:clear:history";
    /// Privacy: "Cookies".
    pub const SETTINGS_CLEAR_COOKIES: &str = "settings:clear:cookies";
    /// Privacy: "Cached images and files".
    pub const SETTINGS_CLEAR_CACHE: &str = "settings:clear:cache";
    /// Privacy: "Clear data".
    pub const SETTINGS_CLEAR_OK: &str = "settings:clear:ok";
    /// Privacy: "Block trackers and ads on every site".
    pub const SETTINGS_BLOCKING: &str = "settings:blocking";
    /// Privacy: "Block trackers on <the active tab's site>".
    pub const SETTINGS_SITE_BLOCKING: &str = "settings:blocking:site";
    /// Privacy: the new exception's site field (exceptions' remove buttons are
    /// [`super::blocking_exception_control`]).
    pub const SETTINGS_EXCEPTION_SITE: &str = "settings:exception";
    /// Privacy: the button adding the typed exception.
    pub const SETTINGS_EXCEPTION_ADD: &str = "settings:exception:add";
    /// Agent: the MCP port's field.
    pub const SETTINGS_MCP_PORT: &str = "settings:mcp_port";
    /// Agent: the MCP port's "Save".
    pub const SETTINGS_MCP_SAVE: &str = "settings:mcp_port:save";
}

pub use new_tab::{SITE_RESTORE_ALL, SITE_UNDO, site_tile, site_tile_remove};

/// Id of a tab's clickable area for [`Chrome::control_rect`].
pub fn tab_control(tab: TabId) -> String {
    format!("tab:{}", tab.0)
}

/// Id of a tab's recording mark (shown while its page uses the camera or microphone) for
/// [`Chrome::control_rect`].
pub fn tab_capture_control(tab: TabId) -> String {
    format!("capture:{}", tab.0)
}

/// What a page capturing `(camera, microphone)` uses, in words; `None` when neither.
fn capture_words(capturing: (bool, bool)) -> Option<&'static str> {
    match capturing {
        (true, true) => Some("camera and microphone"),
        (true, false) => Some("camera"),
        (false, true) => Some("microphone"),
        (false, false) => None,
    }
}

/// Id of a tab's speaker mark (shown while it plays sound or is muted; a click mutes or
/// unmutes) for [`Chrome::control_rect`].
pub fn tab_mute_control(tab: TabId) -> String {
    format!("mute:{}", tab.0)
}

/// Id of a tab's close button for [`Chrome::control_rect`].
pub fn tab_close_control(tab: TabId) -> String {
    format!("close:{}", tab.0)
}

/// Id of a mode item in the open dark-mode menu for [`Chrome::control_rect`].
pub fn theme_mode_control(mode: ThemeMode) -> String {
    format!("theme:{}", mode.label().to_ascii_lowercase())
}

/// Id of a container row in the new-tab picker for [`Chrome::control_rect`].
pub fn container_control(container: &str) -> String {
    format!("container:{container}")
}

/// Id of a download row's button in the open panel for
/// [`Chrome::control_rect`]; `action` is "cancel", "show" or "remove".
pub fn download_control(action: &str, id: u32) -> String {
    format!("download:{action}:{id}")
}

/// Id of a spellcheck language's box in the settings view for [`Chrome::control_rect`].
pub fn spell_language_control(lang: &str) -> String {
    format!("settings:spell_lang:{lang}")
}

/// Id of the `i`th spelling suggestion in the context menu for [`Chrome::control_rect`].
pub fn spelling_control(i: usize) -> String {
    format!("ctx:spell:{i}")
}

/// Id of a container row in the context menu's "Open link in container
/// tab" submenu for [`Chrome::control_rect`].
pub fn context_container_control(container: &str) -> String {
    format!("ctx:container:{container}")
}

/// Id of a bookmark or folder in the open bookmarks menu (and its open submenus) for
/// [`Chrome::control_rect`].
pub fn bookmark_control(id: i64) -> String {
    format!("bookmark:{id}")
}

/// Id of a bookmark or folder on the bookmarks bar (or in a bar folder's open menu) for
/// [`Chrome::control_rect`].
pub fn bookmark_bar_control(id: i64) -> String {
    format!("bookmark_bar:{id}")
}

/// Id of a history row (its clickable area) in the open history panel.
pub fn history_row_control(id: i64) -> String {
    format!("history:row:{id}")
}

/// Id of a history row's delete button in the open history panel.
pub fn history_delete_control(id: i64) -> String {
    format!("history:delete:{id}")
}

/// Id of a range in the history panel's "Clear browsing history" choice.
pub fn history_range_control(range: ClearRange) -> String {
    format!("history:range:{}", range.key())
}

/// Id of the `index`th row of the omnibox's suggestion dropdown.
pub fn suggestion_control(index: usize) -> String {
    format!("suggestion:{index}")
}

pub use history::ClearRange;

/// Id of a section's tab in the open settings view.
pub fn settings_section_control(section: SettingsSection) -> String {
    format!("settings:section:{}", section.key())
}

/// Id of a search engine's radio button in the settings view (any custom template: "Custom").
pub fn search_engine_control(engine: &SearchEngine) -> String {
    format!("settings:engine:{}", settings_view::engine_key(engine))
}

/// Id of a container in the open default-container drop-down of the settings view.
pub fn settings_container_control(container: &str) -> String {
    format!("settings:container:{container}")
}

/// Id of a colour-scheme choice (`None` = follow the system) in the settings view.
pub fn color_scheme_control(scheme: Option<crate::dark::ColorScheme>) -> String {
    format!("settings:scheme:{}", settings_view::scheme_key(scheme))
}

/// Id of a default dark-mode policy's radio button in the settings view.
pub fn dark_default_control(mode: ThemeMode) -> String {
    format!("settings:dark:{}", mode.label().to_ascii_lowercase())
}

/// Id of a site's "Forget" (its own dark-mode choice) in the settings view.
pub fn dark_site_forget_control(site: &str) -> String {
    format!("settings:dark_site:{site}")
}

/// Id of a range in the open time-range drop-down of "Clear browsing data".
pub fn clear_range_control(range: ClearRange) -> String {
    format!("settings:clear:range:{}", range.key())
}

/// Id of a container (`None` = all) in the open containers drop-down of "Clear browsing data".
pub fn clear_container_control(container: Option<&str>) -> String {
    format!("settings:clear:container:{}", container.unwrap_or("*"))
}

/// Id of a blocking exception's remove button in the settings view.
pub fn blocking_exception_control(site: &str) -> String {
    format!("settings:exception:{site}")
}

/// The settings view's button that stops allowing pop-ups on `origin`.
pub fn popup_origin_control(origin: &str) -> String {
    format!("settings:popups:{origin}")
}

/// A page frame the renderer uploaded itself (see
/// [`Chrome::set_external_page_texture`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalPageTexture {
    /// egui id of the renderer's native texture.
    pub id: egui::TextureId,
    /// Its size in pixels.
    pub size: [u32; 2],
    /// The [`PageFrame::generation`] it holds.
    pub generation: u64,
}

struct PageTexture {
    handle: TextureHandle,
    generation: u64,
    size: [u32; 2],
}

#[derive(Clone, Copy)]
struct LastClick {
    time: f64,
    pos: Pos2,
    button: MouseButton,
    count: u32,
}

/// UI-local chrome state. Create one per window and call [`Chrome::run`]
/// every frame.
pub struct Chrome {
    omnibox_text: String,
    /// Tab and URL the omnibox text was last synced from; the text follows
    /// the model only while the human isn't editing.
    omnibox_source: Option<(TabId, String)>,
    omnibox_editing: bool,
    focus_omnibox: bool,
    /// A new tab was asked for and has not been shown yet.
    new_tab_asked: bool,
    select_on_release: bool,
    page_focused: bool,
    window_focused: bool,
    /// What the app was last told in `PageFocus`, to send only changes.
    reported_focus: Option<(TabId, bool)>,
    texture: Option<PageTexture>,
    /// The page's popup widget's pixels.
    popup_texture: Option<PageTexture>,
    external: Option<ExternalPageTexture>,
    last_resize: Option<(u32, u32, f32)>,
    pointer_in_page: bool,
    /// Files from another application are being dragged over the page (it was told they
    /// entered), and where it was last told they are.
    file_drag: Option<Pos2>,
    /// Buttons pressed inside the page; their moves and releases keep going
    /// to the page even outside it, so drags and selections work.
    captured: Vec<MouseButton>,
    last_click: Option<LastClick>,
    /// Key-downs the chrome used as shortcuts; their key-ups are dropped too.
    swallowed_keys: Vec<Key>,
    /// Keys down that went to the page, to mark auto-repeats.
    held_keys: Vec<Key>,
    /// Shortcut presses sent to the page first; each runs if the page reports it did not take
    /// it ([`ChromeModel::keys_not_taken`]).
    offered_keys: Vec<OfferedKey>,
    /// The last [`crate::model::KeyNotTaken::seq`] acted on.
    keys_not_taken_seen: u64,
    page_rect: Option<Rect>,
    /// Active tab the strip last scrolled into view.
    scrolled_to: Option<TabId>,
    rects: HashMap<String, Rect>,
    commands: Vec<UiCommand>,
    /// The dialog being shown and what the human has typed/ticked in it.
    dialog: Option<overlays::DialogState>,
    /// The dialog last answered: hidden at once, before the app clears it.
    answered_dialog: Option<(TabId, u64)>,
    /// The context menu the human closed; hidden until the app clears it.
    dismissed_menu: Option<crate::model::ContextMenuView>,
    /// The downloads panel is open.
    downloads_open: bool,
    /// Finished downloads the human has seen in the panel (no dot for them).
    seen_downloads: std::collections::HashSet<u32>,
    /// What the downloads button showed last frame.
    download_badge: Option<DownloadBadge>,
    /// The permission request last answered (hidden until the app clears it).
    answered_permission: Option<u64>,
    /// The vault consent request last answered (hidden until the app clears it).
    answered_consent: Option<u64>,
    /// The saved-logins menu is open for this tab.
    logins_open: Option<TabId>,
    /// The "save this login?" offer last answered (hidden until the app drops it).
    answered_save_login: Option<u64>,
    /// The file chooser on screen.
    file_picker: Option<file_picker::FilePicker>,
    /// The picker Ctrl+O opened ("Open file…"), for the tab it was opened over: the browser's
    /// own request, not a page's.
    open_file: Option<file_picker::FilePicker>,
    /// The file chooser last answered (hidden until the app clears it).
    answered_chooser: Option<(TabId, u64)>,
    /// The notice the human closed (hidden until the app changes it).
    dismissed_notice: Option<String>,
    /// Open find bars by tab: each tab keeps its own until closed.
    find_bars: HashMap<TabId, find::FindBar>,
    /// The last text searched for, prefilled in a newly opened find bar.
    last_find: String,
    /// Ctrl+wheel over the page, in wheel lines not yet turned into zoom steps (a touchpad
    /// sends fractions of one).
    zoom_wheel: f32,
    /// The tab being dragged along the strip.
    tab_drag: Option<TabId>,
    /// The page's tooltip under the pointer, and since when (shown after a rest, as browsers
    /// show them, and put away by a press until the page gives another).
    page_tip: Option<PageTip>,
    /// The actions popup of a right-clicked bookmark.
    bookmark_actions: Option<bookmarks::Actions>,
    /// The menu of a right-clicked tab.
    tab_actions: Option<tab_menu::TabActions>,
    /// The "Import bookmarks" dialog.
    import_dialog: Option<bookmarks::ImportDialog>,
    /// The history panel, while open.
    history: Option<history::HistoryPanel>,
    /// The settings view, while open.
    settings: Option<settings_view::SettingsPanel>,
    /// What the human typed into the omnibox, without the inline completion shown after it.
    omnibox_typed: String,
    /// No inline completion until the next typed character (after a deletion or Escape), so
    /// Backspace removes the completion instead of getting it back at once.
    inline_suppressed: bool,
    /// The suggestion picked with the arrow keys (the omnibox shows its URL).
    suggestion: Option<usize>,
    /// Escape closed the suggestions; they stay closed until the next edit.
    suggestions_dismissed: bool,
}

/// What the toolbar's downloads button shows (see
/// [`Chrome::download_badge`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DownloadBadge {
    /// Downloads in progress.
    pub in_progress: usize,
    /// Bytes received / total over the in-progress downloads whose size is
    /// known; `None` when none is (the ring then just turns).
    pub fraction: Option<f32>,
    /// A download finished that the human hasn't seen in the panel (the dot).
    pub unseen: bool,
}

impl Default for Chrome {
    fn default() -> Self {
        Self::new()
    }
}

impl Chrome {
    /// Fresh state: nothing focused.
    pub fn new() -> Self {
        Chrome {
            omnibox_text: String::new(),
            omnibox_source: None,
            omnibox_editing: false,
            focus_omnibox: false,
            new_tab_asked: false,
            select_on_release: false,
            page_focused: false,
            window_focused: true,
            reported_focus: None,
            texture: None,
            popup_texture: None,
            external: None,
            last_resize: None,
            pointer_in_page: false,
            file_drag: None,
            captured: Vec::new(),
            last_click: None,
            swallowed_keys: Vec::new(),
            held_keys: Vec::new(),
            offered_keys: Vec::new(),
            keys_not_taken_seen: 0,
            page_rect: None,
            scrolled_to: None,
            rects: HashMap::new(),
            commands: Vec::new(),
            dialog: None,
            answered_dialog: None,
            dismissed_menu: None,
            downloads_open: false,
            seen_downloads: Default::default(),
            download_badge: None,
            answered_permission: None,
            answered_consent: None,
            logins_open: None,
            answered_save_login: None,
            file_picker: None,
            open_file: None,
            answered_chooser: None,
            dismissed_notice: None,
            find_bars: HashMap::new(),
            last_find: String::new(),
            zoom_wheel: 0.0,
            tab_drag: None,
            page_tip: None,
            bookmark_actions: None,
            tab_actions: None,
            import_dialog: None,
            history: None,
            settings: None,
            omnibox_typed: String::new(),
            inline_suppressed: false,
            suggestion: None,
            suggestions_dismissed: false,
        }
    }

    /// Whether keyboard input currently goes to the page. The runner turns
    /// egui-winit's clipboard shortcuts off while it does, so Ctrl+C/V reach
    /// the page as keys (CEF does its own clipboard).
    pub fn page_focused(&self) -> bool {
        self.page_focused
    }

    /// Use a texture the renderer filled straight from the BGRA frame
    /// (skipping the CPU swizzle into an egui image) whenever its generation
    /// matches the model's frame. The winit runner does this on desktop GL.
    pub fn set_external_page_texture(&mut self, texture: Option<ExternalPageTexture>) {
        self.external = texture;
    }

    /// Put keyboard focus in the omnibox with its text selected (Ctrl+L).
    pub fn focus_omnibox(&mut self) {
        self.focus_omnibox = true;
    }

    /// Where a control was drawn last frame (names in [`controls`],
    /// [`tab_control`], …), in points.
    pub fn control_rect(&self, name: &str) -> Option<Rect> {
        self.rects.get(name).copied()
    }

    /// What the downloads button showed last frame; `None` while it is
    /// hidden (no downloads).
    pub fn download_badge(&self) -> Option<DownloadBadge> {
        self.download_badge
    }

    /// The page area's rectangle last frame, in points.
    pub fn page_rect(&self) -> Option<Rect> {
        self.page_rect
    }

    /// Run one egui frame. Keyboard input is routed before egui sees it:
    /// browser shortcuts first, then — if the page has focus — everything
    /// else goes to the page, so egui's own key handling (Tab focus
    /// cycling, text editing) never fires underneath the page.
    pub fn run(
        &mut self,
        ctx: &Context,
        mut raw: RawInput,
        model: &ChromeModel,
    ) -> (FullOutput, Vec<UiCommand>) {
        // Ctrl+±/0 belong to page zoom (the app's business), not to egui
        // scaling the whole chrome.
        ctx.options_mut(|o| o.zoom_with_keyboard = false);
        self.sync_overlays(model);
        self.sync_memory(model);
        if self.page_modal(model) {
            // A tab-modal sheet owns the page's keyboard until it's answered.
            self.page_focused = false;
        }
        self.keys_the_page_left(ctx, model);
        self.route_keyboard(ctx, &mut raw, model);
        let mut output = ctx.run_ui(raw, |ui| self.ui(ui, model));
        // "Copy link address", "Copy": the chrome puts the text on the clipboard the way egui
        // does its own copies (the runner hands them to the system clipboard), and still
        // reports the command.
        for c in &self.commands {
            if let UiCommand::CopyText { text } = c {
                output
                    .platform_output
                    .commands
                    .push(egui::OutputCommand::CopyText(text.clone()));
            }
        }
        (output, std::mem::take(&mut self.commands))
    }

    fn emit(&mut self, cmd: UiCommand) {
        if matches!(cmd, UiCommand::NewTab { .. } | UiCommand::NewPrivateTab) {
            self.new_tab_asked = true;
        }
        self.commands.push(cmd);
    }

    fn route_keyboard(&mut self, ctx: &Context, raw: &mut RawInput, model: &ChromeModel) {
        let active = model.active;
        // Keys go to the page only while it has focus and nothing drawn over
        // it (a context menu) is taking them.
        // The main menu, a container or theme menu open over a focused page takes them too:
        // Escape closes it, as in Chrome.
        let to_page =
            self.page_focused && active.is_some() && !self.menu_open(model) && !egui::Popup::is_any_open(ctx);
        // A page whose renderer is gone, or whose script never returns, never answers for a
        // key: its shortcuts (F5, Ctrl+R, Alt+Left) act at once.
        let page_answers = model
            .active_tab()
            .is_some_and(|t| !t.renderer_gone && !t.unresponsive);
        let page_first = |key: Key, m: egui::Modifiers| to_page && page_answers && page_goes_first(key, m);
        let events = std::mem::take(&mut raw.events);
        // The text a shortcut's key typed: with Alt held the window system still types the
        // letter (Alt+D gives "d"), which must reach neither the page nor the omnibox.
        let mut shortcut_text = false;
        for ev in events {
            if let Event::Key {
                key, pressed: true, ..
            } = &ev
            {
                // A fresh press means any release we meant to swallow was lost.
                self.swallowed_keys.retain(|k| k != key);
                shortcut_text = false;
            }
            if let Event::Text(_) = &ev
                && std::mem::take(&mut shortcut_text)
            {
                continue;
            }
            match &ev {
                Event::WindowFocused(f) => {
                    self.window_focused = *f;
                    raw.events.push(ev);
                }
                Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } if self.memory_key(ctx, *key, *modifiers, model)
                    || self.overlay_key(ctx, *key, *modifiers, model)
                    || (!page_first(*key, *modifiers) && self.shortcut(ctx, *key, *modifiers, model)) =>
                {
                    self.swallowed_keys.push(*key);
                    shortcut_text = true;
                }
                Event::Key {
                    key, pressed: false, ..
                } if self.swallowed_keys.contains(key) => {
                    self.swallowed_keys.retain(|k| k != key);
                }
                Event::Key {
                    key,
                    physical_key,
                    pressed,
                    repeat,
                    modifiers,
                } if to_page => {
                    // Esc stops a load, as in every browser; the page still gets the key.
                    if *key == Key::Escape
                        && *pressed
                        && !modifiers.any()
                        && let Some(tab) = model.active_tab().filter(|t| t.loading)
                    {
                        self.emit(UiCommand::Stop { tab: tab.id });
                    }
                    // egui-winit leaves `repeat` false in raw input (egui
                    // derives it later), so tell repeats apart ourselves: a
                    // press of a key already held is an auto-repeat.
                    let held = self.held_keys.contains(key);
                    if *pressed {
                        if !held {
                            self.held_keys.push(*key);
                        }
                    } else {
                        self.held_keys.retain(|k| k != key);
                    }
                    let k = keys::key_input(*key, *physical_key, *modifiers, *repeat || (*pressed && held));
                    if *pressed
                        && page_first(*key, *modifiers)
                        && let Some(tab) = active
                    {
                        self.offered_keys.retain(|o| o.at.elapsed() < OFFER_LIFETIME);
                        self.offered_keys.push(OfferedKey {
                            tab,
                            key: *key,
                            modifiers: *modifiers,
                            code: k.windows_key_code,
                            flags: k.modifiers,
                            at: std::time::Instant::now(),
                        });
                    }
                    let input = if *pressed {
                        PageInput::KeyDown(k)
                    } else {
                        PageInput::KeyUp(k)
                    };
                    self.page_input(active, input);
                }
                Event::Text(text) if to_page => {
                    self.page_input(active, PageInput::Text { text: text.clone() });
                }
                Event::Ime(ime) if to_page => match ime {
                    egui::ImeEvent::Preedit { text, .. } => {
                        self.page_input(active, PageInput::ImeComposition { text: text.clone() })
                    }
                    egui::ImeEvent::Commit(text) => {
                        self.page_input(active, PageInput::ImeCommit { text: text.clone() })
                    }
                    _ => {}
                },
                // Clipboard events only appear if the integration still
                // translates shortcuts; the page does its own clipboard, so
                // don't let them reach an egui widget underneath.
                Event::Copy | Event::Cut | Event::Paste(_) if to_page => {}
                _ => raw.events.push(ev),
            }
        }
    }

    /// Runs the shortcuts offered to a page that it left alone, in the order it reported them.
    fn keys_the_page_left(&mut self, ctx: &Context, model: &ChromeModel) {
        let fresh: Vec<_> = model
            .keys_not_taken
            .iter()
            .filter(|k| k.seq > self.keys_not_taken_seen)
            .copied()
            .collect();
        for k in fresh {
            self.keys_not_taken_seen = k.seq;
            // Only a press the chrome offered counts: the agent's keys reach the same page and
            // come back the same way, and must never work the window.
            let Some(i) = self.offered_keys.iter().position(|o| {
                o.tab == k.tab
                    && o.code == k.windows_key_code
                    && o.flags.ctrl == k.modifiers.ctrl
                    && o.flags.shift == k.modifiers.shift
                    && o.flags.alt == k.modifiers.alt
                    && o.at.elapsed() < OFFER_LIFETIME
            }) else {
                continue;
            };
            let o = self.offered_keys.remove(i);
            // The human may have moved to another tab meanwhile; the key was meant for this one.
            if model.active == Some(o.tab) {
                self.shortcut(ctx, o.key, o.modifiers, model);
            }
        }
    }

    /// Keys the find bar, the omnibox's suggestions and the bookmark and history views take
    /// before the overlays and the shortcuts. `true` if used.
    fn memory_key(&mut self, ctx: &Context, key: Key, m: egui::Modifiers, model: &ChromeModel) -> bool {
        if self.find_key(ctx, key, m, model) {
            return true;
        }
        if !m.any() && self.suggestion_key(ctx, key, model) {
            return true;
        }
        if key == Key::Escape && !m.any() {
            if self.import_dialog.is_some() {
                self.import_dialog = None;
                return true;
            }
            if self.bookmark_actions.is_some() {
                self.bookmark_actions = None;
                return true;
            }
            if self.tab_actions.is_some() {
                self.tab_actions = None;
                return true;
            }
            if self.history_search_focused(ctx) {
                self.close_history(ctx);
                return true;
            }
            if self.settings_field_focused(ctx) {
                self.close_settings(ctx);
                return true;
            }
        }
        false
    }

    /// Drop UI state whose tab is gone.
    fn sync_memory(&mut self, model: &ChromeModel) {
        self.find_bars
            .retain(|tab, _| model.tabs.iter().any(|t| t.id == *tab));
        if self
            .tab_drag
            .is_some_and(|d| !model.tabs.iter().any(|t| t.id == d))
        {
            self.tab_drag = None;
        }
    }

    /// The find bar, a bookmark's actions and the import dialog.
    fn memory_overlays(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let ctx = ui.ctx().clone();
        if let Some(tab) = model.active_tab()
            && self.find_bars.contains_key(&tab.id)
        {
            self.find_bar(&ctx, tab);
        }
        if self.bookmark_actions.is_some() {
            self.bookmark_actions_popup(ui, model);
        }
        if self.tab_actions.is_some() {
            self.tab_actions_popup(ui, model);
        }
        if self.import_dialog.is_some() {
            self.import_dialog(&ctx);
        }
    }

    /// Handle a browser shortcut; `true` if it was one. From a focused page, the ones
    /// [`page_goes_first`] names arrive here only after the page left them alone.
    fn shortcut(&mut self, ctx: &Context, key: Key, m: egui::Modifiers, model: &ChromeModel) -> bool {
        let active = model.active;
        // egui-winit sets both `ctrl` and `command` for Ctrl on Linux;
        // accept either so synthetic input needn't mimic that.
        let ctrl = m.command || m.ctrl;
        let ctrl_only = ctrl && !m.alt && !m.shift;
        let ctrl_shift = ctrl && m.shift && !m.alt;
        let alt_only = m.alt && !ctrl && !m.shift;
        let none = !m.any();
        let zoom = |this: &mut Self, step| {
            if let Some(tab) = active {
                this.emit(UiCommand::Zoom { tab, step });
            }
        };
        match key {
            // Ctrl+L, and the other ways every browser has: Alt+D and F6. (Not Ctrl+K or Ctrl+E:
            // web apps use those for their own search, and here the chrome would take them first.)
            Key::L if ctrl_only => self.focus_address(model),
            Key::D if alt_only => self.focus_address(model),
            Key::F6 if none => self.focus_address(model),
            Key::R if ctrl_shift => {
                if let Some(tab) = active {
                    self.emit(UiCommand::HardReload { tab });
                }
            }
            Key::F5 if (m.shift && !ctrl && !m.alt) || ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::HardReload { tab });
                }
            }
            Key::U if ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::ViewSource { tab });
                }
            }
            // F12 and Ctrl+Shift+I: the page's DevTools.
            Key::F12 | Key::I if (key == Key::F12 && none) || (key == Key::I && ctrl_shift) => {
                if let Some(tab) = active {
                    self.emit(UiCommand::DevTools { tab });
                }
            }
            Key::S if ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::SavePage { tab });
                }
            }
            Key::J if ctrl_only => {
                if model.downloads.is_empty() {
                    self.emit(UiCommand::OpenDownloadsFolder);
                } else {
                    self.downloads_open = !self.downloads_open;
                }
            }
            Key::Delete if ctrl_shift => self.open_settings(ctx, SettingsSection::Privacy),
            // Ctrl+N too: this browser has one window, so a new tab is the new place to browse.
            Key::T | Key::N if ctrl_only => {
                if let Some(container) = model.new_tab_container() {
                    let container = container.to_string();
                    self.emit(UiCommand::NewTab { container });
                    // A new tab starts with the omnibox, as in every browser.
                    self.focus_omnibox = true;
                    self.set_page_focus(false);
                }
            }
            Key::W | Key::F4 if ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::CloseTab { tab });
                }
            }
            Key::ArrowLeft if alt_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::Back { tab });
                }
            }
            Key::ArrowRight if alt_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::Forward { tab });
                }
            }
            Key::F5 if none => {
                if let Some(tab) = active {
                    self.emit(UiCommand::Reload { tab });
                }
            }
            Key::R if ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::Reload { tab });
                }
            }
            // Firefox's binding; Chrome has none.
            Key::M if ctrl_only => {
                if let Some(t) = model.active_tab() {
                    let (tab, muted) = (t.id, !t.muted);
                    self.emit(UiCommand::SetMuted { tab, muted });
                }
            }
            Key::F11 if none => self.emit(UiCommand::ToggleFullscreen),
            Key::P if ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::Print { tab });
                }
            }
            Key::Tab if ctrl && !m.alt => {
                self.cycle_tab(model, if m.shift { -1 } else { 1 });
            }
            Key::PageDown if ctrl_only => self.cycle_tab(model, 1),
            Key::PageUp if ctrl_only => self.cycle_tab(model, -1),
            Key::Num1 | Key::Num2 | Key::Num3 | Key::Num4 | Key::Num5 | Key::Num6 | Key::Num7 | Key::Num8
                if ctrl_only =>
            {
                let n = keys::windows_key_code(key) as usize - 0x31;
                if let Some(t) = model.tabs.get(n) {
                    self.select_tab(model, t.id);
                }
            }
            Key::Num9 if ctrl_only => {
                if let Some(t) = model.tabs.last() {
                    self.select_tab(model, t.id);
                }
            }
            Key::T if ctrl_shift => self.emit(UiCommand::ReopenClosedTab),
            Key::Q if ctrl_shift => self.emit(UiCommand::CloseRequested),
            Key::N if ctrl_shift => {
                self.emit(UiCommand::NewPrivateTab);
                self.focus_omnibox = true;
                self.set_page_focus(false);
            }
            Key::F if ctrl_only => {
                if let Some(tab) = active {
                    self.open_find(tab);
                }
            }
            Key::F3 if !ctrl && !m.alt => {
                if let Some(tab) = active {
                    self.find_again(tab, !m.shift);
                }
            }
            Key::G if ctrl && !m.alt => {
                if let Some(tab) = active {
                    self.find_again(tab, !m.shift);
                }
            }
            // Ctrl+plus is Ctrl+Shift+= on most layouts; numpad plus arrives as Plus too.
            Key::Plus | Key::Equals if ctrl && !m.alt => zoom(self, ZoomStep::In),
            Key::Minus if ctrl_only => zoom(self, ZoomStep::Out),
            Key::Num0 if ctrl_only => zoom(self, ZoomStep::Reset),
            Key::D if ctrl_only => {
                if let Some(tab) = active {
                    self.emit(UiCommand::ToggleBookmark { tab });
                }
            }
            Key::B if ctrl_shift => self.emit(UiCommand::SetBookmarksBar(!model.show_bookmarks_bar)),
            Key::H if ctrl_only => self.toggle_history(ctx),
            Key::O if ctrl_only => {
                if let Some(tab) = active {
                    self.open_file = Some(file_picker::FilePicker::new(&crate::model::FileChooserView {
                        tab,
                        id: 0,
                        mode: crate::model::FileChooserMode::Open,
                        title: "Open file".into(),
                        accept: Vec::new(),
                        default_path: None,
                    }));
                    self.set_page_focus(false);
                }
            }
            Key::Comma if ctrl_only => self.toggle_settings(ctx),
            _ => return false,
        }
        true
    }

    /// Puts the keyboard in the omnibox. With no tab open it has nowhere to go: a new tab
    /// gives it one.
    fn focus_address(&mut self, model: &ChromeModel) {
        if model.active.is_none()
            && let Some(container) = model.new_tab_container()
        {
            let container = container.to_string();
            self.emit(UiCommand::NewTab { container });
        }
        self.focus_omnibox = true;
        self.set_page_focus(false);
    }

    fn select_tab(&mut self, model: &ChromeModel, tab: TabId) {
        if model.active != Some(tab) {
            self.emit(UiCommand::SelectTab { tab });
        }
    }

    fn cycle_tab(&mut self, model: &ChromeModel, step: isize) {
        let n = model.tabs.len() as isize;
        if n < 2 {
            return;
        }
        let cur = model
            .tabs
            .iter()
            .position(|t| Some(t.id) == model.active)
            .unwrap_or(0) as isize;
        let next = (cur + step).rem_euclid(n) as usize;
        self.emit(UiCommand::SelectTab {
            tab: model.tabs[next].id,
        });
    }

    fn page_input(&mut self, tab: Option<TabId>, input: PageInput) {
        if let Some(tab) = tab {
            self.emit(UiCommand::Page { tab, input });
        }
    }

    fn set_page_focus(&mut self, focused: bool) {
        self.page_focused = focused;
    }

    /// Tell the app about effective page focus (page focused and window
    /// focused) when it changed, or when the active tab changed.
    fn report_focus(&mut self, active: Option<TabId>) {
        let Some(tab) = active else {
            self.reported_focus = None;
            return;
        };
        let focused = self.page_focused && self.window_focused;
        let prev = self.reported_focus;
        if let Some((old, true)) = prev
            && old != tab
        {
            // The previously shown tab's browser must drop focus too.
            self.emit(UiCommand::PageFocus {
                tab: old,
                focused: false,
            });
        }
        let prev_here = prev.filter(|p| p.0 == tab).is_some_and(|p| p.1);
        if !focused {
            self.held_keys.clear();
        }
        if focused != prev_here {
            self.emit(UiCommand::PageFocus { tab, focused });
        }
        self.reported_focus = Some((tab, focused));
    }

    fn ui(&mut self, ui: &mut Ui, model: &ChromeModel) {
        self.rects.clear();
        self.download_badge = None;
        self.sync_omnibox(ui.ctx(), model);
        let active = model.active_tab();

        // Fullscreen: the page fills the window, no tab strip or toolbar.
        if !model.fullscreen {
            self.chrome_panels(ui, model, active);
            if self.history.is_some() {
                self.history_panel(ui, model);
            }
            if self.settings.is_some() {
                self.settings_panel(ui, model);
            }
        }
        egui::CentralPanel::no_frame().show(ui, |ui| self.page_area(ui, model));
        self.overlays(ui, model);
        self.memory_overlays(ui, model);
        if let Some(n) = model.restore_offer {
            self.restore_bar(ui.ctx(), n);
        }
        if model.quit_with_downloads > 0 {
            self.quit_bar(ui.ctx(), model.quit_with_downloads);
        }
        if let Some(s) = &model.save_login {
            self.save_login_bar(ui.ctx(), s);
        }

        // An egui widget took keyboard focus (omnibox click, Tab inside the
        // chrome): the page no longer has it.
        if ui.ctx().memory(|m| m.focused().is_some()) {
            self.page_focused = false;
        }
        self.report_focus(model.active);
    }

    fn chrome_panels(&mut self, ui: &mut Ui, model: &ChromeModel, active: Option<&TabView>) {
        egui::Panel::top("aperture_tabs")
            .exact_size(TAB_HEIGHT + 6.0)
            .frame(
                egui::Frame::new()
                    .fill(ui.visuals().extreme_bg_color)
                    .inner_margin(egui::Margin::symmetric(6, 3)),
            )
            .show(ui, |ui| self.tab_strip(ui, model));
        egui::Panel::top("aperture_toolbar")
            .frame(
                egui::Frame::new()
                    .fill(ui.visuals().panel_fill)
                    .inner_margin(egui::Margin::symmetric(6, 4)),
            )
            .show(ui, |ui| self.toolbar(ui, active, model));
        if model.show_bookmarks_bar {
            egui::Panel::top("aperture_bookmarks_bar")
                .frame(
                    egui::Frame::new()
                        .fill(ui.visuals().panel_fill)
                        .inner_margin(egui::Margin::symmetric(6, 2)),
                )
                .show(ui, |ui| self.bookmarks_bar(ui, model));
        }
    }

    fn sync_omnibox(&mut self, ctx: &Context, model: &ChromeModel) {
        // A blank tab's omnibox is empty (its hint shows), as in Chrome and Firefox.
        let current = model.active_tab().map(|t| {
            (
                t.id,
                if t.url == BLANK {
                    String::new()
                } else {
                    t.url.clone()
                },
            )
        });
        let switched_tab = current.as_ref().map(|c| c.0) != self.omnibox_source.as_ref().map(|s| s.0);
        if switched_tab {
            let new_tab = std::mem::take(&mut self.new_tab_asked);
            if new_tab && self.omnibox_editing {
                // Typed while the new tab was being made (a private tab's context takes a
                // moment): that is the new tab's address, keep it.
            } else {
                // Its text is replaced below, and selected if the field has the focus.
                self.end_omnibox_edit();
            }
        }
        if !self.omnibox_editing && current != self.omnibox_source {
            self.omnibox_text = current.as_ref().map(|c| c.1.clone()).unwrap_or_default();
            // The field keeps its caret, not its selection, when its text changes under it.
            if ctx.memory(|m| m.has_focus(omnibox_id())) {
                self.focus_omnibox = true;
            }
        }
        self.omnibox_source = current;
    }

    fn tab_strip(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let pinned = model.tabs.iter().filter(|t| t.pinned).count();
        let n = (model.tabs.len() - pinned).max(1) as f32;
        // Room for "+" and the main menu at the strip's right end.
        let room = ui.available_width() - 80.0;
        // Shrink tabs to fit like every browser does; past the minimum the
        // strip scrolls rather than pushing "+" off-screen. Pinned tabs keep their width.
        let rest = room - pinned as f32 * (PINNED_WIDTH + 4.0);
        let width = (rest / n - 4.0).clamp(TAB_MIN_WIDTH, TAB_MAX_WIDTH);
        ui.horizontal(|ui| {
            ui.spacing_mut().item_spacing.x = 4.0;
            egui::ScrollArea::horizontal()
                .max_width(room)
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysHidden)
                .show(ui, |ui| {
                    // A mouse wheel turns the strip, as in Firefox: past the minimum width
                    // it is the way to reach the tabs scrolled out of sight (the bar is hidden).
                    if ui.rect_contains_pointer(ui.clip_rect()) {
                        let d = ui.input(|i| i.smooth_scroll_delta);
                        if d.y != 0.0 && d.x == 0.0 {
                            ui.scroll_with_delta(vec2(d.y, 0.0));
                        }
                    }
                    ui.horizontal(|ui| {
                        for tab in &model.tabs {
                            let w = if tab.pinned { PINNED_WIDTH } else { width };
                            self.tab(ui, tab, model.active == Some(tab.id), w);
                        }
                        self.tab_drag(ui, model);
                    });
                });
            self.new_tab_button(ui, model);
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                self.main_menu(ui, model)
            });
        });
    }

    /// The main menu (☰ at the strip's right end), as Chrome's and Firefox's: every item is a
    /// browser shortcut, run as if its keys were pressed, so the menu and the keys can never
    /// do different things, and each item shows its keys.
    fn main_menu(&mut self, ui: &mut Ui, model: &ChromeModel) {
        use egui::Modifiers as M;
        const MENU_WIDTH: f32 = 260.0;
        /// A line of the menu.
        enum Item {
            /// A shortcut: its control, label, keys as shown, key, modifiers, and whether it
            /// needs a tab.
            Keys(&'static str, &'static str, &'static str, Key, M, bool),
            /// Zoom out, the level (back to 100 %), zoom in.
            Zoom,
            Separator,
        }
        let cs = M::COMMAND | M::SHIFT;
        let bar = if model.show_bookmarks_bar {
            "☆ Hide bookmarks bar"
        } else {
            "☆ Show bookmarks bar"
        };
        let items = [
            Item::Keys(
                controls::MAIN_MENU_NEW_TAB,
                "+  New tab",
                "Ctrl+T",
                Key::T,
                M::COMMAND,
                false,
            ),
            Item::Keys(
                controls::MAIN_MENU_PRIVATE,
                "🕶 New private tab",
                "Ctrl+Shift+N",
                Key::N,
                cs,
                false,
            ),
            Item::Keys(
                controls::MAIN_MENU_REOPEN,
                "↺ Reopen closed tab",
                "Ctrl+Shift+T",
                Key::T,
                cs,
                false,
            ),
            Item::Keys(
                controls::MAIN_MENU_OPEN_FILE,
                "📂 Open file…",
                "Ctrl+O",
                Key::O,
                M::COMMAND,
                true,
            ),
            Item::Separator,
            Item::Keys(
                controls::MAIN_MENU_HISTORY,
                "🕘 History",
                "Ctrl+H",
                Key::H,
                M::COMMAND,
                false,
            ),
            Item::Keys(
                controls::MAIN_MENU_DOWNLOADS,
                "⬇ Downloads",
                "Ctrl+J",
                Key::J,
                M::COMMAND,
                false,
            ),
            Item::Keys(
                controls::MAIN_MENU_BOOKMARKS_BAR,
                bar,
                "Ctrl+Shift+B",
                Key::B,
                cs,
                false,
            ),
            Item::Separator,
            Item::Zoom,
            Item::Keys(
                controls::MAIN_MENU_FIND,
                "🔍 Find in page…",
                "Ctrl+F",
                Key::F,
                M::COMMAND,
                true,
            ),
            Item::Keys(
                controls::MAIN_MENU_PRINT,
                "🖶 Print…",
                "Ctrl+P",
                Key::P,
                M::COMMAND,
                true,
            ),
            Item::Keys(
                controls::MAIN_MENU_SAVE,
                "💾 Save page as…",
                "Ctrl+S",
                Key::S,
                M::COMMAND,
                true,
            ),
            Item::Keys(
                controls::MAIN_MENU_DEVTOOLS,
                "🛠 Developer tools",
                "F12",
                Key::F12,
                M::NONE,
                true,
            ),
            Item::Separator,
            Item::Keys(
                controls::MAIN_MENU_SETTINGS,
                "⚙ Settings",
                "Ctrl+,",
                Key::Comma,
                M::COMMAND,
                false,
            ),
            Item::Keys(
                controls::MAIN_MENU_EXIT,
                "🚪 Exit",
                "Ctrl+Shift+Q",
                Key::Q,
                cs,
                false,
            ),
        ];
        let tab = model.active.is_some();
        // The shortcut chosen, and whether the menu stays open (the zoom row's buttons).
        let mut chosen: Option<(Key, M, bool)> = None;
        // Clicks inside do not close it by themselves: the zoom row keeps it open while the
        // level is set, as Chrome's does; every other item closes it.
        let config = egui::containers::menu::MenuConfig::new()
            .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
        let (button, _) = egui::containers::menu::MenuButton::new(RichText::new(" ☰ ").size(16.0))
            .config(config)
            .ui(ui, |ui| {
                // As wide as its widest item: the zoom row's right-to-left layout would
                // otherwise take all the width there is.
                ui.set_max_width(MENU_WIDTH);
                for item in &items {
                    match *item {
                        Item::Separator => {
                            ui.separator();
                        }
                        Item::Keys(name, label, keys, key, m, needs_tab) => {
                            let b = egui::Button::new(label)
                                .shortcut_text(keys)
                                .min_size(vec2(MENU_WIDTH, 0.0));
                            let r = ui.add_enabled(tab || !needs_tab, b);
                            self.rects.insert(name.to_string(), r.rect);
                            if r.clicked() {
                                chosen = Some((key, m, false));
                            }
                        }
                        Item::Zoom => {
                            ui.horizontal(|ui| {
                                ui.label("    Zoom");
                                ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                                    let level = model.active_tab().map_or(100, |t| t.zoom_percent.max(1));
                                    let zoom_in = ui.add_enabled(tab, egui::Button::new(" + "));
                                    let reset = ui.add_enabled(tab, egui::Button::new(format!("{level} %")));
                                    let zoom_out = ui.add_enabled(tab, egui::Button::new(" − "));
                                    for (r, name, key) in [
                                        (zoom_in, controls::MAIN_MENU_ZOOM_IN, Key::Plus),
                                        (reset, controls::MAIN_MENU_ZOOM_RESET, Key::Num0),
                                        (zoom_out, controls::MAIN_MENU_ZOOM_OUT, Key::Minus),
                                    ] {
                                        self.rects.insert(name.to_string(), r.rect);
                                        if r.clicked() {
                                            chosen = Some((key, M::COMMAND, true));
                                        }
                                    }
                                });
                            });
                        }
                    }
                }
                if chosen.is_some_and(|(_, _, stay)| !stay) {
                    ui.close();
                }
            });
        self.rects.insert(controls::MAIN_MENU.to_string(), button.rect);
        button.on_hover_text("Menu");
        if let Some((key, m, _)) = chosen {
            let ctx = ui.ctx().clone();
            self.shortcut(&ctx, key, m, model);
        }
    }

    /// Where a dragged tab would land: its index once moved, from the pointer's x among the
    /// other tabs' centres.
    fn drag_target(&self, model: &ChromeModel, dragged: TabId, x: f32) -> usize {
        model
            .tabs
            .iter()
            .filter(|t| t.id != dragged)
            .filter_map(|t| self.rects.get(&tab_control(t.id)))
            .filter(|r| r.center().x < x)
            .count()
    }

    /// A tab being dragged: mark where it would land, and move it there on release.
    fn tab_drag(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let Some(dragged) = self.tab_drag else { return };
        let Some(from) = model.tabs.iter().position(|t| t.id == dragged) else {
            self.tab_drag = None;
            return;
        };
        let (pos, down) = ui.input(|i| (i.pointer.interact_pos(), i.pointer.primary_down()));
        let Some(pos) = pos else { return };
        let to = self.drag_target(model, dragged, pos.x);
        if !down {
            self.tab_drag = None;
            if to != from {
                self.emit(UiCommand::MoveTab { tab: dragged, to });
            }
            return;
        }
        ui.ctx().set_cursor_icon(CursorIcon::Grabbing);
        let others: Vec<Rect> = model
            .tabs
            .iter()
            .filter(|t| t.id != dragged)
            .filter_map(|t| self.rects.get(&tab_control(t.id)).copied())
            .collect();
        let x = match (others.get(to), others.last()) {
            (Some(r), _) => r.min.x - 2.0,
            (None, Some(r)) => r.max.x + 2.0,
            (None, None) => return,
        };
        let y = others[0].y_range();
        ui.painter()
            .vline(x, y, egui::Stroke::new(3.0, ui.visuals().selection.bg_fill));
    }

    fn tab(&mut self, ui: &mut Ui, tab: &TabView, active: bool, width: f32) {
        let (rect, resp) = ui.allocate_exact_size(vec2(width, TAB_HEIGHT), Sense::click_and_drag());
        self.rects.insert(tab_control(tab.id), rect);
        if resp.drag_started_by(PointerButton::Primary) {
            self.tab_drag = Some(tab.id);
        }
        let private = tab.container.private;
        let dragging = self.tab_drag == Some(tab.id);
        if active && self.scrolled_to != Some(tab.id) {
            // Bring a newly active tab into view once; later the human may
            // scroll the strip freely.
            self.scrolled_to = Some(tab.id);
            ui.scroll_to_rect_animation(rect, None, egui::style::ScrollAnimation::none());
        }
        let visuals = ui.visuals().clone();
        let fill = match (private, active, resp.hovered()) {
            (true, true, _) => PRIVATE_ACTIVE,
            (true, false, true) => PRIVATE_HOVER,
            (true, false, false) => PRIVATE_BG,
            (false, true, _) => visuals.panel_fill,
            (false, false, true) => visuals.widgets.hovered.weak_bg_fill,
            (false, false, false) => visuals.faint_bg_color,
        };
        let painter = ui.painter_at(rect);
        // The dragged tab stays in place, faded, while a marker shows where it will land.
        let mut painter = painter;
        if dragging {
            painter.multiply_opacity(0.5);
        }
        painter.rect_filled(rect, CornerRadius::same(6), fill);
        if private && active {
            painter.rect_stroke(
                rect.shrink(0.5),
                CornerRadius::same(6),
                egui::Stroke::new(1.0, PRIVATE_ACCENT),
                egui::StrokeKind::Inside,
            );
        }
        // Container colour as a top stripe: visible at a glance on every tab.
        let stripe = Rect::from_min_size(rect.min, vec2(rect.width(), 3.0));
        painter.rect_filled(
            stripe,
            CornerRadius {
                nw: 6,
                ne: 6,
                sw: 0,
                se: 0,
            },
            rgb(tab.container.colour),
        );

        let mid = rect.center().y + 1.0;
        if tab.pinned {
            // Its icon alone (the spinner while loading, the speaker while muted, else the
            // title's first letter when there is no icon); everything else is in its tooltip.
            let c = pos2(rect.center().x, mid);
            let r = Rect::from_center_size(c, vec2(16.0, 16.0));
            if tab.loading {
                egui::Spinner::new().size(12.0).paint_at(ui, r);
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(120));
            } else if tab.muted || tab.audible {
                painter.text(
                    c,
                    Align2::CENTER_CENTER,
                    if tab.muted { "🔇" } else { "🔊" },
                    FontId::proportional(13.0),
                    text_colour(private, active, &visuals),
                );
            } else if !tab
                .favicon
                .as_ref()
                .is_some_and(|i| favicon::paint(ui.ctx(), &painter, r, i))
            {
                let letter: String = tab
                    .title
                    .chars()
                    .find(|c| c.is_alphanumeric())
                    .into_iter()
                    .collect();
                painter.text(
                    c,
                    Align2::CENTER_CENTER,
                    if letter.is_empty() {
                        "•".to_string()
                    } else {
                        letter.to_uppercase()
                    },
                    FontId::proportional(14.0),
                    text_colour(private, active, &visuals),
                );
            }
            let title = if tab.title.is_empty() {
                &tab.url
            } else {
                &tab.title
            };
            let resp = resp.on_hover_text(format!("{title}\n{} · pinned", tab.container.name));
            if resp.secondary_clicked() {
                let at = resp.interact_pointer_pos().unwrap_or(rect.left_bottom());
                self.tab_actions = Some(tab_menu::TabActions { tab: tab.id, at });
            }
            if resp.middle_clicked() {
                self.emit(UiCommand::CloseTab { tab: tab.id });
            } else if resp.clicked() && !active && !dragging {
                self.emit(UiCommand::SelectTab { tab: tab.id });
            }
            return;
        }
        let mut x = rect.min.x + 8.0;
        if tab.loading {
            let r = Rect::from_center_size(pos2(x + 6.0, mid), vec2(12.0, 12.0));
            egui::Spinner::new().size(12.0).paint_at(ui, r);
            // paint_at doesn't animate by itself; ~8 fps reads as motion for a
            // spinner and costs nothing once loading ends.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(120));
            x += 18.0;
        } else if let Some(icon) = &tab.favicon {
            let r = Rect::from_center_size(pos2(x + 8.0, mid), vec2(16.0, 16.0));
            if favicon::paint(ui.ctx(), &painter, r, icon) {
                x += 22.0;
            }
        }
        let mark = if tab.human_driving {
            Some((
                "YOU",
                HUMAN_COLOUR,
                "You took over this tab; the agent's actions on it are refused",
            ))
        } else if tab.agent_driving {
            Some(("AGENT", AGENT_COLOUR, "The agent is driving this tab"))
        } else {
            None
        };
        if private {
            painter.text(
                pos2(x, mid),
                Align2::LEFT_CENTER,
                "🕶",
                FontId::proportional(14.0),
                PRIVATE_ACCENT,
            );
            x += 20.0;
        }
        if let Some((label, colour, _)) = mark {
            let galley =
                painter.layout_no_wrap(label.to_string(), FontId::proportional(10.0), Color32::WHITE);
            let pill = Rect::from_min_size(pos2(x, mid - 8.0), vec2(galley.size().x + 8.0, 16.0));
            painter.rect_filled(pill, CornerRadius::same(8), colour);
            painter.galley(
                pos2(pill.min.x + 4.0, mid - galley.size().y / 2.0),
                galley,
                Color32::WHITE,
            );
            x = pill.max.x + 5.0;
        }
        if let Some(what) = capture_words(tab.capturing) {
            // Chrome's recording mark: a page using the camera or microphone shows it in its
            // tab, wherever the human is looking.
            let r = Rect::from_min_size(pos2(x - 2.0, mid - 10.0), vec2(16.0, 20.0));
            self.rects.insert(tab_capture_control(tab.id), r);
            painter.circle_filled(r.center(), 4.5, Color32::from_rgb(217, 48, 37));
            ui.interact(r, Id::unique(("aperture_tab_capture", tab.id.0)), Sense::hover())
                .on_hover_text(format!("This tab is using your {what}"));
            x += 16.0;
        }
        if tab.muted || tab.audible {
            // Chrome's speaker mark: the tab making sound (or silenced) at a glance, and a
            // click mutes or unmutes it.
            let r = Rect::from_min_size(pos2(x - 2.0, mid - 10.0), vec2(20.0, 20.0));
            self.rects.insert(tab_mute_control(tab.id), r);
            let (mark, hint) = if tab.muted {
                ("🔇", "Unmute tab (Ctrl+M)")
            } else {
                ("🔊", "This tab is playing sound: mute it (Ctrl+M)")
            };
            let label = RichText::new(mark)
                .size(13.0)
                .color(text_colour(private, active, &visuals));
            if ui
                .put(r, egui::Button::new(label).frame(false))
                .on_hover_text(hint)
                .clicked()
            {
                self.emit(UiCommand::SetMuted {
                    tab: tab.id,
                    muted: !tab.muted,
                });
            }
            x += 20.0;
        }
        let close_size = 18.0;
        let text_right = rect.max.x - close_size - 6.0;
        let text_clip = Rect::from_min_max(pos2(x, rect.min.y), pos2(text_right, rect.max.y));
        let title = tab.shown_title();
        let text_color = text_colour(private, active, &visuals);
        let clipped = painter.with_clip_rect(text_clip);
        clipped.text(
            pos2(x, mid - 3.0),
            Align2::LEFT_BOTTOM,
            title,
            FontId::proportional(13.0),
            text_color,
        );
        let (second, second_colour) = if private {
            ("Private".to_string(), PRIVATE_ACCENT)
        } else {
            (
                tab.container.name.clone(),
                readable_on(rgb(tab.container.colour), fill),
            )
        };
        clipped.text(
            pos2(x, mid + 1.0),
            Align2::LEFT_TOP,
            second,
            FontId::proportional(10.0),
            second_colour,
        );

        let close_rect = Rect::from_center_size(
            pos2(rect.max.x - 6.0 - close_size / 2.0, mid),
            Vec2::splat(close_size),
        );
        self.rects.insert(tab_close_control(tab.id), close_rect);
        let close_label = RichText::new("×").size(14.0);
        let close_label = if private {
            close_label.color(text_color)
        } else {
            close_label
        };
        let close = ui
            .put(close_rect, egui::Button::new(close_label).frame(false))
            .on_hover_text("Close tab (Ctrl+W)");

        let container = if private {
            format!(
                "{} · Private: no history, nothing kept after its last tab closes",
                tab.container.name
            )
        } else {
            tab.container.name.clone()
        };
        let hover = match mark {
            Some((_, _, why)) => format!("{title}\n{container} · {why}"),
            None => format!("{title}\n{container}"),
        };
        let resp = resp.on_hover_text(hover);
        if resp.secondary_clicked() {
            let at = resp.interact_pointer_pos().unwrap_or(rect.left_bottom());
            self.tab_actions = Some(tab_menu::TabActions { tab: tab.id, at });
        }
        if close.clicked() || resp.middle_clicked() {
            self.emit(UiCommand::CloseTab { tab: tab.id });
        } else if resp.clicked() && !active && !dragging {
            self.emit(UiCommand::SelectTab { tab: tab.id });
        }
    }

    fn new_tab_button(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let menu = ui.menu_button(RichText::new(" + ").size(16.0), |ui| {
            ui.label(RichText::new("New tab in container").small().weak());
            for c in &model.containers {
                let row = ui.horizontal(|ui| {
                    let (sw, _) = ui.allocate_exact_size(vec2(12.0, 12.0), Sense::hover());
                    ui.painter().rect_filled(sw, CornerRadius::same(3), rgb(c.colour));
                    ui.button(&c.name)
                });
                self.rects.insert(container_control(&c.id), row.inner.rect);
                if row.inner.clicked() {
                    self.emit(UiCommand::NewTab {
                        container: c.id.clone(),
                    });
                    self.focus_omnibox = true;
                    self.page_focused = false;
                    ui.close();
                }
            }
            ui.separator();
            let private = ui
                .button(
                    RichText::new("🕶 New private tab")
                        .color(readable_on(PRIVATE_ACCENT, ui.visuals().panel_fill)),
                )
                .on_hover_text(
                    "Ctrl+Shift+N · no history; cookies and storage are forgotten when its last tab closes",
                );
            self.rects
                .insert(controls::NEW_PRIVATE_TAB.to_string(), private.rect);
            if private.clicked() {
                self.emit(UiCommand::NewPrivateTab);
                self.focus_omnibox = true;
                self.page_focused = false;
                ui.close();
            }
        });
        self.rects
            .insert(controls::NEW_TAB.to_string(), menu.response.rect);
        menu.response
            .on_hover_text("New tab (Ctrl+T opens one in the last container)");
    }

    fn toolbar(&mut self, ui: &mut Ui, active: Option<&TabView>, model: &ChromeModel) {
        let filter = model.dark_filter;
        ui.horizontal(|ui| {
            let id = active.map(|t| t.id);
            let nav = |ui: &mut Ui, enabled: bool, label: &str, hint: &str| {
                ui.add_enabled(
                    enabled,
                    egui::Button::new(RichText::new(label).size(15.0)).min_size(vec2(28.0, 26.0)),
                )
                .on_hover_text(hint)
            };
            let back = nav(ui, active.is_some_and(|t| t.can_go_back), "⏴", "Back (Alt+Left)");
            self.rects.insert(controls::BACK.to_string(), back.rect);
            let fwd = nav(
                ui,
                active.is_some_and(|t| t.can_go_forward),
                "⏵",
                "Forward (Alt+Right)",
            );
            self.rects.insert(controls::FORWARD.to_string(), fwd.rect);
            let loading = active.is_some_and(|t| t.loading);
            let reload = if loading {
                nav(ui, true, "✖", "Stop")
            } else {
                nav(ui, active.is_some(), "⟳", "Reload (F5)")
            };
            self.rects.insert(controls::RELOAD.to_string(), reload.rect);
            if let Some(tab) = id {
                if back.clicked() {
                    self.emit(UiCommand::Back { tab });
                }
                if fwd.clicked() {
                    self.emit(UiCommand::Forward { tab });
                }
                if reload.clicked() {
                    self.emit(if loading {
                        UiCommand::Stop { tab }
                    } else {
                        UiCommand::Reload { tab }
                    });
                }
            }

            // Right-to-left so the omnibox takes whatever the buttons leave.
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                // The Vault and dark-mode buttons keep their place at the right end (people
                // and the windowed tests find them there); history and bookmarks sit left.
                self.downloads_button(ui, model);
                let vault = ui
                    .add(egui::Button::new(RichText::new("🔑 Vault").size(13.0)).min_size(vec2(0.0, 26.0)))
                    .on_hover_text("Open the password vault (a separate window the agent cannot reach)");
                self.rects.insert(controls::VAULT.to_string(), vault.rect);
                if vault.clicked() {
                    self.emit(UiCommand::OpenVault);
                }
                self.theme_menu(ui, active, filter);
                let history = ui
                    .add(egui::Button::new(RichText::new("🕘").size(15.0)).min_size(vec2(30.0, 26.0)))
                    .on_hover_text("History (Ctrl+H)");
                self.rects
                    .insert(controls::HISTORY_BUTTON.to_string(), history.rect);
                if history.clicked() {
                    self.toggle_history(ui.ctx());
                }
                self.bookmarks_menu(ui, active, model);
                if let Some(tab) = active {
                    self.drive_button(ui, tab);
                }
                self.omnibox(ui, active, model);
            });
        });
    }

    fn theme_menu(&mut self, ui: &mut Ui, active: Option<&TabView>, filter: FilterOptions) {
        let site = active.and_then(|t| site_key(&t.url));
        let mode = active.and_then(|t| t.theme).unwrap_or_default();
        let enabled = site.is_some();
        let resp = ui
            .add_enabled_ui(enabled, |ui| {
                ui.menu_button(RichText::new(format!("🌙 {}", mode.label())).size(13.0), |ui| {
                    if let Some(site) = &site {
                        ui.label(RichText::new(format!("Dark mode for {site}")).small().weak());
                        for m in ThemeMode::ALL {
                            let item = ui.selectable_label(m == mode, m.label());
                            self.rects.insert(theme_mode_control(m), item.rect);
                            if item.clicked() {
                                self.emit(UiCommand::SetTheme {
                                    site: site.clone(),
                                    mode: m,
                                });
                                ui.close();
                            }
                        }
                        ui.separator();
                        // The filter layer's knobs; force-dark has none at runtime.
                        ui.label(RichText::new("All darkened pages").small().weak());
                        let mut f = filter;
                        let b = ui.add(egui::Slider::new(&mut f.brightness, 0.5..=1.2).text("Brightness"));
                        let c = ui.add(egui::Slider::new(&mut f.contrast, 0.5..=1.5).text("Contrast"));
                        self.rects.insert(controls::BRIGHTNESS.to_string(), b.rect);
                        self.rects.insert(controls::CONTRAST.to_string(), c.rect);
                        if (b.changed() || c.changed()) && f != filter {
                            self.emit(UiCommand::SetDarkFilter { options: f });
                        }
                    }
                })
            })
            .inner;
        self.rects.insert(controls::THEME.to_string(), resp.response.rect);
    }

    fn drive_button(&mut self, ui: &mut Ui, tab: &TabView) {
        let (label, colour, hint, cmd) = if tab.human_driving {
            (
                "Hand back",
                HUMAN_COLOUR,
                "Let the agent drive this tab again",
                UiCommand::HandBack { tab: tab.id },
            )
        } else if tab.agent_driving {
            (
                "Take over",
                AGENT_COLOUR,
                "Stop the agent on this tab; its actions are refused until you hand back",
                UiCommand::TakeOver { tab: tab.id },
            )
        } else {
            return;
        };
        let btn = egui::Button::new(RichText::new(label).color(Color32::WHITE).strong().size(13.0))
            .fill(colour)
            .min_size(vec2(0.0, 26.0));
        let resp = ui.add(btn).on_hover_text(hint);
        self.rects.insert(controls::DRIVE.to_string(), resp.rect);
        if resp.clicked() {
            self.emit(cmd);
        }
    }

    fn omnibox(&mut self, ui: &mut Ui, active: Option<&TabView>, model: &ChromeModel) {
        let tab = active.map(|t| t.id);
        let id = omnibox_id();
        let ctx = ui.ctx().clone();
        let select_all = |ctx: &Context, text: &str| {
            let mut state = egui::TextEdit::load_state(ctx, id).unwrap_or_default();
            let len = text.chars().count();
            state
                .cursor
                .set_char_range(Some(CCursorRange::two(CCursor::new(0), CCursor::new(len))));
            egui::TextEdit::store_state(ctx, id, state);
        };
        // Kept while no tab is shown: the new tab it was asked for takes it when it shows.
        if self.focus_omnibox && tab.is_some() {
            self.focus_omnibox = false;
            ctx.memory_mut(|m| m.request_focus(id));
            select_all(&ctx, &self.omnibox_text);
        }
        // A click into the omnibox selects the whole URL, as browsers do, but
        // only once the button is up and only if the click didn't drag out a
        // selection of its own.
        if self.select_on_release && !ctx.input(|i| i.pointer.any_down()) {
            self.select_on_release = false;
            let collapsed = egui::TextEdit::load_state(&ctx, id)
                .and_then(|s| s.cursor.char_range())
                .is_none_or(|r| r.is_empty());
            if collapsed && ctx.memory(|m| m.has_focus(id)) {
                select_all(&ctx, &self.omnibox_text);
                ctx.request_repaint();
            }
        }
        self.apply_inline_completion(&ctx, model);
        // Decided before the field runs: a click on a suggestion takes the field's focus in
        // the same frame, and the dropdown must still be there to take the click.
        let dropdown = self.dropdown_open(&ctx, model);

        // Chips inside the field's ends: "Private" on the left, zoom and the star on the right.
        let private = active.is_some_and(|t| t.container.private);
        let zoom = active
            .map(|t| t.zoom_percent)
            .filter(|z| *z != 0 && *z != 100)
            .map(|z| format!("{z} %"));
        let chip_font = FontId::proportional(11.5);
        let text_width = |ui: &Ui, text: &str| {
            ui.painter()
                .layout_no_wrap(text.to_string(), chip_font.clone(), Color32::WHITE)
                .size()
                .x
        };
        let security = active.and_then(security_chip);
        let mut left = Vec::new();
        if private {
            // Just the mask beside a security chip: the field's margin has room for little more.
            left.push(LeftChip::Private(if security.is_some() {
                "🕶"
            } else {
                "🕶 Private"
            }));
        }
        left.extend(security);
        let left_w: f32 = left.iter().map(|c| text_width(ui, c.label()) + 14.0).sum();
        let zoom_w = zoom.as_ref().map_or(0.0, |z| text_width(ui, z) + 14.0);
        let star_w = if tab.is_some() { 26.0 } else { 0.0 };
        let margin = egui::Margin {
            left: (8.0 + left_w).min(127.0) as i8,
            right: (6.0 + star_w + zoom_w).min(120.0) as i8,
            top: 5,
            bottom: 5,
        };
        // Usable with every tab closed too: what is typed then opens in a new tab.
        let out = egui::TextEdit::singleline(&mut self.omnibox_text)
            .id(id)
            .hint_text("Search or enter address")
            .font(FontId::proportional(14.0))
            .margin(margin)
            .desired_width(ui.available_width())
            .show(ui);
        let resp = out.response;
        self.rects.insert(controls::OMNIBOX.to_string(), resp.rect);
        if let Some(t) = active {
            self.omnibox_chips(ui, resp.rect, t, &left, zoom, chip_font);
        }
        if resp.gained_focus() && (resp.clicked() || ctx.input(|i| i.pointer.any_down())) {
            self.select_on_release = true;
        }
        if resp.has_focus() {
            self.page_focused = false;
            if resp.changed() {
                self.omnibox_editing = true;
                self.omnibox_typed_changed(ui, tab);
            }
        }
        let picked = if dropdown {
            self.suggestions_dropdown(&ctx, resp.rect, model)
        } else {
            None
        };
        // A suggestion for a page another tab shows: the human goes to that tab, by a click on
        // the row or Enter on it, and this tab keeps its address.
        let switch_to = match &picked {
            Some(s) => s.tab,
            None if resp.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) => self
                .suggestion
                .and_then(|i| model.suggestions.get(i))
                .filter(|s| s.url == self.omnibox_text)
                .and_then(|s| s.tab),
            None => None,
        };
        if let Some(other) = switch_to {
            if let Some((_, url)) = &self.omnibox_source {
                self.omnibox_text = url.clone();
            }
            ctx.memory_mut(|m| m.surrender_focus(id));
            self.end_omnibox_edit();
            self.emit(UiCommand::SelectTab { tab: other });
        } else if let (Some(tab), Some(s)) = (tab, picked) {
            // A click on a suggestion: it is where the human is going.
            let url = resolve_input_with(&s.url, &model.settings.values.search_template())
                .unwrap_or_else(|| s.url.clone());
            self.emit(UiCommand::Navigate {
                tab,
                input: s.url.clone(),
                url: url.clone(),
            });
            self.omnibox_text = url;
            self.page_focused = true;
            ctx.memory_mut(|m| m.surrender_focus(id));
            self.end_omnibox_edit();
        } else if resp.lost_focus() {
            let enter = ui.input(|i| i.key_pressed(Key::Enter));
            let template = model.settings.values.search_template();
            if enter && let Some(url) = resolve_input_with(&self.omnibox_text, &template) {
                self.emit(match tab {
                    Some(tab) => UiCommand::Navigate {
                        tab,
                        input: self.omnibox_text.trim().to_string(),
                        url: url.clone(),
                    },
                    // With every tab closed, what is typed opens in a new one.
                    None => UiCommand::OpenUrl {
                        url: url.clone(),
                        new_tab: false,
                    },
                });
                self.omnibox_text = url;
                // After Enter the human reads the page; keys go there, except
                // this Enter's own release.
                self.page_focused = true;
                self.swallowed_keys.push(Key::Enter);
            } else if let Some((_, url)) = &self.omnibox_source {
                // Escape or clicking away abandons the edit.
                let edited = self.omnibox_text != *url;
                self.omnibox_text = url.clone();
                if ui.input(|i| i.key_pressed(Key::Escape)) {
                    if edited {
                        // As in Chrome: the address comes back, selected, and the keyboard
                        // stays here for another try.
                        self.focus_omnibox = true;
                    } else {
                        // Nothing to take back: the keyboard goes to the page rather than
                        // to no one.
                        self.page_focused = true;
                        self.swallowed_keys.push(Key::Escape);
                    }
                }
            }
            self.end_omnibox_edit();
        }
    }

    /// The chips drawn over the omnibox's ends: "Private" and "Not secure" (left), the zoom
    /// level and the bookmark star (right). Added after the field, so they take the clicks
    /// over it.
    fn omnibox_chips(
        &mut self,
        ui: &mut Ui,
        field: Rect,
        tab: &TabView,
        left: &[LeftChip],
        zoom: Option<String>,
        font: FontId,
    ) {
        let star_rect = Rect::from_center_size(pos2(field.max.x - 17.0, field.center().y), vec2(24.0, 22.0));
        let (star, colour, hint) = if tab.bookmarked {
            ("★", STAR_COLOUR, "Remove this page's bookmark (Ctrl+D)")
        } else {
            ("☆", ui.visuals().weak_text_color(), "Bookmark this page (Ctrl+D)")
        };
        let star = ui
            .put(
                star_rect,
                egui::Button::new(RichText::new(star).size(16.0).color(colour)).frame(false),
            )
            .on_hover_text(hint);
        self.rects.insert(controls::STAR.to_string(), star.rect);
        if star.clicked() {
            self.emit(UiCommand::ToggleBookmark { tab: tab.id });
        }
        // The saved-logins key sits left of the star; the zoom chip moves left of it.
        let star_rect = match self.login_chip(ui, star_rect, tab) {
            Some(key) => key,
            None => star_rect,
        };
        if let Some(z) = zoom {
            let w = ui
                .painter()
                .layout_no_wrap(z.clone(), font.clone(), Color32::WHITE)
                .size()
                .x
                + 12.0;
            let r = Rect::from_min_max(
                pos2(star_rect.min.x - 2.0 - w, field.center().y - 10.0),
                pos2(star_rect.min.x - 2.0, field.center().y + 10.0),
            );
            let chip = ui
                .interact(r, Id::unique("aperture_zoom_chip"), Sense::click())
                .on_hover_text("Page zoom · click to reset to 100 % (Ctrl+0)");
            let fill = if chip.hovered() {
                ui.visuals().widgets.hovered.bg_fill
            } else {
                ui.visuals().widgets.inactive.bg_fill
            };
            ui.painter().rect_filled(r, CornerRadius::same(10), fill);
            ui.painter().text(
                r.center(),
                Align2::CENTER_CENTER,
                z,
                font.clone(),
                ui.visuals().text_color(),
            );
            self.rects.insert(controls::ZOOM.to_string(), chip.rect);
            if chip.clicked() {
                self.emit(UiCommand::Zoom {
                    tab: tab.id,
                    step: ZoomStep::Reset,
                });
            }
        }
        let mut x = field.min.x + 4.0;
        for chip in left {
            let galley = ui
                .painter()
                .layout_no_wrap(chip.label().to_string(), font.clone(), chip.text());
            let r = Rect::from_min_size(
                pos2(x, field.center().y - 10.0),
                vec2(galley.size().x + 10.0, 20.0),
            );
            x = r.max.x + 4.0;
            let resp = ui
                .interact(
                    r,
                    Id::unique(("aperture_left_chip", chip.control())),
                    Sense::hover(),
                )
                .on_hover_text(chip.hint());
            ui.painter().rect_filled(r, CornerRadius::same(10), chip.fill());
            ui.painter().galley(
                pos2(r.min.x + 5.0, r.center().y - galley.size().y / 2.0),
                galley,
                chip.text(),
            );
            self.rects.insert(chip.control().to_string(), resp.rect);
        }
    }

    /// The notice over a page whose renderer process ended, with its Reload button.
    fn gone_page(&mut self, ctx: &Context, painter: &egui::Painter, page: Rect, tab: TabId, fill: Color32) {
        painter.rect_filled(page, 0.0, fill);
        let area = egui::Area::new(Id::unique("aperture_gone_page"))
            .order(egui::Order::Middle)
            .pivot(Align2::CENTER_CENTER)
            .fixed_pos(page.center())
            .show(ctx, |ui| {
                ui.vertical_centered(|ui| {
                    ui.label(RichText::new("This page stopped working").size(20.0).strong());
                    ui.label("Its process ended: it crashed, or ran out of memory.");
                    ui.add_space(8.0);
                    let r = ui.button(RichText::new("Reload").size(15.0));
                    self.rects.insert(controls::GONE_RELOAD.to_string(), r.rect);
                    if r.clicked() {
                        self.emit(UiCommand::Reload { tab });
                    }
                });
            });
        self.rects
            .insert(controls::GONE_PAGE.to_string(), area.response.rect);
    }

    fn page_area(&mut self, ui: &mut Ui, model: &ChromeModel) {
        let rect = ui.max_rect();
        self.page_rect = Some(rect);
        self.rects.insert(controls::PAGE.to_string(), rect);
        let ctx = ui.ctx().clone();
        let ppp = ctx.pixels_per_point();
        let size = (
            rect.width().round().max(1.0) as u32,
            rect.height().round().max(1.0) as u32,
            ppp,
        );
        if self.last_resize != Some(size) {
            self.last_resize = Some(size);
            self.emit(UiCommand::Resize {
                width: size.0,
                height: size.1,
                scale: size.2,
            });
        }
        let resp = ui.allocate_rect(rect, Sense::click_and_drag());
        let painter = ui.painter_at(rect);

        match &model.frame {
            Some(frame) if frame.width > 0 && frame.height > 0 && model.active.is_some() => {
                let (tex_id, size) = match self.external {
                    // The renderer already uploaded this very frame.
                    Some(ext) if ext.generation == frame.generation => {
                        self.texture = None;
                        (ext.id, ext.size)
                    }
                    _ => {
                        let t = self.upload(&ctx, frame);
                        (t.handle.id(), t.size)
                    }
                };
                // Draw at the frame's own size: during a resize CEF still
                // shows the old size for a frame or two, and stretching it
                // would blur text for no gain.
                let shown = Rect::from_min_size(rect.min, vec2(size[0] as f32 / ppp, size[1] as f32 / ppp));
                painter.rect_filled(rect, 0.0, Color32::WHITE);
                painter.image(
                    tex_id,
                    shown,
                    Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
                    Color32::WHITE,
                );
            }
            _ => {
                painter.rect_filled(rect, 0.0, ui.visuals().extreme_bg_color);
                let text = if model.tabs.is_empty() {
                    "No tabs open — press Ctrl+T or + to open one"
                } else {
                    ""
                };
                painter.text(
                    rect.center(),
                    Align2::CENTER_CENTER,
                    text,
                    FontId::proportional(16.0),
                    ui.visuals().weak_text_color(),
                );
            }
        }

        self.draw_popup(&ctx, &painter, rect, model);
        draw_status(&painter, rect, model);
        self.draw_page_tip(&ctx, &painter, rect, model);
        // A page whose process ended shows its last frame frozen: say so over it, with the
        // way back (Chrome's "Aw, Snap!"), and keep input from going nowhere.
        let gone = model.active_tab().filter(|t| t.renderer_gone);
        if let Some(t) = gone {
            self.gone_page(&ctx, &painter, rect, t.id, ui.visuals().panel_fill);
        }
        let tiles = gone.is_none() && !self.page_modal(model) && self.new_tab_page(&ctx, rect, model);
        // While files are dragged in, the page sees the drag, not the pointer.
        let files = gone.is_none() && !self.page_modal(model) && self.forward_file_drag(&ctx, rect, model);
        let blocked = gone.is_some() || tiles || files || self.page_modal(model) || self.menu_open(model);
        if self.page_modal(model) {
            // Dim the page under a tab-modal sheet, as browsers do, so it
            // reads as "answer this first".
            painter.rect_filled(rect, 0.0, Color32::from_black_alpha(90));
        }
        if model.active.is_some() {
            self.forward_pointer(ui, rect, model, blocked);
            if !blocked && (resp.hovered() || !self.captured.is_empty()) {
                ctx.set_cursor_icon(cursor_icon(model.cursor));
            }
            if self.page_focused {
                // Announcing an IME area is what makes egui-winit enable the
                // platform IME while the page, not an egui widget, has focus.
                ctx.output_mut(|o| {
                    o.ime = Some(egui::output::IMEOutput {
                        purpose: egui::IMEPurpose::Normal,
                        rect,
                        // The platform IME draws its candidate window here.
                        cursor_rect: model.ime_caret.map_or_else(
                            || Rect::from_min_size(rect.min, vec2(1.0, 16.0)),
                            |[x, y, w, h]| {
                                Rect::from_min_size(rect.min + vec2(x, y), vec2(w.max(1.0), h.max(1.0)))
                            },
                        ),
                        should_interrupt_composition: false,
                    })
                });
            }
        } else {
            self.texture = None;
        }
    }

    fn upload(&mut self, ctx: &Context, frame: &PageFrame) -> &PageTexture {
        upload_into(&mut self.texture, ctx, frame, "aperture-page")
    }

    /// The page's open popup widget (a `<select>` list) over the page frame,
    /// at its page position and at the same scale as the page: CEF paints
    /// it separately (`PET_POPUP`). Painted into the page's own layer, so
    /// pointer input over it goes to the page like any other, which is
    /// what CEF expects (it routes it to the popup itself).
    fn draw_popup(&mut self, ctx: &Context, painter: &egui::Painter, page: Rect, model: &ChromeModel) {
        let popup = model
            .popup
            .as_ref()
            .filter(|p| model.active.is_some() && p.frame.width > 0 && p.frame.height > 0);
        let Some(popup) = popup else {
            self.popup_texture = None;
            return;
        };
        let ppp = ctx.pixels_per_point();
        let t = upload_into(&mut self.popup_texture, ctx, &popup.frame, "aperture-popup");
        let [x, y, _, _] = popup.rect;
        let at = page.min + vec2(x as f32, y as f32);
        let shown = Rect::from_min_size(at, vec2(t.size[0] as f32 / ppp, t.size[1] as f32 / ppp));
        painter.image(
            t.handle.id(),
            shown,
            Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
            Color32::WHITE,
        );
        self.rects.insert(controls::POPUP.to_string(), shown);
    }

    /// Turn Ctrl+wheel lines into zoom steps, one per whole line (a wheel notch); a touchpad's
    /// fractions add up, and turning back starts over.
    fn wheel_zoom(&mut self, tab: Option<TabId>, lines: f32) {
        let Some(tab) = tab.filter(|_| lines != 0.0) else {
            return;
        };
        if lines.signum() != self.zoom_wheel.signum() {
            self.zoom_wheel = 0.0;
        }
        self.zoom_wheel += lines;
        while self.zoom_wheel.abs() >= 1.0 {
            let step = if self.zoom_wheel > 0.0 {
                ZoomStep::In
            } else {
                ZoomStep::Out
            };
            self.zoom_wheel -= self.zoom_wheel.signum();
            self.emit(UiCommand::Zoom { tab, step });
        }
    }

    /// Add the buttons currently held inside the page.
    fn with_buttons(&self, mut m: crate::command::Modifiers) -> crate::command::Modifiers {
        m.left_button = self.captured.contains(&MouseButton::Left);
        m.middle_button = self.captured.contains(&MouseButton::Middle);
        m.right_button = self.captured.contains(&MouseButton::Right);
        m
    }

    /// Forward pointer input to the page. While `blocked` (a sheet or menu is
    /// over it) nothing new reaches the page; only releases of buttons
    /// pressed before still go, so the page never sees a button stuck down.
    /// Files dragged in from another application (a file manager) over the page `rect`: the
    /// page is told they entered, moved, were dropped or left ([`UiCommand::FileDrag`]), as a
    /// drop zone expects. True while such a drag is over the window.
    fn forward_file_drag(&mut self, ctx: &Context, rect: Rect, model: &ChromeModel) -> bool {
        let Some(tab) = model.active else { return false };
        let paths =
            |files: &[egui::HoveredFile]| files.iter().filter_map(|f| f.path.clone()).collect::<Vec<_>>();
        let (hovered, dropped, pos) = ctx.input(|i| {
            (
                paths(&i.raw.hovered_files),
                i.raw
                    .dropped_files
                    .iter()
                    .map(|f| f.path().to_path_buf())
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect::<Vec<_>>(),
                i.pointer.latest_pos(),
            )
        });
        let at = pos.filter(|p| rect.contains(*p));
        let local = |p: Pos2| (p.x - rect.min.x, p.y - rect.min.y);
        let send = |this: &mut Self, phase: crate::command::FileDrag, p: Pos2| {
            let (x, y) = local(p);
            this.emit(UiCommand::FileDrag { tab, phase, x, y });
        };
        if !dropped.is_empty() {
            match at {
                Some(p) => {
                    if self.file_drag.is_none() {
                        send(self, crate::command::FileDrag::Enter(dropped), p);
                    }
                    send(self, crate::command::FileDrag::Drop, p);
                }
                None => {
                    if let Some(last) = self.file_drag {
                        send(self, crate::command::FileDrag::Leave, last);
                    }
                }
            }
            self.file_drag = None;
            return true;
        }
        if hovered.is_empty() {
            // Called off (Escape in the source, or it left the window).
            if let Some(last) = self.file_drag.take() {
                send(self, crate::command::FileDrag::Leave, last);
            }
            return false;
        }
        match (at, self.file_drag) {
            (Some(p), None) => {
                send(self, crate::command::FileDrag::Enter(hovered), p);
                self.file_drag = Some(p);
            }
            (Some(p), Some(last)) if p != last => {
                send(self, crate::command::FileDrag::Over, p);
                self.file_drag = Some(p);
            }
            (None, Some(last)) => {
                send(self, crate::command::FileDrag::Leave, last);
                self.file_drag = None;
            }
            _ => {}
        }
        true
    }

    fn forward_pointer(&mut self, ui: &mut Ui, rect: Rect, model: &ChromeModel, blocked: bool) {
        let ctx = ui.ctx().clone();
        let layer = ui.layer_id();
        let tab = model.active;
        // Popups (menus, tooltips) over the page own the pointer there.
        let over_page = |pos: Pos2| rect.contains(pos) && ctx.layer_id_at(pos).is_none_or(|l| l == layer);
        let local = |pos: Pos2| (pos.x - rect.min.x, pos.y - rect.min.y);
        let (events, time, modifiers, hover) =
            ui.input(|i| (i.events.clone(), i.time, i.modifiers, i.pointer.hover_pos()));
        for ev in events {
            let mods = self.with_buttons(keys::modifiers(modifiers));
            if blocked
                && matches!(
                    ev,
                    Event::PointerMoved(_) | Event::PointerGone | Event::MouseWheel { .. }
                )
            {
                if self.pointer_in_page {
                    self.page_input(tab, PageInput::MouseLeave { modifiers: mods });
                    self.pointer_in_page = false;
                }
                continue;
            }
            match ev {
                Event::PointerMoved(pos) => {
                    let inside = over_page(pos);
                    if inside || !self.captured.is_empty() {
                        let (x, y) = local(pos);
                        self.page_input(
                            tab,
                            PageInput::MouseMove {
                                x,
                                y,
                                modifiers: mods,
                            },
                        );
                    } else if self.pointer_in_page {
                        self.page_input(tab, PageInput::MouseLeave { modifiers: mods });
                    }
                    self.pointer_in_page = inside;
                }
                Event::PointerGone => {
                    if self.pointer_in_page {
                        self.page_input(tab, PageInput::MouseLeave { modifiers: mods });
                    }
                    self.pointer_in_page = false;
                }
                Event::PointerButton {
                    pos,
                    button,
                    pressed,
                    modifiers,
                } => {
                    // The mouse's back and forward buttons over the page go back and forward,
                    // as in every browser (the app's history, which counts a restored tab's
                    // saved entries; the page never sees these buttons).
                    if pressed
                        && !blocked
                        && over_page(pos)
                        && let Some(tab) = tab
                    {
                        match button {
                            PointerButton::Extra1 => self.emit(UiCommand::Back { tab }),
                            PointerButton::Extra2 => self.emit(UiCommand::Forward { tab }),
                            _ => {}
                        }
                    }
                    let Some(button) = mouse_button(button) else {
                        continue;
                    };
                    let (x, y) = local(pos);
                    if pressed && !blocked && over_page(pos) {
                        let count = match self.last_click {
                            Some(c)
                                if c.button == button
                                    && time - c.time < MULTI_CLICK_TIME
                                    && c.pos.distance(pos) < MULTI_CLICK_DIST =>
                            {
                                c.count % 3 + 1
                            }
                            _ => 1,
                        };
                        self.last_click = Some(LastClick {
                            time,
                            pos,
                            button,
                            count,
                        });
                        self.captured.push(button);
                        if !self.page_focused {
                            self.page_focused = true;
                            ctx.memory_mut(|m| {
                                if let Some(f) = m.focused() {
                                    m.surrender_focus(f);
                                }
                            });
                        }
                        self.page_input(
                            tab,
                            PageInput::MouseDown {
                                x,
                                y,
                                button,
                                click_count: count,
                                modifiers: mods,
                            },
                        );
                    } else if !pressed && self.captured.contains(&button) {
                        self.captured.retain(|b| *b != button);
                        let mods = self.with_buttons(keys::modifiers(modifiers));
                        let count = self.last_click.map_or(1, |c| c.count);
                        self.page_input(
                            tab,
                            PageInput::MouseUp {
                                x,
                                y,
                                button,
                                click_count: count,
                                modifiers: mods,
                            },
                        );
                    }
                }
                Event::MouseWheel {
                    unit,
                    delta,
                    modifiers,
                    ..
                } => {
                    let Some(pos) = hover.filter(|p| over_page(*p)) else {
                        continue;
                    };
                    if modifiers.ctrl || modifiers.command {
                        // Ctrl+wheel zooms the page, as in every browser; the page never
                        // sees it.
                        let lines = match unit {
                            egui::MouseWheelUnit::Point => delta.y / WHEEL_LINE_DIP,
                            egui::MouseWheelUnit::Line => delta.y,
                            egui::MouseWheelUnit::Page => delta.y * 3.0,
                        };
                        self.wheel_zoom(tab, lines);
                        continue;
                    }
                    let scale = match unit {
                        egui::MouseWheelUnit::Point => 1.0,
                        egui::MouseWheelUnit::Line => WHEEL_LINE_DIP,
                        egui::MouseWheelUnit::Page => rect.height(),
                    };
                    let (x, y) = local(pos);
                    self.page_input(
                        tab,
                        PageInput::Wheel {
                            x,
                            y,
                            delta_x: delta.x * scale,
                            delta_y: delta.y * scale,
                            modifiers: self.with_buttons(keys::modifiers(modifiers)),
                        },
                    );
                }
                _ => {}
            }
        }
    }
}

/// The omnibox's egui id (also how overlays tell whether it has focus).
fn omnibox_id() -> Id {
    Id::unique("aperture_omnibox")
}

/// Upload `frame` into `slot` unless it already holds that generation.
fn upload_into<'a>(
    slot: &'a mut Option<PageTexture>,
    ctx: &Context,
    frame: &PageFrame,
    name: &str,
) -> &'a PageTexture {
    let stale = slot.as_ref().is_none_or(|t| t.generation != frame.generation);
    if stale {
        let image = bgra_to_image(frame.width, frame.height, &frame.bgra);
        // Nearest: the frame is drawn 1:1 in device pixels, and linear
        // filtering would only soften text when sizes briefly disagree.
        let opts = TextureOptions::NEAREST;
        match slot {
            Some(t) => {
                t.handle.set(image, opts);
                t.generation = frame.generation;
                t.size = [frame.width, frame.height];
            }
            None => {
                *slot = Some(PageTexture {
                    handle: ctx.load_texture(name, image, opts),
                    generation: frame.generation,
                    size: [frame.width, frame.height],
                });
            }
        }
    }
    slot.as_ref().expect("texture was just set")
}

fn mouse_button(b: PointerButton) -> Option<MouseButton> {
    match b {
        PointerButton::Primary => Some(MouseButton::Left),
        PointerButton::Secondary => Some(MouseButton::Right),
        PointerButton::Middle => Some(MouseButton::Middle),
        _ => None,
    }
}

fn rgb(c: Rgb) -> Color32 {
    Color32::from_rgb(c.0, c.1, c.2)
}

/// The container colour itself if it reads on `bg`, else a lighter/darker
/// variant, so a navy container name stays legible on a dark tab.
fn readable_on(c: Color32, bg: Color32) -> Color32 {
    let lum = |c: Color32| 0.2126 * c.r() as f32 + 0.7152 * c.g() as f32 + 0.0722 * c.b() as f32;
    if (lum(c) - lum(bg)).abs() >= 80.0 {
        c
    } else if lum(bg) < 128.0 {
        c.lerp_to_gamma(Color32::WHITE, 0.55)
    } else {
        c.lerp_to_gamma(Color32::BLACK, 0.55)
    }
}

/// Map the page's cursor request to egui's.
pub fn cursor_icon(c: CursorShape) -> CursorIcon {
    match c {
        CursorShape::Default => CursorIcon::Default,
        CursorShape::Pointer => CursorIcon::PointingHand,
        CursorShape::Text => CursorIcon::Text,
        CursorShape::Wait => CursorIcon::Wait,
        CursorShape::Progress => CursorIcon::Progress,
        CursorShape::Crosshair => CursorIcon::Crosshair,
        CursorShape::Move => CursorIcon::Move,
        CursorShape::NotAllowed => CursorIcon::NotAllowed,
        CursorShape::Help => CursorIcon::Help,
        CursorShape::Grab => CursorIcon::Grab,
        CursorShape::Grabbing => CursorIcon::Grabbing,
        CursorShape::ResizeHorizontal => CursorIcon::ResizeHorizontal,
        CursorShape::ResizeVertical => CursorIcon::ResizeVertical,
        CursorShape::ResizeNwSe => CursorIcon::ResizeNwSe,
        CursorShape::ResizeNeSw => CursorIcon::ResizeNeSw,
        CursorShape::ResizeColumn => CursorIcon::ResizeColumn,
        CursorShape::ResizeRow => CursorIcon::ResizeRow,
        CursorShape::ZoomIn => CursorIcon::ZoomIn,
        CursorShape::ZoomOut => CursorIcon::ZoomOut,
        CursorShape::None => CursorIcon::None,
    }
}

/// CEF's premultiplied BGRA → egui's premultiplied RGBA image. A short
/// buffer (the app raced a resize) is padded with white rather than
/// panicking.
pub fn bgra_to_image(width: u32, height: u32, bgra: &[u8]) -> egui::ColorImage {
    let n = width as usize * height as usize;
    let mut pixels = Vec::with_capacity(n);
    pixels.extend(
        bgra.chunks_exact(4)
            .take(n)
            .map(|p| Color32::from_rgba_premultiplied(p[2], p[1], p[0], p[3])),
    );
    pixels.resize(n, Color32::WHITE);
    egui::ColorImage::new([width as usize, height as usize], pixels)
}

/// How long the pointer rests before a page's tooltip shows (Chromium's delay).
const TIP_DELAY: f64 = 0.5;
/// Tooltip colours: Chrome's dark tooltip with light text, unlike any chrome surface, so it
/// reads as the page's hint.
pub const TIP_FILL: Color32 = Color32::from_rgb(60, 64, 67);

/// A page tooltip being shown or waited for.
struct PageTip {
    tab: TabId,
    text: String,
    since: f64,
    /// A press or a key put it away: not shown again until the page gives other text.
    dismissed: bool,
}

/// A page-given tooltip as drawn: tabs as spaces, other control characters but line breaks
/// dropped (they would draw as boxes), blank lines and ends trimmed, and cut at a length a tooltip can show.
fn tooltip_text(raw: &str) -> String {
    const MAX: usize = 1024;
    let clean: String = raw
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|c| *c == '\n' || !c.is_control())
        .take(MAX)
        .collect();
    clean
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

impl Chrome {
    /// The page's tooltip beside the pointer: after the pointer has rested [`TIP_DELAY`] on an
    /// element that has one, until it moves off it, a button or key is pressed, or anything
    /// covers the page.
    fn draw_page_tip(&mut self, ctx: &Context, painter: &egui::Painter, page: Rect, model: &ChromeModel) {
        let tab = model.active_tab();
        let text = tab.map(|t| tooltip_text(&t.tooltip)).unwrap_or_default();
        let (hover, now, pressed) = ctx.input(|i| {
            let pressed = i.events.iter().any(|e| {
                matches!(
                    e,
                    Event::PointerButton { pressed: true, .. }
                        | Event::Key { pressed: true, .. }
                        | Event::MouseWheel { .. }
                )
            });
            (i.pointer.hover_pos(), i.time, pressed)
        });
        // Over the page itself, not over a menu or dialog drawn on it.
        let layer = painter.layer_id();
        let over = hover.filter(|p| page.contains(*p) && ctx.layer_id_at(*p).is_none_or(|l| l == layer));
        let (Some(tab), Some(at)) = (tab, over) else {
            self.page_tip = None;
            return;
        };
        if text.is_empty() || self.page_modal(model) || self.menu_open(model) || tab.renderer_gone {
            self.page_tip = None;
            return;
        }
        let tip = match &mut self.page_tip {
            Some(t) if t.tab == tab.id && t.text == text => t,
            slot => slot.insert(PageTip {
                tab: tab.id,
                text,
                since: now,
                dismissed: false,
            }),
        };
        tip.dismissed |= pressed;
        if tip.dismissed {
            return;
        }
        let wait = tip.since + TIP_DELAY - now;
        if wait > 0.0 {
            ctx.request_repaint_after(std::time::Duration::from_secs_f64(wait));
            return;
        }
        let font = FontId::proportional(12.0);
        let galley = painter.layout(tip.text.clone(), font, Color32::WHITE, 360.0);
        let pad = vec2(8.0, 5.0);
        let size = galley.size() + pad * 2.0;
        // Below the pointer's tip (clear of the arrow), turned above it near the page's
        // bottom, and kept inside the page's width.
        let mut min = pos2(at.x, at.y + 20.0);
        if min.y + size.y > page.bottom() {
            min.y = (at.y - 8.0 - size.y).max(page.top());
        }
        min.x = min.x.min(page.right() - size.x).max(page.left());
        let bubble = Rect::from_min_size(min, size);
        let painter = ctx
            .layer_painter(egui::LayerId::new(
                egui::Order::Tooltip,
                Id::unique("aperture_page_tip"),
            ))
            .with_clip_rect(page);
        painter.rect_filled(bubble, 4.0, TIP_FILL);
        painter.galley(min + pad, galley, Color32::WHITE);
    }
}

/// The hovered link's address, in a bubble at the page's bottom-left corner (as browsers show
/// it), so the human sees where a link goes before clicking. Long addresses are cut in the
/// middle: the host and the end of the path both matter.
fn draw_status(painter: &egui::Painter, page: Rect, model: &ChromeModel) {
    let Some(tab) = model.active.and_then(|a| model.tabs.iter().find(|t| t.id == a)) else {
        return;
    };
    let text: String = tab.status.chars().filter(|c| !c.is_control()).collect();
    if text.is_empty() {
        return;
    }
    const MAX: usize = 90;
    let n = text.chars().count();
    let shown = if n > MAX {
        let head: String = text.chars().take(MAX / 2).collect();
        let tail: String = text.chars().skip(n - MAX / 2).collect();
        format!("{head}…{tail}")
    } else {
        text
    };
    let font = FontId::proportional(12.0);
    let galley = painter.layout_no_wrap(shown, font, Color32::from_gray(40));
    let pad = vec2(6.0, 3.0);
    let size = galley.size() + pad * 2.0;
    let at = pos2(page.left(), page.bottom() - size.y);
    let bubble = Rect::from_min_size(at, size);
    painter.rect_filled(bubble, 3.0, Color32::from_gray(242));
    painter.rect_stroke(
        bubble,
        3.0,
        egui::Stroke::new(1.0, Color32::from_gray(190)),
        egui::StrokeKind::Inside,
    );
    painter.galley(at + pad, galley, Color32::from_gray(40));
}

/// A tab's title colour: light on a private tab's dark fill, else the theme's (stronger on
/// the front tab).
fn text_colour(private: bool, active: bool, visuals: &egui::Visuals) -> Color32 {
    match (private, active) {
        (true, _) => Color32::from_gray(0xF0),
        (false, true) => visuals.strong_text_color(),
        (false, false) => visuals.text_color(),
    }
}

/// A menu that opens at `at` (a right click's): egui's menu popup, which flips to stay inside
/// the window and gives submenus real hover and arrow keys, closed by a click outside it.
fn menu_popup<'a>(ui: &Ui, id: &str, at: Pos2, open: &'a mut bool) -> egui::Popup<'a> {
    egui::Popup::new(Id::unique(id), ui.ctx().clone(), at, ui.layer_id())
        .kind(egui::PopupKind::Menu)
        .layout(Layout::top_down_justified(Align::Min))
        .style(egui::containers::menu::menu_style)
        .open_bool(open)
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
}

#[cfg(test)]
mod tests {
    use super::tooltip_text;

    #[test]
    fn a_tooltip_keeps_its_lines_and_drops_what_would_draw_as_boxes() {
        assert_eq!(tooltip_text("Save\tthe draft\u{7}"), "Save the draft");
        assert_eq!(
            tooltip_text("  First line  \n\n\nSecond\r\n"),
            "  First line\nSecond"
        );
        assert_eq!(tooltip_text(" \n \t"), "");
        assert_eq!(tooltip_text(&"x".repeat(5000)).len(), 1024);
    }
}
