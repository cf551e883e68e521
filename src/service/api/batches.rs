//! `/v1/batches`: queue deals `seed..seed+count-1` (or PySolFC games by number), or a
//! list of `games` (each a job request of its own), and follow their progress and win
//! rate.
//!
//! Invariant: the batch row is committed before `202` is answered; the jobs of a range
//! are inserted in the background in short transactions (resumed at start after a
//! crash), so a batch of any accepted size never holds the writer for long; the jobs of
//! a list of games (at most 1000) are committed with the batch.

use super::idempotency::{self, Route};
use super::lines::{streamed, wants_csv};
use super::ApiJson;
use crate::service::api::access::Caller;
use crate::service::api::error::{ApiError, ApiResult, Problem};
use crate::service::api::model::{from_json, BatchGames, BatchRequest, BatchView};
use crate::service::api::state::AppState;
use crate::service::resources::metrics::Refusal;
use crate::service::store::{
    csv_line, ndjson_line, BatchRow, NewBatch, CSV_HEADER, ODDS_CSV_HEADER,
};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;

/// Queue a batch of numbered deals, of PySolFC games by number, or of `games` given one
/// by one (games in progress among them).
#[utoipa::path(post, path = "/v1/batches", request_body = crate::service::api::model::AnyBatchRequest,
    params(("Idempotency-Key" = Option<String>, Header, description = "Safe retries (docs/http.md, \"Safe retries\"): the same key with the same body gives the job or batch the first request made (answered with `idempotent-replayed: true`); with another body, a 422. A key is its client's own, kept 24 hours at least.")),
    responses(
        (status = 202, description = "Accepted; jobs are being queued", body = BatchView),
        (status = 401, description = "Tokens are configured and none valid was given", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A request with this `Idempotency-Key` and body is still being answered: retry", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid variant, size, count or limits, or an invalid game of `games` (named by its index), or an `Idempotency-Key` used with another body", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Over the client's rate limit or queued-jobs cap (see Retry-After)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> ApiResult<Response> {
    if state.runner.is_shutting_down() {
        return Err(ApiError::shutting_down());
    }
    // The key with the digest of the body it came with (read before the body is parsed).
    let keyed = idempotency::key_of(&headers)?.map(|key| (key, idempotency::body_digest(&body)));
    let request: BatchRequest = from_json(body)?;
    let id = uuid::Uuid::now_v7().to_string();
    let (batch, jobs) = request.validate(id, &caller.name, &state.config)?;
    let make = || store_batch(&state, &caller, &batch, &jobs);
    let (row, replayed) = match keyed {
        Some((key, digest)) => {
            let find = |id: String| {
                let state = &state;
                async move { Ok(state.store.batch(&id).await?) }
            };
            let id_of = |row: &BatchRow| row.spec.id.clone();
            idempotency::answer_once(
                &state,
                &caller,
                Route::Batches,
                &key,
                &digest,
                find,
                make,
                id_of,
            )
            .await?
        }
        None => (make().await?, false),
    };
    if !replayed {
        caller.count_creation(&state.metrics);
        let filler = state.batches.clone();
        tokio::spawn(async move {
            if let Err(e) = filler.fill_batches().await {
                tracing::error!(error = %e, "filling batches failed; resumed at next start");
            }
        });
    }
    let location = format!("/v1/batches/{}", row.spec.id);
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION.as_str(), location)],
        replayed.then_some([(idempotency::REPLAYED, "true")]),
        Json(batch_view(&state, row).await?),
    )
        .into_response())
}

/// Stores `batch` with `jobs` within the client's queued-jobs cap.
async fn store_batch(
    state: &AppState,
    caller: &Caller,
    batch: &NewBatch,
    jobs: &BatchGames,
) -> ApiResult<BatchRow> {
    let cap = state.config.limits.max_queued_per_client;
    if cap > 0 {
        if batch.count as u64 > cap {
            return Err(ApiError::Unprocessable(format!(
                "count: a batch may hold at most {cap} deals here (limits.max_queued_per_client)"
            )));
        }
        let waiting = state.store.queued_by(&caller.name).await?;
        if waiting + batch.count > cap as i64 {
            state.metrics.count_refusal(Refusal::Queued);
            return Err(ApiError::TooManyRequests(format!(
                "this client has {waiting} jobs waiting and may have at most {cap}; retry when some have run"
            )));
        }
    }
    Ok(state
        .store
        .insert_batch(batch, jobs.as_batch_jobs())
        .await?)
}

/// The view of batch `row`, with its counts and, for a batch of odds jobs, its figures
/// over the deals answered so far.
pub(super) async fn batch_view(state: &AppState, row: BatchRow) -> ApiResult<BatchView> {
    let id = row.spec.id.clone();
    let counts = state.store.batch_counts(&id).await?;
    let odds = row.spec.odds_samples.is_some();
    let mut view = BatchView::new(row, counts);
    if odds {
        view.odds_summary = Some(state.store.odds_summary(&id).await?);
    }
    Ok(view)
}

/// A batch's progress and win rate (a batch of odds jobs: its bounds over the deals).
#[utoipa::path(get, path = "/v1/batches/{id}", params(("id" = String, Path, description = "Batch id")),
    responses(
        (status = 200, description = "The batch", body = BatchView),
        (status = 404, description = "No such batch", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<BatchView>> {
    let row = state
        .store
        .batch(&id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no batch {id:?}")))?;
    Ok(Json(batch_view(&state, row).await?))
}

/// A batch's results, one line per deal in deal order, as NDJSON (default) or CSV
/// (`Accept: text/csv`), streamed in constant memory.
#[utoipa::path(get, path = "/v1/batches/{id}/results", params(("id" = String, Path, description = "Batch id")),
    responses(
        (status = 200, description = "One line per deal: deal, position, state, verdict, nodes, milliseconds, algorithm, node_id; NDJSON, or CSV with a header line when `Accept: text/csv`",
            content((String = "application/x-ndjson"), (String = "text/csv"))),
        (status = 404, description = "No such batch", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn results(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let batch = state
        .store
        .batch(&id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no batch {id:?}")))?;
    let odds = batch.spec.odds_samples.is_some();
    let header = if odds { ODDS_CSV_HEADER } else { CSV_HEADER };
    let csv = wants_csv(&headers);
    let (sender, receiver) = tokio::sync::mpsc::channel(512);
    let store = state.store.clone();
    tokio::spawn(async move {
        if let Err(e) = store.stream_batch_results(&id, sender).await {
            tracing::warn!(error = %e, batch = %id, "streaming batch results failed");
        }
    });
    Ok(streamed(receiver, csv, header, move |row, csv| {
        if csv {
            csv_line(row, odds)
        } else {
            ndjson_line(row)
        }
    }))
}
