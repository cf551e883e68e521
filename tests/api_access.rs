//! Access control through the router (docs/http.md, "Access and quotas"): bearer tokens, protected
//! reads, who may cancel, rate limits and the queued-jobs cap. Every refusal is
//! problem+json and stores nothing.

use crate::support;

use axum::http::{header, StatusCode};
use serde_json::json;
use support::start_with;

const ALICE: &str = "alice:correct-horse";
const BOB: &str = "bob:battery-staple";
const ROOT: &str = "root:admin-secret";

fn job() -> String {
    json!({"deal": {"seed": 3, "suits": 4, "ranks": 5}}).to_string()
}

fn is_problem(headers: &axum::http::HeaderMap) -> bool {
    headers[header::CONTENT_TYPE] == "application/problem+json"
}

#[tokio::test]
async fn with_tokens_writes_need_a_valid_bearer_and_nothing_is_stored_without_one() {
    let t = start_with(|c| {
        c.auth.tokens = vec![ALICE.into(), BOB.into(), ROOT.into()];
        c.auth.admins = vec!["root".into()];
        c.solver.threads = Some(0); // jobs stay queued, so they can be cancelled
    })
    .await;
    let body = job();
    for token in [None, Some("wrong"), Some("alice"), Some("correct-horse")] {
        let (status, headers, problem) = t
            .call_as("POST", "/v1/jobs", Some(&body), token, None)
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}");
        assert!(headers[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap()
            .starts_with("Bearer"));
        assert!(
            is_problem(&headers) && problem["status"] == 401,
            "{problem}"
        );
        assert!(!problem.to_string().contains("correct-horse"));
    }
    let batch = json!({"suits": 4, "ranks": 5, "count": 3}).to_string();
    let (status, _, _) = t
        .call_as("POST", "/v1/batches", Some(&batch), None, None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Reads stay open: nothing was stored.
    assert_eq!(t.job_count().await, 0);
    let (status, _, _) = t.call_as("GET", "/healthz", None, None, None).await;
    assert_eq!(status, StatusCode::OK);

    // A valid token: the job records the token's name, never the token.
    let (status, _, created) = t
        .call_as("POST", "/v1/jobs", Some(&body), Some(ALICE), None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{created}");
    assert_eq!(created["created_by"], "alice");
    let id = created["id"].as_str().unwrap().to_string();
    let (status, _, b) = t
        .call_as("POST", "/v1/batches", Some(&batch), Some(BOB), None)
        .await;
    assert_eq!(
        (status, b["created_by"].as_str()),
        (StatusCode::ACCEPTED, Some("bob"))
    );

    // Cancel: not without a token, not by another client, yes by an admin.
    let uri = format!("/v1/jobs/{id}");
    let (status, _, _) = t.call_as("DELETE", &uri, None, None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, headers, _) = t.call_as("DELETE", &uri, None, Some(BOB), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(is_problem(&headers));
    let (_, _, still) = t.call_as("GET", &uri, None, None, None).await;
    assert_eq!(still["state"], "queued");
    let (status, _, cancelled) = t.call_as("DELETE", &uri, None, Some(ROOT), None).await;
    assert_eq!(
        (status, cancelled["state"].as_str()),
        (StatusCode::OK, Some("cancelled"))
    );

    let metrics = t.text("/metrics").await;
    assert!(metrics.contains("gaps_unauthorized_total 6"), "{metrics}");
    assert!(metrics.contains("gaps_created_by_token_total{name=\"alice\"} 1"));
    assert!(!metrics.contains("correct-horse"));
}

#[tokio::test]
async fn protected_reads_need_a_token_except_the_health_check() {
    let t = start_with(|c| {
        c.auth.tokens = vec![ALICE.into()];
        c.auth.protect_reads = true;
    })
    .await;
    for uri in ["/v1/jobs", "/v1/stats/win-rates", "/metrics"] {
        let (status, headers, _) = t.call_as("GET", uri, None, None, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{uri}");
        assert!(headers.contains_key(header::WWW_AUTHENTICATE));
        let (status, _, _) = t.call_as("GET", uri, None, Some(ALICE), None).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
    }
    let (status, _, _) = t.call_as("GET", "/healthz", None, None, None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn over_its_rate_a_client_gets_429_with_retry_after_and_others_keep_theirs() {
    let t = start_with(|c| {
        c.limits.rate_per_s = 1;
        c.limits.rate_burst = 2;
        c.solver.threads = Some(0);
    })
    .await;
    let body = job();
    let from = |peer: &'static str| Some(peer);
    for _ in 0..2 {
        let (status, _, _) = t
            .call_as("POST", "/v1/jobs", Some(&body), None, from("10.0.0.1:5000"))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
    let (status, headers, problem) = t
        .call_as("POST", "/v1/jobs", Some(&body), None, from("10.0.0.1:5001"))
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(is_problem(&headers) && problem["status"] == 429);
    let retry: u64 = headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    let batch = json!({"suits": 4, "ranks": 5, "count": 2}).to_string();
    let (status, _, _) = t
        .call_as(
            "POST",
            "/v1/batches",
            Some(&batch),
            None,
            from("10.0.0.1:5002"),
        )
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(t.job_count().await, 2, "nothing stored over the limit");
    // Another address has its own allowance; reads are never limited.
    let (status, _, other) = t
        .call_as("POST", "/v1/jobs", Some(&body), None, from("10.0.0.2:5000"))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(other["created_by"], "10.0.0.2");
    for _ in 0..5 {
        let (status, _, _) = t
            .call_as("GET", "/v1/jobs", None, None, from("10.0.0.1:5000"))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    assert!(t
        .text("/metrics")
        .await
        .contains("gaps_refused_total{reason=\"rate\"} 2"));
}

#[tokio::test]
async fn a_client_at_its_queued_cap_gets_429_until_its_jobs_run() {
    let t = start_with(|c| {
        c.auth.tokens = vec![ALICE.into(), BOB.into()];
        c.limits.max_queued_per_client = 2;
        c.solver.threads = Some(0);
    })
    .await;
    for seed in 0..2 {
        let body = json!({"deal": {"seed": seed, "suits": 4, "ranks": 5}}).to_string();
        let (status, _, _) = t
            .call_as("POST", "/v1/jobs", Some(&body), Some(ALICE), None)
            .await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
    let body = job();
    let (status, headers, _) = t
        .call_as("POST", "/v1/jobs", Some(&body), Some(ALICE), None)
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(headers.contains_key(header::RETRY_AFTER));
    let (status, _, _) = t
        .call_as("POST", "/v1/jobs", Some(&body), Some(BOB), None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(t.job_count().await, 3);
    // Morpion proofs count against the same cap, and Gaps jobs against theirs.
    let morpion = json!({"game": "morpion", "record": "(3,3)\n(2,2) / 0\n", "from": 1}).to_string();
    let (status, _, _) = t
        .call_as("POST", "/v1/jobs", Some(&morpion), Some(ALICE), None)
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, _, _) = t
        .call_as("POST", "/v1/jobs", Some(&morpion), Some(BOB), None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, _, _) = t
        .call_as("POST", "/v1/jobs", Some(&body), Some(BOB), None)
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn a_batchs_deals_count_against_its_clients_queued_cap() {
    let t = start_with(|c| {
        c.auth.tokens = vec![ALICE.into(), BOB.into()];
        c.limits.max_queued_per_client = 10;
        c.solver.threads = Some(0);
    })
    .await;
    let batch = |count: u64| json!({"suits": 4, "ranks": 5, "count": count}).to_string();
    let post = |body: String, token: &'static str| {
        let t = &t;
        async move {
            let (status, headers, _) = t
                .call_as("POST", "/v1/batches", Some(&body), Some(token), None)
                .await;
            (status, headers)
        }
    };
    let (status, _) = post(batch(11), ALICE).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "larger than the cap"
    );
    let (status, _) = post(batch(6), ALICE).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, headers) = post(batch(5), ALICE).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "6 + 5 waiting > 10");
    assert!(headers.contains_key(header::RETRY_AFTER));
    let (status, _) = post(batch(4), ALICE).await;
    assert_eq!(status, StatusCode::ACCEPTED, "6 + 4 = 10");
    let (status, _, _) = t
        .call_as("POST", "/v1/jobs", Some(&job()), Some(ALICE), None)
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "10 deals wait");
    let (status, _) = post(batch(10), BOB).await;
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "another client keeps its share"
    );
}

#[tokio::test]
async fn beyond_the_wait_caps_a_request_is_answered_at_once() {
    use std::time::Duration;
    let t = start_with(|c| {
        c.auth.tokens = vec![ALICE.into(), BOB.into()];
        c.limits.max_waiters = 2;
        c.limits.max_waiters_per_client = 1;
        c.solver.threads = Some(0); // jobs stay queued
    })
    .await;
    let (status, _, queued) = t
        .call_as("POST", "/v1/jobs", Some(&job()), Some(ALICE), None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let uri = format!("/v1/jobs/{}?wait_ms=20000", queued["id"].as_str().unwrap());
    // Alice's first wait holds her one slot...
    let mut first = Box::pin(t.call_as("GET", &uri, None, Some(ALICE), None));
    assert!(tokio::time::timeout(Duration::from_millis(200), &mut first)
        .await
        .is_err());
    // ...so her second is answered at once, still queued.
    let (status, _, job) = tokio::time::timeout(
        Duration::from_secs(5),
        t.call_as("GET", &uri, None, Some(ALICE), None),
    )
    .await
    .expect("answered without waiting");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(job["state"], "queued");
    // Bob still gets the node's second slot and waits.
    let bob = t.call_as("GET", &uri, None, Some(BOB), None);
    assert!(tokio::time::timeout(Duration::from_millis(200), bob)
        .await
        .is_err());
    assert!(t
        .text("/metrics")
        .await
        .contains("gaps_waits_refused_total 1"));
    // Requests that ended (the timed-out futures were dropped) gave their slots back.
    drop(first);
    assert_eq!(t.service.state.waits.held(), 0);
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_client_is_the_one_limited_and_recorded() {
    use axum::body::Body;
    use axum::extract::ConnectInfo;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let t = start_with(|c| {
        c.server.trusted_proxies = vec!["10.0.0.1".parse().unwrap()];
        c.limits.rate_per_s = 1;
        c.limits.rate_burst = 1;
        c.solver.threads = Some(0);
    })
    .await;
    let post = |peer: &str, forwarded: &str| {
        let mut req = axum::http::Request::post("/v1/jobs")
            .header(header::CONTENT_TYPE, "application/json")
            .header("x-forwarded-for", forwarded)
            .body(Body::from(job()))
            .unwrap();
        let addr: std::net::SocketAddr = format!("{peer}:4000").parse().unwrap();
        req.extensions_mut().insert(ConnectInfo(addr));
        let router = t.service.router();
        async move {
            let res = router.oneshot(req).await.unwrap();
            let status = res.status();
            let bytes = res.into_body().collect().await.unwrap().to_bytes();
            (
                status,
                serde_json::from_slice::<serde_json::Value>(&bytes).unwrap(),
            )
        }
    };
    let (status, first) = post("10.0.0.1", "203.0.113.7").await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(first["created_by"], "203.0.113.7");
    // Another client behind the same proxy has its own allowance...
    let (status, _) = post("10.0.0.1", "203.0.113.8").await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // ...the same one is over its rate...
    let (status, _) = post("10.0.0.1", "203.0.113.7").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // ...and a client that is not a trusted proxy cannot pick its address.
    let (status, job) = post("198.51.100.9", "203.0.113.99").await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(job["created_by"], "198.51.100.9");
}
