//! PySolFC games as jobs, and verdicts looked up without a job (`GET /v1/verdicts`).
use crate::support;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use support::start;
use tower::ServiceExt;

/// `GET uri` with one request header; the status, the response headers and the body.
async fn get_with(
    t: &support::TestService,
    uri: &str,
    header: Option<(&str, &str)>,
) -> (StatusCode, axum::http::HeaderMap, Value) {
    let mut req = Request::builder().uri(uri);
    if let Some((name, value)) = header {
        req = req.header(name, value);
    }
    let res = t
        .service
        .router()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (parts.status, parts.headers, value)
}

#[tokio::test]
async fn verdicts_are_looked_up_without_a_job_and_cached() {
    let t = start().await;
    let deal = json!({"seed": 3, "suits": 4, "ranks": 6});
    let job = t
        .post_job(json!({"deal": deal, "variant": "common"}), "?wait_ms=30000")
        .await;
    assert_eq!(job["state"], "done", "{job}");
    let position = job["position"].as_str().unwrap().to_string();
    let jobs_before = t.job_count().await;

    // The same position by text and by deal number.
    let by_text = format!(
        "/v1/verdicts?variant=common&position={}",
        urlencoding(&position)
    );
    let (status, headers, view) = get_with(&t, &by_text, None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["verdict"], job["verdict"], "{view}");
    assert_eq!(view["position"], position.as_str());
    assert_eq!(view["job_id"], job["id"]);
    assert_eq!(view["solution"], job["solution"]);
    let etag = headers[axum::http::header::ETAG]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(etag, format!("\"{}\"", job["id"].as_str().unwrap()));
    assert_eq!(
        headers[axum::http::header::CACHE_CONTROL],
        "public, max-age=86400"
    );
    let (status, _, by_deal) = get_with(
        &t,
        "/v1/verdicts?deal=3&suits=4&ranks=6&variant=common",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{by_deal}");
    assert_eq!(by_deal["job_id"], job["id"]);
    assert_eq!(by_deal["deal"], deal);
    // A client holding the answer is told it has not changed.
    let (status, headers, _) = get_with(&t, &by_text, Some(("if-none-match", &etag))).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert_eq!(headers[axum::http::header::ETAG].to_str().unwrap(), etag);

    // Nothing known: 404 problem+json; under the other variant nothing is known either.
    let (status, headers, problem) =
        get_with(&t, "/v1/verdicts?deal=4&suits=4&ranks=6", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{problem}");
    assert_eq!(
        headers[axum::http::header::CONTENT_TYPE],
        "application/problem+json"
    );
    let (status, _, _) = get_with(&t, "/v1/verdicts?deal=3&suits=4&ranks=6", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A PySolFC game is its position under the game's variant.
    let montana = gaps_engine::PysolDeal::new(gaps_engine::PysolGame::Montana, 5).unwrap();
    let (status, _, _) = get_with(&t, "/v1/verdicts?pysol=montana:5", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let job = t
        .post_job(
            json!({"position": montana.board_text(), "variant": "common", "limits": {"time_ms": 500}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    let (status, headers, view) = get_with(&t, "/v1/verdicts?pysol=montana:5", None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["pysol"], "montana:5");
    assert_eq!(view["variant"], "common");
    if view["verdict"] == "unknown" {
        assert_eq!(headers[axum::http::header::CACHE_CONTROL], "no-cache");
        assert_eq!(view["time_ms"], 500);
    }

    // Bad lookups: 422 naming the problem, never a 500.
    for (query, needle) in [
        ("position=2S%203S%20XX%204S/2H%203H%204H%20--", "position"),
        (
            "position=2S%203S%20--%204S/2H%203H%204H%20--&deal=3",
            "exactly one",
        ),
        ("", "exactly one"),
        ("pysol=montana:5&variant=basic", "contradicts"),
        ("pysol=montana:0", "pysol"),
        ("pysol=klondike:5", "pysol"),
        ("pysol=montana:5&suits=4", "exactly one"),
        ("deal=1&suits=9", "deal"),
        ("variant=fancy&deal=1", "variant"),
    ] {
        let (status, _, problem) = get_with(&t, &format!("/v1/verdicts?{query}"), None).await;
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
    // Nothing was created by any lookup.
    assert_eq!(t.job_count().await, jobs_before + 1);
}

/// Percent-encoding of a position for a query string.
fn urlencoding(text: &str) -> String {
    text.replace(' ', "%20").replace('/', "%2F")
}

#[tokio::test]
async fn a_pysol_game_is_a_job_under_its_variant() {
    use gaps_engine::{PysolDeal, PysolGame};
    let t = start().await;
    let game = PysolDeal::new(PysolGame::BlueMoon, 2).unwrap();
    let job = t
        .post_job(
            // Its first round: that verdict is the position's.
            json!({"pysol": {"game": "blue-moon", "number": 2}, "redeals": 0}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["variant"], "basic", "{job}");
    assert_eq!(job["pysol"]["game"], "blue-moon", "{job}");
    assert_eq!(job["pysol"]["number"], 2, "{job}");
    assert_eq!(job["pysol"]["board"], game.board_text(), "{job}");
    if job["verdict"] == "solvable" {
        // The same steps on the board: its Aces column shifts every column by one.
        let steps = job["solution"].as_array().unwrap();
        let on_board = job["pysol"]["board_solution"].as_array().unwrap();
        assert_eq!(on_board.len(), steps.len(), "{job}");
        for (m, b) in steps.iter().zip(on_board) {
            assert_eq!(
                b["to"][1].as_u64(),
                m["to"][1].as_u64().map(|c| c + 1),
                "{job}"
            );
        }
    }
    assert_eq!(
        job["position"],
        gaps_engine::format_position(&game.position())
    );
    assert_ne!(job["verdict"], "unknown", "{job}");
    // Its verdict is found by the game as by the position.
    let (status, _, view) = t.call("GET", "/v1/verdicts?pysol=blue-moon:2", None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["job_id"], job["id"]);
    // Montana is `common`, and may say so.
    let job = t
        .post_job(
            json!({"pysol": {"game": "montana", "number": 7}, "variant": "common", "limits": {"time_ms": 300}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["variant"], "common", "{job}");
    assert_eq!(job["limits"]["threads"], 2, "{job}");
    // Refused, nothing stored.
    let before = t.job_count().await;
    for (body, needle) in [
        (
            json!({"pysol": {"game": "montana", "number": 7}, "variant": "basic"}),
            "contradicts",
        ),
        (
            json!({"pysol": {"game": "klondike", "number": 7}}),
            "unknown PySolFC game",
        ),
        (
            json!({"pysol": {"game": "montana", "number": 0}}),
            "from 1 to 10^20",
        ),
        (
            json!({"pysol": {"game": "montana", "number": 7}, "deal": {"seed": 1}}),
            "not several",
        ),
        (json!({"pysol": {"game": "montana"}}), "number"),
        (
            json!({"pysol": {"game": "montana", "number": 7}, "algorithm": "blocks"}),
            "algorithm",
        ),
    ] {
        let (status, _, problem) = t.call("POST", "/v1/jobs", Some(&body.to_string())).await;
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
    assert_eq!(t.job_count().await, before);
}
