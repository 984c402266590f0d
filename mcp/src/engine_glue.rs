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

/// Fences a field's value exactly: one quoted string per line of it, every space kept
/// (`aperture_engine::text::push_quoted_exact`; blank lines are `""`), as the snapshot's
/// `value=` keeps it. A value read to be copied or compared must not lose a trailing space.
pub fn fence_value(value: &str) -> String {
    let mut q = String::with_capacity(value.len() + 8);
    let value = value.replace("\r\n", "\n");
    for line in value.split(aperture_engine::text::is_line_break) {
        aperture_engine::text::push_quoted_exact(&mut q, line, usize::MAX);
        q.push('\n');
    }
    aperture_engine::envelope::fence(&q)
}
