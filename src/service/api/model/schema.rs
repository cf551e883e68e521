//! The parts of the OpenAPI document that depend on configuration or that the derive
//! macros cannot say: every cap, the names each string accepts, "a position or a deal",
//! which limits apply to which algorithm, and the answers every route may give.
//!
//! Invariant: the rules written here are exactly those [`super::validate`] and the
//! handlers enforce, from the same configuration values and engine names, so a request
//! valid by the document is accepted (unless a quota or the service's state refuses
//! it) and one invalid by it is refused with a 4xx. `tests/openapi.rs` checks both
//! directions on examples; `scripts/schemathesis.sh` fuzzes them.

mod kinds;

use super::number_schema::{batch_seed, digits_up_to, game_number, number_up_to};
use crate::service::config::Config;
use crate::service::job::Game;
use gaps_engine::{Algorithm, Limit, PysolGame, Variant, Verdict, MAX_REDEALS, PYSOL_MAX_NUMBER};
use serde_json::{json, Value};

/// The largest deal number.
const MAX_SEED: u64 = i64::MAX as u64;
/// The largest `wait_ms` a request may give (2^63-1, a JSON Schema `int64`); any value
/// up to it is accepted and waits at most `limits.max_wait_ms`.
pub const MAX_WAIT_QUERY_MS: u64 = i64::MAX as u64;

/// The first deal number a batch may start at: any batch of the largest size ends at or
/// below [`MAX_SEED`].
pub fn max_batch_seed(config: &Config) -> u64 {
    MAX_SEED - (config.limits.max_batch_deals - 1)
}

/// `doc` (the derived document) completed for `config`.
pub fn openapi_document(mut doc: Value, config: &Config) -> Value {
    let limits = &config.limits;
    let names = |all: &[&str]| json!(all);
    let variants: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    let algorithms: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    let verdicts: Vec<&str> = Verdict::ALL.iter().map(|v| v.name()).collect();
    let states: Vec<&str> = crate::service::job::JobState::ALL
        .iter()
        .map(|s| s.name())
        .collect();

    let schemas = &mut doc["components"]["schemas"];
    let limit_props = &mut schemas["Limits"]["properties"];
    // Each limit's range is the engine's (`gaps_engine::Limit`), narrowed by the caps
    // of this configuration: the same bounds `validate` checks.
    let table_cap = config.solver.table_mb.max(config.search_memory_mb()) as u64;
    for (limit, cap) in [
        (Limit::Nodes, limits.max_nodes),
        (Limit::TimeMs, limits.max_time_ms),
        (Limit::Probes, limits.max_probes),
        (Limit::Threads, config.max_job_threads() as u64),
        (Limit::TableMb, table_cap),
    ] {
        let schema = &mut limit_props[limit.name()];
        schema["minimum"] = json!(limit.min());
        schema["maximum"] = json!(cap.min(limit.max()));
    }

    for request in ["JobRequest", "BatchRequest"] {
        let props = &mut schemas[request]["properties"];
        props["variant"]["enum"] = with_null(names(&variants));
        props["algorithm"]["enum"] = with_null(names(&algorithms));
    }
    let job = &mut schemas["JobRequest"];
    // Any arrangement of the cards with one gap per row (or a full deal) is valid; the
    // format names that rule, which no pattern can state (each card exactly once).
    job["properties"]["position"]["format"] = json!("gaps-position");
    job["properties"]["position"]["examples"] =
        json!(["3S 2H -- 2S/3H -- 4H 4S", "2S 3S 4S --/2H 3H 4H --"]);
    job["allOf"] = json!([
        {"oneOf": [{"required": ["position"]}, {"required": ["deal"]}, {"required": ["pysol"]}]},
        // A variant given with a PySolFC game is the game's.
        {"not": {"anyOf": pysol_contradictions()}},
        {"anyOf": algorithm_cases(config, false)},
        // A redeal needs the deal's generator (a position takes none), `aisleriot` plays
        // the first round only, and a PySolFC game allows its own number.
        redeal_refusals(true),
    ]);
    kinds::morpion_request(schemas, config);
    kinds::odds_requests(schemas, config, &variants);
    // The events' names (`api::events`).
    schemas["ServerEvent"]["properties"]["event"]["enum"] = json!(["state", "progress", "end"]);
    let pysol = &mut schemas["PysolSpec"]["properties"];
    // Every game the engine solves: as a position of its variant, or on its own board.
    let games: Vec<&str> = solved().map(|g| g.name()).collect();
    pysol["game"]["enum"] = json!(games);
    set_number(&mut pysol["number"], game_number(PYSOL_MAX_NUMBER));
    let batch = &mut schemas["BatchRequest"];
    let count_cap = batch_count_cap(config);
    batch["properties"]["count"]["maximum"] = json!(count_cap);
    batch["properties"]["seed"]["maximum"] = json!(max_batch_seed(config));
    let absent = json!({"type": "null"});
    batch["allOf"] = json!([
        // Numbered deals (`count`, maybe `seed`, `suits`, `ranks`) or PySolFC games.
        {"oneOf": [
            {"required": ["count"], "properties": {"count": {"type": "integer"}, "pysol": absent}},
            {"required": ["pysol"], "properties": {"pysol": {"type": "object"},
                "count": absent, "seed": absent, "suits": absent, "ranks": absent}},
        ]},
        {"not": {"anyOf": pysol_contradictions()}},
        {"anyOf": algorithm_cases(config, true)},
        redeal_refusals(false),
    ]);
    let games_batch = &mut schemas["PysolBatchSpec"]["properties"];
    games_batch["game"]["enum"] = json!(games);
    set_number(
        &mut games_batch["from"],
        game_number(max_batch_game(config)),
    );
    games_batch["count"]["maximum"] = json!(count_cap);
    // Answers give a game number as requests take it.
    for view in ["PysolView", "PysolGameView"] {
        let number = &mut schemas[view]["properties"]["number"];
        set_number(number, game_number(PYSOL_MAX_NUMBER));
    }
    set_number(
        &mut schemas["BatchView"]["properties"]["seed"],
        batch_seed(),
    );

    doc["paths"]["/v1/verdicts"]["get"]["parameters"] =
        json!([verdict_lookup(&variants, &games, &verdicts)]);

    for (path, item) in doc["paths"].as_object_mut().into_iter().flatten() {
        for (method, op) in item.as_object_mut().into_iter().flatten() {
            complete_operation(path, method, op, config, &states, &variants, &verdicts);
        }
    }
    doc
}

/// The most deals a batch may ask: the configured maximum, and no more than a client
/// may have queued.
pub(super) fn batch_count_cap(config: &Config) -> u64 {
    let limits = &config.limits;
    match limits.max_queued_per_client {
        0 => limits.max_batch_deals,
        queued => limits.max_batch_deals.min(queued),
    }
}

/// A job or batch given as one of the PySolFC games `games` (`pysol` an object naming
/// it: a `null` one is no game).
fn pysol_games(games: &[&str]) -> Value {
    json!({"required": ["pysol"], "properties": {"pysol": {
        "type": "object", "required": ["game"], "properties": {"game": {"enum": games}}}}})
}

/// A job or batch given as a PySolFC game played as `variant`.
fn games_played_as(variant: Variant) -> Value {
    let games: Vec<&str> = played()
        .filter(|g| g.variant() == variant)
        .map(|g| g.name())
        .collect();
    pysol_games(&games)
}

/// What a job or batch given as a PySolFC game may not ask: another variant than the
/// game's. One case per variant, naming its games in one `enum` (schemathesis'
/// generator gives up on a case per game). A game played on its own board takes no
/// variant and no algorithm but `auto` and `exact` (its limits are those of a request
/// that names neither, which `algorithm_cases` states); `exact` only without redeals
/// (`redeals` 0, which a game with redeals of its own must give) and without played
/// steps.
fn pysol_contradictions() -> Value {
    let board: Vec<&str> = on_board().map(|g| g.name()).collect();
    let redealt: Vec<&str> = on_board()
        .filter(|g| g.own_redeals() > 0)
        .map(|g| g.name())
        .collect();
    let exact = json!({"required": ["algorithm"], "properties": {"algorithm": {"const": "exact"}}});
    let mut cases = vec![
        json!({"allOf": [pysol_games(&board), {"required": ["variant"],
            "properties": {"variant": {"type": "string"}}}]}),
        json!({"allOf": [pysol_games(&board), {"required": ["algorithm"],
            "properties": {"algorithm": {"type": "string", "not": {"enum": ["auto", "exact"]}}}}]}),
        json!({"allOf": [pysol_games(&redealt), exact,
            {"not": {"required": ["redeals"], "properties": {"redeals": {"const": 0}}}}]}),
        json!({"allOf": [pysol_games(&board), exact,
            {"required": ["redeals"], "properties": {"redeals": {"type": "integer", "minimum": 1}}}]}),
        json!({"allOf": [pysol_games(&board), exact, {"required": ["played"]}]}),
    ];
    for variant in Variant::ALL {
        let others: Vec<&str> = Variant::ALL
            .into_iter()
            .filter(|&v| v != variant)
            .map(Variant::name)
            .collect();
        let games: Vec<&str> = played()
            .filter(|g| g.variant() == variant)
            .map(|g| g.name())
            .collect();
        if !games.is_empty() {
            cases.push(
                json!({"allOf": [pysol_games(&games), {"required": ["variant"],
                "properties": {"variant": {"enum": others}}}]}),
            );
        }
    }
    Value::Array(cases)
}

/// The redeals a job (`position` possible) or batch may not ask, as one `not`: any
/// redeal for a `position` (no shuffle), under `aisleriot` (first round only) or for a
/// PySolFC game without redeals, and more than a PySolFC game's own number. Kept to
/// one `not` with one case per number of redeals: the generator gives up on more.
fn redeal_refusals(with_position: bool) -> Value {
    let at_least = |n: u8| json!({"required": ["redeals"], "properties": {"redeals": {"type": "integer", "minimum": n}}});
    let with_own = |own: u8| -> Vec<&'static str> {
        solved()
            .filter(|g| g.own_redeals() == own)
            .map(|g| g.name())
            .collect()
    };
    let mut none =
        vec![json!({"required": ["variant"], "properties": {"variant": {"const": "aisleriot"}}})];
    if with_position {
        none.push(json!({"required": ["position"]}));
    }
    let no_redeal_games = with_own(0);
    if !no_redeal_games.is_empty() {
        none.push(pysol_games(&no_redeal_games));
    }
    let mut cases = vec![json!({"allOf": [{"anyOf": none}, at_least(1)]})];
    for own in 1..MAX_REDEALS {
        let games = with_own(own);
        if !games.is_empty() {
            cases.push(json!({"allOf": [pysol_games(&games), at_least(own + 1)]}));
        }
    }
    json!({"not": {"anyOf": cases}})
}

/// PySolFC game references `GET /v1/verdicts` takes: a game the engine solves, a colon
/// and a number from 1 to 10^20, leading zeros allowed (`gaps_engine::parse_game_number`'s
/// syntax).
fn pysol_pattern() -> String {
    let games: Vec<&str> = solved().map(|g| g.name()).collect();
    format!("^({}):{}$", games.join("|"), number_up_to(PYSOL_MAX_NUMBER))
}

/// The first PySolFC game number a batch may start at: any batch of the largest size
/// ends at or below PySolFC's largest number.
pub fn max_batch_game(config: &Config) -> u128 {
    PYSOL_MAX_NUMBER - u128::from(config.limits.max_batch_deals - 1)
}

/// Puts `schema` (of a number, `number_schema`) in a field's place, keeping the
/// field's own description from its doc comment.
fn set_number(field: &mut Value, mut schema: Value) {
    if let Some(description) = field.get("description").filter(|d| d.is_string()) {
        schema["description"] = description.clone();
    }
    *field = schema;
}

/// The query of `GET /v1/verdicts` as one object parameter (form style, exploded, so
/// its properties are the query's parameters): exactly one of `position`, `deal` (with
/// `suits` and `ranks`) and `pysol`, and with `pysol` a `variant` only if it is the
/// game's; or a list (`game`, `from`, `to`, `verdict`; `to` below `from` is an empty
/// list). The derive cannot say which parameters go together; this is what
/// `api::verdicts` and `api::verdict_list` enforce.
fn verdict_lookup(variants: &[&str], games: &[&str], verdicts: &[&str]) -> Value {
    let none_of = |names: &[&str]| {
        let props: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.to_string(), json!(false)))
            .collect();
        Value::Object(props)
    };
    let game_variant = |game: &str, variant: &str| json!({"properties": {"pysol": {"pattern": format!("^{game}:")}, "variant": {"const": variant}}});
    let list_variant = |game: &str, variant: &str| json!({"properties": {"game": {"const": game}, "variant": {"const": variant}}});
    let list = ["game", "from", "to", "verdict"];
    let and_list = |names: &[&str]| none_of(&[names, &list[..]].concat());
    json!({
        "name": "lookup",
        "in": "query",
        "style": "form",
        "explode": true,
        "required": true,
        "description": "Exactly one of `position`, `deal` (with `suits` and `ranks`) and `pysol`; `variant` defaults to `basic`, or to the game's with `pysol`. Or a list: `game` with `from`, `to` and `verdict`, and a `variant` only if it is the game's.",
        "schema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "position": {"type": "string", "format": "gaps-position"},
                "variant": {"type": "string", "enum": variants},
                "deal": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
                "suits": {"type": "integer", "minimum": 1, "maximum": 8},
                "ranks": {"type": "integer", "minimum": 3, "maximum": 13},
                "pysol": {"type": "string", "pattern": pysol_pattern()},
                "game": {"type": "string", "enum": games},
                "from": {"type": "string", "pattern": digits_up_to(PYSOL_MAX_NUMBER)},
                "to": {"type": "string", "pattern": digits_up_to(PYSOL_MAX_NUMBER)},
                "verdict": {"type": "string", "enum": verdicts},
            },
            "oneOf": [
                {"required": ["position"], "properties": and_list(&["deal", "suits", "ranks", "pysol"])},
                {"required": ["deal"], "properties": and_list(&["position", "pysol"])},
                {
                    "required": ["pysol"],
                    "properties": and_list(&["position", "deal", "suits", "ranks"]),
                    "anyOf": std::iter::once(json!({"properties": {"variant": false}}))
                        .chain(played().map(|g| game_variant(g.name(), g.variant().name())))
                        .collect::<Vec<_>>(),
                },
                {
                    "required": ["game"],
                    "properties": none_of(&["position", "deal", "suits", "ranks", "pysol"]),
                    "anyOf": std::iter::once(json!({"properties": {"variant": false}}))
                        .chain(played().map(|g| list_variant(g.name(), g.variant().name())))
                        .collect::<Vec<_>>(),
                },
            ],
        },
    })
}

/// `names` plus `null` (an optional field may be `null`, meaning its default).
pub(super) fn with_null(mut names: Value) -> Value {
    names.as_array_mut().expect("a list").push(Value::Null);
    names
}

/// Which limits apply, by (algorithm, variant), as in `validate`: `probes` only where
/// the search samples (`sampling`, `auto` on `common`), more than one thread only for
/// `blocks`, `exact` and `auto` on `common`, and the memory of the searches that run the
/// exact search (`exact`, `auto` on `common`) from the node's budget for searches.
/// Absent or `null` algorithm means `auto`, variant `basic`. Batches take no `table_mb`.
fn algorithm_cases(config: &Config, batch: bool) -> Value {
    let table = config.solver.table_mb;
    let exact_table = config.search_memory_mb();
    let threads = config.max_job_threads();
    let limits = |probes: bool, threads: usize, table: usize| {
        let mut props = json!({"threads": {"type": ["integer", "null"], "maximum": threads}});
        if !probes {
            props["probes"] = json!({"type": "null"});
        }
        props["table_mb"] = if batch {
            json!({"type": "null"})
        } else {
            json!({"type": ["integer", "null"], "maximum": table})
        };
        json!({"properties": props})
    };
    // A job's or batch's variant is the one it names, else its PySolFC game's, else
    // `basic`.
    let case = |algorithms: Value, variants: Value, required: &[&str], limits: Value| {
        let named: Vec<&str> = variants
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let implied_basic = variants.as_array().expect("a list").contains(&Value::Null);
        let required: Vec<&str> = required
            .iter()
            .copied()
            .filter(|r| *r != "variant")
            .collect();
        let mut case = json!({
            "properties": {"algorithm": {"enum": algorithms}, "limits": limits},
            "required": required,
        });
        let mut ways =
            vec![json!({"required": ["variant"], "properties": {"variant": {"enum": named}}})];
        let unnamed = json!({"properties": {"variant": {"type": "null"}}});
        if implied_basic {
            ways.push(json!({"allOf": [unnamed, {"not": games_played_as(Variant::Common)}]}));
        }
        if named.contains(&"common") {
            ways.push(json!({"allOf": [unnamed, games_played_as(Variant::Common)]}));
        }
        case["anyOf"] = json!(ways);
        case
    };
    let any_variant = json!(["basic", "common", null]);
    let basic = json!(["basic", null]);
    let common = json!(["common"]);
    let auto = json!(["auto", null]);
    // `aisleriot` is searched depth-first only (`auto` is `dfs` there): a case of its own.
    json!([
        case(
            json!(["dfs", "hybrid"]),
            any_variant.clone(),
            &["algorithm"],
            limits(false, 1, table)
        ),
        case(auto.clone(), basic.clone(), &[], limits(false, 1, table)),
        case(
            json!(["auto", "dfs", null]),
            json!(["aisleriot"]),
            &["variant"],
            limits(false, 1, table)
        ),
        case(
            json!(["assign"]),
            common.clone(),
            &["algorithm", "variant"],
            limits(false, 1, table)
        ),
        case(
            json!(["sampling"]),
            any_variant.clone(),
            &["algorithm"],
            limits(true, 1, table)
        ),
        case(
            auto,
            common,
            &["variant"],
            limits(true, threads, exact_table)
        ),
        case(
            json!(["blocks"]),
            basic,
            &["algorithm"],
            limits(false, threads, table)
        ),
        case(
            json!(["exact"]),
            any_variant,
            &["algorithm"],
            limits(false, threads, exact_table)
        ),
    ])
}

/// Query parameters' caps and names, and the problem answers every route may give.
fn complete_operation(
    path: &str,
    method: &str,
    op: &mut Value,
    config: &Config,
    states: &[&str],
    variants: &[&str],
    verdicts: &[&str],
) {
    let limits = &config.limits;
    let params = op.get_mut("parameters").and_then(Value::as_array_mut);
    for param in params.into_iter().flatten() {
        if param["in"] == "query" {
            // A query parameter is absent or has a value; it is never `null`.
            if let Some(types) = param["schema"]["type"].as_array() {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                param["schema"]["type"] = kept.into_iter().next().unwrap_or(Value::Null);
            }
        }
        let name = param["name"].as_str().unwrap_or_default().to_string();
        if name == "wait_ms" {
            // Any wait is accepted and capped (docs/http.md): the cap is stated, not
            // enforced; only a number no clock holds is refused.
            param["description"] = json!(format!(
                "Wait up to this many milliseconds for the job to finish; a larger value \
                 waits {} (limits.max_wait_ms), then ask again. The answer's gaps-wait-ms \
                 header says the wait used.",
                limits.max_wait_ms
            ));
            param["schema"]["maximum"] = json!(MAX_WAIT_QUERY_MS);
        }
        if name == "Idempotency-Key" {
            // The key's rule (`api::idempotency::key_of`): 1 to 255 visible ASCII
            // characters; anything else is a 400.
            param["schema"] = json!({"type": "string", "minLength": 1,
                "maxLength": crate::service::api::idempotency::MAX_KEY_LEN,
                "pattern": "^[!-~]+$"});
        }
        let schema = &mut param["schema"];
        match name.as_str() {
            "limit" => schema["maximum"] = json!(limits.max_page_size),
            "state" => schema["enum"] = json!(states),
            "variant" => schema["enum"] = json!(variants),
            "verdict" => schema["enum"] = json!(verdicts),
            "cursor" => schema["pattern"] = json!(CURSOR_PATTERN),
            "seed" => schema["maximum"] = json!(MAX_SEED),
            "game" if path == "/v1/jobs" => {
                schema["enum"] = json!(Game::ALL.iter().map(|g| g.name()).collect::<Vec<_>>())
            }
            "game" if path == "/v1/pysol/{game}/{number}" => {
                schema["enum"] = json!(solved().map(|g| g.name()).collect::<Vec<_>>())
            }
            "number" if path == "/v1/pysol/{game}/{number}" => {
                *schema = json!({"type": "string", "pattern": digits_up_to(PYSOL_MAX_NUMBER)});
            }
            _ => {}
        }
    }
    let has_query = op
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|p| p.iter().any(|p| p["in"] == "query"));
    let responses = &mut op["responses"];
    let problem = |description: &str| {
        json!({
            "description": description,
            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
        })
    };
    let mut add = |status: &str, description: &str| {
        if responses.get(status).is_none() {
            responses[status] = problem(description);
        }
    };
    let takes_body = method == "post" && (path == "/v1/jobs" || path == "/v1/batches");
    if takes_body {
        add("400", "Malformed JSON or query");
        add("413", "The body is larger than `server.body_limit_bytes`");
        add("415", "The body is not sent as `application/json`");
    }
    if has_query {
        add(
            "400",
            "A query parameter is unknown, malformed or out of range",
        );
    }
    if path != "/healthz" {
        add(
            "401",
            "Tokens are configured and this request needs one (writes; reads with `auth.protect_reads`)",
        );
    }
    add(
        "503",
        "The store is unavailable, the service is shutting down, or the request took longer than `server.request_timeout_ms`",
    );
}

/// The form of a page cursor: a positive whole number of at most 18 digits.
pub const CURSOR_PATTERN: &str = "^[1-9][0-9]{0,17}$";

/// Whether `cursor` has the form of `CURSOR_PATTERN`.
pub fn is_cursor(cursor: &str) -> bool {
    (1..=18).contains(&cursor.len())
        && !cursor.starts_with('0')
        && cursor.bytes().all(|b| b.is_ascii_digit())
}

/// The PySolFC games the engine plays as positions of a variant.
fn played() -> impl Iterator<Item = PysolGame> {
    PysolGame::ALL.into_iter().filter(|g| g.is_played())
}

/// The PySolFC games played on their own boards.
fn on_board() -> impl Iterator<Item = PysolGame> {
    PysolGame::ALL.into_iter().filter(|g| g.is_board_played())
}

/// Every PySolFC game the engine solves: those it plays and those on their boards.
fn solved() -> impl Iterator<Item = PysolGame> {
    played().chain(on_board())
}
