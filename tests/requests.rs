//! One table of bad requests for a PySolFC game played on its own board, sent through
//! both front doors: `gaps solve` and `POST /v1/jobs` refuse each (exit 2, a 422) with
//! the same words after their own name of the field (`--probes`, `limits.probes`).

use crate::cli::gaps;
use crate::support::start;
use axum::http::StatusCode;
use serde_json::{json, Value};

/// A bad request: the command line's arguments after `gaps solve --pysol galary:3`,
/// the same request's JSON fields beside `pysol`, and each front door's field name.
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
    let mut rows = vec![
        bad(
            &["--variant", "common"][..],
            json!({"variant": "common"}),
            "--variant",
            "variant",
        ),
        bad(
            &["--algorithm", "dfs"],
            json!({"algorithm": "dfs"}),
            "--algorithm",
            "algorithm",
        ),
        bad(
            &["--probes", "5"],
            json!({"limits": {"probes": 5}}),
            "--probes",
            "limits.probes",
        ),
        bad(
            &["--search-threads", "2"],
            json!({"limits": {"threads": 2}}),
            "--search-threads",
            "limits.threads",
        ),
        bad(
            &["--redeals", "9"],
            json!({"redeals": 9}),
            "--redeals",
            "redeals",
        ),
        bad(
            &["--algorithm", "exact"],
            json!({"algorithm": "exact"}),
            "--algorithm",
            "algorithm",
        ),
    ];
    // `exact` from a game in progress: the steps file (`PLAYED`) holds `[]`, as
    // `played` does.
    rows.push(bad(
        &[
            "--algorithm",
            "exact",
            "--redeals",
            "0",
            "--played",
            "PLAYED",
        ],
        json!({"algorithm": "exact", "redeals": 0, "played": []}),
        "--algorithm",
        "algorithm",
    ));
    rows
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
        let out = gaps()
            .args(["solve", "--pysol", "galary:3"])
            .args(&args)
            .output()
            .unwrap();
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

        let mut body = row.body.clone();
        body["pysol"] = json!({"game": "galary", "number": 3});
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
