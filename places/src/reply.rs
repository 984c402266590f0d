//! A one-shot answer from the writer thread: wait for it, poll it, or `.await` it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::Error;

struct State<T> {
    value: Option<Result<T, Error>>,
    // The writer dropped the request without answering (it stopped, or the batch could not start).
    abandoned: bool,
    waker: Option<Waker>,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    ready: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while holding this lock cannot leave the state half-written (each critical
        // section is one assignment), so a poisoned lock is still coherent.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The result of a write that the caller may want to know about.
///
/// The write happens whether or not anyone looks at this (unlike most futures, it need not be
/// polled): dropping a `Reply` does not cancel it, and the writer logs failures either way.
/// [`Reply::wait`] blocks until the write is committed, so the UI thread should rather use
/// [`Reply::try_take`] each frame, or `.await` it on an executor.
pub struct Reply<T> {
    shared: Arc<Shared<T>>,
}

/// The writer's end of a [`Reply`].
pub(crate) struct Slot<T> {
    shared: Option<Arc<Shared<T>>>,
}

pub(crate) fn pair<T>() -> (Reply<T>, Slot<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            value: None,
            abandoned: false,
            waker: None,
        }),
        ready: Condvar::new(),
    });
    (
        Reply {
            shared: shared.clone(),
        },
        Slot { shared: Some(shared) },
    )
}

impl<T> Reply<T> {
    /// A reply that is already answered (used when a request is refused before it is queued).
    pub(crate) fn ready(value: Result<T, Error>) -> Self {
        let (reply, slot) = pair();
        slot.set(value);
        reply
    }

    /// Blocks until the writer has answered (after the write is committed or has failed).
    pub fn wait(self) -> Result<T, Error> {
        let mut state = self.shared.lock();
        loop {
            if let Some(value) = state.value.take() {
                return value;
            }
            if state.abandoned {
                return Err(Error::Abandoned);
            }
            state = self
                .shared
                .ready
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// The answer if it has arrived; `None` while the write is still queued or running.
    /// After it has returned `Some`, it returns `None` forever.
    pub fn try_take(&mut self) -> Option<Result<T, Error>> {
        let mut state = self.shared.lock();
        if let Some(value) = state.value.take() {
            return Some(value);
        }
        if state.abandoned {
            state.abandoned = false;
            return Some(Err(Error::Abandoned));
        }
        None
    }
}

impl<T> Future for Reply<T> {
    type Output = Result<T, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.shared.lock();
        if let Some(value) = state.value.take() {
            return Poll::Ready(value);
        }
        if state.abandoned {
            return Poll::Ready(Err(Error::Abandoned));
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl<T> std::fmt::Debug for Reply<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reply")
    }
}

impl<T> Slot<T> {
    pub(crate) fn set(mut self, value: Result<T, Error>) {
        if let Some(shared) = self.shared.take() {
            let waker = {
                let mut state = shared.lock();
                state.value = Some(value);
                state.waker.take()
            };
            shared.ready.notify_all();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let waker = {
                let mut state = shared.lock();
                state.abandoned = true;
                state.waker.take()
            };
            shared.ready.notify_all();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Wake;

    #[test]
    fn wait_returns_the_value_set_on_another_thread() {
        let (reply, slot) = pair::<u32>();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            slot.set(Ok(7));
        });
        assert_eq!(reply.wait().unwrap(), 7);
        t.join().unwrap();
    }

    #[test]
    fn a_dropped_slot_is_abandoned_not_a_hang() {
        let (reply, slot) = pair::<u32>();
        drop(slot);
        assert!(matches!(reply.wait(), Err(Error::Abandoned)));
    }

    #[test]
    fn try_take_is_none_until_answered_then_once() {
        let (mut reply, slot) = pair::<&'static str>();
        assert!(reply.try_take().is_none());
        slot.set(Ok("done"));
        assert_eq!(reply.try_take().unwrap().unwrap(), "done");
        assert!(reply.try_take().is_none());
    }

    struct Flag(std::sync::atomic::AtomicBool);
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn poll_registers_the_waker_and_is_woken_by_set() {
        let (mut reply, slot) = pair::<u8>();
        let flag = Arc::new(Flag(false.into()));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut reply).poll(&mut cx).is_pending());
        slot.set(Ok(3));
        assert!(flag.0.load(std::sync::atomic::Ordering::SeqCst));
        assert!(matches!(Pin::new(&mut reply).poll(&mut cx), Poll::Ready(Ok(3))));
    }
}
