//! What the work of other rooms uses of the runner: a Morpion proof run by a lane
//! (`morpion::run_claimed`: the store, the threads, the busy count, the solver
//! priority) and the units of shared Morpion proofs, searched outside the lanes (the
//! registry of running work, so cancels, progress and shutdown reach them, the work
//! signal, the queue role, the pool's threads, the waiters of a job); and what every
//! kind of job shares at its end: one retry policy for storing how it ended, and one
//! counter of ends.
//!
//! Invariant: such work holds the same `cores` permits as the lanes, so the pool's
//! bound covers it.

use super::{wait_for, Runner, Running};
use crate::service::error::database_unavailable;
use crate::service::solver_pool::SolverPriority;
use crate::service::store::{Lease, Store};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, SemaphorePermit};

impl Runner {
    /// The store the runner claims from.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Counts `busy` of the pool's threads as searching (`start`) or no longer.
    pub(crate) fn count_busy(&self, busy: usize, start: bool) {
        match start {
            true => self.metrics.solvers_busy.inc_by(busy as i64),
            false => self.metrics.solvers_busy.dec_by(busy as i64),
        };
    }

    /// Registers a job run outside the lanes (a Morpion proof): `stop_running`,
    /// `progress` and shutdown then reach it as they reach a lane's job.
    pub(crate) fn register(&self, id: &str, cancel: Arc<AtomicBool>, progress: Arc<AtomicU64>) {
        self.running.lock().expect("running map").insert(
            id.to_string(),
            Running {
                cancel,
                progress,
                status: Default::default(),
            },
        );
    }

    /// Forgets a job registered with [`Runner::register`].
    pub(crate) fn unregister(&self, id: &str) {
        self.running.lock().expect("running map").remove(id);
    }

    /// Wakes when jobs were queued (or shutdown began).
    pub(crate) fn work_signal(&self) -> &Notify {
        &self.wake
    }

    /// This node's claims and how often a running job's lease is renewed.
    pub(crate) fn queue_role(&self) -> (&Lease, Duration) {
        (&self.lease, self.heartbeat)
    }

    /// The CPU priority of solver threads.
    pub(crate) fn priority(&self) -> SolverPriority {
        self.priority
    }

    /// One of the pool's threads, waited for (`None` if `flag` rises meanwhile), and up
    /// to `extra` more that are idle now: a search outside the lanes is bounded by the
    /// same pool.
    pub(crate) async fn cores(
        &self,
        flag: &AtomicBool,
        extra: usize,
    ) -> (Option<SemaphorePermit<'_>>, Vec<SemaphorePermit<'_>>) {
        let own = wait_for(&self.cores, 1, flag, &|| self.preempt_deepening()).await;
        let extra = match own {
            Some(_) => self.idle_cores(extra),
            None => Vec::new(),
        };
        (own, extra)
    }
}

impl Runner {
    /// Stores how job `id` ended with `write` (true: stored; false: fenced, the lease
    /// was taken back and the job's current holder decides), one policy for every kind
    /// of job. A lost write would leave the job `running` until its lease is taken back
    /// and it runs again, so while the database is away (full disk, busy, unreachable)
    /// the result is kept and the write retried, backing off to 5 s, until it returns
    /// or this process stops; other errors are retried a few times.
    pub(crate) async fn finish_retrying<F, Fut>(&self, id: &str, write: F) -> sqlx::Result<bool>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = sqlx::Result<bool>>,
    {
        let mut attempt = 0u32;
        loop {
            match write().await {
                Ok(true) => return Ok(true),
                Ok(false) => {
                    tracing::warn!(job = %id, "result discarded: the job's lease was taken back");
                    return Ok(false);
                }
                Err(e) if attempt < 5 || (database_unavailable(&e) && !self.is_shutting_down()) => {
                    attempt += 1;
                    tracing::warn!(job = %id, error = %e, "storing the result failed; retrying");
                    let pause =
                        Duration::from_millis(100 << attempt.min(6)).min(Duration::from_secs(5));
                    tokio::time::sleep(pause).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Counts a job of `game` (`gaps`, `morpion`) that ended in `state` with `verdict`
    /// (empty when it has none) in `gaps_jobs_finished_total`.
    pub(crate) fn count_finished(&self, game: &str, state: &str, verdict: &str) {
        self.metrics
            .jobs_finished
            .get_or_create(&vec![
                ("game", game.to_string()),
                ("state", state.to_string()),
                ("verdict", verdict.to_string()),
            ])
            .inc();
    }
}
