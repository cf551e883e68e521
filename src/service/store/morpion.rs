//! Morpion Solitaire endgame jobs (`"game": "morpion"`): what only a Morpion proof has
//! (its record, K, split and result, in `morpion_proofs`); its life (queue, claim,
//! lease, heartbeat, cancel, take-back) is that of every job, in `jobs` (`leases`).
//!
//! Invariants:
//! - A Morpion job is one row of `jobs` (`game` = `morpion`) and one of
//!   `morpion_proofs` with the same id, inserted in one transaction: a reader never
//!   sees one without the other. It is queued as a single job, taking its client's
//!   turn like any other (`queue`).
//! - Its finish is fenced by its claim like every job's, and writes both rows in one
//!   transaction.

use super::queue::{take_turns, SINGLE};
use super::rows::{end_parts, Claim, JobLife, ANY_JOB_SELECT};
use super::{in_transaction, on_pool, Store};
#[cfg(test)]
use crate::service::job::Game;
use crate::service::job::{JobState, Stored};
use gaps_engine::morpion::board::MorpionVariant;
use gaps_engine::StopReason;
use sqlx::types::Json;

/// A validated Morpion job, as stored when it is queued.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMorpionJob {
    pub id: String,
    pub variant: MorpionVariant,
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

/// A Morpion job as stored: its row of `jobs` and its row of `morpion_proofs`.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct MorpionJobRow {
    #[sqlx(flatten)]
    pub life: JobLife,
    pub id: String,
    pub variant: Stored<MorpionVariant>,
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
    pub line: Option<Json<Vec<serde_json::Value>>>,
    pub split_depth: Option<i64>,
    pub units: Option<i64>,
    pub threads_used: Option<i64>,
    pub split_units: Option<i64>,
    /// Units of a shared proof, once split (its units are then in `morpion_units`).
    pub units_total: Option<i64>,
    /// Nodes of the frontier walk of a shared proof.
    pub frontier_nodes: Option<i64>,
}

impl MorpionJobRow {
    /// True once the job can no longer change.
    pub fn is_final(&self) -> bool {
        self.life.state.is_final()
    }

    /// The claim it is held under (as read).
    pub fn claim(&self) -> Claim {
        self.life.claim(&self.id)
    }
}

/// The result of a proof that ran (to its end or to a limit).
#[derive(Clone, Debug, PartialEq)]
pub struct MorpionResult {
    pub best: i64,
    pub proved: bool,
    pub improved: bool,
    /// Why the search stopped early (`None`: it ended by itself).
    pub stopped: Option<StopReason>,
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

impl MorpionFinish {
    /// The state it ends the job in.
    pub fn state(&self) -> JobState {
        match self {
            MorpionFinish::Done(_) => JobState::Done,
            MorpionFinish::Cancelled(_) => JobState::Cancelled,
            MorpionFinish::Failed(_) => JobState::Failed,
        }
    }
}

impl Store {
    /// Inserts a queued Morpion job and returns it.
    pub async fn insert_morpion_job(&self, job: &NewMorpionJob) -> sqlx::Result<MorpionJobRow> {
        let client = job.created_by.clone().unwrap_or_default();
        in_transaction!(self, |Db, tx, d| {
            let turn = take_turns!(Db, tx, d, SINGLE, &client, 1_i64);
            sqlx::query::<Db>(
                "INSERT INTO jobs (id, game, state, created_by, queue_class, turn)
                 VALUES ($1, 'morpion', 'queued', $2, $3, $4)",
            )
            .bind(&job.id)
            .bind(&job.created_by)
            .bind(SINGLE)
            .bind(turn)
            .execute(&mut *tx)
            .await?;
            sqlx::query::<Db>(
                "INSERT INTO morpion_proofs (id, variant, record, record_length, from_move,
                     limit_nodes, limit_time_ms, threads, split_units)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&job.id)
            .bind(Stored(job.variant))
            .bind(&job.record)
            .bind(job.record_length)
            .bind(job.from_move)
            .bind(job.limit_nodes)
            .bind(job.limit_time_ms)
            .bind(job.threads)
            .bind(job.split_units)
            .execute(&mut *tx)
            .await?;
            let row =
                sqlx::query_as::<Db, MorpionJobRow>(&format!("{ANY_JOB_SELECT} WHERE j.id = $1"))
                    .bind(&job.id)
                    .fetch_one(&mut *tx)
                    .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// The Morpion job with this id (`None` also for a job of another game).
    pub async fn morpion_job(&self, id: &str) -> sqlx::Result<Option<MorpionJobRow>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, MorpionJobRow>(&format!(
                "{ANY_JOB_SELECT} WHERE j.id = $1 AND j.game = 'morpion'"
            ))
            .bind(id)
            .fetch_optional(pool)
            .await
        })
    }

    /// The record of Morpion job `id`, as submitted.
    pub async fn morpion_record(&self, id: &str) -> sqlx::Result<Option<String>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<Db, String>("SELECT record FROM morpion_proofs WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await
        })
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
                "UPDATE jobs SET state = $1, stopped = $2, nodes = $3, elapsed_ms = $4,
                     error = $5, finished_at = {now},
                     progress_nodes = COALESCE($3, progress_nodes)
                 WHERE id = $6 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $7",
                now = d.now
            ))
            .bind(state)
            .bind(result.and_then(|r| r.stopped).map(Stored))
            .bind(result.map(|r| r.nodes))
            .bind(result.map(|r| r.elapsed_ms))
            .bind(error)
            .bind(&job.id)
            .bind(&job.life.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n == 1 {
                sqlx::query::<Db>(
                    "UPDATE morpion_proofs SET best = $1, proved = $2, improved = $3, line = $4,
                         split_depth = $5, units = $6, threads_used = $7
                     WHERE id = $8",
                )
                .bind(result.map(|r| r.best))
                .bind(result.map(|r| r.proved))
                .bind(result.map(|r| r.improved))
                .bind(result.map(|r| Json(r.line.clone())))
                .bind(result.map(|r| r.split_depth))
                .bind(result.map(|r| r.units))
                .bind(result.map(|r| r.threads_used))
                .bind(&job.id)
                .execute(&mut *tx)
                .await?;
                // An ended shared proof leaves no unit to run.
                end_parts!(Db, tx, d, &job.id);
            }
            tx.commit().await?;
            Ok(n == 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{claim_morpion, new_job, on_both, test_lease};
    use super::super::{AnyJob, ClaimScope, JobFilter};
    use super::*;
    use std::time::Duration;

    fn new(id: &str) -> NewMorpionJob {
        NewMorpionJob {
            id: id.into(),
            variant: MorpionVariant::D5,
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
            assert_eq!(queued.life.state, JobState::Queued);
            assert_eq!(queued.variant.0, MorpionVariant::D5);
            let job = claim_morpion(&store).await;
            assert_eq!((job.life.state, job.life.attempts), (JobState::Running, 1));
            let next = store.claim_next(&test_lease(), ClaimScope::Any).await;
            assert!(next.unwrap().is_none());
            let claim = job.claim();
            let beat = store.heartbeat(&claim, Duration::from_secs(60), 44);
            assert_eq!(beat.await.unwrap(), Some(false));
            let read = store.morpion_job("a").await.unwrap().unwrap();
            assert_eq!(read.life.progress_nodes, 44);
            // A stale claim changes nothing.
            let mut stale = job.clone();
            stale.life.lease_token = Some("old".into());
            let done = MorpionFinish::Done(result());
            assert!(!store.finish_morpion(&stale, &done).await.unwrap());
            assert!(store.finish_morpion(&job, &done).await.unwrap());
            assert!(!store.finish_morpion(&job, &done).await.unwrap());
            let row = store.morpion_job("a").await.unwrap().unwrap();
            assert_eq!(row.life.state, JobState::Done);
            assert_eq!(
                (row.best, row.proved, row.life.nodes),
                (Some(170), Some(true), Some(88))
            );
            assert_eq!(row.line.unwrap().0, result().line);
            assert_eq!(store.morpion_record("a").await.unwrap().unwrap(), "{}");
            assert!(store.morpion_job("nope").await.unwrap().is_none());
        })
        .await;
    }

    #[tokio::test]
    async fn cancels_and_take_backs_follow_the_queue_rules() {
        on_both(|store| async move {
            store.insert_morpion_job(&new("q")).await.unwrap();
            let cancelled = store.cancel("q").await.unwrap().unwrap();
            assert_eq!(cancelled.state(), JobState::Cancelled);
            store.insert_morpion_job(&new("r")).await.unwrap();
            let job = claim_morpion(&store).await;
            assert_eq!(store.reclaim_expired(3).await.unwrap().requeued, 0);
            assert_eq!(store.recover(3).await.unwrap().requeued, 1);
            let back = store.morpion_job("r").await.unwrap().unwrap();
            assert_eq!(back.life.state, JobState::Queued);
            // The old holder is fenced; the new claim runs and can be cancelled.
            assert!(!store.requeue(&job.claim()).await.unwrap());
            let again = claim_morpion(&store).await;
            let flagged = store.cancel("r").await.unwrap().unwrap();
            assert_eq!(flagged.state(), JobState::Running);
            assert!(store.cancel_requested("r").await.unwrap());
            let claim = again.claim();
            let beat = store.heartbeat(&claim, Duration::from_secs(60), 1);
            assert_eq!(beat.await.unwrap(), Some(true));
            let end = MorpionFinish::Cancelled(None);
            assert!(store.finish_morpion(&again, &end).await.unwrap());
            let row = store.morpion_job("r").await.unwrap().unwrap();
            assert_eq!(row.life.state, JobState::Cancelled);
        })
        .await;
    }

    #[tokio::test]
    async fn one_queue_holds_both_games_read_listed_and_counted_as_their_own_rows() {
        on_both(|store| async move {
            // Client "me": a Gaps job, then a proof; another client's Gaps job after.
            let mut gaps = new_job("g", 1);
            gaps.created_by = Some("me".into());
            store.insert_job(&gaps).await.unwrap();
            store.insert_morpion_job(&new("m")).await.unwrap();
            let mut other = new_job("o", 2);
            other.created_by = Some("other".into());
            store.insert_job(&other).await.unwrap();
            assert_eq!(store.queued_by("me").await.unwrap(), 2);
            // A Morpion job is never read as a Gaps row, and the reverse.
            assert!(store.job("m").await.unwrap().is_none());
            assert!(store.morpion_job("g").await.unwrap().is_none());
            assert!(matches!(
                store.any_job("m").await.unwrap(),
                Some(AnyJob::Morpion(_))
            ));
            let page = |game| JobFilter {
                game,
                limit: 10,
                ..JobFilter::default()
            };
            let ids = |jobs: Vec<AnyJob>| -> Vec<String> {
                jobs.iter().map(|j| j.id().to_string()).collect()
            };
            let all = store.list_jobs(&page(None)).await.unwrap();
            assert_eq!(ids(all), ["o", "m", "g"]);
            let morpion = store.list_jobs(&page(Some(Game::Morpion))).await.unwrap();
            assert_eq!(ids(morpion), ["m"]);
            // Clients take turns across games: me's Gaps job, the other's, me's proof.
            let mut order = Vec::new();
            while let Some(job) = store
                .claim_next(&test_lease(), ClaimScope::Any)
                .await
                .unwrap()
            {
                order.push((job.game(), job.id().to_string()));
            }
            assert_eq!(
                order,
                [
                    (Game::Gaps, "g".to_string()),
                    (Game::Gaps, "o".to_string()),
                    (Game::Morpion, "m".to_string())
                ]
            );
            let counts = store.state_counts().await.unwrap();
            assert_eq!(counts, [(JobState::Running, 3)]);
        })
        .await;
    }

    #[tokio::test]
    async fn the_retention_sweep_deletes_an_old_proof_with_its_job() {
        on_both(|store| async move {
            for id in ["old", "recent"] {
                store.insert_morpion_job(&new(id)).await.unwrap();
                store.cancel(id).await.unwrap();
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
            assert!(store.any_job("old").await.unwrap().is_none());
            assert!(store.morpion_record("old").await.unwrap().is_none());
            assert!(store.morpion_job("recent").await.unwrap().is_some());
        })
        .await;
    }
}
