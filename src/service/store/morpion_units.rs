//! The units of Morpion proofs shared between nodes: split a claimed job into units,
//! claim a unit under a lease, renew it, store its result, take back units whose
//! node stopped, and read them back to conclude the job.
//!
//! Invariants:
//! - A job is split once: the split is conditional on the claim that took the job
//!   (its lease token), and it inserts every unit in the same transaction, so a job
//!   has all of its units or none. A split job is `running` with no holder
//!   (`lease_token` NULL in `jobs`): it is never taken back as a whole, only unit by
//!   unit.
//! - A unit is claimed by one node at a time (`FOR UPDATE SKIP LOCKED` on PostgreSQL)
//!   and its result is stored only under the claim that took it (fencing), once.
//! - Units are claimed only from jobs that are still running: a cancel deletes a job's
//!   queued units and its running ones stop at their next heartbeat.

use super::leases::{millis, Lease};
use super::morpion::MorpionJobRow;
use super::rows::ANY_JOB_SELECT;
use super::{in_transaction, on_pool, Store};
use sqlx::types::Json;
use sqlx::QueryBuilder;
use std::time::Duration;

/// Units inserted by one statement of a split.
const INSERT_CHUNK: i64 = 500;

/// A unit of a shared proof, as stored.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct MorpionUnitRow {
    pub job_id: String,
    pub unit: i64,
    pub state: String,
    pub nodes: Option<i64>,
    pub complete: Option<bool>,
    pub stopped: Option<String>,
    /// The longest line through the unit from the split root, as MSR moves.
    pub line: Option<Json<Vec<serde_json::Value>>>,
    pub elapsed_ms: Option<f64>,
    pub progress_nodes: i64,
    pub attempts: i64,
    pub node_id: Option<String>,
    pub lease_token: Option<String>,
    pub lease_until: Option<i64>,
}

/// What a unit's search found.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitDone {
    pub nodes: i64,
    pub complete: bool,
    pub stopped: Option<String>,
    pub line: Vec<serde_json::Value>,
    pub elapsed_ms: f64,
}

impl UnitDone {
    /// A unit released unsearched because its job ended (no nodes, not complete).
    pub fn skipped() -> UnitDone {
        UnitDone {
            nodes: 0,
            complete: false,
            stopped: Some("cancelled".into()),
            line: Vec::new(),
            elapsed_ms: 0.0,
        }
    }
}

/// The units of a shared proof: how many are done, and the nodes searched so far
/// (the frontier's, the finished units' and the running units' last heartbeats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitsProgress {
    pub done: i64,
    pub nodes: i64,
}

impl Store {
    /// Splits the claimed `job` into `units` units at `depth` (a frontier of
    /// `frontier_nodes` nodes): records the split, drops the job's holder and queues
    /// every unit. False (nothing changed) if the claim is no longer current.
    pub async fn split_morpion(
        &self,
        job: &MorpionJobRow,
        depth: i64,
        units: i64,
        frontier_nodes: i64,
    ) -> sqlx::Result<bool> {
        in_transaction!(self, |Db, tx, _d| {
            // The job is then held by its units, not by a node (no token: `leases`).
            let n = sqlx::query::<Db>(
                "UPDATE jobs SET lease_token = NULL, lease_until = NULL
                 WHERE id = $1 AND state = 'running' AND lease_token IS NOT NULL
                     AND lease_token = $2
                     AND (SELECT units_total FROM morpion_proofs WHERE id = $1) IS NULL",
            )
            .bind(&job.id)
            .bind(&job.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n == 1 {
                sqlx::query::<Db>(
                    "UPDATE morpion_proofs SET units_total = $1, split_depth = $2,
                         frontier_nodes = $3, units = $1
                     WHERE id = $4",
                )
                .bind(units)
                .bind(depth)
                .bind(frontier_nodes)
                .bind(&job.id)
                .execute(&mut *tx)
                .await?;
            }
            if n != 1 {
                return Ok(false);
            }
            let mut first = 0;
            while first < units {
                let last = (first + INSERT_CHUNK).min(units);
                let mut q =
                    QueryBuilder::<Db>::new("INSERT INTO morpion_units (job_id, unit, state) ");
                q.push_values(first..last, |mut row, unit| {
                    row.push_bind(job.id.clone())
                        .push_bind(unit)
                        .push_bind("queued");
                });
                q.build().execute(&mut *tx).await?;
                first = last;
            }
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Claims the first queued unit (oldest job first) under a new lease.
    pub async fn claim_unit(&self, lease: &Lease) -> sqlx::Result<Option<MorpionUnitRow>> {
        let token = uuid::Uuid::now_v7().to_string();
        in_transaction!(self, |Db, tx, d| {
            let row = sqlx::query_as::<Db, MorpionUnitRow>(&format!(
                "UPDATE morpion_units SET state = 'running', attempts = attempts + 1,
                     node_id = $1, lease_token = $2, lease_until = {now_ms} + $3,
                     progress_nodes = 0
                 WHERE (job_id, unit) = (SELECT job_id, unit FROM morpion_units
                     WHERE state = 'queued' ORDER BY job_id, unit LIMIT 1 {lock})
                 RETURNING *",
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

    /// Renews `unit`'s lease and records its node count. `Some(true)` when its job no
    /// longer runs (cancelled or ended) and the unit should stop; `None` when the
    /// claim is no longer current.
    pub async fn unit_heartbeat(
        &self,
        unit: &MorpionUnitRow,
        duration: Duration,
        nodes: u64,
    ) -> sqlx::Result<Option<bool>> {
        in_transaction!(self, |Db, tx, d| {
            let n = sqlx::query::<Db>(&format!(
                "UPDATE morpion_units SET lease_until = {now_ms} + $1, progress_nodes = $2
                 WHERE job_id = $3 AND unit = $4 AND state = 'running'
                     AND lease_token IS NOT DISTINCT FROM $5",
                now_ms = d.now_ms
            ))
            .bind(millis(duration))
            .bind(i64::try_from(nodes).unwrap_or(i64::MAX))
            .bind(&unit.job_id)
            .bind(unit.unit)
            .bind(&unit.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            let stop = sqlx::query_scalar::<Db, bool>(
                "SELECT state <> 'running' OR cancel_requested = TRUE FROM jobs WHERE id = $1",
            )
            .bind(&unit.job_id)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok((n == 1).then_some(stop.unwrap_or(true)))
        })
    }

    /// Stores `unit`'s result under its claim. Returns whether it was stored, and how
    /// many units of its job are not done yet (0: the job can be concluded).
    pub async fn finish_unit(
        &self,
        unit: &MorpionUnitRow,
        done: &UnitDone,
    ) -> sqlx::Result<(bool, i64)> {
        in_transaction!(self, |Db, tx, _d| {
            // Lock the job's row first: the finishes of its units then follow one
            // another, so the finish of the last one counts every other as done (two
            // concurrent finishes would otherwise each see the other's unit running,
            // and no one would conclude).
            sqlx::query::<Db>("UPDATE jobs SET attempts = attempts WHERE id = $1")
                .bind(&unit.job_id)
                .execute(&mut *tx)
                .await?;
            let n = sqlx::query::<Db>(
                "UPDATE morpion_units SET state = 'done', nodes = $1, complete = $2,
                     stopped = $3, line = $4, elapsed_ms = $5, progress_nodes = $1,
                     lease_until = NULL
                 WHERE job_id = $6 AND unit = $7 AND state = 'running'
                     AND lease_token IS NOT DISTINCT FROM $8",
            )
            .bind(done.nodes)
            .bind(done.complete)
            .bind(&done.stopped)
            .bind(Json(&done.line))
            .bind(done.elapsed_ms)
            .bind(&unit.job_id)
            .bind(unit.unit)
            .bind(&unit.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            let left = sqlx::query_scalar::<Db, i64>(
                "SELECT COUNT(*) FROM morpion_units WHERE job_id = $1 AND state <> 'done'",
            )
            .bind(&unit.job_id)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok((n == 1, left))
        })
    }

    /// Puts a running unit back in the queue (its node is stopping), if its claim is
    /// still current.
    pub async fn requeue_unit(&self, unit: &MorpionUnitRow) -> sqlx::Result<bool> {
        let n = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "UPDATE morpion_units SET state = 'queued', lease_token = NULL,
                     lease_until = NULL, progress_nodes = 0
                 WHERE job_id = $1 AND unit = $2 AND state = 'running'
                     AND lease_token IS NOT DISTINCT FROM $3",
            )
            .bind(&unit.job_id)
            .bind(unit.unit)
            .bind(&unit.lease_token)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }

    /// Puts back in the queue the running units whose lease ran out (`expired_only`),
    /// or every running unit (after a crash of the only node, on SQLite).
    pub async fn take_back_units(&self, expired_only: bool) -> sqlx::Result<u64> {
        on_pool!(self, write, |Db, pool, d| {
            let which = if expired_only {
                format!("state = 'running' AND lease_until < {}", d.now_ms)
            } else {
                "state = 'running'".to_string()
            };
            Ok(sqlx::query::<Db>(&format!(
                "UPDATE morpion_units SET state = 'queued', lease_token = NULL,
                     lease_until = NULL, progress_nodes = 0
                 WHERE {which}"
            ))
            .execute(pool)
            .await?
            .rows_affected())
        })
    }

    /// Running shared proofs whose units are all done but which were not concluded
    /// (the node that stored the last unit stopped before it concluded).
    pub async fn unconcluded_shared(&self) -> sqlx::Result<Vec<MorpionJobRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, MorpionJobRow>(&format!(
                "{ANY_JOB_SELECT} WHERE j.game = 'morpion' AND j.state = 'running'
                     AND p.units_total IS NOT NULL
                     AND NOT EXISTS (SELECT 1 FROM morpion_units u
                                     WHERE u.job_id = j.id AND u.state <> 'done')"
            ))
            .fetch_all(pool)
            .await
        })
    }

    /// Every unit of job `id`, in unit order.
    pub async fn units_of(&self, id: &str) -> sqlx::Result<Vec<MorpionUnitRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, MorpionUnitRow>(
                "SELECT * FROM morpion_units WHERE job_id = $1 ORDER BY unit",
            )
            .bind(id)
            .fetch_all(pool)
            .await
        })
    }

    /// How far the units of job `id` have got.
    pub async fn units_progress(&self, id: &str) -> sqlx::Result<UnitsProgress> {
        on_pool!(self, read, |Db, pool, _d| {
            let (done, nodes) = sqlx::query_as::<Db, (i64, i64)>(
                // PostgreSQL's SUM of BIGINT is NUMERIC: cast back.
                "SELECT CAST(COALESCE(SUM(CASE WHEN state = 'done' THEN 1 ELSE 0 END), 0) AS BIGINT),
                        CAST(COALESCE(SUM(progress_nodes), 0) AS BIGINT)
                 FROM morpion_units WHERE job_id = $1",
            )
            .bind(id)
            .fetch_one(pool)
            .await?;
            Ok(UnitsProgress { done, nodes })
        })
    }

    /// Deletes the units of the jobs (done, failed, cancelled) that ended more than
    /// `days` days ago, in statements of at most 10,000 units (each its own short
    /// write), before their jobs go (`Store::prune_finished`).
    pub(super) async fn prune_ended_units(&self, days: i32) -> sqlx::Result<u64> {
        self.delete_ended_before(
            "DELETE FROM morpion_units WHERE (job_id, unit) IN (
                 SELECT u.job_id, u.unit FROM jobs j
                 JOIN morpion_units u ON u.job_id = j.id
                 WHERE j.state IN ('done', 'failed', 'cancelled')
                     AND j.finished_at < {cutoff}
                 LIMIT 10000)",
            10_000,
            days,
        )
        .await
    }

    /// Deletes the Morpion proofs whose job was deleted (after `Store::prune_finished`
    /// deleted the jobs), 1,000 a statement.
    pub(super) async fn prune_orphan_proofs(&self) -> sqlx::Result<u64> {
        let mut deleted = 0;
        loop {
            let n = on_pool!(self, write, |Db, pool, _d| {
                sqlx::query::<Db>(
                    "DELETE FROM morpion_proofs WHERE seq IN (
                         SELECT seq FROM morpion_proofs p
                         WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = p.id)
                             AND NOT EXISTS (SELECT 1 FROM morpion_units u
                                             WHERE u.job_id = p.id)
                         LIMIT 1000)",
                )
                .execute(pool)
                .await?
                .rows_affected()
            });
            deleted += n;
            if n < 1000 {
                return Ok(deleted);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::morpion::NewMorpionJob;
    use super::super::test_support::{claim_morpion, on_both, test_lease};
    use super::*;

    /// A queued job asking for a shared proof in 3 units (the store never reads the
    /// record).
    fn shared(id: &str) -> NewMorpionJob {
        NewMorpionJob {
            id: id.into(),
            variant: gaps_engine::morpion::board::MorpionVariant::T5,
            record: "{}".into(),
            record_length: 170,
            from_move: 120,
            limit_nodes: None,
            limit_time_ms: 1000,
            threads: 1,
            created_by: None,
            split_units: Some(3),
        }
    }

    fn done(nodes: i64) -> UnitDone {
        UnitDone {
            nodes,
            complete: true,
            stopped: None,
            line: vec![serde_json::json!({"x": 1, "y": 2, "dir": "H", "pos": 0})],
            elapsed_ms: 1.0,
        }
    }

    #[tokio::test]
    async fn the_retention_sweep_deletes_old_ended_morpion_jobs_with_their_units() {
        on_both(|store| async move {
            for id in ["old", "recent", "queued"] {
                store.insert_morpion_job(&shared(id)).await.unwrap();
            }
            // "old" and "recent" are split, one unit of each stored, then cancelled
            // (their queued units go, the stored one stays).
            for id in ["old", "recent"] {
                let job = claim_morpion(&store).await;
                assert_eq!(job.id, id);
                assert!(store.split_morpion(&job, 1, 3, 1).await.unwrap());
                let unit = store.claim_unit(&test_lease()).await.unwrap().unwrap();
                assert_eq!(unit.job_id, id);
                store.finish_unit(&unit, &done(10)).await.unwrap();
                store.cancel(id).await.unwrap();
                assert_eq!(store.units_of(id).await.unwrap().len(), 1);
            }
            on_pool!(store, write, |Db, pool, _d| {
                sqlx::query::<Db>(
                    "UPDATE jobs SET finished_at = '2020-01-01T00:00:00.000Z' WHERE id = 'old'",
                )
                .execute(pool)
                .await
                .unwrap();
            });
            assert_eq!(store.prune_finished(30).await.unwrap(), 1);
            assert!(store.morpion_job("old").await.unwrap().is_none());
            assert!(store.units_of("old").await.unwrap().is_empty());
            assert_eq!(store.units_of("recent").await.unwrap().len(), 1);
            assert!(store.morpion_job("recent").await.unwrap().is_some());
            assert!(store.morpion_job("queued").await.unwrap().is_some());
            assert_eq!(store.prune_finished(30).await.unwrap(), 0);
        })
        .await;
    }

    #[tokio::test]
    async fn a_split_job_is_worked_unit_by_unit_and_each_unit_stored_once() {
        on_both(|store| async move {
            store.insert_morpion_job(&shared("s")).await.unwrap();
            let job = claim_morpion(&store).await;
            let stale = MorpionJobRow {
                lease_token: Some("old".into()),
                ..job.clone()
            };
            assert!(!store.split_morpion(&stale, 2, 1201, 7).await.unwrap());
            assert!(store.split_morpion(&job, 2, 1201, 7).await.unwrap());
            assert!(
                !store.split_morpion(&job, 2, 1201, 7).await.unwrap(),
                "once"
            );
            assert_eq!(store.units_of("s").await.unwrap().len(), 1201);
            // A split job is never taken back whole.
            assert_eq!(store.recover(3).await.unwrap(), Default::default());
            let a = store.claim_unit(&test_lease()).await.unwrap().unwrap();
            let b = store.claim_unit(&test_lease()).await.unwrap().unwrap();
            assert_eq!((a.unit, b.unit), (0, 1));
            assert_eq!(
                store
                    .unit_heartbeat(&a, Duration::from_secs(60), 5)
                    .await
                    .unwrap(),
                Some(false)
            );
            assert_eq!(
                store.finish_unit(&a, &done(10)).await.unwrap(),
                (true, 1200)
            );
            assert_eq!(
                store.finish_unit(&a, &done(10)).await.unwrap(),
                (false, 1200)
            );
            // A crash: the running unit goes back and is claimed again.
            assert_eq!(store.take_back_units(false).await.unwrap(), 1);
            assert!(!store.requeue_unit(&b).await.unwrap());
            let again = store.claim_unit(&test_lease()).await.unwrap().unwrap();
            assert_eq!(again.unit, 1);
            let progress = store.units_progress("s").await.unwrap();
            assert_eq!(progress, UnitsProgress { done: 1, nodes: 10 });
            // A cancel ends the job, drops the queued units, stops the running one.
            let cancelled = store.cancel("s").await.unwrap().unwrap();
            assert_eq!(cancelled.state(), crate::service::job::JobState::Cancelled);
            assert_eq!(store.units_of("s").await.unwrap().len(), 2);
            assert!(store.claim_unit(&test_lease()).await.unwrap().is_none());
            assert_eq!(
                store
                    .unit_heartbeat(&again, Duration::from_secs(60), 5)
                    .await
                    .unwrap(),
                Some(true)
            );
        })
        .await;
    }
}
