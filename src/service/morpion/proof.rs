//! What a lane runs for a claimed Morpion job (the runner's one job lifecycle claims
//! it, renews its lease, registers its cancel flag and puts it back on error): a
//! shared proof is split into units and a unit searched (`shared`); any other proof is
//! proved whole on a thread of its own, holding the lane's threads while it runs.
//!
//! Invariants:
//! - A proof runs only on threads the runner gave it (`Runner::take_threads`: one of
//!   the pool's permits and idle ones up to `limits.threads`, or those of a batch job
//!   that gives way on a single lane), so Gaps searches and Morpion proofs together
//!   never run on more threads than the pool has. The proof's thread runs at the
//!   solver threads' priority; nothing of it runs on the async runtime.
//! - On shutdown a running proof stops and its job goes back to the queue (unless a
//!   user cancelled it).
//! - The record is replayed again before the proof (it was checked when accepted); a
//!   stored record that no longer replays ends the job `failed`, never `done`.

use super::shared::{conclude_leftovers, run_unit, split, Cache};
use super::work::{finish, on_solver_thread};
use crate::report::morpion_line;
use crate::service::runner::{Claimed, KindPart, LaneKind, Runner};
use crate::service::store::{AnyJob, MorpionFinish, MorpionJobRow, MorpionResult};
use futures_util::future::BoxFuture;
use gaps_engine::morpion::board::MorpionVariant;
use gaps_engine::morpion::endgame::{prove, EndgameError, EndgameOptions, EndgameReport};
use gaps_engine::morpion::record::Record;
use gaps_engine::StopReason;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The Morpion part of the runner's lanes: proofs, and units of shared proofs (with
/// the frontiers this node computed, one per proof).
#[derive(Default)]
pub struct Proofs {
    frontiers: Cache,
}

impl KindPart for Proofs {
    fn run<'a>(
        &'a self,
        runner: &'a Runner,
        claimed: Claimed<'a>,
    ) -> BoxFuture<'a, sqlx::Result<bool>> {
        let (flag, progress) = (claimed.flag, claimed.progress);
        let single_lane = claimed.lane == LaneKind::Single;
        match claimed.job {
            AnyJob::Morpion(job) => Box::pin(run_claimed(runner, job, flag, progress, single_lane)),
            AnyJob::MorpionUnit(unit) => {
                let cache = &self.frontiers;
                Box::pin(run_unit(runner, cache, unit, flag, progress, single_lane))
            }
            // The runner hands a part only its own kind's jobs (`Parts::of`).
            AnyJob::Gaps(_) | AnyJob::Odds(_) => Box::pin(async {
                Err(sqlx::Error::Protocol(
                    "a Morpion part was handed another kind's job".into(),
                ))
            }),
        }
    }

    fn conclude_leftovers<'a>(&'a self, runner: &'a Runner) -> BoxFuture<'a, sqlx::Result<()>> {
        Box::pin(conclude_leftovers(runner, &self.frontiers))
    }
}

/// Runs the claimed Morpion `job` (on a single lane when `single_lane`); true if it
/// ended here, false if it went back to the queue (shutdown), its result was fenced,
/// or it was handed to its units (a shared proof).
async fn run_claimed(
    runner: &Runner,
    job: &MorpionJobRow,
    flag: &Arc<AtomicBool>,
    progress: &Arc<AtomicU64>,
    single_lane: bool,
) -> sqlx::Result<bool> {
    let store = runner.store();
    if job.split_units.is_some() {
        return split(runner, store, job).await;
    }
    if store.cancel_requested(&job.id).await? {
        flag.store(true, Ordering::SeqCst);
    }
    let asked = usize::try_from(job.threads.max(1)).unwrap_or(1);
    let (cores, threads, busy) = runner.take_threads(single_lane, asked, flag).await;
    let options = EndgameOptions {
        threads,
        max_nodes: job.limit_nodes.map(|n| n as u64),
        time: Some(Duration::from_millis(job.limit_time_ms as u64)),
        ..EndgameOptions::default()
    };
    let (text, variant, from) = (job.record.clone(), job.variant.0, job.from_move);
    let (cancel, counter) = (flag.clone(), progress.clone());
    runner.count_busy(busy, true);
    let outcome = on_solver_thread(runner, move || {
        let started = Instant::now();
        let proof = run_proof(&text, variant, from, &options, &cancel, &counter);
        (proof, started.elapsed())
    })
    .await;
    runner.count_busy(busy, false);
    drop(cores);
    let ended = match outcome {
        None => MorpionFinish::Failed("the prover panicked or its thread could not start".into()),
        Some((Err(error), _)) => MorpionFinish::Failed(error),
        Some((Ok((record, report)), elapsed)) => {
            runner.count_search(report.nodes, elapsed);
            let result = result_of(&record, &report, elapsed, threads);
            if report.stop == Some(StopReason::Cancelled) {
                if !store.cancel_requested(&job.id).await? && runner.is_shutting_down() {
                    if store.requeue(&job.claim()).await? {
                        runner.announce_requeued();
                    }
                    tracing::info!(job = %job.id, "interrupted by shutdown; re-queued");
                    return Ok(false);
                }
                MorpionFinish::Cancelled(Some(result))
            } else {
                MorpionFinish::Done(result)
            }
        }
    };
    finish(runner, job, &ended).await
}

/// The proof of a stored job: its record decoded and replayed, then searched.
fn run_proof(
    text: &str,
    variant: MorpionVariant,
    from: i64,
    options: &EndgameOptions,
    cancel: &AtomicBool,
    counter: &AtomicU64,
) -> Result<(Record, EndgameReport), String> {
    let record = Record::parse(text).map_err(|e| e.to_string())?;
    let from = usize::try_from(from).map_err(|_| format!("stored K {from} is negative"))?;
    let report = prove(&record, variant, from, options, Some(cancel), Some(counter))
        .map_err(|e: EndgameError| e.to_string())?;
    Ok((record, report))
}

/// What is stored of a proof's report.
fn result_of(
    record: &Record,
    report: &EndgameReport,
    elapsed: Duration,
    threads: usize,
) -> MorpionResult {
    MorpionResult {
        best: report.best as i64,
        proved: report.proved,
        improved: report.improved,
        stopped: report.stop,
        nodes: i64::try_from(report.nodes).unwrap_or(i64::MAX),
        elapsed_ms: elapsed.as_secs_f64() * 1e3,
        line: morpion_line(record, &report.line),
        split_depth: report.split_depth as i64,
        units: report.units as i64,
        threads_used: threads as i64,
    }
}
