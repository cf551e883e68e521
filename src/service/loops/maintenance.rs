//! The service's background loops, each running until shutdown: taking back expired
//! leases, keeping the SQLite WAL bounded, deleting old finished jobs, and listening to
//! the other nodes' announcements (PostgreSQL).
//!
//! Invariant: each loop only calls the store and wakes the runner; none runs a solve
//! or holds a write transaction across a wait, and each ends once the runner shuts down
//! (or the store closes).

use crate::service::config::Config;
use crate::service::resources::metrics::{Metrics, WalResetLabels, WalResetResult};
use crate::service::runner::Runner;
use crate::service::store::{self, Announce, Reclaimed, Store};
use std::sync::Arc;
use std::time::Duration;

/// Starts every loop that `config` and the store's backend call for.
pub fn start(config: &Config, runner: &Arc<Runner>, store: &Store, metrics: &Arc<Metrics>) {
    if let Some(pool) = store.postgres_pool() {
        tokio::spawn(listen_to_other_nodes(runner.clone(), pool.clone()));
    }
    tokio::spawn(reclaim_expired_leases(
        runner.clone(),
        store.clone(),
        Duration::from_millis(config.queue.lease_ms / 2),
        i64::from(config.queue.max_attempts),
    ));
    if store.backend() == "sqlite" {
        tokio::spawn(keep_wal_bounded(
            runner.clone(),
            store.clone(),
            metrics.clone(),
        ));
    }
    if config.retention.finished_days > 0 {
        tokio::spawn(prune_finished_jobs(
            runner.clone(),
            store.clone(),
            config.retention.finished_days,
            Duration::from_secs(config.retention.sweep_s),
        ));
    }
}

/// Takes back, every `every`, the jobs whose lease ended (a node that crashed or paused
/// past its lease; on SQLite only this node's own, which a heartbeat keeps alive), and
/// wakes the lanes when some went back to the queue.
async fn reclaim_expired_leases(
    runner: Arc<Runner>,
    store: Store,
    every: Duration,
    max_attempts: i64,
) {
    while !runner.is_shutting_down() {
        tokio::time::sleep(every).await;
        match store.reclaim_expired(max_attempts).await {
            Ok(back) if back != Reclaimed::default() => {
                tracing::warn!(?back, "took back jobs whose lease ended");
                runner.notify_new_work();
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "taking back expired leases failed"),
        }
        // A shared proof whose last unit's node stopped before concluding it.
        if let Err(e) = runner.conclude_leftovers().await {
            tracing::warn!(error = %e, "concluding shared Morpion proofs failed");
        }
    }
}

/// Resets the SQLite WAL each time it passes its size limit (see `store::WalReset`),
/// checking every second.
async fn keep_wal_bounded(runner: Arc<Runner>, store: Store, metrics: Arc<Metrics>) {
    let mut busy_in_a_row = 0u32;
    while !runner.is_shutting_down() {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let result = match store.reset_wal(store::WAL_RESET_BYTES).await {
            Ok(store::WalReset::NotNeeded) => continue,
            Ok(store::WalReset::Truncated) => {
                busy_in_a_row = 0;
                WalResetResult::Truncated
            }
            Ok(store::WalReset::Busy) => {
                busy_in_a_row += 1;
                // Once a minute while a reader keeps holding it back.
                if busy_in_a_row.is_multiple_of(60) {
                    let bytes = store.wal_bytes().await.unwrap_or(0);
                    tracing::warn!(
                        bytes,
                        "the SQLite WAL cannot be reset: a long read holds it"
                    );
                }
                WalResetResult::Busy
            }
            Err(e) => {
                tracing::warn!(error = %e, "resetting the SQLite WAL failed; retried later");
                continue;
            }
        };
        metrics
            .wal_resets
            .get_or_create(&WalResetLabels { result })
            .inc();
    }
}

/// Deletes finished jobs older than `days` days (see [`Store::prune_finished`]), and
/// idempotency keys as old (at least a day: [`Store::prune_keys`]), at start and then
/// every `every`.
async fn prune_finished_jobs(runner: Arc<Runner>, store: Store, days: u32, every: Duration) {
    while !runner.is_shutting_down() {
        match store.prune_finished(days).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, days, "retention: deleted old finished jobs"),
            Err(e) => tracing::warn!(error = %e, "retention sweep failed; retried later"),
        }
        if let Err(e) = store.prune_keys(days).await {
            tracing::warn!(error = %e, "retention sweep of idempotency keys failed; retried later");
        }
        tokio::time::sleep(every).await;
    }
}

/// Acts on the other nodes' announcements (PostgreSQL `LISTEN`): queued work wakes the
/// lanes, an ended job wakes its waiters, a cancel stops the solve if it runs here.
/// The nodes also poll, so a lost connection only delays them; it is re-opened.
async fn listen_to_other_nodes(runner: Arc<Runner>, pool: sqlx::PgPool) {
    while !runner.is_shutting_down() {
        let mut listener = match sqlx::postgres::PgListener::connect_with(&pool).await {
            Ok(listener) => listener,
            Err(sqlx::Error::PoolClosed) => return,
            Err(e) => {
                tracing::warn!(error = %e, "LISTEN failed; polling only, retrying in 5 s");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        if let Err(e) = listener.listen_all(store::CHANNELS).await {
            tracing::warn!(error = %e, "LISTEN failed; polling only, retrying in 5 s");
            tokio::time::sleep(Duration::from_secs(5)).await;
            continue;
        }
        loop {
            match listener.try_recv().await {
                Ok(Some(note)) => {
                    for heard in Announce::parse(note.channel(), note.payload()) {
                        match heard {
                            Announce::Work => runner.notify_new_work(),
                            Announce::Done(id) => runner.wake_waiters(id),
                            Announce::Cancel(id) => runner.stop_running(id),
                        }
                    }
                }
                // The connection was lost and will be re-established by the next call;
                // notifications sent meanwhile are lost, which polling covers.
                Ok(None) => {}
                // The store is closing (shutdown).
                Err(sqlx::Error::PoolClosed) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "LISTEN connection failed; reconnecting");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    break;
                }
            }
            if runner.is_shutting_down() {
                return;
            }
        }
    }
}
