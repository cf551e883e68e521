//! Progress as it happens (docs/http.md, "Events"): a job's and a batch's server-sent
//! events, their order (`state`, `progress` with growing positions, `end` last, then
//! the stream closes), `Last-Event-ID` not sending again what the client has, a
//! finished job's `end` at once, a stream closing after `limits.max_wait_ms`, and the
//! 404 of an unknown id.

use crate::support::{self, TestService};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tower::ServiceExt;

/// One event: its name, id and data.
#[derive(Debug)]
struct Sent {
    name: String,
    id: String,
    data: Value,
}

/// The whole stream of `GET uri` (read until it closes), with `Last-Event-ID` `last`.
async fn follow(t: &TestService, uri: &str, last: Option<&str>) -> (StatusCode, String, Vec<Sent>) {
    let mut req = Request::builder().method("GET").uri(uri);
    if let Some(last) = last {
        req = req.header("last-event-id", last);
    }
    let res = t
        .service
        .router()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = tokio::time::timeout(Duration::from_secs(60), res.into_body().collect())
        .await
        .expect("the stream closes")
        .unwrap()
        .to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    if status != StatusCode::OK {
        return (status, content_type, Vec::new());
    }
    let events = text
        .split("\n\n")
        .filter_map(|block| {
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_string))
            };
            Some(Sent {
                name: field("event")?,
                id: field("id")?,
                data: serde_json::from_str(&field("data")?).unwrap(),
            })
        })
        .collect();
    (status, content_type, events)
}

#[tokio::test]
async fn a_job_is_followed_to_its_verdict_and_not_sent_again_what_the_client_has() {
    let t = support::start().await;
    // Common deal 2 by plain depth-first search is not decided in seconds: it runs to
    // its time limit, its positions growing.
    let body = json!({"deal": {"seed": 2}, "variant": "common", "algorithm": "dfs",
                      "limits": {"time_ms": 3000}});
    let job = t.post_job(body, "").await;
    let id = job["id"].as_str().unwrap();
    let uri = format!("/v1/jobs/{id}/events");
    let (status, content_type, events) = follow(&t, &uri, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"state"), "{names:?}");
    assert_eq!(names.last(), Some(&"end"), "{names:?}");
    assert_eq!(names.iter().filter(|n| **n == "end").count(), 1);
    let end = events.last().unwrap();
    assert_eq!(
        (end.data["state"].as_str(), end.data["id"].as_str()),
        (Some("done"), Some(id))
    );
    assert_eq!(end.data["verdict"], "unknown", "{}", end.data);
    // Positions searched, about once a second, growing.
    let nodes: Vec<u64> = events
        .iter()
        .filter(|e| e.name == "progress")
        .map(|e| e.data["nodes"].as_u64().unwrap())
        .collect();
    assert!(!nodes.is_empty(), "{names:?}");
    assert!(nodes.windows(2).all(|w| w[0] < w[1]), "{nodes:?}");
    let ids: std::collections::BTreeSet<&str> = events.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), events.len(), "each snapshot once");
    // Finished: its end at once; reconnecting with it, nothing, and the stream closes.
    let started = Instant::now();
    let (_, _, again) = follow(&t, &uri, None).await;
    assert_eq!(again.len(), 1);
    assert_eq!((again[0].name.as_str(), &again[0].id), ("end", &end.id));
    let (_, _, none) = follow(&t, &uri, Some(&end.id)).await;
    assert!(none.is_empty(), "{none:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // An unknown job: a 404.
    let (status, _, _) = follow(&t, "/v1/jobs/no-such-job/events", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_batch_is_followed_to_its_end_and_a_stream_closes_after_the_longest_wait() {
    let t = support::start().await;
    let body = json!({"seed": 0, "count": 4, "suits": 2, "ranks": 4});
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let id = batch["id"].as_str().unwrap();
    let (status, _, events) = follow(&t, &format!("/v1/batches/{id}/events"), None).await;
    assert_eq!(status, StatusCode::OK);
    let end = events.last().expect("events");
    assert_eq!(end.name, "end", "{events:?}");
    assert_eq!(
        (end.data["finished"].as_bool(), end.data["done"].as_i64()),
        (Some(true), Some(4))
    );
    assert!(events[..events.len() - 1].iter().all(|e| e.name == "state"));
    let (status, _, _) = follow(&t, "/v1/batches/no-such-batch/events", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Nothing runs here: a job stays queued, and its stream closes after
    // `limits.max_wait_ms` with the one snapshot it has.
    let idle = support::start_with(|c| {
        c.solver.threads = Some(0);
        c.limits.max_wait_ms = 1500;
    })
    .await;
    let job = idle
        .post_job(json!({"deal": {"seed": 1, "suits": 2, "ranks": 4}}), "")
        .await;
    let started = Instant::now();
    let uri = format!("/v1/jobs/{}/events", job["id"].as_str().unwrap());
    let (_, _, events) = follow(&idle, &uri, None).await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(1400) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        (events[0].name.as_str(), events[0].data["state"].as_str()),
        ("state", Some("queued"))
    );
}
