//! The vault in a process of its own.
//!
//! The browser process renders hostile pages; a bug there that reads memory should not find the
//! vault key or the decrypted entries. So the unlocked [`Vault`] lives in a small process of its
//! own (the app re-executes its binary with a hidden subcommand that calls [`serve_stdin`]), and
//! the browser holds a [`RemoteVault`]: a client that asks for one capability at a time.
//!
//! # The channel
//!
//! One end of a `socketpair` (a connected, unnamed `AF_UNIX` stream) is the vault process's
//! stdin; the browser keeps the other end (close-on-exec, so Chromium's own children do not
//! inherit it). There is no path or port another process could connect to. The vault process
//! serves requests until its end reads EOF, which happens when the browser closes the channel
//! or dies (the kernel closes a dead process's descriptors), then locks (wiping the key) and
//! exits. Each message is a big-endian `u32` length and a JSON body ([`MAX_FRAME`] at most);
//! buffers that held a message are zeroized.
//!
//! # What crosses it
//!
//! Requests are capability-shaped, like the in-process handles ([`crate::AgentView`],
//! [`crate::Filler`], the human-side [`Vault`] methods):
//! * "entries for this origin" answers ids and labels, no secret;
//! * a fill is three steps: [`RemoteVault::request_fill`] gives an opaque [`RemoteGrant`] (a
//!   number; the grant itself stays in the vault process); [`RemoteVault::redeem`] checks the
//!   origin of the frame that has focus against it and keeps the fill there; and
//!   [`RemoteVault::fill_value`] gives one field's value, right before it is typed, after
//!   checking the then-focused frame again. The browser types it with trusted input, so that
//!   one value does pass through it for that one field (its redaction sets keep a salted
//!   digest of it; see [`crate::taint`]). Nothing else decrypted does;
//! * a generated password is made and saved in the vault process; the browser gets a grant;
//! * a profile plan is made and kept there; the browser gets its rows (no values) and later,
//!   one field at a time, the values of the rows the human approved;
//! * an attachment is decrypted by the vault process straight into the upload directory the
//!   browser names; the browser learns the path, never the bytes;
//! * the human's window asks for what the human acts on: a reveal or a copy returns that one
//!   entry's password, on a click.
//!
//! # Crash safety
//!
//! Only the vault process writes the vault file, with the crate's atomic save, so killing it
//! at any instant leaves the old or the new file (`tests/crash.rs` kills it mid-write). A
//! request in flight when it dies fails with [`RemoteError::Gone`]; the next request starts a
//! new vault process, locked, so the agent hears "locked" instead of waiting. Killing the
//! browser closes the channel: the vault process finishes the save it is in, sees EOF and
//! exits.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::agent::{AttachmentGrant, FillGrant, ProfileGrant};
use crate::import::{CsvImport, MAX_CSV_BYTES};
use crate::profiles::{Decision, FieldDescriptor, FillPlan, Profile, ProfileField};
use crate::{
    AgentError, AttachmentId, AttachmentSummary, ConsentRow, EntryId, EntryInfo, EntrySummary, FillError,
    FillSecret, FillTarget, Generated, ImportOutcome, KdfParams, NewEntry, Origin, PasswordPolicy,
    ProfileApproval, ProfileFill, ProfileSummary, SecretString, Totp, Vault, VaultError,
};

/// Largest message either side accepts. Attachments never cross the channel, so messages are
/// small; the cap keeps a confused peer from making the other allocate without bound.
pub const MAX_FRAME: usize = 8 << 20;

/// How long the browser waits for one answer; anything near this means the vault process is
/// stuck, and it is replaced.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The wait for an unlock or a create: Argon2id takes about half a second once calibrated,
/// but calibrating it (create) times several runs, and a loaded machine is slower.
pub const KDF_TIMEOUT: Duration = Duration::from_secs(180);

/// Most grants, plans and undo records the vault process keeps at once; the oldest go first.
const KEEP: usize = 64;

/// Why a request to the vault process failed. Carries no secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum RemoteError {
    /// There is no vault file yet.
    #[error("there is no vault yet")]
    NoVault,
    /// Create found a vault file already there.
    #[error("a vault already exists")]
    AlreadyExists,
    /// Unlock with a wrong passphrase.
    #[error("wrong passphrase")]
    WrongPassphrase,
    /// The vault is locked.
    #[error("vault is locked")]
    Locked,
    /// No such entry, profile or attachment.
    #[error("no such item")]
    NotFound,
    /// The agent asked for something of another site, or something unknown (same answer).
    #[error("no such entry for this origin")]
    NotAvailable,
    /// A page origin the vault cannot bind to.
    #[error("this page's origin cannot use the vault")]
    UnsupportedOrigin,
    /// The frame being typed into is not of the granted site.
    #[error("frame origin does not match the grant")]
    OriginMismatch,
    /// The grant expired, was used, or the vault locked since.
    #[error("fill grant is no longer valid")]
    GrantInvalid,
    /// The entry was deleted between grant and redemption.
    #[error("entry no longer available")]
    EntryGone,
    /// The field asked for is not stored in the entry.
    #[error("this entry has no such value saved")]
    NoValue,
    /// The vault file was refused as an older copy, or its generation record is damaged
    /// (the text says which, and how to accept it).
    #[error("{0}")]
    RolledBack(String),
    /// Anything else, as the vault said it.
    #[error("{0}")]
    Other(String),
    /// The vault process is gone (killed, crashed, or stuck and replaced) while answering. The
    /// next request starts a new one, locked.
    #[error("the vault process stopped during this request; it was restarted and the vault is locked")]
    Gone,
}

impl From<VaultError> for RemoteError {
    fn from(e: VaultError) -> Self {
        match e {
            VaultError::WrongPassphrase => RemoteError::WrongPassphrase,
            VaultError::Locked => RemoteError::Locked,
            VaultError::NotFound => RemoteError::NotFound,
            VaultError::AlreadyExists(_) => RemoteError::AlreadyExists,
            e @ (VaultError::RolledBack { .. } | VaultError::GenerationRecord(_)) => {
                RemoteError::RolledBack(e.to_string())
            }
            other => RemoteError::Other(other.to_string()),
        }
    }
}

impl From<AgentError> for RemoteError {
    fn from(e: AgentError) -> Self {
        match e {
            AgentError::Locked => RemoteError::Locked,
            AgentError::NotAvailable => RemoteError::NotAvailable,
            AgentError::UnsupportedOrigin => RemoteError::UnsupportedOrigin,
            other => RemoteError::Other(other.to_string()),
        }
    }
}

impl From<FillError> for RemoteError {
    fn from(e: FillError) -> Self {
        match e {
            FillError::GrantInvalid => RemoteError::GrantInvalid,
            FillError::OriginMismatch => RemoteError::OriginMismatch,
            FillError::Locked => RemoteError::Locked,
            FillError::EntryGone => RemoteError::EntryGone,
            other => RemoteError::Other(other.to_string()),
        }
    }
}

/// One part of a login, as a field to type it into asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoginPart {
    /// The username.
    Username,
    /// The password.
    Password,
    /// The current TOTP code.
    OneTimeCode,
}

/// Which Argon2id cost a new vault gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KdfChoice {
    /// Calibrated to about half a second on this machine.
    Calibrate,
    /// Trivially cheap: tests only.
    InsecureFastForTests,
}

/// The two-factor part of [`RemoteVault::update_entry`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TotpChange {
    /// Leave it.
    Keep,
    /// Remove it.
    Remove,
    /// Replace it.
    Set(Totp),
}

/// One row of a profile plan, as the agent may be told it (no value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRow {
    /// The page's element ref.
    pub field_ref: String,
    /// How the field is labelled.
    pub label: String,
    /// The profile fact it matched, if any.
    pub field: Option<ProfileField>,
    /// Match confidence, 0..=1.
    pub confidence: f32,
    /// Fill, low confidence, or skip.
    pub decision: Decision,
    /// Whether the fact is sensitive (needs fresh approval every time).
    pub sensitive: bool,
}

/// A CSV export parsed by the vault process and waiting for the human's confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportPreview {
    /// Which password manager wrote it.
    pub format: String,
    /// Logins ready to save.
    pub ready: usize,
    /// `(line, reason)` of records that will not be imported (no values).
    pub problems: Vec<(usize, String)>,
}

/// A library file decrypted into the upload directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedAttachment {
    /// Where the vault process wrote it (0600 in a 0700 directory).
    pub path: PathBuf,
    /// Its file name.
    pub file_name: String,
    /// Its MIME type.
    pub media_type: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A saved login the human might pick on a page (no password).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginOffer {
    /// The entry.
    pub id: EntryId,
    /// Its label.
    pub label: String,
    /// Its username.
    pub username: String,
}

/// What the vault knows of a login the human just submitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoginStatus {
    /// Saved exactly like that: nothing to offer.
    Saved,
    /// A new login for the site.
    New,
    /// Entry with that username, another password.
    Changed(EntryId),
}

/// A ticket for one grant held by the vault process. No secret inside, not `Clone`.
#[derive(Debug, PartialEq, Eq)]
pub struct RemoteGrant(u64);

/// A profile plan held by the vault process, and its rows.
#[derive(Debug)]
pub struct RemotePlan {
    id: u64,
    /// The plan's rows.
    pub rows: Vec<PlanRow>,
}

/// A profile grant held by the vault process: the rows to ask the human about.
#[derive(Debug)]
pub struct RemoteProfileGrant {
    grant: RemoteGrant,
    /// Rows to fill, with approval requirements.
    pub rows: Vec<ConsentRow>,
}

impl RemoteProfileGrant {
    /// Whether the consent dialog must be shown at all.
    pub fn needs_dialog(&self) -> bool {
        self.rows.iter().any(|r| r.needs_approval)
    }
}

/// A password the agent had generated and saved.
#[derive(Debug)]
pub struct RemoteGenerated {
    /// The new entry.
    pub id: EntryId,
    /// Entropy of the generator, in bits.
    pub entropy_bits: f64,
    /// A grant to type it ([`LoginPart::Password`]).
    pub grant: RemoteGrant,
}

/// An entry the human deleted, kept by the vault process for undo.
#[derive(Debug)]
pub struct RemoteDeleted {
    undo: u64,
    id: EntryId,
    label: String,
}

impl RemoteDeleted {
    /// The entry's id.
    pub fn id(&self) -> &EntryId {
        &self.id
    }
    /// Its label.
    pub fn label(&self) -> &str {
        &self.label
    }
}

#[derive(Serialize, Deserialize)]
enum Request {
    Status,
    Create {
        passphrase: SecretString,
        kdf: KdfChoice,
    },
    Unlock {
        passphrase: SecretString,
    },
    Lock,
    Entries,
    Reveal {
        id: EntryId,
    },
    TotpNow {
        id: EntryId,
    },
    AddEntry {
        origin: String,
        label: String,
        username: String,
        password: SecretString,
        totp: Option<Totp>,
    },
    UpdateEntry {
        id: EntryId,
        origin: String,
        label: String,
        username: String,
        password: Option<SecretString>,
        totp: TotpChange,
    },
    SetNotes {
        id: EntryId,
        notes: SecretString,
    },
    TakeEntry {
        id: EntryId,
    },
    RestoreEntry {
        undo: u64,
    },
    GenerateForHuman {
        policy: Policy,
    },
    PreviewImport {
        path: PathBuf,
    },
    ConfirmImport,
    CancelImport,
    Profile {
        name: String,
    },
    PutProfile {
        profile: Profile,
    },
    DeleteProfile {
        name: String,
    },
    AddAttachment {
        path: PathBuf,
        label: String,
        media_type: String,
    },
    RemoveAttachment {
        id: AttachmentId,
    },
    HumanOffers {
        page: String,
    },
    LoginStatus {
        page: String,
        username: String,
        password: SecretString,
    },
    SaveLogin {
        page: String,
        username: String,
        password: SecretString,
        update: Option<EntryId>,
    },
    // The agent's capabilities (the browser asks on its behalf).
    EntriesForOrigin {
        page: String,
    },
    GrantFill {
        entry: EntryId,
        page: String,
        target: FillTarget,
    },
    Redeem {
        grant: u64,
        frame: String,
        parts: Vec<LoginPart>,
    },
    FillValue {
        fill: u64,
        frame: String,
        part: LoginPart,
    },
    EndFill {
        fill: u64,
    },
    GeneratePassword {
        frame: String,
        label: String,
        username: Option<String>,
    },
    Profiles,
    PlanProfile {
        profile: String,
        fields: Vec<FieldDescriptor>,
    },
    GrantProfileFill {
        plan: u64,
        page: String,
    },
    RedeemProfile {
        grant: u64,
        frame: String,
        approved: Vec<String>,
    },
    ProfileValue {
        fill: u64,
        frame: String,
        field_ref: String,
    },
    Attachments,
    GrantAttachment {
        id: AttachmentId,
    },
    StageAttachment {
        grant: u64,
        dir: PathBuf,
    },
}

/// [`PasswordPolicy`] on the wire.
#[derive(Serialize, Deserialize)]
struct Policy {
    length: usize,
    lowercase: bool,
    uppercase: bool,
    digits: bool,
    symbols: bool,
    avoid_ambiguous: bool,
    require_each_class: bool,
}

impl From<&PasswordPolicy> for Policy {
    fn from(p: &PasswordPolicy) -> Self {
        Policy {
            length: p.length,
            lowercase: p.lowercase,
            uppercase: p.uppercase,
            digits: p.digits,
            symbols: p.symbols,
            avoid_ambiguous: p.avoid_ambiguous,
            require_each_class: p.require_each_class,
        }
    }
}

impl From<Policy> for PasswordPolicy {
    fn from(p: Policy) -> Self {
        PasswordPolicy {
            length: p.length,
            lowercase: p.lowercase,
            uppercase: p.uppercase,
            digits: p.digits,
            symbols: p.symbols,
            avoid_ambiguous: p.avoid_ambiguous,
            require_each_class: p.require_each_class,
        }
    }
}

#[derive(Serialize, Deserialize)]
enum Reply {
    Done,
    Status {
        exists: bool,
        unlocked: bool,
    },
    Entries(Vec<EntryInfo>),
    Totp {
        code: String,
        remaining: u64,
    },
    Entry(EntryId),
    Deleted {
        undo: u64,
        id: EntryId,
        label: String,
    },
    Password {
        password: SecretString,
        entropy_bits: f64,
    },
    Preview(ImportPreview),
    Imported {
        added: usize,
        duplicates: usize,
    },
    Profile(Profile),
    Attachment(AttachmentId),
    Offers(Vec<LoginOffer>),
    LoginStatus(LoginStatus),
    Summaries(Vec<EntrySummary>),
    Grant(u64),
    Fill(u64),
    Value(SecretString),
    Generated {
        id: EntryId,
        entropy_bits: f64,
        grant: u64,
    },
    Profiles(Vec<ProfileSummary>),
    Plan {
        plan: u64,
        rows: Vec<PlanRow>,
    },
    ProfileGrant {
        grant: u64,
        rows: Vec<ConsentRow>,
    },
    ProfileFill {
        fill: u64,
        refs: Vec<String>,
        skipped: Vec<String>,
    },
    Attachments(Vec<AttachmentSummary>),
    Staged(StagedAttachment),
}

type Answer = Result<Reply, RemoteError>;

fn write_frame<T: Serialize>(w: &mut impl Write, msg: &T) -> io::Result<()> {
    let body = Zeroizing::new(serde_json::to_vec(msg).map_err(io::Error::other)?);
    if body.len() > MAX_FRAME {
        return Err(io::Error::other("vault message too large"));
    }
    let mut frame = Zeroizing::new(Vec::with_capacity(body.len() + 4));
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(&body);
    w.write_all(&frame)?;
    w.flush()
}

/// The next message, or `None` at a clean end of stream (between messages).
fn read_frame<T: DeserializeOwned>(r: &mut impl Read) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other("vault message too large"));
    }
    let mut body = Zeroizing::new(vec![0u8; len]);
    r.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

// ---------------------------------------------------------------------------------------------
// The vault process.

/// What the vault process holds besides the vault: tickets it handed out.
struct Server {
    path: PathBuf,
    vault: Option<Vault>,
    next: u64,
    fills: BTreeMap<u64, FillGrant>,
    /// Redeemed fills, handed out a field at a time.
    open_fills: BTreeMap<u64, OpenFill>,
    /// Redeemed profile fills and their site, handed out a field at a time.
    open_profile_fills: BTreeMap<u64, (ProfileFill, crate::Site, std::time::Instant)>,
    profile_grants: BTreeMap<u64, ProfileGrant>,
    attachment_grants: BTreeMap<u64, AttachmentGrant>,
    plans: BTreeMap<u64, FillPlan>,
    undo: BTreeMap<u64, crate::DeletedEntry>,
    import: Option<CsvImport>,
}

/// A redeemed login fill: the values stay here until the browser asks for one field's.
struct OpenFill {
    secret: FillSecret,
    site: crate::Site,
    parts: Vec<LoginPart>,
    opened: std::time::Instant,
}

/// How long a redeemed fill hands out values: a fill types its fields within seconds; one the
/// browser never ended (its request was dropped) is not left open for later.
const OPEN_FILL_LIFE: Duration = Duration::from_secs(120);

fn keep<T>(map: &mut BTreeMap<u64, T>, id: u64, v: T) {
    map.insert(id, v);
    while map.len() > KEEP {
        map.pop_first();
    }
}

fn origin(s: &str) -> Result<Origin, RemoteError> {
    Origin::parse(s).map_err(|_| RemoteError::UnsupportedOrigin)
}

impl Server {
    fn new(path: PathBuf) -> Self {
        Server {
            path,
            vault: None,
            next: 1,
            fills: BTreeMap::new(),
            open_fills: BTreeMap::new(),
            open_profile_fills: BTreeMap::new(),
            profile_grants: BTreeMap::new(),
            attachment_grants: BTreeMap::new(),
            plans: BTreeMap::new(),
            undo: BTreeMap::new(),
            import: None,
        }
    }

    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// The vault, opened (locked) if its file appeared since.
    fn vault(&mut self) -> Result<&Vault, RemoteError> {
        if self.vault.is_none() {
            if !self.path.exists() {
                return Err(RemoteError::NoVault);
            }
            self.vault = Some(Vault::open(&self.path)?);
        }
        Ok(self.vault.as_ref().expect("just set"))
    }

    /// Forgets every ticket: after a lock none of them may be redeemed.
    fn forget(&mut self) {
        self.fills.clear();
        self.open_fills.clear();
        self.open_profile_fills.clear();
        self.profile_grants.clear();
        self.attachment_grants.clear();
        self.plans.clear();
        self.undo.clear();
        self.import = None;
    }

    fn handle(&mut self, req: Request) -> Answer {
        use Request as Q;
        // Fills the browser never ended drop their values once they can no longer be used.
        self.open_fills.retain(|_, f| f.opened.elapsed() < OPEN_FILL_LIFE);
        self.open_profile_fills
            .retain(|_, (_, _, opened)| opened.elapsed() < OPEN_FILL_LIFE);
        Ok(match req {
            Q::Status => {
                let unlocked = match self.vault() {
                    Ok(v) => v.is_unlocked(),
                    Err(RemoteError::NoVault) => false,
                    Err(e) => return Err(e),
                };
                Reply::Status {
                    exists: self.path.exists(),
                    unlocked,
                }
            }
            Q::Create { passphrase, kdf } => {
                let params = match kdf {
                    KdfChoice::Calibrate => KdfParams::calibrate(),
                    KdfChoice::InsecureFastForTests => KdfParams::insecure_fast_for_tests(),
                };
                let v = Vault::create_with_params(&self.path, passphrase.expose(), params)?;
                self.forget();
                self.vault = Some(v);
                Reply::Done
            }
            Q::Unlock { passphrase } => {
                self.vault()?.unlock(passphrase.expose())?;
                Reply::Done
            }
            Q::Lock => {
                if let Some(v) = &self.vault {
                    v.lock();
                }
                self.forget();
                Reply::Done
            }
            Q::Entries => Reply::Entries(self.vault()?.entries()?),
            Q::Reveal { id } => {
                let r = self.vault()?.reveal_for_human(&id)?;
                Reply::Value(SecretString::new(r.password()))
            }
            Q::TotpNow { id } => {
                let (code, remaining) = self.vault()?.totp_now(&id)?;
                Reply::Totp { code, remaining }
            }
            Q::AddEntry {
                origin: o,
                label,
                username,
                password,
                totp,
            } => {
                let o = Origin::parse(&o).map_err(|e| RemoteError::Other(e.to_string()))?;
                Reply::Entry(self.vault()?.add_entry(NewEntry {
                    origin: &o,
                    label: &label,
                    username: &username,
                    password,
                    totp,
                })?)
            }
            Q::UpdateEntry {
                id,
                origin: o,
                label,
                username,
                password,
                totp,
            } => {
                let o = Origin::parse(&o).map_err(|e| RemoteError::Other(e.to_string()))?;
                self.vault()?.update_entry(
                    &id,
                    crate::EntryEdit {
                        origin: &o,
                        label: &label,
                        username: &username,
                        password,
                        totp: match totp {
                            TotpChange::Keep => crate::TotpEdit::Keep,
                            TotpChange::Remove => crate::TotpEdit::Remove,
                            TotpChange::Set(t) => crate::TotpEdit::Set(t),
                        },
                    },
                )?;
                Reply::Done
            }
            Q::SetNotes { id, notes } => {
                self.vault()?.set_notes(&id, notes.expose())?;
                Reply::Done
            }
            Q::TakeEntry { id } => {
                let d = self.vault()?.take_entry(&id)?;
                let (id, label) = (d.id().clone(), d.label().to_owned());
                let undo = self.id();
                keep(&mut self.undo, undo, d);
                Reply::Deleted { undo, id, label }
            }
            Q::RestoreEntry { undo } => {
                let d = self.undo.remove(&undo).ok_or(RemoteError::NotFound)?;
                Reply::Entry(self.vault()?.restore_entry(d)?)
            }
            Q::GenerateForHuman { policy } => {
                let g = self.vault()?.generate_for_human(&policy.into())?;
                Reply::Password {
                    password: SecretString::new(g.password()),
                    entropy_bits: g.entropy_bits(),
                }
            }
            Q::PreviewImport { path } => {
                let i = read_export(&path).map_err(RemoteError::Other)?;
                let preview = ImportPreview {
                    format: i.format().name().to_owned(),
                    ready: i.ready(),
                    problems: i.problems().iter().map(|p| (p.line, p.reason.clone())).collect(),
                };
                self.import = Some(i);
                Reply::Preview(preview)
            }
            Q::ConfirmImport => {
                let i = self.import.take().ok_or(RemoteError::NotFound)?;
                let ImportOutcome { added, duplicates } = self.vault()?.import_logins(i)?;
                Reply::Imported { added, duplicates }
            }
            Q::CancelImport => {
                self.import = None;
                Reply::Done
            }
            Q::Profile { name } => Reply::Profile(self.vault()?.profile(&name)?),
            Q::PutProfile { profile } => {
                self.vault()?.put_profile(profile)?;
                Reply::Done
            }
            Q::DeleteProfile { name } => {
                self.vault()?.delete_profile(&name)?;
                Reply::Done
            }
            Q::AddAttachment {
                path,
                label,
                media_type,
            } => Reply::Attachment(self.vault()?.add_attachment(&path, &label, &media_type)?),
            Q::RemoveAttachment { id } => {
                self.vault()?.remove_attachment(&id)?;
                Reply::Done
            }
            Q::HumanOffers { page } => {
                let page = origin(&page)?;
                let v = self.vault()?;
                let found = v.agent_view().entries_for_origin(&page)?;
                let all = v.entries()?;
                Reply::Offers(
                    found
                        .into_iter()
                        .map(|e| LoginOffer {
                            username: all
                                .iter()
                                .find(|x| x.id == e.id)
                                .map(|x| x.username.clone())
                                .unwrap_or_default(),
                            id: e.id,
                            label: e.label,
                        })
                        .collect(),
                )
            }
            Q::LoginStatus {
                page,
                username,
                password,
            } => {
                let page = origin(&page)?;
                let v = self.vault()?;
                let mut status = LoginStatus::New;
                for e in v.agent_view().entries_for_origin(&page)? {
                    let Ok(r) = v.reveal_for_human(&e.id) else {
                        continue;
                    };
                    if r.username() == username {
                        status = if r.password() == password.expose() {
                            LoginStatus::Saved
                        } else {
                            LoginStatus::Changed(e.id)
                        };
                        break;
                    }
                }
                Reply::LoginStatus(status)
            }
            Q::SaveLogin {
                page,
                username,
                password,
                update,
            } => {
                let page = origin(&page)?;
                let v = self.vault()?;
                let label = page.host().to_string();
                match update {
                    Some(id) => {
                        let old = v.reveal_for_human(&id)?;
                        let label = v
                            .entries()?
                            .into_iter()
                            .find(|e| e.id == id)
                            .map(|e| e.label)
                            .unwrap_or(label);
                        v.update_entry(
                            &id,
                            crate::EntryEdit {
                                origin: &page,
                                label: &label,
                                username: old.username(),
                                password: Some(password),
                                totp: crate::TotpEdit::Keep,
                            },
                        )?;
                        Reply::Entry(id)
                    }
                    None => Reply::Entry(v.add_entry(NewEntry {
                        origin: &page,
                        label: &label,
                        username: &username,
                        password,
                        totp: None,
                    })?),
                }
            }
            Q::EntriesForOrigin { page } => {
                let page = origin(&page)?;
                Reply::Summaries(self.vault()?.agent_view().entries_for_origin(&page)?)
            }
            Q::GrantFill { entry, page, target } => {
                let page = origin(&page)?;
                let g = self.vault()?.agent_view().request_fill(&entry, &page, target)?;
                let id = self.id();
                keep(&mut self.fills, id, g);
                Reply::Grant(id)
            }
            Q::Redeem { grant, frame, parts } => {
                let g = self.fills.remove(&grant).ok_or(RemoteError::GrantInvalid)?;
                let frame = origin(&frame)?;
                let secret = self.vault()?.filler().redeem(g, &frame)?;
                // Every part is checked now, so a fill that cannot finish types nothing.
                if parts.iter().any(|p| part_of(&secret, *p).is_none()) {
                    return Err(RemoteError::NoValue);
                }
                let id = self.id();
                keep(
                    &mut self.open_fills,
                    id,
                    OpenFill {
                        secret,
                        site: frame.site(),
                        parts,
                        opened: std::time::Instant::now(),
                    },
                );
                Reply::Fill(id)
            }
            Q::FillValue { fill, frame, part } => {
                let f = self
                    .open_fills
                    .get(&fill)
                    .filter(|f| f.opened.elapsed() < OPEN_FILL_LIFE)
                    .ok_or(RemoteError::GrantInvalid)?;
                // The frame that has focus now, checked again for every field.
                if origin(&frame)?.site() != f.site {
                    return Err(RemoteError::OriginMismatch);
                }
                if !f.parts.contains(&part) {
                    return Err(RemoteError::GrantInvalid);
                }
                let v = part_of(&f.secret, part).ok_or(RemoteError::NoValue)?;
                Reply::Value(SecretString::new(v))
            }
            Q::EndFill { fill } => {
                self.open_fills.remove(&fill);
                self.open_profile_fills.remove(&fill);
                Reply::Done
            }
            Q::GeneratePassword {
                frame,
                label,
                username,
            } => {
                let frame = origin(&frame)?;
                let made = self.vault()?.agent_view().generate_password(
                    &frame,
                    &label,
                    username.as_deref(),
                    &PasswordPolicy::default(),
                )?;
                let grant = self.id();
                keep(&mut self.fills, grant, made.grant);
                Reply::Generated {
                    id: made.id,
                    entropy_bits: made.entropy_bits,
                    grant,
                }
            }
            Q::Profiles => Reply::Profiles(self.vault()?.agent_view().profiles()?),
            Q::PlanProfile { profile, fields } => {
                let plan = self.vault()?.agent_view().plan_profile_fill(&profile, &fields)?;
                let rows = plan
                    .items()
                    .iter()
                    .map(|i| PlanRow {
                        field_ref: i.field_ref().to_owned(),
                        label: i.display_label().to_owned(),
                        field: i.field(),
                        confidence: i.confidence(),
                        decision: i.decision(),
                        sensitive: i.is_sensitive(),
                    })
                    .collect();
                let id = self.id();
                keep(&mut self.plans, id, plan);
                Reply::Plan { plan: id, rows }
            }
            Q::GrantProfileFill { plan, page } => {
                let page = origin(&page)?;
                let p = self.plans.remove(&plan).ok_or(RemoteError::GrantInvalid)?;
                let g = self.vault()?.agent_view().request_profile_fill(&p, &page)?;
                let rows = g.rows().to_vec();
                let id = self.id();
                keep(&mut self.profile_grants, id, g);
                Reply::ProfileGrant { grant: id, rows }
            }
            Q::RedeemProfile {
                grant,
                frame,
                approved,
            } => {
                let g = self
                    .profile_grants
                    .remove(&grant)
                    .ok_or(RemoteError::GrantInvalid)?;
                let frame = origin(&frame)?;
                let fill =
                    self.vault()?
                        .filler()
                        .redeem_profile(g, &frame, &ProfileApproval::rows(approved))?;
                let refs = fill.values().map(|(r, _)| r.to_owned()).collect();
                let skipped = fill.skipped().to_vec();
                let id = self.id();
                keep(
                    &mut self.open_profile_fills,
                    id,
                    (fill, frame.site(), std::time::Instant::now()),
                );
                Reply::ProfileFill {
                    fill: id,
                    refs,
                    skipped,
                }
            }
            Q::ProfileValue {
                fill,
                frame,
                field_ref,
            } => {
                let (f, site, _) = self
                    .open_profile_fills
                    .get(&fill)
                    .filter(|(_, _, opened)| opened.elapsed() < OPEN_FILL_LIFE)
                    .ok_or(RemoteError::GrantInvalid)?;
                if origin(&frame)?.site() != *site {
                    return Err(RemoteError::OriginMismatch);
                }
                let v = f
                    .values()
                    .find(|(r, _)| *r == field_ref)
                    .map(|(_, v)| v)
                    .ok_or(RemoteError::GrantInvalid)?;
                Reply::Value(SecretString::new(v))
            }
            Q::Attachments => Reply::Attachments(self.vault()?.agent_view().attachments()?),
            Q::GrantAttachment { id } => {
                let g = self.vault()?.agent_view().request_attachment(&id)?;
                let gid = self.id();
                keep(&mut self.attachment_grants, gid, g);
                Reply::Grant(gid)
            }
            Q::StageAttachment { grant, dir } => {
                let g = self
                    .attachment_grants
                    .remove(&grant)
                    .ok_or(RemoteError::GrantInvalid)?;
                let data = self.vault()?.filler().redeem_attachment(g)?;
                let path = dir.join(aperture_common::fs::safe_file_name(&data.file_name));
                aperture_common::fs::create_private_dir_all(&dir)
                    .and_then(|()| aperture_common::fs::write_atomic(&path, &data.bytes))
                    .map_err(|e| RemoteError::Other(format!("could not stage the upload: {e}")))?;
                Reply::Staged(StagedAttachment {
                    path,
                    file_name: data.file_name.clone(),
                    media_type: data.media_type.clone(),
                    size: data.bytes.len() as u64,
                })
            }
        })
    }
}

fn part_of(s: &FillSecret, p: LoginPart) -> Option<&str> {
    match p {
        LoginPart::Username => s.username(),
        LoginPart::Password => s.password(),
        LoginPart::OneTimeCode => s.one_time_code(),
    }
}

/// Reads and parses a password manager's CSV export for the import preview.
fn read_export(path: &Path) -> Result<CsvImport, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("Cannot read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a file."));
    }
    if meta.len() > MAX_CSV_BYTES as u64 {
        return Err(format!("{shown} is too large to be a password export."));
    }
    let bytes = Zeroizing::new(std::fs::read(path).map_err(|e| format!("Cannot read {shown}: {e}"))?);
    let text = std::str::from_utf8(&bytes).map_err(|_| format!("{shown} is not UTF-8 text."))?;
    CsvImport::parse(text).map_err(|e| format!("{shown}: {e}"))
}

/// Serves the vault at `path` over `stream` until the peer closes it; then locks. Returns
/// an error when the stream fails or carries something that is not a request.
pub fn serve(path: &Path, stream: &mut (impl Read + Write)) -> io::Result<()> {
    let mut server = Server::new(path.to_owned());
    // The browser leaving (closing the channel or dying) mid-request is an ordinary end: the
    // request was carried out, there is nobody to tell.
    let gone = |e: &io::Error| {
        matches!(
            e.kind(),
            io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
        )
    };
    let result = loop {
        let req: Request = match read_frame(stream) {
            Ok(Some(r)) => r,
            Ok(None) => break Ok(()),
            Err(e) if gone(&e) => break Ok(()),
            Err(e) => break Err(e),
        };
        let answer = server.handle(req);
        match write_frame(stream, &answer) {
            Ok(()) => {}
            Err(e) if gone(&e) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    if let Some(v) = &server.vault {
        v.lock();
    }
    result
}

/// The vault process's main: serves the vault at `path` over the socket it was given as stdin
/// (see the module docs). Refuses a stdin that is not a socket (someone ran the hidden
/// subcommand by hand).
pub fn serve_stdin(path: &Path) -> io::Result<()> {
    let fd: OwnedFd = io::stdin().as_fd().try_clone_to_owned()?;
    let mut stream = UnixStream::from(fd);
    // A terminal or a file is not a socket: the query fails.
    stream
        .local_addr()
        .map_err(|_| io::Error::other("the vault process serves only the browser that started it"))?;
    serve(path, &mut stream)
}

// ---------------------------------------------------------------------------------------------
// The browser's side.

struct Conn {
    stream: UnixStream,
    child: Option<Child>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        if let Some(mut c) = self.child.take() {
            // EOF makes it exit; a stuck one is killed so it cannot linger.
            for _ in 0..50 {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// How a new vault process is started: the command (the app's own binary with the hidden
/// subcommand, or a test binary); its stdin is replaced by the channel.
pub type Launcher = Box<dyn Fn() -> Command + Send + Sync>;

/// The browser's handle on the vault process. Requests are serialized (one in flight);
/// a dead or stuck process fails the request in flight with [`RemoteError::Gone`] and is
/// replaced, locked, on the next request.
pub struct RemoteVault {
    launch: Option<Launcher>,
    conn: Mutex<Option<Conn>>,
    restarts: std::sync::atomic::AtomicU32,
    /// [`CALL_TIMEOUT`], shorter in tests.
    call_timeout: Duration,
}

impl std::fmt::Debug for RemoteVault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RemoteVault")
    }
}

fn spawn(launch: &Launcher) -> io::Result<Conn> {
    let (ours, theirs) = UnixStream::pair()?;
    ours.set_read_timeout(Some(CALL_TIMEOUT))?;
    ours.set_write_timeout(Some(CALL_TIMEOUT))?;
    let child = launch()
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .spawn()?;
    Ok(Conn {
        stream: ours,
        child: Some(child),
    })
}

impl RemoteVault {
    /// Starts a vault process with `launch` (and again with it whenever one is gone).
    pub fn start(launch: Launcher) -> io::Result<Self> {
        let conn = spawn(&launch)?;
        Ok(RemoteVault {
            launch: Some(launch),
            conn: Mutex::new(Some(conn)),
            restarts: Default::default(),
            call_timeout: CALL_TIMEOUT,
        })
    }

    /// A client over an already connected stream (the vault served by a thread, in tests).
    /// It is not restarted when the stream fails.
    pub fn over(stream: UnixStream) -> Self {
        RemoteVault {
            launch: None,
            conn: Mutex::new(Some(Conn { stream, child: None })),
            restarts: Default::default(),
            call_timeout: CALL_TIMEOUT,
        }
    }

    /// Waits at most `d` for an answer other than an unlock's or a create's (tests).
    pub fn with_call_timeout(mut self, d: Duration) -> Self {
        self.call_timeout = d;
        self
    }

    /// How many times a vault process was started again after one was lost.
    pub fn restarts(&self) -> u32 {
        self.restarts.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The vault process's pid, if it runs (tests kill it).
    pub fn pid(&self) -> Option<u32> {
        let g = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        g.as_ref()?.child.as_ref().map(|c| c.id())
    }

    fn call(&self, req: &Request) -> Answer {
        let mut g = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            let Some(launch) = &self.launch else {
                return Err(RemoteError::Gone);
            };
            self.restarts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            *g = Some(
                spawn(launch)
                    .map_err(|e| RemoteError::Other(format!("cannot start the vault process: {e}")))?,
            );
        }
        let conn = g.as_mut().expect("just set");
        let wait = match req {
            Request::Create { .. } | Request::Unlock { .. } => KDF_TIMEOUT,
            _ => self.call_timeout,
        };
        if conn.stream.set_read_timeout(Some(wait)).is_err() {
            *g = None;
            return Err(RemoteError::Gone);
        }
        let sent = write_frame(&mut conn.stream, req);
        let got = sent.and_then(|()| read_frame::<Answer>(&mut conn.stream));
        match got {
            Ok(Some(a)) => a,
            Ok(None) | Err(_) => {
                // Dropping it closes the channel and reaps (or kills) the process.
                *g = None;
                Err(RemoteError::Gone)
            }
        }
    }

    /// Whether a vault file exists and whether it is unlocked.
    pub fn status(&self) -> Result<(bool, bool), RemoteError> {
        match self.call(&Request::Status)? {
            Reply::Status { exists, unlocked } => Ok((exists, unlocked)),
            _ => Err(unexpected()),
        }
    }

    /// Whether the vault is unlocked (false when absent or unreachable).
    pub fn is_unlocked(&self) -> bool {
        self.status().is_ok_and(|(_, u)| u)
    }

    /// Creates the vault file, unlocked.
    pub fn create(&self, passphrase: &str, kdf: KdfChoice) -> Result<(), RemoteError> {
        done(self.call(&Request::Create {
            passphrase: passphrase.into(),
            kdf,
        }))
    }

    /// Unlocks with the passphrase (which crosses the channel; the browser keeps no key).
    pub fn unlock(&self, passphrase: &str) -> Result<(), RemoteError> {
        done(self.call(&Request::Unlock {
            passphrase: passphrase.into(),
        }))
    }

    /// Locks: the vault process wipes its key and forgets every ticket.
    pub fn lock(&self) -> Result<(), RemoteError> {
        done(self.call(&Request::Lock))
    }

    /// Every entry, for the vault window (no secrets).
    pub fn entries(&self) -> Result<Vec<EntryInfo>, RemoteError> {
        match self.call(&Request::Entries)? {
            Reply::Entries(e) => Ok(e),
            _ => Err(unexpected()),
        }
    }

    /// One entry's password, for the human who clicked Reveal or Copy in the vault window
    /// (the username is in [`RemoteVault::entries`]).
    pub fn password_for_human(&self, id: &EntryId) -> Result<FillValue, RemoteError> {
        match self.call(&Request::Reveal { id: id.clone() })? {
            Reply::Value(v) => Ok(FillValue(v)),
            _ => Err(unexpected()),
        }
    }

    /// The entry's current TOTP code and the seconds it has left.
    pub fn totp_now(&self, id: &EntryId) -> Result<(String, u64), RemoteError> {
        match self.call(&Request::TotpNow { id: id.clone() })? {
            Reply::Totp { code, remaining } => Ok((code, remaining)),
            _ => Err(unexpected()),
        }
    }

    /// Adds a login.
    pub fn add_entry(&self, new: NewEntry<'_>) -> Result<EntryId, RemoteError> {
        entry(self.call(&Request::AddEntry {
            origin: new.origin.to_string(),
            label: new.label.to_owned(),
            username: new.username.to_owned(),
            password: new.password,
            totp: new.totp,
        }))
    }

    /// Replaces an entry's fields.
    pub fn update_entry(
        &self,
        id: &EntryId,
        origin: &Origin,
        label: &str,
        username: &str,
        password: Option<SecretString>,
        totp: TotpChange,
    ) -> Result<(), RemoteError> {
        done(self.call(&Request::UpdateEntry {
            id: id.clone(),
            origin: origin.to_string(),
            label: label.to_owned(),
            username: username.to_owned(),
            password,
            totp,
        }))
    }

    /// Replaces an entry's notes.
    pub fn set_notes(&self, id: &EntryId, notes: &str) -> Result<(), RemoteError> {
        done(self.call(&Request::SetNotes {
            id: id.clone(),
            notes: notes.into(),
        }))
    }

    /// Deletes an entry; the vault process keeps it for [`RemoteVault::restore_entry`].
    pub fn take_entry(&self, id: &EntryId) -> Result<RemoteDeleted, RemoteError> {
        match self.call(&Request::TakeEntry { id: id.clone() })? {
            Reply::Deleted { undo, id, label } => Ok(RemoteDeleted { undo, id, label }),
            _ => Err(unexpected()),
        }
    }

    /// Puts back an entry deleted with [`RemoteVault::take_entry`].
    pub fn restore_entry(&self, d: RemoteDeleted) -> Result<EntryId, RemoteError> {
        entry(self.call(&Request::RestoreEntry { undo: d.undo }))
    }

    /// A new random password for the human's generator.
    pub fn generate_for_human(&self, policy: &PasswordPolicy) -> Result<Generated, RemoteError> {
        match self.call(&Request::GenerateForHuman {
            policy: policy.into(),
        })? {
            Reply::Password {
                password,
                entropy_bits,
            } => Ok(Generated {
                password,
                entropy_bits,
            }),
            _ => Err(unexpected()),
        }
    }

    /// Has the vault process read and parse the export at `path`; it keeps the logins until
    /// [`RemoteVault::confirm_import`] or [`RemoteVault::cancel_import`].
    pub fn preview_import(&self, path: &Path) -> Result<ImportPreview, RemoteError> {
        match self.call(&Request::PreviewImport {
            path: path.to_owned(),
        })? {
            Reply::Preview(p) => Ok(p),
            _ => Err(unexpected()),
        }
    }

    /// Saves the previewed export in one write.
    pub fn confirm_import(&self) -> Result<ImportOutcome, RemoteError> {
        match self.call(&Request::ConfirmImport)? {
            Reply::Imported { added, duplicates } => Ok(ImportOutcome { added, duplicates }),
            _ => Err(unexpected()),
        }
    }

    /// Drops the previewed export.
    pub fn cancel_import(&self) -> Result<(), RemoteError> {
        done(self.call(&Request::CancelImport))
    }

    /// A profile with its values, for the human's window.
    pub fn profile(&self, name: &str) -> Result<Profile, RemoteError> {
        match self.call(&Request::Profile {
            name: name.to_owned(),
        })? {
            Reply::Profile(p) => Ok(p),
            _ => Err(unexpected()),
        }
    }

    /// Adds or replaces a profile.
    pub fn put_profile(&self, profile: Profile) -> Result<(), RemoteError> {
        done(self.call(&Request::PutProfile { profile }))
    }

    /// Deletes a profile.
    pub fn delete_profile(&self, name: &str) -> Result<(), RemoteError> {
        done(self.call(&Request::DeleteProfile {
            name: name.to_owned(),
        }))
    }

    /// Copies the file the human picked into the library (the vault process reads it).
    pub fn add_attachment(
        &self,
        path: &Path,
        label: &str,
        media_type: &str,
    ) -> Result<AttachmentId, RemoteError> {
        match self.call(&Request::AddAttachment {
            path: path.to_owned(),
            label: label.to_owned(),
            media_type: media_type.to_owned(),
        })? {
            Reply::Attachment(a) => Ok(a),
            _ => Err(unexpected()),
        }
    }

    /// Removes a library file.
    pub fn remove_attachment(&self, id: &AttachmentId) -> Result<(), RemoteError> {
        done(self.call(&Request::RemoveAttachment { id: id.clone() }))
    }

    /// Saved logins for the human's autofill on `page` (no passwords).
    pub fn human_offers(&self, page: &Origin) -> Result<Vec<LoginOffer>, RemoteError> {
        match self.call(&Request::HumanOffers {
            page: page.to_string(),
        })? {
            Reply::Offers(o) => Ok(o),
            _ => Err(unexpected()),
        }
    }

    /// Whether a login the human submitted on `page` is saved, new, or changed. The password
    /// came from the page the human typed it into; it is compared in the vault process.
    pub fn login_status(
        &self,
        page: &Origin,
        username: &str,
        password: &str,
    ) -> Result<LoginStatus, RemoteError> {
        match self.call(&Request::LoginStatus {
            page: page.to_string(),
            username: username.to_owned(),
            password: password.into(),
        })? {
            Reply::LoginStatus(s) => Ok(s),
            _ => Err(unexpected()),
        }
    }

    /// Saves the human's submitted login, or updates entry `update`'s password.
    pub fn save_login(
        &self,
        page: &Origin,
        username: &str,
        password: &str,
        update: Option<&EntryId>,
    ) -> Result<EntryId, RemoteError> {
        entry(self.call(&Request::SaveLogin {
            page: page.to_string(),
            username: username.to_owned(),
            password: password.into(),
            update: update.cloned(),
        }))
    }

    /// The agent's list for `page`'s site: ids and labels.
    pub fn entries_for_origin(&self, page: &Origin) -> Result<Vec<EntrySummary>, RemoteError> {
        match self.call(&Request::EntriesForOrigin {
            page: page.to_string(),
        })? {
            Reply::Summaries(s) => Ok(s),
            _ => Err(unexpected()),
        }
    }

    /// A grant to fill `entry` on `page` (see [`crate::AgentView::request_fill`]).
    pub fn request_fill(
        &self,
        entry: &EntryId,
        page: &Origin,
        target: FillTarget,
    ) -> Result<RemoteGrant, RemoteError> {
        grant(self.call(&Request::GrantFill {
            entry: entry.clone(),
            page: page.to_string(),
            target,
        }))
    }

    /// Redeems `grant` for the frame about to be typed into (refused if it is not of the
    /// granted site, or if the entry lacks one of `parts`). No value comes back yet: the
    /// vault process keeps the fill and hands out one field's value at a time
    /// ([`RemoteVault::fill_value`]), only of `parts`.
    pub fn redeem(
        &self,
        grant: RemoteGrant,
        frame: &Origin,
        parts: &[LoginPart],
    ) -> Result<RemoteFill, RemoteError> {
        match self.call(&Request::Redeem {
            grant: grant.0,
            frame: frame.to_string(),
            parts: parts.to_vec(),
        })? {
            Reply::Fill(id) => Ok(RemoteFill(id)),
            _ => Err(unexpected()),
        }
    }

    /// The value of `part` for the field about to be typed, in `frame` (the frame that has
    /// focus now; refused unless it is of the fill's site).
    pub fn fill_value(
        &self,
        fill: RemoteFill,
        frame: &Origin,
        part: LoginPart,
    ) -> Result<FillValue, RemoteError> {
        match self.call(&Request::FillValue {
            fill: fill.0,
            frame: frame.to_string(),
            part,
        })? {
            Reply::Value(v) => Ok(FillValue(v)),
            _ => Err(unexpected()),
        }
    }

    /// Ends a fill: the vault process drops its values.
    pub fn end_fill(&self, fill: RemoteFill) -> Result<(), RemoteError> {
        done(self.call(&Request::EndFill { fill: fill.0 }))
    }

    /// Generates a password for a sign-up on `frame`, saves it there, and returns a grant to
    /// type it.
    pub fn generate_password(
        &self,
        frame: &Origin,
        label: &str,
        username: Option<&str>,
    ) -> Result<RemoteGenerated, RemoteError> {
        match self.call(&Request::GeneratePassword {
            frame: frame.to_string(),
            label: label.to_owned(),
            username: username.map(str::to_owned),
        })? {
            Reply::Generated {
                id,
                entropy_bits,
                grant,
            } => Ok(RemoteGenerated {
                id,
                entropy_bits,
                grant: RemoteGrant(grant),
            }),
            _ => Err(unexpected()),
        }
    }

    /// Profile names and sizes.
    pub fn profiles(&self) -> Result<Vec<ProfileSummary>, RemoteError> {
        match self.call(&Request::Profiles)? {
            Reply::Profiles(p) => Ok(p),
            _ => Err(unexpected()),
        }
    }

    /// Plans a profile fill over `fields` (the plan stays in the vault process).
    pub fn plan_profile_fill(
        &self,
        profile: &str,
        fields: &[FieldDescriptor],
    ) -> Result<RemotePlan, RemoteError> {
        match self.call(&Request::PlanProfile {
            profile: profile.to_owned(),
            fields: fields.to_vec(),
        })? {
            Reply::Plan { plan, rows } => Ok(RemotePlan { id: plan, rows }),
            _ => Err(unexpected()),
        }
    }

    /// A grant for `plan` on `page`, with the rows the human must approve.
    pub fn request_profile_fill(
        &self,
        plan: RemotePlan,
        page: &Origin,
    ) -> Result<RemoteProfileGrant, RemoteError> {
        match self.call(&Request::GrantProfileFill {
            plan: plan.id,
            page: page.to_string(),
        })? {
            Reply::ProfileGrant { grant, rows } => Ok(RemoteProfileGrant {
                grant: RemoteGrant(grant),
                rows,
            }),
            _ => Err(unexpected()),
        }
    }

    /// Redeems a profile grant with the rows the human approved (see
    /// [`crate::Filler::redeem_profile`]): which refs will be filled and which are skipped.
    /// The values stay in the vault process until [`RemoteVault::profile_value`] asks for one.
    pub fn redeem_profile(
        &self,
        grant: RemoteProfileGrant,
        frame: &Origin,
        approved: Vec<String>,
    ) -> Result<RemoteProfileFill, RemoteError> {
        match self.call(&Request::RedeemProfile {
            grant: grant.grant.0,
            frame: frame.to_string(),
            approved,
        })? {
            Reply::ProfileFill { fill, refs, skipped } => Ok(RemoteProfileFill {
                fill: RemoteFill(fill),
                refs,
                skipped,
            }),
            _ => Err(unexpected()),
        }
    }

    /// The value for the profile fill's field `field_ref`, about to be typed into `frame`
    /// (refused unless it is of the fill's site). End it with [`RemoteVault::end_fill`].
    pub fn profile_value(
        &self,
        fill: RemoteFill,
        frame: &Origin,
        field_ref: &str,
    ) -> Result<FillValue, RemoteError> {
        match self.call(&Request::ProfileValue {
            fill: fill.0,
            frame: frame.to_string(),
            field_ref: field_ref.to_owned(),
        })? {
            Reply::Value(v) => Ok(FillValue(v)),
            _ => Err(unexpected()),
        }
    }

    /// The library's files (no contents).
    pub fn attachments(&self) -> Result<Vec<AttachmentSummary>, RemoteError> {
        match self.call(&Request::Attachments)? {
            Reply::Attachments(a) => Ok(a),
            _ => Err(unexpected()),
        }
    }

    /// A grant to upload library file `id`.
    pub fn request_attachment(&self, id: &AttachmentId) -> Result<RemoteGrant, RemoteError> {
        grant(self.call(&Request::GrantAttachment { id: id.clone() }))
    }

    /// Has the vault process decrypt the granted file into `dir` (created 0700; the file
    /// 0600) and say where it is.
    pub fn stage_attachment(&self, grant: RemoteGrant, dir: &Path) -> Result<StagedAttachment, RemoteError> {
        match self.call(&Request::StageAttachment {
            grant: grant.0,
            dir: dir.to_owned(),
        })? {
            Reply::Staged(s) => Ok(s),
            _ => Err(unexpected()),
        }
    }
}

/// A redeemed profile fill held by the vault process: which fields it fills.
#[derive(Debug)]
pub struct RemoteProfileFill {
    /// The ticket for [`RemoteVault::profile_value`] and [`RemoteVault::end_fill`].
    pub fill: RemoteFill,
    /// The refs to fill, in order.
    pub refs: Vec<String>,
    /// Refs skipped for lack of approval or value (report these to the agent).
    pub skipped: Vec<String>,
}

/// A redeemed login fill held by the vault process (a ticket; no value inside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteFill(u64);

/// One field's value, to type now. Zeroized on drop; `Debug` is redacted.
pub struct FillValue(SecretString);

impl std::fmt::Debug for FillValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FillValue(<redacted>)")
    }
}

impl FillValue {
    /// The value.
    pub fn as_str(&self) -> &str {
        self.0.expose()
    }
}

fn unexpected() -> RemoteError {
    RemoteError::Other("the vault process answered something else than asked".into())
}

fn done(a: Answer) -> Result<(), RemoteError> {
    match a? {
        Reply::Done => Ok(()),
        _ => Err(unexpected()),
    }
}

fn entry(a: Answer) -> Result<EntryId, RemoteError> {
    match a? {
        Reply::Entry(e) => Ok(e),
        _ => Err(unexpected()),
    }
}

fn grant(a: Answer) -> Result<RemoteGrant, RemoteError> {
    match a? {
        Reply::Grant(g) => Ok(RemoteGrant(g)),
        _ => Err(unexpected()),
    }
}
