//! How a lane runs a claimed Gaps job (the Gaps kind's [`KindPart`]): answered from
//! the store when a known verdict or an earlier answer about the same game decides
//! it, else searched as its `Plan` says once it holds its memory and threads, and
//! its end stored under the runner's one retry policy.
//!
//! Invariants: a known verdict answers only a first-round question it decides with
//! limits no smaller than the job's (`KnownVerdict::answers`); a search interrupted by
//! a shutdown goes back to the queue (not cancelled) unless a user cancelled it; the
//! memory and threads a search holds are given back before its end is stored.

use super::earlier;
use super::plan::{Plan, RunOf};
use crate::report::{JobStats, StatsJson};
use crate::request::rounds::RedealCount;
use crate::service::job::JobState;
use crate::service::resources::metrics::{EndVerdict, JobKind};
use crate::service::resources::solver_pool::SolverThread;
use crate::service::runner::{Claimed, KindPart, LaneKind, RunStatus, Runner, Threads};
use crate::service::store::{AnyJob, Finish, JobRow};
use futures_util::future::BoxFuture;
use gaps_engine::StopReason;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// The Gaps kind of job, as the runner runs it.
#[derive(Debug, Default)]
pub struct GapsSearches;

impl KindPart for GapsSearches {
    fn run<'a>(
        &'a self,
        runner: &'a Runner,
        claimed: Claimed<'a>,
    ) -> BoxFuture<'a, sqlx::Result<bool>> {
        Box::pin(async move {
            // The runner hands a part only its own kind's jobs (`Parts::of`).
            let AnyJob::Gaps(job) = claimed.job else {
                return Err(sqlx::Error::Protocol(
                    "a Gaps part was handed another kind's job".into(),
                ));
            };
            let progress = claimed.progress.clone();
            run_claimed(
                runner,
                claimed.solver,
                job,
                claimed.flag,
                progress,
                claimed.lane,
            )
            .await
        })
    }
}

/// Runs a claimed job to its end; true if it ended here, false if it was queued
/// again at shutdown or its result was fenced.
async fn run_claimed(
    runner: &Runner,
    solver: &SolverThread,
    job: &JobRow,
    flag: &Arc<AtomicBool>,
    progress: Arc<AtomicU64>,
    kind: LaneKind,
) -> sqlx::Result<bool> {
    if runner.store().cancel_requested(&job.spec.id).await? {
        flag.store(true, Ordering::SeqCst);
    }
    // Known verdicts are first-round ones of the job's start: a job with redeals is
    // always searched, and a game in progress is answered from its own kind: the
    // same question, or (not a review) an earlier answer after fewer of its steps
    // that decides it (`earlier`).
    if job.spec.played.is_some() {
        if let Some(finish) = runner.store().known_played(&job.spec).await? {
            return store_end(runner, job, finish).await;
        }
        if !job.spec.review {
            let earlier = runner.store().played_candidates(&job.spec, false).await?;
            if let Some(finish) = earlier::finish_from_earlier(&job.spec, &earlier) {
                return store_end(runner, job, finish).await;
            }
        }
    }
    let known = match job.spec.redeals {
        RedealCount::NONE if job.spec.played.is_none() => {
            runner
                .store()
                .known_verdict(job.spec.variant.0, &job.spec.position.0)
                .await?
        }
        _ => None,
    };
    if let Some(known) = known {
        if known.answers(&job.spec) {
            let finish = known.as_cached_finish();
            return store_end(runner, job, finish).await;
        }
    }
    let Some(plan) = Plan::of(&job.spec) else {
        let error = "the job has neither an engine position nor a board".to_string();
        return store_end(runner, job, Finish::Failed { error }).await;
    };
    let spec = &job.spec;
    let memory_mb = plan.memory_mb(spec, runner.search_memory_mb());
    let waited = std::time::Instant::now();
    let id = &job.spec.id;
    if memory_mb.is_some() {
        runner.set_status(id, RunStatus::WaitingMemory);
    }
    let memory = match memory_mb {
        Some(mb) => runner.wait_search_memory(mb, flag).await,
        None => None,
    };
    // A single lane's solver is made for the job: its table is drawn like a search's
    // memory (`give_way`).
    let lane_memory = match kind {
        LaneKind::Single => runner.wait_single_lane_memory(flag).await,
        LaneKind::Shared => None,
    };
    let memory_wait = waited.elapsed();
    runner.set_status(id, RunStatus::WaitingThreads);
    let (cores, threads, busy) = runner
        .take_threads(kind == LaneKind::Single, plan.threads_asked(spec), flag)
        .await;
    runner.set_status(id, RunStatus::Searching);
    // A batch job on the pool's threads can give way to single jobs.
    let pause = match (&cores, &job.spec.batch_id) {
        (Threads::Own(_), Some(_)) => Some(runner.may_give_way(id, threads)),
        _ => None,
    };
    let run = RunOf {
        threads,
        memory_mb,
        flag,
        progress,
        pause: pause.clone(),
    };
    runner.count_busy(busy, true);
    let result = plan.search(solver, spec, run).await;
    runner.count_busy(busy, false);
    if pause.is_some() {
        runner.no_longer_gives_way(id);
    }
    let paused_ms = pause.map_or(0.0, |gate| gate.paused_for().as_secs_f64() * 1e3);
    drop((memory, lane_memory, cores));
    let finish = match result {
        Err(error) => Finish::Failed { error },
        Ok(searched) => {
            let stats = StatsJson {
                memory_mb: memory_mb.unwrap_or(0) as u64,
                memory_wait_ms: if memory_mb.is_some() {
                    memory_wait.as_secs_f64() * 1e3
                } else {
                    0.0
                },
                gave_way_ms: paused_ms,
                ..searched.stats
            };
            runner.count_search(stats.nodes, searched.elapsed);
            if searched.stopped == Some(StopReason::Cancelled) {
                if !runner.store().cancel_requested(&job.spec.id).await?
                    && runner.is_shutting_down()
                {
                    if runner.store().requeue(&job.claim()).await? {
                        runner.announce_requeued();
                    }
                    tracing::info!(job = %job.spec.id, "interrupted by shutdown; re-queued");
                    return Ok(false);
                }
                Finish::Cancelled {
                    stats: Some(JobStats::Searched(stats)),
                }
            } else {
                Finish::Verdict {
                    verdict: searched.verdict,
                    solution: searched.solution,
                    nodes: stats.nodes as i64,
                    elapsed_ms: stats.elapsed_ms,
                    stats: JobStats::Searched(stats),
                    stopped: searched.stopped,
                    used_algorithm: searched.algorithm,
                    cached: false,
                    played: searched.played.map(Box::new),
                }
            }
        }
    };
    store_end(runner, job, finish).await
}

/// Stores how `job` ended; true if it did, false if the write was fenced (the lease
/// was taken back: the job's current holder decides).
async fn store_end(runner: &Runner, job: &JobRow, finish: Finish) -> sqlx::Result<bool> {
    let (state, verdict) = match &finish {
        Finish::Verdict { verdict, .. } => (JobState::Done, EndVerdict::from(*verdict)),
        Finish::Cancelled { .. } => (JobState::Cancelled, EndVerdict::None),
        Finish::Failed { error } => {
            tracing::error!(job = %job.spec.id, %error, "job failed");
            (JobState::Failed, EndVerdict::None)
        }
    };
    if !runner
        .finish_retrying(&job.spec.id, || runner.store().finish(job, &finish))
        .await?
    {
        return Ok(false);
    }
    runner.count_finished(JobKind::Gaps, state, verdict);
    tracing::debug!(
        job = %job.spec.id,
        state = state.name(),
        verdict = verdict.name(),
        "job finished"
    );
    Ok(true)
}
