//! The walker's observation v2 (issue 15) in the real browser: accessible names through shadow
//! roots and slots, script-made controls, select options, labels, sentences, aria-hidden, and
//! how long the document has been quiet.

mod common;

use aperture_testkit::eventually_blocking;
use common::*;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

fn fixtures() -> Server {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    Server::start(HashMap::new(), Some(dir))
}

fn by_id<'a>(w: &'a Value, id: &str) -> &'a Value {
    find(w, id, |n| n["dom_id"] == id)
}

/// A walk of `tab` once an element with DOM id `id` is in it (a fixture's last element, or
/// one its script adds after load, later on a loaded machine).
fn walk_with(b: &mut Browser, tab: i64, id: &str) -> Value {
    eventually_blocking(Duration::from_secs(20), &format!("#{id} walked"), || {
        let w = b.walk(tab);
        (nodes(&w).iter().any(|n| n["dom_id"] == id), w)
    })
}

/// A walk of `tab` once the fixture's late list item (added 150 ms after load) is in it.
fn late_walk(b: &mut Browser, tab: i64) -> Value {
    walk_with(b, tab, "late")
}

#[test]
fn walk_names_and_covers_what_an_agent_needs() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/observation.html"));
    // The late list item comes 150 ms after load.
    let w = late_walk(&mut b, t);

    // A web component's button, named through its slot; its host says nothing of its own.
    let inner = by_id(&w, "inner");
    assert_eq!(inner["name"], "Save city", "named through the slot");
    assert_eq!(inner["shadow"], true);
    assert_eq!(inner["actionable"], true);
    assert!(
        by_id(&w, "host").get("text").is_none(),
        "the host's light text is the slot's"
    );

    // Script-made controls.
    for id in ["span-link", "prop-click", "card", "late"] {
        let n = by_id(&w, id);
        assert_eq!(n["actionable"], true, "{id}: {n}");
        assert_eq!(n["scripted"], true, "{id}: {n}");
    }
    assert_eq!(by_id(&w, "span-link")["name"], "Span link");
    // A contenteditable region is a text field, as in Chromium's accessibility tree.
    assert_eq!(by_id(&w, "notes")["role"], "textbox");
    assert_ne!(
        by_id(&w, "card-with-link")["actionable"],
        true,
        "a pointer region is its link's, not a control of its own"
    );

    // Names: image alt, SVG title, aria-labelledby; list items are not named by content.
    assert_eq!(by_id(&w, "logo")["name"], "Company logo");
    assert_eq!(by_id(&w, "svg-btn")["name"], "Search");
    assert_eq!(
        by_id(&w, "sprite")["name"],
        "arrow-left",
        "an icon sprite's symbol title"
    );
    let a = by_id(&w, "onclick-a");
    assert_eq!(
        (a["role"].as_str(), a["name"].as_str()),
        (Some("link"), Some("Beauté"))
    );
    // A control laid out with no area is still on the page.
    let zero = by_id(&w, "zero");
    assert_eq!(
        (zero["name"].as_str(), zero["visible"].as_bool()),
        (Some("Zero"), Some(true))
    );
    assert_eq!(zero["bounds"]["w"], 0.0);
    assert_eq!(by_id(&w, "lb-btn")["name"], "Labelled by this");
    // A list item is not named from its content, unless it is made clickable: the agent acts
    // on it by what it says.
    let items: Vec<&Value> = nodes(&w)
        .iter()
        .filter(|n| n["tag"] == "li" && n["actionable"] != true)
        .collect();
    assert!(
        !items.is_empty() && items.iter().all(|n| n.get("name").is_none()),
        "{items:?}"
    );
    assert_eq!(by_id(&w, "late")["name"], "Late todo");
    // A control in an aria-hidden subtree that is on screen is still a control (see
    // `controls_hidden_from_the_accessibility_tree_but_on_screen_get_refs`).
    let hidden_btn = by_id(&w, "hidden-btn");
    assert_eq!(
        (hidden_btn["name"].as_str(), hidden_btn["actionable"].as_bool()),
        (Some("Hidden button"), Some(true))
    );

    // A label points at its control; selects list their options, not walk them.
    let email = by_id(&w, "email");
    assert_eq!(by_id(&w, "email-label")["label_for"], email["idx"]);
    let country = by_id(&w, "country");
    assert_eq!(
        country["options"],
        serde_json::json!([{"l": "France"}, {"l": "Germany", "s": true}, {"l": "Italy"}])
    );
    assert!(!nodes(&w).iter().any(|n| n["tag"] == "option"));
    let big = by_id(&w, "big");
    assert_eq!(
        big["options"].as_array().unwrap().len(),
        41,
        "40 and the selected one"
    );
    assert_eq!(big["more_options"], 19);

    // A sentence: the link sits in its paragraph's text, where it is read.
    let para = by_id(&w, "para");
    let text = para["text"].as_str().unwrap();
    let at = by_id(&w, "ns")["at"].as_u64().unwrap() as usize;
    let before: String = text.chars().take(at).collect();
    assert!(before.ends_with("members of "), "{before:?} | {text:?}");
    assert_eq!(by_id(&w, "ns")["href"], s.url("/netscape"), "resolved URL");

    // The document changed 150 ms after load and not since.
    assert!(w["dom_quiet_ms"].as_u64().is_some(), "{}", short(&w));
    b.quit();
}

#[test]
fn the_snapshot_reads_the_fixture_whole() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/observation.html"));
    std::thread::sleep(Duration::from_millis(400));
    let w: aperture_engine::record::Walk = serde_json::from_value(b.walk(t)).expect("a walk");
    let out = aperture_engine::render_full(&w);
    for line in [
        "\"Mozilla is a community, created in 1998 by members of\" [e1 link \"Netscape\"] \". The community keeps growing.\"",
        "button \"Save city\"",
        "clickable \"Span link\"",
        "combobox options=[\"France\" *\"Germany\" \"Italy\"]",
        "listitem \"New comment on your post\"",
        "link \"Company logo\"",
    ] {
        assert!(out.contains(line), "{line:?} not in\n{out}");
    }
    assert!(
        !out.contains("\"Email\"\n"),
        "the label its control names is not repeated:\n{out}"
    );
    assert!(!out.contains("href="), "{out}");
    b.quit();
}

#[test]
fn a_page_that_replaces_built_ins_does_not_change_the_walk() {
    let s = fixtures();
    let mut b = Browser::start();
    let clean = b.open(&s.url("/observation.html"));
    let hostile = b.open(&s.url("/observation.html?tamper"));
    // Compare only once the hostile page has replaced its built-ins (300 ms after it ran,
    // later on a loaded machine); before that the two walks agree trivially. Its late item
    // (150 ms) is in by then too.
    eventually_blocking(Duration::from_secs(20), "the page tampered", || {
        let r = b.ok(
            json!({"cmd": "devtools", "tab": hostile, "method": "Runtime.evaluate",
            "params": {"expression": "window.Map === window.WeakSet"}}),
        );
        (r["result"]["result"]["value"] == true, r)
    });
    let mut a = late_walk(&mut b, clean);
    let mut h = b.walk(hostile);
    for w in [&mut a, &mut h] {
        for k in ["walk_id", "walk_us", "url", "dom_quiet_ms", "change_quiet_ms"] {
            w.as_object_mut().unwrap().remove(k);
        }
        // Resolved link URLs carry the page's own address.
        for n in w["nodes"].as_array_mut().unwrap() {
            n.as_object_mut().unwrap().remove("href");
        }
    }
    assert!(nodes(&a).iter().any(|n| n["dom_id"] == "late"), "{}", short(&a));
    assert_eq!(a, h, "a page that replaced built-ins changed the walk");
    b.quit();
}

/// Pages put aria-hidden on regions that stay on screen (a dropdown laid out open, the page
/// behind a "modal", advert blocks, a card's overlay link): Chromium's accessibility tree
/// leaves them out, but a user sees and clicks them, and so must an agent. Controls there
/// that a user can reach are walked (past the end of a list the user scrolls too); their
/// surrounding text is not, nor anything clipped away by a box no user scrolls (collapsed,
/// `overflow: hidden` or `clip`: the rest of the page behind a modal), off the page, without
/// area or transparent.
#[test]
fn controls_hidden_from_the_accessibility_tree_but_on_screen_get_refs() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/aria-hidden.html"));
    let w = walk_with(&mut b, t, "overlay");
    for (id, role, name) in [
        ("ah-link", "link", "Shown link"),
        ("ah-icon", "link", "Home"),
        ("ah-menuitem", "menuitem", "World news"),
        ("ah-btn", "button", "Accept and continue"),
        ("ah-search", "searchbox", "Search"),
        ("overlay", "link", "Full article A story"),
        ("headline", "link", "A story"),
        ("ah-first", "link", "First in the list"),
        ("ah-scrolled", "link", "Far down the list"),
    ] {
        let n = by_id(&w, id);
        assert_eq!(
            (
                n["role"].as_str(),
                n["name"].as_str(),
                n["actionable"].as_bool(),
                n["visible"].as_bool()
            ),
            (Some(role), Some(name), Some(true), Some(true)),
            "{id}: {n}"
        );
    }
    for id in [
        "ah-text",
        "ah-clipped",
        "ah-off",
        "ah-zero",
        "ah-transparent",
        "ah-invisible",
        "ah-clip",
        "bh-above",
        "bh-below",
    ] {
        assert!(
            !nodes(&w)
                .iter()
                .any(|n| n["dom_id"] == id && n["visible"] == true),
            "{id} is not on screen but was walked as if it were: {}",
            short(&w)
        );
    }
    let walk: aperture_engine::record::Walk = serde_json::from_value(w).expect("a walk");
    let out = aperture_engine::render_full(&walk);
    for line in [
        "link \"Shown link\"",
        "link \"Home\"",
        "menuitem \"World news\"",
        "button \"Accept and continue\"",
    ] {
        assert!(out.contains(line), "{line:?} not in\n{out}");
    }
    assert!(!out.contains("Text the accessibility tree"), "{out}");
    b.quit();
}

/// An icon from a sprite (`<svg><use href="#icon-live">`) beside a control's words: Chromium's
/// accessibility tree names the control by its words alone (an SVG's own `<title>` counts, a
/// used symbol's does not), so the link is "Le direct", not "live Le direct". A control with
/// nothing but the icon is still named by the symbol's title.
#[test]
fn a_sprite_icon_does_not_prefix_a_control_s_words() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/names.html"));
    let w = walk_with(&mut b, t, "icon-only");
    for (id, name) in [
        ("direct", "Le direct"),
        ("login", "Connexion"),
        ("icon-only", "User"),
    ] {
        assert_eq!(by_id(&w, id)["name"], name, "{id}");
    }
    b.quit();
}

/// Names computed from content, against Chromium's own accessibility tree for the same page:
/// each control of the fixture starts its name with its own word (`N01`…), and the walker's
/// name of each must be the tree's. Chromium leaves the content of figures, navigation,
/// articles, quotes, groups and the like out of an ancestor's name (a link around a figure is
/// named by its words, not the image's alt), reads a used symbol's title nowhere, and reads a
/// `title` only of an element with a role of its own.
#[test]
fn names_from_content_are_chromium_s() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/ax-names.html"));
    let w = eventually_blocking(Duration::from_secs(20), "the fixture walked", || {
        let w = b.walk(t);
        let n = nodes(&w).iter().filter(|n| n["actionable"] == true).count();
        (n >= 26, w)
    });
    let ax = b.ok(json!({"cmd": "devtools", "tab": t,
        "method": "Accessibility.getFullAXTree", "params": {}}));
    let key = |name: &str| -> Option<String> {
        let k = name.split(' ').next()?;
        (k.len() == 3 && k.starts_with('N')).then(|| k.to_string())
    };
    let mut chromium = HashMap::new();
    for n in ax["result"]["nodes"].as_array().expect("AX nodes") {
        let role = n["role"]["value"].as_str().unwrap_or_default();
        if !matches!(role, "link" | "button") {
            continue;
        }
        let name = n["name"]["value"].as_str().unwrap_or_default();
        if let Some(k) = key(name) {
            chromium.insert(k, name.to_string());
        }
    }
    assert_eq!(chromium.len(), 25, "{chromium:?}");
    let mut wrong = Vec::new();
    for n in nodes(&w).iter().filter(|n| n["actionable"] == true) {
        let name = n["name"].as_str().unwrap_or_default();
        let Some(k) = key(name) else { continue };
        if chromium.get(&k).map(String::as_str) != Some(name) {
            wrong.push(format!("walker {name:?}, Chromium {:?}", chromium.get(&k)));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    b.quit();
}

/// Pages style a checkbox, radio or file input by making the native control transparent over
/// their own drawing of it: Chromium's accessibility tree (and both peers) keep it, and it
/// must get a ref, or an agent cannot tick "Remember me". So does a transparent "cover" link
/// laid over an advert (qq.com's ads; both peers list it), but not a transparent link in the
/// text or one that lets the pointer through.
#[test]
fn transparent_form_controls_are_still_controls() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/transparent.html"));
    let w = walk_with(&mut b, t, "faded");
    for (id, role, name) in [
        ("remember", "checkbox", "Remember me"),
        ("yearly", "radio", "Yearly"),
        ("upload", "button", "Upload a photo"),
    ] {
        let n = by_id(&w, id);
        assert_eq!(
            (
                n["role"].as_str(),
                n["name"].as_str(),
                n["actionable"].as_bool(),
                n["visible"].as_bool()
            ),
            (Some(role), Some(name), Some(true), Some(true)),
            "{id}: {n}"
        );
    }
    assert_eq!(by_id(&w, "ghost")["visible"], false);
    let cover = by_id(&w, "cover");
    assert_eq!(
        (
            cover["role"].as_str(),
            cover["actionable"].as_bool(),
            cover["visible"].as_bool()
        ),
        (Some("link"), Some(true), Some(true)),
        "{cover}"
    );
    assert_eq!(by_id(&w, "faded")["visible"], false);
    let walk: aperture_engine::record::Walk = serde_json::from_value(w).expect("a walk");
    let out = aperture_engine::render_full(&walk);
    for line in [
        "checkbox \"Remember me\"",
        "radio \"Yearly\"",
        "button \"Upload a photo\"",
    ] {
        assert!(out.contains(line), "{line:?} not in\n{out}");
    }
    assert!(!out.contains("Ghost"), "{out}");
    b.quit();
}

/// Controls an agent must be able to address, as Chromium's accessibility tree and both peers
/// have them: a disabled control keeps its ref (marked `disabled`); a list item made clickable
/// by an onclick attribute is named by its words, as a clickable is; the label of a checkbox,
/// radio or file input that is not rendered (tabs made of hidden radios, a styled upload
/// button) is that control, with its role and state, while a label of a control on screen
/// stays a label; and a slider inside a button's content says its value in the button's name.
#[test]
fn disabled_wrapped_and_stand_in_controls_get_refs() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/stand-ins.html"));
    let w = walk_with(&mut b, t, "volume");
    for (id, role, name) in [
        ("email", "textbox", "Email"),
        ("send", "button", "Subscribe"),
        ("agree", "checkbox", "Agree"),
        ("follow", "listitem", "Follow jnovo22"),
        ("follow-link", "link", "Follow jnovo22"),
        ("tab-a-label", "radio", "Trending"),
        ("tab-b-label", "radio", "Latest"),
        ("upload", "button", "Upload a photo"),
        ("volume", "button", "100.00% Mute"),
    ] {
        let n = by_id(&w, id);
        assert_eq!(
            (
                n["role"].as_str(),
                n["name"].as_str(),
                n["actionable"].as_bool(),
                n["visible"].as_bool()
            ),
            (Some(role), Some(name), Some(true), Some(true)),
            "{id}: {n}"
        );
    }
    for id in ["email", "send", "agree"] {
        assert_eq!(by_id(&w, id)["state"]["disabled"], true, "{id}");
    }
    assert_eq!(by_id(&w, "tab-a-label")["state"]["checked"], "true");
    assert_eq!(by_id(&w, "tab-b-label")["state"]["checked"], "false");
    let plain = by_id(&w, "plain");
    assert_eq!(
        (plain["role"].as_str(), plain["actionable"].as_bool()),
        (Some("label"), Some(false)),
        "{plain}"
    );
    // The embedded slider's value is Chromium's choice too, in this very browser.
    let ax = b.ok(json!({"cmd": "devtools", "tab": t,
        "method": "Accessibility.getFullAXTree", "params": {}}));
    let volume = ax["result"]["nodes"]
        .as_array()
        .expect("AX nodes")
        .iter()
        .filter(|n| n["role"]["value"] == "button")
        .filter_map(|n| n["name"]["value"].as_str())
        .find(|n| n.ends_with("Mute"));
    assert_eq!(volume, Some("100.00% Mute"));

    let walk: aperture_engine::record::Walk = serde_json::from_value(w).expect("a walk");
    let out = aperture_engine::render_full(&walk);
    let with_ref = |needle: &str| {
        out.lines().any(|l| {
            let l = l.trim_start();
            l.split_once(' ').is_some_and(|(r, rest)| {
                r.len() > 1
                    && r.starts_with('e')
                    && r[1..].bytes().all(|b| b.is_ascii_digit())
                    && rest.starts_with(needle)
            })
        })
    };
    for line in [
        "button \"Subscribe\" disabled",
        "radio \"Trending\" checked",
        "radio \"Latest\"",
        "button \"Upload a photo\"",
        "listitem \"Follow jnovo22\"",
    ] {
        assert!(with_ref(line), "{line:?} has no ref in\n{out}");
    }
    b.quit();
}

/// What is not rendered gets no ref, as Chromium's accessibility tree leaves it out: the body
/// of a closed <details> (its summary stays, the way to open it) and the content of a
/// content-visibility:hidden box. A click there found only the page under it. Open details and
/// content-visibility:auto content are walked as usual.
#[test]
fn a_closed_details_body_and_unrendered_content_get_no_refs() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/unrendered.html"));
    let w = walk_with(&mut b, t, "cv-auto");
    let has = |id: &str| nodes(&w).iter().any(|n| n["dom_id"] == id);
    for id in ["closed-summary", "open-summary", "inside-open", "cv-auto"] {
        assert!(has(id), "{id} is walked: {}", short(&w));
    }
    for id in ["inside-closed", "closed-link", "second-summary", "cv-hidden"] {
        assert!(!has(id), "{id} is not rendered, so not walked: {}", short(&w));
    }
    assert_eq!(by_id(&w, "closed")["state"]["expanded"], false);
    // The summary, which is what gets a ref and a click, says whether its details are open.
    assert_eq!(by_id(&w, "closed-summary")["state"]["expanded"], false);
    assert_eq!(by_id(&w, "open-summary")["state"]["expanded"], true);
}

/// A dialog that takes all input says so (`showModal()`, `aria-modal`), so the agent knows the
/// rest of the page cannot be clicked until it closes; one opened with `show()`, or a page's
/// plain `role=dialog`, is not marked.
#[test]
fn a_modal_dialog_is_marked_modal() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/modal.html"));
    let w = walk_with(&mut b, t, "tip-ok");
    for id in ["modal", "aria-modal"] {
        assert_eq!(by_id(&w, id)["state"]["modal"], true, "{id}: {}", short(&w));
    }
    for id in ["plain", "aria-plain"] {
        assert!(
            by_id(&w, id)["state"].get("modal").is_none(),
            "{id}: {}",
            short(&w)
        );
    }
    let w: aperture_engine::record::Walk = serde_json::from_value(w).expect("a walk");
    let out = aperture_engine::render_full(&w);
    assert!(out.contains("dialog modal\n"), "{out}");
    b.quit();
}

/// Which one of a set is current: `aria-current` (its token kept), or a pager's or tab row's
/// item whose class alone of its row says active; a class every item has marks none.
#[test]
fn the_current_item_of_a_set_is_marked() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/current.html"));
    let w = walk_with(&mut b, t, "tab2");
    let current = |id: &str| by_id(&w, id)["state"].get("current").cloned();
    assert_eq!(current("home"), Some(json!("page")));
    assert_eq!(current("s2"), Some(json!("step")));
    assert_eq!(current("p2"), Some(json!("true")));
    assert_eq!(current("tab1"), Some(json!("true")));
    for id in ["docs", "s1", "s3", "p1", "p3", "all1", "all2", "tab2"] {
        assert_eq!(current(id), None, "{id}: {}", short(&w));
    }
    let w: aperture_engine::record::Walk = serde_json::from_value(w).expect("a walk");
    let out = aperture_engine::render_full(&w);
    assert!(out.contains("link \"Home\" current=page"), "{out}");
    assert!(out.contains("listitem current\n"), "{out}");
    b.quit();
}

/// Text drawn at size zero is not what a person sees: a face-down card (font-size 0) is not
/// named by its value, and a span of zero-size words is not in its sentence; a nav bar that
/// sets font-size 0 only to close the gaps between its links keeps their names. Turned face
/// up, the card is named.
#[test]
fn zero_size_text_names_nothing() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/zero-font.html"));
    let w = walk_with(&mut b, t, "navlink2");
    assert!(by_id(&w, "down").get("name").is_none(), "{}", short(&w));
    assert_eq!(by_id(&w, "up")["name"], "7");
    assert_eq!(by_id(&w, "navlink")["name"], "Docs");
    let out = aperture_engine::render_full(&serde_json::from_value(w).expect("a walk"));
    assert!(!out.contains("secret") && !out.contains("14"), "{out}");
    b.ok(json!({"cmd": "devtools", "tab": t, "method": "Runtime.evaluate",
        "params": {"expression": "document.getElementById('down').click()"}}));
    eventually_blocking(Duration::from_secs(20), "the card face up", || {
        let w = b.walk(t);
        (by_id(&w, "down")["name"] == "14", w)
    });
    b.quit();
}

/// A drawn shape that answers the pointer resting on it (a mouseenter listener: a hover
/// target, a shape to keep the mouse in) gets a ref, as only a ref lets the agent hover it; a
/// shape without one does not, nor does an HTML element with one (tooltips are everywhere).
#[test]
fn a_shape_that_answers_the_pointer_gets_a_ref() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/hover-shapes.html"));
    let w = walk_with(&mut b, t, "out");
    assert_eq!(by_id(&w, "hot")["actionable"], true, "{}", short(&w));
    for id in ["cold", "tip"] {
        assert_ne!(
            nodes(&w)
                .iter()
                .find(|n| n["dom_id"] == id)
                .map(|n| n["actionable"].clone()),
            Some(json!(true)),
            "{id}: {}",
            short(&w)
        );
    }
    b.quit();
}

/// A menu opened by CSS alone (`li:hover > ul { display: block }`, or visibility in an
/// @media block) has no listener, so its item becomes a control through the style sheet: it
/// gets a ref, for the agent to hover it. A hover rule that only restyles (opacity), or one
/// whose target is already shown, makes nothing a control; what the menu hides stays unwalked.
#[test]
fn an_item_that_opens_a_css_hover_menu_gets_a_ref() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/hover-menu.html"));
    let w = walk_with(&mut b, t, "shown");
    let actionable = |id: &str| {
        nodes(&w)
            .iter()
            .find(|n| n["dom_id"] == id)
            .and_then(|n| n["actionable"].as_bool())
            == Some(true)
    };
    assert!(actionable("products"), "{}", short(&w));
    assert!(actionable("drop"), "a rule inside @media counts: {}", short(&w));
    // "tip" is matched by no hovered selector: only by a plain one sharing its rule's list.
    for id in ["about", "card", "shown", "tip"] {
        assert!(!actionable(id), "{id} opens nothing hidden: {}", short(&w));
    }
    assert!(
        !nodes(&w).iter().any(|n| n["dom_id"] == "laptops"),
        "the closed menu's link is not walked"
    );
    // A page that replaced `WeakSet` (after the walker captured it) changes nothing: the
    // walker makes its set of roots with the constructor it captured at start-up.
    let hostile = b.open(&s.url("/hover-menu.html?tamper"));
    eventually_blocking(Duration::from_secs(20), "the page tampered", || {
        let r = b.ok(
            json!({"cmd": "devtools", "tab": hostile, "method": "Runtime.evaluate",
            "params": {"expression": "window.WeakSet.name !== 'WeakSet'"}}),
        );
        (r["result"]["result"]["value"] == true, r)
    });
    let h = b.walk(hostile);
    let products = nodes(&h).iter().find(|n| n["dom_id"] == "products").cloned();
    assert_eq!(
        products.and_then(|n| n["actionable"].as_bool()),
        Some(true),
        "{}",
        short(&h)
    );
    // Hovering it opens the menu, and the next walk has the link.
    let (x, y) = center(by_id(&w, "products"));
    b.ok(json!({"cmd": "move", "tab": t, "x": x, "y": y}));
    let w2 = b.walk(t);
    assert!(
        nodes(&w2).iter().any(|n| n["dom_id"] == "laptops"),
        "{}",
        short(&w2)
    );
}

/// A control says what a press opens (`aria-haspopup`): a menu item with a submenu reads
/// `popup=menu` before it is opened; one that says `collapsed` needs no more; an unknown kind
/// is not shown.
#[test]
fn a_control_with_a_popup_says_what_it_opens() {
    let s = fixtures();
    let mut b = Browser::start();
    let t = b.open(&s.url("/popups.html"));
    let w = walk_with(&mut b, t, "odd");
    let popup = |id: &str| by_id(&w, id)["state"].get("popup").cloned();
    assert_eq!(popup("loree"), Some(json!("menu")));
    assert_eq!(popup("pick"), Some(json!("listbox")));
    assert_eq!(popup("open"), Some(json!("dialog")));
    assert_eq!(popup("plain"), None);
    assert_eq!(popup("odd"), None);
    let w: aperture_engine::record::Walk = serde_json::from_value(w).expect("a walk");
    let out = aperture_engine::render_full(&w);
    assert!(out.contains("menuitem \"Loree\" popup=menu"), "{out}");
    assert!(out.contains("button \"Pick a size\" popup=listbox"), "{out}");
    assert!(out.contains("button \"Share\" collapsed\n"), "{out}");
    b.quit();
}
