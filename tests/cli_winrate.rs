//! `gaps winrate`: counts, intervals, and runs resumed from their `--out` file.
use crate::cli::gaps;
use predicates::prelude::*;
use serde_json::Value;

/// `winrate` over common 3x5 deals, the start of the resumed runs' arguments.
const COMMON_3X5: [&str; 7] = [
    "winrate",
    "--variant",
    "common",
    "--suits",
    "3",
    "--ranks",
    "5",
];

#[test]
fn winrate_reports_counts_and_interval() {
    let out = gaps()
        .args([
            "winrate",
            "--variant",
            "basic",
            "--suits",
            "4",
            "--ranks",
            "6",
            "--deals",
            "200",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let count = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(count("deals"), 200);
    assert_eq!(
        count("solvable") + count("unsolvable") + count("unknown"),
        200
    );
    assert_eq!(count("unknown"), 0);
    let rate = v["win_rate"].as_f64().unwrap();
    assert!((rate - count("solvable") as f64 / 200.0).abs() < 1e-12);
    assert!(v["ci95_low"].as_f64().unwrap() < rate && rate < v["ci95_high"].as_f64().unwrap());
    assert!(v["elapsed_ms"].is_number());
}

/// `--out` writes a line per deal and a run with the same file skips the deals it holds:
/// a run stopped part way and resumed counts what a run in one go counts.
#[test]
fn winrate_resumes_from_its_out_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rates.csv");
    let run = |deals: &str, out: bool| {
        let mut args = COMMON_3X5.to_vec();
        args.extend([
            "--deals",
            deals,
            "--time-ms",
            "5000",
            "--search-threads",
            "1",
            "--json",
        ]);
        if out {
            args.extend(["--out", file.to_str().unwrap()]);
        }
        let out = gaps().args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let first = run("12", true);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("deal,verdict,nodes,seconds,algorithm,stopped")
    );
    assert_eq!(text.lines().count(), 13, "{text}");
    assert_eq!(first["deals"], 12);
    // Resumed to 30 deals: the first 12 are read back, only 18 are solved.
    let resumed = run("30", true);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 31, "{text}");
    let whole = run("30", false);
    for key in ["deals", "solvable", "unsolvable", "unknown", "nodes"] {
        assert_eq!(resumed[key], whole[key], "{key}");
    }
    // A line that is not a winrate line is refused, not skipped.
    std::fs::write(
        &file,
        "deal,verdict,nodes,seconds,algorithm,stopped\n0,maybe,1,0.1,dfs,\n",
    )
    .unwrap();
    gaps()
        .args(COMMON_3X5)
        .args(["--deals", "2", "--out", file.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 2"));
}

/// One bound for a PySolFC game number on the command line as over HTTP (1 to 10^20):
/// `winrate --seed` and `winnable --from` reach the last games, refuse the number after
/// it with the bound in words, and our own deals stop at 2^63-1, as over HTTP.
#[test]
fn game_numbers_run_to_ten_to_the_twentieth_on_the_command_line() {
    use crate::cli::gaps_json;
    let last = "100000000000000000000";
    let (code, json, err) = gaps_json(&[
        "winrate",
        "--pysol",
        "montana",
        "--redeals",
        "0",
        "--seed",
        "99999999999999999999",
        "--deals",
        "2",
        "--time-ms",
        "200",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    // Above 2^64-1 the number is written as its digits, as the service writes it.
    assert_eq!(json["seed"], "99999999999999999999", "{json}");
    assert_eq!(json["deals"], 2, "{json}");
    let ours = [
        "winrate",
        "--variant",
        "common",
        "--suits",
        "3",
        "--ranks",
        "5",
        "--seed",
        "9223372036854775807",
        "--deals",
        "2",
    ];
    for (args, says) in [
        (
            &[
                "winrate", "--pysol", "montana", "--seed", last, "--deals", "2",
            ][..],
            "1 to 10^20",
        ),
        (
            &[
                "winnable", "--pysol", "montana", "--from", last, "--count", "2",
            ][..],
            "1 to 10^20",
        ),
        (
            &[
                "winnable",
                "--pysol",
                "montana",
                "--from",
                "100000000000000000001",
                "--count",
                "1",
            ][..],
            "1 to 10^20",
        ),
        (&ours[..], "0 to 2^63-1"),
        (
            &["solve", "--deal", "9223372036854775808"][..],
            "0 to 2^63-1",
        ),
        (
            &["deal", "--seed", "9223372036854775808"][..],
            "0 to 2^63-1",
        ),
        (
            &["deal", "--seed", "9223372036854775807", "--count", "2"][..],
            "0 to 2^63-1",
        ),
    ] {
        let (code, _, err) = gaps_json(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
