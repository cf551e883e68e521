//! Shared by the handler tests: a real service (router, solver pool, store) on a
//! temporary database, called through `oneshot`.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use gaps::service::config::Config;
use gaps::service::store::testing::{temp_pg_database, TempPgDatabase};
use gaps::service::Service;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

pub struct TestService {
    pub service: Service,
    _dir: tempfile::TempDir,
    pub postgres: Option<TempPgDatabase>,
}

pub async fn start() -> TestService {
    start_with(|_| {}).await
}

pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> TestService {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::defaults();
    config.database.url = format!("sqlite://{}", dir.path().join("api.db").display());
    config.solver.threads = Some(2);
    config.solver.table_mb = 8;
    config.server.body_limit_bytes = 4096;
    config.limits.max_batch_deals = 50;
    // Deepening changes stored unknowns in the background; its own tests turn it on.
    config.deepen.enabled = false;
    adjust(&mut config);
    let service = Service::start(config).await.unwrap();
    TestService {
        service,
        _dir: dir,
        postgres: None,
    }
}

/// The service on a fresh PostgreSQL database; `None` where the server cannot be
/// reached outside CI (see `store::testing`).
pub async fn start_on_postgres() -> Option<TestService> {
    start_on_postgres_with(|_| {}).await
}

/// [`start_on_postgres`], adjusted by `adjust`.
pub async fn start_on_postgres_with(adjust: impl FnOnce(&mut Config)) -> Option<TestService> {
    let db = temp_pg_database().await?;
    let url = db.url().to_string();
    let mut t = start_with(|c| {
        c.database.url = url;
        adjust(c);
    })
    .await;
    t.postgres = Some(db);
    Some(t)
}

/// Another node (`node_id`) on the database of `first`, adjusted by `adjust`.
pub async fn another_node(
    first: &TestService,
    node_id: &str,
    adjust: impl FnOnce(&mut Config),
) -> TestService {
    let url = first.service.state.config.database.url.clone();
    start_with(|c| {
        c.database.url = url;
        c.queue.node_id = node_id.into();
        adjust(c);
    })
    .await
}

impl TestService {
    pub async fn call(
        &self,
        method: &str,
        uri: &str,
        body: Option<&str>,
    ) -> (StatusCode, String, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        if body.is_some() {
            req = req.header(header::CONTENT_TYPE, "application/json");
        }
        let req = req
            .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .unwrap();
        let res = self.service.router().oneshot(req).await.unwrap();
        let status = res.status();
        let content_type = res
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, content_type, value)
    }

    /// `method uri` with an optional JSON body, bearer token and peer address; returns
    /// the status, the headers and the JSON body.
    pub async fn call_as(
        &self,
        method: &str,
        uri: &str,
        body: Option<&str>,
        token: Option<&str>,
        peer: Option<&str>,
    ) -> (StatusCode, axum::http::HeaderMap, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        if body.is_some() {
            req = req.header(header::CONTENT_TYPE, "application/json");
        }
        if let Some(token) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let mut req = req
            .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .unwrap();
        if let Some(peer) = peer {
            let addr: std::net::SocketAddr = peer.parse().unwrap();
            req.extensions_mut()
                .insert(axum::extract::ConnectInfo(addr));
        }
        let res = self.service.router().oneshot(req).await.unwrap();
        let (parts, body) = res.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (parts.status, parts.headers, value)
    }

    /// The body of `GET uri` as text (for `/metrics`).
    pub async fn text(&self, uri: &str) -> String {
        self.text_with(uri, ("accept", "*/*")).await
    }

    /// The body of `GET uri` with one request header, as text.
    pub async fn text_with(&self, uri: &str, header: (&str, &str)) -> String {
        let req = Request::get(uri)
            .header(header.0, header.1)
            .body(Body::empty())
            .unwrap();
        let res = self.service.router().oneshot(req).await.unwrap();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    pub async fn post_job(&self, body: Value, query: &str) -> Value {
        let (status, _, job) = self
            .call("POST", &format!("/v1/jobs{query}"), Some(&body.to_string()))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        job
    }

    /// The view of batch `id` once it has finished, or as last read after 10 s.
    pub async fn wait_batch(&self, id: &str) -> Value {
        let mut view = Value::Null;
        for _ in 0..200 {
            view = self.call("GET", &format!("/v1/batches/{id}"), None).await.2;
            if view["finished"] == true {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        view
    }

    pub async fn job_count(&self) -> usize {
        let (_, _, page) = self.call("GET", "/v1/jobs?limit=500", None).await;
        page["jobs"].as_array().unwrap().len()
    }

    /// Posts `body` to `uri` and checks that it is refused with a 422 whose detail
    /// holds `message`.
    pub async fn assert_unprocessable(&self, uri: &str, body: &Value, message: &str) {
        let (status, _, problem) = self.call("POST", uri, Some(&body.to_string())).await;
        assert_eq!(
            status,
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(message), "{detail} (wanted {message})");
    }

    /// The deals the win-rate rows of `source` (`pysol-montana`, ...) count, all rows
    /// of it added up.
    pub async fn win_rate_deals(&self, source: &str) -> i64 {
        let (_, _, rows) = self.call("GET", "/v1/stats/win-rates", None).await;
        rows.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["source"] == source)
            .map(|r| r["deals"].as_i64().unwrap())
            .sum()
    }
}

/// The moves of a JSON solution on `layout` and where it redeals (redeal `k + 1` after
/// the first `redeal_at[k]` moves), for `verify_with_redeals`; the redeal steps must be
/// numbered 1, 2, ... in order.
pub fn moves_and_redeals(
    steps: &[Value],
    layout: gaps_engine::Layout,
) -> (Vec<gaps_engine::Move>, Vec<usize>) {
    let cell = |v: &Value| (v[0].as_u64().unwrap() << 4 | v[1].as_u64().unwrap()) as u8;
    let mut moves = Vec::new();
    let mut redeal_at = Vec::new();
    for step in steps {
        if let Some(k) = step.get("redeal") {
            assert_eq!(k.as_u64().unwrap() as usize, redeal_at.len() + 1, "{step}");
            redeal_at.push(moves.len());
            continue;
        }
        let text = step["card"].as_str().unwrap();
        let card = layout.deck().find(|c| c.to_string() == text).unwrap();
        let (from, to) = (cell(&step["from"]), cell(&step["to"]));
        moves.push(gaps_engine::Move {
            card,
            from,
            to,
            gap: 0,
        });
    }
    (moves, redeal_at)
}
