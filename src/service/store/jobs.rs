//! Jobs: insert, read, list and cancel (the end of a search: `finish`; claims and
//! leases: `leases`; known verdicts: `known`; what only a Morpion job has: `morpion`).
//!
//! Invariants:
//! - A Gaps job is one row of `jobs` (its life) and one of `gaps_searches` (its
//!   search) with the same id, inserted in one transaction: a reader never sees one
//!   without the other, and the search's row goes when the job's is deleted.
//! - State changes are conditional on the current state (`WHERE state = ...`), so a
//!   late or repeated call can never move a job backwards or finish it twice.
//!
//! Reads, lists and cancels are of jobs of every game (`AnyJob`); inserts and finishes
//! are a game's own.

use super::any_job::{decode_any, AnyJob};
use super::known::{cached_stats, KnownVerdict};
use super::queue::{class_of, take_turns};
use super::rows::{end_parts, JobFilter, JobRow, NewJob, ANY_JOB_SELECT, GAPS_JOB_SELECT};
use super::{in_transaction, on_pool, Store};
use crate::service::job::{JobState, Stored};
use sqlx::types::Json;
use sqlx::QueryBuilder;

/// The columns of `jobs` a [`NewJob`] fills (each insert adds the kind, the state
/// and the queue's class and turn), in the order [`bind_job`] binds them.
macro_rules! job_columns {
    () => {
        "id, batch_id, created_by"
    };
}
pub(super) use job_columns;
/// The columns of `gaps_searches` a [`NewJob`] fills, in the order [`bind_search`]
/// binds them.
macro_rules! search_columns {
    () => {
        "id, variant, algorithm, position, suits, ranks, deal_seed, limit_nodes, limit_time_ms,
         table_mb, search_seed, limit_probes, threads, pysol, redeals, played, review"
    };
}
pub(super) use search_columns;
/// One placeholder per column of `search_columns!` (they are the first 17).
macro_rules! search_values {
    () => {
        "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17"
    };
}

impl Store {
    /// Inserts a queued job and returns it.
    ///
    /// Every write that returns rows runs in an explicit transaction and commits it:
    /// in autocommit, `fetch_one` stops at the first row and SQLite commits when the
    /// statement is reset, where a failed commit (a full disk) is not reported, so a
    /// row would be returned as stored although it was rolled back.
    pub async fn insert_job(&self, job: &NewJob) -> sqlx::Result<JobRow> {
        let class = class_of(job.batch_id.as_deref());
        let client = job.created_by.clone().unwrap_or_default();
        in_transaction!(self, |Db, tx, d| {
            let turn = take_turns!(Db, tx, d, class, &client, 1_i64);
            bind_job!(
                sqlx::query::<Db>(concat!(
                    "INSERT INTO jobs (game, ",
                    job_columns!(),
                    ", queue_class, turn, state) VALUES ('gaps', $1, $2, $3, $4, $5, 'queued')"
                )),
                job
            )
            .bind(class)
            .bind(turn)
            .execute(&mut *tx)
            .await?;
            bind_search!(sqlx::query::<Db>(INSERT_SEARCH), job)
                .execute(&mut *tx)
                .await?;
            let row = sqlx::query_as::<Db, JobRow>(&format!("{GAPS_JOB_SELECT} WHERE j.id = $1"))
                .bind(&job.id)
                .fetch_one(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// Inserts a job already answered by a known verdict (state `done`, `cached`).
    pub async fn insert_answered_job(
        &self,
        job: &NewJob,
        known: &KnownVerdict,
    ) -> sqlx::Result<JobRow> {
        let stats = Json(cached_stats(known));
        in_transaction!(self, |Db, tx, d| {
            let sql = format!(
                concat!(
                    "INSERT INTO jobs (game, ",
                    job_columns!(),
                    ", state, nodes, elapsed_ms, started_at, finished_at)
                     VALUES ('gaps', $1, $2, $3, 'done', 0, 0, {now}, {now})"
                ),
                now = d.now
            );
            bind_job!(sqlx::query::<Db>(&sql), job)
                .execute(&mut *tx)
                .await?;
            let sql = concat!(
                "INSERT INTO gaps_searches (",
                search_columns!(),
                ", verdict, solution, stats, used_algorithm, cached) VALUES (",
                search_values!(),
                ", $18, $19, $20, $21, TRUE)"
            );
            bind_search!(sqlx::query::<Db>(sql), job)
                .bind(known.verdict)
                .bind(&known.solution)
                .bind(&stats)
                .bind(known.algorithm)
                .execute(&mut *tx)
                .await?;
            let row = sqlx::query_as::<Db, JobRow>(&format!("{GAPS_JOB_SELECT} WHERE j.id = $1"))
                .bind(&job.id)
                .fetch_one(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// The Gaps job with this id (`None` also for a job of another game).
    pub async fn job(&self, id: &str) -> sqlx::Result<Option<JobRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, JobRow>(&format!("{GAPS_JOB_SELECT} WHERE j.id = $1"))
                .bind(id)
                .fetch_optional(pool)
                .await
        })
    }

    /// The job with this id, whatever its game.
    pub async fn any_job(&self, id: &str) -> sqlx::Result<Option<AnyJob>> {
        on_pool!(self, read, |Db, pool, _d| {
            let row = sqlx::query::<Db>(&format!("{ANY_JOB_SELECT} WHERE j.id = $1"))
                .bind(id)
                .fetch_optional(pool)
                .await?;
            row.as_ref().map(decode_any).transpose()
        })
    }

    /// One page of jobs of every game (not the parts of a job), newest first; `limit +
    /// 1` rows are read to know if more follow.
    pub async fn list_jobs(&self, filter: &JobFilter) -> sqlx::Result<Vec<AnyJob>> {
        on_pool!(self, read, |Db, pool, _d| {
            let mut q = QueryBuilder::<Db>::new(ANY_JOB_SELECT);
            // The parts of a job (a shared proof's units) are shown through it.
            q.push(" WHERE j.parent_id IS NULL");
            if let Some(game) = &filter.game {
                q.push(" AND j.game = ").push_bind(*game);
            }
            if let Some(state) = &filter.state {
                q.push(" AND j.state = ").push_bind(*state);
            }
            if let Some(variant) = &filter.variant {
                q.push(" AND j.game = 'gaps' AND g.variant = ")
                    .push_bind(Stored(*variant));
            }
            if let Some(verdict) = &filter.verdict {
                q.push(" AND g.verdict = ").push_bind(Stored(*verdict));
            }
            if let Some(batch) = &filter.batch_id {
                q.push(" AND j.batch_id = ").push_bind(batch.clone());
            }
            if let Some(before) = filter.before {
                q.push(" AND j.seq < ").push_bind(before);
            }
            q.push(" ORDER BY j.seq DESC LIMIT ")
                .push_bind(i64::from(filter.limit) + 1);
            let rows = q.build().fetch_all(pool).await?;
            rows.iter().map(decode_any).collect()
        })
    }

    /// True if a user asked to cancel this job.
    pub async fn cancel_requested(&self, id: &str) -> sqlx::Result<bool> {
        let flag = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query_scalar::<Db, bool>("SELECT cancel_requested FROM jobs WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?
        });
        Ok(flag.unwrap_or(false))
    }

    /// How many jobs created by `client` wait: queued ones (not counting the parts of a
    /// job: a shared proof counts once), and the deals of its batches not yet queued.
    pub async fn queued_by(&self, client: &str) -> sqlx::Result<i64> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<Db, i64>(
                // PostgreSQL's SUM of BIGINT is NUMERIC: cast back.
                "SELECT CAST((SELECT COUNT(*) FROM jobs
                          WHERE state = 'queued' AND created_by = $1 AND parent_id IS NULL)
                      + (SELECT COALESCE(SUM(count - materialized), 0) FROM batches
                         WHERE materialized < count AND created_by = $1) AS BIGINT)",
            )
            .bind(client)
            .fetch_one(pool)
            .await
        })
    }

    /// Cancels a job of any game: a queued job ends `cancelled` at once, and so does a
    /// running job no node holds (a shared Morpion proof); a running job is flagged (its
    /// holder is stopped by the caller, or by its heartbeat on another node); its parts
    /// (a shared proof's units) are cancelled as well (`rows::END_PARTS`). Returns the job
    /// after the change, or `None` if there is no such job.
    pub async fn cancel(&self, id: &str) -> sqlx::Result<Option<AnyJob>> {
        in_transaction!(self, |Db, tx, d| {
            sqlx::query::<Db>(&format!(
                "UPDATE jobs SET state = 'cancelled', cancel_requested = TRUE, finished_at = {now}
                 WHERE id = $1 AND (state = 'queued'
                     OR (state = 'running' AND lease_token IS NULL))",
                now = d.now
            ))
            .bind(id)
            .execute(&mut *tx)
            .await?;
            end_parts!(Db, tx, d, id);
            sqlx::query::<Db>(
                "UPDATE jobs SET cancel_requested = TRUE WHERE id = $1 AND state = 'running'",
            )
            .bind(id)
            .execute(&mut *tx)
            .await?;
            let row = sqlx::query::<Db>(&format!("{ANY_JOB_SELECT} WHERE j.id = $1"))
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
            let job = row.as_ref().map(decode_any).transpose()?;
            tx.commit().await?;
            Ok(job)
        })
    }

    /// Number of jobs of every game in each state.
    pub async fn state_counts(&self) -> sqlx::Result<Vec<(JobState, i64)>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, (JobState, i64)>(
                "SELECT state, CAST(COUNT(*) AS BIGINT) FROM jobs GROUP BY state",
            )
            .fetch_all(pool)
            .await
        })
    }
}

/// Binds the fields of `job` that `jobs` holds to the first placeholders of `query`,
/// in the order of `job_columns!`: every insert of a job lists its columns once.
macro_rules! bind_job {
    ($query:expr, $job:expr) => {
        bind_job!($query, $job, bind)
    };
    // `push_bind`: a row of a multi-row insert (`QueryBuilder::push_values`).
    ($query:expr, $job:expr, $bind:ident) => {{
        let job: &NewJob = $job;
        $query
            .$bind(&job.id)
            .$bind(&job.batch_id)
            .$bind(&job.created_by)
    }};
}
pub(super) use bind_job;

/// Binds the fields of `job` that `gaps_searches` holds to the first placeholders of
/// `query`, in the order of `search_columns!`.
macro_rules! bind_search {
    ($query:expr, $job:expr) => {
        bind_search!($query, $job, bind)
    };
    ($query:expr, $job:expr, $bind:ident) => {{
        let job: &NewJob = $job;
        $query
            .$bind(&job.id)
            .$bind(job.variant)
            .$bind(job.algorithm)
            .$bind(job.position)
            .$bind(job.suits)
            .$bind(job.ranks)
            .$bind(job.deal_seed)
            .$bind(job.limit_nodes)
            .$bind(job.limit_time_ms)
            .$bind(job.table_mb)
            .$bind(job.search_seed)
            .$bind(job.limit_probes)
            .$bind(job.threads)
            .$bind(&job.pysol)
            .$bind(job.redeals)
            .$bind(&job.played)
            .$bind(job.review)
    }};
}
pub(super) use bind_search;

/// The deal a verdict with redeals belongs to: `pysol:GAME:N` or `deal:SxR:N` (the
/// generator that shuffles its redeals).
pub fn redeal_source(job: &NewJob) -> String {
    match (&job.pysol, job.deal_seed) {
        (Some(game), _) => format!("pysol:{}", game.0),
        (None, Some(seed)) => format!("deal:{}x{}:{seed}", job.suits, job.ranks),
        (None, None) => format!("position:{}", job.position.0),
    }
}

/// What a win-rate row counts a verdict with redeals under: `pysol-GAME` or `deals`.
pub(super) fn redeal_kind(job: &NewJob) -> String {
    match &job.pysol {
        Some(game) => format!("pysol-{}", game.0.game().name()),
        None => "deals".into(),
    }
}

/// The insert of one Gaps search, queued (a batch's go in multi-row inserts of the
/// same columns: `Store::add_batch_jobs`), after its job's row.
const INSERT_SEARCH: &str = concat!(
    "INSERT INTO gaps_searches (",
    search_columns!(),
    ") VALUES (",
    search_values!(),
    ")"
);

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, test_lease, verdict};
    use crate::service::job::JobState;
    use gaps_engine::Verdict;

    #[tokio::test]
    async fn jobs_flow_through_states_and_win_rates_count_distinct_positions() {
        on_both(|store| async move {
            store.insert_job(&new_job("a", 1)).await.unwrap();
            store.insert_job(&new_job("b", 1)).await.unwrap();
            store.insert_job(&new_job("c", 2)).await.unwrap();
            // Oldest first.
            let a = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (a.spec.id.as_str(), a.life.state, a.life.attempts),
                ("a", JobState::Running, 1)
            );
            assert!(store.finish(&a, &verdict(Verdict::Unknown)).await.unwrap());
            // Finishing twice changes nothing.
            assert!(!store.finish(&a, &verdict(Verdict::Solvable)).await.unwrap());
            let b = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert!(store.finish(&b, &verdict(Verdict::Solvable)).await.unwrap());
            let c = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert!(store
                .finish(&c, &verdict(Verdict::Unsolvable))
                .await
                .unwrap());
            assert!(store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .is_none());
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
            store.insert_job(&new_job("d", 2)).await.unwrap();
            let d = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            store.finish(&d, &verdict(Verdict::Unknown)).await.unwrap();
            assert_eq!(
                store
                    .known_verdict(d.spec.variant.0, &d.spec.position.0)
                    .await
                    .unwrap()
                    .unwrap()
                    .verdict
                    .0,
                Verdict::Unsolvable
            );
            let effort = store.effort().await.unwrap();
            assert_eq!(effort.iter().map(|e| e.jobs).sum::<i64>(), 4);
        })
        .await;
    }

    #[tokio::test]
    async fn cancel_and_recover() {
        on_both(|store| async move {
            store.insert_job(&new_job("q", 1)).await.unwrap();
            store.insert_job(&new_job("r", 2)).await.unwrap();
            store.insert_job(&new_job("s", 3)).await.unwrap();
            let r = store.cancel("q").await.unwrap().unwrap();
            assert_eq!(r.state(), JobState::Cancelled);
            let running = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(running.spec.id, "r");
            let flagged = store.cancel("r").await.unwrap().unwrap();
            let flagged = flagged.into_gaps().unwrap();
            assert_eq!(flagged.life.state, JobState::Running);
            assert!(flagged.life.cancel_requested);
            let s = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(s.spec.id, "s");
            assert!(store.cancel("nope").await.unwrap().is_none());
            // A crash: `r` was cancelled by its user, `s` goes back to the queue.
            assert_eq!(store.recover(3).await.unwrap().requeued, 1);
            assert_eq!(
                store.job("r").await.unwrap().unwrap().life.state,
                JobState::Cancelled
            );
            let again = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!((again.spec.id.as_str(), again.life.attempts), ("s", 2));
        })
        .await;
    }
}
