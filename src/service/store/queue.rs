//! The order of the queue: who runs first (docs/http.md, "Who runs first").
//!
//! Invariants:
//! - A queued job has a class: [`SINGLE`] (a job asked on its own: someone is waiting
//!   for it) or [`BATCH`] (a batch's deal). A claim takes a single job before any
//!   batch job, whatever their ages.
//! - Within a class, a claim takes the lowest `turn` (then the lowest `seq`). A
//!   client's jobs take consecutive turns from its row of `client_turns`, never below
//!   the class's current turn (the lowest turn still queued; when nothing of the
//!   class is queued, the highest turn any client reached). So a client that queues
//!   a thousand jobs and one that queues ten later alternate from then on: the second
//!   waits for at most one job of the first between two of its own (start-time fair
//!   queueing, one job the unit of service). A client is its token's name, or its
//!   address on an open service (`created_by`).
//! - Turns are only an order: a job whose turn is taken but whose insert fails leaves
//!   a hole, which changes nothing.

use super::{on_pool, Dialect, Store};

/// The class of a job asked on its own.
pub const SINGLE: i64 = 0;
/// The class of a batch's deal.
pub const BATCH: i64 = 1;

/// Which jobs a claim may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimScope {
    /// Single jobs first, then batch jobs.
    Any,
    /// Only single jobs (a lane that runs them while a batch job gives way).
    SingleOnly,
}

impl ClaimScope {
    /// The classes a claim looks at, in order.
    pub(super) fn classes(self) -> &'static [i64] {
        match self {
            ClaimScope::Any => &[SINGLE, BATCH],
            ClaimScope::SingleOnly => &[SINGLE],
        }
    }
}

/// Where a queued job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuePlace {
    /// Queued jobs that will be claimed before it (counted up to `PLACE_COUNT_CAP`).
    pub ahead: i64,
    /// True when `ahead` reached the cap: at least that many.
    pub at_least: bool,
}

/// Most jobs counted ahead of a queued one (the count stays a bounded read).
pub const PLACE_COUNT_CAP: i64 = 10_000;

/// The class a job is queued in.
pub(super) fn class_of(batch_id: Option<&str>) -> i64 {
    if batch_id.is_some() {
        BATCH
    } else {
        SINGLE
    }
}

/// The statement that takes `$3` consecutive turns of class `$1` for client `$2` and
/// returns the first (see the module invariants); run in the transaction that
/// inserts the jobs.
pub(super) fn take_turns_sql(d: &Dialect) -> String {
    let clock = "COALESCE(
            (SELECT MIN(turn) FROM jobs WHERE state = 'queued' AND queue_class = $1),
            (SELECT MAX(next_turn) FROM client_turns WHERE queue_class = $1),
            0)";
    format!(
        "INSERT INTO client_turns (queue_class, client, next_turn)
         VALUES ($1, $2, {clock} + $3)
         ON CONFLICT (queue_class, client) DO UPDATE
             SET next_turn = {greatest}(client_turns.next_turn + $3, excluded.next_turn)
         RETURNING next_turn - $3",
        greatest = d.greatest
    )
}

/// Takes `$n` consecutive turns of class `$class` for client `$client` in the write
/// transaction `$tx` (of backend `$db`, dialect `$d`) and evaluates to the first
/// ([`take_turns_sql`]): every insert of queued jobs takes its turns this way.
macro_rules! take_turns {
    ($db:ty, $tx:ident, $d:expr, $class:expr, $client:expr, $n:expr) => {
        sqlx::query_scalar::<$db, i64>(&super::queue::take_turns_sql(&$d))
            .bind($class)
            .bind($client)
            .bind($n)
            .fetch_one(&mut *$tx)
            .await?
    };
}
pub(super) use take_turns;

impl Store {
    /// Where a queued job stands among the queued jobs, from its `(class, turn, seq)`
    /// as read (`AnyJob::queue_key`).
    pub async fn queue_place(
        &self,
        (class, turn, seq): (i64, i64, i64),
    ) -> sqlx::Result<QueuePlace> {
        let ahead = on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<Db, i64>(
                "SELECT CAST(COUNT(*) AS BIGINT) FROM (
                     SELECT 1 FROM jobs
                     WHERE state = 'queued'
                       AND (queue_class < $1
                            OR (queue_class = $1
                                AND (turn < $2 OR (turn = $2 AND seq < $3))))
                     LIMIT $4) AS ahead",
            )
            .bind(class)
            .bind(turn)
            .bind(seq)
            .bind(PLACE_COUNT_CAP)
            .fetch_one(pool)
            .await?
        });
        Ok(QueuePlace {
            ahead,
            at_least: ahead >= PLACE_COUNT_CAP,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, test_lease};
    use super::*;

    fn by(client: &str, id: &str, seed: u64) -> super::super::NewJob {
        let mut job = new_job(id, seed);
        job.created_by = Some(client.into());
        job
    }

    #[tokio::test]
    async fn single_jobs_go_first_and_clients_take_turns() {
        on_both(|store| async move {
            // Client a queues four single jobs, then b queues two.
            for i in 0..4 {
                let id = format!("a{i}");
                store.insert_job(&by("a", &id, i)).await.unwrap();
            }
            for i in 0..2 {
                let id = format!("b{i}");
                store.insert_job(&by("b", &id, 10 + i)).await.unwrap();
            }
            let b1 = store.job("b1").await.unwrap().unwrap();
            let place = store.queue_place((b1.life.queue_class, b1.life.turn, b1.life.seq));
            let place = place.await.unwrap();
            assert_eq!((place.ahead, place.at_least), (3, false), "a0 b0 a1 b1");
            let mut order = Vec::new();
            while let Some(job) = store
                .claim_next_gaps(&test_lease(), ClaimScope::Any)
                .await
                .unwrap()
            {
                order.push(job.spec.id);
            }
            assert_eq!(order, ["a0", "b0", "a1", "b1", "a2", "a3"]);
        })
        .await;
    }
}
