//! Handler tests of the search algorithms as jobs, through `oneshot` on the real router
//! with a temporary database and a real solver pool: block search, assignments, exact
//! searches and their memory and threads, sampling, node limits (the job life cycle:
//! `tests/api.rs`; helpers: `tests/support`).

use crate::support;

use axum::http::StatusCode;
use serde_json::json;
use support::{start, start_with};

#[tokio::test]
async fn block_search_jobs_give_exact_verdicts() {
    let t = start().await;
    for (seed, verdict) in [(3, "unsolvable"), (5, "solvable")] {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed}, "variant": "basic", "algorithm": "blocks"}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["verdict"], verdict, "{job}");
        assert_eq!(job["used_algorithm"], "blocks", "{job}");
        assert!(job["stats"]["blocks"].as_u64().unwrap() >= 1, "{job}");
        assert!(
            job["stats"]["nodes"].as_u64().unwrap() >= job["stats"]["blocks"].as_u64().unwrap()
        );
    }
}

#[tokio::test]
async fn assignment_jobs_find_wins_and_never_claim_a_loss() {
    let t = start().await;
    // Common deal 1 is won under some suit assignment; deal 0 is lost, so every
    // assignment is too, and `assign` says so without claiming the loss.
    for (seed, verdict, stopped) in [
        (1, "solvable", json!(null)),
        (0, "unknown", json!("assignments_lost")),
    ] {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed}, "variant": "common", "algorithm": "assign"}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["verdict"], verdict, "{job}");
        assert_eq!(job["stopped"], stopped, "{job}");
        assert_eq!(job["used_algorithm"], "assign", "{job}");
    }
}

#[tokio::test]
async fn exact_jobs_decide_what_fits_and_say_memory_limit_otherwise() {
    let t = start().await;
    // 4x6 common deals are small: the exhaustive search decides them in 64 MiB.
    for seed in 0..4 {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed, "suits": 4, "ranks": 6}, "variant": "common", "algorithm": "exact"}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        assert_ne!(job["verdict"], "unknown", "{job}");
        assert_eq!(job["used_algorithm"], "exact", "{job}");
    }
    // A 1 MiB set cannot hold 4x13 deal 8's space: unknown, never unsolvable.
    let job = t
        .post_job(
            json!({"deal": {"seed": 8}, "variant": "common", "algorithm": "exact", "limits": {"table_mb": 1}}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["verdict"], "unknown", "{job}");
    assert_eq!(job["stopped"], "memory_limit", "{job}");
}

#[tokio::test]
async fn a_node_with_a_spill_directory_goes_on_past_a_full_set() {
    // Deal 2's search holds about 49,000 keys: more than a 1 MiB set, which a node
    // without a spill directory stops at (above, for deal 8).
    let body = json!({"deal": {"seed": 2}, "variant": "common", "algorithm": "exact",
                      "limits": {"table_mb": 1, "threads": 1}});
    let plain = start().await.post_job(body.clone(), "?wait_ms=30000").await;
    assert_eq!(plain["verdict"], "unknown", "{plain}");
    assert_eq!(plain["stopped"], "memory_limit", "{plain}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let t = start_with(move |c| c.solver.spill_dir = Some(path)).await;
    let job = t.post_job(body, "?wait_ms=30000").await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["verdict"], "solvable", "{job}");
    assert!(job["stats"]["spilled_keys"].as_u64().unwrap() > 0, "{job}");
    assert!(
        job["stats"]["table_bytes"].as_u64().unwrap() <= 1 << 20,
        "{job}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[tokio::test]
async fn exact_jobs_on_two_threads_agree_with_one_thread_and_say_how_many_they_had() {
    use gaps_engine::{deal, Algorithm, Layout, SolveOptions, Solver, Variant};
    // The table budget of an exact job may exceed the solvers' table (8 MiB here), up to
    // the node's memory for searches (96 MiB less two threads at 2 x 8 MiB: 64).
    let t = start_with(|c| c.solver.memory_mb = Some(96)).await;
    let mut solver = Solver::with_table_bytes(48 << 20);
    for seed in 0..3 {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed, "suits": 4, "ranks": 6}, "variant": "common",
                       "algorithm": "exact", "limits": {"threads": 2, "table_mb": 48}}),
                "?wait_ms=30000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["limits"]["threads"], 2, "{job}");
        // The pool is idle, so the job gets both threads.
        assert_eq!(job["stats"]["threads"], 2, "{job}");
        let one_thread = SolveOptions {
            variant: Variant::Common,
            algorithm: Algorithm::Exact,
            ..SolveOptions::default()
        };
        let start = deal(seed, Layout::new(4, 6).unwrap());
        let expected = solver.solve(&start, &one_thread, None).unwrap().verdict;
        assert_ne!(job["verdict"], "unknown", "{job}");
        assert_eq!(job["verdict"], expected.name(), "deal {seed}");
    }
}

#[tokio::test]
async fn searches_share_the_node_memory_and_a_job_waits_for_its_part() {
    // 64 MiB for searches: 96 less two solver threads at 2 x 8 MiB.
    let t = start_with(|c| c.solver.memory_mb = Some(96)).await;
    let metric = |text: &str, name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    let metrics = t.text("/metrics").await;
    assert_eq!(
        metric(&metrics, "gaps_memory_budget_bytes "),
        (96 << 20) as f64
    );
    assert_eq!(
        metric(&metrics, "gaps_search_memory_bytes "),
        (64 << 20) as f64
    );
    // `auto` on common deal 8 (lost, far beyond 48 MiB) holds its 48 MiB to the time
    // limit: its breadth-first and exact phases fill them, its depth-first phase runs on.
    let long = t
        .post_job(
            json!({"deal": {"seed": 8}, "variant": "common", "limits": {"time_ms": 60000, "table_mb": 48}}),
            "?wait_ms=300",
        )
        .await;
    assert_eq!(long["state"], "running", "{long}");
    let metrics = t.text("/metrics").await;
    assert_eq!(
        metric(&metrics, "gaps_search_memory_in_use_bytes "),
        (48 << 20) as f64
    );
    // A second job that asks for 48 MiB waits for them (the other lane is free).
    let body = json!({"deal": {"seed": 3, "suits": 4, "ranks": 6}, "variant": "common",
                      "algorithm": "exact", "limits": {"table_mb": 48}});
    let waiting = t.post_job(body, "?wait_ms=1500").await;
    assert_ne!(waiting["state"], "done", "{waiting}");
    let metrics = t.text("/metrics").await;
    assert_eq!(
        metric(&metrics, "gaps_search_memory_in_use_bytes "),
        (48 << 20) as f64
    );
    // When the first ends, the second gets its memory and says how long it waited.
    let id = long["id"].as_str().unwrap();
    let (status, _, _) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let id = waiting["id"].as_str().unwrap();
    let (_, _, done) = t
        .call("GET", &format!("/v1/jobs/{id}?wait_ms=20000"), None)
        .await;
    assert_eq!(done["state"], "done", "{done}");
    assert_ne!(done["verdict"], "unknown", "{done}");
    assert_eq!(done["stats"]["memory_mb"], 48, "{done}");
    assert!(
        done["stats"]["memory_wait_ms"].as_f64().unwrap() >= 1000.0,
        "{done}"
    );
    // A job that names no memory gets it sized by its time; a depth-first one draws none.
    let sized = t
        .post_job(
            json!({"deal": {"seed": 4, "suits": 4, "ranks": 6}, "variant": "common",
                   "algorithm": "exact", "limits": {"time_ms": 500}}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(sized["stats"]["memory_mb"], 64, "{sized}");
    let dfs = t
        .post_job(
            json!({"deal": {"seed": 4, "suits": 4, "ranks": 6}, "variant": "basic"}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(dfs["stats"]["memory_mb"], 0, "{dfs}");
}

#[tokio::test]
async fn a_search_on_threads_that_names_none_asks_for_every_solver_thread() {
    let t = start_with(|c| c.solver.memory_mb = Some(96)).await;
    // Distinct deals, so that the second is not answered from the first's verdict.
    let deal = |seed: u64| json!({"seed": seed, "suits": 4, "ranks": 6});
    let threaded = [
        json!({"deal": deal(3), "variant": "common", "algorithm": "exact", "limits": {"table_mb": 48}}),
        json!({"deal": deal(4), "variant": "common", "limits": {"table_mb": 48}}),
    ];
    for request in threaded {
        let job = t.post_job(request, "?wait_ms=30000").await;
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["limits"]["threads"], 2, "{job}");
        assert_eq!(job["stats"]["threads"], 2, "{job}");
    }
    // A search that runs on one thread asks for one.
    for request in [
        json!({"deal": deal(5), "variant": "common", "algorithm": "dfs"}),
        json!({"deal": {"seed": 3, "suits": 2, "ranks": 5}}),
    ] {
        let job = t.post_job(request, "?wait_ms=30000").await;
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["limits"]["threads"], 1, "{job}");
    }
    // And a batch's deals the same way.
    let (status, _, batch) = t
        .call(
            "POST",
            "/v1/batches",
            Some(r#"{"count": 1, "suits": 4, "ranks": 6, "variant": "common"}"#),
        )
        .await;
    assert!(status.is_success(), "{status} {batch}");
    assert_eq!(batch["limits"]["threads"], 2, "{batch}");
}

#[tokio::test]
async fn a_job_gets_only_the_threads_the_pool_has_free() {
    let t = start_with(|c| c.solver.memory_mb = Some(96)).await;
    // One lane busy with a long depth-first search (common 4x13 deal 8 is far larger
    // than the test), the other takes a job asking for both threads: it gets one.
    let busy = t
        .post_job(
            json!({"deal": {"seed": 8}, "variant": "common", "algorithm": "dfs", "limits": {"time_ms": 60000}}),
            "?wait_ms=200",
        )
        .await;
    assert_eq!(busy["state"], "running", "{busy}");
    let job = t
        .post_job(
            json!({"deal": {"seed": 3, "suits": 4, "ranks": 6}, "variant": "common",
                   "algorithm": "exact", "limits": {"threads": 2, "table_mb": 48}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["limits"]["threads"], 2, "{job}");
    assert_eq!(job["stats"]["threads"], 1, "{job}");
    let id = busy["id"].as_str().unwrap();
    let (status, _, _) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn sampling_jobs_find_wins_and_record_their_probes() {
    let t = start().await;
    let job = t
        .post_job(
            json!({"deal": {"seed": 1}, "variant": "common", "algorithm": "sampling", "limits": {"probes": 1000000}, "seed": 5}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["seed"], 5);
    assert_eq!(job["limits"]["probes"], 1000000);
    assert_eq!(job["used_algorithm"], "sampling");
    if job["verdict"] == "solvable" {
        assert!(job["stats"]["probes"].as_u64().unwrap() >= 1);
    } else {
        assert_eq!(job["verdict"], "unknown");
    }
    // A sampling `unknown` never answers a request for another algorithm.
    let few = t
        .post_job(
            json!({"deal": {"seed": 2}, "variant": "basic", "algorithm": "sampling", "limits": {"probes": 1}}),
            "?wait_ms=20000",
        )
        .await;
    if few["verdict"] == "unknown" {
        assert_eq!(few["stopped"], "probe_limit");
        let dfs = t
            .post_job(
                json!({"deal": {"seed": 2}, "variant": "basic"}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(dfs["cached"], false);
        assert_ne!(dfs["verdict"], "unknown");
    }
}

#[tokio::test]
async fn node_limits_give_unknown_and_larger_limits_search_again() {
    let t = start().await;
    let body = json!({"deal": {"seed": 11}, "variant": "common", "limits": {"nodes": 1000}});
    let small = t.post_job(body, "?wait_ms=10000").await;
    assert_eq!(small["verdict"], "unknown", "{small}");
    assert_eq!(small["stopped"], "node_limit");
    // Same limits: answered from the store.
    let same = t
        .post_job(
            json!({"deal": {"seed": 11}, "variant": "common", "limits": {"nodes": 1000}}),
            "?wait_ms=10000",
        )
        .await;
    assert_eq!(same["cached"], true);
    // Larger limits: searched again.
    let larger = t
        .post_job(
            json!({"deal": {"seed": 11}, "variant": "common", "limits": {"nodes": 5000}}),
            "?wait_ms=10000",
        )
        .await;
    assert_eq!(larger["cached"], false);
    assert!(larger["stats"]["nodes"].as_u64().unwrap() > 1000);
}
