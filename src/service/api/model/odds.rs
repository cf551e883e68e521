//! The JSON shapes of odds jobs (`POST /v1/jobs` with `"odds": {"samples": N}`,
//! docs/http.md, "Odds jobs") and their validation.
//!
//! Invariants: a request becomes a [`NewOddsJob`] only through
//! [`JobRequest::validate_odds`], which parses the position with the engine, checks
//! samples and redeals with the command line's rule (`crate::request::odds`) and
//! replays the played steps under the variant's rules (an illegal one is a 422 naming
//! it); what an odds job does not take (a PySolFC game, an algorithm, a review, probes,
//! a table size, threads) is refused by name, never ignored. The limits have the Gaps
//! jobs' caps from configuration.

use super::validate::{deal_seed, validate_common, Common, MAX_PLAYED_STEPS};
use super::{object, whole_opt, DealSpec, JobRequest, LifeView, Limits, Progress};
use crate::odds::OddsGame;
use crate::played::{canonical_steps, played_steps};
use crate::report::odds::{OddsJson, OddsPart};
use crate::report::StepJson;
use crate::request::odds::{OddsAsk, OddsChoice};
use crate::service::api::error::ApiError;
use crate::service::config::Config;
use crate::service::job::{Game, JobState, Stored};
use crate::service::store::{NewOddsJob, OddsJobRow};
use gaps_engine::{parse_position, DealSource, Variant};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use utoipa::ToSchema;

/// What an odds job asks beside the position: `{"samples": N}`.
#[derive(Deserialize, Serialize, Debug, Clone, Default, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OddsSpec {
    /// Sequences of shuffles sampled (1 to 10^6, default 100).
    #[serde(default, deserialize_with = "whole_opt")]
    #[schema(minimum = 1, maximum = 1_000_000)]
    pub samples: Option<u64>,
}

/// `POST /v1/jobs` with `"odds"`: the odds of winning a position, a numbered deal or a
/// game in progress when the shuffles of its redeals are unknown (docs/http.md, "Odds
/// jobs"). For the OpenAPI document only: the handler reads the body as a
/// `JobRequest` and `JobRequest::validate_odds` checks it; `schema::odds_requests`
/// states what it does not take.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct OddsJobRequest {
    /// A position or deal in the notation of docs/notation.md (exclusive with `deal`);
    /// a bare position may have redeals here.
    #[schema(value_type = String)]
    position: Option<String>,
    /// A numbered deal (exclusive with `position`).
    #[schema(value_type = DealSpec)]
    deal: Option<DealSpec>,
    /// `basic` (default), `common` or `aisleriot`: the redeal rule the shuffles are
    /// played under.
    variant: Option<String>,
    /// `nodes` and `time_ms`, which bound the whole answer (every sample).
    limits: Limits,
    /// Seed of the sampled shuffles (default 0), recorded with the answer.
    #[schema(maximum = 9_223_372_036_854_775_807_u64)]
    seed: Option<u64>,
    /// Redeals of the game in all, 0..2 (default 2).
    #[schema(minimum = 0, maximum = 2)]
    redeals: Option<u64>,
    /// A game in progress: the steps played since the deal, as for a Gaps job.
    #[schema(value_type = Option<Vec<Object>>, max_items = 5000)]
    played: Option<Vec<StepJson>>,
    /// How many sequences of shuffles to sample.
    odds: OddsSpec,
}

/// `POST /v1/batches` with `"odds"`: the odds of deals `seed .. seed+count-1` when the
/// shuffles of their redeals are unknown, one odds job a deal. For the OpenAPI document
/// only: the handler reads the body as a `BatchRequest`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct OddsBatchRequest {
    /// `basic` (default), `common` or `aisleriot`.
    variant: Option<String>,
    /// Suits (1..8, default 4).
    #[schema(minimum = 1, maximum = 8)]
    suits: Option<u64>,
    /// Ranks (3..13, default 13).
    #[schema(minimum = 3, maximum = 13)]
    ranks: Option<u64>,
    /// First deal number (default 0; at most 2^63 - `limits.max_batch_deals`).
    #[schema(maximum = 9_223_372_036_854_775_807_u64)]
    seed: Option<u64>,
    /// Number of deals (1 ..= configured maximum).
    #[schema(minimum = 1)]
    count: u64,
    /// `nodes` and `time_ms` of each job.
    limits: Limits,
    /// Redeals of each game in all, 0..2 (default 2).
    #[schema(minimum = 0, maximum = 2)]
    redeals: Option<u64>,
    /// How many sequences of shuffles each job samples.
    odds: OddsSpec,
}

/// Parses `"odds"` as an object only (as every nested request object).
pub(super) fn odds_spec<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<OddsSpec>, D::Error> {
    object(d).map(Some)
}

/// What an odds job or batch asks beside its deals: checked once for both.
pub(super) struct OddsAsked<'a> {
    pub(super) variant: Option<&'a str>,
    pub(super) algorithm: Option<&'a str>,
    pub(super) review: Option<bool>,
    pub(super) limits: &'a Limits,
    pub(super) samples: Option<u64>,
    pub(super) redeals: Option<u64>,
    pub(super) pysol: bool,
}

impl OddsAsked<'_> {
    /// The variant, limits, samples and redeals asked, or a 422 naming the field: what
    /// an odds job does not take is refused by name.
    pub(super) fn check(&self, config: &Config) -> Result<(Variant, Common, OddsChoice), ApiError> {
        let bad = |m: String| ApiError::Unprocessable(m);
        let not_taken = |field: &str, why: &str| {
            Err(bad(format!(
                "{field}: an odds job does not take it ({why})"
            )))
        };
        if self.algorithm.is_some() {
            return not_taken("algorithm", "each round is searched by `auto`");
        }
        if self.review.is_some() {
            return not_taken("review", "a review is a Gaps job's");
        }
        let limits = self.limits;
        if limits.probes.is_some() || limits.table_mb.is_some() || limits.threads.is_some() {
            return not_taken(
                "limits",
                "only `nodes` and `time_ms`, which bound the whole answer",
            );
        }
        let ask = OddsAsk {
            samples: self.samples,
            redeals: self.redeals,
            pysol: self.pysol,
        };
        let choice = ask.check().map_err(|refusal| bad(refusal.for_api()))?;
        let variant: Variant = self
            .variant
            .unwrap_or("basic")
            .parse()
            .map_err(|e| bad(format!("variant: {e}")))?;
        let common = validate_common(Some(variant.name()), None, limits, config)?;
        Ok((variant, common, choice))
    }
}

impl JobRequest {
    /// The odds job this request asks for, or what is wrong with it (a 422 naming the
    /// field).
    pub fn validate_odds(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewOddsJob, ApiError> {
        let bad = |m: String| ApiError::Unprocessable(m);
        let asked = OddsAsked {
            variant: self.variant.as_deref(),
            algorithm: self.algorithm.as_deref(),
            review: self.review,
            limits: &self.limits,
            samples: self.odds.as_ref().and_then(|odds| odds.samples),
            redeals: self.redeals,
            pysol: self.pysol.is_some(),
        };
        let (variant, common, choice) = asked.check(config)?;
        let seed = self.seed.unwrap_or(0);
        let search_seed =
            i64::try_from(seed).map_err(|_| bad(format!("seed {seed} is above 2^63-1")))?;
        let (source, deal_number) = match (&self.position, &self.deal) {
            (Some(_), Some(_)) => {
                return Err(bad("give one of `position` and `deal`, not both".into()))
            }
            (None, None) => {
                return Err(bad(
                    "give a `position` (notation) or a `deal` ({\"seed\": N})".into(),
                ))
            }
            (Some(text), None) => {
                let position = parse_position(text).map_err(|e| bad(format!("position: {e}")))?;
                (DealSource::Position(position), None)
            }
            (None, Some(deal)) => (deal.source()?, Some(deal_seed(deal.seed)?)),
        };
        let played = match &self.played {
            None => None,
            Some(steps) if steps.len() > MAX_PLAYED_STEPS => {
                return Err(bad(format!(
                    "played: at most {MAX_PLAYED_STEPS} steps (got {})",
                    steps.len()
                )))
            }
            Some(steps) => {
                let parsed = played_steps(steps).map_err(|e| bad(format!("played: {e}")))?;
                OddsGame::new(source, variant, choice.redeals.get(), Some(steps))
                    .map_err(|e| bad(format!("played: {e}")))?;
                Some(Json(canonical_steps(&parsed)))
            }
        };
        let start = source.start();
        let layout = start.layout();
        Ok(NewOddsJob {
            id,
            variant: Stored(variant),
            position: Stored(start),
            suits: layout.suits() as i64,
            ranks: layout.ranks() as i64,
            deal_seed: deal_number,
            redeals: choice.redeals,
            played,
            samples: i64::from(choice.samples),
            search_seed,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            created_by: Some(created_by.to_string()),
            batch_id: None,
        })
    }
}

/// The limits of an odds job: they bound the whole answer (every sample).
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct OddsLimits {
    pub nodes: Option<u64>,
    pub time_ms: u64,
}

/// An odds job as returned by the API: its life, what it asks and, once done, the
/// answer `gaps odds --json` prints for the same request (`odds` and the fields beside
/// it; `position` stays the deal's start, and the position the odds are of is
/// `played_position` for a game in progress).
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct OddsJobView {
    #[serde(flatten)]
    pub life: LifeView,
    /// The deal's start, canonical.
    pub position: String,
    /// `basic`, `common` or `aisleriot`: the redeal rule the shuffles are played under.
    pub variant: String,
    pub suits: i64,
    pub ranks: i64,
    /// The numbered deal, if the job was submitted as one.
    pub deal: Option<DealSpec>,
    /// Redeals of the game in all.
    pub redeals: u8,
    /// Samples asked for.
    pub samples: i64,
    /// Seed of the sampled shuffles.
    pub seed: i64,
    pub limits: OddsLimits,
    pub batch_id: Option<String>,
    /// A game in progress: the steps played since the deal (canonical).
    #[schema(value_type = Option<Vec<Object>>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played: Option<Vec<StepJson>>,
    /// True when the answer came from an earlier job that asked the same.
    pub cached: bool,
    /// Once done: `lower`, `upper`, `exact`, `hint`, `policy` (docs/http.md, "Odds
    /// jobs").
    #[schema(value_type = Option<Object>)]
    pub odds: Option<OddsPart>,
    /// Once done, for a game in progress: the position the odds are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played_position: Option<String>,
    /// Once done: redeals left at the position the odds are of.
    pub redeals_left: Option<u8>,
    /// Once done: the round in play searched alone: true (won), false (proved lost).
    pub round_won: Option<bool>,
    /// Once done: distinct redeals the round in play offers, as far as enumerated.
    pub redeal_points: Option<usize>,
    /// Once done: whether every position of the round in play was enumerated.
    pub round_complete: Option<bool>,
    /// Once done: cards kept in place by the strategy's first redeal.
    pub redeal_kept: Option<usize>,
    /// Why sampling ended before every sample, if it did (`node_limit`, `time_limit`,
    /// `cancelled`).
    pub stopped: Option<String>,
    pub nodes: Option<i64>,
    pub elapsed_ms: Option<f64>,
}

impl From<OddsJobRow> for OddsJobView {
    fn from(r: OddsJobRow) -> Self {
        let progress = (r.life.state == JobState::Running).then_some(Progress {
            nodes: r.life.progress_nodes as u64,
        });
        let (stopped, nodes, elapsed_ms) = (
            r.life.stopped.map(|s| s.0.name().to_string()),
            r.life.nodes,
            r.life.elapsed_ms,
        );
        let spec = r.spec;
        let mut life = LifeView::of(spec.id, Game::Odds, r.life, spec.created_by);
        life.progress = progress;
        let start = spec.position.0.to_string();
        let answer: Option<OddsJson> = r.odds_answer.map(|json| json.0);
        let played_position = answer
            .as_ref()
            .filter(|_| spec.played.is_some())
            .map(|a| a.position.clone());
        OddsJobView {
            life,
            variant: spec.variant.0.to_string(),
            suits: spec.suits,
            ranks: spec.ranks,
            deal: spec.deal_seed.map(|seed| DealSpec {
                seed: seed as u64,
                suits: spec.suits as usize,
                ranks: spec.ranks as usize,
            }),
            redeals: spec.redeals.get(),
            samples: spec.samples,
            seed: spec.search_seed,
            limits: OddsLimits {
                nodes: spec.limit_nodes.map(|n| n as u64),
                time_ms: spec.limit_time_ms as u64,
            },
            batch_id: spec.batch_id,
            played: spec.played.map(|steps| steps.0),
            cached: r.cached,
            played_position,
            redeals_left: answer.as_ref().map(|a| a.redeals),
            round_won: answer.as_ref().and_then(|a| a.round_won),
            redeal_points: answer.as_ref().map(|a| a.redeal_points),
            round_complete: answer.as_ref().map(|a| a.round_complete),
            redeal_kept: answer.as_ref().and_then(|a| a.redeal_kept),
            odds: answer.map(|a| a.odds),
            position: start,
            stopped,
            nodes,
            elapsed_ms,
        }
    }
}
