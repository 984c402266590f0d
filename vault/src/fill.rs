//! The app's fill path: redeeming grants into the values to type.
//!
//! [`Filler`] comes only from [`crate::Vault::filler`]. The app keeps it on the code path that
//! injects input into a frame and never passes it to the MCP layer; that split is what lets the
//! agent cause a login without being able to read the credential.
//!
//! Redemption re-checks the origin of the frame about to receive the input, because the page
//! can navigate between the agent's request and the fill: a grant issued on `bank.com` must not
//! type into `evil.com` that loaded in the meantime.

use zeroize::Zeroizing;

use crate::agent::{AttachmentGrant, FillGrant, ProfileGrant};
use crate::error::FillError;
use crate::origin::Origin;
use crate::secret::SecretString;
use crate::state::{self, AttachmentId, AuditEvent, EntryId, FillTarget, GrantRecord, Shared};

/// Capability to redeem grants. See the module docs.
#[derive(Clone)]
pub struct Filler {
    shared: Shared,
}

impl std::fmt::Debug for Filler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Filler")
    }
}

/// Values to type for one login grant. Zeroized on drop; `Debug` is redacted. Feed it to
/// [`crate::TaintSet::add_fill`] for the tab right after typing.
pub struct FillSecret {
    entry: EntryId,
    username: Option<SecretString>,
    password: Option<SecretString>,
    one_time_code: Option<SecretString>,
}

impl std::fmt::Debug for FillSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FillSecret({}, <redacted>)", self.entry)
    }
}

impl FillSecret {
    /// The entry filled.
    pub fn entry_id(&self) -> &EntryId {
        &self.entry
    }
    /// Username to type, for [`FillTarget::Login`] (absent when the entry has none).
    pub fn username(&self) -> Option<&str> {
        self.username.as_ref().map(|s| s.expose())
    }
    /// Password to type, for [`FillTarget::Login`] and [`FillTarget::Password`].
    pub fn password(&self) -> Option<&str> {
        self.password.as_ref().map(|s| s.expose())
    }
    /// Current TOTP code, for [`FillTarget::OneTimeCode`].
    pub fn one_time_code(&self) -> Option<&str> {
        self.one_time_code.as_ref().map(|s| s.expose())
    }
    /// Every value present, for the taint set.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        [&self.username, &self.password, &self.one_time_code]
            .into_iter()
            .flatten()
            .map(|s| s.expose())
    }
}

/// What the human approved in the native dialog for a [`ProfileGrant`].
#[derive(Debug, Clone, Default)]
pub struct ProfileApproval {
    approved: Vec<String>,
}

impl ProfileApproval {
    /// The human approved exactly these rows (by field ref). Rows not listed that needed
    /// approval are skipped.
    pub fn rows(refs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            approved: refs.into_iter().map(Into::into).collect(),
        }
    }
    /// No dialog was shown (every row was covered by earlier approval). Rows that needed
    /// approval, including every sensitive one, are skipped.
    pub fn none() -> Self {
        Self::default()
    }
}

/// Values to type for a profile grant, keyed by field ref. For selects the value is the
/// option's `value` attribute. Zeroized on drop.
pub struct ProfileFill {
    values: Vec<(String, SecretString)>,
    skipped: Vec<String>,
}

impl std::fmt::Debug for ProfileFill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileFill")
            .field("refs", &self.values.iter().map(|(r, _)| r).collect::<Vec<_>>())
            .field("skipped", &self.skipped)
            .finish()
    }
}

impl ProfileFill {
    /// `(field_ref, value)` pairs to type.
    pub fn values(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(r, v)| (r.as_str(), v.expose()))
    }
    /// Refs skipped for lack of approval or value (report these to the agent).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }
}

/// Decrypted attachment for the file chooser.
pub struct AttachmentData {
    /// Id.
    pub id: AttachmentId,
    /// File name to present to the page.
    pub file_name: String,
    /// MIME type.
    pub media_type: String,
    /// Contents. Zeroized on drop.
    pub bytes: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for AttachmentData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AttachmentData({}, {} bytes)",
            self.file_name,
            self.bytes.len()
        )
    }
}

impl Filler {
    pub(crate) fn new(shared: Shared) -> Self {
        Self { shared }
    }

    /// Redeems a login grant for the frame at `frame_origin` (the app's own view of where the
    /// input is about to go). Consumes the grant; a grant is good once.
    pub fn redeem(&self, grant: FillGrant, frame_origin: &Origin) -> Result<FillSecret, FillError> {
        let mut g = state::lock(&self.shared);
        let rec = g.take_grant(grant.grant_id()).ok_or(FillError::GrantInvalid)?;
        let GrantRecord::Login { entry, site, target } = rec else {
            return Err(FillError::GrantInvalid);
        };
        if frame_origin.site() != site {
            g.audit(AuditEvent::RedeemRefused {
                reason: format!("granted for {site}, frame is {}", frame_origin.site()),
            });
            return Err(FillError::OriginMismatch);
        }
        let u = g.unlocked.as_ref().ok_or(FillError::Locked)?;
        let e = u
            .payload
            .entries
            .iter()
            .find(|e| e.id == entry && e.site == site)
            .ok_or(FillError::EntryGone)?;
        let nonempty = |s: &SecretString| (!s.is_empty()).then(|| s.clone());
        let out = match target {
            FillTarget::Login => FillSecret {
                entry,
                username: nonempty(&e.username),
                password: Some(e.password.clone()),
                one_time_code: None,
            },
            FillTarget::Password => FillSecret {
                entry,
                username: None,
                password: Some(e.password.clone()),
                one_time_code: None,
            },
            FillTarget::OneTimeCode => {
                let code = e.totp.as_ref().ok_or(FillError::EntryGone)?.code_now().0;
                FillSecret {
                    entry,
                    username: None,
                    password: None,
                    one_time_code: Some(SecretString::new(code)),
                }
            }
        };
        Ok(out)
    }

    /// Redeems a profile grant after the native dialog. Rows needing approval are filled only if
    /// `approval` lists them; approved non-sensitive rows are remembered for this site and
    /// profile, sensitive ones never are.
    pub fn redeem_profile(
        &self,
        grant: ProfileGrant,
        frame_origin: &Origin,
        approval: &ProfileApproval,
    ) -> Result<ProfileFill, FillError> {
        let mut g = state::lock(&self.shared);
        let rec = g.take_grant(grant.grant_id()).ok_or(FillError::GrantInvalid)?;
        let GrantRecord::Profile { profile, site, rows } = rec else {
            return Err(FillError::GrantInvalid);
        };
        if frame_origin.site() != site {
            return Err(FillError::OriginMismatch);
        }
        let u = g.unlocked.as_ref().ok_or(FillError::Locked)?;
        let p = u
            .payload
            .profiles
            .iter()
            .find(|p| p.name == profile)
            .ok_or(FillError::EntryGone)?;
        let mut values = Vec::new();
        let mut skipped = Vec::new();
        let mut newly_approved = Vec::new();
        for r in rows {
            let approved_now = approval.approved.iter().any(|a| a == &r.field_ref);
            if r.needs_approval && !approved_now {
                skipped.push(r.field_ref);
                continue;
            }
            let value = match r.select_value {
                Some(v) => Some(v),
                None => p.value(r.field).map(SecretString::new),
            };
            match value {
                Some(v) => {
                    if approved_now && !r.field.is_sensitive() {
                        newly_approved.push(r.field);
                    }
                    values.push((r.field_ref, v));
                }
                None => skipped.push(r.field_ref),
            }
        }
        g.consent
            .entry((site, profile))
            .or_default()
            .extend(newly_approved);
        Ok(ProfileFill { values, skipped })
    }

    /// Redeems an attachment grant into the decrypted file.
    pub fn redeem_attachment(&self, grant: AttachmentGrant) -> Result<AttachmentData, FillError> {
        let mut g = state::lock(&self.shared);
        let rec = g.take_grant(grant.grant_id()).ok_or(FillError::GrantInvalid)?;
        let GrantRecord::Attachment { id } = rec else {
            return Err(FillError::GrantInvalid);
        };
        let path = g.path.clone();
        let u = g.unlocked.as_ref().ok_or(FillError::Locked)?;
        let meta = u
            .payload
            .attachments
            .iter()
            .find(|a| a.id == id)
            .ok_or(FillError::EntryGone)?;
        let blob = std::fs::read(state::attachments_dir(&path).join(format!("{id}.bin")))
            .map_err(|e| FillError::Attachment(e.to_string()))?;
        let bytes = crate::vault::open_attachment(&u.payload.attachment_key_bytes(), &id, &blob)
            .ok_or_else(|| FillError::Attachment("failed authentication".into()))?;
        Ok(AttachmentData {
            id,
            file_name: meta.file_name.clone(),
            media_type: meta.media_type.clone(),
            bytes: Zeroizing::new(bytes),
        })
    }
}
