//! Rendering and identity details, asserted on exact text.

#![forbid(unsafe_code)]

mod common;

use aperture_engine::reader::StreamReader;
use aperture_engine::record::{SelectOption, Walk};
use aperture_engine::{Mode, RESYNC_CHAIN_FACTOR, RefError, TabSession, envelope, render_full};
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
    let walk = p.done();
    let out = render_full(&walk);
    assert_eq!(
        body(&out),
        "url \"https://a.test/x\"\ntitle \"T\"\nmain\n h2 \"Hello\"\n \"still visible\"\n e1 button \"Save\"\n \
         e2 link \"Docs\"\n e3 link \"Elsewhere\"\n \
         e4 textbox \"Password\" value=\"••••\" type=password\n"
    );
    // With URLs asked for, links carry them; same-origin ones without their origin.
    let mut s = TabSession::new();
    s.set_mode(Mode {
        urls: true,
        ..Mode::default()
    });
    let b = body(&s.observe(&walk, false, false).text);
    assert!(
        b.contains(" e2 link \"Docs\" href=\"/docs\"\n e3 link \"Elsewhere\" href=\"https://b.test/\"\n"),
        "{b}"
    );
}

/// An editable region's text is its value: said once, as `value=` (a contenteditable notes
/// field read `textbox "Notes": "Hello world" value="Hello world"`). Text that differs from
/// the value is still shown.
#[test]
fn an_editable_s_text_is_not_repeated_beside_its_value() {
    let mut p = Page::new("https://a.test/x", "T");
    p.add(
        None,
        textbox("Notes", "Hello world").with(|r| r.text = Some("Hello world".into())),
    );
    p.add(
        None,
        textbox("Other", "typed").with(|r| r.text = Some("Hint shown".into())),
    );
    let out = body(&render_full(&p.done()));
    assert!(
        out.contains("e1 textbox \"Notes\" value=\"Hello world\"\n"),
        "{out}"
    );
    assert!(
        out.contains("e2 textbox \"Other\": \"Hint shown\" value=\"typed\""),
        "{out}"
    );
}

/// A nameless control's hint is a few telling words of its names, not its whole utility
/// class list (a dozen tokens a control on a news page's menu).
#[test]
fn a_nameless_control_s_hint_is_a_few_telling_words() {
    let mut p = Page::new("https://a.test/x", "T");
    p.add(
        None,
        link("", "https://a.test/m").with(|r| {
            r.name = None;
            r.text = None;
            r.class_name = Some("u-link-clean c-list-menu__toggle link-icon js-9f3a".into());
        }),
    );
    p.add(
        None,
        button("").with(|r| {
            r.name = None;
            r.text = None;
            r.class_name = Some("ic icon-trash".into());
        }),
    );
    let out = body(&render_full(&p.done()));
    assert!(out.contains("e1 link hint=\"list menu toggle\"\n"), "{out}");
    assert!(out.contains("e2 button hint=\"trash\"\n"), "{out}");
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
fn sequence_numbers_and_resync_once_the_diffs_outweigh_the_snapshot() {
    let mut s = TabSession::new();
    let page = |v: usize| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, textbox("Q", &format!("v{v}")));
        for k in 0..6 {
            p.add(None, button(&format!("Button number {k}")));
        }
        p.done()
    };
    let first = s.observe(&page(0), false, false);
    assert_eq!(first.seq, "#1.0");
    s.touch("e1");
    let mut chain = 0usize;
    let mut k = 1;
    let resync = loop {
        let o = s.observe(&page(k), false, false);
        if o.full {
            break o;
        }
        assert_eq!(o.seq, format!("#1.{k}"));
        assert!(o.text.starts_with(&format!("diff from #1.{} → #1.{k}", k - 1)));
        chain += o.text.len();
        k += 1;
        assert!(k < 100, "no resync after {k} diffs");
    };
    assert!(
        resync.text.starts_with("FULL SNAPSHOT #2.0 (resync)"),
        "{}",
        resync.text
    );
    // The diffs sent stayed within the factor; one more would have passed it.
    let limit = RESYNC_CHAIN_FACTOR * first.text.len();
    assert!(
        chain <= limit && chain + chain / (k - 1) > limit,
        "{chain} after {} diffs, limit {limit}",
        k - 1
    );
    assert!(k > 4, "resynced after {} diffs of a seven-line page", k - 1);
    let o = s.observe(&page(k), true, false);
    assert!(o.full && o.seq == "#3.0" && o.text.contains("(requested)"));
}

#[test]
fn a_diff_count_cap_resyncs_however_small_the_diffs() {
    let mut s = TabSession::new();
    s.set_max_diffs(3);
    let page = |v: usize| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, textbox("Q", &format!("v{v}")));
        p.add(
            None,
            text(&"A long paragraph that makes the page heavy. ".repeat(40)),
        );
        p.done()
    };
    s.observe(&page(0), false, false);
    s.touch("e1");
    for k in 1..=3 {
        assert!(!s.observe(&page(k), false, false).full);
    }
    let o = s.observe(&page(4), false, false);
    assert!(o.text.starts_with("FULL SNAPSHOT #2.0 (resync)"), "{}", o.text);
}

/// A change past `RESET_CHANGE_FRACTION` of the page is a diff when its diff is well shorter
/// than the re-dump (a tab panel swapped on a small page), and a FULL SNAPSHOT when it is not
/// (the whole page replaced).
#[test]
fn a_large_change_is_a_diff_unless_the_diff_is_as_long_as_the_redump() {
    let page = |panel: &str, rows: usize, chrome: &str| {
        let mut p = Page::new("https://a.test/", "T");
        let nav = p.add(None, container("navigation"));
        for k in 0..6 {
            p.add(
                Some(nav),
                link(
                    &format!("{chrome} section {k} with a long name"),
                    "https://a.test/x",
                ),
            );
        }
        let tp = p.add(None, container("tabpanel").with(|r| r.name = Some(panel.into())));
        for k in 0..rows {
            p.add(Some(tp), text(&format!("{panel} row {k}")));
        }
        p.done()
    };
    let mut run = common::run::Run::new("large");
    run.step(&page("Specs", 3, "Shop"));
    let o = run.step(&page("Reviews", 3, "Shop"));
    assert!(!o.full, "a panel swap should be a diff:\n{}", o.text);
    assert!(o.text.contains("tabpanel \"Reviews\""), "{}", o.text);
    let o = run.step(&page("Manual", 3, "Other"));
    assert!(
        o.text.starts_with("FULL SNAPSHOT #2.0 (large change)"),
        "{}",
        o.text
    );
    run.finish(3, 1);
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
    // One space per level, at most 40 levels.
    assert!((39..=40).contains(&max_indent), "indent {max_indent}");
    assert!(out.len() < 100_000, "{}", out.len());
    let mut r = aperture_engine::reader::StreamReader::new();
    r.apply(&out).expect("flattened tree still reads");
    assert_eq!(r.refs().len(), 1);
}

/// A paragraph with a link and a bold span: one line, the link in its place with its ref, the
/// span read as part of the text.
fn sentence_page(name: &str) -> Walk {
    let mut p = Page::new("https://a.test/", "T");
    let para = p.add(
        None,
        text("Mozilla was created in 1998 by members of . The community keeps growing."),
    );
    p.add(
        Some(para),
        link(name, "https://a.test/n").id("ns").with(|r| {
            r.at = Some(42);
        }),
    );
    p.add(
        Some(para),
        text("still").with(|r| {
            r.at = Some(58);
            r.pad = 3;
        }),
    );
    p.done()
}

#[test]
fn inline_elements_keep_their_place_in_the_sentence() {
    let mut s = TabSession::new();
    let o = s.observe(&sentence_page("Netscape"), false, false);
    let b = body(&o.text);
    assert!(
        b.contains(
            "\"Mozilla was created in 1998 by members of\" [e1 link \"Netscape\"] \". The community still keeps growing.\"\n"
        ),
        "{b}"
    );
    let mut rd = StreamReader::new();
    rd.apply(&o.text).expect("reader reads a sentence");
    let line = &rd.outline()[0].1;
    assert_eq!(line.inline.len(), 1);
    assert_eq!(line.inline[0].0, 1, "the link sits after the first text segment");
    assert_eq!(line.inline[0].1.refn, Some(1));
    assert!(s.resolve("e1").is_ok(), "an inline ref resolves");
    // Renaming the link restates the sentence; the ref stays.
    let o = s.observe(&sentence_page("Netscape Inc."), false, false);
    assert!(o.text.contains("[e1 link \"Netscape Inc.\"]"), "{}", o.text);
    rd.apply(&o.text).expect("diff applies");
    // The link leaves the sentence: its ref is announced gone with the restated line.
    let mut p = Page::new("https://a.test/", "T");
    p.add(
        None,
        text("Mozilla was created in 1998 by members of . The community keeps growing."),
    );
    let o = s.observe(&p.done(), false, false);
    assert!(o.text.contains("~ /1 gone: e1"), "{}", o.text);
    rd.apply(&o.text).expect("diff with a dropped inline ref applies");
    assert!(rd.refs().is_empty());
}

/// Text that ends with an inline element (`Select <b>Wp3</b>`) keeps the space before it: the
/// walker trims the text's trailing space and places the element past the end; it read
/// "SelectWp3".
#[test]
fn a_trailing_inline_element_keeps_its_space() {
    let mut p = Page::new("https://a.test/", "T");
    let para = p.add(None, text("Select"));
    p.add(Some(para), text("Wp3").with(|r| r.at = Some(7)));
    let para = p.add(None, text("A"));
    p.add(Some(para), text("x").with(|r| r.at = Some(2)));
    p.add(Some(para), text("y").with(|r| r.at = Some(3)));
    // Placed at the end with no space trimmed: no space is made up.
    let para = p.add(None, text("Lamp"));
    p.add(Some(para), text("s").with(|r| r.at = Some(4)));
    let out = body(&render_full(&p.done()));
    assert!(out.contains("\"Select Wp3\"\n"), "{out}");
    assert!(out.contains("\"A x y\"\n"), "{out}");
    assert!(out.contains("\"Lamps\"\n"), "{out}");
}

#[test]
fn a_page_cannot_forge_an_inline_element() {
    let mut p = Page::new("https://a.test/", "T");
    p.add(None, text("\" [e9 link \"x\"] \"").with(|r| r.at = Some(1)));
    let b = body(&render_full(&p.done()));
    let mut rd = StreamReader::new();
    rd.apply(&render_full(&{
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, text("\" [e9 link \"x\"] \""));
        p.done()
    }))
    .expect("reads");
    assert!(rd.refs().is_empty(), "page text spelled a ref: {b}");
}

#[test]
fn select_options_are_listed_with_the_selected_marked_and_long_lists_counted() {
    let mut p = Page::new("https://a.test/", "T");
    let mut sel = base("select", Some("combobox"));
    sel.name = Some("Country".into());
    sel.actionable = true;
    sel.state.value = Some("DE".into());
    for (k, c) in ["France", "Germany", "Italy"].iter().enumerate() {
        sel.options.push(SelectOption {
            label: (*c).into(),
            selected: k == 1,
        });
    }
    p.add(None, sel.clone());
    let mut long = sel;
    long.name = Some("Language".into());
    long.options = (0..40)
        .map(|k| SelectOption {
            label: format!("L{k}"),
            selected: k == 30,
        })
        .collect();
    long.more_options = 200;
    p.add(None, long);
    let out = render_full(&p.done());
    let b = body(&out);
    assert!(
        b.contains("e1 combobox \"Country\" options=[\"France\" *\"Germany\" \"Italy\"]\n"),
        "{b}"
    );
    assert!(b.contains("\"L11\" *\"L30\" +227]\n"), "{b}");
    let mut rd = StreamReader::new();
    rd.apply(&out).expect("reader reads option lists");
    assert_eq!(
        rd.refs()[&1].attr("options"),
        Some("[\"France\" *\"Germany\" \"Italy\"]")
    );
}

#[test]
fn a_label_its_control_names_is_not_repeated() {
    let mut p = Page::new("https://a.test/", "T");
    let form = p.add(None, container("form"));
    let label = p.add(Some(form), text("Email").with(|r| r.tag = "label".into()));
    p.add(Some(label), text("*"));
    let input = p.add(Some(form), textbox("Email *", ""));
    p.walk.nodes[label as usize].label_for = Some(input);
    // A label that says more than the control's name stays.
    let l2 = p.add(
        Some(form),
        text("Your phone, with country code").with(|r| r.tag = "label".into()),
    );
    let phone = p.add(Some(form), textbox("Phone", ""));
    p.walk.nodes[l2 as usize].label_for = Some(phone);
    let b = body(&render_full(&p.done()));
    assert!(
        b.contains(
            "form\n e1 textbox \"Email *\"\n \"Your phone, with country code\"\n e2 textbox \"Phone\"\n"
        ),
        "{b}"
    );
}

fn shop() -> Walk {
    let mut p = Page::new("https://shop.test/", "Shop");
    let nav = p.add(None, container("navigation"));
    let list = p.add(Some(nav), container("list"));
    for n in ["Home", "Deals"] {
        let li = p.add(Some(list), container("listitem"));
        p.add(Some(li), link(n, "https://shop.test/x"));
    }
    let main = p.add(None, container("main"));
    p.add(Some(main), heading(1, "Lamp"));
    p.add(
        Some(main),
        text("A lamp that lights things up, in three colours."),
    );
    p.add(Some(main), heading(2, "Reviews"));
    p.add(Some(main), text("No reviews yet."));
    p.add(Some(main), heading(2, "Buy"));
    p.add(Some(main), button("Add to cart"));
    p.done()
}

#[test]
fn interactive_mode_keeps_refs_with_their_heading_and_landmarks() {
    let mut s = TabSession::new();
    s.set_mode(Mode {
        interactive: true,
        ..Mode::default()
    });
    let o = s.observe(&shop(), false, false);
    assert_eq!(
        body(&o.text),
        "url \"https://shop.test/\"\ntitle \"Shop\"\nnavigation\n e1 link \"Home\"\n e2 link \"Deals\"\nmain\n \
         h2 \"Buy\"\n e3 button \"Add to cart\"\n"
    );
    // Switching back is a full snapshot that says why; refs are the same.
    assert!(s.set_mode(Mode::default()));
    let o = s.observe(&shop(), false, false);
    assert!(
        o.text.starts_with("FULL SNAPSHOT #2.0 (mode changed)"),
        "{}",
        o.text
    );
    let b = body(&o.text);
    assert!(
        b.contains("\n  e1 link \"Home\"\n") && b.contains("\"No reviews yet.\""),
        "{b}"
    );
    assert!(!s.set_mode(Mode::default()), "the same mode is no change");
}

#[test]
fn a_budget_cuts_the_model_and_says_what_it_left_out() {
    let mut s = TabSession::new();
    s.set_mode(Mode {
        max_tokens: 20,
        ..Mode::default()
    });
    let o = s.observe(&shop(), false, false);
    let f = envelope::split(&o.text).expect("envelope");
    assert!(
        f.after
            .contains("note: cut at max_tokens=20: the last 6 elements of the page (1 with refs)"),
        "{}",
        o.text
    );
    assert!(!f.body.contains("Add to cart"));
    // The element past the cut still has its ref, and a view shows it.
    let v = s
        .render_view("e3", 0)
        .expect("a ref past the cut is viewable")
        .text;
    assert!(v.contains("e3 button \"Add to cart\""), "{v}");
    assert!(s.resolve("e3").is_ok());
}

#[test]
fn a_view_shows_one_part_whole_and_changes_no_state() {
    let mut s = TabSession::new();
    s.set_mode(Mode {
        interactive: true,
        ..Mode::default()
    });
    let first = s.observe(&sentence_page("Netscape"), false, false);
    let mut rd = StreamReader::new();
    rd.apply(&first.text).expect("first");
    let v = s.render_view("e1", 0).expect("view").text;
    assert!(v.starts_with("VIEW of e1 at #1.0"), "{v}");
    // The sentence holding the link, whole, though the mode shows only refs.
    assert!(v.contains("\"Mozilla was created"), "{v}");
    rd.apply(&v).expect("the reader reads a view");
    assert_eq!(rd.stats.views, 1);
    let o = s.observe(&sentence_page("Netscape"), false, false);
    assert!(o.text.starts_with("no change since #1.0"), "{}", o.text);
    assert!(matches!(s.render_view("e99", 0), Err(RefError::Unknown(_))));
}

#[test]
fn link_urls_are_left_out_by_default_and_a_change_of_one_is_no_change() {
    let page = |h: &str| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, link("Docs", h));
        p.done()
    };
    let mut s = TabSession::new();
    let o = s.observe(&page("https://a.test/docs?v=1"), false, false);
    assert!(!o.text.contains("href"), "{}", o.text);
    let o = s.observe(&page("https://a.test/docs?v=2"), false, false);
    assert!(o.text.starts_with("no change"), "{}", o.text);
    assert_eq!(
        s.resolve("e1").expect("resolves").href.as_deref(),
        Some("https://a.test/docs?v=2"),
        "the URL is still there to read"
    );
}

#[test]
fn countdowns_and_progress_are_noise() {
    let page = |t: &str| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, text(t));
        p.add(None, button("Go"));
        p.done()
    };
    let mut s = TabSession::new();
    s.observe(&page("599 / 600sec"), false, false);
    assert!(
        s.observe(&page("598 / 600sec"), false, false)
            .text
            .starts_with("no change")
    );
    s.observe(&page("Uploading 42%"), false, false);
    assert!(
        s.observe(&page("Uploading 43%"), false, false)
            .text
            .starts_with("no change")
    );
}

#[test]
fn a_heading_that_is_its_link_is_one_line() {
    let mut p = Page::new("https://news.test/", "News");
    let art = p.add(None, container("article"));
    let h = p.add(Some(art), heading(3, "Lamps are back"));
    p.walk.nodes[h as usize].text = None;
    p.add(Some(h), link("Lamps are back", "https://news.test/lamps"));
    p.add(Some(art), text("April 2"));
    let out = render_full(&p.done());
    let b = body(&out);
    assert!(
        b.contains("article\n h3 [e1 link \"Lamps are back\"]\n \"April 2\"\n"),
        "{b}"
    );
    let mut rd = StreamReader::new();
    rd.apply(&out).expect("reads");
    assert_eq!(rd.refs()[&1].name.as_deref(), Some("Lamps are back"));
}

/// A pager's items are named after their one link: the item says nothing of its own, so the
/// link stands for it.
#[test]
fn a_pager_item_named_only_by_a_symbol_is_not_repeated() {
    let mut p = Page::new("https://a.test/", "T");
    let list = p.add(None, container("list"));
    for n in ["1", ">"] {
        let li = p.add(
            Some(list),
            container("listitem").with(|r| r.name = Some(n.into())),
        );
        p.add(Some(li), link(n, "https://a.test/p"));
    }
    // A symbol the child does not say stays.
    let li = p.add(
        Some(list),
        container("listitem").with(|r| r.name = Some("»".into())),
    );
    p.add(Some(li), link(">", "https://a.test/q"));
    let b = body(&render_full(&p.done()));
    assert!(
        b.contains("list\n e1 link \"1\"\n e2 link \">\"\n listitem \"»\"\n  e3 link \">\"\n"),
        "{b}"
    );
}

/// A board of nameless cells: each line says its row and column, since nothing else tells
/// them apart; a row of the same cells (one row) says nothing more, nor do named buttons laid
/// out in a grid.
#[test]
fn indistinguishable_controls_in_a_grid_say_where_they_sit() {
    let cell = |x: f32, y: f32| {
        button("").with(|r| {
            r.name = None;
            r.text = None;
            r.class_name = Some("cell".into());
            r.bounds = aperture_engine::record::Rect {
                x,
                y,
                w: 30.0,
                h: 30.0,
            };
        })
    };
    let mut p = Page::new("https://a.test/ttt", "Board");
    let board = p.add(None, container("group"));
    for row in 0..3 {
        for col in 0..3 {
            // Off by a pixel or two, as laid-out boxes are. The middle one holds a mark.
            let c = cell(
                10.0 + 32.0 * col as f32 + (row % 2) as f32,
                100.0 + 32.0 * row as f32,
            );
            let c = if (row, col) == (1, 1) {
                c.with(|r| r.class_name = Some("cell mark-o".into()))
            } else {
                c
            };
            p.add(Some(board), c);
        }
    }
    let strip = p.add(None, container("toolbar"));
    for col in 0..4 {
        p.add(Some(strip), cell(10.0 + 32.0 * col as f32, 300.0));
    }
    let keys = p.add(None, container("group"));
    for (k, name) in ["1", "2", "3", "4"].into_iter().enumerate() {
        p.add(
            Some(keys),
            button(name).with(|r| {
                r.bounds = aperture_engine::record::Rect {
                    x: 40.0 * (k % 2) as f32,
                    y: 400.0 + 40.0 * (k / 2) as f32,
                    w: 30.0,
                    h: 30.0,
                }
            }),
        );
    }
    // The same share buttons at the head and the foot of an article: two toolbars, no board.
    let article = p.add(None, container("article"));
    for (x, y) in [(0.0, 600.0), (40.0, 600.0), (0.0, 1800.0), (40.0, 1800.0)] {
        p.add(
            Some(article),
            button("Share").with(|r| {
                r.bounds = aperture_engine::record::Rect {
                    x,
                    y,
                    w: 30.0,
                    h: 30.0,
                }
            }),
        );
    }
    let out = body(&render_full(&p.done()));
    assert!(!out.contains("button \"Share\" at="), "{out}");
    assert!(out.contains("e1 button hint=\"cell\" at=r1c1\n"), "{out}");
    assert!(out.contains("e3 button hint=\"cell\" at=r1c3\n"), "{out}");
    assert!(
        out.contains("e5 button hint=\"cell mark o\" at=r2c2\n"),
        "a marked cell is still on the board:\n{out}"
    );
    assert!(out.contains("e9 button hint=\"cell\" at=r3c3\n"), "{out}");
    assert!(
        out.contains("e10 button hint=\"cell\"\n"),
        "one row is no grid:\n{out}"
    );
    assert!(
        out.contains("e14 button \"1\"\n"),
        "named controls need no place:\n{out}"
    );

    // Moved: the agent's next look says where the cell is now.
    let mut s = TabSession::new();
    let first = p_board(&[(0, 0), (0, 1), (1, 0), (1, 1)]);
    s.observe(&first, false, true);
    let o = s.observe(&p_board(&[(0, 0), (0, 1), (1, 1), (1, 0)]), false, false);
    assert!(o.text.contains("at=r2c2"), "{}", o.text);
}

/// Four nameless cells at the given (row, column) places.
fn p_board(at: &[(u32, u32)]) -> Walk {
    let mut p = Page::new("https://a.test/b", "B");
    let g = p.add(None, container("group"));
    for (k, &(row, col)) in at.iter().enumerate() {
        p.add(
            Some(g),
            button("").with(|r| {
                r.name = None;
                r.text = None;
                r.uid = Some(100 + k as u64);
                r.bounds = aperture_engine::record::Rect {
                    x: 40.0 * col as f32,
                    y: 40.0 * row as f32,
                    w: 30.0,
                    h: 30.0,
                };
            }),
        );
    }
    p.done()
}

/// A blank cell keeps its column when a shown cell comes after it in its row: a month whose
/// 1st is a Thursday starts under Th, and a missing phone number does not hand its column to
/// the email after it. Blanks at the end of a row are left out.
#[test]
fn blank_cells_keep_the_columns_after_them() {
    let mut p = Page::new("https://a.test/x", "T");
    let table = p.add(None, container("table"));
    let head = p.add(Some(table), container("row"));
    for d in ["Su", "Mo", "Tu", "We", "Th"] {
        let c = p.add(Some(head), container("columnheader"));
        p.add(Some(c), text(d));
    }
    let week = p.add(Some(table), container("row"));
    for d in ["", "", "", "", "1"] {
        let c = p.add(Some(week), container("cell"));
        if !d.is_empty() {
            p.add(Some(c), text(d));
        }
    }
    let last = p.add(Some(table), container("row"));
    for d in ["30", "", ""] {
        let c = p.add(Some(last), container("cell"));
        if !d.is_empty() {
            p.add(Some(c), text(d));
        }
    }
    let out = body(&render_full(&p.done()));
    assert!(
        out.contains(" row\n  cell\n  cell\n  cell\n  cell\n  cell \"1\"\n"),
        "{out}"
    );
    assert!(out.ends_with(" row\n  \"30\"\n"), "{out}");
}

#[test]
fn a_modal_dialog_says_so_and_its_closing_is_a_change() {
    let page = |modal: bool| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, button("Delete account"));
        let d = p.add(None, container("dialog").with(|r| r.state.modal = modal));
        p.add(Some(d), text("Really delete?"));
        p.add(Some(d), button("Yes"));
        p.done()
    };
    let mut s = TabSession::new();
    let o = s.observe(&page(true), false, false);
    assert!(body(&o.text).contains("\ndialog modal\n"), "{}", o.text);
    let o = s.observe(&page(false), false, false);
    assert!(!o.text.starts_with("no change"), "{}", o.text);
    assert!(!body(&o.text).contains("modal"), "{}", o.text);
}

/// The current one of a set says so (`aria-current`, or the pager's class): a pager's item
/// that would fold into its link keeps its line for it, and moving to another page is a change.
#[test]
fn the_current_item_of_a_set_says_so() {
    let page = |at: usize| {
        let mut p = Page::new("https://a.test/", "T");
        let list = p.add(None, container("list"));
        for (i, n) in ["1", "2", "3"].iter().enumerate() {
            let li = p.add(
                Some(list),
                container("listitem").with(|r| {
                    r.name = Some((*n).into());
                    r.state.current = (i == at).then(|| "true".into());
                }),
            );
            p.add(Some(li), link(n, "https://a.test/p"));
        }
        p.add(
            None,
            link("Home", "https://a.test/").with(|r| r.state.current = Some("page".into())),
        );
        p.done()
    };
    let b = body(&render_full(&page(1)));
    assert!(
        b.contains("list\n e1 link \"1\"\n listitem current\n  e2 link \"2\"\n e3 link \"3\"\n"),
        "{b}"
    );
    assert!(b.contains("e4 link \"Home\" current=page"), "{b}");
    let mut s = TabSession::new();
    s.observe(&page(1), false, false);
    let o = s.observe(&page(2), false, false);
    assert!(o.text.contains("current"), "the move is a change: {}", o.text);
}

/// A picture with no text alternative at all is a bare `img` line, so the agent knows there is
/// something only a screenshot shows; a spacer, one inside a link (the link speaks for it) and
/// a decorative one (`alt=""`, role presentation) say nothing.
#[test]
fn a_nameless_picture_is_a_bare_img_line() {
    let img = |w: f32, h: f32| aperture_engine::record::NodeRecord {
        tag: "img".into(),
        role: Some("img".into()),
        visible: true,
        bounds: aperture_engine::record::Rect { x: 0.0, y: 0.0, w, h },
        ..Default::default()
    };
    let mut p = Page::new("https://a.test/", "T");
    p.add(None, text("Which digit is this?"));
    p.add(None, img(70.0, 110.0));
    p.add(None, img(1.0, 1.0));
    let l = p.add(None, link("Home", "https://a.test/"));
    p.add(Some(l), img(40.0, 40.0));
    p.add(
        None,
        img(80.0, 80.0).with(|r| r.role = Some("presentation".into())),
    );
    let b = body(&render_full(&p.done()));
    assert_eq!(
        b, "url \"https://a.test/\"\ntitle \"T\"\n\"Which digit is this?\"\nimg\ne1 link \"Home\"\n",
        "{b}"
    );
}

/// A countdown's tick is noise, but an observation with nothing else changed says one ticked
/// (the reader takes it), and one where nothing at all moved does not.
#[test]
fn a_no_change_says_when_only_a_clock_ticked() {
    let page = |t: &str| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, text(t));
        p.add(None, button("Go"));
        p.done()
    };
    let mut s = TabSession::new();
    let mut reader = StreamReader::new();
    reader
        .apply(&s.observe(&page("10 / 10sec"), false, false).text)
        .unwrap();
    let o = s.observe(&page("9 / 10sec"), false, false);
    assert!(
        o.text.starts_with("no change since #1.0 (a clock ticked)"),
        "{}",
        o.text
    );
    reader.apply(&o.text).expect("the reader takes the note");
    let o = s.observe(&page("9 / 10sec"), false, false);
    assert_eq!(o.text, "no change since #1.0", "nothing moved at all");
}

/// A nameless surface aimed at by a point (a drawing area) says its size, so the point can be
/// worked out without a screenshot; a named control, a small icon and a drawn shape (its look
/// says its size) do not. Its size changing is a change.
#[test]
fn a_nameless_surface_says_its_size() {
    let surface = |w: f32, h: f32| {
        button("x").with(|r| {
            r.role = None;
            r.name = None;
            r.tag = "div".into();
            r.bounds = aperture_engine::record::Rect { x: 0.0, y: 0.0, w, h };
        })
    };
    let page = |w: f32| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(None, surface(w, 160.0));
        p.add(None, surface(20.0, 20.0));
        p.add(None, button("Submit").with(|r| r.bounds.h = 60.0));
        p.done()
    };
    let b = body(&render_full(&page(160.0)));
    assert!(b.contains("e1 clickable size=160x160\n"), "{b}");
    assert!(b.contains("e2 clickable\n"), "{b}");
    assert!(b.contains("e3 button \"Submit\"\n"), "{b}");
    let mut s = TabSession::new();
    s.observe(&page(160.0), false, false);
    let o = s.observe(&page(200.0), false, false);
    assert!(o.text.contains("~ e1 clickable size=200x160"), "{}", o.text);
}

/// A control that opens a menu or a list (`aria-haspopup`) says what, unless `expanded` or
/// `collapsed` already says a press opens something; opening its submenu is a change.
#[test]
fn a_control_says_what_a_press_opens() {
    let page = |popup: Option<&str>, expanded: Option<bool>| {
        let mut p = Page::new("https://a.test/", "T");
        p.add(
            None,
            link("Loree", "https://a.test/l").with(|r| {
                r.state.popup = popup.map(Into::into);
                r.state.expanded = expanded;
            }),
        );
        p.add(
            None,
            container("paragraph").with(|r| r.state.popup = Some("menu".into())),
        );
        p.done()
    };
    let b = body(&render_full(&page(Some("menu"), None)));
    assert!(b.contains("e1 link \"Loree\" popup=menu\n"), "{b}");
    assert!(
        !b.contains("paragraph popup"),
        "not on what is not a control: {b}"
    );
    let b = body(&render_full(&page(Some("listbox"), Some(false))));
    assert!(b.contains("e1 link \"Loree\" collapsed\n"), "{b}");
    let b = body(&render_full(&page(Some("evil words"), None)));
    assert!(b.contains("e1 link \"Loree\"\n"), "only the known kinds: {b}");
    let mut s = TabSession::new();
    s.observe(&page(Some("menu"), None), false, false);
    let o = s.observe(&page(Some("dialog"), None), false, false);
    assert!(o.text.contains("~ e1 link \"Loree\" popup=dialog"), "{}", o.text);
}
