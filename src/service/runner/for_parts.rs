//! What the part of another room that a lane runs (a Morpion proof or unit: the
//! runner's `MorpionPart`) uses of the runner: the store, the busy count, the solver
//! priority and the periodic conclusion of parts; and what every kind of job shares at
//! its end: one retry policy for storing how it ended, and one counter of ends.
//!
//! Invariant: such work runs only on threads the lane took for it
//! (`Runner::take_threads`), so the pool's bound covers it.

use super::Runner;
use crate::service::config::SolverPriority;
use crate::service::job::JobState;
use crate::service::resources::metrics::{EndVerdict, JobKind};
use crate::service::store::database_unavailable;
use crate::service::store::Store;
use std::time::Duration;

impl Runner {
    /// The store the runner claims from.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Concludes the parts of jobs left unconcluded (see [`super::MorpionPart`]).
    pub async fn conclude_leftovers(&self) -> sqlx::Result<()> {
        self.morpion.conclude_leftovers(self).await
    }

    /// Counts a search of any game that ended: `nodes` searched in `elapsed`
    /// (`gaps_solver_nodes_total`, `gaps_solver_seconds_total`,
    /// `gaps_solve_duration_seconds`).
    pub(crate) fn count_search(&self, nodes: u64, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        self.metrics.solver_nodes.inc_by(nodes);
        self.metrics.solver_seconds.inc_by(secs);
        self.metrics.solve_seconds.observe(secs);
    }

    /// Counts `busy` of the pool's threads as searching (`start`) or no longer.
    pub(crate) fn count_busy(&self, busy: usize, start: bool) {
        match start {
            true => self.metrics.solvers_busy.inc_by(busy as i64),
            false => self.metrics.solvers_busy.dec_by(busy as i64),
        };
    }

    /// The CPU priority of solver threads.
    pub(crate) fn priority(&self) -> SolverPriority {
        self.priority
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

    /// Counts a job of `game` that ended in `state` with `verdict` in
    /// `gaps_jobs_finished_total`.
    pub(crate) fn count_finished(&self, game: JobKind, state: JobState, verdict: EndVerdict) {
        self.metrics.count_finished(game, state, verdict);
    }
}
