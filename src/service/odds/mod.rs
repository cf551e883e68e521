//! The odds kind of job as a node runs it (docs/http.md, "Odds jobs"): the odds of a
//! Gaps deal or game in progress whose shuffles are unknown, answered as `gaps odds`
//! answers them (`crate::odds`), on the lane's solver thread.
//!
//! Invariants:
//! - An odds job lives the life of every job (the runner's lanes claim it from the one
//!   queue, renew its lease, cancel, wait for and take it back as any other); only what
//!   it runs and stores is its own, in the store's `odds_jobs` (`store::OddsJobRow`).
//! - It runs only on a thread the runner gave it (`Runner::take_threads`, one) and
//!   draws its rounds' memory from the node's memory for searches first; nothing of it
//!   runs on the async runtime.
//! - On shutdown a running job stops and goes back to the queue (unless a user
//!   cancelled it); a stored game that no longer replays ends `failed`, never `done`.
//! - This room depends on the runner and the store; neither depends on it. Its front
//!   door: [`OddsAnswers`], registered with the runner at start as the odds' `KindPart`.

use crate::odds::{OddsGame, ROUND_MEMORY_BYTES};
use crate::service::job::JobState;
use crate::service::resources::metrics::{EndVerdict, JobKind};
use crate::service::runner::{Claimed, KindPart, LaneKind, RunStatus, Runner};
use crate::service::store::{AnyJob, OddsFinish, OddsJobRow};
use futures_util::future::BoxFuture;
use gaps_engine::{Algorithm, OddsOptions, SolveOptions};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The odds kind of job, as the runner runs it.
#[derive(Debug, Default)]
pub struct OddsAnswers;

impl KindPart for OddsAnswers {
    fn run<'a>(
        &'a self,
        runner: &'a Runner,
        claimed: Claimed<'a>,
    ) -> BoxFuture<'a, sqlx::Result<bool>> {
        Box::pin(async move {
            // The runner hands a part only its own kind's jobs (`Parts::of`).
            let AnyJob::Odds(job) = claimed.job else {
                return Err(sqlx::Error::Protocol(
                    "an odds part was handed another kind's job".into(),
                ));
            };
            run_claimed(runner, job, claimed).await
        })
    }
}

/// Runs a claimed odds job to its end; true if it ended here, false if it was queued
/// again at shutdown or its result was fenced.
async fn run_claimed(
    runner: &Runner,
    job: &OddsJobRow,
    claimed: Claimed<'_>,
) -> sqlx::Result<bool> {
    let (flag, id) = (claimed.flag, &job.spec.id);
    if runner.store().cancel_requested(id).await? {
        flag.store(true, Ordering::SeqCst);
    }
    // The answer of an earlier job that asked the same may have come since this one
    // was queued.
    if let Some(answer) = runner.store().earlier_odds(&job.spec).await? {
        return store_end(runner, job, OddsFinish::Done(Box::new(answer))).await;
    }
    let spec = &job.spec;
    let steps = spec.played.as_ref().map(|steps| steps.0.clone());
    let game = match OddsGame::new(
        spec.source(),
        spec.variant.0,
        spec.redeals.get(),
        steps.as_deref(),
    ) {
        Ok(game) => game,
        Err(e) => {
            let error = format!("the stored played steps no longer replay: {e}");
            return store_end(runner, job, OddsFinish::Failed(error)).await;
        }
    };
    let memory_mb = (ROUND_MEMORY_BYTES >> 20).min(runner.search_memory_mb());
    runner.set_status(id, RunStatus::WaitingMemory);
    let memory = match memory_mb {
        0 => None,
        mb => runner.wait_search_memory(mb, flag).await,
    };
    let lane_memory = match claimed.lane {
        LaneKind::Single => runner.wait_single_lane_memory(flag).await,
        LaneKind::Shared => None,
    };
    runner.set_status(id, RunStatus::WaitingThreads);
    let single = claimed.lane == LaneKind::Single;
    let (cores, _, busy) = runner.take_threads(single, 1, flag).await;
    runner.set_status(id, RunStatus::Searching);
    let solve = SolveOptions {
        variant: spec.variant.0,
        algorithm: Algorithm::Auto,
        max_nodes: spec.limit_nodes.map(|n| n as u64),
        time_limit: Some(Duration::from_millis(spec.limit_time_ms as u64)),
        seed: spec.search_seed as u64,
        memory_limit: (memory_mb > 0).then_some(memory_mb << 20),
        threads: 1,
        ..SolveOptions::default()
    };
    let options = OddsOptions {
        shuffle_seed: spec.search_seed as u64,
        ..OddsOptions::new(solve, game.left, spec.samples as u32)
    };
    let (cancel, progress) = (flag.clone(), claimed.progress.clone());
    runner.count_busy(busy, true);
    let answered = claimed
        .solver
        .with_solver(move |solver| {
            game.answer(solver, &options, Some(&cancel), Some(&progress))
                .map_err(|e| e.to_string())
        })
        .await;
    runner.count_busy(busy, false);
    drop((memory, lane_memory, cores));
    let finish = match answered {
        Err(error) => OddsFinish::Failed(error),
        Ok(answer) => {
            runner.count_search(
                answer.nodes,
                Duration::from_secs_f64(answer.elapsed_ms / 1e3),
            );
            if answer.stopped.as_deref() == Some("cancelled") {
                if !runner.store().cancel_requested(id).await? && runner.is_shutting_down() {
                    if runner.store().requeue(&job.claim()).await? {
                        runner.announce_requeued();
                    }
                    tracing::info!(job = %id, "interrupted by shutdown; re-queued");
                    return Ok(false);
                }
                OddsFinish::Cancelled(Some(Box::new(answer)))
            } else {
                OddsFinish::Done(Box::new(answer))
            }
        }
    };
    store_end(runner, job, finish).await
}

/// Stores how `job` ended; true if it did, false if the write was fenced.
async fn store_end(runner: &Runner, job: &OddsJobRow, finish: OddsFinish) -> sqlx::Result<bool> {
    let state = match &finish {
        OddsFinish::Done(_) => JobState::Done,
        OddsFinish::Cancelled(_) => JobState::Cancelled,
        OddsFinish::Failed(error) => {
            tracing::error!(job = %job.spec.id, %error, "odds job failed");
            JobState::Failed
        }
    };
    if !runner
        .finish_retrying(&job.spec.id, || runner.store().finish_odds(job, &finish))
        .await?
    {
        return Ok(false);
    }
    runner.count_finished(JobKind::Odds, state, EndVerdict::None);
    Ok(true)
}
