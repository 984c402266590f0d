//! The one thread that writes to `places.sqlite`.
//!
//! Jobs arrive over a channel. The writer takes every job already queued (up to a batch) into
//! one transaction, each job in a savepoint of its own: a failing job rolls back alone, and a
//! burst of visits costs one commit. Answers are given only after the commit, so a caller that
//! got `Ok` knows the change is in the database.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError};

use rusqlite::Connection;

use crate::db;
use crate::error::sqlite_damage;

/// Told whether the transaction the job ran in committed (`Err` carries SQLite's message).
pub(crate) type Finish = Box<dyn FnOnce(Result<(), &str>) + Send>;
/// Runs on the writer's connection; returns whether it succeeded (else its savepoint is rolled
/// back) and what to do once the batch is committed.
pub(crate) type Job = Box<dyn FnOnce(&Connection) -> (bool, Finish) + Send>;

pub(crate) enum Msg {
    Job(Job),
    /// Sent when the last `Places` handle is dropped: finish what is queued, then stop.
    Shutdown,
}

const BATCH: usize = 512;

pub(crate) fn run(mut conn: Connection, jobs: Receiver<Msg>, path: PathBuf) {
    let mut stop = false;
    while !stop {
        let Ok(first) = jobs.recv() else { break };
        let mut batch = Vec::new();
        match first {
            Msg::Job(job) => batch.push(job),
            Msg::Shutdown => stop = true,
        }
        while !stop && batch.len() < BATCH {
            match jobs.try_recv() {
                Ok(Msg::Job(job)) => batch.push(job),
                Ok(Msg::Shutdown) => stop = true,
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        if !batch.is_empty() {
            run_batch(&mut conn, batch, &path);
        }
    }
    // Lets SQLite refresh its planner statistics where they drifted; cheap when nothing did.
    if let Err(e) = conn.execute_batch("PRAGMA optimize") {
        tracing::debug!(error = %e, "PRAGMA optimize at close");
    }
}

fn run_batch(conn: &mut Connection, batch: Vec<Job>, path: &std::path::Path) {
    let note = |e: &rusqlite::Error| {
        if sqlite_damage(e) {
            db::note_damage(path, e);
        }
    };
    let mut tx = match conn.transaction() {
        Ok(tx) => tx,
        Err(e) => {
            note(&e);
            // Dropping the jobs answers their callers with `Error::Abandoned`.
            tracing::error!(error = %e, jobs = batch.len(), "places writer could not begin a transaction");
            return;
        }
    };
    let mut finishes: Vec<Finish> = Vec::with_capacity(batch.len());
    for job in batch {
        let sp = match tx.savepoint() {
            Ok(sp) => sp,
            Err(e) => {
                note(&e);
                tracing::error!(error = %e, "places writer could not open a savepoint");
                continue;
            }
        };
        match catch_unwind(AssertUnwindSafe(|| job(&sp))) {
            Ok((true, finish)) => match sp.commit() {
                Ok(()) => finishes.push(finish),
                Err(e) => {
                    note(&e);
                    finish(Err(&e.to_string()));
                }
            },
            // The savepoint rolls back when dropped.
            Ok((false, finish)) => finishes.push(finish),
            Err(_) => tracing::error!("a places write panicked; its changes were rolled back"),
        }
    }
    let committed = tx.commit();
    if let Err(e) = &committed {
        note(e);
        tracing::error!(error = %e, "places writer could not commit");
    }
    let committed = committed.map_err(|e| e.to_string());
    for finish in finishes {
        finish(committed.as_ref().map(|_| ()).map_err(String::as_str));
    }
}
