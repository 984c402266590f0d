//! Autofill profiles and the form matcher.
//!
//! A [`Profile`] is a named set of identity facts. [`plan`] takes the descriptors of a form's
//! fields (as the page walker reports them) and decides, field by field, what would be filled.
//! The order of evidence is deliberate:
//!
//! 1. **Shape exclusions first.** A `<textarea>`, a contenteditable, or a label that reads like
//!    a question ("Why do you want this role?") is a prose prompt, not an identity field, and
//!    is excluded *before* keyword matching: a stray "title" or "company" inside an essay
//!    question is how an agent ends up submitting "Director" as a cover letter. Demographic
//!    (EEO) questions, payment-card fields and login fields are excluded by their own rules.
//! 2. **`autocomplete`**, when it names a known token. It is the page author's explicit
//!    declaration of what the field wants, so it outranks every heuristic.
//! 3. **Label heuristics** over label, aria-label, name, id and placeholder, each source with
//!    its own weight, combined into a confidence.
//!
//! Matches under [`FILL_THRESHOLD`] are reported as [`Decision::LowConfidence`] and not filled:
//! a wrong value silently placed in a field the human then submits is worse than a blank.
//!
//! Sensitive fields ([`ProfileField::is_sensitive`]) never show their value in a plan and never
//! ride on an earlier approval; see [`crate::ProfileGrant`].
//!
//! Known limits: matching is English-keyword based; a select is filled only when an option's
//! value or text equals the profile value (so "CA" does not match an option reading
//! "California", and the row is reported as [`SkipReason::NoMatchingOption`]); dates are stored
//! and filled as ISO `YYYY-MM-DD`, which a page expecting `MM/DD/YYYY` in a text box may reject.
//! Each of these fails toward *not filling*, never toward filling the wrong thing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::secret::SecretString;

/// Confidence at or above which a match is filled.
pub const FILL_THRESHOLD: f32 = 0.8;
/// Confidence below which a heuristic hit is not even reported.
pub const REPORT_THRESHOLD: f32 = 0.45;

/// A fact a profile can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProfileField {
    /// "Dr", "Ms".
    HonorificPrefix,
    /// First name.
    GivenName,
    /// Middle name(s).
    AdditionalName,
    /// Last name.
    FamilyName,
    /// Full name; derived from the parts when not set.
    FullName,
    /// Email address.
    Email,
    /// Phone number as the human writes it, international form preferred ("+1 415 555 0100").
    Phone,
    /// Phone without the leading `+CC ` group; derived from [`ProfileField::Phone`].
    PhoneNational,
    /// Street address line 1.
    AddressLine1,
    /// Line 2 (apartment, suite).
    AddressLine2,
    /// Line 3.
    AddressLine3,
    /// All address lines joined by newlines; derived.
    StreetAddress,
    /// City / town (`address-level2`).
    City,
    /// State / province / region (`address-level1`).
    Region,
    /// Postal or ZIP code.
    PostalCode,
    /// ISO 3166-1 alpha-2 country code ("US").
    CountryCode,
    /// Country name ("United States").
    CountryName,
    /// Employer / company.
    Organization,
    /// Job title.
    JobTitle,
    /// Date of birth, ISO 8601 `YYYY-MM-DD`. Sensitive.
    DateOfBirth,
    /// Day of month of birth; derived. Sensitive.
    BirthDay,
    /// Month of birth; derived. Sensitive.
    BirthMonth,
    /// Year of birth; derived. Sensitive.
    BirthYear,
    /// National identifier (SSN, NI number). Sensitive.
    NationalId,
    /// Personal website / portfolio.
    Website,
    /// LinkedIn profile URL.
    LinkedIn,
    /// GitHub profile URL.
    GitHub,
}

impl ProfileField {
    /// Whether the value is withheld from plans and needs fresh human approval every time.
    pub fn is_sensitive(self) -> bool {
        matches!(
            self,
            Self::DateOfBirth | Self::BirthDay | Self::BirthMonth | Self::BirthYear | Self::NationalId
        )
    }

    /// Stable camelCase name (as used in plans shown to the agent).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HonorificPrefix => "honorificPrefix",
            Self::GivenName => "givenName",
            Self::AdditionalName => "additionalName",
            Self::FamilyName => "familyName",
            Self::FullName => "fullName",
            Self::Email => "email",
            Self::Phone => "phone",
            Self::PhoneNational => "phoneNational",
            Self::AddressLine1 => "addressLine1",
            Self::AddressLine2 => "addressLine2",
            Self::AddressLine3 => "addressLine3",
            Self::StreetAddress => "streetAddress",
            Self::City => "city",
            Self::Region => "region",
            Self::PostalCode => "postalCode",
            Self::CountryCode => "countryCode",
            Self::CountryName => "countryName",
            Self::Organization => "organization",
            Self::JobTitle => "jobTitle",
            Self::DateOfBirth => "dateOfBirth",
            Self::BirthDay => "birthDay",
            Self::BirthMonth => "birthMonth",
            Self::BirthYear => "birthYear",
            Self::NationalId => "nationalId",
            Self::Website => "website",
            Self::LinkedIn => "linkedIn",
            Self::GitHub => "gitHub",
        }
    }
}

/// The facts a human types into a profile, in the order the vault window shows them (the
/// derived ones, such as the full name or the birth year, come from these).
pub const HUMAN_FIELDS: &[(ProfileField, &str)] = &[
    (ProfileField::HonorificPrefix, "Title"),
    (ProfileField::GivenName, "First name"),
    (ProfileField::AdditionalName, "Middle name"),
    (ProfileField::FamilyName, "Last name"),
    (ProfileField::Email, "Email"),
    (ProfileField::Phone, "Phone"),
    (ProfileField::AddressLine1, "Address"),
    (ProfileField::AddressLine2, "Address line 2"),
    (ProfileField::City, "City"),
    (ProfileField::Region, "State / region"),
    (ProfileField::PostalCode, "Postal code"),
    (ProfileField::CountryName, "Country"),
    (ProfileField::CountryCode, "Country code"),
    (ProfileField::Organization, "Company"),
    (ProfileField::JobTitle, "Job title"),
    (ProfileField::DateOfBirth, "Date of birth (YYYY-MM-DD)"),
    (ProfileField::NationalId, "National id"),
    (ProfileField::Website, "Website"),
    (ProfileField::LinkedIn, "LinkedIn"),
    (ProfileField::GitHub, "GitHub"),
];

/// A named set of identity facts ("Personal", "Work").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Display name, unique within a vault.
    pub name: String,
    values: BTreeMap<ProfileField, SecretString>,
}

impl Profile {
    /// An empty profile.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            values: BTreeMap::new(),
        }
    }

    /// Sets (or with an empty value, clears) a field. Builder style.
    pub fn with(mut self, field: ProfileField, value: &str) -> Self {
        self.set(field, value);
        self
    }

    /// Sets (or with an empty value, clears) a field.
    pub fn set(&mut self, field: ProfileField, value: &str) {
        if value.trim().is_empty() {
            self.values.remove(&field);
        } else {
            self.values.insert(field, SecretString::new(value.trim()));
        }
    }

    /// Number of fields with a stored (not derived) value.
    pub fn stored_count(&self) -> usize {
        self.values.len()
    }

    /// Every stored fact and its value, for the human's vault window. Never the agent's: the
    /// MCP crate may not name this (`vault/tests/mcp_boundary.rs`).
    pub fn values_for_human(&self) -> Vec<(ProfileField, String)> {
        self.values
            .iter()
            .map(|(f, v)| (*f, v.expose().to_owned()))
            .collect()
    }

    /// The value for a field, stored or derived. Crate-private: outside code sees values only
    /// through a plan's preview (non-sensitive) or a redeemed [`crate::ProfileFill`].
    pub(crate) fn value(&self, f: ProfileField) -> Option<String> {
        if let Some(v) = self.values.get(&f) {
            return Some(v.expose().to_owned());
        }
        let get = |f: ProfileField| self.values.get(&f).map(|v| v.expose().to_owned());
        match f {
            ProfileField::FullName => {
                let parts: Vec<String> = [
                    ProfileField::GivenName,
                    ProfileField::AdditionalName,
                    ProfileField::FamilyName,
                ]
                .into_iter()
                .filter_map(get)
                .collect();
                (!parts.is_empty()).then(|| parts.join(" "))
            }
            ProfileField::PhoneNational => get(ProfileField::Phone).map(|p| match p.strip_prefix('+') {
                Some(rest) => rest
                    .split_once([' ', '-'])
                    .map(|(_, n)| n.to_owned())
                    .unwrap_or(p.clone()),
                None => p,
            }),
            ProfileField::StreetAddress => {
                let lines: Vec<String> = [
                    ProfileField::AddressLine1,
                    ProfileField::AddressLine2,
                    ProfileField::AddressLine3,
                ]
                .into_iter()
                .filter_map(get)
                .collect();
                (!lines.is_empty()).then(|| lines.join("\n"))
            }
            ProfileField::BirthYear | ProfileField::BirthMonth | ProfileField::BirthDay => {
                let dob = get(ProfileField::DateOfBirth)?;
                let mut it = dob.split('-');
                let (y, m, d) = (it.next()?, it.next()?, it.next()?);
                Some(match f {
                    ProfileField::BirthYear => y.to_owned(),
                    ProfileField::BirthMonth => m.trim_start_matches('0').to_owned(),
                    _ => d.trim_start_matches('0').to_owned(),
                })
            }
            _ => None,
        }
    }
}

/// One `<option>` of a `<select>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectOption {
    /// The `value` attribute.
    pub value: String,
    /// The visible text.
    pub text: String,
}

/// What the page walker reports about one form control. All text is page-authored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldDescriptor {
    /// The snapshot ref the app uses to address the element.
    pub field_ref: String,
    /// `input`, `select`, `textarea` or `contenteditable`.
    pub tag: String,
    /// The `type` attribute of an input (`text` when absent).
    pub input_type: Option<String>,
    /// The raw `autocomplete` attribute.
    pub autocomplete: Option<String>,
    /// The `name` attribute.
    pub name: Option<String>,
    /// The `id` attribute.
    pub id: Option<String>,
    /// Text of the associated `<label>`.
    pub label: Option<String>,
    /// The `aria-label` (or text of `aria-labelledby`).
    pub aria_label: Option<String>,
    /// The `placeholder` attribute.
    pub placeholder: Option<String>,
    /// The `maxlength` attribute.
    pub max_length: Option<u32>,
    /// Options, for a select.
    pub options: Vec<SelectOption>,
}

/// Which evidence decided a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatchSource {
    /// The `autocomplete` attribute.
    Autocomplete,
    /// Label / aria-label text.
    Label,
    /// `name` or `id` attribute.
    NameOrId,
    /// Placeholder text.
    Placeholder,
    /// The input `type` alone (`email`, `tel`).
    InputType,
}

/// Why a field is not filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SkipReason {
    /// Matched a profile field the profile has no value for.
    NoValue,
    /// A prose prompt (textarea, question-shaped label). Never filled from a profile.
    FreeText,
    /// Demographic / equal-opportunity question. Always the human's own answer.
    Demographic,
    /// Payment card field. Not a profile fact.
    Payment,
    /// Username, password or one-time code: the vault's login fill handles those.
    Credential,
    /// File upload: use the attachments library.
    File,
    /// Not an identity field at all (checkbox, hidden, coupon code, …).
    NotIdentity,
    /// A select with no option matching the profile value.
    NoMatchingOption,
    /// Nothing recognisable.
    NoMatch,
}

/// The matcher's verdict for one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// Will be filled (after approval).
    Fill,
    /// A plausible match under [`FILL_THRESHOLD`]: reported, not filled.
    LowConfidence,
    /// Not filled.
    Skip(SkipReason),
}

/// One row of a [`FillPlan`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedField {
    field_ref: String,
    display_label: String,
    field: Option<ProfileField>,
    confidence: f32,
    source: Option<MatchSource>,
    decision: Decision,
    preview: Option<String>,
    /// For selects: the option value to choose. Crate-private because for a sensitive field
    /// it would be the value itself.
    pub(crate) select_value: Option<SecretString>,
}

impl PlannedField {
    /// The element ref.
    pub fn field_ref(&self) -> &str {
        &self.field_ref
    }
    /// Best page-authored description of the field (label, else aria-label, placeholder, name).
    /// Untrusted text: the MCP layer must fence it.
    pub fn display_label(&self) -> &str {
        &self.display_label
    }
    /// The profile field matched, if any.
    pub fn field(&self) -> Option<ProfileField> {
        self.field
    }
    /// Confidence in `0.0..=1.0`.
    pub fn confidence(&self) -> f32 {
        self.confidence
    }
    /// Which evidence decided the match.
    pub fn source(&self) -> Option<MatchSource> {
        self.source
    }
    /// Fill, low confidence, or skip with a reason.
    pub fn decision(&self) -> Decision {
        self.decision
    }
    /// Whether the matched field is sensitive (never previewed, always freshly approved).
    pub fn is_sensitive(&self) -> bool {
        self.field.is_some_and(ProfileField::is_sensitive)
    }
    /// The value that would be filled, for non-sensitive fields only. `None` for sensitive
    /// fields by construction, so a plan can be shown to the agent as is.
    pub fn preview(&self) -> Option<&str> {
        self.preview.as_deref()
    }
}

/// The matcher's output for one form: per-field decisions, with previews of non-sensitive
/// values. Fields are private so a plan cannot be forged outside this crate; a grant is issued
/// only for a plan [`plan`] produced.
#[derive(Debug, Clone, PartialEq)]
pub struct FillPlan {
    profile: String,
    items: Vec<PlannedField>,
    /// Set only by [`crate::AgentView::plan_profile_fill`]: a plan built with the free
    /// [`plan`] function over a caller-made [`Profile`] must not be redeemable, or its select
    /// values would be typed as if they came from the vault.
    pub(crate) vault_issued: bool,
}

impl FillPlan {
    /// Profile name.
    pub fn profile(&self) -> &str {
        &self.profile
    }
    /// Rows, in form order.
    pub fn items(&self) -> &[PlannedField] {
        &self.items
    }
    /// Rows that will be filled.
    pub fn to_fill(&self) -> impl Iterator<Item = &PlannedField> {
        self.items.iter().filter(|i| i.decision == Decision::Fill)
    }

    /// A compact text rendering for the agent. Sensitive values read "(value not shown)".
    /// Labels are page-authored and quoted; the MCP layer still wraps this in its envelope.
    pub fn render(&self) -> String {
        let ready = self.to_fill().count();
        let mut out = format!(
            "profile {:?} · {ready} of {} fields ready\n",
            self.profile,
            self.items.len()
        );
        for i in &self.items {
            let label: String = i
                .display_label
                .chars()
                .filter(|c| !c.is_control())
                .take(60)
                .collect();
            let field = i.field.map(ProfileField::as_str).unwrap_or("-");
            let pct = (i.confidence * 100.0).round() as u32;
            let tail = match i.decision {
                Decision::Fill => match (&i.preview, i.is_sensitive()) {
                    (_, true) => "(from profile, value not shown)".to_owned(),
                    (Some(v), false) => v.replace('\n', ", "),
                    (None, false) => "(select option)".to_owned(),
                },
                Decision::LowConfidence => "LOW CONFIDENCE, not filled".to_owned(),
                Decision::Skip(r) => format!("SKIP: {r:?}"),
            };
            out.push_str(&format!("{} {label:?} -> {field} ~{pct}%: {tail}\n", i.field_ref));
        }
        out
    }
}

/// Builds a fill plan for `fields` from `profile`.
pub fn plan(profile: &Profile, fields: &[FieldDescriptor]) -> FillPlan {
    let items = fields.iter().map(|f| plan_one(profile, f)).collect();
    FillPlan {
        profile: profile.name.clone(),
        items,
        vault_issued: false,
    }
}

fn display_label(f: &FieldDescriptor) -> String {
    [&f.label, &f.aria_label, &f.placeholder, &f.name, &f.id]
        .into_iter()
        .flatten()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .to_owned()
}

fn plan_one(profile: &Profile, f: &FieldDescriptor) -> PlannedField {
    let mut row = PlannedField {
        field_ref: f.field_ref.clone(),
        display_label: display_label(f),
        field: None,
        confidence: 0.0,
        source: None,
        decision: Decision::Skip(SkipReason::NoMatch),
        preview: None,
        select_value: None,
    };
    let m = classify(f);
    let (field, confidence, source) = match m {
        Classified::Skip(r) => {
            row.decision = Decision::Skip(r);
            return row;
        }
        Classified::Match(field, c, s) => (field, c, s),
    };
    row.field = Some(field);
    row.confidence = confidence;
    row.source = Some(source);
    if confidence < FILL_THRESHOLD {
        row.decision = Decision::LowConfidence;
        return row;
    }
    let Some(value) = profile.value(field) else {
        row.decision = Decision::Skip(SkipReason::NoValue);
        return row;
    };
    if f.tag.eq_ignore_ascii_case("select") {
        match choose_option(profile, field, &value, &f.options) {
            Some(v) => row.select_value = Some(SecretString::new(v)),
            None => {
                row.decision = Decision::Skip(SkipReason::NoMatchingOption);
                return row;
            }
        }
    }
    row.decision = Decision::Fill;
    if !field.is_sensitive() {
        row.preview = Some(value);
    }
    row
}

fn choose_option(
    profile: &Profile,
    field: ProfileField,
    value: &str,
    options: &[SelectOption],
) -> Option<String> {
    // For countries, try both forms the profile may hold: pages use codes as values and names
    // as text about equally often.
    let mut wanted = vec![value.to_owned()];
    if matches!(field, ProfileField::CountryCode | ProfileField::CountryName) {
        wanted.extend(profile.value(ProfileField::CountryCode));
        wanted.extend(profile.value(ProfileField::CountryName));
    }
    let norm = |s: &str| s.trim().to_lowercase();
    for w in &wanted {
        let w = norm(w);
        if let Some(o) = options
            .iter()
            .find(|o| !o.value.is_empty() && (norm(&o.value) == w || norm(&o.text) == w))
        {
            return Some(o.value.clone());
        }
    }
    None
}

enum Classified {
    Match(ProfileField, f32, MatchSource),
    Skip(SkipReason),
}

/// Lowercases, splits camelCase and punctuation into single spaces, pads with spaces so
/// phrase matching can use `" word "` boundaries.
fn normalize(s: &str) -> String {
    let mut out = String::from(" ");
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                out.push(' ');
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            out.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !out.ends_with(' ') {
                out.push(' ');
            }
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

fn has(text: &str, phrase: &str) -> bool {
    text.contains(&format!(" {phrase} "))
}

fn has_any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| has(text, p))
}

fn classify(f: &FieldDescriptor) -> Classified {
    let ty = f.input_type.as_deref().unwrap_or("text").to_ascii_lowercase();
    let tag = f.tag.to_ascii_lowercase();
    match ty.as_str() {
        "password" => return Classified::Skip(SkipReason::Credential),
        "file" => return Classified::Skip(SkipReason::File),
        "hidden" | "submit" | "button" | "reset" | "image" | "checkbox" | "radio" | "range" | "color" => {
            return Classified::Skip(SkipReason::NotIdentity);
        }
        _ => {}
    }
    let all_text = normalize(&format!(
        "{} {} {} {} {}",
        f.label.as_deref().unwrap_or(""),
        f.aria_label.as_deref().unwrap_or(""),
        f.placeholder.as_deref().unwrap_or(""),
        f.name.as_deref().unwrap_or(""),
        f.id.as_deref().unwrap_or("")
    ));
    // Demographic questions are checked even before autocomplete: `autocomplete="sex"` is a
    // real token, and it is still not ours to answer.
    if has_any(
        &all_text,
        &[
            "gender",
            "sex",
            "race",
            "ethnicity",
            "ethnic",
            "hispanic",
            "latino",
            "veteran",
            "disability",
            "disabled",
            "sexual orientation",
            "pronouns",
            "eeo",
            "eeoc",
        ],
    ) {
        return Classified::Skip(SkipReason::Demographic);
    }
    if let Some(ac) = &f.autocomplete {
        match autocomplete_field(ac) {
            Ac::Field(field) => return Classified::Match(field, 0.98, MatchSource::Autocomplete),
            Ac::Skip(r) => return Classified::Skip(r),
            Ac::Unknown => {}
        }
    }
    if tag == "textarea" || tag == "contenteditable" {
        return Classified::Skip(SkipReason::FreeText);
    }
    if f.max_length.is_some_and(|m| m > 500) || looks_like_question(f, &ty) {
        return Classified::Skip(SkipReason::FreeText);
    }
    if has_any(
        &all_text,
        &[
            "card number",
            "cardnumber",
            "cc",
            "credit card",
            "cvv",
            "cvc",
            "csc",
            "security code",
            "expiration",
            "expiry",
            "exp date",
            "name on card",
            "cardholder",
            "card holder",
        ],
    ) {
        return Classified::Skip(SkipReason::Payment);
    }
    if has_any(
        &all_text,
        &[
            "username",
            "user name",
            "login",
            "otp",
            "one time code",
            "verification code",
            "2fa",
            "passcode",
        ],
    ) {
        return Classified::Skip(SkipReason::Credential);
    }
    if has_any(
        &all_text,
        &[
            "discount",
            "coupon",
            "promo",
            "gift card",
            "referral code",
            "captcha",
            "search",
            "salary",
            "compensation",
        ],
    ) {
        return Classified::Skip(SkipReason::NotIdentity);
    }

    // Per-source heuristic hits, each weighted by how much authors mean it.
    let sources: [(Option<&str>, f32, MatchSource); 5] = [
        (f.label.as_deref(), 0.85, MatchSource::Label),
        (f.aria_label.as_deref(), 0.85, MatchSource::Label),
        (f.name.as_deref(), 0.75, MatchSource::NameOrId),
        (f.id.as_deref(), 0.7, MatchSource::NameOrId),
        (f.placeholder.as_deref(), 0.6, MatchSource::Placeholder),
    ];
    let mut hits: Vec<(ProfileField, f32, MatchSource)> = Vec::new();
    for (text, weight, src) in sources {
        let Some(text) = text else { continue };
        if let Some((field, strength)) = heuristic(&normalize(text)) {
            hits.push((field, weight * strength, src));
        }
    }
    match ty.as_str() {
        "email" => hits.push((ProfileField::Email, 0.9, MatchSource::InputType)),
        "tel" => hits.push((ProfileField::Phone, 0.8, MatchSource::InputType)),
        _ => {}
    }
    let Some(&(best, _, _)) = hits.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Classified::Skip(SkipReason::NoMatch);
    };
    let agreeing: Vec<_> = hits.iter().filter(|h| h.0 == best).collect();
    let top = agreeing.iter().map(|h| h.1).fold(0.0, f32::max);
    let source = agreeing
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|h| h.2)
        .expect("non-empty");
    // Agreement raises confidence, but only across kinds of evidence: `name` and `id` are usually
    // the same token typed twice by one developer, not two independent witnesses.
    let kinds: std::collections::BTreeSet<u8> = agreeing.iter().map(|h| h.2 as u8).collect();
    let mut conf = (top + 0.05 * (kinds.len() as f32 - 1.0)).min(0.95);
    // Disagreement between sources means the page is telling us two things; trust it less.
    if hits.iter().any(|h| h.0 != best && h.1 >= 0.6) {
        conf -= 0.2;
    }
    if conf < REPORT_THRESHOLD {
        return Classified::Skip(SkipReason::NoMatch);
    }
    Classified::Match(best, conf, source)
}

fn looks_like_question(f: &FieldDescriptor, ty: &str) -> bool {
    // Typed inputs (email, tel, date) are identity-shaped whatever their label says.
    if matches!(ty, "email" | "tel" | "date" | "number" | "url") {
        return false;
    }
    let label = f
        .label
        .as_deref()
        .or(f.aria_label.as_deref())
        .unwrap_or("")
        .trim();
    let words = label.split_whitespace().count();
    if words == 0 {
        return false;
    }
    let lower = label.to_lowercase();
    let interrogative = [
        "why ",
        "how ",
        "what ",
        "describe",
        "tell us",
        "explain",
        "please share",
        "please describe",
        "briefly",
        "in a few",
        "do you",
        "are you",
        "have you",
        "will you",
        "would you",
        "is there",
        "which ",
    ]
    .iter()
    .any(|p| lower.starts_with(p));
    let question = lower.trim_end_matches(['*', ' ']).ends_with('?');
    (question && words >= 3) || (interrogative && words >= 4) || words > 12
}

/// Returns a field and a strength multiplier (1.0 for specific phrases, lower for generic).
fn heuristic(t: &str) -> Option<(ProfileField, f32)> {
    use ProfileField as F;
    if has_any(
        t,
        &[
            "ssn",
            "social security",
            "national insurance",
            "national id",
            "tax id",
            "tin",
        ],
    ) {
        return Some((F::NationalId, 1.0));
    }
    if has_any(
        t,
        &[
            "date of birth",
            "birth date",
            "birthdate",
            "birthday",
            "dob",
            "bday",
            "born",
        ],
    ) {
        return Some((F::DateOfBirth, 1.0));
    }
    if has_any(t, &["email", "e mail", "mail address", "emailaddress"]) {
        return Some((F::Email, 1.0));
    }
    // camelCase splitting turns "LinkedIn" into "linked in", so match both spellings.
    if has_any(t, &["linkedin", "linked in"]) {
        return Some((F::LinkedIn, 1.0));
    }
    if has_any(t, &["github", "git hub"]) {
        return Some((F::GitHub, 1.0));
    }
    if has_any(
        t,
        &[
            "website",
            "web site",
            "portfolio",
            "homepage",
            "personal site",
            "url",
        ],
    ) {
        return Some((F::Website, 0.95));
    }
    if has_any(
        t,
        &[
            "phone",
            "telephone",
            "tel",
            "mobile",
            "cell",
            "phone number",
            "phonenumber",
        ],
    ) {
        // The code and device-type widgets around a phone number are not the number.
        if has_any(t, &["code", "device type", "phone type", "extension", "ext"]) {
            return None;
        }
        return Some((F::Phone, 1.0));
    }
    if has_any(
        t,
        &[
            "address line 2",
            "address 2",
            "address2",
            "addr2",
            "line 2",
            "apt",
            "apartment",
            "suite",
            "unit",
            "flat",
        ],
    ) {
        return Some((F::AddressLine2, 1.0));
    }
    if has_any(t, &["address line 3", "address 3", "address3", "line 3"]) {
        return Some((F::AddressLine3, 1.0));
    }
    if has_any(
        t,
        &[
            "zip",
            "zip code",
            "zipcode",
            "postal",
            "postcode",
            "post code",
            "postal code",
            "postalcode",
        ],
    ) {
        return Some((F::PostalCode, 1.0));
    }
    if has_any(t, &["city", "town", "suburb", "locality"]) {
        return Some((F::City, 1.0));
    }
    if has_any(t, &["state", "province", "region", "county", "prefecture"]) && !has(t, "country") {
        return Some((F::Region, 0.95));
    }
    if has_any(t, &["country", "nation"]) {
        return Some((F::CountryCode, 0.95));
    }
    if has_any(
        t,
        &[
            "address line 1",
            "address 1",
            "address1",
            "addr1",
            "street",
            "street address",
            "address",
            "addr",
        ],
    ) {
        if has_any(t, &["ip", "web", "billing same", "same as"]) {
            return None;
        }
        return Some((F::AddressLine1, 0.95));
    }
    if has_any(t, &["job title", "current title", "position title", "jobtitle"]) {
        return Some((F::JobTitle, 1.0));
    }
    if has_any(
        t,
        &[
            "company",
            "organization",
            "organisation",
            "employer",
            "org",
            "current company",
        ],
    ) {
        return Some((F::Organization, 0.95));
    }
    let person = !has_any(
        t,
        &[
            "company",
            "business",
            "user",
            "file",
            "card",
            "school",
            "university",
            "employer",
            "reference",
            "referrer",
            "referred",
            "refer",
            "who",
            "emergency",
            "contact",
            "manager",
            "recruiter",
            "friend",
            "pet",
            "project",
            "team",
            "display",
            "screen",
            "nick",
            "nickname",
            "maiden",
            "preferred",
        ],
    );
    if !person {
        return None;
    }
    if has_any(
        t,
        &[
            "first name",
            "firstname",
            "given name",
            "givenname",
            "forename",
            "fname",
            "first",
            "given",
        ],
    ) {
        return Some((F::GivenName, 1.0));
    }
    if has_any(
        t,
        &["middle name", "middle initial", "middlename", "middle", "mname"],
    ) {
        return Some((F::AdditionalName, 1.0));
    }
    if has_any(
        t,
        &[
            "last name",
            "lastname",
            "surname",
            "family name",
            "familyname",
            "lname",
            "last",
        ],
    ) {
        return Some((F::FamilyName, 1.0));
    }
    if has_any(
        t,
        &[
            "full name",
            "fullname",
            "legal name",
            "your name",
            "complete name",
        ],
    ) {
        return Some((F::FullName, 1.0));
    }
    if has(t, "name") {
        // A bare "Name" is usually the full name, but it is the weakest hint we accept.
        return Some((F::FullName, 0.9));
    }
    if has_any(t, &["title", "prefix", "salutation"]) && has_any(t, &["prefix", "salutation", "mr", "ms"]) {
        return Some((F::HonorificPrefix, 0.9));
    }
    None
}

enum Ac {
    Field(ProfileField),
    Skip(SkipReason),
    Unknown,
}

/// Parses an `autocomplete` attribute per the HTML spec's token order:
/// `[section-*] [shipping|billing] [home|work|mobile|fax|pager] field [webauthn]`.
fn autocomplete_field(raw: &str) -> Ac {
    use ProfileField as F;
    let lower = raw.to_ascii_lowercase();
    let tokens: Vec<&str> = lower
        .split_ascii_whitespace()
        .filter(|t| {
            !t.starts_with("section-")
                && !matches!(
                    *t,
                    "shipping" | "billing" | "home" | "work" | "mobile" | "fax" | "pager" | "webauthn"
                )
        })
        .collect();
    let Some(&token) = tokens.last() else {
        return Ac::Unknown;
    };
    Ac::Field(match token {
        "honorific-prefix" => F::HonorificPrefix,
        "given-name" => F::GivenName,
        "additional-name" => F::AdditionalName,
        "family-name" => F::FamilyName,
        "name" => F::FullName,
        "email" => F::Email,
        "tel" => F::Phone,
        "tel-national" | "tel-local" => F::PhoneNational,
        "street-address" => F::StreetAddress,
        "address-line1" => F::AddressLine1,
        "address-line2" => F::AddressLine2,
        "address-line3" => F::AddressLine3,
        "address-level2" => F::City,
        "address-level1" => F::Region,
        "postal-code" => F::PostalCode,
        "country" => F::CountryCode,
        "country-name" => F::CountryName,
        "organization" => F::Organization,
        "organization-title" => F::JobTitle,
        "bday" => F::DateOfBirth,
        "bday-day" => F::BirthDay,
        "bday-month" => F::BirthMonth,
        "bday-year" => F::BirthYear,
        "url" => F::Website,
        "username" | "current-password" | "new-password" | "one-time-code" => {
            return Ac::Skip(SkipReason::Credential);
        }
        t if t.starts_with("cc-") || t.starts_with("transaction-") => return Ac::Skip(SkipReason::Payment),
        "sex" => return Ac::Skip(SkipReason::Demographic),
        // `off`/`on` say nothing about the field's meaning (and `off` is widely misused to
        // fight browser autofill), so fall through to heuristics.
        _ => return Ac::Unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(r: &str, label: &str) -> FieldDescriptor {
        FieldDescriptor {
            field_ref: r.into(),
            tag: "input".into(),
            label: Some(label.into()),
            ..Default::default()
        }
    }

    #[test]
    fn normalize_splits_camel_and_punctuation() {
        assert_eq!(normalize("firstName"), " first name ");
        assert_eq!(
            normalize("job_application[last_name]"),
            " job application last name "
        );
        assert_eq!(
            normalize("Address Line 2 (optional)"),
            " address line 2 optional "
        );
    }

    #[test]
    fn autocomplete_wins_over_label() {
        let mut f = input("e1", "City");
        f.autocomplete = Some("section-ship shipping postal-code".into());
        let p = plan(&Profile::new("p").with(ProfileField::PostalCode, "94110"), &[f]);
        assert_eq!(p.items()[0].field(), Some(ProfileField::PostalCode));
        assert_eq!(p.items()[0].source(), Some(MatchSource::Autocomplete));
    }

    #[test]
    fn question_shaped_labels_are_free_text() {
        for q in [
            "Why do you want this role?",
            "What is your job title preference?",
            "Describe a project you led at your current company",
            "Are you willing to relocate to our company headquarters?",
        ] {
            let p = plan(
                &Profile::new("p").with(ProfileField::JobTitle, "Director"),
                &[input("e", q)],
            );
            assert_eq!(
                p.items()[0].decision(),
                Decision::Skip(SkipReason::FreeText),
                "{q}"
            );
        }
    }

    #[test]
    fn derived_values() {
        let p = Profile::new("p")
            .with(ProfileField::GivenName, "Ada")
            .with(ProfileField::FamilyName, "Lovelace")
            .with(ProfileField::Phone, "+44 20 7946 0018")
            .with(ProfileField::DateOfBirth, "1815-12-10");
        assert_eq!(p.value(ProfileField::FullName).as_deref(), Some("Ada Lovelace"));
        assert_eq!(
            p.value(ProfileField::PhoneNational).as_deref(),
            Some("20 7946 0018")
        );
        assert_eq!(p.value(ProfileField::BirthMonth).as_deref(), Some("12"));
        assert_eq!(p.value(ProfileField::BirthYear).as_deref(), Some("1815"));
    }

    #[test]
    fn sensitive_values_never_previewed() {
        let mut f = input("e1", "Date of birth");
        f.input_type = Some("date".into());
        let p = plan(
            &Profile::new("p").with(ProfileField::DateOfBirth, "1990-01-05"),
            &[f],
        );
        let row = &p.items()[0];
        assert_eq!(row.decision(), Decision::Fill);
        assert!(row.is_sensitive());
        assert_eq!(row.preview(), None);
        assert!(!p.render().contains("1990"));
        assert!(!format!("{p:?}").contains("1990"));
    }

    #[test]
    fn render_reports_every_row_with_reason() {
        let mut first = input("e3", "First name");
        first.autocomplete = Some("given-name".into());
        let mut apt = input("e8", "Apartment, suite, etc.");
        apt.autocomplete = Some("address-line2".into());
        let mut dob = input("e16", "Date of birth");
        dob.input_type = Some("date".into());
        let mut why = input("e20", "Why do you want this role?");
        why.tag = "textarea".into();
        let p = plan(
            &Profile::new("Demo")
                .with(ProfileField::GivenName, "Brad")
                .with(ProfileField::DateOfBirth, "1990-01-05"),
            &[first, apt, dob, why],
        );
        let r = p.render();
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "profile \"Demo\" · 2 of 4 fields ready");
        assert_eq!(lines[1], "e3 \"First name\" -> givenName ~98%: Brad");
        assert_eq!(
            lines[2],
            "e8 \"Apartment, suite, etc.\" -> addressLine2 ~98%: SKIP: NoValue"
        );
        assert_eq!(
            lines[3],
            "e16 \"Date of birth\" -> dateOfBirth ~85%: (from profile, value not shown)"
        );
        assert_eq!(
            lines[4],
            "e20 \"Why do you want this role?\" -> - ~0%: SKIP: FreeText"
        );
    }

    #[test]
    fn select_options_match_by_code_or_name() {
        let mut f = input("e1", "Country");
        f.tag = "select".into();
        f.options = vec![
            SelectOption {
                value: "".into(),
                text: "Choose".into(),
            },
            SelectOption {
                value: "840".into(),
                text: "United States".into(),
            },
        ];
        let profile = Profile::new("p")
            .with(ProfileField::CountryCode, "US")
            .with(ProfileField::CountryName, "United States");
        let p = plan(&profile, &[f.clone()]);
        assert_eq!(p.items()[0].decision(), Decision::Fill);
        assert_eq!(
            p.items()[0].select_value.as_ref().map(|v| v.expose()),
            Some("840")
        );
        f.options.truncate(1);
        assert_eq!(
            plan(&profile, &[f]).items()[0].decision(),
            Decision::Skip(SkipReason::NoMatchingOption)
        );
    }
}
