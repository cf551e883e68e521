-- Fair scheduling (docs/http.md, "Who runs first"). A queued job belongs to one of two
-- classes: 0, a job asked on its own (a person waiting), claimed before any of 1, a
-- batch's deal. Within a class, jobs are claimed by `turn`: a client's jobs take
-- consecutive turns from `client_turns`, starting no earlier than the class's
-- current turn, so the jobs of different clients alternate (start-time fair
-- queueing, with one job as the unit of service).
ALTER TABLE jobs ADD COLUMN queue_class INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET queue_class = 1 WHERE batch_id IS NOT NULL;
-- Jobs queued before this migration keep their order.
UPDATE jobs SET turn = seq WHERE state = 'queued';

CREATE TABLE client_turns (
    queue_class INTEGER NOT NULL,
    client      TEXT    NOT NULL,
    -- The turn this client's next job of the class takes at the earliest.
    next_turn   INTEGER NOT NULL,
    PRIMARY KEY (queue_class, client)
);
INSERT INTO client_turns (queue_class, client, next_turn)
SELECT queue_class, COALESCE(created_by, ''), MAX(turn) + 1 FROM jobs
WHERE state = 'queued' GROUP BY queue_class, COALESCE(created_by, '');

-- The queue: by class, then turn, then arrival.
DROP INDEX IF EXISTS jobs_queued;
CREATE INDEX jobs_queue ON jobs (queue_class, turn, seq) WHERE state = 'queued';
