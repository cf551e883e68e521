//! Handler tests through `oneshot` on the real router, with a temporary database and a
//! real solver pool: jobs, waiting, known answers, cancellation, listing, batches, win
//! rates and operations endpoints (the search algorithms as jobs:
//! `tests/api_algorithms.rs`; bad input: `tests/api_bad_input.rs`; helpers:
//! `tests/support`).

use crate::support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use support::{start, start_with};
use tower::ServiceExt;

#[tokio::test]
async fn a_job_is_solved_and_its_solution_replays() {
    let t = start().await;
    // Deal 0 of 4x6 in basic; wait for the verdict in the same request.
    let job = t
        .post_job(
            json!({"deal": {"seed": 3, "suits": 4, "ranks": 6}}),
            "?wait_ms=10000",
        )
        .await;
    assert_eq!(job["state"], "done");
    assert_eq!(job["deal"], json!({"seed": 3, "suits": 4, "ranks": 6}));
    let verdict = job["verdict"].as_str().unwrap();
    assert!(verdict == "solvable" || verdict == "unsolvable");
    assert!(
        job["solution"].is_array(),
        "a done job has a solution list: {job}"
    );
    assert!(job["stats"]["nodes"].as_u64().unwrap() > 0);
    // The same position as text is the same position: answered from the store.
    let again = t
        .post_job(json!({"position": job["position"], "variant": "basic"}), "")
        .await;
    assert_eq!(again["state"], "done");
    assert_eq!(again["cached"], true);
    assert_eq!(again["verdict"], job["verdict"]);
    assert_eq!(again["solution"], job["solution"]);
    // Win rates count the position once.
    let (status, _, rates) = t.call("GET", "/v1/stats/win-rates", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(rates.as_array().unwrap().len(), 1);
    assert_eq!(rates[0]["deals"], 1);
    assert_eq!(rates[0]["suits"], 4);
    assert_eq!(rates[0]["ranks"], 6);
    assert_eq!(rates[0]["effort"][0]["jobs"], 1);
}

#[tokio::test]
async fn solvable_solutions_replay_through_the_engine() {
    let t = start().await;
    let mut found = false;
    for seed in 0..40 {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed, "suits": 3, "ranks": 5}}),
                "?wait_ms=10000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        if job["verdict"] == "solvable" {
            found = true;
            let start = gaps_engine::parse_position(job["position"].as_str().unwrap()).unwrap();
            let mut pos = start;
            for m in job["solution"].as_array().unwrap() {
                let from = (
                    m["from"][0].as_u64().unwrap() as usize,
                    m["from"][1].as_u64().unwrap() as usize,
                );
                let to = (
                    m["to"][0].as_u64().unwrap() as usize,
                    m["to"][1].as_u64().unwrap() as usize,
                );
                assert_eq!(
                    pos.at(from.0, from.1).unwrap().to_string(),
                    m["card"].as_str().unwrap()
                );
                assert!(pos.at(to.0, to.1).is_none());
                let mut moves = gaps_engine::MoveList::<{ gaps_engine::MAX_MOVES }>::default();
                pos.legal_moves(gaps_engine::Variant::Basic, &mut moves);
                let mv = moves
                    .as_slice()
                    .iter()
                    .copied()
                    .find(|mv| mv.from_rc() == from && mv.to_rc() == to)
                    .expect("the move is legal");
                pos.play(mv);
            }
            assert!(pos.is_won(gaps_engine::Variant::Basic));
        }
    }
    assert!(found, "some 3x5 deal among 40 is solvable");
}

#[tokio::test]
async fn a_running_job_is_cancelled_quickly() {
    let t = start().await;
    // A common 4x13 deal whose search takes far longer than the test.
    let mut cancelled = None;
    for seed in 0..20 {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed}, "variant": "common", "limits": {"time_ms": 60000}}),
                "?wait_ms=300",
            )
            .await;
        if job["state"] == "running" {
            let id = job["id"].as_str().unwrap().to_string();
            // A running job shows how far its search has got.
            let (_, _, live) = t.call("GET", &format!("/v1/jobs/{id}"), None).await;
            assert!(live["progress"]["nodes"].as_u64().unwrap() > 0, "{live}");
            let began = std::time::Instant::now();
            let (status, _, after) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
            assert_eq!(status, StatusCode::OK);
            let (_, _, fin) = t
                .call("GET", &format!("/v1/jobs/{id}?wait_ms=2000"), None)
                .await;
            assert_eq!(fin["state"], "cancelled", "{after}");
            assert!(
                began.elapsed().as_millis() < 1000,
                "cancelled within a second"
            );
            assert!(fin["stats"]["nodes"].as_u64().unwrap() > 0);
            cancelled = Some(id);
            break;
        }
    }
    let id = cancelled.expect("some common deal runs longer than 300 ms");
    // Cancelling again is a conflict; the job stays cancelled.
    let (status, _, _) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Cancelled jobs do not count in win rates.
    let (_, _, rates) = t.call("GET", "/v1/stats/win-rates", None).await;
    for row in rates.as_array().unwrap() {
        assert_eq!(row["variant"], "common");
        assert_eq!(row["unknown"], 0);
    }
}

#[tokio::test]
async fn lists_filter_and_paginate_newest_first() {
    let t = start().await;
    let mut ids = Vec::new();
    for seed in 0..7 {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed, "suits": 2, "ranks": 4}}),
                "?wait_ms=5000",
            )
            .await;
        ids.push(job["id"].as_str().unwrap().to_string());
    }
    let mut seen = Vec::new();
    let mut uri = "/v1/jobs?limit=3&state=done&variant=basic".to_string();
    loop {
        let (status, _, page) = t.call("GET", &uri, None).await;
        assert_eq!(status, StatusCode::OK);
        for j in page["jobs"].as_array().unwrap() {
            seen.push(j["id"].as_str().unwrap().to_string());
        }
        match page["next_cursor"].as_str() {
            Some(c) => uri = format!("/v1/jobs?limit=3&state=done&variant=basic&cursor={c}"),
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids);
    let (_, _, none) = t.call("GET", "/v1/jobs?variant=common", None).await;
    assert_eq!(none["jobs"], json!([]));
}

#[tokio::test]
async fn a_batch_runs_every_deal_and_reports_its_win_rate() {
    let t = start().await;
    let (status, _, batch) = t
        .call(
            "POST",
            "/v1/batches",
            Some(r#"{"suits": 3, "ranks": 5, "seed": 100, "count": 40}"#),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let id = batch["id"].as_str().unwrap();
    let view = t.wait_batch(id).await;
    assert_eq!(view["finished"], true, "{view}");
    assert_eq!(view["done"], 40);
    let rates = &view["rates"];
    assert_eq!(rates["deals"], 40);
    assert_eq!(rates["unknown"], 0);
    let solvable = rates["solvable"].as_i64().unwrap();
    assert_eq!(rates["win_rate"].as_f64().unwrap(), solvable as f64 / 40.0);
    assert!(rates["ci95_low"].as_f64().unwrap() <= rates["win_rate"].as_f64().unwrap());
    // The batch's jobs are listed by batch, with their deal numbers.
    let (_, _, page) = t
        .call("GET", &format!("/v1/jobs?batch={id}&limit=100"), None)
        .await;
    let mut deals: Vec<i64> = page["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["deal"]["seed"].as_i64().unwrap())
        .collect();
    deals.sort();
    assert_eq!(deals, (100..140).collect::<Vec<_>>());
    // The results stream: one NDJSON line per deal in deal order, and the same as CSV.
    let ndjson = t.text(&format!("/v1/batches/{id}/results")).await;
    let lines: Vec<Value> = ndjson
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 40);
    for (k, line) in lines.iter().enumerate() {
        assert_eq!(line["deal"], 100 + k as i64, "{line}");
        assert_eq!(line["state"], "done");
        assert!(line["verdict"] == "solvable" || line["verdict"] == "unsolvable");
        assert!(line["node_id"].is_string());
    }
    let wins = lines.iter().filter(|l| l["verdict"] == "solvable").count();
    assert_eq!(wins as i64, solvable);
    let csv = t
        .text_with(&format!("/v1/batches/{id}/results"), ("accept", "text/csv"))
        .await;
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "deal,position,state,verdict,nodes,milliseconds,algorithm,node_id"
    );
    assert_eq!(rows.len(), 41);
    assert!(rows[1].starts_with("100,"), "{}", rows[1]);
    let (status, _, _) = t.call("GET", "/v1/batches/nope/results", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn operations_endpoints_answer() {
    let t = start().await;
    let (status, _, health) = t.call("GET", "/healthz", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["status"], "ok");
    let (status, _, doc) = t.call("GET", "/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    for path in [
        "/v1/jobs",
        "/v1/jobs/{id}",
        "/v1/batches",
        "/v1/batches/{id}",
        "/v1/stats/win-rates",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} documented");
    }
    t.post_job(
        json!({"deal": {"seed": 1, "suits": 2, "ranks": 4}}),
        "?wait_ms=5000",
    )
    .await;
    let req = Request::get("/metrics").body(Body::empty()).unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let text =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    for metric in [
        "gaps_queue_depth",
        "gaps_jobs{state=\"done\"} 1",
        "gaps_solver_nodes_total",
        "gaps_http_request_duration_seconds",
    ] {
        assert!(text.contains(metric), "{metric} in metrics:\n{text}");
    }
    let req = Request::get("/docs").body(Body::empty()).unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    // Request ids are set and echoed.
    let req = Request::get("/healthz")
        .header("x-request-id", "abc")
        .body(Body::empty())
        .unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert_eq!(res.headers()["x-request-id"], "abc");
}

#[tokio::test]
async fn cors_follows_the_configuration() {
    let t = start_with(|c| c.server.cors_origins = vec!["https://example.org".into()]).await;
    let req = Request::get("/healthz")
        .header("origin", "https://example.org")
        .body(Body::empty())
        .unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert_eq!(
        res.headers()["access-control-allow-origin"],
        "https://example.org"
    );
    let req = Request::get("/healthz")
        .header("origin", "https://evil.example")
        .body(Body::empty())
        .unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());
    // Without configured origins there are no CORS headers at all.
    let t = start().await;
    let req = Request::get("/healthz")
        .header("origin", "https://example.org")
        .body(Body::empty())
        .unwrap();
    let res = t.service.router().oneshot(req).await.unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());
}
