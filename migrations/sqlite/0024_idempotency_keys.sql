-- Safe retries (docs/http.md, "Safe retries"): a client's `Idempotency-Key` on
-- `POST /v1/jobs` or `POST /v1/batches`, with the body it came with and the job or
-- batch it made. A key is reserved (target NULL) before the request is answered, given
-- its target once the job or batch is stored, and deleted if the request is refused.
CREATE TABLE idempotency_keys (
    -- The client: a token's name, or the peer address on an open service.
    client      TEXT    NOT NULL,
    -- `jobs` or `batches`: a key is a client's own for each route.
    route       TEXT    NOT NULL CHECK (route IN ('jobs', 'batches')),
    key         TEXT    NOT NULL,
    -- SHA-256 (hex) of the body, its object keys sorted.
    body_sha256 TEXT    NOT NULL,
    -- The job's or batch's id once stored; NULL while the request is being answered.
    target_id   TEXT,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (client, route, key)
) WITHOUT ROWID;

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
