//! Odds jobs (`"odds": {"samples": N}`, docs/http.md, "Odds jobs"): what only the odds
//! of a game with unknown shuffles has (its deal, rules, samples, seed and answer, in
//! `odds_jobs`); its life (queue, claim, lease, heartbeat, cancel, take-back) is that
//! of every job, in `jobs`.
//!
//! Invariants:
//! - An odds job is one row of `jobs` (`game` = `odds`) and one of `odds_jobs` with the
//!   same id, inserted in one transaction: a reader never sees one without the other.
//! - Its finish is fenced by its claim like every job's and writes both rows in one
//!   transaction; an answer copied from an earlier job is one that job finished with
//!   every sample played (`stopped` NULL), for the same deal, rules, redeals, played
//!   steps, samples and seed, which make the same answer again.

use super::queue::{class_of, take_turns};
use super::rows::{Claim, JobLife, ANY_JOB_SELECT};
use super::{in_transaction, on_pool, Store};
use crate::report::odds::OddsJson;
use crate::report::StepJson;
use crate::request::rounds::RedealCount;
use crate::service::job::{JobState, Stored};
use gaps_engine::{DealSource, Layout, Position, StopReason, Variant};
use sqlx::types::Json;

/// A validated odds job, as stored when it is queued.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct NewOddsJob {
    pub id: String,
    pub variant: Stored<Variant>,
    /// The deal's start (before any played step).
    pub position: Stored<Position>,
    pub suits: i64,
    pub ranks: i64,
    /// Our numbered deal it was asked as, if it was.
    pub deal_seed: Option<i64>,
    /// Redeals of the game in all.
    pub redeals: RedealCount,
    /// A game in progress: the steps played since the deal (canonical, checked when the
    /// request came in).
    pub played: Option<Json<Vec<StepJson>>>,
    pub samples: i64,
    /// Seed of the sampled shuffles.
    pub search_seed: i64,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub created_by: Option<String>,
    pub batch_id: Option<String>,
}

impl NewOddsJob {
    /// Where its position comes from: our numbered deal, or the position itself.
    pub fn source(&self) -> DealSource {
        let layout = Layout::new(self.suits as usize, self.ranks as usize).ok();
        match (self.deal_seed, layout) {
            (Some(seed), Some(layout)) => DealSource::Numbered {
                seed: seed as u64,
                layout,
            },
            _ => DealSource::Position(self.position.0),
        }
    }
}

/// An odds job as stored: its row of `jobs` and its row of `odds_jobs`.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct OddsJobRow {
    #[sqlx(flatten)]
    pub spec: NewOddsJob,
    #[sqlx(flatten)]
    pub life: JobLife,
    /// Once done: the answer (as `gaps odds --json` prints it).
    pub odds_answer: Option<Json<OddsJson>>,
    /// Whether the answer was copied from an earlier job that asked the same.
    pub cached: bool,
}

impl OddsJobRow {
    /// The claim it is held under (as read).
    pub fn claim(&self) -> Claim {
        self.life.claim(&self.spec.id)
    }
}

/// How an odds job ended.
#[derive(Clone, Debug, PartialEq)]
pub enum OddsFinish {
    /// It answered (`done`); `stopped` when a limit or a cancel ended the sampling
    /// first (the answer then holds the samples played).
    Done(Box<OddsJson>),
    /// A user cancelled it while it ran; what it had found is kept.
    Cancelled(Option<Box<OddsJson>>),
    /// The engine failed.
    Failed(String),
}

/// Odds jobs a multi-row insert carries: 5 parameters each in `jobs` and 12 in
/// `odds_jobs`, well within SQLite's 32,766 and PostgreSQL's 65,535 parameters a
/// statement.
pub(super) const ODDS_PER_INSERT: usize = 500;

/// The odds columns, in the order [`bind_odds`] binds them from `$1`.
pub(super) const ODDS_COLUMNS: &str =
    "id, variant, position, suits, ranks, deal_seed, redeals, played, \
     samples, search_seed, limit_nodes, limit_time_ms";

/// Binds the columns of [`ODDS_COLUMNS`] of `$job` to `$query`.
macro_rules! bind_odds {
    ($query:expr, $job:expr) => {
        $query
            .bind(&$job.id)
            .bind($job.variant)
            .bind($job.position)
            .bind($job.suits)
            .bind($job.ranks)
            .bind($job.deal_seed)
            .bind($job.redeals)
            .bind(&$job.played)
            .bind($job.samples)
            .bind($job.search_seed)
            .bind($job.limit_nodes)
            .bind($job.limit_time_ms)
    };
}

/// Inserts the odds jobs `$jobs` of one batch (queued, consecutive turns of the batch
/// class of their client, in order) in the write transaction `$tx` (of backend `$db`,
/// dialect `$d`): one statement a table for each [`ODDS_PER_INSERT`] jobs, as a batch's
/// Gaps jobs are inserted (the chunk's transaction holds its batch's counts row).
macro_rules! insert_batch_odds {
    ($db:ident, $tx:ident, $d:ident, $jobs:expr) => {{
        let jobs: &[NewOddsJob] = $jobs;
        let client = jobs
            .first()
            .and_then(|job| job.created_by.clone())
            .unwrap_or_default();
        let batch_class = super::queue::BATCH;
        let first_turn = take_turns!($db, $tx, $d, batch_class, &client, jobs.len() as i64);
        let per_insert = super::odds::ODDS_PER_INSERT;
        for (chunk, rows) in jobs.chunks(per_insert).enumerate() {
            let mut insert = sqlx::QueryBuilder::<$db>::new(
                "INSERT INTO jobs (id, game, state, created_by, batch_id, queue_class, turn) ",
            );
            let turns = first_turn + (chunk * per_insert) as i64..;
            insert.push_values(rows.iter().zip(turns), |mut row, (job, turn)| {
                row.push_bind(job.id.clone())
                    .push("'odds'")
                    .push("'queued'")
                    .push_bind(job.created_by.clone())
                    .push_bind(job.batch_id.clone())
                    .push_bind(batch_class)
                    .push_bind(turn);
            });
            insert.build().execute(&mut *$tx).await?;
            let mut insert = sqlx::QueryBuilder::<$db>::new(format!(
                "INSERT INTO odds_jobs ({}) ",
                super::odds::ODDS_COLUMNS
            ));
            insert.push_values(rows, |mut row, job| {
                row.push_bind(job.id.clone())
                    .push_bind(job.variant)
                    .push_bind(job.position)
                    .push_bind(job.suits)
                    .push_bind(job.ranks)
                    .push_bind(job.deal_seed)
                    .push_bind(job.redeals)
                    .push_bind(job.played.clone())
                    .push_bind(job.samples)
                    .push_bind(job.search_seed)
                    .push_bind(job.limit_nodes)
                    .push_bind(job.limit_time_ms);
            });
            insert.build().execute(&mut *$tx).await?;
        }
    }};
}
pub(super) use insert_batch_odds;

impl Store {
    /// Inserts a queued odds job and returns it.
    pub async fn insert_odds_job(&self, job: &NewOddsJob) -> sqlx::Result<OddsJobRow> {
        let class = class_of(job.batch_id.as_deref());
        let client = job.created_by.clone().unwrap_or_default();
        in_transaction!(self, |Db, tx, d| {
            let turn = take_turns!(Db, tx, d, class, &client, 1_i64);
            sqlx::query::<Db>(
                "INSERT INTO jobs (id, game, state, created_by, batch_id, queue_class, turn)
                 VALUES ($1, 'odds', 'queued', $2, $3, $4, $5)",
            )
            .bind(&job.id)
            .bind(&job.created_by)
            .bind(&job.batch_id)
            .bind(class)
            .bind(turn)
            .execute(&mut *tx)
            .await?;
            let sql = format!(
                "INSERT INTO odds_jobs ({ODDS_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, \
                 $9, $10, $11, $12)"
            );
            bind_odds!(sqlx::query::<Db>(&sql), job)
                .execute(&mut *tx)
                .await?;
            let row =
                sqlx::query_as::<Db, OddsJobRow>(&format!("{ANY_JOB_SELECT} WHERE j.id = $1"))
                    .bind(&job.id)
                    .fetch_one(&mut *tx)
                    .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// Inserts an odds job answered by an earlier job's `answer` (state `done`,
    /// `cached`; its nodes and time are zero: nothing was searched for it).
    pub async fn insert_answered_odds_job(
        &self,
        job: &NewOddsJob,
        answer: &OddsJson,
    ) -> sqlx::Result<OddsJobRow> {
        let answer = Json(answer.clone());
        in_transaction!(self, |Db, tx, d| {
            sqlx::query::<Db>(&format!(
                "INSERT INTO jobs (id, game, state, created_by, batch_id, nodes, elapsed_ms,
                     started_at, finished_at)
                 VALUES ($1, 'odds', 'done', $2, $3, 0, 0, {now}, {now})",
                now = d.now
            ))
            .bind(&job.id)
            .bind(&job.created_by)
            .bind(&job.batch_id)
            .execute(&mut *tx)
            .await?;
            let sql = format!(
                "INSERT INTO odds_jobs ({ODDS_COLUMNS}, answer, cached) VALUES ($1, $2, $3, $4, \
                 $5, $6, $7, $8, $9, $10, $11, $12, $13, TRUE)"
            );
            bind_odds!(sqlx::query::<Db>(&sql), job)
                .bind(&answer)
                .execute(&mut *tx)
                .await?;
            let row =
                sqlx::query_as::<Db, OddsJobRow>(&format!("{ANY_JOB_SELECT} WHERE j.id = $1"))
                    .bind(&job.id)
                    .fetch_one(&mut *tx)
                    .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// The answer of an earlier job that asked what `job` asks and played every sample
    /// (module invariants), if there is one.
    pub async fn earlier_odds(&self, job: &NewOddsJob) -> sqlx::Result<Option<OddsJson>> {
        on_pool!(self, read, |Db, pool, _d| {
            let answer = sqlx::query_scalar::<Db, Json<OddsJson>>(
                "SELECT o.answer FROM odds_jobs o JOIN jobs j ON j.id = o.id
                 WHERE o.variant = $1 AND o.position = $2 AND o.redeals = $3
                     AND o.samples = $4 AND o.search_seed = $5
                     AND ((o.played IS NULL AND $6 IS NULL) OR o.played = $6)
                     AND j.state = 'done' AND j.stopped IS NULL AND o.answer IS NOT NULL
                 LIMIT 1",
            )
            .bind(job.variant)
            .bind(job.position)
            .bind(job.redeals)
            .bind(job.samples)
            .bind(job.search_seed)
            .bind(&job.played)
            .fetch_optional(pool)
            .await?;
            Ok(answer.map(|json| json.0))
        })
    }

    /// Ends a running odds job under its claim; false if the claim is no longer
    /// current (nothing changed).
    pub async fn finish_odds(&self, job: &OddsJobRow, finish: &OddsFinish) -> sqlx::Result<bool> {
        let (state, answer, error) = match finish {
            OddsFinish::Done(a) => (JobState::Done, Some(a.as_ref()), None),
            OddsFinish::Cancelled(a) => (JobState::Cancelled, a.as_deref(), None),
            OddsFinish::Failed(e) => (JobState::Failed, None, Some(e.as_str())),
        };
        let stopped = answer
            .and_then(|a| a.stopped.as_deref())
            .and_then(|name| StopReason::ALL.into_iter().find(|r| r.name() == name))
            .map(Stored);
        let nodes = answer.map(|a| i64::try_from(a.nodes).unwrap_or(i64::MAX));
        let elapsed_ms = answer.map(|a| a.elapsed_ms);
        let answer = answer.map(|a| Json(a.clone()));
        in_transaction!(self, |Db, tx, d| {
            let n = sqlx::query::<Db>(&format!(
                "UPDATE jobs SET state = $1, stopped = $2, nodes = $3, elapsed_ms = $4,
                     error = $5, finished_at = {now},
                     progress_nodes = COALESCE($3, progress_nodes)
                 WHERE id = $6 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $7",
                now = d.now
            ))
            .bind(state)
            .bind(stopped)
            .bind(nodes)
            .bind(elapsed_ms)
            .bind(error)
            .bind(&job.spec.id)
            .bind(&job.life.lease_token)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n == 1 {
                sqlx::query::<Db>("UPDATE odds_jobs SET answer = $1 WHERE id = $2")
                    .bind(&answer)
                    .bind(&job.spec.id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(n == 1)
        })
    }
}
