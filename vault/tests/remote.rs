//! The vault process's protocol, served by a thread over a socketpair: each request hands out
//! only what it is shaped for.

#![forbid(unsafe_code)]

use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use aperture_vault::remote::{KdfChoice, LoginPart, LoginStatus, RemoteError, RemoteVault};
use aperture_vault::{FillTarget, NewEntry, Origin, Vault};

const PASS: &str = "remote passphrase";

fn served(name: &str) -> (RemoteVault, std::thread::JoinHandle<std::io::Result<()>>, PathBuf) {
    let dir = std::env::temp_dir().join(format!("apv-remote-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("v.vault");
    let (a, mut b) = UnixStream::pair().unwrap();
    let p = path.clone();
    let server = std::thread::spawn(move || aperture_vault::remote::serve(&p, &mut b));
    (RemoteVault::over(a), server, path)
}

fn o(s: &str) -> Origin {
    Origin::parse(s).unwrap()
}

#[test]
fn a_fill_hands_out_only_the_parts_asked_for_the_granted_site() {
    let (r, server, path) = served("fill");
    assert_eq!(r.status(), Ok((false, false)));
    assert_eq!(
        r.entries_for_origin(&o("https://example.com")),
        Err(RemoteError::NoVault)
    );
    r.create(PASS, KdfChoice::InsecureFastForTests).unwrap();
    let page = o("https://www.example.com/login");
    let id = r
        .add_entry(NewEntry {
            origin: &page,
            label: "Work",
            username: "ada",
            password: "s3cret-pw".into(),
            totp: None,
        })
        .unwrap();
    // The agent's list: ids and labels of this site only.
    let list = r.entries_for_origin(&page).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].id, id);
    assert!(r.entries_for_origin(&o("https://evil.test")).unwrap().is_empty());
    assert_eq!(
        r.request_fill(&id, &o("https://evil.test"), FillTarget::Login)
            .err(),
        Some(RemoteError::NotAvailable)
    );

    // A username-only step gets the username and nothing else, one field at a time.
    let g = r.request_fill(&id, &page, FillTarget::Login).unwrap();
    let fill = r.redeem(g, &page, &[LoginPart::Username]).unwrap();
    let v = r.fill_value(fill, &page, LoginPart::Username).unwrap();
    assert_eq!(v.as_str(), "ada");
    assert!(!format!("{v:?}").contains("ada"));
    assert_eq!(
        r.fill_value(fill, &page, LoginPart::Password).err(),
        Some(RemoteError::GrantInvalid),
        "a part the fill was not redeemed for"
    );
    // Focus moved to a frame of another site between two fields: that value is refused.
    assert_eq!(
        r.fill_value(fill, &o("https://evil.test"), LoginPart::Username)
            .err(),
        Some(RemoteError::OriginMismatch)
    );
    r.end_fill(fill).unwrap();
    assert_eq!(
        r.fill_value(fill, &page, LoginPart::Username).err(),
        Some(RemoteError::GrantInvalid),
        "an ended fill hands out nothing"
    );

    // Typing into a frame of another site is refused, and the grant is spent.
    let g = r.request_fill(&id, &page, FillTarget::Login).unwrap();
    let g2 = r.request_fill(&id, &page, FillTarget::Login).unwrap();
    assert_eq!(
        r.redeem(g, &o("https://evil.test"), &[LoginPart::Password]).err(),
        Some(RemoteError::OriginMismatch)
    );
    // A lock voids every grant the vault process holds.
    r.lock().unwrap();
    assert_eq!(r.status(), Ok((true, false)));
    r.unlock(PASS).unwrap();
    assert_eq!(
        r.redeem(g2, &page, &[LoginPart::Password]).err(),
        Some(RemoteError::GrantInvalid)
    );
    // A part the entry does not hold is refused at redemption, before anything is typed.
    let g = r.request_fill(&id, &page, FillTarget::Login).unwrap();
    let fill = r
        .redeem(g, &page, &[LoginPart::Username, LoginPart::Password])
        .unwrap();
    assert_eq!(
        r.fill_value(fill, &page, LoginPart::Password).unwrap().as_str(),
        "s3cret-pw"
    );
    // A lock forgets open fills too.
    r.lock().unwrap();
    r.unlock(PASS).unwrap();
    assert_eq!(
        r.fill_value(fill, &page, LoginPart::Password).err(),
        Some(RemoteError::GrantInvalid)
    );
    let g = r.request_fill(&id, &page, FillTarget::Login).unwrap();
    assert_eq!(
        r.redeem(g, &page, &[LoginPart::OneTimeCode]).err(),
        Some(RemoteError::NoValue)
    );

    // The human's side: reveal on request, undo kept by the vault process.
    assert_eq!(r.password_for_human(&id).unwrap().as_str(), "s3cret-pw");
    assert_eq!(r.login_status(&page, "ada", "s3cret-pw"), Ok(LoginStatus::Saved));
    assert_eq!(
        r.login_status(&page, "ada", "other"),
        Ok(LoginStatus::Changed(id.clone()))
    );
    let d = r.take_entry(&id).unwrap();
    assert_eq!(d.label(), "Work");
    assert!(r.entries().unwrap().is_empty());
    r.restore_entry(d).unwrap();
    assert_eq!(r.entries().unwrap().len(), 1);
    assert_eq!(r.unlock("wrong"), Err(RemoteError::WrongPassphrase));

    // Closing the channel ends the vault process's loop cleanly; what it saved is on disk.
    drop(r);
    server.join().unwrap().unwrap();
    let v = Vault::open_unlocked(&path, PASS).unwrap();
    assert_eq!(v.entries().unwrap()[0].username, "ada");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn an_attachment_is_decrypted_by_the_vault_process_into_the_named_directory() {
    let (r, _server, path) = served("attach");
    r.create(PASS, KdfChoice::InsecureFastForTests).unwrap();
    let dir = path.parent().unwrap();
    let cv = dir.join("cv.pdf");
    std::fs::write(&cv, b"%PDF-1.4 the cv").unwrap();
    let id = r.add_attachment(&cv, "CV", "application/pdf").unwrap();
    std::fs::remove_file(&cv).unwrap();
    let list = r.attachments().unwrap();
    assert_eq!(list[0].file_name, "cv.pdf");
    let g = r.request_attachment(&id).unwrap();
    let staged = r.stage_attachment(g, &dir.join("uploads/1")).unwrap();
    assert_eq!(staged.path, dir.join("uploads/1/cv.pdf"));
    assert_eq!(std::fs::read(&staged.path).unwrap(), b"%PDF-1.4 the cv");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&staged.path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // The grant was single use.
    let g = r.request_attachment(&id).unwrap();
    r.stage_attachment(g, &dir.join("uploads/2")).unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_profile_fill_crosses_one_approved_field_at_a_time() {
    use aperture_vault::{FieldDescriptor, Profile, ProfileField};
    let (r, _server, path) = served("profile");
    r.create(PASS, KdfChoice::InsecureFastForTests).unwrap();
    let mut p = Profile::new("Personal");
    p.set(ProfileField::GivenName, "Ada");
    p.set(ProfileField::Email, "ada@example.org");
    r.put_profile(p).unwrap();
    let field = |r: &str, ac: &str| FieldDescriptor {
        field_ref: r.into(),
        tag: "input".into(),
        autocomplete: Some(ac.into()),
        ..Default::default()
    };
    let page = o("https://jobs.example.com/apply");
    let plan = r
        .plan_profile_fill("Personal", &[field("e1", "given-name"), field("e2", "email")])
        .unwrap();
    assert!(!format!("{plan:?}").contains("Ada"), "a plan carries no value");
    let grant = r.request_profile_fill(plan, &page).unwrap();
    assert!(grant.needs_dialog());
    // The human approved the name only.
    let fill = r.redeem_profile(grant, &page, vec!["e1".into()]).unwrap();
    assert_eq!(fill.refs, ["e1"]);
    assert_eq!(fill.skipped, ["e2"]);
    assert_eq!(
        r.profile_value(fill.fill, &o("https://evil.test"), "e1").err(),
        Some(RemoteError::OriginMismatch)
    );
    assert_eq!(
        r.profile_value(fill.fill, &page, "e2").err(),
        Some(RemoteError::GrantInvalid),
        "a row the human did not approve"
    );
    assert_eq!(r.profile_value(fill.fill, &page, "e1").unwrap().as_str(), "Ada");
    r.end_fill(fill.fill).unwrap();
    assert_eq!(
        r.profile_value(fill.fill, &page, "e1").err(),
        Some(RemoteError::GrantInvalid)
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_stream_that_is_not_the_protocol_ends_the_vault_process() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("apv-remote-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut a, mut b) = UnixStream::pair().unwrap();
    let p = dir.join("v.vault");
    let server = std::thread::spawn(move || aperture_vault::remote::serve(&p, &mut b));
    // A length far over the cap: refused before allocating.
    a.write_all(&u32::MAX.to_be_bytes()).unwrap();
    assert!(server.join().unwrap().is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
