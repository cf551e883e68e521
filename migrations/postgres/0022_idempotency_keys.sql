-- Safe retries (docs/http.md, "Safe retries"): the columns are those of SQLite's
-- `idempotency_keys` (its migration says what each holds).
CREATE TABLE idempotency_keys (
    client      TEXT NOT NULL,
    route       TEXT NOT NULL CHECK (route IN ('jobs', 'batches')),
    key         TEXT NOT NULL,
    body_sha256 TEXT NOT NULL,
    target_id   TEXT,
    created_at  TEXT NOT NULL
        DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    PRIMARY KEY (client, route, key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
