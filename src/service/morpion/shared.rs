//! Morpion proofs shared between nodes (a job with `units`): the node that claims such
//! a job splits it into the subtrees below a frontier of the search tree, each a job
//! of the one queue (a unit); every node's lanes claim units like any job, search each
//! alone and store its result; the node that stores the last unit concludes the job.
//!
//! Invariants:
//! - Every node computes the frontier from the stored record and K with the engine's
//!   deterministic split (`Frontier::with_units`); a node whose frontier differs from
//!   the one recorded at the split (units, depth, frontier nodes) fails the job rather
//!   than store results for other subtrees.
//! - A unit holds one of the pool's threads while it runs (so units, Gaps searches and
//!   whole Morpion proofs together never exceed the pool), on a thread at the solvers'
//!   priority; its lease is renewed by the lane's heartbeat, which also stops it when
//!   its proof was cancelled or ended (the proof's end flags its running units). A node
//!   that stops loses only the units it was searching: they go back to the queue (at
//!   shutdown at once, after a crash when their lease runs out), as any job.
//! - A unit that fails (or is taken back too often, as any job) fails its proof when
//!   the proof is concluded: a proof is `done` only when every unit was searched.
//! - Each unit's result is stored once, under its claim; the conclusion rebuilds every
//!   unit's line on the board (a line that does not replay fails the job) and the
//!   engine's `conclude` replays the answer from the cross before it is stored.

use super::work::{finish, on_solver_thread};
use crate::report::morpion_line;
use crate::service::job::JobState;
use crate::service::resources::metrics::{EndVerdict, JobKind};
use crate::service::runner::Runner;
use crate::service::store::{
    Announce, MorpionFinish, MorpionJobRow, MorpionResult, MorpionUnitRow, Store, UnitDone,
    UnitFinish,
};
use gaps_engine::morpion::board::{Board, MorpionVariant, Move};
use gaps_engine::morpion::endgame::{
    conclude, prefix, search_unit, EndgameOptions, Frontier, Method, UnitResult,
};
use gaps_engine::morpion::record::{Record, RecordMove};
use gaps_engine::StopReason;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most units a shared proof may ask for.
pub const MAX_UNITS: u64 = 16_384;

/// A shared proof's record, board after K moves and frontier, as this node computed
/// them.
pub(super) struct Prepared {
    record: Record,
    variant: MorpionVariant,
    from: usize,
    board: Board,
    frontier: Frontier,
}

/// Prepared proofs by job id (a node computes each frontier once).
pub(super) type Cache = Arc<Mutex<HashMap<String, Arc<Prepared>>>>;

fn prepare(job: &MorpionJobRow) -> Result<Prepared, String> {
    let record = Record::parse(&job.record).map_err(|e| e.to_string())?;
    let variant = job.variant.0;
    let from = usize::try_from(job.from_move).map_err(|_| "stored K is negative".to_string())?;
    let mut board = prefix(&record, variant, from).map_err(|e| e.to_string())?;
    let wanted = usize::try_from(job.split_units.unwrap_or(1).max(1)).unwrap_or(1);
    let frontier = Frontier::with_units(&mut board, wanted, Method::Incremental);
    Ok(Prepared {
        record,
        variant,
        from,
        board,
        frontier,
    })
}

/// Splits the claimed shared-proof `job` into its units, or ends it: `cancelled` when
/// a user asked for that before it was split, `failed` when its record no longer
/// replays. True if it ended here; false if it was split (its units hold it now) or
/// its claim was no longer current.
pub async fn split(runner: &Runner, store: &Store, job: &MorpionJobRow) -> sqlx::Result<bool> {
    if store.cancel_requested(&job.id).await? {
        return finish(runner, job, &MorpionFinish::Cancelled(None)).await;
    }
    let row = job.clone();
    let prepared = on_solver_thread(runner, move || prepare(&row)).await;
    match prepared {
        Some(Ok(p)) => {
            let (depth, units) = (p.frontier.depth as i64, p.frontier.units.len() as i64);
            let nodes = i64::try_from(p.frontier.nodes).unwrap_or(i64::MAX);
            if store.split_morpion(job, depth, units, nodes).await? {
                runner.notify_new_work();
                store.announce(Announce::Work);
                return Ok(false);
            }
            // Not split: cancelled meanwhile (the split refuses a job a user asked to
            // cancel), or the claim was taken back (the finish is then fenced too).
            finish(runner, job, &MorpionFinish::Cancelled(None)).await
        }
        Some(Err(error)) => finish(runner, job, &MorpionFinish::Failed(error)).await,
        None => {
            let failed = MorpionFinish::Failed("the split of the proof panicked".into());
            finish(runner, job, &failed).await
        }
    }
}

/// Concludes the shared proofs whose units all ended but that no node concluded (the
/// one that stored the last unit stopped first, or a unit failed).
pub(super) async fn conclude_leftovers(runner: &Runner, cache: &Cache) -> sqlx::Result<()> {
    for job in runner.store().unconcluded_shared().await? {
        conclude_proof(runner, cache, &job).await?;
    }
    Ok(())
}

/// The prepared proof of `job`, computed once per node, and checked against the
/// split recorded in the store.
async fn prepared(
    runner: &Runner,
    cache: &Cache,
    job: &MorpionJobRow,
) -> Result<Arc<Prepared>, String> {
    if let Some(p) = cache.lock().expect("cache").get(&job.id) {
        return Ok(p.clone());
    }
    let row = job.clone();
    let p = on_solver_thread(runner, move || prepare(&row))
        .await
        .ok_or_else(|| "the split of the proof panicked".to_string())??;
    let here = (
        Some(p.frontier.units.len() as i64),
        Some(p.frontier.depth as i64),
        Some(p.frontier.nodes as i64),
    );
    if here != (job.units_total, job.split_depth, job.frontier_nodes) {
        return Err(format!(
            "this node's frontier ({} units at depth {}, {} nodes) differs from the split's \
             ({:?} units at depth {:?}, {:?} nodes): nodes of different versions?",
            p.frontier.units.len(),
            p.frontier.depth,
            p.frontier.nodes,
            job.units_total,
            job.split_depth,
            job.frontier_nodes
        ));
    }
    let p = Arc::new(p);
    let mut cache = cache.lock().expect("cache");
    // A few proofs at a time at most: forget them all rather than grow (each holds
    // its frontier, up to tens of MB).
    if cache.len() >= 4 {
        cache.clear();
    }
    cache.insert(job.id.clone(), p.clone());
    Ok(p)
}

/// Searches one claimed unit (on a single lane when `single_lane`) and stores its
/// result; concludes the proof after its last. True if the unit ended here, false if
/// it went back to the queue (shutdown) or its result was fenced.
pub(super) async fn run_unit(
    runner: &Runner,
    cache: &Cache,
    unit: &MorpionUnitRow,
    flag: &Arc<AtomicBool>,
    progress: &Arc<AtomicU64>,
    single_lane: bool,
) -> sqlx::Result<bool> {
    let store = runner.store();
    let Some(job) = store.morpion_job(&unit.parent_id).await? else {
        let gone = UnitFinish::Failed(format!("its proof {} is gone", unit.parent_id));
        return end_unit(runner, cache, unit, &gone).await;
    };
    if job.life.state.is_final() {
        // Ended meanwhile (cancelled, failed): release the unit unsearched.
        return end_unit(runner, cache, unit, &UnitFinish::Cancelled).await;
    }
    let p = match prepared(runner, cache, &job).await {
        Ok(p) => p,
        Err(error) => {
            tracing::error!(job = %job.id, %error, "cannot work this shared proof");
            end_proof(runner, &job, &MorpionFinish::Failed(error.clone())).await?;
            return end_unit(runner, cache, unit, &UnitFinish::Failed(error)).await;
        }
    };
    if store.cancel_requested(&unit.id).await? {
        flag.store(true, Ordering::SeqCst);
    }
    let (cores, _, busy) = runner.take_threads(single_lane, 1, flag).await;
    let options = EndgameOptions {
        max_nodes: unit.limit_nodes.map(|n| n as u64),
        time: Some(Duration::from_millis(unit.limit_time_ms as u64)),
        ..EndgameOptions::default()
    };
    let index = usize::try_from(unit.unit).unwrap_or(usize::MAX);
    let (work, cancel, counter) = (p.clone(), flag.clone(), progress.clone());
    runner.count_busy(busy, true);
    let outcome = on_solver_thread(runner, move || {
        let started = Instant::now();
        let found = (index < work.frontier.units.len()).then(|| {
            search_unit(
                &work.board,
                &work.frontier,
                index,
                &options,
                Some(&cancel),
                Some(&counter),
            )
        });
        (found, started.elapsed())
    })
    .await;
    runner.count_busy(busy, false);
    drop(cores);
    let (result, stop, elapsed) = match outcome {
        Some((Some((result, stop)), elapsed)) => {
            runner.count_search(result.nodes, elapsed);
            (result, stop, elapsed)
        }
        _ => {
            let error = format!("unit {} of the proof could not be searched", unit.unit);
            return end_unit(runner, cache, unit, &UnitFinish::Failed(error)).await;
        }
    };
    if stop == Some(StopReason::Cancelled) {
        if !store.cancel_requested(&unit.id).await? && runner.is_shutting_down() {
            if store.requeue(&unit.claim()).await? {
                runner.announce_requeued();
            }
            return Ok(false);
        }
        return end_unit(runner, cache, unit, &UnitFinish::Cancelled).await;
    }
    let done = UnitDone {
        nodes: i64::try_from(result.nodes).unwrap_or(i64::MAX),
        complete: result.complete,
        stopped: stop,
        line: result
            .line
            .iter()
            .map(|&m| serde_json::to_value(RecordMove::from(m)).expect("a move serialises"))
            .collect(),
        elapsed_ms: elapsed.as_secs_f64() * 1e3,
    };
    end_unit(runner, cache, unit, &UnitFinish::Done(done)).await
}

/// Stores how `unit` ended under the runner's one retry policy and counts it; when it
/// was the last of its proof to end, concludes the proof. False if the claim was no
/// longer current.
async fn end_unit(
    runner: &Runner,
    cache: &Cache,
    unit: &MorpionUnitRow,
    ended: &UnitFinish,
) -> sqlx::Result<bool> {
    let store = runner.store();
    let left = Mutex::new(None);
    let stored = runner
        .finish_retrying(&unit.id, || async {
            let (stored, units_left) = store.finish_unit(unit, ended).await?;
            *left.lock().expect("units left") = Some(units_left);
            Ok(stored)
        })
        .await?;
    if !stored {
        return Ok(false);
    }
    runner.count_finished(JobKind::MorpionUnit, ended.state(), EndVerdict::None);
    let units_left = *left.lock().expect("units left");
    if units_left == Some(0) {
        conclude_now(runner, cache, &unit.parent_id).await?;
    }
    Ok(true)
}

/// Concludes proof `id` now that no unit of it is left to run.
async fn conclude_now(runner: &Runner, cache: &Cache, id: &str) -> sqlx::Result<()> {
    match runner.store().morpion_job(id).await? {
        Some(job) if job.life.state == JobState::Running => {
            conclude_proof(runner, cache, &job).await
        }
        _ => Ok(()),
    }
}

/// Concludes the shared proof `job`, whose units all ended: the report over every
/// unit's result, stored as the job's (once: the finish is conditional on the job
/// running), or `failed` when this node cannot rebuild its frontier or a unit failed.
async fn conclude_proof(runner: &Runner, cache: &Cache, job: &MorpionJobRow) -> sqlx::Result<()> {
    let ended = match prepared(runner, cache, job).await {
        Ok(p) => {
            let units = runner.store().units_of(&job.id).await?;
            match on_solver_thread(runner, move || conclusion(&p, &units)).await {
                Some(Ok(result)) => MorpionFinish::Done(result),
                Some(Err(error)) => MorpionFinish::Failed(error),
                None => MorpionFinish::Failed("the conclusion of the proof panicked".into()),
            }
        }
        Err(error) => MorpionFinish::Failed(error),
    };
    end_proof(runner, job, &ended).await
}

/// Stores how the shared proof `job` ended (`work::finish`), tells the other nodes and
/// wakes this node's waiters.
async fn end_proof(
    runner: &Runner,
    job: &MorpionJobRow,
    ended: &MorpionFinish,
) -> sqlx::Result<()> {
    if finish(runner, job, ended).await? {
        runner.store().announce(Announce::Done(&job.id));
    }
    runner.wake_waiters(&job.id);
    Ok(())
}

/// The job's result from its units' (every line rebuilt on the board first).
fn conclusion(p: &Prepared, units: &[MorpionUnitRow]) -> Result<MorpionResult, String> {
    let mut results: Vec<Option<UnitResult>> = vec![None; p.frontier.units.len()];
    let mut stop = None;
    let mut elapsed_ms = 0.0;
    for row in units {
        if row.life.state != JobState::Done {
            return Err(format!(
                "unit {} ended {}{}",
                row.unit,
                row.life.state,
                row.life
                    .error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ));
        }
        let index = usize::try_from(row.unit)
            .ok()
            .filter(|&i| i < results.len());
        let index = index.ok_or_else(|| format!("unit {} is not in the frontier", row.unit))?;
        let moves: Vec<RecordMove> = row
            .unit_line
            .as_ref()
            .map(|l| serde_json::from_value(serde_json::Value::Array(l.0.clone())))
            .transpose()
            .map_err(|e| format!("unit {}: its line does not decode: {e}", row.unit))?
            .unwrap_or_default();
        let line = replay_line(&p.board, &moves)
            .ok_or_else(|| format!("unit {}: its line does not replay", row.unit))?;
        if let Some(reason) = row.life.stopped {
            stop = stop.or(Some(reason.0));
        }
        elapsed_ms += row.life.elapsed_ms.unwrap_or(0.0);
        results[index] = Some(UnitResult {
            nodes: row.life.nodes.unwrap_or(0) as u64,
            line,
            complete: row.complete.unwrap_or(false),
        });
    }
    let report = conclude(
        &p.record,
        p.variant,
        p.from,
        &p.board,
        &p.frontier,
        &results,
        stop,
    );
    Ok(MorpionResult {
        best: report.best as i64,
        proved: report.proved,
        improved: report.improved,
        stopped: report.stop,
        nodes: i64::try_from(report.nodes).unwrap_or(i64::MAX),
        elapsed_ms,
        line: morpion_line(&p.record, &report.line),
        split_depth: report.split_depth as i64,
        units: report.units as i64,
        threads_used: 1,
    })
}

/// `moves` played from `board`, each checked; `None` if one is illegal.
fn replay_line(board: &Board, moves: &[RecordMove]) -> Option<Vec<Move>> {
    let mut board = board.clone();
    let mut out = Vec::with_capacity(moves.len());
    for m in moves {
        let found = board.find_move(m.x, m.y, m.dir, m.pos).ok()?;
        board.play(found);
        out.push(found);
    }
    Some(out)
}
