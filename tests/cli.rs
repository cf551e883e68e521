//! The command line as users and scripts see it (docs/cli.md).
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

pub(crate) fn gaps() -> Command {
    Command::cargo_bin("gaps").expect("binary")
}

/// Runs `gaps` with `args`: its exit code, its standard output as JSON (`Null` when
/// it is not JSON) and its standard error.
pub(crate) fn gaps_json(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = gaps().args(args).output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const DEAL_1: &str = "9C 7C QD 4C AS 8D QC JD 6S 5D 7H JS 3H/7D QS AC TS 5S 2D 8S 5C KH TH AD 5H AH/2S 9S 4S 2H 6D 3S KC 8C 3D 6C 7S 3C 8H/6H QH 4H 9D KS JH 2C TD JC 9H TC KD 4D";

#[test]
fn deal_is_stable_and_has_a_position_form() {
    gaps()
        .args(["deal", "--seed", "1"])
        .assert()
        .success()
        .stdout(format!("{DEAL_1}\n"));
    let out = gaps()
        .args(["deal", "--seed", "1", "--position"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("--").count(), 4);
    assert_eq!(text.trim().split('/').count(), 4);
}

#[test]
fn solve_reads_argument_stdin_and_prints_json() {
    let small = "2S 3S -- 4S/2H 3H 4H --";
    gaps()
        .args(["solve", small])
        .assert()
        .success()
        .stdout(predicate::str::contains("verdict: solvable"));
    let out = gaps()
        .args(["solve", "--json", "-"])
        .write_stdin(small)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "solvable");
    assert_eq!(v["variant"], "basic");
    assert_eq!(v["position"], small);
    assert_eq!(v["solution"][0]["card"], "4S");
    assert_eq!(v["solution"][0]["from"], serde_json::json!([0, 3]));
    assert_eq!(v["solution"][0]["to"], serde_json::json!([0, 2]));
    assert!(v["stats"]["nodes"].as_u64().unwrap() >= 1);
    assert!(v["stats"]["elapsed_ms"].is_number());
}

#[test]
fn a_full_deal_is_solved_with_a_replayed_solution() {
    let out = gaps().args(["solve", "--json", DEAL_1]).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "solvable");
    assert!(v["solution"].as_array().unwrap().len() > 50);
}

#[test]
fn a_lone_search_on_threads_uses_every_core_unless_told() {
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(64);
    let threads = |args: &[&str]| {
        let out = gaps().args(args).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_ne!(v["verdict"], "unknown", "{v}");
        v["stats"]["threads"].as_u64().unwrap() as usize
    };
    let small_common = [
        "solve",
        "--json",
        "--variant",
        "common",
        "--ranks",
        "6",
        "--deal",
    ];
    assert_eq!(
        threads(&[&small_common[..], &["3", "--algorithm", "exact"]].concat()),
        cores
    );
    assert_eq!(threads(&[&small_common[..], &["4"]].concat()), cores);
    assert_eq!(
        threads(&[&small_common[..], &["4", "--search-threads", "1"]].concat()),
        1
    );
    // A search that runs on one thread: one.
    assert_eq!(
        threads(&["solve", "--json", "--ranks", "6", "--deal", "3"]),
        1
    );
}

#[test]
fn a_position_may_begin_with_a_gap() {
    // A common position after a redeal may start with a gap: it is a position, not a flag.
    let out = gaps()
        .args([
            "solve",
            "--variant",
            "common",
            "--json",
            "-- 3S 4S 2H/-- 3H 4H 2S",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["position"], "-- 3S 4S 2H/-- 3H 4H 2S");
}

#[test]
fn limits_give_unknown_not_an_error() {
    let out = gaps()
        .args(["solve", "--json", "--deal", "0", "--nodes", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "unknown");
    assert_eq!(v["stopped"], "node_limit");
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["solve", "2S 3S XX 4S/2H 3H 4H --"],
            "unknown token \"XX\" at row 1, column 3",
        ),
        (&["solve", "2S 3S -- 3S/2H 3H 4H --"], "duplicate card 3S"),
        (&["solve", "2S 3S -- 4S/2H 3H --"], "ragged rows"),
        (&["solve", "2S -- 3S -- 4S/2H 3H 4H"], "ragged rows"),
        (
            &["solve", "2S 3S -- --/2H 3H 4H --"],
            "wrong number of gaps",
        ),
        (&["solve", "2S --/2H --"], "size out of range"),
        (&["deal", "--pysol", "montana:0"], "from 1 to 10^20"),
        (
            &["deal", "--pysol", "montana:100000000000000000001"],
            "from 1 to 10^20",
        ),
        (&["deal", "--pysol", "klondike:5"], "unknown PySolFC game"),
        (&["solve", "--pysol", "montana"], "GAME:N"),
        (
            &["solve", "--variant", "basic", "--pysol", "montana:5"],
            "contradicts pysol montana:5",
        ),
        (
            &["solve", "--pysol", "montana:5", "--deal", "3"],
            "cannot be used with",
        ),
        (
            &["count", "--variant", "common", "--pysol", "blue-moon:5"],
            "whose first round is basic",
        ),
        (
            &[
                "winrate", "--pysol", "montana", "--deals", "3", "--seed", "0",
            ],
            "start at 1",
        ),
        (
            &[
                "winrate",
                "--pysol",
                "montana",
                "--deals",
                "3",
                "--variant",
                "basic",
            ],
            "contradicts pysol game montana",
        ),
        (
            &["winrate", "--pysol", "klondike", "--deals", "3"],
            "unknown PySolFC game",
        ),
        (
            &[
                "winrate", "--pysol", "montana", "--deals", "3", "--ranks", "6",
            ],
            "cannot be used with",
        ),
        (
            &["count", "--unsettled", "2S 3S -- 4S/2H 3H 4H --"],
            "common variant only",
        ),
        (
            &["count", "--memory-mb", "0", "2S 3S -- 4S/2H 3H 4H --"],
            "--memory-mb must be between",
        ),
        (&["count", "--time-ms", "0", "--deal", "1"], "at least 1"),
        (
            &["count", "--threads", "0", "--deal", "1"],
            "--threads must be between",
        ),
        (&["count", "2S 3S XX 4S/2H 3H 4H --"], "unknown token"),
        (
            &["solve", "--variant", "fancy", "2S 3S -- 4S/2H 3H 4H --"],
            "unknown variant",
        ),
        (
            &["solve", "--algorithm", "magic", "2S 3S -- 4S/2H 3H 4H --"],
            "unknown algorithm",
        ),
        (
            &[
                "solve",
                "--variant",
                "common",
                "--algorithm",
                "blocks",
                "2S 3S -- 4S/2H 3H 4H --",
            ],
            "basic variant",
        ),
        (
            &["solve", "--algorithm", "assign", "2S 3S -- 4S/2H 3H 4H --"],
            "common variant",
        ),
        (
            &["solve", "--nodes", "0", "2S 3S -- 4S/2H 3H 4H --"],
            "--nodes",
        ),
        (
            &["solve", "--time-ms", "0", "2S 3S -- 4S/2H 3H 4H --"],
            "--time-ms",
        ),
        (
            &["solve", "--table-mb", "0", "2S 3S -- 4S/2H 3H 4H --"],
            "--table-mb",
        ),
        (
            &["deal", "--seed", "1", "--suits", "9"],
            "size out of range",
        ),
        (&["deal", "--seed", "-3"], ""),
        (&["winrate", "--deals", "0"], "--deals"),
        (&["table1", "--deals", "0"], ""),
        (
            &[
                "solve",
                "--deal",
                "1",
                "--algorithm",
                "sampling",
                "--probes",
                "0",
            ],
            "--probes",
        ),
        (
            &[
                "solve",
                "--deal",
                "1",
                "--algorithm",
                "dfs",
                "--probes",
                "10",
            ],
            "--probes applies to sampling",
        ),
        (
            &["winrate", "--deals", "5", "--ranks", "2"],
            "size out of range",
        ),
        (
            &[
                "solve",
                "--deal",
                "1",
                "--algorithm",
                "blocks",
                "--search-threads",
                "0",
            ],
            "--search-threads must be between 1 and 64",
        ),
        (
            &[
                "solve",
                "--deal",
                "1",
                "--algorithm",
                "blocks",
                "--search-threads",
                "65",
            ],
            "--search-threads must be between 1 and 64",
        ),
        (
            &["solve", "--deal", "1", "--search-threads", "2"],
            "--search-threads above 1 applies to blocks, exact and hybrid,",
        ),
    ];
    for (args, message) in cases {
        gaps()
            .args(*args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*message));
    }
}

#[test]
fn jsonl_answers_every_line_in_order() {
    let input = concat!(
        "{\"position\": \"2S 3S -- 4S/2H 3H 4H --\"}\n",
        "not json\n",
        "{\"position\": \"2S 4S -- 3S/2H 3H 4H --\", \"variant\": \"common\"}\n",
        "{\"position\": \"2S 3S\"}\n",
        "{\"position\": \"2S 3S -- 4S/2H 3H 4H --\", \"variant\": \"weird\"}\n",
    );
    let out = gaps()
        .args(["solve", "--jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["verdict"], "solvable");
    assert!(lines[1]["error"].as_str().unwrap().contains("invalid JSON"));
    assert_eq!(lines[2]["variant"], "common");
    assert!(lines[2]["verdict"].is_string());
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .contains("size out of range"));
    assert!(lines[4]["error"]
        .as_str()
        .unwrap()
        .contains("unknown variant"));
}

/// `gaps count` gives the exact size of a space (pinned in the engine's reachable.csv
/// style: common 3x5 deal 2 has 6,235 positions, 4,369 of them settled), and with
/// `--unsettled` the same unsettled part plus its settled frontier.
#[test]
fn count_measures_the_whole_space_and_its_unsettled_part() {
    let count = |extra: &[&str]| {
        let mut args = vec![
            "count",
            "--deal",
            "2",
            "--suits",
            "3",
            "--ranks",
            "5",
            "--variant",
            "common",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = gaps().args(&args).output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let all = count(&[]);
    assert_eq!(all["positions"], 6235);
    assert_eq!(all["settled"], 4369);
    assert_eq!(all["unsettled"], 1866);
    assert_eq!(all["complete"], true);
    let part = count(&["--unsettled"]);
    assert_eq!(part["unsettled"], 1866);
    assert!(part["settled"].as_u64().unwrap() < 4369);
    let shared = count(&["--threads", "2", "--memory-mb", "64"]);
    assert_eq!(shared["positions"], 6235);
    assert_eq!(shared["settled"], 4369);
    let cut = count(&["--nodes", "100"]);
    assert_eq!(cut["complete"], false);
    assert_eq!(cut["stopped"], "node_limit");
}

/// The node count of a small fixed bench, pinned: a change that keeps every verdict but
/// changes the search (its order, its cuts, its table) fails here, and the commit that
/// makes it must say so and give the new `Bench:` count.
#[test]
fn bench_node_count_is_pinned() {
    let out = gaps()
        .args(["bench", "--ranks", "7", "--deals", "50"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let bench = text.lines().find(|l| l.starts_with("Bench: "));
    assert_eq!(bench, Some("Bench: 21496"), "{text}");
}

#[test]
fn bench_blocks_compares_four_complete_searches() {
    let out = gaps()
        .args(["bench", "--blocks", "--ranks", "6", "--deals", "30"])
        .args(["--table-mb", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("deals compared: 30 (left out at the time limit: 0)"));
    let value = |label: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(label)).expect(label);
        line[label.len()..]
            .trim()
            .trim_end_matches('s')
            .parse()
            .expect(label)
    };
    for search in [
        "DFS (table only)",
        "DFS (table + IT)",
        "blocks",
        "blocks + IT",
    ] {
        assert!(value(&format!("avg. number of positions for {search}")) > 0.0);
        assert!(value(&format!("avg. time for {search}")) >= 0.0);
    }
    // Deterministic counts: transpositions between faces skip re-searched positions.
    let blocks = value("avg. number of positions for blocks");
    let blocks_it = value("avg. number of positions for blocks + IT");
    assert!(blocks_it < blocks, "{blocks_it} >= {blocks}");
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // The reader goes away before the first line is written (`gaps bench | head -0`):
    // `println!` would panic with exit code 101; the command must stop with code 0.
    let bin = assert_cmd::cargo::cargo_bin("gaps");
    let mut child = std::process::Command::new(bin)
        .args(["bench", "--ranks", "7", "--deals", "200"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn sampling_and_table1_work_from_the_command_line() {
    let out = gaps()
        .args([
            "solve",
            "--deal",
            "1",
            "--variant",
            "common",
            "--algorithm",
            "sampling",
        ])
        .args(["--probes", "100000", "--search-seed", "3", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["algorithm"], "sampling");
    assert_eq!(v["seed"], 3);
    let verdict = v["verdict"].as_str().unwrap();
    assert!(verdict == "solvable" || (verdict == "unknown" && v["stopped"] == "probe_limit"));
    assert!(v["stats"]["probes"].as_u64().unwrap() >= 1);
    let out = gaps()
        .args(["table1", "--deals", "20", "--max-probes", "100", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| r["probes"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 10, 100]
    );
    // Success rates can only grow with the probe count.
    for pair in rows.windows(2) {
        assert!(pair[0]["common"].as_f64() <= pair[1]["common"].as_f64());
        assert!(pair[0]["basic"].as_f64() <= pair[1]["basic"].as_f64());
    }
}

#[test]
fn hybrid_decides_small_deals_and_reports_memory_limits() {
    // A small common deal fits in memory: a verdict, never unknown.
    let out = gaps()
        .args([
            "solve",
            "--deal",
            "3",
            "--suits",
            "3",
            "--ranks",
            "5",
            "--variant",
            "common",
        ])
        .args(["--algorithm", "hybrid", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["algorithm"], "hybrid");
    assert_ne!(v["verdict"], "unknown");
    // A 4x13 common deal does not fit in 1 MiB: either a probe wins or memory runs out.
    let out = gaps()
        .args([
            "solve",
            "--deal",
            "0",
            "--variant",
            "common",
            "--algorithm",
            "hybrid",
        ])
        .args(["--table-mb", "1", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["verdict"] == "solvable" || v["stopped"] == "memory_limit",
        "{v}"
    );
}

#[test]
fn backup_copies_a_sqlite_store_to_a_new_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("live.db").display());
    let copy = dir.path().join("copy.db");
    gaps()
        .args(["backup", "--database", &db, "--to"])
        .arg(&copy)
        .assert()
        .success();
    assert!(copy.exists());
    // Never over an existing file, never of PostgreSQL: exit 2 with the reason.
    gaps()
        .args(["backup", "--database", &db, "--to"])
        .arg(&copy)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("exists"));
    gaps()
        .args([
            "backup",
            "--database",
            "postgres://nobody@127.0.0.1:1/x",
            "--to",
        ])
        .arg(dir.path().join("pg.db"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("pg_dump"));
}

#[test]
fn health_fails_without_a_node_and_refuses_a_bad_address() {
    // Nothing listens on a port just freed: exit 1, with the reason.
    let port = crate::process::free_port();
    gaps()
        .args([
            "health",
            &format!("http://127.0.0.1:{port}/healthz"),
            "--timeout",
            "1",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("connecting to"));
    gaps()
        .args(["health", "https://127.0.0.1/healthz"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only http://"));
}
