//! Deepening: idle threads decide stored `unknown` verdicts, later requests are
//! answered from what they proved, jobs keep their own results, and a user job stops a
//! deepening search at once.
use crate::support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::start_with;

fn metric(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(name_and_labels))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

async fn metrics(t: &support::TestService) -> String {
    t.text("/metrics").await
}

#[tokio::test]
async fn idle_threads_decide_stored_unknowns_and_later_requests_get_the_verdict() {
    let t = start_with(|c| {
        c.deepen.enabled = true;
        c.deepen.max_time_ms = 20_000;
    })
    .await;
    // Three small common deals searched with a tiny node limit: unknown.
    let mut jobs = Vec::new();
    for seed in 0..3 {
        let body = json!({"deal": {"seed": seed, "suits": 4, "ranks": 6}, "variant": "common",
                          "algorithm": "dfs", "limits": {"nodes": 50, "time_ms": 1000}});
        let job = t.post_job(body.clone(), "?wait_ms=5000").await;
        assert_eq!(job["verdict"], "unknown", "{job}");
        jobs.push((job, body));
    }
    // Deepening doubles the limits round by round until each is decided.
    let began = Instant::now();
    loop {
        let (_, _, rates) = t.call("GET", "/v1/stats/win-rates", None).await;
        let row = &rates.as_array().unwrap()[0];
        if row["unknown"] == 0 {
            assert_eq!(row["deals"], 3);
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "deepening did not decide the unknowns: {rates}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let text = metrics(&t).await;
    assert!(
        metric(&text, "gaps_deepen_searches_total{outcome=\"improved\"}") >= 3.0,
        "{text}"
    );
    for (job, body) in jobs {
        // The job keeps its own result ...
        let id = job["id"].as_str().unwrap();
        let (_, _, again) = t.call("GET", &format!("/v1/jobs/{id}"), None).await;
        assert_eq!(again["verdict"], "unknown");
        // ... and the same request is now answered at once with the exact verdict.
        let answered: Value = t.post_job(body, "?wait_ms=5000").await;
        assert_eq!(answered["cached"], true, "{answered}");
        assert_ne!(answered["verdict"], "unknown", "{answered}");
        let by = answered["stats"]["answered_by_job"].as_str().unwrap();
        assert!(by.starts_with("deepen-"), "{answered}");
    }
}

#[tokio::test]
async fn a_user_job_stops_a_deepening_search_at_once() {
    let t = start_with(|c| {
        c.solver.threads = Some(1);
        c.deepen.enabled = true;
        c.deepen.max_time_ms = 300_000;
    })
    .await;
    // A large common deal left unknown after 2 s: deepening then searches it for 4 s on
    // the only thread.
    let job = t
        .post_job(
            json!({"deal": {"seed": 8}, "variant": "common", "algorithm": "dfs", "limits": {"time_ms": 2000}}),
            "?wait_ms=10000",
        )
        .await;
    assert_eq!(job["verdict"], "unknown", "{job}");
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let began = Instant::now();
    let quick = t
        .post_job(
            json!({"deal": {"seed": 1, "suits": 4, "ranks": 5}}),
            "?wait_ms=10000",
        )
        .await;
    assert_eq!(quick["state"], "done", "{quick}");
    assert!(
        began.elapsed() < Duration::from_millis(1500),
        "the user job waited {:?}",
        began.elapsed()
    );
    let text = metrics(&t).await;
    assert!(
        metric(&text, "gaps_deepen_searches_total{outcome=\"preempted\"}") >= 1.0,
        "{text}"
    );
}
