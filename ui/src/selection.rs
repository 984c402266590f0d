//! X11's PRIMARY selection: what the human last selected, which other programs paste with
//! a middle click. Chromium fills it from a windowed view's selection, not from an
//! off-screen one like ours, so the app hands each new selection of the shown page here.
//!
//! A selection is served only while the process that set it keeps a clipboard handle (X11
//! asks the owner for the text at every paste), so the handle is an object to keep. Elsewhere
//! than X11 (no display, Wayland without the protocol) it cannot be made.

#[cfg(target_os = "linux")]
use arboard::{GetExtLinux, LinuxClipboardKind, SetExtLinux};

/// A handle on the PRIMARY selection; what it sets is served while it lives.
pub struct PrimarySelection(arboard::Clipboard);

impl PrimarySelection {
    /// `None` where there is no X display to hold a selection on.
    pub fn new() -> Option<PrimarySelection> {
        arboard::Clipboard::new().ok().map(PrimarySelection)
    }

    /// Makes `text` the PRIMARY selection (empty text leaves it as it is, as X programs do
    /// when a selection is cleared). `false` when it could not be set.
    pub fn set(&mut self, text: &str) -> bool {
        if text.is_empty() {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            self.0
                .set()
                .clipboard(LinuxClipboardKind::Primary)
                .text(text.to_string())
                .is_ok()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }

    /// The PRIMARY selection's text, if some program holds one.
    pub fn get(&mut self) -> Option<String> {
        #[cfg(target_os = "linux")]
        {
            self.0.get().clipboard(LinuxClipboardKind::Primary).text().ok()
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// The page's copies, handed on to the X CLIPBOARD.
///
/// Chromium writes a page's Ctrl+C to CLIPBOARD (and PRIMARY) from its own hidden X window,
/// but with only off-screen views it never reads that window's events, so it claims the
/// selections and then never answers a paste: other programs hang or get nothing. After a
/// copy in the page, while Chromium claims either (so it did copy: nothing is handed on where
/// it refused, as in a password field), the app takes it over with the same text, served by
/// a handle that does answer.
pub struct PageClipboard {
    board: arboard::Clipboard,
    #[cfg(target_os = "linux")]
    x: Option<XOwner>,
}

#[cfg(target_os = "linux")]
struct XOwner {
    conn: x11rb::rust_connection::RustConnection,
    clipboard: u32,
    wm_name: u32,
}

/// The name Chromium gives the window it holds selections with.
#[cfg(target_os = "linux")]
const CHROMIUM_CLIPBOARD_WINDOW: &[u8] = b"Chromium clipboard";

impl PageClipboard {
    /// `None` where there is no X display.
    pub fn new() -> Option<PageClipboard> {
        let board = arboard::Clipboard::new().ok()?;
        #[cfg(target_os = "linux")]
        {
            Some(PageClipboard {
                board,
                x: XOwner::connect(),
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            Some(PageClipboard { board })
        }
    }

    /// What a paste in another program gets from CLIPBOARD now (`None` when nobody holds it,
    /// or its holder did not answer within arboard's few seconds).
    pub fn text(&mut self) -> Option<String> {
        self.board.get_text().ok()
    }

    /// Makes `text` each selection (CLIPBOARD, PRIMARY) Chromium holds now; `true` if
    /// Chromium held CLIPBOARD (it did copy).
    pub fn hand_on(&mut self, text: &str) -> bool {
        #[cfg(target_os = "linux")]
        {
            let Some(x) = &self.x else { return false };
            let clipboard = x.chromium_owns(x.clipboard);
            let primary = x.chromium_owns(u32::from(x11rb::protocol::xproto::AtomEnum::PRIMARY));
            if text.is_empty() {
                return clipboard;
            }
            if clipboard {
                let _ = self.board.set_text(text.to_string());
            }
            if primary {
                let _ = self
                    .board
                    .set()
                    .clipboard(LinuxClipboardKind::Primary)
                    .text(text.to_string());
            }
            clipboard
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (&mut self.board, text);
            false
        }
    }
}

#[cfg(target_os = "linux")]
impl XOwner {
    fn connect() -> Option<XOwner> {
        use x11rb::protocol::xproto::ConnectionExt;
        let (conn, _) = x11rb::connect(None).ok()?;
        let atom = |name: &[u8]| {
            conn.intern_atom(false, name)
                .ok()
                .and_then(|c| c.reply().ok())
                .map(|r| r.atom)
        };
        let clipboard = atom(b"CLIPBOARD")?;
        let wm_name = atom(b"WM_NAME")?;
        Some(XOwner {
            conn,
            clipboard,
            wm_name,
        })
    }

    /// Whether Chromium's window holds `selection`.
    fn chromium_owns(&self, selection: u32) -> bool {
        use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};
        let Some(owner) = self
            .conn
            .get_selection_owner(selection)
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|r| r.owner)
            .filter(|w| *w != x11rb::NONE)
        else {
            return false;
        };
        self.conn
            .get_property(false, owner, self.wm_name, AtomEnum::ANY, 0, 64)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|p| p.value == CHROMIUM_CLIPBOARD_WINDOW)
    }
}
