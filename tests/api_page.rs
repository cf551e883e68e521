//! The web page's routes: the page and its assets are served from the binary with a
//! strict content security policy, and the deal lookup matches the engine and stores
//! nothing. (The page itself is driven in a real browser by tests/browser/e2e.mjs.)
use crate::support;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use gaps_engine::{deal, format_position, Layout};
use http_body_util::BodyExt;
use support::start;
use tower::ServiceExt;

#[tokio::test]
async fn page_and_assets_are_embedded_with_a_strict_policy() {
    let t = start().await;
    for (path, content_type, needle) in [
        ("/", "text/html", "<script src=\"/ui/app.js\""),
        ("/ui/app.js", "text/javascript", "parseNotation"),
        ("/ui/app.css", "text/css", ".board"),
    ] {
        let req = Request::get(path).body(Body::empty()).unwrap();
        let res = t.service.router().oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let headers = res.headers().clone();
        assert!(headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with(content_type));
        let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("default-src 'self'") && csp.contains("script-src 'self'"));
        let body = res.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8(body.to_vec()).unwrap();
        assert!(text.contains(needle), "{path} holds {needle}");
        // No external code or fonts: the page works offline.
        assert!(
            !text.contains("http://") && !text.contains("https://"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn deals_are_looked_up_like_the_cli_and_bad_ones_refused() {
    let t = start().await;
    let (status, _, d) = t.call("GET", "/v1/deals/6?suits=4&ranks=6", None).await;
    assert_eq!(status, StatusCode::OK);
    let expected = format_position(&deal(6, Layout::new(4, 6).unwrap()));
    assert_eq!(d["position"], expected.as_str());
    assert_eq!(
        (d["seed"].as_u64(), d["suits"].as_u64()),
        (Some(6), Some(4))
    );
    let (_, _, d) = t.call("GET", "/v1/deals/1", None).await;
    assert_eq!(d["ranks"], 13, "4 x 13 by default");
    for (uri, status, needle) in [
        (
            "/v1/deals/abc",
            StatusCode::UNPROCESSABLE_ENTITY,
            "whole number",
        ),
        (
            "/v1/deals/-1",
            StatusCode::UNPROCESSABLE_ENTITY,
            "whole number",
        ),
        (
            "/v1/deals/9223372036854775808",
            StatusCode::UNPROCESSABLE_ENTITY,
            "2^63",
        ),
        (
            "/v1/deals/1?suits=9",
            StatusCode::UNPROCESSABLE_ENTITY,
            "suits",
        ),
        (
            "/v1/deals/1?ranks=2",
            StatusCode::UNPROCESSABLE_ENTITY,
            "ranks",
        ),
        ("/v1/deals/1?ranks=x", StatusCode::BAD_REQUEST, "ranks"),
        ("/v1/deals/1?colour=red", StatusCode::BAD_REQUEST, "colour"),
    ] {
        let (got, content_type, problem) = t.call("GET", uri, None).await;
        assert_eq!(got, status, "{uri}: {problem}");
        assert_eq!(content_type, "application/problem+json", "{uri}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(needle), "{uri}: {detail}");
    }
    assert_eq!(t.job_count().await, 0, "lookups store nothing");
    let (_, _, doc) = t.call("GET", "/openapi.json", None).await;
    assert!(doc["paths"].get("/v1/deals/{seed}").is_some());
}
