//! Aggregate queries: win-rate counts over distinct positions, and search effort samples.
//!
//! Invariant: win rates count each (variant, canonical position) once, from `verdicts`,
//! whether the position came as text, by deal number or in a batch.

use super::Store;

/// Verdict counts of one (variant, suits, ranks).
#[derive(Clone, Debug, sqlx::FromRow, PartialEq, Eq)]
pub struct WinRateCounts {
    pub variant: String,
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
    pub variant: String,
    pub suits: i64,
    pub ranks: i64,
    pub algorithm: String,
    pub verdict: String,
    pub nodes: i64,
    pub elapsed_ms: f64,
}

impl Store {
    /// Verdict counts per (variant, suits, ranks) over distinct positions.
    pub async fn win_rate_counts(&self) -> sqlx::Result<Vec<WinRateCounts>> {
        sqlx::query_as::<_, WinRateCounts>(
            "SELECT variant, suits, ranks, COUNT(*) AS deals,
                 SUM(verdict = 'solvable') AS solvable,
                 SUM(verdict = 'unsolvable') AS unsolvable,
                 SUM(verdict = 'unknown') AS unknown
             FROM verdicts GROUP BY variant, suits, ranks ORDER BY variant, suits, ranks",
        )
        .fetch_all(self.reader())
        .await
    }

    /// Effort of every searched job that ended with a verdict, grouped-ready (sorted by
    /// group key).
    pub async fn effort_samples(&self) -> sqlx::Result<Vec<EffortSample>> {
        sqlx::query_as::<_, EffortSample>(
            "SELECT variant, suits, ranks, used_algorithm AS algorithm, verdict, nodes, elapsed_ms
             FROM jobs
             WHERE state = 'done' AND cached = 0 AND nodes IS NOT NULL
             ORDER BY variant, suits, ranks, used_algorithm, verdict",
        )
        .fetch_all(self.reader())
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::temp_store;
    use super::super::{Finish, NewJob};

    fn job(id: &str, position: &str) -> NewJob {
        NewJob {
            id: id.into(),
            variant: "basic".into(),
            algorithm: "auto".into(),
            position: position.into(),
            suits: 2,
            ranks: 3,
            deal_seed: None,
            limit_nodes: None,
            limit_time_ms: 1000,
            table_mb: None,
            search_seed: 0,
            batch_id: None,
            limit_probes: None,
        }
    }

    fn verdict(v: &str) -> Finish {
        Finish::Verdict {
            verdict: v.into(),
            solution: None,
            stats: "{}".into(),
            stopped: None,
            used_algorithm: "dfs".into(),
            nodes: 10,
            elapsed_ms: 1.0,
            cached: false,
        }
    }

    #[tokio::test]
    async fn jobs_flow_through_states_and_win_rates_count_distinct_positions() {
        let (store, _dir) = temp_store().await;
        store.insert_job(&job("a", "P1")).await.unwrap();
        store.insert_job(&job("b", "P1")).await.unwrap();
        store.insert_job(&job("c", "P2")).await.unwrap();
        // Oldest first.
        let a = store.claim_next().await.unwrap().unwrap();
        assert_eq!(
            (a.spec.id.as_str(), a.state.as_str(), a.attempts),
            ("a", "running", 1)
        );
        assert!(store.finish(&a, &verdict("unknown")).await.unwrap());
        // Finishing twice changes nothing.
        assert!(!store.finish(&a, &verdict("solvable")).await.unwrap());
        let b = store.claim_next().await.unwrap().unwrap();
        assert!(store.finish(&b, &verdict("solvable")).await.unwrap());
        let c = store.claim_next().await.unwrap().unwrap();
        assert!(store.finish(&c, &verdict("unsolvable")).await.unwrap());
        assert!(store.claim_next().await.unwrap().is_none());
        // The exact verdict replaced the unknown; P1 counts once.
        let rows = store.win_rate_counts().await.unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (
                rows[0].deals,
                rows[0].solvable,
                rows[0].unsolvable,
                rows[0].unknown
            ),
            (2, 1, 1, 0)
        );
        // An exact verdict is never replaced.
        store.insert_job(&job("d", "P2")).await.unwrap();
        let d = store.claim_next().await.unwrap().unwrap();
        store.finish(&d, &verdict("unknown")).await.unwrap();
        assert_eq!(
            store
                .known_verdict("basic", "P2")
                .await
                .unwrap()
                .unwrap()
                .verdict,
            "unsolvable"
        );
        assert_eq!(store.effort_samples().await.unwrap().len(), 4);
    }

    #[tokio::test]
    async fn cancel_and_recover() {
        let (store, _dir) = temp_store().await;
        store.insert_job(&job("q", "P1")).await.unwrap();
        store.insert_job(&job("r", "P2")).await.unwrap();
        store.insert_job(&job("s", "P3")).await.unwrap();
        let r = store.cancel("q").await.unwrap().unwrap();
        assert_eq!(r.state, "cancelled");
        let running = store.claim_next().await.unwrap().unwrap();
        assert_eq!(running.spec.id, "r");
        let flagged = store.cancel("r").await.unwrap().unwrap();
        assert_eq!(flagged.state, "running");
        assert!(flagged.cancel_requested);
        let s = store.claim_next().await.unwrap().unwrap();
        assert_eq!(s.spec.id, "s");
        assert!(store.cancel("nope").await.unwrap().is_none());
        // A crash: `r` was cancelled by its user, `s` goes back to the queue.
        assert_eq!(store.recover().await.unwrap(), 1);
        assert_eq!(store.job("r").await.unwrap().unwrap().state, "cancelled");
        let again = store.claim_next().await.unwrap().unwrap();
        assert_eq!((again.spec.id.as_str(), again.attempts), ("s", 2));
    }
}
