//! Test support shared by the store's unit tests and the service's integration tests:
//! a PostgreSQL database of its own per test.
//!
//! Invariant: under `CI=true` an unreachable server fails the test; elsewhere it is
//! skipped with a message on stderr, so a machine without PostgreSQL still runs the
//! SQLite tests.

use sqlx::postgres::PgPoolOptions;
use std::time::Duration;

/// A PostgreSQL database created for one test, dropped (with its connections) with this
/// guard.
pub struct TempPgDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl TempPgDatabase {
    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TempPgDatabase {
    fn drop(&mut self) {
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        // Drop runs inside the test's runtime: drop the database from another thread.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                if let Ok(pool) = sqlx::PgPool::connect(&url).await {
                    let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    let _ = sqlx::query(&drop).execute(&pool).await;
                }
            });
        })
        .join();
    }
}

/// A fresh database on the server `GAPS_TEST_POSTGRES` (default
/// `postgres://postgres@127.0.0.1:5432/test`); `None` when the server cannot be reached
/// (see the module invariant).
pub async fn temp_pg_database() -> Option<TempPgDatabase> {
    let admin_url = std::env::var("GAPS_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let admin = PgPoolOptions::new()
        .acquire_timeout(Duration::from_secs(3))
        .connect(&admin_url)
        .await;
    let admin = match admin {
        Ok(pool) => pool,
        Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("PostgreSQL at {admin_url} unreachable ({e}): PostgreSQL test skipped");
            return None;
        }
        Err(e) => panic!("PostgreSQL at {admin_url} unreachable under CI=true: {e}"),
    };
    let name = format!("gaps_test_{}", uuid::Uuid::now_v7().simple());
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&admin)
        .await
        .expect("CREATE DATABASE");
    admin.close().await;
    let (server, _) = admin_url.rsplit_once('/').expect("a database URL");
    let url = format!("{server}/{name}");
    Some(TempPgDatabase {
        admin_url,
        name,
        url,
    })
}
