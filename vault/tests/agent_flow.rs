//! The agent-facing flows end to end: listing, origin binding, grants and their redemption.

#![forbid(unsafe_code)]

use std::fs;
use std::path::PathBuf;

use aperture_vault::*;

struct Fixture {
    dir: PathBuf,
    vault: Vault,
}
impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn o(s: &str) -> Origin {
    Origin::parse(s).unwrap()
}

fn fixture(tag: &str) -> Fixture {
    let dir = std::env::temp_dir().join(format!("apv-agent-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let vault =
        Vault::create_with_params(dir.join("a.vault"), "pp", KdfParams::insecure_fast_for_tests()).unwrap();
    for (origin, label, user, pw) in [
        (
            "https://accounts.google.com/signin",
            "Google",
            "ada@gmail.com",
            "google-pw-1",
        ),
        (
            "https://alice.github.io/admin",
            "Alice's page",
            "alice",
            "alice-pw-1",
        ),
        ("https://bob.github.io/", "Bob's page", "bob", "bob-pw-1"),
        ("https://github.com/login", "GitHub", "ada", "gh-pw-1"),
    ] {
        vault
            .add_entry(NewEntry {
                origin: &o(origin),
                label,
                username: user,
                password: pw.into(),
                totp: None,
            })
            .unwrap();
    }
    Fixture { dir, vault }
}

fn labels(v: &AgentView, page: &str) -> Vec<String> {
    v.entries_for_origin(&o(page))
        .unwrap()
        .into_iter()
        .map(|e| e.label)
        .collect()
}

#[test]
fn listing_is_scoped_to_the_page_site() {
    let f = fixture("list");
    let a = f.vault.agent_view();
    assert_eq!(labels(&a, "https://mail.google.com/"), ["Google"]);
    assert_eq!(labels(&a, "https://alice.github.io/"), ["Alice's page"]);
    assert_eq!(labels(&a, "https://bob.github.io/x"), ["Bob's page"]);
    assert_eq!(labels(&a, "https://github.com/settings"), ["GitHub"]);
    assert!(labels(&a, "https://evil.com/").is_empty());
    assert!(
        labels(&a, "http://accounts.google.com/").is_empty(),
        "https entry not offered on http"
    );
    assert!(labels(&a, "https://google.com.evil.net/").is_empty());
}

#[test]
fn cross_site_fill_is_terminal_and_indistinguishable_from_unknown_id() {
    let f = fixture("cross");
    let a = f.vault.agent_view();
    let google = a.entries_for_origin(&o("https://accounts.google.com")).unwrap()[0]
        .id
        .clone();
    let alice = a.entries_for_origin(&o("https://alice.github.io")).unwrap()[0]
        .id
        .clone();
    let evil = o("https://evil.com/phish");
    let err_known = a.request_fill(&google, &evil, FillTarget::Login).unwrap_err();
    let err_unknown = a
        .request_fill(
            &EntryId::parse("e0123456789abcdef").unwrap(),
            &evil,
            FillTarget::Login,
        )
        .unwrap_err();
    assert_eq!(err_known, AgentError::NotAvailable);
    assert_eq!(err_known, err_unknown);
    assert_eq!(err_known.to_string(), err_unknown.to_string());
    // Sibling tenant on a private suffix: refused.
    assert_eq!(
        a.request_fill(&alice, &o("https://bob.github.io"), FillTarget::Login)
            .unwrap_err(),
        AgentError::NotAvailable
    );
    // The human can see the attempts.
    let refused = f
        .vault
        .audit_log()
        .into_iter()
        .filter(|e| matches!(e, AuditEvent::FillRefused { .. }))
        .count();
    assert_eq!(refused, 3);
}

#[test]
fn grant_redeems_once_for_the_same_site_only() {
    let f = fixture("grant");
    let a = f.vault.agent_view();
    let filler = f.vault.filler();
    let page = o("https://www.google.com/login");
    let id = a.entries_for_origin(&page).unwrap()[0].id.clone();

    let g = a.request_fill(&id, &page, FillTarget::Login).unwrap();
    assert_eq!(g.label(), "Google");
    // Debug of a grant leaks nothing.
    assert!(!format!("{g:?}").contains("google-pw"));
    let s = filler.redeem(g, &o("https://accounts.google.com/x")).unwrap();
    assert_eq!(s.username(), Some("ada@gmail.com"));
    assert_eq!(s.password(), Some("google-pw-1"));
    assert!(!format!("{s:?}").contains("google-pw"));

    // Page navigated to another site between grant and fill: refused.
    let g = a.request_fill(&id, &page, FillTarget::Login).unwrap();
    assert_eq!(
        filler.redeem(g, &o("https://evil.com")).unwrap_err(),
        FillError::OriginMismatch
    );
}

#[test]
fn totp_fill_goes_through_a_grant() {
    let f = fixture("totp");
    let a = f.vault.agent_view();
    let page = o("https://github.com/sessions/two-factor");
    let id = a.entries_for_origin(&page).unwrap()[0].id.clone();
    assert_eq!(
        a.request_fill(&id, &page, FillTarget::OneTimeCode).unwrap_err(),
        AgentError::NotAvailable
    );
    f.vault
        .set_totp(
            &id,
            Some(
                Totp::from_uri(
                    "otpauth://totp/GitHub:ada?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=GitHub",
                )
                .unwrap(),
            ),
        )
        .unwrap();
    assert!(a.entries_for_origin(&page).unwrap()[0].has_totp);
    let g = a.request_fill(&id, &page, FillTarget::OneTimeCode).unwrap();
    let s = f.vault.filler().redeem(g, &page).unwrap();
    let code = s.one_time_code().unwrap();
    assert_eq!(code.len(), 6);
    assert!(code.bytes().all(|b| b.is_ascii_digit()));
    assert_eq!(s.password(), None);
}

#[test]
fn generated_password_is_saved_to_its_origin_and_only_fillable_there() {
    let f = fixture("gen");
    let a = f.vault.agent_view();
    let page = o("https://signup.example.org/register");
    let g = a
        .generate_password(&page, "Example", Some("ada"), &PasswordPolicy::default())
        .unwrap();
    assert!(g.entropy_bits > 120.0);
    assert_eq!(labels(&a, "https://www.example.org/"), ["Example"]);
    assert!(labels(&a, "https://example.com/").is_empty());
    let secret = f.vault.filler().redeem(g.grant, &page).unwrap();
    let pw = secret.password().unwrap().to_owned();
    assert_eq!(pw.len(), 20);
    // Persisted: survives a reopen, and the human can see it in the vault window.
    let path = f.vault.path();
    let v2 = Vault::open_unlocked(&path, "pp").unwrap();
    assert_eq!(v2.reveal_for_human(&g.id).unwrap().password(), pw);
    assert_eq!(v2.reveal_for_human(&g.id).unwrap().username(), "ada");
}

#[test]
fn attachments_by_id_only() {
    let f = fixture("att");
    let src = f.dir.join("Ada Lovelace CV.pdf");
    fs::write(&src, b"%PDF-1.7 fake cv").unwrap();
    let id = f
        .vault
        .add_attachment(&src, "CV 2026", "application/pdf")
        .unwrap();
    fs::remove_file(&src).unwrap(); // the library holds its own (encrypted) copy
    let a = f.vault.agent_view();
    let list = a.attachments().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].file_name, "Ada Lovelace CV.pdf");
    let grant = a.request_attachment(&list[0].id).unwrap();
    let data = f.vault.filler().redeem_attachment(grant).unwrap();
    assert_eq!(&data.bytes[..], b"%PDF-1.7 fake cv");
    assert_eq!(data.media_type, "application/pdf");
    // Stored encrypted.
    let stored = fs::read_dir(f.dir.join("a.vault.attachments"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    assert!(!String::from_utf8_lossy(&fs::read(stored).unwrap()).contains("PDF"));
    // Unknown ids are refused; the id parser rejects anything path-like outright.
    assert_eq!(AttachmentId::parse("../../etc/passwd"), None);
    assert_eq!(
        a.request_attachment(&AttachmentId::parse("a0000000000000000").unwrap())
            .unwrap_err(),
        AgentError::NotAvailable
    );
    f.vault.remove_attachment(&id).unwrap();
    assert!(a.attachments().unwrap().is_empty());
}

#[test]
fn swapped_attachment_blob_fails_authentication() {
    let f = fixture("attswap");
    let src = f.dir.join("a.txt");
    fs::write(&src, b"first").unwrap();
    let id1 = f.vault.add_attachment(&src, "one", "text/plain").unwrap();
    fs::write(&src, b"second").unwrap();
    let id2 = f.vault.add_attachment(&src, "two", "text/plain").unwrap();
    let dir = f.dir.join("a.vault.attachments");
    fs::copy(dir.join(format!("{id2}.bin")), dir.join(format!("{id1}.bin"))).unwrap();
    let a = f.vault.agent_view();
    let g = a.request_attachment(&id1).unwrap();
    assert!(matches!(
        f.vault.filler().redeem_attachment(g),
        Err(FillError::Attachment(_))
    ));
}

fn job_form() -> Vec<FieldDescriptor> {
    let field = |r: &str, ac: &str, label: &str| FieldDescriptor {
        field_ref: r.into(),
        tag: "input".into(),
        autocomplete: Some(ac.into()),
        label: Some(label.into()),
        ..Default::default()
    };
    vec![
        field("e1", "given-name", "First name"),
        field("e2", "email", "Email"),
        field("e3", "bday", "Date of birth"),
    ]
}

#[test]
fn profile_fill_needs_consent_and_sensitive_fields_never_ride_on_it() {
    let f = fixture("prof");
    f.vault
        .put_profile(
            Profile::new("Demo")
                .with(ProfileField::GivenName, "Brad")
                .with(ProfileField::Email, "brad@example.com")
                .with(ProfileField::DateOfBirth, "1990-01-05"),
        )
        .unwrap();
    let a = f.vault.agent_view();
    let filler = f.vault.filler();
    let page = o("https://jobs.acme.com/apply");
    assert_eq!(a.profiles().unwrap()[0].fields, 3);

    let plan = a.plan_profile_fill("Demo", &job_form()).unwrap();
    let rendered = plan.render();
    assert!(
        rendered.contains("Brad") && !rendered.contains("1990"),
        "{rendered}"
    );

    // First time: every row needs approval.
    let grant = a.request_profile_fill(&plan, &page).unwrap();
    assert!(grant.rows().iter().all(|r| r.needs_approval));
    let fill = filler
        .redeem_profile(grant, &page, &ProfileApproval::rows(["e1", "e2", "e3"]))
        .unwrap();
    let vals: Vec<_> = fill.values().map(|(r, v)| (r.to_owned(), v.to_owned())).collect();
    assert_eq!(vals.len(), 3);
    assert!(vals.contains(&("e3".into(), "1990-01-05".into())));

    // Second time on the same site: non-sensitive rows ride on the earlier approval, DOB does not.
    let grant = a.request_profile_fill(&plan, &page).unwrap();
    let needs: Vec<_> = grant
        .rows()
        .iter()
        .filter(|r| r.needs_approval)
        .map(|r| r.field_ref.as_str())
        .collect();
    assert_eq!(needs, ["e3"]);
    let fill = filler
        .redeem_profile(grant, &page, &ProfileApproval::none())
        .unwrap();
    assert_eq!(fill.values().count(), 2);
    assert_eq!(fill.skipped(), ["e3".to_owned()]);

    // A plan built outside the vault (over a caller-made profile) is not redeemable.
    let forged = aperture_vault::profiles::plan(
        &Profile::new("Demo").with(ProfileField::Email, "x@evil.com"),
        &job_form(),
    );
    assert!(matches!(
        a.request_profile_fill(&forged, &page),
        Err(AgentError::Invalid(_))
    ));

    // Another site starts from scratch.
    let grant = a
        .request_profile_fill(&plan, &o("https://careers.other.com"))
        .unwrap();
    assert!(grant.rows().iter().all(|r| r.needs_approval));
    // And a grant cannot be redeemed on a different site than it was issued for.
    assert_eq!(
        filler
            .redeem_profile(grant, &page, &ProfileApproval::rows(["e1"]))
            .unwrap_err(),
        FillError::OriginMismatch
    );
}

#[test]
fn taint_flow_redacts_what_was_filled() {
    let f = fixture("taint");
    let a = f.vault.agent_view();
    let page = o("https://accounts.google.com");
    let id = a.entries_for_origin(&page).unwrap()[0].id.clone();
    let secret = f
        .vault
        .filler()
        .redeem(a.request_fill(&id, &page, FillTarget::Login).unwrap(), &page)
        .unwrap();
    let mut taint = TaintSet::new();
    taint.add_fill(&secret, &page);
    let snapshot = r#"textbox "Email" value="ada@gmail.com"; textbox "Password" value="google-pw-1""#;
    let red = taint.redact(snapshot, &page);
    assert!(!red.contains("google-pw-1") && !red.contains("ada@gmail.com"));
    assert_eq!(red.matches(REDACTION_MARKER).count(), 2);
}
