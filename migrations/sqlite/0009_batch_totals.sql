-- Job counts per batch, by state and by verdict, kept by triggers on `jobs`: every
-- insert, change of state or verdict, and delete of a batch's job adjusts its row in
-- the same transaction, whichever code wrote it. A batch's progress is then read from
-- one row: counting a million-deal batch's jobs took over a second, and a read that
-- long, repeated by every poller, kept the WAL from ever being reset.
CREATE TABLE batch_totals (
    batch_id   TEXT    NOT NULL,
    shard      INTEGER NOT NULL DEFAULT 0,
    queued     INTEGER NOT NULL DEFAULT 0,
    running    INTEGER NOT NULL DEFAULT 0,
    done       INTEGER NOT NULL DEFAULT 0,
    failed     INTEGER NOT NULL DEFAULT 0,
    cancelled  INTEGER NOT NULL DEFAULT 0,
    solvable   INTEGER NOT NULL DEFAULT 0,
    unsolvable INTEGER NOT NULL DEFAULT 0,
    unknown    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (batch_id, shard)
);

INSERT INTO batch_totals (batch_id, queued, running, done, failed, cancelled, solvable,
    unsolvable, unknown)
SELECT batch_id, SUM(state = 'queued'), SUM(state = 'running'), SUM(state = 'done'),
    SUM(state = 'failed'), SUM(state = 'cancelled'), SUM(verdict IS 'solvable'),
    SUM(verdict IS 'unsolvable'), SUM(verdict IS 'unknown')
FROM jobs WHERE batch_id IS NOT NULL GROUP BY batch_id;

CREATE TRIGGER jobs_batch_count_insert AFTER INSERT ON jobs
WHEN NEW.batch_id IS NOT NULL
BEGIN
    INSERT INTO batch_totals (batch_id) VALUES (NEW.batch_id)
        ON CONFLICT (batch_id, shard) DO NOTHING;
    UPDATE batch_totals SET
        queued = queued + (NEW.state = 'queued'),
        running = running + (NEW.state = 'running'),
        done = done + (NEW.state = 'done'),
        failed = failed + (NEW.state = 'failed'),
        cancelled = cancelled + (NEW.state = 'cancelled'),
        solvable = solvable + (NEW.verdict IS 'solvable'),
        unsolvable = unsolvable + (NEW.verdict IS 'unsolvable'),
        unknown = unknown + (NEW.verdict IS 'unknown')
    WHERE batch_id = NEW.batch_id AND shard = 0;
END;

CREATE TRIGGER jobs_batch_count_update AFTER UPDATE OF state, verdict ON jobs
WHEN NEW.batch_id IS NOT NULL
    AND (OLD.state IS NOT NEW.state OR OLD.verdict IS NOT NEW.verdict)
BEGIN
    UPDATE batch_totals SET
        queued = queued + (NEW.state = 'queued') - (OLD.state = 'queued'),
        running = running + (NEW.state = 'running') - (OLD.state = 'running'),
        done = done + (NEW.state = 'done') - (OLD.state = 'done'),
        failed = failed + (NEW.state = 'failed') - (OLD.state = 'failed'),
        cancelled = cancelled + (NEW.state = 'cancelled') - (OLD.state = 'cancelled'),
        solvable = solvable + (NEW.verdict IS 'solvable') - (OLD.verdict IS 'solvable'),
        unsolvable = unsolvable + (NEW.verdict IS 'unsolvable') - (OLD.verdict IS 'unsolvable'),
        unknown = unknown + (NEW.verdict IS 'unknown') - (OLD.verdict IS 'unknown')
    WHERE batch_id = NEW.batch_id AND shard = 0;
END;

CREATE TRIGGER jobs_batch_count_delete AFTER DELETE ON jobs
WHEN OLD.batch_id IS NOT NULL
BEGIN
    UPDATE batch_totals SET
        queued = queued - (OLD.state = 'queued'),
        running = running - (OLD.state = 'running'),
        done = done - (OLD.state = 'done'),
        failed = failed - (OLD.state = 'failed'),
        cancelled = cancelled - (OLD.state = 'cancelled'),
        solvable = solvable - (OLD.verdict IS 'solvable'),
        unsolvable = unsolvable - (OLD.verdict IS 'unsolvable'),
        unknown = unknown - (OLD.verdict IS 'unknown')
    WHERE batch_id = OLD.batch_id AND shard = 0;
END;
