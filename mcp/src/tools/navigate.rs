//! `browser_navigate`: goto, back, forward, reload — answered with the new page's snapshot.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::Nav;
use crate::engine_glue::Untrusted;
use crate::server::{Aperture, NAV_TIMEOUT, NO_TAB, Reply, call};

const DESCRIPTION: &str = "Navigate a tab: `goto` a `url`, or go `back`, `forward`, or \
`reload`. Waits for the load and answers with the HTTP status and the new page's snapshot \
(a FULL SNAPSHOT: refs from the previous page are all gone).";

/// Which navigation to perform.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NavigateAction {
    Goto,
    Back,
    Forward,
    Reload,
}

/// Arguments of `browser_navigate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    pub action: NavigateAction,
    /// Address for `goto` (http, https or about:blank).
    pub url: Option<String>,
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
}

/// Schemes the agent may navigate to. `file:` would let a page-steered agent read local files
/// into its context, `javascript:` runs script outside the trusted-input path; both are refused
/// here whatever the backend's own policy says.
pub(crate) fn url_allowed(url: &str) -> Result<(), String> {
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match scheme.as_str() {
        "http" | "https" => Ok(()),
        "about" if url.trim().eq_ignore_ascii_case("about:blank") => Ok(()),
        // The address may have been copied from a page, so it is fenced, not quoted.
        _ => Err(format!(
            "refused by rule scheme: only http, https and about:blank addresses may be opened; \
             include the scheme, e.g. https://. The address was:{}",
            Untrusted(url)
        )),
    }
}

#[tool_router(router = navigate_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_navigate",
        description = DESCRIPTION,
        input_schema = super::schema::input::<NavigateArgs>(),
        annotations(
            title = "Navigate",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn browser_navigate(
        &self,
        Parameters(args): Parameters<NavigateArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.navigate(args).await.into_result())
    }
}

impl Aperture {
    async fn navigate(&self, args: NavigateArgs) -> Reply {
        let nav = match args.action {
            NavigateAction::Goto => match args.url {
                Some(u) => {
                    if let Err(why) = url_allowed(&u) {
                        return Reply::error(why);
                    }
                    Nav::Goto(u)
                }
                None => return Reply::error("goto needs `url`"),
            },
            NavigateAction::Back => Nav::Back,
            NavigateAction::Forward => Nav::Forward,
            NavigateAction::Reload => Nav::Reload,
        };
        let id = match (self.target_if_any(args.tab).await, &nav) {
            (Ok(Some(id)), _) => {
                // The tab the agent navigated is the one it works in from now on (until it
                // selects another): its later calls neither follow the human to another
                // foreground tab nor need the `tab N now:` line.
                if args.tab.is_none() && self.current().is_none() {
                    self.set_current(id);
                }
                id
            }
            // With no tab at all, a goto opens one rather than sending the agent to
            // browser_tabs first: that is what it asked for.
            (Ok(None), Nav::Goto(url)) => {
                return match call(self.backend().open_tab(Some(url.clone()), None), NAV_TIMEOUT).await {
                    Ok(id) => {
                        self.set_current(id);
                        let r = Reply::new().say(format!(
                            "there was no tab, so tab {id} was opened for this (yours; it is now your current tab)"
                        ));
                        // The page held by a sign-in or dialog is the navigation's error, as
                        // on a tab that already existed.
                        self.first_look(id, r, true, true).await
                    }
                    Err(e) => Reply::failed(&e),
                };
            }
            (Ok(None), _) => return Reply::error(NO_TAB),
            (Err(r), _) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        self.acted(id, &mut st);
        let outcome = match call(self.backend().navigate(id, nav), NAV_TIMEOUT).await {
            Ok(o) => o,
            Err(e) => return Reply::failed(&e),
        };
        let status = outcome
            .status
            .map(|s| format!("HTTP {s}"))
            .unwrap_or_else(|| "no HTTP status".into());
        let r = if outcome.loading {
            Reply::new().say(format!(
                "tab {id} is still loading ({status}): the new page has arrived, but not all of \
                 it yet; below is what it shows so far (observe again for the rest). Now at:"
            ))
        } else {
            Reply::new().say(format!("tab {id} loaded ({status}); now at:"))
        }
        .page(&outcome.url);
        match self.observe(id, &mut st, true, true).await {
            Ok(obs) => r.observation(&obs),
            Err(e) => r
                .say("the page loaded but could not be observed:")
                .backend_error(&e)
                .mark_error(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::url_allowed;

    #[test]
    fn only_web_schemes_are_allowed() {
        for ok in ["https://example.com", "http://127.0.0.1:8000/x"] {
            assert!(url_allowed(ok).is_ok(), "{ok}");
        }
        assert!(url_allowed("about:blank").is_ok());
        for bad in [
            "file:///etc/passwd",
            "data:text/html,hi",
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "chrome://settings",
            "about:config",
            "example.com",
        ] {
            assert!(url_allowed(bad).is_err(), "{bad}");
        }
    }
}
