//! The agent-facing surface has no secret getter: checked over the crate's source.
//!
//! Starting from `AgentView`, this walks every public function signature, public field and
//! enum payload of every type reachable from it (and every `impl` whose header names a
//! reachable type, so a `From<AgentView> for Filler` or a `Deref` would be caught), collecting
//! the crate types that appear. None of the secret-bearing types may be reachable, and the set
//! of public functions on the agent-facing types must match the reviewed list below exactly:
//! adding one fails this test until someone has looked at it.
//!
//! The compile-time half of the property is that the secret-returning functions live on other
//! types (`Vault`, `Filler`, `FillSecret`) and grant fields are private; the `compile_fail`
//! examples in `src/agent.rs` pin that.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};

const SOURCES: &[(&str, &str)] = &[
    ("agent.rs", include_str!("../src/agent.rs")),
    ("error.rs", include_str!("../src/error.rs")),
    ("file.rs", include_str!("../src/file.rs")),
    ("fill.rs", include_str!("../src/fill.rs")),
    ("kdf.rs", include_str!("../src/kdf.rs")),
    ("lib.rs", include_str!("../src/lib.rs")),
    ("origin.rs", include_str!("../src/origin.rs")),
    ("passgen.rs", include_str!("../src/passgen.rs")),
    ("profiles.rs", include_str!("../src/profiles.rs")),
    ("remote.rs", include_str!("../src/remote.rs")),
    ("secret.rs", include_str!("../src/secret.rs")),
    ("state.rs", include_str!("../src/state.rs")),
    ("taint.rs", include_str!("../src/taint.rs")),
    ("totp.rs", include_str!("../src/totp.rs")),
    ("vault.rs", include_str!("../src/vault.rs")),
];

/// Types that hold or hand out secrets. None may be reachable from `AgentView`.
const FORBIDDEN: &[&str] = &[
    "Vault",
    "Filler",
    "FillSecret",
    "ProfileFill",
    "AttachmentData",
    "Revealed",
    "SecretString",
    "MasterKey",
    "Payload",
    "Entry",
    "Unlocked",
    "Inner",
    "Totp",
    "GeneratedPassword",
    "Profile",
    "TaintSet",
    // The vault process's client and what it hands out (`remote.rs`).
    "RemoteVault",
    "FillValue",
    "Server",
    "Request",
    "Reply",
];

/// The reviewed public surface: `Type::fn` for every public function on a reachable type.
const REVIEWED: &[&str] = &[
    "AgentView::attachments",
    "AgentView::entries_for_origin",
    "AgentView::generate_password",
    "AgentView::plan_profile_fill",
    "AgentView::profiles",
    "AgentView::request_attachment",
    "AgentView::request_fill",
    "AgentView::request_profile_fill",
    "AttachmentGrant::attachment_id",
    "AttachmentId::as_str",
    "AttachmentId::parse",
    "EntryId::as_str",
    "EntryId::parse",
    "FillGrant::entry_id",
    "FillGrant::label",
    "FillGrant::target",
    "FillPlan::items",
    "FillPlan::profile",
    "FillPlan::render",
    "FillPlan::to_fill",
    "Origin::host",
    "Origin::parse",
    "Origin::scheme",
    "Origin::site",
    "PasswordPolicy::entropy_bits",
    "PlannedField::confidence",
    "PlannedField::decision",
    "PlannedField::display_label",
    "PlannedField::field",
    "PlannedField::field_ref",
    "PlannedField::is_sensitive",
    "PlannedField::preview",
    "PlannedField::source",
    "ProfileField::as_str",
    "ProfileField::is_sensitive",
    "ProfileGrant::needs_dialog",
    "ProfileGrant::profile",
    "ProfileGrant::rows",
    "ProfileGrant::site",
    "Site::domain",
];

/// Blanks comments, string and char literals so brace counting and token scans see only code.
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c[i] == 'r' && c.get(i + 1) == Some(&'#') && c.get(i + 2) == Some(&'"') {
            i += 3;
            while i + 1 < c.len() && !(c[i] == '"' && c[i + 1] == '#') {
                i += 1;
            }
            i += 2;
            out.push_str("\"\"");
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            i += 2;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn idents(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .map(str::to_owned)
        .collect()
}

/// Index of the `}` matching the `{` at `open`.
fn matching(s: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (i, &b) in s.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces");
}

struct ImplBlock {
    header: String,
    self_ty: String,
    is_trait: bool,
    /// (name, full signature) of functions visible outside the crate.
    fns: Vec<(String, String)>,
}

#[derive(Default)]
struct Crate {
    /// Type name -> public-facing text of its definition (pub fields or all variants).
    defs: BTreeMap<String, String>,
    impls: Vec<ImplBlock>,
}

fn parse() -> Crate {
    let mut k = Crate::default();
    for (_, src) in SOURCES {
        // Unit tests are not part of the surface.
        let src = match src.find("#[cfg(test)]\nmod tests") {
            Some(i) => &src[..i],
            None => src,
        };
        let s = strip(src);
        let b = s.as_bytes();
        let mut pos = 0;
        while pos < s.len() {
            let rest = &s[pos..];
            let at_word = pos == 0 || !b[pos - 1].is_ascii_alphanumeric() && b[pos - 1] != b'_';
            if at_word && (rest.starts_with("struct ") || rest.starts_with("enum ")) {
                let kw_len = if rest.starts_with("struct ") { 7 } else { 5 };
                let name: String = rest[kw_len..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let body_end = rest.find([';', '{']).unwrap();
                let text = if rest.as_bytes()[body_end] == b'{' {
                    let close = matching(b, pos + body_end);
                    let body = &s[pos + body_end + 1..close];
                    if kw_len == 5 {
                        // Variant names are not types; only what sits inside a variant's
                        // parentheses or braces is.
                        let mut depth = 0;
                        let mut inner = String::new();
                        for ch in body.chars() {
                            match ch {
                                '(' | '{' => depth += 1,
                                ')' | '}' => depth -= 1,
                                _ if depth > 0 => inner.push(ch),
                                _ => {}
                            }
                            if depth > 0 && !matches!(ch, '(' | '{') {
                                continue;
                            }
                            inner.push(' ');
                        }
                        inner
                    } else if kw_len == 7 {
                        // Only fields outside code can read: `pub name: Ty`, not `pub(crate)`.
                        body.split(',')
                            .map(str::trim)
                            .filter(|f| f.starts_with("pub ") || f.contains("\npub ") || f.contains(" pub "))
                            .collect::<Vec<_>>()
                            .join(",")
                    } else {
                        unreachable!()
                    }
                } else {
                    // Tuple struct: `pub struct X(pub(crate) T);` is closed; `(pub T)` is open.
                    let paren = &rest[name.len() + kw_len..body_end];
                    if paren.contains("(pub ") {
                        paren.to_owned()
                    } else {
                        String::new()
                    }
                };
                k.defs.entry(name).or_default().push_str(&text);
                pos += kw_len;
                continue;
            }
            if at_word
                && rest.starts_with("impl")
                && !rest[4..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                let open = pos + rest.find('{').unwrap();
                let header = s[pos..open].trim().to_owned();
                let close = matching(b, open);
                let is_trait = header.contains(" for ");
                let target = if is_trait {
                    header.rsplit(" for ").next().unwrap()
                } else {
                    &header[4..]
                };
                // Strip generics: `impl<'de> Deserialize<'de> for X` -> `X`.
                let target = target.trim();
                let target = target.rsplit('>').next().unwrap_or(target).trim();
                let self_ty: String = target
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let body = &s[open + 1..close];
                let bb = body.as_bytes();
                let mut fns = Vec::new();
                let mut depth = 0;
                let mut i = 0;
                while i < body.len() {
                    match bb[i] {
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        _ => {}
                    }
                    let r = &body[i..];
                    let word_start = i == 0
                        || !bb[i - 1].is_ascii_alphanumeric() && bb[i - 1] != b'_' && bb[i - 1] != b'(';
                    if depth == 0 && word_start && r.starts_with("fn ") {
                        let before = body[..i].trim_end();
                        let public = is_trait || (before.ends_with("pub") && !before.ends_with(")pub"));
                        let crate_only = before.ends_with(")");
                        let sig_end = r.find(['{', ';']).unwrap();
                        let sig = r[..sig_end].to_owned();
                        let name: String = r[3..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if public && !crate_only {
                            fns.push((name, sig));
                        }
                    }
                    i += 1;
                }
                if header.contains("$t") {
                    // `macro_rules!` body: instantiate once per `id_impl!(Type, ..)` call.
                    for inv in s.split("id_impl!(").skip(1) {
                        let ty: String = inv
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        k.impls.push(ImplBlock {
                            header: header.replace("$t", &ty),
                            self_ty: ty,
                            is_trait,
                            fns: fns
                                .iter()
                                .map(|(n, f)| (n.clone(), f.replace("$t", "Self")))
                                .collect(),
                        });
                    }
                } else {
                    k.impls.push(ImplBlock {
                        header,
                        self_ty,
                        is_trait,
                        fns,
                    });
                }
                pos = close;
                continue;
            }
            pos += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    k
}

fn reachable(k: &Crate) -> (BTreeSet<String>, BTreeSet<String>) {
    let (seen, surface, _) = reachable_with_paths(k);
    (seen, surface)
}

/// Also returns, for each reachable type, what made it reachable (for failure messages).
fn reachable_with_paths(k: &Crate) -> (BTreeSet<String>, BTreeSet<String>, BTreeMap<String, String>) {
    let mut seen: BTreeSet<String> = BTreeSet::from(["AgentView".to_owned()]);
    let mut why: BTreeMap<String, String> = BTreeMap::new();
    let mut surface = BTreeSet::new();
    loop {
        let mut grew = false;
        let mut add = |t: String, seen: &mut BTreeSet<String>, via: &str| {
            if k.defs.contains_key(&t) && seen.insert(t.clone()) {
                why.insert(t, via.to_owned());
                grew = true;
            }
        };
        for t in seen.clone() {
            if let Some(def) = k.defs.get(&t) {
                for id in idents(def) {
                    add(id, &mut seen, &format!("definition of {t}"));
                }
            }
        }
        for imp in &k.impls {
            let header_ids = idents(&imp.header);
            if !header_ids.iter().any(|t| seen.contains(t)) {
                continue;
            }
            // A trait impl mentioning a reachable type in its header (From<AgentView> for X,
            // Deref for AgentView) makes every type in that header reachable.
            if imp.is_trait {
                for id in &header_ids {
                    add(id.clone(), &mut seen, &imp.header);
                }
            }
            if !seen.contains(&imp.self_ty) {
                continue;
            }
            for (name, sig) in &imp.fns {
                if !imp.is_trait {
                    surface.insert(format!("{}::{name}", imp.self_ty));
                }
                for id in idents(sig) {
                    add(id, &mut seen, &format!("{}::{sig}", imp.self_ty));
                }
            }
        }
        if !grew {
            return (seen, surface, why);
        }
    }
}

#[test]
fn parser_sees_the_crate() {
    let k = parse();
    // Sanity: the scan must find the things it reasons about, or every assertion below would
    // pass vacuously.
    for t in [
        "AgentView",
        "FillGrant",
        "Vault",
        "Filler",
        "FillSecret",
        "SecretString",
        "Totp",
    ] {
        assert!(k.defs.contains_key(t), "{t} not found");
    }
    let vault_fns: BTreeSet<_> = k
        .impls
        .iter()
        .filter(|i| i.self_ty == "Vault")
        .flat_map(|i| i.fns.iter().map(|f| f.0.clone()))
        .collect();
    assert!(vault_fns.contains("reveal_for_human"));
    let secret_fns: Vec<_> = k
        .impls
        .iter()
        .filter(|i| i.self_ty == "SecretString")
        .flat_map(|i| i.fns.iter().map(|f| f.0.clone()))
        .collect();
    assert!(
        !secret_fns.contains(&"expose".to_owned()),
        "pub(crate) fn must not count as public"
    );
}

#[test]
fn no_secret_bearing_type_is_reachable_from_agent_view() {
    let k = parse();
    let (seen, _, why) = reachable_with_paths(&k);
    let bad: Vec<_> = FORBIDDEN
        .iter()
        .filter(|t| seen.contains(**t))
        .map(|t| format!("{t} via {}", why.get(*t).map_or("?", |s| s.as_str())))
        .collect();
    assert!(
        bad.is_empty(),
        "reachable from AgentView: {bad:#?}\nall reachable: {seen:?}"
    );
    // Positive control: the walk does reach what it should.
    for t in [
        "FillGrant",
        "EntrySummary",
        "FillPlan",
        "PlannedField",
        "ProfileGrant",
        "AttachmentGrant",
    ] {
        assert!(seen.contains(t), "{t} should be reachable");
    }
}

#[test]
fn agent_surface_matches_the_reviewed_list() {
    let k = parse();
    let (_, surface) = reachable(&k);
    let reviewed: BTreeSet<String> = REVIEWED.iter().map(|s| s.to_string()).collect();
    let added: Vec<_> = surface.difference(&reviewed).collect();
    let removed: Vec<_> = reviewed.difference(&surface).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "agent surface changed; review for secret exposure, then update REVIEWED.\nadded: {added:?}\nremoved: {removed:?}"
    );
}

#[test]
fn sabotage_is_caught() {
    // The guard must fail when the mechanism regresses: splice a getter into AgentView and a
    // From impl into the crate text and re-run the walk on the modified source.
    let mut k = parse();
    k.impls.push(ImplBlock {
        header: "impl AgentView".into(),
        self_ty: "AgentView".into(),
        is_trait: false,
        fns: vec![(
            "reveal".into(),
            "fn reveal(&self, id: &EntryId) -> Result<Revealed, AgentError>".into(),
        )],
    });
    let (seen, surface) = reachable(&k);
    assert!(seen.contains("Revealed"));
    assert!(surface.contains("AgentView::reveal"));

    let mut k = parse();
    k.impls.push(ImplBlock {
        header: "impl From<&AgentView> for Filler".into(),
        self_ty: "Filler".into(),
        is_trait: true,
        fns: vec![("from".into(), "fn from(v: &AgentView) -> Filler".into())],
    });
    assert!(reachable(&k).0.contains("Filler"));

    // A public field holding a secret on a reachable struct.
    let mut k = parse();
    k.defs
        .get_mut("FillGrant")
        .unwrap()
        .push_str("pub secret: SecretString");
    assert!(reachable(&k).0.contains("SecretString"));
}

#[test]
fn no_agent_reachable_function_takes_or_returns_a_path() {
    // "Attach my CV" and "upload any file on this machine" are the same primitive if the agent
    // controls the path, so nothing the agent can reach may mention one.
    let k = parse();
    let (seen, _) = reachable(&k);
    for imp in k.impls.iter().filter(|i| seen.contains(&i.self_ty)) {
        for (name, sig) in &imp.fns {
            for bad in ["Path", "PathBuf", "OsStr", "OsString", "File"] {
                assert!(
                    !idents(sig).contains(bad),
                    "{}::{name} mentions {bad}: {sig}",
                    imp.self_ty
                );
            }
        }
    }
    // Control: the human-side function that does take a path is seen by the same scan.
    let human = k
        .impls
        .iter()
        .filter(|i| i.self_ty == "Vault")
        .flat_map(|i| i.fns.iter())
        .find(|(n, _)| n == "add_attachment")
        .expect("Vault::add_attachment");
    assert!(idents(&human.1).contains("Path"));
}
