//! Morpion Solitaire endgame proofs through `POST /v1/jobs` (`"game": "morpion"`,
//! docs/morpion.md): the result fields docs/morpion.md lists with the pinned `dfs_it` count,
//! the line replayed, Pentasol in and out, progress and cancel of a running proof,
//! a node limit, and bad input refused with a 422 naming the problem and nothing stored.
use crate::support::{self, TestService};
use axum::http::StatusCode;
use gaps_engine::morpion::record::Record;
use serde_json::{json, Value};

const BRUNEAU: &str = include_str!("../engine/tests/data/morpion/bruneau170.json");

async fn start() -> TestService {
    support::start_with(|c| c.server.body_limit_bytes = 65536).await
}

/// The record of `text` with the moves of `line` (in MSR form) after its first `from`:
/// it must replay under `variant`.
fn replay_with_line(text: &str, from: usize, line: &[Value]) -> usize {
    let record = Record::parse(text).unwrap();
    let mut moves: Vec<Value> = serde_json::to_value(&record.moves[..from])
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    moves.extend(line.iter().cloned());
    let game = json!({"variant": "5T", "moves": moves}).to_string();
    let whole = Record::parse(&game).unwrap();
    let variant = whole.variant_for(None).unwrap();
    whole.replay(variant, whole.moves.len()).unwrap();
    whole.moves.len()
}

#[tokio::test]
async fn a_proof_ends_with_the_contract_fields_and_the_pinned_count() {
    let t = start().await;
    let job = t
        .post_job(
            json!({"game": "morpion", "record": BRUNEAU, "from": 150,
                   "limits": {"time_ms": 60000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["game"], "morpion");
    assert_eq!(job["variant"], "5T");
    assert_eq!(
        (job["from"].as_u64(), job["record_length"].as_u64()),
        (Some(150), Some(170))
    );
    assert_eq!(job["best"], 170, "{job}");
    assert_eq!(job["proved"], true);
    assert_eq!(job["improved"], false);
    // dfs_it enters every position once: the count pinned in the engine's tests.
    assert_eq!(job["nodes"], 88, "{job}");
    assert!(job["elapsed_ms"].as_f64().unwrap() >= 0.0);
    let line = job["line"].as_array().unwrap();
    assert_eq!(line.len(), 20);
    assert_eq!(replay_with_line(BRUNEAU, 150, line), 170);
    // The same job read back.
    let id = job["id"].as_str().unwrap();
    let (status, _, again) = t.call("GET", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["nodes"], 88);
    assert_eq!(again["line"], job["line"]);
    // The view refers to the record, which reads back as it was submitted.
    assert!(again.get("record").is_none(), "{again}");
    let record_url = again["record_url"].as_str().unwrap();
    assert_eq!(record_url, format!("/v1/jobs/{id}/record"));
    let (status, content_type, _) = t.call("GET", record_url, None).await;
    assert_eq!(
        (status, content_type.as_str()),
        (StatusCode::OK, "application/json")
    );
    assert_eq!(t.text(record_url).await, BRUNEAU);
    // Listed with every game's jobs, and alone with the `game` filter.
    let (_, _, page) = t.call("GET", "/v1/jobs?game=morpion", None).await;
    assert_eq!(page["jobs"][0]["id"], id, "{page}");
    let (status, _, _) = t.call("GET", "/v1/jobs?game=chess", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Ended: it cannot be cancelled.
    let (status, _, _) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Counted with every kind of job.
    let metrics = t.text("/metrics").await;
    let line = |name: &str| {
        metrics
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {metrics}"))
            .to_string()
    };
    assert!(
        line(r#"gaps_jobs_finished_total{game="morpion",state="done",verdict="proved"}"#)
            .ends_with(" 1")
    );
    assert!(line(r#"gaps_jobs{state="done"}"#).ends_with(" 1"));
    // Its search is counted with every game's.
    assert!(
        line("gaps_solver_nodes_total").ends_with(" 88"),
        "{metrics}"
    );
}

#[tokio::test]
async fn pentasol_records_are_answered_in_pentasol_and_limits_end_a_proof_unproved() {
    let t = start().await;
    let record = Record::parse(BRUNEAU).unwrap();
    let text = gaps_engine::morpion::record::pentasol_text(&record.moves, 3, 3);
    let job = t
        .post_job(
            json!({"game": "morpion", "record": text, "from": 160, "variant": "5T",
                   "limits": {"threads": 1}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(
        (job["best"].as_u64(), job["nodes"].as_u64()),
        (Some(170), Some(50))
    );
    let line = job["line"].as_array().unwrap();
    assert_eq!(line.len(), 10);
    assert!(
        line.iter()
            .all(|m| m.as_str().is_some_and(|s| s.starts_with('('))),
        "{job}"
    );
    // A node limit: not proved, the record's own length at least, the reason said.
    let job = t
        .post_job(
            json!({"game": "morpion", "record": BRUNEAU, "from": 120,
                   "limits": {"nodes": 5000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["proved"], false, "{job}");
    assert_eq!(job["stopped"], "node_limit");
    assert!(job["best"].as_u64().unwrap() >= 170);
    assert!(job["nodes"].as_u64().unwrap() < 6_597_732);
}

#[tokio::test]
async fn a_running_proof_shows_progress_and_stops_when_cancelled() {
    let t = start().await;
    let job = t
        .post_job(
            json!({"game": "morpion", "record": BRUNEAU, "from": 90,
                   "limits": {"time_ms": 60000, "threads": 1}}),
            "",
        )
        .await;
    let id = job["id"].as_str().unwrap().to_string();
    let mut seen = Value::Null;
    for _ in 0..200 {
        seen = t.call("GET", &format!("/v1/jobs/{id}"), None).await.2;
        if seen["state"] == "running" && seen["progress"]["nodes"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(seen["state"], "running", "{seen}");
    assert!(seen["progress"]["nodes"].as_u64().unwrap() > 0, "{seen}");
    let (status, _, after) = t.call("DELETE", &format!("/v1/jobs/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    let (_, _, end) = t
        .call("GET", &format!("/v1/jobs/{id}?wait_ms=5000"), None)
        .await;
    assert_eq!(end["state"], "cancelled", "{end}");
    assert_eq!(end["stopped"], "cancelled", "{end}");
    assert_eq!(end["proved"], false);
    assert!(
        end["best"].as_u64().unwrap() >= 170,
        "what it found is kept: {end}"
    );
}

#[tokio::test]
async fn bad_records_and_ks_are_refused_naming_the_problem_and_nothing_is_stored() {
    let t = start().await;
    let mut illegal: Value = serde_json::from_str(BRUNEAU).unwrap();
    illegal["moves"][9]["pos"] = json!((illegal["moves"][9]["pos"].as_u64().unwrap() + 1) % 5);
    let rosin_5d = include_str!("../engine/tests/data/morpion/rosin82-5d.json");
    let cases = [
        (
            json!({"game": "morpion", "record": illegal.to_string(), "from": 100}),
            "move 10",
        ),
        (
            json!({"game": "morpion", "record": BRUNEAU, "from": 171}),
            "from: 171 is out of range",
        ),
        (
            json!({"game": "morpion", "record": BRUNEAU, "from": 100, "variant": "5D"}),
            "5T game, not 5D",
        ),
        (
            json!({"game": "morpion", "record": rosin_5d, "from": 80, "variant": "4T"}),
            "variant must be 5T or 5D",
        ),
        (
            json!({"game": "morpion", "record": "hello", "from": 0}),
            "unknown record format",
        ),
        (
            json!({"game": "morpion", "record": "(3,3)\n(3,4) | -7\n", "from": 0}),
            "Pentasol line",
        ),
        (
            json!({"game": "chess", "record": BRUNEAU, "from": 100}),
            "game must be",
        ),
        (json!({"game": "morpion", "record": BRUNEAU}), "from"),
        (
            json!({"game": "morpion", "record": BRUNEAU, "from": 100, "position": "x"}),
            "unknown field",
        ),
        (
            json!({"game": "morpion", "record": BRUNEAU, "from": 100, "limits": {"time_ms": 0}}),
            "limits.time_ms",
        ),
        (
            json!({"game": "morpion", "record": BRUNEAU, "from": 100, "limits": {"threads": 99}}),
            "limits.threads",
        ),
    ];
    for (body, expected) in cases {
        let (status, content_type, problem) =
            t.call("POST", "/v1/jobs", Some(&body.to_string())).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        assert_eq!(content_type, "application/problem+json");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(expected), "{expected:?} not in {detail:?}");
    }
    // Nothing was stored: the first job accepted is the only one there is.
    let job = t
        .post_job(
            json!({"game": "morpion", "record": BRUNEAU, "from": 170}),
            "?wait_ms=10000",
        )
        .await;
    assert_eq!(
        (job["best"].as_u64(), job["nodes"].as_u64()),
        (Some(170), Some(1))
    );
    let (_, _, page) = t.call("GET", "/v1/jobs?game=morpion", None).await;
    assert_eq!(page["jobs"].as_array().unwrap().len(), 1, "{page}");
    let (status, _, _) = t.call("GET", "/v1/jobs/no-such-job", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_shared_proof_is_split_into_units_and_concludes_to_the_whole_count() {
    let t = start().await;
    let job = t
        .post_job(
            json!({"game": "morpion", "record": BRUNEAU, "from": 130, "units": 50}),
            "?wait_ms=30000",
        )
        .await;
    // The wait lasts past the split, to the proof's end.
    assert_eq!(job["state"], "done", "{}", job["state"]);
    let id = job["id"].as_str().unwrap();
    let (_, _, job) = t
        .call("GET", &format!("/v1/jobs/{id}?wait_ms=30000"), None)
        .await;
    assert_eq!(job["state"], "done", "{}", job["state"]);
    assert_eq!(
        (job["best"].as_u64(), job["proved"].as_bool()),
        (Some(170), Some(true))
    );
    assert_eq!(
        job["nodes"], 268_911,
        "the pinned count, whatever the split"
    );
    assert_eq!(job["shared_units"], 50);
    let units = job["units"].as_i64().unwrap();
    assert!(units >= 50);
    assert_eq!(job["units_done"].as_i64(), Some(units));
    assert_eq!(
        replay_with_line(BRUNEAU, 130, job["line"].as_array().unwrap()),
        170
    );
    // A unit is read through its proof: its view and its events are a 404 naming it.
    for uri in [
        format!("/v1/jobs/{id}-u0"),
        format!("/v1/jobs/{id}-u0/events"),
    ] {
        let (status, _, problem) = t.call("GET", &uri, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("read the proof"),
            "{uri}: {problem}"
        );
    }
    for units in [0, 16_385] {
        let body = json!({"game": "morpion", "record": BRUNEAU, "from": 130, "units": units});
        let (status, _, problem) = t.call("POST", "/v1/jobs", Some(&body.to_string())).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
        assert!(problem["detail"]
            .as_str()
            .unwrap()
            .contains("units must be between 1 and 16384"));
    }
}

#[tokio::test]
async fn a_shared_proof_is_worked_by_every_node_and_survives_a_node_that_died() {
    use gaps::service::job::JobState;
    use gaps::service::store::{AnyJob, ClaimScope, Lease};
    use gaps_engine::morpion::board::MorpionVariant;
    use gaps_engine::morpion::endgame::{prefix, Frontier, Method};
    // An API-only node takes the job; no node runs anything yet.
    let Some(api) = support::start_on_postgres_with(|c| {
        c.solver.threads = Some(0);
        c.server.body_limit_bytes = 65536;
    })
    .await
    else {
        return;
    };
    let job = api
        .post_job(
            json!({"game": "morpion", "record": BRUNEAU, "from": 115, "units": 256}),
            "",
        )
        .await;
    let id = job["id"].as_str().unwrap().to_string();
    // A node claims it, splits it as every node would, takes a unit and dies (its
    // leases run out at once).
    let store = &api.service.state.store;
    let dead = Lease {
        node_id: "dead".into(),
        duration: std::time::Duration::from_millis(1),
    };
    let claimed = store
        .claim_next(&dead, ClaimScope::Any)
        .await
        .unwrap()
        .unwrap();
    let claimed = claimed.into_morpion().unwrap();
    assert_eq!(claimed.id, id);
    let record = Record::parse(BRUNEAU).unwrap();
    let mut board = prefix(&record, MorpionVariant::T5, 115).unwrap();
    let frontier = Frontier::with_units(&mut board, 256, Method::Incremental);
    let (depth, units) = (frontier.depth as i64, frontier.units.len() as i64);
    assert!(store
        .split_morpion(&claimed, depth, units, frontier.nodes as i64)
        .await
        .unwrap());
    let lost = match store.claim_next(&dead, ClaimScope::Any).await.unwrap() {
        Some(AnyJob::MorpionUnit(unit)) => unit,
        other => panic!("not a unit: {other:?}"),
    };
    // Two working nodes share the rest, and the lost unit once its lease has run out.
    // Short leases: the periodic reclaim (every lease_ms / 2) takes the lost unit back
    // within a second.
    let working = |c: &mut gaps::service::config::Config| {
        c.solver.threads = Some(2);
        c.queue.lease_ms = 2000;
        c.queue.heartbeat_ms = 500;
    };
    let (b, c) = tokio::join!(
        support::another_node(&api, "node-b", working),
        support::another_node(&api, "node-c", working),
    );
    let mut end = Value::Null;
    for _ in 0..12 {
        end = b
            .call("GET", &format!("/v1/jobs/{id}?wait_ms=5000"), None)
            .await
            .2;
        if end["state"] != "running" {
            break;
        }
    }
    let states: Vec<String> = store
        .units_of(&id)
        .await
        .unwrap()
        .iter()
        .filter(|r| r.life.state != JobState::Done)
        .map(|r| format!("{}:{}:{:?}", r.unit, r.life.state, r.life.node_id))
        .collect();
    assert_eq!(
        end["state"], "done",
        "{} {} {states:?}",
        end["state"], end["error"]
    );
    assert_eq!(end["nodes"], 31_867_703, "the one-node count");
    assert_eq!(
        (end["best"].as_u64(), end["proved"].as_bool()),
        (Some(170), Some(true))
    );
    assert_eq!(end["units_done"].as_i64(), Some(units));
    let rows = store.units_of(&id).await.unwrap();
    let lost_row = rows.iter().find(|r| r.unit == lost.unit).unwrap();
    assert_ne!(lost_row.life.node_id.as_deref(), Some("dead"));
    assert!(lost_row.life.attempts >= 2);
    let workers: std::collections::HashSet<_> =
        rows.iter().filter_map(|r| r.life.node_id.clone()).collect();
    assert!(
        workers.contains("node-b") && workers.contains("node-c"),
        "{workers:?}"
    );
    drop(c);
}
