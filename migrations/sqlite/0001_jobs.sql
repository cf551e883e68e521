-- Jobs, batches and the best verdict known per (variant, canonical position).
-- Timestamps are UTC RFC 3339 text written by SQLite itself.

CREATE TABLE batches (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT    NOT NULL UNIQUE,
    variant       TEXT    NOT NULL,
    algorithm     TEXT    NOT NULL,
    suits         INTEGER NOT NULL,
    ranks         INTEGER NOT NULL,
    seed          INTEGER NOT NULL,
    count         INTEGER NOT NULL,
    limit_nodes   INTEGER,
    limit_time_ms INTEGER NOT NULL,
    -- Jobs of the batch inserted so far (they are inserted in short transactions).
    materialized  INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE jobs (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,
    state            TEXT    NOT NULL
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    variant          TEXT    NOT NULL,
    algorithm        TEXT    NOT NULL,
    position         TEXT    NOT NULL,
    suits            INTEGER NOT NULL,
    ranks            INTEGER NOT NULL,
    deal_seed        INTEGER,
    limit_nodes      INTEGER,
    limit_time_ms    INTEGER NOT NULL,
    table_mb         INTEGER,
    search_seed      INTEGER NOT NULL DEFAULT 0,
    batch_id         TEXT REFERENCES batches (id),
    verdict          TEXT CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution         TEXT,
    stats            TEXT,
    stopped          TEXT,
    used_algorithm   TEXT,
    nodes            INTEGER,
    elapsed_ms       REAL,
    cached           INTEGER NOT NULL DEFAULT 0,
    error            TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    started_at       TEXT,
    finished_at      TEXT
);

-- The queue: oldest queued job first.
CREATE INDEX jobs_queued ON jobs (seq) WHERE state = 'queued';
CREATE INDEX jobs_running ON jobs (seq) WHERE state = 'running';
CREATE INDEX jobs_state ON jobs (state, seq);
CREATE INDEX jobs_batch ON jobs (batch_id, state) WHERE batch_id IS NOT NULL;

-- The best verdict known for each distinct position: an exact verdict is never
-- replaced; an `unknown` is replaced by any later verdict.
CREATE TABLE verdicts (
    variant       TEXT    NOT NULL,
    position      TEXT    NOT NULL,
    suits         INTEGER NOT NULL,
    ranks         INTEGER NOT NULL,
    verdict       TEXT    NOT NULL CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution      TEXT,
    algorithm     TEXT    NOT NULL,
    nodes         INTEGER NOT NULL,
    elapsed_ms    REAL    NOT NULL,
    limit_nodes   INTEGER,
    limit_time_ms INTEGER NOT NULL,
    job_id        TEXT    NOT NULL,
    updated_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (variant, position)
) WITHOUT ROWID;

CREATE INDEX verdicts_size ON verdicts (variant, suits, ranks, verdict);
