//! The wait for a share of the pool (threads or memory) that a cancel can interrupt.
//!
//! Invariant: a wait ends holding the permits, or holding nothing once the job's flag
//! is raised; meanwhile it nudges whatever may hold them (a deepening search).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit};

/// `n` permits of `pool`, waited for, calling `nudge` every 200 ms meanwhile (it stops a
/// deepening search that may hold them, even one started after the job was claimed);
/// `None` when `flag` is raised (the job was cancelled, or the service is stopping)
/// while it waits: the solve then stops at its first check, holding nothing.
pub(crate) async fn wait_for<'a>(
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
