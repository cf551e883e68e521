//! `gaps morpion prove` on the command line: the JSON fields docs/morpion.md lists, Pentasol
//! input, resumable state files and their audit, and bad records, K and flags refused
//! with exit 2.
use crate::cli::gaps_json;
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("engine/tests/data/morpion")
        .join(name)
}

fn morpion(args: &[&str]) -> (Option<i32>, Value, String) {
    gaps_json(&[&["morpion"], args].concat())
}

#[test]
fn prove_prints_the_contract_fields_and_a_line_that_completes_the_record() {
    let record = fixture("bruneau170.json");
    let (code, json, stderr) = morpion(&[
        "prove",
        "--record",
        record.to_str().unwrap(),
        "--from",
        "140",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(json["best"], 170);
    assert_eq!(json["proved"], true);
    assert_eq!(
        json["nodes"], 2936,
        "the pinned count of distinct positions"
    );
    assert!(json["elapsed_ms"].is_u64());
    let line = json["line"].as_array().unwrap();
    assert_eq!(line.len(), 30);
    assert!(line[0]["x"].is_i64() && line[0]["dir"].is_string() && line[0]["pos"].is_u64());
}

#[test]
fn pentasol_records_are_read_and_answered_in_pentasol() {
    let text = std::fs::read_to_string(fixture("rosin178.json")).unwrap();
    let record: Value = serde_json::from_str(&text).unwrap();
    let mut pentasol = String::from("# Rosin 178\n(28,28)\n");
    for m in record["moves"].as_array().unwrap() {
        let (x, y, pos) = (
            m["x"].as_i64().unwrap(),
            m["y"].as_i64().unwrap(),
            m["pos"].as_i64().unwrap(),
        );
        let symbol = match m["dir"].as_str().unwrap() {
            "H" => "-",
            "V" => "|",
            "DP" => "/",
            _ => "\\",
        };
        pentasol.push_str(&format!("({},{}) {symbol} {:+}\n", x + 25, y + 25, 2 - pos));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rosin178.txt");
    std::fs::write(&path, pentasol).unwrap();
    let (code, json, stderr) = morpion(&[
        "prove",
        "--record",
        path.to_str().unwrap(),
        "--from",
        "160",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        (
            json["best"].as_u64(),
            json["proved"].as_bool(),
            json["nodes"].as_u64()
        ),
        (Some(178), Some(true), Some(96))
    );
    let first = json["line"][0].as_str().unwrap();
    assert!(first.starts_with('(') && first.contains(") "), "{first}");
}

#[test]
fn a_state_file_resumes_a_proof_and_refuses_another() {
    let record = fixture("rosin178.json");
    let record = record.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.txt");
    let state = state.to_str().unwrap();
    let (code, first, _) = morpion(&[
        "prove", "--record", record, "--from", "120", "--state", state, "--nodes", "20000",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(first["proved"], false);
    // A run killed while writing leaves a partial last line: it is dropped.
    let mut text = std::fs::read_to_string(state).unwrap();
    text.push_str("7 12");
    std::fs::write(state, text).unwrap();
    let (_, second, _) = morpion(&[
        "prove", "--record", record, "--from", "120", "--state", state, "--json",
    ]);
    assert_eq!(second["proved"], true);
    assert_eq!(second["nodes"], 208_248, "the same count as one run");
    assert!(second["units_resumed"].as_u64().unwrap() > 0);
    assert!(second["nodes_this_run"].as_u64().unwrap() < 208_248);
    let (code, _, stderr) = morpion(&[
        "prove", "--record", record, "--from", "121", "--state", state,
    ]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("made for another proof"), "{stderr}");
}

#[test]
fn an_audit_searches_stored_units_again_and_catches_a_changed_one() {
    let record = fixture("rosin178.json");
    let record = record.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.txt");
    let state = state.to_str().unwrap();
    let prove = [
        "prove", "--record", record, "--from", "120", "--state", state,
    ];
    let (code, _, stderr) = morpion(&[&prove[..], &["--json"]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    let text = std::fs::read_to_string(state).unwrap();
    let audit_all = [&prove[..], &["--audit", "100000", "--json"]].concat();
    let (code, json, stderr) = morpion(&audit_all);
    assert_eq!(code, Some(0), "{stderr}");
    let stored = json["stored"].as_u64().unwrap();
    assert_eq!(json["audited"].as_u64(), Some(stored));
    assert_eq!(json["agreed"].as_u64(), Some(stored));
    assert_eq!(
        json["units"].as_u64(),
        Some(stored),
        "the proof stored every unit"
    );
    assert_eq!(
        std::fs::read_to_string(state).unwrap(),
        text,
        "an audit only reads"
    );
    // The same seed picks the same units; a few of them are searched.
    let some = [&prove[..], &["--audit", "5", "--seed", "9", "--json"]].concat();
    let (_, first, _) = morpion(&some);
    let (_, again, _) = morpion(&some);
    assert_eq!(first["audited"], 5);
    assert_eq!(first["nodes"], again["nodes"]);
    // One unit's count changed by one: the audit of every unit says which.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let (index, changed) = lines
        .iter()
        .enumerate()
        .skip(1)
        .find_map(|(i, line)| {
            let fields: Vec<&str> = line.split(' ').collect();
            let nodes: u64 = fields[1].parse().unwrap();
            (nodes > 10).then(|| (i, (fields[0].parse::<u64>().unwrap(), nodes)))
        })
        .unwrap();
    lines[index] = lines[index].replacen(
        &format!("{} {} ", changed.0, changed.1),
        &format!("{} {} ", changed.0, changed.1 + 1),
        1,
    );
    std::fs::write(state, lines.join("\n") + "\n").unwrap();
    let (code, json, stderr) = morpion(&audit_all);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("1 of"), "{stderr}");
    assert_eq!(json["disagreed"][0]["unit"].as_u64(), Some(changed.0));
    assert_eq!(
        json["disagreed"][0]["stored_nodes"].as_u64(),
        Some(changed.1 + 1)
    );
    assert_eq!(json["disagreed"][0]["nodes"].as_u64(), Some(changed.1));
    // Bad audits: no state file, zero units, a missing file.
    let missing = dir.path().join("missing.txt");
    for (args, needle) in [
        (vec!["--audit", "3"], "--state"),
        (vec!["--state", state, "--audit", "0"], "at least 1"),
        (
            vec!["--state", missing.to_str().unwrap(), "--audit", "3"],
            "cannot read",
        ),
    ] {
        let full = [&["prove", "--record", record, "--from", "120"][..], &args].concat();
        let (code, _, stderr) = morpion(&full);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn bad_records_k_and_flags_exit_2_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("bruneau170.json")).unwrap();
    let mut record: Value = serde_json::from_str(&text).unwrap();
    record["moves"][9]["pos"] = 3.into();
    let illegal = dir.path().join("illegal.json");
    std::fs::write(&illegal, record.to_string()).unwrap();
    let unknown = dir.path().join("unknown.txt");
    std::fs::write(&unknown, "hello").unwrap();
    let four = dir.path().join("four.json");
    std::fs::write(&four, r#"{"variant": "4T", "moves": []}"#).unwrap();
    let good = fixture("bruneau170.json");
    let good = good.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["--record", illegal.to_str().unwrap(), "--from", "150"],
            "move 10 (",
        ),
        (
            vec!["--record", unknown.to_str().unwrap(), "--from", "0"],
            "unknown record format",
        ),
        (
            vec!["--record", four.to_str().unwrap(), "--from", "0"],
            "unsupported variant",
        ),
        (vec!["--record", good, "--from", "171"], "out of range"),
        (
            vec!["--record", good, "--from", "150", "--variant", "5D"],
            "not 5D",
        ),
        (
            vec!["--record", good, "--from", "150", "--variant", "6X"],
            "unknown variant",
        ),
        (
            vec!["--record", good, "--from", "150", "--method", "magic"],
            "unknown method",
        ),
        (
            vec![
                "--record",
                good,
                "--from",
                "150",
                "--method",
                "table",
                "--threads",
                "2",
            ],
            "--threads 1",
        ),
        (
            vec!["--record", "/nonexistent/record.json", "--from", "1"],
            "cannot read",
        ),
        (
            vec!["--record", good, "--from", "150", "--table-mb", "0"],
            "--table-mb",
        ),
        (
            vec!["--record", good, "--from", "150", "--split-depth", "13"],
            "--split-depth",
        ),
    ] {
        let mut full = vec!["prove"];
        full.extend(args.iter().copied());
        let (code, _, stderr) = morpion(&full);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
