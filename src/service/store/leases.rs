//! The queue's leases: claiming a job, renewing its lease while it runs, giving it back,
//! and taking back the jobs of nodes that stopped renewing.
//!
//! Invariants:
//! - A claim moves one `queued` job to `running` with a fresh token, the claiming node's
//!   id and a lease deadline; on PostgreSQL the job is picked `FOR UPDATE SKIP LOCKED`,
//!   so two nodes never claim the same job.
//! - Every later write about a running job (heartbeat, finish, requeue) names the token
//!   of its claim and changes nothing if the job was claimed again since: a node paused
//!   past its lease that comes back cannot overwrite anything (fencing).
//! - A job whose lease ran out goes back to the queue, or ends `failed` once it has
//!   been claimed `max_attempts` times, or `cancelled` if a user asked for that; any
//!   node may do this, and the same rules hold for the jobs a crash left `running`.

use super::jobs::JobRow;
use super::{in_transaction, on_pool, Store};
use std::time::Duration;

/// What a claim takes: who holds the job and for how long without a renewal.
#[derive(Clone, Debug)]
pub struct Lease {
    /// The claiming node's id (recorded on the job).
    pub node_id: String,
    /// How long the lease lasts unless renewed.
    pub duration: Duration,
}

/// Jobs taken back from expired leases (or from a crash).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reclaimed {
    /// Put back in the queue.
    pub requeued: u64,
    /// Ended `failed`: claimed `max_attempts` times.
    pub failed: u64,
    /// Ended `cancelled`: a user had asked for that.
    pub cancelled: u64,
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Store {
    /// Moves the oldest queued job to `running` under a new lease and returns it.
    pub async fn claim_next(&self, lease: &Lease) -> sqlx::Result<Option<JobRow>> {
        let token = uuid::Uuid::now_v7().to_string();
        // A transaction, so that a failed commit is reported (see `insert_job`).
        in_transaction!(self, |Db, tx, d| {
            let row = sqlx::query_as::<Db, JobRow>(&format!(
                "UPDATE jobs SET state = 'running', started_at = {now}, attempts = attempts + 1,
                     node_id = $1, lease_token = $2, lease_until = {now_ms} + $3
                 WHERE seq = (SELECT seq FROM jobs WHERE state = 'queued' ORDER BY seq LIMIT 1
                              {lock})
                 RETURNING *",
                now = d.now,
                now_ms = d.now_ms,
                lock = d.claim_lock
            ))
            .bind(&lease.node_id)
            .bind(&token)
            .bind(millis(lease.duration))
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(row)
        })
    }

    /// Renews the lease of `job` (as claimed) for `duration`. Returns whether a user asked
    /// to cancel it, or `None` when the claim is no longer current (the lease expired and
    /// the job was taken back, or it ended): its holder must stop.
    pub async fn heartbeat(&self, job: &JobRow, duration: Duration) -> sqlx::Result<Option<bool>> {
        in_transaction!(self, |Db, tx, d| {
            let cancel = sqlx::query_scalar::<Db, bool>(&format!(
                "UPDATE jobs SET lease_until = {now_ms} + $1
                 WHERE id = $2 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $3
                 RETURNING cancel_requested",
                now_ms = d.now_ms
            ))
            .bind(millis(duration))
            .bind(&job.spec.id)
            .bind(&job.lease_token)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(cancel)
        })
    }

    /// Puts a running job back in the queue (a graceful shutdown interrupted it), if its
    /// claim is still current.
    pub async fn requeue(&self, job: &JobRow) -> sqlx::Result<bool> {
        let n = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "UPDATE jobs SET state = 'queued', started_at = NULL, lease_token = NULL,
                     lease_until = NULL
                 WHERE id = $1 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $2",
            )
            .bind(&job.spec.id)
            .bind(&job.lease_token)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }

    /// Takes back every running job whose lease ended (see the module invariants).
    pub async fn reclaim_expired(&self, max_attempts: i64) -> sqlx::Result<Reclaimed> {
        self.take_back(max_attempts, true).await
    }

    /// After a crash of the only node (SQLite): takes back every job left `running`,
    /// leases or not (see the module invariants).
    pub async fn recover(&self, max_attempts: i64) -> sqlx::Result<Reclaimed> {
        self.take_back(max_attempts, false).await
    }

    async fn take_back(&self, max_attempts: i64, expired_only: bool) -> sqlx::Result<Reclaimed> {
        in_transaction!(self, |Db, tx, d| {
            let which = if expired_only {
                format!("state = 'running' AND lease_until < {}", d.now_ms)
            } else {
                "state = 'running'".to_string()
            };
            let cancelled = sqlx::query::<Db>(&format!(
                "UPDATE jobs SET state = 'cancelled', finished_at = {now}, lease_token = NULL
                 WHERE {which} AND cancel_requested = TRUE",
                now = d.now
            ))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            let failed = sqlx::query::<Db>(&format!(
                "UPDATE jobs SET state = 'failed', finished_at = {now}, lease_token = NULL,
                     error = 'abandoned: its solver stopped (crash or lost lease) ' || attempts
                         || ' times'
                 WHERE {which} AND attempts >= $1",
                now = d.now
            ))
            .bind(max_attempts)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            let requeued = sqlx::query::<Db>(&format!(
                "UPDATE jobs SET state = 'queued', started_at = NULL, lease_token = NULL,
                     lease_until = NULL
                 WHERE {which}"
            ))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            Ok(Reclaimed {
                requeued,
                failed,
                cancelled,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, verdict};
    use super::*;
    use crate::service::job::JobState;
    use gaps_engine::Verdict;

    fn lease(node: &str, ms: u64) -> Lease {
        Lease {
            node_id: node.into(),
            duration: Duration::from_millis(ms),
        }
    }

    #[tokio::test]
    async fn a_stale_holder_cannot_finish_and_expired_leases_are_taken_back() {
        on_both(|store| async move {
            store.insert_job(&new_job("a", 1)).await.unwrap();
            // Node 1 claims with a short lease and pauses past it.
            let first = store.claim_next(&lease("n1", 50)).await.unwrap().unwrap();
            assert_eq!(first.node_id.as_deref(), Some("n1"));
            assert_eq!(
                store
                    .heartbeat(&first, Duration::from_millis(50))
                    .await
                    .unwrap(),
                Some(false)
            );
            tokio::time::sleep(Duration::from_millis(120)).await;
            let back = store.reclaim_expired(3).await.unwrap();
            assert_eq!(
                back,
                Reclaimed {
                    requeued: 1,
                    failed: 0,
                    cancelled: 0
                }
            );
            // Node 2 claims it again.
            let second = store
                .claim_next(&lease("n2", 60_000))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (second.attempts, second.node_id.as_deref()),
                (2, Some("n2"))
            );
            assert_ne!(second.lease_token, first.lease_token);
            // Node 1 comes back: its heartbeat, finish and requeue change nothing.
            assert_eq!(
                store
                    .heartbeat(&first, Duration::from_secs(60))
                    .await
                    .unwrap(),
                None
            );
            assert!(!store
                .finish(&first, &verdict(Verdict::Solvable))
                .await
                .unwrap());
            assert!(!store.requeue(&first).await.unwrap());
            // A live lease is not taken back; the current holder finishes.
            assert_eq!(
                store.reclaim_expired(3).await.unwrap(),
                Reclaimed::default()
            );
            assert!(store
                .finish(&second, &verdict(Verdict::Unsolvable))
                .await
                .unwrap());
            let done = store.job("a").await.unwrap().unwrap();
            assert_eq!(done.state, JobState::Done);
            assert_eq!(done.verdict.unwrap().0, Verdict::Unsolvable);
            assert_eq!(done.node_id.as_deref(), Some("n2"));
        })
        .await;
    }

    #[tokio::test]
    async fn a_job_abandoned_too_often_fails_and_a_cancel_is_carried_by_the_heartbeat() {
        on_both(|store| async move {
            store.insert_job(&new_job("b", 2)).await.unwrap();
            for _ in 0..2 {
                store.claim_next(&lease("n", 1)).await.unwrap().unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
                store.reclaim_expired(3).await.unwrap();
            }
            let third = store.claim_next(&lease("n", 1)).await.unwrap().unwrap();
            assert_eq!(third.attempts, 3);
            tokio::time::sleep(Duration::from_millis(20)).await;
            let back = store.reclaim_expired(3).await.unwrap();
            assert_eq!(
                back,
                Reclaimed {
                    requeued: 0,
                    failed: 1,
                    cancelled: 0
                }
            );
            let failed = store.job("b").await.unwrap().unwrap();
            assert_eq!(failed.state, JobState::Failed);
            assert!(failed.error.unwrap().contains("3 times"));
            // A cancel asked through any node reaches the holder with its next heartbeat.
            store.insert_job(&new_job("c", 3)).await.unwrap();
            let running = store
                .claim_next(&lease("n", 60_000))
                .await
                .unwrap()
                .unwrap();
            store.cancel("c").await.unwrap();
            assert_eq!(
                store
                    .heartbeat(&running, Duration::from_secs(60))
                    .await
                    .unwrap(),
                Some(true)
            );
            // A crash of the only node: recover takes back running jobs whatever their
            // lease says.
            store.insert_job(&new_job("d", 4)).await.unwrap();
            store
                .claim_next(&lease("n", 60_000))
                .await
                .unwrap()
                .unwrap();
            let back = store.recover(3).await.unwrap();
            assert_eq!(
                back,
                Reclaimed {
                    requeued: 1,
                    failed: 0,
                    cancelled: 1
                }
            );
        })
        .await;
    }
}
