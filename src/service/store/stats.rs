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

/// Search effort of one (variant, suits, ranks, algorithm, verdict) over the searched
/// (not cached) jobs that ended with that verdict.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct EffortRow {
    pub variant: Stored<Variant>,
    pub suits: i64,
    pub ranks: i64,
    pub algorithm: Stored<Algorithm>,
    pub verdict: Stored<Verdict>,
    pub jobs: i64,
    pub mean_nodes: f64,
    pub median_nodes: f64,
    pub mean_ms: f64,
    pub median_ms: f64,
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

    /// Effort per (variant, suits, ranks, algorithm, verdict), aggregated in the
    /// database: counts and means by `GROUP BY`, medians (the middle value, or the mean
    /// of the two middle values) by row numbers over each group.
    pub async fn effort(&self) -> sqlx::Result<Vec<EffortRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, EffortRow>(
                "WITH searched AS (
                     SELECT variant, suits, ranks, used_algorithm AS algorithm, verdict, nodes,
                         elapsed_ms,
                         ROW_NUMBER() OVER (PARTITION BY variant, suits, ranks, used_algorithm,
                             verdict ORDER BY nodes) AS by_nodes,
                         ROW_NUMBER() OVER (PARTITION BY variant, suits, ranks, used_algorithm,
                             verdict ORDER BY elapsed_ms) AS by_ms,
                         COUNT(*) OVER (PARTITION BY variant, suits, ranks, used_algorithm,
                             verdict) AS n
                     FROM jobs
                     WHERE state = 'done' AND cached = FALSE AND nodes IS NOT NULL
                 )
                 SELECT variant, suits, ranks, algorithm, verdict, COUNT(*) AS jobs,
                     CAST(AVG(nodes) AS DOUBLE PRECISION) AS mean_nodes,
                     CAST(AVG(CASE WHEN by_nodes IN ((n + 1) / 2, (n + 2) / 2) THEN nodes END)
                         AS DOUBLE PRECISION) AS median_nodes,
                     CAST(AVG(elapsed_ms) AS DOUBLE PRECISION) AS mean_ms,
                     CAST(AVG(CASE WHEN by_ms IN ((n + 1) / 2, (n + 2) / 2) THEN elapsed_ms END)
                         AS DOUBLE PRECISION) AS median_ms
                 FROM searched
                 GROUP BY variant, suits, ranks, algorithm, verdict
                 ORDER BY variant, suits, ranks, algorithm, verdict",
            )
            .fetch_all(pool)
            .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, searched, test_lease};
    use gaps_engine::Verdict;

    #[tokio::test]
    async fn effort_means_and_medians_are_computed_in_the_database() {
        on_both(|store| async move {
            let finishes = [
                (Verdict::Unsolvable, 1, 4.0),
                (Verdict::Unsolvable, 5, 1.0),
                (Verdict::Unsolvable, 3, 2.0),
                (Verdict::Unsolvable, 10, 8.0),
                (Verdict::Solvable, 7, 0.5),
            ];
            for (k, (verdict, nodes, ms)) in finishes.into_iter().enumerate() {
                store
                    .insert_job(&new_job(&format!("j{k}"), k as u64))
                    .await
                    .unwrap();
                let job = store.claim_next(&test_lease()).await.unwrap().unwrap();
                assert!(store
                    .finish(&job, &searched(verdict, nodes, ms))
                    .await
                    .unwrap());
            }
            let effort = store.effort().await.unwrap();
            assert_eq!(effort.len(), 2);
            let (solvable, unsolvable) = (&effort[0], &effort[1]);
            assert_eq!((solvable.verdict.0, solvable.jobs), (Verdict::Solvable, 1));
            assert_eq!((solvable.median_nodes, solvable.median_ms), (7.0, 0.5));
            assert_eq!(
                (unsolvable.verdict.0, unsolvable.jobs),
                (Verdict::Unsolvable, 4)
            );
            assert_eq!(unsolvable.mean_nodes, 4.75);
            assert_eq!(unsolvable.median_nodes, 4.0); // (3 + 5) / 2
            assert_eq!(unsolvable.mean_ms, 3.75);
            assert_eq!(unsolvable.median_ms, 3.0); // (2 + 4) / 2
        })
        .await;
    }
}
