//! `/v1/batches`: queue deals `seed..seed+count-1` and follow their progress and win rate.
//!
//! Invariant: the batch row is committed before `202` is answered; its jobs are inserted
//! in the background in short transactions (resumed at start after a crash), so a batch
//! of any accepted size never holds the writer for long.

use super::ApiJson;
use crate::service::error::{ApiError, ApiResult, Problem};
use crate::service::model::{BatchRequest, BatchView};
use crate::service::AppState;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// Queue a batch of numbered deals.
#[utoipa::path(post, path = "/v1/batches", request_body = BatchRequest,
    responses(
        (status = 202, description = "Accepted; jobs are being queued", body = BatchView),
        (status = 422, description = "Invalid variant, size, count or limits", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<BatchRequest>,
) -> ApiResult<Response> {
    if state.runner.is_shutting_down() {
        return Err(ApiError::shutting_down());
    }
    let id = uuid::Uuid::now_v7().to_string();
    let batch = request.validate(id, &state.config)?;
    let row = state.store.insert_batch(&batch).await?;
    let runner = state.runner.clone();
    tokio::spawn(async move {
        if let Err(e) = runner.fill_batches().await {
            tracing::error!(error = %e, "filling batches failed; resumed at next start");
        }
    });
    let counts = state.store.batch_counts(&row.spec.id).await?;
    let location = format!("/v1/batches/{}", row.spec.id);
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        Json(BatchView::new(row, counts)),
    )
        .into_response())
}

/// A batch's progress and win rate.
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
    let counts = state.store.batch_counts(&id).await?;
    Ok(Json(BatchView::new(row, counts)))
}
