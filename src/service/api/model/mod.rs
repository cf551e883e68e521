//! The JSON shapes of the HTTP API (docs/http.md); their validation is in
//! `validate`, the configuration-dependent parts of their schema in `schema`.
//!
//! Invariants: a request becomes a `NewJob` only through [`JobRequest::validate`],
//! which parses the position with the engine (the only parse of it: from here on it is
//! a `Position`, text again only in the database and in JSON); a field the schema
//! declares non-null (`position`, `deal`) refuses an explicit `null`, so what the
//! document calls invalid is refused.

mod batch;
pub use batch::BatchGames;
mod number_schema;
mod schema;
mod validate;

mod job_view;
mod life_view;
mod morpion;
mod odds;
mod pysol;
pub use job_view::JobView;
pub use life_view::{LifeView, Progress, QueueView};
pub use morpion::{
    AnyBatchRequest, AnyJobRequest, AnyJobView, MorpionJobRequest, MorpionJobView, MorpionLimits,
};
pub use odds::{OddsBatchRequest, OddsJobRequest, OddsJobView, OddsLimits, OddsSpec};
pub use pysol::{PysolBatchSpec, PysolSpec, PysolView};
pub use schema::{is_cursor, openapi_document, MAX_WAIT_QUERY_MS};
pub use validate::pysol_variant;

use crate::report::{wilson_95, StepJson};
use crate::service::store::{BatchCounts, BatchRow};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A request body as its type: a JSON object of the type's shape, or a 422 naming the
/// field. Every request body is an object: serde would otherwise take an array for a
/// struct, field by field, which the OpenAPI document does not allow.
pub fn from_json<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, crate::service::api::error::ApiError> {
    use crate::service::api::error::ApiError;
    if !value.is_object() {
        return Err(ApiError::Unprocessable(
            "the body must be a JSON object".into(),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        ApiError::Unprocessable(format!(
            "Failed to deserialize the JSON body into the target type: {e}"
        ))
    })
}

/// A whole number: JSON Schema's `integer`, which includes `10.0`.
fn whole<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
    let WholeNumber(n) = WholeNumber::deserialize(d)?;
    T::try_from(n).map_err(|_| serde::de::Error::custom(format!("{n} is too large")))
}

/// An optional whole number (`null` or absent: none).
fn whole_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Option::<WholeNumber>::deserialize(d)?.map(|WholeNumber(n)| n))
}

/// A non-negative whole number given as an integer or as a float without a fraction.
struct WholeNumber(u64);

impl<'de> Deserialize<'de> for WholeNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = WholeNumber;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-negative whole number")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<WholeNumber, E> {
                Ok(WholeNumber(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<WholeNumber, E> {
                u64::try_from(v)
                    .map(WholeNumber)
                    .map_err(|_| E::custom(format!("{v} is negative")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<WholeNumber, E> {
                // 2^64 is exact in f64; below it every whole f64 converts exactly.
                if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
                    Ok(WholeNumber(v as u64))
                } else {
                    Err(E::custom(format!("{v} is not a non-negative whole number")))
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// An optional object that may be absent but not `null`.
fn present_object<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    object(d).map(Some)
}

/// An optional string that may be absent but not `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// A struct given as a JSON object only (serde would also take an array, field by
/// field, which the OpenAPI document does not allow).
fn object<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(d: D) -> Result<T, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    if !value.is_object() {
        return Err(serde::de::Error::custom("expected a JSON object"));
    }
    // Keep the inner field's name in the message (`deal: seed: ...`).
    serde_path_to_error::deserialize(value).map_err(serde::de::Error::custom)
}

/// A numbered deal.
#[derive(Deserialize, Serialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealSpec {
    /// Deal number (0 ..= 2^63-1), as printed by `gaps deal --seed N`.
    #[schema(maximum = 9_223_372_036_854_775_807_u64)]
    #[serde(deserialize_with = "whole")]
    pub seed: u64,
    /// Suits (1..8, default 4).
    #[serde(default = "default_suits", deserialize_with = "whole")]
    #[schema(minimum = 1, maximum = 8)]
    pub suits: usize,
    /// Ranks (3..13, default 13).
    #[serde(default = "default_ranks", deserialize_with = "whole")]
    #[schema(minimum = 3, maximum = 13)]
    pub ranks: usize,
}

fn default_suits() -> usize {
    4
}
fn default_ranks() -> usize {
    13
}

/// Search limits; reaching one gives the verdict `unknown`. Their ranges are the
/// engine's (`gaps_engine::Limit`), narrowed by the configuration: `schema` writes them
/// into the OpenAPI document and `validate` checks them.
#[derive(Deserialize, Serialize, Debug, Clone, Default, PartialEq, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Node limit.
    #[serde(default, deserialize_with = "whole_opt")]
    pub nodes: Option<u64>,
    /// Time limit in milliseconds (default and cap from configuration).
    #[serde(default, deserialize_with = "whole_opt")]
    pub time_ms: Option<u64>,
    /// Transposition-table budget in MiB (default: the engine's for the variant; capped
    /// by the solver threads' table). For `exact`, the visited set's budget (default: the
    /// solver threads' table; capped by the memory the exact searches share).
    #[serde(default, deserialize_with = "whole_opt")]
    pub table_mb: Option<u64>,
    /// Random probes of `sampling` (default 10^6), or of the sampling phase of `auto`
    /// on `common` (default 10^5).
    #[serde(default, deserialize_with = "whole_opt")]
    pub probes: Option<u64>,
    /// Threads of this one search (more than 1 only for `blocks`, `exact`, `hybrid` and
    /// `auto` on `common`, up to the configured maximum, which is also their default;
    /// 1 for the others). The job gets the pool's idle threads up to this number when
    /// it starts; `stats.threads` says how many it had.
    #[serde(default, deserialize_with = "whole_opt")]
    pub threads: Option<u64>,
}

/// `POST /v1/jobs`: a position or a numbered deal, with variant, algorithm and limits.
#[derive(Deserialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JobRequest {
    /// A position or deal in the notation of docs/notation.md (exclusive with `deal`).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = String)]
    pub position: Option<String>,
    /// A numbered deal (exclusive with `position`).
    #[serde(default, deserialize_with = "present_object")]
    #[schema(value_type = DealSpec)]
    pub deal: Option<DealSpec>,
    /// A game of PySolFC by its number (exclusive with `position` and `deal`); its first
    /// round is solved, under the game's variant.
    #[serde(default, deserialize_with = "present_object")]
    #[schema(value_type = PysolSpec)]
    pub pysol: Option<PysolSpec>,
    /// `basic` (default) or `common`.
    pub variant: Option<String>,
    /// `auto` (default), `dfs`, `sampling`, `hybrid`, `blocks`, `assign` or `exact`.
    pub algorithm: Option<String>,
    /// Search limits.
    #[serde(default, deserialize_with = "object")]
    pub limits: Limits,
    /// Seed of randomised algorithms (default 0), recorded with the result.
    #[schema(maximum = 9_223_372_036_854_775_807_u64)]
    #[serde(default, deserialize_with = "whole_opt")]
    pub seed: Option<u64>,
    /// Redeals the player may use, 0..2, under PySolFC's rule (docs/notation.md,
    /// "Redeals"); default 2 for `pysol`, 0 otherwise. Needs `deal` or `pysol`: a redeal
    /// is shuffled by the deal's own generator. The solution then holds `{"redeal": k}`
    /// steps.
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(minimum = 0, maximum = 2)]
    pub redeals: Option<u64>,
    /// A game in progress (docs/notation.md, "A game in progress"): the steps played
    /// since the deal, in solution-step form (moves `{"card", "from", "to"}`, redeals
    /// `{"redeal": k}`), on the board the game is shown on (a PySolFC game's board). The
    /// answer is then about the position they reach, with the redeals left. At most
    /// 5000 steps.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>, max_items = 5000)]
    pub played: Option<Vec<StepJson>>,
    /// Review the played steps (none without `played`: the deal alone), answering
    /// `review` (the first step after which the game could no longer be won). Each
    /// position searched gets the limits.
    #[serde(default)]
    pub review: Option<bool>,
    /// Ask for the odds of winning when the shuffles of the redeals are unknown
    /// (docs/http.md, "Odds jobs"): a job of its own kind (`"game": "odds"`), of a
    /// `position` or `deal` (a game in progress with `played`) under `variant` with
    /// `redeals` (default 2; a bare position may have redeals here), `seed` seeding the
    /// sampled shuffles; `limits.nodes` and `limits.time_ms` bound the whole answer.
    /// In the OpenAPI document as a request of its own, `OddsJobRequest`.
    #[serde(default, deserialize_with = "odds::odds_spec")]
    #[schema(ignore)]
    pub odds: Option<OddsSpec>,
}

/// `POST /v1/batches`: deals `seed .. seed+count-1` of one variant and size, or the
/// PySolFC games `pysol.from .. pysol.from+pysol.count-1`, or `games`, each a job
/// request of its own (games in progress among them).
#[derive(Deserialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// `basic` (default) or `common`; with `pysol`, the game's (it may be repeated).
    pub variant: Option<String>,
    /// Algorithm (default `auto`).
    pub algorithm: Option<String>,
    /// Suits (1..8, default 4); not with `pysol`.
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(minimum = 1, maximum = 8)]
    pub suits: Option<u64>,
    /// Ranks (3..13, default 13); not with `pysol`.
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(minimum = 3, maximum = 13)]
    pub ranks: Option<u64>,
    /// First deal number (default 0; at most 2^63 - `limits.max_batch_deals`); not with
    /// `pysol`.
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(maximum = 9_223_372_036_854_775_807_u64)]
    pub seed: Option<u64>,
    /// Number of deals (1 ..= configured maximum); required unless `pysol` is given.
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(minimum = 1)]
    pub count: Option<u64>,
    /// PySolFC games instead of numbered deals.
    #[serde(default)]
    pub pysol: Option<PysolBatchSpec>,
    /// Limits of each job.
    #[serde(default, deserialize_with = "object")]
    pub limits: Limits,
    /// Redeals each job may use, 0..2 (default 2 for `pysol`, 0 otherwise).
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(minimum = 0, maximum = 2)]
    pub redeals: Option<u64>,
    /// The batch's games one by one, each a `POST /v1/jobs` body (a position, deal or
    /// PySolFC game with its own variant, limits and redeals; with `played` and
    /// `review` a game in progress), 1 to 1000 of them; exclusive with every other
    /// field. Each is checked as a job is (a 422 names the item), and all are queued
    /// with the batch. Not in the OpenAPI document: with it (items `JobRequest`, and a
    /// third way beside `count` and `pysol`) the body is one that schemathesis' schema
    /// canonicaliser gives up on (`UnsupportedSchema`, also as a top-level `oneOf` of
    /// two request schemas), so the fuzzing of `POST /v1/batches` would stop;
    /// docs/http.md describes it.
    #[serde(default)]
    #[schema(ignore)]
    pub games: Option<Vec<JobRequest>>,
    /// The odds of each deal when the shuffles of its redeals are unknown (docs/http.md,
    /// "Odds jobs"): a batch of odds jobs of deals `seed .. seed+count-1` under
    /// `variant` with `redeals` (default 2); not with `pysol`, `algorithm`, or limits
    /// other than `nodes` and `time_ms`. In the OpenAPI document as a request of its
    /// own, `OddsBatchRequest`.
    #[serde(default, deserialize_with = "odds::odds_spec")]
    #[schema(ignore)]
    pub odds: Option<OddsSpec>,
}

/// Query of `GET`/`POST` that may wait for the job to finish.
#[derive(Deserialize, Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    /// Wait up to this many milliseconds for the job to finish. A larger value waits
    /// `limits.max_wait_ms` (then ask again); a request answered while the node's
    /// waits are all taken does not wait. The answer's `gaps-wait-ms` header says the
    /// wait used.
    #[param(minimum = 0)]
    pub wait_ms: Option<u64>,
}

/// Query of `GET /v1/jobs`.
#[derive(Deserialize, Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `gaps`, `morpion` or `odds` (default: jobs of every kind).
    pub game: Option<String>,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    pub state: Option<String>,
    /// A Gaps variant: `basic` or `common` (only Gaps jobs then).
    pub variant: Option<String>,
    /// `solvable`, `unsolvable` or `unknown` (only Gaps jobs then).
    pub verdict: Option<String>,
    /// Only jobs of this batch.
    pub batch: Option<String>,
    /// Page size.
    #[param(minimum = 1)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A page of jobs.
#[derive(Serialize, Debug, ToSchema)]
pub struct JobPage {
    /// Jobs of every game (a Gaps job or a Morpion proof, told apart by `game`).
    pub jobs: Vec<AnyJobView>,
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
    /// The first deal number (with `pysol`: the first game number, up to 10^20: an
    /// integer up to 2^64-1, digits above).
    #[serde(serialize_with = "crate::report::serialize_game_number")]
    #[schema(value_type = u64)] // `openapi_document` writes the schema.
    pub seed: u128,
    pub count: i64,
    /// The PySolFC games of the batch, if it was given as games.
    pub pysol: Option<PysolBatchSpec>,
    /// Whether it was given as `games`, one job request each (then `variant`, `suits`,
    /// `ranks`, `limits` and `redeals` are its first game's, and `seed` is 0).
    pub games: bool,
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
    /// The batch's own win rate over its jobs with a verdict (none in a batch of odds
    /// jobs: its results give each deal's bounds).
    pub rates: Rates,
    /// A batch of odds jobs: the samples of each.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub odds: Option<OddsSpec>,
    /// A batch of odds jobs: its bounds over the deals answered so far (each the mean
    /// of the deals' chances, with a normal 95% interval over the deals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub odds_summary: Option<crate::service::store::OddsSummary>,
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
            odds_summary: None,
            odds: b.spec.odds_samples.map(|samples| OddsSpec {
                samples: Some(samples as u64),
            }),
            pysol: b.spec.pysol_game.clone().map(|game| PysolBatchSpec {
                game,
                from: b.spec.pysol_from.map_or(0, |from| from.0),
                count: b.spec.count as u64,
            }),
            id: b.spec.id,
            variant: b.spec.variant.0.to_string(),
            algorithm: b.spec.algorithm.0.name().into(),
            suits: b.spec.suits,
            ranks: b.spec.ranks,
            seed: match b.spec.pysol_from {
                Some(from) => from.0,
                None => b.spec.seed as u128,
            },
            count: b.spec.count,
            created_at: b.created_at,
            jobs_created: b.materialized,
            games: b.spec.games,
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
    /// What the row counts: `positions`, each distinct (variant, position) of this size
    /// once, however it was submitted (text, numbered deal or PySolFC game); or
    /// `pysol-GAME` (`pysol-montana`, `pysol-blue-moon`), each number of that PySolFC
    /// game submitted once, apart from our own numbering.
    pub source: String,
    pub variant: String,
    pub suits: i64,
    pub ranks: i64,
    /// Redeals the row's searches could use: 0 for the first-round rows (`positions`
    /// and `pysol-GAME` counted from positions' verdicts); otherwise a row of the deals
    /// searched with that many redeals, each deal once (`pysol-GAME`, or `deals` for
    /// this project's numbered deals).
    pub redeals: i64,
    #[serde(flatten)]
    pub rates: Rates,
    /// Search effort of searched (not cached) jobs, by algorithm and verdict (for
    /// `positions` rows; empty for `pysol-GAME` rows).
    pub effort: Vec<Effort>,
}
