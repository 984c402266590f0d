//! The seam between this crate and `aperture-engine`: everything the tools need from the page
//! model, in one place, so an engine API change touches one file.

pub use aperture_engine::envelope::{TAG as ENVELOPE_TAG, fence, split};
pub use aperture_engine::{Observation, RefError, TabSession};
