//! A PySolFC game played on its own board, in progress, from the command line
//! (docs/cli.md, "A game in progress"): for Galary, Free Parking, Jungle and Spaces and
//! Aces, `gaps solve --played` goes on from where a prefix of the game's own winning
//! line left it (a played redeal included), and the played steps followed by the
//! continuation win under PySolFC's rules on its board (`cli_pysol_boards::Rules`,
//! written apart from the engine); `gaps review` of a game that followed its winning
//! line finds it still winnable in one search; bad steps exit 2 naming the step. (The
//! review's fatal steps are checked against the board reference in the engine's
//! `board_played` tests.)
use crate::cli::gaps_json;
use crate::cli_played::{continuation_wins, prefix_to_first_redeal, write_steps};
use crate::cli_pysol_boards::GAMES;
use serde_json::Value;

const ON_BOARD: [&str; 4] = ["galary", "free-parking", "jungle", "spaces-and-aces"];

/// `gaps solve --pysol GAME --json` with the board search held to nodes (the same
/// answers on every machine; Jungle's redeals come after a first round of about a
/// million), and `extra` arguments.
fn solve(game: &str, extra: &[&str]) -> Value {
    let nodes = if game.starts_with("jungle") {
        "1500000"
    } else {
        "600000"
    };
    let mut args = vec!["solve", "--pysol", game, "--json", "--nodes", nodes];
    args.extend_from_slice(extra);
    let (code, json, err) = gaps_json(&args);
    assert_eq!(code, Some(0), "{game} {extra:?}: {err}");
    json
}

#[test]
fn a_board_game_goes_on_from_where_its_steps_left_it() {
    let mut with_played_redeal = 0;
    for name in ON_BOARD {
        let rules = GAMES.iter().find(|r| r.game == name).unwrap();
        let mut answered = 0;
        // Spaces and Aces leaves about a third of its games undecided: games it wins
        // within the nodes (docs/data/pysol-spaces-and-aces-1-1000-60s.csv).
        let numbers: Vec<u32> = if name == "spaces-and-aces" {
            vec![2, 24, 28, 31, 45, 47, 50]
        } else {
            (1..=12).collect()
        };
        for number in numbers {
            if answered == 3 {
                break;
            }
            let game = format!("{name}:{number}");
            let whole = solve(&game, &[]);
            if whole["verdict"] != "solvable" {
                continue;
            }
            let line = whole["pysol"]["board_solution"].as_array().unwrap().clone();
            // Up to the line's first redeal when it has one, else a third of it.
            let played = prefix_to_first_redeal(&line, line.len() / 3);
            let used = played.iter().filter(|s| s.get("redeal").is_some()).count();
            with_played_redeal += usize::from(used > 0);
            let file = write_steps(played);
            let rest = solve(&game, &["--played", file.path().to_str().unwrap()]);
            assert_eq!(rest["variant"], format!("board:{name}"), "{game}");
            assert_eq!(rest["played_steps"], played.len(), "{game}");
            let own = match name {
                "jungle" => 1,
                "spaces-and-aces" => 0,
                _ => 2,
            };
            assert_eq!(rest["redeals_left"], own - used, "{game}");
            // A game on its own board: its position is its board.
            assert_eq!(rest["played_position"], rest["played_board"], "{game}");
            if rest["verdict"] != "solvable" {
                // The rest is searched within the same nodes from a later state: it
                // may stay unknown, never lost (the whole line wins from there).
                assert_eq!(rest["verdict"], "unknown", "{game}: {rest}");
                continue;
            }
            answered += 1;
            assert_eq!(rest["solution"], rest["pysol"]["board_solution"], "{game}");
            assert_eq!(rest["hint"], rest["solution"][0], "{game}");
            continuation_wins(rules, &game, &whole, played, &rest);
        }
        assert!(answered >= 2, "{name}: only {answered} games answered");
    }
    assert!(
        with_played_redeal >= 1,
        "no game redealt in its played steps"
    );
}

#[test]
fn a_board_games_review_and_bad_steps() {
    // Galary 1 followed for a few steps of its line: still winnable, in one search.
    let whole = solve("galary:1", &[]);
    let line = whole["pysol"]["board_solution"].as_array().unwrap();
    let file = write_steps(&line[..6]);
    let path = file.path().to_str().unwrap();
    let (code, review, err) = gaps_json(&[
        "review", "--pysol", "galary:1", "--played", path, "--json", "--nodes", "600000",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(review["variant"], "board:galary");
    assert_eq!(review["review"]["still_winnable"], true, "{review}");
    assert_eq!(review["review"]["searches"], 1, "{review}");
    // A step the rule refuses, and a redeal past the game's own: refused with the
    // step's index and why.
    let deal = whole["pysol"]["board"].as_str().unwrap();
    let first_row: Vec<&str> = deal.split('/').next().unwrap().split(' ').collect();
    let nine = first_row.iter().position(|c| *c == "9H").unwrap();
    let bad = [
        serde_json::json!({"card": "9H", "from": [0, nine], "to": [0, 1]}),
        serde_json::json!({"redeal": 1}),
    ];
    let file = write_steps(&bad);
    let (code, _, err) = gaps_json(&[
        "solve",
        "--pysol",
        "galary:1",
        "--played",
        file.path().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("played step 0: the gap at (0,1) does not take 9H: it takes one of 2C, TD"),
        "{err}"
    );
    let redeals = [
        serde_json::json!({"redeal": 1}),
        serde_json::json!({"redeal": 2}),
    ];
    let file = write_steps(&redeals);
    let (code, _, err) = gaps_json(&[
        "solve",
        "--pysol",
        "jungle:1",
        "--played",
        file.path().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("played step 1: no redeal is left (the game allows 1)"),
        "{err}"
    );
}
