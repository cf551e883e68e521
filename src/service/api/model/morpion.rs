//! The JSON shapes of Morpion Solitaire endgame jobs (`POST /v1/jobs` with
//! `"game": "morpion"`, docs/morpion.md, "Where it is available") and their validation.
//!
//! Invariants: a request becomes a [`NewMorpionJob`] only through
//! [`MorpionJobRequest::validate`], which decodes the record and replays every move of
//! it under the variant (an illegal move is a 422 naming it and why) and checks K
//! against its length; the limits have the Gaps jobs' caps from configuration, the same
//! bounds `schema` writes into the OpenAPI document.

use super::{object, whole, whole_opt, LifeView, Progress};
use crate::service::api::error::ApiError;
use crate::service::config::Config;
use crate::service::job::{Game, JobState};
use crate::service::morpion::MAX_UNITS;
use crate::service::store::{MorpionJobRow, NewMorpionJob};
use gaps_engine::morpion::board::MorpionVariant;
use gaps_engine::morpion::endgame::prefix;
use gaps_engine::morpion::record::Record;
use gaps_engine::Limit;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Limits of a Morpion proof; reaching one ends it `done` with `proved: false`.
#[derive(Deserialize, Serialize, Debug, Clone, Default, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MorpionLimits {
    /// Node limit (positions entered).
    #[serde(default, deserialize_with = "whole_opt")]
    pub nodes: Option<u64>,
    /// Time limit in milliseconds (default and cap from configuration, as for Gaps jobs).
    #[serde(default, deserialize_with = "whole_opt")]
    pub time_ms: Option<u64>,
    /// Threads of the proof (default: the configured maximum of a job); it gets the
    /// pool's idle threads up to this number when it starts.
    #[serde(default, deserialize_with = "whole_opt")]
    pub threads: Option<u64>,
}

/// `POST /v1/jobs` with `"game": "morpion"`: prove the endgame of a record after its
/// first `from` moves.
#[derive(Deserialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MorpionJobRequest {
    /// `morpion`.
    pub game: String,
    /// The record: MSR JSON (`{"variant": "5T", "moves": [{"x", "y", "dir", "pos"},
    /// ...]}`) or Pentasol text, as a string. Every move must be legal.
    pub record: String,
    /// Moves of the record kept (0 to its length).
    #[serde(rename = "from", deserialize_with = "whole")]
    pub from_move: u64,
    /// `5T` or `5D` (default: the record's own; 5T for Pentasol text). A variant other
    /// than the one an MSR record names is refused.
    pub variant: Option<String>,
    /// Share the proof between nodes: split it into at least this many subtrees
    /// (1 to 16384), searched one by one by every node's workers; a node that stops
    /// loses only the subtrees it was searching. The limits then apply to each
    /// subtree, and `limits.threads` is not used. Absent: one node proves it whole.
    #[serde(default, deserialize_with = "whole_opt")]
    pub units: Option<u64>,
    /// Search limits.
    #[serde(default, deserialize_with = "object")]
    pub limits: MorpionLimits,
}

/// A Morpion job as returned by the API: the request, then (once done) the result
/// fields (docs/morpion.md) `best`, `proved`, `nodes`, `elapsed_ms` and `line`.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct MorpionJobView {
    #[serde(flatten)]
    pub life: LifeView,
    /// `5T` or `5D`.
    pub variant: String,
    /// Moves of the record kept.
    pub from: i64,
    /// Moves in the record.
    pub record_length: i64,
    /// Where the record, as submitted, is read: `/v1/jobs/{id}/record`.
    pub record_url: String,
    pub limits: MorpionLimits,
    /// The longest total length found (kept moves plus the longest continuation).
    pub best: Option<i64>,
    /// True when every continuation was searched: `best` is then the optimum.
    pub proved: Option<bool>,
    /// True when a game longer than the record was found.
    pub improved: Option<bool>,
    /// Why the search stopped early (`nodes`, `time`, `cancelled`).
    pub stopped: Option<String>,
    /// Positions entered (each exactly once with `dfs_it`).
    pub nodes: Option<i64>,
    pub elapsed_ms: Option<f64>,
    /// One longest continuation (the moves after move `from`), in the record's format:
    /// MSR move objects or Pentasol lines.
    #[schema(value_type = Option<Vec<Value>>)]
    pub line: Option<Vec<serde_json::Value>>,
    /// Threads the proof ran on (1 a subtree for a shared proof), the depth it was
    /// split at and its units.
    pub threads: Option<i64>,
    pub split_depth: Option<i64>,
    pub units: Option<i64>,
    /// For a shared proof: the subtrees asked for, and those searched so far.
    pub shared_units: Option<i64>,
    pub units_done: Option<i64>,
}

impl From<MorpionJobRow> for MorpionJobView {
    fn from(r: MorpionJobRow) -> Self {
        let progress = (r.life.state == JobState::Running).then_some(Progress {
            nodes: r.life.progress_nodes as u64,
        });
        let (stopped, nodes, elapsed_ms) = (
            r.life.stopped.map(|s| s.0.name().into()),
            r.life.nodes,
            r.life.elapsed_ms,
        );
        let mut life = LifeView::of(r.id, Game::Morpion, r.life, r.created_by);
        life.progress = progress;
        MorpionJobView {
            record_url: format!("/v1/jobs/{}/record", life.id),
            life,
            variant: r.variant.0.code().into(),
            from: r.from_move,
            record_length: r.record_length,
            limits: MorpionLimits {
                nodes: r.limit_nodes.map(|n| n as u64),
                time_ms: Some(r.limit_time_ms as u64),
                threads: Some(r.threads as u64),
            },
            best: r.best,
            proved: r.proved,
            improved: r.improved,
            stopped,
            nodes,
            elapsed_ms,
            line: r.line.map(|l| l.0),
            threads: r.threads_used,
            split_depth: r.split_depth,
            units: r.units,
            shared_units: r.split_units,
            units_done: None,
        }
    }
}

impl MorpionJobRequest {
    /// The job this request asks for, or what is wrong with it (a 422 naming the field).
    pub fn validate(
        &self,
        id: String,
        created_by: &str,
        config: &Config,
    ) -> Result<NewMorpionJob, ApiError> {
        let bad = |m: String| ApiError::Unprocessable(m);
        if self.game != "morpion" {
            return Err(bad(format!(
                "game must be \"gaps\" or \"morpion\" (got {:?})",
                self.game
            )));
        }
        let caps = &config.limits;
        let field = |limit: Limit| format!("limits.{}", limit.name());
        let check = |limit: Limit, value: u64, cap: u64| {
            limit
                .check(value, Some(cap))
                .map_err(|e| bad(e.message(field)))
        };
        if let Some(nodes) = self.limits.nodes {
            check(Limit::Nodes, nodes, caps.max_nodes)?;
        }
        let time_ms = self.limits.time_ms.unwrap_or(caps.default_time_ms);
        check(Limit::TimeMs, time_ms, caps.max_time_ms)?;
        let max_threads = config.max_job_threads() as u64;
        let threads = self.limits.threads.unwrap_or(max_threads);
        check(Limit::Threads, threads, max_threads)?;
        let record = Record::parse(&self.record).map_err(|e| bad(format!("record: {e}")))?;
        let asked = match self.variant.as_deref() {
            None => None,
            // Exactly the document's names (the CLI also takes `5t`, `T5`).
            Some(code) => Some(
                MorpionVariant::from_code(code)
                    .filter(|v| v.code() == code)
                    .ok_or_else(|| {
                        bad(format!(
                            "variant must be 5T or 5D for morpion (got {code:?})"
                        ))
                    })?,
            ),
        };
        let variant = record
            .variant_for(asked)
            .map_err(|e| bad(format!("variant: {e}")))?;
        if let Some(units) = self.units {
            if !(1..=MAX_UNITS).contains(&units) {
                return Err(bad(format!(
                    "units must be between 1 and {MAX_UNITS} (got {units})"
                )));
            }
        }
        let len = record.moves.len() as u64;
        if self.from_move > len {
            return Err(bad(format!(
                "from: {} is out of range: the record has {len} moves (from must be 0 to {len})",
                self.from_move
            )));
        }
        prefix(&record, variant, self.from_move as usize)
            .map_err(|e| bad(format!("record: {e}")))?;
        Ok(NewMorpionJob {
            id,
            variant,
            record: self.record.clone(),
            record_length: len as i64,
            from_move: self.from_move as i64,
            limit_nodes: self.limits.nodes.map(|n| n as i64),
            limit_time_ms: time_ms as i64,
            threads: threads as i64,
            created_by: Some(created_by.to_string()),
            split_units: self.units.map(|n| n as i64),
        })
    }
}

/// The body of `POST /v1/jobs`: a Gaps job, a Morpion proof (`"game": "morpion"`) or
/// the odds of a Gaps game (`"odds"`). For the OpenAPI document only: the handler picks
/// the shape by the `game` and `odds` fields.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum AnyJobRequest {
    Gaps(super::JobRequest),
    Morpion(MorpionJobRequest),
    Odds(super::OddsJobRequest),
}

/// The body of `POST /v1/batches`: Gaps jobs, or odds jobs (`"odds"`). For the OpenAPI
/// document only: the handler reads both as a `BatchRequest`.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum AnyBatchRequest {
    Gaps(super::BatchRequest),
    Odds(super::OddsBatchRequest),
}

/// A job of any kind as the API returns it: a Gaps job (`"game": "gaps"`), a Morpion
/// proof (`"game": "morpion"`) or the odds of a Gaps game (`"game": "odds"`).
#[derive(Serialize, Debug, Clone, ToSchema)]
#[serde(untagged)]
pub enum AnyJobView {
    Gaps(Box<super::JobView>),
    Morpion(Box<MorpionJobView>),
    Odds(Box<super::OddsJobView>),
}
