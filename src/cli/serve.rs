//! `gaps serve` (also what `gaps` with no arguments does): the HTTP service.

use clap::Args;
use std::path::PathBuf;

/// Options of `gaps serve`; each overrides the configuration.
#[derive(Args, Debug, Default)]
pub struct ServeCmd {
    /// Address to listen on (default 127.0.0.1:8080; `server.listen`).
    #[arg(long)]
    listen: Option<String>,
    /// Database URL: `sqlite://PATH` (default sqlite://data/gaps.db) or
    /// `postgres://USER@HOST[:PORT]/DATABASE` (`database.url`).
    #[arg(long)]
    database: Option<String>,
    /// Configuration file (TOML) applied over config/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Loads the configuration, applies the flags and serves until SIGTERM or Ctrl-C.
pub fn run(cmd: ServeCmd) -> anyhow::Result<()> {
    let mut config = super::load_config(cmd.config.as_deref(), cmd.database)?;
    if let Some(listen) = cmd.listen {
        config.server.listen = listen;
    }
    config
        .listen_addr()
        .map_err(|e| super::input_error(e.to_string()))?;
    crate::service::init_logging(&config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("gaps-http")
        .build()?;
    runtime.block_on(crate::service::serve(config))
}
