//! `browser_read`: the text of some refs, or of the whole page, with a character cap.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::{BackendError, ElementOp};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call, resolve};

const DESCRIPTION: &str = "Read rendered text. With `refs`, the text of each of those elements \
(a form control reads as its value; a link also gives its URL); without, the text of the whole \
page. `cap` limits the characters returned per element or for the page (default 4000, at most \
50000). Use it for content the snapshot abbreviates; it does not change your ref state. Each \
line of text comes back as one quoted string.";

const DEFAULT_CAP: usize = 4000;
const MAX_CAP: usize = 50_000;
const MAX_REFS: usize = 20;

/// Arguments of `browser_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
    /// Refs to read (at most 20); the whole page when omitted or empty.
    #[serde(default)]
    pub refs: Vec<String>,
    /// Maximum characters per element, or for the page.
    pub cap: Option<usize>,
}

#[tool_router(router = read_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_read",
        description = DESCRIPTION,
        input_schema = super::schema::input::<ReadArgs>(),
        annotations(title = "Read text", read_only_hint = true, open_world_hint = true)
    )]
    async fn browser_read(
        &self,
        Parameters(args): Parameters<ReadArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.read(args).await.into_result())
    }
}

impl Aperture {
    async fn read(&self, args: ReadArgs) -> Reply {
        let cap = args.cap.unwrap_or(DEFAULT_CAP).clamp(1, MAX_CAP);
        if args.refs.len() > MAX_REFS {
            return Reply::error(format!("at most {MAX_REFS} refs per read"));
        }
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        if args.refs.is_empty() {
            return match call(self.backend().page_text(id, cap), CALL_TIMEOUT).await {
                Ok(t) => Reply::new()
                    .say(format!(
                        "text of tab {id}{}:",
                        if t.truncated {
                            format!(" (cut at {cap} characters)")
                        } else {
                            String::new()
                        }
                    ))
                    .page(&t.text),
                Err(e) => Reply::failed(&e),
            };
        }
        let mut r = Reply::new();
        let mut failed = false;
        for rf in &args.refs {
            let (walk_id, rec) = match resolve(&st, rf) {
                Ok(x) => x,
                Err(why) => {
                    r = r.say(why);
                    failed = true;
                    continue;
                }
            };
            st.session.touch(rf);
            let op = ElementOp::ReadText { cap };
            match call(self.backend().element(id, walk_id, rec.idx, op), CALL_TIMEOUT).await {
                Ok(reply) => {
                    let cut = if reply.truncated {
                        format!(" (cut at {cap} characters)")
                    } else {
                        String::new()
                    };
                    r = r
                        .say(format!("{rf}{cut}:"))
                        .page(reply.text.as_deref().unwrap_or(""));
                    // Snapshots leave link URLs out; reading the link is how to get one.
                    if let Some(href) = rec.href.as_deref().filter(|h| !h.trim().is_empty()) {
                        r = r.say(format!("{rf} links to:")).page(href);
                    }
                }
                Err(BackendError::StaleWalk { .. }) => {
                    r = r.say(format!(
                        "{rf}: the page was re-read elsewhere since your last observation; \
                         call browser_snapshot and retry"
                    ));
                    failed = true;
                }
                Err(e) => {
                    r = r.say(format!("{rf}:")).backend_error(&e);
                    failed = true;
                }
            }
        }
        if failed { r.mark_error() } else { r }
    }
}
