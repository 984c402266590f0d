//! The scripted 20-action sequence of the diff-economics run, on `fixtures/workbench.html`.

/// What one step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// Click the target.
    Click,
    /// Type this text into the target.
    Type(&'static str),
}

/// One scripted action, aimed by role and accessible name so that each product's own refs
/// are looked up from what that product last showed.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// The action.
    pub verb: Verb,
    /// Role of the target (`button`, `tab`, `textbox`, `checkbox`).
    pub role: &'static str,
    /// Accessible name of the target.
    pub name: &'static str,
}

const fn click(role: &'static str, name: &'static str) -> Step {
    Step {
        verb: Verb::Click,
        role,
        name,
    }
}

const fn typ(name: &'static str, text: &'static str) -> Step {
    Step {
        verb: Verb::Type(text),
        role: "textbox",
        name,
    }
}

/// The sequence: tab switches, form typing and submit, list edits that re-render every row,
/// clock controls — while the clock ticks throughout.
pub const STEPS: [Step; 20] = [
    click("tab", "Specs"),
    click("tab", "Reviews"),
    typ("Name", "Ada Lovelace"),
    typ("Email", "ada@example.com"),
    typ("Message", "Please ship by Friday."),
    click("checkbox", "Subscribe to updates"),
    click("button", "Send"),
    typ("New item", "milk"),
    click("button", "Add item"),
    click("button", "Remove bread"),
    click("button", "Sort Z–A"),
    typ("New item", "eggs"),
    click("button", "Add item"),
    click("button", "Remove apples"),
    click("button", "Sort A–Z"),
    click("tab", "Overview"),
    click("button", "Pause clock"),
    click("button", "Resume clock"),
    click("tab", "Specs"),
    click("button", "Remove milk"),
];

/// Strings the page must show after the sequence (checked on a final full snapshot), so a
/// run whose actions silently missed is visible in the report.
pub const END_STATE_PRESENT: &[&str] = &[
    "Thanks, Ada Lovelace",
    "Remove eggs",
    "Remove cheese",
    "Remove dates",
];

/// Strings the page must no longer show after the sequence.
pub const END_STATE_ABSENT: &[&str] = &["Remove milk", "Remove bread", "Remove apples"];

impl Step {
    /// A short label for tables, e.g. `click tab "Specs"`.
    pub fn label(&self) -> String {
        match self.verb {
            Verb::Click => format!("click {} \"{}\"", self.role, self.name),
            Verb::Type(t) => format!("type \"{t}\" into \"{}\"", self.name),
        }
    }
}

/// Whether `text` (a full snapshot) shows the expected end state; returns what is wrong.
pub fn end_state_problems(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for s in END_STATE_PRESENT {
        if !text.contains(s) {
            out.push(format!("missing {s:?}"));
        }
    }
    for s in END_STATE_ABSENT {
        if text.contains(s) {
            out.push(format!("still shows {s:?}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_is_twenty_actions_over_all_four_widgets() {
        assert_eq!(STEPS.len(), 20);
        for role in ["tab", "textbox", "checkbox", "button"] {
            assert!(STEPS.iter().any(|s| s.role == role), "{role}");
        }
        assert!(STEPS.iter().any(|s| s.name.contains("clock")));
    }

    #[test]
    fn every_target_exists_in_the_fixture() {
        let html = include_str!("../fixtures/workbench.html");
        for s in STEPS {
            let word = s.name.split_whitespace().next().unwrap();
            assert!(html.contains(word), "{}", s.label());
        }
    }

    #[test]
    fn end_state_check_names_problems() {
        assert_eq!(
            end_state_problems("Thanks, Ada Lovelace Remove eggs Remove cheese Remove dates"),
            Vec::<String>::new()
        );
        assert_eq!(end_state_problems("Remove milk").len(), 5);
    }
}
