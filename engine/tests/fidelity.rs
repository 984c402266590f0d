//! Fidelity: a mechanical reader that sees only the stream must rebuild exactly the page model
//! after every step, over scripted mutation sequences. See `common/run.rs` for the checks and
//! the vacuity guards.

#![forbid(unsafe_code)]

mod common;

use aperture_engine::RefError;
use aperture_engine::record::{Tri, Walk};
use common::run::Run;
use common::*;

fn login(email: &str, pw: &str, remember: bool, error: Option<&str>) -> Walk {
    let mut p = Page::new("https://acct.test/login", "Sign in");
    let main = p.add(None, container("main"));
    let form = p.add(
        Some(main),
        container("form").with(|r| r.name = Some("Sign in".into())),
    );
    p.add(Some(form), heading(1, "Sign in"));
    p.add(
        Some(form),
        textbox("Email", email).with(|r| {
            r.name_attr = Some("email".into());
            // Marked invalid with no message of its own (`aria-invalid` alone).
            r.state.invalid = error.map(|_| String::new());
        }),
    );
    p.add(
        Some(form),
        textbox(
            "Password",
            if pw.is_empty() {
                ""
            } else {
                aperture_engine::record::MASKED_VALUE
            },
        )
        .with(|r| {
            r.input_type = Some("password".into());
            r.state.invalid = error.map(str::to_owned);
        }),
    );
    p.add(Some(form), checkbox("Remember me", remember));
    if let Some(e) = error {
        p.add(Some(form), container("alert").with(|r| r.text = Some(e.into())));
    }
    p.add(Some(form), button("Sign in").testid("submit"));
    p.add(Some(main), link("Forgot password?", "https://acct.test/reset"));
    p.done()
}

#[test]
fn typing_with_a_mid_run_resync() {
    let mut run = Run::new("typing");
    run.step(&login("", "", false, None));
    let email_ref = run
        .reader
        .refs()
        .iter()
        .find(|(_, l)| l.name.as_deref() == Some("Email"))
        .map(|(r, _)| *r);
    let email_ref = email_ref.expect("email field has a ref");
    let mut typed = String::new();
    // The agent types into the field: acting on it is what promotes it (MCP calls `touch`).
    run.s.touch(&format!("e{email_ref}"));
    for (k, c) in "ann@x.io".chars().enumerate() {
        typed.push(c);
        let o = run.step_with(&login(&typed, "", false, None), k == 4, false);
        assert_eq!(o.full, k == 4, "only the forced step is full: {}", o.text);
        if !o.full {
            assert!(
                o.text
                    .contains(&format!("~ e{email_ref} textbox \"Email\" value=\"{typed}\"")),
                "{}",
                o.text
            );
        }
        assert_eq!(
            run.s
                .resolve(&format!("e{email_ref}"))
                .ok()
                .and_then(|r| r.state.value.clone()),
            Some(typed.clone())
        );
    }
    run.step(&login(&typed, "x", false, None));
    run.step(&login(&typed, "xy", true, None));
    let o = run.step(&login(&typed, "xy", true, Some("Wrong password")));
    assert!(o.text.contains("alert \"Wrong password\""), "{}", o.text);
    assert!(
        o.text.contains("type=password invalid=\"Wrong password\"")
            || o.text.contains("invalid=\"Wrong password\" type=password"),
        "the field says why it is invalid: {}",
        o.text
    );
    assert!(
        o.text.contains(&format!(
            "~ e{email_ref} textbox \"Email\" value=\"{typed}\" invalid"
        )),
        "a bare mark is a flag: {}",
        o.text
    );
    let o = run.step(&login(&typed, "", true, None));
    assert!(!o.text.contains("invalid"), "valid again: {}", o.text);
    run.finish(12, 9);
    assert!(run.reader.stats.changes >= 9);
}

fn docs_app(uid_base: u64, wrapped: bool, cards: &[&str]) -> Walk {
    let mut p = Page::new("https://docs.test/", "Docs");
    let mut u = uid_base;
    let mut uid = || {
        u += 1;
        u
    };
    let nav = p.add(None, container("navigation").uid(uid()));
    for (n, h) in [("Home", "/"), ("Guides", "/guides"), ("API", "/api")] {
        p.add(Some(nav), link(n, &format!("https://docs.test{h}")).uid(uid()));
    }
    let main = p.add(None, container("main").uid(uid()));
    let host = if wrapped {
        p.add(
            Some(main),
            container("region")
                .with(|r| r.name = Some("Results".into()))
                .uid(uid()),
        )
    } else {
        main
    };
    for c in cards {
        let art = p.add(Some(host), container("article").uid(uid()));
        p.add(Some(art), heading(2, c).uid(uid()));
        p.add(Some(art), text(&format!("About {c}.")).uid(uid()));
        p.add(Some(art), button("Open").testid(&format!("open-{c}")).uid(uid()));
        p.add(Some(art), button("Share").uid(uid()));
    }
    p.add(
        None,
        container("contentinfo")
            .with(|r| r.text = Some("© Docs".into()))
            .uid(uid()),
    );
    p.done()
}

#[test]
fn teardown_and_rebuild() {
    let cards = ["Install", "Configure", "Deploy", "Monitor", "Scale"];
    let mut run = Run::new("teardown");
    run.step(&docs_app(0, false, &cards));
    let before = run.reader.refs();
    // Every DOM node replaced, same content: nothing changed for the agent, refs identical.
    let o = run.step(&docs_app(1000, false, &cards));
    assert!(o.text.starts_with("no change since"), "{}", o.text);
    assert_eq!(run.reader.refs(), before);
    // Rebuilt with a new wrapper: structural keys move, test ids do not.
    let open_ref = |run: &Run, c: &str| {
        run.reader
            .refs()
            .into_iter()
            .find(|(r, l)| {
                l.name.as_deref() == Some("Open")
                    && run
                        .s
                        .resolve(&format!("e{r}"))
                        .ok()
                        .and_then(|x| x.testid.clone())
                        == Some(format!("open-{c}"))
            })
            .map(|(r, _)| r)
    };
    let deploy = open_ref(&run, "Deploy").expect("deploy ref");
    run.step(&docs_app(2000, true, &cards));
    assert_eq!(
        open_ref(&run, "Deploy"),
        Some(deploy),
        "test-id ref survives a rebuild"
    );
    run.step(&docs_app(3000, true, &cards[..4]));
    assert!(run.s.resolve(&format!("e{deploy}")).is_ok());
    run.step(&docs_app(4000, false, &cards[1..4]));
    run.step(&docs_app(5000, false, &cards));
    run.step(&docs_app(6000, false, &[]));
    run.step(&docs_app(7000, false, &cards));
    assert_eq!(
        open_ref(&run, "Deploy"),
        Some(deploy),
        "revived with the same ref"
    );
    // Rebuilds are mostly resets by design; the diff between them must still be exact.
    run.finish(8, 1);
}

fn tasks(order: &[usize], done: &[usize]) -> Walk {
    let mut p = Page::new("https://todo.test/", "Tasks");
    let list = p.add(None, container("list"));
    for &i in order {
        let li = p.add(Some(list), container("listitem"));
        p.add(Some(li), text(&format!("Task {i}: water plant {i}")));
        p.add(Some(li), checkbox("Done", done.contains(&i)));
        p.add(Some(li), button("Delete"));
    }
    p.add(None, text(&format!("{} left", order.len() - done.len())));
    p.done()
}

#[test]
fn reorder_is_one_op() {
    let mut run = Run::new("reorder");
    let mut order: Vec<usize> = (0..12).collect();
    run.step(&tasks(&order, &[]));
    let refs = run.reader.refs();
    // One row jumps to the top: one move, nothing else.
    let r = order.remove(9);
    order.insert(0, r);
    let o = run.step(&tasks(&order, &[]));
    assert!(!o.full, "{}\n{}", run.log[0], o.text);
    assert_eq!(o.ops, 1, "{}", o.text);
    assert_eq!(o.text.matches("\n > ").count(), 1, "{}", o.text);
    assert_eq!(run.reader.refs(), refs, "a move changes no ref");
    // Swap two rows.
    order.swap(3, 7);
    let o = run.step(&tasks(&order, &[]));
    assert!(o.ops <= 2, "{}", o.text);
    // Move to the end, check one off, delete one.
    let r = order.remove(2);
    order.push(r);
    run.step(&tasks(&order, &[5]));
    order.retain(|&x| x != 6);
    let o = run.step(&tasks(&order, &[5]));
    assert!(o.text.contains("gone:"), "{}", o.text);
    order.reverse();
    run.step(&tasks(&order, &[5]));
    order.sort();
    run.step(&tasks(&order, &[5, 1]));
    run.finish(7, 4);
    assert!(run.reader.stats.moves >= 3);
}

fn inbox(subjects: &[String]) -> Walk {
    let mut p = Page::new("https://mail.test/inbox", &format!("Inbox ({})", subjects.len()));
    let main = p.add(None, container("main"));
    p.add(Some(main), heading(1, "Inbox"));
    let list = p.add(Some(main), container("list"));
    for s in subjects {
        let li = p.add(Some(list), container("listitem"));
        p.add(Some(li), link(s, &format!("https://mail.test/m/{}", s.len())));
        p.add(Some(li), button("Archive"));
    }
    p.done()
}

#[test]
fn mass_death_and_revival_through_a_reset() {
    let all: Vec<String> = (0..20).map(|i| format!("Invoice #{i} from ACME")).collect();
    let mut run = Run::new("mass-death");
    run.step(&inbox(&all));
    let original = run.reader.refs();
    let o = run.step(&inbox(&all[..19]));
    assert!(!o.full && o.text.contains("gone:"), "{}", o.text);
    let o = run.step(&inbox(&all[14..19]));
    assert!(o.full, "mass death resets: {}", o.text);
    assert!(
        o.text.contains("\ngone:"),
        "the reset still names the dead: {}",
        o.text
    );
    let dead = *original.keys().next().expect("refs");
    assert!(matches!(
        run.s.resolve(&format!("e{dead}")),
        Err(RefError::Gone { .. })
    ));
    let msg = run.s.resolve(&format!("e{dead}")).unwrap_err().to_string();
    assert!(
        msg.contains(&format!("e{dead} is gone")) && msg.contains("<untrusted-page-content nonce="),
        "{msg}"
    );
    let o = run.step(&inbox(&all));
    assert!(o.full, "mass revival resets too");
    assert_eq!(
        run.reader.refs(),
        original,
        "revived elements get their old refs back"
    );
    run.step(&inbox(&all[1..]));
    run.finish(5, 2);
}

fn shop(country: &str, fruit_open: bool, fruit: &str, qty: u32) -> Walk {
    let mut p = Page::new("https://shop.test/order", "Order");
    let form = p.add(None, container("form").with(|r| r.name = Some("Order".into())));
    p.add(
        Some(form),
        container("combobox").with(|r| {
            r.tag = "select".into();
            r.name = Some("Country".into());
            r.name_attr = Some("country".into());
            r.actionable = true;
            r.state.value = Some(country.into());
            r.state.expanded = Some(false);
        }),
    );
    p.add(
        Some(form),
        container("combobox").id("fruit").with(|r| {
            r.name = Some("Fruit".into());
            r.actionable = true;
            r.state.value = Some(fruit.into());
            r.state.expanded = Some(fruit_open);
        }),
    );
    if fruit_open {
        let lb = p.add(
            Some(form),
            container("listbox").with(|r| r.name = Some("Fruit".into())),
        );
        for f in ["Apple", "Pear", "Plum"] {
            p.add(
                Some(lb),
                container("option").with(|r| {
                    r.name = Some(f.into());
                    r.actionable = true;
                    r.state.selected = Some(f == fruit);
                }),
            );
        }
    }
    p.add(
        Some(form),
        container("spinbutton").with(|r| {
            r.tag = "input".into();
            r.input_type = Some("number".into());
            r.name = Some("Quantity".into());
            r.actionable = true;
            r.state.value = Some(qty.to_string());
        }),
    );
    p.add(Some(form), button("Place order"));
    p.done()
}

#[test]
fn select_changes() {
    let mut run = Run::new("selects");
    run.step(&shop("France", false, "Apple", 1));
    let o = run.step(&shop("Spain", false, "Apple", 1));
    assert!(
        o.text.contains("combobox \"Country\" value=\"Spain\" collapsed"),
        "{}",
        o.text
    );
    let o = run.step(&shop("Spain", true, "Apple", 1));
    assert!(
        o.text.contains("expanded") && o.text.contains("option \"Pear\""),
        "{}",
        o.text
    );
    let o = run.step(&shop("Spain", true, "Pear", 1));
    assert!(o.text.contains("option \"Pear\" selected"), "{}", o.text);
    run.step(&shop("Spain", false, "Pear", 1));
    run.step(&shop("Spain", false, "Pear", 2));
    run.step(&shop("Italy", false, "Pear", 3));
    run.finish(7, 6);
}

fn player(clock: &str, elapsed: &str, playing: bool, plays: u32) -> Walk {
    let mut p = Page::new("https://tube.test/watch", "Watch");
    let bar = p.add(None, container("banner"));
    p.add(Some(bar), text(&format!("Local time {clock}")));
    // <my-player> is a plain wrapper the walker omits; its open shadow root is inlined.
    let region = p.add(
        None,
        container("region")
            .with(|r| r.name = Some("Player".into()))
            .shadow(),
    );
    p.add(
        Some(region),
        button("Play")
            .shadow()
            .with(|r| r.state.pressed = Some(if playing { Tri::True } else { Tri::False })),
    );
    p.add(Some(region), text(&format!("Elapsed {elapsed}")).shadow());
    p.add(Some(region), text(&format!("Plays: {plays}")).shadow());
    p.add(
        Some(region),
        link("Next video", "https://tube.test/watch?v=2").shadow(),
    );
    p.done()
}

#[test]
fn shadow_root_with_a_ticking_clock() {
    let mut run = Run::new("shadow-clock");
    run.step(&player("12:00:01", "0:00", false, 0));
    let mut quiet = 0;
    for s in 2..6 {
        let o = run.step(&player(&format!("12:00:0{s}"), "0:00", false, 0));
        quiet += usize::from(o.text.starts_with("no change"));
    }
    assert_eq!(quiet, 4, "a ticking clock alone is not a change");
    // The agent clicks Play: the pressed state flips and the play count moves, while both
    // clocks keep ticking — only the real changes are reported.
    let play = run
        .reader
        .refs()
        .into_iter()
        .find(|(_, l)| l.name.as_deref() == Some("Play"))
        .map(|(r, _)| r);
    let play = play.expect("play ref");
    run.s.touch(&format!("e{play}"));
    let o = run.step(&player("12:00:07", "0:01", true, 1));
    assert!(
        o.text.contains(&format!("~ e{play} button \"Play\" pressed")),
        "{}",
        o.text
    );
    assert!(o.text.contains("Plays: 1"), "{}", o.text);
    assert!(!o.text.contains("12:00:07"), "clock change leaked: {}", o.text);
    for s in 2..6 {
        let o = run.step(&player(&format!("12:00:1{s}"), &format!("0:0{s}"), true, 1));
        assert!(
            o.text.starts_with("no change"),
            "act-observe loop clock: {}",
            o.text
        );
    }
    run.step(&player("12:00:20", "0:09", false, 1));
    run.finish(11, 2);
}

fn grid(items: &[u64]) -> Walk {
    grid_with(items, Some)
}

/// Identical product tiles: nothing but position, or the DOM node, tells them apart. `uid`
/// maps a tile's number to the node id the walker would give it.
fn grid_with(items: &[u64], uid: impl Fn(u64) -> Option<u64>) -> Walk {
    let mut p = Page::new("https://shop.test/grid", "Deals");
    let list = p.add(None, container("list"));
    for &u in items {
        let li = p.add(Some(list), container("listitem").with(|r| r.uid = uid(u)));
        p.add(Some(li), button("Add to cart").with(|r| r.uid = uid(u * 100)));
    }
    p.add(None, link("Cart", "https://shop.test/cart"));
    p.done()
}

fn add_to_cart_refs(run: &Run) -> Vec<u32> {
    run.reader
        .refs()
        .into_iter()
        .filter(|(_, l)| l.name.as_deref() == Some("Add to cart"))
        .map(|(r, _)| r)
        .collect()
}

/// Each "Add to cart" button's node id → its ref.
fn by_tile(run: &Run) -> std::collections::HashMap<u64, u32> {
    add_to_cart_refs(run)
        .into_iter()
        .map(|r| (run.s.resolve(&format!("e{r}")).unwrap().uid.unwrap(), r))
        .collect()
}

#[test]
fn identical_siblings_keep_their_refs_by_node() {
    let mut run = Run::new("by-node");
    run.step(&grid(&[1, 2, 3, 4, 5, 6, 7, 8]));
    let first = add_to_cart_refs(&run);
    assert_eq!(first.len(), 8);
    let o = run.step(&grid(&[1, 2, 3, 4, 5, 6, 7, 8]));
    assert!(o.text.starts_with("no change"));
    // Remove the second tile: its ref is gone, every other tile keeps its own.
    let o = run.step(&grid(&[1, 3, 4, 5, 6, 7, 8]));
    assert!(o.text.contains(&format!("gone: e{}", first[1])), "{}", o.text);
    let e = run.s.resolve(&format!("e{}", first[1])).unwrap_err();
    assert!(matches!(e, RefError::Gone { .. }), "{e}");
    for (k, r) in first.iter().enumerate().filter(|(k, _)| *k != 1) {
        let rec = run.s.resolve(&format!("e{r}")).unwrap();
        let want = [1, 2, 3, 4, 5, 6, 7, 8][k] * 100;
        assert_eq!(rec.uid, Some(want), "e{r} still names its own tile");
    }
    assert_eq!(add_to_cart_refs(&run).len(), 7);
    // A new identical tile in the middle gets a fresh ref; the others keep theirs.
    run.step(&grid(&[1, 3, 4, 20, 5, 6, 7, 8]));
    let now = by_tile(&run);
    assert_eq!(now.len(), 8);
    assert!(!first.contains(&now[&2000]), "a fresh ref for the new tile");
    for (k, t) in [1u64, 3, 4, 5, 6, 7, 8].into_iter().enumerate() {
        let k = if k == 0 { 0 } else { k + 1 };
        assert_eq!(now[&(t * 100)], first[k], "tile {t} kept its ref");
    }
    // A tile whose node was replaced is a new element: the old ref is gone, not moved.
    run.step(&grid(&[1, 3, 4, 20, 5, 6, 7, 9]));
    assert!(matches!(
        run.s.resolve(&format!("e{}", first[7])),
        Err(RefError::Gone { .. })
    ));
    // Down to one tile: it is unique now and keeps its ref; back to two, both keep theirs.
    run.step(&grid(&[4]));
    assert_eq!(add_to_cart_refs(&run), [first[3]]);
    run.step(&grid(&[4, 5]));
    assert_eq!(add_to_cart_refs(&run), [first[3], first[4]]);
    run.finish(7, 4);
}

#[test]
fn positional_family_retires_on_membership_change() {
    // Node ids of a frame of another site (its walker restarts them when it reloads), or none:
    // order is all that tells the tiles apart.
    for uid in [
        (|u| Some((1 << 40) | u)) as fn(u64) -> Option<u64>,
        (|_| None) as fn(u64) -> Option<u64>,
    ] {
        let mut run = Run::new("positional");
        run.step(&grid_with(&[1, 2, 3, 4, 5, 6, 7, 8], uid));
        let first = add_to_cart_refs(&run);
        assert_eq!(first.len(), 8);
        let o = run.step(&grid_with(&[1, 2, 3, 4, 5, 6, 7, 8], uid));
        assert!(o.text.starts_with("no change"));
        // Remove the second tile: every tile's ref retires; none is silently rebound.
        run.step(&grid_with(&[1, 3, 4, 5, 6, 7, 8], uid));
        for r in &first {
            let e = run.s.resolve(&format!("e{r}")).unwrap_err();
            assert!(matches!(e, RefError::Retired { .. }), "{e}");
            assert!(e.to_string().contains(&format!("e{r} is retired")));
        }
        let second = add_to_cart_refs(&run);
        assert!(
            second.iter().all(|r| !first.contains(r)),
            "fresh refs, never reused"
        );
        if uid(1).is_some() {
            // Same count, different member (a DOM node replaced): still a membership change.
            run.step(&grid_with(&[1, 3, 4, 5, 6, 7, 9], uid));
            assert!(matches!(
                run.s.resolve(&format!("e{}", second[0])),
                Err(RefError::Retired { .. })
            ));
        }
        let cart = run
            .reader
            .refs()
            .into_iter()
            .find(|(_, l)| l.name.as_deref() == Some("Cart"))
            .map(|(r, _)| r);
        assert!(
            run.s.resolve(&format!("e{}", cart.expect("cart"))).is_ok(),
            "named elements are untouched"
        );
        run.step(&grid_with(&[1, 3, 4, 5, 6, 7, 9], uid));
        run.step(&grid_with(&[1, 3, 4, 5, 6, 7, 9, 10, 11], uid));
        run.finish(5, 0);
    }
}

/// The envelope's content, without the nonce: the nonce is twelve random digits, so a check
/// that a number is absent must not look at it (CI once failed on a nonce holding "210").
fn body(text: &str) -> &str {
    aperture_engine::envelope::split(text).map_or(text, |f| f.body)
}

fn dashboard(viewers: u32, progress: u32, note: &str) -> Walk {
    let mut p = Page::new("https://live.test/", "Live");
    let main = p.add(None, container("main"));
    p.add(Some(main), text(&format!("Viewers: {viewers}")));
    p.add(
        Some(main),
        container("slider").with(|r| {
            r.name = Some("Progress".into());
            r.actionable = true;
            r.state.value = Some(format!("{progress}%"));
        }),
    );
    p.add(Some(main), text(note));
    p.add(Some(main), button("Like"));
    p.done()
}

#[test]
fn churn_is_demoted_and_touch_promotes() {
    let mut run = Run::new("churn");
    run.step(&dashboard(100, 0, "Welcome"));
    let mut saw_live = false;
    for k in 1..=6 {
        let o = run.step(&dashboard(100 + k * 7, k * 3, "Welcome"));
        saw_live |= o.text.contains(" live");
    }
    assert!(saw_live, "churning nodes are demoted");
    let o = run.step(&dashboard(200, 30, "Welcome"));
    assert!(
        o.text.starts_with("no change"),
        "demoted churn is quiet: {}",
        o.text
    );
    // A real change still gets through.
    let o = run.step(&dashboard(210, 33, "Stream ending soon"));
    assert!(
        body(&o.text).contains("Stream ending soon") && !body(&o.text).contains("210"),
        "{}",
        o.text
    );
    // The agent touches the slider: its changes are reported again, exactly.
    let slider = run
        .reader
        .refs()
        .into_iter()
        .find(|(_, l)| l.role.as_deref() == Some("slider"))
        .map(|(r, _)| r);
    run.s.touch(&format!("e{}", slider.expect("slider")));
    let o = run.step(&dashboard(220, 36, "Stream ending soon"));
    assert!(
        o.text.contains("value=\"36%\"") && !o.text.contains("value=\"36%\" live"),
        "{}",
        o.text
    );
    // The viewer count settles; after a quiet spell it is restored to an exact line.
    for _ in 0..5 {
        run.step(&dashboard(220, 36, "Stream ending soon"));
    }
    let outline = run.reader.outline();
    assert!(outline.iter().all(|(_, l)| !l.is_live()), "{outline:?}");
    run.finish(15, 5);
}

/// What changes in answer to the agent's input is the page answering it, not churn: a readout
/// that moves with every key the agent presses (a slider's value beside its handle) is never
/// marked `live`, and each of its values is reported.
#[test]
fn changes_answering_input_are_not_churn() {
    let mut run = Run::new("answered");
    run.step(&dashboard(100, 0, "Welcome"));
    for k in 1..=6 {
        run.s.after_input();
        let o = run.step(&dashboard(100 + k * 7, k * 3, "Welcome"));
        assert!(
            o.text.contains(&format!("Viewers: {}", 100 + k * 7)) && !o.text.contains(" live"),
            "step {k}: {}",
            o.text
        );
    }
    // The same changes with no input in between are still churn.
    let mut saw_live = false;
    for k in 7..=12 {
        saw_live |= run
            .step(&dashboard(100 + k * 7, k * 3, "Welcome"))
            .text
            .contains(" live");
    }
    assert!(saw_live, "changes on the page's own are still demoted");
    run.finish(13, 6);
}

#[test]
fn navigation_kills_every_ref() {
    let mut run = Run::new("navigation");
    run.step(&login("", "", false, None));
    let old = run.reader.refs();
    let o = run.step_with(&inbox(&["Hello".to_string()]), false, true);
    assert!(o.full && o.text.contains("(navigated)"));
    for r in old.keys() {
        assert!(matches!(
            run.s.resolve(&format!("e{r}")),
            Err(RefError::Navigated { .. })
        ));
    }
    run.step(&inbox(&["Hello".to_string(), "World".to_string()]));
    run.finish(3, 1);
}

#[test]
#[should_panic(expected = "only 0 steps ran")]
fn a_run_that_measured_nothing_fails() {
    Run::new("vacuous").finish(0, 0);
}

#[test]
#[should_panic(expected = "diffs applied")]
fn a_run_without_diffs_fails_when_diffs_were_promised() {
    let mut run = Run::new("no-diffs");
    run.step(&login("", "", false, None));
    run.step(&login("", "", false, None));
    run.finish(2, 1);
}

/// A heading keyed by its test id, showing `text`; `wrapped`: the page has since wrapped it in a
/// named region and hidden it.
fn churned_heading(text: &str, wrapped: bool) -> Walk {
    let mut p = Page::new("https://live.test/", "Live");
    let h = heading(2, "Total")
        .testid("total")
        .with(|r| r.text = Some(text.into()));
    if wrapped {
        // The page wraps the heading in a named region and hides the heading: the region is now
        // a childless line where the heading's line was.
        let w = p.add(None, container("region").with(|r| r.name = Some("Wrap".into())));
        p.add(Some(w), h.hidden());
    } else {
        p.add(None, h);
    }
    p.add(None, button("Save"));
    p.done()
}

/// Minimal case of a drift the random-edit property found: a demoted (`live`) text leaf was
/// replaced in place by a leaf of another kind; the diff paired the two as one changed line,
/// the churn record followed the pairing, and the new element's whole line was suppressed as
/// churn, so the reader kept a heading the page no longer had.
#[test]
fn demoted_leaf_replaced_by_another_kind_is_reported() {
    let mut run = Run::new("demoted leaf replaced");
    run.step(&churned_heading("Total: 1", false));
    for t in ["Total: 2", "Total: 3", "Total: 4"] {
        run.step(&churned_heading(t, false));
    }
    let live = run.reader.outline();
    assert!(
        live.iter()
            .any(|(_, l)| l.role.as_deref() == Some("h2") && l.is_live()),
        "the heading was demoted: {live:?}"
    );
    let o = run.step(&churned_heading("Total: 4", true));
    assert!(o.text.contains("region \"Wrap\""), "{}", o.text);
    // The region never churned: it must not inherit the heading's demotion.
    assert!(!o.text.contains(" live"), "{}", o.text);
    run.finish(5, 3);
}

fn toggling(on: bool, label: &str) -> Walk {
    let mut p = Page::new("https://live.test/", "Live");
    p.add(None, checkbox("Auto", on).testid("auto"));
    p.add(None, text(label));
    p.done()
}

/// `live` says the element's values (name, text, value) are not kept current; its role and
/// flags still are. A checkbox that toggles on its own is demoted, and its later toggles are
/// still reported.
#[test]
fn demoted_element_still_reports_its_flags() {
    let mut run = Run::new("demoted flags");
    let mut on = false;
    run.step(&toggling(on, "Ready"));
    for _ in 0..6 {
        on = !on;
        run.step(&toggling(on, "Ready"));
    }
    assert!(
        run.log.iter().any(|t| t.contains(" live")),
        "the checkbox was demoted: {:?}",
        run.log
    );
    run.finish(7, 3);
}

fn social(follow: &str, likes: u32, extra: Option<(&str, u64)>, uids: bool) -> Walk {
    let mut p = Page::new("https://social.test/post", "Post");
    let u = |n: u64| if uids { Some(n) } else { None };
    let mut add = |r: aperture_engine::record::NodeRecord, n: u64| {
        let mut r = r;
        r.uid = u(n);
        p.add(None, r);
    };
    add(link(follow, "https://social.test/follow"), 10);
    add(button(&format!("Like ({likes})")), 11);
    add(link("Share", "https://social.test/share"), 12);
    if let Some((name, n)) = extra {
        add(link(name, "https://social.test/other"), n);
    }
    p.done()
}

#[test]
fn an_element_whose_name_changes_keeps_its_ref() {
    let mut run = Run::new("renamed");
    run.step(&social("Follow", 3, None, true));
    // The same DOM nodes with new names: changes in place, nothing gone, no new ref.
    let o = run.step(&social("Following", 4, None, true));
    assert!(o.text.contains("~ e1 link \"Following\""), "{}", o.text);
    assert!(o.text.contains("~ e2 button \"Like (4)\""), "{}", o.text);
    assert!(!o.text.contains("gone"), "{}", o.text);
    assert!(run.s.resolve("e1").is_ok() && run.s.resolve("e2").is_ok());
    // A name still on the page is still the identity (re-rendered nodes keep their refs by
    // it): when another node now carries e1's name, e1 goes with the name, and the renamed
    // node is a new element.
    let o = run.step(&social("Unfollow", 4, Some(("Following", 13)), true));
    assert!(o.text.contains("> e1 link \"Following\""), "{}", o.text);
    assert!(o.text.contains("e4 link \"Unfollow\""), "{}", o.text);
    // The names swap between two nodes: identity follows the names (keys), as before.
    let o = run.step(&social("Following", 4, Some(("Unfollow", 13)), true));
    assert!(!o.text.contains("gone"), "{}", o.text);
    run.finish(4, 3);
}

#[test]
fn without_node_ids_a_renamed_element_is_a_new_one() {
    let mut run = Run::new("renamed-no-uid");
    run.step(&social("Follow", 3, None, false));
    let o = run.step(&social("Following", 3, None, false));
    assert!(o.text.contains("gone: e1"), "{}", o.text);
    assert!(run.s.resolve("e1").is_err());
    run.finish(2, 1);
}
