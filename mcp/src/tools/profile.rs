//! `browser_profile`: fill a form from one of the human's vault profiles (name, address,
//! email…), without the agent ever holding a value.
//!
//! `list` names the profiles; `plan` says, for the form controls of the agent's last
//! observation, which profile fact would go where and how sure the match is (values are never
//! shown; low-confidence matches and prose prompts are not filled); `apply` has the browser
//! fill the plan's rows after the human's consent (sensitive facts ask every time), typing with
//! trusted input, and reads of the filled values come back redacted.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::{ProfileControl, ProfileOutcome};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call};

const DESCRIPTION: &str = "Fill a form from the human's vault profiles (name, email, address…) \
without seeing the values. `list`: profile names. `plan` + `profile`: which field of your last \
observation gets which fact, with confidence (prose and low-confidence fields are left to you). \
`apply`: the browser fills after the human allows it. Does not submit.";

/// What `browser_profile` does.
#[derive(Debug, Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ProfileAction {
    /// The profiles' names.
    List,
    /// Which field would get which fact.
    Plan,
    /// Fill the plan's rows.
    Apply,
}

/// Arguments of `browser_profile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileArgs {
    /// list, plan or apply.
    pub action: ProfileAction,
    /// Profile name (plan, apply).
    pub profile: Option<String>,
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
}

#[tool_router(router = profile_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_profile",
        description = DESCRIPTION,
        input_schema = super::schema::input::<ProfileArgs>(),
        annotations(
            title = "Fill from a vault profile",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn browser_profile(
        &self,
        Parameters(args): Parameters<ProfileArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.profile(args).await.into_result())
    }
}

/// The plan's rows as text: ref, page label (cleaned), fact, confidence, decision. The whole
/// block is page-derived and goes inside the envelope, which quotes each line.
fn render_rows(o: &ProfileOutcome) -> String {
    o.rows
        .iter()
        .map(|r| {
            let label: String = r.label.chars().filter(|c| !c.is_control()).take(60).collect();
            let fact = r.field.as_deref().unwrap_or("-");
            let sensitive = if r.sensitive {
                " (sensitive: asks the human each time)"
            } else {
                ""
            };
            format!(
                "{} {label} -> {fact} ~{}%: {}{sensitive}",
                r.field_ref, r.confidence, r.decision
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Aperture {
    async fn profile(&self, args: ProfileArgs) -> Reply {
        if args.action == ProfileAction::List {
            return match call(self.backend().vault_profiles(), CALL_TIMEOUT).await {
                Ok(list) if list.is_empty() => Reply::new().say(
                    "the vault has no profiles (the human adds them with `aperture vault profile NAME`)",
                ),
                Ok(list) => {
                    let mut r = Reply::new().say("vault profiles (name, facts stored):");
                    for p in list {
                        let name: String = p.name.chars().filter(|c| !c.is_control()).take(60).collect();
                        r = r.say(format!("{name:?}: {} facts", p.fields));
                    }
                    r.say("plan a fill with browser_profile action=plan profile=NAME")
                }
                Err(e) => Reply::failed(&e),
            };
        }
        let Some(profile) = args.profile.clone().filter(|p| !p.trim().is_empty()) else {
            return Reply::error("name the `profile` (browser_profile action=list shows them)");
        };
        let apply = args.action == ProfileAction::Apply;
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        let Some(walk_id) = st.walk_id else {
            return Reply::error("this tab has not been observed yet; call browser_snapshot first");
        };
        let controls: Vec<ProfileControl> = st
            .session
            .live_refs()
            .into_iter()
            .filter(|(_, rec)| rec.editable || rec.tag == "select" || rec.role.as_deref() == Some("combobox"))
            .map(|(r, rec)| ProfileControl {
                field_ref: r,
                walk_id,
                idx: rec.idx,
                tag: rec.tag.clone(),
                input_type: rec.input_type.clone(),
                autocomplete: rec.autocomplete.clone(),
                name: rec.name_attr.clone(),
                id: rec.dom_id.clone(),
                label: rec.name.clone(),
                placeholder: rec.placeholder.clone(),
                options: rec.options.iter().map(|o| o.label.clone()).collect(),
            })
            .collect();
        if controls.is_empty() {
            return Reply::error("the last observation of this tab has no form fields to fill");
        }
        let limit = CALL_TIMEOUT * 3;
        let out = match call(self.backend().vault_profile(id, &profile, controls, apply), limit).await {
            Ok(o) => o,
            Err(e) if e.nothing_sent() => {
                return Reply::new()
                    .say(if apply { "nothing was filled:" } else { "no plan:" })
                    .backend_error(&e)
                    .mark_error();
            }
            Err(e) => {
                let r = super::act::StepFail::Unknown(e)
                    .render(Reply::new().say("filling from the profile:"))
                    .mark_error();
                return self
                    .answer_with_trail(id, &mut st, r, Vec::new())
                    .await
                    .mark_error();
            }
        };
        let ready = out.rows.iter().filter(|r| r.decision == "fill").count();
        let head = format!(
            "profile plan for tab {id}: {ready} of {} fields would be filled (values are never shown):",
            out.rows.len()
        );
        let r = Reply::new().say(head).page(&render_rows(&out));
        if !apply {
            return r.say("fill them with browser_profile action=apply (the human is asked first)");
        }
        let mut r = r.say(if out.filled.is_empty() {
            "nothing was filled".to_string()
        } else {
            format!(
                "filled {} from the profile; reads of this tab show the values as [redacted:vault]",
                out.filled.join(", ")
            )
        });
        if !out.skipped.is_empty() {
            r = r.say(format!(
                "not filled (not allowed by the human, or no value saved): {}",
                out.skipped.join(", ")
            ));
        }
        self.answer_with_trail(id, &mut st, r, Vec::new()).await
    }
}
