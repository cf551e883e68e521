//! The Morpion lane: claims queued Morpion endgame jobs one at a time and proves each
//! on a thread of its own, holding the solver pool's threads while it runs.
//!
//! Invariants:
//! - A proof runs only while it holds one of the pool's `cores` permits (and the extra
//!   threads it uses hold one each, taken only if idle), so Gaps searches and Morpion
//!   proofs together never run on more threads than the pool has. The proof's thread
//!   runs at the solver threads' priority; nothing of it runs on the async runtime.
//! - The job is registered with the runner like a lane's, so `DELETE`, progress and
//!   shutdown reach it; a heartbeat renews its lease, writes its node count and brings
//!   back a cancel asked through any node.
//! - On shutdown a running proof stops and its job goes back to the queue (unless a
//!   user cancelled it); jobs whose lease ran out are taken back by the service's
//!   periodic reclaim of expired leases (`maintenance`), and at start on SQLite.
//! - The record is replayed again before the proof (it was checked when accepted); a
//!   stored record that no longer replays ends the job `failed`, never `done`.

use super::morpion_shared::{every, on_solver_thread};
use super::runner::Runner;
use super::store::{Announce, MorpionFinish, MorpionJobRow, MorpionResult, Store};
use crate::report::morpion_line;
use gaps_engine::morpion::board::MorpionVariant;
use gaps_engine::morpion::endgame::{prove, EndgameError, EndgameOptions, EndgameReport};
use gaps_engine::morpion::record::Record;
use gaps_engine::StopReason;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// Starts the lane; it ends when shutdown begins.
pub fn start(runner: Arc<Runner>, store: Store) -> JoinHandle<()> {
    tokio::spawn(lane(runner, store))
}

async fn lane(runner: Arc<Runner>, store: Store) {
    while !runner.is_shutting_down() {
        let woken = runner.work_signal().notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        match run_next(&runner, &store).await {
            Ok(true) => {}
            Ok(false) => {
                let _ = tokio::time::timeout(Duration::from_secs(1), woken).await;
            }
            Err(e) => {
                tracing::error!(error = %e, "the Morpion job store failed; retrying in 1 s");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Claims and runs one Morpion job; false when none was queued.
async fn run_next(runner: &Runner, store: &Store) -> sqlx::Result<bool> {
    if runner.is_shutting_down() {
        return Ok(false);
    }
    let (lease, interval) = runner.queue_role();
    let Some(job) = store.claim_morpion(lease).await? else {
        return Ok(false);
    };
    if job.split_units.is_some() {
        // A shared proof: split into units that every node's workers search.
        super::morpion_shared::split(runner, store, &job).await?;
        runner.wake_waiters(&job.id);
        return Ok(true);
    }
    let duration = lease.duration;
    let flag = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(AtomicU64::new(0));
    runner.register(&job.id, flag.clone(), progress.clone());
    if runner.is_shutting_down() {
        flag.store(true, Ordering::SeqCst);
    }
    let heartbeat = {
        let (store, job, flag, progress) =
            (store.clone(), job.clone(), flag.clone(), progress.clone());
        every(interval, move || {
            let (store, job, flag, progress) =
                (store.clone(), job.clone(), flag.clone(), progress.clone());
            async move {
                let nodes = progress.load(Ordering::Relaxed);
                match store.morpion_heartbeat(&job, duration, nodes).await {
                    Ok(Some(false)) => true,
                    Ok(Some(true)) => {
                        flag.store(true, Ordering::SeqCst);
                        true
                    }
                    Ok(None) => {
                        tracing::warn!(job = %job.id, "lease taken back; stopping");
                        flag.store(true, Ordering::SeqCst);
                        false
                    }
                    Err(e) => {
                        tracing::warn!(job = %job.id, error = %e, "heartbeat failed");
                        true
                    }
                }
            }
        })
    };
    let result = run_claimed(runner, store, &job, &flag, &progress).await;
    heartbeat.abort();
    runner.unregister(&job.id);
    match result {
        Ok(true) => store.announce(Announce::Done(&job.id)),
        Ok(false) => {}
        Err(_) => {
            if let Ok(true) = store.requeue_morpion(&job).await {
                runner.notify_new_work();
                store.announce(Announce::Work);
            }
        }
    }
    runner.wake_waiters(&job.id);
    result.map(|_| true)
}

/// Runs a claimed job to its end; true if it ended here, false if it went back to the
/// queue (shutdown) or its result was fenced.
async fn run_claimed(
    runner: &Runner,
    store: &Store,
    job: &MorpionJobRow,
    flag: &Arc<AtomicBool>,
    progress: &Arc<AtomicU64>,
) -> sqlx::Result<bool> {
    if store.morpion_cancel_requested(&job.id).await? {
        flag.store(true, Ordering::SeqCst);
    }
    let wanted = usize::try_from(job.threads.max(1)).unwrap_or(1);
    let (own, extra) = runner.cores(flag, wanted - 1).await;
    let threads = 1 + extra.len();
    runner.preempt_deepening();
    let options = EndgameOptions {
        threads,
        max_nodes: job.limit_nodes.map(|n| n as u64),
        time: Some(Duration::from_millis(job.limit_time_ms as u64)),
        ..EndgameOptions::default()
    };
    let (text, variant, from) = (job.record.clone(), job.variant.clone(), job.from_move);
    let (cancel, counter) = (flag.clone(), progress.clone());
    let outcome = on_solver_thread(runner, move || {
        let started = Instant::now();
        let proof = run_proof(&text, &variant, from, &options, &cancel, &counter);
        (proof, started.elapsed())
    })
    .await;
    drop((own, extra));
    let finish = match outcome {
        None => MorpionFinish::Failed("the prover panicked or its thread could not start".into()),
        Some((Err(error), _)) => MorpionFinish::Failed(error),
        Some((Ok((record, report)), elapsed)) => {
            let result = result_of(&record, &report, elapsed, threads);
            if report.stop == Some(StopReason::Cancelled) {
                if !store.morpion_cancel_requested(&job.id).await? && runner.is_shutting_down() {
                    if store.requeue_morpion(job).await? {
                        runner.notify_new_work();
                        store.announce(Announce::Work);
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
    finish_with_retries(runner, store, job, &finish).await
}

/// The proof of a stored job: its record decoded and replayed, then searched.
fn run_proof(
    text: &str,
    variant: &str,
    from: i64,
    options: &EndgameOptions,
    cancel: &AtomicBool,
    counter: &AtomicU64,
) -> Result<(Record, EndgameReport), String> {
    let record = Record::parse(text).map_err(|e| e.to_string())?;
    let variant = MorpionVariant::from_code(variant)
        .ok_or_else(|| format!("stored variant {variant:?} is not 5T or 5D"))?;
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
        stopped: report.stop.map(|s| s.name().to_string()),
        nodes: i64::try_from(report.nodes).unwrap_or(i64::MAX),
        elapsed_ms: elapsed.as_secs_f64() * 1e3,
        line: morpion_line(record, &report.line),
        split_depth: report.split_depth as i64,
        units: report.units as i64,
        threads_used: threads as i64,
    }
}

/// Stores how `job` ended under the runner's one retry policy
/// (`Runner::finish_retrying`), and counts it; false if the claim was no longer current.
async fn finish_with_retries(
    runner: &Runner,
    store: &Store,
    job: &MorpionJobRow,
    finish: &MorpionFinish,
) -> sqlx::Result<bool> {
    let stored = runner
        .finish_retrying(&job.id, || store.finish_morpion(job, finish))
        .await?;
    if stored {
        runner.count_morpion_finish(finish);
    }
    Ok(stored)
}

/// Job `id` once it is final, or as it is after `timeout`; `None` if there is none.
pub async fn wait_final(
    runner: &Runner,
    store: &Store,
    id: &str,
    timeout: Duration,
) -> sqlx::Result<Option<MorpionJobRow>> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut wake = Some(runner.waiter(id));
    loop {
        let job = store.morpion_job(id).await?;
        let now = tokio::time::Instant::now();
        match job {
            Some(job) if !job.is_final() && now < deadline => {
                // Woken by this node's lane, or after a while to look again (another
                // node sharing the database may run it).
                let pause = (deadline - now).min(Duration::from_millis(250));
                match wake.as_mut() {
                    Some(rx) => match tokio::time::timeout(pause, rx).await {
                        Ok(Ok(())) => wake = Some(runner.waiter(id)),
                        Ok(Err(_)) => wake = None,
                        Err(_) => {}
                    },
                    None => tokio::time::sleep(pause).await,
                }
            }
            other => return Ok(other),
        }
    }
}
