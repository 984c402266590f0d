//! The measurements themselves: the corpus pass and the diff-economics pass, per product.

use serde_json::json;

use crate::client::{Answer, Session};
use crate::coverage::{self, Coverage};
use crate::parse::{self, RefElement};
use crate::script::{self, STEPS, Step, Verb};

/// Size and time of one answer, without its text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measure {
    /// Characters of the answer.
    pub chars: usize,
    /// `o200k_base` tokens of the answer.
    pub tokens: usize,
    /// Round-trip time in milliseconds.
    pub ms: f64,
    /// The answer was an error.
    pub is_error: bool,
}

impl From<&Answer> for Measure {
    fn from(a: &Answer) -> Measure {
        Measure {
            chars: a.chars,
            tokens: a.tokens,
            ms: a.ms,
            is_error: a.is_error,
        }
    }
}

impl std::ops::Add for Measure {
    type Output = Measure;
    fn add(self, o: Measure) -> Measure {
        Measure {
            chars: self.chars + o.chars,
            tokens: self.tokens + o.tokens,
            ms: self.ms + o.ms,
            is_error: self.is_error || o.is_error,
        }
    }
}

/// One product's observations of one corpus page.
#[derive(Debug, Clone, Default)]
pub struct PageSide {
    /// The navigation call's answer.
    pub nav: Measure,
    /// An explicit full snapshot right after the load.
    pub full: Measure,
    /// Aperture only: the actionable-only first look (`browser_snapshot {full: true,
    /// interactive: true}`), taken after the no-change observation.
    pub interactive: Option<Measure>,
    /// Refs handed out in that snapshot.
    pub refs: usize,
    /// A second observation with nothing changed in between.
    pub no_change: Measure,
    /// First error met, shortened.
    pub error: Option<String>,
    /// Aperture only: the navigation's answer showed another page than the one asked for, or
    /// the right address with an empty title where the loaded page has one (its load wait
    /// returned early).
    pub nav_early: bool,
    /// Aperture only: uncounted diff observations the harness took after the load until one
    /// said "no change" (0 when the first did; capped at [`SETTLE_ROUNDS`]).
    pub settle_rounds: usize,
    /// Incumbent only: JavaScript dialogs the page opened that had to be dismissed
    /// (`browser_handle_dialog`, uncounted) before it could be observed.
    pub dialogs: usize,
}

/// Most uncounted observations spent waiting for a page to stop changing after its load.
pub const SETTLE_ROUNDS: usize = 8;

/// Both products on one corpus page.
#[derive(Debug, Clone, Default)]
pub struct PageRow {
    /// File name of the page.
    pub page: String,
    /// The incumbent's side, when it ran.
    pub incumbent: Option<PageSide>,
    /// Aperture's side, when it ran.
    pub aperture: Option<PageSide>,
    /// Coverage of the incumbent's actionable refs in Aperture's snapshot, when both ran.
    pub coverage: Option<Coverage>,
    /// agent-browser's side, when it ran.
    pub agent_browser: Option<crate::agent_browser::AbSide>,
    /// Coverage of agent-browser's actionable refs in Aperture's snapshot, when both ran.
    pub ab_coverage: Option<Coverage>,
}

/// `s` on one line, at most 160 characters.
pub fn short(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(160).collect()
}

fn first_error(answers: &[&Answer]) -> Option<String> {
    answers.iter().find(|a| a.is_error).map(|a| short(&a.text))
}

/// The incumbent on one page: navigate, snapshot, snapshot again. Returns the side and the
/// elements of its full snapshot.
pub async fn incumbent_page(s: &Session, url: &str) -> (PageSide, Vec<RefElement>) {
    let nav = s.call("browser_navigate", json!({ "url": url })).await;
    // A page that opens alert() blocks every later tool call until the dialog is handled, as
    // an agent would handle it; those calls are not counted.
    let mut dialogs = 0;
    let full = loop {
        let snap = s.call("browser_snapshot", json!({})).await;
        if dialogs < 5 && snap.text.contains("### Modal state") {
            let _ = s.call("browser_handle_dialog", json!({ "accept": true })).await;
            dialogs += 1;
            continue;
        }
        break snap;
    };
    let again = s.call("browser_snapshot", json!({})).await;
    let els = parse::incumbent_refs(&full.text);
    // The navigate answer may report the dialog; that is not an error of the page.
    let nav_err = if nav.is_error && dialogs > 0 && !full.is_error {
        &full
    } else {
        &nav
    };
    let side = PageSide {
        nav: (&nav).into(),
        full: (&full).into(),
        refs: parse::distinct_refs(&els),
        no_change: (&again).into(),
        interactive: None,
        error: first_error(&[nav_err, &full, &again]),
        nav_early: false,
        settle_rounds: 0,
        dialogs,
    };
    (side, els)
}

/// True when an Aperture navigation answer's snapshot is of `url` (its `url "…"` line).
pub fn shows_url(answer: &str, url: &str) -> bool {
    answer.contains(&format!("url \"{url}\""))
}

/// True when `browser_tabs {action: list}` says tab `tab` (the current tab when `None`) is at
/// `url` and no longer loading.
pub fn tab_ready(list: &str, tab: Option<u64>, url: &str) -> bool {
    let mut lines = list.lines();
    while let Some(l) = lines.next() {
        let this = match tab {
            Some(n) => l.starts_with(&format!("tab {n} (")),
            None => l.starts_with("tab ") && l.contains("current"),
        };
        if this {
            if l.contains("loading") {
                return false;
            }
            return lines
                .take_while(|l| !l.starts_with("tab "))
                .any(|l| l.trim() == url || l.contains(&format!("\"{url}\"")));
        }
    }
    false
}

/// `args` with `"tab": tab` added when a tab is named.
fn with_tab(mut args: serde_json::Value, tab: Option<u64>) -> serde_json::Value {
    if let (Some(t), Some(m)) = (tab, args.as_object_mut()) {
        m.insert("tab".into(), json!(t));
    }
    args
}

/// Waits (up to 30 s) until Aperture's tab is at `url` and has finished loading, then takes
/// diff observations 200 ms apart until one reports no change (at most [`SETTLE_ROUNDS`]), so
/// that what is measured next is the loaded page at rest, as the incumbent's load wait gives
/// it. Its navigate answer may come before that: a parser-blocking script whose host cannot be
/// resolved leaves a DOM that is stable but incomplete until the lookup fails. Harness-only
/// calls: nothing here is counted as an observation. Returns the rounds that still showed a
/// change.
pub async fn aperture_settle(s: &Session, tab: Option<u64>, url: &str) -> usize {
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_secs(30) {
        let l = s.call("browser_tabs", json!({ "action": "list" })).await;
        if tab_ready(&l.text, tab, url) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    for round in 0..SETTLE_ROUNDS {
        let a = s.call("browser_snapshot", with_tab(json!({}), tab)).await;
        if a.is_error || a.text.contains("no change since") {
            return round;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    SETTLE_ROUNDS
}

/// The `title "…"` line of an Aperture snapshot, if any.
fn title_line(answer: &str) -> Option<&str> {
    answer.lines().find(|l| l.starts_with("title \""))
}

/// Aperture on one page in tab `tab` (the current tab when `None`): navigate (answered with a
/// FULL SNAPSHOT), let it settle, an explicit full snapshot, then a default (diff) observation
/// with nothing changed.
pub async fn aperture_page(s: &Session, tab: Option<u64>, url: &str) -> (PageSide, Vec<RefElement>) {
    let nav = s
        .call(
            "browser_navigate",
            with_tab(json!({ "action": "goto", "url": url }), tab),
        )
        .await;
    let settle_rounds = aperture_settle(s, tab, url).await;
    let full = s
        .call("browser_snapshot", with_tab(json!({ "full": true }), tab))
        .await;
    let again = s.call("browser_snapshot", with_tab(json!({}), tab)).await;
    // The actionable-only mode is sticky per tab: measured once, then switched back off
    // (uncounted) so the tab's next page is observed in full again.
    let inter = s
        .call(
            "browser_snapshot",
            with_tab(json!({ "full": true, "interactive": true }), tab),
        )
        .await;
    if !inter.is_error {
        let _ = s
            .call(
                "browser_snapshot",
                with_tab(json!({ "full": true, "interactive": false }), tab),
            )
            .await;
    }
    let els = parse::aperture_refs(&full.text);
    // An answer far smaller than the page at rest was taken before the page had loaded.
    let nav_early = !nav.is_error && (!shows_url(&nav.text, url) || nav.tokens * 2 < full.tokens);
    let side = PageSide {
        nav: (&nav).into(),
        full: (&full).into(),
        refs: parse::distinct_refs(&els),
        no_change: (&again).into(),
        interactive: Some((&inter).into()),
        error: first_error(&[&nav, &full, &again, &inter]),
        nav_early,
        settle_rounds,
        dialogs: 0,
    };
    (side, els)
}

/// Coverage of one page from both sides' elements.
pub fn page_coverage(inc: &[RefElement], ap: &[RefElement]) -> Coverage {
    coverage::check(inc, ap)
}

/// One arm of the diff-economics run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arm {
    /// `@playwright/mcp`: each action, then `browser_snapshot` to see its effect (its action
    /// answers carry no snapshot, only a link to a file).
    Incumbent,
    /// Aperture as shipped: the action's answer is the diff.
    ApertureDiff,
    /// Aperture forced to re-dump: each action, then `browser_snapshot {full: true}`.
    ApertureRedump,
    /// agent-browser: each action on the CLI, then `snapshot -i --delta`.
    AgentBrowser,
}

impl Arm {
    /// Column label.
    pub fn label(self) -> &'static str {
        match self {
            Arm::Incumbent => "incumbent",
            Arm::ApertureDiff => "aperture-diff",
            Arm::ApertureRedump => "aperture-redump",
            Arm::AgentBrowser => "agent-browser",
        }
    }
}

/// One step of an arm.
#[derive(Debug, Clone)]
pub struct StepRow {
    /// 1-based step number.
    pub step: usize,
    /// The scripted action.
    pub label: String,
    /// The action call's answer.
    pub act: Measure,
    /// The follow-up observation (incumbent and re-dump arms), or a recovery snapshot the diff
    /// arm needed after a refused ref.
    pub observe: Measure,
    /// What the agent paid to act and see the result: `act + observe`.
    pub total: Measure,
    /// Anything unusual (ref not found, refusal and retry).
    pub note: String,
}

/// A whole arm.
#[derive(Debug, Clone)]
pub struct ArmRun {
    /// Which arm.
    pub arm: Arm,
    /// Getting to the fixture and the first observation of it.
    pub initial: Measure,
    /// The 20 steps.
    pub steps: Vec<StepRow>,
    /// End-state problems found on a final full snapshot (empty when all actions landed).
    pub end_problems: Vec<String>,
}

/// The latest ref of an element matching `step`'s role (loosely) and name, searching `seen`
/// from its end: later observations supersede earlier ones.
pub fn find_ref(seen: &[RefElement], step: &Step) -> Option<String> {
    let role_ok = |r: &str| match step.role {
        "textbox" => matches!(r, "textbox" | "searchbox"),
        "button" => matches!(r, "button" | "clickable"),
        other => r == other,
    };
    seen.iter()
        .rev()
        .find(|e| role_ok(&e.role) && e.name.as_deref().map(str::trim) == Some(step.name))
        .map(|e| e.reference.clone())
}

/// The action call for `arm` on `reference`.
async fn act(s: &Session, arm: Arm, step: &Step, reference: &str) -> Answer {
    match (arm, step.verb) {
        (Arm::Incumbent, Verb::Click) => {
            s.call(
                "browser_click",
                json!({ "target": reference, "element": step.name }),
            )
            .await
        }
        (Arm::Incumbent, Verb::Type(t)) => {
            s.call(
                "browser_type",
                json!({ "target": reference, "element": step.name, "text": t }),
            )
            .await
        }
        (_, Verb::Click) => {
            s.call("browser_act", json!({ "action": "click", "ref": reference }))
                .await
        }
        (_, Verb::Type(t)) => {
            s.call(
                "browser_act",
                json!({ "action": "type", "ref": reference, "text": t }),
            )
            .await
        }
    }
}

fn refs_of(arm: Arm, text: &str) -> Vec<RefElement> {
    match arm {
        Arm::Incumbent => parse::incumbent_refs(text),
        _ => parse::aperture_refs(text),
    }
}

async fn full_observation(s: &Session, arm: Arm) -> Answer {
    match arm {
        Arm::Incumbent => s.call("browser_snapshot", json!({})).await,
        _ => s.call("browser_snapshot", json!({ "full": true })).await,
    }
}

/// Runs the 20 scripted actions on `url` in `arm`. For Aperture, `s` must already have a
/// current tab of its own (each arm gets a fresh one).
pub async fn economics(s: &Session, arm: Arm, url: &str) -> ArmRun {
    let initial = match arm {
        Arm::Incumbent => {
            let nav = s.call("browser_navigate", json!({ "url": url })).await;
            let snap = s.call("browser_snapshot", json!({})).await;
            (Measure::from(&nav) + Measure::from(&snap), snap.text)
        }
        _ => {
            // Navigate and observe in full, as for the incumbent (and so that an early return
            // of the navigation cannot hand the arm a half-loaded page).
            let nav = s
                .call("browser_navigate", json!({ "action": "goto", "url": url }))
                .await;
            aperture_settle(s, None, url).await;
            let snap = full_observation(s, arm).await;
            // The navigate answer is itself a FULL SNAPSHOT: when it showed the loaded page,
            // that is what the agent paid, and the harness's own snapshot (taken only to be
            // sure of the refs) is not counted.
            let complete = shows_url(&nav.text, url) && title_line(&nav.text) == title_line(&snap.text);
            let paid = if complete {
                Measure::from(&nav)
            } else {
                Measure::from(&nav) + Measure::from(&snap)
            };
            (paid, snap.text)
        }
    };
    // Everything this arm has been shown, in order: the agent's view of the page.
    let mut seen = refs_of(arm, &initial.1);
    let mut steps = Vec::new();
    for (i, step) in STEPS.iter().enumerate() {
        let mut note = String::new();
        let mut observe = Measure::default();
        let Some(reference) = find_ref(&seen, step) else {
            steps.push(StepRow {
                step: i + 1,
                label: step.label(),
                act: Measure::default(),
                observe,
                total: Measure::default(),
                note: "target not found in what the agent was shown; skipped".into(),
            });
            continue;
        };
        let mut a = act(s, arm, step, &reference).await;
        let mut act_m = Measure::from(&a);
        if a.is_error && arm == Arm::ApertureDiff && a.text.contains("refused") {
            // What an agent does with a refused ref: re-observe in full and retry once. Both
            // the refusal and the recovery are paid for in this step.
            let snap = full_observation(s, arm).await;
            observe = observe + Measure::from(&snap);
            seen.extend(refs_of(arm, &snap.text));
            note = "ref refused; full re-observation and retry".into();
            if let Some(r2) = find_ref(&seen, step) {
                a = act(s, arm, step, &r2).await;
                act_m = act_m + Measure::from(&a);
            }
        }
        if a.is_error && note.is_empty() {
            note = format!("action failed: {}", short(&a.text));
        }
        seen.extend(refs_of(arm, &a.text));
        if arm != Arm::ApertureDiff {
            let snap = full_observation(s, arm).await;
            observe = observe + Measure::from(&snap);
            // The agent now holds this snapshot and nothing older.
            seen = refs_of(arm, &snap.text);
        }
        steps.push(StepRow {
            step: i + 1,
            label: step.label(),
            act: act_m,
            observe,
            total: act_m + observe,
            note,
        });
    }
    let last = full_observation(s, arm).await;
    ArmRun {
        arm,
        initial: initial.0,
        steps,
        end_problems: script::end_state_problems(&last.text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(r: &str, role: &str, name: &str) -> RefElement {
        RefElement {
            reference: r.into(),
            role: role.into(),
            name: Some(name.into()),
            counted: false,
        }
    }

    #[test]
    fn latest_matching_ref_wins() {
        let seen = vec![
            el("e1", "button", "Add item"),
            el("e2", "link", "Add item"),
            el("e9", "clickable", "Add item"),
        ];
        assert_eq!(find_ref(&seen, &STEPS[8]).as_deref(), Some("e9"));
        assert_eq!(find_ref(&seen, &STEPS[0]), None);
    }

    #[test]
    fn current_tab_is_read_from_the_list() {
        let list = "2 tabs:\ntab 1 (human's, foreground); title and URL:\n<untrusted-page-content nonce=a>\n\"x\"\nhttp://h/a\n</untrusted-page-content nonce=a>\ntab 2 (yours, current); title and URL:\n<untrusted-page-content nonce=b>\n\"T\"\nhttp://h/b\n</untrusted-page-content nonce=b>";
        assert!(tab_ready(list, None, "http://h/b"));
        assert!(!tab_ready(list, None, "http://h/a"));
        assert!(tab_ready(list, Some(1), "http://h/a"));
        assert!(!tab_ready(
            &list.replace("current)", "current, loading)"),
            None,
            "http://h/b"
        ));
        assert_eq!(
            with_tab(json!({"full": true}), Some(3)),
            json!({"full": true, "tab": 3})
        );
        assert!(shows_url("FULL SNAPSHOT\nurl \"http://h/b\"\n", "http://h/b"));
    }

    #[test]
    fn measures_add_up() {
        let a = Measure {
            chars: 3,
            tokens: 1,
            ms: 1.5,
            is_error: false,
        };
        let b = Measure {
            chars: 4,
            tokens: 2,
            ms: 0.5,
            is_error: true,
        };
        let c = a + b;
        assert_eq!((c.chars, c.tokens, c.ms, c.is_error), (7, 3, 2.0, true));
    }
}
