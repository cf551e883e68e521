//! What the kinds' parts of a lane (`KindPart`: a Gaps search, a Morpion proof or unit)
//! use of the runner: the store, the memory and threads they wait for, the busy count,
//! the solver priority, giving way to single jobs, and the periodic conclusion of
//! parts; and what every kind of job shares at its end: one retry policy for storing
//! how it ended, and one counter of ends.
//!
//! Invariant: such work runs only on threads the lane took for it
//! (`Runner::take_threads`), so the pool's bound covers it.

use super::wait::wait_for;
use super::Runner;
use crate::service::config::SolverPriority;
use crate::service::job::JobState;
use crate::service::resources::memory::MemoryDraw;
use crate::service::resources::metrics::{EndVerdict, JobKind};
use crate::service::store::database_unavailable;
use crate::service::store::Store;
use gaps_engine::PauseGate;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::SemaphorePermit;

impl Runner {
    /// The store the runner claims from.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Ends what each kind left half done (see [`super::KindPart::conclude_leftovers`]).
    pub async fn conclude_leftovers(&self) -> sqlx::Result<()> {
        for part in self.parts.all() {
            part.conclude_leftovers(self).await?;
        }
        Ok(())
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

    /// `mb` MiB of the node's search memory, waited for (nudging a deepening search
    /// that may hold it); `None` once `flag` rose while it waited.
    pub(crate) async fn wait_search_memory(
        &self,
        mb: usize,
        flag: &AtomicBool,
    ) -> Option<MemoryDraw<'_>> {
        wait_for(&self.memory, mb, flag, &|| self.preempt_deepening())
            .await
            .map(|permit| MemoryDraw::new(permit, mb, &self.metrics))
    }

    /// The memory a single lane's solver holds while it runs (`give_way`), waited for
    /// as [`Runner::wait_search_memory`].
    pub(crate) async fn wait_single_lane_memory(
        &self,
        flag: &AtomicBool,
    ) -> Option<SemaphorePermit<'_>> {
        wait_for(&self.memory, self.single_lane_mb, flag, &|| {
            self.preempt_deepening()
        })
        .await
    }

    /// Lets the batch job `id`, running on `threads` of the pool's threads, give way to
    /// single jobs (`give_way`): the gate its search pauses at.
    pub(crate) fn may_give_way(&self, id: &str, threads: usize) -> Arc<PauseGate> {
        self.givers.add(id, threads)
    }

    /// The batch job `id` ended: it gives way no more.
    pub(crate) fn no_longer_gives_way(&self, id: &str) {
        self.givers.remove(id);
    }
}
