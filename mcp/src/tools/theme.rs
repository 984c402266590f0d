//! `browser_theme`: the per-site dark-mode policy.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::{ThemeMode, ThemeTarget};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call};

const DESCRIPTION: &str = "Get or set a site's dark-mode policy: `auto` (follow the site and \
system), `on` (force dark), `off` (never darken). The site is `host` (e.g. example.com), or \
the site shown in `tab` / your current tab when `host` is omitted.";

/// Get or set.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ThemeAction {
    Get,
    Set,
}

/// Arguments of `browser_theme`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThemeArgs {
    pub action: ThemeAction,
    /// Host name the policy is for.
    pub host: Option<String>,
    /// Tab whose site the policy is for, when `host` is omitted.
    pub tab: Option<u64>,
    /// The policy to set (for `set`).
    pub mode: Option<ThemeModeArg>,
}

/// Dark-mode policy.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ThemeModeArg {
    Auto,
    On,
    Off,
}

impl From<ThemeModeArg> for ThemeMode {
    fn from(m: ThemeModeArg) -> ThemeMode {
        match m {
            ThemeModeArg::Auto => ThemeMode::Auto,
            ThemeModeArg::On => ThemeMode::On,
            ThemeModeArg::Off => ThemeMode::Off,
        }
    }
}

#[tool_router(router = theme_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_theme",
        description = DESCRIPTION,
        input_schema = super::schema::input::<ThemeArgs>(),
        annotations(
            title = "Dark mode",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn browser_theme(
        &self,
        Parameters(args): Parameters<ThemeArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.theme(args).await.into_result())
    }
}

impl Aperture {
    async fn theme(&self, args: ThemeArgs) -> Reply {
        let set = match (args.action, args.mode) {
            (ThemeAction::Get, _) => None,
            (ThemeAction::Set, Some(m)) => Some(ThemeMode::from(m)),
            (ThemeAction::Set, None) => return Reply::error("set needs `mode`"),
        };
        let target = match args.host {
            Some(h) => ThemeTarget::Host(h),
            None => match self.target(args.tab).await {
                Ok(id) => ThemeTarget::Tab(id),
                Err(r) => return r,
            },
        };
        match call(self.backend().theme(target, set), CALL_TIMEOUT).await {
            Ok(state) => {
                let mode = match state.mode {
                    ThemeMode::Auto => "auto",
                    ThemeMode::On => "on (forced dark)",
                    ThemeMode::Off => "off",
                };
                // The host comes from a page URL when addressed by tab, so it is fenced.
                Reply::new()
                    .say(format!(
                        "dark mode is {mode}{} for the site:",
                        if set.is_some() { " now" } else { "" }
                    ))
                    .page(&state.host)
            }
            Err(e) => Reply::failed(&e),
        }
    }
}
