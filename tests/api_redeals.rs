//! Jobs with redeals through the API: PySolFC's default of two, the first round with
//! zero, numbered deals redealt by their own stream (the lines replayed here), the
//! verdict kept apart from the position's first-round verdict, and the refusals.
use crate::support;
use axum::http::StatusCode;
use gaps_engine::{deal, verify_with_redeals, Layout, RedealStream, Variant};
use serde_json::json;
use support::{moves_and_redeals, start};

#[tokio::test]
async fn pysol_jobs_use_their_two_redeals_unless_told_otherwise() {
    let t = start().await;
    // Montana game 42 is lost in its first round (docs/data) and won with a redeal.
    let first_round = t
        .post_job(
            json!({"pysol": {"game": "montana", "number": 42}, "redeals": 0,
                   "limits": {"time_ms": 20000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(first_round["redeals"], 0, "{first_round}");
    assert_eq!(first_round["verdict"], "unsolvable", "{first_round}");
    let redealt = t
        .post_job(
            json!({"pysol": {"game": "montana", "number": 42}, "limits": {"time_ms": 20000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(redealt["redeals"], 2, "{redealt}");
    assert_eq!(
        redealt["cached"], false,
        "a first-round answer must not serve it"
    );
    assert_eq!(redealt["verdict"], "solvable", "{redealt}");
    let steps = redealt["solution"].as_array().unwrap();
    let (moves, redeal_at) = moves_and_redeals(steps, Layout::STANDARD);
    assert!(!redeal_at.is_empty(), "{redealt}");
    let game = gaps_engine::PysolDeal::new(gaps_engine::PysolGame::Montana, 42).unwrap();
    verify_with_redeals(
        &game.position(),
        Variant::Common,
        &RedealStream::pysol(game),
        2,
        &moves,
        &redeal_at,
    )
    .unwrap();
    let rounds = &redealt["stats"]["rounds"];
    assert_eq!(
        rounds["used"].as_u64().unwrap() as usize,
        redeal_at.len() + 1
    );
    assert_eq!(rounds["redealt"].as_array().unwrap().len(), redeal_at.len());
    // The position's stored verdict is still the first round's.
    let (_, _, known) = t.call("GET", "/v1/verdicts?pysol=montana:42", None).await;
    assert_eq!(known["verdict"], "unsolvable", "{known}");
    // The win rates: the first round in the game's row, the redeals in a row of their own.
    let (_, _, rows) = t.call("GET", "/v1/stats/win-rates", None).await;
    let row = |redeals: i64| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["source"] == "pysol-montana" && r["redeals"] == redeals)
            .cloned()
            .unwrap_or_else(|| panic!("no pysol-montana row with {redeals} redeals: {rows}"))
    };
    assert_eq!(
        (row(0)["deals"].clone(), row(0)["unsolvable"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(
        (row(2)["deals"].clone(), row(2)["solvable"].clone()),
        (json!(1), json!(1))
    );
}

#[tokio::test]
async fn every_solved_pysol_game_is_a_job_with_its_own_redeals_and_board() {
    let t = start().await;
    let mut solved = 0;
    for (game, redeals, ranks) in [
        ("spaces", 2, 13),
        ("station", 2, 13),
        ("red-moon", 2, 13),
        ("paganini", 1, 9),
        ("house-of-commons", 1, 10),
        ("line-up", 0, 6),
    ] {
        let job = t
            .post_job(
                json!({"pysol": {"game": game, "number": 1}, "limits": {"time_ms": 20000}}),
                "?wait_ms=20000",
            )
            .await;
        assert_eq!(job["redeals"], redeals, "{job}");
        assert_eq!(job["pysol"]["game"], game, "{job}");
        let deal = gaps_engine::PysolDeal::new(game.parse().unwrap(), 1).unwrap();
        assert_eq!(job["pysol"]["board"], deal.board_text(), "{job}");
        assert_eq!(deal.position().layout().ranks(), ranks);
        // Game 1 of each is won in its first round within milliseconds on a quiet
        // machine (Montana's: 15 ms); a loaded one may leave it open, which proves
        // nothing either way.
        if job["verdict"] == "solvable" {
            let steps = job["solution"].as_array().unwrap();
            let (moves, redeal_at) = moves_and_redeals(steps, deal.position().layout());
            verify_with_redeals(
                &deal.position(),
                deal.variant(),
                &RedealStream::pysol(deal),
                redeals,
                &moves,
                &redeal_at,
            )
            .unwrap();
            let on_board = job["pysol"]["board_solution"].as_array().unwrap();
            assert_eq!(on_board.len(), steps.len(), "{job}");
            solved += 1;
        }
        let (_, _, view) = t.call("GET", &format!("/v1/pysol/{game}/1"), None).await;
        assert_eq!(view["redeals"], redeals, "{view}");
        assert_eq!(view["board"], deal.board_text(), "{view}");
    }
    // All but House of Commons (8 s) take milliseconds.
    assert!(solved >= 4, "only {solved} of 6 solved");
}

#[tokio::test]
async fn aisleriot_jobs_are_searched_depth_first_in_their_first_round() {
    let t = start().await;
    let job = t
        .post_job(
            json!({"deal": {"seed": 3, "suits": 4, "ranks": 6}, "variant": "aisleriot"}),
            "?wait_ms=20000",
        )
        .await;
    assert_eq!(job["variant"], "aisleriot", "{job}");
    assert_eq!(job["used_algorithm"], "dfs", "{job}");
    assert_eq!(job["redeals"], 0, "{job}");
    assert_ne!(job["verdict"], "unknown", "{job}");
    if job["verdict"] == "solvable" {
        let layout = gaps_engine::Layout::new(4, 6).unwrap();
        let (moves, _) = moves_and_redeals(job["solution"].as_array().unwrap(), layout);
        gaps_engine::verify_solution(&deal(3, layout), Variant::Aisleriot, &moves).unwrap();
    }
}

#[tokio::test]
async fn numbered_deals_redeal_with_their_own_stream() {
    let t = start().await;
    let layout = Layout::new(3, 5).unwrap();
    let mut redeals_seen = 0;
    for seed in 0..12u64 {
        let job = t
            .post_job(
                json!({"deal": {"seed": seed, "suits": 3, "ranks": 5}, "variant": "common",
                       "redeals": 2, "limits": {"time_ms": 10000}}),
                "?wait_ms=30000",
            )
            .await;
        assert_eq!(job["state"], "done", "{job}");
        if job["verdict"] != "solvable" {
            continue;
        }
        let (moves, redeal_at) = moves_and_redeals(job["solution"].as_array().unwrap(), layout);
        verify_with_redeals(
            &deal(seed, layout),
            Variant::Common,
            &RedealStream::deal(seed, layout.cells()),
            2,
            &moves,
            &redeal_at,
        )
        .unwrap_or_else(|e| panic!("deal {seed}: {e}"));
        redeals_seen += redeal_at.len();
    }
    assert!(redeals_seen > 0, "no solution of the 12 deals redealt");
    let (_, _, rows) = t.call("GET", "/v1/stats/win-rates", None).await;
    let ours = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source"] == "deals" && r["redeals"] == 2 && r["suits"] == 3)
        .unwrap_or_else(|| panic!("no row of our deals with redeals: {rows}"));
    assert_eq!(ours["deals"], 12, "{ours}");
}

#[tokio::test]
async fn bad_redeals_are_refused_and_nothing_is_stored() {
    let t = start().await;
    for (body, needle) in [
        (
            json!({"deal": {"seed": 1}, "redeals": 3}),
            "between 0 and 2",
        ),
        (
            json!({"pysol": {"game": "montana", "number": 5}, "redeals": 7}),
            "between 0 and 2",
        ),
        (
            json!({"position": "2S 3S --/2H 3H --", "variant": "common", "redeals": 1}),
            "shuffle",
        ),
        (json!({"deal": {"seed": 1}, "redeals": -1}), "redeals"),
        (json!({"deal": {"seed": 1}, "redeals": "two"}), "redeals"),
        (
            json!({"pysol": {"game": "montana", "from": 1, "count": 3}, "redeals": 3}),
            "between 0 and 2",
        ),
        (
            json!({"pysol": {"game": "paganini", "number": 5}, "redeals": 2}),
            "paganini allows 1 redeal",
        ),
        (
            json!({"pysol": {"game": "line-up", "from": 1, "count": 3}, "redeals": 1}),
            "line-up allows 0 redeal",
        ),
        (
            json!({"pysol": {"game": "jungle", "number": 5}, "redeals": 2}),
            "jungle allows at most 1 redeal",
        ),
        (
            json!({"deal": {"seed": 1}, "variant": "aisleriot", "redeals": 1}),
            "aisleriot plays the first round only",
        ),
        (
            json!({"deal": {"seed": 1}, "variant": "aisleriot", "algorithm": "exact"}),
            "aisleriot",
        ),
        (
            json!({"pysol": {"game": "spaces-and-aces", "from": 1, "count": 3}, "redeals": 1}),
            "spaces-and-aces allows at most 0 redeal",
        ),
    ] {
        let path = if body["pysol"].get("from").is_some() {
            "/v1/batches"
        } else {
            "/v1/jobs"
        };
        let (status, _, problem) = t.call("POST", path, Some(&body.to_string())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        assert!(
            problem["detail"]
                .as_str()
                .unwrap_or_default()
                .contains(needle),
            "{body}: {problem}"
        );
    }
    assert_eq!(t.job_count().await, 0);
}

#[tokio::test]
async fn a_batch_passes_its_redeals_to_every_job() {
    let t = start().await;
    let body = json!({"variant": "common", "suits": 3, "ranks": 5, "count": 6, "redeals": 2,
                      "limits": {"time_ms": 10000}});
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let id = batch["id"].as_str().unwrap().to_string();
    let batch = t.wait_batch(&id).await;
    assert_eq!(batch["finished"], true, "{batch}");
    let (_, _, page) = t.call("GET", &format!("/v1/jobs?batch={id}"), None).await;
    let jobs = page["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 6);
    assert!(
        jobs.iter()
            .all(|j| j["redeals"] == 2 && j["deal"].is_object()),
        "{page}"
    );
    // A batch of PySolFC games takes the game's two by default, and 0 when asked.
    for (redeals, expected) in [(None, 2), (Some(0), 0)] {
        let mut body = json!({"pysol": {"game": "blue-moon", "from": 1, "count": 2}});
        if let Some(r) = redeals {
            body["redeals"] = json!(r);
        }
        let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
        let id = batch["id"].as_str().unwrap().to_string();
        t.wait_batch(&id).await;
        let (_, _, page) = t.call("GET", &format!("/v1/jobs?batch={id}"), None).await;
        let jobs = page["jobs"].as_array().unwrap();
        assert!(jobs.iter().all(|j| j["redeals"] == expected), "{page}");
    }
}
