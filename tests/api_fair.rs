//! Who runs first (docs/http.md): a single job never waits for a batch (a batch job
//! gives way and goes on unchanged), and clients take turns, on SQLite and on several
//! PostgreSQL nodes.

use crate::support;

use axum::http::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::{another_node, start_on_postgres_with, start_with, TestService};

/// A Morpion record (docs/morpion.md): its endgame after move 150 is proved in 88 nodes.
const BRUNEAU: &str = include_str!("../engine/tests/data/morpion/bruneau170.json");

/// A batch job that searches for seconds, the same way every time: `dfs` (one
/// thread, deterministic) on `common` deal 3, which it wins after about six million
/// nodes with the tests' 8 MiB table.
fn long_batch(seed: u64, count: u64) -> Value {
    json!({"variant": "common", "algorithm": "dfs", "seed": seed, "count": count,
           "limits": {"time_ms": 600000}})
}

/// A single job decided in milliseconds.
fn quick_single() -> Value {
    json!({"deal": {"seed": 1}, "variant": "basic"})
}

async fn post(t: &TestService, uri: &str, body: &Value, peer: &str) -> Value {
    let body = body.to_string();
    let (status, _, answer) = t.call_as("POST", uri, Some(&body), None, Some(peer)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    answer
}

async fn job(t: &TestService, id: &str) -> Value {
    t.call("GET", &format!("/v1/jobs/{id}"), None).await.2
}

/// The jobs of batch `id`, in deal order.
async fn batch_jobs(t: &TestService, id: &str) -> Vec<Value> {
    let (_, _, page) = t
        .call("GET", &format!("/v1/jobs?batch={id}&limit=100"), None)
        .await;
    let mut jobs = page["jobs"].as_array().unwrap().clone();
    jobs.sort_by_key(|j| j["deal"]["seed"].as_u64());
    jobs
}

/// Waits until `n` jobs of batch `id` run, searching (at most 30 s).
async fn until_running(t: &TestService, id: &str, n: usize) {
    for _ in 0..600 {
        let running = batch_jobs(t, id)
            .await
            .iter()
            .filter(|j| j["state"] == "running")
            .count();
        if running >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("batch {id}: {n} jobs never ran at once");
}

/// The batch's only job once it ended (at most 120 s).
async fn final_job(t: &TestService, batch: &str) -> Value {
    for _ in 0..1200 {
        let jobs = batch_jobs(t, batch).await;
        if jobs.iter().all(|j| j["finished_at"].is_string()) && !jobs.is_empty() {
            return jobs[0].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("batch {batch} never ended");
}

fn metric(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn a_single_job_runs_at_once_and_the_batch_job_that_gave_way_ends_unchanged() {
    // One solver thread, so the batch job holds every thread of the node (and a body
    // limit that takes a Morpion record).
    let one_thread = |c: &mut gaps::service::config::Config| {
        c.solver.threads = Some(1);
        c.server.body_limit_bytes = 65536;
    };
    // The batch job alone.
    let alone = start_with(one_thread).await;
    let batch = post(&alone, "/v1/batches", &long_batch(3, 1), "10.0.0.1:1").await;
    let uninterrupted = final_job(&alone, batch["id"].as_str().unwrap()).await;
    assert_eq!(uninterrupted["verdict"], "solvable", "{uninterrupted}");
    assert_eq!(uninterrupted["stats"]["gave_way_ms"], 0.0);
    // The same batch job, with single jobs posted while it runs.
    let t = start_with(one_thread).await;
    let batch = post(&t, "/v1/batches", &long_batch(3, 1), "10.0.0.1:1").await;
    let batch = batch["id"].as_str().unwrap().to_string();
    until_running(&t, &batch, 1).await;
    for seed in 1..=3 {
        let single = json!({"deal": {"seed": seed}, "variant": "basic"});
        let posted = Instant::now();
        let done = post(&t, "/v1/jobs?wait_ms=20000", &single, "10.0.0.2:1").await;
        assert_eq!(done["state"], "done", "{done}");
        assert!(
            posted.elapsed() < Duration::from_secs(5),
            "a single job waited {:?} for a batch",
            posted.elapsed()
        );
        let running = &batch_jobs(&t, &batch).await[0];
        assert_eq!(
            running["state"], "running",
            "the batch job still runs: {running}"
        );
    }
    // A Morpion proof is a single job too: it runs on the same lent thread.
    let proof = json!({"game": "morpion", "record": BRUNEAU, "from": 150});
    let posted = Instant::now();
    let done = post(&t, "/v1/jobs?wait_ms=20000", &proof, "10.0.0.3:1").await;
    assert_eq!(
        (&done["state"], &done["best"]),
        (&json!("done"), &json!(170)),
        "{done}"
    );
    assert!(
        posted.elapsed() < Duration::from_secs(5),
        "{:?}",
        posted.elapsed()
    );
    let running = &batch_jobs(&t, &batch).await[0];
    assert_eq!(running["state"], "running", "{running}");
    let gave_way = final_job(&t, &batch).await;
    assert!(metric(&t.text("/metrics").await, "gaps_batch_gave_way_total") >= 4.0);
    assert!(
        gave_way["stats"]["gave_way_ms"].as_f64().unwrap() > 0.0,
        "{gave_way}"
    );
    // The same search: verdict, nodes and line.
    for field in ["verdict", "nodes", "solution", "used_algorithm"] {
        let (a, b) = (&gave_way[field], &uninterrupted[field]);
        assert_eq!(a, b, "{field}: {gave_way} against {uninterrupted}");
    }
    assert_eq!(
        gave_way["stats"]["nodes"], uninterrupted["stats"]["nodes"],
        "the pause changed the search"
    );
}

#[tokio::test]
async fn clients_batches_and_single_jobs_take_turns_and_a_queued_job_says_where_it_stands() {
    // An API-only node: everything stays queued.
    let t = start_with(|c| c.solver.threads = Some(0)).await;
    let small =
        |seed: u64, count: u64| json!({"suits": 3, "ranks": 5, "seed": seed, "count": count});
    let a = post(&t, "/v1/batches", &small(100, 6), "10.0.0.1:1").await;
    let b = post(&t, "/v1/batches", &small(200, 3), "10.0.0.2:1").await;
    let (a, b) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let single = post(&t, "/v1/jobs", &quick_single(), "10.0.0.3:1").await;
    assert_eq!(single["queue"]["class"], "single", "{single}");
    assert_eq!(
        single["queue"]["ahead"], 0,
        "a single job goes before every batch job"
    );
    // The batches' jobs alternate: A0 B0 A1 B1 A2 B2 A3 A4 A5, after the single job.
    for _ in 0..100 {
        if batch_jobs(&t, a).await.len() == 6 && batch_jobs(&t, b).await.len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (a_jobs, b_jobs) = (batch_jobs(&t, a).await, batch_jobs(&t, b).await);
    let ahead = |view: Value| view["queue"]["ahead"].as_i64().unwrap();
    let expected_a = [1, 3, 5, 7, 8, 9];
    for (job_view, expected) in a_jobs.iter().zip(expected_a) {
        let view = job(&t, job_view["id"].as_str().unwrap()).await;
        assert_eq!(view["queue"]["class"], "batch", "{view}");
        assert_eq!(ahead(view), expected);
    }
    for (job_view, expected) in b_jobs.iter().zip([2, 4, 6]) {
        let view = job(&t, job_view["id"].as_str().unwrap()).await;
        assert_eq!(ahead(view), expected);
    }
    // A node that runs them claims them in that order.
    let worker = another_node(&t, "worker", |c| c.solver.threads = Some(1)).await;
    let mut all: Vec<Value> = Vec::new();
    for _ in 0..200 {
        all = [batch_jobs(&worker, a).await, batch_jobs(&worker, b).await].concat();
        if all.iter().all(|j| j["state"] == "done") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let single = job(&worker, single["id"].as_str().unwrap()).await;
    assert_eq!(single["state"], "done");
    all.push(single);
    all.sort_by(|x, y| {
        let started = |v: &Value| v["started_at"].as_str().unwrap().to_string();
        started(x).cmp(&started(y))
    });
    let order: Vec<String> = all
        .iter()
        .map(|j| match j["batch_id"].as_str() {
            Some(id) if id == a => "A".to_string(),
            Some(_) => "B".to_string(),
            None => "S".to_string(),
        })
        .collect();
    // Start times have millisecond resolution: equal ones may appear in either order,
    // so only the counts per prefix are checked where they cannot tie.
    assert_eq!(order[0], "S", "{order:?}");
    let b_before_last_a = order.iter().rposition(|o| o == "B").unwrap();
    let last_a = order.iter().rposition(|o| o == "A").unwrap();
    assert!(b_before_last_a < last_a, "B ends before A: {order:?}");
}

/// A batch of one job that searches until its time limit: sampling (which never proves
/// a loss) on a lost `common` deal.
fn endless_batch(seed: u64) -> Value {
    json!({"variant": "common", "algorithm": "sampling", "seed": seed, "count": 1,
           "limits": {"time_ms": 60000, "probes": 10_000_000_000_u64}})
}

#[tokio::test]
async fn on_three_postgres_nodes_a_single_job_runs_at_once_while_batches_hold_every_thread() {
    let one_thread = |c: &mut gaps::service::config::Config| c.solver.threads = Some(1);
    let Some(first) = start_on_postgres_with(one_thread).await else {
        return;
    };
    let second = another_node(&first, "second", one_thread).await;
    let third = another_node(&first, "third", one_thread).await;
    // Three batch jobs that search a minute each: one on each node's only thread
    // (lost deals 130, 131 and 142).
    let mut batches = Vec::new();
    for seed in [130, 131, 142] {
        let batch = post(&first, "/v1/batches", &endless_batch(seed), "10.0.0.1:1").await;
        batches.push(batch["id"].as_str().unwrap().to_string());
    }
    for batch in &batches {
        until_running(&first, batch, 1).await;
    }
    for (n, node) in [&first, &second, &third].into_iter().enumerate() {
        let posted = Instant::now();
        let single = json!({"deal": {"seed": 10 + n}, "variant": "basic"});
        let done = post(node, "/v1/jobs?wait_ms=20000", &single, "10.0.0.2:1").await;
        assert_eq!(done["state"], "done", "{done}");
        assert!(
            posted.elapsed() < Duration::from_secs(5),
            "{:?}",
            posted.elapsed()
        );
    }
    let mut gave_way = 0.0;
    for node in [&first, &second, &third] {
        gave_way += metric(&node.text("/metrics").await, "gaps_batch_gave_way_total");
    }
    assert!(gave_way >= 3.0, "{gave_way}");
    for batch in &batches {
        let running = &batch_jobs(&first, batch).await[0];
        assert_eq!(running["state"], "running", "{running}");
        let id = running["id"].as_str().unwrap();
        let (status, _, _) = first.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
        assert_eq!(status, StatusCode::OK);
    }
}
