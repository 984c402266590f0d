//! Waiting for something asynchronous without guessing how long it takes.
//!
//! A fixed sleep before an assertion races the machine: on a loaded 2-core CI runner a
//! fixture server's request log, a file on disk or a page's state can arrive seconds later
//! than on a quiet laptop. These poll until the condition holds, up to a deadline generous
//! enough for a real browser under load, and on failure show what was last observed.
//!
//! They only wait for something to happen. A test that something happens *exactly once*
//! (or not at all) still needs its own short settle after this returns, then an exact check.

use std::fmt::Debug;
use std::time::{Duration, Instant};

/// How often the probe runs.
const EVERY: Duration = Duration::from_millis(50);

/// Runs `probe` every 50 ms until it returns `(true, seen)`, and returns `seen`. Panics once
/// `within` has passed with `what` and the last `seen` (the probe runs one final time at the
/// deadline, so a slow probe still gets its last look). For async tests; see [`eventually_blocking`]
/// for tests on plain threads.
#[cfg(feature = "browser")]
pub async fn eventually<V: Debug>(
    within: Duration,
    what: &str,
    mut probe: impl AsyncFnMut() -> (bool, V),
) -> V {
    let start = Instant::now();
    loop {
        let (done, seen) = probe().await;
        if done {
            return seen;
        }
        if start.elapsed() >= within {
            panic!("{what}: not within {within:?}; last seen: {seen:?}");
        }
        tokio::time::sleep(EVERY).await;
    }
}

/// [`eventually`] for tests that run on plain threads (no async runtime).
pub fn eventually_blocking<V: Debug>(
    within: Duration,
    what: &str,
    mut probe: impl FnMut() -> (bool, V),
) -> V {
    let start = Instant::now();
    loop {
        let (done, seen) = probe();
        if done {
            return seen;
        }
        if start.elapsed() >= within {
            panic!("{what}: not within {within:?}; last seen: {seen:?}");
        }
        std::thread::sleep(EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn returns_what_it_saw_once_the_condition_holds() {
        let n = AtomicUsize::new(0);
        let got = eventually_blocking(Duration::from_secs(5), "three", || {
            let v = n.fetch_add(1, Ordering::Relaxed) + 1;
            (v >= 3, v)
        });
        assert_eq!(got, 3);
    }

    #[test]
    fn panics_with_the_last_value_at_the_deadline() {
        let r = std::panic::catch_unwind(|| {
            eventually_blocking(Duration::from_millis(120), "never true", || (false, "stale"))
        });
        let msg = *r.expect_err("it gave up").downcast::<String>().unwrap();
        assert!(msg.contains("never true") && msg.contains("\"stale\""), "{msg}");
    }

    #[cfg(feature = "browser")]
    #[tokio::test]
    async fn the_async_one_waits_without_blocking_the_runtime() {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let f = flag.clone();
        // Same thread: only runs if `eventually` yields between probes.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            f.store(true, Ordering::Relaxed);
        });
        let seen = eventually(Duration::from_secs(5), "the flag", async || {
            let v = flag.load(Ordering::Relaxed);
            (v, v)
        })
        .await;
        assert!(seen);
    }
}
