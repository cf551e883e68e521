//! The request schemas of the kinds of job beside a Gaps search (a Morpion proof, the
//! odds of a Gaps game), completed for the configuration: their names, formats and
//! caps, and what each does not take.
//!
//! Invariant: as in the parent module, the rules written here are exactly those the
//! kinds' own validation enforces (`model::morpion`, `model::odds`, `model::batch`).

use super::{batch_count_cap, max_batch_seed, with_null};
use crate::service::config::Config;
use gaps_engine::Limit;
use serde_json::{json, Value};

/// The Morpion job's request: its game, the record's format (a record whose every move
/// is legal, which no schema can state: `scripts/schemathesis/hooks.py` generates
/// such records), the variants and the limits' caps (those of `validate_common`).
/// That `from` is at most the record's length and that a `variant` agrees with the one
/// an MSR record names are checked by `model::morpion` and cannot be written here.
pub(super) fn morpion_request(schemas: &mut Value, config: &Config) {
    let limits = &config.limits;
    let request = &mut schemas["MorpionJobRequest"]["properties"];
    request["game"]["enum"] = json!(["morpion"]);
    request["record"]["format"] = json!("morpion-record");
    request["record"]["examples"] = json!([MORPION_EXAMPLE]);
    request["variant"]["enum"] = json!(["5T", "5D", null]);
    request["from"]["examples"] = json!([0]);
    request["units"]["minimum"] = json!(1);
    request["units"]["maximum"] = json!(crate::service::morpion::MAX_UNITS);
    let props = &mut schemas["MorpionLimits"]["properties"];
    for (limit, cap) in [
        (Limit::Nodes, limits.max_nodes),
        (Limit::TimeMs, limits.max_time_ms),
        (Limit::Threads, config.max_job_threads() as u64),
    ] {
        let schema = &mut props[limit.name()];
        schema["minimum"] = json!(limit.min());
        schema["maximum"] = json!(cap.min(limit.max()));
    }
}

/// The odds requests, as `model::odds` (`OddsAsked::check`) and `model::batch` check
/// them: the variants; a position or a numbered deal (a batch: a range, `count`
/// required); the limits' caps, of which only `nodes` and `time_ms` are taken; no
/// algorithm, review or PySolFC game (absent, or `null` where the handler reads `null`
/// as absent). Samples and redeals have their ranges in their fields. Apart from the
/// Gaps requests (which have no `odds`) so that each is a schema the fuzzer's
/// canonicaliser can take: one request holding both is one it gives up on.
pub(super) fn odds_requests(schemas: &mut Value, config: &Config, variants: &[&str]) {
    let absent =
        json!({"type": "null", "description": "Not taken by an odds job: absent or `null`."});
    let limits = json!({
        "description": "`nodes` and `time_ms`, which bound the whole answer (every sample).",
        "allOf": [
            {"$ref": "#/components/schemas/Limits"},
            {"properties": {"probes": absent, "table_mb": absent, "threads": absent}},
        ],
    });
    for request in ["OddsJobRequest", "OddsBatchRequest"] {
        let props = &mut schemas[request]["properties"];
        props["variant"]["enum"] = with_null(json!(variants));
        props["limits"] = limits.clone();
        props["algorithm"] = absent.clone();
    }
    let job = &mut schemas["OddsJobRequest"];
    job["required"] = json!(["odds"]);
    job["oneOf"] = json!([{"required": ["position"]}, {"required": ["deal"]}]);
    let props = &mut job["properties"];
    props["review"] = absent.clone();
    props["position"]["format"] = json!("gaps-position");
    props["position"]["examples"] = json!(["2S 3S 4S --/2H 3H 4H --"]);
    let batch = &mut schemas["OddsBatchRequest"];
    batch["required"] = json!(["count", "odds"]);
    let props = &mut batch["properties"];
    props["pysol"] = absent;
    props["count"]["maximum"] = json!(batch_count_cap(config));
    props["seed"]["maximum"] = json!(max_batch_seed(config));
}

/// A legal Morpion record under both rules: the first four moves of Rosin's 5D 82 as
/// Pentasol text.
pub const MORPION_EXAMPLE: &str = "(3,3)\n(2,2) / 0\n(6,10) | -2\n(4,6) - -2\n(5,3) - +2\n";
