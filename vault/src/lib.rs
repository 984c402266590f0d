//! Agent-blind password vault, TOTP and autofill profiles. Pure Rust, no CEF.
//!
//! Aperture is driven by an AI agent over MCP on behalf of a human. The agent must be able to
//! *cause* a login, a one-time-code entry, a profile fill or a CV upload without ever being able
//! to *read* the credential or pick an arbitrary file: agent context goes to a model API, gets
//! logged and summarised, and a hostile page can steer the agent with prompt injection. A
//! credential entering agent context is treated as a full compromise.
//!
//! # Capabilities
//!
//! The crate exposes three handles over one shared, unlocked state, and which code holds which
//! handle is the security design:
//!
//! | handle | held by | can |
//! | --- | --- | --- |
//! | [`Vault`] | the vault window (human) | create, unlock, lock, edit, [`Vault::reveal_for_human`] |
//! | [`Filler`] | the app's input-injection path | redeem grants into the values to type |
//! | [`AgentView`] | the MCP layer | list ids/labels for the page's site, request grants |
//!
//! In the browser all three live in the vault process ([`remote`]); the browser holds a
//! [`remote::RemoteVault`], whose requests mirror them one capability at a time.
//!
//! [`AgentView`] has no function that returns a secret: not a disabled one, none
//! (`tests/agent_surface.rs` and the `compile_fail` examples in [`agent`] hold that line). A
//! grant ([`FillGrant`], [`ProfileGrant`], [`AttachmentGrant`]) is an opaque ticket with no
//! secret inside; only a [`Filler`] can redeem it, and it re-checks the origin of the frame
//! being typed into. The MCP layer is given an `AgentView` and nothing else.
//!
//! Entries are bound to a [`Site`] (scheme + registrable domain under the Public Suffix List,
//! private section included, so `alice.github.io` and `bob.github.io` never share). The agent
//! only ever sees entries of the page's own site, so on `evil.com` it has no identifier for a
//! `google.com` entry to be talked into using; an origin mismatch is refused with the same error
//! as an unknown id, and there is no override parameter anywhere.
//!
//! # Typical wiring
//!
//! ```
//! # use aperture_vault::*;
//! # let dir = std::env::temp_dir().join(format!("apv-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let path = dir.join("doc.vault");
//! # let _ = std::fs::remove_file(&path);
//! // Vault window: the human creates or unlocks. (`create` calibrates Argon2id to ~0.5 s;
//! // this example uses cheap parameters to stay fast.)
//! let vault = Vault::create_with_params(&path, "correct horse", KdfParams::insecure_fast_for_tests())?;
//! let origin = Origin::parse("https://accounts.example.com/login")?;
//! vault.add_entry(NewEntry {
//!     origin: &origin, label: "Work", username: "ada", password: "s3cret!pw".into(), totp: None,
//! })?;
//!
//! // Startup: the MCP layer gets only this.
//! let agent: AgentView = vault.agent_view();
//! // The app's fill path gets this.
//! let filler: Filler = vault.filler();
//!
//! // MCP: vault_entries_for_origin / vault_request_fill. `page` is the tab's real origin.
//! let page = Origin::parse("https://www.example.com/signin")?;
//! let list = agent.entries_for_origin(&page)?;
//! let grant = agent.request_fill(&list[0].id, &page, FillTarget::Login)?;
//!
//! // App: redeem against the frame it is about to type into, type, then taint the tab.
//! let secret = filler.redeem(grant, &page)?;
//! assert_eq!(secret.password(), Some("s3cret!pw"));
//! let mut taint = TaintSet::new();
//! taint.add_fill(&secret, &page);
//! assert_eq!(taint.redact("echo s3cret!pw", &page), format!("echo {REDACTION_MARKER}"));
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Storage
//!
//! One file: Argon2id (parameters calibrated at creation to about 0.5 s, floor 64 MiB × 3
//! passes, stored in the header) → XChaCha20-Poly1305 with a random 192-bit nonce per save (large
//! enough that random nonces never need counter state). The header is the AEAD's associated
//! data. Saves are atomic (temp file, fsync, rename, directory fsync), so a crash at any instant
//! leaves the old or the new file. Wrong passphrase, truncation, a flipped byte and a newer
//! format version are distinct errors ([`VaultError`]) and none of them writes to the file. Every
//! save increments a generation counter inside the authenticated header, and the last
//! generation seen is recorded beside the file ([`file::generation_path`]); an older copy put
//! back in place is refused ([`VaultError::RolledBack`]) until the human accepts it with
//! `aperture vault accept-rollback` ([`Vault::accept_rollback`]). See
//! [`file`](mod@file) for the byte layout. Attachments live beside the vault file in
//! `<vault>.attachments/`, each sealed with a random key kept inside the vault payload and bound
//! to its id.
//!
//! # Threat model
//!
//! Defended:
//! * **A hostile page steering the agent** (prompt injection). The agent surface has no getter,
//!   sees only the current site's entries, cannot override origin checks, cannot name a path,
//!   and cannot skip the native consent dialog for profile fills (sensitive fields need fresh
//!   approval every time).
//! * **Navigation races.** Grants are bound to a site, single use, expire after two minutes and
//!   are void on lock; redemption re-checks the frame origin.
//! * **Theft of the vault file.** An offline attacker faces Argon2id at the calibrated cost per
//!   guess. Header tampering (e.g. downgrading KDF parameters) fails authentication.
//! * **Accidental echo** of a filled value back to the agent through page reads, best effort
//!   ([`taint`]).
//!
//! Not defended (stated, not buried):
//! * **The site itself.** A page can read its own DOM; a password delivered to an origin is a
//!   password that origin has. The guarantee is correct routing, not secrecy from the site.
//! * **Local code execution as the same user.** The browser runs the vault in a process of its
//!   own ([`remote`]), so a memory read in the browser process finds no key and no entry it did
//!   not just type; but the vault process runs as the same user, unsandboxed, and malware
//!   running as the user can still read its memory (ptrace) or keylog the passphrase.
//! * **Memory hygiene is best effort.** Keys and secrets are zeroized on lock and drop, but
//!   serde, the allocator and the OS (swap, core dumps) can leave copies; the crate does not
//!   `mlock`.
//! * **Code in the MCP crate that bypasses the type boundary** (reads the vault file, links a
//!   `Filler` it was never given). The boundary is the handle the app passes; review of what the
//!   MCP crate imports is the complement.
//! * **Rolling back the vault file and its generation record together.** The record lives
//!   beside the vault, so whoever can replace both (or delete the record) gets an old copy
//!   accepted. It catches the common cases: a backup or sync tool restoring the vault file
//!   alone, or the file alone being swapped. Attachment files are not covered.
//! * **Single writer.** Two processes saving the same vault file concurrently lose one update
//!   (each write is still atomic). The app should hold the vault in one process.
//! * **The Public Suffix List is a build-time snapshot** (embedded by the `psl` crate). A
//!   hosting provider added to the PSL after that snapshot is treated as one site until the
//!   crate is bumped, so its tenants would share entries.
//! * **Profile consent memory is in memory only.** Approvals of non-sensitive profile fields
//!   are remembered per site and profile until the vault locks; sensitive fields are never
//!   remembered.
//! * **TOTP is not a second factor for the vault itself**: a code check would be an `if` in the
//!   UI that a file thief ignores. Seeds are stored for other sites' logins.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent;
pub mod error;
pub mod file;
pub mod fill;
pub mod import;
pub mod kdf;
pub mod origin;
pub mod passgen;
pub mod profiles;
pub mod remote;
mod secret;
mod state;
pub mod taint;
pub mod totp;
mod vault;

pub use agent::{
    AgentView, AttachmentGrant, AttachmentSummary, ConsentRow, EntrySummary, FillGrant, GeneratedEntry,
    ProfileGrant, ProfileSummary,
};
pub use error::{AgentError, FillError, VaultError};
pub use fill::{AttachmentData, FillSecret, Filler, ProfileApproval, ProfileFill};
pub use import::{CsvFormat, CsvImport, ImportError, ImportOutcome, RowProblem};
pub use kdf::KdfParams;
pub use origin::{Origin, Site};
pub use passgen::PasswordPolicy;
pub use profiles::{
    Decision, FieldDescriptor, FillPlan, HUMAN_FIELDS, MatchSource, PlannedField, Profile, ProfileField,
    SelectOption, SkipReason,
};
pub use secret::SecretString;
pub use state::{AttachmentId, AuditEvent, EntryId, FillTarget};
pub use taint::{REDACTION_MARKER, SiteTaint, TaintSet};
pub use totp::{Totp, TotpAlgorithm, TotpError};
pub use vault::{
    AttachmentInfo, DeletedEntry, EntryEdit, EntryInfo, Generated, MAX_ATTACHMENT_BYTES, NewEntry, Revealed,
    TotpEdit, Vault,
};
