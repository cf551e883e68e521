//! A batch given as its games (docs/http.md, "Batches"): games in progress of
//! different kinds in one request (a numbered deal with its review, a PySolFC game
//! played as a variant, one played on its own board), each answered as its own job
//! would be; a bad item is a 422 naming it, and nothing is stored.
use crate::support::start;
use axum::http::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn a_batch_of_games_in_progress_answers_each_as_its_job_would() {
    let t = start().await;
    // Deal 1 of 3 x 5 (common, no redeal): winnable from the deal, and moving 2S from
    // (1,1) to (0,0) first loses it (the browser test plays the same).
    let lost = json!({"card": "2S", "from": [1, 1], "to": [0, 0]});
    let galary = json!({"game": "galary", "number": 1});
    let two_c = json!({"card": "2C", "from": [2, 11], "to": [0, 1]});
    let games = json!([
        {"deal": {"seed": 1, "suits": 3, "ranks": 5}, "variant": "common",
         "played": [lost], "review": true, "limits": {"time_ms": 20000}},
        {"pysol": galary, "played": [two_c], "limits": {"nodes": 2_000_000}},
        {"pysol": {"game": "montana", "number": 5}, "played": [], "limits": {"time_ms": 20000}},
    ]);
    let body = json!({ "games": games }).to_string();
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    assert_eq!(batch["games"], true, "{batch}");
    assert_eq!(batch["count"], 3);
    assert_eq!(batch["jobs_created"], 3, "its jobs come with it");
    let id = batch["id"].as_str().unwrap();
    let view = t.wait_batch(id).await;
    assert_eq!(view["finished"], true, "{view}");
    assert_eq!(view["done"], 3, "{view}");
    // Its jobs, in the order given.
    let lines: Vec<Value> = t
        .text(&format!("/v1/batches/{id}/results"))
        .await
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["pysol"], "galary:1", "{lines:?}");
    let (_, _, page) = t
        .call("GET", &format!("/v1/jobs?batch={id}&limit=10"), None)
        .await;
    let jobs = page["jobs"].as_array().unwrap();
    let of = |field: &str, value: Value| {
        jobs.iter()
            .find(|j| j[field] == value)
            .unwrap_or_else(|| panic!("no job with {field} {value}: {page}"))
    };
    let reviewed = of("review_requested", json!(true));
    assert_eq!(reviewed["verdict"], "unsolvable", "{reviewed}");
    assert_eq!(reviewed["review"]["fatal_step"], 0, "{reviewed}");
    let board = of("variant", json!("board:galary"));
    assert_eq!(board["verdict"], "solvable", "{board}");
    assert_eq!(board["played_steps"], 1, "{board}");
    assert_eq!(board["redeals_left"], 2, "{board}");
    assert!(board["hint"].is_object(), "{board}");
    // Each answer is the one its own job gets (here from the store: the same question).
    let single = t
        .post_job(
            json!({"pysol": galary, "played": [two_c], "limits": {"nodes": 2_000_000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(single["cached"], true, "{single}");
    assert_eq!(single["solution"], board["solution"]);
}

#[tokio::test]
async fn a_bad_game_in_a_batch_is_a_422_naming_it() {
    let t = start().await;
    let good = json!({"pysol": {"game": "montana", "number": 5}});
    let cases = [
        (
            json!({"games": [good, {"pysol": {"game": "galary", "number": 1},
                "played": [{"card": "9H", "from": [0, 4], "to": [0, 1]}]}]}),
            "games[1]: played: played step 0: the gap at (0,1) does not take 9H",
        ),
        (
            json!({"games": [good], "seed": 4}),
            "games: give each game's fields",
        ),
        (json!({"games": []}), "games: give 1 to"),
        (
            json!({"games": [{"pysol": {"game": "nope", "number": 1}}]}),
            "games[0]: ",
        ),
    ];
    for (body, message) in cases {
        t.assert_unprocessable("/v1/batches", &body, message).await;
    }
    assert_eq!(t.job_count().await, 0);
}
