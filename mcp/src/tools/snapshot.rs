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
     refs that are gone. Inline elements keep their place in their sentence: \
     \"Read the\" [e4 link \"docs\"] \"first.\" Link URLs are left out (browser_read of a \
     link's ref gives it). `urls`, `interactive` (actionable elements only, with their landmarks \
     and headings) and `max_tokens` (cut past about that many tokens, with a note) set how this \
     tab is observed from now on, diffs included; a change answers with a FULL SNAPSHOT. `ref` \
     adds a VIEW of that element's part of the page in full (it changes nothing you hold). ",
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
    /// Show link URLs from now on in this tab (false: leave them out again, the default).
    pub urls: Option<bool>,
    /// From now on in this tab, only actionable elements with their landmarks and headings
    /// (false: everything again, the default).
    pub interactive: Option<bool>,
    /// From now on in this tab, cut snapshots past about this many tokens (0: no cut, the
    /// default).
    pub max_tokens: Option<u32>,
    /// Also show this ref's element and everything in it, in full.
    #[serde(rename = "ref")]
    pub view: Option<String>,
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
        let mut mode = st.session.mode();
        if let Some(u) = args.urls {
            mode.urls = u;
        }
        if let Some(i) = args.interactive {
            mode.interactive = i;
        }
        if let Some(t) = args.max_tokens {
            mode.max_tokens = t;
        }
        st.session.set_mode(mode);
        let obs = match self.observe(id, &mut st, args.full, false).await {
            Ok(obs) => obs,
            Err(e) => return Reply::failed(&e),
        };
        let r = Reply::new().say(format!("tab {id}:")).observation(&obs);
        let Some(part) = args.view else { return r };
        match st.session.render_view(&part, mode.max_tokens) {
            Ok(view) => r.observation(&view),
            Err(e) => r.say(e.to_string()).mark_error(),
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
