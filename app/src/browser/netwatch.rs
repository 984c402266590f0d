//! Requests in flight per tab, from the DevTools `Network` events of the tab's observer: what
//! the network-idle wait needs, since a page's own performance timeline lists only requests
//! that have finished. Watching starts when the agent first attaches to the tab (that is when
//! `Network.enable` is sent); what the browser does not report here (requests a frame of another
//! site makes in its own process, requests already open when watching began) is not counted.

use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Beyond this many open requests the page is busy whatever the exact number; the set stays
/// bounded even if a finish event is ever missed.
const MAX_OPEN: usize = 10_000;

#[derive(Debug, Default)]
pub struct NetWatch {
    /// Request ids started and not yet finished or failed (a redirect keeps its id).
    open: HashSet<String>,
    /// Since when nothing has been open: the last finish, or when watching began. `None`
    /// until watching begins.
    idle_from: Option<Instant>,
}

/// What [`NetWatch`] saw, for one look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetLook {
    /// Requests in flight now.
    pub open: usize,
    /// How long nothing has been in flight (zero while something is).
    pub idle: Duration,
}

impl NetWatch {
    /// `Network.enable` took effect now.
    pub fn start(&mut self) {
        self.open.clear();
        self.idle_from = Some(Instant::now());
    }

    /// Applies one `Network.*` event.
    pub fn event(&mut self, method: &str, params: &serde_json::Value) {
        if self.idle_from.is_none() {
            return;
        }
        let Some(rid) = params["requestId"].as_str() else {
            return;
        };
        match method {
            "Network.requestWillBeSent" if self.open.len() < MAX_OPEN => {
                self.open.insert(rid.to_string());
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                self.open.remove(rid);
                // A request that started before watching began ends here too: the network was
                // busy until now either way.
                if self.open.is_empty() {
                    self.idle_from = Some(Instant::now());
                }
            }
            _ => {}
        }
    }

    /// A new main-frame document replaced the page: what the old one left open (a keepalive
    /// report, a poll whose end the browser may never report for a page that is gone) is no
    /// longer the page's. The new document's own load is covered by its loading state.
    pub fn new_document(&mut self) {
        if self.idle_from.is_some() && !self.open.is_empty() {
            self.start();
        }
    }

    /// Every request of the tab's renderer ended with it (a crash).
    pub fn renderer_gone(&mut self) {
        if self.idle_from.is_some() {
            self.start();
        }
    }

    /// What is in flight now; `None` when the tab is not watched.
    pub fn look(&self) -> Option<NetLook> {
        let from = self.idle_from?;
        Some(NetLook {
            open: self.open.len(),
            idle: if self.open.is_empty() {
                from.elapsed()
            } else {
                Duration::ZERO
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Longer than a loaded machine's pause between an event and the look after it, so
    /// "idle less than GAP" tells activity just now from activity a GAP ago.
    const GAP: Duration = Duration::from_millis(300);

    #[test]
    fn counts_what_is_in_flight_from_the_start_of_watching() {
        let mut w = NetWatch::default();
        let sent = json!({"requestId": "1"});
        w.event("Network.requestWillBeSent", &sent);
        assert_eq!(w.look(), None, "nothing is known before watching begins");
        w.start();
        w.event("Network.requestWillBeSent", &sent);
        // A redirect is the same request again.
        w.event("Network.requestWillBeSent", &sent);
        w.event("Network.requestWillBeSent", &json!({"requestId": "2"}));
        w.event("Network.dataReceived", &json!({"requestId": "2"}));
        let l = w.look().unwrap();
        assert_eq!((l.open, l.idle), (2, Duration::ZERO));
        w.event("Network.loadingFinished", &sent);
        assert_eq!(w.look().unwrap().open, 1);
        std::thread::sleep(GAP);
        w.event("Network.loadingFailed", &json!({"requestId": "2"}));
        let l = w.look().unwrap();
        assert_eq!(l.open, 0);
        assert!(l.idle < GAP, "idle since the last finish: {l:?}");
        std::thread::sleep(GAP);
        // One that started before watching: its end is activity too.
        w.event("Network.loadingFinished", &json!({"requestId": "old"}));
        assert!(w.look().unwrap().idle < GAP);
        w.event("Network.requestWillBeSent", &json!({"requestId": "3"}));
        w.renderer_gone();
        assert_eq!(w.look().unwrap().open, 0);
        w.event("Network.requestWillBeSent", &json!({"requestId": "4"}));
        w.new_document();
        let l = w.look().unwrap();
        assert_eq!(l.open, 0, "the old document's requests are not the new one's");
        assert!(l.idle < GAP);
    }
}
