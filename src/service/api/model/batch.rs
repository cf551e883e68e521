//! Batch requests: a range of numbered deals or of PySolFC games by number (its jobs
//! inserted later by the filler), or a list of `games`, each item a `POST /v1/jobs`
//! body of its own (a position, a numbered deal or a PySolFC game, its variant, limits
//! and redeals, and with `played` and `review` a game in progress), checked as a job is
//! and queued with the batch in one transaction.
//!
//! Invariants: nothing is stored unless the whole request is valid (a 422 names the
//! field, or the first bad game by its index); a range's last deal is a number too; a
//! list's own fields (`variant`, `suits`, `ranks`, limits, `redeals`) are its first
//! game's, shown for information, never used to run a job.

use super::odds::OddsAsked;
use super::validate::{layout, pysol_variant, redeals_of, validate_common, BoardAsked};
use super::{BatchRequest, JobRequest, Limits, OddsSpec, PysolBatchSpec};
use crate::service::api::error::ApiError;
use crate::service::config::Config;
use crate::service::job::subject::JobVariant;
use crate::service::job::{GameNumberKey, Stored};
use crate::service::store::{BatchJobs, NewBatch, NewJob, NewOddsJob};
use gaps_engine::{check_game_number, Algorithm, DealSource, PysolDeal, PysolGame, Variant};

/// The most games one batch may list (a request's body is bounded anyway; a batch of
/// more deals is a range).
pub const MAX_BATCH_GAMES: usize = 1000;

/// A batch's `count` (named `field`) within the configured maximum, or a 422 naming
/// the field.
fn check_count(config: &Config, count: u64, field: &str) -> Result<(), ApiError> {
    let max_deals = config.limits.max_batch_deals;
    if count == 0 || count > max_deals {
        return Err(ApiError::Unprocessable(format!(
            "{field} must be between 1 and {max_deals} (got {count})"
        )));
    }
    Ok(())
}

/// A batch's first deal number at most [`super::schema::max_batch_seed`], so that its
/// last deal is a number too.
fn check_first_seed(config: &Config, seed: u64) -> Result<(), ApiError> {
    let max_seed = super::schema::max_batch_seed(config);
    if seed > max_seed {
        return Err(ApiError::Unprocessable(format!(
            "seed must be at most {max_seed} (2^63 - limits.max_batch_deals; got {seed})"
        )));
    }
    Ok(())
}

/// A batch's first PySolFC game number (`pysol.from`): one PySolFC accepts, and at most
/// [`super::schema::max_batch_game`], so that its last game is one too.
fn check_first_game(config: &Config, from: u128) -> Result<GameNumberKey, ApiError> {
    check_game_number(from).map_err(|e| ApiError::Unprocessable(format!("pysol.from: {e}")))?;
    let max_from = super::schema::max_batch_game(config);
    if from > max_from {
        return Err(ApiError::Unprocessable(format!(
            "pysol.from must be at most {max_from} (10^20 + 1 - limits.max_batch_deals, \
             so that any batch ends at a PySolFC number; got {from})"
        )));
    }
    Ok(GameNumberKey(from))
}

/// The jobs a batch request gives with it (a batch of games), of one kind.
#[derive(Debug)]
pub enum BatchGames {
    Gaps(Vec<NewJob>),
    Odds(Vec<NewOddsJob>),
}

impl BatchGames {
    /// As the store inserts them.
    pub fn as_batch_jobs(&self) -> BatchJobs<'_> {
        match self {
            BatchGames::Gaps(jobs) => BatchJobs::Gaps(jobs),
            BatchGames::Odds(jobs) => BatchJobs::Odds(jobs),
        }
    }
}

impl BatchRequest {
    /// The batch this request asks for and, for a batch of games, its jobs (none for a
    /// range of deals: the filler inserts those), or what is wrong with it.
    pub fn validate(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<(NewBatch, BatchGames), ApiError> {
        let none = BatchGames::Gaps(Vec::new());
        match (&self.games, &self.odds) {
            (None, None) => Ok((self.validate_range(id, created_by, config)?, none)),
            (None, Some(odds)) => Ok((self.odds_range(id, created_by, config, odds)?, none)),
            (Some(games), _) => self.games_batch(id, created_by, config, games),
        }
    }

    /// The batch of the odds of deals `seed .. seed+count-1`, or what is wrong with it.
    fn odds_range(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
        odds: &OddsSpec,
    ) -> Result<NewBatch, ApiError> {
        let asked = OddsAsked {
            variant: self.variant.as_deref(),
            algorithm: self.algorithm.as_deref(),
            review: None,
            limits: &self.limits,
            samples: odds.samples,
            redeals: self.redeals,
            pysol: self.pysol.is_some(),
        };
        let (variant, common, choice) = asked.check(config)?;
        let (suits, ranks) = (self.suits.unwrap_or(4), self.ranks.unwrap_or(13));
        layout(suits as usize, ranks as usize)?;
        let Some(count) = self.count else {
            return Err(ApiError::Unprocessable(
                "give `count`: the odds of deals `seed` .. `seed+count-1`".into(),
            ));
        };
        check_count(config, count, "count")?;
        let seed = self.seed.unwrap_or(0);
        check_first_seed(config, seed)?;
        Ok(NewBatch {
            id,
            variant: Stored(JobVariant::Engine(variant)),
            algorithm: Stored(Algorithm::Auto),
            suits: suits as i64,
            ranks: ranks as i64,
            seed: seed as i64,
            count: count as i64,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            limit_probes: None,
            threads: 1,
            created_by: Some(created_by.to_string()),
            pysol_game: None,
            pysol_from: None,
            redeals: choice.redeals,
            games: false,
            odds_samples: Some(i64::from(choice.samples)),
        })
    }

    fn games_batch(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
        games: &[JobRequest],
    ) -> Result<(NewBatch, BatchGames), ApiError> {
        let bad = |m: String| Err(ApiError::Unprocessable(m));
        let beside = self.variant.is_some()
            || self.odds.is_some()
            || self.algorithm.is_some()
            || self.suits.is_some()
            || self.ranks.is_some()
            || self.seed.is_some()
            || self.count.is_some()
            || self.pysol.is_some()
            || self.redeals.is_some()
            || self.limits != Limits::default();
        if beside {
            return bad(
                "games: give each game's fields (position, deal or pysol, variant, \
                 algorithm, limits, redeals, played, review, odds) inside its item, not \
                 beside `games`"
                    .into(),
            );
        }
        let max = MAX_BATCH_GAMES
            .min(usize::try_from(config.limits.max_batch_deals).unwrap_or(usize::MAX));
        if games.is_empty() || games.len() > max {
            return bad(format!(
                "games: give 1 to {max} games (got {})",
                games.len()
            ));
        }
        let of_item = |index: usize| {
            move |e| match e {
                ApiError::Unprocessable(m) => {
                    ApiError::Unprocessable(format!("games[{index}]: {m}"))
                }
                other => other,
            }
        };
        let odds = games[0].odds.is_some();
        if let Some(index) = games.iter().position(|game| game.odds.is_some() != odds) {
            return bad(format!(
                "games[{index}]: a batch holds one kind of job: give `odds` in every game or \
                 in none (games[0] {} it)",
                if odds { "has" } else { "has not" }
            ));
        }
        if odds {
            let jobs = games
                .iter()
                .enumerate()
                .map(|(index, game)| {
                    let job_id = uuid::Uuid::now_v7().to_string();
                    let mut job = game
                        .validate_odds(job_id, created_by, config)
                        .map_err(of_item(index))?;
                    job.batch_id = Some(id.clone());
                    Ok(job)
                })
                .collect::<Result<Vec<NewOddsJob>, ApiError>>()?;
            let first = &jobs[0];
            let batch = NewBatch {
                id,
                variant: Stored(JobVariant::Engine(first.variant.0)),
                algorithm: Stored(Algorithm::Auto),
                suits: first.suits,
                ranks: first.ranks,
                seed: 0,
                count: jobs.len() as i64,
                limit_nodes: first.limit_nodes,
                limit_time_ms: first.limit_time_ms,
                limit_probes: None,
                threads: 1,
                created_by: Some(created_by.to_string()),
                pysol_game: None,
                pysol_from: None,
                redeals: first.redeals,
                games: true,
                odds_samples: Some(first.samples),
            };
            return Ok((batch, BatchGames::Odds(jobs)));
        }
        let jobs = games
            .iter()
            .enumerate()
            .map(|(index, game)| {
                let job_id = uuid::Uuid::now_v7().to_string();
                let mut job = game
                    .validate(job_id, created_by, config)
                    .map_err(of_item(index))?;
                job.batch_id = Some(id.clone());
                Ok(job)
            })
            .collect::<Result<Vec<NewJob>, ApiError>>()?;
        let first = &jobs[0];
        let batch = NewBatch {
            id,
            variant: first.variant,
            algorithm: first.algorithm,
            suits: first.suits,
            ranks: first.ranks,
            seed: 0,
            count: jobs.len() as i64,
            limit_nodes: first.limit_nodes,
            limit_time_ms: first.limit_time_ms,
            limit_probes: first.limit_probes,
            threads: first.threads,
            created_by: Some(created_by.to_string()),
            pysol_game: None,
            pysol_from: None,
            redeals: first.redeals,
            games: true,
            odds_samples: None,
        };
        Ok((batch, BatchGames::Gaps(jobs)))
    }

    /// The batch of deals (or PySolFC games by number) this request asks for, or what
    /// is wrong with it.
    pub(super) fn validate_range(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewBatch, ApiError> {
        let common = match &self.pysol {
            Some(spec) => return self.games_range(id, created_by, config, spec),
            None => validate_common(
                self.variant.as_deref(),
                self.algorithm.as_deref(),
                &self.limits,
                config,
            )?,
        };
        no_table_mb(&self.limits)?;
        let (suits, ranks) = (self.suits.unwrap_or(4), self.ranks.unwrap_or(13));
        let layout = layout(suits as usize, ranks as usize)?;
        let Some(count) = self.count else {
            return Err(ApiError::Unprocessable(
                "give `count` (deals `seed` .. `seed+count-1`) or `pysol` ({\"game\": \
                 \"montana\", \"from\": 1, \"count\": N})"
                    .into(),
            ));
        };
        check_count(config, count, "count")?;
        let seed = self.seed.unwrap_or(0);
        check_first_seed(config, seed)?;
        // Every deal of a batch has the same redeal rule: its first one answers for all.
        let first = DealSource::Numbered { seed, layout };
        Ok(NewBatch {
            id,
            variant: Stored(JobVariant::Engine(common.variant)),
            algorithm: Stored(common.algorithm),
            suits: suits as i64,
            ranks: ranks as i64,
            seed: seed as i64,
            count: count as i64,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            limit_probes: common.limit_probes,
            threads: common.threads,
            created_by: Some(created_by.to_string()),
            pysol_game: None,
            pysol_from: None,
            redeals: redeals_of(self.redeals, &first, common.variant)?,
            games: false,
            odds_samples: None,
        })
    }

    /// The batch of PySolFC games `spec.from ..` of `spec.game`, as positions of their
    /// variant or on their own board.
    fn games_range(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
        spec: &PysolBatchSpec,
    ) -> Result<NewBatch, ApiError> {
        let bad = |m: &str| Err(ApiError::Unprocessable(m.into()));
        if self.suits.is_some() || self.ranks.is_some() || self.seed.is_some() {
            return bad(
                "pysol: give the games' numbers in `pysol` (`from`, `count`), without \
                 `seed`, `suits` or `ranks`",
            );
        }
        if self.count.is_some() {
            return bad("pysol: give `count` inside `pysol`, not beside it");
        }
        let game = PysolGame::named(&spec.game)
            .map_err(|e| ApiError::Unprocessable(format!("pysol: game: {e}")))?;
        if game.is_board_played() {
            return self.board_batch(id, created_by, config, game, spec);
        }
        let variant = match self.variant.as_deref().map(str::parse::<Variant>) {
            Some(Ok(named)) => {
                Some(pysol_variant(game, &format!("pysol game {game}"), Some(named))?.name())
            }
            // `validate_common` refuses an unknown name, naming it.
            Some(Err(_)) => self.variant.as_deref(),
            None => Some(pysol_variant(game, &format!("pysol game {game}"), None)?.name()),
        };
        let common = validate_common(variant, self.algorithm.as_deref(), &self.limits, config)?;
        no_table_mb(&self.limits)?;
        check_count(config, spec.count, "pysol.count")?;
        let from = check_first_game(config, spec.from)?;
        // Every game of a batch has the same redeal rule: its first one answers for all.
        let first = DealSource::Pysol(
            PysolDeal::new(game, from.0)
                .map_err(|e| ApiError::Unprocessable(format!("pysol.from: {e}")))?,
        );
        Ok(NewBatch {
            id,
            variant: Stored(JobVariant::Engine(common.variant)),
            algorithm: Stored(common.algorithm),
            suits: 4,
            ranks: 13,
            seed: 0,
            count: spec.count as i64,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            limit_probes: common.limit_probes,
            threads: common.threads,
            created_by: Some(created_by.to_string()),
            pysol_game: Some(game.name().to_string()),
            pysol_from: Some(from),
            redeals: redeals_of(self.redeals, &first, common.variant)?,
            games: false,
            odds_samples: None,
        })
    }

    /// The batch of games `spec.from ..` of `game`, played on its own board.
    fn board_batch(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
        game: PysolGame,
        spec: &PysolBatchSpec,
    ) -> Result<NewBatch, ApiError> {
        let asked = BoardAsked {
            variant: self.variant.as_deref(),
            algorithm: self.algorithm.as_deref(),
            limits: &self.limits,
            redeals: self.redeals,
            played: false,
        };
        let (common, redeals, algorithm) =
            asked.check(game, &format!("pysol game {game}"), config)?;
        no_table_mb(&self.limits)?;
        check_count(config, spec.count, "pysol.count")?;
        let from = check_first_game(config, spec.from)?;
        Ok(NewBatch {
            id,
            variant: Stored(JobVariant::Board(game)),
            algorithm: Stored(algorithm),
            suits: 4,
            ranks: 13,
            seed: 0,
            count: spec.count as i64,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            limit_probes: None,
            threads: 1,
            created_by: Some(created_by.to_string()),
            pysol_game: Some(game.name().to_string()),
            pysol_from: Some(from),
            redeals,
            games: false,
            odds_samples: None,
        })
    }
}

/// A batch takes no `limits.table_mb` (its jobs share the solvers' table).
fn no_table_mb(limits: &Limits) -> Result<(), ApiError> {
    match limits.table_mb {
        Some(_) => Err(ApiError::Unprocessable(
            "limits.table_mb is not supported for batches".into(),
        )),
        None => Ok(()),
    }
}
