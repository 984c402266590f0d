//! Whether every element the incumbent makes actionable is addressable in Aperture's snapshot.

use crate::parse::RefElement;

/// Roles the incumbent hands a ref that an agent acts on. Structural refs (`generic`,
/// `paragraph`, `heading`…) are left out: the check is about what an agent can click or type
/// into, not about which containers are numbered. `clickable` is agent-browser's: an element
/// it lists as interactive for its cursor or click listener alone (see `parse`).
pub const ACTIONABLE: &[&str] = &[
    "button",
    "checkbox",
    "clickable",
    "combobox",
    "link",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
    "treeitem",
];

/// Roles that name the same kind of control in both dialects.
fn group(role: &str) -> &str {
    match role {
        "textbox" | "searchbox" => "text",
        "combobox" | "listbox" => "choice",
        "checkbox" | "switch" | "menuitemcheckbox" => "check",
        "radio" | "menuitemradio" => "radio",
        r => r,
    }
}

/// The form names are compared in: lower case, without whitespace, control or invisible
/// format characters, and without a trailing ellipsis (Aperture caps long strings). Whitespace
/// goes entirely because the two products join a link's text nodes differently ("Crazy Lumify"
/// vs "CrazyLumify"), and invisible characters because Aperture strips them from page text.
fn norm(s: &str) -> String {
    s.trim_end_matches('…')
        .chars()
        .filter(|&c| {
            !c.is_whitespace()
                && !c.is_control()
                && !matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// Equal names, or one a prefix of the other when the shorter is long enough to have been cut
/// rather than merely similar.
fn same_name(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.chars().count() >= 16 && long.starts_with(short)
}

/// How one incumbent element was found on the Aperture side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Same kind of control with the same name.
    Exact,
    /// Same name on a ref'd element of another role (e.g. a `clickable` for a `button`), or
    /// the same kind of control under another name when the incumbent's had none.
    Loose,
    /// An option of a select whose Aperture line counts it rather than listing it
    /// (`options=[… +45]`): addressable by its label through `browser_act select`, not shown.
    Counted,
    /// Nothing addressable matches.
    Missing,
}

/// The outcome of matching one page.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// Actionable elements the incumbent gave a ref.
    pub actionable: usize,
    /// Matched by kind and name.
    pub exact: usize,
    /// Matched loosely (see [`Found::Loose`]).
    pub loose: usize,
    /// Options reached through a select's count (see [`Found::Counted`]); not in `exact` or
    /// `loose`.
    pub counted: usize,
    /// The incumbent elements with no counterpart, as `role "name"` (with ` [iframe]` for
    /// one inside a frame).
    pub missing: Vec<String>,
    /// How many of `missing` sit inside an iframe (an incumbent ref whose frame prefix is not
    /// the root element's).
    pub missing_in_frames: usize,
}

impl Coverage {
    /// Share of actionable incumbent elements that are addressable in Aperture (1 when there
    /// are none).
    pub fn share(&self) -> f64 {
        if self.actionable == 0 {
            1.0
        } else {
            (self.exact + self.loose) as f64 / self.actionable as f64
        }
    }
}

/// Matches each actionable incumbent element to an unused Aperture ref: named ones first (by
/// kind and name, then by name alone), then unnamed ones by kind (an unnamed Aperture control
/// first), then options their select counts; each pass in document order.
/// Each Aperture ref answers for at most one incumbent element, so ten "Add to cart" buttons
/// need ten refs.
pub fn check(incumbent: &[RefElement], aperture: &[RefElement]) -> Coverage {
    // A counted option has no name to match: it only answers for an option nothing else did.
    let ap: Vec<(String, String)> = aperture
        .iter()
        .map(|e| {
            let g = if e.counted {
                "counted option"
            } else {
                group(&e.role)
            };
            (g.to_string(), norm(e.name.as_deref().unwrap_or("")))
        })
        .collect();
    let mut used = vec![false; ap.len()];
    let mut take = |pred: &dyn Fn(&(String, String)) -> bool| -> bool {
        match ap.iter().enumerate().position(|(i, a)| !used[i] && pred(a)) {
            Some(i) => {
                used[i] = true;
                true
            }
            None => false,
        }
    };
    // The incumbent prefixes refs with a frame id (`f31e5`), and the main frame's id grows
    // from page to page, so a frame is another frame only by differing from the root's.
    let frame_of = |r: &str| r[..r.rfind('e').unwrap_or(0)].to_string();
    let main_frame = incumbent
        .first()
        .map(|e| frame_of(&e.reference))
        .unwrap_or_default();
    let mut c = Coverage::default();
    let acts: Vec<&RefElement> = incumbent
        .iter()
        .filter(|e| ACTIONABLE.contains(&e.role.as_str()))
        .collect();
    c.actionable = acts.len();
    let mut found = vec![Found::Missing; acts.len()];
    // Named elements first: an unnamed one, matched by kind alone, must not take the control
    // a named one would have matched. Then unnamed ones (an unnamed counterpart first), then
    // options a select counts.
    for (k, e) in acts.iter().enumerate() {
        let g = group(&e.role);
        let n = norm(e.name.as_deref().unwrap_or(""));
        if n.is_empty() {
            continue;
        }
        if take(&|(ag, an)| ag == g && same_name(an, &n)) {
            found[k] = Found::Exact;
        } else if take(&|(ag, an)| ag != "counted option" && same_name(an, &n)) {
            found[k] = Found::Loose;
        }
    }
    for (k, e) in acts.iter().enumerate() {
        let g = group(&e.role);
        if !norm(e.name.as_deref().unwrap_or("")).is_empty() {
            continue;
        }
        if take(&|(ag, an)| ag == g && an.is_empty()) || take(&|(ag, _)| ag == g) {
            found[k] = Found::Loose;
        }
    }
    for (k, e) in acts.iter().enumerate() {
        if found[k] == Found::Missing && group(&e.role) == "option" && take(&|(ag, _)| ag == "counted option")
        {
            found[k] = Found::Counted;
        }
    }
    for (k, e) in acts.iter().enumerate() {
        match found[k] {
            Found::Exact => c.exact += 1,
            Found::Loose => c.loose += 1,
            Found::Counted => c.counted += 1,
            Found::Missing => {
                let framed = frame_of(&e.reference) != main_frame;
                c.missing_in_frames += usize::from(framed);
                c.missing.push(format!(
                    "{}{}{}",
                    e.role,
                    e.name.as_ref().map(|n| format!(" {n:?}")).unwrap_or_default(),
                    if framed { " [iframe]" } else { "" }
                ));
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(r: &str, role: &str, name: Option<&str>) -> RefElement {
        RefElement {
            reference: r.into(),
            role: role.into(),
            name: name.map(Into::into),
            counted: false,
        }
    }

    #[test]
    fn options_match_by_label_or_by_their_select_s_count() {
        let inc = vec![
            el("e1", "option", Some("France")),
            el("e2", "option", Some("Germany")),
            el("e3", "option", Some("Italy")),
            el("e4", "option", Some("Spain")),
        ];
        let mut counted = el("e9/+0", "option", None);
        counted.counted = true;
        let ap = vec![el("e9/o0", "option", Some("France")), counted.clone(), counted];
        let c = check(&inc, &ap);
        assert_eq!((c.exact, c.counted, c.missing.len()), (1, 2, 1));
    }

    #[test]
    fn matches_by_kind_then_name_then_reports_misses() {
        let inc = vec![
            el("e1", "generic", None),
            el("e2", "link", Some("Home")),
            el("e3", "button", Some("Add  to\u{9d} cart")),
            el("e4", "button", Some("Add to cart")),
            el("e5", "searchbox", Some("Search")),
            el("e6", "button", Some("Menu")),
            el("e7", "textbox", None),
            el("e8", "link", Some("Hidden")),
            el("f1e2", "button", Some("Framed")),
        ];
        let ap = vec![
            el("e1", "link", Some("home")),
            el("e2", "button", Some("Add to cart")),
            el("e3", "button", Some("Add to cart")),
            el("e4", "textbox", Some("Search")),
            el("e5", "clickable", Some("Menu")),
            el("e6", "textbox", Some("Comment")),
        ];
        let c = check(&inc, &ap);
        assert_eq!(c.actionable, 8);
        assert_eq!(c.exact, 4);
        assert_eq!(c.loose, 2, "clickable Menu, unnamed textbox");
        assert_eq!(
            c.missing,
            vec![
                "link \"Hidden\"".to_string(),
                "button \"Framed\" [iframe]".to_string()
            ]
        );
        assert_eq!(c.missing_in_frames, 1);
        assert!((c.share() - 6.0 / 8.0).abs() < 1e-12);
    }

    #[test]
    fn an_unnamed_element_does_not_take_a_named_one_s_counterpart() {
        let inc = vec![el("e1", "link", None), el("e2", "link", Some("12:57"))];
        let ap = vec![el("e1", "link", Some("12:57")), el("e2", "link", None)];
        let c = check(&inc, &ap);
        assert_eq!((c.exact, c.loose, c.missing.len()), (1, 1, 0));
    }

    #[test]
    fn one_ref_answers_for_one_element() {
        let inc = vec![el("e1", "button", Some("Buy")), el("e2", "button", Some("Buy"))];
        let ap = vec![el("e1", "button", Some("Buy"))];
        let c = check(&inc, &ap);
        assert_eq!((c.exact, c.missing.len()), (1, 1));
    }

    #[test]
    fn truncated_names_match_by_prefix() {
        let long = "A very long link title that Aperture cuts at its cap and more";
        let inc = vec![el("e1", "link", Some(long))];
        let ap = vec![el(
            "e1",
            "link",
            Some("A very long link title that Aperture cuts…"),
        )];
        assert_eq!(check(&inc, &ap).exact, 1);
        let short = vec![el("e1", "link", Some("Go"))];
        let ap = vec![el("e1", "link", Some("Gone"))];
        assert_eq!(check(&short, &ap).missing.len(), 1);
    }

    #[test]
    fn no_actionable_elements_is_full_coverage() {
        assert_eq!(check(&[el("e1", "paragraph", None)], &[]).share(), 1.0);
    }
}
