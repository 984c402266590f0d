//! The agent-facing capability.
//!
//! [`AgentView`] is what the MCP layer receives. Everything it can return is listed in this
//! file and none of it is a secret: entry ids and labels, profile names, fill plans whose
//! sensitive rows carry no value, attachment metadata, and opaque grants. A grant is a claim
//! ticket with no secret inside; only the app's [`crate::Filler`], which the MCP layer never
//! receives, can redeem it, and redemption re-checks the origin of the frame being typed into.
//!
//! This is enforced by construction, not by policy: there is no function here that returns a
//! password, seed, code or sensitive value, so a prompt-injected agent has nothing to call.
//! `tests/agent_surface.rs` fails if a public function is added to any type in this module
//! without review, or if any of them mentions a secret-bearing type. The same holds at compile
//! time:
//!
//! ```compile_fail,E0599
//! // A grant has no accessor for the password it will fill.
//! fn leak(g: &aperture_vault::FillGrant) -> String { g.password().to_owned() }
//! ```
//!
//! ```compile_fail,E0599
//! // An AgentView cannot be turned into the capabilities that do see secrets.
//! fn escalate(v: &aperture_vault::AgentView) -> aperture_vault::Filler { v.filler() }
//! ```
//!
//! The first two examples differ from this compiling one only in the call they make, so they
//! fail for the reason stated and not for a typo (rustdoc on stable does not check error codes):
//!
//! ```no_run
//! fn label(g: &aperture_vault::FillGrant) -> String { g.label().to_owned() }
//! fn human(v: &aperture_vault::Vault) -> aperture_vault::Filler { v.filler() }
//! ```
//!
//! ```compile_fail,E0451
//! // Grants cannot be forged: their fields are private (every field is given, so privacy is
//! // the only error).
//! use aperture_vault::{EntryId, FillGrant, FillTarget};
//! let entry = EntryId::parse("e0123456789abcdef").unwrap();
//! let g = FillGrant { id: 0, entry, label: String::new(), target: FillTarget::Login };
//! ```
//!
//! ```compile_fail,E0451
//! // Nor can a fill result be built outside the crate to smuggle a value into the taint path.
//! use aperture_vault::{EntryId, FillSecret};
//! let entry = EntryId::parse("e0123456789abcdef").unwrap();
//! let s = FillSecret { entry, username: None, password: None, one_time_code: None };
//! ```

use crate::error::AgentError;
use crate::origin::{Origin, Site};
use crate::passgen::PasswordPolicy;
use crate::profiles::{self, FieldDescriptor, FillPlan, ProfileField};
use crate::state::{
    self, AttachmentId, AuditEvent, Entry, EntryId, FillTarget, GrantRecord, ProfileRow, Shared,
};

/// The MCP layer's handle on the vault. Cheap to clone; stays valid across lock/unlock (every
/// call answers [`AgentError::Locked`] while locked).
#[derive(Clone)]
pub struct AgentView {
    shared: Shared,
}

impl std::fmt::Debug for AgentView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentView")
    }
}

/// An entry as the agent may see it: id and label, nothing else.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EntrySummary {
    /// Pass back to [`AgentView::request_fill`].
    pub id: EntryId,
    /// Human-chosen label.
    pub label: String,
    /// Whether a one-time-code fill is possible.
    pub has_totp: bool,
}

/// A claim ticket for one login fill. Contains no secret. Single use, expires after two
/// minutes, void once the vault locks.
#[derive(Debug)]
pub struct FillGrant {
    id: u128,
    entry: EntryId,
    label: String,
    target: FillTarget,
}

impl FillGrant {
    /// The entry this grant fills.
    pub fn entry_id(&self) -> &EntryId {
        &self.entry
    }
    /// The entry's label, for reporting.
    pub fn label(&self) -> &str {
        &self.label
    }
    /// What will be filled.
    pub fn target(&self) -> FillTarget {
        self.target
    }
    pub(crate) fn grant_id(&self) -> u128 {
        self.id
    }
}

/// The result of [`AgentView::generate_password`]: the new entry and a grant to fill it.
#[derive(Debug)]
pub struct GeneratedEntry {
    /// The saved entry.
    pub id: EntryId,
    /// Entropy of the generator's output distribution, in bits.
    pub entropy_bits: f64,
    /// A grant for [`FillTarget::Password`] on the page it was generated for.
    pub grant: FillGrant,
}

/// A profile as the agent may see it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProfileSummary {
    /// Name, pass back to [`AgentView::plan_profile_fill`].
    pub name: String,
    /// Number of stored fields.
    pub fields: usize,
}

/// One row of a profile grant, for the native consent dialog.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConsentRow {
    /// Element ref.
    pub field_ref: String,
    /// Profile field to be filled.
    pub field: ProfileField,
    /// Sensitive fields need approval every single time.
    pub sensitive: bool,
    /// Whether this row needs the human's approval now (sensitive, or not yet approved for
    /// this site and profile).
    pub needs_approval: bool,
}

/// A claim ticket for a profile fill. Contains no values. The app shows the consent dialog for
/// [`ProfileGrant::rows`] and redeems it with [`crate::Filler::redeem_profile`].
#[derive(Debug)]
pub struct ProfileGrant {
    id: u128,
    site: Site,
    profile: String,
    rows: Vec<ConsentRow>,
}

impl ProfileGrant {
    /// The site the fill is for (shown in the dialog).
    pub fn site(&self) -> &Site {
        &self.site
    }
    /// The profile name.
    pub fn profile(&self) -> &str {
        &self.profile
    }
    /// Rows to fill, with approval requirements.
    pub fn rows(&self) -> &[ConsentRow] {
        &self.rows
    }
    /// Whether the native dialog must be shown at all.
    pub fn needs_dialog(&self) -> bool {
        self.rows.iter().any(|r| r.needs_approval)
    }
    pub(crate) fn grant_id(&self) -> u128 {
        self.id
    }
}

/// An attachment as the agent may see it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AttachmentSummary {
    /// Pass back to [`AgentView::request_attachment`].
    pub id: AttachmentId,
    /// Human-chosen label ("CV 2026").
    pub label: String,
    /// File name the upload will carry.
    pub file_name: String,
    /// MIME type.
    pub media_type: String,
    /// Size in bytes.
    pub size: u64,
}

/// A claim ticket for uploading one attachment, redeemed by the app's file-chooser path.
#[derive(Debug)]
pub struct AttachmentGrant {
    id: u128,
    attachment: AttachmentId,
}

impl AttachmentGrant {
    /// The attachment this grant uploads.
    pub fn attachment_id(&self) -> &AttachmentId {
        &self.attachment
    }
    pub(crate) fn grant_id(&self) -> u128 {
        self.id
    }
}

fn for_site<'a>(entries: &'a [Entry], site: &'a Site) -> impl Iterator<Item = &'a Entry> {
    entries.iter().filter(move |e| &e.site == site)
}

impl AgentView {
    pub(crate) fn new(shared: Shared) -> Self {
        Self { shared }
    }

    /// Entries bound to `page`'s site. `page` must be the origin of the frame the app will fill
    /// (resolved by the app from the tab, not taken from the agent's words). Entries of every
    /// other site are invisible: on `evil.com` the agent never learns a `google.com` entry
    /// exists.
    pub fn entries_for_origin(&self, page: &Origin) -> Result<Vec<EntrySummary>, AgentError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        let site = page.site();
        Ok(for_site(&u.payload.entries, &site)
            .map(|e| EntrySummary {
                id: e.id.clone(),
                label: e.label.clone(),
                has_totp: e.totp.is_some(),
            })
            .collect())
    }

    /// Requests a fill of entry `id` into `page`. Refused with [`AgentError::NotAvailable`]
    /// unless the entry is bound to `page`'s site; the same error covers unknown ids, so a
    /// refusal says nothing about other sites. There is no override.
    pub fn request_fill(
        &self,
        id: &EntryId,
        page: &Origin,
        target: FillTarget,
    ) -> Result<FillGrant, AgentError> {
        let mut g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        let site = page.site();
        let found = for_site(&u.payload.entries, &site).find(|e| &e.id == id);
        let Some(entry) = found else {
            g.audit(AuditEvent::FillRefused {
                requested: id.to_string(),
                site: site.to_string(),
            });
            return Err(AgentError::NotAvailable);
        };
        if target == FillTarget::OneTimeCode && entry.totp.is_none() {
            return Err(AgentError::NotAvailable);
        }
        let label = entry.label.clone();
        let gid = g.issue(GrantRecord::Login {
            entry: id.clone(),
            site: site.clone(),
            target,
        });
        g.audit(AuditEvent::FillGranted {
            entry: id.clone(),
            site: site.to_string(),
        });
        Ok(FillGrant {
            id: gid,
            entry: id.clone(),
            label,
            target,
        })
    }

    /// Generates a password for a sign-up or change-password form on `page`, saves it to the
    /// vault bound to `page`'s site, and returns a grant to fill it. The agent learns the id
    /// and the entropy, never the password.
    pub fn generate_password(
        &self,
        page: &Origin,
        label: &str,
        username: Option<&str>,
        policy: &PasswordPolicy,
    ) -> Result<GeneratedEntry, AgentError> {
        let generated = policy
            .generate()
            .map_err(|_| AgentError::Invalid("password policy"))?;
        let id = EntryId::random();
        let now = state::unix_now();
        let site = page.site();
        let entry = Entry {
            id: id.clone(),
            site: site.clone(),
            origin: page.to_string(),
            label: label.chars().take(200).collect(),
            username: crate::SecretString::new(username.unwrap_or("")),
            password: generated.password,
            totp: None,
            notes: crate::SecretString::default(),
            created: now,
            updated: now,
        };
        let mut g = state::lock(&self.shared);
        if g.unlocked.is_none() {
            return Err(AgentError::Locked);
        }
        g.mutate(|p| {
            p.entries.push(entry);
            Ok(())
        })
        .map_err(|e| AgentError::SaveFailed(e.to_string()))?;
        g.audit(AuditEvent::PasswordGenerated {
            entry: id.clone(),
            site: site.to_string(),
        });
        let gid = g.issue(GrantRecord::Login {
            entry: id.clone(),
            site,
            target: FillTarget::Password,
        });
        Ok(GeneratedEntry {
            id: id.clone(),
            entropy_bits: generated.entropy_bits,
            grant: FillGrant {
                id: gid,
                entry: id,
                label: label.to_owned(),
                target: FillTarget::Password,
            },
        })
    }

    /// Profile names.
    pub fn profiles(&self) -> Result<Vec<ProfileSummary>, AgentError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        Ok(u.payload
            .profiles
            .iter()
            .map(|p| ProfileSummary {
                name: p.name.clone(),
                fields: p.stored_count(),
            })
            .collect())
    }

    /// Matches a form against a profile. The plan previews non-sensitive values (the agent is
    /// proposing the fill and needs to see what it proposes) and withholds sensitive ones.
    pub fn plan_profile_fill(
        &self,
        profile: &str,
        fields: &[FieldDescriptor],
    ) -> Result<FillPlan, AgentError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        let p = u
            .payload
            .profiles
            .iter()
            .find(|p| p.name == profile)
            .ok_or(AgentError::NotAvailable)?;
        let mut plan = profiles::plan(p, fields);
        plan.vault_issued = true;
        Ok(plan)
    }

    /// Turns a plan's fillable rows into a grant for `page`. Rows needing approval are marked;
    /// the app must show its native dialog before redeeming.
    pub fn request_profile_fill(&self, plan: &FillPlan, page: &Origin) -> Result<ProfileGrant, AgentError> {
        let mut g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        if !plan.vault_issued {
            return Err(AgentError::Invalid("plan was not produced by this vault"));
        }
        if !u.payload.profiles.iter().any(|p| p.name == plan.profile()) {
            return Err(AgentError::NotAvailable);
        }
        let site = page.site();
        let approved = g
            .consent
            .get(&(site.clone(), plan.profile().to_owned()))
            .cloned()
            .unwrap_or_default();
        let mut rows = Vec::new();
        let mut recs = Vec::new();
        for item in plan.to_fill() {
            let field = item.field().expect("a Fill row always has a field");
            let sensitive = field.is_sensitive();
            let needs_approval = sensitive || !approved.contains(&field);
            rows.push(ConsentRow {
                field_ref: item.field_ref().to_owned(),
                field,
                sensitive,
                needs_approval,
            });
            recs.push(ProfileRow {
                field_ref: item.field_ref().to_owned(),
                field,
                select_value: item.select_value.clone(),
                needs_approval,
            });
        }
        let id = g.issue(GrantRecord::Profile {
            profile: plan.profile().to_owned(),
            site: site.clone(),
            rows: recs,
        });
        Ok(ProfileGrant {
            id,
            site,
            profile: plan.profile().to_owned(),
            rows,
        })
    }

    /// The human-curated attachments library.
    pub fn attachments(&self) -> Result<Vec<AttachmentSummary>, AgentError> {
        let g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        Ok(u.payload
            .attachments
            .iter()
            .map(|a| AttachmentSummary {
                id: a.id.clone(),
                label: a.label.clone(),
                file_name: a.file_name.clone(),
                media_type: a.media_type.clone(),
                size: a.size,
            })
            .collect())
    }

    /// Requests an upload of library attachment `id`. There is no variant that takes a path.
    pub fn request_attachment(&self, id: &AttachmentId) -> Result<AttachmentGrant, AgentError> {
        let mut g = state::lock(&self.shared);
        let u = g.unlocked.as_ref().ok_or(AgentError::Locked)?;
        if !u.payload.attachments.iter().any(|a| &a.id == id) {
            return Err(AgentError::NotAvailable);
        }
        let gid = g.issue(GrantRecord::Attachment { id: id.clone() });
        Ok(AttachmentGrant {
            id: gid,
            attachment: id.clone(),
        })
    }
}
