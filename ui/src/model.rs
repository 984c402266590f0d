//! The read-only view of browser state that the chrome draws from.
//!
//! The application owns and mutates it (usually behind
//! `Arc<Mutex<ChromeModel>>`, written from CEF callbacks on the main thread);
//! the chrome only reads it. Nothing here refers to egui so the app can build
//! it without pulling UI types into its state.

use std::sync::Arc;

use crate::dark::{FilterOptions, ThemeMode};

/// Tab identifier chosen by the application: the one tab id type shared with
/// `mcp` and the app (re-exported here so `aperture_ui::TabId` keeps working).
pub use aperture_common::TabId;

/// An sRGB colour, 8 bits per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// An identity container the human can open a tab in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerInfo {
    /// Stable id, sent back in [`crate::UiCommand::NewTab`].
    pub id: String,
    /// Display name.
    pub name: String,
    /// Badge colour.
    pub colour: Rgb,
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
