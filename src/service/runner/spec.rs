//! A stored job's inputs to the engine (its options and redeals), and the wait for a
//! share of the pool (threads or memory) that a cancel can interrupt.
//!
//! Invariant: a stored job's values are typed already (parsed once, when the request
//! came in); nothing here re-validates them.

use crate::service::store::NewJob;
use gaps_engine::{PysolDeal, Redeals, SolveOptions, Variant};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit};

/// `n` permits of `pool`, waited for, calling `nudge` every 200 ms meanwhile (it stops a
/// deepening search that may hold them, even one started after the job was claimed);
/// `None` when `flag` is raised (the job was cancelled, or the service is stopping)
/// while it waits: the solve then stops at its first check, holding nothing.
pub(super) async fn wait_for<'a>(
    pool: &'a Semaphore,
    n: usize,
    flag: &AtomicBool,
    nudge: &(dyn Fn() + Sync),
) -> Option<SemaphorePermit<'a>> {
    let acquire = pool.acquire_many(u32::try_from(n).unwrap_or(u32::MAX));
    tokio::pin!(acquire);
    loop {
        tokio::select! {
            permit = &mut acquire => return permit.ok(),
            () = tokio::time::sleep(Duration::from_millis(200)) => {
                if flag.load(Ordering::SeqCst) {
                    return None;
                }
                nudge();
            }
        }
    }
}

/// The PySolFC game a job was submitted as, if any.
pub(super) fn pysol_deal(spec: &NewJob) -> Option<PysolDeal> {
    spec.pysol.as_ref().and_then(|game| game.0.deal())
}

/// What the solve of a job passes to the solver about redeals: its source's rule
/// ([`gaps_engine::DealSource::redeals`]) for the count it was validated with.
pub(super) fn redeals_of(spec: &NewJob) -> Option<Redeals> {
    spec.source()?.redeals(spec.redeals.get())
}

/// The engine's options for a stored job searched under `variant` on `threads`
/// threads: its values are typed already (the position, variant and algorithm were
/// parsed once, when the request came in).
pub(super) fn solve_options(spec: &NewJob, variant: Variant, threads: usize) -> SolveOptions {
    SolveOptions {
        variant,
        algorithm: spec.algorithm.0,
        max_nodes: spec.limit_nodes.map(|n| n as u64),
        time_limit: Some(Duration::from_millis(spec.limit_time_ms as u64)),
        seed: spec.search_seed as u64,
        memory_limit: spec.table_mb.map(|mb| (mb as usize) << 20),
        probes: spec.limit_probes.map(|p| p as u64),
        threads,
        ..SolveOptions::default()
    }
}
