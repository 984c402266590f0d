//! The human-side capability: create, unlock, lock, edit, reveal.
//!
//! [`Vault`] is held by the app and driven only from the vault window (which the agent cannot
//! address). It hands out two narrower capabilities: [`Vault::agent_view`] for the MCP layer and
//! [`Vault::filler`] for the app's own fill path. Neither can be turned back into a `Vault`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chacha20poly1305::aead::{Aead, KeyInit, Payload as AeadPayload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::agent::AgentView;
use crate::error::VaultError;
use crate::file::{self, random_bytes};
use crate::fill::Filler;
use crate::import::{CsvImport, ImportOutcome};
use crate::kdf::KdfParams;
use crate::origin::Origin;
use crate::passgen::PasswordPolicy;
use crate::profiles::Profile;
use crate::secret::SecretString;
use crate::state::{
    self, AttachmentId, AttachmentMeta, AuditEvent, Entry, EntryId, Inner, Payload, Shared, Unlocked,
    unix_now,
};
use crate::totp::Totp;

/// Largest attachment accepted (a CV is a few hundred KiB; this is generous).
pub const MAX_ATTACHMENT_BYTES: u64 = 32 * 1024 * 1024;

/// The vault, as the human's side of the app holds it. Cloning shares the same state.
#[derive(Clone)]
pub struct Vault {
    shared: Shared,
}

/// A new login entry.
#[derive(Debug, Clone)]
pub struct NewEntry<'a> {
    /// The page the entry is for; it is bound to this origin's [`crate::Site`].
    pub origin: &'a Origin,
    /// Human-readable label ("Work account").
    pub label: &'a str,
    /// Username or email.
    pub username: &'a str,
    /// Password.
    pub password: SecretString,
    /// Optional TOTP seed.
    pub totp: Option<Totp>,
}

/// An entry as the vault window lists it. No password.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EntryInfo {
    /// Id.
    pub id: EntryId,
    /// Label.
    pub label: String,
    /// The site it is bound to, e.g. `https://example.com`.
    pub site: String,
    /// The origin it was saved from.
    pub origin: String,
    /// Username (shown to the human; never on the agent surface).
    pub username: String,
    /// Whether a TOTP seed is stored.
    pub has_totp: bool,
    /// The TOTP step in seconds, when a seed is stored (for the window's countdown).
    pub totp_period: Option<u64>,
    /// Last change, Unix seconds.
    pub updated: u64,
}

/// Plaintext of one entry, for display in the vault window only.
pub struct Revealed {
    username: SecretString,
    password: SecretString,
}

impl Revealed {
    /// The username.
    pub fn username(&self) -> &str {
        self.username.expose()
    }
    /// The password.
    pub fn password(&self) -> &str {
        self.password.expose()
    }
}

impl std::fmt::Debug for Revealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Revealed(<redacted>)")
    }
}

/// A whole-entry edit for [`Vault::update_entry`].
#[derive(Debug)]
pub struct EntryEdit<'a> {
    /// The page the entry is for; the entry is (re)bound to its site.
    pub origin: &'a Origin,
    /// Label.
    pub label: &'a str,
    /// Username.
    pub username: &'a str,
    /// A new password, or `None` to keep the current one.
    pub password: Option<SecretString>,
    /// What to do with the two-factor seed.
    pub totp: TotpEdit,
}

/// The two-factor part of an [`EntryEdit`].
#[derive(Debug)]
pub enum TotpEdit {
    /// Leave it as it is (the seed is never shown, so an edit form cannot round-trip it).
    Keep,
    /// Remove it.
    Remove,
    /// Replace it.
    Set(Totp),
}

/// An entry [`Vault::take_entry`] removed, kept for undo. Its secrets are wiped when it is
/// dropped; `Debug` shows nothing of it.
pub struct DeletedEntry(Entry);

impl DeletedEntry {
    /// The entry's id.
    pub fn id(&self) -> &EntryId {
        &self.0.id
    }
    /// The entry's label, to say what an undo would bring back.
    pub fn label(&self) -> &str {
        &self.0.label
    }
}

impl std::fmt::Debug for DeletedEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeletedEntry({})", self.0.id)
    }
}

/// A password from [`Vault::generate_for_human`].
pub struct Generated {
    pub(crate) password: SecretString,
    pub(crate) entropy_bits: f64,
}

impl Generated {
    /// The password, to put into the entry being edited.
    pub fn password(&self) -> &str {
        self.password.expose()
    }
    /// log2 of the number of equally likely passwords the policy produces.
    pub fn entropy_bits(&self) -> f64 {
        self.entropy_bits
    }
}

impl std::fmt::Debug for Generated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Generated(<redacted>, {:.0} bits)", self.entropy_bits)
    }
}

/// An attachment as listed for the human.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentInfo {
    /// Id.
    pub id: AttachmentId,
    /// Label ("CV 2026").
    pub label: String,
    /// File name the upload will carry.
    pub file_name: String,
    /// MIME type.
    pub media_type: String,
    /// Size in bytes.
    pub size: u64,
}

impl Vault {
    /// Creates a new vault file, calibrating Argon2id on this machine (about 0.5 s, never below
    /// [`KdfParams::FLOOR`]). Refuses to overwrite an existing file.
    pub fn create(path: impl AsRef<Path>, passphrase: &str) -> Result<Self, VaultError> {
        Self::create_with_params(path, passphrase, KdfParams::calibrate())
    }

    /// Creates a vault with explicit KDF parameters (tests, migrations).
    pub fn create_with_params(
        path: impl AsRef<Path>,
        passphrase: &str,
        params: KdfParams,
    ) -> Result<Self, VaultError> {
        let path = path.as_ref().to_owned();
        if passphrase.is_empty() {
            return Err(VaultError::Policy("passphrase must not be empty"));
        }
        if path.exists() {
            return Err(VaultError::AlreadyExists(path));
        }
        params.validate()?;
        let (key, kh) = file::new_key(passphrase, params)?;
        let payload = Payload::new();
        let plain = state::serialize(&payload)?;
        file::atomic_create(&path, &file::seal(&key, &kh, 1, &plain))?;
        // A new vault starts a new count; a record left by a vault deleted before this one
        // must not make it look rolled back.
        file::record_generation(&path, 1)?;
        let mut inner = Inner::new(path);
        inner.unlocked = Some(Unlocked {
            key,
            kh,
            generation: 1,
            payload,
        });
        Ok(Self {
            shared: Arc::new(Mutex::new(inner)),
        })
    }

    /// Opens an existing vault file, locked. Checks the header (so a truncated, foreign,
    /// future-version or rolled-back file is reported now) but needs no passphrase. The
    /// generation read here is not authenticated yet; [`Vault::unlock`] checks it again after
    /// decryption, so an old copy with a raised number fails there as tampered.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, VaultError> {
        let path = path.as_ref().to_owned();
        let bytes = fs::read(&path)?;
        let h = file::parse(&bytes)?;
        file::check_generation(&path, h.generation)?;
        Ok(Self {
            shared: Arc::new(Mutex::new(Inner::new(path))),
        })
    }

    /// Opens and unlocks in one step.
    pub fn open_unlocked(path: impl AsRef<Path>, passphrase: &str) -> Result<Self, VaultError> {
        let v = Self::open(path)?;
        v.unlock(passphrase)?;
        Ok(v)
    }

    /// Unlocks with the passphrase. On any error the vault stays locked and the vault file is
    /// not written. A file older than the last generation recorded for it is refused
    /// ([`VaultError::RolledBack`]); a newer one (the record lagging after a crash, or a first
    /// open by this build) moves the record up.
    pub fn unlock(&self, passphrase: &str) -> Result<(), VaultError> {
        let mut g = state::lock(&self.shared);
        let bytes = zeroize::Zeroizing::new(fs::read(&g.path)?);
        let (key, kh, generation, plain) = file::open(&bytes, passphrase)?;
        let last_seen = file::last_seen_generation(&g.path)?;
        if let Some(last_seen) = last_seen.filter(|l| generation < *l) {
            return Err(VaultError::RolledBack {
                found: generation,
                last_seen,
            });
        }
        let payload: Payload =
            serde_json::from_slice(&plain).map_err(|e| VaultError::Payload(e.to_string()))?;
        if last_seen.is_none_or(|l| generation > l) {
            // Best effort: a record that could not be moved up only weakens the next check; it
            // is no reason to keep the human out of an authentic, current vault.
            let _ = file::record_generation(&g.path, generation);
        }
        file::remove_stale_temps(&g.path);
        g.unlocked = Some(Unlocked {
            key,
            kh,
            generation,
            payload,
        });
        Ok(())
    }

    /// The human's deliberate "yes, this older copy is the vault now", behind `aperture vault
    /// accept-rollback`: unlocks `path` without the rollback check and saves it again with a
    /// generation above every one recorded, so the copy becomes current and any other copy
    /// (including the newer one it replaced) would now be refused as older. Also accepts a
    /// vault whose generation record is damaged. Returns `(generation in the file, last
    /// recorded generation)`.
    pub fn accept_rollback(
        path: impl AsRef<Path>,
        passphrase: &str,
    ) -> Result<(u64, Option<u64>), VaultError> {
        let path = path.as_ref();
        let bytes = zeroize::Zeroizing::new(fs::read(path)?);
        let (key, kh, found, plain) = file::open(&bytes, passphrase)?;
        let payload: Payload =
            serde_json::from_slice(&plain).map_err(|e| VaultError::Payload(e.to_string()))?;
        let last_seen = file::last_seen_generation(path).unwrap_or(None);
        let generation = found.max(last_seen.unwrap_or(0)) + 1;
        state::write_payload(path, &key, &kh, generation, &payload)?;
        // write_payload tolerates a failed record; here the record is the whole point.
        file::record_generation(path, generation)?;
        Ok((found, last_seen))
    }

    /// The generation of the vault file as this handle last read or wrote it.
    pub fn generation(&self) -> Result<u64, VaultError> {
        let g = state::lock(&self.shared);
        Ok(g.unlocked.as_ref().ok_or(VaultError::Locked)?.generation)
    }

    /// Locks: drops (and thereby zeroizes) the key and every decrypted secret, and voids all
    /// outstanding grants.
    pub fn lock(&self) {
        let mut g = state::lock(&self.shared);
        g.unlocked = None;
        g.grants.clear();
        g.consent.clear();
    }

    /// Whether the vault is unlocked.
    pub fn is_unlocked(&self) -> bool {
        state::lock(&self.shared).unlocked.is_some()
    }

    /// The vault file path.
    pub fn path(&self) -> PathBuf {
        state::lock(&self.shared).path.clone()
    }

    /// The KDF parameters in the current header.
    pub fn kdf_params(&self) -> Result<KdfParams, VaultError> {
        let g = state::lock(&self.shared);
        Ok(g.unlocked.as_ref().ok_or(VaultError::Locked)?.kh.params)
    }

    /// Re-keys under a new passphrase with freshly calibrated (or given) parameters and a new
    /// salt. Atomic like every save: a crash leaves the old passphrase working.
    pub fn change_passphrase(
        &self,
        new_passphrase: &str,
        params: Option<KdfParams>,
    ) -> Result<(), VaultError> {
        if new_passphrase.is_empty() {
            return Err(VaultError::Policy("passphrase must not be empty"));
        }
        let params = params.unwrap_or_else(KdfParams::calibrate);
        let mut g = state::lock(&self.shared);
        let path = g.path.clone();
        let u = g.unlocked.as_mut().ok_or(VaultError::Locked)?;
        let (key, kh) = file::new_key(new_passphrase, params)?;
        let generation = u.generation + 1;
        state::write_payload(&path, &key, &kh, generation, &u.payload)?;
        u.key = key;
        u.kh = kh;
        u.generation = generation;
        Ok(())
    }

    /// The capability handed to the MCP layer. See [`AgentView`].
    pub fn agent_view(&self) -> AgentView {
        AgentView::new(self.shared.clone())
    }

    /// The capability for the app's fill path. Never give this to the MCP layer.
    pub fn filler(&self) -> Filler {
        Filler::new(self.shared.clone())
    }

    /// Adds a login entry bound to `new.origin`'s site.
    pub fn add_entry(&self, new: NewEntry<'_>) -> Result<EntryId, VaultError> {
        let id = EntryId::random();
        let now = unix_now();
        let entry = Entry {
            id: id.clone(),
            site: new.origin.site(),
            origin: new.origin.to_string(),
            label: new.label.to_owned(),
            username: SecretString::new(new.username),
            password: new.password,
            totp: new.totp,
            notes: SecretString::default(),
            created: now,
            updated: now,
        };
        state::lock(&self.shared).mutate(|p| {
            p.entries.push(entry);
            Ok(())
        })?;
        Ok(id)
    }

    /// Generates a password for `origin` and saves it as a new entry. Returns the id and the
    /// policy's entropy in bits.
    pub fn generate_entry(
        &self,
        origin: &Origin,
        label: &str,
        username: &str,
        policy: &PasswordPolicy,
    ) -> Result<(EntryId, f64), VaultError> {
        let g = policy.generate()?;
        let id = self.add_entry(NewEntry {
            origin,
            label,
            username,
            password: g.password,
            totp: None,
        })?;
        Ok((id, g.entropy_bits))
    }

    fn with_entry<R>(&self, id: &EntryId, f: impl FnOnce(&mut Entry) -> R) -> Result<R, VaultError> {
        state::lock(&self.shared).mutate(|p| {
            let e = p
                .entries
                .iter_mut()
                .find(|e| &e.id == id)
                .ok_or(VaultError::NotFound)?;
            e.updated = unix_now();
            Ok(f(e))
        })
    }

    /// Replaces an entry's password.
    pub fn set_password(&self, id: &EntryId, password: SecretString) -> Result<(), VaultError> {
        self.with_entry(id, |e| e.password = password)
    }

    /// Renames an entry.
    pub fn set_label(&self, id: &EntryId, label: &str) -> Result<(), VaultError> {
        self.with_entry(id, |e| e.label = label.to_owned())
    }

    /// Replaces an entry's username.
    pub fn set_username(&self, id: &EntryId, username: &str) -> Result<(), VaultError> {
        self.with_entry(id, |e| e.username = SecretString::new(username))
    }

    /// Sets or clears an entry's TOTP seed.
    pub fn set_totp(&self, id: &EntryId, totp: Option<Totp>) -> Result<(), VaultError> {
        self.with_entry(id, |e| e.totp = totp)
    }

    /// Replaces an entry's free-form notes (never on any agent or fill path).
    pub fn set_notes(&self, id: &EntryId, notes: &str) -> Result<(), VaultError> {
        self.with_entry(id, |e| e.notes = SecretString::new(notes))
    }

    /// Reads an entry's notes, for the vault window.
    pub fn notes(&self, id: &EntryId) -> Result<String, VaultError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(VaultError::Locked)?;
        let e = u
            .payload
            .entries
            .iter()
            .find(|e| &e.id == id)
            .ok_or(VaultError::NotFound)?;
        Ok(e.notes.expose().to_owned())
    }

    /// Deletes an entry.
    pub fn delete_entry(&self, id: &EntryId) -> Result<(), VaultError> {
        state::lock(&self.shared).mutate(|p| {
            let before = p.entries.len();
            p.entries.retain(|e| &e.id != id);
            if p.entries.len() == before {
                return Err(VaultError::NotFound);
            }
            Ok(())
        })
    }

    /// Replaces an entry's site, label, username and (when given) password and two-factor seed
    /// in one save, so an edit lands whole or not at all. Moving an entry to another site voids
    /// nothing explicitly: a grant already issued names the old site, and redemption checks
    /// the entry is still bound to it.
    pub fn update_entry(&self, id: &EntryId, edit: EntryEdit<'_>) -> Result<(), VaultError> {
        self.with_entry(id, |e| {
            e.site = edit.origin.site();
            e.origin = edit.origin.to_string();
            e.label = edit.label.to_owned();
            e.username = SecretString::new(edit.username);
            if let Some(p) = edit.password {
                e.password = p;
            }
            match edit.totp {
                TotpEdit::Keep => {}
                TotpEdit::Remove => e.totp = None,
                TotpEdit::Set(t) => e.totp = Some(t),
            }
        })
    }

    /// Deletes an entry and hands it back whole, for the vault window's undo. The returned
    /// value holds the entry's secrets (wiped on drop); [`Vault::restore_entry`] puts it back
    /// under the same id.
    pub fn take_entry(&self, id: &EntryId) -> Result<DeletedEntry, VaultError> {
        state::lock(&self.shared).mutate(|p| {
            let i = p
                .entries
                .iter()
                .position(|e| &e.id == id)
                .ok_or(VaultError::NotFound)?;
            Ok(DeletedEntry(p.entries.remove(i)))
        })
    }

    /// Puts back an entry [`Vault::take_entry`] removed, with its id, secrets and dates.
    pub fn restore_entry(&self, deleted: DeletedEntry) -> Result<EntryId, VaultError> {
        let DeletedEntry(entry) = deleted;
        let id = entry.id.clone();
        state::lock(&self.shared).mutate(|p| {
            // Restoring twice (or over an entry re-added since) must not make two of it.
            if p.entries.iter().any(|e| e.id == entry.id) {
                return Err(VaultError::Policy("that entry is already in the vault"));
            }
            p.entries.push(entry);
            Ok(())
        })?;
        Ok(id)
    }

    /// Saves every login of a parsed export in one vault write: all of them or, if the write
    /// fails, none. Logins already saved (same site, username and password), and repeats
    /// within the file, are counted and skipped. See [`crate::import`].
    pub fn import_logins(&self, import: CsvImport) -> Result<ImportOutcome, VaultError> {
        let now = unix_now();
        state::lock(&self.shared).mutate(|p| {
            let mut out = ImportOutcome {
                added: 0,
                duplicates: 0,
            };
            for l in import.logins {
                let site = l.origin.site();
                let dup = p
                    .entries
                    .iter()
                    .any(|e| e.site == site && e.username.expose() == l.username && e.password == l.password);
                if dup {
                    out.duplicates += 1;
                    continue;
                }
                p.entries.push(Entry {
                    id: EntryId::random(),
                    site,
                    origin: l.origin.to_string(),
                    label: l.label,
                    username: SecretString::new(l.username),
                    password: l.password,
                    totp: l.totp,
                    notes: l.notes,
                    created: now,
                    updated: now,
                });
                out.added += 1;
            }
            Ok(out)
        })
    }

    /// A new random password for the vault window's generator, where the human puts it into
    /// an entry they are editing. The agent's counterpart only ever saves what it generates
    /// ([`crate::AgentView::generate_password`]); this is on the human's handle alone.
    pub fn generate_for_human(&self, policy: &PasswordPolicy) -> Result<Generated, VaultError> {
        let g = policy.generate()?;
        Ok(Generated {
            password: g.password,
            entropy_bits: g.entropy_bits,
        })
    }

    /// Every entry, for the vault window.
    pub fn entries(&self) -> Result<Vec<EntryInfo>, VaultError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(VaultError::Locked)?;
        Ok(u.payload
            .entries
            .iter()
            .map(|e| EntryInfo {
                id: e.id.clone(),
                label: e.label.clone(),
                site: e.site.to_string(),
                origin: e.origin.clone(),
                username: e.username.expose().to_owned(),
                has_totp: e.totp.is_some(),
                totp_period: e.totp.as_ref().map(|t| t.period),
                updated: e.updated,
            })
            .collect())
    }

    /// **The one function in the crate that returns a stored password to a caller.** It exists
    /// for the vault window's "show password" button and must never gain a caller outside it.
    pub fn reveal_for_human(&self, id: &EntryId) -> Result<Revealed, VaultError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(VaultError::Locked)?;
        let e = u
            .payload
            .entries
            .iter()
            .find(|e| &e.id == id)
            .ok_or(VaultError::NotFound)?;
        Ok(Revealed {
            username: e.username.clone(),
            password: e.password.clone(),
        })
    }

    /// The live TOTP code and seconds remaining, for the vault window's countdown.
    pub fn totp_now(&self, id: &EntryId) -> Result<(String, u64), VaultError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(VaultError::Locked)?;
        let e = u
            .payload
            .entries
            .iter()
            .find(|e| &e.id == id)
            .ok_or(VaultError::NotFound)?;
        Ok(e.totp.as_ref().ok_or(VaultError::NotFound)?.code_now())
    }

    /// Adds or replaces (by name) an autofill profile.
    pub fn put_profile(&self, profile: Profile) -> Result<(), VaultError> {
        state::lock(&self.shared).mutate(|p| {
            p.profiles.retain(|q| q.name != profile.name);
            p.profiles.push(profile);
            Ok(())
        })
    }

    /// Deletes a profile by name.
    pub fn delete_profile(&self, name: &str) -> Result<(), VaultError> {
        let mut g = state::lock(&self.shared);
        g.consent.retain(|(_, p), _| p != name);
        g.mutate(|p| {
            let before = p.profiles.len();
            p.profiles.retain(|q| q.name != name);
            if before == p.profiles.len() {
                return Err(VaultError::NotFound);
            }
            Ok(())
        })
    }

    /// A copy of a profile, for editing in the vault window.
    pub fn profile(&self, name: &str) -> Result<Profile, VaultError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(VaultError::Locked)?;
        u.payload
            .profiles
            .iter()
            .find(|q| q.name == name)
            .cloned()
            .ok_or(VaultError::NotFound)
    }

    /// Copies a file the human picked into the attachments library, encrypted. This is the only
    /// function that takes a path, and it is human-side.
    pub fn add_attachment(
        &self,
        source: &Path,
        label: &str,
        media_type: &str,
    ) -> Result<AttachmentId, VaultError> {
        let size = fs::metadata(source)?.len();
        if size > MAX_ATTACHMENT_BYTES {
            return Err(VaultError::Policy("attachment too large"));
        }
        let data = zeroize::Zeroizing::new(fs::read(source)?);
        let file_name = source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "attachment".into());
        let id = AttachmentId::random();
        let mut g = state::lock(&self.shared);
        let path = g.path.clone();
        let key = g
            .unlocked
            .as_ref()
            .ok_or(VaultError::Locked)?
            .payload
            .attachment_key_bytes();
        // atomic_write creates the directory (0700) if it is missing.
        let dir = state::attachments_dir(&path);
        let blob = seal_attachment(&key, &id, &data);
        file::atomic_write(&dir.join(format!("{id}.bin")), &blob)?;
        let meta = AttachmentMeta {
            id: id.clone(),
            label: label.to_owned(),
            file_name,
            media_type: media_type.to_owned(),
            size,
            added: unix_now(),
        };
        g.mutate(|p| {
            p.attachments.push(meta);
            Ok(())
        })?;
        Ok(id)
    }

    /// Removes an attachment from the library and deletes its file.
    pub fn remove_attachment(&self, id: &AttachmentId) -> Result<(), VaultError> {
        let mut g = state::lock(&self.shared);
        let path = g.path.clone();
        g.mutate(|p| {
            let before = p.attachments.len();
            p.attachments.retain(|a| &a.id != id);
            if before == p.attachments.len() {
                return Err(VaultError::NotFound);
            }
            Ok(())
        })?;
        let _ = fs::remove_file(state::attachments_dir(&path).join(format!("{id}.bin")));
        Ok(())
    }

    /// The library, for the vault window.
    pub fn attachments(&self) -> Result<Vec<AttachmentInfo>, VaultError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(VaultError::Locked)?;
        Ok(u.payload
            .attachments
            .iter()
            .map(|a| AttachmentInfo {
                id: a.id.clone(),
                label: a.label.clone(),
                file_name: a.file_name.clone(),
                media_type: a.media_type.clone(),
                size: a.size,
            })
            .collect())
    }

    /// Agent activity (grants, refusals), newest last, for the vault window.
    pub fn audit_log(&self) -> Vec<AuditEvent> {
        state::lock(&self.shared).audit.clone()
    }
}

pub(crate) fn seal_attachment(key: &[u8; 32], id: &AttachmentId, data: &[u8]) -> Vec<u8> {
    let nonce = random_bytes::<24>();
    let cipher = XChaCha20Poly1305::new(key.into());
    let ct = cipher
        .encrypt(
            XNonce::from_slice(&nonce),
            AeadPayload {
                msg: data,
                aad: id.as_str().as_bytes(),
            },
        )
        .expect("in-memory encryption cannot fail");
    let mut out = nonce.to_vec();
    out.extend_from_slice(&ct);
    out
}

pub(crate) fn open_attachment(key: &[u8; 32], id: &AttachmentId, blob: &[u8]) -> Option<Vec<u8>> {
    if blob.len() < 24 + 16 {
        return None;
    }
    let cipher = XChaCha20Poly1305::new(key.into());
    // AAD binds the blob to its id, so swapping two attachment files is detected.
    cipher
        .decrypt(
            XNonce::from_slice(&blob[..24]),
            AeadPayload {
                msg: &blob[24..],
                aad: id.as_str().as_bytes(),
            },
        )
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_vault(tag: &str) -> (PathBuf, Vault) {
        let dir = std::env::temp_dir().join(format!("apv-edit-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let v = Vault::create_with_params(dir.join("v.vault"), "pw", KdfParams::insecure_fast_for_tests())
            .unwrap();
        (dir, v)
    }

    fn add(v: &Vault, url: &str, user: &str, pw: &str) -> EntryId {
        v.add_entry(NewEntry {
            origin: &Origin::parse(url).unwrap(),
            label: "L",
            username: user,
            password: pw.into(),
            totp: None,
        })
        .unwrap()
    }

    #[test]
    fn an_edit_is_one_save_and_can_rebind_the_site() {
        let (dir, v) = temp_vault("update");
        let id = add(&v, "https://old.example.com/login", "ada", "pw-old");
        v.set_totp(&id, Some(Totp::from_base32("JBSWY3DPEHPK3PXP").unwrap()))
            .unwrap();
        let g0 = v.generation().unwrap();
        let new_origin = Origin::parse("https://accounts.new.example.org/").unwrap();
        v.update_entry(
            &id,
            EntryEdit {
                origin: &new_origin,
                label: "Renamed",
                username: "ada2",
                password: None,
                totp: TotpEdit::Keep,
            },
        )
        .unwrap();
        assert_eq!(v.generation().unwrap(), g0 + 1);
        let e = &v.entries().unwrap()[0];
        assert_eq!(
            (e.site.as_str(), e.label.as_str(), e.username.as_str(), e.has_totp),
            ("https://example.org", "Renamed", "ada2", true)
        );
        assert_eq!(
            v.reveal_for_human(&id).unwrap().password(),
            "pw-old",
            "None keeps it"
        );
        v.update_entry(
            &id,
            EntryEdit {
                origin: &new_origin,
                label: "Renamed",
                username: "ada2",
                password: Some("pw-new".into()),
                totp: TotpEdit::Remove,
            },
        )
        .unwrap();
        assert_eq!(v.reveal_for_human(&id).unwrap().password(), "pw-new");
        assert!(!v.entries().unwrap()[0].has_totp);
        // The agent sees it on the new site only.
        let agent = v.agent_view();
        assert!(
            agent
                .entries_for_origin(&Origin::parse("https://old.example.com").unwrap())
                .unwrap()
                .is_empty()
        );
        assert_eq!(agent.entries_for_origin(&new_origin).unwrap().len(), 1);
        let missing = EntryId::random();
        assert!(matches!(
            v.update_entry(
                &missing,
                EntryEdit {
                    origin: &new_origin,
                    label: "x",
                    username: "",
                    password: None,
                    totp: TotpEdit::Keep
                }
            ),
            Err(VaultError::NotFound)
        ));
        fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn take_and_restore_bring_back_the_same_entry_once() {
        let (dir, v) = temp_vault("undo");
        let keep = add(&v, "https://a.example.com", "ada", "pw-a");
        let id = add(&v, "https://b.example.com", "bob", "pw-b");
        let before = v.entries().unwrap();
        let taken = v.take_entry(&id).unwrap();
        assert_eq!(taken.id(), &id);
        assert_eq!(format!("{taken:?}"), format!("DeletedEntry({id})"));
        assert_eq!(v.entries().unwrap().len(), 1);
        // Deleted is deleted on disk too: a fresh open does not have it.
        let reopened = Vault::open_unlocked(v.path(), "pw").unwrap();
        assert!(reopened.entries().unwrap().iter().all(|e| e.id != id));
        drop(reopened);
        assert_eq!(v.restore_entry(taken).unwrap(), id);
        let mut after = v.entries().unwrap();
        after.sort_by(|a, b| a.id.cmp(&b.id));
        let mut before = before;
        before.sort_by(|a, b| a.id.cmp(&b.id));
        assert_eq!(after, before, "same id, fields and dates");
        assert_eq!(v.reveal_for_human(&id).unwrap().password(), "pw-b");
        assert!(matches!(
            v.take_entry(&EntryId::random()),
            Err(VaultError::NotFound)
        ));
        // A second restore of the same entry (a stale undo) is refused, not duplicated.
        let taken = v.take_entry(&keep).unwrap();
        let DeletedEntry(e) = &taken;
        let copy = DeletedEntry(e.clone());
        v.restore_entry(taken).unwrap();
        assert!(v.restore_entry(copy).is_err());
        assert_eq!(v.entries().unwrap().len(), 2);
        fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_human_generator_follows_the_policy() {
        let (dir, v) = temp_vault("gen");
        let p = PasswordPolicy {
            length: 32,
            symbols: false,
            ..Default::default()
        };
        let a = v.generate_for_human(&p).unwrap();
        let b = v.generate_for_human(&p).unwrap();
        assert_eq!(a.password().chars().count(), 32);
        assert!(a.password().chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a.password(), b.password());
        assert!((a.entropy_bits() - p.entropy_bits().unwrap()).abs() < 1e-9);
        assert!(!format!("{a:?}").contains(a.password()));
        assert!(v.entries().unwrap().is_empty(), "generating saves nothing");
        fs::remove_dir_all(&dir).ok();
    }
}
