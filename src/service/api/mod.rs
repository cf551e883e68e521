//! The HTTP routes and the layers around them.
//!
//! Invariants: every route answers JSON (or problem+json on error, including unknown
//! routes, wrong methods and oversized or malformed bodies); handlers do no CPU-heavy
//! work (solves go through the runner's threads); extractor rejections become
//! [`ApiError`]s so every 4xx has the same shape.

pub mod access;
mod batches;
pub mod error;
mod events;
mod idempotency;
mod jobs;
mod lines;
pub mod listener;
pub mod model;
mod ops;
pub mod state;
mod ui;
mod verdict_list;
mod verdicts;
pub mod wait_slots;

use crate::service::resources::metrics::{HttpLabels, Metrics};
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use error::{problem_response, ApiError};
use serde::de::DeserializeOwned;
use state::AppState;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

pub use ops::ApiDoc;

/// JSON body extractor whose rejections are problem+json.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;
    /// Malformed JSON is a 400; JSON that is not an object of the request's shape a
    /// 422 (see [`crate::service::api::model::from_json`]).
    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let Json(value) = Json::<serde_json::Value>::from_request(req, state).await?;
        crate::service::api::model::from_json(value).map(ApiJson)
    }
}

/// Query-string extractor whose rejections are problem+json.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(value) = Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// The whole application: routes, metrics, request ids, tracing, CORS, body limit.
/// `/metrics` and `/healthz` alone (a worker node without the jobs API).
pub fn operations_router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(ops::metrics))
        .route("/healthz", get(ops::healthz))
        .with_state(state)
}

pub fn router(state: AppState) -> Router {
    let config = state.config.clone();
    let api = Router::new()
        .route("/v1/jobs", post(jobs::create).get(jobs::list))
        .route("/v1/jobs/{id}", get(jobs::get).delete(jobs::cancel))
        .route("/v1/jobs/{id}/record", get(jobs::record))
        .route("/v1/jobs/{id}/events", get(events::job_events))
        .route("/v1/batches", post(batches::create))
        .route("/v1/batches/{id}", get(batches::get))
        .route("/v1/batches/{id}/results", get(batches::results))
        .route("/v1/batches/{id}/events", get(events::batch_events))
        .route("/v1/stats/win-rates", get(ops::win_rates))
        .route("/v1/verdicts", get(verdicts::lookup))
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(ops::openapi))
        .route("/docs", get(ops::docs))
        .route("/v1/deals/{seed}", get(ui::deal))
        .route("/v1/pysol/{game}/{number}", get(ui::pysol_game))
        .route("/", get(ui::index))
        .route("/ui/app.js", get(ui::script))
        .route("/ui/play.js", get(ui::play_script))
        .route("/ui/app.css", get(ui::style))
        .route("/morpion", get(ui::morpion_page))
        .route("/ui/morpion.js", get(ui::morpion_script))
        .route("/ui/morpion/{name}", get(ui::morpion_record))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(
            (state.access.clone(), state.metrics.clone()),
            access::guard,
        ))
        .layer(middleware::from_fn_with_state(
            RequestTimeout {
                limit: Duration::from_millis(config.server.request_timeout_ms),
                metrics: state.metrics.clone(),
            },
            limit_time,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            record_latency,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(
            config.server.body_limit_bytes,
        ))
        .with_state(state);
    let mut app = api
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &Request| {
                let id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-");
                tracing::info_span!("request", method = %req.method(), uri = %req.uri(), request_id = %id)
            }),
        )
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid));
    if !config.server.cors_origins.is_empty() {
        let origins = &config.server.cors_origins;
        let allow = if origins.iter().any(|o| o == "*") {
            AllowOrigin::any()
        } else {
            AllowOrigin::list(
                origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o).ok())
                    .collect::<Vec<_>>(),
            )
        };
        app = app.layer(
            CorsLayer::new()
                .allow_origin(allow)
                .allow_methods([Method::GET, Method::POST, Method::DELETE])
                .allow_headers([
                    axum::http::header::CONTENT_TYPE,
                    axum::http::header::AUTHORIZATION,
                    axum::http::HeaderName::from_static(idempotency::HEADER),
                ])
                .expose_headers([
                    axum::http::header::LOCATION,
                    axum::http::HeaderName::from_static(idempotency::REPLAYED),
                ]),
        );
    }
    app
}

async fn not_found(uri: axum::http::Uri) -> Response {
    problem_response(
        StatusCode::NOT_FOUND,
        "not-found",
        "Not found",
        format!("no route {}; see /docs", uri.path()),
    )
}

async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> Response {
    problem_response(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "Method not allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// The bound of [`limit_time`]: `server.request_timeout_ms`, and where to count.
#[derive(Clone)]
pub struct RequestTimeout {
    /// Longest time to an answer's headers.
    pub limit: Duration,
    /// Counts the requests that took longer.
    pub metrics: Arc<Metrics>,
}

/// Answers 503 when a request is not answered within its [`RequestTimeout`] (the
/// request's future is dropped, which also releases what it held, a wait slot say).
/// Only the answer's headers are bounded: a streamed body may take longer.
pub async fn limit_time(
    axum::extract::State(timeout): axum::extract::State<RequestTimeout>,
    req: Request,
    next: Next,
) -> Response {
    match tokio::time::timeout(timeout.limit, next.run(req)).await {
        Ok(response) => response,
        Err(_) => {
            timeout.metrics.timed_out.inc();
            ApiError::Unavailable(format!(
                "the request was not answered within {} ms; it may or may not have taken effect",
                timeout.limit.as_millis()
            ))
            .into_response()
        }
    }
}

async fn record_latency(
    axum::extract::State(state): axum::extract::State<AppState>,
    req: Request,
    next: Next,
) -> impl IntoResponse {
    let began = Instant::now();
    let method = req.method().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let response = next.run(req).await;
    state
        .metrics
        .http_seconds
        .get_or_create(&HttpLabels {
            method,
            route,
            status: response.status().as_u16(),
        })
        .observe(began.elapsed().as_secs_f64());
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    #[tokio::test]
    async fn a_request_past_its_time_gets_503_problem_json_and_is_counted() {
        let metrics = Arc::new(Metrics::default());
        let app = Router::new()
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    "late"
                }),
            )
            .route("/fast", get(|| async { "fast" }))
            .layer(middleware::from_fn_with_state(
                RequestTimeout {
                    limit: Duration::from_millis(100),
                    metrics: metrics.clone(),
                },
                limit_time,
            ));
        let call = |uri: &'static str| {
            app.clone().oneshot(
                Request::builder()
                    .uri(uri)
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
        };
        let slow = call("/slow").await.unwrap();
        assert_eq!(slow.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            slow.headers()[axum::http::header::CONTENT_TYPE],
            "application/problem+json"
        );
        assert_eq!(call("/fast").await.unwrap().status(), StatusCode::OK);
        assert_eq!(metrics.timed_out.get(), 1);
    }
}
