//! Win-rate statistics and operations: `/healthz`, `/metrics`, `/openapi.json`, `/docs`.
//!
//! Invariant: the OpenAPI document is generated from the same types and annotations the
//! handlers use, so it cannot drift from them.

use crate::service::api::error::{ApiError, ApiResult, Problem};
use crate::service::api::model::openapi_document;
use crate::service::api::model::{
    BatchRequest, BatchView, DealSpec, Effort, JobPage, JobRequest, JobView, Limits, Progress,
    Rates, WinRateRow,
};
use crate::service::api::state::AppState;
use crate::service::job::subject::JobVariant;
use crate::service::job::JobState;
use crate::service::resources::metrics::StateLabels;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use gaps_engine::PysolGame;
use utoipa::OpenApi;

/// The OpenAPI document of the service.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "gaps",
        description = "Solver service for the solitaire card game Gaps (Montana)."
    ),
    paths(
        super::jobs::create,
        super::jobs::get,
        super::jobs::record,
        super::jobs::list,
        super::jobs::cancel,
        super::batches::create,
        super::batches::get,
        super::batches::results,
        super::events::job_events,
        super::events::batch_events,
        win_rates,
        super::ui::deal,
        super::ui::pysol_game,
        super::verdicts::lookup,
        healthz,
        metrics
    ),
    components(schemas(
        super::verdicts::VerdictView,
        JobRequest,
        JobView,
        crate::service::api::model::AnyJobRequest,
        crate::service::api::model::AnyBatchRequest,
        crate::service::api::model::OddsJobRequest,
        crate::service::api::model::OddsBatchRequest,
        crate::service::api::model::AnyJobView,
        crate::service::api::model::MorpionJobRequest,
        crate::service::api::model::MorpionJobView,
        crate::service::api::model::MorpionLimits,
        JobPage,
        DealSpec,
        crate::service::api::model::PysolSpec,
        crate::service::api::model::PysolBatchSpec,
        Limits,
        BatchRequest,
        BatchView,
        Rates,
        WinRateRow,
        Effort,
        Problem,
        Progress,
        super::ui::DealView,
        super::ui::PysolGameView
    ))
)]
pub struct ApiDoc;

/// Win rates per (variant, suits, ranks) over distinct positions, with search effort,
/// then one row per PySolFC game over its numbers.
#[utoipa::path(get, path = "/v1/stats/win-rates",
    responses((status = 200, description = "One row per variant and size", body = Vec<WinRateRow>)))]
pub async fn win_rates(State(state): State<AppState>) -> ApiResult<Json<Vec<WinRateRow>>> {
    let counts = state.store.win_rate_counts().await?;
    let effort = state.store.effort().await?;
    let mut rows = counts
        .into_iter()
        .map(|c| WinRateRow {
            source: "positions".into(),
            redeals: 0,
            rates: crate::service::api::model::Rates::new(c.solvable, c.unsolvable, c.unknown),
            variant: c.variant.0.to_string(),
            suits: c.suits,
            ranks: c.ranks,
            effort: effort
                .iter()
                .filter(|e| e.variant == c.variant && e.suits == c.suits && e.ranks == c.ranks)
                .map(|e| Effort {
                    algorithm: e.algorithm.0.name().into(),
                    verdict: e.verdict.0.name().into(),
                    jobs: e.jobs as usize,
                    mean_nodes: e.mean_nodes,
                    median_nodes: e.median_nodes,
                    mean_ms: e.mean_ms,
                    median_ms: e.median_ms,
                })
                .collect(),
        })
        .collect::<Vec<_>>();
    for c in state.store.pysol_win_rate_counts().await? {
        // Totals are only written for the game names jobs accept.
        let Ok(game) = PysolGame::named(&c.game) else {
            continue;
        };
        // Every PySolFC game of the family is dealt 4 x 13.
        rows.push(WinRateRow {
            source: format!("pysol-{}", c.game),
            variant: JobVariant::of_game(game).to_string(),
            suits: 4,
            ranks: 13,
            redeals: 0,
            rates: crate::service::api::model::Rates::new(c.solvable, c.unsolvable, c.unknown),
            effort: Vec::new(),
        });
    }
    for c in state.store.redeal_win_rate_counts().await? {
        rows.push(WinRateRow {
            source: c.kind,
            variant: c.variant,
            suits: c.suits,
            ranks: c.ranks,
            redeals: c.redeals,
            rates: crate::service::api::model::Rates::new(c.solvable, c.unsolvable, c.unknown),
            effort: Vec::new(),
        });
    }
    Ok(Json(rows))
}

/// 200 when the service can take jobs: the store answers and no shutdown is under way.
#[utoipa::path(get, path = "/healthz",
    responses(
        (status = 200, description = "Ready"),
        (status = 503, description = "Shutting down or the store is unreachable", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn healthz(State(state): State<AppState>) -> ApiResult<Json<serde_json::Value>> {
    if state.runner.is_shutting_down() {
        return Err(ApiError::shutting_down());
    }
    if !state.store.ping().await {
        tracing::error!("health check: the job store does not answer");
        return Err(ApiError::Unavailable(
            "the job store does not answer".into(),
        ));
    }
    Ok(Json(serde_json::json!({"status": "ok"})))
}

/// Prometheus metrics (OpenMetrics text).
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Metrics", content_type = "application/openmetrics-text")))]
pub async fn metrics(State(state): State<AppState>) -> ApiResult<Response> {
    let counts = state.store.state_counts().await?;
    for s in JobState::ALL {
        let n = counts.iter().find(|(k, _)| *k == s).map_or(0, |(_, n)| *n);
        state
            .metrics
            .jobs
            .get_or_create(&StateLabels { state: s })
            .set(n);
        if s == JobState::Queued {
            state.metrics.queue_depth.set(n);
        }
    }
    Ok((
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.render(),
    )
        .into_response())
}

/// The OpenAPI document, with this configuration's caps.
pub async fn openapi(State(state): State<AppState>) -> Json<serde_json::Value> {
    let derived = serde_json::to_value(ApiDoc::openapi()).expect("the document serialises");
    Json(openapi_document(derived, &state.config))
}

/// A browsable page of the OpenAPI document (no external assets).
pub async fn docs() -> Html<&'static str> {
    Html(include_str!("../assets/docs.html"))
}
