//! Input events, cursors and resource types with names instead of CEF's bare numbers.

use crate::sys::*;

/// Modifier and button state of an input event (`cef_event_flags_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventFlags(u32);

impl EventFlags {
    pub const NONE: EventFlags = EventFlags(0);
    pub const SHIFT: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_SHIFT_DOWN as u32);
    pub const CONTROL: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_CONTROL_DOWN as u32);
    pub const ALT: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_ALT_DOWN as u32);
    pub const LEFT_BUTTON: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_LEFT_MOUSE_BUTTON as u32);
    pub const MIDDLE_BUTTON: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_MIDDLE_MOUSE_BUTTON as u32);
    pub const RIGHT_BUTTON: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_RIGHT_MOUSE_BUTTON as u32);
    /// The Meta/Super key (CEF's "command").
    pub const META: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_COMMAND_DOWN as u32);
    pub const IS_KEY_PAD: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_IS_KEY_PAD as u32);
    pub const IS_REPEAT: EventFlags = EventFlags(cef_event_flags_t::EVENTFLAG_IS_REPEAT as u32);

    pub fn contains(self, other: EventFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn intersects(self, other: EventFlags) -> bool {
        self.0 & other.0 != 0
    }
    /// `self` with `other` added when `on`.
    pub fn with(self, other: EventFlags, on: bool) -> EventFlags {
        if on { self | other } else { self }
    }
}

impl std::ops::BitOr for EventFlags {
    type Output = EventFlags;
    fn bitor(self, o: EventFlags) -> EventFlags {
        EventFlags(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for EventFlags {
    fn bitor_assign(&mut self, o: EventFlags) {
        self.0 |= o.0;
    }
}

/// A mouse position in view coordinates (DIP) with modifiers.
#[derive(Debug, Clone, Copy, Default)]
pub struct MouseEvent {
    pub x: i32,
    pub y: i32,
    pub modifiers: EventFlags,
}

impl MouseEvent {
    pub(crate) fn raw(&self) -> cef_mouse_event_t {
        cef_mouse_event_t {
            x: self.x,
            y: self.y,
            modifiers: self.modifiers.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseButton {
    Left,
    Middle,
    Right,
}

impl MouseButton {
    pub(crate) fn raw(self) -> cef_mouse_button_type_t {
        match self {
            MouseButton::Left => cef_mouse_button_type_t::MBT_LEFT,
            MouseButton::Middle => cef_mouse_button_type_t::MBT_MIDDLE,
            MouseButton::Right => cef_mouse_button_type_t::MBT_RIGHT,
        }
    }
}

/// Which key event: a key going down (raw, before any character), a character it produced,
/// or the key going up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyEventKind {
    RawKeyDown,
    Char,
    KeyUp,
}

/// A key event as Chromium wants it: Windows virtual-key code plus the X11 keycode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyEvent {
    pub kind: KeyEventKind,
    pub modifiers: EventFlags,
    pub windows_key_code: i32,
    pub native_key_code: i32,
    pub character: u16,
    pub unmodified_character: u16,
}

impl KeyEvent {
    /// The event CEF reports; `None` for a type this crate does not know.
    pub(crate) fn from_raw(e: &cef_key_event_t) -> Option<KeyEvent> {
        let kind = match e.type_ {
            cef_key_event_type_t::KEYEVENT_RAWKEYDOWN | cef_key_event_type_t::KEYEVENT_KEYDOWN => {
                KeyEventKind::RawKeyDown
            }
            cef_key_event_type_t::KEYEVENT_CHAR => KeyEventKind::Char,
            cef_key_event_type_t::KEYEVENT_KEYUP => KeyEventKind::KeyUp,
            _ => return None,
        };
        Some(KeyEvent {
            kind,
            modifiers: EventFlags(e.modifiers),
            windows_key_code: e.windows_key_code,
            native_key_code: e.native_key_code,
            character: e.character,
            unmodified_character: e.unmodified_character,
        })
    }

    pub(crate) fn raw(&self) -> cef_key_event_t {
        cef_key_event_t {
            type_: match self.kind {
                KeyEventKind::RawKeyDown => cef_key_event_type_t::KEYEVENT_RAWKEYDOWN,
                KeyEventKind::Char => cef_key_event_type_t::KEYEVENT_CHAR,
                KeyEventKind::KeyUp => cef_key_event_type_t::KEYEVENT_KEYUP,
            },
            modifiers: self.modifiers.0,
            windows_key_code: self.windows_key_code,
            native_key_code: self.native_key_code,
            is_system_key: 0,
            character: self.character,
            unmodified_character: self.unmodified_character,
            focus_on_editable_field: 0,
        }
    }
}

/// The cursor a page asks for, grouped the way a window system draws them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cursor {
    #[default]
    Default,
    Crosshair,
    Pointer,
    Text,
    Wait,
    Help,
    ResizeHorizontal,
    ResizeVertical,
    ResizeNwSe,
    ResizeNeSw,
    ResizeColumn,
    ResizeRow,
    Move,
    Progress,
    NotAllowed,
    None,
    ZoomIn,
    ZoomOut,
    Grab,
    Grabbing,
}

impl Cursor {
    pub(crate) fn from_raw(t: cef_cursor_type_t) -> Cursor {
        use cef_cursor_type_t::*;
        match t {
            CT_CROSS => Cursor::Crosshair,
            CT_HAND => Cursor::Pointer,
            CT_IBEAM | CT_VERTICALTEXT => Cursor::Text,
            CT_WAIT => Cursor::Wait,
            CT_HELP => Cursor::Help,
            CT_EASTRESIZE | CT_WESTRESIZE | CT_EASTWESTRESIZE => Cursor::ResizeHorizontal,
            CT_NORTHRESIZE | CT_SOUTHRESIZE | CT_NORTHSOUTHRESIZE => Cursor::ResizeVertical,
            CT_NORTHWESTRESIZE | CT_SOUTHEASTRESIZE | CT_NORTHWESTSOUTHEASTRESIZE => Cursor::ResizeNwSe,
            CT_NORTHEASTRESIZE | CT_SOUTHWESTRESIZE | CT_NORTHEASTSOUTHWESTRESIZE => Cursor::ResizeNeSw,
            CT_COLUMNRESIZE => Cursor::ResizeColumn,
            CT_ROWRESIZE => Cursor::ResizeRow,
            CT_MIDDLEPANNING | CT_EASTPANNING | CT_NORTHPANNING | CT_NORTHEASTPANNING
            | CT_NORTHWESTPANNING | CT_SOUTHPANNING | CT_SOUTHEASTPANNING | CT_SOUTHWESTPANNING
            | CT_WESTPANNING | CT_MOVE => Cursor::Move,
            CT_PROGRESS => Cursor::Progress,
            CT_NODROP | CT_NOTALLOWED => Cursor::NotAllowed,
            CT_NONE => Cursor::None,
            CT_ZOOMIN => Cursor::ZoomIn,
            CT_ZOOMOUT => Cursor::ZoomOut,
            CT_GRAB => Cursor::Grab,
            CT_GRABBING => Cursor::Grabbing,
            _ => Cursor::Default,
        }
    }
}

/// What a network request is for (`cef_resource_type_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceType {
    MainFrame,
    SubFrame,
    Stylesheet,
    Script,
    Image,
    Font,
    SubResource,
    Object,
    Media,
    Worker,
    SharedWorker,
    Prefetch,
    Favicon,
    Xhr,
    Ping,
    ServiceWorker,
    CspReport,
    Plugin,
    NavigationPreloadMainFrame,
    NavigationPreloadSubFrame,
    Other,
}

impl ResourceType {
    pub(crate) fn from_raw(t: cef_resource_type_t) -> ResourceType {
        use cef_resource_type_t::*;
        match t {
            RT_MAIN_FRAME => ResourceType::MainFrame,
            RT_SUB_FRAME => ResourceType::SubFrame,
            RT_STYLESHEET => ResourceType::Stylesheet,
            RT_SCRIPT => ResourceType::Script,
            RT_IMAGE => ResourceType::Image,
            RT_FONT_RESOURCE => ResourceType::Font,
            RT_SUB_RESOURCE => ResourceType::SubResource,
            RT_OBJECT => ResourceType::Object,
            RT_MEDIA => ResourceType::Media,
            RT_WORKER => ResourceType::Worker,
            RT_SHARED_WORKER => ResourceType::SharedWorker,
            RT_PREFETCH => ResourceType::Prefetch,
            RT_FAVICON => ResourceType::Favicon,
            RT_XHR => ResourceType::Xhr,
            RT_PING => ResourceType::Ping,
            RT_SERVICE_WORKER => ResourceType::ServiceWorker,
            RT_CSP_REPORT => ResourceType::CspReport,
            RT_PLUGIN_RESOURCE => ResourceType::Plugin,
            RT_NAVIGATION_PRELOAD_MAIN_FRAME => ResourceType::NavigationPreloadMainFrame,
            RT_NAVIGATION_PRELOAD_SUB_FRAME => ResourceType::NavigationPreloadSubFrame,
            #[allow(unreachable_patterns)]
            _ => ResourceType::Other,
        }
    }
}

/// Severity of a page's console message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsoleLevel {
    Info,
    Warning,
    Error,
}

/// What a drag may do or did (`cef_drag_operations_mask_t`): copy, link, move, … as bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DragOps(u32);

impl DragOps {
    pub const NONE: DragOps = DragOps(0);
    pub const COPY: DragOps = DragOps(cef_drag_operations_mask_t::DRAG_OPERATION_COPY.0);
    pub const MOVE: DragOps = DragOps(cef_drag_operations_mask_t::DRAG_OPERATION_MOVE.0);

    pub fn is_none(self) -> bool {
        self.0 == 0
    }
    pub(crate) fn from_raw(m: cef_drag_operations_mask_t) -> DragOps {
        DragOps(m.0)
    }
    pub(crate) fn raw(self) -> cef_drag_operations_mask_t {
        cef_drag_operations_mask_t(self.0)
    }
}

/// What a page is dragging (HTML drag and drop started in the page), handed back to the same
/// browser as the drop target. Windowless rendering leaves the drag to the embedder: Chromium
/// only starts one and waits to be told where it goes and where it ends.
pub struct DragData(pub(crate) crate::rc::Ref<cef_drag_data_t>);

impl DragData {
    /// Files dragged in from the desktop (a file manager), to hand to a browser as the drop
    /// target. `None` when CEF could not make the object.
    pub fn files(paths: &[std::path::PathBuf]) -> Option<DragData> {
        // SAFETY: creating drag data has no preconditions and returns a new reference.
        let data = unsafe { crate::rc::Ref::adopt((crate::api::api().cef_drag_data_create)()) }?;
        for p in paths {
            let path = crate::strings::CefStr::new(&p.to_string_lossy());
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = crate::strings::CefStr::new(&name);
            // SAFETY: a live, writable drag data object; CEF copies the strings.
            unsafe { crate::rc::call!(data.add_file(path.as_ptr(), name.as_ptr())) };
        }
        Some(DragData(data))
    }
}
