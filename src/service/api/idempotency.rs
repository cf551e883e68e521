//! `Idempotency-Key` on `POST /v1/jobs` and `POST /v1/batches` (docs/http.md, "Safe
//! retries"): a request sent again with the same key and the same body gets the job or
//! batch the first one made; the same key with another body is a 422.
//!
//! Invariants: the key is checked (1 to [`MAX_KEY_LEN`] visible ASCII characters, else
//! a 400) before anything is stored; a body is known by the SHA-256 of its JSON with
//! every object's keys sorted, so the order of its fields does not matter (the query,
//! `wait_ms`, is not part of it); a key is its client's own, on each route; a request
//! refused after its key was reserved releases it, so it leaves nothing behind.

use crate::service::api::access::Caller;
use crate::service::api::error::{ApiError, ApiResult};
use crate::service::api::state::AppState;
use crate::service::store::KeyState;
use axum::http::HeaderMap;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::future::Future;
use std::time::Duration;

/// The request header.
pub const HEADER: &str = "idempotency-key";
/// The answer's header when it is an earlier request's job or batch: `true`.
pub const REPLAYED: &str = "idempotent-replayed";
/// The longest key.
pub const MAX_KEY_LEN: usize = 255;
/// How long a request waits for an earlier one with its key and body to be answered
/// before it is told to retry (a 409).
const PENDING_WAIT: Duration = Duration::from_secs(2);

/// The routes that take a key (each its own space of keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Jobs,
    Batches,
}

impl Route {
    fn name(self) -> &'static str {
        match self {
            Route::Jobs => "jobs",
            Route::Batches => "batches",
        }
    }
}

/// The key the request gives, if it gives one, or a 400 saying what a key is.
pub fn key_of(headers: &HeaderMap) -> ApiResult<Option<String>> {
    let mut values = headers.get_all(HEADER).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let bad = |why: String| {
        ApiError::BadRequest(format!(
            "Idempotency-Key: 1 to {MAX_KEY_LEN} visible ASCII characters, once ({why})"
        ))
    };
    if values.next().is_some() {
        return Err(bad("given twice".into()));
    }
    let bytes = value.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_KEY_LEN {
        return Err(bad(format!("got {} characters", bytes.len())));
    }
    if !bytes.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(bad("got a space, a control or a non-ASCII character".into()));
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

/// The SHA-256 (hex) of `body` as JSON with every object's keys sorted.
pub fn body_digest(body: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let text = serde_json::to_string(&sorted(body)).expect("a JSON value serialises");
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What a request with a key finds.
enum Claim {
    /// The key is reserved for it now: answer it.
    Fresh,
    /// The id of the job or batch an earlier request with this key and body made.
    Earlier(String),
}

/// Reserves `key` of `client` on `route` for a request whose body has digest `digest`,
/// or finds what an earlier request with it made: a 422 if that request had another
/// body, a 409 if it is still being answered after a short wait.
async fn claim(
    state: &AppState,
    client: &str,
    route: Route,
    key: &str,
    digest: &str,
) -> ApiResult<Claim> {
    let deadline = tokio::time::Instant::now() + PENDING_WAIT;
    loop {
        let found = state
            .store
            .reserve_key(client, route.name(), key, digest)
            .await?;
        match found {
            KeyState::Reserved => return Ok(Claim::Fresh),
            KeyState::Answered(id) => return Ok(Claim::Earlier(id)),
            KeyState::OtherBody => {
                return Err(ApiError::Unprocessable(format!(
                    "Idempotency-Key {key:?} was used with another body: a key names one \
                     request (send this one with a key of its own)"
                )))
            }
            KeyState::Pending if tokio::time::Instant::now() >= deadline => {
                return Err(ApiError::Conflict(format!(
                    "a request with Idempotency-Key {key:?} and this body is still being \
                     answered: retry"
                )))
            }
            KeyState::Pending => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Answers once a request with `key` whose body has digest `digest` ([`body_digest`]):
/// with what an earlier request with the key and the same body made (read by `find`
/// from its id; then `true`), else with what `make` makes now, the key given its id
/// (`id_of`) or freed when `make` is refused. A key whose job or batch is gone
/// (pruned) is freed and the request answered afresh.
#[allow(clippy::too_many_arguments)]
pub async fn answer_once<T, Find, Found, Make, Made>(
    state: &AppState,
    caller: &Caller,
    route: Route,
    key: &str,
    digest: &str,
    find: Find,
    make: Make,
    id_of: impl FnOnce(&T) -> String,
) -> ApiResult<(T, bool)>
where
    Find: Fn(String) -> Found,
    Found: Future<Output = ApiResult<Option<T>>>,
    Make: FnOnce() -> Made,
    Made: Future<Output = ApiResult<T>>,
{
    let (client, name) = (caller.name.as_str(), route.name());
    loop {
        match claim(state, client, route, key, digest).await? {
            Claim::Earlier(id) => match find(id).await? {
                Some(found) => return Ok((found, true)),
                None => state.store.release_key(client, name, key).await?,
            },
            Claim::Fresh => {
                let made = make().await;
                match &made {
                    Ok(target) => {
                        let id = id_of(target);
                        state.store.settle_key(client, name, key, &id).await?
                    }
                    Err(_) => state.store.release_key(client, name, key).await?,
                }
                return made.map(|target| (target, false));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use serde_json::json;

    #[test]
    fn a_body_is_known_whatever_the_order_of_its_fields() {
        let a = json!({"deal": {"seed": 1, "suits": 2}, "variant": "common"});
        let b: Value =
            serde_json::from_str(r#"{"variant": "common", "deal": {"suits": 2, "seed": 1}}"#)
                .unwrap();
        assert_eq!(body_digest(&a), body_digest(&b));
        assert_ne!(
            body_digest(&a),
            body_digest(&json!({"deal": {"seed": 2, "suits": 2}}))
        );
    }

    #[test]
    fn a_key_is_1_to_255_visible_ascii_characters_once() {
        let with = |v: &[u8]| {
            let mut h = HeaderMap::new();
            h.insert(HEADER, HeaderValue::from_bytes(v).unwrap());
            key_of(&h)
        };
        assert_eq!(key_of(&HeaderMap::new()).unwrap(), None);
        assert_eq!(with(b"a").unwrap().as_deref(), Some("a"));
        assert_eq!(with(&[b'k'; 255]).unwrap().unwrap().len(), 255);
        for bad in [&[b'k'; 256][..], b"", b"a b", b"caf\xc3\xa9", b"tab\there"] {
            assert!(matches!(with(bad), Err(ApiError::BadRequest(_))), "{bad:?}");
        }
        let mut twice = HeaderMap::new();
        twice.append(HEADER, HeaderValue::from_static("a"));
        twice.append(HEADER, HeaderValue::from_static("b"));
        assert!(matches!(key_of(&twice), Err(ApiError::BadRequest(_))));
    }
}
