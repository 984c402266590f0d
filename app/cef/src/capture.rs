//! The bytes of the PDF each browser's main frame shows, kept as Chromium received them.
//!
//! Reading a PDF's text needs its bytes, and the viewer's document does not hand them out:
//! fetching the URL again fails for a file served once, or only to a POST (a form that answers
//! with an invoice), or differs when it is made afresh each time. So a main-frame response
//! that is a PDF passes through a response filter that copies it here on its way to the
//! viewer, and the copy counts only once the body is whole: its `Content-Length` reached, or,
//! without one, the body's stream ended (Chromium hands a PDF's body to the viewer as a stream
//! and reports no load completion for it). Only the latest main-frame
//! document of a browser is kept: any other main-frame response drops it, and so does
//! closing the browser, so the memory is that of the PDFs tabs show now.
//!
//! Written on CEF's IO thread, read from the UI thread: hence the mutex.

use crate::types::BrowserId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The largest PDF kept; a bigger one is noted as too big and its bytes are not kept.
pub const DOCUMENT_CAP: usize = 32 << 20;

/// A browser's captured main-frame PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Captured {
    /// Every byte of the response body.
    Bytes(Arc<Vec<u8>>),
    /// The body was over [`DOCUMENT_CAP`].
    TooBig,
}

/// The captured documents of every browser.
#[derive(Debug, Default)]
pub struct Documents {
    by_browser: Mutex<HashMap<BrowserId, Slot>>,
}

#[derive(Debug, Default)]
struct Slot {
    /// Numbers each response begun, so a late chunk of a superseded one is not mixed in.
    generation: u64,
    receiving: Option<Receiving>,
    /// The last complete document and its URL.
    shown: Option<(String, Captured)>,
}

#[derive(Debug)]
struct Receiving {
    generation: u64,
    url: String,
    /// The body's length from `Content-Length`, when it gives the decoded length.
    expected: Option<usize>,
    bytes: Vec<u8>,
    /// Bytes seen, kept or not.
    seen: usize,
    too_big: bool,
}

impl Receiving {
    fn into_captured(self) -> (String, Captured) {
        let doc = if self.too_big {
            Captured::TooBig
        } else {
            Captured::Bytes(Arc::new(self.bytes))
        };
        (self.url, doc)
    }
}

/// A URL without its fragment: a same-document jump does not change the document.
fn document_url(url: &str) -> &str {
    url.split_once('#').map_or(url, |(u, _)| u)
}

impl Documents {
    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<BrowserId, Slot>> {
        // A poisoned lock only means a panic elsewhere mid-update; the map is still usable.
        self.by_browser.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A main-frame PDF response of browser `id` starts, `expected` bytes long if known: its
    /// body will be [`Self::append`]ed under the returned generation.
    pub(crate) fn begin(&self, id: BrowserId, url: &str, expected: Option<usize>) -> u64 {
        let mut slots = self.slots();
        let slot = slots.entry(id).or_default();
        slot.generation += 1;
        slot.receiving = Some(Receiving {
            generation: slot.generation,
            url: document_url(url).to_string(),
            expected,
            bytes: Vec::new(),
            seen: 0,
            too_big: false,
        });
        slot.generation
    }

    /// Body bytes of the response `generation` of browser `id`.
    pub(crate) fn append(&self, id: BrowserId, generation: u64, chunk: &[u8]) {
        let mut slots = self.slots();
        let Some(slot) = slots.get_mut(&id) else { return };
        let Some(r) = slot.receiving.as_mut().filter(|r| r.generation == generation) else {
            return;
        };
        r.seen += chunk.len();
        if r.too_big {
        } else if r.bytes.len() + chunk.len() > DOCUMENT_CAP {
            r.too_big = true;
            r.bytes = Vec::new();
        } else {
            r.bytes.extend_from_slice(chunk);
        }
        if r.expected == Some(r.seen) {
            slot.shown = slot.receiving.take().map(Receiving::into_captured);
        }
    }

    /// The body stream of response `generation` of browser `id` ended (its filter is gone):
    /// without a length to check, that is its end; with one not reached, it was cut off.
    pub(crate) fn ended(&self, id: BrowserId, generation: u64) {
        let mut slots = self.slots();
        let Some(slot) = slots.get_mut(&id) else { return };
        if let Some(r) = slot.receiving.take_if(|r| r.generation == generation)
            && r.expected.is_none()
        {
            slot.shown = Some(r.into_captured());
        }
    }

    /// Browser `id`'s main-frame load of `url` ended (`ok`: completely). A PDF being received
    /// for it becomes the document shown; a failed one is dropped.
    pub(crate) fn complete(&self, id: BrowserId, url: &str, ok: bool) {
        let mut slots = self.slots();
        let Some(slot) = slots.get_mut(&id) else { return };
        let Some(r) = slot.receiving.take_if(|r| r.url == document_url(url)) else {
            return;
        };
        if ok {
            slot.shown = Some(r.into_captured());
        }
    }

    /// Browser `id`'s main frame received something that is not a PDF, or the browser closed.
    pub(crate) fn forget(&self, id: BrowserId) {
        self.slots().remove(&id);
    }

    /// The PDF browser `id` received completely for `url` (its main frame's address now), if
    /// that is the last main-frame document it received.
    pub fn get(&self, id: BrowserId, url: &str) -> Option<Captured> {
        let slots = self.slots();
        let (u, doc) = slots.get(&id)?.shown.as_ref()?;
        (u == document_url(url)).then(|| doc.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_complete_pdf_is_kept_for_its_url_only() {
        let d = Documents::default();
        let g = d.begin(1, "https://a.test/invoice.pdf", Some(13));
        d.append(1, g, b"%PDF-1.4 ");
        assert_eq!(
            d.get(1, "https://a.test/invoice.pdf"),
            None,
            "not before it is whole"
        );
        d.append(1, g, b"body");
        let want = Captured::Bytes(Arc::new(b"%PDF-1.4 body".to_vec()));
        assert_eq!(d.get(1, "https://a.test/invoice.pdf#page=2"), Some(want));
        assert_eq!(d.get(1, "https://a.test/other.pdf"), None);
        assert_eq!(d.get(2, "https://a.test/invoice.pdf"), None, "per browser");
        d.forget(1);
        assert_eq!(d.get(1, "https://a.test/invoice.pdf"), None);
    }

    #[test]
    fn a_failed_or_superseded_load_is_not_kept() {
        let d = Documents::default();
        let g = d.begin(1, "https://a.test/a.pdf", None);
        d.append(1, g, b"half");
        d.complete(1, "https://a.test/a.pdf", false);
        d.ended(1, g);
        assert_eq!(d.get(1, "https://a.test/a.pdf"), None);
        // Cut off short of its Content-Length: not kept when its stream ends.
        let g = d.begin(1, "https://a.test/a.pdf", Some(100));
        d.append(1, g, b"half");
        d.ended(1, g);
        assert_eq!(d.get(1, "https://a.test/a.pdf"), None);
        // A new response starts; a late chunk of the old one is not mixed into it, and without
        // a length its stream's end makes it whole.
        let old = d.begin(1, "https://a.test/b.pdf", None);
        let new = d.begin(1, "https://a.test/b.pdf", None);
        d.append(1, old, b"stale");
        d.append(1, new, b"fresh");
        d.ended(1, old);
        assert_eq!(d.get(1, "https://a.test/b.pdf"), None);
        d.ended(1, new);
        let want = Captured::Bytes(Arc::new(b"fresh".to_vec()));
        assert_eq!(d.get(1, "https://a.test/b.pdf"), Some(want));
    }

    #[test]
    fn a_pdf_over_the_cap_is_noted_without_its_bytes() {
        let d = Documents::default();
        let n = (DOCUMENT_CAP >> 20) + 1;
        let g = d.begin(1, "https://a.test/big.pdf", Some(n << 20));
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..n {
            d.append(1, g, &chunk);
        }
        assert_eq!(d.get(1, "https://a.test/big.pdf"), Some(Captured::TooBig));
    }
}
