//! The pointer's one way into a page, for the human's window and the agent's input alike.
//!
//! With windowless rendering Chromium does not run HTML drag and drop itself: when a page
//! starts a drag (`draggable` content, a text selection, a link or image being dragged) it asks
//! the embedder to carry it (`on_start_dragging`), and until the button is released the
//! pointer's moves and release must go to the view as drag-target events, ending the drag as
//! its source. Sending plain mouse events instead leaves the drag hanging and the page never
//! sees `dragover` or `drop`. Every pointer event of both input paths therefore goes through
//! [`Actor::pointer`], which knows whether a drag is under way.

use super::Actor;
use aperture_mcp::backend::TabId;

/// A drag the page started, carried by the pointer until release.
#[derive(Debug, Clone, Copy)]
pub struct Drag {
    /// What the page allows the drag to do.
    pub allowed: cef::DragOps,
    /// What the drop target under the pointer said it would do (NONE: refuses the drop).
    pub op: cef::DragOps,
    /// The pointer is over the view (drag-target events go to it).
    pub inside: bool,
}

/// What the pointer does.
#[derive(Debug, Clone, Copy)]
pub enum Pointer {
    Move(cef::MouseEvent),
    /// The pointer left the view (at the last known position).
    Leave(cef::MouseEvent),
    Down(cef::MouseEvent, cef::MouseButton, i32),
    Up(cef::MouseEvent, cef::MouseButton, i32),
}

/// How a drag the page started ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DragEnd {
    /// No drag was under way: the release was an ordinary mouse up.
    NoDrag,
    /// Dropped where the target accepted it.
    Dropped(cef::DragOps),
    /// Released where nothing accepted the drop (the drag was cancelled).
    Refused,
}

impl Actor {
    /// Sends one pointer event to tab `id`'s page, as a drag-target event while the page's
    /// drag is under way. Returns how a drag ended when this was the release that ended one.
    pub fn pointer(&self, id: TabId, p: Pointer) -> DragEnd {
        let Some(host) = self.host(id) else {
            return DragEnd::NoDrag;
        };
        // Copied out: the host calls below can re-enter the handler (the drag cursor), which
        // borrows the state again.
        let at = match &p {
            Pointer::Move(e) | Pointer::Leave(e) | Pointer::Down(e, ..) | Pointer::Up(e, ..) => (e.x, e.y),
        };
        let drag = self.with(|st| {
            let t = st.tabs.get_mut(&id)?;
            t.pointer_at = Some(at);
            t.drag
        });
        let Some(d) = drag else {
            match p {
                Pointer::Move(e) => host.send_mouse_move(&e, false),
                Pointer::Leave(e) => host.send_mouse_move(&e, true),
                Pointer::Down(e, b, n) => host.send_mouse_click(&e, b, false, n),
                Pointer::Up(e, b, n) => host.send_mouse_click(&e, b, true, n),
            }
            return DragEnd::NoDrag;
        };
        match p {
            Pointer::Move(e) => {
                if !d.inside {
                    // Back over the view: CEF keeps the drag's data from the first enter.
                    self.set_drag(id, |d| d.inside = true);
                }
                host.drag_target_over(&e, d.allowed);
                DragEnd::NoDrag
            }
            Pointer::Leave(_) => {
                if d.inside {
                    host.drag_target_leave();
                    self.set_drag(id, |d| d.inside = false);
                }
                DragEnd::NoDrag
            }
            // Another button pressed mid-drag changes nothing in Chromium's drag either.
            Pointer::Down(..) => DragEnd::NoDrag,
            Pointer::Up(e, ..) => {
                self.with(|st| {
                    if let Some(t) = st.tabs.get_mut(&id) {
                        t.drag = None;
                    }
                });
                let op = if d.inside && !d.op.is_none() {
                    host.drag_target_drop(&e);
                    d.op
                } else {
                    if d.inside {
                        host.drag_target_leave();
                    }
                    cef::DragOps::NONE
                };
                host.drag_source_end(e.x, e.y, op);
                if op.is_none() {
                    DragEnd::Refused
                } else {
                    DragEnd::Dropped(op)
                }
            }
        }
    }

    fn set_drag(&self, id: TabId, f: impl FnOnce(&mut Drag)) {
        self.with(|st| {
            if let Some(d) = st.tabs.get_mut(&id).and_then(|t| t.drag.as_mut()) {
                f(d);
            }
        });
    }
}
