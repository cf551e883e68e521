//! A batch given as its games (`games`): each item a `POST /v1/jobs` body of its own (a
//! position, a numbered deal or a PySolFC game, its variant, limits and redeals, and
//! with `played` and `review` a game in progress), checked as a job is and queued with
//! the batch in one transaction.
//!
//! Invariants: nothing is stored unless every item is valid (a 422 names the first bad
//! one by its index); the batch's own fields (`variant`, `suits`, `ranks`, limits,
//! `redeals`) are its first game's, shown for information, never used to run a job.

use super::{BatchRequest, JobRequest, Limits};
use crate::service::config::Config;
use crate::service::error::ApiError;
use crate::service::store::{NewBatch, NewJob};

/// The most games one batch may list (a request's body is bounded anyway; a batch of
/// more deals is a range).
pub const MAX_BATCH_GAMES: usize = 1000;

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
}
