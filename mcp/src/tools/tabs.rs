//! `browser_tabs`: list, open, close and select (attach to) tabs.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::{BackendError, TabId};
use crate::engine_glue::{STRING_CAP, clean};
use crate::server::{Aperture, CALL_TIMEOUT, NAV_TIMEOUT, Reply, call};

const DESCRIPTION: &str = "List, open, close or select browser tabs. `list` shows every tab \
with its id, whether you or the human opened it, and its title and URL. `open` opens a new tab \
(optionally at `url`, in identity `container`), makes it your current tab, and with a `url` \
answers with its first snapshot. `select` brings \
tab `tab` to the front and makes it your current tab: you may attach to and act in a tab the \
human opened. `close` closes tab `tab`, and is refused for tabs you did not open. `downloads` \
lists this run's downloads (name, size, type, state); they always go to the human's download \
directory. Other tools act on your current tab unless given `tab`.";

/// What `browser_tabs` should do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TabsAction {
    List,
    Open,
    Close,
    Select,
    Downloads,
}

/// Arguments of `browser_tabs`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabsArgs {
    pub action: TabsAction,
    /// Tab id, for `close` and `select`.
    pub tab: Option<u64>,
    /// Address to open, for `open` (a blank tab when omitted).
    pub url: Option<String>,
    /// Identity container id for `open` (see browser_container).
    pub container: Option<String>,
}

#[tool_router(router = tabs_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_tabs",
        description = DESCRIPTION,
        input_schema = super::schema::input::<TabsArgs>(),
        annotations(
            title = "Tabs",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn browser_tabs(
        &self,
        Parameters(args): Parameters<TabsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.tabs(args).await.into_result())
    }
}

impl Aperture {
    async fn tabs(&self, args: TabsArgs) -> Reply {
        match args.action {
            TabsAction::List => self.list_tabs().await,
            TabsAction::Downloads => self.list_downloads().await,
            TabsAction::Open => {
                if let Some(url) = &args.url
                    && let Err(why) = super::navigate::url_allowed(url)
                {
                    return Reply::error(why);
                }
                let with_url = args.url.is_some();
                match call(self.backend().open_tab(args.url, args.container), NAV_TIMEOUT).await {
                    Ok(id) => {
                        self.set_current(id);
                        let r =
                            Reply::new().say(format!("opened tab {id} (yours; it is now your current tab)"));
                        self.first_look(id, r, with_url, false).await
                    }
                    Err(e) => Reply::failed(&e),
                }
            }
            TabsAction::Close => {
                let Some(t) = args.tab else {
                    return Reply::error("close needs `tab`");
                };
                let id = TabId(t);
                let tabs = match call(self.backend().tabs(), CALL_TIMEOUT).await {
                    Ok(t) => t,
                    Err(e) => return Reply::failed(&e),
                };
                let Some(info) = tabs.iter().find(|t| t.id == id) else {
                    return Reply::failed(&BackendError::NoSuchTab(id));
                };
                // Checked here as well as in the backend: the human's tabs are theirs, and
                // this rule must not depend on every backend remembering it.
                if !info.opened_by_agent {
                    return Reply::error(format!(
                        "refused: tab {id} was opened by the human; you may act in it but not \
                         close it"
                    ));
                }
                // Wait for any action in flight on this tab before pulling it away.
                let lock = self.tab_state(id);
                let _guard = lock.lock().await;
                match call(self.backend().close_tab(id), CALL_TIMEOUT).await {
                    Ok(()) => {
                        self.forget_tab(id);
                        Reply::new().say(format!("closed tab {id}"))
                    }
                    Err(e) => Reply::failed(&e),
                }
            }
            TabsAction::Select => {
                let Some(t) = args.tab else {
                    return Reply::error("select needs `tab`");
                };
                let id = TabId(t);
                match call(self.backend().select_tab(id), CALL_TIMEOUT).await {
                    Ok(()) => {
                        self.set_current(id);
                        Reply::new().say(format!("tab {id} is now your current tab"))
                    }
                    Err(e) => Reply::failed(&e),
                }
            }
        }
    }

    /// After opening a tab at an address, answers with its first snapshot (as navigate
    /// does) to save the agent a round trip; a blank tab has nothing to show. `strict`: a page
    /// that cannot be observed (a sign-in holds it) makes the answer an error.
    pub(crate) async fn first_look(&self, id: TabId, r: Reply, with_url: bool, strict: bool) -> Reply {
        if !with_url {
            return r;
        }
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        match self.settle_and_observe(id, &mut st, false).await {
            Ok(obs) => r.observation(&obs),
            Err(e) if strict => r
                .say("it could not be observed yet:")
                .backend_error(&e)
                .mark_error(),
            Err(e) => r.say("it could not be observed yet:").backend_error(&e),
        }
    }

    async fn list_downloads(&self) -> Reply {
        let list = match call(self.backend().downloads(), CALL_TIMEOUT).await {
            Ok(l) => l,
            Err(e) => return Reply::failed(&e),
        };
        if list.is_empty() {
            return Reply::new().say("no downloads in this run");
        }
        let mut r = Reply::new().say(format!(
            "{} download(s), into the human's download directory:",
            list.len()
        ));
        for (i, d) in list.iter().enumerate() {
            let size = match d.total {
                Some(t) if d.state == "in progress" => format!("{} of {} bytes", d.received, t),
                Some(t) => format!("{t} bytes"),
                None => format!("{} bytes so far", d.received),
            };
            // The state is the browser's words; the name and type came from the page.
            r = r
                .say(format!(
                    "download {} (from tab {}): {}, {size}; file name and type:",
                    i + 1,
                    d.tab,
                    d.state
                ))
                .page(&format!("{}\n{}\n", d.name, d.mime));
        }
        r
    }

    async fn list_tabs(&self) -> Reply {
        let tabs = match call(self.backend().tabs(), CALL_TIMEOUT).await {
            Ok(t) => t,
            Err(e) => return Reply::failed(&e),
        };
        self.prune(&tabs);
        let current = self.current();
        let mut r = Reply::new().say(match tabs.len() {
            0 => "no tabs are open".to_string(),
            1 => "1 tab:".to_string(),
            n => format!("{n} tabs:"),
        });
        for t in &tabs {
            let mut flags = vec![if t.opened_by_agent { "yours" } else { "human's" }];
            if Some(t.id) == current {
                flags.push("current");
            }
            for (on, flag) in [
                (t.active, "foreground"),
                (t.loading, "loading"),
                (t.human_driving, "human is using it"),
                (
                    t.unresponsive,
                    "not responding: a script has kept the page busy for 15 s or more",
                ),
                (t.audible, "playing sound"),
                (t.camera, "using the camera"),
                (t.microphone, "using the microphone"),
                (t.muted, "muted"),
                (t.pinned, "pinned"),
                (
                    t.unloaded,
                    "restored, not loaded yet: reading or acting on it loads it",
                ),
            ] {
                if on {
                    flags.push(flag);
                }
            }
            let container = t
                .container
                .as_deref()
                .map(|c| format!(", container {c:?}"))
                .unwrap_or_default();
            r = r
                .say(format!(
                    "tab {} ({}{container}); title and URL:",
                    t.id,
                    flags.join(", ")
                ))
                // Each cleaned to one line and both terminated, so the envelope always holds
                // exactly two quoted lines, an empty title or URL included.
                .page(&format!(
                    "{}\n{}\n",
                    clean(&t.title, STRING_CAP),
                    clean(&t.url, usize::MAX)
                ));
        }
        r
    }
}
