//! `browser_act`: click, type, clear, hover, scroll, key, select — one action or a batch of up
//! to 25 run in order under the tab's lock — answered with the diff of what changed.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::{BackendError, ElementOp, MouseButton, TabId};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, TabState, aim, call, resolve};

const DESCRIPTION: &str = "Act on a page with trusted mouse and keyboard input, then answer with \
what changed (a diff against your last observation). Actions: `click` a `ref` (`button`, \
`count: 2` for a double click); `type` `text` into `ref` (or the focused element), `submit: \
true` presses Enter after; `clear` a field; `hover` a `ref`; `scroll` by `dx`/`dy` pixels (at \
`ref`, or the viewport), or bring `ref` into view; `key` presses `key` such as \"Enter\", \
\"Escape\", \"Control+a\" (after focusing `ref` if given); `select` picks `values` of a \
<select>; `dialog` answers the page's open JavaScript dialog (`accept`: true = OK/Leave, false = \
Cancel/Stay; `text` for a prompt). For several actions in one call pass `steps` (1–25, same fields): they run in \
order, stop at the first failure, and one diff answers for all. A ref that is gone is refused \
with what replaced it; an action that failed after its input was sent is reported as OUTCOME \
UNKNOWN and never retried.";

/// Most steps one call may carry.
pub const MAX_STEPS: usize = 25;

/// One kind of action.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ActAction {
    Click,
    Type,
    Clear,
    Hover,
    Scroll,
    Key,
    Select,
    Dialog,
}

impl ActAction {
    fn verb(self) -> &'static str {
        match self {
            ActAction::Click => "click",
            ActAction::Type => "type",
            ActAction::Clear => "clear",
            ActAction::Hover => "hover",
            ActAction::Scroll => "scroll",
            ActAction::Key => "key",
            ActAction::Select => "select",
            ActAction::Dialog => "dialog",
        }
    }
}

/// Mouse button for `click`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ButtonArg {
    #[default]
    Left,
    Middle,
    Right,
}

/// One action.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub action: ActAction,
    /// Element ref from the latest observation (e12).
    #[serde(rename = "ref")]
    pub target: Option<String>,
    /// Text for `type`.
    pub text: Option<String>,
    /// For `type`: press Enter after typing.
    #[serde(default)]
    pub submit: bool,
    /// Key for `key`, e.g. "Enter", "Tab", "ArrowDown", "Control+a".
    pub key: Option<String>,
    /// Option values or labels for `select`.
    pub values: Option<Vec<String>>,
    /// Horizontal scroll in CSS pixels (positive = right).
    pub dx: Option<f32>,
    /// Vertical scroll in CSS pixels (positive = down).
    pub dy: Option<f32>,
    /// Mouse button for `click` (default left).
    pub button: Option<ButtonArg>,
    /// Clicks for `click`: 1 (default) or 2 for a double click.
    pub count: Option<u8>,
    /// For `dialog`: true answers OK / Leave, false Cancel / Stay.
    pub accept: Option<bool>,
}

/// Arguments of `browser_act`: either one action's fields at the top level, or `steps`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
    /// A single action (omit when passing `steps`).
    pub action: Option<ActAction>,
    /// Element ref from the latest observation (e12).
    #[serde(rename = "ref")]
    pub target: Option<String>,
    /// Text for `type`.
    pub text: Option<String>,
    /// For `type`: press Enter after typing.
    #[serde(default)]
    pub submit: bool,
    /// Key for `key`, e.g. "Enter", "Tab", "ArrowDown", "Control+a".
    pub key: Option<String>,
    /// Option values or labels for `select`.
    pub values: Option<Vec<String>>,
    /// Horizontal scroll in CSS pixels (positive = right).
    pub dx: Option<f32>,
    /// Vertical scroll in CSS pixels (positive = down).
    pub dy: Option<f32>,
    /// Mouse button for `click` (default left).
    pub button: Option<ButtonArg>,
    /// Clicks for `click`: 1 (default) or 2 for a double click.
    pub count: Option<u8>,
    /// For `dialog`: true answers OK / Leave, false Cancel / Stay.
    pub accept: Option<bool>,
    /// Several actions (1 to 25), each an object with the same fields as a single action
    /// (`action`, `ref`, `text`, …); run in order, stopping at the first failure.
    // Listed as plain objects: repeating every field's schema here would double this tool's
    // schema, which is paid on every turn. Deserialization still checks each step strictly.
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub steps: Option<Vec<Step>>,
}

impl ActArgs {
    fn into_steps(self) -> Result<Vec<Step>, String> {
        match (self.action, self.steps) {
            (Some(_), Some(_)) => Err("pass either `action` or `steps`, not both".into()),
            (None, None) => Err("pass `action` (one action) or `steps` (a batch)".into()),
            (None, Some(steps)) if steps.is_empty() || steps.len() > MAX_STEPS => Err(format!(
                "`steps` must hold 1 to {MAX_STEPS} actions (got {})",
                steps.len()
            )),
            (None, Some(steps)) => Ok(steps),
            (Some(action), None) => Ok(vec![Step {
                action,
                target: self.target,
                text: self.text,
                submit: self.submit,
                key: self.key,
                values: self.values,
                dx: self.dx,
                dy: self.dy,
                button: self.button,
                count: self.count,
                accept: self.accept,
            }]),
        }
    }
}

/// How a step failed.
#[derive(Debug)]
pub(crate) enum StepFail {
    /// Nothing reached the page. Harness text.
    Refused(String),
    /// Nothing reached the page because the renderer no longer holds the observed walk: every
    /// later ref fails the same way until the page is observed again.
    Stale,
    /// Input was sent and then something failed: the page may or may not have acted.
    Unknown(BackendError),
    /// Something failed before input was sent.
    Failed(BackendError),
    /// Part of the step's input was sent and the rest was refused. Harness text saying which.
    Partial(String),
}

impl StepFail {
    pub(crate) fn render(&self, r: Reply) -> Reply {
        match self {
            StepFail::Refused(why) => r.say(format!("{why} (nothing was sent)")),
            StepFail::Stale => r.say(format!("{STALE} (nothing was sent)")),
            StepFail::Partial(what) => r.say(what.clone()),
            StepFail::Failed(e) => r.say("failed before any input was sent:").backend_error(e),
            StepFail::Unknown(e) => r
                .say(
                    "OUTCOME UNKNOWN: the input was sent, then this failed; it may or may not \
                     have taken effect. It was not retried: check the page below before \
                     repeating it.",
                )
                .backend_error(e),
        }
    }
}

const STALE: &str = "the page was re-read elsewhere since your last observation, so refs cannot be \
                     located; call browser_snapshot and retry";

/// Classifies an error from an input call: unless the backend guarantees nothing was sent,
/// the outcome is unknown.
pub(crate) fn after_send(e: BackendError) -> StepFail {
    if e.nothing_sent() {
        stale_or(e)
    } else {
        StepFail::Unknown(e)
    }
}

/// Classifies an error from a preparatory call (nothing the agent asked for was sent yet).
pub(crate) fn before_send(e: BackendError) -> StepFail {
    stale_or(e)
}

fn stale_or(e: BackendError) -> StepFail {
    match e {
        BackendError::StaleWalk { .. } => StepFail::Stale,
        BackendError::InvalidInput(why) | BackendError::ElementRefused(why) => StepFail::Refused(why),
        BackendError::HumanDriving { reason } => {
            StepFail::Refused(format!("the human is using this tab ({reason}); wait and retry"))
        }
        other => StepFail::Failed(other),
    }
}

impl Aperture {
    /// Resolves `r`, scrolls its element into view and returns the centre of its fresh box.
    pub(crate) async fn locate(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
    ) -> Result<(u64, u32, (f32, f32)), StepFail> {
        let (walk_id, rec) = resolve(st, r).map_err(StepFail::Refused)?;
        st.session.touch(r);
        let reply = call(
            self.backend()
                .element(id, walk_id, rec.idx, ElementOp::ScrollIntoView),
            CALL_TIMEOUT,
        )
        .await
        .map_err(before_send)?;
        // Fresh bounds, never the observed ones: scrolling into view moved the element, so
        // the observed box would aim at whatever took its place.
        let b = reply.bounds.ok_or_else(|| {
            StepFail::Refused(format!(
                "{r}: the browser did not report where the element is now"
            ))
        })?;
        let point = aim(&b, &st.viewport).ok_or_else(|| {
            StepFail::Refused(format!(
                "{r} has no visible box to point at (it may be hidden or off screen)"
            ))
        })?;
        Ok((walk_id, rec.idx, point))
    }

    /// Focuses `r`'s element.
    pub(crate) async fn focus(&self, id: TabId, st: &mut TabState, r: &str) -> Result<(u64, u32), StepFail> {
        let (walk_id, rec) = resolve(st, r).map_err(StepFail::Refused)?;
        st.session.touch(r);
        call(
            self.backend().element(id, walk_id, rec.idx, ElementOp::Focus),
            CALL_TIMEOUT,
        )
        .await
        .map_err(before_send)?;
        Ok((walk_id, rec.idx))
    }

    /// Runs one step. `Ok` carries a short harness summary.
    async fn step(&self, id: TabId, st: &mut TabState, s: &Step) -> Result<String, StepFail> {
        // Trimmed: a ref resolves with surrounding whitespace, and the summaries below echo it.
        let need_ref = || {
            s.target
                .as_deref()
                .map(|t| t.trim().to_string())
                .ok_or_else(|| StepFail::Refused(format!("{} needs `ref`", s.action.verb())))
        };
        let be = self.backend();
        match s.action {
            ActAction::Click => {
                let r = need_ref()?;
                let count = s.count.unwrap_or(1);
                if !(1..=3).contains(&count) {
                    return Err(StepFail::Refused("`count` must be 1, 2 or 3".into()));
                }
                let button = match s.button.unwrap_or_default() {
                    ButtonArg::Left => MouseButton::Left,
                    ButtonArg::Middle => MouseButton::Middle,
                    ButtonArg::Right => MouseButton::Right,
                };
                let (_, _, (x, y)) = self.locate(id, st, &r).await?;
                call(be.click_at(id, x, y, button, count), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                Ok(format!("clicked {r}"))
            }
            ActAction::Dialog => {
                let Some(accept) = s.accept else {
                    return Err(StepFail::Refused(
                        "dialog needs `accept` (true for OK/Leave, false for Cancel/Stay)".into(),
                    ));
                };
                let kind = call(be.answer_dialog(id, accept, s.text.clone()), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                Ok(format!(
                    "answered the {kind} dialog with {}",
                    if accept { "OK" } else { "Cancel" }
                ))
            }
            ActAction::Hover => {
                let r = need_ref()?;
                let (_, _, (x, y)) = self.locate(id, st, &r).await?;
                call(be.move_to(id, x, y), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                Ok(format!("hovering {r}"))
            }
            ActAction::Type => {
                let Some(text) = &s.text else {
                    return Err(StepFail::Refused("type needs `text`".into()));
                };
                let into = match &s.target {
                    Some(r) => {
                        self.focus(id, st, r).await?;
                        r.trim().to_string()
                    }
                    None => "the focused element".into(),
                };
                call(be.type_text(id, text), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                if s.submit {
                    call(be.key(id, "Enter"), CALL_TIMEOUT)
                        .await
                        .map_err(|e| match after_send(e) {
                            // The text went in; only the Enter is in doubt.
                            StepFail::Refused(why) => StepFail::Partial(format!(
                                "the text was typed, but Enter was not pressed: {why}"
                            )),
                            other => other,
                        })?;
                }
                Ok(format!(
                    "typed {} characters into {into}{}",
                    text.chars().count(),
                    if s.submit { " and pressed Enter" } else { "" }
                ))
            }
            ActAction::Clear => {
                let r = need_ref()?;
                let (walk_id, rec) = resolve(st, &r).map_err(StepFail::Refused)?;
                st.session.touch(&r);
                call(be.element(id, walk_id, rec.idx, ElementOp::Clear), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                Ok(format!("cleared {r}"))
            }
            ActAction::Select => {
                let r = need_ref()?;
                let Some(values) = s.values.clone().filter(|v| !v.is_empty()) else {
                    return Err(StepFail::Refused("select needs `values`".into()));
                };
                let (walk_id, rec) = resolve(st, &r).map_err(StepFail::Refused)?;
                st.session.touch(&r);
                let n = values.len();
                call(
                    be.element(id, walk_id, rec.idx, ElementOp::SelectOptions(values)),
                    CALL_TIMEOUT,
                )
                .await
                .map_err(after_send)?;
                Ok(format!("selected {n} option(s) in {r}"))
            }
            ActAction::Key => {
                let Some(key) = s.key.as_deref().filter(|k| !k.trim().is_empty()) else {
                    return Err(StepFail::Refused("key needs `key`".into()));
                };
                if let Some(r) = &s.target {
                    self.focus(id, st, r).await?;
                }
                call(be.key(id, key), CALL_TIMEOUT).await.map_err(after_send)?;
                Ok(format!("pressed {key:?}"))
            }
            ActAction::Scroll => {
                let (dx, dy) = (s.dx.unwrap_or(0.0), s.dy.unwrap_or(0.0));
                if dx == 0.0 && dy == 0.0 {
                    // No delta: bring the element into view, which is itself the action.
                    let r = need_ref()?;
                    let (walk_id, rec) = resolve(st, &r).map_err(StepFail::Refused)?;
                    st.session.touch(&r);
                    call(
                        be.element(id, walk_id, rec.idx, ElementOp::ScrollIntoView),
                        CALL_TIMEOUT,
                    )
                    .await
                    .map_err(after_send)?;
                    return Ok(format!("scrolled {r} into view"));
                }
                // The wheel goes where the pointer is: over the element to scroll an inner
                // scroller, else the middle of the viewport.
                let (x, y, at) = match &s.target {
                    Some(r) => {
                        let (_, rec) = resolve(st, r).map_err(StepFail::Refused)?;
                        st.session.touch(r);
                        let (x, y) = aim(&rec.bounds, &st.viewport)
                            .ok_or_else(|| StepFail::Refused(format!("{r} has no visible box to scroll")))?;
                        (x, y, format!(" at {r}"))
                    }
                    None => (
                        (st.viewport.w / 2.0).max(1.0),
                        (st.viewport.h / 2.0).max(1.0),
                        String::new(),
                    ),
                };
                call(be.scroll(id, x, y, dx, dy), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                Ok(format!("scrolled by ({dx}, {dy}){at}"))
            }
        }
    }
}

#[tool_router(router = act_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_act",
        description = DESCRIPTION,
        input_schema = super::schema::input::<ActArgs>(),
        annotations(
            title = "Act",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn browser_act(&self, Parameters(args): Parameters<ActArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(self.act(args).await.into_result())
    }
}

impl Aperture {
    async fn act(&self, args: ActArgs) -> Reply {
        let tab = args.tab;
        let steps = match args.into_steps() {
            Ok(s) => s,
            Err(why) => return Reply::error(why),
        };
        let id = match self.target(tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        // One batch at a time per tab: steps planned against one observation must not
        // interleave with another caller's.
        let mut st = lock.lock().await;
        let total = steps.len();
        let mut r = Reply::new();
        let mut failed = false;
        let mut trail = Vec::new();
        for (i, s) in steps.iter().enumerate() {
            let rest = match total - (i + 1) {
                0 => String::new(),
                1 => format!("; step {total} was not run"),
                _ => format!("; steps {}–{total} were not run", i + 2),
            };
            match self.step(id, &mut st, s).await {
                Ok(done) if total > 1 => r = r.say(format!("{}. {done}", i + 1)),
                Ok(done) => r = r.say(done),
                Err(f) => {
                    let head = if total > 1 {
                        format!("{}. {} failed{rest}:", i + 1, s.action.verb())
                    } else {
                        format!("{} failed:", s.action.verb())
                    };
                    r = f.render(r.say(head));
                    failed = true;
                    break;
                }
            }
            if i + 1 < total
                && let Err(e) = self.observe_between(id, &mut st, &mut trail).await
            {
                r = r
                    .say(format!(
                        "the page could not be observed after step {}{rest}:",
                        i + 1
                    ))
                    .backend_error(&e);
                failed = true;
                break;
            }
        }
        // Always answer with where the page is now: after a refusal too, since the agent's
        // next move depends on what replaced the element it aimed at.
        r = self.answer_with_trail(id, &mut st, r, trail).await;
        if failed { r.mark_error() } else { r }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: serde_json::Value) -> ActArgs {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn single_action_and_batch_forms() {
        let one = args(serde_json::json!({"action": "click", "ref": "e4"}))
            .into_steps()
            .unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].target.as_deref(), Some("e4"));
        let many = args(serde_json::json!({"steps": [
            {"action": "type", "ref": "e1", "text": "hi"},
            {"action": "key", "key": "Enter"}
        ]}))
        .into_steps()
        .unwrap();
        assert_eq!(many.len(), 2);
        assert!(args(serde_json::json!({"steps": []})).into_steps().is_err());
        let too_many: Vec<_> = (0..26)
            .map(|_| serde_json::json!({"action": "key", "key": "a"}))
            .collect();
        assert!(
            args(serde_json::json!({ "steps": too_many }))
                .into_steps()
                .is_err()
        );
        assert!(
            args(serde_json::json!({"action": "click", "steps": [{"action": "click"}]}))
                .into_steps()
                .is_err()
        );
    }

    #[test]
    fn errors_after_send_are_unknown_unless_nothing_was_sent() {
        assert!(matches!(
            after_send(BackendError::RendererGone("it crashed".into())),
            StepFail::Unknown(_)
        ));
        assert!(matches!(
            after_send(BackendError::Timeout(std::time::Duration::from_secs(1))),
            StepFail::Unknown(_)
        ));
        assert!(matches!(
            after_send(BackendError::HumanDriving { reason: "x".into() }),
            StepFail::Refused(_)
        ));
        assert!(matches!(
            after_send(BackendError::InvalidInput("unknown key".into())),
            StepFail::Refused(_)
        ));
        assert!(matches!(
            before_send(BackendError::RendererGone("it crashed".into())),
            StepFail::Failed(_)
        ));
        // A select with no matching option: the walker refused before touching the page.
        assert!(matches!(
            after_send(BackendError::ElementRefused("no option matches".into())),
            StepFail::Refused(why) if why == "no option matches"
        ));
    }
}
