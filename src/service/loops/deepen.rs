//! Deepening: while the solver threads are idle, the service searches its stored
//! `unknown` verdicts again, the least-searched first, each round with twice the time
//! of the last (up to `deepen.max_time_ms`; see [`deeper`]), and stores what it finds
//! in the known-answer store. A later request for such a position is answered at once, and the
//! win rates (which count the best verdict per distinct position) converge to exact.
//!
//! Invariants:
//! - User jobs come first: a search starts only with an idle pool thread and an empty
//!   queue, and any queued or claimed job raises its stop flag (`Runner::
//!   preempt_deepening`), which the engine checks about every 1024 nodes; a stopped
//!   search is dropped and started again later.
//! - It runs on its own solver thread (its own table) but holds one of the pool's
//!   thread permits while searching, so the pool's bound on busy threads holds.
//! - Only `verdicts` rows change (see `store::deepen`); every solution is replayed by
//!   the engine before it is returned, as for jobs.

use crate::report::solution_json;
use crate::service::config::Config;
use crate::service::config::SolverPriority;
use crate::service::job::Stored;
use crate::service::resources::memory::draw_mb;
use crate::service::resources::metrics::{DeepenLabels, DeepenOutcome, Metrics};
use crate::service::resources::solver_pool::{SolveWork, SolverThread, Steering};
use crate::service::runner::Runner;
use crate::service::store::{Deepened, Store, UnknownVerdict};
use gaps_engine::{resolve_algorithm, Algorithm, SolveOptions, StopReason, Verdict};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

/// How long to wait before looking again when there was nothing to do.
const IDLE_PAUSE: Duration = Duration::from_secs(2);

/// What one look for work did.
enum Round {
    /// A search ran (whatever its end): look again at once.
    Searched,
    /// Threads busy, jobs queued, or nothing stored to deepen.
    Nothing,
}

/// The deepening loop; ends when the service shuts down.
pub async fn run(runner: Arc<Runner>, store: Store, metrics: Arc<Metrics>, config: Arc<Config>) {
    let solver = match SolverThread::spawn(
        "deepen".into(),
        config.solver.table_mb << 20,
        SolverPriority::Idle,
        config.solver.spill_dir.clone(),
    ) {
        Ok(solver) => solver,
        Err(e) => {
            tracing::error!(error = %e, "could not start the deepening thread; deepening is off");
            return;
        }
    };
    while !runner.is_shutting_down() {
        match round(&runner, &store, &metrics, &config, &solver).await {
            Ok(Round::Searched) => {}
            Ok(Round::Nothing) => tokio::time::sleep(IDLE_PAUSE).await,
            Err(e) => {
                tracing::warn!(error = %e, "deepening could not read or write the store");
                tokio::time::sleep(IDLE_PAUSE).await;
            }
        }
    }
}

async fn round(
    runner: &Runner,
    store: &Store,
    metrics: &Metrics,
    config: &Config,
    solver: &SolverThread,
) -> sqlx::Result<Round> {
    let Some((core, stop)) = runner.idle_core_for_deepening() else {
        return Ok(Round::Nothing);
    };
    // Checked after the stop flag was lowered: a job queued from here on raises it.
    if store.has_queued().await? {
        return Ok(Round::Nothing);
    }
    let max_time_ms = config.deepen.max_time_ms as i64;
    let Some(from) = store.next_to_deepen(max_time_ms).await? else {
        return Ok(Round::Nothing);
    };
    let search_memory_mb = runner.search_memory_mb();
    let limits = deeper(&from, config, search_memory_mb);
    let mut options = options(&limits);
    // The memory a job with these limits would draw, taken only if jobs leave it free.
    let memory = match draw_mb(
        limits.requested_algorithm.0,
        limits.variant.0,
        limits.limit_time_ms as u64,
        1,
        limits.table_mb,
        search_memory_mb,
    ) {
        Some(mb) => {
            options.memory_limit = Some(mb << 20);
            match runner.free_search_memory(mb) {
                Some(draw) => Some(draw),
                None => return Ok(Round::Nothing),
            }
        }
        None => None,
    };
    let work = SolveWork {
        position: from.position.0,
        options,
        // Deepening works on `verdicts`, the positions' first-round verdicts.
        redeals: None,
        steering: Steering {
            cancel: stop,
            progress: Arc::new(AtomicU64::new(0)),
            // A job stops deepening instead (it is redone from its stored limits).
            pause: None,
        },
    };
    tracing::debug!(position = %from.position.0, time_ms = limits.limit_time_ms, "deepening");
    let result = solver.solve(work).await;
    drop((core, memory));
    let report = match result {
        Ok(report) => report,
        Err(error) => {
            // An engine error on a stored position is a bug: say so, and store the
            // larger limits as tried so the loop moves on instead of repeating it.
            tracing::error!(position = %from.position.0, %error, "deepening search failed");
            count(metrics, DeepenOutcome::Failed);
            let tried = Deepened {
                verdict: Verdict::Unknown,
                solution: None,
                algorithm: limits.requested_algorithm.0,
                nodes: 0,
                elapsed_ms: 0.0,
                limits,
                run_id: run_id(),
            };
            store.record_deepened(&from, &tried).await?;
            return Ok(Round::Searched);
        }
    };
    metrics
        .deepen_seconds
        .inc_by(report.stats.elapsed.as_secs_f64());
    if report.stopped == Some(StopReason::Cancelled) {
        count(metrics, DeepenOutcome::Preempted);
        return Ok(Round::Searched);
    }
    let found = Deepened {
        verdict: report.verdict,
        solution: solution_json(&report),
        algorithm: report.algorithm,
        nodes: report.stats.nodes as i64,
        elapsed_ms: report.stats.elapsed.as_secs_f64() * 1e3,
        limits,
        run_id: run_id(),
    };
    if store.record_deepened(&from, &found).await? {
        let improved = found.verdict != Verdict::Unknown;
        let outcome = if improved {
            DeepenOutcome::Improved
        } else {
            DeepenOutcome::Unknown
        };
        count(metrics, outcome);
        if improved {
            tracing::info!(
                position = %from.position.0,
                verdict = found.verdict.name(),
                "deepening decided a stored unknown"
            );
        }
    }
    Ok(Round::Searched)
}

fn count(metrics: &Metrics, outcome: DeepenOutcome) {
    metrics
        .deepen_searches
        .get_or_create(&DeepenLabels { outcome })
        .inc();
}

fn run_id() -> String {
    format!("deepen-{}", uuid::Uuid::now_v7())
}

/// The next round's search: the strongest algorithm for the purpose (`exact` stays
/// `exact`, with twice its `table_mb` within the searches' memory if it named one;
/// anything else becomes `auto`, which proves losses where `sampling` or `assign`
/// cannot), twice the time within `deepen.max_time_ms` (a search that names no memory
/// gets memory sized by its time, so twice that too, `gaps_engine::sized_memory`), no
/// node or probe limit (they were the user's choice for one job; the time is the budget
/// here), one thread.
pub fn deeper(from: &UnknownVerdict, config: &Config, search_memory_mb: usize) -> UnknownVerdict {
    let max_time_ms = config.deepen.max_time_ms.min(i64::MAX as u64) as i64;
    let exact =
        resolve_algorithm(from.requested_algorithm.0, from.variant.0) == Ok(Algorithm::Exact);
    let (algorithm, table) = if exact {
        let cap = search_memory_mb.min(i64::MAX as usize) as i64;
        let doubled = from.table_mb.map(|mb| mb.saturating_mul(2).min(cap));
        (Algorithm::Exact, doubled)
    } else {
        (Algorithm::Auto, None)
    };
    UnknownVerdict {
        requested_algorithm: Stored(algorithm),
        limit_time_ms: from.limit_time_ms.saturating_mul(2).min(max_time_ms),
        limit_nodes: None,
        limit_probes: None,
        table_mb: table,
        threads: 1,
        ..from.clone()
    }
}

fn options(limits: &UnknownVerdict) -> SolveOptions {
    SolveOptions {
        variant: limits.variant.0,
        algorithm: limits.requested_algorithm.0,
        max_nodes: limits.limit_nodes.map(|n| n as u64),
        time_limit: Some(Duration::from_millis(limits.limit_time_ms as u64)),
        memory_limit: limits.table_mb.map(|mb| (mb as usize) << 20),
        probes: limits.limit_probes.map(|p| p as u64),
        ..SolveOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gaps_engine::{deal, Layout, Variant};

    fn unknown(algorithm: Algorithm, time_ms: i64, nodes: Option<i64>) -> UnknownVerdict {
        UnknownVerdict {
            variant: Stored(Variant::Common),
            position: Stored(deal(1, Layout::new(4, 6).unwrap())),
            requested_algorithm: Stored(algorithm),
            limit_nodes: nodes,
            limit_time_ms: time_ms,
            limit_probes: None,
            table_mb: None,
            threads: 2,
        }
    }

    #[test]
    fn each_round_doubles_the_time_within_the_cap_with_the_strongest_search() {
        let config = Config::defaults();
        let cap = config.deepen.max_time_ms as i64;
        let next = deeper(&unknown(Algorithm::Dfs, 1000, Some(500)), &config, 2048);
        assert_eq!((next.limit_time_ms, next.limit_nodes), (2000, None));
        assert_eq!(next.requested_algorithm.0, Algorithm::Auto);
        assert_eq!((next.table_mb, next.threads), (None, 1));
        let last = deeper(&unknown(Algorithm::Auto, cap - 1, None), &config, 2048);
        assert_eq!(last.limit_time_ms, cap);
        // An exact search stays exact; a set it named doubles within the searches'
        // memory, one sized by its time stays sized (by the doubled time).
        let named = UnknownVerdict {
            table_mb: Some(64),
            ..unknown(Algorithm::Exact, 1000, None)
        };
        let exact = deeper(&named, &config, 100);
        assert_eq!(exact.requested_algorithm.0, Algorithm::Exact);
        assert_eq!(exact.table_mb, Some(100));
        let sized = deeper(&unknown(Algorithm::Exact, 1000, None), &config, 100);
        assert_eq!((sized.table_mb, sized.limit_time_ms), (None, 2000));
    }
}
