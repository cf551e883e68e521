-- Morpion proofs shared between nodes: a job that asks for `units` is split once (by
-- the node that claims it) into the subtrees below a frontier of the search tree,
-- each a row here that any node claims under a lease, searches and stores; the node
-- that stores the last one concludes the job. Every node computes the same frontier
-- from the record (`units_total`, `split_depth` and `frontier_nodes` check that).
ALTER TABLE morpion_jobs ADD COLUMN split_units BIGINT;
ALTER TABLE morpion_jobs ADD COLUMN units_total BIGINT;
ALTER TABLE morpion_jobs ADD COLUMN frontier_nodes BIGINT;

CREATE TABLE morpion_units (
    job_id         TEXT    NOT NULL REFERENCES morpion_jobs (id),
    unit           BIGINT NOT NULL,
    state          TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    nodes          BIGINT,
    complete       BOOLEAN,
    stopped        TEXT,
    line           JSONB,
    elapsed_ms     DOUBLE PRECISION,
    progress_nodes BIGINT NOT NULL DEFAULT 0,
    attempts       BIGINT NOT NULL DEFAULT 0,
    node_id        TEXT,
    lease_token    TEXT,
    lease_until    BIGINT,
    PRIMARY KEY (job_id, unit)
);
CREATE INDEX morpion_units_queued ON morpion_units (job_id, unit) WHERE state = 'queued';
CREATE INDEX morpion_units_lease ON morpion_units (lease_until) WHERE state = 'running';
