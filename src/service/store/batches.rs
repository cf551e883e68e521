//! Batches: a durable request for deals `seed..seed+count-1`, whose jobs are inserted in
//! short transactions after the batch itself is committed; or a batch given as its
//! games (`games`: each a job request of its own), whose jobs are inserted with it.
//!
//! Invariant: `materialized` counts the batch's jobs already inserted, and is advanced
//! in the same transaction as the jobs it counts, so a crash at any point leaves a batch
//! that [`Store::unfinished_batches`] finds and filling resumes exactly where it stopped;
//! a batch of games is never unfinished so (its jobs and their count commit with it).

use super::jobs::{bind_job, bind_search, job_columns, search_columns};
use super::odds::{insert_batch_odds, NewOddsJob};
use super::queue::{take_turns, BATCH};
use super::rows::NewJob;
use super::{in_transaction, on_pool, Store};
use crate::request::rounds::RedealCount;
use crate::service::job::subject::JobVariant;
#[cfg(test)]
use crate::service::job::JobState;
use crate::service::job::{GameNumberKey, Stored};
use gaps_engine::Algorithm;

/// Inserts `$jobs`, a batch's next jobs in order, queued in the batch class, in the
/// transaction `$tx`.
///
/// One statement a chunk: a chunk's transaction holds its batch's counts row (and on
/// SQLite the one writer) while it runs, so it must not wait on one round trip a job
/// (1,000 of them took about a second on PostgreSQL, during which the claims and
/// finishes sharing that counts row waited). The chunk's turns, in deal order
/// (`queue`: batches of different clients are served in turn).
macro_rules! insert_batch_jobs {
    ($db:ident, $tx:ident, $d:ident, $jobs:expr) => {{
        let jobs: &[NewJob] = $jobs;
        let client = jobs
            .first()
            .and_then(|job| job.created_by.clone())
            .unwrap_or_default();
        let first_turn = take_turns!($db, $tx, $d, BATCH, &client, jobs.len() as i64);
        for (chunk, rows) in jobs.chunks(ROWS_PER_INSERT).enumerate() {
            let mut insert = sqlx::QueryBuilder::<$db>::new(concat!(
                "INSERT INTO jobs (game, ",
                job_columns!(),
                ", queue_class, turn, state) "
            ));
            let turns = first_turn + (chunk * ROWS_PER_INSERT) as i64..;
            insert.push_values(rows.iter().zip(turns), |mut row, (job, turn)| {
                bind_job!(row.push("'gaps'"), job, push_bind)
                    .push_bind(BATCH)
                    .push_bind(turn)
                    .push("'queued'");
            });
            let inserted = insert.build().execute(&mut *$tx).await?.rows_affected();
            let mut insert = sqlx::QueryBuilder::<$db>::new(concat!(
                "INSERT INTO gaps_searches (",
                search_columns!(),
                ") "
            ));
            insert.push_values(rows, |mut row, job| {
                bind_search!(row, job, push_bind);
            });
            let searches = insert.build().execute(&mut *$tx).await?.rows_affected();
            if inserted != rows.len() as u64 || searches != inserted {
                return Err(sqlx::Error::Protocol(format!(
                    "a batch insert of {} jobs inserted {inserted} (and {searches} searches)",
                    rows.len()
                )));
            }
        }
    }};
}

/// Jobs a multi-row insert carries: 5 parameters each in `jobs` and 17 in
/// `gaps_searches`, well within SQLite's 32,766 and PostgreSQL's 65,535 parameters a
/// statement.
const ROWS_PER_INSERT: usize = 500;

/// Every column of a batch: what was asked (`spec`) and how far its jobs were created.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct BatchRow {
    pub seq: i64,
    #[sqlx(flatten)]
    pub spec: NewBatch,
    pub materialized: i64,
    pub created_at: String,
}

/// A validated batch to insert.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct NewBatch {
    pub id: String,
    /// The rules of its jobs (a board game's own for a game played on its board).
    pub variant: Stored<JobVariant>,
    pub algorithm: Stored<Algorithm>,
    pub suits: i64,
    pub ranks: i64,
    pub seed: i64,
    pub count: i64,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub limit_probes: Option<i64>,
    /// Threads of each job's search.
    pub threads: i64,
    /// The caller that created it (see [`super::NewJob::created_by`]); its jobs carry it.
    pub created_by: Option<String>,
    /// The PySolFC game (`montana`) of a batch of games by number: its jobs are games
    /// `pysol_from .. pysol_from+count-1` of it, in the game's variant (`seed` is 0).
    pub pysol_game: Option<String>,
    /// The first game number of a batch of PySolFC games by number.
    pub pysol_from: Option<GameNumberKey>,
    /// Redeals each job may use.
    pub redeals: RedealCount,
    /// Whether it was given as its games, each a job request of its own (its jobs were
    /// inserted with it; `variant`, `suits`, `ranks` and the limits are its first's).
    pub games: bool,
    /// The samples of each job of a batch of odds jobs (`None`: Gaps searches).
    pub odds_samples: Option<i64>,
}

/// Jobs of one batch, inserted with it or by the filler: Gaps searches or odds jobs
/// (a batch holds one kind).
#[derive(Clone, Copy, Debug)]
pub enum BatchJobs<'a> {
    Gaps(&'a [NewJob]),
    Odds(&'a [NewOddsJob]),
}

impl BatchJobs<'_> {
    /// How many.
    pub fn len(&self) -> usize {
        match self {
            BatchJobs::Gaps(jobs) => jobs.len(),
            BatchJobs::Odds(jobs) => jobs.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Inserts `$jobs` (a [`BatchJobs`]) in the transaction `$tx`, as their kind's rows.
macro_rules! insert_jobs_of_batch {
    ($db:ident, $tx:ident, $d:ident, $jobs:expr) => {
        match $jobs {
            BatchJobs::Gaps(jobs) => insert_batch_jobs!($db, $tx, $d, jobs),
            BatchJobs::Odds(jobs) => insert_batch_odds!($db, $tx, $d, jobs),
        }
    };
}

/// Job counts of one batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
    pub cancelled: i64,
    pub solvable: i64,
    pub unsolvable: i64,
    pub unknown: i64,
}

impl Store {
    /// Inserts a batch with `jobs` (a batch of games: all of them, `materialized` set
    /// to their number in the same transaction; none for a batch of deals, which the
    /// filler goes on with).
    pub async fn insert_batch(
        &self,
        batch: &NewBatch,
        jobs: BatchJobs<'_>,
    ) -> sqlx::Result<BatchRow> {
        // A transaction, so that a failed commit is reported (see `insert_job`).
        in_transaction!(self, |Db, tx, d| {
            let mut row = sqlx::query_as::<Db, BatchRow>(
            "INSERT INTO batches (id, variant, algorithm, suits, ranks, seed, count, limit_nodes,
                 limit_time_ms, limit_probes, threads, created_by, pysol_game, pysol_from,
                 redeals, games, odds_samples)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                 $17)
             RETURNING *",
        )
        .bind(&batch.id)
        .bind(batch.variant)
        .bind(batch.algorithm)
        .bind(batch.suits)
        .bind(batch.ranks)
        .bind(batch.seed)
        .bind(batch.count)
        .bind(batch.limit_nodes)
        .bind(batch.limit_time_ms)
        .bind(batch.limit_probes)
        .bind(batch.threads)
        .bind(&batch.created_by)
        .bind(&batch.pysol_game)
        .bind(batch.pysol_from)
        .bind(batch.redeals)
        .bind(batch.games)
        .bind(batch.odds_samples)
        .fetch_one(&mut *tx)
        .await?;
            if !jobs.is_empty() {
                sqlx::query::<Db>("UPDATE batches SET materialized = $1 WHERE id = $2")
                    .bind(jobs.len() as i64)
                    .bind(&batch.id)
                    .execute(&mut *tx)
                    .await?;
                insert_jobs_of_batch!(Db, tx, d, jobs);
                row.materialized = jobs.len() as i64;
            }
            tx.commit().await?;
            Ok(row)
        })
    }

    /// The batch with this id.
    pub async fn batch(&self, id: &str) -> sqlx::Result<Option<BatchRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, BatchRow>("SELECT * FROM batches WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await
        })
    }

    /// Batches whose jobs are not all inserted yet.
    pub async fn unfinished_batches(&self) -> sqlx::Result<Vec<BatchRow>> {
        on_pool!(self, write, |Db, pool, _d| {
            sqlx::query_as::<Db, BatchRow>(
                "SELECT * FROM batches WHERE materialized < count ORDER BY seq",
            )
            .fetch_all(pool)
            .await
        })
    }

    /// Inserts `jobs` (the batch's next ones, in order) and advances `materialized` by
    /// their number, in one transaction, if `materialized` is still `expected_offset`.
    /// Returns false (and changes nothing) if another filler got there first.
    pub async fn add_batch_jobs(
        &self,
        batch_id: &str,
        expected_offset: i64,
        jobs: BatchJobs<'_>,
    ) -> sqlx::Result<bool> {
        in_transaction!(self, |Db, tx, d| {
            let advanced = sqlx::query::<Db>(
                "UPDATE batches SET materialized = materialized + $1
             WHERE id = $2 AND materialized = $3",
            )
            .bind(jobs.len() as i64)
            .bind(batch_id)
            .bind(expected_offset)
            .execute(&mut *tx)
            .await?
            .rows_affected()
                == 1;
            if !advanced {
                return Ok(false);
            }
            insert_jobs_of_batch!(Db, tx, d, jobs);
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Job counts by state and verdict of one batch, read from its rows of
    /// `batch_totals` (kept by triggers on `jobs`): a few rows, whatever the batch's size.
    pub async fn batch_counts(&self, batch_id: &str) -> sqlx::Result<BatchCounts> {
        let sums = on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, (i64, i64, i64, i64, i64, i64, i64, i64)>(
                "SELECT CAST(COALESCE(SUM(queued), 0) AS BIGINT),
                     CAST(COALESCE(SUM(running), 0) AS BIGINT),
                     CAST(COALESCE(SUM(done), 0) AS BIGINT),
                     CAST(COALESCE(SUM(failed), 0) AS BIGINT),
                     CAST(COALESCE(SUM(cancelled), 0) AS BIGINT),
                     CAST(COALESCE(SUM(solvable), 0) AS BIGINT),
                     CAST(COALESCE(SUM(unsolvable), 0) AS BIGINT),
                     CAST(COALESCE(SUM(unknown), 0) AS BIGINT)
                 FROM batch_totals WHERE batch_id = $1",
            )
            .bind(batch_id)
            .fetch_one(pool)
            .await?
        });
        let (queued, running, done, failed, cancelled, solvable, unsolvable, unknown) = sums;
        Ok(BatchCounts {
            queued,
            running,
            done,
            failed,
            cancelled,
            solvable,
            unsolvable,
            unknown,
        })
    }

    /// The same counts as [`Store::batch_counts`], by a pass over the batch's jobs (the
    /// tests' reference for the aggregate).
    #[cfg(test)]
    pub(crate) async fn batch_counts_by_scan(&self, batch_id: &str) -> sqlx::Result<BatchCounts> {
        use gaps_engine::Verdict;
        let rows = on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, (JobState, Option<Stored<Verdict>>, i64)>(
                "SELECT j.state, g.verdict, COUNT(*)
                 FROM jobs j LEFT JOIN gaps_searches g ON g.id = j.id
                 WHERE j.batch_id = $1 GROUP BY j.state, g.verdict",
            )
            .bind(batch_id)
            .fetch_all(pool)
            .await?
        });
        let mut c = BatchCounts::default();
        for (state, verdict, n) in rows {
            match state {
                JobState::Queued => c.queued += n,
                JobState::Running => c.running += n,
                JobState::Done => c.done += n,
                JobState::Failed => c.failed += n,
                JobState::Cancelled => c.cancelled += n,
            }
            match verdict.map(|v| v.0) {
                Some(Verdict::Solvable) => c.solvable += n,
                Some(Verdict::Unsolvable) => c.unsolvable += n,
                Some(Verdict::Unknown) => c.unknown += n,
                None => {}
            }
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, test_lease, verdict};
    use super::super::{Finish, NewJob, Store};
    use super::{BatchCounts, BatchJobs, NewBatch};
    use crate::request::rounds::RedealCount;
    use crate::service::job::Stored;
    use gaps_engine::{Algorithm, Variant, Verdict};

    fn job(id: &str, batch: &str, seed: i64) -> NewJob {
        NewJob {
            batch_id: Some(batch.into()),
            ..new_job(id, seed as u64)
        }
    }

    fn batch(id: &str, count: i64) -> NewBatch {
        NewBatch {
            id: id.into(),
            variant: Stored(crate::service::job::subject::JobVariant::Engine(
                Variant::Basic,
            )),
            algorithm: Stored(Algorithm::Auto),
            suits: 2,
            ranks: 3,
            seed: 10,
            count,
            limit_nodes: None,
            limit_time_ms: 1000,
            limit_probes: None,
            threads: 1,
            created_by: None,
            pysol_game: None,
            pysol_from: None,
            redeals: RedealCount::NONE,
            games: false,
            odds_samples: None,
        }
    }

    /// The batch's aggregate counts, checked against a pass over its jobs.
    async fn counts(store: &Store, id: &str) -> BatchCounts {
        let counts = store.batch_counts(id).await.unwrap();
        assert_eq!(counts, store.batch_counts_by_scan(id).await.unwrap());
        counts
    }

    #[tokio::test]
    async fn batch_counts_follow_every_change_of_its_jobs() {
        on_both(|store| async move {
            store
                .insert_batch(&batch("b", 6), BatchJobs::Gaps(&[]))
                .await
                .unwrap();
            store
                .insert_batch(&batch("other", 1), BatchJobs::Gaps(&[]))
                .await
                .unwrap();
            assert_eq!(counts(&store, "b").await, BatchCounts::default());
            let jobs: Vec<NewJob> = (0..6).map(|i| job(&format!("j{i}"), "b", 10 + i)).collect();
            assert!(store
                .add_batch_jobs("b", 0, BatchJobs::Gaps(&jobs))
                .await
                .unwrap());
            assert!(store
                .add_batch_jobs("other", 0, BatchJobs::Gaps(&[job("o", "other", 10)]))
                .await
                .unwrap());
            // A job outside any batch counts nowhere.
            store.insert_job(&new_job("free", 99)).await.unwrap();
            assert_eq!(counts(&store, "b").await.queued, 6);
            let claim = || async {
                let scope = crate::service::store::ClaimScope::Any;
                store
                    .claim_next_gaps(&test_lease(), scope)
                    .await
                    .unwrap()
                    .unwrap()
            };
            // A single job is claimed before any batch job.
            let free = claim().await;
            assert_eq!(free.spec.id, "free");
            assert!(store
                .finish(&free, &verdict(Verdict::Solvable))
                .await
                .unwrap());
            let j0 = claim().await;
            assert_eq!(counts(&store, "b").await.running, 1);
            assert!(store
                .finish(&j0, &verdict(Verdict::Solvable))
                .await
                .unwrap());
            let j1 = claim().await;
            assert!(store.finish(&j1, &verdict(Verdict::Unknown)).await.unwrap());
            let j2 = claim().await;
            store.cancel("j2").await.unwrap();
            let cancelled = Finish::Cancelled { stats: None };
            assert!(store.finish(&j2, &cancelled).await.unwrap());
            store.cancel("j3").await.unwrap();
            let j4 = claim().await;
            let failed = Finish::Failed {
                error: "test".into(),
            };
            assert!(store.finish(&j4, &failed).await.unwrap());
            claim().await;
            // A crash: j5 goes back to the queue, then is claimed again.
            assert_eq!(store.recover(3).await.unwrap().requeued, 1);
            assert_eq!(counts(&store, "b").await.queued, 1);
            assert_eq!(claim().await.spec.id, "j5");
            let expected = BatchCounts {
                queued: 0,
                running: 1,
                done: 2,
                failed: 1,
                cancelled: 2,
                solvable: 1,
                unsolvable: 0,
                unknown: 1,
            };
            assert_eq!(counts(&store, "b").await, expected);
            // A delete counts out (nothing deletes a batch's jobs today; the trigger
            // keeps the counts right if something does).
            super::super::on_pool!(store, write, |Db, pool, _d| {
                sqlx::query::<Db>("DELETE FROM jobs WHERE id IN ('j0', 'j3')")
                    .execute(pool)
                    .await
                    .unwrap();
            });
            let after = counts(&store, "b").await;
            assert_eq!((after.done, after.cancelled, after.solvable), (1, 1, 0));
            let other = counts(&store, "other").await;
            assert_eq!((other.queued, other.running), (1, 0));
        })
        .await;
    }

    #[tokio::test]
    async fn a_chunk_of_several_inserts_stores_every_job_as_given_in_order() {
        on_both(|store| async move {
            // More jobs than one multi-row insert carries, and not a multiple of it.
            let n = 2 * super::ROWS_PER_INSERT + 37;
            store
                .insert_batch(&batch("b", n as i64), BatchJobs::Gaps(&[]))
                .await
                .unwrap();
            let jobs: Vec<NewJob> = (0..n)
                .map(|i| NewJob {
                    limit_nodes: (i % 3 == 0).then_some(i as i64),
                    limit_probes: (i % 5 == 0).then_some(7),
                    created_by: (i % 2 == 0).then(|| format!("user{i}")),
                    pysol: None,
                    ..job(&format!("j{i}"), "b", 1000 + i as i64)
                })
                .collect();
            assert!(store
                .add_batch_jobs("b", 0, BatchJobs::Gaps(&jobs))
                .await
                .unwrap());
            assert_eq!(counts(&store, "b").await.queued, n as i64);
            for k in [0, super::ROWS_PER_INSERT - 1, super::ROWS_PER_INSERT, n - 1] {
                let row = store.job(&jobs[k].id).await.unwrap().unwrap();
                assert_eq!(row.spec, jobs[k], "job {k} stored as given");
                assert_eq!(row.life.state, crate::service::job::JobState::Queued);
            }
            // Deal order is insertion order, across the statements of the chunk.
            let (tx, mut rx) = tokio::sync::mpsc::channel(16);
            let reader = store.clone();
            let stream = tokio::spawn(async move { reader.stream_batch_results("b", tx).await });
            let mut deals = Vec::new();
            while let Some(row) = rx.recv().await {
                deals.push(row.unwrap().deal);
            }
            stream.await.unwrap().unwrap();
            let expected: Vec<Option<u128>> = (0..n).map(|i| Some(1000 + i as u128)).collect();
            assert_eq!(deals, expected);
        })
        .await;
    }

    #[tokio::test]
    async fn filling_advances_only_from_the_expected_offset_and_resumes() {
        on_both(|store| async move {
            let batch = NewBatch {
                count: 4,
                ..batch("b", 4)
            };
            store
                .insert_batch(&batch, BatchJobs::Gaps(&[]))
                .await
                .unwrap();
            let first = [job("j0", "b", 10), job("j1", "b", 11)];
            assert!(store
                .add_batch_jobs("b", 0, BatchJobs::Gaps(&first))
                .await
                .unwrap());
            // A second filler that read the old offset changes nothing (no duplicates).
            let stale = [job("x0", "b", 10), job("x1", "b", 11)];
            assert!(!store
                .add_batch_jobs("b", 0, BatchJobs::Gaps(&stale))
                .await
                .unwrap());
            // As after a crash here: the batch is still unfinished, from offset 2.
            let open = store.unfinished_batches().await.unwrap();
            assert_eq!((open.len(), open[0].materialized), (1, 2));
            let rest = [job("j2", "b", 12), job("j3", "b", 13)];
            assert!(store
                .add_batch_jobs("b", 2, BatchJobs::Gaps(&rest))
                .await
                .unwrap());
            assert!(store.unfinished_batches().await.unwrap().is_empty());
            let counts = store.batch_counts("b").await.unwrap();
            assert_eq!(counts.queued, 4);
            assert!(store.job("x0").await.unwrap().is_none());
        })
        .await;
    }
}
