-- Morpion Solitaire endgame proofs submitted as jobs (`"game": "morpion"`): a record,
-- the number of its moves kept (`from_move`) and limits; once done, the longest total
-- length found (`best`), whether the search was exhaustive (`proved`) and one longest
-- continuation (`line`, a JSON array in the record's format). Claimed under a lease
-- like the Gaps jobs (`node_id`, `lease_token`, `lease_until`); `progress_nodes` is
-- the node count the holder last wrote with its heartbeat.
CREATE TABLE morpion_jobs (
    seq              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               TEXT    NOT NULL UNIQUE,
    state            TEXT    NOT NULL
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    variant          TEXT    NOT NULL CHECK (variant IN ('5T', '5D')),
    record           TEXT    NOT NULL,
    record_length    BIGINT  NOT NULL,
    from_move        BIGINT  NOT NULL,
    limit_nodes      BIGINT,
    limit_time_ms    BIGINT  NOT NULL,
    threads          BIGINT  NOT NULL,
    created_by       TEXT,
    best             BIGINT,
    proved           BOOLEAN,
    improved         BOOLEAN,
    stopped          TEXT,
    nodes            BIGINT,
    elapsed_ms       DOUBLE PRECISION,
    line             JSONB,
    split_depth      BIGINT,
    units            BIGINT,
    threads_used     BIGINT,
    progress_nodes   BIGINT  NOT NULL DEFAULT 0,
    error            TEXT,
    attempts         BIGINT  NOT NULL DEFAULT 0,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    node_id          TEXT,
    lease_token      TEXT,
    lease_until      BIGINT,
    created_at       TEXT    NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    started_at       TEXT,
    finished_at      TEXT
);
CREATE INDEX morpion_jobs_queued ON morpion_jobs (seq) WHERE state = 'queued';
CREATE INDEX morpion_jobs_lease ON morpion_jobs (lease_until) WHERE state = 'running';
