//! The validation of requests: a [`JobRequest`] becomes a [`NewJob`] only here, and
//! the parts every request shares (variant, algorithm, limits, redeals, the board
//! games' own rules) are checked here for jobs and batches alike (a batch request's
//! own checks: `batch.rs`).
//!
//! Invariants: every limit is capped from configuration with the same bounds that
//! [`super::openapi_document`] writes into the OpenAPI document; anything wrong is an
//! [`ApiError::Unprocessable`] naming the field, and nothing is stored.

use super::{DealSpec, JobRequest, Limits, PysolSpec};
use crate::played::{canonical_steps, played_steps, GameInProgress, PlayedInputError};
use crate::report::StepJson;
use crate::request::board::{BoardAsk, BoardChoice};
use crate::request::rounds;
use crate::request::rounds::RedealCount;
use crate::service::api::error::ApiError;
use crate::service::config::Config;
use crate::service::job::subject::{JobPosition, JobPysol, JobVariant};
use crate::service::job::Stored;
use crate::service::store::NewJob;
use gaps_engine::DealSource;
use gaps_engine::{
    check_request, parse_position, runs_on_threads, sizes_memory, Algorithm, Layout, Limit,
    OptionError,
};
use gaps_engine::{BoardDeal, Position, PysolGame, Variant};
use sqlx::types::Json;

/// The most played steps a request may give (a game is a few hundred at most; cycles
/// could make it longer, never usefully).
pub const MAX_PLAYED_STEPS: usize = 5000;

/// The validated parts shared by jobs and batches.
pub(super) struct Common {
    pub(super) variant: Variant,
    pub(super) algorithm: Algorithm,
    pub(super) limit_nodes: Option<i64>,
    pub(super) limit_time_ms: i64,
    pub(super) table_mb: Option<i64>,
    pub(super) limit_probes: Option<i64>,
    pub(super) threads: i64,
}

pub(super) fn validate_common(
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
    let field = |limit: Limit| format!("limits.{}", limit.name());
    let check = |limit: Limit, value: u64, cap: u64| {
        limit
            .check(value, Some(cap))
            .map_err(|e| ApiError::Unprocessable(e.message(field)))
    };
    if let Some(nodes) = limits.nodes {
        check(Limit::Nodes, nodes, caps.max_nodes)?;
    }
    let time_ms = limits.time_ms.unwrap_or(caps.default_time_ms);
    check(Limit::TimeMs, time_ms, caps.max_time_ms)?;
    // A search that runs on threads gets the pool's threads unless it names a number: a
    // lone hard search then has the whole node, as `gaps solve` has the whole machine
    // (the measurement behind this default is in docs/performance.md).
    let threads =
        limits
            .threads
            .unwrap_or_else(|| match check_request(algorithm, variant, None, 1) {
                Ok(resolved) if runs_on_threads(resolved) => config.max_job_threads() as u64,
                _ => 1,
            });
    check(Limit::Threads, threads, config.max_job_threads() as u64)?;
    match check_request(algorithm, variant, limits.probes, threads) {
        Ok(_) => {}
        Err(e @ OptionError::UnsupportedVariant { .. }) => {
            return bad(format!("algorithm: {}", e.message(field)));
        }
        Err(e) => return bad(e.message(field)),
    }
    if let Some(probes) = limits.probes {
        check(Limit::Probes, probes, caps.max_probes)?;
    }
    if let Some(mb) = limits.table_mb {
        let (cap, what) = if sizes_memory(algorithm, variant) {
            (config.search_memory_mb(), "the node's memory for searches")
        } else {
            (config.solver.table_mb, "the solvers' table")
        };
        // The range check, its message naming where the cap comes from.
        if let Err(OptionError::OutOfRange { max, .. }) = Limit::TableMb.check(mb, Some(cap as u64))
        {
            return bad(format!(
                "limits.table_mb must be between 1 and {max} ({what}; got {mb})"
            ));
        }
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

/// The redeals of a request for `source`, or a 422 naming the field (the rule the
/// command line applies too: `crate::request::rounds`).
pub fn redeals_of(
    asked: Option<u64>,
    source: &DealSource,
    variant: Variant,
) -> Result<RedealCount, ApiError> {
    rounds::redeal_count(asked, source, variant)
        .map_err(|refusal| ApiError::Unprocessable(refusal.for_api()))
}

pub(super) fn layout(suits: usize, ranks: usize) -> Result<Layout, ApiError> {
    Layout::new(suits, ranks).map_err(|e| ApiError::Unprocessable(format!("deal: {e}")))
}

impl DealSpec {
    /// The deal, or what is wrong with the request.
    pub fn source(&self) -> Result<DealSource, ApiError> {
        deal_seed(self.seed)?;
        Ok(DealSource::Numbered {
            seed: self.seed,
            layout: layout(self.suits, self.ranks)?,
        })
    }

    /// The deal's starting position, or what is wrong with the request.
    pub fn position(&self) -> Result<Position, ApiError> {
        Ok(self.source()?.start())
    }
}

/// A deal's `seed` as stored: one of our deal numbers (`request::deal_number`).
pub(super) fn deal_seed(seed: u64) -> Result<i64, ApiError> {
    crate::request::deal_number(u128::from(seed))
        .map(|n| n as i64)
        .map_err(|e| ApiError::Unprocessable(format!("deal.seed: {e}")))
}

impl JobRequest {
    /// The job this request asks for, or what is wrong with it.
    pub fn validate(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewJob, ApiError> {
        if self.odds.is_some() {
            // The front doors send such a request to `validate_odds`.
            return Err(ApiError::Unprocessable(
                "odds: the odds are a job of their own kind: `validate_odds` checks them".into(),
            ));
        }
        let pysol = match self.pysol.as_ref().map(PysolSpec::game).transpose()? {
            Some(JobPysol::Board(deal)) => return self.board_job(id, created_by, config, deal),
            Some(JobPysol::Position(deal)) => Some(deal),
            None => None,
        };
        let variant = match (pysol, self.variant.as_deref()) {
            (Some(game), named) => match named.map(str::parse::<Variant>).transpose() {
                Ok(parsed) => {
                    Some(pysol_variant(game.game, &format!("pysol {game}"), parsed)?.name())
                }
                // `validate_common` refuses an unknown name, naming it.
                Err(_) => named,
            },
            (None, named) => named,
        };
        let common = validate_common(variant, self.algorithm.as_deref(), &self.limits, config)?;
        let seed = self.seed.unwrap_or(0);
        let search_seed = i64::try_from(seed)
            .map_err(|_| ApiError::Unprocessable(format!("seed {seed} is above 2^63-1")))?;
        if let Some(game) = pysol {
            if self.position.is_some() || self.deal.is_some() {
                return Err(ApiError::Unprocessable(
                    "give one of `position`, `deal` and `pysol`, not several".into(),
                ));
            }
            let mut job = self.job(id, created_by, &common, game.position(), None, search_seed);
            job.pysol = Some(Stored(JobPysol::Position(game)));
            job.redeals = redeals_of(self.redeals, &DealSource::Pysol(game), game.variant())?;
            return self.with_played(job, |redeals, steps| {
                GameInProgress::replay(DealSource::Pysol(game), game.variant(), redeals, steps)
            });
        }
        let (position, deal_number, source) = match (&self.position, &self.deal) {
            (Some(_), Some(_)) => {
                return Err(ApiError::Unprocessable(
                    "give one of `position`, `deal` and `pysol`, not several".into(),
                ))
            }
            (None, None) => {
                return Err(ApiError::Unprocessable(
                    "give a `position` (notation), a `deal` ({\"seed\": N}) or a `pysol` game \
                     ({\"game\": \"montana\", \"number\": N})"
                        .into(),
                ))
            }
            (Some(text), None) => {
                let position = parse_position(text)
                    .map_err(|e| ApiError::Unprocessable(format!("position: {e}")))?;
                (position, None, DealSource::Position(position))
            }
            (None, Some(d)) => {
                let source = d.source()?;
                (source.start(), Some(deal_seed(d.seed)?), source)
            }
        };
        let mut job = self.job(id, created_by, &common, position, deal_number, search_seed);
        job.redeals = redeals_of(self.redeals, &source, common.variant)?;
        self.with_played(job, |redeals, steps| {
            GameInProgress::replay(source, common.variant, redeals, steps)
        })
    }

    /// `job` with the request's played steps, checked under the game's rules from its
    /// deal by `replay` (with the job's redeals; a 422 naming the step and why), or
    /// `job` as it is without them.
    fn with_played(
        &self,
        mut job: NewJob,
        replay: impl FnOnce(u8, &[StepJson]) -> Result<GameInProgress, PlayedInputError>,
    ) -> Result<NewJob, ApiError> {
        let bad = |m: String| Err(ApiError::Unprocessable(m));
        // A review without steps reviews the deal alone (was it lost from the start?).
        let no_steps = Vec::new();
        let steps = match (&self.played, self.review) {
            (Some(steps), _) => steps,
            (None, Some(true)) => &no_steps,
            (None, _) => return Ok(job),
        };
        if steps.len() > MAX_PLAYED_STEPS {
            return bad(format!(
                "played: at most {MAX_PLAYED_STEPS} steps (got {})",
                steps.len()
            ));
        }
        let redeals = job.redeals.get();
        let checked = played_steps(steps)
            .and_then(|parsed| replay(redeals, steps).map(|_| parsed))
            .map_err(|e| ApiError::Unprocessable(format!("played: {e}")))?;
        job.played = Some(Json(canonical_steps(&checked)));
        job.review = self.review.unwrap_or(false);
        Ok(job)
    }

    /// The job of a request for a PySolFC game played on its own board.
    fn board_job(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
        deal: BoardDeal,
    ) -> Result<NewJob, ApiError> {
        if self.position.is_some() || self.deal.is_some() {
            return Err(ApiError::Unprocessable(
                "give one of `position`, `deal` and `pysol`, not several".into(),
            ));
        }
        let asked = BoardAsked {
            variant: self.variant.as_deref(),
            algorithm: self.algorithm.as_deref(),
            limits: &self.limits,
            redeals: self.redeals,
            played: self.played.is_some(),
        };
        let (common, redeals, algorithm) =
            asked.check(deal.game, &format!("pysol {deal}"), config)?;
        let seed = self.seed.unwrap_or(0);
        let search_seed = i64::try_from(seed)
            .map_err(|_| ApiError::Unprocessable(format!("seed {seed} is above 2^63-1")))?;
        let job = NewJob {
            id,
            variant: Stored(JobVariant::Board(deal.game)),
            algorithm: Stored(algorithm),
            position: Stored(JobPosition::Board(deal)),
            suits: 4,
            ranks: 13,
            deal_seed: None,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            table_mb: common.table_mb,
            search_seed,
            batch_id: None,
            limit_probes: None,
            threads: 1,
            created_by: Some(created_by.to_string()),
            pysol: Some(Stored(JobPysol::Board(deal))),
            redeals,
            played: None,
            review: false,
        };
        self.with_played(job, |redeals, steps| {
            GameInProgress::replay_board(deal, redeals, steps)
        })
    }

    /// The job of a validated request.
    fn job(
        &self,
        id: String,
        created_by: &str,
        common: &Common,
        position: Position,
        deal_number: Option<i64>,
        search_seed: i64,
    ) -> NewJob {
        let l = position.layout();
        NewJob {
            id,
            variant: Stored(JobVariant::Engine(common.variant)),
            algorithm: Stored(common.algorithm),
            position: Stored(JobPosition::Engine(position)),
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
            pysol: None,
            redeals: RedealCount::NONE,
            played: None,
            review: false,
        }
    }
}

/// The variant of a request given as PySolFC `game` (named `what` in the message: the
/// deal, the game of a batch or of a list): the game's, which a named variant may only
/// repeat (`crate::request::rounds`).
pub fn pysol_variant(
    game: PysolGame,
    what: &dyn std::fmt::Display,
    named: Option<Variant>,
) -> Result<Variant, ApiError> {
    rounds::pysol_variant(game, what, named)
        .map_err(|refusal| ApiError::Unprocessable(refusal.for_api()))
}

/// What a request for a PySolFC game played on its own board asks beside the game.
pub(super) struct BoardAsked<'a> {
    pub(super) variant: Option<&'a str>,
    pub(super) algorithm: Option<&'a str>,
    pub(super) limits: &'a Limits,
    pub(super) redeals: Option<u64>,
    pub(super) played: bool,
}

impl BoardAsked<'_> {
    /// The limits (checked as those of a request that names no variant), the redeals
    /// and the search of a request for `game` (named `what` in messages), or a 422: the
    /// game's own rules, as the command line applies them (`crate::request::board`).
    pub(super) fn check(
        &self,
        game: PysolGame,
        what: &str,
        config: &Config,
    ) -> Result<(Common, RedealCount, Algorithm), ApiError> {
        let ask = BoardAsk {
            variant: self.variant,
            algorithm: self.algorithm,
            probes: self.limits.probes,
            threads: self.limits.threads,
            redeals: self.redeals,
            played: self.played,
        };
        let BoardChoice { algorithm, redeals } = ask
            .check(game, what)
            .map_err(|refusal| ApiError::Unprocessable(refusal.for_api()))?;
        // The limits are checked as those of a request that names no variant and the
        // same algorithm (the OpenAPI document's rule for a request without a variant):
        // `exact`'s `table_mb` may take the node's memory for searches, `auto`'s the
        // solvers' table.
        let named = (algorithm == Algorithm::Exact).then_some("exact");
        let common = validate_common(None, named, self.limits, config)?;
        Ok((common, redeals, algorithm))
    }
}

impl PysolSpec {
    /// The PySolFC game named, or a 422 naming what is wrong.
    fn game(&self) -> Result<JobPysol, ApiError> {
        let game = PysolGame::named(&self.game)
            .map_err(|e| ApiError::Unprocessable(format!("pysol: game: {e}")))?;
        JobPysol::new(game, self.number)
            .map_err(|e| ApiError::Unprocessable(format!("pysol: number: {e}")))
    }
}
