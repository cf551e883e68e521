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

use super::validate::{layout, pysol_variant, redeals_of, validate_common, BoardAsked};
use super::{BatchRequest, JobRequest, Limits, PysolBatchSpec};
use crate::service::config::Config;
use crate::service::error::ApiError;
use crate::service::job::Stored;
use crate::service::store::{NewBatch, NewJob};
use crate::service::subject::JobVariant;
use gaps_engine::{BoardDeal, DealSource, PysolDeal, PysolGame, Variant};

/// The most games one batch may list (a request's body is bounded anyway; a batch of
/// more deals is a range).
pub const MAX_BATCH_GAMES: usize = 1000;

/// A batch's `count` (named `count.1`) within the configured maximum, and its first
/// number (named `first.1`) at most [`super::schema::max_batch_seed`], so that its last
/// deal is a number too; or a 422 naming the field.
fn check_batch_range(
    config: &Config,
    count: (u64, &str),
    first: (u64, &str),
) -> Result<(), ApiError> {
    let ((count, count_field), (seed, first_field)) = (count, first);
    let max_deals = config.limits.max_batch_deals;
    if count == 0 || count > max_deals {
        return Err(ApiError::Unprocessable(format!(
            "{count_field} must be between 1 and {max_deals} (got {count})"
        )));
    }
    let max_seed = super::schema::max_batch_seed(config);
    if seed > max_seed {
        return Err(ApiError::Unprocessable(format!(
            "{first_field} must be at most {max_seed} (2^63 - limits.max_batch_deals; got {seed})"
        )));
    }
    Ok(())
}

impl BatchRequest {
    /// The batch this request asks for and, for a batch of games, its jobs (none for a
    /// range of deals: the filler inserts those), or what is wrong with it.
    pub fn validate(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<(NewBatch, Vec<NewJob>), ApiError> {
        match &self.games {
            None => Ok((self.validate_range(id, created_by, config)?, Vec::new())),
            Some(games) => self.games_batch(id, created_by, config, games),
        }
    }

    fn games_batch(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
        games: &[JobRequest],
    ) -> Result<(NewBatch, Vec<NewJob>), ApiError> {
        let bad = |m: String| Err(ApiError::Unprocessable(m));
        let beside = self.variant.is_some()
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
                 algorithm, limits, redeals, played, review) inside its item, not beside \
                 `games`"
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
        let jobs = games
            .iter()
            .enumerate()
            .map(|(index, game)| {
                let job_id = uuid::Uuid::now_v7().to_string();
                let mut job = game
                    .validate(job_id, created_by, config)
                    .map_err(|e| match e {
                        ApiError::Unprocessable(m) => {
                            ApiError::Unprocessable(format!("games[{index}]: {m}"))
                        }
                        other => other,
                    })?;
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
            redeals: first.redeals,
            games: true,
        };
        Ok((batch, jobs))
    }

    /// The batch of deals (or PySolFC games by number) this request asks for, or what
    /// is wrong with it.
    pub(super) fn validate_range(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewBatch, ApiError> {
        let bad = |m: String| Err(ApiError::Unprocessable(m));
        let game = match &self.pysol {
            Some(spec) => {
                if self.suits.is_some() || self.ranks.is_some() || self.seed.is_some() {
                    return bad(
                        "pysol: give the games' numbers in `pysol` (`from`, `count`), \
                         without `seed`, `suits` or `ranks`"
                            .into(),
                    );
                }
                if self.count.is_some() {
                    return bad("pysol: give `count` inside `pysol`, not beside it".into());
                }
                let game = PysolGame::named(&spec.game)
                    .map_err(|e| ApiError::Unprocessable(format!("pysol: game: {e}")))?;
                if game.is_board_played() {
                    return self.board_batch(id, created_by, config, game, spec);
                }
                Some(game)
            }
            None => None,
        };
        let variant = match (game, self.variant.as_deref()) {
            (Some(game), named) => match named.map(str::parse::<Variant>).transpose() {
                Ok(parsed) => {
                    Some(pysol_variant(game, &format!("pysol game {game}"), parsed)?.name())
                }
                // `validate_common` refuses an unknown name, naming it.
                Err(_) => named,
            },
            (None, named) => named,
        };
        let common = validate_common(variant, self.algorithm.as_deref(), &self.limits, config)?;
        if self.limits.table_mb.is_some() {
            return bad("limits.table_mb is not supported for batches".into());
        }
        let (suits, ranks, seed, count, field) = match &self.pysol {
            Some(spec) => (4, 13, spec.from, Some(spec.count), "pysol.count"),
            None => (
                self.suits.unwrap_or(4) as usize,
                self.ranks.unwrap_or(13) as usize,
                self.seed.unwrap_or(0),
                self.count,
                "count",
            ),
        };
        layout(suits, ranks)?;
        let Some(count) = count else {
            return bad(
                "give `count` (deals `seed` .. `seed+count-1`) or `pysol` ({\"game\": \
                 \"montana\", \"from\": 1, \"count\": N})"
                    .into(),
            );
        };
        let first = if game.is_some() { "pysol.from" } else { "seed" };
        check_batch_range(config, (count, field), (seed, first))?;
        if game.is_some() && seed == 0 {
            return bad("pysol.from: PySolFC numbers its games from 1 (got 0)".into());
        }
        // Every deal of a batch has the same redeal rule: its first one answers for all.
        let batch_source = match game {
            Some(game) => DealSource::Pysol(
                PysolDeal::new(game, u128::from(seed))
                    .map_err(|e| ApiError::Unprocessable(format!("pysol.from: {e}")))?,
            ),
            None => DealSource::Numbered {
                seed,
                layout: layout(suits, ranks)?,
            },
        };
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
            pysol_game: game.map(|g| g.name().to_string()),
            redeals: redeals_of(self.redeals, &batch_source, common.variant)?,
            games: false,
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
        let bad = |m: String| Err(ApiError::Unprocessable(m));
        let asked = BoardAsked {
            variant: self.variant.as_deref(),
            algorithm: self.algorithm.as_deref(),
            limits: &self.limits,
            redeals: self.redeals,
            played: false,
        };
        let (common, redeals, algorithm) =
            asked.check(game, &format!("pysol game {game}"), config)?;
        if self.limits.table_mb.is_some() {
            return bad("limits.table_mb is not supported for batches".into());
        }
        check_batch_range(
            config,
            (spec.count, "pysol.count"),
            (spec.from, "pysol.from"),
        )?;
        BoardDeal::new(game, u128::from(spec.from))
            .map_err(|e| ApiError::Unprocessable(format!("pysol.from: {e}")))?;
        Ok(NewBatch {
            id,
            variant: Stored(JobVariant::Board(game)),
            algorithm: Stored(algorithm),
            suits: 4,
            ranks: 13,
            seed: spec.from as i64,
            count: spec.count as i64,
            limit_nodes: common.limit_nodes,
            limit_time_ms: common.limit_time_ms,
            limit_probes: None,
            threads: 1,
            created_by: Some(created_by.to_string()),
            pysol_game: Some(game.name().to_string()),
            redeals,
            games: false,
        })
    }
}
