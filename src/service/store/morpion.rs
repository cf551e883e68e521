//! Morpion Solitaire endgame jobs (`"game": "morpion"`): insert, read, claim under a
//! lease, heartbeat (with the node count so far), finish, cancel and take back.
//!
//! Invariants (the same as the Gaps queue's, in a table of their own):
//! - State changes are conditional on the current state, and every write about a
//!   running job names the token of its claim: a late or fenced call changes nothing.
//! - A claim moves the oldest queued job to `running` (`FOR UPDATE SKIP LOCKED` on
//!   PostgreSQL, so two nodes never take the same one).
//! - A job whose lease ran out goes back to the queue, or ends `cancelled` when a user
//!   asked for that, or `failed` once claimed `max_attempts` times.

use super::leases::{millis, Lease};
use super::{in_transaction, on_pool, Store};
use crate::service::job::JobState;
use sqlx::types::Json;
use std::time::Duration;

/// A validated Morpion job, as stored when it is queued.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMorpionJob {
    pub id: String,
    /// `5T` or `5D`.
    pub variant: String,
    /// The record as submitted (MSR JSON or Pentasol text); it replayed when accepted.
    pub record: String,
    pub record_length: i64,
    /// Moves of the record kept.
    pub from_move: i64,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub threads: i64,
    pub created_by: Option<String>,
    /// Units a proof shared between nodes is split into (at least); `None`: one node
    /// proves it whole.
    pub split_units: Option<i64>,
}

/// A Morpion job as stored.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct MorpionJobRow {
    pub seq: i64,
    pub id: String,
    pub state: JobState,
    pub variant: String,
    pub record: String,
    pub record_length: i64,
    pub from_move: i64,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub threads: i64,
    pub created_by: Option<String>,
    pub best: Option<i64>,
    pub proved: Option<bool>,
    pub improved: Option<bool>,
    pub stopped: Option<String>,
    pub nodes: Option<i64>,
    pub elapsed_ms: Option<f64>,
    pub line: Option<Json<Vec<serde_json::Value>>>,
    pub split_depth: Option<i64>,
    pub units: Option<i64>,
    pub threads_used: Option<i64>,
    pub progress_nodes: i64,
    pub error: Option<String>,
    pub attempts: i64,
    pub cancel_requested: bool,
    pub node_id: Option<String>,
    pub lease_token: Option<String>,
    pub lease_until: Option<i64>,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub split_units: Option<i64>,
    /// Units of a shared proof, once split (its units are then in `morpion_units`).
    pub units_total: Option<i64>,
    /// Nodes of the frontier walk of a shared proof.
    pub frontier_nodes: Option<i64>,
}

impl MorpionJobRow {
    /// True once the job can no longer change.
    pub fn is_final(&self) -> bool {
        self.state.is_final()
    }
}

/// The result of a proof that ran (to its end or to a limit).
#[derive(Clone, Debug, PartialEq)]
pub struct MorpionResult {
    pub best: i64,
    pub proved: bool,
    pub improved: bool,
    /// Why the search stopped early (`None`: it ended by itself).
    pub stopped: Option<String>,
    pub nodes: i64,
    pub elapsed_ms: f64,
    /// One longest continuation, in the record's format.
    pub line: Vec<serde_json::Value>,
    pub split_depth: i64,
    pub units: i64,
    pub threads_used: i64,
}

/// How a Morpion job ended.
#[derive(Clone, Debug, PartialEq)]
pub enum MorpionFinish {
    /// It searched (`done`).
    Done(MorpionResult),
    /// A user cancelled it while it ran; what it had found is kept.
    Cancelled(Option<MorpionResult>),
    /// The engine failed.
    Failed(String),
}

impl Store {
    /// Inserts a queued Morpion job and returns it.
    pub async fn insert_morpion_job(&self, job: &NewMorpionJob) -> sqlx::Result<MorpionJobRow> {
        in_transaction!(self, |Db, tx, _d| {
            let row = sqlx::query_as::<Db, MorpionJobRow>(
                "INSERT INTO morpion_jobs (id, state, variant, record, record_length, from_move,
                     limit_nodes, limit_time_ms, threads, created_by, split_units)
                 VALUES ($1, 'queued', $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *",
            )
            .bind(&job.id)
            .bind(&job.variant)
            .bind(&job.record)
            .bind(job.record_length)
            .bind(job.from_move)
            .bind(job.limit_nodes)
            .bind(job.limit_time_ms)
            .bind(job.threads)
            .bind(&job.created_by)
            .bind(job.split_units)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// The Morpion job with this id.
    pub async fn morpion_job(&self, id: &str) -> sqlx::Result<Option<MorpionJobRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, MorpionJobRow>("SELECT * FROM morpion_jobs WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await
        })
    }

    /// How many Morpion jobs created by `client` are queued.
    pub async fn morpion_queued_by(&self, client: &str) -> sqlx::Result<i64> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<Db, i64>(
                "SELECT COUNT(*) FROM morpion_jobs WHERE state = 'queued' AND created_by = $1",
            )
            .bind(client)
            .fetch_one(pool)
            .await
        })
    }

    /// How many Morpion jobs are stored, in every state.
    pub async fn morpion_job_count(&self) -> sqlx::Result<i64> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<Db, i64>("SELECT COUNT(*) FROM morpion_jobs")
                .fetch_one(pool)
                .await
        })
    }

    /// Moves the oldest queued Morpion job to `running` under a new lease.
    pub async fn claim_morpion(&self, lease: &Lease) -> sqlx::Result<Option<MorpionJobRow>> {
        let token = uuid::Uuid::now_v7().to_string();
        in_transaction!(self, |Db, tx, d| {
            let row = sqlx::query_as::<Db, MorpionJobRow>(&format!(
                "UPDATE morpion_jobs SET state = 'running', started_at = {now},
                     attempts = attempts + 1, node_id = $1, lease_token = $2,
                     lease_until = {now_ms} + $3, progress_nodes = 0
                 WHERE seq = (SELECT seq FROM morpion_jobs WHERE state = 'queued'
                              ORDER BY seq LIMIT 1 {lock})
                 RETURNING *",
                now = d.now,
                now_ms = d.now_ms,
                lock = d.claim_lock
            ))
            .bind(&lease.node_id)
            .bind(&token)
            .bind(millis(lease.duration))
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// Renews the lease of `job` for `duration` and records `nodes` searched so far.
    /// Returns whether a user asked to cancel it, or `None` when the claim is no longer
    /// current (its holder must stop).
    pub async fn morpion_heartbeat(
        &self,
        job: &MorpionJobRow,
        duration: Duration,
        nodes: u64,
    ) -> sqlx::Result<Option<bool>> {
        in_transaction!(self, |Db, tx, d| {
            let cancel = sqlx::query_scalar::<Db, bool>(&format!(
                "UPDATE morpion_jobs SET lease_until = {now_ms} + $1, progress_nodes = $2
                 WHERE id = $3 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $4
                 RETURNING cancel_requested",
                now_ms = d.now_ms
            ))
            .bind(millis(duration))
            .bind(i64::try_from(nodes).unwrap_or(i64::MAX))
            .bind(&job.id)
            .bind(&job.lease_token)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(cancel)
        })
    }

    /// True if a user asked to cancel this Morpion job.
    pub async fn morpion_cancel_requested(&self, id: &str) -> sqlx::Result<bool> {
        let flag = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query_scalar::<Db, bool>(
                "SELECT cancel_requested FROM morpion_jobs WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?
        });
        Ok(flag.unwrap_or(false))
    }

    /// Ends a running Morpion job under its claim; false if the claim is no longer
    /// current (nothing changed).
    pub async fn finish_morpion(
        &self,
        job: &MorpionJobRow,
        finish: &MorpionFinish,
    ) -> sqlx::Result<bool> {
        let (state, result, error) = match finish {
            MorpionFinish::Done(r) => (JobState::Done, Some(r), None),
            MorpionFinish::Cancelled(r) => (JobState::Cancelled, r.as_ref(), None),
            MorpionFinish::Failed(e) => (JobState::Failed, None, Some(e.as_str())),
        };
        in_transaction!(self, |Db, tx, d| {
            let n = sqlx::query::<Db>(&format!(
                "UPDATE morpion_jobs SET state = $1, best = $2, proved = $3, improved = $4,
                     stopped = $5, nodes = $6, elapsed_ms = $7, line = $8, split_depth = $9,
                     units = $10, threads_used = $11, error = $12, finished_at = {now},
                     progress_nodes = COALESCE($6, progress_nodes)
                 WHERE id = $13 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $14",
                now = d.now
            ))
            .bind(state)
            .bind(result.map(|r| r.best))
            .bind(result.map(|r| r.proved))
            .bind(result.map(|r| r.improved))
            .bind(result.and_then(|r| r.stopped.clone()))
            .bind(result.map(|r| r.nodes))
            .bind(result.map(|r| r.elapsed_ms))
            .bind(result.map(|r| Json(r.line.clone())))
            .bind(result.map(|r| r.split_depth))
            .bind(result.map(|r| r.units))
            .bind(result.map(|r| r.threads_used))
            .bind(error)
            .bind(&job.id)
            .bind(&job.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n == 1 {
                // An ended shared proof leaves no unit to claim.
                sqlx::query::<Db>(
                    "DELETE FROM morpion_units WHERE job_id = $1 AND state = 'queued'",
                )
                .bind(&job.id)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(n == 1)
        })
    }

    /// Puts a running Morpion job back in the queue (a shutdown interrupted it), if its
    /// claim is still current.
    pub async fn requeue_morpion(&self, job: &MorpionJobRow) -> sqlx::Result<bool> {
        let n = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "UPDATE morpion_jobs SET state = 'queued', started_at = NULL, lease_token = NULL,
                     lease_until = NULL, progress_nodes = 0
                 WHERE id = $1 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $2",
            )
            .bind(&job.id)
            .bind(&job.lease_token)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }

    /// Cancels a Morpion job: a queued one ends `cancelled` at once, a running one is
    /// flagged (its holder stops it). The job after the change, or `None`.
    pub async fn cancel_morpion(&self, id: &str) -> sqlx::Result<Option<MorpionJobRow>> {
        in_transaction!(self, |Db, tx, d| {
            // A queued job, or a shared proof (no one holder to stop it), ends at once;
            // the units not yet claimed are dropped, running ones stop at their next
            // heartbeat.
            sqlx::query::<Db>(&format!(
                "UPDATE morpion_jobs SET state = 'cancelled', cancel_requested = TRUE,
                     finished_at = {now}
                 WHERE id = $1 AND (state = 'queued'
                     OR (state = 'running' AND units_total IS NOT NULL))",
                now = d.now
            ))
            .bind(id)
            .execute(&mut *tx)
            .await?;
            sqlx::query::<Db>("DELETE FROM morpion_units WHERE job_id = $1 AND state = 'queued'")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query::<Db>(
                "UPDATE morpion_jobs SET cancel_requested = TRUE WHERE id = $1 AND state = 'running'",
            )
            .bind(id)
            .execute(&mut *tx)
            .await?;
            let row =
                sqlx::query_as::<Db, MorpionJobRow>("SELECT * FROM morpion_jobs WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// Takes back running Morpion jobs: those whose lease ran out (`expired_only`), or
    /// every one (after a crash of the only node, on SQLite). Returns how many changed.
    pub async fn take_back_morpion(
        &self,
        max_attempts: i64,
        expired_only: bool,
    ) -> sqlx::Result<u64> {
        on_pool!(self, write, |Db, pool, d| {
            // A shared proof has no holder once split: its units are taken back instead.
            let which = if expired_only {
                format!(
                    "state = 'running' AND units_total IS NULL AND lease_until < {}",
                    d.now_ms
                )
            } else {
                "state = 'running' AND units_total IS NULL".to_string()
            };
            let ends = "(cancel_requested = TRUE OR attempts >= $1)";
            Ok(sqlx::query::<Db>(&format!(
                "UPDATE morpion_jobs SET
                     state = CASE WHEN cancel_requested = TRUE THEN 'cancelled'
                         WHEN attempts >= $1 THEN 'failed' ELSE 'queued' END,
                     finished_at = CASE WHEN {ends} THEN {now} ELSE finished_at END,
                     started_at = CASE WHEN {ends} THEN started_at ELSE NULL END,
                     error = CASE WHEN cancel_requested = FALSE AND attempts >= $1
                         THEN 'abandoned: its prover stopped (crash or lost lease) ' || attempts
                             || ' times'
                         ELSE error END,
                     lease_token = NULL, lease_until = NULL
                 WHERE {which}",
                now = d.now
            ))
            .bind(max_attempts)
            .execute(pool)
            .await?
            .rows_affected())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{on_both, test_lease};
    use super::*;

    fn new(id: &str) -> NewMorpionJob {
        NewMorpionJob {
            id: id.into(),
            variant: "5T".into(),
            record: "{}".into(),
            record_length: 170,
            from_move: 150,
            limit_nodes: Some(1000),
            limit_time_ms: 1000,
            threads: 1,
            created_by: Some("me".into()),
            split_units: None,
        }
    }

    fn result() -> MorpionResult {
        MorpionResult {
            best: 170,
            proved: true,
            improved: false,
            stopped: None,
            nodes: 88,
            elapsed_ms: 1.5,
            line: vec![serde_json::json!({"x": 1})],
            split_depth: 0,
            units: 1,
            threads_used: 1,
        }
    }

    #[tokio::test]
    async fn a_morpion_job_is_claimed_once_finished_under_its_claim_and_fenced_after() {
        on_both(|store| async move {
            let queued = store.insert_morpion_job(&new("a")).await.unwrap();
            assert_eq!(queued.state, JobState::Queued);
            let job = store.claim_morpion(&test_lease()).await.unwrap().unwrap();
            assert_eq!((job.state, job.attempts), (JobState::Running, 1));
            assert!(store.claim_morpion(&test_lease()).await.unwrap().is_none());
            let beat = store.morpion_heartbeat(&job, Duration::from_secs(60), 44);
            assert_eq!(beat.await.unwrap(), Some(false));
            assert_eq!(
                store
                    .morpion_job("a")
                    .await
                    .unwrap()
                    .unwrap()
                    .progress_nodes,
                44
            );
            // A stale claim changes nothing.
            let stale = MorpionJobRow {
                lease_token: Some("old".into()),
                ..job.clone()
            };
            let done = MorpionFinish::Done(result());
            assert!(!store.finish_morpion(&stale, &done).await.unwrap());
            assert!(store.finish_morpion(&job, &done).await.unwrap());
            assert!(!store.finish_morpion(&job, &done).await.unwrap());
            let row = store.morpion_job("a").await.unwrap().unwrap();
            assert_eq!(row.state, JobState::Done);
            assert_eq!(
                (row.best, row.proved, row.nodes),
                (Some(170), Some(true), Some(88))
            );
            assert_eq!(row.line.unwrap().0, result().line);
            assert!(store.morpion_job("nope").await.unwrap().is_none());
        })
        .await;
    }

    #[tokio::test]
    async fn cancels_and_take_backs_follow_the_queue_rules() {
        on_both(|store| async move {
            store.insert_morpion_job(&new("q")).await.unwrap();
            let cancelled = store.cancel_morpion("q").await.unwrap().unwrap();
            assert_eq!(cancelled.state, JobState::Cancelled);
            store.insert_morpion_job(&new("r")).await.unwrap();
            let job = store.claim_morpion(&test_lease()).await.unwrap().unwrap();
            assert_eq!(store.take_back_morpion(3, true).await.unwrap(), 0);
            assert_eq!(store.take_back_morpion(3, false).await.unwrap(), 1);
            assert_eq!(
                store.morpion_job("r").await.unwrap().unwrap().state,
                JobState::Queued
            );
            // The old holder is fenced; the new claim runs and can be cancelled.
            assert!(!store.requeue_morpion(&job).await.unwrap());
            let again = store.claim_morpion(&test_lease()).await.unwrap().unwrap();
            let flagged = store.cancel_morpion("r").await.unwrap().unwrap();
            assert_eq!(flagged.state, JobState::Running);
            assert!(store.morpion_cancel_requested("r").await.unwrap());
            let beat = store.morpion_heartbeat(&again, Duration::from_secs(60), 1);
            assert_eq!(beat.await.unwrap(), Some(true));
            let end = MorpionFinish::Cancelled(None);
            assert!(store.finish_morpion(&again, &end).await.unwrap());
            assert_eq!(
                store.morpion_job("r").await.unwrap().unwrap().state,
                JobState::Cancelled
            );
        })
        .await;
    }
}
