//! `--redeals` on the command line: defaults, bad values, bare positions, and lines
//! with redeal steps that replay.
use crate::cli::gaps_json;
use crate::support::moves_and_redeals;
use gaps_engine::{deal, verify_with_redeals, Layout, RedealStream, Variant};
use serde_json::Value;

fn solve(args: &[&str]) -> (Option<i32>, Value, String) {
    gaps_json(&[&["solve"], args].concat())
}

#[test]
fn bad_redeals_are_refused_with_exit_2() {
    for (args, needle) in [
        (vec!["--deal", "5", "--redeals", "3"], "between 0 and 2"),
        (
            vec!["--redeals", "1", "--variant", "common", "2S 3S --/2H 3H --"],
            "need the deal's shuffle",
        ),
        (vec!["--pysol", "montana:5", "--redeals", "-1"], "redeals"),
        (vec!["--pysol", "montana:5", "--redeals", "many"], "redeals"),
    ] {
        let (code, _, stderr) = solve(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn numbered_deals_redeal_with_their_own_stream_and_the_lines_replay() {
    // Small deals: some need a redeal to be won.
    let mut redealt = 0;
    let layout = Layout::new(3, 5).unwrap();
    for seed in 0..40u64 {
        let seed_text = seed.to_string();
        let (code, v, stderr) = solve(&[
            "--json",
            "--deal",
            &seed_text,
            "--suits",
            "3",
            "--ranks",
            "5",
            "--variant",
            "common",
            "--redeals",
            "2",
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(v["rounds"]["redeals"], 2);
        if v["verdict"] != "solvable" {
            continue;
        }
        let (moves, redeal_at) = moves_and_redeals(v["solution"].as_array().unwrap(), layout);
        assert_eq!(
            v["rounds"]["used"].as_u64().unwrap() as usize,
            redeal_at.len() + 1
        );
        assert_eq!(
            v["rounds"]["redealt"].as_array().map_or(0, Vec::len),
            redeal_at.len()
        );
        let stream = RedealStream::deal(seed, layout.cells());
        verify_with_redeals(
            &deal(seed, layout),
            Variant::Common,
            &stream,
            2,
            &moves,
            &redeal_at,
        )
        .unwrap_or_else(|e| panic!("deal {seed}: {e}"));
        redealt += redeal_at.len();
    }
    assert!(redealt > 0, "no line of the 40 deals redealt");
}

#[test]
fn pysol_games_default_to_their_two_redeals_and_zero_is_the_first_round() {
    let (_, two, _) = solve(&["--json", "--pysol", "montana:42", "--time-ms", "20000"]);
    assert_eq!(two["rounds"]["redeals"], 2);
    let (_, none, _) = solve(&["--json", "--pysol", "montana:42", "--redeals", "0"]);
    assert_eq!(none["rounds"]["redeals"], 0);
    // Game 42 is lost in its first round (docs/data) and won with a redeal.
    assert_eq!(none["verdict"], "unsolvable");
    assert_eq!(two["verdict"], "solvable");
    assert!(two["solution"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s.get("redeal").is_some()));
    // Our numbered deals take none unless asked.
    let (_, ours, _) = solve(&["--json", "--deal", "42"]);
    assert!(ours.get("rounds").is_none());
}
