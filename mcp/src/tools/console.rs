//! `browser_console`: errors, warnings and failed requests since the last read.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::ConsoleKind;
use crate::engine_glue::clean;
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call};

const DESCRIPTION: &str = "Console errors, warnings, logs and failed network requests of a tab since \
the previous browser_console call on it (each entry is reported once).";

/// Entries beyond this are counted, not shown: a page logging in a loop must not flood the
/// agent's context.
const MAX_ENTRIES: usize = 50;
const MAX_ENTRY_CHARS: usize = 600;

/// Arguments of `browser_console`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsoleArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
}

#[tool_router(router = console_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_console",
        description = DESCRIPTION,
        input_schema = super::schema::input::<ConsoleArgs>(),
        annotations(title = "Console", read_only_hint = true, open_world_hint = true)
    )]
    async fn browser_console(
        &self,
        Parameters(args): Parameters<ConsoleArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.console(args).await.into_result())
    }
}

impl Aperture {
    async fn console(&self, args: ConsoleArgs) -> Reply {
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let entries = match call(self.backend().console(id), CALL_TIMEOUT).await {
            Ok(e) => e,
            Err(e) => return Reply::failed(&e),
        };
        if entries.is_empty() {
            return Reply::new().say(format!("tab {id}: nothing new in the console"));
        }
        let mut r = Reply::new().say(format!("tab {id}: {} new console entries", entries.len()));
        for (i, e) in entries.iter().take(MAX_ENTRIES).enumerate() {
            let kind = match e.kind {
                ConsoleKind::Error => "error",
                ConsoleKind::Warning => "warning",
                ConsoleKind::Log => "log",
                ConsoleKind::FailedRequest => "failed request",
            };
            let text: String = e.text.chars().take(MAX_ENTRY_CHARS).collect();
            // The message may run over several lines (each is quoted on its own); the source is
            // one line, first, and the harness text says so.
            r = match &e.url {
                Some(url) => {
                    let at = match e.line {
                        Some(l) => format!("{}:{l}", clean(url, usize::MAX)),
                        None => clean(url, usize::MAX),
                    };
                    r.say(format!("{}. {kind} (its source, then the message):", i + 1))
                        .page(&format!("{at}\n{text}"))
                }
                None => r.say(format!("{}. {kind}:", i + 1)).page(&text),
            };
        }
        if entries.len() > MAX_ENTRIES {
            r = r.say(format!("… {} more not shown", entries.len() - MAX_ENTRIES));
        }
        r
    }
}
