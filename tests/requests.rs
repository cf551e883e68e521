//! One table of bad requests (a PySolFC game played on its own board, a PySolFC game
//! number out of range, a variant beside a PySolFC game, redeals), sent through both front doors: `gaps solve` and `POST /v1/jobs` refuse each (exit 2, a 422) with
//! the same words after their own name of the field (`--probes`, `limits.probes`).

use crate::cli::gaps;
use crate::support::start;
use axum::http::StatusCode;
use serde_json::{json, Value};

/// A bad request: the command line's arguments after `gaps solve`, the same request
/// as a job's JSON, and each front door's name of the field it is refused for.
struct Bad {
    args: &'static [&'static str],
    body: Value,
    flag: &'static str,
    field: &'static str,
}

fn table() -> Vec<Bad> {
    let bad = |args, body, flag, field| Bad {
        args,
        body,
        flag,
        field,
    };
    let galary = |mut fields: Value| {
        fields["pysol"] = json!({"game": "galary", "number": 3});
        fields
    };
    vec![
        // PySolFC's games played on their own boards (`request::board`).
        bad(
            &["--pysol", "galary:3", "--variant", "common"][..],
            galary(json!({"variant": "common"})),
            "--variant",
            "variant",
        ),
        bad(
            &["--pysol", "galary:3", "--algorithm", "dfs"],
            galary(json!({"algorithm": "dfs"})),
            "--algorithm",
            "algorithm",
        ),
        bad(
            &["--pysol", "galary:3", "--probes", "5"],
            galary(json!({"limits": {"probes": 5}})),
            "--probes",
            "limits.probes",
        ),
        bad(
            &["--pysol", "galary:3", "--search-threads", "2"],
            galary(json!({"limits": {"threads": 2}})),
            "--search-threads",
            "limits.threads",
        ),
        bad(
            &["--pysol", "galary:3", "--redeals", "9"],
            galary(json!({"redeals": 9})),
            "--redeals",
            "redeals",
        ),
        bad(
            &["--pysol", "galary:3", "--algorithm", "exact"],
            galary(json!({"algorithm": "exact"})),
            "--algorithm",
            "algorithm",
        ),
        // `exact` from a game in progress: the steps file (`PLAYED`) holds `[]`.
        bad(
            &[
                "--pysol",
                "galary:3",
                "--algorithm",
                "exact",
                "--redeals",
                "0",
                "--played",
                "PLAYED",
            ],
            galary(json!({"algorithm": "exact", "redeals": 0, "played": []})),
            "--algorithm",
            "algorithm",
        ),
        // PySolFC's game numbers: one bound, 1 to 10^20, in the engine's words.
        bad(
            &["--pysol", "montana:100000000000000000001"],
            json!({"pysol": {"game": "montana", "number": "100000000000000000001"}}),
            "--pysol",
            "pysol: number",
        ),
        bad(
            &["--pysol", "galary:0"],
            json!({"pysol": {"game": "galary", "number": 0}}),
            "--pysol",
            "pysol: number",
        ),
        // The variants' rounds (`request::rounds`).
        bad(
            &["--pysol", "montana:5", "--variant", "basic"],
            json!({"pysol": {"game": "montana", "number": 5}, "variant": "basic"}),
            "--variant",
            "variant",
        ),
        bad(
            &["--pysol", "paganini:5", "--redeals", "2"],
            json!({"pysol": {"game": "paganini", "number": 5}, "redeals": 2}),
            "--redeals",
            "redeals",
        ),
        bad(
            &["--deal", "5", "--variant", "common", "--redeals", "3"],
            json!({"deal": {"seed": 5}, "variant": "common", "redeals": 3}),
            "--redeals",
            "redeals",
        ),
        bad(
            &["--variant", "common", "--redeals", "1", "2S 3S --/2H 3H --"],
            json!({"position": "2S 3S --/2H 3H --", "variant": "common", "redeals": 1}),
            "--redeals",
            "redeals",
        ),
    ]
}

#[tokio::test]
async fn a_board_games_bad_requests_are_refused_alike_on_the_command_line_and_over_http() {
    let t = start().await;
    let dir = tempfile::tempdir().unwrap();
    let played = dir.path().join("played.json");
    std::fs::write(&played, "[]").unwrap();
    let played = played.to_str().unwrap().to_string();
    for row in table() {
        let args: Vec<&str> = row
            .args
            .iter()
            .map(|a| if *a == "PLAYED" { played.as_str() } else { a })
            .collect();
        let out = gaps().arg("solve").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        let said = stderr
            .lines()
            .find_map(|line| {
                line.split_once(&format!("{}: ", row.flag))
                    .map(|(_, rest)| rest)
            })
            .unwrap_or_else(|| panic!("{args:?}: no refusal of {} in {stderr}", row.flag))
            .to_string();

        let body = &row.body;
        let (status, _, problem) = t.call("POST", "/v1/jobs", Some(&body.to_string())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        let detail = problem["detail"].as_str().unwrap_or_default();
        let answered = detail
            .strip_prefix(&format!("{}: ", row.field))
            .unwrap_or_else(|| panic!("{body}: {detail} names another field than {}", row.field));
        assert_eq!(said, answered, "{args:?} and {body}");
    }
    assert_eq!(t.job_count().await, 0);
}
