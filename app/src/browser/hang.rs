//! Pages that stop answering: a script that never returns holds its renderer's main thread, so
//! the page takes no input, paints nothing new and answers no walk.
//!
//! Chromium's own hang monitor says nothing here: it ignores a page while a DevTools client is
//! attached, and every tab keeps one (status codes, dark mode). So the browser asks the page
//! itself. While someone is waiting on a tab (the human's input went to it, or an agent's
//! request has been out a second), it sends a probe every [`PROBE_EVERY`]: the renderer's
//! process-id request, answered natively on the main thread between tasks. When the oldest
//! unanswered probe is [`HANG_DELAY`] old (Chromium's own delay) and a newer one is unanswered
//! too (so a probe lost with a frame that went away does not count), the tab is marked
//! unresponsive: what waits on it fails at once, saying so, and the window offers to wait or
//! stop the page's script. Any answer clears the mark.
//!
//! Stopping is DevTools' `Runtime.terminateExecution`, which V8 runs as an interrupt inside
//! the running script: the script ends with an uncatchable termination and the page lives on,
//! as Firefox's "Stop It" and DevTools' pause do (Chrome's dialog kills the process instead,
//! and every page in it).

use super::Actor;
use super::state::State;
use aperture_mcp::backend::TabId;
use std::time::{Duration, Instant};

/// How long a page may leave a probe unanswered before it counts as not responding: Chromium's
/// `kHungRendererDelay`.
pub const HANG_DELAY: Duration = Duration::from_secs(15);
/// How often a tab someone waits on is probed.
const PROBE_EVERY: Duration = Duration::from_secs(2);
/// Human input to a tab this recent makes it worth probing.
const INPUT_RECENT: Duration = Duration::from_secs(3);
/// An agent's request to a tab this old makes it worth probing.
const RPC_WAITING: Duration = Duration::from_secs(1);

/// Per-tab liveness.
#[derive(Debug, Default)]
pub struct HangWatch {
    /// Probes sent and not answered, oldest first.
    out: Vec<Instant>,
    /// When the last probe was sent.
    last_sent: Option<Instant>,
    /// When the human last sent the page input (the window).
    pub input_at: Option<Instant>,
    /// Since when the page has not answered, once it counts as not responding.
    pub stuck_since: Option<Instant>,
}

impl HangWatch {
    /// How long the page has been stuck, once it counts as not responding.
    pub fn stuck_for(&self) -> Option<Duration> {
        self.stuck_since.map(|s| s.elapsed())
    }
}

/// The human sent the tab's page input.
pub fn human_input(st: &mut State, id: TabId) {
    if let Some(t) = st.tabs.get_mut(&id) {
        t.hang.input_at = Some(Instant::now());
    }
}

/// A probe of tab `id` was answered: the page is running.
pub(super) fn answered(st: &mut State, id: TabId) {
    let Some(t) = st.tabs.get_mut(&id) else { return };
    t.hang.out.clear();
    if t.hang.stuck_since.take().is_some() {
        tracing::info!(tab = id.0, "the page answers again");
        st.events.push(super::Event::Refresh);
    }
}

/// Probes the tabs someone waits on and marks those that stopped answering. The loop calls
/// this often (each pass costs a look at every tab).
pub fn tick(a: &Actor) {
    let now = Instant::now();
    let (probe, stuck): (Vec<TabId>, Vec<TabId>) = a.with(|st| {
        let mut probe = Vec::new();
        let mut stuck = Vec::new();
        let rpcs = st.oldest_rpcs();
        for (&id, t) in &mut st.tabs {
            if t.renderer_dead.is_some() || t.pending_url.is_some() {
                continue;
            }
            // A JavaScript dialog or a print holds the page's script by design, as long as the
            // person takes: not a hang. Probes sent before it are answered after it, late.
            if t.asks.dialog.is_some() || t.asks.printing {
                t.hang = HangWatch::default();
                continue;
            }
            let h = &t.hang;
            // Probing goes on while a probe is unanswered: a page that took one input and
            // stopped gets its second probe however late the loop came round.
            let waited_on = !h.out.is_empty()
                || h.input_at.is_some_and(|at| now - at < INPUT_RECENT)
                || rpcs.get(&id).is_some_and(|&at| now - at >= RPC_WAITING);
            if waited_on && h.last_sent.is_none_or(|at| now - at >= PROBE_EVERY) {
                probe.push(id);
            }
            let oldest = h.out.first().is_some_and(|&at| now - at >= HANG_DELAY);
            let newer = h.out.len() >= 2;
            if h.stuck_since.is_none() && oldest && newer {
                stuck.push(id);
            }
        }
        (probe, stuck)
    });
    for id in stuck {
        a.with(|st| mark_stuck(st, id));
    }
    for id in probe {
        let Some(f) = a.browser(id).and_then(|b| b.main_frame()) else {
            continue;
        };
        let rid = a.next_id();
        a.with(|st| {
            st.probes.insert(rid, id);
            if let Some(t) = st.tabs.get_mut(&id) {
                t.hang.out.push(now);
                t.hang.last_sent = Some(now);
            }
        });
        f.send_script_request(rid, aperture_engine::protocol::PID_REQUEST);
    }
}

fn mark_stuck(st: &mut State, id: TabId) {
    let Some(t) = st.tabs.get_mut(&id) else { return };
    let since = t.hang.out.first().copied().unwrap_or_else(Instant::now);
    t.hang.stuck_since = Some(since);
    tracing::warn!(tab = id.0, "the page stopped answering");
    // What waits on the page would only wait out its own timeout.
    let secs = since.elapsed().as_secs();
    st.fail_rpcs(id, || crate::tab::TabError::Unresponsive { secs });
    st.events.push(super::Event::Refresh);
}

/// Ends the script holding tab `id`'s page (the page stays). True when the page was marked
/// not responding and the stop was sent.
pub fn stop_script(a: &Actor, id: TabId) -> bool {
    let stuck = a.with(|st| st.tabs.get(&id).is_some_and(|t| t.hang.stuck_since.is_some()));
    let Some(h) = a.host(id).filter(|_| stuck) else {
        return false;
    };
    tracing::info!(tab = id.0, "stopping the script of a page that stopped answering");
    let mid = a.next_id() as i64;
    // The answer (an empty result) is not waited for: the page's next answer to a probe says
    // the script ended.
    h.send_devtools_message(
        &serde_json::json!({"id": mid, "method": "Runtime.terminateExecution"}).to_string(),
    )
}

/// The human chose to wait: the mark goes, and comes back if the page still does not answer
/// for another [`HANG_DELAY`].
pub fn wait_longer(st: &mut State, id: TabId) {
    if let Some(t) = st.tabs.get_mut(&id) {
        t.hang = HangWatch {
            input_at: Some(Instant::now()),
            ..Default::default()
        };
        st.events.push(super::Event::Refresh);
    }
}
