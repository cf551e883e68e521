//! Access control (docs/http.md, "Access and quotas"): bearer tokens and per-client rate limits.
//!
//! Invariants:
//! - With no tokens configured the service is open. With tokens, every `POST` and
//!   `DELETE` (and every read under `auth.protect_reads`, `/healthz` excepted) needs
//!   `Authorization: Bearer <token>`; anything else is answered `401` with
//!   `WWW-Authenticate: Bearer` before any handler runs, so nothing is stored.
//! - Tokens are kept only as SHA-256 digests and compared in constant time against
//!   every configured digest; a token is never logged, stored or echoed. What the
//!   service records and shows is the token's name: the part before the first `:` of a
//!   `name:secret` token, else `token-` and the first 8 hex digits of its digest.
//! - Job and batch creation are rate-limited per client (the token's name, or the peer
//!   address when the service is open) by `limits.rate_per_s` with a burst of
//!   `limits.rate_burst`; over the limit the answer is `429` with `Retry-After`, before
//!   the handler runs.
//! - The client address is the peer's, except when the peer is one of
//!   `server.trusted_proxies`: then it is the right-most `X-Forwarded-For` entry that
//!   is not itself a trusted proxy (entries further left could be forged by the
//!   client). A malformed header is ignored (the peer's address is used).

use crate::service::api::error::{problem_response, ApiError};
use crate::service::config::tokens::{digest, token_name};
use crate::service::config::Config;
use crate::service::resources::metrics::{Metrics, Refusal, TokenLabels};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// Who sent a request, as the handlers see it (a request extension).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The token's name when tokens are configured, else the peer address (or
    /// `unknown` when the transport gives none).
    pub name: String,
    /// Whether the token is an admin's (`auth.admins`); always false on an open service.
    pub admin: bool,
    /// Whether the caller presented a valid token.
    pub authenticated: bool,
}

impl Caller {
    /// Counts a job or batch this caller created, by token name (callers without a
    /// token are not counted by name: addresses would make labels unbounded).
    pub fn count_creation(&self, metrics: &Metrics) {
        if self.authenticated {
            metrics
                .created_by_token
                .get_or_create(&TokenLabels {
                    name: self.name.clone(),
                })
                .inc();
        }
    }
}

/// One configured token: its name and digest.
struct Token {
    name: String,
    digest: [u8; 32],
    admin: bool,
}

/// The access rules of one service.
pub struct Access {
    tokens: Vec<Token>,
    protect_reads: bool,
    limiter: Option<DefaultKeyedRateLimiter<String>>,
    /// Requests seen, to prune the limiter's idle clients now and then.
    seen: AtomicU64,
    /// Reverse proxies whose `X-Forwarded-For` is believed.
    trusted_proxies: Vec<IpAddr>,
}

/// How many rate-limited requests pass between two prunings of idle clients.
const PRUNE_EVERY: u64 = 4096;

impl Access {
    /// The rules of `config` (validated: tokens non-empty, rate and burst positive).
    pub fn new(config: &Config) -> Access {
        let tokens = config
            .auth
            .tokens
            .iter()
            .map(|t| {
                let name = token_name(t);
                Token {
                    admin: config.auth.admins.contains(&name),
                    digest: digest(t),
                    name,
                }
            })
            .collect();
        let limiter = (config.limits.rate_per_s > 0).then(|| {
            let rate = NonZeroU32::new(config.limits.rate_per_s).expect("positive rate");
            let burst = NonZeroU32::new(config.limits.rate_burst.max(1)).expect("positive burst");
            RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
        });
        Access {
            tokens,
            protect_reads: config.auth.protect_reads,
            limiter,
            seen: AtomicU64::new(0),
            trusted_proxies: config.server.trusted_proxies.clone(),
        }
    }

    /// The client's address: the peer's, or, behind a trusted proxy, the right-most
    /// `X-Forwarded-For` entry that is not a trusted proxy (see the module invariants).
    pub fn client_address(&self, peer: IpAddr, forwarded_for: Option<&HeaderValue>) -> IpAddr {
        if !self.trusted_proxies.contains(&peer) {
            return peer;
        }
        let Some(list) = forwarded_for.and_then(|v| v.to_str().ok()) else {
            return peer;
        };
        let mut client = peer;
        for entry in list.rsplit(',') {
            match entry.trim().parse::<IpAddr>() {
                Ok(ip) => {
                    client = ip;
                    if !self.trusted_proxies.contains(&ip) {
                        break;
                    }
                }
                Err(_) => return peer,
            }
        }
        client
    }

    /// Whether tokens are configured.
    pub fn is_protected(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The token presented in `authorization` (a `Bearer` credential), if it is one of
    /// the configured tokens. Every configured digest is compared, in constant time.
    fn authenticate(&self, authorization: Option<&HeaderValue>) -> Option<&Token> {
        let presented = authorization?.to_str().ok()?;
        let (scheme, credential) = presented.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let presented = digest(credential.trim());
        let mut found = None;
        for token in &self.tokens {
            if bool::from(token.digest.ct_eq(&presented)) {
                found = Some(token);
            }
        }
        found
    }

    /// Whether `method` on `path` needs a token when tokens are configured.
    fn needs_token(&self, method: &Method, path: &str) -> bool {
        if path == "/healthz" {
            return false;
        }
        let reads = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
        !reads || self.protect_reads
    }

    /// Takes one request of `client` from its allowance; `Err(seconds)` until the
    /// next one is allowed.
    fn take(&self, client: &str) -> Result<(), u64> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        if self.seen.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            limiter.retain_recent();
        }
        limiter.check_key(&client.to_string()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        })
    }
}

/// Whether a request creates work (and so counts against the rate limit).
fn creates_work(method: &Method, path: &str) -> bool {
    *method == Method::POST && matches!(path, "/v1/jobs" | "/v1/batches")
}

/// The middleware: authenticates, rate-limits creation, and hands the [`Caller`] on.
/// Its state is the node's access rules and the metrics it counts refusals in.
pub async fn guard(
    State((access, metrics)): State<(Arc<Access>, Arc<Metrics>)>,
    mut req: Request,
    next: Next,
) -> Response {
    let access = &*access;
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let caller = if access.is_protected() {
        match access.authenticate(req.headers().get(header::AUTHORIZATION)) {
            Some(token) => Caller {
                name: token.name.clone(),
                admin: token.admin,
                authenticated: true,
            },
            None if access.needs_token(&method, &path) => {
                metrics.unauthorized.inc();
                return unauthorized(&req);
            }
            None => Caller {
                name: client_address(access, &req),
                admin: false,
                authenticated: false,
            },
        }
    } else {
        Caller {
            name: client_address(access, &req),
            admin: false,
            authenticated: false,
        }
    };
    if creates_work(&method, &path) {
        if let Err(seconds) = access.take(&caller.name) {
            metrics.count_refusal(Refusal::Rate);
            tracing::info!(client = %caller.name, "rate limited");
            return too_many(seconds);
        }
    }
    req.extensions_mut().insert(caller);
    next.run(req).await
}

/// The client address of `req` (see [`Access::client_address`]), or `unknown` when
/// the transport gives no peer.
fn client_address(access: &Access, req: &Request) -> String {
    match req.extensions().get::<ConnectInfo<SocketAddr>>() {
        Some(info) => access
            .client_address(info.0.ip(), req.headers().get("x-forwarded-for"))
            .to_string(),
        None => "unknown".to_string(),
    }
}

fn unauthorized(req: &Request) -> Response {
    let detail = if req.headers().contains_key(header::AUTHORIZATION) {
        "the bearer token is not one this service accepts"
    } else {
        "this request needs `Authorization: Bearer <token>`"
    };
    let mut response = problem_response(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "Unauthorized",
        detail.to_string(),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"gaps\""),
    );
    response
}

fn too_many(seconds: u64) -> Response {
    let mut response = ApiError::TooManyRequests(format!(
        "this client is over its rate limit; retry in {} s",
        seconds.max(1)
    ))
    .into_response();
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_str(&seconds.max(1).to_string()).expect("digits"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(tokens: &[&str], rate: u32, burst: u32) -> Config {
        let mut config = Config::defaults();
        config.auth.tokens = tokens.iter().map(|t| t.to_string()).collect();
        config.auth.admins = vec!["root".into()];
        config.limits.rate_per_s = rate;
        config.limits.rate_burst = burst;
        config
    }

    #[test]
    fn only_configured_tokens_authenticate_and_names_hide_secrets() {
        let access = Access::new(&config(&["alice:s3cret", "root:x", "plain"], 0, 0));
        let bearer = |t: &str| HeaderValue::from_str(&format!("Bearer {t}")).unwrap();
        let alice = access.authenticate(Some(&bearer("alice:s3cret"))).unwrap();
        assert_eq!((alice.name.as_str(), alice.admin), ("alice", false));
        assert!(access.authenticate(Some(&bearer("root:x"))).unwrap().admin);
        let plain = access.authenticate(Some(&bearer("plain"))).unwrap();
        assert!(plain.name.starts_with("token-") && !plain.name.contains("plain"));
        for wrong in ["s3cret", "alice", "alice:s3cre", "", "plai"] {
            assert!(
                access.authenticate(Some(&bearer(wrong))).is_none(),
                "{wrong:?}"
            );
        }
        let basic = HeaderValue::from_static("Basic cGxhaW4=");
        assert!(access.authenticate(Some(&basic)).is_none());
        assert!(access.authenticate(None).is_none());
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let mut c = config(&[], 0, 0);
        c.server.trusted_proxies = vec!["10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()];
        let access = Access::new(&c);
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let xff = |s: &'static str| HeaderValue::from_static(s);
        // From a client directly: the header is ignored.
        let header = xff("1.2.3.4");
        assert_eq!(
            access.client_address(ip("5.6.7.8"), Some(&header)),
            ip("5.6.7.8")
        );
        // Through the proxy: the right-most entry that is not a proxy.
        let header = xff("9.9.9.9, 1.2.3.4");
        assert_eq!(
            access.client_address(ip("10.0.0.1"), Some(&header)),
            ip("1.2.3.4")
        );
        let header = xff("1.2.3.4, 10.0.0.2");
        assert_eq!(
            access.client_address(ip("10.0.0.1"), Some(&header)),
            ip("1.2.3.4")
        );
        let header = xff("2001:db8::1");
        assert_eq!(
            access.client_address(ip("10.0.0.1"), Some(&header)),
            ip("2001:db8::1")
        );
        // No header, or a malformed one: the proxy's own address.
        assert_eq!(access.client_address(ip("10.0.0.1"), None), ip("10.0.0.1"));
        let header = xff("1.2.3.4, garbage");
        assert_eq!(
            access.client_address(ip("10.0.0.1"), Some(&header)),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn the_rate_limit_allows_a_burst_then_refuses_with_a_wait() {
        let access = Access::new(&config(&[], 1, 3));
        for _ in 0..3 {
            assert!(access.take("a").is_ok());
        }
        assert_eq!(access.take("a"), Err(1));
        // Another client keeps its own allowance.
        assert!(access.take("b").is_ok());
        let open = Access::new(&config(&[], 0, 0));
        assert!((0..1000).all(|_| open.take("a").is_ok()));
    }
}
