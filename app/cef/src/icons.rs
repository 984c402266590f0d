//! Page icons: `cef_browser_host_t::download_image`, which fetches through the browser's own
//! request context (a container's icon never comes from another container's cache), decoded
//! by Chromium into plain RGBA.

use crate::api::debug_assert_ui;
use crate::rc::{RcBox, Ref, call};
use crate::strings::CefStr;
use crate::sys::*;
use crate::types::BrowserHost;
use std::ffi::{c_int, c_void};

/// A decoded image: `width * height` RGBA pixels, not premultiplied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bitmap {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The download's completion: called once, on the UI thread.
type Done = Box<dyn FnOnce(Option<Bitmap>)>;
/// The callback object's data. CEF calls back on the UI thread, where the closure was made;
/// the Mutex only gives the handler object the `Sync` a CEF object needs.
type IconData = std::sync::Mutex<Option<UiBox>>;
struct UiBox(Done);
// SAFETY: created and called on the UI thread only (checked in `on_image`); another thread
// can at most drop the slot, which is empty by then or dropped with the process.
unsafe impl Send for UiBox {}

extern "C" fn on_image(
    this: *mut cef_download_image_callback_t,
    _url: *const cef_string_t,
    _status: c_int,
    image: *mut cef_image_t,
) {
    debug_assert_ui();
    // SAFETY: the argument carries a reference for us to release (NULL when it failed).
    let image = unsafe { Ref::adopt(image) };
    // SAFETY: the object is an RcBox made by `download_image`.
    let f = unsafe { RcBox::<cef_download_image_callback_t, IconData>::data(this) }
        .lock()
        .ok()
        .and_then(|mut d| d.take());
    if let Some(UiBox(f)) = f {
        f(image.and_then(|i| bitmap(&i)));
    }
}

/// The image's 1x representation as RGBA.
fn bitmap(image: &Ref<cef_image_t>) -> Option<Bitmap> {
    let (mut w, mut h): (c_int, c_int) = (0, 0);
    // SAFETY: a live image; the out-parameters are valid; the binary value returned carries
    // a reference that becomes ours.
    let bin = unsafe {
        if call!(image.is_empty()) != 0 {
            return None;
        }
        Ref::adopt(call!(image.get_as_bitmap(
            1.0,
            cef_color_type_t::CEF_COLOR_TYPE_RGBA_8888,
            cef_alpha_type_t::CEF_ALPHA_TYPE_POSTMULTIPLIED,
            &mut w,
            &mut h
        )))?
    };
    let (w, h) = (u32::try_from(w).ok()?, u32::try_from(h).ok()?);
    // SAFETY: a live binary value.
    let size = unsafe { call!(bin.get_size()) };
    if w == 0 || h == 0 || size != (w as usize) * (h as usize) * 4 {
        return None;
    }
    let mut rgba = vec![0u8; size];
    // SAFETY: the buffer holds `size` bytes.
    let read = unsafe { call!(bin.get_data(rgba.as_mut_ptr() as *mut c_void, size, 0)) };
    (read == size).then_some(Bitmap {
        width: w,
        height: h,
        rgba,
    })
}

impl BrowserHost {
    /// Downloads and decodes the image at `url` through this browser's request context
    /// (as a favicon: no cookies sent or stored), scaled to fit `max_size` pixels; `done`
    /// runs on the UI thread with the image, or `None` if it could not be had.
    pub fn download_image(&self, url: &str, max_size: u32, done: Done) {
        debug_assert_ui();
        let u = CefStr::new(url);
        // SAFETY: a CEF handler struct; its reference goes to CEF with the call.
        let cb = unsafe {
            RcBox::<cef_download_image_callback_t, IconData>::new(
                |c| c.on_download_image_finished = Some(on_image),
                std::sync::Mutex::new(Some(UiBox(done))),
            )
        };
        // SAFETY: a live host on the UI thread; CEF copies the string and takes the callback.
        unsafe { call!(self.download_image(u.as_ptr(), 1, max_size, 0, cb)) }
    }
}
