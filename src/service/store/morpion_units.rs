//! The units of Morpion proofs shared between nodes: split a claimed proof into
//! units, store a unit's result, read the units back to conclude the proof. A unit
//! is a job of the one queue (`jobs`, `parent_id` = its proof): its claim, lease,
//! heartbeat, take-back and cancel are every job's (`leases`, `jobs`); what only a
//! unit has (its index, whether its search was complete, its line) is in
//! `morpion_units`.
//!
//! Invariants:
//! - A proof is split once: the split is conditional on the claim that took the proof
//!   (its lease token), and it inserts every unit in the same transaction, so a proof
//!   has all of its units or none. A split proof is `running` with no holder
//!   (`lease_token` NULL): it is never taken back as a whole, only unit by unit.
//! - A unit's units are queued in the batch class, taking the proof's client's turns
//!   there (`queue`): a shared proof is served like a batch, in turn with other
//!   clients' batches, after every single job.
//! - A unit's result is stored only under the claim that took it (fencing), once; the
//!   finish locks its proof's row first, so the finish that leaves no unit to run is
//!   the one that sees none left, and concludes.
//! - Units are the proof's parts: a cancel or an end of the proof cancels its queued
//!   units and flags its running ones (`Store::cancel`, `Store::finish_morpion`).

use super::morpion::MorpionJobRow;
use super::queue::{take_turns, BATCH};
use super::rows::{JobLife, ANY_JOB_SELECT};
use super::{in_transaction, on_pool, Store};
use crate::service::job::{JobState, Stored};
use gaps_engine::StopReason;
use sqlx::types::Json;
use sqlx::QueryBuilder;

/// Units inserted by one statement of a split.
const INSERT_CHUNK: i64 = 500;

/// The job id of unit `unit` of proof `proof`.
pub fn unit_job_id(proof: &str, unit: i64) -> String {
    format!("{proof}-u{unit}")
}

/// A unit of a shared proof, as stored: its row of `jobs` and of `morpion_units`.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct MorpionUnitRow {
    #[sqlx(flatten)]
    pub life: JobLife,
    pub id: String,
    /// The proof it is a part of.
    pub parent_id: String,
    pub unit: i64,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub created_by: Option<String>,
    pub complete: Option<bool>,
    /// The longest line through the unit from the split root, as MSR moves.
    pub unit_line: Option<Json<Vec<serde_json::Value>>>,
}

impl MorpionUnitRow {
    /// The claim it is held under (as read).
    pub fn claim(&self) -> super::rows::Claim {
        self.life.claim(&self.id)
    }
}

/// What a unit's search found.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitDone {
    pub nodes: i64,
    pub complete: bool,
    pub stopped: Option<StopReason>,
    pub line: Vec<serde_json::Value>,
    pub elapsed_ms: f64,
}

/// How a unit ended.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitFinish {
    /// It searched (`done`).
    Done(UnitDone),
    /// Its proof was cancelled or ended while it was queued or ran.
    Cancelled,
    /// It could not be searched.
    Failed(String),
}

impl UnitFinish {
    /// The state it ends the unit in.
    pub fn state(&self) -> JobState {
        match self {
            UnitFinish::Done(_) => JobState::Done,
            UnitFinish::Cancelled => JobState::Cancelled,
            UnitFinish::Failed(_) => JobState::Failed,
        }
    }
}

/// The units of a shared proof: how many are done, and the nodes searched so far
/// (the finished units' and the running units' last heartbeats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitsProgress {
    pub done: i64,
    pub nodes: i64,
}

impl Store {
    /// Splits the claimed `job` into `units` units at `depth` (a frontier of
    /// `frontier_nodes` nodes): records the split, drops the job's holder and queues
    /// every unit. False (nothing changed) if the claim is no longer current or a user
    /// asked to cancel the job.
    pub async fn split_morpion(
        &self,
        job: &MorpionJobRow,
        depth: i64,
        units: i64,
        frontier_nodes: i64,
    ) -> sqlx::Result<bool> {
        let client = job.created_by.clone().unwrap_or_default();
        in_transaction!(self, |Db, tx, d| {
            // The job is then held by its units, not by a node (no token: `leases`).
            let n = sqlx::query::<Db>(
                "UPDATE jobs SET lease_token = NULL, lease_until = NULL
                 WHERE id = $1 AND state = 'running' AND lease_token IS NOT NULL
                     AND lease_token = $2 AND cancel_requested = FALSE
                     AND (SELECT units_total FROM morpion_proofs WHERE id = $1) IS NULL",
            )
            .bind(&job.id)
            .bind(&job.life.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n != 1 {
                return Ok(false);
            }
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
            let first_turn = take_turns!(Db, tx, d, BATCH, &client, units);
            let mut first = 0;
            while first < units {
                let last = (first + INSERT_CHUNK).min(units);
                let mut q = QueryBuilder::<Db>::new(
                    "INSERT INTO jobs (id, game, state, created_by, queue_class, turn,
                         parent_id) ",
                );
                q.push_values(first..last, |mut row, unit| {
                    row.push_bind(unit_job_id(&job.id, unit))
                        .push("'morpion'")
                        .push("'queued'")
                        .push_bind(job.created_by.clone())
                        .push_bind(BATCH)
                        .push_bind(first_turn + unit)
                        .push_bind(job.id.clone());
                });
                q.build().execute(&mut *tx).await?;
                let mut q = QueryBuilder::<Db>::new(
                    "INSERT INTO morpion_units (id, unit, limit_nodes, limit_time_ms) ",
                );
                q.push_values(first..last, |mut row, unit| {
                    row.push_bind(unit_job_id(&job.id, unit))
                        .push_bind(unit)
                        .push_bind(job.limit_nodes)
                        .push_bind(job.limit_time_ms);
                });
                q.build().execute(&mut *tx).await?;
                first = last;
            }
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Ends `unit` under its claim. Returns whether it was stored, and how many units
    /// of its proof are still queued or running (0: the proof can be concluded).
    pub async fn finish_unit(
        &self,
        unit: &MorpionUnitRow,
        finish: &UnitFinish,
    ) -> sqlx::Result<(bool, i64)> {
        let done = match finish {
            UnitFinish::Done(done) => Some(done),
            _ => None,
        };
        let error = match finish {
            UnitFinish::Failed(error) => Some(error.as_str()),
            _ => None,
        };
        in_transaction!(self, |Db, tx, d| {
            // Lock the proof's row first: the finishes of its units then follow one
            // another, so the finish of the last one counts every other as ended (two
            // concurrent finishes would otherwise each see the other's unit running,
            // and no one would conclude).
            sqlx::query::<Db>("UPDATE jobs SET attempts = attempts WHERE id = $1")
                .bind(&unit.parent_id)
                .execute(&mut *tx)
                .await?;
            let n = sqlx::query::<Db>(&format!(
                "UPDATE jobs SET state = $1, nodes = $2, stopped = $3, elapsed_ms = $4,
                     error = $5, progress_nodes = COALESCE($2, progress_nodes),
                     finished_at = {now}
                 WHERE id = $6 AND state = 'running' AND lease_token IS NOT NULL
                     AND lease_token = $7",
                now = d.now
            ))
            .bind(finish.state())
            .bind(done.map(|r| r.nodes))
            .bind(done.and_then(|r| r.stopped).map(Stored))
            .bind(done.map(|r| r.elapsed_ms))
            .bind(error)
            .bind(&unit.id)
            .bind(&unit.life.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n == 1 {
                if let Some(done) = done {
                    sqlx::query::<Db>(
                        "UPDATE morpion_units SET complete = $1, line = $2 WHERE id = $3",
                    )
                    .bind(done.complete)
                    .bind(Json(&done.line))
                    .bind(&unit.id)
                    .execute(&mut *tx)
                    .await?;
                }
            }
            let left = sqlx::query_scalar::<Db, i64>(
                "SELECT COUNT(*) FROM jobs
                 WHERE parent_id = $1 AND state IN ('queued', 'running')",
            )
            .bind(&unit.parent_id)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok((n == 1, left))
        })
    }

    /// Running shared proofs with no unit left to run that were not concluded (the
    /// node that stored the last unit stopped before it concluded, or a unit failed).
    pub async fn unconcluded_shared(&self) -> sqlx::Result<Vec<MorpionJobRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, MorpionJobRow>(&format!(
                "{ANY_JOB_SELECT} WHERE j.game = 'morpion' AND j.state = 'running'
                     AND j.parent_id IS NULL AND p.units_total IS NOT NULL
                     AND NOT EXISTS (SELECT 1 FROM jobs c WHERE c.parent_id = j.id
                                     AND c.state IN ('queued', 'running'))"
            ))
            .fetch_all(pool)
            .await
        })
    }

    /// Every unit of proof `id`, in unit order.
    pub async fn units_of(&self, id: &str) -> sqlx::Result<Vec<MorpionUnitRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, MorpionUnitRow>(&format!(
                "{ANY_JOB_SELECT} WHERE j.parent_id = $1 ORDER BY u.unit"
            ))
            .bind(id)
            .fetch_all(pool)
            .await
        })
    }

    /// How far the units of proof `id` have got.
    pub async fn units_progress(&self, id: &str) -> sqlx::Result<UnitsProgress> {
        on_pool!(self, read, |Db, pool, _d| {
            let (done, nodes) = sqlx::query_as::<Db, (i64, i64)>(
                // PostgreSQL's SUM of BIGINT is NUMERIC: cast back.
                "SELECT CAST(COALESCE(SUM(CASE WHEN state = 'done' THEN 1 ELSE 0 END), 0) AS BIGINT),
                        CAST(COALESCE(SUM(progress_nodes), 0) AS BIGINT)
                 FROM jobs WHERE parent_id = $1",
            )
            .bind(id)
            .fetch_one(pool)
            .await?;
            Ok(UnitsProgress { done, nodes })
        })
    }

    /// Deletes the units of the proofs (done, failed, cancelled) that ended more than
    /// `days` days ago, in statements of at most 10,000 units (each its own short
    /// write), before their proofs go (`Store::prune_finished`).
    pub(super) async fn prune_ended_units(&self, days: i32) -> sqlx::Result<u64> {
        let of_ended = "SELECT c.id FROM jobs c JOIN jobs p ON p.id = c.parent_id
                 WHERE p.state IN ('done', 'failed', 'cancelled')
                     AND p.finished_at < {cutoff}";
        self.delete_ended_before(
            &format!(
                "DELETE FROM morpion_units WHERE id IN ({of_ended}
                     AND EXISTS (SELECT 1 FROM morpion_units r WHERE r.id = c.id)
                 LIMIT 10000)"
            ),
            10_000,
            days,
        )
        .await?;
        self.delete_ended_before(
            &format!("DELETE FROM jobs WHERE id IN ({of_ended} LIMIT 10000)"),
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
    use super::super::test_support::{claim_morpion, new_job, on_both, test_lease};
    use super::super::{AnyJob, ClaimScope};
    use super::*;
    use std::time::Duration;

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

    fn done(nodes: i64) -> UnitFinish {
        UnitFinish::Done(UnitDone {
            nodes,
            complete: true,
            stopped: None,
            line: vec![serde_json::json!({"x": 1, "y": 2, "dir": "H", "pos": 0})],
            elapsed_ms: 1.0,
        })
    }

    /// Claims the next job, which must be a unit.
    async fn claim_unit(store: &Store) -> MorpionUnitRow {
        match store
            .claim_next(&test_lease(), ClaimScope::Any)
            .await
            .unwrap()
        {
            Some(AnyJob::MorpionUnit(unit)) => *unit,
            other => panic!("not a unit: {other:?}"),
        }
    }

    #[tokio::test]
    async fn the_retention_sweep_deletes_old_ended_morpion_jobs_with_their_units() {
        on_both(|store| async move {
            // "old" and "recent" are split, one unit of each stored, then cancelled
            // (their queued units end cancelled, the stored one stays done).
            for id in ["old", "recent"] {
                store.insert_morpion_job(&shared(id)).await.unwrap();
                let job = claim_morpion(&store).await;
                assert_eq!(job.id, id);
                assert!(store.split_morpion(&job, 1, 3, 1).await.unwrap());
                let unit = claim_unit(&store).await;
                assert_eq!(unit.parent_id, id);
                store.finish_unit(&unit, &done(10)).await.unwrap();
                store.cancel(id).await.unwrap();
                let units = store.units_of(id).await.unwrap();
                let states: Vec<_> = units.iter().map(|u| u.life.state).collect();
                assert_eq!(
                    states,
                    [JobState::Done, JobState::Cancelled, JobState::Cancelled]
                );
            }
            store.insert_morpion_job(&shared("queued")).await.unwrap();
            on_pool!(store, write, |Db, pool, _d| {
                sqlx::query::<Db>(
                    "UPDATE jobs SET finished_at = '2020-01-01T00:00:00.000Z'
                     WHERE id = 'old' OR parent_id = 'recent'",
                )
                .execute(pool)
                .await
                .unwrap();
            });
            // The old proof goes with its units; the recent one's units stay with it,
            // however old they are.
            assert_eq!(store.prune_finished(30).await.unwrap(), 1);
            assert!(store.morpion_job("old").await.unwrap().is_none());
            assert!(store.units_of("old").await.unwrap().is_empty());
            assert!(store
                .any_job(&unit_job_id("old", 0))
                .await
                .unwrap()
                .is_none());
            assert_eq!(store.units_of("recent").await.unwrap().len(), 3);
            assert!(store.morpion_job("recent").await.unwrap().is_some());
            assert!(store.morpion_job("queued").await.unwrap().is_some());
            assert_eq!(store.prune_finished(30).await.unwrap(), 0);
        })
        .await;
    }

    #[tokio::test]
    async fn a_split_job_is_worked_unit_by_unit_as_jobs_of_the_one_queue() {
        on_both(|store| async move {
            store.insert_morpion_job(&shared("s")).await.unwrap();
            let job = claim_morpion(&store).await;
            let mut stale = job.clone();
            stale.life.lease_token = Some("old".into());
            assert!(!store.split_morpion(&stale, 2, 1201, 7).await.unwrap());
            assert!(store.split_morpion(&job, 2, 1201, 7).await.unwrap());
            assert!(
                !store.split_morpion(&job, 2, 1201, 7).await.unwrap(),
                "once"
            );
            assert_eq!(store.units_of("s").await.unwrap().len(), 1201);
            // A split job is never taken back whole; its units are not listed, and a
            // single job queued later goes before them (they are in the batch class).
            assert_eq!(store.recover(3).await.unwrap(), Default::default());
            let page = super::super::JobFilter {
                limit: 10,
                ..Default::default()
            };
            assert_eq!(store.list_jobs(&page).await.unwrap().len(), 1);
            store.insert_job(&new_job("single", 1)).await.unwrap();
            let first = store.claim_next(&test_lease(), ClaimScope::Any).await;
            assert_eq!(first.unwrap().unwrap().id(), "single");
            let a = claim_unit(&store).await;
            let b = claim_unit(&store).await;
            assert_eq!((a.unit, b.unit), (0, 1));
            assert_eq!((a.id.as_str(), a.life.queue_class), ("s-u0", BATCH));
            let claim = a.claim();
            let beat = store.heartbeat(&claim, Duration::from_secs(60), 5);
            assert_eq!(beat.await.unwrap(), Some(false));
            assert_eq!(
                store.finish_unit(&a, &done(10)).await.unwrap(),
                (true, 1200)
            );
            assert_eq!(
                store.finish_unit(&a, &done(10)).await.unwrap(),
                (false, 1200)
            );
            // A crash: the running unit (and the single job) go back; the unit is
            // claimed again.
            assert_eq!(store.recover(3).await.unwrap().requeued, 2);
            assert!(!store.requeue(&b.claim()).await.unwrap());
            let single = store.claim_next(&test_lease(), ClaimScope::Any).await;
            assert_eq!(single.unwrap().unwrap().id(), "single");
            let again = claim_unit(&store).await;
            assert_eq!(again.unit, 1);
            let progress = store.units_progress("s").await.unwrap();
            assert_eq!(progress, UnitsProgress { done: 1, nodes: 10 });
            // A cancel ends the job and its queued units, and flags the running one.
            let cancelled = store.cancel("s").await.unwrap().unwrap();
            assert_eq!(cancelled.state(), JobState::Cancelled);
            let units = store.units_of("s").await.unwrap();
            let queued = units
                .iter()
                .filter(|u| u.life.state == JobState::Queued)
                .count();
            assert_eq!(queued, 0);
            let next = store.claim_next(&test_lease(), ClaimScope::Any).await;
            assert!(next.unwrap().is_none());
            let claim = again.claim();
            let beat = store.heartbeat(&claim, Duration::from_secs(60), 5);
            assert_eq!(beat.await.unwrap(), Some(true));
            let end = store.finish_unit(&again, &UnitFinish::Cancelled).await;
            assert_eq!(end.unwrap(), (true, 0));
        })
        .await;
    }

    #[tokio::test]
    async fn a_proof_a_user_asked_to_cancel_is_not_split() {
        on_both(|store| async move {
            store.insert_morpion_job(&shared("c")).await.unwrap();
            let job = claim_morpion(&store).await;
            let flagged = store.cancel("c").await.unwrap().unwrap();
            assert_eq!(flagged.state(), JobState::Running);
            assert!(!store.split_morpion(&job, 1, 3, 1).await.unwrap());
            assert!(store.units_of("c").await.unwrap().is_empty());
        })
        .await;
    }
}
