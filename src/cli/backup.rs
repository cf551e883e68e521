//! `gaps backup --to FILE`: a consistent copy of a live SQLite store, taken with
//! `VACUUM INTO` while the service keeps running (readers and the writer are not
//! stopped; the copy is one read transaction's snapshot, compacted).
//!
//! Invariant: an existing FILE is never overwritten, and a PostgreSQL store is refused
//! with a pointer to `pg_dump`, its own consistent-copy tool.

use crate::service::store::Store;
use clap::Args;
use std::path::PathBuf;

/// Options of `gaps backup`.
#[derive(Args, Debug)]
pub struct BackupCmd {
    /// Where to write the copy (a new file; refused if it exists).
    #[arg(long)]
    to: PathBuf,
    /// Database URL (`sqlite://PATH`; default `database.url`).
    #[arg(long)]
    database: Option<String>,
    /// Configuration file (TOML) applied over config/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Writes the copy; exit 2 if the target exists or the store is not SQLite.
pub fn run(cmd: BackupCmd) -> anyhow::Result<()> {
    let config = super::load_config(cmd.config.as_deref(), cmd.database)?;
    if !config.database.url.starts_with("sqlite:") {
        return Err(super::input_error(
            "gaps backup copies SQLite stores; back up PostgreSQL with pg_dump",
        ));
    }
    if cmd.to.exists() {
        return Err(super::input_error(format!(
            "{} exists; the backup goes to a new file",
            cmd.to.display()
        )));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let store = Store::open(&config.database.url, &config.database.synchronous, 1).await?;
        store.backup_sqlite(&cmd.to).await?;
        store.close().await;
        eprintln!("backup written to {}", cmd.to.display());
        Ok(())
    })
}
