//! Session bookkeeping for the listener: a cap on live sessions, least-recently-used eviction
//! of idle ones past the cap, and idle expiry.
//!
//! rmcp's [`LocalSessionManager`] keeps every session until its worker has seen no event for
//! `keep_alive`, with no bound on how many exist at once. [`SessionPool`] wraps it: the idle
//! expiry is rmcp's own `keep_alive` (the worker quits, and rmcp then calls
//! [`SessionPool::close_session`]), and the cap is enforced here when a session is created.
//!
//! Past the cap, the least-recently-used session with no request in flight is closed to make
//! room, rather than the new client being refused. Why:
//! - clients that die without a DELETE (a crashed or killed agent, a test loop) leave sessions
//!   behind; refusing new ones would lock the human's next client out until those expire;
//! - a session holds no state worth keeping: tabs, page models and refs belong to the browser,
//!   not to the connection, so an evicted client loses nothing but its session id. It gets
//!   404 on its next request, which the MCP spec tells clients to answer by initializing
//!   again (rmcp's client does so transparently);
//! - every session belongs to a holder of the launch token, who can already drive the whole
//!   browser, so eviction hands no one a power they did not have.
//!
//! A session with a request in flight is never evicted (its answer would be lost mid-call);
//! when every session is busy, the new one is refused (the HTTP layer answers 503).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt as _};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

/// Why a session could not be created or reached.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PoolError {
    /// rmcp's own session store failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    /// Every slot is taken by a session with a request in flight.
    #[error("{}", full_sentence(*.0))]
    Full(usize),
}

/// The sentence a refused client reads.
pub(crate) fn full_sentence(max: usize) -> String {
    format!(
        "too many MCP sessions: all {max} are busy with a request; retry in a few seconds, or \
         end a session you no longer use (DELETE /mcp with its Mcp-Session-Id header)"
    )
}

#[derive(Debug)]
struct Activity {
    last_used: Instant,
    /// POST response streams of this session still open (a tool call being answered).
    in_flight: usize,
}

#[derive(Debug, Default)]
struct State {
    sessions: HashMap<SessionId, Activity>,
    /// Slots promised to sessions being created (counted against the cap before they exist,
    /// so two concurrent creations cannot both take the last slot).
    reserved: usize,
}

/// What creating one more session would take.
enum Room {
    Free,
    Evict(SessionId),
    Full,
}

impl State {
    fn room(&self, max: usize) -> Room {
        if self.sessions.len() + self.reserved < max {
            return Room::Free;
        }
        self.sessions
            .iter()
            .filter(|(_, a)| a.in_flight == 0)
            .min_by_key(|(_, a)| a.last_used)
            .map_or(Room::Full, |(id, _)| Room::Evict(id.clone()))
    }

    fn touch(&mut self, id: &SessionId) {
        if let Some(a) = self.sessions.get_mut(id) {
            a.last_used = Instant::now();
        }
    }
}

/// rmcp's in-memory session manager with a cap and idle expiry.
#[derive(Debug)]
pub(crate) struct SessionPool {
    inner: LocalSessionManager,
    max: usize,
    state: Arc<Mutex<State>>,
    /// Held by the HTTP layer across "is there room?" and the initialize that creates the
    /// session, so its 503 decision and the creation are one step.
    admission: tokio::sync::Mutex<()>,
}

impl SessionPool {
    /// A pool of at most `max` sessions (at least one), each closed after `idle` without
    /// activity.
    pub(crate) fn new(max: usize, idle: Duration) -> SessionPool {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        SessionPool {
            inner,
            max: max.max(1),
            state: Arc::default(),
            admission: tokio::sync::Mutex::new(()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The lock guards plain bookkeeping updated in single statements; a panic elsewhere
        // cannot leave it half-written, so a poisoned lock is still good.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cap.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// Sessions open now.
    pub(crate) fn len(&self) -> usize {
        self.state().sessions.len()
    }

    /// Serialises session creation (see the field's comment).
    pub(crate) async fn admission(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.admission.lock().await
    }

    /// Whether one more session can be created (possibly by evicting an idle one).
    pub(crate) fn has_room(&self) -> bool {
        !matches!(self.state().room(self.max), Room::Full)
    }

    fn touch(&self, id: &SessionId) {
        self.state().touch(id);
    }

    /// Marks a request of `id` in flight until the returned guard is dropped.
    fn busy(&self, id: &SessionId) -> Busy {
        let mut s = self.state();
        if let Some(a) = s.sessions.get_mut(id) {
            a.in_flight += 1;
            a.last_used = Instant::now();
        }
        Busy {
            state: self.state.clone(),
            id: id.clone(),
        }
    }
}

/// A request in flight; counts against eviction until dropped.
struct Busy {
    state: Arc<Mutex<State>>,
    id: SessionId,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(a) = s.sessions.get_mut(&self.id) {
            a.in_flight = a.in_flight.saturating_sub(1);
            // The end of an answer is activity too: LRU order runs from the last moment the
            // session was used, not from when its last call started.
            a.last_used = Instant::now();
        }
    }
}

/// Releases a reserved slot if creation fails before the session is recorded.
struct Reservation<'a>(&'a SessionPool, bool);

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if self.1 {
            let mut s = self.0.state();
            s.reserved = s.reserved.saturating_sub(1);
        }
    }
}

impl SessionManager for SessionPool {
    type Error = PoolError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let victim = {
            let mut s = self.state();
            let victim = match s.room(self.max) {
                Room::Free => None,
                Room::Evict(id) => {
                    s.sessions.remove(&id);
                    Some(id)
                }
                Room::Full => return Err(PoolError::Full(self.max)),
            };
            s.reserved += 1;
            victim
        };
        let mut reservation = Reservation(self, true);
        if let Some(id) = victim {
            tracing::info!(
                session = %id,
                max = self.max,
                "MCP session limit reached: closing the least recently used idle session"
            );
            if let Err(e) = self.inner.close_session(&id).await {
                tracing::warn!(session = %id, error = %e, "closing an evicted session failed");
            }
        }
        let (id, transport) = self.inner.create_session().await?;
        {
            let mut s = self.state();
            s.reserved = s.reserved.saturating_sub(1);
            reservation.1 = false;
            s.sessions.insert(
                id.clone(),
                Activity {
                    last_used: Instant::now(),
                    in_flight: 0,
                },
            );
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Also reached when rmcp's idle timer ends a session's worker: that is how expiry
        // leaves the bookkeeping.
        self.state().sessions.remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let busy = self.busy(id);
        let stream = self.inner.create_stream(id, message).await?;
        // The guard lives as long as the response stream: the request is in flight until the
        // HTTP layer drops the stream (answer sent, or client gone).
        Ok(stream.map(move |m| {
            let _in_flight = &busy;
            m
        }))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // A standalone GET stream is a client listening, not a request in flight: it does not
        // protect the session from eviction (else every connected client would be unevictable).
        self.touch(id);
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // Only reached with an external session store, which this listener does not configure.
        Ok(self.inner.restore_session(id).await?)
    }
}
