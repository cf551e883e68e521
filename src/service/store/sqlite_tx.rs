//! A write transaction on SQLite's one writer connection, issued as plain SQL
//! (`BEGIN IMMEDIATE` ... `COMMIT`) instead of through sqlx's transaction manager.
//!
//! Why: when `COMMIT` fails (a full disk: `SQLITE_FULL`), SQLite may already have
//! rolled the transaction back, so sqlx's own `ROLLBACK` then fails and its transaction
//! depth stays at one; every later `BEGIN IMMEDIATE` on that connection is refused
//! ("non-zero transaction depth") and the writer is lost until a restart.
//!
//! Invariants: the connection leaves a [`SqliteTx`] with no transaction open. After a
//! failed `COMMIT` a `ROLLBACK` is issued (its error ignored: there may be nothing to
//! roll back); a transaction dropped without `commit` (an early return) is rolled back
//! by a task before the connection goes back to the pool, or, with no runtime, the
//! connection is closed instead (closing rolls back).

use sqlx::pool::PoolConnection;
use sqlx::{Sqlite, SqliteConnection, SqlitePool};
use std::ops::{Deref, DerefMut};

/// An open write transaction; `&mut *tx` is its connection.
pub struct SqliteTx {
    conn: Option<PoolConnection<Sqlite>>,
}

impl SqliteTx {
    /// Takes the writer and opens `BEGIN IMMEDIATE` (the write lock at once).
    pub async fn begin(pool: &SqlitePool) -> sqlx::Result<SqliteTx> {
        let mut conn = pool.acquire().await?;
        sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await?;
        Ok(SqliteTx { conn: Some(conn) })
    }

    /// Commits; on failure makes sure nothing stays open and returns the error.
    pub async fn commit(mut self) -> sqlx::Result<()> {
        let mut conn = self.conn.take().expect("an open transaction");
        match sqlx::query("COMMIT").execute(&mut *conn).await {
            Ok(_) => Ok(()),
            Err(e) => {
                let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
                Err(e)
            }
        }
    }
}

impl Deref for SqliteTx {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        self.conn.as_ref().expect("an open transaction")
    }
}

impl DerefMut for SqliteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.conn.as_mut().expect("an open transaction")
    }
}

impl Drop for SqliteTx {
    fn drop(&mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if sqlx::query("ROLLBACK").execute(&mut *conn).await.is_err() {
                        conn.close_on_drop();
                    }
                });
            }
            Err(_) => conn.close_on_drop(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::SqlitePoolOptions;

    async fn pool() -> SqlitePool {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        sqlx::query("CREATE TABLE t (x INTEGER)")
            .execute(&pool)
            .await
            .unwrap();
        pool
    }

    #[tokio::test]
    async fn a_dropped_transaction_is_rolled_back_and_the_writer_stays_usable() {
        let pool = pool().await;
        {
            let mut tx = SqliteTx::begin(&pool).await.unwrap();
            sqlx::query("INSERT INTO t VALUES (1)")
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        let mut tx = SqliteTx::begin(&pool).await.unwrap();
        sqlx::query("INSERT INTO t VALUES (2)")
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let rows: Vec<i64> = sqlx::query_scalar("SELECT x FROM t")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(rows, [2]);
    }

    #[tokio::test]
    async fn after_a_failed_commit_the_writer_can_begin_again() {
        let pool = pool().await;
        let mut tx = SqliteTx::begin(&pool).await.unwrap();
        // End the transaction behind the wrapper's back: COMMIT now fails, as after
        // SQLite rolled back by itself on a full disk.
        sqlx::query("ROLLBACK").execute(&mut *tx).await.unwrap();
        assert!(tx.commit().await.is_err());
        let tx = SqliteTx::begin(&pool).await.expect("the writer is usable");
        tx.commit().await.unwrap();
    }
}
