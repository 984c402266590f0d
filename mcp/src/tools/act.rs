//! `browser_act`: click, type, clear, hover, scroll, key, select, dialog, wait, navigation and
//! tab steps — one action or a batch of up to 25 run in order under the tab's lock — answered
//! with the diff of what changed.

use std::time::{Duration, Instant};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::backend::{BackendError, Delivery, DragEnd, ElementOp, MouseButton, Nav, Rect, TabId};
use crate::engine_glue::{Observation, clean};
use crate::server::{
    Aperture, CALL_TIMEOUT, NAV_TIMEOUT, Reply, TabGuard, TabState, aim, call, push_obs, resolve, with_trail,
};
use aperture_engine::record::Viewport;

const DESCRIPTION: &str = "Act on a page with trusted mouse and keyboard input, then answer with \
what changed (a diff against your last observation). Actions: `click` a `ref` (`button`, \
`count: 2` double-clicks; `x`/`y`: that point of it, CSS px from its top-left, e.g. on a canvas \
seen with browser_capture `ref`); `hover` a `ref` (`x`/`y` as for click); `drag` `ref` (from its \
point `x`/`y`) onto `to`, or by `dx`/`dy` pixels; `type` `text` into `ref` (or the focused element; \
`submit: true` presses Enter after; `generate_password: true` without `text` types a new \
vault-saved password, never shown); `clear` a field; `scroll` by `dx`/`dy` (at `ref` or the \
viewport), or bring `ref` into view; `key` (after focusing `ref` if given; `count` repeats it, up to 100); `select` `values` of \
a <select>; `select_text` selects `text` on the page (or in `ref`; `ref` alone: all its text) as \
a person dragging across it would; `dialog` answers a JavaScript dialog (`accept`, `text` for a prompt); `wait` until \
`text` shows or `ref` is visible (`gone: true`: the opposite), the URL contains `url` (`*` \
wildcards), no request is in flight for `idle` ms, or for `ms` alone (`ms` caps a condition; at most \
20000); `goto` `url`, `back`, `forward`, `reload`; `tab_open` (`url`), `tab_select` or \
`tab_close` `tab`. `steps` (1–25, same fields) run in order, stopping at the first failure or \
before a step once 20 s have passed. A covered target is refused, naming what covers it; input \
the page never received is reported not delivered (nothing happened); input that failed after \
reaching the page is OUTCOME UNKNOWN and never retried.";

/// Most presses one `key` step may repeat (a slider from end to end in unit steps).
const MAX_PRESSES: u8 = 100;
/// Most steps one call may carry.
pub const MAX_STEPS: usize = 25;
/// No step of a batch starts once the batch has run this long: a host's call timeout must
/// never leave the agent guessing whether the rest ran.
pub const BATCH_LIMIT: Duration = Duration::from_secs(20);
/// The longest one `wait` step waits.
pub const WAIT_MAX: Duration = Duration::from_secs(20);

/// One kind of action.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ActAction {
    Click,
    Type,
    Clear,
    Hover,
    Drag,
    Scroll,
    Key,
    Select,
    SelectText,
    Dialog,
    Wait,
    Goto,
    Back,
    Forward,
    Reload,
    TabOpen,
    TabSelect,
    TabClose,
}

impl ActAction {
    fn verb(self) -> &'static str {
        match self {
            ActAction::Click => "click",
            ActAction::Type => "type",
            ActAction::Clear => "clear",
            ActAction::Hover => "hover",
            ActAction::Drag => "drag",
            ActAction::Scroll => "scroll",
            ActAction::Key => "key",
            ActAction::Select => "select",
            ActAction::SelectText => "select_text",
            ActAction::Dialog => "dialog",
            ActAction::Wait => "wait",
            ActAction::Goto => "goto",
            ActAction::Back => "back",
            ActAction::Forward => "forward",
            ActAction::Reload => "reload",
            ActAction::TabOpen => "tab_open",
            ActAction::TabSelect => "tab_select",
            ActAction::TabClose => "tab_close",
        }
    }

    /// Steps that change which tab the batch acts on, and observe it themselves.
    fn is_tab_step(self) -> bool {
        matches!(
            self,
            ActAction::TabOpen | ActAction::TabSelect | ActAction::TabClose
        )
    }
}

/// `values` as a list, or one string (`"value": "Red"`, as agents often write it for a single
/// option): the same choice either way.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(Option::<OneOrMany>::deserialize(d)?.map(|v| match v {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    }))
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
    /// For `drag`: the ref to drop on.
    pub to: Option<String>,
    /// Text for `type`; for `wait`, text to wait for; for `select_text`, the words to select.
    pub text: Option<String>,
    /// For `type`: press Enter after typing.
    #[serde(default)]
    pub submit: bool,
    /// For `type` on a new-password field: the vault generates a strong password, saves it for
    /// the field's origin and types it (never shown). Single action only.
    #[serde(default)]
    pub generate_password: bool,
    /// Key for `key`, e.g. "Enter", "Tab", "ArrowDown", "Control+a".
    pub key: Option<String>,
    /// Option values or labels for `select`.
    #[serde(default, alias = "value", deserialize_with = "one_or_many")]
    pub values: Option<Vec<String>>,
    /// For `scroll`: horizontal scroll in CSS pixels (positive = right); for `drag` without
    /// `to`: how far right to move the element (negative = left).
    pub dx: Option<f32>,
    /// For `scroll`: vertical scroll in CSS pixels (positive = down); for `drag` without `to`:
    /// how far down to move it (negative = up).
    pub dy: Option<f32>,
    /// Mouse button for `click` (default left).
    pub button: Option<ButtonArg>,
    /// For `click`, `hover` and where `drag` presses: with `y`, the point in CSS px from
    /// `ref`'s top-left corner (a canvas, chart or map; browser_capture with `ref` shows it).
    pub x: Option<f32>,
    /// For `click`, `hover` and `drag`: with `x`, the point's CSS px down from `ref`'s top edge.
    pub y: Option<f32>,
    /// Clicks for `click`: 1 (default), 2 (double) or 3 (triple); presses for `key`: 1 to 100
    /// (a slider or a list moved by its arrow key).
    pub count: Option<u8>,
    /// For `dialog`: true answers OK / Leave, false Cancel / Stay.
    pub accept: Option<bool>,
    /// For a sign-in `dialog` (HTTP authentication) accepted: the username and password.
    pub username: Option<String>,
    pub password: Option<String>,
    /// For `wait`: wait for the text or ref to go away instead.
    #[serde(default)]
    pub gone: bool,
    /// For `goto` and `tab_open`: the address; for `wait`: what the URL must contain.
    pub url: Option<String>,
    /// For `wait`: milliseconds the network must stay idle.
    pub idle: Option<u64>,
    /// For `wait`: milliseconds to pause, or with a condition the most to wait.
    pub ms: Option<u64>,
    /// For `tab_select` and `tab_close`: the tab id.
    pub tab: Option<u64>,
}

/// Arguments of `browser_act`: either one action's fields at the top level, or `steps`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActArgs {
    /// Tab id; your current tab when omitted (for `tab_select`/`tab_close`: the tab).
    pub tab: Option<u64>,
    /// A single action (omit when passing `steps`).
    pub action: Option<ActAction>,
    /// Element ref from the latest observation (e12).
    #[serde(rename = "ref")]
    pub target: Option<String>,
    /// For `drag`: the ref to drop on.
    pub to: Option<String>,
    /// Text for `type`; for `wait`, text to wait for.
    pub text: Option<String>,
    /// For `type`: press Enter after typing.
    #[serde(default)]
    pub submit: bool,
    /// For `type` on a new-password field: the vault generates a strong password, saves it for
    /// the field's origin and types it (never shown). Single action only.
    #[serde(default)]
    pub generate_password: bool,
    /// Key for `key`, e.g. "Enter", "Tab", "ArrowDown", "Control+a".
    pub key: Option<String>,
    /// Option values or labels for `select`.
    #[serde(default, alias = "value", deserialize_with = "one_or_many")]
    pub values: Option<Vec<String>>,
    /// For `scroll`: horizontal scroll in CSS pixels (positive = right); for `drag` without
    /// `to`: how far right to move the element (negative = left).
    pub dx: Option<f32>,
    /// For `scroll`: vertical scroll in CSS pixels (positive = down); for `drag` without `to`:
    /// how far down to move it (negative = up).
    pub dy: Option<f32>,
    /// Mouse button for `click` (default left).
    pub button: Option<ButtonArg>,
    /// For `click`, `hover` and where `drag` presses: with `y`, the point in CSS px from
    /// `ref`'s top-left corner (a canvas, chart or map; browser_capture with `ref` shows it).
    pub x: Option<f32>,
    /// For `click`, `hover` and `drag`: with `x`, the point's CSS px down from `ref`'s top edge.
    pub y: Option<f32>,
    /// Clicks for `click`: 1 (default), 2 (double) or 3 (triple); presses for `key`: 1 to 100
    /// (a slider or a list moved by its arrow key).
    pub count: Option<u8>,
    /// For `dialog`: true answers OK / Leave, false Cancel / Stay.
    pub accept: Option<bool>,
    /// For a sign-in `dialog` (HTTP authentication) accepted: the username and password.
    pub username: Option<String>,
    pub password: Option<String>,
    /// For `wait`: until the text or ref is gone.
    #[serde(default)]
    pub gone: bool,
    /// For `goto`/`tab_open`: the address; for `wait`: what the URL must contain.
    pub url: Option<String>,
    /// For `wait`: ms the network must stay idle.
    pub idle: Option<u64>,
    /// For `wait`: ms to pause, or the most to wait.
    pub ms: Option<u64>,
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
                to: self.to,
                text: self.text,
                submit: self.submit,
                generate_password: self.generate_password,
                key: self.key,
                values: self.values,
                dx: self.dx,
                dy: self.dy,
                button: self.button,
                x: self.x,
                y: self.y,
                count: self.count,
                accept: self.accept,
                username: self.username,
                password: self.password,
                gone: self.gone,
                url: self.url,
                idle: self.idle,
                ms: self.ms,
                // A single tab step names its tab at the top level.
                tab: if action.is_tab_step() { self.tab } else { None },
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
    /// The page never received the input (voided, so nothing happened), or could not take
    /// it (nothing was sent): the error says which.
    Undelivered(BackendError),
    /// Keyboard focus was not, or stopped being, where the keys were meant to go.
    Focus(BackendError),
    /// Something else is at the point a pointer action would hit: nothing was sent. The ref
    /// and what covers it (page text).
    Covered { r: String, cover: String },
    /// The input arrived, but its first pointer event went to another element: what input,
    /// the ref, and what got it (page text).
    Elsewhere {
        what: &'static str,
        r: String,
        got: String,
    },
    /// The press went to the ref, then the page covered or moved it and the release and
    /// click went to something else: the ref's press handlers (focus, mousedown) ran, its
    /// click handlers did not. The ref and what got the click (page text).
    ReleasedElsewhere { r: String, got: String },
    /// A `wait` whose condition did not come true in time. Harness text.
    Unmet(String),
    /// A navigation step failed.
    Nav(BackendError),
}

impl StepFail {
    pub(crate) fn render(&self, r: Reply) -> Reply {
        match self {
            StepFail::Refused(why) => r.say(format!("{why} (nothing was sent)")),
            StepFail::Stale => r.say(format!("{STALE} (nothing was sent)")),
            StepFail::Partial(what) | StepFail::Unmet(what) => r.say(what.clone()),
            StepFail::Failed(e) => r.say("failed before any input was sent:").backend_error(e),
            StepFail::Undelivered(e) | StepFail::Focus(e) | StepFail::Nav(e) => r.backend_error(e),
            StepFail::Covered { r: target, cover } => r
                .say(format!(
                    "{target} is covered at the point to click, so nothing was sent; covered by:"
                ))
                .page(cover),
            StepFail::Elsewhere { what, r: target, got } => r
                .say(format!(
                    "the {what} reached the page but went to another element, not {target} (it \
                     moved or was covered as the input arrived); it went to:"
                ))
                .page(got),
            StepFail::ReleasedElsewhere { r: target, got } => r
                .say(format!(
                    "the press reached {target} (its mousedown and focus happened), then the page \
                     covered or moved it, so the release and the click went to another element: \
                     the page's reaction to the press is below; {target}'s click handlers did not \
                     run. The click went to:"
                ))
                .page(got),
            StepFail::Unknown(e) => r
                .say(
                    "OUTCOME UNKNOWN: the input was sent, then this failed; it may or may not \
                     have taken effect. It was not retried: check the page below before \
                     repeating it.",
                )
                .backend_error(e),
        }
    }

    /// Nothing reached the page (a batch's later fields may still be tried).
    pub(crate) fn nothing_sent(&self) -> bool {
        matches!(self, StepFail::Refused(_) | StepFail::Covered { .. })
    }
}

const STALE: &str = "the page was re-read elsewhere since your last observation, so refs cannot be \
                     located; call browser_snapshot and retry";

/// Classifies an error from an input call: unless the backend guarantees nothing was sent,
/// the outcome is unknown.
pub(crate) fn after_send(e: BackendError) -> StepFail {
    if e.nothing_sent() {
        stale_or(e)
    } else if matches!(e, BackendError::FocusMoved { .. }) {
        StepFail::Focus(e)
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
        e @ (BackendError::NotDelivered(_) | BackendError::NotReady(_)) => StepFail::Undelivered(e),
        e @ BackendError::FocusMoved { .. } => StepFail::Focus(e),
        other => StepFail::Failed(other),
    }
}

/// The answer for input that arrived: `done`, unless its first pointer event went elsewhere.
/// An Enter after text or a value went in that did not go through: the step is partly done
/// (`done` says what went in), unless it failed in a way that says otherwise.
fn enter_not_pressed(done: &str, e: StepFail) -> StepFail {
    match e {
        StepFail::Refused(why) => StepFail::Partial(format!("{done}, but Enter was not pressed: {why}")),
        StepFail::Undelivered(e) | StepFail::Focus(e) => {
            StepFail::Partial(format!("{done}, but Enter was not pressed: {e}"))
        }
        other => other,
    }
}

pub(crate) fn delivered(d: Delivery, what: &'static str, r: &str, done: String) -> Result<String, StepFail> {
    if let Some(got) = d.elsewhere {
        return Err(if d.pressed_inside {
            StepFail::ReleasedElsewhere {
                r: r.to_string(),
                got,
            }
        } else {
            StepFail::Elsewhere {
                what,
                r: r.to_string(),
                got,
            }
        });
    }
    Ok(if d.unconfirmed {
        format!("{done} (into a frame of another site, which cannot confirm it arrived)")
    } else {
        done
    })
}

/// Where to release a drag onto box `b` aimed at `at` (its middle), coming from `from`: a
/// quarter of the box further along the way it travels, still inside it. A sortable list moves
/// an item past another only once the pointer is past that item's middle (jQuery UI's
/// sortable, most others); released on the middle, an item dragged down stopped one place
/// short. A drop zone takes the drop anywhere inside.
fn past_middle(at: (f32, f32), from: (f32, f32), b: &Rect, vp: &Viewport) -> (f32, f32) {
    let (dx, dy) = (at.0 - from.0, at.1 - from.1);
    // Within the box and the view, else the middle stays.
    let shift = |v: f32, d: f32, start: f32, len: f32, view: f32| {
        let to = (v + d.signum() * (len / 4.0).floor()).floor();
        let inside = to > start && to < start + len - 1.0 && to >= 0.0 && (view <= 0.0 || to < view);
        if inside { to } else { v }
    };
    if dy.abs() >= dx.abs() {
        (at.0, shift(at.1, dy, b.y, b.h, vp.h))
    } else {
        (shift(at.0, dx, b.x, b.w, vp.w), at.1)
    }
}

/// The point to aim at within a box: the middle of its visible part, on whole pixels (the
/// browser's mouse events are), so the hit test checks exactly where the input will go.
fn point_in(b: &Rect, st: &TabState, r: &str) -> Result<(f32, f32), StepFail> {
    let (x, y) = aim(b, &st.viewport).ok_or_else(|| {
        StepFail::Refused(format!(
            "{r} has no visible box to point at (it may be hidden or off screen)"
        ))
    })?;
    Ok((x.floor(), y.floor()))
}

impl Aperture {
    /// Resolves `r`, scrolls its element into view and returns the centre of its fresh box.
    pub(crate) async fn locate(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
    ) -> Result<(u64, u32, Rect), StepFail> {
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
        Ok((walk_id, rec.idx, b))
    }

    /// Aims a pointer action at `r`: brings it into view and checks what is at the point
    /// (through open shadow roots and same-origin frames). When something else is there, the
    /// browser looks for a clear point across the element's box as it is now (it may have
    /// moved, or be covered only in part); when there is none, nothing is sent. The hit test
    /// also arms the check of where the input's first event lands ([`Delivery::elsewhere`]).
    pub(crate) async fn aim_at(&self, id: TabId, st: &mut TabState, r: &str) -> Result<(f32, f32), StepFail> {
        self.aim_target(id, st, r).await.map(|(_, p)| p)
    }

    /// Where a click, hover or drag press on `r` goes: with `at` (a step's `x`, `y`) that point
    /// of it, CSS px from its top-left (a canvas, a dot of a drawing area), refused when outside
    /// it or covered; else its middle, aimed as a click's (`click`: [`Aperture::aim_click`]) or
    /// as a pointer's ([`Aperture::aim_at`]). Also the words naming the point for the answer,
    /// after `how` (" at", " from"); none for the middle.
    async fn aim_or_point(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
        at: (Option<f32>, Option<f32>),
        click: bool,
        how: &str,
    ) -> Result<((f32, f32), String), StepFail> {
        match at {
            (None, None) if click => Ok((self.aim_click(id, st, r).await?, String::new())),
            (None, None) => Ok((self.aim_at(id, st, r).await?, String::new())),
            (Some(ox), Some(oy)) => Ok((
                self.aim_point(id, st, r, (ox, oy)).await?,
                format!("{how} x {ox:.0}, y {oy:.0}"),
            )),
            _ => Err(StepFail::Refused("`x` and `y` go together".into())),
        }
    }

    /// [`Aperture::aim_at`], also answering the element it aimed at (walk id and index).
    async fn aim_target(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
    ) -> Result<((u64, u32), (f32, f32)), StepFail> {
        let (walk_id, idx, b) = self.locate(id, st, r).await?;
        let p = point_in(&b, st, r)?;
        Ok(((walk_id, idx), self.hit_test(id, r, walk_id, idx, p).await?))
    }

    /// Aims a click at `r` the way a person clicks: [`Aperture::aim_at`], then the pointer
    /// rests on the target and it is aimed again ([`Aperture::rest_on`]). Answers where to press.
    pub(crate) async fn aim_click(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
    ) -> Result<(f32, f32), StepFail> {
        let (target, p) = self.aim_target(id, st, r).await?;
        match self.rest_on(id, st, r, target, p).await {
            Err(StepFail::Partial(why)) if self.redrawn(id, st, r, target).await? => {
                // The hover made the page draw the element again (a re-render, or a handler
                // that rebuilds what the pointer is over): the ref lives on in the new node,
                // which is what the agent aimed at. It is aimed afresh, once; the pointer is
                // already on it, so a page that redraws on every move does not loop.
                tracing::debug!(tab = id.0, r, "redrawn on hover; aiming at the new node");
                let (target, p) = self
                    .aim_target(id, st, r)
                    .await
                    .map_err(|_| StepFail::Partial(why))?;
                self.rest_on(id, st, r, target, p).await
            }
            other => other,
        }
    }

    /// Whether `r`'s node, as aimed at (`target`), has left the page while the logical element
    /// lives on: the page is observed again (that observation joins the agent's state, as any
    /// other of the batch's) and the ref still resolves, now to another node.
    async fn redrawn(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
        (walk_id, idx): (u64, u32),
    ) -> Result<bool, StepFail> {
        match call(
            self.backend().element(id, walk_id, idx, ElementOp::Bounds),
            CALL_TIMEOUT,
        )
        .await
        {
            // Walked again since, or its node left the page (the only refusal of a box read
            // of a node the walk had), as `ref_visible` reads it.
            Err(BackendError::StaleWalk { .. } | BackendError::ElementRefused(_)) => {}
            _ => return Ok(false),
        }
        let obs = self.observe(id, st, false, false).await.map_err(before_send)?;
        st.pending.push(obs);
        Ok(resolve(st, r).is_ok_and(|(w, rec)| (w, rec.idx) != (walk_id, idx)))
    }

    /// Aims a click at the point `(ox, oy)` (CSS px from the element's top-left corner) of
    /// `r`: brought into view, the pointer rests there, and the point is checked as a person
    /// would see it, twice (the page may react to hover). A point of an element larger than
    /// the view is scrolled to the middle of the view first. Unlike [`Aperture::aim_click`] it
    /// never picks another point: a point outside the box, out of reach or covered is refused.
    async fn aim_point(
        &self,
        id: TabId,
        st: &mut TabState,
        r: &str,
        (ox, oy): (f32, f32),
    ) -> Result<(f32, f32), StepFail> {
        let (walk_id, idx, mut b) = self.locate(id, st, r).await?;
        let off_screen = |b: &Rect| {
            let p = ((b.x + ox).floor(), (b.y + oy).floor());
            p.0 < 0.0 || p.1 < 0.0 || p.0 >= st.viewport.w || p.1 >= st.viewport.h
        };
        if (0.0..b.w).contains(&ox) && (0.0..b.h).contains(&oy) && off_screen(&b) {
            // Part of an element larger than the view (a long strip, a map, a canvas): the
            // page is scrolled so that the point itself shows.
            let reply = call(
                self.backend()
                    .element(id, walk_id, idx, ElementOp::ScrollToPoint { x: ox, y: oy }),
                CALL_TIMEOUT,
            )
            .await
            .map_err(before_send)?;
            if let Some(fresh) = reply.bounds {
                b = fresh;
            }
        }
        let point = |b: &Rect| -> Result<(f32, f32), StepFail> {
            if !(0.0..b.w).contains(&ox) || !(0.0..b.h).contains(&oy) {
                return Err(StepFail::Refused(format!(
                    "x {ox}, y {oy} is outside {r}, whose box is {:.0}x{:.0} CSS px",
                    b.w, b.h
                )));
            }
            // Whole pixels, as `point_in` aims: input goes to a device pixel.
            let p = ((b.x + ox).floor(), (b.y + oy).floor());
            if p.0 < 0.0 || p.1 < 0.0 || p.0 >= st.viewport.w || p.1 >= st.viewport.h {
                return Err(StepFail::Refused(format!(
                    "x {ox}, y {oy} of {r} is off screen, and the page does not scroll that far \
                     (the element is larger than the view)"
                )));
            }
            Ok(p)
        };
        let strict = async |p: (f32, f32)| -> Result<(f32, f32), StepFail> {
            match self.hit_test(id, r, walk_id, idx, p).await? {
                q if q == p => Ok(p),
                _ => Err(StepFail::Refused(format!(
                    "x {ox}, y {oy} of {r} is covered by something else on the page"
                ))),
            }
        };
        let p = strict(point(&b)?).await?;
        self.backend().rest_pointer(id, p.0, p.1).await;
        let b = self.box_now(id, r, walk_id, idx).await?;
        strict(point(&b)?).await
    }

    /// The element's box as it is now, read without scrolling it into view.
    async fn box_now(&self, id: TabId, r: &str, walk_id: u64, idx: u32) -> Result<Rect, StepFail> {
        call(
            self.backend().element(id, walk_id, idx, ElementOp::Bounds),
            CALL_TIMEOUT,
        )
        .await
        .map_err(before_send)?
        .bounds
        .ok_or_else(|| StepFail::Refused(format!("{r}: the browser did not report where it is")))
    }

    /// A person's pointer rests on a target before it presses, so whatever the page does on
    /// hover (a `:hover` style that swaps an icon for one still loading, a tooltip, a menu that
    /// opens) has happened by the press, and the press goes where the target is then. Pressed
    /// in the instant of arriving, the press went to what the hover left under the point (an
    /// icon's row, while its hover icon loaded). So the pointer moves onto `p` first and the
    /// target is aimed again (its box as it is now, hit-tested, which also re-arms the check
    /// of where the press lands); a target the hover hid or covered is waited for briefly,
    /// then refused, with nothing pressed.
    async fn rest_on(
        &self,
        id: TabId,
        st: &TabState,
        r: &str,
        (walk_id, idx): (u64, u32),
        p: (f32, f32),
    ) -> Result<(f32, f32), StepFail> {
        let be = self.backend();
        be.rest_pointer(id, p.0, p.1).await;
        let until = Instant::now() + HOVER_SETTLE;
        let r#final = loop {
            let again = async {
                let b = self.box_now(id, r, walk_id, idx).await?;
                let q = point_in(&b, st, r)?;
                self.hit_test(id, r, walk_id, idx, q).await
            };
            match again.await {
                Ok(q) => return Ok(q),
                Err(e @ (StepFail::Refused(_) | StepFail::Covered { .. })) if Instant::now() < until => {
                    tracing::debug!(
                        tab = id.0,
                        r,
                        refused = matches!(e, StepFail::Refused(_)),
                        "waiting for the hover to settle"
                    );
                    tokio::time::sleep(Duration::from_millis(40)).await;
                }
                Err(e) => break e,
            }
        };
        // The move was sent: say so, and that the click was not.
        Err(match r#final {
            StepFail::Refused(why) => StepFail::Partial(format!(
                "{why}: it changed when the pointer moved onto it (the page reacts to hover), so \
                 the pointer rests there and no click was sent"
            )),
            StepFail::Failed(e) => StepFail::Partial(format!(
                "the pointer moved onto {r} to click it, then this failed, so no click was sent: {e}"
            )),
            other => other,
        })
    }

    async fn hit_test(
        &self,
        id: TabId,
        r: &str,
        walk_id: u64,
        idx: u32,
        (x, y): (f32, f32),
    ) -> Result<(f32, f32), StepFail> {
        let reply = call(
            self.backend()
                .element(id, walk_id, idx, ElementOp::HitTest { x, y }),
            CALL_TIMEOUT,
        )
        .await
        .map_err(before_send)?;
        match (reply.clear_at, reply.cover) {
            (Some(p), _) => Ok(p),
            (None, None) => Ok((x, y)),
            (None, Some(cover)) => Err(StepFail::Covered {
                r: r.to_string(),
                cover,
            }),
        }
    }

    /// Focuses `r`'s element and checks focus stayed there (a focus handler can move it: a
    /// popup, a re-render), so keys are never sent while it is elsewhere.
    pub(crate) async fn focus(&self, id: TabId, st: &mut TabState, r: &str) -> Result<(u64, u32), StepFail> {
        let (walk_id, rec) = resolve(st, r).map_err(StepFail::Refused)?;
        st.session.touch(r);
        let be = self.backend();
        call(be.element(id, walk_id, rec.idx, ElementOp::Focus), CALL_TIMEOUT)
            .await
            .map_err(before_send)?;
        let check = call(
            be.element(id, walk_id, rec.idx, ElementOp::FocusCheck),
            CALL_TIMEOUT,
        )
        .await
        .map_err(before_send)?;
        if let Some(went) = check.focus {
            return Err(StepFail::Focus(BackendError::FocusMoved {
                typed: 0,
                total: 0,
                went,
            }));
        }
        Ok((walk_id, rec.idx))
    }

    /// Runs one step on tab `id`. `Ok` carries a short harness summary. `budget` is what is
    /// left of the batch's time, which bounds a `wait`; `after` is when the batch's previous
    /// step started (a network-idle wait counts quiet from then at the earliest).
    async fn step(
        &self,
        id: TabId,
        st: &mut TabState,
        s: &Step,
        budget: Duration,
        after: Option<Instant>,
    ) -> Result<String, StepFail> {
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
                let (button, how) = match s.button.unwrap_or_default() {
                    ButtonArg::Left => (MouseButton::Left, ""),
                    ButtonArg::Middle => (MouseButton::Middle, "middle-"),
                    ButtonArg::Right => (MouseButton::Right, "right-"),
                };
                let times = match count {
                    1 => "",
                    2 => "double-",
                    _ => "triple-",
                };
                // A player with the browser's own controls (`audio`, `video`): its play button
                // is drawn inside Chromium's closed controls, which take a click without the
                // page seeing one, at a place that depends on its size (the middle of an audio
                // bar seeks). A person presses play; the same press is Space on the player.
                if s.x.is_none() && button == MouseButton::Left && count == 1 {
                    let (_, rec) = resolve(st, &r).map_err(StepFail::Refused)?;
                    if matches!(rec.role.as_deref(), Some("audio" | "video"))
                        && rec.tag == rec.role.as_deref().unwrap_or("")
                    {
                        self.focus(id, st, &r).await?;
                        let d = call(be.key_repeat(id, "Space", 1), CALL_TIMEOUT)
                            .await
                            .map_err(after_send)?;
                        return delivered(
                            d,
                            "key press",
                            &r,
                            format!("clicked {r}'s play/pause (Space on the player)"),
                        );
                    }
                }
                let ((x, y), at) = self.aim_or_point(id, st, &r, (s.x, s.y), true, " at").await?;
                let d = call(be.click_at(id, x, y, button, count), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                delivered(d, "click", &r, format!("{how}{times}clicked {r}{at}"))
            }
            ActAction::Dialog => {
                let Some(accept) = s.accept else {
                    return Err(StepFail::Refused(
                        "dialog needs `accept` (true for OK/Leave, false for Cancel/Stay)".into(),
                    ));
                };
                let login = match (s.username.clone(), s.password.clone()) {
                    (Some(u), Some(p)) => Some((u, p)),
                    (None, None) => None,
                    _ => {
                        return Err(StepFail::Refused(
                            "a sign-in needs both `username` and `password`".into(),
                        ));
                    }
                };
                let signing_in = login.is_some();
                let kind = call(be.answer_dialog(id, accept, s.text.clone(), login), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                Ok(if kind == "sign-in" {
                    if accept && signing_in {
                        "signed in: the username and password were sent (the server may ask again if it refuses them)".to_string()
                    } else {
                        "cancelled the sign-in: the server's refusal page loads".to_string()
                    }
                } else {
                    format!(
                        "answered the {kind} dialog with {}",
                        if accept { "OK" } else { "Cancel" }
                    )
                })
            }
            ActAction::Hover => {
                let r = need_ref()?;
                // A point of it, as a click's: a page that answers where the pointer is inside
                // one element (a hot/cold game, a chart's tooltip, a map) needs more than its
                // middle, and a click there would end what the hover explores.
                let ((x, y), at) = self.aim_or_point(id, st, &r, (s.x, s.y), false, " at").await?;
                let d = call(be.move_to(id, x, y), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                delivered(d, "mouse move", &r, format!("hovering {r}{at}"))
            }
            ActAction::Drag => {
                let r = need_ref()?;
                // Where the release goes, how the answer names that place, and what it says
                // when the page took an HTML drop there.
                let (from, at, place, dropped) = match s.to.as_deref().map(str::trim) {
                    Some(to) => {
                        // The drop target into view first, then the source (aimed and
                        // hit-tested like a click's target); the target's box is read after
                        // that without scrolling again. Only the source is hit-tested: what is
                        // under the drop point is the target's business (a drop zone's label
                        // or child is fine); it must only be on screen.
                        let (walk_id, rec) = resolve(st, to).map_err(StepFail::Refused)?;
                        self.locate(id, st, to).await?;
                        let (from, start) = self.aim_or_point(id, st, &r, (s.x, s.y), false, " from").await?;
                        let b = self.box_now(id, to, walk_id, rec.idx).await?;
                        let at = past_middle(point_in(&b, st, to)?, from, &b, &st.viewport);
                        (
                            from,
                            at,
                            format!("{start} to {to}").trim_start().to_string(),
                            format!("dragged {r}{start} and dropped it on {to} (the page took the drop)"),
                        )
                    }
                    None => {
                        // By an offset: a slider's handle, a resize grip, a shape "to the
                        // right", where there is nothing to drop on.
                        let (dx, dy) = match (s.dx, s.dy) {
                            (None, None) => {
                                return Err(StepFail::Refused(
                                    "drag needs `to` (the ref to drop on) or `dx`/`dy` (CSS pixels to move it by)"
                                        .into(),
                                ));
                            }
                            (dx, dy) => (dx.unwrap_or(0.0), dy.unwrap_or(0.0)),
                        };
                        let (from, start) = self.aim_or_point(id, st, &r, (s.x, s.y), false, " from").await?;
                        let at = ((from.0 + dx).round(), (from.1 + dy).round());
                        let vp = &st.viewport;
                        if at.0 < 0.0
                            || at.1 < 0.0
                            || (vp.w > 0.0 && at.0 >= vp.w)
                            || (vp.h > 0.0 && at.1 >= vp.h)
                        {
                            return Err(StepFail::Refused(format!(
                                "dragging {r} by ({dx}, {dy}) would end at ({}, {}), outside the view ({} × {}); drag by less, or scroll first",
                                at.0, at.1, vp.w, vp.h
                            )));
                        }
                        let place = format!("{start} by ({dx}, {dy})").trim_start().to_string();
                        let dropped = format!("dragged {r} {place} and the page took the drop there");
                        (from, at, place, dropped)
                    }
                };
                // Where the element was, to say where the drag left it: a snapshot has no
                // positions, so a shape dragged across a drawing answered "no change".
                let (walk_id, rec) = resolve(st, &r).map_err(StepFail::Refused)?;
                let before = self.box_now(id, &r, walk_id, rec.idx).await.ok();
                let (d, end) = call(be.drag(id, from, at), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                let mut how = match end {
                    DragEnd::Mouse => format!("dragged {r} {place} (mouse down, moves, mouse up)"),
                    DragEnd::Dropped => dropped,
                    DragEnd::Refused => format!(
                        "dragged {r} {place}, but nothing there accepted the drop (the page's drag was cancelled)"
                    ),
                };
                if let Some(b) = before {
                    tokio::time::sleep(DRAG_SETTLE).await;
                    if let Ok(a) = self.box_now(id, &r, walk_id, rec.idx).await {
                        how.push_str(&dragged_to(&r, &b, &a));
                    }
                }
                delivered(d, "drag", &r, how)
            }
            ActAction::Type => {
                let Some(text) = &s.text else {
                    return Err(StepFail::Refused("type needs `text`".into()));
                };
                // A date, time, color or range input is set as its picker sets it: its
                // characters typed would go to the picker's segments.
                if let Some(r) = &s.target
                    && let Ok((walk_id, rec)) = resolve(st, r)
                    && super::fill_form::picked(&rec)
                {
                    let r = r.trim().to_string();
                    st.session.touch(&r);
                    let value = super::fill_form::picker_value(&rec, text);
                    let reply = call(
                        be.element(id, walk_id, rec.idx, ElementOp::SetValue(value.clone())),
                        CALL_TIMEOUT,
                    )
                    .await
                    .map_err(after_send)?;
                    let done = match super::fill_form::set_to(text, &value, reply.value.as_deref()).as_str() {
                        "filled" => format!("set {r} to the value given (as its picker would)"),
                        moved => format!("{r} {moved}"),
                    };
                    if !s.submit {
                        return Ok(done);
                    }
                    let pressed = async {
                        self.focus(id, st, &r).await?;
                        let d = call(be.key(id, "Enter"), CALL_TIMEOUT)
                            .await
                            .map_err(after_send)?;
                        delivered(d, "key press", &r, format!("{done} and pressed Enter"))
                    };
                    return pressed.await.map_err(|e| enter_not_pressed(&done, e));
                }
                let into = match &s.target {
                    Some(r) => {
                        self.focus(id, st, r).await?;
                        r.trim().to_string()
                    }
                    None => "the focused element".into(),
                };
                let d = call(be.type_text(id, text), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                if s.submit {
                    call(be.key(id, "Enter"), CALL_TIMEOUT)
                        .await
                        .map_err(|e| enter_not_pressed("the text was typed", after_send(e)))?;
                }
                delivered(
                    d,
                    "typing",
                    &into,
                    format!(
                        "typed {} characters into {into}{}",
                        text.chars().count(),
                        if s.submit { " and pressed Enter" } else { "" }
                    ),
                )
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
            ActAction::SelectText => {
                let text = s.text.clone().filter(|t| !t.trim().is_empty());
                let (r, walk_id, idx, page) = match s.target.as_deref().map(str::trim) {
                    Some(r) => {
                        let (walk_id, rec) = resolve(st, r).map_err(StepFail::Refused)?;
                        st.session.touch(r);
                        (Some(r.to_string()), walk_id, rec.idx, false)
                    }
                    None => {
                        if text.is_none() {
                            return Err(StepFail::Refused(
                                "select_text needs `text` (the words to select), `ref` (the element whose text to select), or both"
                                    .into(),
                            ));
                        }
                        let Some(walk_id) = st.walk_id else {
                            return Err(StepFail::Refused(
                                "this tab has not been observed yet; call browser_snapshot first".into(),
                            ));
                        };
                        // The walker finds the page's document through any element of it.
                        let Some(idx) = st.session.page_anchor().map(|rec| rec.idx) else {
                            return Err(StepFail::Refused(
                                "the page showed nothing when it was last observed; observe it again".into(),
                            ));
                        };
                        (None, walk_id, idx, true)
                    }
                };
                // The answer says where, not how much: a count would measure what reads
                // redact (a password's length). It echoes the agent's own words (never the
                // page's), so "selected the text in e5" is not read as all of e5's text.
                let what = match &text {
                    Some(t) if t.chars().count() > 60 => {
                        format!("{:?}", format!("{}…", t.chars().take(60).collect::<String>()))
                    }
                    Some(t) => format!("{t:?}"),
                    None => "all the text".to_string(),
                };
                call(
                    be.element(id, walk_id, idx, ElementOp::SelectText { text, page }),
                    CALL_TIMEOUT,
                )
                .await
                .map_err(after_send)?;
                Ok(match r {
                    Some(r) => format!("selected {what} in {r}"),
                    None => format!("selected {what} on the page"),
                })
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
                let times = s.count.unwrap_or(1);
                if !(1..=MAX_PRESSES).contains(&times) {
                    return Err(StepFail::Refused(format!(
                        "`count` for `key` must be 1 to {MAX_PRESSES}"
                    )));
                }
                let d = call(be.key_repeat(id, key, times.into()), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                let done = match (times, d.presses_sent) {
                    (n, Some(sent)) => format!(
                        "pressed {key:?} {sent} of {n} times: a new page loaded meanwhile (the \
                         last presses may have reached it), so the rest were not sent"
                    ),
                    (1, None) => format!("pressed {key:?}"),
                    (n, None) => format!("pressed {key:?} {n} times"),
                };
                delivered(d, "key press", "the focused element", done)
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
                // scroller (as observed: scrolling it into view first would be a scroll of its
                // own), else the middle of the viewport.
                // `probe`: an element whose op replies say how far the page (and, aimed at a
                // ref, that element's content) is scrolled, read before and after, so the
                // answer says what moved rather than what was asked.
                let (x, y, at, probe) = match &s.target {
                    Some(r) => {
                        let r = r.trim();
                        let (walk_id, rec) = resolve(st, r).map_err(StepFail::Refused)?;
                        st.session.touch(r);
                        let p = point_in(&rec.bounds, st, r)?;
                        let (x, y) = self.hit_test(id, r, walk_id, rec.idx, p).await?;
                        (x, y, format!(" at {r}"), Some((walk_id, rec.idx)))
                    }
                    None => {
                        let (x, y) = ((st.viewport.w / 2.0).max(1.0), (st.viewport.h / 2.0).max(1.0));
                        // What is under the wheel, as last observed: it moves when whatever
                        // scrolls there (the page, or an app's own scrolling pane) does.
                        // A frame there scrolls in its own document, which no element of this
                        // one shows: the answer then says what was asked.
                        let under = st
                            .session
                            .innermost_at(x, y)
                            .filter(|rec| rec.tag != "iframe")
                            .map(|rec| rec.idx);
                        (x, y, String::new(), st.walk_id.zip(under))
                    }
                };
                let scrolled = |probe: Option<(u64, u32)>| async move {
                    let (w, i) = probe?;
                    let r = call(be.element(id, w, i, ElementOp::Bounds), CALL_TIMEOUT)
                        .await
                        .ok()?;
                    let b = r.bounds?;
                    Some((r.page_scroll?, r.own_scroll, (b.x, b.y)))
                };
                let before = scrolled(probe).await;
                let d = call(be.scroll(id, x, y, dx, dy), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                // A wheel scroll is animated: read until it has stopped (three equal readings
                // 50 ms apart), for at most SCROLL_SETTLE.
                let mut after = None;
                if before.is_some() {
                    let t0 = Instant::now();
                    let mut same = 0;
                    while t0.elapsed() < SCROLL_SETTLE && same < 3 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        let now = scrolled(probe).await;
                        same = if now.is_some() && now == after {
                            same + 1
                        } else {
                            0
                        };
                        after = now;
                    }
                }
                let done = match (before, after, s.target.as_deref()) {
                    (Some(b), Some(a), target) => moved_words(b, a, target.map(str::trim)),
                    _ => format!("scrolled by ({dx}, {dy}){at}"),
                };
                match s.target.as_deref() {
                    Some(r) => delivered(d, "scroll", r.trim(), done),
                    // Not aimed at anything: where the wheel went is where it was meant to.
                    None => delivered(Delivery { elsewhere: None, ..d }, "scroll", "", done),
                }
            }
            ActAction::Wait => self.wait(id, st, s, budget, after).await,
            ActAction::Goto
            | ActAction::Back
            | ActAction::Forward
            | ActAction::Reload
            | ActAction::TabOpen
            | ActAction::TabSelect
            | ActAction::TabClose => unreachable!("handled by the batch"),
        }
    }
}

/// The longest a scroll's answer waits for the scrolling to stop.
const SCROLL_SETTLE: Duration = Duration::from_millis(1500);
/// How long a click waits for a target that the pointer's arrival hid or covered to come
/// back (a hover icon loading): unmeasured, a few frames and an image from cache or disk.
const HOVER_SETTLE: Duration = Duration::from_millis(400);

/// How far the page is scrolled, how far the probed element's own content is, and where its
/// box is in the viewport.
type ScrollAt = ((f32, f32), Option<(f32, f32)>, (f32, f32));

/// What a scroll moved, from the probe's readings before and after: the page, the content of
/// `target` (the ref aimed at), or the area holding the probe (an inner scrolling pane, seen
/// as the probe's box moving the other way); else nothing moved.
fn moved_words(before: ScrollAt, after: ScrollAt, target: Option<&str>) -> String {
    let delta = |a: (f32, f32), b: (f32, f32)| ((b.0 - a.0).round(), (b.1 - a.1).round());
    let still = (0.0, 0.0);
    let page = delta(before.0, after.0);
    if page != still {
        return format!(
            "scrolled the page by ({}, {}), to ({}, {})",
            page.0,
            page.1,
            after.0.0.round(),
            after.0.1.round()
        );
    }
    let own = before.1.zip(after.1).map(|(a, b)| delta(a, b)).unwrap_or(still);
    if let Some(r) = target
        && own != still
    {
        return format!("scrolled {r}'s content by ({}, {})", own.0, own.1);
    }
    let (bx, by) = delta(before.2, after.2);
    if (bx, by) != still {
        let (mx, my) = (-bx + 0.0, -by + 0.0);
        return match target {
            Some(r) => format!("scrolled the area holding {r} by ({mx}, {my})"),
            None => format!("scrolled the area under the pointer by ({mx}, {my})"),
        };
    }
    match target {
        Some(r) => format!("nothing moved: what is at {r} scrolls no further that way"),
        None => {
            "nothing moved: the page (and what is under the pointer) scrolls no further that way".to_string()
        }
    }
}

/// What a `wait` step waits for.
enum Until<'a> {
    Text(String),
    Ref(&'a str),
    Url(&'a str),
    Idle(Duration),
    Delay,
}

/// Collapses runs of whitespace, so text waited for matches however the page wraps it.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `url` matches `pattern`: with `*` wildcards the whole URL must match (each `*` any
/// run of characters), else the URL must contain it.
pub(crate) fn url_matches(url: &str, pattern: &str) -> bool {
    if !pattern.contains('*') {
        return url.contains(pattern);
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !url.starts_with(first) || url.len() < first.len() + last.len() || !url.ends_with(last) {
        return false;
    }
    let mut rest = &url[first.len()..url.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

impl Aperture {
    async fn wait(
        &self,
        id: TabId,
        st: &mut TabState,
        s: &Step,
        budget: Duration,
        after: Option<Instant>,
    ) -> Result<String, StepFail> {
        let mut conds = Vec::new();
        if let Some(t) = s.text.as_deref() {
            let t = squash(t);
            if t.is_empty() {
                return Err(StepFail::Refused("wait: `text` is empty".into()));
            }
            conds.push(Until::Text(t));
        }
        if let Some(r) = s.target.as_deref() {
            conds.push(Until::Ref(r.trim()));
        }
        if let Some(u) = s.url.as_deref() {
            conds.push(Until::Url(u));
        }
        if let Some(ms) = s.idle {
            conds.push(Until::Idle(Duration::from_millis(ms)));
        }
        if conds.len() > 1 {
            return Err(StepFail::Refused(
                "wait takes one condition: `text`, `ref`, `url` or `idle`".into(),
            ));
        }
        let until = conds.pop().unwrap_or(Until::Delay);
        let asked = s.ms.map(Duration::from_millis);
        if matches!(until, Until::Delay) && asked.is_none() {
            return Err(StepFail::Refused(
                "wait needs a condition (`text`, `ref`, `url`, `idle`) or `ms`".into(),
            ));
        }
        let limit = asked.unwrap_or(WAIT_MAX).min(WAIT_MAX).min(budget);
        let start = Instant::now();
        let secs = |d: Duration| format!("{:.1} s", d.as_secs_f32());
        let cut = |limit: Duration| {
            if limit < asked.unwrap_or(WAIT_MAX).min(WAIT_MAX) {
                " (cut short: the batch's 20 s were running out)"
            } else {
                ""
            }
        };
        if let Until::Delay = until {
            tokio::time::sleep(limit).await;
            return Ok(format!("waited {}{}", secs(start.elapsed()), cut(limit)));
        }
        let be = self.backend();
        // Requests in flight at the last look (network-idle waits).
        let mut open: Option<usize> = None;
        loop {
            let (met, said) = match &until {
                Until::Text(t) => {
                    let page = call(be.page_text(id, 1_000_000), CALL_TIMEOUT)
                        .await
                        .map_err(before_send)?;
                    let there = squash(&page.text).contains(t.as_str());
                    (
                        there != s.gone,
                        if s.gone {
                            "the text is gone"
                        } else {
                            "the text is on the page"
                        },
                    )
                }
                Until::Ref(r) => {
                    let visible = self.ref_visible(id, st, r).await?;
                    (
                        visible != s.gone,
                        if s.gone { "it is gone" } else { "it is visible" },
                    )
                }
                Until::Url(u) => {
                    let tabs = call(be.tabs(), CALL_TIMEOUT).await.map_err(before_send)?;
                    let url = tabs
                        .iter()
                        .find(|t| t.id == id)
                        .map(|t| t.url.clone())
                        .ok_or(StepFail::Failed(BackendError::NoSuchTab(id)))?;
                    (url_matches(&url, u), "the URL matches")
                }
                Until::Idle(n) => {
                    let q = call(be.network_quiet(id), CALL_TIMEOUT)
                        .await
                        .map_err(before_send)?;
                    open = q.open;
                    // Quiet since the previous step started: what that step set off (a click's
                    // fetch on a timer) may not have begun when the wait first looks.
                    let quiet = after.map_or(q.quiet, |t| q.quiet.min(t.elapsed()));
                    // Where the browser cannot see requests in flight, one is only seen when it
                    // finishes, so the wait itself must last the period too.
                    (
                        q.loaded
                            && q.open.unwrap_or(0) == 0
                            && quiet >= *n
                            && (q.open.is_some() || start.elapsed() >= *n),
                        "the network is idle",
                    )
                }
                Until::Delay => unreachable!("returned above"),
            };
            if met {
                return Ok(format!("waited {}: {said}", secs(start.elapsed())));
            }
            let left = limit.saturating_sub(start.elapsed());
            if left.is_zero() {
                let not = match &until {
                    Until::Text(_) if s.gone => "the text is still on the page",
                    Until::Text(_) => "the text has not appeared",
                    Until::Ref(_) if s.gone => "it is still there",
                    Until::Ref(_) => "it is not visible",
                    Until::Url(_) => "the URL does not match",
                    Until::Idle(_) => "the network has not been idle that long",
                    Until::Delay => unreachable!("returned above"),
                };
                let still = match open {
                    Some(1) => " (1 request still in flight)".to_string(),
                    Some(k) if k > 1 => format!(" ({k} requests still in flight)"),
                    _ => String::new(),
                };
                return Err(StepFail::Unmet(format!(
                    "gave up after {}{}: {not}{still}",
                    secs(start.elapsed()),
                    cut(limit)
                )));
            }
            let poll = match until {
                Until::Url(_) | Until::Idle(_) => Duration::from_millis(100),
                _ => Duration::from_millis(250),
            };
            tokio::time::sleep(poll.min(left)).await;
        }
    }

    /// Whether `r`'s element is on the page with a box. When its node has left the page, the
    /// page is observed again: a re-render may have kept the logical element (the ref lives
    /// on) or removed it (the ref is gone). That observation joins the agent's state, so it
    /// is answered like any other (the batch's trail).
    async fn ref_visible(&self, id: TabId, st: &mut TabState, r: &str) -> Result<bool, StepFail> {
        for _ in 0..2 {
            let Ok((walk_id, rec)) = resolve(st, r) else {
                return Ok(false);
            };
            match call(
                self.backend().element(id, walk_id, rec.idx, ElementOp::Bounds),
                CALL_TIMEOUT,
            )
            .await
            {
                Ok(reply) => return Ok(reply.bounds.is_some_and(|b| b.w > 0.0 && b.h > 0.0)),
                Err(BackendError::StaleWalk { .. } | BackendError::ElementRefused(_)) => {
                    let obs = self.observe(id, st, false, false).await.map_err(before_send)?;
                    st.pending.push(obs);
                }
                Err(e) => return Err(before_send(e)),
            }
        }
        Ok(resolve(st, r).is_ok())
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

/// The tab a batch is acting on: its id, its state (locked for the batch's time on it), and
/// the observations made of it so far.
struct Held {
    id: TabId,
    st: TabGuard,
    trail: Vec<Observation>,
}

impl Aperture {
    async fn hold(&self, id: TabId) -> Held {
        // One batch at a time per tab: steps planned against one observation must not
        // interleave with another caller's.
        let mut st = self.tab_state(id).lock_owned().await;
        let mut trail = Vec::new();
        self.catch_up(id, &mut st, &mut trail).await;
        Held { id, st, trail }
    }

    async fn act(&self, args: ActArgs) -> Reply {
        let tab = args.tab;
        let steps = match args.into_steps() {
            Ok(s) => s,
            Err(why) => return Reply::error(why),
        };
        // A generated password is the vault's to make, save and type (it holds the tab for
        // that), exactly as `vault_request_fill generate_password` does.
        if steps.iter().any(|s| s.generate_password) {
            return match steps.as_slice() {
                [s] if s.action == ActAction::Type && s.text.is_none() => {
                    self.vault_generate(super::vault_fill::VaultFillArgs {
                        tab,
                        entry: None,
                        username: None,
                        password: s.target.clone(),
                        one_time_code: None,
                        generate_password: Some(true),
                        confirm_password: None,
                        attachment: None,
                        file_input: None,
                    })
                    .await
                }
                _ => Reply::error(
                    "`generate_password` goes with a single `type` action on a password field's                      `ref`, without `text`; nothing was generated or typed",
                ),
            };
        }
        let started = Instant::now();
        // A batch that opens its tab first needs none to start with.
        let mut held =
            if steps[0].action == ActAction::TabOpen || (steps.len() == 1 && steps[0].action.is_tab_step()) {
                None
            } else {
                match self.target(tab).await {
                    Ok(id) => Some(self.hold(id).await),
                    Err(r) => return r,
                }
            };
        let tab_steps = steps.iter().any(|s| s.action.is_tab_step());
        // The tabs there were before, so a tab the page opens in answer (a link with
        // target=_blank, window.open) can be named: the agent only reads this answer, and
        // would otherwise go on looking at the old tab. Batches with tab steps say what they
        // opened themselves.
        let tabs_before = match &held {
            Some(_) if !tab_steps => call(self.backend().tabs(), CALL_TIMEOUT)
                .await
                .ok()
                .map(|t| t.into_iter().map(|t| t.id).collect::<Vec<_>>()),
            _ => None,
        };
        // Navigations the policy refuses while the batch runs (a link clicked, a form sent, a
        // script's redirect) change nothing on the page: without a word the agent would take
        // its click for a dud.
        let refused_before = match &held {
            Some(h) => call(self.backend().refused_navigations(h.id), CALL_TIMEOUT)
                .await
                .ok()
                .map(|(n, _)| (h.id, n)),
            None => None,
        };
        // What the browser decided for the page meanwhile (a file chooser a click opened,
        // cancelled headless or handed to the human; a permission prompt blocked): the page
        // shows none of it, so the agent would otherwise wait for a chooser that is gone.
        let notes_before = match &held {
            Some(h) => call(self.backend().browser_notes(h.id), CALL_TIMEOUT)
                .await
                .ok()
                .map(|(n, _)| (h.id, n)),
            None => None,
        };
        let total = steps.len();
        let mut r = Reply::new();
        let mut failed = false;
        let mut prev: Option<Instant> = None;
        for (i, s) in steps.iter().enumerate() {
            let after = prev.replace(Instant::now());
            let rest = match total - (i + 1) {
                0 => String::new(),
                1 => format!("; step {total} was not run"),
                _ => format!("; steps {}–{total} were not run", i + 2),
            };
            let elapsed = started.elapsed();
            if i > 0 && elapsed >= BATCH_LIMIT {
                let not_run = if i + 1 == total {
                    format!("step {total} was not run")
                } else {
                    format!("steps {}–{total} were not run", i + 1)
                };
                r = r.say(format!(
                    "stopped before step {}: the batch had run {:.1} s and no step starts after {} s; \
                     {not_run}",
                    i + 1,
                    elapsed.as_secs_f32(),
                    BATCH_LIMIT.as_secs(),
                ));
                failed = true;
                break;
            }
            // A click whose press landed did something: "failed" would invite a repeat.
            let head = |r: Reply, partly: bool| {
                let how = if partly { "only partly landed" } else { "failed" };
                if total > 1 {
                    r.say(format!("{}. {} {how}{rest}:", i + 1, s.action.verb()))
                } else {
                    r.say(format!("{} {how}:", s.action.verb()))
                }
            };
            let done = |r: Reply, what: String| {
                if total > 1 {
                    r.say(format!("{}. {what}", i + 1))
                } else {
                    r.say(what)
                }
            };
            let (next, res) = if s.action.is_tab_step() {
                self.tab_step(&mut held, s, tab, r).await
            } else if let Some(h) = held.as_mut() {
                let res = if matches!(
                    s.action,
                    ActAction::Goto | ActAction::Back | ActAction::Forward | ActAction::Reload
                ) {
                    self.nav_step(h, s).await
                } else {
                    let budget = BATCH_LIMIT.saturating_sub(started.elapsed());
                    let res = self
                        .step(
                            h.id,
                            &mut h.st,
                            s,
                            if total > 1 { budget } else { WAIT_MAX },
                            after,
                        )
                        .await;
                    // Observations a wait made join the trail, in order.
                    for o in std::mem::take(&mut h.st.pending) {
                        push_obs(&mut h.trail, o);
                    }
                    res.map(|what| (what, None))
                };
                (r, res)
            } else {
                (
                    r,
                    Err(StepFail::Refused(
                        "there is no tab to act on (the batch closed it); use tab_select or tab_open".into(),
                    )),
                )
            };
            r = next;
            match res {
                Ok((what, page)) => {
                    r = done(r, what);
                    if let Some(p) = page {
                        r = r.page(&p);
                    }
                }
                Err(f) => {
                    let partly = matches!(f, StepFail::ReleasedElsewhere { .. });
                    r = f.render(head(r, partly));
                    failed = true;
                    break;
                }
            }
            // Each step resolves its refs against the page as the previous step left it.
            // Navigation and tab steps observed already.
            if i + 1 < total
                && !s.action.is_tab_step()
                && !matches!(
                    s.action,
                    ActAction::Goto | ActAction::Back | ActAction::Forward | ActAction::Reload
                )
                && let Some(h) = held.as_mut()
                && let Err(e) = self.observe_between(h.id, &mut h.st, &mut h.trail).await
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
        if let Some(mut h) = held {
            // A batch without tab steps ends on the tab the agent named, or on its own current
            // tab: saying which again costs every answer a line and tells the agent nothing.
            let known = !tab_steps && (tab.map(TabId) == Some(h.id) || self.current() == Some(h.id));
            r = self
                .answer_with_trail_as(h.id, &mut h.st, r, h.trail, !known)
                .await;
            // A press that changed nothing while fields are marked invalid: most likely a
            // form the browser would not send (its bubble is no part of the page, and the
            // marks were reported when they appeared, so this answer would say nothing).
            let pressed = steps
                .last()
                .is_some_and(|s| matches!(s.action, ActAction::Click | ActAction::Key) || s.submit);
            if !failed && pressed && h.st.seq == h.st.batch_from {
                r = say_invalid(r, &h.st.session);
            }
        }
        // After the page was observed, which waits for its reaction to end: a script's
        // redirect (`location.href = …` in a click handler) is refused a moment after the
        // click was counted, where a link's navigation already was.
        if let Some((id, before)) = refused_before {
            r = self.say_refused(r, id, before).await;
        }
        if let Some((id, before)) = notes_before {
            r = self.say_notes(r, id, before).await;
        }
        if let Some(before) = tabs_before {
            r = self.say_new_tabs(r, &before).await;
        }
        if failed { r.mark_error() } else { r }
    }

    /// Says which navigations of tab `id` the policy refused after its count was `before`.
    async fn say_refused(&self, mut r: Reply, id: TabId, before: u64) -> Reply {
        let Ok((now, rules)) = call(self.backend().refused_navigations(id), CALL_TIMEOUT).await else {
            return r;
        };
        let (shown, more) = since(before, now, &rules);
        for rule in shown {
            r = r.say(format!("the page stayed where it was: {rule}"));
        }
        if more > 0 {
            r = r.say(format!("({more} more refused)"));
        }
        r
    }

    /// Says what the browser decided on tab `id`'s behalf after its count was `before`.
    async fn say_notes(&self, mut r: Reply, id: TabId, before: u64) -> Reply {
        let Ok((now, notes)) = call(self.backend().browser_notes(id), CALL_TIMEOUT).await else {
            return r;
        };
        let (shown, more) = since(before, now, &notes);
        if shown.is_empty() {
            return r;
        }
        r = r.say("meanwhile the browser answered the page itself:");
        let mut body = String::new();
        for n in shown {
            body.push_str(&clean(n, 300));
            body.push('\n');
        }
        r = r.page(&body);
        if more > 0 {
            r = r.say(format!("({more} more; browser_console lists them)"));
        }
        r
    }

    /// Names the tabs that appeared while a batch ran (opened by the page, e.g. a
    /// target=_blank link), which are not the agent's current tab.
    async fn say_new_tabs(&self, mut r: Reply, before: &[TabId]) -> Reply {
        let Ok(now) = call(self.backend().tabs(), CALL_TIMEOUT).await else {
            return r;
        };
        for t in now.iter().filter(|t| !before.contains(&t.id)) {
            let how = format!(
                "not your current tab; browser_tabs action=select tab={} to act in it",
                t.id
            );
            // A tab created a moment ago has no committed address yet.
            r = if t.url.is_empty() {
                r.say(format!(
                    "a new tab opened meanwhile: tab {} (still loading; {how})",
                    t.id
                ))
            } else {
                r.say(format!("a new tab opened meanwhile: tab {} ({how}), at:", t.id))
                    .page(&format!("{}\n", clean(&t.url, usize::MAX)))
            };
        }
        r
    }

    /// A navigation step: answered with where it loaded and a FULL SNAPSHOT of the new page.
    async fn nav_step(&self, h: &mut Held, s: &Step) -> Result<(String, Option<String>), StepFail> {
        let nav = match s.action {
            ActAction::Goto => {
                let Some(u) = s.url.clone() else {
                    return Err(StepFail::Refused("goto needs `url`".into()));
                };
                super::navigate::url_allowed(&u).map_err(StepFail::Refused)?;
                Nav::Goto(u)
            }
            ActAction::Back => Nav::Back,
            ActAction::Forward => Nav::Forward,
            _ => Nav::Reload,
        };
        let outcome = call(self.backend().navigate(h.id, nav), NAV_TIMEOUT)
            .await
            .map_err(StepFail::Nav)?;
        let obs = self
            .observe(h.id, &mut h.st, true, true)
            .await
            .map_err(StepFail::Nav)?;
        push_obs(&mut h.trail, obs);
        let status = outcome
            .status
            .map(|s| format!("HTTP {s}"))
            .unwrap_or_else(|| "no HTTP status".into());
        Ok((format!("loaded ({status}); now at:"), Some(outcome.url)))
    }

    /// A tab step: opens, selects or closes a tab, and moves the batch to the tab it leaves
    /// current, observing it. The tab left behind keeps the observations made of it.
    async fn tab_step(
        &self,
        held: &mut Option<Held>,
        s: &Step,
        top_tab: Option<u64>,
        r: Reply,
    ) -> (Reply, Result<(String, Option<String>), StepFail>) {
        let mut r = r;
        let res = self.tab_step_inner(held, s, top_tab, &mut r).await;
        (r, res.map(|what| (what, None)))
    }

    async fn tab_step_inner(
        &self,
        held: &mut Option<Held>,
        s: &Step,
        top_tab: Option<u64>,
        r: &mut Reply,
    ) -> Result<String, StepFail> {
        let be = self.backend();
        match s.action {
            ActAction::TabOpen => {
                if let Some(u) = &s.url {
                    super::navigate::url_allowed(u).map_err(StepFail::Refused)?;
                }
                let id = call(be.open_tab(s.url.clone(), None), NAV_TIMEOUT)
                    .await
                    .map_err(StepFail::Failed)?;
                self.set_current(id);
                self.leave(held.take(), r, id);
                let mut h = self.hold(id).await;
                let first = if s.url.is_some() {
                    self.settle_and_observe(id, &mut h.st, false).await.map(Some)
                } else {
                    Ok(None)
                };
                if let Ok(Some(obs)) = &first {
                    push_obs(&mut h.trail, obs.clone());
                }
                *held = Some(h);
                first.map_err(StepFail::Failed)?;
                Ok(format!("opened tab {id} (yours; now your current tab)"))
            }
            ActAction::TabSelect => {
                let t = s
                    .tab
                    .or(top_tab)
                    .ok_or_else(|| StepFail::Refused("tab_select needs `tab`".into()))?;
                let id = TabId(t);
                call(be.select_tab(id), CALL_TIMEOUT)
                    .await
                    .map_err(StepFail::Failed)?;
                self.set_current(id);
                if held.as_ref().is_none_or(|h| h.id != id) {
                    self.leave(held.take(), r, id);
                    *held = Some(self.hold(id).await);
                }
                let h = held.as_mut().expect("held just now");
                let obs = self
                    .observe(id, &mut h.st, false, false)
                    .await
                    .map_err(StepFail::Failed)?;
                push_obs(&mut h.trail, obs);
                Ok(format!("tab {id} is now your current tab"))
            }
            _ => {
                let t = s
                    .tab
                    .or(top_tab)
                    .ok_or_else(|| StepFail::Refused("tab_close needs `tab`".into()))?;
                let id = TabId(t);
                let tabs = call(be.tabs(), CALL_TIMEOUT).await.map_err(StepFail::Failed)?;
                let info = tabs
                    .iter()
                    .find(|x| x.id == id)
                    .ok_or(StepFail::Failed(BackendError::NoSuchTab(id)))?;
                // The human's tabs are theirs: checked here as well as in the backend.
                if !info.opened_by_agent {
                    return Err(StepFail::Refused(format!(
                        "tab {id} was opened by the human; you may act in it but not close it"
                    )));
                }
                // Wait for any action in flight on it before pulling it away.
                let closing = match held.take() {
                    Some(h) if h.id == id => h,
                    other => {
                        *held = other;
                        self.hold(id).await
                    }
                };
                let res = call(be.close_tab(id), CALL_TIMEOUT).await;
                drop(closing);
                res.map_err(StepFail::Failed)?;
                self.forget_tab(id);
                Ok(format!("closed tab {id}"))
            }
        }
    }

    /// Hands the observations of the tab a batch leaves to the answer.
    fn leave(&self, h: Option<Held>, r: &mut Reply, to: TabId) {
        if let Some(h) = h
            && h.id != to
        {
            *r = with_trail(
                std::mem::take(r),
                h.id,
                &h.trail,
                &format!("before switching to tab {to}"),
            );
        }
    }
}

/// Names the fields marked invalid, by ref only: why is on their lines, which the agent holds.
fn say_invalid(r: Reply, session: &aperture_engine::TabSession) -> Reply {
    let refs: Vec<String> = session
        .live_refs()
        .into_iter()
        .filter(|(_, rec)| rec.state.invalid.is_some())
        .map(|(rf, _)| rf)
        .collect();
    match refs.as_slice() {
        [] => r,
        [one] => r.say(format!(
            "nothing changed; {one} is marked invalid, which keeps a form from being sent (why is on its line)"
        )),
        many => r.say(format!(
            "nothing changed; {} are marked invalid, which keeps a form from being sent (why is on their lines)",
            many.join(", ")
        )),
    }
}

/// What a tab's tally (count `now`, its `latest`) gained since its count was `before`: the
/// ones it still keeps, and how many more came that it no longer does.
fn since(before: u64, now: u64, latest: &[String]) -> (&[String], usize) {
    let new = now.saturating_sub(before) as usize;
    let shown = &latest[latest.len().saturating_sub(new)..];
    (shown, new - shown.len())
}

/// How long a drag's target is given to come to rest (a page that animates the drop) before
/// its box is read again.
const DRAG_SETTLE: Duration = Duration::from_millis(150);

/// Where a drag left `r`: how far its box moved (CSS px, right/left, down/up), and its new size
/// when that changed (a resize grip); that it stayed put otherwise. Engine numbers only.
fn dragged_to(r: &str, b: &Rect, a: &Rect) -> String {
    let (dx, dy) = ((a.x - b.x).round(), (a.y - b.y).round());
    let mut parts = Vec::new();
    if dx != 0.0 {
        parts.push(format!(
            "{} px {}",
            dx.abs(),
            if dx > 0.0 { "right" } else { "left" }
        ));
    }
    if dy != 0.0 {
        parts.push(format!(
            "{} px {}",
            dy.abs(),
            if dy > 0.0 { "down" } else { "up" }
        ));
    }
    let resized = (a.w - b.w).abs() >= 1.0 || (a.h - b.h).abs() >= 1.0;
    let mut s = if parts.is_empty() {
        if resized {
            String::new()
        } else {
            format!("; {r} is where it was")
        }
    } else {
        format!("; {r} is now {} of where it was", parts.join(" and "))
    };
    if resized {
        s.push_str(&format!(
            "{} {r} is now {:.0}x{:.0} (was {:.0}x{:.0})",
            if s.is_empty() { ";" } else { "," },
            a.w,
            a.h,
            b.w,
            b.h
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_since_a_count_is_what_it_still_keeps_and_how_many_more() {
        let latest: Vec<String> = ["a", "b", "c", "d"].map(String::from).into();
        assert_eq!(since(7, 7, &latest), (&[][..], 0));
        assert_eq!(since(5, 7, &latest), (&latest[2..], 0));
        assert_eq!(since(1, 7, &latest), (&latest[..], 2));
    }

    #[test]
    fn a_drag_says_where_it_left_the_element() {
        let r = |x: f32, y: f32, w: f32, h: f32| Rect { x, y, w, h };
        let b = r(10.0, 10.0, 20.0, 20.0);
        assert_eq!(dragged_to("e4", &b, &b), "; e4 is where it was");
        assert_eq!(
            dragged_to("e4", &b, &r(130.0, -30.0, 20.0, 20.0)),
            "; e4 is now 120 px right and 40 px up of where it was"
        );
        assert_eq!(
            dragged_to("e4", &b, &r(10.0, 10.0, 60.0, 20.0)),
            "; e4 is now 60x20 (was 20x20)"
        );
        assert_eq!(
            dragged_to("e4", &b, &r(5.0, 10.0, 60.0, 20.0)),
            "; e4 is now 5 px left of where it was, e4 is now 60x20 (was 20x20)"
        );
    }

    fn args(json: serde_json::Value) -> ActArgs {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn select_takes_one_value_or_a_list() {
        for v in [
            serde_json::json!({"action": "select", "ref": "e2", "values": ["Red", "Blue"]}),
            serde_json::json!({"action": "select", "ref": "e2", "value": ["Red", "Blue"]}),
        ] {
            let s = args(v).into_steps().unwrap();
            assert_eq!(
                s[0].values.as_deref(),
                Some(&["Red".to_string(), "Blue".to_string()][..])
            );
        }
        for v in [
            serde_json::json!({"action": "select", "ref": "e2", "values": "Red"}),
            serde_json::json!({"action": "select", "ref": "e2", "value": "Red"}),
        ] {
            let s = args(v).into_steps().unwrap();
            assert_eq!(s[0].values.as_deref(), Some(&["Red".to_string()][..]));
        }
        let none = args(serde_json::json!({"action": "click", "ref": "e2"}))
            .into_steps()
            .unwrap();
        assert_eq!(none[0].values, None);
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
            {"action": "key", "key": "Enter"},
            {"action": "wait", "text": "Saved", "ms": 5000},
            {"action": "goto", "url": "https://example.com/"},
            {"action": "tab_select", "tab": 3}
        ]}))
        .into_steps()
        .unwrap();
        assert_eq!(many.len(), 5);
        assert_eq!(many[4].tab, Some(3));
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
        // A single tab step names its tab at the top level; other actions never take it as
        // a step's tab.
        let sel = args(serde_json::json!({"action": "tab_close", "tab": 7}))
            .into_steps()
            .unwrap();
        assert_eq!(sel[0].tab, Some(7));
        let click = args(serde_json::json!({"action": "click", "ref": "e1", "tab": 7}))
            .into_steps()
            .unwrap();
        assert_eq!(click[0].tab, None);
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
        // Input the page never got is not an unknown outcome: it was voided.
        assert!(matches!(
            after_send(BackendError::NotDelivered(
                "the page received none of the click".into()
            )),
            StepFail::Undelivered(_)
        ));
        for typed in [0, 3] {
            assert!(matches!(
                after_send(BackendError::FocusMoved {
                    typed,
                    total: 5,
                    went: "body".into()
                }),
                StepFail::Focus(_)
            ));
        }
    }

    #[test]
    fn undelivered_input_says_nothing_happened() {
        let e = BackendError::NotDelivered(
            "the page received none of the click (sent twice), and what of it may still arrive is voided; \
             nothing happened"
                .into(),
        );
        let text = format!("{:?}", StepFail::Undelivered(e).render(Reply::new()));
        assert!(
            text.contains("not delivered") && text.contains("nothing happened"),
            "{text}"
        );
        assert!(!text.contains("clicked"), "{text}");
    }

    #[test]
    fn url_patterns() {
        let u = "https://shop.example/checkout/done?id=4";
        assert!(url_matches(u, "/checkout/done"));
        assert!(!url_matches(u, "/cart"));
        assert!(url_matches(u, "https://shop.example/*/done*"));
        assert!(url_matches(u, "*done?id=4"));
        assert!(!url_matches(u, "*/cart/*"));
        assert!(!url_matches(u, "https://other.example/*"));
        assert!(url_matches(u, "*"));
        // A wildcard pattern matches the whole URL, not a part of it.
        assert!(!url_matches(u, "shop.example/*"));
    }

    #[test]
    fn whitespace_does_not_matter_to_text_waits() {
        assert_eq!(squash("  Saved\n\t changes "), "Saved changes");
    }
}
