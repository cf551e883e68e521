//! Deepening: the stored `unknown` verdicts that the service searches again with larger
//! limits while its solver threads are idle, and what those searches found.
//!
//! Invariants:
//! - Only `verdicts` rows change; no job row is ever written, so a job's own recorded
//!   result stays what its search found.
//! - A deepening result is written only over the `unknown` row it was started from
//!   (same limits as when it was read): an exact verdict, or a newer result stored
//!   meanwhile by a job, is never overwritten.

use super::{on_pool, Store};
use crate::report::MoveJson;
use crate::service::job::Stored;
use gaps_engine::{Algorithm, Position, Variant, Verdict};
use sqlx::types::Json;

/// A stored `unknown` and the limits it was searched with.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct UnknownVerdict {
    pub variant: Stored<Variant>,
    pub position: Stored<Position>,
    pub requested_algorithm: Stored<Algorithm>,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub limit_probes: Option<i64>,
    pub table_mb: Option<i64>,
    pub threads: i64,
}

/// What a deepening search found, with the limits it had.
#[derive(Clone, Debug)]
pub struct Deepened {
    pub verdict: Verdict,
    pub solution: Option<Vec<MoveJson>>,
    pub algorithm: Algorithm,
    pub nodes: i64,
    pub elapsed_ms: f64,
    /// The limits of the deepening search (the next round doubles these).
    pub limits: UnknownVerdict,
    /// Names the search in `job_id` (`deepen-<uuid>`).
    pub run_id: String,
}

impl Store {
    /// The stored `unknown` searched with the smallest time limit, if one was searched
    /// with less than `max_time_ms`: a position of an engine variant (the `unknown`
    /// first rounds of games played on their own boards, `board:GAME`, are not
    /// deepened).
    pub async fn next_to_deepen(&self, max_time_ms: i64) -> sqlx::Result<Option<UnknownVerdict>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, UnknownVerdict>(
                "SELECT variant, position, requested_algorithm, limit_nodes, limit_time_ms,
                     limit_probes, table_mb, threads
                 FROM verdicts WHERE verdict = 'unknown' AND limit_time_ms < $1
                     AND variant NOT LIKE 'board:%'
                 ORDER BY limit_time_ms, updated_at LIMIT 1",
            )
            .bind(max_time_ms)
            .fetch_optional(pool)
            .await
        })
    }

    /// True while some job waits in the queue.
    pub async fn has_queued(&self) -> sqlx::Result<bool> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<Db, bool>(
                "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued')",
            )
            .fetch_one(pool)
            .await
        })
    }

    /// Stores a deepening result over `from` (the row as it was read). Returns whether
    /// it was written: false when the row changed meanwhile (see the module doc).
    pub async fn record_deepened(
        &self,
        from: &UnknownVerdict,
        found: &Deepened,
    ) -> sqlx::Result<bool> {
        let l = &found.limits;
        let written = on_pool!(self, write, |Db, pool, d| {
            sqlx::query::<Db>(&format!(
                "UPDATE verdicts SET verdict = $1, solution = $2, algorithm = $3, nodes = $4,
                 elapsed_ms = $5, limit_nodes = $6, limit_time_ms = $7, limit_probes = $8,
                 table_mb = $9, threads = $10, requested_algorithm = $11, job_id = $12,
                 updated_at = {now}
             WHERE variant = $13 AND position = $14 AND verdict = 'unknown'
                 AND limit_time_ms = $15 AND limit_nodes IS NOT DISTINCT FROM $16
                 AND limit_probes IS NOT DISTINCT FROM $17 AND table_mb IS NOT DISTINCT FROM $18",
                now = d.now
            ))
            .bind(Stored(found.verdict))
            .bind(found.solution.as_ref().map(Json))
            .bind(Stored(found.algorithm))
            .bind(found.nodes)
            .bind(found.elapsed_ms)
            .bind(l.limit_nodes)
            .bind(l.limit_time_ms)
            .bind(l.limit_probes)
            .bind(l.table_mb)
            .bind(l.threads)
            .bind(l.requested_algorithm)
            .bind(&found.run_id)
            .bind(from.variant)
            .bind(from.position)
            .bind(from.limit_time_ms)
            .bind(from.limit_nodes)
            .bind(from.limit_probes)
            .bind(from.table_mb)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(written == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, test_lease, verdict};
    use super::*;
    use crate::service::job::subject::JobVariant;

    #[tokio::test]
    async fn deepening_replaces_only_the_unknown_it_started_from() {
        on_both(|store| async move {
            assert!(store.next_to_deepen(10_000).await.unwrap().is_none());
            store.insert_job(&new_job("a", 3)).await.unwrap();
            assert!(store.has_queued().await.unwrap());
            let a = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert!(!store.has_queued().await.unwrap());
            store.finish(&a, &verdict(Verdict::Unknown)).await.unwrap();
            // Searched with 1000 ms: nothing to deepen under a cap of 1000 ms.
            assert!(store.next_to_deepen(1000).await.unwrap().is_none());
            let from = store.next_to_deepen(10_000).await.unwrap().unwrap();
            assert_eq!(from.limit_time_ms, 1000);
            let mut limits = from.clone();
            limits.limit_time_ms = 2000;
            let found = |v: Verdict| Deepened {
                verdict: v,
                solution: None,
                algorithm: Algorithm::Dfs,
                nodes: 5,
                elapsed_ms: 1.0,
                limits: limits.clone(),
                run_id: "deepen-1".into(),
            };
            // Still unknown with twice the time: stored, so the next round doubles again.
            assert!(store
                .record_deepened(&from, &found(Verdict::Unknown))
                .await
                .unwrap());
            let again = store.next_to_deepen(10_000).await.unwrap().unwrap();
            assert_eq!(again.limit_time_ms, 2000);
            // A stale result (read before the row changed) is not written.
            assert!(!store
                .record_deepened(&from, &found(Verdict::Solvable))
                .await
                .unwrap());
            assert!(store
                .record_deepened(&again, &found(Verdict::Unsolvable))
                .await
                .unwrap());
            assert!(store.next_to_deepen(10_000).await.unwrap().is_none());
            let known = store
                .known_verdict(JobVariant::Engine(Variant::Basic), &a.spec.position.0)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (known.verdict.0, known.job_id.as_str()),
                (Verdict::Unsolvable, "deepen-1")
            );
            // The job's own result is untouched.
            let job = store.job("a").await.unwrap().unwrap();
            assert_eq!(job.verdict.unwrap().0, Verdict::Unknown);
        })
        .await;
    }
}
