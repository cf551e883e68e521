//! The queue's leases: claiming a job, renewing its lease while it runs, giving it back,
//! and taking back the jobs of nodes that stopped renewing; the same for a job of every
//! game (what differs by game is its finish: `jobs`, `morpion`).
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
//! - A running job that no node holds (no token: a shared Morpion proof, held by its
//!   units) is never taken back as a whole.

use super::any_job::{decode_any, AnyJob};
use super::queue::ClaimScope;
use super::rows::{any_job_from, Claim, ANY_JOB_SELECT};
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

/// A duration in whole milliseconds, as the lease columns hold it.
pub(super) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// How often a node's claims look again from the start of the queue.
const RESCAN_EVERY: Duration = Duration::from_secs(1);

/// Where this node's claims start looking in each class of the queue (shared by the
/// store's clones).
///
/// Claims take jobs in `(turn, seq)` order within a class (`queue`), so the queue's
/// index holds, before its first queued job, an entry for every job claimed since the
/// table was last vacuumed: PostgreSQL marks them dead but keeps them, and a claim that
/// starts from the beginning steps over all of them (about a thousand index pages a
/// claim a third of the way through a million-deal batch on a server without
/// autovacuum, and the claims slowed with it). A claim therefore starts at the last
/// turn this node claimed in the class. A job can be queued below that: one put back in
/// the queue, or one whose insert committed after that of a later turn. So a claim
/// starts from the beginning when this node put a job back, when it was last done more
/// than [`RESCAN_EVERY`] ago, and when a claim from the floor finds nothing: such a job
/// waits at most about a second longer than in strict order, and a queued job is never
/// left behind.
#[derive(Debug)]
pub(super) struct ClaimFloor {
    /// One per class (`queue::SINGLE`, `queue::BATCH`).
    state: std::sync::Mutex<[FloorState; 2]>,
    /// How often claims start from the beginning ([`RESCAN_EVERY`]).
    every: Duration,
}

#[derive(Clone, Copy, Debug)]
struct FloorState {
    turn: i64,
    rescanned: Option<std::time::Instant>,
}

impl Default for ClaimFloor {
    fn default() -> Self {
        ClaimFloor::new(RESCAN_EVERY)
    }
}

impl ClaimFloor {
    fn new(every: Duration) -> Self {
        let empty = FloorState {
            turn: 0,
            rescanned: None,
        };
        ClaimFloor {
            state: std::sync::Mutex::new([empty; 2]),
            every,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, [FloorState; 2]> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The turns the next claim starts from in each class (0: the beginning).
    fn start(&self) -> [i64; 2] {
        self.state().map(|state| match state.rescanned {
            Some(at) if at.elapsed() < self.every => state.turn,
            _ => 0,
        })
    }

    /// A claim in `scope` that started at `from` took a job of class `took.0` at turn
    /// `took.1`, or found nothing (`None`).
    fn claimed(&self, from: [i64; 2], scope: ClaimScope, took: Option<(i64, i64)>) {
        let mut states = self.state();
        for &class in scope.classes() {
            let state = &mut states[class as usize];
            let class = class as usize;
            let turn = took.filter(|(c, _)| *c == class as i64).map(|(_, t)| t);
            if from[class] == 0 {
                // Nothing found from the beginning of a class looked at means it is
                // empty; a job of a later class found means the same for this one.
                if turn.is_some() || took.is_none_or(|(c, _)| c > class as i64) {
                    state.rescanned = Some(std::time::Instant::now());
                    state.turn = turn.unwrap_or(state.turn);
                }
            } else if let Some(turn) = turn {
                state.turn = state.turn.max(turn);
            }
        }
    }

    /// A job was put back in the queue: the next claim starts from the beginning.
    fn reset(&self) {
        for state in self.state().iter_mut() {
            state.rescanned = None;
        }
    }
}

impl Store {
    /// Moves the first queued job in `scope` (single jobs first, then by turn: see
    /// `queue`) to `running` under a new lease and returns it (the first from this
    /// node's floors: see `ClaimFloor`).
    pub async fn claim_next(
        &self,
        lease: &Lease,
        scope: ClaimScope,
    ) -> sqlx::Result<Option<AnyJob>> {
        let from = self.claim_floor.start();
        let row = self.claim_from(from, lease, scope).await?;
        let took = |row: &Option<AnyJob>| row.as_ref().map(|r| (r.queue_key().0, r.queue_key().1));
        self.claim_floor.claimed(from, scope, took(&row));
        if row.is_some() || from == [0, 0] {
            return Ok(row);
        }
        let row = self.claim_from([0, 0], lease, scope).await?;
        self.claim_floor.claimed([0, 0], scope, took(&row));
        Ok(row)
    }

    /// Claims the first queued job in `scope` whose turn is at least `from[class]`.
    async fn claim_from(
        &self,
        from: [i64; 2],
        lease: &Lease,
        scope: ClaimScope,
    ) -> sqlx::Result<Option<AnyJob>> {
        let token = uuid::Uuid::now_v7().to_string();
        // A transaction, so that a failed commit is reported (see `insert_job`).
        in_transaction!(self, |Db, tx, d| {
            // One sub-select a class, in order: COALESCE runs the next only when the
            // one before found nothing.
            let picks: Vec<String> = scope
                .classes()
                .iter()
                .map(|class| {
                    format!(
                        "(SELECT seq FROM jobs
                          WHERE state = 'queued' AND queue_class = {class} AND turn >= ${param}
                          ORDER BY turn, seq LIMIT 1 {lock})",
                        param = 4 + class,
                        lock = d.claim_lock
                    )
                })
                .collect();
            let update = format!(
                "UPDATE jobs SET state = 'running', started_at = {now}, attempts = attempts + 1,
                     node_id = $1, lease_token = $2, lease_until = {now_ms} + $3,
                     progress_nodes = 0
                 WHERE seq = COALESCE({picks}, NULL)",
                now = d.now,
                now_ms = d.now_ms,
                picks = picks.join(", "),
            );
            // The claimed job with its kind's row: in the claim's statement where the
            // dialect allows it, else read again by `seq` below.
            let sql = if d.update_in_with {
                format!(
                    "WITH claimed AS ({update} RETURNING *) {}",
                    any_job_from!("claimed")
                )
            } else {
                format!("{update} RETURNING seq")
            };
            let query = sqlx::query::<Db>(&sql)
                .bind(&lease.node_id)
                .bind(&token)
                .bind(millis(lease.duration))
                .bind(from[0]);
            let query = match scope {
                ClaimScope::Any => query.bind(from[1]),
                ClaimScope::SingleOnly => query,
            };
            let claimed = match query.fetch_optional(&mut *tx).await? {
                None => None,
                Some(row) if d.update_in_with => Some(decode_any(&row)?),
                Some(row) => {
                    let seq: i64 = sqlx::Row::try_get(&row, "seq")?;
                    let row = sqlx::query::<Db>(&format!("{ANY_JOB_SELECT} WHERE j.seq = $1"))
                        .bind(seq)
                        .fetch_one(&mut *tx)
                        .await?;
                    Some(decode_any(&row)?)
                }
            };
            tx.commit().await?;
            Ok(claimed)
        })
    }

    /// Renews the lease of the job held under `claim` for `duration` and records the
    /// `nodes` it searched so far. Returns whether a user asked to cancel it, or `None`
    /// when the claim is no longer current (the lease expired and the job was taken
    /// back, or it ended): its holder must stop.
    pub async fn heartbeat(
        &self,
        claim: &Claim,
        duration: Duration,
        nodes: u64,
    ) -> sqlx::Result<Option<bool>> {
        in_transaction!(self, |Db, tx, d| {
            let cancel = sqlx::query_scalar::<Db, bool>(&format!(
                "UPDATE jobs SET lease_until = {now_ms} + $1, progress_nodes = $2
                 WHERE id = $3 AND state = 'running' AND lease_token IS NOT DISTINCT FROM $4
                 RETURNING cancel_requested",
                now_ms = d.now_ms
            ))
            .bind(millis(duration))
            .bind(i64::try_from(nodes).unwrap_or(i64::MAX))
            .bind(&claim.id)
            .bind(&claim.token)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(cancel)
        })
    }

    /// Puts a running job back in the queue (a graceful shutdown interrupted it), if its
    /// claim is still current.
    pub async fn requeue(&self, claim: &Claim) -> sqlx::Result<bool> {
        let n = on_pool!(self, write, |Db, pool, _d| {
            sqlx::query::<Db>(
                "UPDATE jobs SET state = 'queued', started_at = NULL, lease_token = NULL,
                     lease_until = NULL, progress_nodes = 0
                 WHERE id = $1 AND state = 'running' AND lease_token IS NOT NULL
                     AND lease_token = $2",
            )
            .bind(&claim.id)
            .bind(&claim.token)
            .execute(pool)
            .await?
            .rows_affected()
        });
        if n == 1 {
            self.claim_floor.reset();
        }
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
                // Not a job no node holds (see the module invariants).
                "state = 'running' AND lease_token IS NOT NULL".to_string()
            };
            // One statement, so one pass over the running jobs (where a queue without
            // vacuum keeps every job that ever ran as a dead index entry). The order of
            // the cases is the order of the rules: a cancel asked, then too many
            // attempts, else back to the queue.
            let ends = "(cancel_requested = TRUE OR attempts >= $1)";
            let states = sqlx::query_scalar::<Db, String>(&format!(
                "UPDATE jobs SET
                     state = CASE WHEN cancel_requested = TRUE THEN 'cancelled'
                         WHEN attempts >= $1 THEN 'failed' ELSE 'queued' END,
                     finished_at = CASE WHEN {ends} THEN {now} ELSE finished_at END,
                     started_at = CASE WHEN {ends} THEN started_at ELSE NULL END,
                     lease_until = CASE WHEN {ends} THEN lease_until ELSE NULL END,
                     error = CASE WHEN cancel_requested = FALSE AND attempts >= $1
                         THEN 'abandoned: its solver stopped (crash or lost lease) ' || attempts
                             || ' times'
                         ELSE error END,
                     progress_nodes = CASE WHEN {ends} THEN progress_nodes ELSE 0 END,
                     lease_token = NULL
                 WHERE {which}
                 RETURNING state",
                now = d.now
            ))
            .bind(max_attempts)
            .fetch_all(&mut *tx)
            .await?;
            let count = |state: &str| states.iter().filter(|s| *s == state).count() as u64;
            let (cancelled, failed, requeued) =
                (count("cancelled"), count("failed"), count("queued"));
            tx.commit().await?;
            if requeued > 0 {
                self.claim_floor.reset();
            }
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
            let first = store
                .claim_next_gaps(&lease("n1", 50), ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(first.life.node_id.as_deref(), Some("n1"));
            assert_eq!(
                store
                    .heartbeat(&first.claim(), Duration::from_millis(50), 0)
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
                .claim_next_gaps(&lease("n2", 60_000), ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (second.life.attempts, second.life.node_id.as_deref()),
                (2, Some("n2"))
            );
            assert_ne!(second.life.lease_token, first.life.lease_token);
            // Node 1 comes back: its heartbeat, finish and requeue change nothing.
            assert_eq!(
                store
                    .heartbeat(&first.claim(), Duration::from_secs(60), 0)
                    .await
                    .unwrap(),
                None
            );
            assert!(!store
                .finish(&first, &verdict(Verdict::Solvable))
                .await
                .unwrap());
            assert!(!store.requeue(&first.claim()).await.unwrap());
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
            assert_eq!(done.life.state, JobState::Done);
            assert_eq!(done.verdict.unwrap().0, Verdict::Unsolvable);
            assert_eq!(done.life.node_id.as_deref(), Some("n2"));
        })
        .await;
    }

    /// The store's clone whose claims start from the beginning every `every`.
    fn with_rescans_every(store: &Store, every: Duration) -> Store {
        Store {
            claim_floor: std::sync::Arc::new(ClaimFloor::new(every)),
            ..store.clone()
        }
    }

    /// Puts job `id` back in the queue behind this node's back (as another node taking
    /// back an expired lease does).
    async fn queue_again(store: &Store, id: &str) {
        super::super::on_pool!(store, write, |Db, pool, _d| {
            sqlx::query::<Db>("UPDATE jobs SET state = 'queued' WHERE id = $1")
                .bind(id)
                .execute(pool)
                .await
                .unwrap();
        });
    }

    #[tokio::test]
    async fn a_job_queued_below_the_claim_floor_is_still_claimed() {
        on_both(|store| async move {
            for (i, id) in ["a", "b", "c", "d"].into_iter().enumerate() {
                store.insert_job(&new_job(id, i as u64 + 1)).await.unwrap();
            }
            let slow = with_rescans_every(&store, Duration::from_secs(3600));
            let claim = |s: &Store| {
                let s = s.clone();
                async move {
                    s.claim_next_gaps(&lease("n", 60_000), ClaimScope::Any)
                        .await
                        .unwrap()
                }
            };
            assert_eq!(claim(&slow).await.unwrap().spec.id, "a");
            assert_eq!(claim(&slow).await.unwrap().spec.id, "b");
            // `a` is queued again below the floor: claims go on from the floor first...
            queue_again(&slow, "a").await;
            assert_eq!(claim(&slow).await.unwrap().spec.id, "c");
            assert_eq!(claim(&slow).await.unwrap().spec.id, "d");
            // ...and look from the beginning once nothing is left beyond it.
            assert_eq!(claim(&slow).await.unwrap().spec.id, "a");
            assert!(claim(&slow).await.is_none());
            // A job this node puts back is claimed first.
            store.insert_job(&new_job("e", 5)).await.unwrap();
            let b = slow.job("b").await.unwrap().unwrap();
            assert!(slow.requeue(&b.claim()).await.unwrap());
            assert_eq!(claim(&slow).await.unwrap().spec.id, "b");
            // Past the rescan interval, claims start from the beginning again.
            let fast = with_rescans_every(&store, Duration::from_millis(1));
            assert_eq!(claim(&fast).await.unwrap().spec.id, "e");
            queue_again(&fast, "c").await;
            store.insert_job(&new_job("f", 6)).await.unwrap();
            tokio::time::sleep(Duration::from_millis(5)).await;
            assert_eq!(claim(&fast).await.unwrap().spec.id, "c");
            assert_eq!(claim(&fast).await.unwrap().spec.id, "f");
        })
        .await;
    }

    #[tokio::test]
    async fn a_job_abandoned_too_often_fails_and_a_cancel_is_carried_by_the_heartbeat() {
        on_both(|store| async move {
            store.insert_job(&new_job("b", 2)).await.unwrap();
            for _ in 0..2 {
                store
                    .claim_next_gaps(&lease("n", 1), ClaimScope::Any)
                    .await
                    .unwrap()
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
                store.reclaim_expired(3).await.unwrap();
            }
            let third = store
                .claim_next_gaps(&lease("n", 1), ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(third.life.attempts, 3);
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
            assert_eq!(failed.life.state, JobState::Failed);
            assert!(failed.life.error.unwrap().contains("3 times"));
            // A cancel asked through any node reaches the holder with its next heartbeat.
            store.insert_job(&new_job("c", 3)).await.unwrap();
            let running = store
                .claim_next_gaps(&lease("n", 60_000), ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            store.cancel("c").await.unwrap();
            assert_eq!(
                store
                    .heartbeat(&running.claim(), Duration::from_secs(60), 0)
                    .await
                    .unwrap(),
                Some(true)
            );
            // A crash of the only node: recover takes back running jobs whatever their
            // lease says.
            store.insert_job(&new_job("d", 4)).await.unwrap();
            store
                .claim_next_gaps(&lease("n", 60_000), ClaimScope::Any)
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
