//! The rows of a job as the store reads and writes them: a Gaps job as asked
//! ([`NewJob`]), as stored ([`JobRow`]: its row of `jobs` and of `gaps_searches`), how
//! a run ended ([`Finish`]); the life every kind of job has ([`JobLife`]), the claim a
//! running job of any kind is held under ([`Claim`]), the columns a job is read with
//! ([`GAPS_JOB_SELECT`], [`ANY_JOB_SELECT`], decoded by `any_job`) and a list's filter
//! ([`JobFilter`]).
//!
//! Invariant: `NewJob`'s fields are the columns that `jobs::job_columns!` and
//! `jobs::search_columns!` name, so one row type serves the insert and the read.

use crate::played::PlayedAnswer;
use crate::report::{JobStats, StepJson};
use crate::request::rounds::RedealCount;
use crate::service::job::subject::{JobAlgorithm, JobPosition, JobPysol, JobVariant};
use crate::service::job::{Game, JobState, Stored};
use gaps_engine::{
    Algorithm, BoardDeal, DealSource, Layout, Position, StopReason, Variant, Verdict,
};
use sqlx::types::Json;

/// Every column of a job: what was asked (`spec`) and what became of it.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct JobRow {
    #[sqlx(flatten)]
    pub spec: NewJob,
    #[sqlx(flatten)]
    pub life: JobLife,
    pub verdict: Option<Stored<Verdict>>,
    pub solution: Option<Json<Vec<StepJson>>>,
    pub stats: Option<Json<JobStats>>,
    pub used_algorithm: Option<Stored<JobAlgorithm>>,
    pub cached: bool,
    /// What a game in progress's job found beside its verdict (`played` jobs only).
    pub played_answer: Option<Json<PlayedAnswer>>,
}

impl JobRow {
    /// True once the job can no longer change.
    pub fn is_final(&self) -> bool {
        self.life.state.is_final()
    }

    /// The claim it is held under (as read).
    pub fn claim(&self) -> Claim {
        self.life.claim(&self.spec.id)
    }
}

/// A job's life, whatever its kind: the columns of `jobs` that the queue, the leases
/// and the lifecycle write (docs/nodes.md, "One queue"), read into every kind's row.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct JobLife {
    pub seq: i64,
    pub state: JobState,
    pub error: Option<String>,
    pub attempts: i64,
    pub cancel_requested: bool,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    /// The node that holds the job while it runs (and that ran it, after).
    pub node_id: Option<String>,
    /// The token of the current claim: only its holder may finish the job.
    pub lease_token: Option<String>,
    /// When the lease ends unless renewed, in milliseconds since the Unix epoch.
    pub lease_until: Option<i64>,
    /// 0: a job asked on its own, claimed before any batch's deal (1). See `queue`.
    pub queue_class: i64,
    /// Its place among the queued jobs of its class (see `queue`).
    pub turn: i64,
    /// Nodes searched so far, as its holder last wrote with its heartbeat.
    pub progress_nodes: i64,
    /// Once it ended: why its search stopped early (`None`: it ended by itself), the
    /// nodes it searched and its time.
    pub stopped: Option<Stored<StopReason>>,
    pub nodes: Option<i64>,
    pub elapsed_ms: Option<f64>,
}

impl JobLife {
    /// The claim job `id` is held under (as read).
    pub fn claim(&self, id: &str) -> Claim {
        Claim {
            id: id.to_string(),
            token: self.lease_token.clone(),
        }
    }

    /// Its place in the queue's order: class, turn, seq.
    pub fn queue_key(&self) -> (i64, i64, i64) {
        (self.queue_class, self.turn, self.seq)
    }
}

/// The claim a running job is held under: a heartbeat, requeue or finish names it and
/// changes nothing once the job was claimed again (fencing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub id: String,
    /// `None` for a job no node holds (a shared Morpion proof, held by its units).
    pub token: Option<String>,
}

impl NewJob {
    /// Where its engine position comes from: a PySolFC game, our numbered deal, or the
    /// position itself (its start is `position`, written when it was validated);
    /// `None` for a game played on its own board.
    pub fn source(&self) -> Option<DealSource> {
        let layout = || Layout::new(self.suits as usize, self.ranks as usize).ok();
        Some(match (&self.pysol, self.deal_seed.zip(layout())) {
            (Some(game), _) => DealSource::Pysol(game.0.deal()?),
            (None, Some((seed, layout))) => DealSource::Numbered {
                seed: seed as u64,
                layout,
            },
            (None, None) => DealSource::Position(*self.position.0.engine()?),
        })
    }

    /// The engine's variant and start, for a job the engine's searches answer (`None`
    /// for a game played on its own board).
    pub fn engine(&self) -> Option<(Variant, Position)> {
        Some((self.variant.0.engine()?, *self.position.0.engine()?))
    }

    /// The game, for a job the board search answers.
    pub fn board(&self) -> Option<BoardDeal> {
        match self.position.0 {
            JobPosition::Board(deal) => Some(deal),
            JobPosition::Engine(_) => None,
        }
    }
}

/// A validated job to insert (the request part of a [`JobRow`]).
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct NewJob {
    pub id: String,
    /// The rules: an engine variant, or a PySolFC game's own on its board.
    pub variant: Stored<JobVariant>,
    pub algorithm: Stored<Algorithm>,
    /// Canonical notation (or a board game's `GAME:N`) in the database, parsed here.
    pub position: Stored<JobPosition>,
    pub suits: i64,
    pub ranks: i64,
    pub deal_seed: Option<i64>,
    pub limit_nodes: Option<i64>,
    pub limit_time_ms: i64,
    pub table_mb: Option<i64>,
    pub search_seed: i64,
    pub batch_id: Option<String>,
    pub limit_probes: Option<i64>,
    /// Threads of the search (`limits.threads`; a solve gets fewer when the pool's
    /// threads are busy).
    pub threads: i64,
    /// The caller that created it: a token's name, or an address on an open service.
    pub created_by: Option<String>,
    /// The PySolFC game it was submitted as (stored as `montana:12345`).
    pub pysol: Option<Stored<JobPysol>>,
    /// Redeals the search may use (0..=2; above 0 only for a deal or a PySolFC game,
    /// whose generator shuffles them). Its verdict then goes to `redeal_verdicts`.
    pub redeals: RedealCount,
    /// A game in progress: the steps played since the deal (canonical, checked when the
    /// request came in); its verdict is about the position they reach.
    pub played: Option<Json<Vec<StepJson>>>,
    /// Whether the job reviews its played steps.
    pub review: bool,
}

/// How a running job ended.
#[derive(Clone, Debug)]
pub enum Finish {
    /// A verdict (state `done`), also stored as the position's known verdict.
    Verdict {
        verdict: Verdict,
        solution: Option<Vec<StepJson>>,
        stats: JobStats,
        stopped: Option<StopReason>,
        used_algorithm: JobAlgorithm,
        nodes: i64,
        elapsed_ms: f64,
        cached: bool,
        /// A game in progress: where its steps led, the hint, the review (boxed: the
        /// other finishes are small).
        played: Option<Box<PlayedAnswer>>,
    },
    /// Stopped because a user cancelled it (state `cancelled`), with its statistics.
    Cancelled { stats: Option<JobStats> },
    /// The engine failed (state `failed`).
    Failed { error: String },
}

/// Filters and page of a job list (newest first).
#[derive(Clone, Debug, Default)]
pub struct JobFilter {
    pub game: Option<Game>,
    pub state: Option<JobState>,
    pub variant: Option<Variant>,
    pub verdict: Option<Verdict>,
    pub batch_id: Option<String>,
    /// Only jobs with `seq` below this (the cursor).
    pub before: Option<i64>,
    pub limit: u32,
}

/// The columns of a Gaps search (`gaps_searches`, alias `g`) a [`JobRow`] reads beside
/// its job's row of `jobs` (alias `j`): every one but the id.
macro_rules! gaps_search_columns {
    () => {
        "g.variant, g.algorithm, g.position, g.suits, g.ranks, g.deal_seed, g.pysol,
         g.redeals, g.played, g.review, g.limit_nodes, g.limit_time_ms, g.limit_probes,
         g.table_mb, g.search_seed, g.threads, g.verdict, g.solution, g.stats,
         g.used_algorithm, g.cached, g.played_answer"
    };
}

/// A Gaps job's columns: its row of `jobs` and of `gaps_searches` (a [`JobRow`]).
pub(super) const GAPS_JOB_SELECT: &str = concat!(
    "SELECT j.*, ",
    gaps_search_columns!(),
    " FROM jobs j JOIN gaps_searches g ON g.id = j.id"
);

/// [`ANY_JOB_SELECT`] of the rows of `$jobs` (`jobs`, or a `WITH`'s rows of it: a
/// claim's, `leases`) as `j`, each with its kind's row.
macro_rules! any_job_from {
    ($jobs:literal) => {
        concat!(
            "SELECT j.*, g.algorithm, g.pysol, g.review, g.limit_probes,
        g.table_mb, g.verdict, g.solution, g.stats, g.used_algorithm, g.played_answer,
        COALESCE(g.position, o.position) AS position,
        COALESCE(g.suits, o.suits) AS suits, COALESCE(g.ranks, o.ranks) AS ranks,
        COALESCE(g.deal_seed, o.deal_seed) AS deal_seed,
        COALESCE(g.redeals, o.redeals) AS redeals, COALESCE(g.played, o.played) AS played,
        COALESCE(g.search_seed, o.search_seed) AS search_seed,
        COALESCE(g.cached, o.cached) AS cached, o.samples, o.answer AS odds_answer,
        COALESCE(g.variant, p.variant, o.variant) AS variant,
        COALESCE(g.limit_nodes, p.limit_nodes, u.limit_nodes, o.limit_nodes) AS limit_nodes,
        COALESCE(g.limit_time_ms, p.limit_time_ms, u.limit_time_ms, o.limit_time_ms)
            AS limit_time_ms,
        COALESCE(g.threads, p.threads) AS threads,
        p.record, p.record_length, p.from_move,
        p.best, p.proved, p.improved, p.line, p.split_depth, p.units, p.threads_used,
        p.split_units, p.units_total, p.frontier_nodes, u.unit, u.complete,
        u.line AS unit_line
    FROM ",
            $jobs,
            " j LEFT JOIN gaps_searches g ON g.id = j.id
        LEFT JOIN morpion_proofs p ON p.id = j.id
        LEFT JOIN morpion_units u ON u.id = j.id
        LEFT JOIN odds_jobs o ON o.id = j.id"
        )
    };
}
pub(super) use any_job_from;

/// Every column a job of any kind is read with: its row of `jobs` and of its kind's
/// table (a Gaps search, a Morpion proof, a unit of a shared proof, the odds of a game;
/// NULL for the other kinds). The columns two kinds share a name for (variant, limits,
/// threads, the deal and its redeals) are the one kind's that the row is. Read with `any_job::decode_any`.
pub(super) const ANY_JOB_SELECT: &str = any_job_from!("jobs");

/// The statements that end the parts of job `$1` (the units of a shared Morpion proof)
/// as the job ends or is cancelled, run in that transaction (`{now}`: the dialect's
/// now): queued ones end `cancelled` at once, running ones are flagged and stop at
/// their holder's next heartbeat.
pub(super) const END_PARTS: [&str; 2] = [
    "UPDATE jobs SET state = 'cancelled', cancel_requested = TRUE, finished_at = {now}
     WHERE parent_id = $1 AND state = 'queued'",
    "UPDATE jobs SET cancel_requested = TRUE WHERE parent_id = $1 AND state = 'running'",
];

/// Runs [`END_PARTS`] for job `$id` in the write transaction `$tx` (of backend `$db`,
/// dialect `$d`).
macro_rules! end_parts {
    ($db:ty, $tx:ident, $d:expr, $id:expr) => {
        for sql in super::rows::END_PARTS {
            sqlx::query::<$db>(&sql.replace("{now}", $d.now))
                .bind($id)
                .execute(&mut *$tx)
                .await?;
        }
    };
}
pub(super) use end_parts;
