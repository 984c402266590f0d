//! Shared, crate-private state behind [`crate::Vault`], [`crate::AgentView`] and
//! [`crate::Filler`]. Nothing here is public: the three capability types are the only ways in.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::error::VaultError;
use crate::file::{self, KeyHeader};
use crate::kdf::MasterKey;
use crate::origin::Site;
use crate::profiles::{Profile, ProfileField};
use crate::secret::SecretString;
use crate::totp::Totp;

/// How long an issued grant stays redeemable. Long enough for a native consent dialog, short
/// enough that a grant cannot be banked for later.
pub(crate) const GRANT_TTL: Duration = Duration::from_secs(120);

/// Identifier of a login entry. Random, so ids carry no information about other entries.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EntryId(pub(crate) String);

/// Identifier of an attachment in the library.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AttachmentId(pub(crate) String);

macro_rules! id_impl {
    ($t:ident, $prefix:literal) => {
        impl $t {
            /// Parses an id as the agent passes it back. Only the shape is checked; whether it
            /// names anything is decided (opaquely) by the operation using it.
            pub fn parse(s: &str) -> Option<Self> {
                let s = s.trim();
                let ok = s.len() == 17
                    && s.starts_with($prefix)
                    && s[1..]
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
                ok.then(|| Self(s.to_owned()))
            }
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
            pub(crate) fn random() -> Self {
                let r = file::random_bytes::<8>();
                Self(format!("{}{}", $prefix, hex(&r)))
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}
id_impl!(EntryId, "e");
id_impl!(AttachmentId, "a");

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub id: EntryId,
    pub site: Site,
    /// The origin the entry was saved from, shown to the human.
    pub origin: String,
    pub label: String,
    pub username: SecretString,
    pub password: SecretString,
    #[serde(default)]
    pub totp: Option<Totp>,
    #[serde(default)]
    pub notes: SecretString,
    pub created: u64,
    pub updated: u64,
}

#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct AttachmentMeta {
    pub id: AttachmentId,
    pub label: String,
    pub file_name: String,
    pub media_type: String,
    pub size: u64,
    pub added: u64,
}

/// Everything sealed inside the vault file. Unknown fields from a newer minor revision are
/// rejected by the format version check before we get here.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Payload {
    #[serde(default)]
    pub entries: Vec<Entry>,
    #[serde(default)]
    pub profiles: Vec<Profile>,
    #[serde(default)]
    pub attachments: Vec<AttachmentMeta>,
    /// Random key for attachment files, so a passphrase change does not have to re-encrypt
    /// every attachment (and cannot half-fail doing so).
    pub attachment_key: SecretString,
}

impl Payload {
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            profiles: Vec::new(),
            attachments: Vec::new(),
            attachment_key: SecretString::new(hex(&file::random_bytes::<32>())),
        }
    }

    pub fn attachment_key_bytes(&self) -> Zeroizing<[u8; 32]> {
        let mut k = Zeroizing::new([0u8; 32]);
        let s = self.attachment_key.expose().as_bytes();
        for (i, out) in k.iter_mut().enumerate() {
            let pair = std::str::from_utf8(&s[2 * i..2 * i + 2]).unwrap_or("00");
            *out = u8::from_str_radix(pair, 16).unwrap_or(0);
        }
        k
    }
}

pub(crate) struct Unlocked {
    pub key: MasterKey,
    pub kh: KeyHeader,
    /// Generation of the file as last read or written; the next save writes one more.
    pub generation: u64,
    pub payload: Payload,
}

/// What a fill grant was issued for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FillTarget {
    /// Username and password into a login form.
    Login,
    /// The entry's current TOTP code into a one-time-code field.
    OneTimeCode,
    /// Only the password (e.g. a new-password field after generation).
    Password,
}

pub(crate) struct ProfileRow {
    pub field_ref: String,
    pub field: ProfileField,
    pub select_value: Option<SecretString>,
    pub needs_approval: bool,
}

pub(crate) enum GrantRecord {
    Login {
        entry: EntryId,
        site: Site,
        target: FillTarget,
    },
    Profile {
        profile: String,
        site: Site,
        rows: Vec<ProfileRow>,
    },
    Attachment {
        id: AttachmentId,
    },
}

/// What the human sees in the vault window's activity list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditEvent {
    /// A fill was granted.
    FillGranted {
        /// Entry.
        entry: EntryId,
        /// Site it was granted for.
        site: String,
    },
    /// A fill request for an id not available on that site (includes guesses and
    /// cross-site attempts; the agent is not told which).
    FillRefused {
        /// The id as requested.
        requested: String,
        /// Page site.
        site: String,
    },
    /// A grant's redemption was refused (e.g. the page navigated to another site).
    RedeemRefused {
        /// Why.
        reason: String,
    },
    /// The agent generated and saved a new password.
    PasswordGenerated {
        /// New entry.
        entry: EntryId,
        /// Site it was saved for.
        site: String,
    },
}

pub(crate) struct Inner {
    pub path: PathBuf,
    pub unlocked: Option<Unlocked>,
    pub grants: HashMap<u128, (Instant, GrantRecord)>,
    /// Non-sensitive profile fields the human approved per (site, profile). Sensitive fields
    /// are never recorded here, which is what keeps them from riding on a prior grant.
    pub consent: HashMap<(Site, String), BTreeSet<ProfileField>>,
    pub audit: Vec<AuditEvent>,
}

pub(crate) type Shared = Arc<Mutex<Inner>>;

pub(crate) fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    // A panic while holding the lock cannot leave the payload half-updated (mutations swap
    // in a fully built clone), so a poisoned lock is safe to keep using.
    s.lock().unwrap_or_else(|e| e.into_inner())
}

impl Inner {
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            unlocked: None,
            grants: HashMap::new(),
            consent: HashMap::new(),
            audit: Vec::new(),
        }
    }

    pub fn issue(&mut self, rec: GrantRecord) -> u128 {
        let now = Instant::now();
        self.grants.retain(|_, (t, _)| now.duration_since(*t) < GRANT_TTL);
        let id = u128::from_le_bytes(file::random_bytes::<16>());
        self.grants.insert(id, (now, rec));
        id
    }

    /// Removes and returns a live grant. Single use: a second redemption finds nothing.
    pub fn take_grant(&mut self, id: u128) -> Option<GrantRecord> {
        let (t, rec) = self.grants.remove(&id)?;
        (t.elapsed() < GRANT_TTL).then_some(rec)
    }

    pub fn audit(&mut self, e: AuditEvent) {
        // Bounded so a looping agent cannot grow memory without limit.
        if self.audit.len() >= 1000 {
            self.audit.remove(0);
        }
        self.audit.push(e);
    }

    /// Applies `f` to a copy of the payload, saves it, and only then makes it current, so a
    /// failed save leaves memory and disk agreeing on the old state.
    pub fn mutate<R>(
        &mut self,
        f: impl FnOnce(&mut Payload) -> Result<R, VaultError>,
    ) -> Result<R, VaultError> {
        let path = self.path.clone();
        let u = self.unlocked.as_mut().ok_or(VaultError::Locked)?;
        let mut next = u.payload.clone();
        let r = f(&mut next)?;
        let generation = u.generation + 1;
        write_payload(&path, &u.key, &u.kh, generation, &next)?;
        u.payload = next;
        u.generation = generation;
        Ok(r)
    }
}

pub(crate) fn serialize(p: &Payload) -> Result<Zeroizing<Vec<u8>>, VaultError> {
    serde_json::to_vec(p)
        .map(Zeroizing::new)
        .map_err(|e| VaultError::Payload(e.to_string()))
}

/// Seals `p` as `generation` and replaces the vault file, then records the generation as seen.
///
/// The record comes second, so a crash between the two leaves the file ahead of the record
/// (accepted, and the record catches up at the next unlock), never behind it (which would
/// refuse the newest vault as a rollback). For the same reason a failure to write the record
/// is not reported as a failed save: the vault file already holds the change.
pub(crate) fn write_payload(
    path: &Path,
    key: &MasterKey,
    kh: &KeyHeader,
    generation: u64,
    p: &Payload,
) -> Result<(), VaultError> {
    let plain = serialize(p)?;
    let sealed = file::seal(key, kh, generation, &plain);
    file::atomic_write(path, &sealed)?;
    let _ = file::record_generation(path, generation);
    Ok(())
}

pub(crate) fn attachments_dir(vault_path: &Path) -> PathBuf {
    let name = vault_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    vault_path.with_file_name(format!("{name}.attachments"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_single_use_and_expire() {
        let mut inner = Inner::new(PathBuf::from("/nonexistent"));
        let rec = || GrantRecord::Attachment {
            id: AttachmentId::random(),
        };
        let id = inner.issue(rec());
        assert!(inner.take_grant(id).is_some());
        assert!(inner.take_grant(id).is_none(), "second redemption");

        let id = inner.issue(rec());
        let old = Instant::now().checked_sub(GRANT_TTL + Duration::from_secs(1));
        if let Some(old) = old {
            inner.grants.get_mut(&id).unwrap().0 = old;
            assert!(inner.take_grant(id).is_none(), "expired grant redeemed");
        }
    }

    #[test]
    fn key_material_types_wipe_on_drop() {
        // Compile-time: these must stay ZeroizeOnDrop, or lock/drop would leave key bytes in
        // freed memory.
        fn wipes<T: zeroize::ZeroizeOnDrop>() {}
        wipes::<MasterKey>();
        wipes::<SecretString>();
    }

    #[test]
    fn ids_have_a_fixed_shape() {
        let id = EntryId::random();
        assert_eq!(EntryId::parse(id.as_str()), Some(id.clone()));
        for bad in [
            "",
            "e123",
            "x0123456789abcdef",
            "e0123456789ABCDEF",
            "e0123456789abcdeg",
            "../../etc/passwd",
        ] {
            assert_eq!(EntryId::parse(bad), None, "{bad}");
        }
        assert_eq!(
            AttachmentId::parse(id.as_str()),
            None,
            "entry id is not an attachment id"
        );
    }

    #[test]
    fn audit_log_is_bounded() {
        let mut inner = Inner::new(PathBuf::from("/nonexistent"));
        for _ in 0..1500 {
            inner.audit(AuditEvent::RedeemRefused { reason: "x".into() });
        }
        assert_eq!(inner.audit.len(), 1000);
    }
}
