//! The read-only view of browser state that the chrome draws from.
//!
//! The application owns and mutates it (usually behind
//! `Arc<Mutex<ChromeModel>>`, written from CEF callbacks on the main thread);
//! the chrome only reads it. Nothing here refers to egui so the app can build
//! it without pulling UI types into its state.

use std::path::PathBuf;
use std::sync::Arc;

use crate::dark::{FilterOptions, ThemeMode};

/// Tab identifier chosen by the application: the one tab id type shared with
/// `mcp` and the app (re-exported here so `aperture_ui::TabId` keeps working).
pub use aperture_common::TabId;

/// An sRGB colour, 8 bits per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// An identity container the human can open a tab in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContainerInfo {
    /// Stable id, sent back in [`crate::UiCommand::NewTab`].
    pub id: String,
    /// Display name.
    pub name: String,
    /// Badge colour.
    pub colour: Rgb,
    /// A private container (in-memory storage, no history): its tabs are drawn dark with a
    /// mask and "Private", so the human always knows which tabs leave no trace.
    pub private: bool,
}

/// One tab as the chrome shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TabView {
    /// Id used in commands.
    pub id: TabId,
    /// Page title; empty shows the URL instead.
    pub title: String,
    /// Current URL (shown in the omnibox while it isn't being edited).
    pub url: String,
    /// Whether the page is loading (spinner, Stop instead of Reload).
    pub loading: bool,
    /// Whether history back is possible.
    pub can_go_back: bool,
    /// Whether history forward is possible.
    pub can_go_forward: bool,
    /// Container the tab lives in.
    pub container: ContainerInfo,
    /// The agent is driving this tab (shows the agent mark).
    pub agent_driving: bool,
    /// The human took this tab over; agent actions are refused meanwhile.
    pub human_driving: bool,
    /// Effective dark-mode policy for this tab's site, if it has one.
    pub theme: Option<ThemeMode>,
    /// The last find-in-page result for this tab (CEF `OnFindResult`), while the find bar
    /// searches; `None` before the first result.
    pub find: Option<FindView>,
    /// Page zoom in percent; 100 (or 0, unknown) is the default and shows no chip.
    pub zoom_percent: u32,
    /// The tab's URL is bookmarked (the omnibox star is filled).
    pub bookmarked: bool,
    /// The page's icon, drawn in the tab (the spinner takes its place while loading).
    pub favicon: Option<Favicon>,
    /// Vault logins saved for this page's site (the vault unlocked, not a private tab): the
    /// omnibox shows a key that offers them to the human.
    pub saved_logins: Vec<LoginOffer>,
    /// The page's status text, a hovered link's address (page-chosen: shown, never acted on);
    /// drawn as a bubble at the page's bottom-left corner while not empty.
    pub status: String,
    /// The page's tooltip for the element under the pointer (its `title`; page-chosen text,
    /// shown to the human only): drawn beside the pointer after a short rest, as browsers do.
    pub tooltip: String,
    /// Chromium has the tab's sound muted: the tab shows a speaker mark that unmutes it.
    pub muted: bool,
    /// Media in the page is playing with sound: the tab shows a speaker mark that mutes it.
    pub audible: bool,
    /// The page is using the camera and the microphone now: the tab shows a red recording
    /// mark.
    pub capturing: (bool, bool),
    /// The human's new, empty tab: the page area shows the sites they go to most
    /// ([`ChromeModel::new_tab_sites`]) until it shows a page.
    pub new_tab_page: bool,
    /// How the page was delivered: the omnibox says "Not secure" for plain HTTP and for a page
    /// reached past a certificate warning.
    pub security: Security,
    /// Pinned: drawn narrow (its icon only) at the strip's start, left out of "Close other
    /// tabs". The app keeps pinned tabs before the others in [`ChromeModel::tabs`].
    pub pinned: bool,
    /// The page's renderer process is gone (crashed, killed): it takes no keys, so the
    /// shortcuts a live page would get first (F5, Ctrl+R) are the browser's at once.
    pub renderer_gone: bool,
    /// The page has stopped answering (a script that does not return): a bar offers to wait
    /// for it or to stop the script.
    pub unresponsive: bool,
}

impl TabView {
    /// What the tab is called in the strip and the window's title: its page's title; a blank
    /// new tab is "New tab", as in every browser, not Chromium's "about:blank"; a page with
    /// no title is its address.
    pub fn shown_title(&self) -> &str {
        const BLANK: &str = "about:blank";
        let blank = self.url == BLANK;
        let title = self.title.trim();
        if title.is_empty() || (blank && title == BLANK) {
            if self.url.is_empty() || blank {
                "New tab"
            } else {
                self.url.as_str()
            }
        } else {
            title
        }
    }
}

/// Every field has a neutral value so the app can build a view with `..Default::default()`;
/// the id is `TabId(0)` only as a placeholder and must be set.
impl Default for TabView {
    fn default() -> Self {
        TabView {
            id: TabId(0),
            title: String::new(),
            url: String::new(),
            loading: false,
            can_go_back: false,
            can_go_forward: false,
            container: ContainerInfo::default(),
            agent_driving: false,
            human_driving: false,
            theme: None,
            find: None,
            zoom_percent: 100,
            bookmarked: false,
            favicon: None,
            saved_logins: Vec::new(),
            status: String::new(),
            tooltip: String::new(),
            muted: false,
            audible: false,
            new_tab_page: false,
            capturing: (false, false),
            security: Security::Unknown,
            renderer_gone: false,
            unresponsive: false,
            pinned: false,
        }
    }
}

/// How a tab's page was delivered (CEF's SSL status of its navigation entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Security {
    /// Not known (no page yet).
    #[default]
    Unknown,
    /// Over TLS with a certificate Chromium accepted.
    Secure,
    /// Not over TLS.
    NotSecure,
    /// Over TLS with a certificate Chromium refused, which the human proceeded past.
    CertificateError,
}

/// A find-in-page result as CEF reports it (`CefFindHandler::OnFindResult`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FindView {
    /// The text these results are for; the bar shows a count only while it matches what is
    /// typed, so a late result for an older text is never shown as current.
    pub text: String,
    /// 1-based ordinal of the highlighted match (0 while none is).
    pub active: i32,
    /// Number of matches found so far.
    pub count: i32,
    /// CEF's `finalUpdate`: the count is complete ("No results" needs it).
    pub final_update: bool,
}

/// One node of the human's bookmarks: a bookmark (with a URL) or a folder.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BookmarkNode {
    /// Chosen by the app (the database row); echoed in
    /// [`crate::UiCommand::RemoveBookmark`].
    pub id: i64,
    /// Title; empty shows the URL.
    pub title: String,
    /// The bookmark's URL; `None` for a folder.
    pub url: Option<String>,
    /// A folder's contents, in display order (empty for a bookmark).
    pub children: Vec<BookmarkNode>,
}

impl BookmarkNode {
    /// Whether this is a folder.
    pub fn is_folder(&self) -> bool {
        self.url.is_none()
    }
}

/// One history entry as the history panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryRow {
    /// Chosen by the app; echoed in [`crate::UiCommand::HistoryDelete`].
    pub id: i64,
    /// The visited URL.
    pub url: String,
    /// The page's title (may be empty).
    pub title: String,
    /// When, in milliseconds since the Unix epoch (UTC); the panel groups by local day.
    pub visited_at_ms: i64,
    /// Name of the container the visit was in.
    pub container: String,
}

/// One omnibox suggestion (history or bookmark) for what the human is typing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuggestionView {
    /// The URL it navigates to.
    pub url: String,
    /// The page's title (may be empty).
    pub title: String,
    /// It is a bookmark (drawn with a star).
    pub bookmark: bool,
    /// Another tab shows it: the row offers to switch to that tab instead of loading it
    /// again, as Chrome's omnibox does.
    pub tab: Option<TabId>,
}

/// The active tab's last painted frame, exactly as CEF's `OnPaint` hands it
/// over (BGRA, premultiplied, top-down, tightly packed rows).
#[derive(Debug, Clone)]
pub struct PageFrame {
    /// Width in physical pixels.
    pub width: u32,
    /// Height in physical pixels.
    pub height: u32,
    /// `width * height * 4` bytes of BGRA. `Arc` so the app can hand the
    /// buffer over without copying while the model lock is held.
    pub bgra: Arc<[u8]>,
    /// Must change whenever the pixels change; the chrome re-uploads the
    /// texture only when it does, so bump it on every `OnPaint`.
    pub generation: u64,
}

/// The mouse cursor the page asked for (CEF `OnCursorChange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CursorShape {
    /// Ordinary arrow.
    #[default]
    Default,
    /// Link hand.
    Pointer,
    /// Text I-beam.
    Text,
    /// Busy.
    Wait,
    /// Busy but interactive.
    Progress,
    /// Crosshair.
    Crosshair,
    /// Move.
    Move,
    /// Not allowed.
    NotAllowed,
    /// Help.
    Help,
    /// Grab (open hand).
    Grab,
    /// Grabbing (closed hand).
    Grabbing,
    /// Horizontal resize.
    ResizeHorizontal,
    /// Vertical resize.
    ResizeVertical,
    /// Diagonal resize, top-left to bottom-right.
    ResizeNwSe,
    /// Diagonal resize, top-right to bottom-left.
    ResizeNeSw,
    /// Column resize.
    ResizeColumn,
    /// Row resize.
    ResizeRow,
    /// Zoom in.
    ZoomIn,
    /// Zoom out.
    ZoomOut,
    /// Hidden cursor.
    None,
}

/// Everything the chrome draws.
#[derive(Debug, Clone, Default)]
pub struct ChromeModel {
    /// Tabs in strip order.
    pub tabs: Vec<TabView>,
    /// The active tab, if any.
    pub active: Option<TabId>,
    /// Containers offered by the new-tab picker, in display order.
    pub containers: Vec<ContainerInfo>,
    /// Container Ctrl+T and the plain "+" use (usually the last one picked).
    pub default_container: Option<String>,
    /// The active tab's page frame.
    pub frame: Option<PageFrame>,
    /// Cursor the page requested.
    pub cursor: CursorShape,
    /// Caret of the page's focused editable as `[x, y, w, h]` in page DIP
    /// (CEF `OnImeCompositionRangeChanged` / `OnTextSelectionChanged`), so the
    /// platform IME's candidate window opens next to it.
    pub ime_caret: Option<[f32; 4]>,
    /// Current brightness/contrast of the filter layer (from settings).
    pub dark_filter: FilterOptions,
    /// A JavaScript dialog waiting for the human. Drawn as a sheet over the
    /// page only while its tab is the active one; meanwhile that page gets
    /// no input (the tab strip and omnibox stay usable).
    pub dialog: Option<DialogView>,
    /// The page's context menu, open at a point (CEF `RunContextMenu`).
    /// Clear it on [`crate::UiCommand::CloseContextMenu`], which the chrome
    /// also sends when the human switches tabs under it.
    pub context_menu: Option<ContextMenuView>,
    /// Downloads of this session, oldest first; the toolbar button appears
    /// once there is one.
    pub downloads: Vec<DownloadView>,
    /// A permission request waiting for Allow / Block (shown for the active
    /// tab only).
    pub permission: Option<PermissionView>,
    /// The front tab's page tried to open a pop-up without a click, and it was stopped: the
    /// bar offers to open it, or to let the site do so from now on.
    pub blocked_popup: Option<BlockedPopupView>,
    /// The human just signed in with a login the vault does not hold: offer to save it.
    pub save_login: Option<SaveLoginView>,
    /// The agent asks to fill from the vault: the human's consent, drawn by the chrome over
    /// whatever tab is in front (never a page, so no tool can see or click it).
    pub vault_consent: Option<VaultConsentView>,
    /// The active tab's open popup widget (a `<select>` list, …): CEF's
    /// `PET_POPUP` paint, drawn over the page frame.
    pub popup: Option<PopupView>,
    /// An `<input type=file>` asking for paths (shown for the active tab).
    pub file_chooser: Option<FileChooserView>,
    /// Window fullscreen (F11 or the page's Fullscreen API): no tab strip, no
    /// toolbar, the page fills the window.
    pub fullscreen: bool,
    /// A transient one-line notice ("Saved PDF to …", "Popup blocked").
    pub notice: Option<String>,
    /// The human's bookmarks: the roots, in display order. The toolbar's bookmarks menu shows
    /// them all; the bookmarks bar shows the children of the first root folder.
    pub bookmarks: Vec<BookmarkNode>,
    /// Show the bookmarks bar under the toolbar (mirror `settings.show_bookmarks_bar`).
    pub show_bookmarks_bar: bool,
    /// Rows for the history panel, answering the last [`crate::UiCommand::HistoryQuery`].
    pub history: Vec<HistoryRow>,
    /// Suggestions for the last [`crate::UiCommand::OmniboxInput`], best first.
    pub suggestions: Vec<SuggestionView>,
    /// The whole text the omnibox input completes to ("git" → "github.com/"); shown selected
    /// after the caret while it extends what was typed.
    pub inline_completion: Option<String>,
    /// What the settings view shows, and the search engine the omnibox uses.
    pub settings: SettingsView,
    /// The last run ended without quitting (a crash, a kill) and left this many tabs: the
    /// chrome offers to restore them ([`crate::UiCommand::RestoreSession`] /
    /// [`crate::UiCommand::DiscardSession`]).
    pub restore_offer: Option<usize>,
    /// The human asked to quit while this many downloads run (quitting cancels them): the
    /// chrome asks first ([`crate::UiCommand::AnswerQuit`]). 0: no question.
    pub quit_with_downloads: usize,
    /// Icons by host, for the history panel's and the bookmarks' rows.
    pub favicons: std::collections::BTreeMap<String, Favicon>,
    /// The sites the front tab's container goes to most, best first, for the new-tab page
    /// (empty unless the front tab shows it).
    pub new_tab_sites: Vec<SiteTile>,
    /// The site the human last took off the front tab's new-tab page (its URL), while the
    /// page offers to undo that.
    pub new_tab_removed: Option<String>,
    /// The latest key-downs pages did not take (CEF `OnKeyEvent`), oldest first. A shortcut a
    /// page may override goes to the page first and runs only once it shows up here; the app
    /// keeps the last few.
    pub keys_not_taken: Vec<KeyNotTaken>,
    /// Bumped when the window should come to the front (the human clicked one of a page's
    /// notifications): the runner raises it once per new value.
    pub raise: u64,
}

/// One site on the new-tab page: its most visited page.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteTile {
    /// The page the tile opens.
    pub url: String,
    /// The page's title (may be empty: the tile shows the host).
    pub title: String,
    /// The site's icon, when one was kept.
    pub favicon: Option<Favicon>,
}

/// A key-down that reached a page which did not take it (`preventDefault`, an editing
/// command). Only the key code and modifiers: enough to match it with the press the chrome sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyNotTaken {
    /// Numbers these reports, rising; the chrome acts on each one once.
    pub seq: u64,
    /// The page's tab.
    pub tab: TabId,
    /// Windows virtual-key code, as in [`crate::KeyInput::windows_key_code`].
    pub windows_key_code: i32,
    /// Modifiers held.
    pub modifiers: crate::Modifiers,
}

/// The settings view's data: the saved settings and what the app knows beyond them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SettingsView {
    /// The settings as the app holds them (its copy of `settings.json`). The omnibox searches
    /// with [`crate::settings::Settings::search_template`].
    pub values: crate::settings::Settings,
    /// The profile's default container ([`ContainerInfo::id`]).
    pub default_container: Option<String>,
    /// Where the next download goes (`--download-dir`, the setting, or the XDG directory);
    /// `None` when there is none (HOME unset).
    pub download_dir: Option<PathBuf>,
    /// Tracker blocking runs in this session (it doesn't with `--no-block` or without filter
    /// lists; the view then says so instead of offering switches that do nothing).
    pub blocking_available: bool,
    /// The MCP port the browser will listen on at its next start (the profile's).
    pub mcp_port: Option<u16>,
    /// Where agents reach the browser now (`http://127.0.0.1:PORT/mcp`), when known.
    pub mcp_url: Option<String>,
    /// The permission answers the human gave sites, remembered per container (sorted by
    /// container, then origin).
    pub permissions: Vec<SitePermission>,
    /// The languages spellcheck has a dictionary for on this machine (`en-US`…); none means
    /// it cannot check spelling at all.
    pub spelling_languages: Vec<String>,
    /// The languages this machine has a dictionary for, which the view offers.
    pub spelling_available: Vec<String>,
}

/// One remembered permission answer: what `origin` asked for in `container`, and whether it
/// was allowed. Sites ask again for anything not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitePermission {
    /// The container's id ([`ContainerInfo::id`]).
    pub container: String,
    /// The origin that asked (`https://maps.example`).
    pub origin: String,
    /// What it asked for, in words ("know your location"), as the prompt said it.
    pub asked: Vec<String>,
    /// Allowed (`true`) or blocked.
    pub allow: bool,
}

/// Which JavaScript dialog a page opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogKind {
    /// `alert()`: OK only.
    Alert,
    /// `confirm()`: OK / Cancel.
    Confirm,
    /// `prompt()`: a text field, OK / Cancel.
    Prompt,
    /// `beforeunload`: Leave / Stay.
    BeforeUnload,
    /// Not the page's: a server (`proxy`: a proxy) wants a username and password (HTTP
    /// authentication) before it answers. Username and password fields, Sign in / Cancel;
    /// [`DialogView::origin`] is who asks, [`DialogView::message`] the server's realm.
    SignIn {
        /// A proxy asks, not the site.
        proxy: bool,
    },
}

/// A JavaScript dialog as the chrome shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogView {
    /// The tab whose page opened it.
    pub tab: TabId,
    /// Chosen by the app, new for every dialog; echoed in
    /// [`crate::UiCommand::AnswerDialog`].
    pub id: u64,
    /// Which dialog.
    pub kind: DialogKind,
    /// Who is asking, as shown: "127.0.0.1:8080" (the chrome adds " says").
    pub origin: String,
    /// The page's message (page-chosen text).
    pub message: String,
    /// Prompt's pre-filled text.
    pub default_text: String,
    /// Offer "Don't let this page open more dialogs" (the page has opened
    /// dialogs before).
    pub offer_suppress: bool,
    /// A sign-in: the vault's saved logins for the site asking, each offered as "Use …"
    /// ([`crate::UiCommand::SignInWithSaved`]).
    pub logins: Vec<LoginOffer>,
}

/// The page's context menu: where, and what was under the pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMenuView {
    /// The tab.
    pub tab: TabId,
    /// X in page DIP.
    pub x: f32,
    /// Y in page DIP.
    pub y: f32,
    /// A link under the pointer.
    pub link_url: Option<String>,
    /// An image under the pointer.
    pub image_url: Option<String>,
    /// Selected text, if any.
    pub selection: Option<String>,
    /// The pointer is over an editable field.
    pub editable: bool,
    /// The word under the pointer that spellcheck marked.
    pub misspelled: Option<String>,
    /// Spellcheck's replacements for it, best first.
    pub suggestions: Vec<String>,
    /// History back is possible.
    pub can_back: bool,
    /// History forward is possible.
    pub can_forward: bool,
}

/// Where a download is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadState {
    /// Still receiving.
    InProgress,
    /// Saved under its final name.
    Complete,
    /// Cancelled (by the human or the page); nothing kept.
    Cancelled,
    /// Failed, with a reason for the human ("disk full").
    Failed(String),
}

/// One download as the chrome shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownloadView {
    /// Chosen by the app; echoed in the download commands.
    pub id: u32,
    /// File name (page-chosen, already made safe by the app).
    pub name: String,
    /// Bytes received so far.
    pub received: u64,
    /// Total size, if the server said.
    pub total: Option<u64>,
    /// State.
    pub state: DownloadState,
    /// Where it was saved (once known).
    pub path: Option<String>,
    /// The human paused it (while in progress).
    pub paused: bool,
}

impl DownloadView {
    /// Whether it's over (complete, cancelled or failed).
    pub fn finished(&self) -> bool {
        self.state != DownloadState::InProgress
    }
}

/// The agent asking to fill vault values into a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultConsentView {
    /// Chosen by the app, new for every request; echoed in
    /// [`crate::UiCommand::AnswerVaultConsent`].
    pub id: u64,
    /// What is asked: "fill from your vault", "fill from your profile “Work”".
    pub what: String,
    /// The page's origin, as the browser read it from the tab ("https://example.com").
    pub origin: String,
    /// The fields it would fill, in human words ("username", "password").
    pub fields: Vec<String>,
    /// The tab's title, so the human knows which tab is meant.
    pub tab_title: String,
    /// Requests queued behind this one.
    pub waiting: usize,
}

/// A site asking for permissions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionView {
    /// The tab.
    pub tab: TabId,
    /// Chosen by the app, new for every request; echoed in
    /// [`crate::UiCommand::AnswerPermission`].
    pub id: u64,
    /// Who is asking ("maps.example.com").
    pub origin: String,
    /// What, in human words: "know your location", "show notifications", …
    pub kinds: Vec<String>,
}

/// A pop-up the front tab's page tried to open without a click, which was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedPopupView {
    /// The tab whose page tried.
    pub tab: TabId,
    /// Where the pop-up would have gone (the latest, when there were several).
    pub url: String,
    /// The opening page's origin (`https://example.com`), which "Always allow" is for; `None`
    /// for a page with none to remember (a `data:` page).
    pub origin: Option<String>,
    /// How many the page tried since the bar came up.
    pub count: u32,
}

/// An open popup widget of the active tab (a `<select>` list): where it is
/// and its pixels.
#[derive(Debug, Clone)]
pub struct PopupView {
    /// `[x, y, w, h]` in page DIP (CEF `OnPopupSize`).
    pub rect: [i32; 4],
    /// Its pixels (CEF `OnPaint` with `PET_POPUP`), same layout and scale
    /// as [`ChromeModel::frame`].
    pub frame: PageFrame,
}

/// What an `<input type=file>` wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChooserMode {
    /// One existing file.
    Open,
    /// One or more existing files.
    OpenMultiple,
    /// One directory (`webkitdirectory`).
    OpenFolder,
    /// A file name to save to.
    Save,
}

/// A file chooser waiting for the human.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChooserView {
    /// The tab.
    pub tab: TabId,
    /// Chosen by the app, new for every request; echoed in
    /// [`crate::UiCommand::FileChooserDone`].
    pub id: u64,
    /// What to pick.
    pub mode: FileChooserMode,
    /// Title (the page's or a default); may be empty.
    pub title: String,
    /// The input's `accept` filters: extensions (".png") and MIME types
    /// ("image/*", "text/plain"). Empty means anything.
    pub accept: Vec<String>,
    /// Where to start: a directory, or a file (its directory; for Save also
    /// the suggested name).
    pub default_path: Option<PathBuf>,
}

impl ChromeModel {
    /// The active tab's view, if any.
    pub fn active_tab(&self) -> Option<&TabView> {
        let id = self.active?;
        self.tabs.iter().find(|t| t.id == id)
    }

    /// Container id for a new tab with no explicit pick: the default if it
    /// still exists, else the first container.
    pub fn new_tab_container(&self) -> Option<&str> {
        self.default_container
            .as_deref()
            .filter(|d| self.containers.iter().any(|c| c.id == *d))
            .or_else(|| self.containers.first().map(|c| c.id.as_str()))
    }
}

/// "Save this login?" after the human signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveLoginView {
    /// Chosen by the app, new for every offer; echoed in [`crate::UiCommand::SaveLogin`].
    pub id: u64,
    /// The site's host ("accounts.example.com").
    pub host: String,
    /// The username typed (may be empty).
    pub username: String,
    /// The vault has this username for the site with another password: offer an update.
    pub update: bool,
}

/// A saved login offered to the human for the page in front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginOffer {
    /// The vault entry's id, echoed in [`crate::UiCommand::FillSavedLogin`].
    pub entry: String,
    /// The human's label for it.
    pub label: String,
    /// Its username.
    pub username: String,
}

/// A page's icon: `width * height` RGBA pixels (not premultiplied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Favicon {
    /// Chosen by the app, the same for the same pixels: the chrome uploads one texture per key.
    pub key: u64,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels, row by row.
    pub rgba: std::sync::Arc<[u8]>,
}
