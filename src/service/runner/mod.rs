//! The job runner: one async "lane" per solver thread claims the next queued job (single
//! jobs first, clients in turn: `Store::claim_next`) and hands it to its kind's part
//! (`parts`: `service::gaps` answers a Gaps job from a known verdict or solves it on
//! the lane's thread; `service::morpion` proves); one "single lane" per solver
//! thread runs single jobs on the threads of a batch job that gives way
//! (`give_way`); plus cancellation, waiting for a job and graceful shutdown. Batches
//! are filled by `service::batch_filler`.
//!
//! Invariants:
//! - The queue lives in the store, so nothing accepted is held only in memory: a job is
//!   claimed (`running`, under a lease) only when a lane is free to run it. While it
//!   runs a heartbeat renews the lease and brings back a cancel asked through any node;
//!   a crash or a pause past the lease leaves it to be taken back (at the next start on
//!   SQLite by [`Store::recover`], by any node on PostgreSQL by
//!   [`Store::reclaim_expired`]), and the finish of a holder whose lease was taken back
//!   changes nothing (the store fences it by the claim's token).
//! - A lane registers a job's cancel flag before reading its `cancel_requested` column,
//!   and `DELETE` writes the column before looking for the flag, so a cancel is never
//!   missed whatever the interleaving.
//! - On shutdown, lanes stop claiming, running solves are stopped through their flags
//!   and their jobs are put back in the queue (unless a user cancelled them).
//! - Threads are bounded by the pool: a solve holds one of the pool's `cores` permits
//!   (a lane that claimed a job while a multi-threaded search holds them waits for
//!   one), and a job that asks for more threads takes only permits that are free when
//!   it starts, so searches never run on more threads than the pool has.
//! - Memory is bounded by the node's budget: the searches that run the exact search,
//!   and the board search of a PySolFC game played on its own board (`gaps::plan`), hold
//!   their memory (`memory::draw_mb`) from `memory` for the whole solve, waiting
//!   for it if needed, so together they never exceed it; the threads' own tables are
//!   outside it (`Config::search_memory_mb`).

use super::store::{Announce, AnyJob, Claim, ClaimScope, Lease, Store};
use crate::service::config::SolverPriority;
use crate::service::resources::memory::MemoryDraw;
use crate::service::resources::metrics::Metrics;
use crate::service::resources::solver_pool::SolverThread;
use give_way::Givers;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, Notify, Semaphore, SemaphorePermit};
use tokio::task::JoinHandle;

mod for_parts;
mod give_way;
mod parts;
mod status;
mod wait;

pub use give_way::Threads;
pub use parts::{Claimed, KindPart, Parts};
pub use status::RunStatus;

/// How often a waiter reads a job that another node may be running.
const WAIT_POLL: Duration = Duration::from_millis(250);

/// A job being run by a lane of this process.
struct Running {
    cancel: Arc<AtomicBool>,
    progress: Arc<AtomicU64>,
    /// A [`RunStatus`] as its `u8`.
    status: Arc<AtomicU8>,
}

/// Which jobs a lane runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKind {
    /// Any job, single jobs first, on the pool's threads.
    Shared,
    /// Single jobs only, on the threads of a batch job that gives way (`give_way`).
    Single,
}

/// Shared state of the lanes.
pub struct Runner {
    store: Store,
    metrics: Arc<Metrics>,
    wake: Notify,
    shutting_down: AtomicBool,
    running: Mutex<HashMap<String, Running>>,
    waiters: Mutex<HashMap<String, Vec<oneshot::Sender<()>>>>,
    /// One permit per solver thread (see the module doc).
    cores: Semaphore,
    /// MiB of the node's memory budget that searches draw by the job
    /// (`Config::search_memory_mb`), one permit a MiB.
    memory: Semaphore,
    search_memory_mb: usize,
    /// Raised to stop the running deepening search (see `service::deepen`).
    deepen_stop: Arc<AtomicBool>,
    /// This node's claims.
    lease: Lease,
    /// How often a running job's lease is renewed.
    heartbeat: Duration,
    /// CPU priority of the solver threads (also that of the Morpion prover's).
    priority: SolverPriority,
    /// The batch jobs running here, which can give way to single jobs.
    givers: Givers,
    /// MiB a single lane's solver holds while it runs (`give_way`), drawn from `memory`.
    single_lane_mb: usize,
    /// What a lane runs for a job of each kind.
    parts: Parts,
}

/// How this node takes part in the queue.
#[derive(Clone, Debug)]
pub struct QueueRole {
    /// Claims name this node and last this long without a heartbeat.
    pub lease: Lease,
    /// How often a running job's lease is renewed.
    pub heartbeat: Duration,
}

/// The pool a [`Runner`] runs on.
#[derive(Clone, Debug)]
pub struct PoolSize {
    /// Solver threads.
    pub threads: usize,
    /// Table of each solver thread, in MiB.
    pub table_mb: usize,
    /// MiB of the node's budget that searches draw by the job.
    pub search_memory_mb: usize,
    /// CPU priority of the solver threads.
    pub priority: SolverPriority,
    /// Where their exact searches spill a full visited set (`None`: they stop).
    pub spill_dir: Option<std::path::PathBuf>,
}

impl Runner {
    /// Starts one lane per solver thread; `parts` run the jobs they claim, a part for
    /// every kind of job (else an `InvalidInput` error).
    pub fn start(
        store: Store,
        metrics: Arc<Metrics>,
        pool: PoolSize,
        queue: QueueRole,
        parts: Parts,
    ) -> std::io::Result<(Arc<Runner>, Vec<JoinHandle<()>>)> {
        let missing = parts.missing();
        if !missing.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("no part runs the jobs of {missing:?}"),
            ));
        }
        let PoolSize {
            threads,
            table_mb,
            search_memory_mb,
            priority,
            spill_dir,
        } = pool;
        let table_bytes = table_mb << 20;
        let runner = Arc::new(Runner {
            store,
            metrics,
            wake: Notify::new(),
            shutting_down: AtomicBool::new(false),
            running: Mutex::new(HashMap::new()),
            waiters: Mutex::new(HashMap::new()),
            cores: Semaphore::new(threads),
            memory: Semaphore::new(search_memory_mb),
            search_memory_mb,
            deepen_stop: Arc::new(AtomicBool::new(false)),
            lease: queue.lease,
            heartbeat: queue.heartbeat,
            priority,
            givers: Givers::default(),
            single_lane_mb: table_mb.saturating_mul(2),
            parts,
        });
        runner.metrics.solvers.set(threads as i64);
        runner
            .metrics
            .search_memory
            .set(i64::try_from(search_memory_mb << 20).unwrap_or(i64::MAX));
        let mut lanes = Vec::with_capacity(2 * threads);
        for index in 0..threads {
            let solver = SolverThread::spawn(
                format!("solver-{index}"),
                table_bytes,
                priority,
                spill_dir.clone(),
            )?;
            lanes.push(tokio::spawn(lane(runner.clone(), solver)));
            let solver = SolverThread::spawn_per_solve(
                format!("single-{index}"),
                table_bytes,
                priority,
                spill_dir.clone(),
            )?;
            lanes.push(tokio::spawn(give_way::single_lane(runner.clone(), solver)));
        }
        Ok((runner, lanes))
    }

    /// Tells idle lanes that jobs were queued.
    pub fn notify_new_work(&self) {
        self.preempt_deepening();
        self.wake.notify_waiters();
    }

    /// Stops the running deepening search, if any: user jobs come first.
    pub(crate) fn preempt_deepening(&self) {
        self.deepen_stop.store(true, Ordering::SeqCst);
    }

    /// For a deepening search: one of the pool's threads if one is idle, and the flag
    /// that stops the search, lowered.
    pub(crate) fn idle_core_for_deepening(&self) -> Option<(SemaphorePermit<'_>, Arc<AtomicBool>)> {
        let core = self.cores.try_acquire().ok()?;
        self.deepen_stop.store(false, Ordering::SeqCst);
        Some((core, self.deepen_stop.clone()))
    }

    /// `mb` MiB of the searches' memory if that much is free now (deepening takes only
    /// what jobs leave).
    pub(crate) fn free_search_memory(&self, mb: usize) -> Option<MemoryDraw<'_>> {
        let permit = self.memory.try_acquire_many(u32::try_from(mb).ok()?).ok()?;
        Some(MemoryDraw::new(permit, mb, &self.metrics))
    }

    /// MiB of the node's budget that searches draw by the job, in all.
    pub(crate) fn search_memory_mb(&self) -> usize {
        self.search_memory_mb
    }

    /// True once shutdown began.
    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    /// Stops the solve of job `id` if one is running here (the store was updated first).
    pub fn stop_running(&self, id: &str) {
        if let Some(job) = self.running.lock().expect("running map").get(id) {
            job.cancel.store(true, Ordering::SeqCst);
        }
    }

    /// Nodes searched so far by the running job `id`, if a lane of this process runs it.
    pub fn progress(&self, id: &str) -> Option<u64> {
        self.running
            .lock()
            .expect("running map")
            .get(id)
            .map(|job| job.progress.load(Ordering::Relaxed))
    }

    /// Begins a graceful shutdown: no more claims; running solves stop and re-queue.
    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        self.preempt_deepening();
        for job in self.running.lock().expect("running map").values() {
            job.cancel.store(true, Ordering::SeqCst);
        }
        self.wake.notify_waiters();
    }

    /// The job `id` (of any game) once it is final, or as it is after `timeout`; `None`
    /// if unknown.
    pub async fn wait_final(&self, id: &str, timeout: Duration) -> sqlx::Result<Option<AnyJob>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            // Registered before the read, so that an end between the two still wakes it.
            let wake = self.waiter(id);
            let job = self.store.any_job(id).await?;
            let now = tokio::time::Instant::now();
            match job {
                Some(job) if !job.is_final() && now < deadline => {
                    // Woken by this node's lane (the job ended, went back to the queue
                    // or was handed to its parts: read it again), or after a while to
                    // look again: the job may run on another node sharing the database.
                    let pause = (deadline - now).min(WAIT_POLL);
                    let _ = tokio::time::timeout(pause, wake).await;
                }
                other => {
                    drop(wake);
                    self.prune_waiters(id);
                    return Ok(other);
                }
            }
        }
    }

    /// Forgets the waiters on job `id` that stopped waiting (so that jobs this node
    /// never runs leave nothing behind).
    fn prune_waiters(&self, id: &str) {
        let mut waiters = self.waiters.lock().expect("waiters map");
        if let Some(list) = waiters.get_mut(id) {
            list.retain(|w| !w.is_closed());
            if list.is_empty() {
                waiters.remove(id);
            }
        }
    }

    /// A receiver woken by [`Runner::wake_waiters`] on job `id`.
    fn waiter(&self, id: &str) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        let mut waiters = self.waiters.lock().expect("waiters map");
        let list = waiters.entry(id.to_string()).or_default();
        list.retain(|w| !w.is_closed());
        list.push(tx);
        rx
    }

    /// Wakes this node's `wait_ms` waiters on job `id` (it ended here or elsewhere).
    pub fn wake_waiters(&self, id: &str) {
        let list = self.waiters.lock().expect("waiters map").remove(id);
        for waiter in list.into_iter().flatten() {
            let _ = waiter.send(());
        }
    }

    /// Claims and runs one job of any game (of `kind`'s scope); false when there was
    /// none. The life of the job is the same for every game; what its game runs is
    /// its [`KindPart`].
    async fn run_next(&self, solver: &SolverThread, kind: LaneKind) -> sqlx::Result<bool> {
        if self.is_shutting_down() {
            return Ok(false);
        }
        let scope = match kind {
            LaneKind::Shared => ClaimScope::Any,
            LaneKind::Single => ClaimScope::SingleOnly,
        };
        let Some(job) = self.store.claim_next(&self.lease, scope).await? else {
            return Ok(false);
        };
        self.preempt_deepening();
        let id = job.id().to_string();
        let claim = job.claim();
        let flag = Arc::new(AtomicBool::new(false));
        let progress = Arc::new(AtomicU64::new(0));
        self.running.lock().expect("running map").insert(
            id.clone(),
            Running {
                cancel: flag.clone(),
                progress: progress.clone(),
                status: Arc::new(AtomicU8::new(RunStatus::WaitingThreads as u8)),
            },
        );
        // `begin_shutdown` raises the flags it finds in the map after setting its own
        // flag; checking here, after inserting, closes the gap between the two.
        if self.is_shutting_down() {
            flag.store(true, Ordering::SeqCst);
        }
        let heartbeat = self.spawn_heartbeat(&claim, &flag, &progress);
        let claimed = Claimed {
            job: &job,
            solver,
            flag: &flag,
            progress: &progress,
            lane: kind,
        };
        let result = self.parts.of(job.game()).run(self, claimed).await;
        heartbeat.abort();
        self.running.lock().expect("running map").remove(&id);
        match result {
            Ok(true) => self.store.announce(Announce::Done(&id)),
            // Queued again at shutdown (announced there), fenced (its new holder
            // announces its end), or handed to its parts (a shared proof's units).
            Ok(false) => {}
            // Do not leave the job `running` with no lane behind it.
            Err(_) => {
                if let Ok(true) = self.store.requeue(&claim).await {
                    self.announce_requeued();
                }
            }
        }
        self.wake_waiters(&id);
        result.map(|_| true)
    }

    /// Tells this node's idle solvers and every other node that a job is queued again
    /// (it did not end: no `Done` for its waiters).
    pub(crate) fn announce_requeued(&self) {
        self.notify_new_work();
        self.store.announce(Announce::Work);
    }

    /// Renews the lease of the job held under `claim` every heartbeat while it runs,
    /// writing the nodes it searched so far (`progress`); raises `flag` when a user
    /// asked (through any node) to cancel it, or when the lease was taken back (the
    /// job's result would be refused anyway). Aborted when the job ends.
    fn spawn_heartbeat(
        &self,
        claim: &Claim,
        flag: &Arc<AtomicBool>,
        progress: &Arc<AtomicU64>,
    ) -> JoinHandle<()> {
        let (store, claim) = (self.store.clone(), claim.clone());
        let (flag, progress) = (flag.clone(), progress.clone());
        let (every, lease) = (self.heartbeat, self.lease.duration);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await; // the first tick is immediate: the claim set the lease
            loop {
                ticks.tick().await;
                let nodes = progress.load(Ordering::Relaxed);
                match store.heartbeat(&claim, lease, nodes).await {
                    Ok(Some(false)) => {}
                    Ok(Some(true)) => flag.store(true, Ordering::SeqCst),
                    Ok(None) => {
                        tracing::warn!(job = %claim.id, "lease taken back; stopping");
                        flag.store(true, Ordering::SeqCst);
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(job = %claim.id, error = %e, "heartbeat failed");
                    }
                }
            }
        })
    }

    /// Up to `wanted` of the pool's idle threads, for a job that asked for more than its
    /// lane's own.
    fn idle_cores(&self, wanted: usize) -> Vec<SemaphorePermit<'_>> {
        (0..wanted)
            .map_while(|_| self.cores.try_acquire().ok())
            .collect()
    }
}

/// One lane: claim, run, repeat; sleep until woken (or 1 s) when the queue is empty.
async fn lane(runner: Arc<Runner>, solver: SolverThread) {
    while !runner.is_shutting_down() {
        let woken = runner.wake.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        match runner.run_next(&solver, LaneKind::Shared).await {
            Ok(true) => {}
            Ok(false) => {
                let _ = tokio::time::timeout(Duration::from_secs(1), woken).await;
            }
            Err(e) => {
                tracing::error!(error = %e, "the job store failed; retrying in 1 s");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests;
