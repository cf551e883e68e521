//! Aggregate queries: win-rate counts over distinct positions, and search effort samples.
//!
//! Invariant: win rates count each (variant, canonical position) once, from `verdicts`,
//! whether the position came as text, by deal number or in a batch.

use super::{on_pool, Store};
use crate::service::job::Stored;
use gaps_engine::{Algorithm, Variant, Verdict};

/// Verdict counts of one (variant, suits, ranks).
#[derive(Clone, Debug, sqlx::FromRow, PartialEq, Eq)]
pub struct WinRateCounts {
    pub variant: Stored<Variant>,
    pub suits: i64,
    pub ranks: i64,
    pub deals: i64,
    pub solvable: i64,
    pub unsolvable: i64,
    pub unknown: i64,
}

/// Effort of one searched (not cached) finished job.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct EffortSample {
    pub variant: Stored<Variant>,
    pub suits: i64,
    pub ranks: i64,
    pub algorithm: Stored<Algorithm>,
    pub verdict: Stored<Verdict>,
    pub nodes: i64,
    pub elapsed_ms: f64,
}

impl Store {
    /// Verdict counts per (variant, suits, ranks) over distinct positions.
    pub async fn win_rate_counts(&self) -> sqlx::Result<Vec<WinRateCounts>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, WinRateCounts>(
                "SELECT variant, suits, ranks, COUNT(*) AS deals,
                     COUNT(*) FILTER (WHERE verdict = 'solvable') AS solvable,
                     COUNT(*) FILTER (WHERE verdict = 'unsolvable') AS unsolvable,
                     COUNT(*) FILTER (WHERE verdict = 'unknown') AS unknown
                 FROM verdicts GROUP BY variant, suits, ranks ORDER BY variant, suits, ranks",
            )
            .fetch_all(pool)
            .await
        })
    }

    /// Effort of every searched job that ended with a verdict, grouped-ready (sorted by
    /// group key).
    pub async fn effort_samples(&self) -> sqlx::Result<Vec<EffortSample>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, EffortSample>(
                "SELECT variant, suits, ranks, used_algorithm AS algorithm, verdict, nodes,
                     elapsed_ms
                 FROM jobs
                 WHERE state = 'done' AND cached = FALSE AND nodes IS NOT NULL
                 ORDER BY variant, suits, ranks, used_algorithm, verdict",
            )
            .fetch_all(pool)
            .await
        })
    }
}
