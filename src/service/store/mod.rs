//! The store: jobs, batches and the best verdict per distinct position, on SQLite (one
//! machine, the default) or PostgreSQL (several nodes sharing one database).
//!
//! Invariants:
//! - Every query is written once, in SQL both backends accept (`$n` placeholders, `TRUE`
//!   and `FALSE`, `IS NOT DISTINCT FROM`, `ON CONFLICT`, `RETURNING`), and run on either
//!   through `on_pool!`/`in_transaction!`, which differ only in the `Dialect`: the
//!   SQL of "now" and the row lock of a claim.
//! - SQLite: one writer connection (a pool of size 1) performs every write; readers are
//!   separate read-only connections, so reads never wait for a write (WAL mode).
//!   Multi-statement writes run in `BEGIN IMMEDIATE` transactions. The WAL is kept
//!   bounded by resets on the writer (`wal`).
//! - PostgreSQL: one pool; a claim locks the row it takes (`FOR UPDATE SKIP LOCKED`),
//!   so concurrent claimers never take the same job.
//! - Transactions contain no await on anything but the database: never a solve.
//! - A job leaves `queued`/`running` exactly once, through [`Store::finish`] or
//!   [`Store::cancel`]; [`Store::recover`] puts jobs left `running` by a crash back in
//!   the queue.
//! - An exact verdict in `verdicts` is never replaced; an `unknown` is replaced by any
//!   later verdict for the same (variant, position).
//! - Statistics are aggregates kept in step with the data (see `stats`), never a pass
//!   over every job.
//! - Timestamps are RFC 3339 UTC text with milliseconds on both backends.

mod announcer;
mod any_job;
mod batch_results;
mod batches;
mod deepen;
mod dialect;
mod finish;
mod idempotency;
mod jobs;
mod known;
mod leases;
mod morpion;
mod morpion_units;
mod odds;
mod pysol;
mod queue;
mod rows;
pub(crate) mod sqlite_tx;
mod stats;
#[doc(hidden)]
pub mod testing;
mod wal;

pub use any_job::AnyJob;
pub use batch_results::{
    csv_line, ndjson_line, BatchResult, OddsSummary, CSV_HEADER, ODDS_CSV_HEADER,
};
pub use batches::{BatchCounts, BatchJobs, BatchRow, NewBatch};
pub use deepen::{Deepened, UnknownVerdict};
pub(crate) use dialect::{Dialect, POSTGRES, SQLITE};
pub use idempotency::{KeyState, STALE_RESERVATION_SECONDS};
pub use known::{answered_by, KnownVerdict};
pub use leases::{Lease, Reclaimed};
pub use morpion::{MorpionFinish, MorpionJobRow, MorpionResult, NewMorpionJob};
pub use morpion_units::{unit_job_id, MorpionUnitRow, UnitDone, UnitFinish, UnitsProgress};
pub use odds::{NewOddsJob, OddsFinish, OddsJobRow};
pub use pysol::{PysolCounts, PysolRange, PysolVerdict};
pub use queue::{ClaimScope, QueuePlace};
pub use rows::{Claim, Finish, JobFilter, JobLife, JobRow, NewJob};
pub use stats::{EffortRow, WinRateCounts};
pub use wal::{WalReset, WAL_RESET_BYTES};

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::str::FromStr;
use std::time::Duration;

/// How long an SQLite connection waits for a lock before it gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// What one node tells the others (see [`Store::announce`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Announce<'a> {
    /// Jobs were queued.
    Work,
    /// This job ended.
    Done(&'a str),
    /// A user asked to cancel this job.
    Cancel(&'a str),
}

/// The channels of [`Announce`], as listened to by every PostgreSQL node.
pub const CHANNELS: [&str; 3] = ["gaps_work", "gaps_done", "gaps_cancel"];

impl<'a> Announce<'a> {
    fn channel(self) -> &'static str {
        match self {
            Announce::Work => CHANNELS[0],
            Announce::Done(_) => CHANNELS[1],
            Announce::Cancel(_) => CHANNELS[2],
        }
    }

    /// The announcements a notification on `channel` carries: "work", or the ended or
    /// cancelled jobs whose ids its payload lists, comma-separated.
    pub fn parse(channel: &str, payload: &'a str) -> Vec<Announce<'a>> {
        let ids = payload.split(',').filter(|id| !id.is_empty());
        match channel {
            "gaps_work" => vec![Announce::Work],
            "gaps_done" => ids.map(Announce::Done).collect(),
            "gaps_cancel" => ids.map(Announce::Cancel).collect(),
            _ => Vec::new(),
        }
    }
}

/// The connections of a store.
#[derive(Clone, Debug)]
enum Pools {
    Sqlite {
        writer: SqlitePool,
        reader: SqlitePool,
    },
    Postgres(PgPool),
}

/// Handle to the database.
#[derive(Clone, Debug)]
pub struct Store {
    pools: Pools,
    /// Effort medians as last read (see `stats`), shared by the store's clones.
    medians: std::sync::Arc<stats::MedianCache>,
    /// Sends announcements to the other nodes (PostgreSQL only).
    announcer: Option<std::sync::Arc<announcer::Announcer>>,
    /// Where this node's claims start in the queue, shared by the store's clones.
    claim_floor: std::sync::Arc<leases::ClaimFloor>,
}

/// Runs `$body` on the store's pool for reads (`read`) or writes (`write`), with `$db`
/// the backend's `sqlx::Database`, `$pool` its pool and `$d` its [`Dialect`]: the body
/// is compiled once per backend.
macro_rules! on_pool {
    ($store:expr, $which:ident, |$db:ident, $pool:ident, $d:ident| $body:expr) => {
        match &$store.pools {
            $crate::service::store::Pools::Sqlite { writer, reader } => {
                #[allow(dead_code)]
                type $db = sqlx::Sqlite;
                let _ = (writer, reader);
                let $pool = $crate::service::store::on_pool!(@pick $which, writer, reader);
                let $d = $crate::service::store::SQLITE;
                let _ = $d;
                $body
            }
            $crate::service::store::Pools::Postgres(pool) => {
                #[allow(dead_code)]
                type $db = sqlx::Postgres;
                let $pool = pool;
                let $d = $crate::service::store::POSTGRES;
                let _ = $d;
                $body
            }
        }
    };
    (@pick read, $writer:ident, $reader:ident) => {
        $reader
    };
    (@pick write, $writer:ident, $reader:ident) => {
        $writer
    };
}

/// Runs `$body` in a write transaction `$tx` (SQLite: `BEGIN IMMEDIATE`, so it holds the
/// write lock from its first statement, through [`sqlite_tx::SqliteTx`]); the body
/// commits it.
macro_rules! in_transaction {
    ($store:expr, |$db:ident, $tx:ident, $d:ident| $body:expr) => {
        match &$store.pools {
            $crate::service::store::Pools::Sqlite { writer, .. } => {
                #[allow(dead_code)]
                type $db = sqlx::Sqlite;
                #[allow(unused_mut)]
                let mut $tx = $crate::service::store::sqlite_tx::SqliteTx::begin(writer).await?;
                let $d = $crate::service::store::SQLITE;
                let _ = $d;
                $body
            }
            $crate::service::store::Pools::Postgres(pool) => {
                #[allow(dead_code)]
                type $db = sqlx::Postgres;
                #[allow(unused_mut)]
                let mut $tx = pool.begin().await?;
                let $d = $crate::service::store::POSTGRES;
                let _ = $d;
                $body
            }
        }
    };
}

pub(crate) use {in_transaction, on_pool};

/// SQLite migrations, compiled into the binary.
static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
/// PostgreSQL migrations, compiled into the binary.
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

impl Store {
    /// Opens the database at `url` (`sqlite://path`, created if needed, or
    /// `postgres://...`), runs the migrations and returns the store. `synchronous`
    /// (`normal` or `full`) and `readers` apply to SQLite; `readers` also sizes the
    /// PostgreSQL pool.
    pub async fn open(url: &str, synchronous: &str, readers: u32) -> anyhow::Result<Store> {
        Self::open_migrated(
            url,
            synchronous,
            readers,
            &SQLITE_MIGRATOR,
            &POSTGRES_MIGRATOR,
            true,
        )
        .await
    }

    /// [`Store::open`] with the migrations of `sqlite` or `postgres` (a test opens a
    /// database at an earlier schema with the first of them, and without
    /// `rebuild_aggregates`: today's code reads today's schema only, and the rebuild a
    /// migration asks for runs when the upgraded store opens).
    async fn open_migrated(
        url: &str,
        synchronous: &str,
        readers: u32,
        sqlite: &sqlx::migrate::Migrator,
        postgres: &sqlx::migrate::Migrator,
        rebuild_aggregates: bool,
    ) -> anyhow::Result<Store> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Self::open_postgres(url, readers + 1, postgres, rebuild_aggregates).await;
        }
        if !url.starts_with("sqlite:") {
            anyhow::bail!("database url: expected sqlite://PATH or postgres://USER@HOST/DATABASE");
        }
        let base = SqliteConnectOptions::from_str(url)?;
        let path = base.get_filename().to_path_buf();
        if path.as_os_str().is_empty() || path.to_string_lossy().contains(":memory:") {
            anyhow::bail!(
                "database url {url:?}: the store needs a file (readers and writer share it)"
            );
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let synchronous = SqliteSynchronous::from_str(synchronous)
            .map_err(|e| anyhow::anyhow!("database.synchronous: {e}"))?;
        let common = base
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(synchronous)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            // Trims the WAL file at every reset (see `wal`).
            .pragma("journal_size_limit", WAL_RESET_BYTES.to_string());
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(common.clone().create_if_missing(true))
            .await?;
        sqlite.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(readers)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(common.read_only(true))
            .await?;
        let store = Store {
            pools: Pools::Sqlite { writer, reader },
            medians: Default::default(),
            claim_floor: Default::default(),
            announcer: None,
        };
        if rebuild_aggregates {
            store.rebuild_pending_aggregates().await?;
        }
        // Migrations write the schema (a table rebuilt, a whole new database) into the
        // WAL; folded into the database file now, before any reader holds a snapshot,
        // they do not sit in a WAL that a full disk would keep from being checkpointed.
        // A reset that fails (that disk already full) leaves the WAL as it was: the
        // store still opens, and its writes answer 503 until there is room.
        if let Err(e) = store.reset_wal(0).await {
            tracing::warn!(error = %e, "the WAL could not be checkpointed at start");
        }
        Ok(store)
    }

    async fn open_postgres(
        url: &str,
        connections: u32,
        migrator: &sqlx::migrate::Migrator,
        rebuild_aggregates: bool,
    ) -> anyhow::Result<Store> {
        let pool = PgPoolOptions::new()
            .max_connections(connections.max(2))
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await
            .map_err(|e| anyhow::anyhow!("database: cannot connect to PostgreSQL: {e}"))?;
        migrator.run(&pool).await?;
        let store = Store {
            announcer: Some(announcer::Announcer::start(pool.clone())),
            pools: Pools::Postgres(pool),
            medians: Default::default(),
            claim_floor: Default::default(),
        };
        if rebuild_aggregates {
            store.rebuild_pending_aggregates().await?;
        }
        Ok(store)
    }

    /// Tells the other nodes sharing the database about `event`, once the change it
    /// announces has committed (PostgreSQL `NOTIFY`, sent by a background task together
    /// with the announcements recorded meanwhile; nothing on SQLite, which has one
    /// node). Best effort: the nodes also poll.
    pub fn announce(&self, event: Announce<'_>) {
        if let Some(announcer) = &self.announcer {
            announcer.record(event);
        }
    }

    /// The PostgreSQL pool, to listen for other nodes' announcements.
    pub fn postgres_pool(&self) -> Option<&PgPool> {
        match &self.pools {
            Pools::Postgres(pool) => Some(pool),
            Pools::Sqlite { .. } => None,
        }
    }

    /// The backend's name (`sqlite` or `postgres`).
    pub fn backend(&self) -> &'static str {
        match self.pools {
            Pools::Sqlite { .. } => "sqlite",
            Pools::Postgres(_) => "postgres",
        }
    }

    /// Closes every connection (after a graceful shutdown).
    pub async fn close(&self) {
        match &self.pools {
            Pools::Sqlite { writer, reader } => {
                writer.close().await;
                reader.close().await;
            }
            Pools::Postgres(pool) => pool.close().await,
        }
    }

    /// Deletes finished jobs of every game (done, failed, cancelled) that ended more
    /// than `days` days ago and belong to no batch, in chunks of 1,000 (short write
    /// transactions): a shared Morpion proof's units first, its proof after its job.
    /// Known verdicts and the statistics are kept: they live in their own tables.
    /// Returns how many jobs were deleted.
    pub async fn prune_finished(&self, days: u32) -> sqlx::Result<u64> {
        let days = i32::try_from(days).unwrap_or(i32::MAX);
        self.prune_ended_units(days).await?;
        let jobs = self
            .delete_ended_before(
                "DELETE FROM jobs WHERE seq IN (
                     SELECT seq FROM jobs
                     WHERE batch_id IS NULL AND parent_id IS NULL AND finished_at < {cutoff}
                         AND state IN ('done', 'failed', 'cancelled')
                     LIMIT 1000)",
                1000,
                days,
            )
            .await?;
        self.prune_orphan_proofs().await?;
        Ok(jobs)
    }

    /// Runs `delete`, a statement deleting at most `chunk` rows whose `{cutoff}` stands
    /// for the instant `days` days ago, until a run deletes fewer than `chunk` (each
    /// run its own short write). Returns the rows deleted.
    pub(super) async fn delete_ended_before(
        &self,
        delete: &str,
        chunk: u64,
        days: i32,
    ) -> sqlx::Result<u64> {
        let mut deleted = 0;
        loop {
            let n = on_pool!(self, write, |Db, pool, d| {
                sqlx::query::<Db>(&delete.replace("{cutoff}", d.days_ago))
                    .bind(days)
                    .execute(pool)
                    .await?
                    .rows_affected()
            });
            deleted += n;
            if n < chunk {
                return Ok(deleted);
            }
        }
    }

    /// Writes a consistent, compacted copy of an SQLite store to `path` (a new file) with
    /// `VACUUM INTO`, while the store stays in use. PostgreSQL stores are refused.
    pub async fn backup_sqlite(&self, path: &std::path::Path) -> anyhow::Result<()> {
        let Pools::Sqlite { reader, .. } = &self.pools else {
            anyhow::bail!("backups of PostgreSQL stores are pg_dump's job");
        };
        let target = path
            .to_str()
            .ok_or_else(|| anyhow::anyhow!("the backup path must be UTF-8"))?;
        sqlx::query("VACUUM INTO $1")
            .bind(target)
            .execute(reader)
            .await?;
        Ok(())
    }

    /// True when the database answers reads and writes can be made (for `/healthz`).
    pub async fn ping(&self) -> bool {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_scalar::<_, i32>("SELECT 1")
                .fetch_one(pool)
                .await
                .is_ok()
        }) && match &self.pools {
            Pools::Sqlite { writer, .. } => !writer.is_closed(),
            Pools::Postgres(pool) => !pool.is_closed(),
        }
    }
}

/// Whether `e` says the database is away or busy rather than that a query is wrong.
pub fn database_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // SQLite result codes (the primary code is the low byte): busy (5),
                // locked (6), I/O error (10), disk full (13), cannot open (14).
                let primary = code.parse::<i32>().map_or(0, |c| c & 0xff);
                matches!(primary, 5 | 6 | 10 | 13 | 14)
            } else {
                // PostgreSQL SQLSTATE: connection exceptions (08), insufficient
                // resources (53), operator intervention (57P: shutdown, terminated),
                // and a database that does not exist or takes no connections now.
                code.starts_with("08")
                    || code.starts_with("53")
                    || code.starts_with("57P")
                    || code == "3D000"
                    || code == "55000"
            }
        }
        _ => false,
    }
}

#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod upgrades;

#[cfg(test)]
mod tests {
    use super::test_support::{new_job, temp_store, test_lease, verdict};
    use super::Store;
    use gaps_engine::Verdict;

    #[tokio::test]
    async fn a_backup_of_a_live_store_opens_with_its_jobs_and_statistics() {
        let (store, dir) = temp_store().await;
        store.insert_job(&new_job("done", 1)).await.unwrap();
        let job = store
            .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
            .await
            .unwrap()
            .unwrap();
        assert!(store
            .finish(&job, &verdict(Verdict::Solvable))
            .await
            .unwrap());
        store.insert_job(&new_job("queued", 2)).await.unwrap();
        let copy = dir.path().join("copy.db");
        store.backup_sqlite(&copy).await.unwrap();
        // The live store keeps working after the copy.
        store.insert_job(&new_job("later", 3)).await.unwrap();
        assert!(
            store.backup_sqlite(&copy).await.is_err(),
            "never overwrites"
        );

        let url = format!("sqlite://{}", copy.display());
        let restored = Store::open(&url, "normal", 1).await.unwrap();
        let done = restored.job("done").await.unwrap().unwrap();
        assert_eq!(done.verdict.map(|v| v.0), Some(Verdict::Solvable));
        assert!(restored.job("queued").await.unwrap().is_some());
        assert!(restored.job("later").await.unwrap().is_none());
        assert_eq!(
            restored.win_rate_counts().await.unwrap(),
            store.win_rate_counts().await.unwrap()
        );
        assert_eq!(restored.effort().await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_stored_redeal_count_is_read_as_itself_and_one_out_of_range_is_refused() {
        super::test_support::on_both(|store| async move {
            let mut job = new_job("two", 1);
            job.redeals = crate::request::rounds::RedealCount::new(2).unwrap();
            store.insert_job(&job).await.unwrap();
            let read = store.job("two").await.unwrap().unwrap();
            assert_eq!(read.spec.redeals.get(), 2);
            // A row no validation wrote (by hand, or by a later version) is an error
            // on read, never a count narrowed to something else.
            super::on_pool!(store, write, |Db, pool, _d| {
                sqlx::query::<Db>("UPDATE gaps_searches SET redeals = 300 WHERE id = 'two'")
                    .execute(pool)
                    .await
                    .unwrap();
            });
            let refused = store.job("two").await.unwrap_err().to_string();
            assert!(refused.contains("stored redeals 300"), "{refused}");
        })
        .await;
    }

    #[tokio::test]
    async fn the_retention_sweep_deletes_old_finished_jobs_only_and_keeps_statistics() {
        super::test_support::on_both(|store| async move {
            for (id, seed) in [("old", 1), ("recent", 2)] {
                store.insert_job(&new_job(id, seed)).await.unwrap();
                let job = store
                    .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                    .await
                    .unwrap()
                    .unwrap();
                assert!(store
                    .finish(&job, &verdict(Verdict::Solvable))
                    .await
                    .unwrap());
            }
            store.insert_job(&new_job("queued", 3)).await.unwrap();
            super::on_pool!(store, write, |Db, pool, _d| {
                sqlx::query::<Db>(
                    "UPDATE jobs SET finished_at = '2020-01-01T00:00:00.000Z' WHERE id = 'old'",
                )
                .execute(pool)
                .await
                .unwrap();
            });
            let rates = store.win_rate_counts().await.unwrap();
            let effort = store.effort().await.unwrap();
            assert_eq!(store.prune_finished(30).await.unwrap(), 1);
            assert!(store.job("old").await.unwrap().is_none());
            assert!(store.job("recent").await.unwrap().is_some());
            assert!(store.job("queued").await.unwrap().is_some());
            // The job's search went with it.
            let searches: Vec<String> = super::on_pool!(store, read, |Db, pool, _d| {
                sqlx::query_scalar::<Db, String>("SELECT id FROM gaps_searches ORDER BY id")
                    .fetch_all(pool)
                    .await
                    .unwrap()
            });
            assert_eq!(searches, ["queued", "recent"]);
            assert_eq!(store.win_rate_counts().await.unwrap(), rates);
            assert_eq!(store.effort().await.unwrap(), effort);
            assert_eq!(store.prune_finished(30).await.unwrap(), 0);
        })
        .await;
    }
}
