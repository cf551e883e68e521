//! The service's one error type and its `application/problem+json` form (RFC 9457).
//!
//! Invariants: every handler error is an [`ApiError`]; client errors say what is wrong
//! in `detail`; internal errors are logged once, here, and answer a generic 500 without
//! internal details.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A failed request.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed or out of range (400).
    #[error("{0}")]
    BadRequest(String),
    /// The request parses but asks for something impossible (422), e.g. a bad position.
    #[error("{0}")]
    Unprocessable(String),
    /// No such resource (404).
    #[error("{0}")]
    NotFound(String),
    /// The resource is in a state that forbids the request (409).
    #[error("{0}")]
    Conflict(String),
    /// The body is not JSON (415).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The body is too large (413).
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The caller's token may not do this (403).
    #[error("{0}")]
    Forbidden(String),
    /// The client is over its rate limit or queued-jobs cap (429); the response
    /// carries `Retry-After`.
    #[error("{0}")]
    TooManyRequests(String),
    /// The service cannot take work now (503): shutting down, or its store is down.
    #[error("{0}")]
    Unavailable(String),
    /// Anything unexpected (500); the cause is logged, never sent.
    #[error("internal error: {0}")]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for ApiError {
    /// A database that cannot be reached, or is busy, is a 503 the client may retry (the
    /// request changed nothing); anything else is a 500.
    fn from(e: sqlx::Error) -> Self {
        if crate::service::store::database_unavailable(&e) {
            tracing::warn!(error = %e, "the database is unavailable");
            ApiError::Unavailable("the database is unavailable; retry shortly".into())
        } else {
            ApiError::Internal(e.into())
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let detail = rejection.body_text();
        match rejection.status() {
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::UnsupportedMediaType(
                "send the body as JSON with `Content-Type: application/json`".into(),
            ),
            StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::PayloadTooLarge("the request body is larger than allowed".into())
            }
            StatusCode::UNPROCESSABLE_ENTITY => ApiError::Unprocessable(detail),
            _ => ApiError::BadRequest(detail),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::BadRequest(rejection.body_text())
    }
}

/// The problem+json body.
#[derive(Serialize, Debug, utoipa::ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem.
    #[serde(rename = "type")]
    pub kind: String,
    /// Short summary of the kind.
    pub title: String,
    /// HTTP status.
    pub status: u16,
    /// What exactly is wrong with this request.
    pub detail: String,
}

impl ApiError {
    /// The answer to new work during a graceful shutdown.
    pub fn shutting_down() -> ApiError {
        ApiError::Unavailable("the service is shutting down and takes no new work".into())
    }

    fn parts(&self) -> (StatusCode, &'static str, &'static str) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad-request", "Bad request"),
            ApiError::Unprocessable(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-input",
                "Invalid input",
            ),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found", "Not found"),
            ApiError::Conflict(_) => (StatusCode::CONFLICT, "conflict", "Conflict"),
            ApiError::UnsupportedMediaType(_) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
                "Unsupported media type",
            ),
            ApiError::PayloadTooLarge(_) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload-too-large",
                "Payload too large",
            ),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden", "Forbidden"),
            ApiError::TooManyRequests(_) => (
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-requests",
                "Too many requests",
            ),
            ApiError::Unavailable(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "Service unavailable",
            ),
            ApiError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "Internal server error",
            ),
        }
    }
}

/// A problem+json response for `status` with `detail` (used by fallbacks and layers).
pub fn problem_response(status: StatusCode, kind: &str, title: &str, detail: String) -> Response {
    let body = Problem {
        kind: format!("https://gaps.example/problems/{kind}"),
        title: title.to_string(),
        status: status.as_u16(),
        detail,
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/problem+json")],
        serde_json::to_string(&body).unwrap_or_default(),
    )
        .into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, kind, title) = self.parts();
        let retry = matches!(
            status,
            StatusCode::SERVICE_UNAVAILABLE | StatusCode::TOO_MANY_REQUESTS
        );
        let detail = match &self {
            ApiError::Internal(cause) => {
                tracing::error!(error = %format!("{cause:#}"), "internal error");
                "the server failed to handle this request; it has been logged".to_string()
            }
            other => other.to_string(),
        };
        let mut response = problem_response(status, kind, title, detail);
        if retry {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// Shorthand for handler results.
pub type ApiResult<T> = Result<T, ApiError>;
