//! Prometheus metrics (`GET /metrics`, OpenMetrics text).
//!
//! Invariant: counters only ever grow and are updated where the event happens (request
//! finished, job finished); gauges of stored state (queue depth, jobs by state) are read
//! from the store at scrape time, so they are right after a restart too.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

type Labels = Vec<(&'static str, String)>;

/// Every metric of the service.
pub struct Metrics {
    registry: Registry,
    /// Jobs accepted (including batch jobs when inserted).
    pub jobs_submitted: Counter,
    /// Jobs ended, by `state` and `verdict`.
    pub jobs_finished: Family<Labels, Counter>,
    /// Nodes searched by the solver threads.
    pub solver_nodes: Counter,
    /// Seconds the solver threads spent searching.
    pub solver_seconds: Counter<f64, AtomicU64>,
    /// Solver threads busy now.
    pub solvers_busy: Gauge,
    /// Solver threads in the pool.
    pub solvers: Gauge,
    /// The node's memory budget, in bytes (`solver.memory_mb`).
    pub memory_budget: Gauge,
    /// Bytes of the budget that searches may draw by the job (the budget less the
    /// threads' tables).
    pub search_memory: Gauge,
    /// Bytes of that drawn by running searches now.
    pub search_memory_in_use: Gauge,
    /// Wall time of each solve.
    pub solve_seconds: Histogram,
    /// Queued jobs (set at scrape).
    pub queue_depth: Gauge,
    /// Jobs by state (set at scrape).
    pub jobs: Family<Labels, Gauge>,
    /// Request latency by method, route and status.
    pub http_seconds: Family<Labels, Histogram>,
    /// Deepening searches of stored unknowns, by `outcome`: `improved` (now exact),
    /// `unknown` (stored with the larger limits), `preempted` (a user job came),
    /// `failed`.
    pub deepen_searches: Family<Labels, Counter>,
    /// Seconds spent deepening.
    pub deepen_seconds: Counter<f64, AtomicU64>,
    /// 1, labelled with this node's id.
    pub node: Family<Labels, Gauge>,
    /// Creations refused with 429 (rate limit or queued-jobs cap), by `reason`.
    pub refused: Family<Labels, Counter>,
    /// Requests refused with 401.
    pub unauthorized: Counter,
    /// Jobs and batches created by holders of a token, by the token's `name`.
    pub created_by_token: Family<Labels, Counter>,
    /// Requests answered at once although they asked to wait (`limits.max_waiters` or
    /// `limits.max_waiters_per_client` reached).
    pub waits_refused: Counter,
    /// Requests that took longer than `server.request_timeout_ms` (answered 503).
    pub timed_out: Counter,
    /// Times a running batch job gave way (paused) so that a single job could run.
    pub gave_way: Counter,
    /// Resets of the SQLite WAL, by `result`: `truncated` or `busy` (a long reader).
    pub wal_resets: Family<Labels, Counter>,
}

fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    /// Counts a creation refused with 429 for `reason` (`rate` or `queued`).
    pub fn count_refusal(&self, reason: &'static str) {
        self.refused
            .get_or_create(&vec![("reason", reason.to_string())])
            .inc();
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("gaps");
        let m = Metrics {
            registry: Registry::default(),
            jobs_submitted: Counter::default(),
            jobs_finished: Family::default(),
            solver_nodes: Counter::default(),
            solver_seconds: Counter::default(),
            solvers_busy: Gauge::default(),
            solvers: Gauge::default(),
            memory_budget: Gauge::default(),
            search_memory: Gauge::default(),
            search_memory_in_use: Gauge::default(),
            solve_seconds: Histogram::new(exponential_buckets(0.001, 2.0, 20)),
            queue_depth: Gauge::default(),
            jobs: Family::default(),
            http_seconds: Family::new_with_constructor(latency_histogram),
            deepen_searches: Family::default(),
            deepen_seconds: Counter::default(),
            node: Family::default(),
            refused: Family::default(),
            unauthorized: Counter::default(),
            created_by_token: Family::default(),
            waits_refused: Counter::default(),
            timed_out: Counter::default(),
            gave_way: Counter::default(),
            wal_resets: Family::default(),
        };
        registry.register(
            "sqlite_wal_resets",
            "Resets of the SQLite WAL past its size limit, by result (truncated, busy)",
            m.wal_resets.clone(),
        );
        registry.register(
            "waits_refused",
            "Requests answered without the wait they asked for (wait caps reached)",
            m.waits_refused.clone(),
        );
        registry.register(
            "batch_gave_way",
            "Times a running batch job paused so that a single job could run on its threads",
            m.gave_way.clone(),
        );
        registry.register(
            "timed_out",
            "Requests answered 503 after server.request_timeout_ms",
            m.timed_out.clone(),
        );
        registry.register(
            "refused",
            "Creations refused with 429, by reason (rate, queued)",
            m.refused.clone(),
        );
        registry.register(
            "unauthorized",
            "Requests refused with 401",
            m.unauthorized.clone(),
        );
        registry.register(
            "created_by_token",
            "Jobs and batches created, by token name",
            m.created_by_token.clone(),
        );
        registry.register("jobs_submitted", "Jobs accepted", m.jobs_submitted.clone());
        registry.register(
            "jobs_finished",
            "Jobs ended, by state and verdict",
            m.jobs_finished.clone(),
        );
        registry.register(
            "solver_nodes",
            "Nodes searched by the solver threads",
            m.solver_nodes.clone(),
        );
        registry.register(
            "solver_seconds",
            "Seconds spent searching; nodes/s = rate(nodes)/rate(seconds)",
            m.solver_seconds.clone(),
        );
        registry.register(
            "solvers_busy",
            "Solver threads busy now",
            m.solvers_busy.clone(),
        );
        registry.register("solvers", "Solver threads in the pool", m.solvers.clone());
        registry.register(
            "memory_budget_bytes",
            "The node's memory budget (solver.memory_mb)",
            m.memory_budget.clone(),
        );
        registry.register(
            "search_memory_bytes",
            "Memory of the budget that running searches may draw (the budget less the threads' tables)",
            m.search_memory.clone(),
        );
        registry.register(
            "search_memory_in_use_bytes",
            "Memory drawn by running searches now",
            m.search_memory_in_use.clone(),
        );
        registry.register(
            "solve_duration_seconds",
            "Wall time of each solve",
            m.solve_seconds.clone(),
        );
        registry.register(
            "queue_depth",
            "Jobs waiting for a solver",
            m.queue_depth.clone(),
        );
        registry.register("jobs", "Stored jobs by state", m.jobs.clone());
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency",
            m.http_seconds.clone(),
        );
        registry.register(
            "deepen_searches",
            "Searches of stored unknown verdicts on idle threads, by outcome",
            m.deepen_searches.clone(),
        );
        registry.register(
            "deepen_seconds",
            "Seconds spent deepening stored unknown verdicts",
            m.deepen_seconds.clone(),
        );
        registry.register("node", "This node (label node_id)", m.node.clone());
        Metrics { registry, ..m }
    }
}

impl Metrics {
    /// The OpenMetrics text of every metric.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}
