//! The matcher on fixtures modelled on real job-application and checkout markup.

#![forbid(unsafe_code)]

#[path = "support/mini_html.rs"]
mod mini_html;

use aperture_vault::profiles::plan;
use aperture_vault::{
    Decision, FieldDescriptor, FillPlan, KdfParams, MatchSource, Origin, Profile, ProfileApproval,
    ProfileField as F, SkipReason, Vault,
};

fn demo() -> Profile {
    Profile::new("Demo")
        .with(F::GivenName, "Brad")
        .with(F::AdditionalName, "Lee")
        .with(F::FamilyName, "Nguyen")
        .with(F::Email, "brad@example.com")
        .with(F::Phone, "+1 415 555 0134")
        .with(F::AddressLine1, "500 Market St")
        .with(F::City, "San Francisco")
        .with(F::Region, "CA")
        .with(F::PostalCode, "94105")
        .with(F::CountryCode, "US")
        .with(F::CountryName, "United States")
        .with(F::Organization, "Initech")
        .with(F::JobTitle, "Staff Engineer")
        .with(F::LinkedIn, "https://www.linkedin.com/in/brad-example")
        .with(F::GitHub, "https://github.com/brad-example")
        .with(F::Website, "https://brad.example.com")
        .with(F::DateOfBirth, "1990-01-05")
}

fn load(name: &str) -> (Vec<FieldDescriptor>, FillPlan) {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let html = std::fs::read_to_string(path).unwrap();
    let fields = mini_html::fields(&html);
    let p = plan(&demo(), &fields);
    (fields, p)
}

/// What we expect for one control, addressed by its id or name.
enum Want {
    Fill(F, &'static str),
    FillSensitive(F),
    FillSelect(F, &'static str),
    Low,
    Skip(SkipReason),
}

/// Redeems the plan through the real grant path (every row approved) and returns the values the
/// app would type, by field ref.
fn redeemed_values(name: &str, fields: &[FieldDescriptor]) -> std::collections::HashMap<String, String> {
    let dir = std::env::temp_dir().join(format!("apv-forms-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let vault =
        Vault::create_with_params(dir.join("f.vault"), "pp", KdfParams::insecure_fast_for_tests()).unwrap();
    vault.put_profile(demo()).unwrap();
    let agent = vault.agent_view();
    let page = Origin::parse("https://forms.example.com/apply").unwrap();
    let plan = agent.plan_profile_fill("Demo", fields).unwrap();
    let grant = agent.request_profile_fill(&plan, &page).unwrap();
    let refs: Vec<String> = grant.rows().iter().map(|r| r.field_ref.clone()).collect();
    let fill = vault
        .filler()
        .redeem_profile(grant, &page, &ProfileApproval::rows(refs))
        .unwrap();
    let out = fill.values().map(|(r, v)| (r.to_owned(), v.to_owned())).collect();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn check(name: &str, expectations: &[(&str, Want)]) -> FillPlan {
    let (fields, p) = load(name);
    let typed = redeemed_values(name, &fields);
    assert_eq!(
        typed.len(),
        p.to_fill().count(),
        "{name}: redeemed rows differ from planned fills"
    );
    assert_eq!(fields.len(), p.items().len());
    let mut seen = 0;
    for (key, want) in expectations {
        let idx = fields
            .iter()
            .position(|f| f.id.as_deref() == Some(key) || f.name.as_deref() == Some(key))
            .unwrap_or_else(|| panic!("{name}: no control {key}"));
        let row = &p.items()[idx];
        let ctx = format!("{name} {key} ({:?}): {row:?}", row.display_label());
        match want {
            Want::Fill(field, value) => {
                assert_eq!(
                    (row.decision(), row.field()),
                    (Decision::Fill, Some(*field)),
                    "{ctx}"
                );
                assert_eq!(row.preview(), Some(*value), "{ctx}");
                assert_eq!(
                    typed.get(row.field_ref()).map(String::as_str),
                    Some(*value),
                    "{ctx}"
                );
            }
            Want::FillSensitive(field) => {
                assert_eq!(
                    (row.decision(), row.field()),
                    (Decision::Fill, Some(*field)),
                    "{ctx}"
                );
                assert!(row.is_sensitive() && row.preview().is_none(), "{ctx}");
                assert_eq!(
                    typed.get(row.field_ref()).map(String::as_str),
                    Some("1990-01-05"),
                    "{ctx}"
                );
            }
            Want::FillSelect(field, option_value) => {
                assert_eq!(
                    (row.decision(), row.field()),
                    (Decision::Fill, Some(*field)),
                    "{ctx}"
                );
                // For a select the app types the chosen option's value attribute.
                assert_eq!(
                    typed.get(row.field_ref()).map(String::as_str),
                    Some(*option_value),
                    "{ctx}"
                );
            }
            Want::Low => {
                assert_eq!(row.decision(), Decision::LowConfidence, "{ctx}");
                assert!(!typed.contains_key(row.field_ref()), "{ctx}");
            }
            Want::Skip(r) => {
                assert_eq!(row.decision(), Decision::Skip(*r), "{ctx}");
                assert!(!typed.contains_key(row.field_ref()), "{ctx}");
            }
        }
        seen += 1;
    }
    // Every control in the fixture is accounted for, so a new mis-fill cannot hide.
    assert_eq!(seen, fields.len(), "{name}: unasserted controls");
    p
}

#[test]
fn greenhouse_job_application() {
    use Want::*;
    let p = check(
        "greenhouse_application.html",
        &[
            ("first_name", Fill(F::GivenName, "Brad")),
            ("last_name", Fill(F::FamilyName, "Nguyen")),
            ("email", Fill(F::Email, "brad@example.com")),
            ("phone", Fill(F::Phone, "+1 415 555 0134")),
            // autocomplete=off says nothing; the label does. Location is city-shaped here.
            ("job_application_location", Fill(F::City, "San Francisco")),
            ("resume", Skip(SkipReason::File)),
            ("cover_letter", Skip(SkipReason::File)),
            (
                "job_application_answers_attributes_0_text_value",
                Fill(F::LinkedIn, "https://www.linkedin.com/in/brad-example"),
            ),
            (
                "job_application_answers_attributes_1_text_value",
                Fill(F::Website, "https://brad.example.com"),
            ),
            (
                "job_application_answers_attributes_2_text_value",
                Skip(SkipReason::FreeText),
            ),
            // Contains "job title" and "company" but is a question: never "Staff Engineer".
            (
                "job_application_answers_attributes_3_text_value",
                Skip(SkipReason::FreeText),
            ),
            (
                "job_application_answers_attributes_4_boolean_value",
                Skip(SkipReason::FreeText),
            ),
            (
                "job_application_answers_attributes_5_text_value",
                Skip(SkipReason::FreeText),
            ),
            ("job_application_gender", Skip(SkipReason::Demographic)),
            (
                "job_application_hispanic_ethnicity",
                Skip(SkipReason::Demographic),
            ),
            ("job_application_veteran_status", Skip(SkipReason::Demographic)),
            ("job_application_disability_status", Skip(SkipReason::Demographic)),
            ("job_application[mapped_url_token]", Skip(SkipReason::NotIdentity)),
            ("submit_app", Skip(SkipReason::NotIdentity)),
        ],
    );
    assert!(!p.render().contains("Staff Engineer"));
}

#[test]
fn lever_job_application() {
    use Want::*;
    check(
        "lever_application.html",
        &[
            ("resume", Skip(SkipReason::File)),
            ("name", Fill(F::FullName, "Brad Lee Nguyen")),
            ("email", Fill(F::Email, "brad@example.com")),
            ("phone", Fill(F::Phone, "+1 415 555 0134")),
            // A location search box (placeholder "Type to search locations") is a widget,
            // not an address field.
            ("location", Skip(SkipReason::NotIdentity)),
            ("org", Fill(F::Organization, "Initech")),
            (
                "urls[LinkedIn]",
                Fill(F::LinkedIn, "https://www.linkedin.com/in/brad-example"),
            ),
            ("urls[GitHub]", Fill(F::GitHub, "https://github.com/brad-example")),
            ("urls[Portfolio]", Fill(F::Website, "https://brad.example.com")),
            ("urls[Other]", Fill(F::Website, "https://brad.example.com")),
            ("pronouns", Skip(SkipReason::NotIdentity)),
            ("cards[5e1c][field0]", Skip(SkipReason::FreeText)),
            // "Name of the person who referred you": a name field that is not ours.
            ("cards[5e1c][field1]", Skip(SkipReason::NoMatch)),
            ("cards[5e1c][field2]", Skip(SkipReason::NotIdentity)),
            ("comments", Skip(SkipReason::FreeText)),
        ],
    );
}

#[test]
fn workday_application_without_autocomplete() {
    use Want::*;
    check(
        "workday_application.html",
        &[
            ("input-4", Skip(SkipReason::FreeText)),
            ("input-6", FillSelect(F::CountryCode, "a7f2")),
            // A bare "Prefix" is a weak hint for the honorific: reported, not filled.
            ("input-8", Low),
            ("input-9", Fill(F::GivenName, "Brad")),
            ("input-10", Fill(F::AdditionalName, "Lee")),
            ("input-11", Fill(F::FamilyName, "Nguyen")),
            ("input-12", Skip(SkipReason::NoMatch)),
            ("input-14", Fill(F::AddressLine1, "500 Market St")),
            ("input-15", Skip(SkipReason::NoValue)),
            ("input-16", Fill(F::City, "San Francisco")),
            ("input-17", Skip(SkipReason::NoMatchingOption)),
            ("input-18", Fill(F::PostalCode, "94105")),
            ("input-19", Skip(SkipReason::NoMatch)),
            ("input-20", Skip(SkipReason::NoMatch)),
            ("input-21", Fill(F::Phone, "+1 415 555 0134")),
            ("input-22", Fill(F::Email, "brad@example.com")),
            ("input-23", FillSensitive(F::DateOfBirth)),
            ("input-24", Skip(SkipReason::NoMatch)),
            ("input-25", Skip(SkipReason::NotIdentity)),
        ],
    );
}

#[test]
fn shopify_checkout() {
    use Want::*;
    let p = check(
        "shopify_checkout.html",
        &[
            ("email", Fill(F::Email, "brad@example.com")),
            ("marketing_opt_in", Skip(SkipReason::NotIdentity)),
            ("Select0", FillSelect(F::CountryCode, "US")),
            ("TextField0", Fill(F::GivenName, "Brad")),
            ("TextField1", Fill(F::FamilyName, "Nguyen")),
            ("TextField2", Fill(F::Organization, "Initech")),
            ("shipping-address1", Fill(F::AddressLine1, "500 Market St")),
            ("TextField3", Skip(SkipReason::NoValue)),
            ("TextField4", Fill(F::City, "San Francisco")),
            ("Select1", FillSelect(F::Region, "CA")),
            ("TextField5", Fill(F::PostalCode, "94105")),
            ("TextField6", Fill(F::Phone, "+1 415 555 0134")),
            ("number", Skip(SkipReason::Payment)),
            ("expiry", Skip(SkipReason::Payment)),
            ("verification_value", Skip(SkipReason::Payment)),
            // "Name on card" has autocomplete=cc-name: payment, not the profile's full name.
            ("name", Skip(SkipReason::Payment)),
            ("billing_same", Skip(SkipReason::NotIdentity)),
            ("ReductionsInput0", Skip(SkipReason::NotIdentity)),
        ],
    );
    assert!(
        p.items()
            .iter()
            .filter(|i| i.source() == Some(MatchSource::Autocomplete))
            .count()
            >= 10
    );
}

#[test]
fn woocommerce_checkout_heuristics_only() {
    use Want::*;
    let p = check(
        "woocommerce_checkout_legacy.html",
        &[
            ("billing_first_name", Fill(F::GivenName, "Brad")),
            ("billing_last_name", Fill(F::FamilyName, "Nguyen")),
            ("billing_company", Fill(F::Organization, "Initech")),
            ("billing_country", FillSelect(F::CountryCode, "US")),
            ("billing_address_1", Fill(F::AddressLine1, "500 Market St")),
            ("billing_address_2", Skip(SkipReason::NoValue)),
            ("billing_city", Fill(F::City, "San Francisco")),
            ("billing_state", FillSelect(F::Region, "CA")),
            ("billing_postcode", Fill(F::PostalCode, "94105")),
            ("billing_phone", Fill(F::Phone, "+1 415 555 0134")),
            // Only the name attribute says "phone": plausible, reported, not filled.
            ("billing_phone_2", Low),
            ("billing_email", Fill(F::Email, "brad@example.com")),
            ("ship_to_different_address", Skip(SkipReason::NotIdentity)),
            ("order_comments", Skip(SkipReason::FreeText)),
            ("coupon_code", Skip(SkipReason::NotIdentity)),
            ("account_username", Skip(SkipReason::Credential)),
            ("account_password", Skip(SkipReason::Credential)),
        ],
    );
    // No autocomplete anywhere: every fill came from heuristics, with a confidence below the
    // autocomplete level.
    assert!(
        p.to_fill()
            .all(|i| i.source() != Some(MatchSource::Autocomplete) && i.confidence() < 0.98)
    );
}
