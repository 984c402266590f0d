//! The fidelity harness: drives a `TabSession`, feeds every observation's text (and nothing
//! else) to the mechanical `StreamReader`, and after every step checks the rebuilt model
//! against the ground truth. Vacuity guards make a run that measured nothing fail.
#![allow(dead_code)]

use aperture_engine::reader::{Line, StreamReader};
use aperture_engine::record::Walk;
use aperture_engine::text::{STRING_CAP, clean, mask_clock};
use aperture_engine::{Mode, Observation, TabSession};

pub struct Run {
    pub name: &'static str,
    pub s: TabSession,
    pub reader: StreamReader,
    pub steps: usize,
    /// Lines compared against the truth, summed over steps.
    pub compared: usize,
    /// Page fields (names, texts, values) compared exactly (not masked, not live).
    pub exact_fields: usize,
    /// Refs cross-checked against `resolve`.
    pub resolved: usize,
    pub chars: usize,
    pub log: Vec<String>,
    /// Views checked against the model.
    pub views: usize,
}

fn masked(s: &Option<String>) -> Option<String> {
    s.as_deref().map(|s| mask_clock(s).into_owned())
}

/// Compares two outlines. Clock-shaped spans are compared by shape (the engine suppresses
/// their ticking by design); fields of `live` lines are not compared (the engine said it does
/// not keep them current) but the `live` marking itself must agree.
pub fn compare(a: &[(usize, Line)], b: &[(usize, Line)], exact: &mut usize) -> Result<usize, String> {
    if a.len() != b.len() {
        return Err(format!("{} lines rebuilt, {} in truth", a.len(), b.len()));
    }
    let mut inline = 0;
    for (k, ((da, la), (db, lb))) in a.iter().zip(b).enumerate() {
        let ctx = || format!("line {k}: rebuilt {la:?} / truth {lb:?}");
        if da != db || la.refn != lb.refn || la.role != lb.role || la.is_live() != lb.is_live() {
            return Err(ctx());
        }
        let strip = |l: &Line| -> Vec<(String, Option<String>)> {
            l.attrs
                .iter()
                .filter(|(k, _)| !(l.is_live() && k == "value"))
                .cloned()
                .collect()
        };
        if la.is_live() {
            // Values are exempt (a sentence's text and plain members too); the refs in it are
            // not.
            let kinds = |l: &Line| -> Vec<u32> { l.inline.iter().filter_map(|(_, m)| m.refn).collect() };
            if strip(la) != strip(lb) || kinds(la) != kinds(lb) {
                return Err(ctx());
            }
            inline += la.inline.len();
            continue;
        }
        if masked(&la.name) != masked(&lb.name) || masked(&la.text) != masked(&lb.text) {
            return Err(ctx());
        }
        let ma: Vec<_> = la.attrs.iter().map(|(k, v)| (k.clone(), masked(v))).collect();
        let mb: Vec<_> = lb.attrs.iter().map(|(k, v)| (k.clone(), masked(v))).collect();
        if ma != mb {
            return Err(ctx());
        }
        *exact += usize::from(la.name.is_some())
            + usize::from(la.text.is_some())
            + usize::from(la.attr("value").is_some());
        // A sentence's members, each compared as a line of its own.
        if la.inline.len() != lb.inline.len() {
            return Err(ctx());
        }
        for ((pa, ia), (pb, ib)) in la.inline.iter().zip(&lb.inline) {
            if pa != pb {
                return Err(ctx());
            }
            compare(&[(0, ia.clone())], &[(0, ib.clone())], exact)
                .map_err(|e| format!("{} in {}", e, ctx()))?;
            inline += 1;
        }
    }
    Ok(a.len() + inline)
}

impl Run {
    pub fn new(name: &'static str) -> Self {
        Run {
            name,
            s: TabSession::new(),
            reader: StreamReader::new(),
            steps: 0,
            compared: 0,
            exact_fields: 0,
            resolved: 0,
            chars: 0,
            log: Vec::new(),
            views: 0,
        }
    }

    pub fn step(&mut self, walk: &Walk) -> Observation {
        self.step_with(walk, false, false)
    }

    pub fn step_with(&mut self, walk: &Walk, force_full: bool, navigated: bool) -> Observation {
        let obs = self.s.observe(walk, force_full, navigated);
        self.chars += obs.text.len();
        self.log.push(obs.text.clone());
        let name = self.name;
        let n = self.steps;
        if let Err(e) = self.reader.apply(&obs.text) {
            panic!("{name} step {n}: reader refused the stream: {e}\n{}", obs.text);
        }
        // Ground truth 1: a full snapshot of the same state, read by a fresh reader.
        let truth_text = self.s.render_current().expect("state after observe");
        let mut truth = StreamReader::new();
        truth
            .apply(&truth_text)
            .unwrap_or_else(|e| panic!("{name} step {n}: truth unreadable: {e}"));
        assert_eq!(self.reader.seq, truth.seq, "{name} step {n}: seq");
        assert_eq!(self.reader.url, truth.url, "{name} step {n}: url");
        assert_eq!(self.reader.title, truth.title, "{name} step {n}: title");
        match compare(&self.reader.outline(), &truth.outline(), &mut self.exact_fields) {
            Ok(k) => self.compared += k,
            Err(e) => panic!(
                "{name} step {n}: model drifted: {e}\nstream:\n{}\ntruth:\n{truth_text}",
                obs.text
            ),
        }
        // Ground truth 2, independent of the renderer: every visible actionable element of
        // the walk has exactly one ref in the rebuilt model, and every ref the reader holds
        // resolves to a live element whose name it shows.
        let actionable = walk.nodes.iter().filter(|r| r.visible && r.actionable).count();
        let refs = self.reader.refs();
        // A budget cut leaves the end of the page out, and says how much.
        let cut_refs = truth_text
            .lines()
            .find_map(|l| l.strip_prefix("note: cut at max_tokens="))
            .and_then(|l| l.split(" elements of the page (").nth(1))
            .and_then(|l| l.split(' ').next())
            .and_then(|k| k.parse::<usize>().ok())
            .unwrap_or(0);
        assert_eq!(
            refs.len() + cut_refs,
            actionable,
            "{name} step {n}: refs vs actionable elements"
        );
        for (r, line) in &refs {
            let rec = self
                .s
                .resolve(&format!("e{r}"))
                .unwrap_or_else(|e| panic!("{name} step {n}: reader holds e{r} but engine refuses: {e}"));
            assert!(
                rec.visible && rec.actionable,
                "{name} step {n}: e{r} names a non-actionable element"
            );
            // A member of a live sentence is a value of that sentence, exempt as it is.
            let in_live = self
                .reader
                .outline()
                .iter()
                .any(|(_, l)| l.is_live() && l.inline.iter().any(|(_, m)| m.refn == Some(*r)));
            if !line.is_live() && !in_live {
                let want = rec
                    .name
                    .as_deref()
                    .map(|s| clean(s, STRING_CAP))
                    .filter(|s| !s.is_empty());
                let got = line.name.as_deref().map(|s| s.trim_end_matches('…').to_owned());
                let want = want.map(|w| w.trim_end_matches('…').to_owned());
                assert_eq!(
                    got.as_deref().map(mask_clock),
                    want.as_deref().map(mask_clock),
                    "{name} step {n}: e{r} name"
                );
            }
            self.resolved += 1;
        }
        // A view of a part is that part of the model, line for line (in the default mode, where
        // the model is the whole page), and changes no state.
        if self.s.mode() == Mode::default()
            && let Some(r) = refs.keys().copied().find(|&r| self.reader.subtree(r).is_some())
        {
            let v = self
                .s
                .render_view(&format!("e{r}"), 0)
                .unwrap_or_else(|e| panic!("{name} step {n}: no view of e{r}: {e}"))
                .text;
            if let Err(e) = self.reader.apply(&v) {
                panic!("{name} step {n}: reader refused the view: {e}\n{v}");
            }
            let sub = self.reader.subtree(r).expect("subtree");
            if !sub.iter().any(|(_, l)| l.is_live()) {
                let mut exact = 0;
                if let Err(e) = compare(&self.reader.last_view, &sub, &mut exact) {
                    panic!("{name} step {n}: the view of e{r} is not its part of the model: {e}\n{v}");
                }
                self.views += 1;
            }
        }
        self.steps += 1;
        obs
    }

    /// Vacuity guards: a scenario must have run, diffed, and compared real content.
    pub fn finish(&self, min_steps: usize, min_diffs: usize) {
        let st = &self.reader.stats;
        assert!(
            self.steps >= min_steps.max(1),
            "{}: only {} steps ran",
            self.name,
            self.steps
        );
        assert!(
            st.diffs >= min_diffs,
            "{}: only {} diffs applied (stats {st:?})",
            self.name,
            st.diffs
        );
        assert!(st.fulls >= 1, "{}: no full snapshot read", self.name);
        assert!(
            self.compared >= self.steps,
            "{}: compared {} lines over {} steps",
            self.name,
            self.compared,
            self.steps
        );
        assert!(
            self.exact_fields > 0,
            "{}: no page field compared exactly",
            self.name
        );
    }
}
