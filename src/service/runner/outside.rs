//! What work outside the lanes (Morpion proofs and their shared units) uses of the
//! runner: the registry of running jobs (so cancels, progress and shutdown reach
//! them), the work signal, the queue role, the solver priority, the pool's threads
//! and the waiters of a job.
//!
//! Invariant: such work holds the same `cores` permits as the lanes, so the pool's
//! bound covers it.

use super::{wait_for, Runner, Running};
use crate::service::solver_pool::SolverPriority;
use crate::service::store::Lease;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, Notify, SemaphorePermit};

impl Runner {
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

    /// A receiver woken when job `id` ends on this node (see [`Runner::wake_waiters`]).
    pub(crate) fn waiter(&self, id: &str) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        let mut waiters = self.waiters.lock().expect("waiters map");
        let list = waiters.entry(id.to_string()).or_default();
        list.retain(|w| !w.is_closed());
        list.push(tx);
        rx
    }
}
