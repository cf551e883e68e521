//! `--spill-dir`: the exact search's visited set (a variant's, or a board game's
//! exhaustive search's) moved to a file when it fills its memory enters the same
//! positions as the set held in memory (docs/engine.md, "A visited set on disk"), and a
//! directory where no file can be made is refused.
use crate::cli::gaps_json;
use serde_json::Value;

/// `base` with `--table-mb in_memory_mb`, then with `--table-mb spilled_mb` and a spill
/// directory (empty again afterwards: the file has no name): both answers, each exit 0.
fn in_memory_and_spilled(base: &[&str], in_memory_mb: &str, spilled_mb: &str) -> (Value, Value) {
    let dir = tempfile::tempdir().unwrap();
    let spill_dir = dir.path().to_str().unwrap();
    let (code, in_memory, stderr) = gaps_json(&[base, &["--table-mb", in_memory_mb]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    let (code, spilled, stderr) =
        gaps_json(&[base, &["--table-mb", spilled_mb, "--spill-dir", spill_dir]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    (in_memory, spilled)
}

/// Common deal 0's loss without the settled positions' table (every position in the
/// set: 6.0M keys), in memory and in 48 MiB with the rest spilled.
#[test]
fn a_spilled_proof_enters_the_same_positions_as_one_in_memory() {
    let base = [
        "solve",
        "--variant",
        "common",
        "--deal",
        "0",
        "--algorithm",
        "exact",
        "--no-table",
        "--search-threads",
        "1",
        "--json",
    ];
    let (in_memory, spilled) = in_memory_and_spilled(&base, "2048", "48");
    for json in [&in_memory, &spilled] {
        assert_eq!(json["verdict"], "unsolvable", "{json}");
    }
    let (a, b) = (&in_memory["stats"], &spilled["stats"]);
    assert_eq!(a["nodes"], b["nodes"]);
    assert_eq!(a["stored"], b["stored"]);
    assert!(a["stored"].as_u64().unwrap() > 5_000_000, "{a}");
    assert_eq!(a["spilled_keys"], 0);
    // Most of the set went to the file, and memory stayed within 48 MiB.
    assert!(b["spilled_keys"].as_u64().unwrap() > 4_000_000, "{b}");
    assert!(b["table_bytes"].as_u64().unwrap() <= 48 << 20, "{b}");
}

#[test]
fn a_spill_directory_where_no_file_can_be_made_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    let (code, json, stderr) = gaps_json(&[
        "solve",
        "--variant",
        "common",
        "--deal",
        "2",
        "--algorithm",
        "exact",
        "--spill-dir",
        absent.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(json, Value::Null);
    assert!(
        stderr.contains("--spill-dir: cannot make a spill file in"),
        "{stderr}"
    );
}

/// A board game's exhaustive search (`--algorithm exact --redeals 0`): the first 2M
/// positions of Jungle 1 in 256 MiB, and in 32 MiB with the rest of the set spilled.
#[test]
fn a_board_games_exhaustive_search_spills_the_same_positions() {
    let base = [
        "solve",
        "--pysol",
        "jungle:1",
        "--algorithm",
        "exact",
        "--redeals",
        "0",
        "--nodes",
        "2000000",
        "--json",
    ];
    let (in_memory, spilled) = in_memory_and_spilled(&base, "256", "32");
    for json in [&in_memory, &spilled] {
        assert_eq!(json["verdict"], "unknown", "{json}");
        assert_eq!(json["stopped"], "node_limit", "{json}");
    }
    let (a, b) = (&in_memory["stats"], &spilled["stats"]);
    for field in ["nodes", "stored", "tt_hits", "dead_cuts"] {
        assert_eq!(a[field], b[field], "{field}");
    }
    assert_eq!(a["spilled_keys"], 0);
    assert!(b["spilled_keys"].as_u64().unwrap() > 100_000, "{b}");
}

/// `gaps winrate --spill-dir`: each worker spills its exhaustive searches to a file of
/// its own, so a board game whose set fills 4 MiB goes on to its node budget where,
/// without the directory, it stops at `memory_limit` (Jungle 589's first round).
#[test]
fn a_run_over_games_spills_each_search() {
    let dir = tempfile::tempdir().unwrap();
    let run = |spill: &[&str]| {
        let out = dir.path().join(format!("run{}.csv", spill.len()));
        let base = [
            "winrate",
            "--pysol",
            "jungle",
            "--seed",
            "589",
            "--deals",
            "1",
            "--redeals",
            "0",
            "--algorithm",
            "exact",
            "--table-mb",
            "4",
            "--nodes",
            "1500000",
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ];
        let (code, json, stderr) = gaps_json(&[&base[..], spill].concat());
        assert_eq!(code, Some(0), "{stderr}");
        let line = std::fs::read_to_string(&out).unwrap();
        (json, line.lines().nth(1).unwrap().to_string())
    };
    let (_, in_memory) = run(&[]);
    assert!(in_memory.ends_with(",exact,memory_limit"), "{in_memory}");
    let spill_dir = dir.path().join("spill");
    std::fs::create_dir(&spill_dir).unwrap();
    let (json, spilled) = run(&["--spill-dir", spill_dir.to_str().unwrap()]);
    assert!(spilled.ends_with(",exact,node_limit"), "{spilled}");
    assert!(json["nodes"].as_u64().unwrap() >= 1_500_000, "{json}");
    assert_eq!(std::fs::read_dir(&spill_dir).unwrap().count(), 0);
}
