//! PySolFC's games played on their own boards (Galary, Free Parking, Jungle, Spaces and
//! Aces) through the service: jobs with the game's own redeals, their solutions
//! replayed under PySolFC's rules written in `cli_pysol_boards` (apart from the
//! engine), batches, the verdict lookup and list, the win-rate rows, and what such a
//! game refuses.
use crate::cli_pysol_boards::GAMES;
use crate::support::start;
use axum::http::StatusCode;
use gaps_engine::{BoardDeal, PysolGame};
use serde_json::{json, Value};

/// A game of each, won in its first round within a few thousand nodes (Spaces and
/// Aces, which has no redeal: 213,622; docs/data).
const WON: [(&str, u64, u64); 4] = [
    ("galary", 13, 2),
    ("free-parking", 2, 2),
    ("jungle", 2, 1),
    ("spaces-and-aces", 2, 0),
];

fn board_of(game: &str, number: u64) -> String {
    let game = PysolGame::named(game).unwrap();
    BoardDeal::new(game, u128::from(number))
        .unwrap()
        .board()
        .to_string()
}

#[tokio::test]
async fn board_games_are_jobs_whose_lines_win_under_pysolfcs_rules() {
    let t = start().await;
    for (game, number, redeals) in WON {
        let job = t
            .post_job(
                json!({"pysol": {"game": game, "number": number},
                       "limits": {"nodes": 2_000_000, "time_ms": 60_000}}),
                "?wait_ms=60000",
            )
            .await;
        let board = board_of(game, number);
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["variant"], format!("board:{game}"), "{job}");
        assert_eq!(job["redeals"], redeals, "{job}");
        assert_eq!(job["position"], board, "{job}");
        assert_eq!(job["pysol"]["board"], board, "{job}");
        assert_eq!(job["verdict"], "solvable", "{job}");
        assert_eq!(job["used_algorithm"], "best-first", "{job}");
        // The solution is on PySolFC's board: the view's board solution is it.
        assert_eq!(job["pysol"]["board_solution"], job["solution"], "{job}");
        let rules = GAMES.iter().find(|r| r.game == game).unwrap();
        let steps = job["solution"].as_array().unwrap();
        let redealt = job["stats"]["rounds"]["redealt"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(rules.replay(&board, steps, &redealt), Ok(true), "{job}");
    }
    // Spaces and Aces has no redeal: its verdict is its first round's, looked up by
    // number and listed.
    let (status, _, known) = t
        .call("GET", "/v1/verdicts?pysol=spaces-and-aces:2", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{known}");
    assert_eq!(
        (&known["verdict"], &known["variant"], &known["position"]),
        (
            &json!("solvable"),
            &json!("board:spaces-and-aces"),
            &json!(board_of("spaces-and-aces", 2))
        )
    );
    let (status, _, _) = t.call("GET", "/v1/verdicts?pysol=galary:14", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, list) = t
        .call("GET", "/v1/verdicts?game=spaces-and-aces&from=1&to=5", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let line: Value = list.clone();
    assert_eq!(line["number"], 2, "{list}");
    assert_eq!(line["position"], board_of("spaces-and-aces", 2), "{list}");
    // A second job of the same first round is answered from the store.
    let again = t
        .post_job(
            json!({"pysol": {"game": "spaces-and-aces", "number": 2},
                   "limits": {"nodes": 2_000_000, "time_ms": 60_000}}),
            "?wait_ms=60000",
        )
        .await;
    assert_eq!(
        (&again["verdict"], &again["cached"]),
        (&json!("solvable"), &json!(true)),
        "{again}"
    );
    // The page's view of a game: its own rules, its board as its position.
    let (status, _, view) = t.call("GET", "/v1/pysol/galary/13", None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(
        (
            &view["variant"],
            &view["position"],
            &view["board"],
            &view["redeals"]
        ),
        (
            &json!("board:galary"),
            &json!(board_of("galary", 13)),
            &json!(board_of("galary", 13)),
            &json!(2)
        )
    );
    // The win-rate rows: each game's, under its own rules and redeals.
    let (_, _, rows) = t.call("GET", "/v1/stats/win-rates", None).await;
    for (game, _, redeals) in WON {
        let row = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["source"] == format!("pysol-{game}") && r["redeals"] == redeals)
            .unwrap_or_else(|| panic!("no row of {game} with {redeals} redeals: {rows}"));
        assert_eq!(row["variant"], format!("board:{game}"), "{row}");
        assert_eq!(
            (&row["deals"], &row["solvable"]),
            (&json!(1), &json!(1)),
            "{row}"
        );
    }
}

#[tokio::test]
async fn a_batch_of_a_board_game_solves_each_number_on_its_board() {
    let t = start().await;
    let body = json!({"pysol": {"game": "free-parking", "from": 1, "count": 3},
                      "limits": {"nodes": 100_000}});
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let id = batch["id"].as_str().unwrap().to_string();
    let mut done = Value::Null;
    for _ in 0..600 {
        let (_, _, b) = t.call("GET", &format!("/v1/batches/{id}"), None).await;
        if b["done"] == 3 {
            done = b;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(done["done"], 3, "{done}");
    assert_eq!(done["variant"], "board:free-parking", "{done}");
    // Game 2 is won in 33,811 nodes (by the restarts of its first round); the others
    // need more than the batch's limit.
    let (_, _, jobs) = t
        .call("GET", &format!("/v1/jobs?batch={id}&limit=10"), None)
        .await;
    let jobs = jobs["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    for job in jobs {
        let number = job["pysol"]["number"].as_u64().unwrap();
        assert_eq!(job["position"], board_of("free-parking", number), "{job}");
        let expected = if number == 2 { "solvable" } else { "unknown" };
        assert_eq!(job["verdict"], expected, "{job}");
    }
}

#[tokio::test]
async fn a_board_games_round_is_searched_exhaustively_with_exact() {
    // Free Parking 2's first round is won by the exhaustive search in 52,984 positions;
    // Galary 3's is not decided within 20,000 (the search stops at its node limit), in
    // a `table_mb` above the solvers' table (8 MiB here), as `exact` takes from the
    // node's memory for searches.
    let t = start().await;
    let job = t
        .post_job(
            json!({"pysol": {"game": "free-parking", "number": 2}, "algorithm": "exact",
                   "redeals": 0, "limits": {"time_ms": 60_000}}),
            "?wait_ms=60000",
        )
        .await;
    assert_eq!(
        (
            &job["state"],
            &job["verdict"],
            &job["used_algorithm"],
            &job["redeals"]
        ),
        (
            &json!("done"),
            &json!("solvable"),
            &json!("exact"),
            &json!(0)
        ),
        "{job}"
    );
    let board = board_of("free-parking", 2);
    let rules = GAMES.iter().find(|r| r.game == "free-parking").unwrap();
    let steps = job["solution"].as_array().unwrap();
    assert_eq!(rules.replay(&board, steps, &[]), Ok(true), "{job}");
    let job = t
        .post_job(
            json!({"pysol": {"game": "galary", "number": 3}, "algorithm": "exact",
                   "redeals": 0, "limits": {"nodes": 20_000, "table_mb": 16}}),
            "?wait_ms=60000",
        )
        .await;
    assert_eq!(
        (&job["verdict"], &job["stopped"], &job["used_algorithm"]),
        (&json!("unknown"), &json!("node_limit"), &json!("exact")),
        "{job}"
    );
}

#[tokio::test]
async fn board_games_refuse_what_does_not_apply_to_them() {
    let t = start().await;
    for (body, needle) in [
        (
            json!({"pysol": {"game": "galary", "number": 1}, "variant": "common"}),
            "own board",
        ),
        (
            json!({"pysol": {"game": "jungle", "number": 1}, "algorithm": "dfs"}),
            "exhaustive search of a round without redeals (exact)",
        ),
        (
            json!({"pysol": {"game": "galary", "number": 1}, "algorithm": "exact"}),
            "ask for 0 redeals",
        ),
        (
            json!({"pysol": {"game": "galary", "number": 1}, "algorithm": "exact",
                   "redeals": 0, "played": []}),
            "give no played steps",
        ),
        (
            json!({"pysol": {"game": "jungle", "number": 1}, "limits": {"threads": 2}}),
            "one thread",
        ),
        (
            json!({"pysol": {"game": "jungle", "number": 1}, "limits": {"table_mb": 16}}),
            "the solvers' table",
        ),
        (
            json!({"pysol": {"game": "free-parking", "number": 1}, "redeals": 3}),
            "at most 2",
        ),
        (json!({"pysol": {"game": "galary", "number": 0}}), "from 1"),
        (
            json!({"pysol": {"game": "galary", "number": 1}, "position": "2S --/2H --"}),
            "not several",
        ),
    ] {
        let (status, _, problem) = t.call("POST", "/v1/jobs", Some(&body.to_string())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(needle), "{body}: {problem}");
    }
    let (status, _, problem) = t
        .call("GET", "/v1/verdicts?pysol=galary:1&variant=basic", None)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
    assert_eq!(t.job_count().await, 0);
}

#[tokio::test]
async fn a_running_board_job_shows_its_progress_and_is_cancelled() {
    let t = start().await;
    // Spaces and Aces 21 is not decided within 60 s (docs/data).
    let job = t
        .post_job(
            json!({"pysol": {"game": "spaces-and-aces", "number": 21},
                   "limits": {"time_ms": 60_000}}),
            "?wait_ms=500",
        )
        .await;
    assert_eq!(job["state"], "running", "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let (_, _, live) = t.call("GET", &format!("/v1/jobs/{id}"), None).await;
    assert!(live["progress"]["nodes"].as_u64().unwrap() > 0, "{live}");
    let began = std::time::Instant::now();
    let (status, _, _) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, _, fin) = t
        .call("GET", &format!("/v1/jobs/{id}?wait_ms=5000"), None)
        .await;
    assert_eq!(fin["state"], "cancelled", "{fin}");
    assert!(began.elapsed().as_secs() < 5, "cancelled within seconds");
    assert!(fin["stats"]["nodes"].as_u64().unwrap() > 0, "{fin}");
}
