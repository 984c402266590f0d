//! Identity containers, tracker blocking, navigation policy. No CEF.
//!
//! This crate is the pure-logic half of Aperture's privacy layer. The app wires it into CEF:
//!
//! * [`blocking::Blocker`] answers the resource-request handler on CEF's IO thread;
//!   [`blocking::BlockedCounters`] feeds the per-tab "N blocked" badge.
//! * [`lists`] obtains the real EasyList and EasyPrivacy text from a pinned Debian package
//!   (or from files the user points at) and verifies it by SHA-256.
//! * [`policy::NavigationPolicy`] judges agent-initiated loads before and after DNS.
//! * [`switches::chromium_switches`] is the launch-time list of phone-home and WebRTC switches.
//! * [`containers::ContainerRegistry`] owns identity containers; the agent only ever gets an
//!   [`containers::AgentContainers`] view, which has no way to merge containers or move sites.
//!
//! Nothing here links CEF, so all of it is unit-testable on a machine without a browser runtime.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod blocking;
pub mod containers;
pub mod corpus;
mod fsutil;
pub mod lists;
pub mod policy;
pub mod switches;

pub use blocking::{
    BlockedCounters, Blocker, BlockerError, Decision, LoadOutcome, RebuildReason, ResourceType,
};
pub use containers::{
    AgentContainers, Colour, Container, ContainerError, ContainerId, ContainerRegistry, ContainerSummary,
    FingerprintSeed, PRIVATE_NAME,
};
pub use lists::{FilterList, ListError, ListSet, ProvisionOptions};
pub use policy::{AddressRule, AllowHostError, CheckedUrl, NameRule, NavigationPolicy, PolicyError};
pub use switches::{PrefValue, chromium_switches, request_context_preferences};
