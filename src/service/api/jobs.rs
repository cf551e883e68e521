//! `/v1/jobs`: submit, read (optionally waiting), list with filters and cursor, cancel;
//! for jobs of every game (a Gaps search, a Morpion proof), and a Morpion job's record.
//!
//! Invariant: a job is stored only after its request validated completely; a known
//! exact verdict answers at once (the job is stored `done`, `cached`), everything else
//! is queued for the runner. Reading, waiting, listing and cancelling are the same for
//! every game; only the request and the view are a game's own.

use super::idempotency::{self, Route};
use super::{ApiJson, ApiQuery};
use crate::request::rounds::RedealCount;
use crate::service::api::access::Caller;
use crate::service::api::error::{ApiError, ApiResult, Problem};
use crate::service::api::model::{
    from_json, is_cursor, AnyJobRequest, AnyJobView, JobPage, JobRequest, JobView, ListQuery,
    MorpionJobRequest, MorpionJobView, OddsJobView, Progress, QueueView, WaitQuery,
    MAX_WAIT_QUERY_MS,
};
use crate::service::api::state::AppState;
use crate::service::api::wait_slots::WaitSlot;
use crate::service::job::{Game, JobState};
use crate::service::resources::metrics::{EndVerdict, JobKind, Refusal};
use crate::service::store::{Announce, AnyJob, JobFilter, JobRow, MorpionJobRow, OddsJobRow};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use gaps_engine::{Variant, Verdict};
use std::time::Duration;

/// The view of Gaps job `row`, with the node count so far (live when a lane of this
/// process runs it, else as its holder last wrote) and what it waits for.
fn view(state: &AppState, row: JobRow) -> JobView {
    let running = row.life.state == JobState::Running;
    let (id, written) = (row.spec.id.clone(), row.life.progress_nodes);
    let mut view = JobView::from(row);
    if running {
        let nodes = state.runner.progress(&id).unwrap_or(written as u64);
        view.life.progress = Some(Progress { nodes });
        view.waiting_for = state
            .runner
            .status(&id)
            .and_then(|status| status.waiting_for())
            .map(str::to_string);
    }
    view
}

/// The view of Morpion job `row`: while it runs, the live node count when this
/// process proves it whole (else the count its holder last wrote); for a shared proof,
/// the units done and the nodes of every unit so far.
async fn morpion_view(state: &AppState, row: MorpionJobRow) -> ApiResult<MorpionJobView> {
    let running = row.life.state == JobState::Running;
    let (id, split, frontier) = (row.id.clone(), row.units_total, row.frontier_nodes);
    let mut view = MorpionJobView::from(row);
    if split.is_some() {
        let units = state.store.units_progress(&id).await?;
        view.units_done = Some(units.done);
        if running {
            let nodes = frontier.unwrap_or(0).saturating_add(units.nodes);
            view.life.progress = Some(Progress {
                nodes: nodes as u64,
            });
        }
    } else if running {
        if let Some(nodes) = state.runner.progress(&id) {
            view.life.progress = Some(Progress { nodes });
        }
    }
    Ok(view)
}

/// The view of odds job `row`, with the live node count while this process runs it.
fn odds_view(state: &AppState, row: OddsJobRow) -> OddsJobView {
    let running = row.life.state == JobState::Running;
    let id = row.spec.id.clone();
    let mut view = OddsJobView::from(row);
    if running {
        if let Some(nodes) = state.runner.progress(&id) {
            view.life.progress = Some(Progress { nodes });
        }
    }
    view
}

/// The view of a job of any game, as a list shows it. The parts of a job (the units of
/// a shared proof) are shown through it: reading one is a 404 that names it.
async fn any_view(state: &AppState, job: AnyJob) -> ApiResult<AnyJobView> {
    Ok(match job {
        AnyJob::Gaps(row) => AnyJobView::Gaps(Box::new(view(state, *row))),
        AnyJob::Morpion(row) => AnyJobView::Morpion(Box::new(morpion_view(state, *row).await?)),
        AnyJob::Odds(row) => AnyJobView::Odds(Box::new(odds_view(state, *row))),
        AnyJob::MorpionUnit(unit) => {
            return Err(ApiError::NotFound(format!(
                "{:?} is unit {} of the shared Morpion proof {:?}: read the proof",
                unit.id, unit.unit, unit.parent_id
            )))
        }
    })
}

/// [`any_view`], with its place in the queue when it is queued (a bounded count: lists
/// leave it out).
pub(super) async fn view_alone(state: &AppState, job: AnyJob) -> ApiResult<AnyJobView> {
    let place = match job.state() {
        JobState::Queued => {
            let key = job.queue_key();
            Some((key.0, state.store.queue_place(key).await?))
        }
        _ => None,
    };
    let queue = place.map(|(class, place)| QueueView {
        class: if class == 0 { "single" } else { "batch" }.into(),
        ahead: place.ahead,
        ahead_at_least: place.at_least,
    });
    let mut view = any_view(state, job).await?;
    match &mut view {
        AnyJobView::Gaps(view) => view.life.queue = queue,
        AnyJobView::Morpion(view) => view.life.queue = queue,
        AnyJobView::Odds(view) => view.life.queue = queue,
    }
    Ok(view)
}

/// `job` once it ended, or as it is after waiting `used` (no wait when zero).
async fn waited(state: &AppState, job: AnyJob, used: Duration) -> ApiResult<AnyJob> {
    if job.is_final() || used.is_zero() {
        return Ok(job);
    }
    Ok(state
        .runner
        .wait_final(job.id(), used)
        .await?
        .unwrap_or(job))
}

/// Refuses a new job when `client` has `limits.max_queued_per_client` queued (jobs of
/// every game, with its batches' deals not yet queued).
async fn check_queued_cap(state: &AppState, client: &str) -> ApiResult<()> {
    let cap = state.config.limits.max_queued_per_client;
    if cap > 0 && state.store.queued_by(client).await? >= cap as i64 {
        state.metrics.count_refusal(Refusal::Queued);
        return Err(ApiError::TooManyRequests(format!(
            "this client has {cap} jobs queued, the most allowed; retry when some have run"
        )));
    }
    Ok(())
}

/// The header that says how long a request with `wait_ms` waited at most: the wait
/// asked, capped at `limits.max_wait_ms`, or 0 when the node's waits were all taken.
pub const WAIT_HEADER: &str = "gaps-wait-ms";

/// How long this request may wait, with the slot that lets it: `wait_ms` capped at
/// `limits.max_wait_ms` (a long-poll client waits the cap and asks again); no wait
/// (and no slot) when none was asked or the wait caps are reached.
fn wait_time(state: &AppState, caller: &Caller, wait: &WaitQuery) -> (Duration, Option<WaitSlot>) {
    let asked = wait
        .wait_ms
        .unwrap_or(0)
        .min(state.config.limits.max_wait_ms);
    if asked == 0 {
        return (Duration::ZERO, None);
    }
    match state.waits.try_take(&caller.name) {
        Some(slot) => (Duration::from_millis(asked), Some(slot)),
        None => {
            state.metrics.waits_refused.inc();
            (Duration::ZERO, None)
        }
    }
}

/// Refuses a `wait_ms` no clock holds (above 2^63-1: the document's `int64`), before
/// anything is stored; any other value is accepted and capped.
fn check_wait(wait: &WaitQuery) -> ApiResult<()> {
    match wait.wait_ms {
        Some(ms) if ms > MAX_WAIT_QUERY_MS => Err(ApiError::BadRequest(format!(
            "wait_ms must be a whole number of milliseconds up to 2^63-1 (got {ms}); a wait \
             above limits.max_wait_ms waits that long"
        ))),
        _ => Ok(()),
    }
}

/// The [`WAIT_HEADER`] of an answer to a request that gave `wait_ms`.
fn wait_header(wait: &WaitQuery, used: Duration) -> Option<(&'static str, String)> {
    wait.wait_ms
        .map(|_| (WAIT_HEADER, used.as_millis().to_string()))
}

/// Submit a job: a Gaps position or deal, or (with `"game": "morpion"`) a Morpion
/// Solitaire endgame proof.
#[utoipa::path(post, path = "/v1/jobs", request_body = AnyJobRequest,
    params(WaitQuery, ("Idempotency-Key" = Option<String>, Header, description = "Safe retries (docs/http.md, \"Safe retries\"): the same key with the same body gives the job or batch the first request made (answered with `idempotent-replayed: true`); with another body, a 422. A key is its client's own, kept 24 hours at least.")),
    responses(
        (status = 202, description = "Accepted (queued, or already done when the verdict was known or `wait_ms` sufficed)", body = AnyJobView,
            headers(("gaps-wait-ms" = u64, description = "With `wait_ms`: the wait used, in ms (`wait_ms` capped at `limits.max_wait_ms`; 0 when the node's waits were all taken)"))),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Tokens are configured and none valid was given", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A request with this `Idempotency-Key` and body is still being answered: retry", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid position, variant, algorithm or limits, or an `Idempotency-Key` used with another body", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Over the client's rate limit or queued-jobs cap (see Retry-After)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(wait): ApiQuery<WaitQuery>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> ApiResult<Response> {
    if state.runner.is_shutting_down() {
        return Err(ApiError::shutting_down());
    }
    check_wait(&wait)?;
    let (job, replayed) = match idempotency::key_of(&headers)? {
        None => (create_any(&state, &caller, body).await?, false),
        Some(key) => {
            let digest = idempotency::body_digest(&body);
            let find = |id: String| {
                let state = &state;
                async move { Ok(state.store.any_job(&id).await?) }
            };
            let make = || create_any(&state, &caller, body);
            let id_of = |job: &AnyJob| job.id().to_string();
            idempotency::answer_once(
                &state,
                &caller,
                Route::Jobs,
                &key,
                &digest,
                find,
                make,
                id_of,
            )
            .await?
        }
    };
    if !replayed {
        state.metrics.jobs_submitted.inc();
        caller.count_creation(&state.metrics);
    }
    let (used, _slot) = wait_time(&state, &caller, &wait);
    let job = waited(&state, job, used).await?;
    let location = format!("/v1/jobs/{}", job.id());
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION.as_str(), location)],
        wait_header(&wait, used).map(|h| [h]),
        replayed.then_some([(idempotency::REPLAYED, "true")]),
        Json(view_alone(&state, job).await?),
    )
        .into_response())
}

/// Stores the job `body` asks for, of any kind.
async fn create_any(
    state: &AppState,
    caller: &Caller,
    mut body: serde_json::Value,
) -> ApiResult<AnyJob> {
    let odds = body.get("odds").is_some();
    match body.get("game").map(|game| game.as_str()) {
        None if odds => create_odds(state, caller, body).await,
        None => create_gaps(state, caller, body).await,
        // The kind a Gaps or odds job's view names may be sent back.
        Some(Some(kind @ ("gaps" | "odds"))) => {
            let as_odds = odds || kind == "odds";
            if let Some(fields) = body.as_object_mut() {
                fields.remove("game");
            }
            match as_odds {
                true => create_odds(state, caller, body).await,
                false => create_gaps(state, caller, body).await,
            }
        }
        Some(_) => create_morpion(state, caller, body).await,
    }
}

/// Stores a Gaps job: answered at once by a known verdict, else queued.
async fn create_gaps(
    state: &AppState,
    caller: &Caller,
    body: serde_json::Value,
) -> ApiResult<AnyJob> {
    let request: JobRequest = from_json(body)?;
    let id = uuid::Uuid::now_v7().to_string();
    let job = request.validate(id, &caller.name, &state.config)?;
    check_queued_cap(state, &caller.name).await?;
    // The known verdicts are first-round ones (a position's); with redeals the answer
    // depends on the deal's generator too, so such a job is always searched; a game in
    // progress is about another position than its start (the runner answers it from
    // its own kind).
    let known = match job.redeals {
        RedealCount::NONE if job.played.is_none() => state
            .store
            .known_verdict(job.variant.0, &job.position.0)
            .await?
            .filter(|k| k.answers(&job)),
        _ => None,
    };
    let row = match known {
        Some(known) => {
            let row = state.store.insert_answered_job(&job, &known).await?;
            state
                .runner
                .count_finished(JobKind::Gaps, JobState::Done, known.verdict.0.into());
            row
        }
        None => {
            let row = state.store.insert_job(&job).await?;
            state.runner.notify_new_work();
            state.store.announce(Announce::Work);
            row
        }
    };
    Ok(AnyJob::Gaps(Box::new(row)))
}

/// Stores an odds job: answered at once by an earlier job that asked the same and
/// played every sample, else queued.
async fn create_odds(
    state: &AppState,
    caller: &Caller,
    body: serde_json::Value,
) -> ApiResult<AnyJob> {
    let request: JobRequest = from_json(body)?;
    let id = uuid::Uuid::now_v7().to_string();
    let job = request.validate_odds(id, &caller.name, &state.config)?;
    check_queued_cap(state, &caller.name).await?;
    let row = match state.store.earlier_odds(&job).await? {
        Some(answer) => {
            let row = state.store.insert_answered_odds_job(&job, &answer).await?;
            state
                .runner
                .count_finished(JobKind::Odds, JobState::Done, EndVerdict::None);
            row
        }
        None => {
            let row = state.store.insert_odds_job(&job).await?;
            state.runner.notify_new_work();
            state.store.announce(Announce::Work);
            row
        }
    };
    Ok(AnyJob::Odds(Box::new(row)))
}

/// Stores a Morpion endgame proof, validated (the record replayed) before it is
/// stored, then queued like any job.
async fn create_morpion(
    state: &AppState,
    caller: &Caller,
    body: serde_json::Value,
) -> ApiResult<AnyJob> {
    let request: MorpionJobRequest = from_json(body)?;
    let id = uuid::Uuid::now_v7().to_string();
    let job = request.validate(id, &caller.name, &state.config)?;
    check_queued_cap(state, &caller.name).await?;
    let row = state.store.insert_morpion_job(&job).await?;
    state.runner.notify_new_work();
    state.store.announce(Announce::Work);
    Ok(AnyJob::Morpion(Box::new(row)))
}

/// Read a job, optionally waiting up to `wait_ms` for it to finish.
#[utoipa::path(get, path = "/v1/jobs/{id}", params(("id" = String, Path, description = "Job id"), WaitQuery),
    responses(
        (status = 200, description = "The job", body = AnyJobView,
            headers(("gaps-wait-ms" = u64, description = "With `wait_ms`: the wait used, in ms (`wait_ms` capped at `limits.max_wait_ms`; 0 when the node's waits were all taken)"))),
        (status = 404, description = "No such job", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    ApiQuery(wait): ApiQuery<WaitQuery>,
) -> ApiResult<Response> {
    check_wait(&wait)?;
    let (used, _slot) = wait_time(&state, &caller, &wait);
    let header = wait_header(&wait, used).map(|h| [h]);
    let job = if used.is_zero() {
        state.store.any_job(&id).await?
    } else {
        state.runner.wait_final(&id, used).await?
    };
    let job = job.ok_or_else(|| ApiError::NotFound(format!("no job {id:?}")))?;
    Ok((header, Json(view_alone(&state, job).await?)).into_response())
}

/// Read the record a Morpion job was submitted with, as it was submitted.
#[utoipa::path(get, path = "/v1/jobs/{id}/record", params(("id" = String, Path, description = "Job id")),
    responses(
        (status = 200, description = "The record: MSR JSON (`application/json`) or Pentasol text (`text/plain`)", content(
            (serde_json::Value = "application/json"), (String = "text/plain"))),
        (status = 404, description = "No such job, or a Gaps or odds job (it has no record: its position is in its view)", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn record(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Response> {
    let Some(record) = state.store.morpion_record(&id).await? else {
        return Err(ApiError::NotFound(match state.store.any_job(&id).await? {
            Some(AnyJob::Odds(_)) => {
                format!("job {id:?} is an odds job: it has no record (its position is in its view)")
            }
            Some(_) => {
                format!("job {id:?} is a Gaps job: it has no record (its position is in its view)")
            }
            None => format!("no job {id:?}"),
        }));
    };
    let is_json = serde_json::from_str::<serde_json::Value>(&record).is_ok();
    let content_type = match is_json {
        true => "application/json",
        false => "text/plain; charset=utf-8",
    };
    Ok(([(header::CONTENT_TYPE, content_type)], record).into_response())
}

/// Cancel a queued or running job.
#[utoipa::path(delete, path = "/v1/jobs/{id}", params(("id" = String, Path, description = "Job id")),
    responses(
        (status = 200, description = "The job after the request: `cancelled`, or `running` with `cancel_requested` until its solver stops (within milliseconds)", body = AnyJobView),
        (status = 401, description = "Tokens are configured and none valid was given", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Another client's job (only its creator or an admin may cancel it)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such job", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The job already ended", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn cancel(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<AnyJobView>> {
    let before = state
        .store
        .any_job(&id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no job {id:?}")))?;
    if let AnyJob::MorpionUnit(_) = before {
        // A unit is cancelled with its proof.
        return any_view(&state, before).await.map(Json);
    }
    may_cancel(&state, &caller, &id, before.created_by(), before.state())?;
    let after = state
        .store
        .cancel(&id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no job {id:?}")))?;
    state.runner.stop_running(&id);
    state.store.announce(Announce::Cancel(&id));
    // The solver notices its flag within about 1024 nodes; give it a moment so the
    // answer usually shows the final state.
    let after = waited(&state, after, Duration::from_millis(200)).await?;
    Ok(Json(any_view(&state, after).await?))
}

/// Refuses the cancel of another client's job (where tokens are configured) and of a
/// job that already ended.
fn may_cancel(
    state: &AppState,
    caller: &Caller,
    id: &str,
    created_by: Option<&str>,
    job_state: JobState,
) -> ApiResult<()> {
    let own = created_by == Some(caller.name.as_str());
    if state.access.is_protected() && !caller.admin && !own {
        return Err(ApiError::Forbidden(format!(
            "job {id} was created by another client; only its creator or an admin may cancel it"
        )));
    }
    if job_state.is_final() {
        return Err(ApiError::Conflict(format!(
            "job {id} already ended ({job_state})"
        )));
    }
    Ok(())
}

/// List jobs, newest first, with filters and a cursor.
#[utoipa::path(get, path = "/v1/jobs", params(ListQuery),
    responses(
        (status = 200, description = "A page of jobs", body = JobPage),
        (status = 400, description = "Bad filter or cursor", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> ApiResult<Json<JobPage>> {
    let game = filter("game", &query.game, &Game::ALL, Game::name)?;
    let job_state = filter("state", &query.state, &JobState::ALL, JobState::name)?;
    let variant = filter("variant", &query.variant, &Variant::ALL, Variant::name)?;
    let verdict = filter("verdict", &query.verdict, &Verdict::ALL, Verdict::name)?;
    let caps = &state.config.limits;
    let limit = query.limit.unwrap_or(caps.default_page_size);
    if limit == 0 || limit > caps.max_page_size {
        return Err(ApiError::BadRequest(format!(
            "limit must be between 1 and {}",
            caps.max_page_size
        )));
    }
    let before = match &query.cursor {
        None => None,
        Some(c) => Some(
            c.parse::<i64>()
                .ok()
                .filter(|_| is_cursor(c))
                .ok_or_else(|| ApiError::BadRequest(format!("cursor {c:?} is not valid")))?,
        ),
    };
    let filter = JobFilter {
        game,
        state: job_state,
        variant,
        verdict,
        batch_id: query.batch,
        before,
        limit,
    };
    let mut rows = state.store.list_jobs(&filter).await?;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next_cursor = if more {
        rows.last().map(|r| r.seq().to_string())
    } else {
        None
    };
    let mut jobs = Vec::with_capacity(rows.len());
    for row in rows {
        jobs.push(any_view(&state, row).await?);
    }
    Ok(Json(JobPage { jobs, next_cursor }))
}

/// A list filter: the value whose public name is exactly `text`, or a 400 naming the
/// field and every accepted name.
fn filter<T: Copy>(
    field: &str,
    text: &Option<String>,
    all: &[T],
    name: fn(T) -> &'static str,
) -> ApiResult<Option<T>> {
    let Some(text) = text else {
        return Ok(None);
    };
    all.iter()
        .copied()
        .find(|&v| name(v) == text)
        .map(Some)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
            ApiError::BadRequest(format!("{field} must be one of {}", names.join(", ")))
        })
}
