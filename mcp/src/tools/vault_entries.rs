//! `vault_entries_for_origin`: which saved logins exist for the page a tab shows.
//!
//! The origin is never an argument: the browser reads it from the tab, so a prompt-injected
//! agent on `evil.example` is never told that a `bank.example` entry exists and has no
//! identifier to be talked into using. The answer is ids and the human's labels; there is no
//! field that could carry a username, password or code.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::VaultEntry;
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call};

const DESCRIPTION: &str = "Password-vault logins saved for the site of a tab's current page: \
each entry's id, the human's label for it, and whether a one-time code can be filled. The \
browser takes the origin from the page the tab shows (you cannot name another site). No \
password, username or code is ever returned by any tool; to use an entry, pass its id and the \
field refs to vault_request_fill and the browser types the values itself.";

/// Arguments of `vault_entries_for_origin`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VaultEntriesArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
}

#[tool_router(router = vault_entries_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "vault_entries_for_origin",
        description = DESCRIPTION,
        input_schema = super::schema::input::<VaultEntriesArgs>(),
        annotations(title = "Vault entries for this page", read_only_hint = true, open_world_hint = false)
    )]
    async fn vault_entries_for_origin(
        &self,
        Parameters(args): Parameters<VaultEntriesArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.vault_entries(args).await.into_result())
    }
}

/// A label as harness text: the human wrote it, but it is still quoted (and stripped of
/// control and bidi characters) so it cannot break the line structure of the answer.
pub(crate) fn quote_label(label: &str) -> String {
    let clean: String = label
        .chars()
        .filter(|c| !c.is_control() && !is_bidi(*c))
        .take(120)
        .collect();
    serde_json::to_string(&clean).unwrap_or_else(|_| "\"\"".into())
}

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}')
}

fn entry_line(e: &VaultEntry) -> String {
    format!(
        "- id {} label {}{}",
        e.id,
        quote_label(&e.label),
        if e.has_totp {
            " (one-time code available)"
        } else {
            ""
        }
    )
}

impl Aperture {
    async fn vault_entries(&self, args: VaultEntriesArgs) -> Reply {
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let found = match call(self.backend().vault_entries_for_tab(id), CALL_TIMEOUT).await {
            Ok(f) => f,
            Err(e) => return Reply::failed(&e),
        };
        // The origin is the page's choice (its URL), so it is fenced like any page text.
        let mut r = Reply::new()
            .say(format!("tab {id}: vault entries for the site of this origin:"))
            .page(&found.origin);
        if found.entries.is_empty() {
            r = r.say("none saved for this site");
        } else {
            for e in &found.entries {
                r = r.say(entry_line(e));
            }
            r = r.say("fill one with vault_request_fill (entry id and the field refs)");
        }
        // The human's library files: labels and names are the human's, quoted like labels.
        if let Ok(files) = call(self.backend().vault_attachments(), CALL_TIMEOUT).await
            && !files.is_empty()
        {
            r = r.say("files in the vault library (upload one with vault_request_fill attachment=ID file_input=REF):");
            for f in &files {
                r = r.say(format!(
                    "- id {} label {} file {} ({}, {} KB)",
                    f.id,
                    quote_label(&f.label),
                    quote_label(&f.file_name),
                    quote_label(&f.media_type),
                    f.size.div_ceil(1024)
                ));
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_cannot_break_lines_or_reorder_text() {
        assert_eq!(quote_label("Work"), "\"Work\"");
        assert_eq!(quote_label("a\nb\u{202e}c\"d"), "\"abc\\\"d\"");
        let e = VaultEntry {
            id: "e0123456789abcdef".into(),
            label: "Personal".into(),
            has_totp: true,
        };
        assert_eq!(
            entry_line(&e),
            "- id e0123456789abcdef label \"Personal\" (one-time code available)"
        );
    }
}
