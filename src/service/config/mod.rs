//! Service configuration: `config/default.toml` (compiled in), then an optional file,
//! then `GAPS_<SECTION>__<KEY>` environment variables, later sources winning.
//!
//! Invariant: a `Config` that left [`Config::load`] has been validated: sizes are
//! positive, caps are ordered (default time within the maximum) and the listen address
//! parses, so the rest of the service never re-checks them.

use crate::machine::{default_search_memory_bytes, physical_memory_bytes};
use figment::providers::{Env, Format, Toml};
use figment::Figment;
use gaps_engine::MIN_SIZED_BYTES;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::Path;

pub mod tokens;

/// How solver threads share the CPU with the rest of the node (configuration
/// `solver.priority`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SolverPriority {
    /// The same as every other thread.
    Normal,
    /// Nice 19: a solver gets a small share of a core that other threads want.
    Low,
    /// `SCHED_IDLE`: a solver runs only when no other thread of the machine is ready, so
    /// a request never waits for a search (measured in docs/performance.md).
    #[default]
    Idle,
}

/// The defaults, as shipped in `config/default.toml`.
pub const DEFAULT_TOML: &str = include_str!("../../../config/default.toml");

/// Everything the service reads from configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// HTTP listener.
    pub server: ServerConfig,
    /// The store (SQLite or PostgreSQL).
    pub database: DatabaseConfig,
    /// Solver pool.
    pub solver: SolverConfig,
    /// Caps and defaults of requests.
    pub limits: LimitsConfig,
    /// The job queue shared by the nodes of one database.
    pub queue: QueueConfig,
    /// Re-searching stored `unknown` verdicts on idle threads.
    pub deepen: DeepenConfig,
    /// Bearer tokens (docs/http.md, "Access and quotas").
    pub auth: AuthConfig,
    /// How long finished jobs are kept.
    pub retention: RetentionConfig,
    /// Logging.
    pub log: LogConfig,
}

/// Queue settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    /// This node's id, recorded on the jobs it runs and shown in logs and metrics
    /// (empty: `<hostname>-<pid>`).
    pub node_id: String,
    /// How long a claimed job stays this node's without a heartbeat, in milliseconds.
    pub lease_ms: u64,
    /// How often a running job's lease is renewed (and a cancel from another node is
    /// noticed), in milliseconds.
    pub heartbeat_ms: u64,
    /// Claims after which an abandoned job ends `failed` instead of going back to the
    /// queue.
    pub max_attempts: u32,
}

/// Retention settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionConfig {
    /// Finished jobs outside batches are deleted this many days after they ended;
    /// 0 keeps them forever. Known verdicts and statistics are always kept.
    pub finished_days: u32,
    /// Seconds between two sweeps.
    pub sweep_s: u64,
}

/// Access settings: who may write (and read).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Accepted bearer tokens; none = an open service. A list, or one comma-separated
    /// string (`GAPS_AUTH__TOKENS=a,b`).
    #[serde(deserialize_with = "list_or_commas")]
    pub tokens: Vec<String>,
    /// Whether reads need a token too (`/healthz` never does).
    pub protect_reads: bool,
    /// Names of the tokens that may cancel any job (others cancel only their own).
    #[serde(deserialize_with = "list_or_commas")]
    pub admins: Vec<String>,
}

/// A list of strings given as a list or as one comma-separated string (what an
/// environment variable holds); empty items are dropped.
fn list_or_commas<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Items {
        List(Vec<String>),
        Text(String),
    }
    let items = match Items::deserialize(d)? {
        Items::List(items) => items,
        Items::Text(text) => text.split(',').map(str::to_string).collect(),
    };
    Ok(items
        .into_iter()
        .map(|item| item.trim().to_string())
        .filter(|item| !item.is_empty())
        .collect())
}

/// Deepening settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeepenConfig {
    /// Re-search stored `unknown` verdicts while solver threads are idle.
    pub enabled: bool,
    /// Largest time limit of a deepening search (each round doubles the last one's).
    pub max_time_ms: u64,
}

/// HTTP listener settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on.
    pub listen: String,
    /// Largest request body in bytes.
    pub body_limit_bytes: usize,
    /// CORS origins (`*` for any).
    pub cors_origins: Vec<String>,
    /// Seconds a graceful shutdown waits for running solves.
    pub shutdown_grace_s: u64,
    /// Longest time, in milliseconds, from a request's arrival to its answer's headers
    /// (a streamed body may take longer); beyond it, 503.
    pub request_timeout_ms: u64,
    /// Longest time, in milliseconds, a client may take to send a request's headers
    /// (also how long an idle keep-alive connection stays open).
    pub header_read_timeout_ms: u64,
    /// Most connections open at once; further clients wait to be accepted.
    pub max_connections: usize,
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client (for rate
    /// limits, quotas and `created_by` on an open service). A list, or one
    /// comma-separated string.
    #[serde(deserialize_with = "ip_list")]
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

/// A list of IP addresses given as a list or as one comma-separated string.
fn ip_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<std::net::IpAddr>, D::Error> {
    list_or_commas(d)?
        .iter()
        .map(|item| {
            item.parse()
                .map_err(|_| serde::de::Error::custom(format!("{item:?} is not an IP address")))
        })
        .collect()
}

/// Store settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `sqlite://path` or `postgres://user@host/database`.
    pub url: String,
    /// `normal` or `full`.
    pub synchronous: String,
    /// Read-only connections (SQLite); PostgreSQL's pool has one more connection.
    pub readers: u32,
}

/// Solver pool settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverConfig {
    /// Solver threads: unset for one per core; 0 for none (an API-only node).
    pub threads: Option<usize>,
    /// Table budget per thread in MiB.
    pub table_mb: usize,
    /// The node's memory budget in MiB (unset: half the machine's memory): the solver
    /// threads' tables and every running search's memory come out of it
    /// ([`Config::search_memory_mb`]). `exact_memory_mb`, its former name, still reads.
    #[serde(default, alias = "exact_memory_mb")]
    pub memory_mb: Option<usize>,
    /// How solver threads share the CPU with the HTTP workers and the database.
    #[serde(default)]
    pub priority: SolverPriority,
    /// Directory for the solver threads' spill files: an exact search on one thread
    /// whose visited set fills its memory moves the set's keys there and goes on
    /// (unset: it stops at `memory_limit`).
    #[serde(default)]
    pub spill_dir: Option<std::path::PathBuf>,
}

/// Request caps and defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Time limit of a job that names none.
    pub default_time_ms: u64,
    /// Largest time limit.
    pub max_time_ms: u64,
    /// Largest node limit.
    pub max_nodes: u64,
    /// Largest probe limit.
    pub max_probes: u64,
    /// Most threads one job may ask for (0 = the solver threads).
    pub max_threads: usize,
    /// Longest wait a request may ask for.
    pub max_wait_ms: u64,
    /// Most requests waiting (`wait_ms`) at once on this node; beyond it a request is
    /// answered at once, without waiting.
    pub max_waiters: usize,
    /// Most of them from one client.
    pub max_waiters_per_client: usize,
    /// Most deals in one batch.
    pub max_batch_deals: u64,
    /// Default page size of job lists.
    pub default_page_size: u32,
    /// Largest page size.
    pub max_page_size: u32,
    /// Job and batch creations per second per client; 0 = no limit.
    pub rate_per_s: u32,
    /// Creations a client may make at once before the rate applies.
    pub rate_burst: u32,
    /// Most queued jobs one client may have (`POST /v1/jobs` beyond it: 429); 0 = no cap.
    pub max_queued_per_client: u64,
}

/// Logging settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// `pretty` or `json`.
    pub format: String,
    /// `tracing` filter (overridden by `RUST_LOG`).
    pub filter: String,
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A source could not be read or did not match the schema.
    #[error("configuration: {0}")]
    Source(#[from] Box<figment::Error>),
    /// A value is out of range.
    #[error("configuration: {0}")]
    Invalid(String),
}

impl Config {
    /// Defaults, then `file` if given, then `GAPS_*` variables.
    pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
        let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
        if let Some(file) = file {
            if !file.exists() {
                return Err(ConfigError::Invalid(format!(
                    "file {} does not exist",
                    file.display()
                )));
            }
            figment = figment.merge(Toml::file(file));
        }
        figment = figment.merge(Env::prefixed("GAPS_").split("__"));
        let config: Config = figment.extract().map_err(Box::new)?;
        config.validate()?;
        Ok(config)
    }

    /// The compiled-in defaults only (tests).
    pub fn defaults() -> Config {
        let config: Config = Figment::from(Toml::string(DEFAULT_TOML))
            .extract()
            .expect("config/default.toml matches Config");
        config.validate().expect("config/default.toml is valid");
        config
    }

    /// Solver threads, unset resolved to the number of cores (0: an API-only node).
    pub fn solver_threads(&self) -> usize {
        self.solver
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// The node's memory budget in MiB: `solver.memory_mb`, else the machine's default
    /// share (`machine::default_search_memory_bytes`).
    pub fn memory_mb(&self) -> usize {
        self.solver.memory_mb.unwrap_or_else(|| {
            usize::try_from(default_search_memory_bytes() >> 20).unwrap_or(usize::MAX)
        })
    }

    /// MiB a solver thread always holds: its table, and as much again for breadth-first
    /// search's buffers (kept between solves up to the table's size).
    pub fn memory_per_thread_mb(&self) -> usize {
        self.solver.table_mb.saturating_mul(2)
    }

    /// MiB of the budget left for the searches that draw memory by the job (the exact
    /// search, alone or in `auto` on `common`): the budget less what the solver threads
    /// (and the deepening thread) always hold.
    pub fn search_memory_mb(&self) -> usize {
        let threads = self.solver_threads() + usize::from(self.deepen.enabled);
        self.memory_mb()
            .saturating_sub(threads.saturating_mul(self.memory_per_thread_mb()))
    }

    /// Most threads one job may ask for: `limits.max_threads`, 0 resolved to the solver
    /// threads, never above the pool nor the engine's maximum.
    pub fn max_job_threads(&self) -> usize {
        let pool = self.solver_threads();
        let cap = if self.limits.max_threads == 0 {
            pool
        } else {
            self.limits.max_threads.min(pool)
        };
        cap.clamp(1, gaps_engine::MAX_SEARCH_THREADS)
    }

    /// This node's id: `queue.node_id`, or `<hostname>-<pid>`.
    pub fn node_id(&self) -> String {
        if !self.queue.node_id.is_empty() {
            return self.queue.node_id.clone();
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "gaps".into());
        format!("{host}-{}", std::process::id())
    }

    /// The listen address.
    pub fn listen_addr(&self) -> Result<SocketAddr, ConfigError> {
        self.server.listen.parse().map_err(|e| {
            ConfigError::Invalid(format!(
                "server.listen {:?} is not an address: {e}",
                self.server.listen
            ))
        })
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: &str| Err(ConfigError::Invalid(m.to_string()));
        self.listen_addr()?;
        if self.server.body_limit_bytes < 1024 {
            return bad("server.body_limit_bytes must be at least 1024");
        }
        let server = &self.server;
        if server.max_connections == 0 || server.max_connections > 1 << 20 {
            return bad("server.max_connections must be between 1 and 1048576");
        }
        if server.header_read_timeout_ms == 0 || server.header_read_timeout_ms > 3_600_000 {
            return bad("server.header_read_timeout_ms must be between 1 and 3600000");
        }
        // A request may wait `max_wait_ms` for a job; its answer must still fit.
        if server.request_timeout_ms < self.limits.max_wait_ms.saturating_add(1000)
            || server.request_timeout_ms > 86_400_000
        {
            return bad(
                "server.request_timeout_ms must be at least limits.max_wait_ms + 1000 and at most 86400000",
            );
        }
        if !matches!(self.database.synchronous.as_str(), "normal" | "full") {
            return bad("database.synchronous must be \"normal\" or \"full\"");
        }
        if self.database.readers == 0 {
            return bad("database.readers must be at least 1");
        }
        if let Err(e) = crate::spill::FileStore::for_solver(self.solver.spill_dir.as_deref()) {
            return bad(&format!("solver.spill_dir: {e}"));
        }
        if self.solver.table_mb == 0 || self.solver.table_mb > 1 << 20 {
            return bad("solver.table_mb must be between 1 and 1048576");
        }
        if let Some(mb) = self.solver.memory_mb {
            let machine_mb = physical_memory_bytes().map(|bytes| bytes >> 20);
            if machine_mb.is_some_and(|machine| mb as u64 > machine) {
                return bad(&format!(
                    "solver.memory_mb ({mb}) is more than this machine's memory ({} MiB)",
                    machine_mb.unwrap_or_default()
                ));
            }
        }
        let floor_mb = MIN_SIZED_BYTES >> 20;
        if self.solver_threads() > 0 && self.search_memory_mb() < floor_mb {
            return bad(&format!(
                "solver.memory_mb ({}) leaves {} MiB for searches after the solver threads' \
                 tables ({} threads at 2 x solver.table_mb = {} MiB each); searches need at \
                 least {floor_mb}",
                self.memory_mb(),
                self.search_memory_mb(),
                self.solver_threads() + usize::from(self.deepen.enabled),
                self.memory_per_thread_mb()
            ));
        }
        if self.limits.max_threads > gaps_engine::MAX_SEARCH_THREADS {
            return bad(&format!(
                "limits.max_threads must be at most {}",
                gaps_engine::MAX_SEARCH_THREADS
            ));
        }
        if self.solver.threads.is_some_and(|t| t > 1024) {
            return bad("solver.threads must be at most 1024");
        }
        let l = &self.limits;
        if l.max_time_ms == 0 || l.default_time_ms == 0 || l.default_time_ms > l.max_time_ms {
            return bad("limits: need 0 < default_time_ms <= max_time_ms");
        }
        if l.max_nodes == 0 || l.max_nodes > i64::MAX as u64 {
            return bad("limits.max_nodes must be between 1 and 2^63-1");
        }
        if l.max_probes == 0 || l.max_probes > i64::MAX as u64 {
            return bad("limits.max_probes must be between 1 and 2^63-1");
        }
        if l.max_batch_deals == 0 || l.max_batch_deals > 10_000_000 {
            return bad("limits.max_batch_deals must be between 1 and 10000000");
        }
        if l.max_waiters_per_client > l.max_waiters {
            return bad("limits: need max_waiters_per_client <= max_waiters");
        }
        if l.default_page_size == 0 || l.default_page_size > l.max_page_size {
            return bad("limits: need 0 < default_page_size <= max_page_size");
        }
        let q = &self.queue;
        if q.heartbeat_ms == 0 || q.lease_ms < 2 * q.heartbeat_ms || q.lease_ms > 86_400_000 {
            return bad("queue: need 0 < 2 * heartbeat_ms <= lease_ms <= 86400000");
        }
        if q.max_attempts == 0 {
            return bad("queue.max_attempts must be at least 1");
        }
        if q.node_id.len() > 200 {
            return bad("queue.node_id must be at most 200 bytes");
        }
        if self.deepen.max_time_ms == 0 || self.deepen.max_time_ms > i64::MAX as u64 {
            return bad("deepen.max_time_ms must be between 1 and 2^63-1");
        }
        if !matches!(self.log.format.as_str(), "pretty" | "json") {
            return bad("log.format must be \"pretty\" or \"json\"");
        }
        if self.retention.sweep_s == 0 || self.retention.sweep_s > 86_400 * 365 {
            return bad("retention.sweep_s must be between 1 and 31536000");
        }
        if l.rate_per_s > 0 && l.rate_burst == 0 {
            return bad("limits.rate_burst must be at least 1 when limits.rate_per_s is set");
        }
        let a = &self.auth;
        if a.tokens.iter().any(|t| t.chars().any(char::is_whitespace)) {
            return bad("auth.tokens: a token cannot hold spaces");
        }
        if a.protect_reads && a.tokens.is_empty() {
            return bad("auth.protect_reads needs auth.tokens");
        }
        let names: Vec<String> = a.tokens.iter().map(|t| tokens::token_name(t)).collect();
        if (1..names.len()).any(|k| names[..k].contains(&names[k])) {
            return bad("auth.tokens: two tokens have the same name");
        }
        if let Some(admin) = a.admins.iter().find(|n| !names.contains(n)) {
            return bad(&format!("auth.admins: no token is named {admin:?}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_come_as_a_list_or_as_one_comma_separated_string() {
        let load = |toml: &str| {
            Figment::from(Toml::string(DEFAULT_TOML))
                .merge(Toml::string(toml))
                .extract::<Config>()
                .unwrap()
        };
        let from_text = load("[auth]\ntokens = \"alice:s3cret, bob:x,,\"\nadmins = \"bob\"");
        assert_eq!(from_text.auth.tokens, ["alice:s3cret", "bob:x"]);
        assert_eq!(from_text.auth.admins, ["bob"]);
        assert!(from_text.validate().is_ok());
        let from_list = load("[auth]\ntokens = [\"alice:s3cret\"]");
        assert_eq!(from_list.auth.tokens, ["alice:s3cret"]);
        let mut bad = from_list.clone();
        bad.auth.admins = vec!["carol".into()];
        assert!(bad.validate().is_err(), "an admin with no token");
        let mut bad = from_list.clone();
        bad.auth.tokens.push("alice:other".into());
        assert!(bad.validate().is_err(), "two tokens named alice");
        let mut bad = Config::defaults();
        bad.auth.protect_reads = true;
        assert!(bad.validate().is_err(), "protected reads with no token");
    }

    #[test]
    fn defaults_are_valid() {
        let c = Config::defaults();
        assert_eq!(c.server.listen, "127.0.0.1:8080");
        assert!(c.solver_threads() >= 1);
    }

    #[test]
    fn file_overrides_defaults_and_bad_values_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[solver]\nthreads = 3\n").unwrap();
        assert_eq!(Config::load(Some(&path)).unwrap().solver.threads, Some(3));
        std::fs::write(&path, "[limits]\ndefault_time_ms = 0\n").unwrap();
        assert!(Config::load(Some(&path)).is_err());
        std::fs::write(&path, "[server]\nlisten = \"nowhere\"\n").unwrap();
        assert!(Config::load(Some(&path)).is_err());
        std::fs::write(&path, "[limits]\nmax_threads = 65\n").unwrap();
        assert!(Config::load(Some(&path)).is_err());
        std::fs::write(&path, "[solver]\nexact_memory_mb = 0\n").unwrap();
        assert!(Config::load(Some(&path)).is_err());
        // A node budget larger than the machine, or too small for any search: a clear
        // error at start.
        let machine_mb = physical_memory_bytes().unwrap() >> 20;
        std::fs::write(&path, format!("[solver]\nmemory_mb = {}\n", machine_mb + 1)).unwrap();
        let error = Config::load(Some(&path)).unwrap_err().to_string();
        assert!(error.contains("more than this machine's memory"), "{error}");
        std::fs::write(
            &path,
            "[solver]\nthreads = 2\ntable_mb = 64\nmemory_mb = 300\n",
        )
        .unwrap();
        let error = Config::load(Some(&path)).unwrap_err().to_string();
        assert!(error.contains("searches need at least 64"), "{error}");
        // The former name still reads; the budget less the threads' tables is the
        // searches' (two solver threads and the deepening thread at 2 x 64 MiB).
        std::fs::write(
            &path,
            "[solver]\nthreads = 2\ntable_mb = 64\nexact_memory_mb = 4096\n",
        )
        .unwrap();
        let config = Config::load(Some(&path)).unwrap();
        assert_eq!(config.memory_mb(), 4096);
        assert_eq!(config.search_memory_mb(), 4096 - 3 * 128);
        std::fs::write(&path, "[server]\nrequest_timeout_ms = 30999\n").unwrap();
        assert!(
            Config::load(Some(&path)).is_err(),
            "shorter than the longest wait"
        );
        std::fs::write(&path, "[server]\nmax_connections = 0\n").unwrap();
        assert!(Config::load(Some(&path)).is_err());
        std::fs::write(
            &path,
            "[limits]\nmax_waiters = 1\nmax_waiters_per_client = 2\n",
        )
        .unwrap();
        assert!(Config::load(Some(&path)).is_err());
        std::fs::write(&path, "[server]\ntypo = 1\n").unwrap();
        assert!(Config::load(Some(&path)).is_err());
        assert!(Config::load(Some(&dir.path().join("missing.toml"))).is_err());
    }
}
