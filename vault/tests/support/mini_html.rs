//! Just enough HTML to turn form fixtures into the field descriptors the page walker would
//! report: controls in document order, explicit (`for=`) and implicit (wrapping) labels,
//! select options. Not a general parser; fixtures are written to stay within it.

use aperture_vault::{FieldDescriptor, SelectOption};
use std::collections::HashMap;

struct Tag {
    name: String,
    closing: bool,
    attrs: HashMap<String, String>,
}

fn decode(s: &str) -> String {
    s.replace("&nbsp;", " ")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

fn collapse(s: &str) -> String {
    decode(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

fn parse_tag(raw: &str) -> Tag {
    let raw = raw.trim().trim_end_matches('/');
    let closing = raw.starts_with('/');
    let raw = raw.trim_start_matches('/');
    let name: String = raw
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    let mut attrs = HashMap::new();
    let rest: Vec<char> = raw[name.len()..].chars().collect();
    let mut i = 0;
    while i < rest.len() {
        while i < rest.len() && rest[i].is_whitespace() {
            i += 1;
        }
        let start = i;
        while i < rest.len() && !rest[i].is_whitespace() && rest[i] != '=' {
            i += 1;
        }
        let key: String = rest[start..i].iter().collect::<String>().to_lowercase();
        if key.is_empty() {
            i += 1;
            continue;
        }
        let mut value = String::new();
        if i < rest.len() && rest[i] == '=' {
            i += 1;
            if i < rest.len() && (rest[i] == '"' || rest[i] == '\'') {
                let q = rest[i];
                i += 1;
                let s = i;
                while i < rest.len() && rest[i] != q {
                    i += 1;
                }
                value = rest[s..i].iter().collect();
                i += 1;
            } else {
                let s = i;
                while i < rest.len() && !rest[i].is_whitespace() {
                    i += 1;
                }
                value = rest[s..i].iter().collect();
            }
        }
        attrs.insert(key, decode(&value));
    }
    Tag { name, closing, attrs }
}

/// Field descriptors for every form control in `html`, refs `e1`, `e2`, … in document order.
pub fn fields(html: &str) -> Vec<FieldDescriptor> {
    // Drop comments first so fixture headers do not leak into label text.
    let mut src = String::new();
    let mut rest = html;
    while let Some(i) = rest.find("<!--") {
        src.push_str(&rest[..i]);
        rest = rest[i..].find("-->").map_or("", |j| &rest[i + j + 3..]);
    }
    src.push_str(rest);

    let mut out: Vec<FieldDescriptor> = Vec::new();
    let mut label_for: HashMap<String, String> = HashMap::new();
    // Open <label> elements: (for attribute, text so far, indices of controls inside).
    let mut labels: Vec<(Option<String>, String, Vec<usize>)> = Vec::new();
    let mut open_select: Option<usize> = None;
    let mut open_option: Option<(String, String)> = None;
    let mut pos = 0;
    while let Some(lt) = src[pos..].find('<') {
        let text = &src[pos..pos + lt];
        for l in labels.iter_mut() {
            l.1.push_str(text);
            l.1.push(' ');
        }
        if let Some(o) = open_option.as_mut() {
            o.1.push_str(text);
        }
        let start = pos + lt + 1;
        let end = start + src[start..].find('>').expect("unclosed tag");
        let tag = parse_tag(&src[start..end]);
        pos = end + 1;
        let a = |k: &str| tag.attrs.get(k).cloned();
        match (tag.name.as_str(), tag.closing) {
            ("label", false) => labels.push((a("for"), String::new(), Vec::new())),
            ("label", true) => {
                if let Some((for_id, text, inside)) = labels.pop() {
                    let text = collapse(&text);
                    match for_id {
                        Some(id) => {
                            label_for.insert(id, text);
                        }
                        None => {
                            for i in inside {
                                out[i].label.get_or_insert(text.clone());
                            }
                        }
                    }
                }
            }
            ("input" | "select" | "textarea", false) => {
                let ty =
                    (tag.name == "input").then(|| a("type").unwrap_or_else(|| "text".into()).to_lowercase());
                let d = FieldDescriptor {
                    field_ref: format!("e{}", out.len() + 1),
                    tag: tag.name.clone(),
                    input_type: ty,
                    autocomplete: a("autocomplete"),
                    name: a("name"),
                    id: a("id"),
                    label: None,
                    aria_label: a("aria-label"),
                    placeholder: a("placeholder").filter(|p| !p.is_empty()),
                    max_length: a("maxlength").and_then(|m| m.parse().ok()),
                    options: Vec::new(),
                };
                out.push(d);
                let idx = out.len() - 1;
                if let Some(l) = labels.last_mut() {
                    l.2.push(idx);
                }
                if tag.name == "select" {
                    open_select = Some(idx);
                }
            }
            ("select", true) => open_select = None,
            ("option", false) => open_option = Some((a("value").unwrap_or_default(), String::new())),
            ("option", true) => {
                if let (Some((value, text)), Some(s)) = (open_option.take(), open_select) {
                    out[s].options.push(SelectOption {
                        value,
                        text: collapse(&text),
                    });
                }
            }
            _ => {}
        }
    }
    for d in &mut out {
        if d.label.is_none()
            && let Some(id) = &d.id
            && let Some(l) = label_for.get(id)
        {
            d.label = Some(l.clone());
        }
    }
    out
}
