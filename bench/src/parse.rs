//! Reading refs out of the two products' snapshot dialects.
//!
//! Neither parser is a full grammar: each pulls out the lines that carry a ref, with their role
//! and accessible name, which is all the coverage check and the scripted runs need.

/// An element that was handed a ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefElement {
    /// The ref as the product spells it (`e12`, `f1e3`).
    pub reference: String,
    /// Role word as rendered (`button`, `link`, `h2`, `clickable`…).
    pub role: String,
    /// Accessible name, unescaped; `None` when the line has none.
    pub name: Option<String>,
    /// Aperture only: an option of a select that its line counts (`+45`) instead of listing;
    /// `browser_act select` reaches it by its label all the same.
    pub counted: bool,
}

/// Reads a double-quoted string starting at `s[0] == '"'`, undoing `\"` and `\\` (and, for
/// the incumbent's JSON-style strings, `\n`/`\t`/`\uXXXX`). Returns the body and the rest.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut it = s.char_indices();
    if it.next()?.1 != '"' {
        return None;
    }
    while let Some((i, c)) = it.next() {
        match c {
            '"' => return Some((out, &s[i + 1..])),
            '\\' => match it.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'u' => {
                    let hex: String = (0..4).filter_map(|_| it.next().map(|(_, c)| c)).collect();
                    out.push(
                        u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .unwrap_or('\u{fffd}'),
                    );
                }
                e => out.push(e),
            },
            c => out.push(c),
        }
    }
    None
}

/// Elements with refs in a `@playwright/mcp` response (its YAML aria snapshot), in order.
///
/// A line looks like `- button "Save" [ref=e4] [cursor=pointer]:`; YAML may wrap the whole key
/// in single quotes when it holds a colon (`- 'link "a: b" [ref=e3]'`).
pub fn incumbent_refs(text: &str) -> Vec<RefElement> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("- ") else {
            continue;
        };
        let Some(at) = rest.find("[ref=") else {
            continue;
        };
        let Some(end) = rest[at..].find(']') else {
            continue;
        };
        let reference = rest[at + 5..at + end].to_string();
        let unwrapped;
        let key = match rest.strip_prefix('\'') {
            Some(inner) => {
                unwrapped = inner.replace("''", "'");
                unwrapped.as_str()
            }
            None => rest,
        };
        let role_end = key.find([' ', '[', ':', '\'']).unwrap_or(key.len());
        let role = key[..role_end].to_string();
        let name = key[role_end..]
            .strip_prefix(' ')
            .and_then(|s| quoted(s).map(|(n, _)| n));
        out.push(RefElement {
            reference,
            role,
            name,
            counted: false,
        });
    }
    out
}

/// One line of agent-browser's YAML-like tree: `- link "Netscape" [ref=e11]`, `- heading "X"
/// [level=1, ref=e1]`, `- generic [ref=e160] clickable [cursor:pointer, onclick]`. An element
/// agent-browser marks `clickable` (a cursor or a click listener) under a role that is not
/// itself a control is read as role `clickable`, the word Aperture uses for the same thing.
fn agent_browser_line(line: &str) -> Option<RefElement> {
    let rest = line.trim_start().strip_prefix("- ")?;
    let at = rest.find("ref=e")?;
    let reference: String = rest[at + 4..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    let role_end = rest.find([' ', '[', ':']).unwrap_or(rest.len());
    let mut role = rest[..role_end].to_string();
    let name = rest[role_end..]
        .strip_prefix(' ')
        .filter(|s| s.starts_with('"'))
        .and_then(|s| quoted(s).map(|(n, _)| n));
    let after_ref = &rest[at..];
    if after_ref.contains("] clickable") && !crate::coverage::ACTIONABLE.contains(&role.as_str()) {
        role = "clickable".into();
    }
    Some(RefElement {
        reference,
        role,
        name,
        counted: false,
    })
}

/// Elements with refs in an agent-browser answer, in order: a `snapshot` tree (`-c`, `-i`), or
/// a `snapshot --delta` answer, which is either such a tree, `unchanged (revision N)`, or a
/// JSON delta whose `changes` name added elements and whose `treeChange.lines` splice tree
/// lines in.
pub fn agent_browser_refs(text: &str) -> Vec<RefElement> {
    let t = text.trim_start();
    if t.starts_with('{')
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(t)
    {
        let mut out: Vec<RefElement> = Vec::new();
        for c in v["changes"].as_array().into_iter().flatten() {
            let Some(r) = c["ref"].as_str() else { continue };
            if c["op"].as_str() == Some("remove") {
                continue;
            }
            out.push(RefElement {
                reference: r.trim_start_matches('@').to_string(),
                role: c["node"]["role"].as_str().unwrap_or("").to_string(),
                name: c["node"]["name"].as_str().map(String::from),
                counted: false,
            });
        }
        // The spliced tree lines carry the same elements with their final words (and the
        // `clickable` mark); they come last so that a lookup of the latest ref prefers them.
        for l in v["treeChange"]["lines"].as_array().into_iter().flatten() {
            if let Some(e) = l.as_str().and_then(agent_browser_line) {
                out.push(e);
            }
        }
        return out;
    }
    text.lines().filter_map(agent_browser_line).collect()
}

/// Strips one diff marker (`~ `, `> `, `+ `, `= `, `- `) from the front of an Aperture line.
fn strip_marker(s: &str) -> &str {
    for m in ["~ ", "> ", "+ ", "= ", "- "] {
        if let Some(r) = s.strip_prefix(m) {
            return r;
        }
    }
    s
}

/// True for an Aperture ref token: `e` followed by digits.
fn is_ref(w: &str) -> bool {
    w.len() > 1 && w.starts_with('e') && w[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Splits an Aperture line into its own part and its sentence's inline elements (`[e4 link
/// "docs"]`), brackets inside quoted strings left alone.
fn split_inline(line: &str) -> (String, Vec<String>) {
    let (mut host, mut inner, mut cur) = (String::new(), Vec::new(), String::new());
    let (mut quoted, mut escaped, mut depth) = (false, false, 0u32);
    for c in line.chars() {
        if quoted {
            if depth > 0 { &mut cur } else { &mut host }.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            continue;
        }
        let opens_options = host.ends_with("options=");
        let target = if depth > 0 { &mut cur } else { &mut host };
        match c {
            '"' => {
                quoted = true;
                target.push(c);
            }
            // An option list is the only other bracket, and it stays with its line.
            '[' if depth == 0 && opens_options => {
                depth = 2;
                cur.push(c);
            }
            '[' if depth == 0 => depth = 1,
            ']' if depth == 1 => {
                depth = 0;
                inner.push(std::mem::take(&mut cur));
            }
            ']' if depth == 2 => {
                depth = 0;
                cur.push(c);
                host.push_str(&std::mem::take(&mut cur));
            }
            _ => target.push(c),
        }
    }
    (host, inner)
}

/// The options of a select's `options=["A" *"B" +3]`: each listed label, then `+N` counted.
fn options_of(line: &str) -> (Vec<String>, usize) {
    let Some(at) = line.find("options=[") else {
        return (Vec::new(), 0);
    };
    let mut rest = &line[at + "options=[".len()..];
    let mut labels = Vec::new();
    let mut more = 0;
    loop {
        rest = rest.trim_start().trim_start_matches('*');
        if rest.starts_with('"') {
            let Some((q, r)) = quoted(rest) else { break };
            labels.push(q);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('+') {
            let n: String = r.chars().take_while(char::is_ascii_digit).collect();
            more = n.parse().unwrap_or(0);
            break;
        } else {
            break;
        }
    }
    (labels, more)
}

/// Elements with refs in an Aperture response (a FULL SNAPSHOT, a diff or a view), in order,
/// the inline elements of a sentence and the options of a select included.
///
/// A line looks like `  e4 button "Save" value="x"`; in a diff it may be prefixed by an op
/// marker (`~ e4 button "Saved"`). Lines such as `+ after e3` or `gone: e5 e6` are not elements
/// and are skipped because their second word is not a role.
pub fn aperture_refs(text: &str) -> Vec<RefElement> {
    let mut out = Vec::new();
    for line in text.lines() {
        let (host, inline) = split_inline(strip_marker(line.trim_start()));
        for (k, s) in std::iter::once(host.as_str())
            .chain(inline.iter().map(String::as_str))
            .enumerate()
        {
            let s = s.trim();
            let Some((first, rest)) = s.split_once(' ') else {
                continue;
            };
            if !is_ref(first) {
                continue;
            }
            let role_end = rest.find(' ').unwrap_or(rest.len());
            let role = &rest[..role_end];
            if role.is_empty() || !role.bytes().all(|b| b.is_ascii_alphanumeric()) {
                continue;
            }
            let name = rest[role_end..]
                .strip_prefix(' ')
                .and_then(|s| quoted(s).map(|(n, _)| n));
            out.push(RefElement {
                reference: first.to_string(),
                role: role.to_string(),
                name,
                counted: false,
            });
            if k == 0 {
                let (labels, more) = options_of(s);
                for (i, l) in labels.into_iter().enumerate() {
                    out.push(RefElement {
                        reference: format!("{first}/o{i}"),
                        role: "option".into(),
                        name: Some(l),
                        counted: false,
                    });
                }
                for i in 0..more {
                    out.push(RefElement {
                        reference: format!("{first}/+{i}"),
                        role: "option".into(),
                        name: None,
                        counted: true,
                    });
                }
            }
        }
    }
    out
}

/// Number of distinct refs among `els`.
pub fn distinct_refs(els: &[RefElement]) -> usize {
    let mut v: Vec<&str> = els.iter().map(|e| e.reference.as_str()).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PW: &str = r#"### Page
- Page URL: http://127.0.0.1:1/x
### Snapshot
```yaml
- generic [active] [ref=e1]:
  - heading "Hi" [level=1] [ref=e2]
  - link "Link \"one\"" [ref=e3] [cursor=pointer]:
    - /url: /x
  - button "Press" [ref=e4]
  - textbox "Name" [active] [ref=e5]: bob
  - 'link "a: b" [ref=e6]'
  - list
  - iframe [ref=e7]:
    - button "Inner" [ref=f1e2]
```"#;

    #[test]
    fn reads_incumbent_yaml() {
        let r = incumbent_refs(PW);
        let got: Vec<(&str, &str, Option<&str>)> = r
            .iter()
            .map(|e| (e.reference.as_str(), e.role.as_str(), e.name.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("e1", "generic", None),
                ("e2", "heading", Some("Hi")),
                ("e3", "link", Some("Link \"one\"")),
                ("e4", "button", Some("Press")),
                ("e5", "textbox", Some("Name")),
                ("e6", "link", Some("a: b")),
                ("e7", "iframe", None),
                ("f1e2", "button", Some("Inner")),
            ]
        );
        assert_eq!(distinct_refs(&r), 8);
    }

    const AP: &str = "FULL SNAPSHOT #1.0 (navigated) — replaces all earlier page state\n\
<untrusted-page-content>\n\
url \"http://x/\"\n\
h1 \"Shopping list\"\n\
list\n  listitem: \"apples\"\n    e1 button \"Remove \\\"apples\\\"\"\n\
e2 textbox \"Email\" value=\"a@b\" type=email\n\
e3 clickable\n\
</untrusted-page-content>";

    #[test]
    fn reads_aperture_full_snapshot() {
        let r = aperture_refs(AP);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].name.as_deref(), Some("Remove \"apples\""));
        assert_eq!(r[1].role, "textbox");
        assert_eq!(r[2].role, "clickable");
        assert_eq!(r[2].name, None);
    }

    #[test]
    fn reads_sentences_and_option_lists() {
        let t = "  \"Read the\" [e4 link \"docs [not] here\"] \"or\" [e5 button \"Ask\"]\n\
                 e6 combobox \"Country\" options=[\"France\" *\"Ger]many\" +2]\n\
                 \"a page wrote [e9 link \\\"x\\\"]\"";
        let r = aperture_refs(t);
        let got: Vec<(&str, &str, Option<&str>, bool)> = r
            .iter()
            .map(|e| {
                (
                    e.reference.as_str(),
                    e.role.as_str(),
                    e.name.as_deref(),
                    e.counted,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("e4", "link", Some("docs [not] here"), false),
                ("e5", "button", Some("Ask"), false),
                ("e6", "combobox", Some("Country"), false),
                ("e6/o0", "option", Some("France"), false),
                ("e6/o1", "option", Some("Ger]many"), false),
                ("e6/+0", "option", None, true),
                ("e6/+1", "option", None, true),
            ]
        );
    }

    #[test]
    fn reads_agent_browser_trees_and_deltas() {
        let tree = "- navigation \"Main\" [ref=e2]\n  - link \"Home\" [ref=e12]\n- heading \"Order desk\" [level=1, ref=e3]\n  - checkbox \"Subscribe\" [checked=false, ref=e39]\n  - generic [ref=e160] clickable [cursor:pointer, onclick]\n  - button \"Go\" [ref=e7] clickable [cursor:pointer]\n  - combobox [expanded=false, ref=e169]: pick\n    - option \"A \\\"b\\\"\" [selected, ref=e172]\n    - StaticText \"x\"\nunchanged (revision 5)";
        let got: Vec<(String, String, Option<String>)> = agent_browser_refs(tree)
            .into_iter()
            .map(|e| (e.reference, e.role, e.name))
            .collect();
        let want: Vec<(String, String, Option<String>)> = [
            ("e2", "navigation", Some("Main")),
            ("e12", "link", Some("Home")),
            ("e3", "heading", Some("Order desk")),
            ("e39", "checkbox", Some("Subscribe")),
            ("e160", "clickable", None),
            ("e7", "button", Some("Go")),
            ("e169", "combobox", None),
            ("e172", "option", Some("A \"b\"")),
        ]
        .into_iter()
        .map(|(r, ro, n)| (r.to_string(), ro.to_string(), n.map(String::from)))
        .collect();
        assert_eq!(got, want);
        let delta = r#"{"baseRevision": 7, "changes": [
            {"node": {"name": "Capacity", "role": "rowheader"}, "op": "add", "ref": "@e44"},
            {"node": {"name": "Old", "role": "button"}, "op": "remove", "ref": "@e9"}],
          "kind": "delta", "revision": 8,
          "treeChange": {"deleteCount": 1, "lines": ["  - tab \"Specs\" [selected, ref=e29]"], "startLine": 34}}"#;
        let got: Vec<(String, String)> = agent_browser_refs(delta)
            .into_iter()
            .map(|e| (e.reference, e.role))
            .collect();
        assert_eq!(
            got,
            vec![("e44".into(), "rowheader".into()), ("e29".into(), "tab".into())]
        );
        assert!(agent_browser_refs("unchanged (revision 3)").is_empty());
    }

    #[test]
    fn reads_aperture_diff_lines_and_skips_harness_lines() {
        let d = "diff from #1.0 → #1.1\n- e1 gone: e1\n+ after e2\n  e9 button \"Remove milk\"\n~ e2 textbox \"Email\" value=\"z\"";
        let r = aperture_refs(d);
        let got: Vec<&str> = r.iter().map(|e| e.reference.as_str()).collect();
        assert_eq!(got, vec!["e9", "e2"]);
    }
}
