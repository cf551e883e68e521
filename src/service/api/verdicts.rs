//! `GET /v1/verdicts`: the best stored verdict of one position, without a job (a list
//! of PySolFC games' verdicts, with `game`, is `verdict_list`).
//!
//! Invariants: it reads and creates nothing; a position named as text, as a numbered
//! deal or as a PySolFC game is the same canonical position, looked up under its
//! variant; nothing stored is a 404; the `ETag` is the id of the job whose search gave
//! the answer (it changes only when a better verdict replaces it), and an exact
//! verdict may be cached for a day while an `unknown` must be revalidated (deepening
//! may decide it). The query's shape, and which parameters go together, are in the
//! OpenAPI document (`model::schema`), enforced here the same way.

use super::ApiQuery;
use crate::report::MoveJson;
use crate::service::api::error::{ApiError, ApiResult};
use crate::service::api::model::{pysol_variant, DealSpec};
use crate::service::api::state::AppState;
use crate::service::job::subject::{JobPosition, JobPysol, JobVariant};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gaps_engine::{parse_position, Position, PysolDeal, Variant, Verdict};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// How long a client or cache may keep an exact verdict, in seconds.
const EXACT_MAX_AGE_S: u32 = 86_400;

/// Which position to look up: exactly one of `position`, `deal` (with `suits` and
/// `ranks`) and `pysol`.
#[derive(Deserialize, Debug, Default, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct VerdictQuery {
    /// A position in the notation of docs/notation.md.
    pub position: Option<String>,
    /// `basic` (default) or `common`; with `pysol`, the game's (it may be repeated).
    pub variant: Option<String>,
    /// A numbered deal (0 ..= 2^63-1).
    pub deal: Option<u64>,
    /// Suits of the numbered deal (1..8, default 4).
    #[param(minimum = 1, maximum = 8)]
    pub suits: Option<usize>,
    /// Ranks of the numbered deal (3..13, default 13).
    #[param(minimum = 3, maximum = 13)]
    pub ranks: Option<usize>,
    /// A PySolFC game, `montana:N`, `blue-moon:N`, ... (N from 1 to 10^20).
    pub pysol: Option<String>,
    /// A list instead: the known verdicts of this PySolFC game (`montana`, `blue-moon`, ...)
    /// for numbers `from ..= to`, streamed (see `verdict_list`).
    pub game: Option<String>,
    /// First number of the list (default 1).
    pub from: Option<String>,
    /// Last number of the list (default 10^20, PySolFC's largest).
    pub to: Option<String>,
    /// Only the numbers with this verdict (`solvable`, `unsolvable` or `unknown`).
    pub verdict: Option<String>,
}

/// A stored verdict.
#[derive(Serialize, Debug, ToSchema)]
pub struct VerdictView {
    /// The canonical position looked up.
    pub position: String,
    pub variant: String,
    /// `solvable`, `unsolvable` or `unknown`.
    pub verdict: String,
    /// Moves to a won position (`solvable`), else empty.
    #[schema(value_type = Vec<Object>)]
    pub solution: Vec<MoveJson>,
    /// The algorithm whose search gave it.
    pub algorithm: String,
    /// Nodes and milliseconds of that search.
    pub nodes: i64,
    pub elapsed_ms: f64,
    /// The job whose search gave it.
    pub job_id: String,
    /// For `unknown`: the time limit (ms) of the longest search tried.
    pub time_ms: Option<i64>,
    /// The numbered deal asked for, if any.
    pub deal: Option<DealSpec>,
    /// The PySolFC game asked for (`montana:N`), if any.
    pub pysol: Option<String>,
}

/// A lookup that names no position, or several.
const EXACTLY_ONE: &str =
    "give exactly one of `position`, `deal` (with `suits` and `ranks`) and `pysol`";

impl VerdictQuery {
    /// The variant and position asked for, or a 422 naming what is wrong.
    fn resolve(&self) -> Result<(JobVariant, JobPosition), ApiError> {
        if let Some(board) = self.resolve_board()? {
            return Ok(board);
        }
        let (variant, position) = self.resolve_engine()?;
        Ok((JobVariant::Engine(variant), JobPosition::Engine(position)))
    }

    /// A 422 if the query gives a list's fields (`from`, `to`, `verdict`) without
    /// `game`.
    fn no_list_fields(&self) -> Result<(), ApiError> {
        if self.from.is_some() || self.to.is_some() || self.verdict.is_some() {
            return Err(ApiError::Unprocessable(
                "`from`, `to` and `verdict` go with `game` (a list of PySolFC games)".into(),
            ));
        }
        Ok(())
    }

    /// [`VerdictQuery::resolve`] of a PySolFC game played on its own board (`None` for
    /// any other query).
    fn resolve_board(&self) -> Result<Option<(JobVariant, JobPosition)>, ApiError> {
        let Some(text) = &self.pysol else {
            return Ok(None);
        };
        let Ok(JobPysol::Board(deal)) = text.parse::<JobPysol>() else {
            return Ok(None);
        };
        let rules = JobVariant::Board(deal.game);
        if let Some(named) = self.variant.as_deref() {
            return Err(ApiError::Unprocessable(format!(
                "variant: {named}: pysol {deal} is played on its own board under its own \
                 rules ({rules})"
            )));
        }
        if self.position.is_some()
            || self.deal.is_some()
            || self.suits.is_some()
            || self.ranks.is_some()
        {
            return Err(ApiError::Unprocessable(EXACTLY_ONE.into()));
        }
        self.no_list_fields()?;
        Ok(Some((rules, JobPosition::Board(deal))))
    }

    /// The engine variant and position asked for, or a 422 naming what is wrong.
    fn resolve_engine(&self) -> Result<(Variant, Position), ApiError> {
        let bad = |m: String| ApiError::Unprocessable(m);
        let named: Option<Variant> = self
            .variant
            .as_deref()
            .map(|v| {
                v.parse::<Variant>()
                    .map_err(|e| bad(format!("variant: {e}")))
            })
            .transpose()?;
        self.no_list_fields()?;
        let deal_size = self.suits.is_some() || self.ranks.is_some();
        match (&self.position, self.deal, &self.pysol) {
            (Some(text), None, None) if !deal_size => {
                let position = parse_position(text).map_err(|e| bad(format!("position: {e}")))?;
                Ok((named.unwrap_or(Variant::Basic), position))
            }
            (None, Some(seed), None) => {
                let spec = DealSpec {
                    seed,
                    suits: self.suits.unwrap_or(4),
                    ranks: self.ranks.unwrap_or(13),
                };
                Ok((named.unwrap_or(Variant::Basic), spec.position()?))
            }
            (None, None, Some(text)) if !deal_size => {
                let game: PysolDeal = text.parse().map_err(|e| bad(format!("pysol: {e}")))?;
                Ok((
                    pysol_variant(game.game, &format!("pysol {game}"), named)?,
                    game.position(),
                ))
            }
            _ => Err(bad(EXACTLY_ONE.into())),
        }
    }
}

/// The best stored verdict of a position (no job is created); or, with `game`, the
/// known verdicts of a range of PySolFC game numbers.
#[utoipa::path(get, path = "/v1/verdicts", params(VerdictQuery),
    responses(
        (status = 200, description = "The best verdict stored for the position (JSON); with `game`, one line per number of the range that has a known verdict, in number order: game, number, verdict, variant, position, algorithm, nodes, elapsed_ms, job_id, time_ms (for `unknown`), as NDJSON, or CSV with a header line when `Accept: text/csv`",
            content((VerdictView = "application/json"), (String = "application/x-ndjson"), (String = "text/csv"))),
        (status = 304, description = "Not modified (`If-None-Match`)"),
        (status = 404, description = "Nothing stored for this position", body = crate::service::api::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad position, deal, game or combination", body = crate::service::api::error::Problem, content_type = "application/problem+json"),
    ))]
pub async fn lookup(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<VerdictQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    if let Some(game) = &query.game {
        let list = super::verdict_list::ListQuery {
            game,
            variant: query.variant.as_deref(),
            from: query.from.as_deref(),
            to: query.to.as_deref(),
            verdict: query.verdict.as_deref(),
            names_a_position: query.position.is_some()
                || query.deal.is_some()
                || query.suits.is_some()
                || query.ranks.is_some()
                || query.pysol.is_some(),
        };
        return super::verdict_list::list(state, list, &headers).await;
    }
    let (variant, position) = query.resolve()?;
    let known = state
        .store
        .known_verdict(variant, &position)
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no verdict stored for {} ({variant})",
                position.shown()
            ))
        })?;
    let etag = HeaderValue::from_str(&format!("\"{}\"", known.job_id))
        .map_err(|e| ApiError::Internal(e.into()))?;
    let exact = known.verdict.0 != Verdict::Unknown;
    let cache = HeaderValue::from_str(&if exact {
        format!("public, max-age={EXACT_MAX_AGE_S}")
    } else {
        "no-cache".to_string()
    })
    .expect("an ASCII header");
    let headers_out = [(header::ETAG, etag.clone()), (header::CACHE_CONTROL, cache)];
    let matches = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| {
            let tag = tag.trim();
            tag == "*" || tag.trim_start_matches("W/") == etag.to_str().unwrap_or_default()
        });
    if matches {
        return Ok((StatusCode::NOT_MODIFIED, headers_out).into_response());
    }
    let view = VerdictView {
        position: position.shown(),
        variant: variant.to_string(),
        verdict: known.verdict.0.name().into(),
        solution: known.solution.map(|s| s.0).unwrap_or_default(),
        algorithm: known.algorithm.0.name().into(),
        nodes: known.nodes,
        elapsed_ms: known.elapsed_ms,
        job_id: known.job_id,
        time_ms: (!exact).then_some(known.limit_time_ms),
        deal: query.deal.map(|seed| DealSpec {
            seed,
            suits: query.suits.unwrap_or(4),
            ranks: query.ranks.unwrap_or(13),
        }),
        pysol: query.pysol.clone(),
    };
    Ok((headers_out, Json(view)).into_response())
}
