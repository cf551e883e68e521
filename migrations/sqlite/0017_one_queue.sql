-- One queue for every kind of job (docs/nodes.md, "One queue"). `jobs` holds the life
-- of every job whatever its game: state, class and turn, lease, attempts, cancel,
-- times, the node count its holder last wrote (`progress_nodes`) and, once it ended,
-- `stopped`, `nodes`, `elapsed_ms` and `error`. What only one game has lives in that
-- game's table, one row per job with the job's id: a Morpion proof's record, K, split
-- and result in `morpion_proofs` (which was `morpion_jobs`, its life columns moved
-- here). The Gaps columns of `jobs` stay where they are (SQLite keeps NOT NULL until a
-- table is rebuilt): a Morpion job's row holds its variant (`5T`, `5D`) in `variant`,
-- `endgame` in `algorithm`, and no board (`position` empty, `suits` = `ranks` = 0).
ALTER TABLE jobs ADD COLUMN game TEXT NOT NULL DEFAULT 'gaps'
    CHECK (game IN ('gaps', 'morpion'));
ALTER TABLE jobs ADD COLUMN progress_nodes INTEGER NOT NULL DEFAULT 0;

-- The Morpion jobs, in the order they came; queued ones are single jobs ahead of any
-- turn (they were first in their own queue).
INSERT INTO jobs (id, game, state, variant, algorithm, position, suits, ranks,
    limit_nodes, limit_time_ms, threads, created_by, stopped, nodes, elapsed_ms, error,
    attempts, cancel_requested, node_id, lease_token, lease_until, created_at, started_at,
    finished_at, progress_nodes, queue_class, turn)
SELECT id, 'morpion', state, variant, 'endgame', '', 0, 0, limit_nodes, limit_time_ms,
    threads, created_by, stopped, nodes, elapsed_ms, error, attempts, cancel_requested,
    node_id, lease_token, lease_until, created_at, started_at, finished_at,
    progress_nodes, 0, 0
FROM morpion_jobs ORDER BY seq;

DROP INDEX morpion_jobs_queued;
DROP INDEX morpion_jobs_lease;
ALTER TABLE morpion_jobs DROP COLUMN state;
ALTER TABLE morpion_jobs DROP COLUMN variant;
ALTER TABLE morpion_jobs DROP COLUMN limit_nodes;
ALTER TABLE morpion_jobs DROP COLUMN limit_time_ms;
ALTER TABLE morpion_jobs DROP COLUMN threads;
ALTER TABLE morpion_jobs DROP COLUMN created_by;
ALTER TABLE morpion_jobs DROP COLUMN stopped;
ALTER TABLE morpion_jobs DROP COLUMN nodes;
ALTER TABLE morpion_jobs DROP COLUMN elapsed_ms;
ALTER TABLE morpion_jobs DROP COLUMN progress_nodes;
ALTER TABLE morpion_jobs DROP COLUMN error;
ALTER TABLE morpion_jobs DROP COLUMN attempts;
ALTER TABLE morpion_jobs DROP COLUMN cancel_requested;
ALTER TABLE morpion_jobs DROP COLUMN node_id;
ALTER TABLE morpion_jobs DROP COLUMN lease_token;
ALTER TABLE morpion_jobs DROP COLUMN lease_until;
ALTER TABLE morpion_jobs DROP COLUMN created_at;
ALTER TABLE morpion_jobs DROP COLUMN started_at;
ALTER TABLE morpion_jobs DROP COLUMN finished_at;
-- `morpion_units.job_id` follows the rename.
ALTER TABLE morpion_jobs RENAME TO morpion_proofs;

CREATE INDEX jobs_game ON jobs (game, seq);
