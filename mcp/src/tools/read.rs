//! `browser_read`: the text of some refs, or of the whole page, with a character cap.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use std::time::Duration;

use crate::backend::{BackendError, ElementOp};
use crate::logged_out::{blocked, mirror_refusal};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call, resolve};

const DESCRIPTION: &str = "Read rendered text. With `refs`, the text of each of those elements \
(a form control reads as its value, every space kept; a link also gives its URL); without, the text of the whole \
page. `cap` limits the characters returned per element or for the page (default 4000, at most \
50000). Use it for content the snapshot abbreviates; it does not change your ref state. Each \
line of text comes back as one quoted string. With `url` (no tab involved): reads that public \
page logged out, in a throwaway context without the human's cookies, within 15 s; answers its \
text or `blocked` with why (HTTP error, bot check, login wall, timeout). Mirrors and proxies \
(archive.today, 12ft.io, r.jina.ai, translate proxies...) are refused.";

const DEFAULT_CAP: usize = 4000;
const MAX_CAP: usize = 50_000;
const MAX_REFS: usize = 20;
/// The longest a logged-out read waits for its page.
const LOGGED_OUT_LIMIT: Duration = Duration::from_secs(15);

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
    /// A public address to read logged out instead (without `tab` and `refs`).
    pub url: Option<String>,
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
        if let Some(url) = args.url {
            if args.tab.is_some() || !args.refs.is_empty() {
                return Reply::error(
                    "`url` reads a page logged out, with no tab: leave out `tab` and `refs`",
                );
            }
            return self.read_logged_out(&url, cap).await;
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
                        "text of tab {id}{}{}:",
                        if t.pdf {
                            " (a PDF in the viewer: its text, read from the file)"
                        } else {
                            ""
                        },
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
                    let text = reply.text.as_deref().unwrap_or("");
                    r = r.say(format!("{rf}{cut}:"));
                    // A text field reads as its value exactly, a quoted string per line:
                    // what is copied or compared must keep every space.
                    r = if matches!(rec.tag.as_str(), "input" | "textarea") {
                        r.value(text)
                    } else {
                        r.page(text)
                    };
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

impl Aperture {
    /// A logged-out read: refused for mirror hosts before anything is requested, then the
    /// page's text, or `blocked` with the reason the site gave.
    async fn read_logged_out(&self, url: &str, cap: usize) -> Reply {
        if let Err(why) = super::navigate::url_allowed(url) {
            return Reply::error(why);
        }
        if let Some(why) = mirror_refusal(url) {
            return Reply::error(why).say("the address was:").page(url);
        }
        // The backend bounds the page's time; this bounds the backend (a context to create,
        // a tab to open and close).
        let read = call(
            self.backend().read_logged_out(url, cap, LOGGED_OUT_LIMIT),
            LOGGED_OUT_LIMIT + CALL_TIMEOUT,
        )
        .await;
        let page = match read {
            Ok(p) => p,
            Err(BackendError::Timeout(_)) => {
                return Reply::error(format!(
                    "blocked: timeout (the page did not load within {} s); the address was:",
                    LOGGED_OUT_LIMIT.as_secs()
                ))
                .page(url);
            }
            Err(e) => return Reply::failed(&e),
        };
        let status = page
            .status
            .map(|s| format!("HTTP {s}"))
            .unwrap_or_else(|| "no HTTP status".into());
        if let Some(why) = blocked(&page) {
            return Reply::error(format!("blocked: {why}; the address was:")).page(&page.url);
        }
        Reply::new()
            .say(format!(
                "read logged out ({status}; truncated: {}{}); the address, then the title and text:",
                page.text.truncated,
                if page.text.truncated {
                    format!(", cut at {cap} characters")
                } else {
                    String::new()
                }
            ))
            .page(&page.url)
            .page(&format!("{}\n\n{}", page.title, page.text.text))
    }
}
