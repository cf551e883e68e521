//! What Morpion proofs and the units of shared proofs both use: running CPU work on a
//! thread of its own at the solvers' priority, and storing how a proof ended.
//!
//! Invariant: nothing here runs a search on the async runtime; every end of a Morpion
//! job is stored under the runner's one retry policy and counted once.

use crate::service::resources::metrics::{EndVerdict, JobKind};
use crate::service::runner::Runner;
use crate::service::store::{MorpionFinish, MorpionJobRow};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `work` on a thread of its own at the solvers' priority (never on the async
/// runtime); `None` if it panicked or the thread could not start.
pub async fn on_solver_thread<T: Send + 'static>(
    runner: &Runner,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let priority = runner.priority();
    let spawned = std::thread::Builder::new()
        .name("morpion".into())
        .spawn(move || {
            let _ = priority.apply_to_current_thread();
            let _ = reply.send(catch_unwind(AssertUnwindSafe(work)).ok());
        });
    match spawned {
        Ok(_) => answer.await.ok().flatten(),
        Err(_) => None,
    }
}

/// Stores how `job` ended under the runner's one retry policy
/// (`Runner::finish_retrying`), and counts it; false if the claim was no longer current.
pub async fn finish(
    runner: &Runner,
    job: &MorpionJobRow,
    finish: &MorpionFinish,
) -> sqlx::Result<bool> {
    let store = runner.store();
    let stored = runner
        .finish_retrying(&job.id, || store.finish_morpion(job, finish))
        .await?;
    if stored {
        let verdict = match finish {
            MorpionFinish::Done(result) if result.proved => EndVerdict::Proved,
            MorpionFinish::Done(_) => EndVerdict::NotProved,
            MorpionFinish::Cancelled(_) | MorpionFinish::Failed(_) => EndVerdict::None,
        };
        runner.count_finished(JobKind::Morpion, finish.state(), verdict);
    }
    Ok(stored)
}
