//! Batches of PySolFC games, their own win-rate row, and lists of their verdicts
//! (`GET /v1/verdicts?game=...`), checked against the published Blue Moon table.
use crate::support;
use axum::http::StatusCode;
use serde_json::{json, Value};
use support::start;

/// Verdicts of Blue Moon games 1.. from `docs/data/pysol-blue-moon-1-100000.csv`.
fn published_blue_moon(count: usize) -> Vec<(i64, String)> {
    let table = include_str!("../docs/data/pysol-blue-moon-1-100000.csv");
    table
        .lines()
        .skip(1)
        .take(count)
        .map(|line| {
            let mut fields = line.split(',');
            let number = fields.next().unwrap().parse().unwrap();
            (number, fields.next().unwrap().to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_batch_of_pysol_games_is_listed_and_counted_apart() {
    let t = start().await;
    // The first rounds: the published table is of first rounds.
    let body = json!({"pysol": {"game": "blue-moon", "from": 1, "count": 30}, "redeals": 0});
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    assert_eq!(batch["variant"], "basic");
    assert_eq!(batch["pysol"], body["pysol"]);
    let batch = t.wait_batch(batch["id"].as_str().unwrap()).await;
    assert_eq!(batch["finished"], true, "{batch}");
    assert_eq!(batch["rates"]["unknown"], 0, "{batch}");

    // Its results number the games, and agree with the published table.
    let published = published_blue_moon(30);
    let results = t
        .text(&format!(
            "/v1/batches/{}/results",
            batch["id"].as_str().unwrap()
        ))
        .await;
    let rows: Vec<Value> = results
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 30);
    for (row, (number, verdict)) in rows.iter().zip(&published) {
        assert_eq!(row["deal"], *number, "{row}");
        assert_eq!(row["pysol"], format!("blue-moon:{number}"), "{row}");
        assert_eq!(row["verdict"], verdict.as_str(), "{row}");
    }

    // The list of verdicts by number, as NDJSON and as CSV, and filtered.
    let list = t.text("/v1/verdicts?game=blue-moon&from=5&to=12").await;
    let lines: Vec<Value> = list
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let numbers: Vec<i64> = lines
        .iter()
        .map(|l| l["number"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, (5..=12).collect::<Vec<_>>());
    for line in &lines {
        let (_, verdict) = &published[line["number"].as_u64().unwrap() as usize - 1];
        assert_eq!(line["verdict"], verdict.as_str(), "{line}");
        assert_eq!(line["game"], "blue-moon");
        assert_eq!(line["variant"], "basic");
    }
    let csv = t
        .text_with("/v1/verdicts?game=blue-moon&to=30", ("accept", "text/csv"))
        .await;
    let mut csv_lines = csv.lines();
    assert_eq!(
        csv_lines.next(),
        Some("game,number,verdict,variant,position,algorithm,nodes,elapsed_ms,job_id,time_ms")
    );
    assert_eq!(csv_lines.count(), 30);
    let won = t
        .text("/v1/verdicts?game=blue-moon&verdict=solvable&variant=basic")
        .await;
    let won: Vec<i64> = won
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["number"]
                .as_i64()
                .unwrap()
        })
        .collect();
    let expected: Vec<i64> = published
        .iter()
        .filter(|(_, v)| v == "solvable")
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(won, expected);
    assert!(t.text("/v1/verdicts?game=montana").await.is_empty());
    assert!(t
        .text("/v1/verdicts?game=blue-moon&from=9&to=3")
        .await
        .is_empty());

    // The win-rate table: the games' own row beside the row of distinct positions.
    let (_, _, rates) = t.call("GET", "/v1/stats/win-rates", None).await;
    let row = |source: &str| {
        rates
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["source"] == source)
            .cloned()
            .unwrap_or_else(|| panic!("no {source} row in {rates}"))
    };
    let games = row("pysol-blue-moon");
    assert_eq!(
        (
            games["variant"].clone(),
            games["suits"].clone(),
            games["deals"].clone()
        ),
        (json!("basic"), json!(4), json!(30))
    );
    assert_eq!(games["solvable"], expected.len(), "{games}");
    assert_eq!(games["effort"], json!([]));
    assert_eq!(row("positions")["deals"], 30);
}

#[tokio::test]
async fn bad_game_batches_and_lists_are_refused_and_store_nothing() {
    let t = start().await;
    for (body, needle) in [
        (
            json!({"pysol": {"game": "montana", "from": 1, "count": 5}, "count": 5}),
            "inside `pysol`",
        ),
        (
            json!({"pysol": {"game": "montana", "from": 1, "count": 5}, "seed": 3}),
            "without `seed`",
        ),
        (
            json!({"pysol": {"game": "klondike", "from": 1, "count": 5}}),
            "unknown PySolFC game",
        ),
        (
            json!({"pysol": {"game": "montana", "from": 0, "count": 5}}),
            "from 1",
        ),
        (
            json!({"pysol": {"game": "montana", "from": 1, "count": 0}}),
            "pysol.count",
        ),
        (
            json!({"pysol": {"game": "montana", "from": 1, "count": 5}, "variant": "basic"}),
            "contradicts",
        ),
        (json!({"pysol": {"game": "montana", "count": 5}}), "from"),
        (json!({"variant": "basic"}), "give `count`"),
    ] {
        let (status, _, problem) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        assert!(
            problem["detail"].as_str().unwrap().contains(needle),
            "{body}: {problem}"
        );
    }
    assert_eq!(t.job_count().await, 0);
    for (query, needle) in [
        ("game=klondike", "game"),
        ("game=montana&pysol=montana:5", "takes no"),
        ("game=montana&from=0", "from"),
        ("game=galary&to=0", "to: PySolFC numbers"),
        ("game=montana&verdict=maybe", "verdict"),
        ("game=montana&variant=basic", "contradicts"),
        ("from=3", "go with `game`"),
        ("game=montana&to=9223372036854775808", "to"),
    ] {
        let (status, _, problem) = t.call("GET", &format!("/v1/verdicts?{query}"), None).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{query}: {problem}"
        );
        assert!(
            problem["detail"].as_str().unwrap().contains(needle),
            "{query}: {problem}"
        );
    }
}
