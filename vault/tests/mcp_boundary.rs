//! The type boundary only helps if the MCP crate never holds the human-side handles. This scans
//! the MCP crate's sources (read-only) for any use of them, so wiring a `Filler` or a `Vault`
//! into the agent-facing server fails here rather than in review.
//!
//! The MCP crate should receive an `AgentView` and hand `FillGrant`s to the app (e.g. through
//! its backend trait); the app redeems them with its own `Filler`.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

/// Identifiers the MCP crate must not use.
const FORBIDDEN: &[&str] = &[
    "Filler",
    "FillSecret",
    "ProfileFill",
    "ProfileApproval",
    "AttachmentData",
    "Revealed",
    "reveal_for_human",
    "redeem",
    "redeem_profile",
    "redeem_attachment",
    "filler",
    "add_attachment",
    "open_unlocked",
    "unlock",
    // The vault window's (human-side) editing, undo, import and generator.
    "DeletedEntry",
    "EntryEdit",
    "Generated",
    "CsvImport",
    "update_entry",
    "take_entry",
    "restore_entry",
    "import_logins",
    "generate_for_human",
    "values_for_human",
    // The vault process's client (`aperture_vault::remote`): the app holds it, never the MCP
    // crate.
    "RemoteVault",
    "FillValue",
    "RemoteFill",
    "RemoteGrant",
    "RemoteProfileGrant",
    "RemoteGenerated",
    "RemoteDeleted",
    "serve_stdin",
    "password_for_human",
];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Blanks string literals (plain and raw, possibly multi-line) and block comments, keeping
/// newlines so line numbers stay right: tool descriptions may well say "unlock" or "filler".
fn strip_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                out.push(blank(c[i]));
                i += 1;
            }
            i += 2;
        } else if c[i] == 'r' && matches!(c.get(i + 1), Some('#') | Some('"')) {
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let close: Vec<char> = close.chars().collect();
            while j < c.len() && c[j..].iter().take(close.len()).ne(close.iter()) {
                out.push(blank(c[j]));
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            // Escaped char literal such as '\"' or '\u{7f}'.
            i += 2;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            // Plain char literal such as '"' (a lifetime never has a quote two chars on).
            i += 3;
            out.push_str("' '");
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if let Some(&ch) = c.get(i) {
                    out.push(blank(ch));
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Forbidden identifiers used in code (comments and string literals ignored).
fn violations(src: &str) -> Vec<String> {
    let mut found = Vec::new();
    let src = &strip_literals(src);
    let uses_vault_crate = src.contains("aperture_vault");
    for (n, line) in src.lines().enumerate() {
        let code = line;
        let words: Vec<&str> = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
        for bad in FORBIDDEN {
            // Lowercase method names are only suspicious in a file that uses the vault crate.
            let lower = bad.chars().next().is_some_and(char::is_lowercase);
            if words.contains(bad) && (!lower || uses_vault_crate) {
                found.push(format!("line {}: {bad}: {}", n + 1, line.trim()));
            }
        }
        if uses_vault_crate && (code.contains("Vault::") || code.contains("aperture_vault::Vault")) {
            found.push(format!("line {}: Vault: {}", n + 1, line.trim()));
        }
    }
    found
}

#[test]
fn mcp_crate_never_touches_human_side_handles() {
    let mcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/src");
    let mut files = Vec::new();
    rs_files(&mcp, &mut files);
    if files.is_empty() {
        eprintln!("no MCP sources at {}; nothing to check", mcp.display());
        return;
    }
    let mut all = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        for v in violations(&src) {
            all.push(format!("{}: {v}", f.display()));
        }
    }
    assert!(
        all.is_empty(),
        "MCP crate uses human-side vault API:\n{}",
        all.join("\n")
    );
}

#[test]
fn scanner_catches_the_obvious_wiring_mistakes() {
    let bad =
        "use aperture_vault::{AgentView, Filler};\nfn f(v: &aperture_vault::Vault) { let x = v.filler(); }\n";
    let v = violations(bad);
    assert!(v.iter().any(|l| l.contains("Filler")), "{v:?}");
    assert!(v.iter().any(|l| l.contains("filler")), "{v:?}");
    assert!(v.iter().any(|l| l.contains("Vault:")), "{v:?}");
    let bad = "fn f(r: &aperture_vault::remote::RemoteVault) -> FillValue { todo!() }\n";
    let v = violations(bad);
    assert!(v.iter().any(|l| l.contains("RemoteVault")), "{v:?}");
    assert!(v.iter().any(|l| l.contains("FillValue")), "{v:?}");
    // What the MCP crate is supposed to do passes.
    let good = concat!(
        "use aperture_vault::{AgentView, FillGrant, FillTarget};\n",
        "// The app redeems grants with its Filler.\n",
        "const D: &str = \"ask the human to unlock the vault; the app's filler types it\";\n",
        "const R: &str = r#\"a raw \"redeem\" Filler description\"#;\n",
        "fn q(c: char) -> bool { c == '\"' || c == '\\'' }\n",
        "const E: &str = \"never unlock\";\n",
        "fn f(v: &AgentView) {}\n",
    );
    assert!(violations(good).is_empty(), "{:?}", violations(good));
}
