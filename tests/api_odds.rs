//! Odds jobs through `POST /v1/jobs` (`"odds": {"samples": N}`, docs/http.md, "Odds
//! jobs"): the same answer as `gaps odds --json` for the same request, answered again
//! from the store, a game in progress, cancel of a running answer keeping its samples,
//! the list's `game` filter, PostgreSQL, and bad input refused with a 422 naming the
//! field and nothing stored.
use crate::cli::gaps_json;
use crate::support::{self, TestService};
use axum::http::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

/// The odds job of `body`, waited for.
async fn answered(t: &TestService, body: Value) -> Value {
    let job = t.post_job(body, "?wait_ms=60000").await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["game"], "odds", "{job}");
    job
}

#[tokio::test]
async fn an_odds_job_answers_as_gaps_odds_does_and_again_from_the_store() {
    let t = support::start().await;
    let mut bounded = 0;
    for (seed, variant) in [
        (3, "common"),
        (4, "aisleriot"),
        (7, "aisleriot"),
        (1, "common"),
    ] {
        let body = json!({"deal": {"seed": seed, "suits": 3, "ranks": 5}, "variant": variant,
                          "redeals": 2, "odds": {"samples": 60}, "seed": 9});
        let job = answered(&t, body.clone()).await;
        assert_eq!(job["cached"], false, "{job}");
        assert_eq!(
            (job["samples"].as_u64(), job["redeals"].as_u64()),
            (Some(60), Some(2))
        );
        let seed_text = seed.to_string();
        let (code, cli, stderr) = gaps_json(&[
            "odds",
            "--json",
            "--deal",
            &seed_text,
            "--suits",
            "3",
            "--ranks",
            "5",
            "--variant",
            variant,
            "--samples",
            "60",
            "--search-seed",
            "9",
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(job["odds"], cli["odds"], "deal {seed} {variant}");
        assert_eq!(job["round_won"], cli["round_won"]);
        assert_eq!(job["redeals_left"], cli["redeals"]);
        let (lower, upper) = (&job["odds"]["lower"], &job["odds"]["upper"]);
        if job["odds"]["exact"].is_null() {
            bounded += 1;
            assert_eq!(lower["samples"], 60);
            assert!(
                lower["chance"].as_f64() <= upper["chance"].as_f64(),
                "{job}"
            );
        }
        // The same question again: the stored answer, nothing searched.
        let again = answered(&t, body.clone()).await;
        assert_eq!(again["cached"], true, "{again}");
        assert_eq!(again["odds"], job["odds"]);
        assert_eq!(again["nodes"], 0);
        // Another seed is another question.
        let mut other = body;
        other["seed"] = json!(10);
        let other = answered(&t, other).await;
        assert_eq!(other["cached"], false);
    }
    assert!(bounded > 0, "no deal needed its redeals");
    // The kind of job in the list, and `game` sent back as the view names it.
    let (_, _, page) = t.call("GET", "/v1/jobs?game=odds&limit=500", None).await;
    let jobs = page["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 12);
    assert!(jobs.iter().all(|j| j["game"] == "odds"));
    let (_, _, page) = t.call("GET", "/v1/jobs?game=gaps", None).await;
    assert!(page["jobs"].as_array().unwrap().is_empty(), "{page}");
    let job = answered(
        &t,
        json!({"game": "odds", "deal": {"seed": 3, "suits": 3, "ranks": 5},
               "variant": "common", "odds": {"samples": 60}, "seed": 9}),
    )
    .await;
    assert_eq!(job["cached"], true, "{job}");
    // Only a Morpion job has a record: an odds job's 404 says what it is.
    let id = job["id"].as_str().unwrap();
    let (status, _, problem) = t.call("GET", &format!("/v1/jobs/{id}/record"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("is an odds job: it has no record"),
        "{problem}"
    );
}

/// The first legal move of `position` under `variant`, and its step's JSON.
fn first_move(
    position: &gaps_engine::Position,
    variant: gaps_engine::Variant,
) -> (gaps_engine::Move, Value) {
    let mut list = gaps_engine::MoveList::<{ gaps_engine::MAX_MOVES }>::default();
    position.legal_moves(variant, &mut list);
    let m = list.as_slice()[0];
    let step = json!({"card": m.card.to_string(), "from": [m.from_rc().0, m.from_rc().1],
                      "to": [m.to_rc().0, m.to_rc().1]});
    (m, step)
}

#[tokio::test]
async fn a_game_in_progress_has_the_odds_of_the_position_its_steps_reach() {
    let t = support::start().await;
    // 3x5 deal 0, common: its first legal move played.
    let deal = json!({"seed": 0, "suits": 3, "ranks": 5});
    let start = gaps_engine::deal(0, gaps_engine::Layout::new(3, 5).unwrap());
    let (first, step) = first_move(&start, gaps_engine::Variant::Common);
    let job = answered(
        &t,
        json!({"deal": deal, "variant": "common", "played": [step], "odds": {"samples": 30}}),
    )
    .await;
    let mut after = start;
    after.play(first);
    let after = gaps_engine::format_position(&after);
    assert_eq!(job["played_position"], after, "{job}");
    assert_eq!(job["redeals_left"], 2);
    assert_eq!(job["position"], gaps_engine::format_position(&start));
    assert_eq!(job["played"], json!([step]));
    // An illegal step is refused, naming it; nothing is stored.
    let before = t.job_count().await;
    let bad = json!({"card": "2S", "from": [0, 0], "to": [2, 4]});
    t.assert_unprocessable(
        "/v1/jobs",
        &json!({"deal": deal, "variant": "common", "played": [step, bad], "odds": {}}),
        "played: played step 1",
    )
    .await;
    assert_eq!(t.job_count().await, before);
}

#[tokio::test]
async fn bad_odds_requests_are_refused_naming_the_field_and_store_nothing() {
    let t = support::start().await;
    let deal = json!({"seed": 5});
    for (body, message) in [
        (
            json!({"deal": deal, "odds": {"samples": 0}}),
            "odds.samples: 1 to 1000000",
        ),
        (
            json!({"deal": deal, "odds": {"samples": 1_000_001}}),
            "odds.samples",
        ),
        (json!({"deal": deal, "odds": {"samples": -1}}), "odds"),
        (
            json!({"deal": deal, "odds": {"sample": 3}}),
            "unknown field `sample`",
        ),
        (
            json!({"deal": deal, "odds": null}),
            "odds: expected a JSON object",
        ),
        (
            json!({"deal": deal, "odds": [100]}),
            "odds: expected a JSON object",
        ),
        (
            json!({"deal": deal, "odds": {}, "redeals": 3}),
            "redeals: between 0 and 2",
        ),
        (
            json!({"pysol": {"game": "montana", "number": 5}, "odds": {}}),
            "pysol: a PySolFC game's shuffles are known",
        ),
        (
            json!({"deal": deal, "odds": {}, "algorithm": "dfs"}),
            "algorithm: an odds job does not take it",
        ),
        (
            json!({"deal": deal, "odds": {}, "review": true}),
            "review: an odds job does not take it",
        ),
        (
            json!({"deal": deal, "odds": {}, "limits": {"threads": 2}}),
            "limits: an odds job does not take it",
        ),
        (
            json!({"deal": deal, "odds": {}, "limits": {"time_ms": 0}}),
            "limits.time_ms",
        ),
        (
            json!({"deal": deal, "odds": {}, "variant": "klondike"}),
            "variant: unknown variant",
        ),
        (
            json!({"position": "2S 3S --/2H 3H", "odds": {}}),
            "position:",
        ),
        (json!({"odds": {}}), "give a `position`"),
        (
            json!({"deal": deal, "position": "x", "odds": {}}),
            "give one of `position` and `deal`",
        ),
        (
            json!({"deal": {"seed": 5, "suits": 9}, "odds": {}}),
            "deal:",
        ),
    ] {
        t.assert_unprocessable("/v1/jobs", &body, message).await;
    }
    assert_eq!(t.job_count().await, 0);
}

#[tokio::test]
async fn a_cancelled_odds_job_keeps_the_samples_it_played() {
    let t = support::start().await;
    // Common deal 22 is lost in its first round: every sample is searched (about 16 ms
    // each in a release build).
    let job = t
        .post_job(
            json!({"deal": {"seed": 22}, "variant": "common", "odds": {"samples": 100000},
                   "limits": {"time_ms": 600000}}),
            "",
        )
        .await;
    let id = job["id"].as_str().unwrap().to_string();
    let uri = format!("/v1/jobs/{id}");
    let mut running = Value::Null;
    for _ in 0..600 {
        running = t.call("GET", &uri, None).await.2;
        if running["progress"]["nodes"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(running["state"], "running", "{running}");
    let (status, _, _) = t.call("DELETE", &uri, None).await;
    assert_eq!(status, StatusCode::OK);
    let ended = t.call("GET", &format!("{uri}?wait_ms=30000"), None).await.2;
    assert_eq!(ended["state"], "cancelled", "{ended}");
    assert_eq!(ended["stopped"], "cancelled");
    let lower = &ended["odds"]["lower"];
    assert!(lower["samples"].as_u64().unwrap() < 100000, "{ended}");
    // A cancelled answer does not answer the same question later.
    let again = t
        .post_job(
            json!({"deal": {"seed": 22}, "variant": "common", "odds": {"samples": 100000},
                   "limits": {"time_ms": 1}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(again["cached"], false, "{again}");
}

#[tokio::test]
async fn odds_jobs_run_and_answer_again_on_postgres() {
    let Some(t) = support::start_on_postgres().await else {
        return;
    };
    let deal = json!({"seed": 4, "suits": 3, "ranks": 5});
    let start = gaps_engine::deal(4, gaps_engine::Layout::new(3, 5).unwrap());
    let (_, step) = first_move(&start, gaps_engine::Variant::Aisleriot);
    for played in [None, Some(json!([step]))] {
        let mut body = json!({"deal": deal, "variant": "aisleriot", "odds": {"samples": 40}});
        if let Some(steps) = &played {
            body["played"] = steps.clone();
        }
        let job = answered(&t, body.clone()).await;
        assert_eq!(job["cached"], false, "{job}");
        assert!(job["odds"]["lower"]["chance"].is_number(), "{job}");
        let again = answered(&t, body).await;
        assert_eq!(again["cached"], true, "{again}");
        assert_eq!(again["odds"], job["odds"]);
    }
    // A batch's figures over its deals, summed by PostgreSQL from the answers.
    let body =
        json!({"count": 3, "suits": 3, "ranks": 5, "variant": "common", "odds": {"samples": 10}});
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let id = batch["id"].as_str().unwrap();
    t.wait_batch(id).await;
    let view = t.call("GET", &format!("/v1/batches/{id}"), None).await.2;
    assert_summary_is_the_mean_of_the_lines(&t, &view).await;
}

/// `view`'s `odds_summary` is the mean of its results' bounds (one a deal), with the
/// normal interval of `gaps odds --deals`.
async fn assert_summary_is_the_mean_of_the_lines(t: &TestService, view: &Value) {
    let id = view["id"].as_str().unwrap();
    let lines = t.text(&format!("/v1/batches/{id}/results")).await;
    let lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = &view["odds_summary"];
    assert_eq!(summary["deals"], lines.len(), "{view}");
    let exact = lines.iter().filter(|l| l["exact"].is_number()).count();
    assert_eq!(summary["exact"], exact, "{view}");
    for bound in ["lower", "upper"] {
        let rates: Vec<f64> = lines
            .iter()
            .map(|l| l[bound]["chance"].as_f64().unwrap())
            .collect();
        let (mean, [low, high]) = gaps::report::odds::mean_over_deals(
            rates.len() as u64,
            rates.iter().sum(),
            rates.iter().map(|r| r * r).sum(),
        );
        let got = summary[bound].as_f64().unwrap();
        assert!((got - mean).abs() < 1e-9, "{bound}: {got} against {mean}");
        let ci = &summary[format!("{bound}_ci95")];
        assert!((ci[0].as_f64().unwrap() - low).abs() < 1e-9, "{view}");
        assert!((ci[1].as_f64().unwrap() - high).abs() < 1e-9, "{view}");
        assert!(low <= mean && mean <= high);
    }
}

#[tokio::test]
async fn batches_of_odds_jobs_give_each_deals_bounds() {
    let t = support::start().await;
    // A range of our deals.
    let (status, _, batch) = t
        .call(
            "POST",
            "/v1/batches",
            Some(
                &json!({"seed": 0, "count": 6, "suits": 3, "ranks": 5, "variant": "aisleriot",
                        "odds": {"samples": 30}})
                .to_string(),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    assert_eq!(batch["odds"], json!({"samples": 30}));
    let view = t.wait_batch(batch["id"].as_str().unwrap()).await;
    assert_eq!(
        (view["finished"].as_bool(), view["done"].as_i64()),
        (Some(true), Some(6))
    );
    let uri = format!("/v1/batches/{}/results", batch["id"].as_str().unwrap());
    let lines = t.text(&uri).await;
    let lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    for (deal, line) in lines.iter().enumerate() {
        assert_eq!(line["deal"], deal);
        let (lower, upper) = (&line["lower"], &line["upper"]);
        assert!(
            lower["chance"].as_f64() <= upper["chance"].as_f64(),
            "{line}"
        );
        // The line is the job's answer: the same as a job of that deal alone.
        let job = answered(
            &t,
            json!({"deal": {"seed": deal, "suits": 3, "ranks": 5}, "variant": "aisleriot",
                   "odds": {"samples": 30}}),
        )
        .await;
        assert_eq!(job["cached"], true, "{job}");
        assert_eq!(&job["odds"]["lower"], lower);
    }
    let view = t
        .call(
            "GET",
            &format!("/v1/batches/{}", batch["id"].as_str().unwrap()),
            None,
        )
        .await
        .2;
    assert_summary_is_the_mean_of_the_lines(&t, &view).await;
    let csv = t.text_with(&uri, ("accept", "text/csv")).await;
    assert!(
        csv.starts_with("deal,position,state,lower,lower_ci95_low"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 7);
    // A batch of games, each an odds job of its own.
    let games = json!({"games": [
        {"deal": {"seed": 1, "suits": 3, "ranks": 5}, "variant": "common", "odds": {"samples": 20}},
        {"position": "2H 4S 3S 3D/2D -- -- 4D/-- 3H 4H 2S", "variant": "common", "odds": {}}
    ]});
    let (status, _, batch) = t
        .call("POST", "/v1/batches", Some(&games.to_string()))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let view = t.wait_batch(batch["id"].as_str().unwrap()).await;
    assert_eq!(view["done"], 2, "{view}");
    // Bad batches: nothing stored.
    let before = t.job_count().await;
    for (body, message) in [
        (
            json!({"games": [{"deal": {"seed": 1}, "odds": {}}, {"deal": {"seed": 2}}]}),
            "games[1]: a batch holds one kind of job",
        ),
        (
            json!({"pysol": {"game": "montana", "from": 1, "count": 2}, "odds": {}}),
            "pysol: a PySolFC game's shuffles are known",
        ),
        (
            json!({"count": 2, "odds": {}, "algorithm": "dfs"}),
            "algorithm: an odds job",
        ),
        (json!({"count": 2, "odds": {"samples": 0}}), "odds.samples"),
        (json!({"odds": {}}), "give `count`"),
        (
            json!({"games": [{"deal": {"seed": 1}, "odds": {}}], "odds": {}}),
            "inside its item",
        ),
    ] {
        t.assert_unprocessable("/v1/batches", &body, message).await;
    }
    assert_eq!(t.job_count().await, before);
}
