//! `gaps results`: a batch's results from the database, as `GET /v1/batches/{id}/results`
//! gives them (NDJSON, or CSV with `--csv`), streamed to standard output.

use crate::service::store::{csv_line, ndjson_line, Store, CSV_HEADER, ODDS_CSV_HEADER};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Options of `gaps results`.
#[derive(Args, Debug)]
pub struct ResultsCmd {
    /// The batch's id.
    #[arg(long)]
    batch: String,
    /// Database URL (`sqlite://PATH` or `postgres://...`; default `database.url`).
    #[arg(long)]
    database: Option<String>,
    /// CSV with a header line instead of NDJSON.
    #[arg(long)]
    csv: bool,
    /// Configuration file (TOML) applied over config/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Streams the batch's rows in deal order; exit 2 if there is no such batch.
pub fn run(cmd: ResultsCmd) -> anyhow::Result<()> {
    let config = super::load_config(cmd.config.as_deref(), cmd.database)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let store = Store::open(&config.database.url, &config.database.synchronous, 1).await?;
        let Some(batch) = store.batch(&cmd.batch).await? else {
            return Err(super::input_error(format!("no batch {:?}", cmd.batch)));
        };
        let odds = batch.spec.odds_samples.is_some();
        let (sender, mut rows) = tokio::sync::mpsc::channel(512);
        let id = cmd.batch.clone();
        let reader = store.clone();
        let reading = tokio::spawn(async move { reader.stream_batch_results(&id, sender).await });
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        if cmd.csv {
            let header = if odds { ODDS_CSV_HEADER } else { CSV_HEADER };
            out.write_all(header.as_bytes())?;
        }
        while let Some(row) = rows.recv().await {
            let row = row?;
            let line = if cmd.csv {
                csv_line(&row, odds)
            } else {
                ndjson_line(&row)
            };
            out.write_all(line.as_bytes())?;
        }
        out.flush()?;
        reading.await??;
        store.close().await;
        Ok(())
    })
}
