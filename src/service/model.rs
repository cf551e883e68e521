//! The JSON shapes of the HTTP API (docs/http.md) and the validation of requests.
//!
//! Invariants: a request becomes a [`NewJob`] only through [`JobRequest::validate`],
//! which parses the position with the engine (the only parse of it: from here on it is
//! a `Position`, text again only in the database and in JSON), checks the
//! algorithm against the variant and caps every limit from configuration; anything
//! wrong is an [`ApiError`] naming the field, and nothing is stored.

use super::config::Config;
use super::error::ApiError;
use super::job::{JobState, Stored};
use super::store::{BatchCounts, BatchRow, JobRow, NewBatch, NewJob};
use crate::report::{wilson_95, JobStats, MoveJson};
use gaps_engine::{deal, parse_position, resolve_algorithm, Algorithm, Layout};
use gaps_engine::{Position, Variant};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A numbered deal.
#[derive(Deserialize, Serialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealSpec {
    /// Deal number (0 ..= 2^63-1), as printed by `gaps deal --seed N`.
    pub seed: u64,
    /// Suits (1..8, default 4).
    #[serde(default = "default_suits")]
    pub suits: usize,
    /// Ranks (3..13, default 13).
    #[serde(default = "default_ranks")]
    pub ranks: usize,
}

fn default_suits() -> usize {
    4
}
fn default_ranks() -> usize {
    13
}

/// Search limits; reaching one gives the verdict `unknown`.
#[derive(Deserialize, Serialize, Debug, Clone, Default, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Node limit.
    pub nodes: Option<u64>,
    /// Time limit in milliseconds (default and cap from configuration).
    pub time_ms: Option<u64>,
    /// Transposition-table budget in MiB (default: the engine's for the variant; capped
    /// by the solver threads' table). For `exact`, the visited set's budget (default: the
    /// solver threads' table; capped by the memory the exact searches share).
    pub table_mb: Option<u64>,
    /// Random probes of `sampling` (default 10^6), or of the sampling phase of `auto`
    /// on `common` (default 10^5).
    pub probes: Option<u64>,
    /// Threads of this one search (default 1; more only for `blocks`, and for `exact`,
    /// up to the configured maximum). The job gets the pool's idle threads up to this
    /// number when it starts; `stats.threads` says how many it had.
    pub threads: Option<u64>,
}

/// `POST /v1/jobs`: a position or a numbered deal, with variant, algorithm and limits.
#[derive(Deserialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JobRequest {
    /// A position or deal in the notation of docs/notation.md (exclusive with `deal`).
    pub position: Option<String>,
    /// A numbered deal (exclusive with `position`).
    pub deal: Option<DealSpec>,
    /// `basic` (default) or `common`.
    pub variant: Option<String>,
    /// `auto` (default), `dfs`, `sampling`, `hybrid`, `blocks`, `assign` or `exact`.
    pub algorithm: Option<String>,
    /// Search limits.
    #[serde(default)]
    pub limits: Limits,
    /// Seed of randomised algorithms (default 0), recorded with the result.
    pub seed: Option<u64>,
}

/// `POST /v1/batches`: deals `seed .. seed+count-1` of one variant and size.
#[derive(Deserialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// `basic` (default) or `common`.
    pub variant: Option<String>,
    /// Algorithm (default `auto`).
    pub algorithm: Option<String>,
    /// Suits (default 4).
    #[serde(default = "default_suits")]
    pub suits: usize,
    /// Ranks (default 13).
    #[serde(default = "default_ranks")]
    pub ranks: usize,
    /// First deal number (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Number of deals (1 ..= configured maximum).
    pub count: u64,
    /// Limits of each job.
    #[serde(default)]
    pub limits: Limits,
}

/// Query of `GET`/`POST` that may wait for the job to finish.
#[derive(Deserialize, Debug, Default, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    /// Wait up to this many milliseconds for the job to finish (capped by configuration).
    pub wait_ms: Option<u64>,
}

/// Query of `GET /v1/jobs`.
#[derive(Deserialize, Debug, Default, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    pub state: Option<String>,
    /// `basic` or `common`.
    pub variant: Option<String>,
    /// `solvable`, `unsolvable` or `unknown`.
    pub verdict: Option<String>,
    /// Only jobs of this batch.
    pub batch: Option<String>,
    /// Page size.
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A job as returned by the API.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct JobView {
    pub id: String,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    #[schema(value_type = String)]
    pub state: JobState,
    /// Canonical position.
    pub position: String,
    pub variant: String,
    /// Algorithm requested.
    pub algorithm: String,
    pub suits: i64,
    pub ranks: i64,
    /// The numbered deal, if the job was submitted as one (same shape as the request).
    pub deal: Option<DealSpec>,
    pub limits: Limits,
    pub seed: i64,
    pub batch_id: Option<String>,
    /// `solvable`, `unsolvable` or `unknown` once done.
    pub verdict: Option<String>,
    /// Moves from the position to a won one (empty when done without a win; absent
    /// until done).
    #[schema(value_type = Option<Vec<Object>>)]
    pub solution: Option<Vec<MoveJson>>,
    /// Search statistics (`nodes`, `elapsed_ms`, ...).
    #[schema(value_type = Option<Object>)]
    pub stats: Option<JobStats>,
    /// Why an `unknown` search stopped.
    pub stopped: Option<String>,
    /// The algorithm that produced the verdict.
    pub used_algorithm: Option<String>,
    /// True when the verdict came from the store without searching.
    pub cached: bool,
    /// Why a `failed` job failed.
    pub error: Option<String>,
    /// Times a solver started this job (more than 1 after a restart or a lost lease).
    pub attempts: i64,
    /// The node that runs (or ran) the job.
    pub node_id: Option<String>,
    /// Who created the job: the name of the caller's token, or its address on an open
    /// service.
    pub created_by: Option<String>,
    pub cancel_requested: bool,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    /// For a running job: the nodes searched so far (updated about every 1024 nodes).
    pub progress: Option<Progress>,
}

/// How far a running search has got.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct Progress {
    /// Nodes searched so far.
    pub nodes: u64,
}

/// The HTTP boundary of a job: engine values become their public names here.
impl From<JobRow> for JobView {
    fn from(r: JobRow) -> Self {
        JobView {
            limits: Limits {
                nodes: r.spec.limit_nodes.map(|n| n as u64),
                time_ms: Some(r.spec.limit_time_ms as u64),
                table_mb: r.spec.table_mb.map(|n| n as u64),
                probes: r.spec.limit_probes.map(|n| n as u64),
                threads: Some(r.spec.threads as u64),
            },
            // A finished search without a win has an empty solution, as in the CLI.
            solution: r
                .solution
                .map(|s| s.0)
                .or_else(|| (r.state == JobState::Done).then(Vec::new)),
            stats: r.stats.map(|s| s.0),
            id: r.spec.id,
            state: r.state,
            position: r.spec.position.0.to_string(),
            variant: r.spec.variant.0.name().into(),
            algorithm: r.spec.algorithm.0.name().into(),
            suits: r.spec.suits,
            ranks: r.spec.ranks,
            deal: r.spec.deal_seed.map(|seed| DealSpec {
                seed: seed as u64,
                suits: r.spec.suits as usize,
                ranks: r.spec.ranks as usize,
            }),
            seed: r.spec.search_seed,
            batch_id: r.spec.batch_id,
            verdict: r.verdict.map(|v| v.0.name().into()),
            stopped: r.stopped.map(|s| s.0.name().into()),
            used_algorithm: r.used_algorithm.map(|a| a.0.name().into()),
            cached: r.cached,
            error: r.error,
            attempts: r.attempts,
            node_id: r.node_id,
            created_by: r.spec.created_by,
            cancel_requested: r.cancel_requested,
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            progress: None,
        }
    }
}

/// A page of jobs.
#[derive(Serialize, Debug, ToSchema)]
pub struct JobPage {
    pub jobs: Vec<JobView>,
    /// Pass as `cursor` to get the next page; absent on the last page.
    pub next_cursor: Option<String>,
}

/// Counts with a win rate, its Wilson 95% interval and the bounds that count unknowns
/// as losses and as wins.
#[derive(Serialize, Debug, Clone, ToSchema, PartialEq)]
pub struct Rates {
    pub deals: i64,
    pub solvable: i64,
    pub unsolvable: i64,
    pub unknown: i64,
    /// solvable / deals.
    pub win_rate: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Wilson 95% low bound counting unknowns as losses (= `ci95_low`).
    pub unknown_as_loss_low: f64,
    /// Win rate counting unknowns as wins.
    pub unknown_as_win_rate: f64,
    /// Wilson 95% high bound counting unknowns as wins.
    pub unknown_as_win_high: f64,
}

impl Rates {
    /// Rates of these counts.
    pub fn new(solvable: i64, unsolvable: i64, unknown: i64) -> Rates {
        let deals = solvable + unsolvable + unknown;
        let n = deals.max(0) as u64;
        let (lo, hi) = wilson_95(solvable as u64, n);
        let wins_high = (solvable + unknown) as u64;
        let (_, hi_win) = wilson_95(wins_high, n);
        let rate = |k: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        Rates {
            deals,
            solvable,
            unsolvable,
            unknown,
            win_rate: rate(solvable as u64),
            ci95_low: lo,
            ci95_high: hi,
            unknown_as_loss_low: lo,
            unknown_as_win_rate: rate(wins_high),
            unknown_as_win_high: hi_win,
        }
    }
}

/// A batch and its progress.
#[derive(Serialize, Debug, ToSchema)]
pub struct BatchView {
    pub id: String,
    pub variant: String,
    pub algorithm: String,
    pub suits: i64,
    pub ranks: i64,
    pub seed: i64,
    pub count: i64,
    pub limits: Limits,
    pub created_at: String,
    /// Who created the batch (as `created_by` of a job).
    pub created_by: Option<String>,
    /// Jobs inserted so far (jobs are inserted in the background).
    pub jobs_created: i64,
    pub queued: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
    pub cancelled: i64,
    /// True when every job of the batch has ended.
    pub finished: bool,
    /// The batch's own win rate over its jobs with a verdict.
    pub rates: Rates,
}

impl BatchView {
    /// The view of `b` with counts `c`.
    pub fn new(b: BatchRow, c: BatchCounts) -> BatchView {
        let ended = c.done + c.failed + c.cancelled;
        BatchView {
            limits: Limits {
                nodes: b.spec.limit_nodes.map(|n| n as u64),
                time_ms: Some(b.spec.limit_time_ms as u64),
                table_mb: None,
                probes: b.spec.limit_probes.map(|n| n as u64),
                threads: Some(b.spec.threads as u64),
            },
            finished: b.materialized == b.spec.count && ended == b.spec.count,
            rates: Rates::new(c.solvable, c.unsolvable, c.unknown),
            id: b.spec.id,
            variant: b.spec.variant.0.name().into(),
            algorithm: b.spec.algorithm.0.name().into(),
            suits: b.spec.suits,
            ranks: b.spec.ranks,
            seed: b.spec.seed,
            count: b.spec.count,
            created_at: b.created_at,
            jobs_created: b.materialized,
            created_by: b.spec.created_by,
            queued: c.queued,
            running: c.running,
            done: c.done,
            failed: c.failed,
            cancelled: c.cancelled,
        }
    }
}

/// Mean and median effort of one (algorithm, verdict).
#[derive(Serialize, Debug, Clone, ToSchema, PartialEq)]
pub struct Effort {
    pub algorithm: String,
    pub verdict: String,
    pub jobs: usize,
    pub mean_nodes: f64,
    pub median_nodes: f64,
    pub mean_ms: f64,
    pub median_ms: f64,
}

/// One row of `GET /v1/stats/win-rates`.
#[derive(Serialize, Debug, Clone, ToSchema, PartialEq)]
pub struct WinRateRow {
    pub variant: String,
    pub suits: i64,
    pub ranks: i64,
    #[serde(flatten)]
    pub rates: Rates,
    /// Search effort of searched (not cached) jobs, by algorithm and verdict.
    pub effort: Vec<Effort>,
}

/// The validated parts shared by jobs and batches.
struct Common {
    variant: Variant,
    algorithm: Algorithm,
    limit_nodes: Option<i64>,
    limit_time_ms: i64,
    table_mb: Option<i64>,
    limit_probes: Option<i64>,
    threads: i64,
}

fn validate_common(
    variant: Option<&str>,
    algorithm: Option<&str>,
    limits: &Limits,
    config: &Config,
) -> Result<Common, ApiError> {
    let caps = &config.limits;
    let bad = |m: String| Err(ApiError::Unprocessable(m));
    let variant: Variant = match variant.unwrap_or("basic").parse() {
        Ok(v) => v,
        Err(e) => return bad(format!("variant: {e}")),
    };
    let algorithm: Algorithm = match algorithm.unwrap_or("auto").parse() {
        Ok(a) => a,
        Err(e) => return bad(format!("algorithm: {e}")),
    };
    if let Err(e) = resolve_algorithm(algorithm, variant) {
        return bad(format!("algorithm: {e}"));
    }
    if let Some(nodes) = limits.nodes {
        if nodes == 0 || nodes > caps.max_nodes {
            return bad(format!(
                "limits.nodes must be between 1 and {} (got {nodes})",
                caps.max_nodes
            ));
        }
    }
    let time_ms = limits.time_ms.unwrap_or(caps.default_time_ms);
    if time_ms == 0 || time_ms > caps.max_time_ms {
        return bad(format!(
            "limits.time_ms must be between 1 and {} (got {time_ms})",
            caps.max_time_ms
        ));
    }
    if let Some(probes) = limits.probes {
        if !matches!(
            resolve_algorithm(algorithm, variant),
            Ok(Algorithm::Sampling | Algorithm::Auto)
        ) {
            return bad(format!(
                "limits.probes applies to sampling, and to auto on common; not to {} on {}",
                algorithm.name(),
                variant.name()
            ));
        }
        if probes == 0 || probes > caps.max_probes {
            return bad(format!(
                "limits.probes must be between 1 and {} (got {probes})",
                caps.max_probes
            ));
        }
    }
    let resolved = resolve_algorithm(algorithm, variant);
    if let Some(mb) = limits.table_mb {
        let (cap, what) = if resolved == Ok(Algorithm::Exact) {
            (config.solver.exact_memory_mb, "the exact searches' memory")
        } else {
            (config.solver.table_mb, "the solvers' table")
        };
        if mb == 0 || mb > cap as u64 {
            return bad(format!(
                "limits.table_mb must be between 1 and {cap} ({what}; got {mb})"
            ));
        }
    }
    let threads = limits.threads.unwrap_or(1);
    let max_threads = config.max_job_threads();
    if threads == 0 || threads > max_threads as u64 {
        return bad(format!(
            "limits.threads must be between 1 and {max_threads} (got {threads})"
        ));
    }
    if threads > 1 && !matches!(resolved, Ok(Algorithm::Blocks | Algorithm::Exact)) {
        return bad(format!(
            "limits.threads above 1 applies to blocks and exact only, not to {} on {}",
            algorithm.name(),
            variant.name()
        ));
    }
    Ok(Common {
        variant,
        algorithm,
        limit_nodes: limits.nodes.map(|n| n as i64),
        limit_time_ms: time_ms as i64,
        table_mb: limits.table_mb.map(|n| n as i64),
        limit_probes: limits.probes.map(|n| n as i64),
        threads: threads as i64,
    })
}

fn layout(suits: usize, ranks: usize) -> Result<Layout, ApiError> {
    Layout::new(suits, ranks).map_err(|e| ApiError::Unprocessable(format!("deal: {e}")))
}

impl DealSpec {
    /// The deal's starting position, or what is wrong with the request.
    pub fn position(&self) -> Result<Position, ApiError> {
        deal_seed(self.seed)?;
        Ok(deal(self.seed, layout(self.suits, self.ranks)?))
    }
}

fn deal_seed(seed: u64) -> Result<i64, ApiError> {
    i64::try_from(seed)
        .map_err(|_| ApiError::Unprocessable(format!("deal seed {seed} is above 2^63-1")))
}

impl JobRequest {
    /// The job this request asks for, or what is wrong with it.
    pub fn validate(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewJob, ApiError> {
        let common = validate_common(
            self.variant.as_deref(),
            self.algorithm.as_deref(),
            &self.limits,
            config,
        )?;
        let seed = self.seed.unwrap_or(0);
        let search_seed = i64::try_from(seed)
            .map_err(|_| ApiError::Unprocessable(format!("seed {seed} is above 2^63-1")))?;
        let (position, deal_number): (Position, Option<i64>) = match (&self.position, &self.deal) {
            (Some(_), Some(_)) => {
                return Err(ApiError::Unprocessable(
                    "give either `position` or `deal`, not both".into(),
                ))
            }
            (None, None) => {
                return Err(ApiError::Unprocessable(
                    "give a `position` (notation) or a `deal` ({\"seed\": N})".into(),
                ))
            }
            (Some(text), None) => (
                parse_position(text)
                    .map_err(|e| ApiError::Unprocessable(format!("position: {e}")))?,
                None,
            ),
            (None, Some(d)) => (d.position()?, Some(deal_seed(d.seed)?)),
        };
        let l = position.layout();
        Ok(NewJob {
            id,
            variant: Stored(common.variant),
            algorithm: Stored(common.algorithm),
            position: Stored(position),
            suits: l.suits() as i64,
            ranks: l.ranks() as i64,
            deal_seed: deal_number,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            table_mb: common.table_mb,
            search_seed,
            batch_id: None,
            limit_probes: common.limit_probes,
            threads: common.threads,
            created_by: Some(created_by.to_string()),
        })
    }
}

impl BatchRequest {
    /// The batch this request asks for, or what is wrong with it.
    pub fn validate(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewBatch, ApiError> {
        let caps = &config.limits;
        let common = validate_common(
            self.variant.as_deref(),
            self.algorithm.as_deref(),
            &self.limits,
            config,
        )?;
        if self.limits.table_mb.is_some() {
            return Err(ApiError::Unprocessable(
                "limits.table_mb is not supported for batches".into(),
            ));
        }
        layout(self.suits, self.ranks)?;
        if self.count == 0 || self.count > caps.max_batch_deals {
            return Err(ApiError::Unprocessable(format!(
                "count must be between 1 and {} (got {})",
                caps.max_batch_deals, self.count
            )));
        }
        let last = self
            .seed
            .checked_add(self.count - 1)
            .filter(|&s| s <= i64::MAX as u64);
        if last.is_none() {
            return Err(ApiError::Unprocessable(
                "seed + count - 1 must not exceed 2^63-1".into(),
            ));
        }
        Ok(NewBatch {
            id,
            variant: Stored(common.variant),
            algorithm: Stored(common.algorithm),
            suits: self.suits as i64,
            ranks: self.ranks as i64,
            seed: self.seed as i64,
            count: self.count as i64,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            limit_probes: common.limit_probes,
            threads: common.threads,
            created_by: Some(created_by.to_string()),
        })
    }
}
