//! `browser_fill_form`: several fields in one call, under one lock, answered with one diff.

use aperture_engine::record::{NodeRecord, Tri};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::{StepFail, after_send, delivered};
use crate::backend::{ElementOp, MouseButton, TabId};
use crate::engine_glue::{STRING_CAP, clean};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, TabState, call, resolve};

const DESCRIPTION: &str = "Fill several form fields in one call. Each field is a `ref` and a \
`value`: text inputs and textareas are cleared and typed into; a <select> gets the option \
with that value or label; a checkbox or switch is set to `value` \"true\" or \"false\"; a \
radio button is chosen with \"true\". Fields are filled in order. A field refused before \
anything was sent (an option the select does not have, a ref that is gone, a covered \
checkbox) is reported and the rest are still filled; any other failure, such as keyboard \
focus leaving the field (a popup took it), stops the fill there. The answer names each \
field's label and ends with the diff. Does not submit.";

const MAX_FIELDS: usize = 50;

/// One field to fill.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// Element ref from the latest observation.
    #[serde(rename = "ref")]
    pub target: String,
    /// Text to enter, option to choose, or "true"/"false" for a checkbox.
    pub value: String,
}

/// Arguments of `browser_fill_form`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillFormArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
    /// Fields to fill, in order (1 to 50).
    pub fields: Vec<Field>,
}

#[tool_router(router = fill_form_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "browser_fill_form",
        description = DESCRIPTION,
        input_schema = super::schema::input::<FillFormArgs>(),
        annotations(
            title = "Fill form",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn browser_fill_form(
        &self,
        Parameters(args): Parameters<FillFormArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.fill_form(args).await.into_result())
    }
}

/// How a field is filled, decided from what the walker reported about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    /// Set through a picker or slider, not by typing: [`picked`].
    Picked,
    Select,
    Check,
    Radio,
}

fn kind(rec: &NodeRecord) -> Option<Kind> {
    let role = rec.role.as_deref().unwrap_or("");
    let ty = rec.input_type.as_deref().unwrap_or("").to_ascii_lowercase();
    if rec.tag == "select" {
        return Some(Kind::Select);
    }
    if ty == "checkbox" || matches!(role, "checkbox" | "switch") {
        return Some(Kind::Check);
    }
    if ty == "radio" || role == "radio" {
        return Some(Kind::Radio);
    }
    if picked(rec) {
        return Some(Kind::Picked);
    }
    rec.editable.then_some(Kind::Text)
}

/// An `<input>` a person sets through a picker or a slider (date, time, color, range…):
/// typing its value's characters would go to the picker's segments (a date typed as
/// `2026-12-25` lands as year 61225), so it is set as the picker sets it.
pub(crate) fn picked(rec: &NodeRecord) -> bool {
    rec.tag == "input"
        && matches!(
            rec.input_type
                .as_deref()
                .unwrap_or("")
                .to_ascii_lowercase()
                .as_str(),
            "date" | "time" | "datetime-local" | "month" | "week" | "color" | "range"
        )
}

/// The value to set a picked field to: what was given, or the same moment in the field's own
/// form when it was written as people write it and can mean only one thing (`4:04 PM` for a
/// time field is `16:04`; `Dec 25, 2026` or `2026/12/25` for a date is `2026-12-25`;
/// `December 2026` for a month is `2026-12`). A day-month order that could be read both ways
/// (`12/05/2026`) is left as given, and the field refuses it with its format named.
pub(crate) fn picker_value(rec: &NodeRecord, given: &str) -> String {
    let ty = rec.input_type.as_deref().unwrap_or("").to_ascii_lowercase();
    let v = given.trim();
    let out = match ty.as_str() {
        "time" => clock(v),
        "date" => calendar_day(v),
        "month" => calendar_month(v),
        "datetime-local" => v
            .split_once([' ', 'T', 't'])
            .and_then(|(d, t)| Some(format!("{}T{}", calendar_day(d.trim())?, clock(t.trim())?))),
        _ => None,
    };
    out.unwrap_or_else(|| given.to_owned())
}

/// `4:04 PM`, `4:04pm`, `4 p.m.`, `16:04`, `4:04:30 AM` as `HH:MM[:SS]`, 24-hour.
fn clock(v: &str) -> Option<String> {
    let lower = v.to_ascii_lowercase().replace('.', "");
    let (digits, half) = match lower.trim_end() {
        t if t.ends_with("am") => (t[..t.len() - 2].trim_end(), Some(false)),
        t if t.ends_with("pm") => (t[..t.len() - 2].trim_end(), Some(true)),
        t => (t, None),
    };
    let parts: Vec<&str> = digits.split(':').collect();
    if parts.is_empty() || parts.len() > 3 || (parts.len() == 1 && half.is_none()) {
        return None;
    }
    let num = |s: &str, max: u32| {
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|n| *n <= max)
    };
    let mut h = num(parts[0], 23)?;
    let m = parts
        .get(1)
        .map_or(Some(0), |m| num(m, 59).filter(|_| m.len() == 2))?;
    let sec = match parts.get(2) {
        Some(x) => Some(num(x, 59).filter(|_| x.len() == 2)?),
        None => None,
    };
    if let Some(pm) = half {
        if !(1..=12).contains(&h) {
            return None;
        }
        h = match (h, pm) {
            (12, false) => 0,
            (12, true) => 12,
            (h, true) => h + 12,
            (h, false) => h,
        };
    }
    Some(match sec {
        Some(sec) => format!("{h:02}:{m:02}:{sec:02}"),
        None => format!("{h:02}:{m:02}"),
    })
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A month by its English name or its first three letters (`Sept` too).
fn month_named(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.starts_with(&w) || (w == "sept" && *m == "september"))
        .map(|i| i as u32 + 1)
}

fn year(w: &str) -> Option<u32> {
    (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit())).then(|| w.parse().ok())?
}

fn day_of(w: &str) -> Option<u32> {
    let w = w.trim_end_matches(|c: char| c.is_ascii_alphabetic()); // 25th, 1st
    (!w.is_empty() && w.len() <= 2 && w.bytes().all(|b| b.is_ascii_digit()))
        .then(|| w.parse().ok())?
        .filter(|d| (1..=31).contains(d))
}

/// The words of a written date: apart at spaces and commas.
fn words(v: &str) -> Vec<&str> {
    v.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect()
}

/// `2026/12/25`, `2026.12.25`, `Dec 25, 2026`, `25 December 2026`, `Friday, December 25, 2026`,
/// `07/20/2026` (a day past 12 tells the order) as `YYYY-MM-DD`.
fn calendar_day(v: &str) -> Option<String> {
    let words = words(v);
    let (y, m, d) = match words.as_slice() {
        [one] => {
            let p: Vec<&str> = one.split(['/', '.', '-']).collect();
            match p.as_slice() {
                [y, m, d] if y.len() == 4 => (year(y)?, day_of(m).filter(|m| *m <= 12)?, day_of(d)?),
                // Day and month first: only when one of them cannot be a month (`07/20/2026`,
                // `20/07/2026`); `12/05/2026` reads both ways and is left to be refused.
                [a, b, y] if y.len() == 4 => match (day_of(a)?, day_of(b)?) {
                    (m, d) if m <= 12 && d > 12 => (year(y)?, m, d),
                    (d, m) if m <= 12 && d > 12 => (year(y)?, m, d),
                    _ => return None,
                },
                _ => return None,
            }
        }
        // A weekday in front says nothing the date does not.
        [.., a, b, c] => match (month_named(a), month_named(b)) {
            (Some(m), _) => (year(c)?, m, day_of(b)?),
            (None, Some(m)) => (year(c)?, m, day_of(a)?),
            _ => return None,
        },
        _ => return None,
    };
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

/// `December 2026`, `Dec 2026`, `2026/12` as `YYYY-MM`.
fn calendar_month(v: &str) -> Option<String> {
    let words = words(v);
    let (y, m) = match words.as_slice() {
        [one] => match one.split(['/', '.', '-']).collect::<Vec<_>>().as_slice() {
            [y, m] if y.len() == 4 => (year(y)?, day_of(m).filter(|m| *m <= 12)?),
            _ => return None,
        },
        [a, b] => (year(b)?, month_named(a)?),
        _ => return None,
    };
    Some(format!("{y:04}-{m:02}"))
}

fn truthy(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "checked" | "1" => Some(true),
        "false" | "off" | "no" | "unchecked" | "0" => Some(false),
        _ => None,
    }
}

/// What setting a picked field did: `filled`, or for a slider that moved to the nearest value
/// it allows, which (a number, so nothing of the page's own text).
/// `sent` is what `asked` became in the field's own form ([`picker_value`]).
pub(crate) fn set_to(asked: &str, sent: &str, now: Option<&str>) -> String {
    match now {
        Some(v) if v != sent && v.parse::<f64>().is_ok() => {
            format!("set to {v} (the nearest value the slider allows)")
        }
        // The agent's own words and the field's form of them, never the page's.
        _ if sent != asked => format!("set to {sent} (the field's form of {asked:?})"),
        _ => "filled".into(),
    }
}

/// The page-authored label of a field, for echoing back (fenced) so the agent can confirm
/// what it filled: one line, cleaned and capped as the snapshot shows it.
fn label(rec: &NodeRecord) -> String {
    let raw = rec
        .name
        .as_deref()
        .or(rec.placeholder.as_deref())
        .or(rec.name_attr.as_deref())
        .unwrap_or("");
    clean(raw, STRING_CAP)
}

/// The ref as harness text may echo it: the agent's string when it is shaped like a ref, else a
/// description (a malformed one may have been copied from the page; the refusal fences it).
fn ref_word(r: &str) -> &str {
    let t = r.trim();
    match t.strip_prefix('e') {
        Some(d) if !d.is_empty() && d.len() <= 9 && d.bytes().all(|b| b.is_ascii_digit()) => t,
        _ => "the ref given",
    }
}

impl Aperture {
    async fn fill_one(&self, id: TabId, st: &mut TabState, f: &Field) -> Result<String, StepFail> {
        let (walk_id, rec) = resolve(st, &f.target).map_err(StepFail::Refused)?;
        let be = self.backend();
        match kind(&rec) {
            // A widget the page made (a div with role=slider) has no value to set: only the
            // keys or the pointer a person would use move it.
            None if matches!(rec.role.as_deref(), Some("slider" | "spinbutton" | "scrollbar")) => {
                let (role, keys) = match rec.role.as_deref() {
                    Some("slider") => ("slider", "ArrowRight/ArrowLeft (Home, End for its ends)"),
                    Some("spinbutton") => ("spin button", "ArrowUp/ArrowDown"),
                    _ => ("scroll bar", "ArrowDown/ArrowUp"),
                };
                Err(StepFail::Refused(format!(
                    "{} is a {role} the page made, with no value to set; move it as a person does: \
                     browser_act key {keys} with `ref` {0} and `count` (its line's value says where it \
                     is after), or drag it",
                    ref_word(&f.target)
                )))
            }
            // A read-only field is set by the page itself, most often from a picker that opens
            // on a click (a date field with a calendar).
            None if rec.state.readonly => Err(StepFail::Refused(format!(
                "{} is read-only: a person cannot type into it; the page sets it, often from a \
                 picker that opens when it is clicked (browser_act click on it, then pick in the \
                 answer)",
                ref_word(&f.target)
            ))),
            None => Err(StepFail::Refused(format!(
                "{} is not a form field this tool can fill",
                ref_word(&f.target)
            ))),
            Some(Kind::Select) => {
                st.session.touch(&f.target);
                call(
                    be.element(
                        id,
                        walk_id,
                        rec.idx,
                        ElementOp::SelectOptions(vec![f.value.clone()]),
                    ),
                    CALL_TIMEOUT,
                )
                .await
                .map_err(after_send)?;
                Ok("option chosen".into())
            }
            Some(k @ (Kind::Check | Kind::Radio)) => {
                let Some(want) = truthy(&f.value) else {
                    return Err(StepFail::Refused(format!(
                        "{}: a checkbox or radio takes \"true\" or \"false\"",
                        ref_word(&f.target)
                    )));
                };
                let have = rec.state.checked == Some(Tri::True);
                if want == have {
                    return Ok("already as asked".into());
                }
                // A disabled one keeps its ref (flagged disabled), but a click on it changes
                // nothing: it must not be reported as checked.
                if rec.state.disabled {
                    return Err(StepFail::Refused(format!(
                        "{}: the {} is disabled; it was left as it was",
                        ref_word(&f.target),
                        if k == Kind::Radio {
                            "radio button"
                        } else {
                            "checkbox"
                        }
                    )));
                }
                if k == Kind::Radio && !want {
                    return Err(StepFail::Refused(format!(
                        "{}: a radio button is unchecked by choosing another one",
                        ref_word(&f.target)
                    )));
                }
                let r = ref_word(&f.target);
                // Clicked as `browser_act` clicks: a box whose label swaps on hover is pressed
                // where it is once the pointer rests on it.
                let (x, y) = self.aim_click(id, st, f.target.trim()).await?;
                let d = call(be.click_at(id, x, y, MouseButton::Left, 1), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                delivered(d, "click", r, if want { "checked" } else { "unchecked" }.into())
            }
            Some(Kind::Picked) => {
                st.session.touch(&f.target);
                let value = picker_value(&rec, &f.value);
                let r = call(
                    be.element(id, walk_id, rec.idx, ElementOp::SetValue(value.clone())),
                    CALL_TIMEOUT,
                )
                .await
                .map_err(after_send)?;
                Ok(set_to(&f.value, &value, r.value.as_deref()))
            }
            Some(Kind::Text) => {
                self.focus(id, st, &f.target).await?;
                call(be.element(id, walk_id, rec.idx, ElementOp::Clear), CALL_TIMEOUT)
                    .await
                    .map_err(after_send)?;
                if f.value.is_empty() {
                    return Ok("filled".into());
                }
                let d =
                    call(be.type_text(id, &f.value), CALL_TIMEOUT)
                        .await
                        .map_err(|e| match after_send(e) {
                            // The clear already reached the page.
                            StepFail::Refused(why) => StepFail::Partial(format!(
                                "the field was cleared, but the value was not typed: {why}"
                            )),
                            StepFail::Undelivered(e) | StepFail::Focus(e) => StepFail::Partial(format!(
                                "the field was cleared, but the value was not typed in full: {e}"
                            )),
                            other => other,
                        })?;
                delivered(d, "typing", ref_word(&f.target), "filled".into())
            }
        }
    }

    async fn fill_form(&self, args: FillFormArgs) -> Reply {
        if args.fields.is_empty() || args.fields.len() > MAX_FIELDS {
            return Reply::error(format!("`fields` must hold 1 to {MAX_FIELDS} fields"));
        }
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        let mut r = Reply::new();
        let mut failed = false;
        let mut trail = Vec::new();
        self.catch_up(id, &mut st, &mut trail).await;
        let total = args.fields.len();
        for (i, f) in args.fields.iter().enumerate() {
            let rest = total - (i + 1);
            // Read before filling: the label is from the observation the agent planned on.
            let lbl = resolve(&st, &f.target).ok().map(|(_, rec)| label(&rec));
            let before = st.session.text_before(f.target.trim());
            match self.fill_one(id, &mut st, f).await {
                // A field with no name, placeholder or name attribute has no label to echo.
                Ok(done) => match lbl.as_deref().filter(|l| !l.is_empty()) {
                    Some(l) => {
                        r = r.say(format!("{}. {} {done}; its label:", i + 1, ref_word(&f.target)));
                        r = r.page(l);
                    }
                    // A caption that is not a <label for> still tells which field this is.
                    None => match before.as_deref().filter(|t| !t.is_empty()) {
                        Some(t) => {
                            r = r.say(format!(
                                "{}. {} {done}; it has no label, and the text just before it is:",
                                i + 1,
                                ref_word(&f.target)
                            ));
                            r = r.page(t);
                        }
                        None => {
                            r = r.say(format!(
                                "{}. {} {done} (it has no label)",
                                i + 1,
                                ref_word(&f.target)
                            ));
                        }
                    },
                },
                // Nothing reached the page: this field is reported and the others are still
                // filled, so one option the select does not have costs one field, not the form.
                // The page is unchanged, so the next ref needs no fresh observation.
                Err(fail) if fail.nothing_sent() => {
                    r = fail.render(r.say(format!("{}. {} was not filled:", i + 1, ref_word(&f.target))));
                    failed = true;
                    continue;
                }
                Err(fail) => {
                    let head = if rest > 0 {
                        format!(
                            "{}. {} failed; {rest} later field(s) not filled:",
                            i + 1,
                            ref_word(&f.target)
                        )
                    } else {
                        format!("{}. {} failed:", i + 1, ref_word(&f.target))
                    };
                    r = fail.render(r.say(head));
                    failed = true;
                    break;
                }
            }
            // Filling a field can add, remove or replace others (dependent selects, revealed
            // sections): the next field's ref is resolved against the page as it is now.
            if rest > 0
                && let Err(e) = self.observe_between(id, &mut st, &mut trail).await
            {
                r = r
                    .say(format!(
                        "the page could not be observed after field {}; {rest} later field(s) not filled:",
                        i + 1
                    ))
                    .backend_error(&e);
                failed = true;
                break;
            }
        }
        r = self.answer_with_trail(id, &mut st, r, trail).await;
        if failed { r.mark_error() } else { r }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(ty: &str) -> NodeRecord {
        NodeRecord {
            tag: "input".into(),
            input_type: Some(ty.into()),
            ..Default::default()
        }
    }

    #[test]
    fn picked_values_written_as_people_write_them_take_the_fields_form() {
        let cases = [
            ("time", "4:04 PM", "16:04"),
            ("time", "4:04pm", "16:04"),
            ("time", "12:30 a.m.", "00:30"),
            ("time", "12:05 PM", "12:05"),
            ("time", "4 PM", "16:00"),
            ("time", "9:05", "09:05"),
            ("time", "11:59:30 pm", "23:59:30"),
            ("time", "14:30", "14:30"),
            ("date", "2026/12/25", "2026-12-25"),
            ("date", "2026.1.5", "2026-01-05"),
            ("date", "Dec 25, 2026", "2026-12-25"),
            ("date", "25 December 2026", "2026-12-25"),
            ("date", "Friday, December 25th, 2026", "2026-12-25"),
            ("date", "Sept 3 2026", "2026-09-03"),
            ("date", "07/20/2013", "2013-07-20"),
            ("date", "20.07.2013", "2013-07-20"),
            ("month", "December 2026", "2026-12"),
            ("month", "2026/3", "2026-03"),
            ("datetime-local", "2026-12-25 4:30 pm", "2026-12-25T16:30"),
        ];
        for (ty, given, want) in cases {
            assert_eq!(picker_value(&field(ty), given), want, "{ty} {given:?}");
        }
        // What could be read two ways, or is no moment at all, is sent as given, for the
        // field to refuse with its format named.
        for (ty, given) in [
            ("date", "12/05/2026"),
            ("date", "05.12.2026"),
            ("date", "Dec 2026"),
            ("time", "13:00 PM"),
            ("time", "0:30 am"),
            ("time", "4"),
            ("time", "4:5"),
            ("time", "soon"),
            ("date", "2026-12-25"),
            ("color", "red"),
            ("range", " 5"),
        ] {
            assert_eq!(picker_value(&field(ty), given), given, "{ty} {given:?}");
        }
    }

    #[test]
    fn field_kinds() {
        let mut rec = NodeRecord {
            tag: "input".into(),
            editable: true,
            ..Default::default()
        };
        assert_eq!(kind(&rec), Some(Kind::Text));
        rec.input_type = Some("checkbox".into());
        assert_eq!(kind(&rec), Some(Kind::Check));
        rec.input_type = Some("radio".into());
        assert_eq!(kind(&rec), Some(Kind::Radio));
        for t in ["date", "range", "Color", "datetime-local"] {
            rec.input_type = Some(t.into());
            assert_eq!(kind(&rec), Some(Kind::Picked), "{t}");
        }
        rec.input_type = Some("number".into());
        assert_eq!(kind(&rec), Some(Kind::Text));
        let slider = NodeRecord {
            tag: "input".into(),
            input_type: Some("range".into()),
            ..Default::default()
        };
        assert_eq!(
            kind(&slider),
            Some(Kind::Picked),
            "a slider is not editable, yet fillable"
        );
        assert_eq!(set_to("75", "75", Some("75")), "filled");
        assert_eq!(
            set_to("73", "73", Some("75")),
            "set to 75 (the nearest value the slider allows)"
        );
        assert_eq!(set_to("x", "x", Some("<b>")), "filled");
        assert_eq!(
            set_to("4:04 PM", "16:04", Some("16:04")),
            "set to 16:04 (the field's form of \"4:04 PM\")"
        );
        let sel = NodeRecord {
            tag: "select".into(),
            ..Default::default()
        };
        assert_eq!(kind(&sel), Some(Kind::Select));
        let div = NodeRecord {
            tag: "div".into(),
            ..Default::default()
        };
        assert_eq!(kind(&div), None);
    }
}
