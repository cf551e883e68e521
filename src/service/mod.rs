//! The HTTP solving service (docs/http.md): jobs API, bounded solver pool, SQLite or
//! PostgreSQL store, historical win rates, batches and operations endpoints.
//!
//! This file wires the node ([`serve`], [`work`]); its rooms stand in layers (none
//! imports another that imports it back, `tests/imports`), from the bottom:
//! - `config/` (what a node is told: the settings, validated once, and the tokens'
//!   names), `job` (a job's lifecycle: the state machine and the typed values it
//!   carries), `gaps/` (what a Gaps job searches);
//! - `store/`: the data (SQLite or PostgreSQL);
//! - `resources/`: what jobs share (`solver_pool`, `memory`, `metrics`);
//! - `runner/`: the lanes that claim jobs and run them on the solver threads;
//! - `morpion/`: Morpion's proofs and their units, run through the runner; `odds/`:
//!   the odds of a Gaps game whose shuffles are unknown, run through the runner;
//! - `loops/`: the background loops (`batch_filler`, `deepen`, `maintenance`);
//! - `api/`: the HTTP edge (routes; `model/`, the JSON shapes and their validation,
//!   whose rules the command line shares through `crate::request`; `error`, `access`,
//!   `wait_slots`, `listener`; and `state`, what every handler reaches).
//!
//! Invariants: the service knows the engine only through its public API (parse, deal,
//! solve); no solve runs on the async runtime; start-up runs the migrations and
//! re-queues jobs a crash left running before any request is served.

pub mod api;
pub mod config;
pub mod gaps;
pub mod job;
pub mod loops;
pub mod morpion;
pub mod odds;
pub mod resources;
pub mod runner;
pub mod store;

use api::access::Access;
use api::listener::ConnectionLimits;
use api::state::AppState;
use api::wait_slots::WaitSlots;
use config::Config;
use job::Game;
use loops::batch_filler::BatchFiller;
use loops::{deepen, maintenance};
use resources::metrics::{Metrics, NodeLabels};
use runner::{Parts, PoolSize, QueueRole, Runner};
use std::sync::Arc;
use std::time::Duration;
use store::{Lease, Reclaimed, Store};
use tokio::task::JoinHandle;

/// A started service core: state for the router plus the lanes to await at shutdown.
pub struct Service {
    /// Shared state.
    pub state: AppState,
    lanes: Vec<JoinHandle<()>>,
}

impl Service {
    /// Opens the store (migrating it), recovers interrupted jobs, resumes unfinished
    /// batches and starts the solver lanes.
    pub async fn start(config: Config) -> anyhow::Result<Service> {
        let store = Store::open(
            &config.database.url,
            &config.database.synchronous,
            config.database.readers,
        )
        .await?;
        let node_id = config.node_id();
        let max_attempts = i64::from(config.queue.max_attempts);
        // SQLite has one node, this one: whatever it left running was interrupted. On
        // PostgreSQL other nodes may be running jobs: take back only expired leases.
        let back = if store.backend() == "sqlite" {
            store.recover(max_attempts).await?
        } else {
            store.reclaim_expired(max_attempts).await?
        };
        if back != Reclaimed::default() {
            tracing::info!(?back, "took back jobs interrupted by a stop");
        }
        let metrics = Arc::new(Metrics::default());
        metrics
            .node
            .get_or_create(&NodeLabels {
                node_id: node_id.clone(),
            })
            .set(1);
        metrics
            .memory_budget
            .set(i64::try_from(config.memory_mb() << 20).unwrap_or(i64::MAX));
        let threads = config.solver_threads();
        let pool = PoolSize {
            threads,
            table_mb: config.solver.table_mb,
            search_memory_mb: config.search_memory_mb(),
            priority: config.solver.priority,
            spill_dir: config.solver.spill_dir.clone(),
        };
        let lease = Lease {
            node_id: node_id.clone(),
            duration: Duration::from_millis(config.queue.lease_ms),
        };
        let role = QueueRole {
            lease,
            heartbeat: Duration::from_millis(config.queue.heartbeat_ms),
        };
        // Each kind of job: its one line of registration.
        let parts = Parts::default()
            .with(Game::Gaps, gaps::GapsSearches)
            .with(Game::Morpion, morpion::Proofs::default())
            .with(Game::Odds, odds::OddsAnswers);
        let (runner, lanes) = Runner::start(store.clone(), metrics.clone(), pool, role, parts)?;
        maintenance::start(&config, &runner, &store, &metrics);
        let batches = Arc::new(BatchFiller::new(
            runner.clone(),
            store.clone(),
            metrics.clone(),
        ));
        let filler = batches.clone();
        tokio::spawn(async move {
            if let Err(e) = filler.fill_batches().await {
                tracing::error!(error = %e, "resuming batches failed");
            }
        });
        tracing::info!(
            node_id,
            backend = store.backend(),
            threads,
            table_mb = config.solver.table_mb,
            memory_mb = config.memory_mb(),
            search_memory_mb = config.search_memory_mb(),
            deepen = config.deepen.enabled,
            "solver pool started"
        );
        let config = Arc::new(config);
        if config.deepen.enabled {
            tokio::spawn(deepen::run(
                runner.clone(),
                store.clone(),
                metrics.clone(),
                config.clone(),
            ));
        }
        Ok(Service {
            state: AppState {
                access: Arc::new(Access::new(&config)),
                waits: WaitSlots::new(
                    config.limits.max_waiters,
                    config.limits.max_waiters_per_client,
                ),
                config,
                store,
                runner,
                batches,
                metrics,
            },
            lanes,
        })
    }

    /// The router over this service.
    pub fn router(&self) -> axum::Router {
        api::router(self.state.clone())
    }

    /// Stops taking work, stops running solves (re-queueing them), waits for the lanes
    /// up to the configured grace period and closes the store.
    pub async fn shutdown(self) {
        self.state.runner.begin_shutdown();
        let grace = Duration::from_secs(self.state.config.server.shutdown_grace_s);
        let all = futures_join(self.lanes);
        if tokio::time::timeout(grace, all).await.is_err() {
            tracing::warn!("solver lanes did not stop in time; their jobs re-run at next start");
        }
        self.state.store.close().await;
    }
}

async fn futures_join(handles: Vec<JoinHandle<()>>) {
    for h in handles {
        let _ = h.await;
    }
}

/// Serves until SIGTERM or Ctrl-C, then shuts down gracefully.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let addr = config.listen_addr()?;
    let service = Service::start(config).await?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(address = %listener.local_addr()?, "listening");
    let runner = service.state.runner.clone();
    let limits = ConnectionLimits::of(&service.state.config);
    api::listener::serve(listener, service.router(), limits, async move {
        shutdown_signal().await;
        tracing::info!("shutting down: no new jobs; running solves are re-queued");
        runner.begin_shutdown();
    })
    .await;
    service.shutdown().await;
    tracing::info!("stopped");
    Ok(())
}

/// Runs jobs (no HTTP API) until SIGTERM or Ctrl-C, then shuts down gracefully;
/// `/metrics` and `/healthz` on `metrics_addr` if given.
pub async fn work(
    config: Config,
    metrics_addr: Option<std::net::SocketAddr>,
) -> anyhow::Result<()> {
    let service = Service::start(config).await?;
    let metrics = match metrics_addr {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            tracing::info!(address = %listener.local_addr()?, "metrics listening");
            let router = api::operations_router(service.state.clone());
            Some(tokio::spawn(async move {
                let _ = axum::serve(listener, router).await;
            }))
        }
        None => None,
    };
    tracing::info!("worker running");
    shutdown_signal().await;
    tracing::info!("shutting down: running solves are re-queued");
    if let Some(task) = metrics {
        task.abort();
    }
    service.shutdown().await;
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}

/// Installs the global log subscriber (binary only; tests do not call it).
pub fn init_logging(config: &Config) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&config.log.filter));
    // A log line that cannot be written (stderr on a full disk) is dropped: by
    // default the subscriber would report that with `eprintln!`, which panics when
    // stderr fails, and every request that logs would lose its connection.
    let builder = tracing_subscriber::fmt()
        .log_internal_errors(false)
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = if config.log.format == "json" {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
