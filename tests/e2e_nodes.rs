//! Three real `gaps serve` nodes on one PostgreSQL database work through a batch of
//! 2,000 deals while one is killed (`kill -9`), one is paused past its lease (`SIGSTOP`,
//! then `SIGCONT`) and all are restarted once: every deal ends `done` exactly once, the
//! batch's win rate is the sum of its jobs, and a cancel sent through one node stops a
//! solve running on another.

use gaps::service::store::testing::temp_pg_database;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

const DEALS: u64 = 2000;

use crate::process;

use process::{free_port, Served};

/// A node: the service and its id.
struct Node {
    served: Served,
    id: String,
}

impl std::ops::Deref for Node {
    type Target = Served;
    fn deref(&self) -> &Served {
        &self.served
    }
}

fn start(url: &str, id: &str, port: u16) -> Node {
    let env = [
        ("GAPS_QUEUE__NODE_ID", id),
        ("GAPS_QUEUE__LEASE_MS", "2000"),
        ("GAPS_QUEUE__HEARTBEAT_MS", "400"),
        ("GAPS_QUEUE__MAX_ATTEMPTS", "5"),
        ("GAPS_SOLVER__THREADS", "1"),
        ("GAPS_SOLVER__TABLE_MB", "8"),
        ("GAPS_DEEPEN__ENABLED", "false"),
        ("GAPS_LOG__FILTER", "error"),
    ];
    Node {
        served: Served::start(url, port, &env),
        id: id.into(),
    }
}

fn done(node: &Node, batch: &str) -> i64 {
    node.get(&format!("/v1/batches/{batch}"))["done"]
        .as_i64()
        .unwrap()
}

fn wait_for_done(node: &Node, batch: &str, at_least: i64, limit: Duration) {
    let began = Instant::now();
    while done(node, batch) < at_least {
        assert!(
            began.elapsed() < limit,
            "the batch stalled below {at_least}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn three_nodes_finish_a_batch_through_kills_pauses_and_restarts() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let Some(db) = runtime.block_on(temp_pg_database()) else {
        return;
    };
    let url = db.url().to_string();
    let mut nodes: Vec<Node> = ["n1", "n2", "n3"]
        .iter()
        .map(|id| start(&url, id, free_port()))
        .collect();
    // Common 4x6 deals: a few milliseconds each, so the batch is still running when the
    // faults come.
    let batch = nodes[0].post(
        "/v1/batches",
        json!({"variant": "common", "suits": 4, "ranks": 6, "seed": 0, "count": DEALS,
               "limits": {"time_ms": 5000}}),
    );
    let id = batch["id"].as_str().unwrap().to_string();
    wait_for_done(&nodes[1], &id, 200, Duration::from_secs(120));

    // kill -9 node 1: its running job is taken back when its lease ends.
    let killed = nodes.remove(0);
    let (killed_id, killed_port) = (killed.id.clone(), killed.port);
    drop(killed);
    let progress = done(&nodes[0], &id);
    wait_for_done(&nodes[0], &id, progress + 200, Duration::from_secs(120));

    // SIGSTOP node 2 past its lease, then SIGCONT: its job was claimed again meanwhile,
    // and whatever it finishes late changes nothing.
    nodes[0].signal("STOP");
    std::thread::sleep(Duration::from_millis(3500));
    nodes[0].signal("CONT");
    nodes.push(start(&url, &killed_id, killed_port));
    let progress = done(&nodes[1], &id);
    wait_for_done(&nodes[1], &id, progress + 200, Duration::from_secs(120));

    // Restart everything once.
    let ids: Vec<(String, u16)> = nodes.iter().map(|n| (n.id.clone(), n.port)).collect();
    for mut node in nodes.drain(..) {
        assert!(node.served.terminate().success());
    }
    let nodes: Vec<Node> = ids.iter().map(|(i, p)| start(&url, i, *p)).collect();
    wait_for_done(&nodes[2], &id, DEALS as i64, Duration::from_secs(300));

    // Every deal ended `done` exactly once, with a verdict (`unknown` included: 5 s on a
    // busy machine), seen the same from every node.
    let view = nodes[1].get(&format!("/v1/batches/{id}"));
    assert_eq!(view["done"], DEALS, "{view}");
    assert_eq!(view["finished"], true, "{view}");
    for key in ["queued", "running", "failed", "cancelled"] {
        assert_eq!(view[key], 0, "{key}: {view}");
    }
    let lines: Vec<Value> = nodes[0]
        .text(&format!("/v1/batches/{id}/results"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u64, DEALS);
    let deals: BTreeSet<i64> = lines.iter().map(|l| l["deal"].as_i64().unwrap()).collect();
    assert_eq!(deals, (0..DEALS as i64).collect());
    let runners: BTreeSet<&str> = lines
        .iter()
        .map(|l| l["node_id"].as_str().unwrap())
        .collect();
    assert!(runners.len() >= 2, "{runners:?}");
    // A verdict on every line (`unknown` included: 5 s on a busy machine).
    assert!(lines
        .iter()
        .all(|l| l["state"] == "done" && l["verdict"].is_string()));
    // The batch's win rate is the sum of its jobs.
    let wins = lines.iter().filter(|l| l["verdict"] == "solvable").count();
    assert_eq!(view["rates"]["solvable"], wins as u64, "{view}");
    assert_eq!(view["rates"]["deals"], DEALS, "{view}");

    // A cancel sent through a third node stops a solve running on another.
    let long = nodes[0].post(
        "/v1/jobs?wait_ms=1000",
        json!({"deal": {"seed": 8}, "variant": "common", "algorithm": "dfs",
               "limits": {"time_ms": 60000}}),
    );
    assert_eq!(long["state"], "running", "{long}");
    let job = long["id"].as_str().unwrap();
    let holder = long["node_id"].as_str().unwrap();
    let other = nodes.iter().find(|n| n.id != holder).unwrap();
    let began = Instant::now();
    ureq::delete(&format!("{}/v1/jobs/{job}", other.base))
        .call()
        .expect("cancelled");
    let after = other.get(&format!("/v1/jobs/{job}?wait_ms=5000"));
    assert_eq!(after["state"], "cancelled", "{after}");
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "{:?}",
        began.elapsed()
    );
    drop(nodes);
    drop(db);
}
