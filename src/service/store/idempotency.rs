//! Safe retries' keys (docs/http.md, "Safe retries"): a client's `Idempotency-Key` on a
//! route, the digest of the body it came with, and the job or batch it made.
//!
//! Invariants: a key is reserved by one request at a time (the table's primary key:
//! the insert of a second reservation does nothing); a reservation is given its target
//! once the job or batch is stored, or deleted when the request is refused, so a
//! refused request leaves nothing behind; a reservation whose request died (a node
//! stopped between the two writes) is taken over after [`STALE_RESERVATION_SECONDS`].

use super::{on_pool, Store};

/// Seconds after which a reservation without a target is taken to be of a request
/// that died, and may be taken over.
pub const STALE_RESERVATION_SECONDS: i64 = 60;

/// What a client's key on a route is when a request comes with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// Reserved now for this request: answer it, then [`Store::settle_key`] or
    /// [`Store::release_key`].
    Reserved,
    /// Used before with the same body: its job or batch.
    Answered(String),
    /// Used before with another body.
    OtherBody,
    /// Reserved by a request with the same body that is still being answered.
    Pending,
}

impl Store {
    /// Reserves `key` of `client` on `route` for a request whose body has digest
    /// `body_sha256`, or says what the key already is.
    pub async fn reserve_key(
        &self,
        client: &str,
        route: &str,
        key: &str,
        body_sha256: &str,
    ) -> sqlx::Result<KeyState> {
        let inserted = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "INSERT INTO idempotency_keys (client, route, key, body_sha256)
                 VALUES ($1, $2, $3, $4) ON CONFLICT (client, route, key) DO NOTHING",
            )
            .bind(client)
            .bind(route)
            .bind(key)
            .bind(body_sha256)
            .execute(pool)
            .await?
            .rows_affected()
        });
        if inserted == 1 {
            return Ok(KeyState::Reserved);
        }
        let row = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query_as::<Db, (String, Option<String>)>(
                "SELECT body_sha256, target_id FROM idempotency_keys
                 WHERE client = $1 AND route = $2 AND key = $3",
            )
            .bind(client)
            .bind(route)
            .bind(key)
            .fetch_optional(pool)
            .await?
        });
        let Some((digest, target)) = row else {
            // Released since the insert: reserve it again.
            return Box::pin(self.reserve_key(client, route, key, body_sha256)).await;
        };
        if digest != body_sha256 {
            return Ok(KeyState::OtherBody);
        }
        if let Some(target) = target {
            return Ok(KeyState::Answered(target));
        }
        // A reservation of a request that died is taken over.
        let taken = on_pool!(self, write, |Db, pool, d| {
            sqlx::query::<Db>(&format!(
                "UPDATE idempotency_keys SET created_at = {now}
                 WHERE client = $1 AND route = $2 AND key = $3 AND target_id IS NULL
                     AND created_at < {stale}",
                now = d.now,
                stale = (d.seconds_ago)("$4"),
            ))
            .bind(client)
            .bind(route)
            .bind(key)
            .bind(STALE_RESERVATION_SECONDS)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(if taken == 1 {
            KeyState::Reserved
        } else {
            KeyState::Pending
        })
    }

    /// Gives the reserved `key` its job or batch.
    pub async fn settle_key(
        &self,
        client: &str,
        route: &str,
        key: &str,
        target_id: &str,
    ) -> sqlx::Result<()> {
        on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "UPDATE idempotency_keys SET target_id = $4
                 WHERE client = $1 AND route = $2 AND key = $3 AND target_id IS NULL",
            )
            .bind(client)
            .bind(route)
            .bind(key)
            .bind(target_id)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Deletes the reservation of `key` (its request was refused, or its target is
    /// gone), leaving the key free.
    pub async fn release_key(&self, client: &str, route: &str, key: &str) -> sqlx::Result<()> {
        on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "DELETE FROM idempotency_keys WHERE client = $1 AND route = $2 AND key = $3",
            )
            .bind(client)
            .bind(route)
            .bind(key)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Deletes the keys made more than `days` days ago (at least one day: a key is kept
    /// 24 hours at least), in chunks. Returns how many were deleted.
    pub async fn prune_keys(&self, days: u32) -> sqlx::Result<u64> {
        let days = i32::try_from(days.max(1)).unwrap_or(i32::MAX);
        self.delete_ended_before(
            "DELETE FROM idempotency_keys WHERE (client, route, key) IN (
                 SELECT client, route, key FROM idempotency_keys
                 WHERE created_at < {cutoff} LIMIT 1000)",
            1000,
            days,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::on_both;
    use super::super::{on_pool, Store};
    use super::KeyState;

    /// Moves every key's `created_at` back by `seconds`.
    async fn age(store: &Store, seconds: i64) {
        on_pool!(store, write, |Db, pool, d| {
            sqlx::query::<Db>(&format!(
                "UPDATE idempotency_keys SET created_at = {}",
                (d.seconds_ago)("$1")
            ))
            .bind(seconds)
            .execute(pool)
            .await
            .unwrap();
        });
    }

    #[tokio::test]
    async fn a_key_is_reserved_once_answered_refused_or_taken_over_when_stale() {
        on_both(|store| async move {
            let reserve = |key: &'static str, digest: &'static str| {
                let store = store.clone();
                async move { store.reserve_key("me", "jobs", key, digest).await.unwrap() }
            };
            assert_eq!(reserve("k", "d1").await, KeyState::Reserved);
            // Another request with it while the first is being answered.
            assert_eq!(reserve("k", "d1").await, KeyState::Pending);
            assert_eq!(reserve("k", "d2").await, KeyState::OtherBody);
            // Another client's, another route's: keys of their own.
            assert_eq!(
                store.reserve_key("you", "jobs", "k", "d2").await.unwrap(),
                KeyState::Reserved
            );
            assert_eq!(
                store.reserve_key("me", "batches", "k", "d2").await.unwrap(),
                KeyState::Reserved
            );
            store.settle_key("me", "jobs", "k", "job-1").await.unwrap();
            assert_eq!(reserve("k", "d1").await, KeyState::Answered("job-1".into()));
            // A settled key is never given another target.
            store.settle_key("me", "jobs", "k", "job-2").await.unwrap();
            assert_eq!(reserve("k", "d1").await, KeyState::Answered("job-1".into()));
            // A refused request releases its key.
            assert_eq!(reserve("r", "d1").await, KeyState::Reserved);
            store.release_key("me", "jobs", "r").await.unwrap();
            assert_eq!(reserve("r", "d3").await, KeyState::Reserved);
            // A reservation older than a minute, its request gone, is taken over.
            assert_eq!(reserve("r", "d3").await, KeyState::Pending);
            age(&store, super::STALE_RESERVATION_SECONDS + 5).await;
            assert_eq!(reserve("r", "d3").await, KeyState::Reserved);
            assert_eq!(reserve("k", "d1").await, KeyState::Answered("job-1".into()));
            // Kept a day at least: nothing younger goes; two days old, all go.
            assert_eq!(store.prune_keys(0).await.unwrap(), 0);
            age(&store, 2 * 86_400).await;
            assert_eq!(store.prune_keys(1).await.unwrap(), 4);
            assert_eq!(reserve("k", "d2").await, KeyState::Reserved);
        })
        .await;
    }
}
