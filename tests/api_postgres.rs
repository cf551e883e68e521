//! The API on PostgreSQL behaves as on SQLite: jobs, known answers, lists, batches,
//! win rates, cancellation and bad input.
use crate::support;

use axum::http::StatusCode;
use serde_json::json;
use std::time::Duration;
use support::{another_node, start_on_postgres, start_on_postgres_with};

#[tokio::test]
async fn the_api_works_on_postgres() {
    let Some(t) = start_on_postgres().await else {
        return;
    };
    // A job, solved and read back.
    let job = t
        .post_job(
            json!({"deal": {"seed": 3, "suits": 4, "ranks": 6}}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_ne!(job["verdict"], "unknown", "{job}");
    let id = job["id"].as_str().unwrap();
    let (status, _, read) = t.call("GET", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["verdict"], job["verdict"]);
    assert_eq!(read["solution"], job["solution"]);
    // The same position again: answered from the known verdicts.
    let again = t
        .post_job(
            json!({"deal": {"seed": 3, "suits": 4, "ranks": 6}}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(again["cached"], true, "{again}");
    // A batch runs every deal and its win rate sums its jobs.
    let (status, _, batch) = t
        .call(
            "POST",
            "/v1/batches",
            Some(r#"{"suits": 4, "ranks": 5, "seed": 100, "count": 8}"#),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let bid = batch["id"].as_str().unwrap().to_string();
    let finished = t.wait_batch(&bid).await;
    assert_eq!(finished["finished"], true, "{finished}");
    assert_eq!(finished["done"], 8, "{finished}");
    let rates = &finished["rates"];
    assert_eq!(
        rates["solvable"].as_i64().unwrap() + rates["unsolvable"].as_i64().unwrap(),
        8
    );
    // Its results stream in deal order.
    let ndjson = t.text(&format!("/v1/batches/{bid}/results")).await;
    let deals: Vec<i64> = ndjson
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["deal"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(deals, (100..108).collect::<Vec<_>>());
    // Lists filter and page.
    let (_, _, page) = t
        .call("GET", &format!("/v1/jobs?batch={bid}&limit=5"), None)
        .await;
    assert_eq!(page["jobs"].as_array().unwrap().len(), 5);
    assert!(page["next_cursor"].is_string());
    // Win rates count distinct positions.
    let (_, _, rates) = t.call("GET", "/v1/stats/win-rates", None).await;
    let deals: i64 = rates
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["deals"].as_i64().unwrap())
        .sum();
    assert_eq!(deals, 9);
    // A running job is cancelled.
    let long = t
        .post_job(
            json!({"deal": {"seed": 8}, "variant": "common", "algorithm": "dfs", "limits": {"time_ms": 60000}}),
            "?wait_ms=300",
        )
        .await;
    let lid = long["id"].as_str().unwrap();
    let (status, _, _) = t.call("DELETE", &format!("/v1/jobs/{lid}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, _, fin) = t
        .call("GET", &format!("/v1/jobs/{lid}?wait_ms=3000"), None)
        .await;
    assert_eq!(fin["state"], "cancelled", "{fin}");
    // Bad input stores nothing.
    let before = t.job_count().await;
    let (status, _, _) = t
        .call(
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 1}, "limits": {"nodes": 0}}"#),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(t.job_count().await, before);
    // Health and metrics answer.
    let (status, _, _) = t.call("GET", "/healthz", None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn nodes_share_the_queue_and_a_cancel_through_one_stops_a_solve_on_another_at_once() {
    // Heartbeats far apart: a cancel within 2 s comes through NOTIFY, not a renewal.
    let slow_heartbeat = |c: &mut gaps::service::config::Config| {
        c.queue.heartbeat_ms = 20_000;
        c.queue.lease_ms = 60_000;
    };
    let Some(a) = start_on_postgres_with(slow_heartbeat).await else {
        return;
    };
    let b = another_node(&a, "node-b", slow_heartbeat).await;
    // Jobs posted to one node are run by whichever node claims them, and every node
    // sees them.
    let mut seen_nodes = std::collections::HashSet::new();
    for seed in 0..6 {
        let job = b
            .post_job(
                json!({"deal": {"seed": seed, "suits": 4, "ranks": 5}}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        let id = job["id"].as_str().unwrap();
        let (_, _, on_a) = a.call("GET", &format!("/v1/jobs/{id}"), None).await;
        assert_eq!(on_a["verdict"], job["verdict"]);
        seen_nodes.insert(job["node_id"].as_str().unwrap().to_string());
    }
    assert!(!seen_nodes.is_empty());
    // A long solve, running on one of the nodes, cancelled through the other.
    let long = a
        .post_job(
            json!({"deal": {"seed": 8}, "variant": "common", "algorithm": "dfs", "limits": {"time_ms": 60000}}),
            "?wait_ms=500",
        )
        .await;
    assert_eq!(long["state"], "running", "{long}");
    let id = long["id"].as_str().unwrap();
    let holder = long["node_id"].as_str().unwrap();
    let other = if holder == "node-b" { &a } else { &b };
    let began = std::time::Instant::now();
    let (status, _, _) = other.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, _, fin) = other
        .call("GET", &format!("/v1/jobs/{id}?wait_ms=5000"), None)
        .await;
    assert_eq!(fin["state"], "cancelled", "{fin}");
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "cancelled through another node in {:?}",
        began.elapsed()
    );
}

#[tokio::test]
async fn an_api_only_node_queues_jobs_that_another_node_runs() {
    let Some(api) = start_on_postgres_with(|c| c.solver.threads = Some(0)).await else {
        return;
    };
    let worker = another_node(&api, "worker-1", |_| {}).await;
    for seed in 0..3 {
        let job = api
            .post_job(
                json!({"deal": {"seed": seed, "suits": 4, "ranks": 5}}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["node_id"], "worker-1", "{job}");
    }
    let metrics = worker.text("/metrics").await;
    assert!(
        metrics.contains("gaps_node{node_id=\"worker-1\"} 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_lost_database_answers_503_and_the_service_recovers() {
    let Some(t) = start_on_postgres().await else {
        return;
    };
    let url = t.postgres.as_ref().unwrap().url().to_string();
    let (_, name) = url.rsplit_once('/').unwrap();
    let admin_url = std::env::var("GAPS_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let admin = sqlx::PgPool::connect(&admin_url).await.unwrap();
    let before = t.job_count().await;
    // The database goes away: no new connections, and the service's are cut.
    sqlx::query(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false"))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1")
        .bind(name)
        .execute(&admin)
        .await
        .unwrap();
    let (status, content_type, problem) = t
        .call(
            "POST",
            "/v1/jobs",
            Some(r#"{"deal": {"seed": 5, "suits": 4, "ranks": 5}}"#),
        )
        .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{problem}");
    assert_eq!(content_type, "application/problem+json");
    assert!(problem["detail"].as_str().unwrap().contains("database"));
    // It comes back: the same request is accepted and solved, and nothing was stored
    // while it was away.
    sqlx::query(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let began = std::time::Instant::now();
    loop {
        let (status, _, job) = t
            .call(
                "POST",
                "/v1/jobs?wait_ms=10000",
                Some(r#"{"deal": {"seed": 5, "suits": 4, "ranks": 5}}"#),
            )
            .await;
        if status == StatusCode::ACCEPTED {
            assert_eq!(job["state"], "done", "{job}");
            break;
        }
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{job}");
        assert!(began.elapsed() < Duration::from_secs(30), "no recovery");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(t.job_count().await, before + 1);
}
