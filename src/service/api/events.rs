//! Progress as it happens (docs/http.md, "Events"): `GET /v1/jobs/{id}/events` and
//! `GET /v1/batches/{id}/events` as server-sent events.
//!
//! Invariants: each event is a snapshot, sent when it differs from the one sent before:
//! `state` (the job's or batch's whole view, at every change of state or counts),
//! `progress` (a running job's positions searched, looked at about once a second) and,
//! last, `end` (the view of the job with its verdict, or of the finished batch), after
//! which the stream closes. An event's `id` names its snapshot, so a client that
//! reconnects with `Last-Event-ID` is not sent again the snapshot it has (a finished
//! job's stream then closes at once). A stream also closes after `limits.max_wait_ms`
//! (an `EventSource` reconnects by itself) and when the node shuts down. No CPU work:
//! a read of the store about once a second per stream.

use super::batches::batch_view;
use super::jobs::view_alone;
use crate::service::api::error::{ApiError, ApiResult};
use crate::service::api::model::{AnyJobView, BatchView};
use crate::service::api::state::AppState;
use crate::service::job::JobState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use std::convert::Infallible;
use std::time::Duration;
use tokio::time::Instant;
use utoipa::ToSchema;

/// One server-sent event, as the OpenAPI document describes the stream's items: its
/// fields `event`, `id` and `data`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ServerEvent {
    /// `state`, `progress` or `end`.
    event: String,
    /// The snapshot's id: sent back as `Last-Event-ID`, that snapshot is not sent again.
    id: String,
    /// The snapshot as JSON: a job's or batch's view, or a job's progress
    /// (`{"id", "state", "nodes"}`).
    #[schema(content_media_type = "application/json")]
    data: String,
}

/// How often a stream looks at its job or batch.
const EVERY: Duration = Duration::from_secs(1);

/// One snapshot: the event's name, its id and its data.
struct Snapshot {
    name: &'static str,
    id: String,
    data: serde_json::Value,
    last: bool,
}

/// What a stream keeps between events.
struct Follow {
    state: AppState,
    id: String,
    /// The id of the snapshot the client has (sent, or given as `Last-Event-ID`).
    seen: Option<String>,
    /// The state of the last job snapshot sent (`progress` when it is unchanged).
    seen_state: Option<JobState>,
    /// Looked at once already (then wait before looking again).
    looked: bool,
    ended: bool,
    until: Instant,
}

impl Follow {
    fn new(state: AppState, id: String, headers: &HeaderMap) -> Follow {
        let seen = headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let until = Instant::now() + Duration::from_millis(state.config.limits.max_wait_ms);
        Follow {
            state,
            id,
            seen,
            seen_state: None,
            looked: false,
            ended: false,
            until,
        }
    }

    /// Whether the stream is to close before looking again.
    fn over(&self) -> bool {
        self.ended || Instant::now() >= self.until || self.state.runner.is_shutting_down()
    }
}

/// The job's snapshot now (`None`: it is gone).
async fn job_snapshot(follow: &Follow) -> ApiResult<Option<Snapshot>> {
    let Some(job) = follow.state.store.any_job(&follow.id).await? else {
        return Ok(None);
    };
    let view = view_alone(&follow.state, job).await?;
    let life = match &view {
        AnyJobView::Gaps(v) => &v.life,
        AnyJobView::Morpion(v) => &v.life,
        AnyJobView::Odds(v) => &v.life,
    };
    let nodes = life.progress.as_ref().map_or(0, |p| p.nodes);
    let (state, attempts) = (life.state, life.attempts);
    let last = matches!(
        state,
        JobState::Done | JobState::Failed | JobState::Cancelled
    );
    let id = format!("{}.{attempts}.{nodes}", state.name());
    let name = if last {
        "end"
    } else if follow.seen_state == Some(state) {
        "progress"
    } else {
        "state"
    };
    let data = if name == "progress" {
        serde_json::json!({"id": follow.id, "state": state.name(), "nodes": nodes})
    } else {
        serde_json::to_value(&view).map_err(|e| ApiError::Internal(e.into()))?
    };
    Ok(Some(Snapshot {
        name,
        id,
        data,
        last,
    }))
}

/// The batch's snapshot now (`None`: it is gone).
async fn batch_snapshot(follow: &Follow) -> ApiResult<Option<Snapshot>> {
    let Some(row) = follow.state.store.batch(&follow.id).await? else {
        return Ok(None);
    };
    let view: BatchView = batch_view(&follow.state, row).await?;
    let id = format!(
        "{}.{}.{}.{}.{}.{}",
        view.jobs_created, view.queued, view.running, view.done, view.failed, view.cancelled
    );
    Ok(Some(Snapshot {
        name: if view.finished { "end" } else { "state" },
        id,
        last: view.finished,
        data: serde_json::to_value(&view).map_err(|e| ApiError::Internal(e.into()))?,
    }))
}

/// The next event of `follow`, or `None` when the stream is over.
async fn next_event(
    mut follow: Follow,
    batch: bool,
) -> Option<(Result<Event, Infallible>, Follow)> {
    loop {
        if follow.over() {
            return None;
        }
        if follow.looked {
            if batch {
                tokio::time::sleep(EVERY).await;
            } else {
                // Woken early when the job ends.
                follow
                    .state
                    .runner
                    .wait_final(&follow.id, EVERY)
                    .await
                    .ok()?;
            }
        }
        follow.looked = true;
        let snapshot = match batch {
            true => batch_snapshot(&follow).await.ok()??,
            false => job_snapshot(&follow).await.ok()??,
        };
        if follow.seen.as_deref() == Some(snapshot.id.as_str()) {
            // The client has it: a finished one ends the stream.
            follow.ended = snapshot.last;
            continue;
        }
        if !batch {
            follow.seen_state = snapshot.data["state"]
                .as_str()
                .and_then(|name| JobState::ALL.into_iter().find(|s| s.name() == name));
        }
        follow.seen = Some(snapshot.id.clone());
        follow.ended = snapshot.last;
        let event = Event::default()
            .event(snapshot.name)
            .id(snapshot.id)
            .json_data(&snapshot.data)
            .ok()?;
        return Some((Ok(event), follow));
    }
}

/// The stream of `id` (a batch's if `batch`, else a job's), kept alive while it waits.
fn stream_of(state: AppState, id: String, headers: &HeaderMap, batch: bool) -> Response {
    let follow = Follow::new(state, id, headers);
    let events = stream::unfold(follow, move |follow| next_event(follow, batch));
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Follow a job as it happens, as server-sent events.
#[utoipa::path(get, path = "/v1/jobs/{id}/events",
    params(("id" = String, Path, description = "Job id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The `id` of the last event received: that snapshot is not sent again")),
    responses(
        (status = 200, description = "`text/event-stream`: `state` (the job's view, at each change of state), `progress` (`{\"id\", \"state\", \"nodes\"}` about once a second while it runs), and last `end` (the view with the verdict), then the stream closes; it also closes after `limits.max_wait_ms` (reconnect with `Last-Event-ID`)", content_type = "text/event-stream", body = ServerEvent),
        (status = 404, description = "No such job", body = crate::service::api::error::Problem, content_type = "application/problem+json"),
    ))]
pub async fn job_events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let Some(job) = state.store.any_job(&id).await? else {
        return Err(ApiError::NotFound(format!("no job {id:?}")));
    };
    // A shared Morpion proof's unit is read through its proof: the 404 `GET` gives.
    view_alone(&state, job).await?;
    Ok(stream_of(state, id, &headers, false))
}

/// Follow a batch as it happens, as server-sent events.
#[utoipa::path(get, path = "/v1/batches/{id}/events",
    params(("id" = String, Path, description = "Batch id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The `id` of the last event received: that snapshot is not sent again")),
    responses(
        (status = 200, description = "`text/event-stream`: `state` (the batch's view, at each change of its counts, looked at about once a second), and last `end` (the finished batch), then the stream closes; it also closes after `limits.max_wait_ms` (reconnect with `Last-Event-ID`)", content_type = "text/event-stream", body = ServerEvent),
        (status = 404, description = "No such batch", body = crate::service::api::error::Problem, content_type = "application/problem+json"),
    ))]
pub async fn batch_events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    if state.store.batch(&id).await?.is_none() {
        return Err(ApiError::NotFound(format!("no batch {id:?}")));
    }
    Ok(stream_of(state, id, &headers, true))
}
