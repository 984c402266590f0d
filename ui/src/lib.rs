//! Aperture's browser chrome (egui on winit + glutin) and the dark-mode
//! logic behind it.
//!
//! The chrome follows servoshell's split: it only **emits**
//! [`UiCommand`]s and draws from a read-only [`ChromeModel`]; the
//! application owns all browser state and applies the commands. The same
//! code path then serves the human's clicks and the agent's MCP actions.
//!
//! # Modules the app uses without egui
//!
//! * [`dark`] — per-site Auto/On/Off policy, [`dark::mean_luminance`], the
//!   layer decision [`dark::plan`], the filter stylesheet and the DevTools
//!   calls for layers 1 and 2.
//! * [`settings`] — atomic, corruption-tolerant `settings.json`.
//! * [`omnibox`] — typed text → URL.
//!
//! # Integration contract (the app's `main`)
//!
//! ```no_run
//! use std::sync::{Arc, Mutex};
//! use std::time::Duration;
//! use aperture_ui::{ChromeModel, Host, RunOptions, UiCommand, UiWaker};
//!
//! struct App { model: Arc<Mutex<ChromeModel>>, waker: UiWaker }
//! impl Host for App {
//!     fn apply(&mut self, cmd: UiCommand) {
//!         match cmd {
//!             // Close browsers first; quit once CEF reports them closed.
//!             UiCommand::CloseRequested => self.waker.quit(),
//!             _ => { /* route to tabs; update self.model; */ }
//!         }
//!     }
//!     fn do_work(&mut self) { /* cef::do_message_loop_work() */ }
//! }
//!
//! let event_loop = aperture_ui::event_loop()?;          // main thread, once
//! let waker = UiWaker::new(&event_loop);                // Clone + Send
//! let model = Arc::new(Mutex::new(ChromeModel::default()));
//! // CEF's BrowserProcessHandler::OnScheduleMessagePumpWork(delay_ms), any thread:
//! //     waker.schedule_work(Duration::from_millis(delay_ms.max(0) as u64));
//! // RenderHandler::OnPaint (main thread): copy BGRA into model.frame,
//! //     bump `generation`, then waker.request_repaint().
//! // OnCursorChange / title / loading / URL changes: update model, request_repaint().
//! let host = App { model: model.clone(), waker: waker.clone() };
//! aperture_ui::run(event_loop, RunOptions::default(), model, host)?;
//! # Ok::<(), aperture_ui::UiError>(())
//! ```
//!
//! Rules the runner relies on:
//!
//! * **Threads.** [`run`] blocks the main thread. [`Host`] methods run on
//!   it, so CEF must use the external message pump
//!   (`external_message_pump = 1`, `multi_threaded_message_loop = 0`), and
//!   CEF's UI-thread callbacks (OnPaint, OnCursorChange, …) happen inside
//!   [`Host::do_work`]. [`UiWaker`] is the only thing other threads touch.
//! * **Pumping.** [`Host::do_work`] is called when a
//!   [`UiWaker::schedule_work`] delay expires, and additionally every
//!   [`RunOptions::max_work_interval`] (CEF sample's 1/30 s) because not all
//!   CEF work is announced. Between those the loop sleeps in
//!   `ControlFlow::WaitUntil`; there is no busy loop.
//! * **Jobs from other threads** (MCP requests that must run on the CEF UI
//!   thread): queue them, call `waker.schedule_work(Duration::ZERO)`, and
//!   drain the queue at the start of [`Host::do_work`].
//! * **Painting.** The window redraws on input, on
//!   [`UiWaker::request_repaint`] and on egui's own animation timers only.
//!   The page texture is re-uploaded only when [`PageFrame::generation`]
//!   changes; on desktop GL the BGRA buffer goes straight into the texture
//!   (no CPU conversion), on a GLES fallback the chrome converts it.
//!   Swap is vsynced where the driver allows, so a paint can block up to a
//!   frame; keep `max_work_interval` small rather than relying on paints.
//! * **The model lock** is held only while the chrome builds a frame, never
//!   across [`Host`] calls, so the host may lock it freely.
//! * **Sizes.** [`UiCommand::Resize`] gives the page area in DIP plus the
//!   device scale; answer `GetViewRect` with the DIP size and
//!   `GetScreenInfo.device_scale_factor` with the scale, and call
//!   `WasResized`. Paint buffers then arrive at `DIP × scale` pixels and are
//!   drawn 1:1. Page input coordinates are DIP relative to the page area.
//! * **Keys.** While the page has focus ([`UiCommand::PageFocus`]), keys
//!   go to the page as [`PageInput`] with Windows VK and X11 keycodes;
//!   send [`KeyInput::character`] as a `KEYEVENT_CHAR` after the key-down
//!   and [`PageInput::Text`] chars as `KEYEVENT_CHAR`s. The browser's
//!   shortcuts are split as in Chrome ([`chrome::page_goes_first`]): those
//!   that open, close and switch tabs (Ctrl+T/N/W/F4, Ctrl+Shift+T/N,
//!   Ctrl+Tab, Ctrl+PgUp/PgDn), F11, the Alt chords, and Escape while
//!   fullscreen or while an overlay below is up never reach the page; the
//!   other Ctrl chords and function keys reach it first and run only when
//!   the app reports that the page left the key-down alone: put CEF's
//!   `OnKeyEvent` key-downs in [`ChromeModel::keys_not_taken`]. The agent's
//!   keys come back that way too and are ignored: only a press the chrome
//!   sent counts.
//! * **Quitting.** Closing the window emits [`UiCommand::CloseRequested`];
//!   the loop keeps running (CEF needs it to close browsers) until the app
//!   calls [`UiWaker::quit`]. Then [`Host::exiting`] runs and [`run`]
//!   returns; call `cef_shutdown()` after that.
//!
//! * **Other windows.** The vault window is deliberately not a tab, so the
//!   agent has no id to address it by: on [`UiCommand::OpenVault`] the app
//!   returns a [`WindowSpec`] and its [`WindowUi`] from
//!   [`Host::take_window_requests`], and the runner opens and draws it with
//!   its own egui context. Windows the app builds entirely itself can use
//!   [`Host::event_loop_idle`] and [`Host::other_window_event`]. The vault's
//!   own UI is [`vault_window`]: [`VaultView`] in, [`VaultCommand`]s out, no
//!   vault type in this crate. A [`egui::ViewportCommand::Focus`] sent from
//!   such a window's UI raises it (a second click on the Vault button).
//! * **What a page asks of the human** (issue 12). The app sets a model
//!   field; the chrome draws it (for the active tab only, the others wait)
//!   and answers with one command; the app then clears the field. The
//!   chrome hides an overlay as soon as it has answered, so it never
//!   answers twice while the app catches up, and a new request (new `id`)
//!   shows again.
//!   - [`ChromeModel::dialog`] → a sheet hanging from the page's top edge,
//!     page dimmed; Enter / OK → `AnswerDialog { accept: true, text }`
//!     (`text` only for a prompt), Escape / Cancel / Stay → `accept: false`.
//!     While it is up the page gets no new input (only releases of buttons
//!     pressed before) and loses keyboard focus (`PageFocus false`), which
//!     it gets back once answered.
//!   - [`ChromeModel::context_menu`] → an egui menu at the point; an item
//!     emits its command and then [`UiCommand::CloseContextMenu`]; Escape
//!     or a click elsewhere emits only `CloseContextMenu`. While open, keys
//!     and new presses don't reach the page.
//!   - [`ChromeModel::downloads`] → a toolbar button (progress ring, dot for
//!     unseen finished ones) and its panel: `CancelDownload`,
//!     `OpenDownloadsFolder`, `OpenDownload`, `RemoveDownload`.
//!   - [`ChromeModel::permission`] → a bubble under the omnibox:
//!     `AnswerPermission`; Escape sends `DismissPermission` (refused, not remembered). Not modal.
//!   - [`ChromeModel::popup`] → CEF's `PET_POPUP` pixels drawn over the page
//!     at `rect` (DIP) at the page's scale; input there is ordinary page
//!     input.
//!   - [`ChromeModel::file_chooser`] → a picker over the page (modal like the
//!     dialog): `FileChooserDone { paths }`, empty when cancelled.
//!   - [`ChromeModel::fullscreen`] hides the tab strip and toolbar (a
//!     `Resize` follows); F11 → `ToggleFullscreen`, Escape →
//!     `ExitFullscreen`; Ctrl+P → `Print`; [`ChromeModel::notice`] → a bar
//!     along the page's bottom whose × sends `DismissNotice`.
//! * **The browser's memory** (issue 13). Plain data in the model, commands
//!   back; the chrome keeps only what is being typed.
//!   - Find: Ctrl+F opens a bar for the active tab (per tab, under the
//!     toolbar at the page's right). Typing sends `Find { find_next: false }`,
//!     Enter / Shift+Enter / F3 / Ctrl+G and the arrows `find_next: true`;
//!     Escape, ×, or emptying the field send `StopFind`. Put CEF's
//!     `OnFindResult` in [`TabView::find`] (with the text searched).
//!   - Zoom: Ctrl+plus/=/minus/0 and Ctrl+wheel over the page send
//!     `Zoom { step: ZoomStep }`; show [`TabView::zoom_percent`] (a chip in
//!     the omnibox when not 100, whose click sends `ZoomStep::Reset`).
//!   - Tabs: `ReopenClosedTab` (Ctrl+Shift+T), `MoveTab { tab, to }` (drag in
//!     the strip; `to` is the index afterwards), `NewPrivateTab`
//!     (Ctrl+Shift+N, the "+" menu). Tabs whose [`ContainerInfo::private`] is
//!     set are drawn dark with a mask and "Private".
//!   - Bookmarks: `ToggleBookmark` (Ctrl+D, the omnibox star, filled when
//!     [`TabView::bookmarked`]), the toolbar menu of
//!     [`ChromeModel::bookmarks`] and the bar (the first root folder's
//!     children, shown while [`ChromeModel::show_bookmarks_bar`];
//!     Ctrl+Shift+B sends `SetBookmarksBar`, which
//!     [`settings::Settings::apply`] persists). Clicks send `OpenUrl`
//!     (`new_tab` on middle or Ctrl+click); right-click offers
//!     `RemoveBookmark`; "Import bookmarks…" sends `ImportBookmarks { path }`
//!     (answer in [`ChromeModel::notice`]).
//!   - History: Ctrl+H toggles a side panel that sends `HistoryQuery` when
//!     it opens and as the human searches; show [`ChromeModel::history`].
//!     Rows send `OpenUrl` and `HistoryDelete`; "Clear browsing history…"
//!     sends `HistoryClear { since_ms }` (`None` = all time).
//!   - Omnibox: every edit sends `OmniboxInput { tab, text }`; answer with
//!     [`ChromeModel::suggestions`] and [`ChromeModel::inline_completion`]
//!     (the whole text it completes to). Choosing a suggestion sends the
//!     usual `Navigate`.
//! * **Settings** (issue 13). Ctrl+, or the main menu (☰ at the strip's right end) opens a
//!   side panel drawn from [`ChromeModel::settings`] (fill [`SettingsView`] from the
//!   settings and what the app knows: default container, download folder, whether blocking
//!   runs, the MCP port). Its choices are commands that [`settings::Settings::apply`]
//!   persists (`SetSearchEngine`, `SetDefaultContainer`, `SetDownloadDir`, `SetColorScheme`,
//!   `SetDarkDefault`, `SetDarkFilter`, `SetTheme`, `SetBlocking`, `SetSiteBlocking`) and the
//!   app applies, plus `ClearBrowsingData` and `SetMcpPort`, which are the app's alone. The
//!   omnibox searches with [`settings::Settings::search_template`] of the model's values.
//! * **Dark mode per tab** (all in [`dark`], no egui): on every navigation
//!   send [`dark::emulated_media_call`] with the human's preference
//!   ([`UiCommand::SystemTheme`], or `settings.theme.prefer`); measure the
//!   first paint with [`dark::mean_luminance`] *before* darkening; feed the
//!   site's mode ([`dark::SitePolicies::mode_for_url`]) to [`dark::plan`];
//!   send the DevTools call and run the script from
//!   [`dark::DarkPlan::actions`]. Latch the decision per document; re-plan
//!   on [`UiCommand::SetTheme`] / [`UiCommand::SetDarkFilter`].
//!
//! # Testing without CEF
//!
//! * `tests/headless.rs` drives [`Chrome::run`] with synthetic
//!   `egui::RawInput`: no window, no GPU.
//! * `tests/window.rs` opens the real window (any X server; Xvfb with
//!   Mesa's software GL works), reads it back with
//!   [`UiWaker::request_screenshot`] and checks chrome and page pixels. It
//!   skips without `DISPLAY`; `APERTURE_UI_SHOT=x.ppm` keeps the capture.
//! * `tests/dark_chromium.rs` and `tests/filter_chromium.rs` check the
//!   dark-mode layers in a real headless Chromium over the DevTools pipe,
//!   on saved pages from `testdata/corpus`; they skip without `chromium` and
//!   ImageMagick's `convert`.
//! * `cargo run -p aperture-ui --example chrome_demo` is the real window
//!   with a synthetic page, for looking at.
//!
//! CI should set `APERTURE_UI_REQUIRE=1` so a missing display or browser
//! fails these tests instead of skipping them.

// The GL bootstrap, whose glutin and glow calls the compiler cannot check, is `cef::gl`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod chrome;
pub mod command;
pub mod dark;
mod icon;
pub mod keys;
pub mod model;
pub mod omnibox;
mod runner;
pub mod selection;
pub mod settings;
pub mod vault_window;
#[cfg(target_os = "linux")]
mod xpointer;

pub use chrome::{Chrome, TIP_FILL};
pub use command::{
    ClearData, ConsentAnswer, EditOp, FileDrag, KeyInput, Modifiers, MouseButton, PageInput, UiCommand,
    ZoomStep,
};
pub use model::{
    BlockedPopupView, BookmarkNode, ChromeModel, ContainerInfo, ContextMenuView, CursorShape, DialogKind,
    DialogView, DownloadState, DownloadView, FileChooserMode, FileChooserView, FindView, HistoryRow,
    KeyNotTaken, LoginOffer, PageFrame, PermissionView, PopupView, Rgb, SaveLoginView, Security,
    SettingsView, SitePermission, SiteTile, SuggestionView, TabId, TabView, VaultConsentView,
};
pub use runner::{
    Host, RunOptions, UiError, UiEvent, UiWaker, WindowShot, WindowSpec, WindowUi, event_loop, run,
};
pub use vault_window::{VaultCommand, VaultState, VaultView, VaultWindow};

/// winit, re-exported for [`Host::other_window_event`] and
/// [`Host::event_loop_idle`] (the version the runner's event loop uses).
pub use winit;

/// The egui version this crate is built against, re-exported so tests and
/// the app can build `RawInput` without a second, mismatched egui.
pub use egui;
