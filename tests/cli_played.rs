//! A game in progress from the command line (docs/cli.md, "A game in progress"):
//! `gaps solve --played` answers about the rest of a game with the redeals left, its
//! continuation replayed after the played steps on PySolFC's board under PySolFC's own
//! rules (`cli_pysol_boards::Rules`, written apart from the engine); `gaps review`
//! names the fatal step the plain reference over rounds names; bad steps exit 2.
use crate::cli::{gaps, gaps_json};
use crate::cli_pysol_boards::{Rules, GAMES};
use gaps_engine::*;
use serde_json::Value;

/// The steps of `line` up to and with its first redeal, or its first `otherwise` steps
/// when it has none.
pub(crate) fn prefix_to_first_redeal(line: &[Value], otherwise: usize) -> &[Value] {
    let cut = line
        .iter()
        .position(|s| s.get("redeal").is_some())
        .map_or(otherwise, |r| r + 1);
    &line[..cut]
}

/// A temporary file holding `steps` as JSON (a `--played` file).
pub(crate) fn write_steps(steps: &[Value]) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_string(steps).unwrap()).unwrap();
    file
}

/// Checks the answer `rest` about game `game` after `played`, a prefix of the line of
/// `whole` (the whole game's answer): its board hint is the continuation's first step,
/// its redeals count on from the played ones, and the played steps followed by the
/// continuation win under PySolFC's `rules` on the board (the played redeals as
/// `whole` showed them, the continuation's as `rest` shows them).
pub(crate) fn continuation_wins(
    rules: &Rules,
    game: &str,
    whole: &Value,
    played: &[Value],
    rest: &Value,
) {
    let used = played.iter().filter(|s| s.get("redeal").is_some()).count();
    let more = rest["pysol"]["board_solution"].as_array().unwrap();
    assert_eq!(rest["board_hint"], more[0], "{game}");
    for (k, step) in more
        .iter()
        .filter(|s| s.get("redeal").is_some())
        .enumerate()
    {
        assert_eq!(step["redeal"], used + k + 1, "{game}");
    }
    let mut redealt: Vec<Value> = whole["rounds"]["redealt"]
        .as_array()
        .map_or(Vec::new(), |r| r[..used].to_vec());
    redealt.extend(
        rest["rounds"]["redealt"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    let steps: Vec<Value> = played.iter().chain(more).cloned().collect();
    let board = whole["pysol"]["board"].as_str().unwrap();
    assert_eq!(rules.replay(board, &steps, &redealt), Ok(true), "{game}");
    if used > 0 {
        assert_eq!(rest["played_board"], redealt[0]["board"], "{game}");
    }
}

#[test]
fn the_rest_of_a_game_goes_on_from_where_it_stands() {
    let rules = GAMES.iter().find(|r| r.game == "montana").unwrap();
    let mut with_played_redeal = 0;
    for number in 1..=8 {
        let game = format!("montana:{number}");
        let (code, whole, err) =
            gaps_json(&["solve", "--pysol", &game, "--json", "--time-ms", "20000"]);
        assert_eq!(code, Some(0), "{err}");
        if whole["verdict"] != "solvable" {
            continue;
        }
        let line = whole["pysol"]["board_solution"].as_array().unwrap().clone();
        // Half the line, and up to its first redeal when it has one.
        let played = prefix_to_first_redeal(&line, line.len() / 2);
        let used = played.iter().filter(|s| s.get("redeal").is_some()).count();
        with_played_redeal += usize::from(used > 0);
        let file = write_steps(played);
        let path = file.path().to_str().unwrap();
        let (code, rest, err) = gaps_json(&[
            "solve",
            "--pysol",
            &game,
            "--played",
            path,
            "--json",
            "--time-ms",
            "20000",
        ]);
        assert_eq!(code, Some(0), "{game}: {err}");
        assert_eq!(rest["played_steps"], played.len(), "{game}");
        assert_eq!(rest["redeals_left"], 2 - used, "{game}");
        assert_eq!(rest["verdict"], "solvable", "{game}: {rest}");
        assert_eq!(rest["hint"], rest["solution"][0], "{game}");
        continuation_wins(rules, &game, &whole, played, &rest);
    }
    assert!(
        with_played_redeal >= 1,
        "no game redealt in its played steps"
    );
}

#[test]
fn blue_moons_steps_are_given_on_its_board() {
    let (code, whole, err) = gaps_json(&[
        "solve",
        "--pysol",
        "blue-moon:2",
        "--redeals",
        "0",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let line = whole["pysol"]["board_solution"].as_array().unwrap();
    let file = write_steps(&line[..5]);
    let path = file.path().to_str().unwrap();
    let args = [
        "solve",
        "--pysol",
        "blue-moon:2",
        "--redeals",
        "0",
        "--played",
        path,
        "--json",
    ];
    let (code, rest, err) = gaps_json(&args);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(rest["verdict"], "solvable");
    // The board keeps its Aces column; the engine's position has none.
    let board = rest["played_board"].as_str().unwrap();
    let position = rest["played_position"].as_str().unwrap();
    assert_eq!(board.split('/').next().unwrap().split(' ').count(), 14);
    assert_eq!(position.split('/').next().unwrap().split(' ').count(), 13);
    // The engine's solution steps given as if on the board are refused.
    let engine_steps = whole["solution"].as_array().unwrap();
    let file = write_steps(&engine_steps[..5]);
    let path = file.path().to_str().unwrap();
    let args = [
        "solve",
        "--pysol",
        "blue-moon:2",
        "--redeals",
        "0",
        "--played",
        path,
    ];
    gaps().args(args).assert().code(2);
}

#[test]
fn the_legal_moves_of_a_game_in_progress_are_pysolfcs_on_its_board() {
    for rules in &GAMES {
        for number in 1..=3 {
            let game = format!("{}:{number}", rules.game);
            let limit = ["--nodes", "20000", "--redeals", "0", "--json"];
            let (code, whole, err) =
                gaps_json(&[&["solve", "--pysol", &game][..], &limit].concat());
            assert_eq!(code, Some(0), "{game}: {err}");
            let line = whole["pysol"]["board_solution"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            // The deal, and a few steps into a winning line where there is one.
            for played in [&line[..0], &line[..line.len().min(3)]] {
                let file = write_steps(played);
                let path = file.path().to_str().unwrap();
                let args = [&["solve", "--pysol", &game, "--played", path][..], &limit].concat();
                let (code, out, err) = gaps_json(&args);
                assert_eq!(code, Some(0), "{game}: {err}");
                let listed: std::collections::BTreeSet<_> = out["legal_moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| {
                        let cell = |k: &str| {
                            [
                                m[k][0].as_u64().unwrap() as usize,
                                m[k][1].as_u64().unwrap() as usize,
                            ]
                        };
                        (
                            m["card"].as_str().unwrap().to_string(),
                            cell("from"),
                            cell("to"),
                        )
                    })
                    .collect();
                let board = out["played_board"].as_str().unwrap();
                assert_eq!(
                    listed,
                    rules.legal_moves(board),
                    "{game} after {} steps",
                    played.len()
                );
                assert_eq!(
                    listed.len(),
                    out["legal_moves"].as_array().unwrap().len(),
                    "{game}: each once"
                );
            }
        }
    }
}

#[test]
fn bad_played_steps_exit_2_naming_the_step() {
    let cases: [(&str, &str); 6] = [
        (
            r#"[{"card":"8S","from":[0,1],"to":[0,0]}]"#,
            "played step 0: the gap at (0,0) does not take 8S: it takes one of 2S, 2H, 2D, 2C",
        ),
        (
            r#"[{"redeal":2}]"#,
            "played step 0: this is redeal 1, not redeal 2",
        ),
        (
            r#"[{"redeal":1},{"redeal":2},{"redeal":3}]"#,
            "played step 2: no redeal is left (the game allows 2)",
        ),
        (
            r#"[{"card":"ZZ","from":[0,1],"to":[0,0]}]"#,
            "played step 0: `ZZ` is not a card",
        ),
        (
            r#"[{"card":"8S","from":[0,1],"to":[9,0]}]"#,
            "played step 0: (9,0) is outside the board",
        ),
        (r#"{"steps": []}"#, "not a JSON array of steps"),
    ];
    for (steps, message) in cases {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), steps).unwrap();
        let path = file.path().to_str().unwrap();
        for command in ["solve", "review"] {
            gaps()
                .args([command, "--pysol", "montana:5", "--played", path])
                .assert()
                .code(2)
                .stderr(predicates::str::contains(message));
        }
    }
    // A redeal where the game has none.
    let file = write_steps(&[serde_json::json!({"redeal": 1})]);
    let path = file.path().to_str().unwrap();
    gaps()
        .args([
            "solve", "--deal", "3", "--suits", "3", "--ranks", "5", "--played", path,
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no redeal is left (the game allows 0)",
        ));
}

/// Random steps on a small numbered deal (moves, and a redeal now and then).
pub(crate) fn random_play(
    source: DealSource,
    redeals: u8,
    rng: &mut SplitMix64,
) -> (PlayedLine, Vec<Value>) {
    let start = GameState::start(source.start(), source.redeals(redeals).as_ref());
    let mut steps = Vec::new();
    let mut json = Vec::new();
    let mut state = start.clone();
    for _ in 0..20 {
        let mut list = MoveList::<MAX_MOVES>::default();
        state.position.legal_moves(Variant::Common, &mut list);
        if state.position.is_won(Variant::Common) {
            break;
        }
        let step = if state.redeals_left() > 0 && (list.is_empty() || rng.below(8) == 0) {
            json.push(serde_json::json!({"redeal": state.redeals_used + 1}));
            PlayedStep::Redeal {
                number: state.redeals_used + 1,
            }
        } else if let Some(&m) = list
            .as_slice()
            .get(rng.below(list.len().max(1) as u64) as usize)
        {
            let ((fr, fc), (tr, tc)) = (m.from_rc(), m.to_rc());
            json.push(
                serde_json::json!({"card": m.card.to_string(), "from": [fr, fc], "to": [tr, tc]}),
            );
            PlayedStep::Move {
                card: m.card,
                from: (fr, fc),
                to: (tr, tc),
            }
        } else {
            break;
        };
        steps.push(step);
        state = PlayedLine::replay(state, Variant::Common, None, &[step])
            .unwrap()
            .last()
            .clone();
    }
    (
        PlayedLine::replay(start, Variant::Common, None, &steps).unwrap(),
        json,
    )
}

#[test]
fn the_review_names_the_step_the_reference_names() {
    let layout = Layout::new(3, 5).unwrap();
    let mut rng = SplitMix64::new(2026);
    let mut found = [0usize; 3]; // fatal step, still winnable, lost from the deal
    for seed in 0..60 {
        let source = DealSource::Numbered { seed, layout };
        // Every other game without redeals (more of them lost from the deal).
        let redeals = (seed % 2) as u8;
        let (line, json) = random_play(source, redeals, &mut rng);
        let truth: Vec<bool> = line
            .states
            .iter()
            .map(|s| match s.redeals() {
                Some(r) => {
                    winnable_with_redeals(&s.position, Variant::Common, &r.stream, r.count, 200_000)
                }
                None => reachable(&s.position, Variant::Common, 200_000).winnable,
            })
            .map(|w| w.expect("small enough"))
            .collect();
        let file = write_steps(&json);
        let path = file.path().to_str().unwrap();
        let seed_text = seed.to_string();
        let redeals_text = redeals.to_string();
        let args = [
            "review",
            "--deal",
            &seed_text,
            "--suits",
            "3",
            "--ranks",
            "5",
            "--variant",
            "common",
            "--redeals",
            &redeals_text,
            "--played",
            path,
        ];
        let (code, out, err) = gaps_json(&[&args[..], &["--json"]].concat());
        assert_eq!(code, Some(0), "{err}");
        let review = &out["review"];
        let what = format!("deal {seed}: {json:?} {review}");
        match truth.iter().position(|&w| !w) {
            None => {
                assert_eq!(review["still_winnable"], true, "{what}");
                assert_eq!(review["fatal_step"], Value::Null, "{what}");
                found[1] += 1;
            }
            Some(0) => {
                assert_eq!(review["lost_from_start"], true, "{what}");
                found[2] += 1;
            }
            Some(lost) => {
                assert_eq!(review["fatal_step"], lost - 1, "{what}");
                // The text names the fatal step as people count (from 1), with its
                // move, and numbers the winning line as `gaps solve` does.
                let text = gaps().args(args).output().unwrap();
                let text = String::from_utf8(text.stdout).unwrap();
                let step = &json[lost - 1];
                let words = match step.get("card") {
                    Some(card) => format!(
                        "{} ({},{}) -> ({},{})",
                        card.as_str().unwrap(),
                        step["from"][0],
                        step["from"][1],
                        step["to"][0],
                        step["to"][1]
                    ),
                    None => format!("redeal {}", step["redeal"]),
                };
                let named = format!("lost at step {lost} of {}: {words}", json.len());
                assert!(text.contains(&named), "{named}\n{text}");
                assert!(text.contains(&format!("winning line from before step {lost}")));
                assert!(text.contains("\n   1. "), "{text}");
                // `gaps solve --played` after the step before the fatal one: its hint
                // is the first move of a winning line, in the same words.
                let before = write_steps(&json[..lost - 1]);
                let mut solve = args;
                solve[0] = "solve";
                solve[12] = before.path().to_str().unwrap();
                let text = gaps().args(solve).output().unwrap();
                let text = String::from_utf8(text.stdout).unwrap();
                assert!(text.contains("verdict: solvable\nhint: "), "{text}");
                assert!(
                    review["winning_line"]
                        .as_array()
                        .is_some_and(|l| !l.is_empty()),
                    "{what}"
                );
                found[0] += 1;
            }
        }
        assert_eq!(review["unknown_steps"], serde_json::json!([]), "{what}");
    }
    assert!(found.iter().all(|&n| n >= 3), "{found:?}");
}
