//! `gaps worker`: a node that only runs jobs (no HTTP API), for a database shared with
//! other nodes; `/metrics` and `/healthz` on an optional address.

use clap::Args;
use std::path::PathBuf;

/// Options of `gaps worker`; each overrides the configuration.
#[derive(Args, Debug)]
pub struct WorkerCmd {
    /// Database URL, usually `postgres://USER@HOST[:PORT]/DATABASE` (`database.url`).
    #[arg(long)]
    database: Option<String>,
    /// This node's id (`queue.node_id`; default `<hostname>-<pid>`).
    #[arg(long = "node-id")]
    node_id: Option<String>,
    /// Serve `/metrics` and `/healthz` on this address (none by default).
    #[arg(long)]
    metrics: Option<String>,
    /// Configuration file (TOML) applied over config/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Loads the configuration, applies the flags and runs jobs until SIGTERM or Ctrl-C.
pub fn run(cmd: WorkerCmd) -> anyhow::Result<()> {
    let mut config = super::load_config(cmd.config.as_deref(), cmd.database)?;
    if let Some(id) = cmd.node_id {
        config.queue.node_id = id;
    }
    let metrics = match cmd.metrics {
        Some(addr) => Some(
            addr.parse()
                .map_err(|e| super::input_error(format!("--metrics {addr:?}: {e}")))?,
        ),
        None => None,
    };
    if config.solver_threads() == 0 {
        return Err(super::input_error(
            "a worker needs solver threads (solver.threads is 0)".to_string(),
        ));
    }
    crate::service::init_logging(&config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("gaps-worker")
        .build()?;
    runtime.block_on(crate::service::work(config, metrics))
}
