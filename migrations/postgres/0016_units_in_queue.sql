-- The units of a shared Morpion proof join the one queue (docs/nodes.md, "The queue"):
-- each is a job of its own (`game` = 'morpion', `parent_id` = the proof's id, id
-- `<proof>-u<unit>`), claimed, renewed, fenced, taken back and cancelled as any job,
-- queued in the batch class (a proof's units are served like a batch's deals, in
-- turn with other clients'). `morpion_units` keeps what only a unit has: its index
-- in the proof's frontier, whether its search was complete, and its longest line.
ALTER TABLE jobs ADD COLUMN parent_id TEXT;
CREATE INDEX jobs_parent ON jobs (parent_id, state) WHERE parent_id IS NOT NULL;

-- The units stored so far become jobs: a running one goes back to the queue (its node
-- stopped with the service, or is taken back as any job's would be).
INSERT INTO jobs (id, game, state, variant, algorithm, position, suits, ranks,
    limit_nodes, limit_time_ms, threads, created_by, stopped, nodes, elapsed_ms,
    attempts, progress_nodes, queue_class, turn, parent_id, started_at, finished_at)
SELECT u.job_id || '-u' || u.unit, 'morpion',
    CASE u.state WHEN 'done' THEN 'done' ELSE 'queued' END,
    p.variant, 'endgame', '', 0, 0, p.limit_nodes, p.limit_time_ms, 1, p.created_by,
    u.stopped, u.nodes, u.elapsed_ms, u.attempts,
    CASE u.state WHEN 'done' THEN u.progress_nodes ELSE 0 END, 1, 0, u.job_id,
    CASE u.state WHEN 'done' THEN p.started_at END,
    CASE u.state WHEN 'done' THEN p.started_at END
FROM morpion_units u JOIN jobs p ON p.id = u.job_id
ORDER BY u.job_id, u.unit;

CREATE TABLE morpion_unit_results (
    -- The unit's job.
    id       TEXT    PRIMARY KEY,
    unit     BIGINT  NOT NULL,
    complete BOOLEAN,
    -- The longest line through the unit from the split root, as MSR moves.
    line     JSONB
);
INSERT INTO morpion_unit_results (id, unit, complete, line)
SELECT job_id || '-u' || unit, unit, complete, line FROM morpion_units;
DROP TABLE morpion_units;
ALTER TABLE morpion_unit_results RENAME TO morpion_units;
