//! The OpenAPI document says what the service does: its caps come from the running
//! configuration, query parameters are query parameters, every answer a route gives to
//! bad input is documented, and the boundaries it states are the ones enforced (the
//! last value inside is accepted, the first outside refused). `scripts/schemathesis.sh`
//! fuzzes the same promise from the document itself.

use crate::support;

use axum::http::StatusCode;
use serde_json::{json, Value};
use support::{start_with, TestService};

async fn document(t: &TestService) -> Value {
    serde_json::from_str(&t.text("/openapi.json").await).unwrap()
}

async fn status(t: &TestService, method: &str, uri: &str, body: Option<Value>) -> StatusCode {
    let body = body.map(|b| b.to_string());
    t.call(method, uri, body.as_deref()).await.0
}

fn param<'a>(doc: &'a Value, path: &str, method: &str, name: &str) -> &'a Value {
    doc["paths"][path][method]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{method} {path} has no parameter {name}"))
}

#[tokio::test]
async fn caps_in_the_document_are_the_configured_ones_and_are_enforced() {
    let t = start_with(|c| {
        c.limits.max_wait_ms = 1234;
        c.limits.max_page_size = 77;
        c.limits.max_time_ms = 5000;
        c.limits.default_time_ms = 100;
        c.solver.threads = Some(0); // nothing runs: every accepted job stays queued
    })
    .await;
    let doc = document(&t).await;
    let wait = param(&doc, "/v1/jobs/{id}", "get", "wait_ms");
    assert_eq!(wait["in"], "query");
    assert_eq!(wait["required"], false);
    assert_eq!(
        wait["schema"]["type"], "integer",
        "a query value is never null"
    );
    assert_eq!(
        wait["schema"]["maximum"],
        i64::MAX,
        "a longer wait than the cap is capped, not refused"
    );
    assert!(wait["description"].as_str().unwrap().contains("1234"));
    let limit = param(&doc, "/v1/jobs", "get", "limit");
    assert_eq!(limit["schema"]["maximum"], 77);
    assert_eq!(limit["schema"]["minimum"], 1);
    let limits = &doc["components"]["schemas"]["Limits"]["properties"];
    assert_eq!(limits["time_ms"]["maximum"], 5000);
    assert_eq!(limits["time_ms"]["minimum"], 1);

    let job = json!({"deal": {"seed": 1, "suits": 2, "ranks": 4}});
    assert_eq!(
        status(&t, "POST", "/v1/jobs?wait_ms=1234", Some(job.clone())).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        status(&t, "GET", "/v1/jobs?limit=77", None).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&t, "GET", "/v1/jobs?limit=78", None).await,
        StatusCode::BAD_REQUEST
    );
    let timed = |ms: u64| json!({"deal": {"seed": 1}, "limits": {"time_ms": ms}});
    assert_eq!(
        status(&t, "POST", "/v1/jobs", Some(timed(5000))).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        status(&t, "POST", "/v1/jobs", Some(timed(5001))).await,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        status(&t, "GET", "/v1/jobs?cursor=00", None).await,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        status(&t, "GET", "/v1/jobs?cursor=12", None).await,
        StatusCode::OK
    );
    let page = t.call("GET", "/v1/jobs?limit=77", None).await.2;
    assert_eq!(
        page["jobs"].as_array().unwrap().len(),
        2,
        "only the accepted jobs were stored"
    );
}

#[tokio::test]
async fn a_job_needs_exactly_one_of_position_deal_and_pysol_and_says_so() {
    let t = start_with(|c| c.solver.threads = Some(0)).await;
    let doc = document(&t).await;
    let request = &doc["components"]["schemas"]["JobRequest"];
    assert_eq!(
        request["allOf"][0]["oneOf"],
        json!([{"required": ["position"]}, {"required": ["deal"]}, {"required": ["pysol"]}])
    );
    assert_eq!(
        request["properties"]["position"]["type"], "string",
        "not nullable"
    );
    let deal = json!({"seed": 1, "suits": 2, "ranks": 4});
    let position = "3S 2H -- 2S/3H -- 4H 4S";
    for refused in [
        json!({}),
        json!({"deal": deal, "position": position}),
        json!({"position": null, "deal": deal}),
        json!({"deal": null, "position": position}),
        json!({"deal": [1, 2, 4]}),
        json!({"position": position, "limits": [null, null]}),
    ] {
        assert_eq!(
            status(&t, "POST", "/v1/jobs", Some(refused.clone())).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{refused}"
        );
    }
    assert_eq!(
        status(
            &t,
            "POST",
            "/v1/jobs",
            Some(json!(["3S 2H -- 2S/3H -- 4H 4S"]))
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a body that is not an object"
    );
    // JSON Schema's integers include 10.0.
    let whole =
        json!({"deal": {"seed": 1.0, "suits": 2.0, "ranks": 4}, "limits": {"time_ms": 50.0}});
    assert_eq!(
        status(&t, "POST", "/v1/jobs", Some(whole)).await,
        StatusCode::ACCEPTED
    );
    let fraction = json!({"deal": {"seed": 1.5}});
    assert_eq!(
        status(&t, "POST", "/v1/jobs", Some(fraction)).await,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        status(&t, "POST", "/v1/jobs", Some(json!({"position": position}))).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(t.job_count().await, 2);
}

#[tokio::test]
async fn which_limits_apply_to_which_algorithm_is_in_the_document() {
    let t = start_with(|c| {
        c.solver.threads = Some(2);
        c.solver.table_mb = 8;
        // 64 MiB for searches: 96 less two threads at 2 x 8 MiB.
        c.solver.memory_mb = Some(96);
        c.limits.max_batch_deals = 50;
    })
    .await;
    let doc = document(&t).await;
    let cases = doc["components"]["schemas"]["JobRequest"]["allOf"][2]["anyOf"]
        .as_array()
        .unwrap()
        .clone();
    let case_of = |algorithm: &str| {
        cases
            .iter()
            .find(|c| {
                c["properties"]["algorithm"]["enum"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(algorithm))
            })
            .unwrap()
            .clone()
    };
    let limit = |c: &Value, field: &str| c["properties"]["limits"]["properties"][field].clone();
    assert_eq!(limit(&case_of("dfs"), "threads")["maximum"], 1);
    assert_eq!(limit(&case_of("dfs"), "probes")["type"], "null");
    assert_eq!(limit(&case_of("exact"), "threads")["maximum"], 2);
    let auto_on_common = cases
        .iter()
        .find(|c| {
            // A job's variant: named (the first way), or implied by a PySolFC game.
            c["properties"]["algorithm"]["enum"] == json!(["auto", null])
                && c["anyOf"][0]["properties"]["variant"]["enum"] == json!(["common"])
        })
        .unwrap();
    assert_eq!(limit(auto_on_common, "threads")["maximum"], 2);
    // `auto` on `common` runs the exact search: its memory comes from the same budget.
    assert_eq!(limit(auto_on_common, "table_mb")["maximum"], 64);
    assert_eq!(limit(&case_of("exact"), "table_mb")["maximum"], 64);
    assert_eq!(limit(&case_of("sampling"), "table_mb")["maximum"], 8);
    assert!(
        limit(&case_of("sampling"), "probes").is_null(),
        "probes allowed"
    );
    let deal = json!({"seed": 2, "suits": 2, "ranks": 4});
    let post = |algorithm: &str, limits: Value| json!({"deal": deal, "algorithm": algorithm, "limits": limits});
    for (body, want) in [
        (
            post("dfs", json!({"threads": 2})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            post("exact", json!({"threads": 2, "table_mb": 64})),
            StatusCode::ACCEPTED,
        ),
        (
            json!({"deal": deal, "variant": "common", "limits": {"threads": 2}}),
            StatusCode::ACCEPTED,
        ),
        (
            json!({"deal": deal, "limits": {"threads": 2}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            post("exact", json!({"table_mb": 65})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            post("dfs", json!({"table_mb": 9})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            post("dfs", json!({"probes": 5})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (post("sampling", json!({"probes": 5})), StatusCode::ACCEPTED),
    ] {
        assert_eq!(
            status(&t, "POST", "/v1/jobs", Some(body.clone())).await,
            want,
            "{body}"
        );
    }
    // A batch starts at most 2^63 - max_batch_deals, so that any batch ends in range.
    let max_seed = i64::MAX as u64 - 49;
    let batch = &doc["components"]["schemas"]["BatchRequest"]["properties"];
    assert_eq!(batch["seed"]["maximum"], max_seed);
    assert_eq!(batch["count"]["maximum"], 50);
    let at = |seed: u64| json!({"seed": seed, "count": 1, "suits": 1, "ranks": 3});
    assert_eq!(
        status(&t, "POST", "/v1/batches", Some(at(max_seed))).await,
        StatusCode::ACCEPTED
    );
    assert_eq!(
        status(&t, "POST", "/v1/batches", Some(at(max_seed + 1))).await,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    // A batch of PySolFC games has the same count cap, inside `pysol`, and starts at
    // most 10^20 + 1 - max_batch_deals (PySolFC's largest number ends the largest
    // batch): a JSON integer up to 2^64-1, beyond it a string of digits.
    let games = &doc["components"]["schemas"]["PysolBatchSpec"]["properties"];
    let max_from = "99999999999999999951";
    let [integer, digits] = games["from"]["oneOf"].as_array().unwrap().as_slice() else {
        panic!("pysol.from is an integer or a string: {}", games["from"]);
    };
    assert_eq!(integer["maximum"], u64::MAX);
    let pattern = regex::Regex::new(digits["pattern"].as_str().unwrap()).unwrap();
    assert!(pattern.is_match(max_from) && !pattern.is_match("99999999999999999952"));
    assert_eq!(games["count"]["maximum"], 50);
    let games_at = |from: Value, count: u64| json!({"pysol": {"game": "blue-moon", "from": from, "count": count}, "limits": {"time_ms": 100}});
    for (body, want) in [
        (games_at(json!(max_from), 1), StatusCode::ACCEPTED),
        (games_at(json!(u64::MAX), 1), StatusCode::ACCEPTED),
        (
            games_at(json!("99999999999999999952"), 1),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (games_at(json!(1), 51), StatusCode::UNPROCESSABLE_ENTITY),
    ] {
        assert_eq!(
            status(&t, "POST", "/v1/batches", Some(body.clone())).await,
            want,
            "{body}"
        );
    }
}

#[tokio::test]
async fn odds_requests_are_requests_of_their_own_in_the_document() {
    let t = start_with(|c| {
        c.solver.threads = Some(0); // nothing runs: every accepted job stays queued
        c.limits.max_batch_deals = 50;
    })
    .await;
    let doc = document(&t).await;
    let schemas = &doc["components"]["schemas"];
    let arms = |name: &str| schemas[name]["oneOf"].clone();
    assert!(arms("AnyJobRequest")
        .as_array()
        .unwrap()
        .contains(&json!({"$ref": "#/components/schemas/OddsJobRequest"})));
    assert!(arms("AnyBatchRequest")
        .as_array()
        .unwrap()
        .contains(&json!({"$ref": "#/components/schemas/OddsBatchRequest"})));
    // A Gaps request has no `odds` (an object of its own is the odds request), so that
    // every body matches one arm.
    for gaps in ["JobRequest", "BatchRequest"] {
        assert_eq!(schemas[gaps]["additionalProperties"], false);
        assert!(schemas[gaps]["properties"].get("odds").is_none(), "{gaps}");
    }
    let job = &schemas["OddsJobRequest"];
    assert_eq!(job["required"], json!(["odds"]));
    assert_eq!(job["properties"]["algorithm"]["type"], "null");
    assert_eq!(job["properties"]["review"]["type"], "null");
    assert!(job["properties"].get("pysol").is_none());
    let limits = &job["properties"]["limits"]["allOf"][1]["properties"];
    for not_taken in ["probes", "table_mb", "threads"] {
        assert_eq!(limits[not_taken]["type"], "null", "{not_taken}");
    }
    let batch = &schemas["OddsBatchRequest"];
    assert_eq!(batch["required"], json!(["count", "odds"]));
    assert_eq!(batch["properties"]["count"]["maximum"], 50);

    let deal = json!({"seed": 3, "suits": 2, "ranks": 4});
    let position = "2S 3S 4S --/2H 3H 4H --";
    for (body, want) in [
        (json!({"deal": deal, "odds": {}}), StatusCode::ACCEPTED),
        // A bare position may have redeals here, under `aisleriot` too.
        (
            json!({"position": position, "variant": "aisleriot", "redeals": 2, "odds": {"samples": 3}}),
            StatusCode::ACCEPTED,
        ),
        (
            json!({"deal": deal, "algorithm": null, "review": null, "limits": {"probes": null}, "odds": {}}),
            StatusCode::ACCEPTED,
        ),
        (
            json!({"deal": deal, "algorithm": "exact", "odds": {}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"deal": deal, "review": false, "odds": {}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"deal": deal, "limits": {"threads": 1}, "odds": {}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"pysol": {"game": "montana", "number": 1}, "odds": {}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"deal": deal, "odds": {"samples": 0}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"deal": deal, "redeals": 3, "odds": {}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        assert_eq!(
            status(&t, "POST", "/v1/jobs", Some(body.clone())).await,
            want,
            "{body}"
        );
    }
    let range = |count: u64| json!({"count": count, "suits": 2, "ranks": 4, "odds": {}});
    let mut with_game = range(1);
    with_game["pysol"] = json!({"game": "montana", "from": 1, "count": 1});
    let mut with_algorithm = range(1);
    with_algorithm["algorithm"] = json!("auto");
    for (body, want) in [
        (range(50), StatusCode::ACCEPTED),
        (range(51), StatusCode::UNPROCESSABLE_ENTITY),
        (json!({"odds": {}}), StatusCode::UNPROCESSABLE_ENTITY),
        (with_game, StatusCode::UNPROCESSABLE_ENTITY),
        (with_algorithm, StatusCode::UNPROCESSABLE_ENTITY),
    ] {
        assert_eq!(
            status(&t, "POST", "/v1/batches", Some(body.clone())).await,
            want,
            "{body}"
        );
    }
}

#[tokio::test]
async fn the_idempotency_key_is_a_documented_header_of_both_posts() {
    let t = start_with(|c| c.solver.threads = Some(0)).await;
    let doc = document(&t).await;
    for path in ["/v1/jobs", "/v1/batches"] {
        let key = param(&doc, path, "post", "Idempotency-Key");
        assert_eq!(key["in"], "header", "{path}");
        assert_eq!(key["required"], false, "{path}");
        assert_eq!(key["schema"]["maxLength"], 255, "{path}");
        assert_eq!(key["schema"]["minLength"], 1, "{path}");
        let pattern = regex::Regex::new(key["schema"]["pattern"].as_str().unwrap()).unwrap();
        assert!(pattern.is_match("retry-1~") && !pattern.is_match("two words"));
        let responses = &doc["paths"][path]["post"]["responses"];
        assert!(
            responses.get("409").is_some(),
            "{path}: a key still being answered"
        );
    }
}

#[tokio::test]
async fn the_answers_to_bad_input_are_documented() {
    let t = start_with(|_| {}).await;
    let doc = document(&t).await;
    for (path, method, statuses) in [
        (
            "/v1/jobs",
            "post",
            &["202", "400", "401", "413", "415", "422", "429", "503"][..],
        ),
        (
            "/v1/batches",
            "post",
            &["202", "400", "401", "413", "415", "422", "429", "503"][..],
        ),
        ("/v1/jobs", "get", &["200", "400", "401", "503"][..]),
        (
            "/v1/jobs/{id}",
            "get",
            &["200", "400", "401", "404", "503"][..],
        ),
        (
            "/v1/jobs/{id}",
            "delete",
            &["200", "401", "403", "404", "409", "503"][..],
        ),
        ("/v1/deals/{seed}", "get", &["200", "400", "422"][..]),
    ] {
        let responses = &doc["paths"][path][method]["responses"];
        for status in statuses {
            assert!(
                responses.get(*status).is_some(),
                "{method} {path} lacks {status}"
            );
        }
    }
    let results = &doc["paths"]["/v1/batches/{id}/results"]["get"]["responses"]["200"]["content"];
    assert!(results.get("application/x-ndjson").is_some() && results.get("text/csv").is_some());
}

#[tokio::test]
async fn a_longer_wait_than_the_cap_waits_the_cap_and_says_so() {
    let t = start_with(|c| {
        c.limits.max_wait_ms = 600;
        c.solver.threads = Some(0); // nothing runs: every accepted job stays queued
    })
    .await;
    let job = json!({"deal": {"seed": 1, "suits": 2, "ranks": 4}}).to_string();
    for (asked, used) in [("600", "600"), ("99999999", "600"), ("0", "0")] {
        let started = std::time::Instant::now();
        let uri = format!("/v1/jobs?wait_ms={asked}");
        let (code, headers, view) = t.call_as("POST", &uri, Some(&job), None, None).await;
        assert_eq!(code, StatusCode::ACCEPTED, "wait_ms={asked}");
        assert_eq!(headers["gaps-wait-ms"], used, "wait_ms={asked}");
        assert_eq!(view["state"], "queued");
        if used == "600" {
            assert!(started.elapsed() >= std::time::Duration::from_millis(550));
        }
    }
    let uri = "/v1/jobs?wait_ms=99999999";
    let id = t.call_as("POST", uri, Some(&job), None, None).await.2["id"]
        .as_str()
        .unwrap()
        .to_string();
    let uri = format!("/v1/jobs/{id}?wait_ms=5000");
    let (code, headers, _) = t.call_as("GET", &uri, None, None, None).await;
    assert_eq!(
        (code, &headers["gaps-wait-ms"]),
        (StatusCode::OK, &"600".parse().unwrap())
    );
    let uri = format!("/v1/jobs/{id}");
    let (_, headers, _) = t.call_as("GET", &uri, None, None, None).await;
    assert!(
        headers.get("gaps-wait-ms").is_none(),
        "no wait asked, no header"
    );
    // Only a number beyond the document's int64 is refused, storing nothing.
    let before = t.job_count().await;
    let uri = "/v1/jobs?wait_ms=9223372036854775808";
    let (code, _, _) = t.call_as("POST", uri, Some(&job), None, None).await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    assert_eq!(t.job_count().await, before);
}
