//! Where the pointer is over a window, asked of the X server. While a drag from another
//! application (files from a file manager) passes over the window, the window gets no pointer
//! motion (the drag's source holds the pointer) and winit reports where the drag is nowhere; the
//! window asks instead, each frame, so the page under the drag can be told.

use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt;
use x11rb::rust_connection::RustConnection;

/// A connection to the X server for pointer queries (made on first use).
pub(crate) struct XPointer {
    conn: RustConnection,
}

impl XPointer {
    /// `None` where there is no X server (Wayland without XWayland).
    pub(crate) fn connect() -> Option<XPointer> {
        let (conn, _) = x11rb::connect(None).ok()?;
        Some(XPointer { conn })
    }

    /// The pointer's position over `window`, in the window's physical pixels.
    pub(crate) fn position(&self, window: &winit::window::Window) -> Option<(f32, f32)> {
        let id = match window.window_handle().ok()?.as_raw() {
            RawWindowHandle::Xlib(h) => u32::try_from(h.window).ok()?,
            RawWindowHandle::Xcb(h) => h.window.get(),
            _ => return None,
        };
        let reply = self.conn.query_pointer(id).ok()?.reply().ok()?;
        let _ = self.conn.flush();
        reply
            .same_screen
            .then_some((f32::from(reply.win_x), f32::from(reply.win_y)))
    }
}
