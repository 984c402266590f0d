//! `browser_container`: identity containers — list them, open a tab in one.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::server::{Aperture, CALL_TIMEOUT, NAV_TIMEOUT, Reply, call};

const DESCRIPTION: &str = "Identity containers keep separate cookies, logins and storage. \
`list` shows the containers the human set up; `open` opens a new tab of yours in `container` \
(optionally at `url`, answered with its first snapshot) and makes it your current tab.";

/// What `browser_container` should do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ContainerAction {
    List,
    Open,
}

/// Arguments of `browser_container`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContainerArgs {
    pub action: ContainerAction,
    /// Container id, for `open`.
    pub container: Option<String>,
    /// Address to open, for `open`.
    pub url: Option<String>,
}

#[tool_router(router = container_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_container",
        description = DESCRIPTION,
        input_schema = super::schema::input::<ContainerArgs>(),
        annotations(
            title = "Containers",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn browser_container(
        &self,
        Parameters(args): Parameters<ContainerArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.container(args).await.into_result())
    }
}

impl Aperture {
    async fn container(&self, args: ContainerArgs) -> Reply {
        match args.action {
            ContainerAction::List => match call(self.backend().containers(), CALL_TIMEOUT).await {
                Ok(list) if list.is_empty() => Reply::new().say("no containers are set up"),
                Ok(list) => {
                    // Names are the human's, not a page's: harness text.
                    let lines: Vec<String> = list
                        .iter()
                        .map(|c| format!("- {:?} (id {:?})", c.name, c.id))
                        .collect();
                    Reply::new().say(format!("containers:\n{}", lines.join("\n")))
                }
                Err(e) => Reply::failed(&e),
            },
            ContainerAction::Open => {
                let Some(container) = args.container else {
                    return Reply::error("open needs `container`");
                };
                if let Some(url) = &args.url
                    && let Err(why) = super::navigate::url_allowed(url)
                {
                    return Reply::error(why);
                }
                let with_url = args.url.is_some();
                match call(
                    self.backend().open_tab(args.url, Some(container.clone())),
                    NAV_TIMEOUT,
                )
                .await
                {
                    Ok(id) => {
                        self.set_current(id);
                        let r = Reply::new().say(format!(
                            "opened tab {id} in container {container:?} (yours; now your current \
                             tab)"
                        ));
                        self.first_look(id, r, with_url, false).await
                    }
                    Err(e) => Reply::failed(&e),
                }
            }
        }
    }
}
