//! Bad input of every kind is answered 4xx `application/problem+json` with a detail that
//! names the problem, and nothing is stored.
use crate::support;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use serde_json::json;
use support::start;
use tower::ServiceExt;

#[tokio::test]
async fn bad_input_is_refused_with_problem_json_and_nothing_is_stored() {
    let t = start().await;
    let cases: &[(&str, &str, Option<&str>, StatusCode, &str)] = &[
        (
            "POST",
            "/v1/jobs",
            Some("{not json"),
            StatusCode::BAD_REQUEST,
            "",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"position": 5}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "position",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"positon": "x"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown field",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "position",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"position": "2S 3S 4S -- / -- 2H"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "position",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"position": "2S 3S 4S -- ZZ"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "ZZ",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "variant": "klondike"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "variant",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "magic"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "algorithm",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "variant": "common", "algorithm": "blocks"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "blocks",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "variant": "basic", "algorithm": "assign"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "assign",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1, "suits": 9}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "deal",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1, "ranks": 2}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "deal",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": -1}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "seed",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 18446744073709551615}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "2^63",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "limits": {"nodes": -5}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "nodes",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "limits": {"nodes": 0}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "limits.nodes",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "limits": {"time_ms": 999999999999}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "limits.time_ms",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "limits": {"table_mb": 100000}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "table_mb",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "exact", "limits": {"table_mb": 100000}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "the node's memory for searches",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "exact", "limits": {"threads": 0}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "limits.threads",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "exact", "limits": {"threads": 3}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "between 1 and 2",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "dfs", "limits": {"threads": 2}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "applies to blocks, exact and hybrid",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "limits": {"threads": -1}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "threads",
        ),
        (
            "POST",
            "/v1/batches",
            Some(r#"{"count": 2, "algorithm": "sampling", "limits": {"threads": 2}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "applies to blocks, exact and hybrid",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "position": "x"}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not several",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "sampling", "limits": {"probes": 0}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "limits.probes",
        ),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "algorithm": "dfs", "limits": {"probes": 10}}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not to dfs on basic",
        ),
        (
            "POST",
            "/v1/jobs?wait_ms=abc",
            Some(r#"{"deal": {"seed": 1}}"#),
            StatusCode::BAD_REQUEST,
            "wait_ms",
        ),
        (
            "POST",
            "/v1/batches",
            Some(r#"{"count": 0}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "count",
        ),
        (
            "POST",
            "/v1/batches",
            Some(r#"{"count": 51}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "count",
        ),
        (
            "POST",
            "/v1/batches",
            Some(r#"{"count": 5, "suits": 0}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "deal",
        ),
        (
            "POST",
            "/v1/batches",
            Some(r#"{"count": 5, "seed": 9223372036854775807}"#),
            StatusCode::UNPROCESSABLE_ENTITY,
            "2^63",
        ),
        ("GET", "/v1/jobs/nope", None, StatusCode::NOT_FOUND, "nope"),
        (
            "DELETE",
            "/v1/jobs/nope",
            None,
            StatusCode::NOT_FOUND,
            "nope",
        ),
        (
            "GET",
            "/v1/batches/nope",
            None,
            StatusCode::NOT_FOUND,
            "nope",
        ),
        (
            "GET",
            "/v1/jobs?state=sleeping",
            None,
            StatusCode::BAD_REQUEST,
            "state",
        ),
        (
            "GET",
            "/v1/jobs?limit=0",
            None,
            StatusCode::BAD_REQUEST,
            "limit",
        ),
        (
            "GET",
            "/v1/jobs?cursor=xyz",
            None,
            StatusCode::BAD_REQUEST,
            "cursor",
        ),
        (
            "GET",
            "/v1/nothing",
            None,
            StatusCode::NOT_FOUND,
            "no route",
        ),
        (
            "PUT",
            "/v1/jobs",
            None,
            StatusCode::METHOD_NOT_ALLOWED,
            "PUT",
        ),
    ];
    for (method, uri, body, want, needle) in cases {
        let (status, content_type, problem) = t.call(method, uri, *body).await;
        assert_eq!(status, *want, "{method} {uri} {body:?}: {problem}");
        assert_eq!(
            content_type, "application/problem+json",
            "{method} {uri} {body:?}"
        );
        assert_eq!(problem["status"], want.as_u16());
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains(needle),
            "{method} {uri} {body:?}: {detail:?} lacks {needle:?}"
        );
    }
    // Not JSON at all, and too large.
    let req = Request::post("/v1/jobs")
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from("{}"))
        .unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge = format!(r#"{{"position": "{}"}}"#, "2S ".repeat(5000));
    let (status, content_type, _) = t.call("POST", "/v1/jobs", Some(&huge)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(t.job_count().await, 0, "no bad request stored a job");
    let (_, _, rates) = t.call("GET", "/v1/stats/win-rates", None).await;
    assert_eq!(rates, json!([]));
}
