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
        });
    }
    out
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

/// Elements with refs in an Aperture response (a FULL SNAPSHOT or a diff), in order.
///
/// A line looks like `  e4 button "Save" value="x"`; in a diff it may be prefixed by an op
/// marker (`~ e4 button "Saved"`). Lines such as `+ after e3` or `gone: e5 e6` are not elements
/// and are skipped because their second word is not a role.
pub fn aperture_refs(text: &str) -> Vec<RefElement> {
    let mut out = Vec::new();
    for line in text.lines() {
        let s = strip_marker(line.trim_start());
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
        });
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
    fn reads_aperture_diff_lines_and_skips_harness_lines() {
        let d = "diff from #1.0 → #1.1\n- e1 gone: e1\n+ after e2\n  e9 button \"Remove milk\"\n~ e2 textbox \"Email\" value=\"z\"";
        let r = aperture_refs(d);
        let got: Vec<&str> = r.iter().map(|e| e.reference.as_str()).collect();
        assert_eq!(got, vec!["e9", "e2"]);
    }
}
