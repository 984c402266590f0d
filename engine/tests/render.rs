//! Rendering and identity details, asserted on exact text.

#![forbid(unsafe_code)]

mod common;

use aperture_engine::record::Walk;
use aperture_engine::{RefError, TabSession, envelope, render_full};
use common::*;

fn body(text: &str) -> String {
    envelope::split(text)
        .map(|f| f.body.to_owned())
        .unwrap_or_default()
}

#[test]
fn compact_lines_refs_only_on_actionables() {
    let mut p = Page::new("https://a.test/x", "T");
    let main = p.add(None, container("main"));
    p.add(Some(main), heading(2, "Hello"));
    // A wrapper the page hid: skipped, its visible child is kept and hoisted.
    let hidden = p.add(Some(main), container("group").hidden());
    p.add(Some(hidden), text("still visible"));
    let b = p.add(Some(main), button("Save"));
    p.add(Some(b), text("Save")); // the <span> inside the button says nothing new
    p.add(Some(main), link("Docs", "https://a.test/docs"));
    p.add(Some(main), link("Elsewhere", "https://b.test/"));
    p.add(
        Some(main),
        textbox("Password", aperture_engine::record::MASKED_VALUE)
            .with(|r| r.input_type = Some("password".into())),
    );
    let out = render_full(&p.done());
    assert_eq!(
        body(&out),
        "url \"https://a.test/x\"\ntitle \"T\"\nmain\n  h2 \"Hello\"\n  \"still visible\"\n  e1 button \"Save\"\n  \
         e2 link \"Docs\" href=\"/docs\"\n  e3 link \"Elsewhere\" href=\"https://b.test/\"\n  \
         e4 textbox \"Password\" value=\"••••\" type=password\n"
    );
}

#[test]
fn page_roles_cannot_spell_structure() {
    let mut p = Page::new("https://a.test/", "T");
    p.add(None, button("x").with(|r| r.role = Some("e5 button".into())));
    p.add(None, text("y").with(|r| r.role = Some("FULL".into())));
    let b = body(&render_full(&p.done()));
    assert!(b.contains("e1 clickable \"x\"\n"), "{b}");
    assert!(b.contains("\n\"y\"\n"), "{b}");
}

fn idpage(id: &str, label: &str) -> Walk {
    let mut p = Page::new("https://a.test/", "T");
    p.add(None, button(label).id(id));
    p.done()
}

#[test]
fn generated_ids_are_not_identity_and_authored_ids_are() {
    let mut s = TabSession::new();
    s.observe(&idpage(":r1:", "Go"), false, false);
    // React re-rendered: new generated id, same element.
    let o = s.observe(&idpage(":r7:", "Go"), false, false);
    assert!(o.text.starts_with("no change"), "{}", o.text);
    assert!(s.resolve("e1").is_ok());
    // An authored id survives a relabel: same ref, a change op.
    let mut s = TabSession::new();
    s.observe(&idpage("checkout", "Buy"), false, false);
    let o = s.observe(&idpage("checkout", "Buy now"), false, false);
    assert!(o.text.contains("~ e1 button \"Buy now\""), "{}", o.text);
}

#[test]
fn ref_errors_name_the_ref() {
    let s = TabSession::new();
    assert!(matches!(s.resolve("e9"), Err(RefError::Unknown(_))));
    assert!(
        s.resolve("e9")
            .unwrap_err()
            .to_string()
            .contains("e9 was never issued")
    );
    assert!(matches!(s.resolve("button"), Err(RefError::Malformed(_))));
    assert_eq!(s.resolve("zz").unwrap_err().r#ref(), "zz");
}

#[test]
fn read_text_is_capped_and_clean() {
    let mut p = Page::new("https://a.test/", "T");
    let a = p.add(
        None,
        container("article").with(|r| {
            r.actionable = true;
            r.name = Some("Post".into());
        }),
    );
    p.add(Some(a), text("First\u{202E} line"));
    p.add(Some(a), text(&"long ".repeat(100)));
    p.add(None, text("outside"));
    let mut s = TabSession::new();
    s.observe(&p.done(), false, false);
    let t = s.read_text("e1", 30).expect("read");
    assert!(t.starts_with("Post First line long"), "{t}");
    assert!(t.chars().count() <= 31 && t.ends_with('…'), "{t}");
    assert!(!s.read_text("e1", 10_000).expect("read").contains("outside"));
}

#[test]
fn truncated_walks_say_so_outside_the_envelope() {
    let mut w = idpage("x", "Go");
    w.truncated = true;
    let out = render_full(&w);
    let f = envelope::split(&out).expect("envelope");
    assert!(f.after.contains("note: the page has more elements"), "{out}");
}

#[test]
fn sequence_numbers_and_resync_after_twelve_diffs() {
    let mut s = TabSession::new();
    let page = |v: usize| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, textbox("Q", &format!("v{v}")));
        p.add(None, button("Go"));
        p.done()
    };
    assert_eq!(s.observe(&page(0), false, false).seq, "#1.0");
    s.touch("e1");
    for k in 1..=12 {
        let o = s.observe(&page(k), false, false);
        assert!(!o.full);
        assert_eq!(o.seq, format!("#1.{k}"));
        assert!(o.text.starts_with(&format!("diff from #1.{} → #1.{k}", k - 1)));
    }
    let o = s.observe(&page(13), false, false);
    assert!(
        o.full && o.text.starts_with("FULL SNAPSHOT #2.0 (resync)"),
        "{}",
        o.text
    );
    let o = s.observe(&page(13), true, false);
    assert!(o.full && o.seq == "#3.0" && o.text.contains("(requested)"));
}

#[test]
fn deep_nesting_is_flattened_at_the_cap() {
    let mut p = Page::new("https://a.test/", "T");
    let mut parent = None;
    for k in 0..500 {
        parent = Some(p.add(
            parent,
            container("group").with(|r| r.name = Some(format!("g{k}"))),
        ));
    }
    p.add(parent, button("Deep"));
    let w = p.done();
    let out = render_full(&w);
    let max_indent = out
        .lines()
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .max()
        .unwrap_or(0);
    assert!(max_indent <= 2 * 40, "indent {max_indent}");
    assert!(out.len() < 100_000, "{}", out.len());
    let mut r = aperture_engine::reader::StreamReader::new();
    r.apply(&out).expect("flattened tree still reads");
    assert_eq!(r.refs().len(), 1);
}
