//! The seam between this crate and `aperture-engine`: everything the tools need from the page
//! model, in one place, so an engine API change touches one file.

pub use aperture_engine::envelope::{TAG as ENVELOPE_TAG, Untrusted, split};
pub use aperture_engine::text::{STRING_CAP, clean};
pub use aperture_engine::{Mode, Observation, RefError, TabSession};

/// Fences page-authored text for a tool result. Every line becomes one quoted, cleaned string
/// (`aperture_engine::text::quote_lines`: control, bidi, zero-width and line-separator
/// characters gone), the same rule snapshot strings follow, so nothing a page writes can make a
/// line inside the envelope read as a header, an op, a ref line or a delimiter.
pub fn fence(page_text: &str) -> String {
    aperture_engine::envelope::fence_text(page_text)
}
