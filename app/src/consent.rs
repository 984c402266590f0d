//! The human's consent to the agent's vault fills, asked in the window.
//!
//! A fill on an origin the human has not approved raises a sheet in the browser window
//! naming the origin (read from the tab by the browser) and the fields; the agent's call
//! waits for Allow once / Always for this site / Deny, and is refused when nobody answers in
//! time. The sheet is chrome, not page: the agent's input reaches pages only, and no tool
//! lists, captures or answers it. "Always" is remembered per origin in
//! `<profile>/vault-consent.json` (0600, written atomically) and can be forgotten by deleting
//! the line there; a headless browser has no human to ask and keeps the start-up allowlist
//! (`--vault-allow-fill`).
//!
//! Requests are answered one at a time, oldest first; those behind the first wait their turn
//! (and their own deadline). A request whose agent call gave up (timed out, or the call was
//! dropped) leaves the queue, so the human is never asked about something nobody waits for.

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use aperture_ui::{ConsentAnswer, VaultConsentView};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

/// The file "Always for this site" answers are kept in, in the profile.
pub const FILE: &str = "vault-consent.json";

/// Why a fill did not get the human's yes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The human chose Deny (or pressed Escape).
    Denied,
    /// Nobody answered in time.
    TimedOut(Duration),
}

/// What the agent asks to fill, as the human will read it.
pub struct Request {
    /// What is asked, as the sheet's title ends: "fill from your vault".
    pub what: String,
    /// Ask even when the human said "Always" for this origin (sensitive profile facts).
    pub fresh: bool,
    /// The tab's page origin, read by the browser.
    pub origin: String,
    /// Fields in human words.
    pub fields: Vec<String>,
    /// The tab's title.
    pub tab_title: String,
}

struct Pending {
    id: u64,
    req: Request,
    reply: oneshot::Sender<ConsentAnswer>,
}

#[derive(Default, Serialize, Deserialize)]
struct Saved {
    /// Origins the human answered "Always for this site" for.
    always: BTreeSet<String>,
}

struct Inner {
    next_id: u64,
    queue: VecDeque<Pending>,
    saved: Saved,
}

/// The consent broker between the fill path (any thread) and the window (UI thread).
pub struct Consent {
    path: PathBuf,
    timeout: Duration,
    /// Wakes the window so it shows (or hides) the sheet.
    wake: Box<dyn Fn() + Send + Sync>,
    inner: Mutex<Inner>,
}

impl Consent {
    /// The profile's broker. A damaged `vault-consent.json` is moved aside and every origin
    /// asks again: forgetting a yes is safe, inventing one is not.
    pub fn load(profile: &Path, wake: Box<dyn Fn() + Send + Sync>, timeout: Duration) -> Consent {
        let path = profile.join(FILE);
        let saved = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                let aside = path.with_extension("json.damaged");
                tracing::warn!(
                    "{}: {e}; moved to {} and asking again",
                    path.display(),
                    aside.display()
                );
                let _ = std::fs::rename(&path, &aside);
                Saved::default()
            }),
            Err(_) => Saved::default(),
        };
        Consent {
            path,
            timeout,
            wake,
            inner: Mutex::new(Inner {
                next_id: 1,
                queue: VecDeque::new(),
                saved,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the human said "Always for this site" for `origin`.
    pub fn always(&self, origin: &str) -> bool {
        self.lock().saved.always.contains(origin)
    }

    /// Asks the human and waits for the answer, at most the broker's timeout.
    pub async fn ask(&self, req: Request) -> Result<(), Refusal> {
        if !req.fresh && self.always(&req.origin) {
            return Ok(());
        }
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut g = self.lock();
            let id = g.next_id;
            g.next_id += 1;
            g.queue.push_back(Pending { id, req, reply: tx });
            id
        };
        (self.wake)();
        // Whatever happens to this call, its request leaves the queue with it.
        let _gone = Dequeue { consent: self, id };
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(ConsentAnswer::Once | ConsentAnswer::Always)) => Ok(()),
            Ok(Ok(ConsentAnswer::Deny)) | Ok(Err(_)) => Err(Refusal::Denied),
            Err(_) => Err(Refusal::TimedOut(self.timeout)),
        }
    }

    /// The request the window shows now.
    pub fn current(&self) -> Option<VaultConsentView> {
        let g = self.lock();
        g.queue.front().map(|p| VaultConsentView {
            id: p.id,
            what: p.req.what.clone(),
            origin: p.req.origin.clone(),
            fields: p.req.fields.clone(),
            tab_title: p.req.tab_title.clone(),
            waiting: g.queue.len() - 1,
        })
    }

    /// The human's answer to request `id`.
    pub fn answer(&self, id: u64, answer: ConsentAnswer) {
        let pending = {
            let mut g = self.lock();
            let Some(at) = g.queue.iter().position(|p| p.id == id) else {
                return;
            };
            let p = g.queue.remove(at).expect("position is in range");
            // A fresh question's "Always" is this answer only: what it asked for asks every time.
            if answer == ConsentAnswer::Always
                && !p.req.fresh
                && g.saved.always.insert(p.req.origin.clone())
                && let Err(e) = self.save(&g.saved)
            {
                tracing::warn!(
                    "{}: {e}; the yes holds until the browser quits",
                    self.path.display()
                );
            }
            p
        };
        // The call may have given up meanwhile; then there is nobody to tell.
        let _ = pending.reply.send(answer);
        (self.wake)();
    }

    fn save(&self, saved: &Saved) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(saved).map_err(std::io::Error::other)?;
        aperture_common::fs::write_atomic(&self.path, &json)
    }
}

/// Drops a request from the queue when its waiting call ends, answered or not.
struct Dequeue<'a> {
    consent: &'a Consent,
    id: u64,
}

impl Drop for Dequeue<'_> {
    fn drop(&mut self) {
        let mut g = self.consent.lock();
        let before = g.queue.len();
        g.queue.retain(|p| p.id != self.id);
        if g.queue.len() != before {
            drop(g);
            (self.consent.wake)();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn broker(dir: &Path, timeout: Duration) -> (Arc<Consent>, Arc<AtomicUsize>) {
        let wakes = Arc::new(AtomicUsize::new(0));
        let w = wakes.clone();
        let c = Consent::load(
            dir,
            Box::new(move || {
                w.fetch_add(1, Ordering::SeqCst);
            }),
            timeout,
        );
        (Arc::new(c), wakes)
    }

    fn req(origin: &str) -> Request {
        Request {
            what: "fill from your vault".into(),
            fresh: false,
            origin: origin.into(),
            fields: vec!["username".into(), "password".into()],
            tab_title: "Sign in".into(),
        }
    }

    async fn shown(c: &Consent) -> VaultConsentView {
        aperture_testkit::eventually(Duration::from_secs(20), "the request showing", async || {
            let v = c.current();
            (v.is_some(), v)
        })
        .await
        .expect("shown")
    }

    #[tokio::test]
    async fn once_allows_one_request_and_remembers_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (c, wakes) = broker(dir.path(), Duration::from_secs(10));
        let asking = tokio::spawn({
            let c = c.clone();
            async move { c.ask(req("https://a.example")).await }
        });
        let v = shown(&c).await;
        assert_eq!((v.origin.as_str(), v.waiting), ("https://a.example", 0));
        assert_eq!(v.fields, ["username", "password"]);
        assert!(
            wakes.load(Ordering::SeqCst) >= 1,
            "the window is woken to show it"
        );
        c.answer(v.id, ConsentAnswer::Once);
        assert_eq!(asking.await.unwrap(), Ok(()));
        assert!(c.current().is_none());
        assert!(!c.always("https://a.example"));
        assert!(!dir.path().join(FILE).exists());
    }

    #[tokio::test]
    async fn deny_refuses_and_always_is_remembered_across_a_restart_per_origin() {
        let dir = tempfile::tempdir().unwrap();
        let (c, _) = broker(dir.path(), Duration::from_secs(10));
        let asking = tokio::spawn({
            let c = c.clone();
            async move { c.ask(req("https://a.example")).await }
        });
        let v = shown(&c).await;
        c.answer(v.id, ConsentAnswer::Deny);
        assert_eq!(asking.await.unwrap(), Err(Refusal::Denied));

        let asking = tokio::spawn({
            let c = c.clone();
            async move { c.ask(req("https://a.example")).await }
        });
        let v = shown(&c).await;
        c.answer(v.id, ConsentAnswer::Always);
        assert_eq!(asking.await.unwrap(), Ok(()));
        let path = dir.path().join(FILE);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );

        // A new browser: the same origin passes without asking; another origin still asks.
        let (c2, _) = broker(dir.path(), Duration::from_millis(200));
        assert_eq!(c2.ask(req("https://a.example")).await, Ok(()));
        assert!(c2.always("https://a.example"));
        assert!(!c2.always("https://a.example:8443"), "per origin, port included");
        assert_eq!(
            c2.ask(req("https://b.example")).await,
            Err(Refusal::TimedOut(Duration::from_millis(200)))
        );
    }

    #[tokio::test]
    async fn an_unanswered_request_times_out_and_leaves_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        // Long enough that the second request is queued behind the first before the first
        // gives up, even when a loaded machine stalls this thread for seconds.
        let timeout = Duration::from_secs(5);
        let (c, _) = broker(dir.path(), timeout);
        let first = tokio::spawn({
            let c = c.clone();
            async move { c.ask(req("https://a.example")).await }
        });
        let v = shown(&c).await;
        let second = tokio::spawn({
            let c = c.clone();
            async move { c.ask(req("https://b.example")).await }
        });
        aperture_testkit::eventually(
            Duration::from_secs(20),
            "the second request queued behind the first",
            async || {
                let v = c.current();
                (v.as_ref().map(|v| v.waiting) == Some(1), v)
            },
        )
        .await;
        assert_eq!(first.await.unwrap(), Err(Refusal::TimedOut(timeout)));
        // The late answer to a request nobody waits for does nothing.
        c.answer(v.id, ConsentAnswer::Always);
        assert!(!c.always("https://a.example"));
        let _ = second.await.unwrap();
        assert!(c.current().is_none(), "nothing left for the human to answer");
    }

    #[test]
    fn a_damaged_file_is_moved_aside_and_every_origin_asks_again() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        let (c, _) = broker(dir.path(), Duration::from_millis(10));
        assert!(!c.always("https://a.example"));
        assert!(dir.path().join("vault-consent.json.damaged").exists());
    }
}
