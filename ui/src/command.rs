//! Everything the chrome can ask the application to do.
//!
//! The chrome never mutates browser state itself (servoshell's split): it
//! turns human input into [`UiCommand`]s and the application applies them,
//! which keeps every state change on one code path that the agent's MCP
//! actions share.

use crate::dark::{ColorScheme, FilterOptions, ThemeMode};
use crate::model::TabId;
use crate::omnibox::SearchEngine;

/// A request from the chrome to the application.
#[derive(Debug, Clone, PartialEq)]
pub enum UiCommand {
    /// Open a new tab in the named container and make it active.
    NewTab {
        /// Container id (from [`crate::model::ContainerInfo::id`]).
        container: String,
    },
    /// Close a tab.
    CloseTab {
        /// The tab to close.
        tab: TabId,
    },
    /// Make a tab the active one.
    SelectTab {
        /// The tab to activate.
        tab: TabId,
    },
    /// Load a URL in a tab. `url` is already resolved from what the human
    /// typed (see [`crate::omnibox::resolve_input`]); `input` is the raw text.
    Navigate {
        /// The tab to navigate.
        tab: TabId,
        /// What the human typed.
        input: String,
        /// The URL to load.
        url: String,
    },
    /// Open a file of the computer in `tab` (Ctrl+O, "Open file…"): the app loads its
    /// `file://` URL, as if typed.
    OpenFile {
        /// The tab to show it in.
        tab: TabId,
        /// The file the human picked.
        path: std::path::PathBuf,
    },
    /// History back in a tab.
    Back {
        /// The tab.
        tab: TabId,
    },
    /// History forward in a tab.
    Forward {
        /// The tab.
        tab: TabId,
    },
    /// Reload a tab.
    Reload {
        /// The tab.
        tab: TabId,
    },
    /// Reload a tab bypassing the cache (Ctrl+Shift+R, Shift+F5, Ctrl+F5).
    HardReload {
        /// The tab.
        tab: TabId,
    },
    /// Stop loading a tab.
    Stop {
        /// The tab.
        tab: TabId,
    },
    /// The human takes control of a tab the agent drives; agent actions on it
    /// must then be refused with a reason until [`UiCommand::HandBack`].
    TakeOver {
        /// The tab.
        tab: TabId,
    },
    /// The human returns control of a tab to the agent.
    HandBack {
        /// The tab.
        tab: TabId,
    },
    /// Set the dark-mode policy for a site (see [`crate::dark::site_key`]).
    SetTheme {
        /// Site key.
        site: String,
        /// New policy.
        mode: ThemeMode,
    },
    /// Change the filter layer's brightness/contrast (applies to every page
    /// that gets darkened; persist it in `settings.theme.filter`).
    SetDarkFilter {
        /// New values.
        options: FilterOptions,
    },
    /// Open the password-vault window. It is deliberately not a tab: the
    /// agent addresses everything by tab id, so a window without one is
    /// unreachable for it.
    OpenVault,
    /// Keyboard focus moved into (`true`) or out of the page area; CEF
    /// needs `SetFocus` to show a caret and route keys.
    PageFocus {
        /// The tab shown in the page area.
        tab: TabId,
        /// Whether the page now has focus.
        focused: bool,
    },
    /// Input for the page shown in the page area.
    Page {
        /// The tab the input is for.
        tab: TabId,
        /// The input.
        input: PageInput,
    },
    /// Files from another application (a file manager) dragged over the page and dropped
    /// there, as a page sees a drag: entering with the files, moving, dropped or gone. `x`, `y`
    /// in DIP from the page's top-left, as [`PageInput`].
    FileDrag {
        /// The tab under the drag.
        tab: TabId,
        /// Where the drag is in its course.
        phase: FileDrag,
        /// X in DIP.
        x: f32,
        /// Y in DIP.
        y: f32,
    },
    /// The page area changed size or scale. Sent once at start and on every
    /// change; the app answers CEF's `GetViewRect` / `GetScreenInfo` from it
    /// and calls `WasResized`.
    Resize {
        /// Page-area width in logical pixels (CEF DIP).
        width: u32,
        /// Page-area height in logical pixels (CEF DIP).
        height: u32,
        /// Device scale factor (physical pixels per logical pixel).
        scale: f32,
    },
    /// The whole window's logical inner size changed (for persisting).
    WindowResized {
        /// Logical width.
        width: u32,
        /// Logical height.
        height: u32,
    },
    /// The operating system's light/dark preference is known or changed.
    /// This is the human's real preference that dark-mode layer 1 reports.
    SystemTheme {
        /// Whether the human prefers dark.
        dark: bool,
    },
    /// The human asked to close the window. The runner does not exit by
    /// itself, because CEF needs its browsers closed first; the app calls
    /// [`crate::UiWaker::quit`] when it is done.
    CloseRequested,
    /// The human answered a JavaScript dialog
    /// ([`crate::model::DialogView`]). Escape and Cancel / Stay send
    /// `accept: false`.
    AnswerDialog {
        /// The dialog's tab.
        tab: TabId,
        /// The dialog's id.
        id: u64,
        /// OK / Leave (`true`) or Cancel / Stay (`false`).
        accept: bool,
        /// Prompt's text when accepted; `None` otherwise.
        text: Option<String>,
        /// A sign-in's username and password when accepted; `None` otherwise.
        login: Option<(String, String)>,
        /// "Don't let this page open more dialogs" was ticked.
        suppress: bool,
    },
    /// The human chose a saved login on a sign-in sheet: the vault answers that sign-in.
    SignInWithSaved {
        /// The dialog's tab.
        tab: TabId,
        /// The dialog's id ([`crate::model::DialogView::id`]).
        id: u64,
        /// [`crate::model::LoginOffer::entry`].
        entry: String,
    },
    /// The context menu was dismissed, or an item was chosen (then this
    /// follows the item's command). Clear [`crate::ChromeModel::context_menu`].
    CloseContextMenu,
    /// Open a URL in a new tab next to the current one.
    OpenInNewTab {
        /// The URL.
        url: String,
        /// Container id; `None` means the current tab's container.
        container: Option<String>,
        /// Leave the current tab in front.
        background: bool,
    },
    /// Put text on the clipboard.
    CopyText {
        /// The text.
        text: String,
    },
    /// An editing command for the page's focused frame (CEF
    /// `CefFrame::Cut` / `Copy` / …).
    Edit {
        /// The tab.
        tab: TabId,
        /// Which one.
        op: EditOp,
    },
    /// Replace the misspelled word the context menu was opened on (CEF
    /// `ReplaceMisspelling`).
    ReplaceMisspelling {
        /// The tab.
        tab: TabId,
        /// The replacement.
        word: String,
    },
    /// Add a word to the profile's dictionary, so spellcheck no longer marks it.
    AddToDictionary {
        /// The tab.
        tab: TabId,
        /// The word.
        word: String,
    },
    /// Download a URL into the download directory ("Save image as…"; the
    /// app picks the name).
    SaveUrl {
        /// The URL.
        url: String,
    },
    /// Save the tab's page as HTML into the download directory, named after its title
    /// (Ctrl+S, "Save page as…").
    SavePage {
        /// The tab.
        tab: TabId,
    },
    /// Open the tab's DevTools, or bring them to the front (F12, Ctrl+Shift+I; in DevTools the
    /// same keys close them).
    DevTools {
        /// The tab.
        tab: TabId,
    },
    /// Open the tab's DevTools at the element under a point ("Inspect").
    Inspect {
        /// The tab.
        tab: TabId,
        /// X in page DIP.
        x: f32,
        /// Y in page DIP.
        y: f32,
    },
    /// Open `view-source:` of the tab's page in a new tab.
    ViewSource {
        /// The tab.
        tab: TabId,
    },
    /// Pause or resume an in-progress download.
    PauseDownload {
        /// The download's id.
        id: u32,
        /// Pause (true) or resume (false).
        pause: bool,
    },
    /// Cancel an in-progress download.
    CancelDownload {
        /// [`crate::model::DownloadView::id`].
        id: u32,
    },
    /// Open the download directory in the desktop's file manager.
    OpenDownloadsFolder,
    /// Open a finished download with the desktop's application for it.
    OpenDownload {
        /// The download's id.
        id: u32,
    },
    /// Drop a finished download from the list (the file stays).
    RemoveDownload {
        /// [`crate::model::DownloadView::id`].
        id: u32,
    },
    /// The human answered the agent's vault fill request. Escape sends
    /// [`ConsentAnswer::Deny`].
    AnswerVaultConsent {
        /// [`crate::model::VaultConsentView::id`].
        id: u64,
        /// What the human chose.
        answer: ConsentAnswer,
    },
    /// The human answered "save this login?": save (or update) it in the vault, or not.
    SaveLogin {
        /// [`crate::model::SaveLoginView::id`].
        id: u64,
        /// Save it.
        save: bool,
    },
    /// The human chose a saved login from the omnibox key: fill the page's sign-in form.
    FillSavedLogin {
        /// The tab.
        tab: TabId,
        /// [`crate::model::LoginOffer::entry`].
        entry: String,
    },
    /// Answer the bar over a page that stopped answering: `wait` for it longer, or stop the
    /// script that keeps it busy (the page stays).
    AnswerUnresponsive {
        /// The tab whose page stopped.
        tab: TabId,
        /// True: wait longer (the bar comes back if it stays stuck); false: stop its script.
        wait: bool,
    },
    /// Open the pop-up the page of `tab` tried to open without a click and was stopped
    /// ([`crate::model::BlockedPopupView`]): in a new tab next to it.
    OpenBlockedPopup {
        /// The tab whose page tried.
        tab: TabId,
    },
    /// The human closed the blocked-pop-up bar of `tab`.
    DismissBlockedPopup {
        /// The tab.
        tab: TabId,
    },
    /// Let the pages of `origin` (`https://example.com`) open pop-ups without a click
    /// (`allow`), or no longer. Allowing from the bar also opens the one just stopped.
    SetPopupsAllowed {
        /// Scheme, host and port, as `url::Url::origin` serialises it.
        origin: String,
        /// Allowed from now on.
        allow: bool,
    },
    /// The human answered a permission prompt: Allow or Block, remembered for the site.
    AnswerPermission {
        /// [`crate::model::PermissionView::id`].
        id: u64,
        /// Allow or Block.
        allow: bool,
    },
    /// The human dismissed a permission prompt (Escape): this request is refused, and
    /// nothing is remembered, so the site may ask again, as in Chrome.
    DismissPermission {
        /// [`crate::model::PermissionView::id`].
        id: u64,
    },
    /// The file chooser is done; empty `paths` means cancelled.
    FileChooserDone {
        /// [`crate::model::FileChooserView::id`].
        id: u64,
        /// Chosen paths, absolute.
        paths: Vec<std::path::PathBuf>,
    },
    /// F11.
    ToggleFullscreen,
    /// Escape while fullscreen.
    ExitFullscreen,
    /// Ctrl+P: print the tab (to PDF).
    Print {
        /// The tab.
        tab: TabId,
    },
    /// The notice bar's close button.
    DismissNotice,
    /// Find in the tab's page (CEF `Find`); results come back in
    /// [`crate::model::TabView::find`].
    Find {
        /// The tab.
        tab: TabId,
        /// What to find (never empty; an emptied field sends [`UiCommand::StopFind`]).
        text: String,
        /// Search forward (next) or backward (previous).
        forward: bool,
        /// `false`: the text changed, start a new search; `true`: go to the next/previous
        /// match of the current one.
        find_next: bool,
    },
    /// The find bar closed or its text was emptied: stop finding and clear the highlights
    /// (CEF `StopFinding(true)`); clear [`crate::model::TabView::find`].
    StopFind {
        /// The tab.
        tab: TabId,
    },
    /// Zoom the tab's page one step (Ctrl+plus / minus / 0, Ctrl+wheel, the omnibox chip).
    Zoom {
        /// The tab.
        tab: TabId,
        /// Which way.
        step: ZoomStep,
    },
    /// Ctrl+Shift+T: reopen the most recently closed tab.
    ReopenClosedTab,
    /// The answer to "quit while downloads run?": `quit` true quits (cancelling them), false
    /// keeps the window.
    AnswerQuit {
        /// Quit anyway.
        quit: bool,
    },
    /// "Restore" on the offer after an unclean exit: bring the last session's tabs back.
    RestoreSession,
    /// "Don't" on that offer: the last session's tabs are dropped and not offered again.
    DiscardSession,
    /// The human dragged a tab to a new place in the strip.
    MoveTab {
        /// The tab.
        tab: TabId,
        /// Its index in the strip afterwards (0 = first).
        to: usize,
    },
    /// Ctrl+M, the tab's menu, or its speaker mark: mute or unmute a tab's sound.
    SetMuted {
        /// The tab.
        tab: TabId,
        /// `true` to mute.
        muted: bool,
    },
    /// "Pin tab" / "Unpin tab" in a tab's menu: pinned tabs sit first in the strip, narrow,
    /// and are restored pinned.
    SetPinned {
        /// The tab.
        tab: TabId,
        /// `true` to pin.
        pinned: bool,
    },
    /// "Duplicate" in a tab's menu: the same page in a new tab right after it, in its
    /// container, in front.
    DuplicateTab {
        /// The tab.
        tab: TabId,
    },
    /// Ctrl+Shift+N or "New private tab": a tab in a private container.
    NewPrivateTab,
    /// The new-tab page: put removed sites back (Undo, Restore all).
    RestoreSites {
        /// The site to put back (the one just removed: Undo); `None` puts back every site
        /// the human removed in the front tab's container.
        url: Option<String>,
    },
    /// Take the site of `url` (a new-tab page tile) off the new-tab page of the front tab's
    /// container, for good (until restored).
    HideSite {
        /// The tile's page.
        url: String,
    },
    /// The context menu's "Open link in private tab": `url` in a new private tab, in front.
    OpenInPrivateTab {
        /// The link.
        url: String,
    },
    /// Ctrl+D or the omnibox star: bookmark the tab's page, or remove its bookmark when it
    /// has one ([`crate::model::TabView::bookmarked`]).
    ToggleBookmark {
        /// The tab.
        tab: TabId,
    },
    /// Open a URL the human picked from bookmarks or history.
    OpenUrl {
        /// The URL.
        url: String,
        /// `false`: in the active tab (or a new tab when there is none); `true` (middle
        /// click, Ctrl+click): in a new background tab next to the active one, in its
        /// container.
        new_tab: bool,
    },
    /// Show or hide the bookmarks bar (Ctrl+Shift+B); persisted in
    /// `settings.show_bookmarks_bar` by [`crate::settings::Settings::apply`].
    SetBookmarksBar(bool),
    /// Import an HTML bookmarks export (Chrome, Firefox, …). Report the outcome in
    /// [`crate::model::ChromeModel::notice`].
    ImportBookmarks {
        /// The file, absolute (a leading `~` is already expanded).
        path: std::path::PathBuf,
    },
    /// Remove a bookmark or a folder (with its contents).
    RemoveBookmark {
        /// [`crate::model::BookmarkNode::id`].
        id: i64,
    },
    /// Rename a bookmark or a folder.
    RenameBookmark {
        /// [`crate::model::BookmarkNode::id`].
        id: i64,
        /// The new name.
        title: String,
    },
    /// Move a bookmark or a folder to the end of the bookmarks bar (`to_bar`) or of Other
    /// bookmarks.
    MoveBookmark {
        /// [`crate::model::BookmarkNode::id`].
        id: i64,
        /// To the bookmarks bar, else to Other bookmarks.
        to_bar: bool,
    },
    /// The history panel wants rows matching `text` (empty = the most recent); answer in
    /// [`crate::model::ChromeModel::history`]. Sent when the panel opens and as the human
    /// types in its search box.
    HistoryQuery {
        /// The search text.
        text: String,
    },
    /// Delete one history entry.
    HistoryDelete {
        /// [`crate::model::HistoryRow::id`].
        id: i64,
    },
    /// "Clear browsing history": delete every visit at or after `since_ms` (ms since the
    /// Unix epoch), or all of it when `None`.
    HistoryClear {
        /// Start of the range; `None` = all time.
        since_ms: Option<i64>,
    },
    /// The human edited the omnibox; answer with [`crate::model::ChromeModel::suggestions`]
    /// and [`crate::model::ChromeModel::inline_completion`] for this text.
    OmniboxInput {
        /// The tab whose omnibox it is.
        tab: TabId,
        /// What the human has typed (without any inline completion).
        text: String,
    },
    /// The settings view: search with this engine from now on (a custom one's template has
    /// passed [`crate::omnibox::check_template`]). Persisted by
    /// [`crate::settings::Settings::apply`].
    SetSearchEngine(SearchEngine),
    /// The settings view: make this container the profile's default (the first tab, pages
    /// handed over from other launches, and the next Ctrl+T).
    SetDefaultContainer {
        /// Container id (from [`crate::model::ContainerInfo::id`]).
        container: String,
    },
    /// The settings view: save downloads here from the next one on (absolute; a leading `~`
    /// is already expanded).
    SetDownloadDir(std::path::PathBuf),
    /// The settings view: the colour scheme pages are told the human prefers; `None` follows
    /// the system ([`UiCommand::SystemTheme`]). Persisted in `settings.theme.prefer`.
    SetColorScheme(Option<ColorScheme>),
    /// The settings view: the dark-mode policy of sites without their own choice.
    SetDarkDefault(ThemeMode),
    /// The settings view: block trackers on every site without an exception, or on none.
    SetBlocking(bool),
    /// Check spelling as you type, or not (`settings.spellcheck`, by
    /// [`crate::settings::Settings::apply`]).
    SetSpellcheck(bool),
    /// The settings view: block third-party cookies everywhere, or not
    /// (`settings.block_third_party_cookies`).
    SetThirdPartyCookies(bool),
    /// The languages spellcheck checks (at least one; `settings.spell_languages`).
    SetSpellLanguages(Vec<String>),
    /// The settings view: block trackers on one site or not (choosing the default removes the
    /// exception). Takes effect for the site's next requests (a reload shows it).
    SetSiteBlocking {
        /// Site key ([`crate::dark::site_key`]).
        site: String,
        /// Block (`true`) or allow (`false`) its trackers.
        block: bool,
    },
    /// The settings view's site permissions: change a remembered answer of `origin` in
    /// `container` for what it asked (`asked`, as [`crate::model::SitePermission::asked`]):
    /// allow or block from now on, or `None` to forget it (the site asks again).
    SetSitePermission {
        /// The container ([`crate::model::SitePermission::container`]).
        container: String,
        /// The origin that asked.
        origin: String,
        /// What it asked for, in words.
        asked: Vec<String>,
        /// Allow, block, or `None`: forget (ask again).
        allow: Option<bool>,
    },
    /// The settings view's "Clear browsing data".
    ClearBrowsingData(ClearData),
    /// The settings view: serve MCP on this loopback port from the next start.
    SetMcpPort(u16),
}

/// What "Clear browsing data" removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearData {
    /// History from this time on (ms since the Unix epoch); `None` = all time. Chromium offers
    /// no time range for cookies and cache, which always go whole.
    pub since_ms: Option<i64>,
    /// One container (its [`crate::model::ContainerInfo::id`]), or every container when `None`.
    pub container: Option<String>,
    /// Browsing history (the places database).
    pub history: bool,
    /// Cookies (Chromium's, of the container's request context).
    pub cookies: bool,
    /// Cached files (Chromium's HTTP cache of the container's request context).
    pub cache: bool,
}

impl ClearData {
    /// Whether anything at all was chosen.
    pub fn any(&self) -> bool {
        self.history || self.cookies || self.cache
    }
}

/// A page zoom step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoomStep {
    /// Larger (Ctrl+plus, Ctrl+wheel away).
    In,
    /// Smaller (Ctrl+minus, Ctrl+wheel towards).
    Out,
    /// Back to 100 % (Ctrl+0, the omnibox's zoom chip).
    Reset,
}

/// Editing commands a page's focused frame understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditOp {
    /// Cut the selection.
    Cut,
    /// Copy the selection.
    Copy,
    /// Paste.
    Paste,
    /// Select all.
    SelectAll,
    /// Undo.
    Undo,
    /// Redo.
    Redo,
}

/// Keyboard modifier state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// Shift.
    pub shift: bool,
    /// Control.
    pub ctrl: bool,
    /// Alt / Option.
    pub alt: bool,
    /// Super / Command / Windows key.
    pub meta: bool,
    /// Left mouse button held (CEF `EVENTFLAG_LEFT_MOUSE_BUTTON`; Chromium
    /// needs it on moves to drag-select). Only set on mouse events.
    pub left_button: bool,
    /// Middle mouse button held. Only set on mouse events.
    pub middle_button: bool,
    /// Right mouse button held. Only set on mouse events.
    pub right_button: bool,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseButton {
    /// Primary (usually left).
    Left,
    /// Middle / wheel.
    Middle,
    /// Secondary (usually right).
    Right,
}

/// A keyboard event in the form CEF's `CefKeyEvent` wants.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyInput {
    /// Windows virtual-key code (`VK_*`); CEF uses this on every platform.
    pub windows_key_code: i32,
    /// X11 hardware keycode (evdev code + 8) for the key's physical position,
    /// or 0 when unknown.
    pub native_key_code: i32,
    /// Modifiers held.
    pub modifiers: Modifiers,
    /// Whether this is an auto-repeat.
    pub repeat: bool,
    /// Whether it's on the numeric keypad (unknown positions say `false`).
    pub is_keypad: bool,
    /// For Enter, Tab, Backspace and Escape: the control character a page
    /// expects a `KEYEVENT_CHAR` for after the key-down. Printable text
    /// arrives separately as [`PageInput::Text`].
    pub character: Option<char>,
}

/// Input for the page. Coordinates are in the page area's logical pixels
/// (CEF DIP, origin at the page's top-left); multiply by `scale` from the
/// last [`UiCommand::Resize`] for device pixels.
#[derive(Debug, Clone, PartialEq)]
pub enum PageInput {
    /// The pointer moved over the page.
    MouseMove {
        /// X in DIP.
        x: f32,
        /// Y in DIP.
        y: f32,
        /// Modifiers and mouse buttons held.
        modifiers: Modifiers,
    },
    /// The pointer left the page area.
    MouseLeave {
        /// Modifiers held.
        modifiers: Modifiers,
    },
    /// A mouse button went down.
    MouseDown {
        /// X in DIP.
        x: f32,
        /// Y in DIP.
        y: f32,
        /// Which button.
        button: MouseButton,
        /// 1 for a single click, 2 for a double click, …
        click_count: u32,
        /// Modifiers held.
        modifiers: Modifiers,
    },
    /// A mouse button went up.
    MouseUp {
        /// X in DIP.
        x: f32,
        /// Y in DIP.
        y: f32,
        /// Which button.
        button: MouseButton,
        /// Same count as the matching down.
        click_count: u32,
        /// Modifiers held.
        modifiers: Modifiers,
    },
    /// Scroll. Deltas are in DIP with CEF's `SendMouseWheelEvent` sign:
    /// positive `delta_y` is the wheel turned away from the user (scroll
    /// towards the top).
    Wheel {
        /// X in DIP.
        x: f32,
        /// Y in DIP.
        y: f32,
        /// Horizontal delta.
        delta_x: f32,
        /// Vertical delta.
        delta_y: f32,
        /// Modifiers held.
        modifiers: Modifiers,
    },
    /// A key went down (CEF `KEYEVENT_RAWKEYDOWN`).
    KeyDown(KeyInput),
    /// A key went up (CEF `KEYEVENT_KEYUP`).
    KeyUp(KeyInput),
    /// Committed text (typed characters or an IME commit); the app sends
    /// one `KEYEVENT_CHAR` per char, or `ImeCommitText` if composing.
    Text {
        /// The text.
        text: String,
    },
    /// The IME composition changed (CEF `ImeSetComposition`); empty text
    /// means the composition was cancelled.
    ImeComposition {
        /// Current preedit text.
        text: String,
    },
    /// The IME committed text (CEF `ImeCommitText`).
    ImeCommit {
        /// The committed text.
        text: String,
    },
}

/// The human's answer to a vault fill request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsentAnswer {
    /// This request only.
    Once,
    /// This request and every later one on the same origin (remembered).
    Always,
    /// Refuse; nothing is typed.
    Deny,
}

/// The course of a drag of files from another application over the page
/// ([`UiCommand::FileDrag`]).
#[derive(Debug, Clone, PartialEq)]
pub enum FileDrag {
    /// The drag came over the page, carrying these files.
    Enter(Vec<std::path::PathBuf>),
    /// It moved over the page.
    Over,
    /// It was dropped on the page.
    Drop,
    /// It left the page, or was called off.
    Leave,
}
