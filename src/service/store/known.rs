//! Known verdicts: the best verdict stored per (variant, canonical position), and
//! when a stored answer may serve a new request without a search.
//!
//! Invariant: an exact verdict answers any request; an `unknown` answers only a request
//! that would not search further (same algorithm, no larger limits, table or threads).

use super::rows::{JobRow, NewJob, GAPS_JOB_SELECT};
use super::{on_pool, Finish, Store};
use crate::played::PlayedAnswer;
use crate::report::{moves_as_steps, JobStats, MoveJson, StepJson};
use crate::service::job::subject::{JobAlgorithm, JobPosition, JobVariant};
use crate::service::job::Stored;
use gaps_engine::{Algorithm, Verdict};
use sqlx::types::Json;

/// The lookup of a position's known verdict (by the primary key; see the test
/// `the_known_verdict_lookup_uses_the_primary_key_on_a_new_database`).
const KNOWN_VERDICT: &str = "SELECT verdict, solution, algorithm, nodes, elapsed_ms, limit_nodes,
     limit_time_ms, job_id, limit_probes, requested_algorithm, table_mb, threads
 FROM verdicts WHERE variant = $1 AND position = $2";

/// The stored best verdict of a position.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct KnownVerdict {
    pub verdict: Stored<Verdict>,
    pub solution: Option<Json<Vec<MoveJson>>>,
    pub algorithm: Stored<JobAlgorithm>,
    pub nodes: i64,
    pub elapsed_ms: f64,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub job_id: String,
    pub limit_probes: Option<i64>,
    pub requested_algorithm: Stored<Algorithm>,
    pub table_mb: Option<i64>,
    pub threads: i64,
}

impl KnownVerdict {
    /// True if this answer serves `job`: an exact verdict always; an `unknown` only if
    /// the job asks for the same algorithm with no larger limits than those tried.
    pub fn answers(&self, job: &NewJob) -> bool {
        if self.verdict.0 != Verdict::Unknown {
            return true;
        }
        let not_larger = |new: Option<i64>, old: Option<i64>| match (new, old) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(new), Some(old)) => new <= old,
        };
        job.algorithm == self.requested_algorithm
            && not_larger(job.limit_nodes, self.limit_nodes)
            && not_larger(job.limit_probes, self.limit_probes)
            && not_larger(job.table_mb, self.table_mb)
            && job.threads <= self.threads
            && job.limit_time_ms <= self.limit_time_ms
    }
}

impl Store {
    /// The best verdict stored for `position` under `variant`.
    pub async fn known_verdict(
        &self,
        variant: JobVariant,
        position: &JobPosition,
    ) -> sqlx::Result<Option<KnownVerdict>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, KnownVerdict>(KNOWN_VERDICT)
                .bind(Stored(variant))
                .bind(Stored(*position))
                .fetch_optional(pool)
                .await
        })
    }
}

/// The done jobs of a game in progress with the same deal, rules and redeals, newest
/// first: the candidates whose steps and question may be the same.
/// (The condition after [`GAPS_JOB_SELECT`].)
const PLAYED_CANDIDATES: &str =
    " WHERE g.played IS NOT NULL AND g.variant = $1 AND g.position = $2 AND g.redeals = $3
         AND g.review = $4 AND j.state = 'done' AND g.verdict IN ('solvable', 'unsolvable')
     ORDER BY j.seq DESC LIMIT 64";

impl Store {
    /// The done jobs, newest first, with an exact verdict of the same deal (and PySolFC
    /// game or deal number), rules and redeals as `job`, played steps and the kind
    /// `review`: those whose answer may serve a game in progress.
    pub async fn played_candidates(&self, job: &NewJob, review: bool) -> sqlx::Result<Vec<JobRow>> {
        let rows = on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, JobRow>(&format!("{GAPS_JOB_SELECT}{PLAYED_CANDIDATES}"))
                .bind(job.variant)
                .bind(job.position)
                .bind(job.redeals)
                .bind(review)
                .fetch_all(pool)
                .await
        })?;
        Ok(rows
            .into_iter()
            .filter(|row| {
                row.spec.pysol == job.pysol
                    && row.spec.deal_seed == job.deal_seed
                    && row.spec.variant == job.variant
            })
            .collect())
    }

    /// How a game in progress's job ends when the same question was answered before:
    /// a done job of the same deal (and PySolFC game or deal number), rules, redeals,
    /// steps and kind (review or not) whose answer is exact (a review's: its fatal step
    /// found, or the game still winnable, or lost from the deal).
    pub async fn known_played(&self, job: &NewJob) -> sqlx::Result<Option<Finish>> {
        let rows = self.played_candidates(job, job.review).await?;
        let same = rows.into_iter().find(|row| {
            let decided = row.played_answer.as_ref().is_some_and(|a| {
                a.0.review
                    .as_ref()
                    .is_none_or(|r| r.fatal_step.is_some() || r.still_winnable || r.lost_from_start)
            });
            row.spec.played == job.played && decided
        });
        Ok(same.map(|row| {
            let verdict = row.verdict.map_or(Verdict::Unknown, |v| v.0);
            let solution = row.solution.as_ref().map(|s| s.0.clone());
            let played = row.played_answer.as_ref().map(|a| a.0.clone());
            answered_by(&row, verdict, solution, played)
        }))
    }
}

/// How a game in progress's job ends when the stored job `row` answers it with
/// `verdict`, `solution` and `played`: `done`, `cached`, no search.
pub fn answered_by(
    row: &JobRow,
    verdict: Verdict,
    solution: Option<Vec<StepJson>>,
    played: Option<PlayedAnswer>,
) -> Finish {
    Finish::Verdict {
        verdict,
        solution,
        stats: JobStats::Cached(crate::report::CachedStats {
            nodes: 0,
            elapsed_ms: 0.0,
            cached: true,
            answered_by_job: row.spec.id.clone(),
            original_nodes: row.life.nodes.unwrap_or(0),
            original_elapsed_ms: row.life.elapsed_ms.unwrap_or(0.0),
        }),
        stopped: None,
        used_algorithm: row
            .used_algorithm
            .map_or(JobAlgorithm::Engine(Algorithm::Auto), |a| a.0),
        nodes: 0,
        elapsed_ms: 0.0,
        cached: true,
        played: played.map(Box::new),
    }
}

impl KnownVerdict {
    /// How a claimed job ends when this answer serves it: `done`, `cached`, no search.
    pub fn as_cached_finish(&self) -> Finish {
        Finish::Verdict {
            verdict: self.verdict.0,
            solution: self.solution.clone().map(|s| moves_as_steps(s.0)),
            stats: cached_stats(self),
            stopped: None,
            used_algorithm: self.algorithm.0,
            nodes: 0,
            elapsed_ms: 0.0,
            cached: true,
            played: None,
        }
    }
}

/// Statistics of a job answered from the store: no search ran (the same for jobs answered
/// at submission and jobs answered when a lane claims them).
pub(super) fn cached_stats(known: &KnownVerdict) -> JobStats {
    JobStats::Cached(crate::report::CachedStats {
        nodes: 0,
        elapsed_ms: 0.0,
        cached: true,
        answered_by_job: known.job_id.clone(),
        original_nodes: known.nodes,
        original_elapsed_ms: known.elapsed_ms,
    })
}

#[cfg(test)]
mod known_tests {
    use super::super::test_support::{new_job, on_both, temp_pg_store, test_lease, verdict};
    use super::super::Pools;
    use gaps_engine::Verdict;

    /// Every job's claim reads its known verdict, on a pooled connection that caches a
    /// generic plan. On a new database the tables are empty, and an index on the
    /// variant alone once cost the planner as much as the primary key: the cached plan
    /// then read every verdict of the variant on each lookup (16,000 rows a lookup
    /// after 30,000 jobs, and a batch slowed from 518 to 190 jobs/s).
    #[tokio::test]
    async fn the_known_verdict_lookup_uses_the_primary_key_on_a_new_database() {
        let Some((store, _db)) = temp_pg_store().await else {
            return;
        };
        let Pools::Postgres(pool) = &store.pools else {
            unreachable!("a PostgreSQL store");
        };
        let mut conn = pool.acquire().await.unwrap();
        for sql in [
            "SET plan_cache_mode = force_generic_plan".to_string(),
            format!("PREPARE lookup(text, text) AS {}", super::KNOWN_VERDICT),
        ] {
            sqlx::query(&sql).execute(&mut *conn).await.unwrap();
        }
        let plan: Vec<String> = sqlx::query_scalar("EXPLAIN EXECUTE lookup('basic', 'x')")
            .fetch_all(&mut *conn)
            .await
            .unwrap();
        let plan = plan.join("\n");
        assert!(
            plan.contains("Index Cond: ((variant = $1) AND (\"position\" = $2))"),
            "{plan}"
        );
        drop(conn);
        store.close().await;
    }

    #[tokio::test]
    async fn a_stored_unknown_answers_only_requests_that_would_not_search_further() {
        on_both(|store| async move {
            let mut tried = new_job("tried", 7);
            tried.table_mb = Some(16);
            tried.threads = 1;
            store.insert_job(&tried).await.unwrap();
            let running = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            store
                .finish(&running, &verdict(Verdict::Unknown))
                .await
                .unwrap();
            let known = store
                .known_verdict(tried.variant.0, &tried.position.0)
                .await
                .unwrap()
                .unwrap();
            assert!(known.answers(&tried));
            let mut more_threads = tried.clone();
            more_threads.threads = 2;
            assert!(!known.answers(&more_threads));
            let mut larger_table = tried.clone();
            larger_table.table_mb = Some(32);
            assert!(!known.answers(&larger_table));
            let mut smaller_table = tried.clone();
            smaller_table.table_mb = Some(8);
            assert!(known.answers(&smaller_table));
            let mut longer = tried.clone();
            longer.limit_time_ms += 1;
            assert!(!known.answers(&longer));
        })
        .await;
    }
}
