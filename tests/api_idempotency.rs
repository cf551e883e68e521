//! Safe retries (docs/http.md, "Safe retries"): `Idempotency-Key` on `POST /v1/jobs` and
//! `POST /v1/batches`. The same key with the same body is the same job or batch (the
//! answer says it is replayed), whatever the order of the body's fields and however
//! many ask at once; another body is a 422 and stores nothing; a bad key is a 400; keys
//! are their client's own; the database holds them, so a restarted node and every
//! node of a shared database answer alike (SQLite and PostgreSQL).

use crate::support::{self, TestService};
use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// `POST uri` with `body` (JSON text), an optional key, from `peer`.
async fn post(
    t: &TestService,
    uri: &str,
    body: &str,
    key: Option<&str>,
    peer: &str,
) -> (StatusCode, HeaderMap, Value) {
    let mut req = Request::builder()
        .method("POST")
        .uri(uri)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(key) = key {
        req = req.header("idempotency-key", key);
    }
    let mut req = req.body(Body::from(body.to_string())).unwrap();
    let addr: std::net::SocketAddr = peer.parse().unwrap();
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(addr));
    let res = t.service.router().oneshot(req).await.unwrap();
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

const ME: &str = "10.0.0.1:4000";
const OTHER: &str = "10.0.0.2:4000";

/// Every promise on one service (`t`, nothing running: jobs stay queued).
async fn retries_are_safe(t: &TestService) {
    let job = r#"{"deal": {"seed": 5, "suits": 2, "ranks": 4}, "variant": "common"}"#;
    let (status, headers, first) = post(t, "/v1/jobs", job, Some("retry-1"), ME).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    assert!(headers.get("idempotent-replayed").is_none());
    let id = first["id"].as_str().unwrap().to_string();
    // Sent again, its fields in another order: the same job, said to be replayed.
    let reordered = r#"{"variant": "common", "deal": {"ranks": 4, "suits": 2, "seed": 5}}"#;
    for body in [job, reordered] {
        let (status, headers, again) = post(t, "/v1/jobs", body, Some("retry-1"), ME).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{again}");
        assert_eq!(again["id"], id.as_str());
        assert_eq!(headers["idempotent-replayed"], "true");
        assert_eq!(
            headers[header::LOCATION].to_str().unwrap(),
            format!("/v1/jobs/{id}")
        );
    }
    assert_eq!(t.job_count().await, 1);
    // Another body with the key: a 422, nothing stored.
    let other = r#"{"deal": {"seed": 6, "suits": 2, "ranks": 4}}"#;
    let (status, _, problem) = post(t, "/v1/jobs", other, Some("retry-1"), ME).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("was used with another body"),
        "{problem}"
    );
    assert_eq!(t.job_count().await, 1);
    // The key is the client's own: another client's same key is its own job.
    let (status, _, theirs) = post(t, "/v1/jobs", job, Some("retry-1"), OTHER).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_ne!(theirs["id"], id.as_str());
    assert_eq!(t.job_count().await, 2);
    // Bad keys: a 400, nothing stored.
    for key in ["k".repeat(256), "two words".into(), String::new()] {
        let (status, _, problem) = post(t, "/v1/jobs", job, Some(&key), ME).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{key:?}: {problem}");
        assert!(problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("Idempotency-Key:"));
    }
    assert_eq!(t.job_count().await, 2);
    // A refused request leaves its key free: the next request with it is answered.
    let bad = r#"{"deal": {"seed": 7, "suits": 9, "ranks": 4}}"#;
    let (status, _, _) = post(t, "/v1/jobs", bad, Some("retry-2"), ME).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, headers, _) = post(t, "/v1/jobs", other, Some("retry-2"), ME).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert!(headers.get("idempotent-replayed").is_none());
    assert_eq!(t.job_count().await, 3);
    // Many at once with one key: one job, every answer its id.
    let body = r#"{"deal": {"seed": 8, "suits": 2, "ranks": 4}}"#;
    let answers = futures_util::future::join_all(
        (0..8).map(|_| post(t, "/v1/jobs", body, Some("burst"), ME)),
    )
    .await;
    let ids: std::collections::BTreeSet<String> = answers
        .iter()
        .map(|(status, _, view)| {
            assert_eq!(*status, StatusCode::ACCEPTED, "{view}");
            view["id"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(t.job_count().await, 4);
    // A batch: the same batch again, another body refused, nothing more stored.
    let batch = r#"{"seed": 10, "count": 2, "suits": 2, "ranks": 4}"#;
    let (status, _, first) = post(t, "/v1/batches", batch, Some("retry-1"), ME).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    let (status, headers, again) = post(t, "/v1/batches", batch, Some("retry-1"), ME).await;
    assert_eq!((status, &again["id"]), (StatusCode::ACCEPTED, &first["id"]));
    assert_eq!(headers["idempotent-replayed"], "true");
    let other = r#"{"seed": 11, "count": 2, "suits": 2, "ranks": 4}"#;
    let (status, _, _) = post(t, "/v1/batches", other, Some("retry-1"), ME).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let uri = format!("/v1/batches/{}", first["id"].as_str().unwrap());
    let view = t.call("GET", &uri, None).await.2;
    assert_eq!(view["count"], 2, "{view}");
}

#[tokio::test]
async fn retries_are_safe_on_sqlite_and_a_restarted_node_answers_alike() {
    let t = support::start_with(|c| c.solver.threads = Some(0)).await;
    retries_are_safe(&t).await;
    // Another service on the same database (a node restarted): the same answers.
    let again = support::another_node(&t, "node-b", |c| c.solver.threads = Some(0)).await;
    let job = r#"{"deal": {"seed": 5, "suits": 2, "ranks": 4}, "variant": "common"}"#;
    let (_, _, first) = post(&t, "/v1/jobs", job, Some("retry-1"), ME).await;
    let (status, headers, view) = post(&again, "/v1/jobs", job, Some("retry-1"), ME).await;
    assert_eq!((status, &view["id"]), (StatusCode::ACCEPTED, &first["id"]));
    assert_eq!(headers["idempotent-replayed"], "true");
}

#[tokio::test]
async fn retries_are_safe_on_postgres_and_shared_by_its_nodes() {
    let Some(t) = support::start_on_postgres_with(|c| c.solver.threads = Some(0)).await else {
        return;
    };
    retries_are_safe(&t).await;
    let other = support::another_node(&t, "node-b", |c| c.solver.threads = Some(0)).await;
    let job = r#"{"deal": {"seed": 20, "suits": 2, "ranks": 4}}"#;
    let answers = futures_util::future::join_all((0..6).map(|i| {
        let node = if i % 2 == 0 { &t } else { &other };
        post(node, "/v1/jobs", job, Some("both-nodes"), ME)
    }))
    .await;
    let ids: std::collections::BTreeSet<&str> = answers
        .iter()
        .map(|(_, _, v)| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{answers:?}");
}
