//! `browser_snapshot`: the page as the engine models it — full, or the diff against what the
//! agent already holds.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::server::{Aperture, Reply};

const DESCRIPTION: &str = concat!(
    "Observe a tab. By default answers with what changed since your last observation of it \
     (a diff naming the observation it applies to); `full: true` forces a FULL SNAPSHOT, which \
     replaces everything you held. The first observation of a tab is always full. Actionable \
     elements carry refs (e12) for browser_act, browser_read and browser_fill_form; a diff lists \
     refs that are gone. ",
    envelope_rule!()
);

/// Arguments of `browser_snapshot`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
    /// Force a full snapshot instead of a diff (use after losing track of the page).
    #[serde(default)]
    pub full: bool,
}

#[tool_router(router = snapshot_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_snapshot",
        description = DESCRIPTION,
        input_schema = super::schema::input::<SnapshotArgs>(),
        annotations(title = "Snapshot", read_only_hint = true, open_world_hint = true)
    )]
    async fn browser_snapshot(
        &self,
        Parameters(args): Parameters<SnapshotArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.snapshot(args).await.into_result())
    }
}

impl Aperture {
    async fn snapshot(&self, args: SnapshotArgs) -> Reply {
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        match self.observe(id, &mut st, args.full, false).await {
            Ok(obs) => Reply::new().say(format!("tab {id}:")).observation(&obs),
            Err(e) => Reply::failed(&e),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn description_carries_the_envelope_rule_verbatim() {
        assert!(super::DESCRIPTION.ends_with(crate::server::ENVELOPE_RULE));
    }
}
