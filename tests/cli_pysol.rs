//! PySolFC's games from the command line: dealt, solved, and counted by `winrate`.
use crate::cli::gaps;
use serde_json::Value;

#[test]
fn pysol_games_are_dealt_and_solved_as_pysolfc_deals_them() {
    // Pinned from PyPI's pysol_cards (tests/pysol.rs compares thousands).
    gaps()
        .args(["deal", "--pysol", "montana:1"])
        .assert()
        .success()
        .stdout("JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S --/QC KH 3H 2S KS 9D QD JS -- -- 3C 4C 5C/TS QH 4H -- 4D 7S 3S TD 4S TH 8H 2C JH/7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H\n");
    let board = gaps()
        .args(["deal", "--pysol", "blue-moon:2"])
        .output()
        .unwrap();
    assert!(String::from_utf8(board.stdout)
        .unwrap()
        .starts_with("AC QD QC KC"));
    let out = gaps()
        .args(["solve", "--json", "--pysol", "blue-moon:2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["variant"], "basic", "{v}");
    assert_eq!(v["pysol"]["game"], "blue-moon", "{v}");
    assert_eq!(v["pysol"]["number"], 2, "{v}");
    if v["verdict"] == "solvable" {
        let on_board = v["pysol"]["board_solution"].as_array().unwrap();
        assert_eq!(on_board.len(), v["solution"].as_array().unwrap().len());
        // Columns one to the right of the position's: column 0 holds the Aces.
        assert!(on_board.iter().all(|m| m["to"][1].as_u64().unwrap() >= 1));
    }
    // The text shows the board and the solution on it.
    let text = gaps()
        .args(["solve", "--pysol", "blue-moon:2"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let first_move = &v["pysol"]["board_solution"][0];
    let first_line = format!(
        "   1. {} ({},{}) -> ({},{})",
        first_move["card"].as_str().unwrap(),
        first_move["from"][0],
        first_move["from"][1],
        first_move["to"][0],
        first_move["to"][1]
    );
    assert!(text.contains("solution (on the board): "), "{text}");
    assert!(text.contains(&first_line), "{first_line} in {text}");
    let montana = gaps()
        .args([
            "solve",
            "--json",
            "--pysol",
            "montana:1",
            "--time-ms",
            "2000",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&montana.stdout).unwrap();
    assert_eq!(v["variant"], "common", "{v}");
    // Montana's board is its position: the solution on it is the solution.
    assert_eq!(v["pysol"]["board_solution"], v["solution"], "{v}");
}

#[test]
fn winrate_deals_pysol_games_from_game_1() {
    let out = gaps()
        .args(["winrate", "--pysol", "blue-moon", "--deals", "30", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pysol"], "blue-moon", "{v}");
    assert_eq!(v["variant"], "basic", "{v}");
    assert_eq!(v["seed"], 1, "{v}");
    let decided = v["solvable"].as_u64().unwrap() + v["unsolvable"].as_u64().unwrap();
    assert_eq!(decided, 30, "{v}");
    // The same deals one by one agree.
    let mut wins = 0;
    for n in 1..=30 {
        let out = gaps()
            .args(["solve", "--json", "--pysol", &format!("blue-moon:{n}")])
            .output()
            .unwrap();
        let one: Value = serde_json::from_slice(&out.stdout).unwrap();
        wins += u64::from(one["verdict"] == "solvable");
    }
    assert_eq!(v["solvable"], wins, "{v}");
}

#[test]
fn deal_count_prints_consecutive_games_and_checks_the_whole_range_first() {
    let text = |args: &[&str]| {
        let out = gaps().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let three = text(&["deal", "--pysol", "blue-moon:31999", "--count", "3"]);
    let one_by_one: String = (31999..32002)
        .map(|n| text(&["deal", "--pysol", &format!("blue-moon:{n}")]))
        .collect();
    // Across the generators' boundary (32000), as one by one.
    assert_eq!(three, one_by_one);
    let deals = text(&[
        "deal",
        "--seed",
        "5",
        "--ranks",
        "6",
        "--count",
        "2",
        "--position",
    ]);
    let second = text(&["deal", "--seed", "6", "--ranks", "6", "--position"]);
    assert_eq!(deals.lines().nth(1).unwrap(), second.trim_end());
    for bad in [
        &[
            "deal",
            "--pysol",
            "montana:100000000000000000000",
            "--count",
            "2",
        ][..],
        &["deal", "--seed", "18446744073709551615", "--count", "2"],
        &["deal", "--seed", "1", "--count", "0"],
    ] {
        gaps().args(bad).assert().code(2).stdout("");
    }
}

#[test]
fn jsonl_lines_may_name_pysol_games() {
    let input = concat!(
        "{\"pysol\": \"blue-moon:2\"}\n",
        "{\"pysol\": \"blue-moon:2\", \"variant\": \"common\"}\n",
        "{\"pysol\": \"montana:0\"}\n",
        "{\"pysol\": \"blue-moon:2\", \"position\": \"2S 3S -- 4S/2H 3H 4H --\"}\n",
        "{\"variant\": \"basic\"}\n",
    );
    let out = gaps()
        .args(["solve", "--jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    // The same answer as `solve --json --pysol blue-moon:2`.
    let one = gaps()
        .args(["solve", "--json", "--pysol", "blue-moon:2"])
        .output()
        .unwrap();
    let one: Value = serde_json::from_slice(&one.stdout).unwrap();
    for field in ["position", "variant", "verdict", "solution", "pysol"] {
        assert_eq!(lines[0][field], one[field], "{field}");
    }
    for (line, needle) in [
        (1, "contradicts"),
        (2, "pysol"),
        (3, "one of"),
        (4, "one of"),
    ] {
        let error = lines[line]["error"].as_str().unwrap_or_default();
        assert!(error.contains(needle), "line {line}: {}", lines[line]);
    }
}
