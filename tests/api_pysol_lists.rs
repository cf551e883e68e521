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
            "pysol.from: PySolFC game numbers run from 1 to 10^20 (got 0)",
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
        (
            "game=galary&to=0",
            "to: PySolFC game numbers run from 1 to 10^20 (got 0)",
        ),
        ("game=montana&verdict=maybe", "verdict"),
        ("game=montana&variant=basic", "contradicts"),
        ("from=3", "go with `game`"),
        (
            "game=montana&to=100000000000000000001",
            "to: PySolFC game numbers run",
        ),
        ("game=montana&from=12a", "from: PySolFC game numbers run"),
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

/// PySolFC's numbers run to 10^20, above JSON's exact integers and the databases'
/// integers: a job, a batch, a list and a layout take them all, given as digits, and
/// answer with them exactly; the same bound refuses the same numbers everywhere.
#[tokio::test]
async fn games_numbered_up_to_pysols_largest_are_taken_everywhere() {
    // Batches of at most 2: one may start at 10^20 - 1.
    let t = support::start_with(|config| config.limits.max_batch_deals = 2).await;
    let largest = "100000000000000000000";
    let body = json!({"pysol": {"game": "montana", "number": largest}, "redeals": 0,
        "limits": {"time_ms": 200}});
    let job = t.post_job(body, "?wait_ms=5000").await;
    let id = job["id"].as_str().unwrap();
    // Above 2^64-1 an answer gives a game number as its digits, as a request must.
    let view = t.text(&format!("/v1/jobs/{id}")).await;
    assert!(
        view.contains(&format!("\"number\":\"{largest}\"")),
        "{view}"
    );
    let board = gaps_engine::pysol_board(gaps_engine::PysolGame::Montana, 10u128.pow(20))
        .unwrap()
        .to_string();
    assert_eq!(job["pysol"]["board"], board);
    let (status, _, layout) = t
        .call("GET", &format!("/v1/pysol/montana/{largest}"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{layout}");
    assert_eq!(layout["board"], board);

    // A batch that ends at the largest number, given as digits (an integer above
    // 2^64-1 would lose digits in JSON).
    let body = json!({"pysol": {"game": "montana", "from": "99999999999999999999",
        "count": 2}, "redeals": 0, "limits": {"time_ms": 200}});
    let (status, _, batch) = t.call("POST", "/v1/batches", Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    assert_eq!(batch["pysol"]["from"], "99999999999999999999");
    assert_eq!(batch["seed"], "99999999999999999999");
    let id = batch["id"].as_str().unwrap();
    assert_eq!(t.wait_batch(id).await["finished"], true);
    let field = |text: &str, name: &str| -> Vec<Value> {
        text.lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap()[name].clone())
            .collect()
    };
    let results = t.text(&format!("/v1/batches/{id}/results")).await;
    assert_eq!(
        field(&results, "deal"),
        [json!("99999999999999999999"), json!(largest)]
    );
    let csv = t
        .text_with(&format!("/v1/batches/{id}/results"), ("accept", "text/csv"))
        .await;
    assert!(csv.contains("\n100000000000000000000,"), "{csv}");
    let list = t
        .text("/v1/verdicts?game=montana&from=99999999999999999998")
        .await;
    assert_eq!(
        field(&list, "number"),
        [json!("99999999999999999999"), json!(largest)]
    );
    // Up to 2^64-1 a number stays a JSON integer, as it always was.
    let job = t
        .post_job(
            json!({"pysol": {"game": "montana", "number": "18446744073709551615"},
                "redeals": 0, "limits": {"time_ms": 200}}),
            "?wait_ms=5000",
        )
        .await;
    assert_eq!(job["pysol"]["number"], json!(u64::MAX));

    let bound = "PySolFC game numbers run from 1 to 10^20";
    for (number, message) in [
        (json!("100000000000000000001"), bound),
        (json!(0), bound),
        (json!(-3), bound),
        (json!("12a"), bound),
        (json!(1e20), "as a string of digits"),
        (json!(2.5), bound),
    ] {
        let body = json!({"pysol": {"game": "montana", "number": number}});
        t.assert_unprocessable("/v1/jobs", &body, message).await;
    }
    let (status, _, problem) = t
        .call("GET", "/v1/pysol/montana/100000000000000000001", None)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        problem["detail"].as_str().unwrap().contains(bound),
        "{problem}"
    );
}
