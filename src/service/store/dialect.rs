//! What differs between the backends' SQL ([`Dialect`]): every query is written once
//! and the few phrases the two backends spell differently are taken from here.
//!
//! Invariant: the two dialects give the same meaning (the same text form of a time, the
//! same rows locked or not); a query reads a field here rather than naming a backend.

/// What differs between the backends' SQL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dialect {
    /// "Now" as RFC 3339 UTC text with milliseconds.
    pub now: &'static str,
    /// The lock clause of the sub-select that picks a job to claim.
    pub claim_lock: &'static str,
    /// "Now" in milliseconds since the Unix epoch, as an integer.
    pub now_ms: &'static str,
    /// The statement that makes concurrent finishes wait while the effort aggregates
    /// are rebuilt (empty on SQLite, whose write transactions already exclude each
    /// other).
    pub lock_effort: &'static str,
    /// Rows each aggregate value is spread over (see `stats`).
    pub aggregate_shards: u64,
    /// "Now" minus `$1` days, in the text form of the timestamps.
    pub days_ago: &'static str,
    /// The larger of two values.
    pub greatest: &'static str,
    /// Whether a `WITH` may hold an `UPDATE ... RETURNING` whose rows the statement's
    /// `SELECT` joins (PostgreSQL; SQLite has no data-modifying `WITH`): a claim then
    /// reads the claimed job with its kind's row in the same round trip.
    pub update_in_with: bool,
    /// The number at `path` (keys from the root) of JSON column `column`, as a real.
    pub json_number: fn(column: &str, path: &[&str]) -> String,
    /// "Now" minus the seconds in query parameter `param` (an integer), in the text
    /// form of the timestamps.
    pub seconds_ago: fn(param: &str) -> String,
}

fn sqlite_seconds_ago(param: &str) -> String {
    format!("strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || {param} || ' seconds')")
}

fn postgres_seconds_ago(param: &str) -> String {
    format!(
        "to_char((clock_timestamp() - make_interval(secs => CAST({param} AS DOUBLE PRECISION)))
             AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    )
}

fn sqlite_json_number(column: &str, path: &[&str]) -> String {
    format!(
        "CAST(json_extract({column}, '$.{}') AS REAL)",
        path.join(".")
    )
}

fn postgres_json_number(column: &str, path: &[&str]) -> String {
    format!(
        "CAST(({column} #>> '{{{}}}') AS DOUBLE PRECISION)",
        path.join(",")
    )
}

pub(crate) const SQLITE: Dialect = Dialect {
    now: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
    claim_lock: "",
    now_ms: "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
    lock_effort: "",
    aggregate_shards: 1,
    days_ago: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || $1 || ' days')",
    greatest: "MAX",
    update_in_with: false,
    json_number: sqlite_json_number,
    seconds_ago: sqlite_seconds_ago,
};

pub(crate) const POSTGRES: Dialect = Dialect {
    now: "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')",
    claim_lock: "FOR UPDATE SKIP LOCKED",
    now_ms: "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
    lock_effort: "LOCK TABLE effort_totals, effort_histogram IN EXCLUSIVE MODE",
    aggregate_shards: 8,
    days_ago: "to_char((clock_timestamp() - make_interval(days => $1)) AT TIME ZONE 'UTC',
        'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')",
    greatest: "GREATEST",
    update_in_with: true,
    json_number: postgres_json_number,
    seconds_ago: postgres_seconds_ago,
};
