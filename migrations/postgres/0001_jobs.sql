-- Jobs, batches and the best verdict known per (variant, canonical position): the same
-- tables and columns as the SQLite schema (migrations/sqlite), in PostgreSQL types.
-- Timestamps are UTC RFC 3339 text with milliseconds, as on SQLite.

CREATE TABLE batches (
    seq           BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT    NOT NULL UNIQUE,
    variant       TEXT    NOT NULL,
    algorithm     TEXT    NOT NULL,
    suits         BIGINT  NOT NULL,
    ranks         BIGINT  NOT NULL,
    seed          BIGINT  NOT NULL,
    count         BIGINT  NOT NULL,
    limit_nodes   BIGINT,
    limit_time_ms BIGINT  NOT NULL,
    -- Jobs of the batch inserted so far (they are inserted in short transactions).
    materialized  BIGINT  NOT NULL DEFAULT 0,
    created_at    TEXT    NOT NULL
                  DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    limit_probes  BIGINT,
    threads       BIGINT  NOT NULL DEFAULT 1
);

CREATE TABLE jobs (
    seq              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               TEXT    NOT NULL UNIQUE,
    state            TEXT    NOT NULL
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    variant          TEXT    NOT NULL,
    algorithm        TEXT    NOT NULL,
    position         TEXT    NOT NULL,
    suits            BIGINT  NOT NULL,
    ranks            BIGINT  NOT NULL,
    deal_seed        BIGINT,
    limit_nodes      BIGINT,
    limit_time_ms    BIGINT  NOT NULL,
    table_mb         BIGINT,
    search_seed      BIGINT  NOT NULL DEFAULT 0,
    batch_id         TEXT REFERENCES batches (id),
    verdict          TEXT CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution         JSONB,
    stats            JSONB,
    stopped          TEXT,
    used_algorithm   TEXT,
    nodes            BIGINT,
    elapsed_ms       DOUBLE PRECISION,
    cached           BOOLEAN NOT NULL DEFAULT FALSE,
    error            TEXT,
    attempts         BIGINT  NOT NULL DEFAULT 0,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    created_at       TEXT    NOT NULL
                     DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    started_at       TEXT,
    finished_at      TEXT,
    limit_probes     BIGINT,
    threads          BIGINT  NOT NULL DEFAULT 1
);

-- The queue: oldest queued job first.
CREATE INDEX jobs_queued ON jobs (seq) WHERE state = 'queued';
CREATE INDEX jobs_running ON jobs (seq) WHERE state = 'running';
CREATE INDEX jobs_state ON jobs (state, seq);
CREATE INDEX jobs_batch ON jobs (batch_id, state) WHERE batch_id IS NOT NULL;

-- The best verdict known for each distinct position: an exact verdict is never
-- replaced; an `unknown` is replaced by any later verdict. `requested_algorithm`, the
-- limits, `table_mb` and `threads` say what a stored `unknown` tried, so it only
-- answers requests that would not search further.
CREATE TABLE verdicts (
    variant             TEXT    NOT NULL,
    position            TEXT    NOT NULL,
    suits               BIGINT  NOT NULL,
    ranks               BIGINT  NOT NULL,
    verdict             TEXT    NOT NULL CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution            JSONB,
    algorithm           TEXT    NOT NULL,
    nodes               BIGINT  NOT NULL,
    elapsed_ms          DOUBLE PRECISION NOT NULL,
    limit_nodes         BIGINT,
    limit_time_ms       BIGINT  NOT NULL,
    job_id              TEXT    NOT NULL,
    updated_at          TEXT    NOT NULL
                        DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    limit_probes        BIGINT,
    requested_algorithm TEXT    NOT NULL DEFAULT 'auto',
    table_mb            BIGINT,
    threads             BIGINT  NOT NULL DEFAULT 1,
    PRIMARY KEY (variant, position)
);

CREATE INDEX verdicts_size ON verdicts (variant, suits, ranks, verdict);
