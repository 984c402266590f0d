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
