//! Prometheus metrics (`GET /metrics`, OpenMetrics text).
//!
//! Invariants: counters only ever grow and are updated where the event happens (request
//! finished, job finished); gauges of stored state (queue depth, jobs by state) are read
//! from the store at scrape time, so they are right after a restart too. Every label
//! is typed (a label set is a struct, a closed set of values an enum named here), so a
//! label's name and its values are written once and docs/http.md lists them all.

use crate::service::job::JobState;
use gaps_engine::Verdict;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

/// Enums whose values are label values, each written as its name.
macro_rules! label_values {
    ($($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? })+) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// The label value.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl EncodeLabelValue for $name {
            fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
                std::fmt::Write::write_str(encoder, self.name())
            }
        }
    )+};
}

label_values! {
    /// What kind of job ended (`game` of `gaps_jobs_finished_total`).
    JobKind {
        /// A Gaps search (a single job or a batch's).
        Gaps = "gaps",
        /// A Morpion proof (a single search, or the parent of shared units).
        Morpion = "morpion",
        /// One unit of a shared Morpion proof.
        MorpionUnit = "morpion_unit",
        /// The odds of a Gaps game whose shuffles are unknown.
        Odds = "odds",
    }
    /// What a job ended with (`verdict` of `gaps_jobs_finished_total`).
    EndVerdict {
        /// None: cancelled, failed, a unit (its proof has the verdict), or odds.
        None = "",
        /// A Gaps game won.
        Solvable = "solvable",
        /// A Gaps game proved lost.
        Unsolvable = "unsolvable",
        /// A Gaps search stopped at its limits.
        Unknown = "unknown",
        /// A Morpion proof that proved its bound.
        Proved = "proved",
        /// A Morpion search that ended without proving it.
        NotProved = "not_proved",
    }
    /// How a deepening search ended (`gaps_deepen_searches_total{outcome}`).
    DeepenOutcome {
        /// Now decided.
        Improved = "improved",
        /// Still unknown, stored with the larger limits.
        Unknown = "unknown",
        /// A user's job came and took the thread.
        Preempted = "preempted",
        /// The search or its store failed.
        Failed = "failed",
    }
    /// Why a creation was refused with 429 (`gaps_refused_total{reason}`).
    Refusal {
        /// The client's rate limit.
        Rate = "rate",
        /// The cap on queued jobs.
        Queued = "queued",
    }
    /// What a reset of the SQLite WAL did (`gaps_sqlite_wal_resets_total{result}`).
    WalResetResult {
        /// The WAL was truncated.
        Truncated = "truncated",
        /// A long reader held it back.
        Busy = "busy",
    }
}

impl From<Verdict> for EndVerdict {
    fn from(verdict: Verdict) -> EndVerdict {
        match verdict {
            Verdict::Solvable => EndVerdict::Solvable,
            Verdict::Unsolvable => EndVerdict::Unsolvable,
            Verdict::Unknown => EndVerdict::Unknown,
        }
    }
}

impl EncodeLabelValue for JobState {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        std::fmt::Write::write_str(encoder, self.name())
    }
}

/// `gaps_jobs_finished_total`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FinishedLabels {
    /// The kind of job.
    pub game: JobKind,
    /// Its final state (`done`, `cancelled`, `failed`).
    pub state: JobState,
    /// Its verdict.
    pub verdict: EndVerdict,
}

/// `gaps_jobs`' labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    /// The jobs' state.
    pub state: JobState,
}

/// `gaps_http_request_duration_seconds`' labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpLabels {
    /// The request's method.
    pub method: String,
    /// The route it matched (its template, `/v1/jobs/{id}`), or `unmatched`.
    pub route: String,
    /// The answer's status code.
    pub status: u16,
}

/// `gaps_deepen_searches_total`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeepenLabels {
    /// How the search ended.
    pub outcome: DeepenOutcome,
}

/// `gaps_refused_total`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RefusalLabels {
    /// Why.
    pub reason: Refusal,
}

/// `gaps_sqlite_wal_resets_total`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WalResetLabels {
    /// What the reset did.
    pub result: WalResetResult,
}

/// `gaps_node`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct NodeLabels {
    /// This node's id.
    pub node_id: String,
}

/// `gaps_created_by_token_total`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TokenLabels {
    /// The token's name (never its secret).
    pub name: String,
}

/// Every metric of the service.
pub struct Metrics {
    registry: Registry,
    /// Jobs accepted (including batch jobs when inserted).
    pub jobs_submitted: Counter,
    /// Jobs ended, by `state` and `verdict`.
    pub jobs_finished: Family<FinishedLabels, Counter>,
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
    pub jobs: Family<StateLabels, Gauge>,
    /// Request latency by method, route and status.
    pub http_seconds: Family<HttpLabels, Histogram>,
    /// Deepening searches of stored unknowns, by `outcome`: `improved` (now exact),
    /// `unknown` (stored with the larger limits), `preempted` (a user job came),
    /// `failed`.
    pub deepen_searches: Family<DeepenLabels, Counter>,
    /// Seconds spent deepening.
    pub deepen_seconds: Counter<f64, AtomicU64>,
    /// 1, labelled with this node's id.
    pub node: Family<NodeLabels, Gauge>,
    /// Creations refused with 429 (rate limit or queued-jobs cap), by `reason`.
    pub refused: Family<RefusalLabels, Counter>,
    /// Requests refused with 401.
    pub unauthorized: Counter,
    /// Jobs and batches created by holders of a token, by the token's `name`.
    pub created_by_token: Family<TokenLabels, Counter>,
    /// Requests answered at once although they asked to wait (`limits.max_waiters` or
    /// `limits.max_waiters_per_client` reached).
    pub waits_refused: Counter,
    /// Requests that took longer than `server.request_timeout_ms` (answered 503).
    pub timed_out: Counter,
    /// Times a running batch job gave way (paused) so that a single job could run.
    pub gave_way: Counter,
    /// Resets of the SQLite WAL, by `result`: `truncated` or `busy` (a long reader).
    pub wal_resets: Family<WalResetLabels, Counter>,
}

fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    /// Counts a creation refused with 429 for `reason`.
    pub fn count_refusal(&self, reason: Refusal) {
        self.refused.get_or_create(&RefusalLabels { reason }).inc();
    }

    /// Counts a job of `game` that ended in `state` with `verdict`.
    pub fn count_finished(&self, game: JobKind, state: JobState, verdict: EndVerdict) {
        self.jobs_finished
            .get_or_create(&FinishedLabels {
                game,
                state,
                verdict,
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_labels_render_as_docs_http_lists_them() {
        let m = Metrics::default();
        m.count_finished(JobKind::MorpionUnit, JobState::Done, EndVerdict::None);
        m.count_finished(JobKind::Gaps, JobState::Done, Verdict::Unsolvable.into());
        m.count_refusal(Refusal::Queued);
        m.http_seconds
            .get_or_create(&HttpLabels {
                method: "GET".into(),
                route: "/v1/jobs/{id}".into(),
                status: 404,
            })
            .observe(0.001);
        let text = m.render();
        for line in [
            r#"gaps_jobs_finished_total{game="morpion_unit",state="done",verdict=""} 1"#,
            r#"gaps_jobs_finished_total{game="gaps",state="done",verdict="unsolvable"} 1"#,
            r#"gaps_refused_total{reason="queued"} 1"#,
            r#"gaps_http_request_duration_seconds_count{method="GET",route="/v1/jobs/{id}",status="404"} 1"#,
        ] {
            assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
        }
    }
}
