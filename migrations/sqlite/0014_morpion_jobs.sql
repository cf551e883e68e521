-- Morpion Solitaire endgame proofs submitted as jobs (`"game": "morpion"`): a record,
-- the number of its moves kept (`from_move`) and limits; once done, the longest total
-- length found (`best`), whether the search was exhaustive (`proved`) and one longest
-- continuation (`line`, a JSON array in the record's format). Claimed under a lease
-- like the Gaps jobs (`node_id`, `lease_token`, `lease_until`); `progress_nodes` is
-- the node count the holder last wrote with its heartbeat.
CREATE TABLE morpion_jobs (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,
    state            TEXT    NOT NULL
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    variant          TEXT    NOT NULL CHECK (variant IN ('5T', '5D')),
    record           TEXT    NOT NULL,
    record_length    INTEGER NOT NULL,
    from_move        INTEGER NOT NULL,
    limit_nodes      INTEGER,
    limit_time_ms    INTEGER NOT NULL,
    threads          INTEGER NOT NULL,
    created_by       TEXT,
    best             INTEGER,
    proved           INTEGER,
    improved         INTEGER,
    stopped          TEXT,
    nodes            INTEGER,
    elapsed_ms       REAL,
    line             TEXT,
    split_depth      INTEGER,
    units            INTEGER,
    threads_used     INTEGER,
    progress_nodes   INTEGER NOT NULL DEFAULT 0,
    error            TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    node_id          TEXT,
    lease_token      TEXT,
    lease_until      INTEGER,
    created_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    started_at       TEXT,
    finished_at      TEXT
);
CREATE INDEX morpion_jobs_queued ON morpion_jobs (seq) WHERE state = 'queued';
CREATE INDEX morpion_jobs_lease ON morpion_jobs (lease_until) WHERE state = 'running';
