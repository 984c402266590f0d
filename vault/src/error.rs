//! Error types.
//!
//! The vault file errors are deliberately distinct: a human staring at "could not open vault"
//! cannot tell "I mistyped" from "my disk ate the file" from "a newer Aperture wrote this", and
//! the right reaction to each is different (retype, restore a backup, upgrade). None of these
//! paths ever writes to the file, so a failed open can always be retried safely.

use std::path::PathBuf;

/// Errors from opening, unlocking or saving a vault file and from human-side operations.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    /// The passphrase does not derive the key this file was sealed with.
    #[error("wrong passphrase")]
    WrongPassphrase,
    /// The file ends before the header or the sealed payload does (an interrupted copy, a full
    /// disk). Atomic saves never produce this on their own.
    #[error("vault file is truncated: expected at least {expected} bytes, found {found}")]
    Truncated {
        /// Bytes the header says the file should have.
        expected: u64,
        /// Bytes actually present.
        found: u64,
    },
    /// The header is damaged: its checksum fails or a field holds an impossible value.
    #[error("vault file is corrupted: {0}")]
    Corrupted(&'static str),
    /// The passphrase is right but the sealed payload or the header it authenticates was
    /// modified after it was written (bit rot or deliberate tampering; the two cannot be told
    /// apart, and either way the contents must not be trusted).
    #[error("vault contents fail authentication (tampered or corrupted)")]
    Tampered,
    /// A newer Aperture wrote this file. Refusing is the only safe move: guessing at a newer
    /// layout and then saving would destroy data the newer version stored.
    #[error("vault format version {found} is newer than this build supports ({supported})")]
    FutureVersion {
        /// Version found in the file.
        found: u16,
        /// Highest version this build reads.
        supported: u16,
    },
    /// The file is an older copy of this vault than the last one opened or saved here: its
    /// generation (a count of saves, authenticated with the contents) is below the one recorded
    /// beside it. Refused, because unlocking and then saving would silently make the lost
    /// entries permanent. The human accepts it deliberately with `aperture vault
    /// accept-rollback` ([`crate::Vault::accept_rollback`]).
    #[error(
        "an older copy of the vault was put back in place of the newer one (this file was saved \
         at generation {found}, but generation {last_seen} was already opened here), so entries \
         saved after it would be lost; if you restored it on purpose, accept it with \
         `aperture vault accept-rollback`"
    )]
    RolledBack {
        /// Generation in the file.
        found: u64,
        /// Last generation recorded for this vault.
        last_seen: u64,
    },
    /// The record of the last generation seen is not a number, so a rolled-back vault could not
    /// be told from a current one.
    #[error(
        "the vault's generation record {0} is damaged, so it cannot be checked that this is the \
         newest copy of the vault; if the vault file is the one you expect, accept it with \
         `aperture vault accept-rollback`"
    )]
    GenerationRecord(PathBuf),
    /// The file does not start with the vault magic bytes.
    #[error("not an Aperture vault file")]
    NotAVault,
    /// `create` refuses to replace an existing file.
    #[error("refusing to overwrite existing file {0}")]
    AlreadyExists(PathBuf),
    /// The operation needs an unlocked vault.
    #[error("vault is locked")]
    Locked,
    /// Key-derivation parameters outside what this build accepts.
    #[error("invalid key-derivation parameters: {0}")]
    InvalidKdfParams(String),
    /// The payload decrypted but does not parse. Only a bug or a hand-edited file gets here.
    #[error("vault payload does not parse: {0}")]
    Payload(String),
    /// No entry, profile or attachment with that id.
    #[error("no such item")]
    NotFound,
    /// The URL is not something the vault can bind an entry to (not http/https, no host).
    #[error("origin not usable by the vault: {0}")]
    BadOrigin(String),
    /// A TOTP secret or `otpauth://` URI did not parse.
    #[error("invalid TOTP configuration: {0}")]
    Totp(#[from] crate::totp::TotpError),
    /// Invalid password-generation policy.
    #[error("invalid password policy: {0}")]
    Policy(&'static str),
    /// An underlying filesystem error.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Errors returned to the agent-facing surface.
///
/// `NotAvailable` deliberately covers both "no such id" and "that id exists but belongs to
/// another site": distinguishing them would hand a prompt-injected agent an oracle for which
/// accounts exist elsewhere, which is exactly the vocabulary the design withholds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The human has not unlocked the vault.
    #[error("vault is locked; ask the human to unlock it in the vault window")]
    Locked,
    /// Nothing with that id is available for this page's origin. Terminal: there is no override.
    #[error("no such entry for this origin")]
    NotAvailable,
    /// The page's origin cannot hold vault entries (not http/https, opaque, no host).
    #[error("this page's origin cannot use the vault")]
    UnsupportedOrigin,
    /// The vault could not persist a change (generated password); nothing was granted.
    #[error("vault could not save: {0}")]
    SaveFailed(String),
    /// Invalid request parameters (e.g. an impossible password policy).
    #[error("invalid request: {0}")]
    Invalid(&'static str),
}

/// Errors from redeeming a grant on the app's fill path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    /// The grant was already used, expired, or the vault was locked since it was issued.
    #[error("fill grant is no longer valid")]
    GrantInvalid,
    /// The frame the app is about to type into is not on the site the grant was issued for
    /// (the page navigated between request and fill). Terminal.
    #[error("frame origin does not match the grant")]
    OriginMismatch,
    /// The vault is locked.
    #[error("vault is locked")]
    Locked,
    /// The entry was deleted after the grant was issued, or holds nothing for that field.
    #[error("entry no longer available")]
    EntryGone,
    /// Attachment file could not be read or failed authentication.
    #[error("attachment unavailable: {0}")]
    Attachment(String),
}
