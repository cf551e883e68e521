//! SQLite's write-ahead log, kept bounded.
//!
//! SQLite moves the WAL back to its start only when a checkpoint has copied every frame
//! into the database file and no reader is still on an older snapshot. Its automatic
//! checkpoints are passive (they never wait for a reader), so under a steady stream of
//! writes with overlapping reads that moment never comes and the WAL grows without
//! bound: a million-deal batch wrote about 100 KB of WAL per job and reached 15 GiB in
//! five minutes, with every read slower for it. So a node on SQLite watches the WAL's
//! size and, past [`WAL_RESET_BYTES`], runs a `TRUNCATE` checkpoint on the writer
//! connection that waits at most [`READER_WAIT`] for the readers of older snapshots;
//! `journal_size_limit` (set when the store opens) also trims the file at any reset.
//! The store also resets it once when it opens, after the migrations: a new database's
//! whole schema would otherwise sit in the WAL, where a full disk keeps a checkpoint
//! from moving it (the database file must grow to take it) and every write fails until
//! the disk has room for both.
//!
//! Invariants: a checkpoint only copies committed frames into the database file, so it
//! never loses or changes data; it runs on the one writer connection, as one more write
//! in its queue, and holds other writes back for at most `READER_WAIT` per attempt (a
//! reader that stays longer, such as a batch export streaming a million rows, makes the
//! attempt end `busy`, and the next one tries again); the writer's busy timeout is put
//! back afterwards, or the connection is closed.

use super::{Pools, Store, BUSY_TIMEOUT};
use std::path::PathBuf;
use std::time::Duration;

/// The WAL size past which a node resets it (also the `journal_size_limit`).
pub const WAL_RESET_BYTES: u64 = 64 << 20;

/// The longest a reset waits for readers of older snapshots (writes wait meanwhile).
pub const READER_WAIT: Duration = Duration::from_millis(100);

/// How a reset attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalReset {
    /// The WAL was below [`WAL_RESET_BYTES`] (or the store is on PostgreSQL).
    NotNeeded,
    /// Every frame copied and the file truncated.
    Truncated,
    /// A reader of an older snapshot outlasted `READER_WAIT`; frames were copied as
    /// far as it allowed and the WAL stays as long.
    Busy,
}

impl Store {
    /// The path of the SQLite WAL file (`None` on PostgreSQL).
    fn wal_path(&self) -> Option<PathBuf> {
        match &self.pools {
            Pools::Sqlite { writer, .. } => {
                let mut path = writer
                    .connect_options()
                    .get_filename()
                    .as_os_str()
                    .to_owned();
                path.push("-wal");
                Some(PathBuf::from(path))
            }
            Pools::Postgres(_) => None,
        }
    }

    /// The size of the SQLite WAL file in bytes (`None` on PostgreSQL; 0 when absent).
    pub async fn wal_bytes(&self) -> Option<u64> {
        let path = self.wal_path()?;
        Some(tokio::fs::metadata(path).await.map_or(0, |m| m.len()))
    }

    /// Resets the WAL if it passed `threshold` bytes (see the module doc).
    pub async fn reset_wal(&self, threshold: u64) -> sqlx::Result<WalReset> {
        let Pools::Sqlite { writer, .. } = &self.pools else {
            return Ok(WalReset::NotNeeded);
        };
        if self.wal_bytes().await.unwrap_or(0) < threshold {
            return Ok(WalReset::NotNeeded);
        }
        let mut conn = writer.acquire().await?;
        let set_wait = |d: Duration| format!("PRAGMA busy_timeout = {}", d.as_millis());
        sqlx::query(&set_wait(READER_WAIT))
            .execute(&mut *conn)
            .await?;
        let result = sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(&mut *conn)
            .await;
        if sqlx::query(&set_wait(BUSY_TIMEOUT))
            .execute(&mut *conn)
            .await
            .is_err()
        {
            // Never hand back a writer that gives up on locks after 100 ms.
            conn.close_on_drop();
        }
        let (busy, _frames, _copied) = result?;
        Ok(if busy == 0 {
            WalReset::Truncated
        } else {
            WalReset::Busy
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, temp_store};
    use super::*;

    #[tokio::test]
    async fn a_wal_past_the_threshold_is_truncated_and_data_stays() {
        let (store, _dir) = temp_store().await;
        for i in 0..50 {
            store
                .insert_job(&new_job(&format!("j{i}"), i))
                .await
                .unwrap();
        }
        let before = store.wal_bytes().await.unwrap();
        assert!(before > 0);
        assert_eq!(
            store.reset_wal(before + 1).await.unwrap(),
            WalReset::NotNeeded
        );
        // A reader on an older snapshot holds the reset back...
        let Pools::Sqlite { reader, .. } = &store.pools else {
            unreachable!()
        };
        let mut snapshot = reader.begin().await.unwrap();
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&mut *snapshot)
            .await
            .unwrap();
        assert_eq!(n, 50);
        store.insert_job(&new_job("late", 99)).await.unwrap();
        assert_eq!(store.reset_wal(1).await.unwrap(), WalReset::Busy);
        // ... and once it ends, the WAL is emptied; nothing is lost, and the writer
        // waits for locks as long as before.
        snapshot.rollback().await.unwrap();
        assert_eq!(store.reset_wal(1).await.unwrap(), WalReset::Truncated);
        assert_eq!(store.wal_bytes().await.unwrap(), 0);
        assert!(store.job("late").await.unwrap().is_some());
        assert!(store.job("j0").await.unwrap().is_some());
        store.insert_job(&new_job("after", 100)).await.unwrap();
        assert!(store.wal_bytes().await.unwrap() > 0);
        let Pools::Sqlite { writer, .. } = &store.pools else {
            unreachable!()
        };
        let wait: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
            .fetch_one(writer)
            .await
            .unwrap();
        assert_eq!(wait as u128, BUSY_TIMEOUT.as_millis());
    }
}
