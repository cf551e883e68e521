//! A PySolFC game played on its own board, in progress, through the API (docs/http.md,
//! "A game in progress"): a job with `pysol` Galary and `played` answers about the
//! board its steps reach (its line replayed by the engine from there, and checked here
//! again on the board), by the board search; the same question comes back from the
//! store, and a player who follows the line is answered by the earlier job without a
//! search; a review of a game that followed its line takes one search; a step the
//! game's rule refuses is a 422 and stores nothing.
use crate::support::start;
use gaps_engine::*;
use serde_json::{json, Value};

/// Plays `steps` (JSON steps on the board) after `played` on Galary 1; whether they
/// are legal there and end won.
fn wins_after(played: &[Value], steps: &[Value]) -> bool {
    let deal: BoardDeal = "galary:1".parse().unwrap();
    let parse = |s: &Value| -> PlayedStep {
        if let Some(k) = s.get("redeal") {
            return PlayedStep::Redeal {
                number: k.as_u64().unwrap() as u8,
            };
        }
        let at = |k: &str| {
            (
                s[k][0].as_u64().unwrap() as usize,
                s[k][1].as_u64().unwrap() as usize,
            )
        };
        PlayedStep::Move {
            card: parse_card(s["card"].as_str().unwrap()).unwrap().unwrap(),
            from: at("from"),
            to: at("to"),
        }
    };
    let all: Vec<PlayedStep> = played.iter().chain(steps).map(parse).collect();
    PlayedLine::replay_board(deal.game_state(2).unwrap(), &all)
        .is_ok_and(|line| line.last().position.is_won())
}

#[tokio::test]
async fn a_board_game_in_progress_is_answered_on_its_board() {
    let t = start().await;
    let galary = json!({"game": "galary", "number": 1});
    let limits = json!({"nodes": 2_000_000});
    let whole = t
        .post_job(json!({"pysol": galary, "limits": limits}), "?wait_ms=30000")
        .await;
    assert_eq!(whole["verdict"], "solvable", "{whole}");
    let line = whole["solution"].as_array().unwrap().clone();
    let played = &line[..5];
    let ask = |steps: &[Value]| json!({"pysol": galary, "played": steps, "limits": limits});
    let job = t.post_job(ask(played), "?wait_ms=30000").await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["verdict"], "solvable", "{job}");
    assert_eq!(
        job["cached"], false,
        "the deal's own answer must not serve it"
    );
    assert_eq!(job["variant"], "board:galary", "{job}");
    assert_eq!(job["used_algorithm"], "best-first", "{job}");
    assert_eq!(job["played_steps"], 5);
    assert_eq!(job["redeals_left"], 2);
    assert_eq!(job["played_position"], job["played_board"], "{job}");
    let rest = job["solution"].as_array().unwrap().clone();
    assert_eq!(job["hint"], rest[0], "{job}");
    assert_eq!(job["board_hint"], rest[0], "{job}");
    assert_eq!(job["pysol"]["board_solution"], job["solution"], "{job}");
    assert!(wins_after(played, &rest), "{job}");
    // The same question: from the store.
    let again = t.post_job(ask(played), "?wait_ms=30000").await;
    assert_eq!(again["cached"], true, "{again}");
    assert_eq!(again["solution"], job["solution"]);
    // Two steps of the rest further: the rest of that line, without a search.
    let mut more = played.to_vec();
    more.extend(rest[..2].iter().cloned());
    let next = t.post_job(ask(&more), "?wait_ms=30000").await;
    assert_eq!(next["cached"], true, "{next}");
    // (By the first job, or by its copy from the store: both hold the same answer.)
    let by = &next["stats"]["answered_by_job"];
    assert!(*by == job["id"] || *by == again["id"], "{next}");
    assert_eq!(next["solution"], json!(rest[2..]), "{next}");
    assert!(wins_after(&more, &rest[2..]));
    // A review of steps that followed the line: still winnable, one search.
    let review = t
        .post_job(
            json!({"pysol": galary, "played": &line[..8], "review": true, "limits": limits}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(review["review"]["still_winnable"], true, "{review}");
    assert_eq!(review["review"]["searches"], 1, "{review}");
    assert_eq!(review["verdict"], "solvable", "{review}");
    let winning = review["review"]["winning_line"].as_array().unwrap();
    assert!(wins_after(&line[..8], winning), "{review}");
    // The game counts once in its win-rate row (the whole game's job).
    assert_eq!(t.win_rate_deals("pysol-galary").await, 1);
}

#[tokio::test]
async fn a_board_step_the_rule_refuses_is_a_422() {
    let t = start().await;
    let cases = [
        (
            json!({"pysol": {"game": "galary", "number": 1},
                   "played": [{"card": "9H", "from": [0, 4], "to": [0, 1]}]}),
            "played: played step 0: the gap at (0,1) does not take 9H: it takes one of 2C, TD",
        ),
        (
            json!({"pysol": {"game": "jungle", "number": 1},
                   "played": [{"redeal": 1}, {"redeal": 2}]}),
            "played step 1: no redeal is left (the game allows 1)",
        ),
        (
            json!({"pysol": {"game": "spaces-and-aces", "number": 1},
                   "played": [{"card": "AS", "from": [9, 1], "to": [0, 0]}]}),
            "played step 0: (9,1) is outside the board",
        ),
    ];
    for (body, message) in cases {
        t.assert_unprocessable("/v1/jobs", &body, message).await;
    }
    assert_eq!(t.job_count().await, 0);
}
