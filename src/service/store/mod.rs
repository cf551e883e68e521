//! The SQLite store: jobs, batches and the best verdict per distinct position.
//!
//! Invariants:
//! - One writer connection (a pool of size 1) performs every write; readers are separate
//!   read-only connections, so reads never wait for a write (WAL mode).
//! - Multi-statement writes run in `BEGIN IMMEDIATE` transactions that contain no await
//!   on anything but the database: never a solve.
//! - A job leaves `queued`/`running` exactly once, through [`Store::finish`] or
//!   [`Store::cancel`]; [`Store::recover`] puts jobs left `running` by a crash back in
//!   the queue.
//! - An exact verdict in `verdicts` is never replaced; an `unknown` is replaced by any
//!   later verdict for the same (variant, position).

mod batches;
mod deepen;
mod jobs;
mod stats;

pub use batches::{BatchCounts, BatchRow, NewBatch};
pub use deepen::{Deepened, UnknownVerdict};
pub use jobs::{Finish, JobFilter, JobRow, KnownVerdict, NewJob};
pub use stats::{EffortSample, WinRateCounts};

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::str::FromStr;
use std::time::Duration;

/// The SQL for "now" used in every timestamp column.
pub(crate) const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// Handle to the database: one writer, several readers.
#[derive(Clone, Debug)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
}

/// Migrations compiled into the binary from `migrations/`.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

impl Store {
    /// Opens (creating if needed) the database at `url`, runs the migrations and returns
    /// the store. `synchronous` is `normal` or `full`.
    pub async fn open(url: &str, synchronous: &str, readers: u32) -> anyhow::Result<Store> {
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
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(common.clone().create_if_missing(true))
            .await?;
        MIGRATOR.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(readers)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(common.read_only(true))
            .await?;
        Ok(Store { writer, reader })
    }

    /// Closes every connection (after a graceful shutdown).
    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }

    /// True when both pools answer (for `/healthz`).
    pub async fn ping(&self) -> bool {
        let read = sqlx::query_scalar::<_, i64>("SELECT 1")
            .fetch_one(&self.reader)
            .await;
        read.is_ok() && !self.writer.is_closed()
    }

    /// A write transaction that holds the write lock from its first statement.
    pub(crate) async fn write(&self) -> sqlx::Result<sqlx::Transaction<'static, sqlx::Sqlite>> {
        self.writer.begin_with("BEGIN IMMEDIATE").await
    }

    pub(crate) fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    pub(crate) fn reader(&self) -> &SqlitePool {
        &self.reader
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::{Finish, NewJob, Store};
    use crate::report::{JobStats, StatsJson};
    use crate::service::job::Stored;
    use gaps_engine::{deal, Algorithm, Layout, Variant, Verdict};

    /// A queued `basic` job for deal `seed` of 4 x 5 (distinct seeds: distinct positions).
    pub fn new_job(id: &str, seed: u64) -> NewJob {
        NewJob {
            id: id.into(),
            variant: Stored(Variant::Basic),
            algorithm: Stored(Algorithm::Auto),
            position: Stored(deal(seed, Layout::new(4, 5).unwrap())),
            suits: 4,
            ranks: 5,
            deal_seed: Some(seed as i64),
            limit_nodes: None,
            limit_time_ms: 1000,
            table_mb: None,
            search_seed: 0,
            batch_id: None,
            limit_probes: None,
            threads: 1,
        }
    }

    /// A searched finish with `verdict`.
    pub fn verdict(verdict: Verdict) -> Finish {
        Finish::Verdict {
            verdict,
            solution: None,
            stats: JobStats::Searched(StatsJson::default()),
            stopped: None,
            used_algorithm: Algorithm::Dfs,
            nodes: 10,
            elapsed_ms: 1.0,
            cached: false,
        }
    }

    /// A store on a fresh file in a temporary directory (kept alive by the guard).
    pub async fn temp_store() -> (Store, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        (Store::open(&url, "normal", 2).await.unwrap(), dir)
    }
}
