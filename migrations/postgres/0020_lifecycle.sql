-- `jobs` holds the life of a job only, whatever its kind, and a kind's own columns live
-- in the kind's table, one row per job with the job's id: the same tables as the
-- SQLite schema (migrations/sqlite/0022_lifecycle.sql, which says what each holds).
-- The Gaps columns of `jobs` move to `gaps_searches`; a Morpion proof's variant,
-- limits and threads to `morpion_proofs`; a unit's limits to `morpion_units`.

CREATE TABLE gaps_searches (
    id             TEXT    NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    variant        TEXT    NOT NULL,
    algorithm      TEXT    NOT NULL,
    position       TEXT    NOT NULL,
    suits          BIGINT  NOT NULL,
    ranks          BIGINT  NOT NULL,
    deal_seed      BIGINT,
    pysol          TEXT,
    redeals        BIGINT  NOT NULL DEFAULT 0,
    played         JSONB,
    review         BOOLEAN NOT NULL DEFAULT FALSE,
    limit_nodes    BIGINT,
    limit_time_ms  BIGINT  NOT NULL,
    limit_probes   BIGINT,
    table_mb       BIGINT,
    search_seed    BIGINT  NOT NULL DEFAULT 0,
    threads        BIGINT  NOT NULL DEFAULT 1,
    verdict        TEXT CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution       JSONB,
    stats          JSONB,
    used_algorithm TEXT,
    cached         BOOLEAN NOT NULL DEFAULT FALSE,
    played_answer  JSONB
);

INSERT INTO gaps_searches (id, variant, algorithm, position, suits, ranks, deal_seed,
    pysol, redeals, played, review, limit_nodes, limit_time_ms, limit_probes, table_mb,
    search_seed, threads, verdict, solution, stats, used_algorithm, cached, played_answer)
SELECT id, variant, algorithm, position, suits, ranks, deal_seed, pysol, redeals, played,
    review, limit_nodes, limit_time_ms, limit_probes, table_mb, search_seed, threads,
    verdict, solution, stats, used_algorithm, cached, played_answer
FROM jobs WHERE game = 'gaps';

-- Rows whose job was pruned (the next prune would delete them) hold no limits to copy.
DELETE FROM morpion_units u WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = u.id);
DELETE FROM morpion_proofs p WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = p.id);

ALTER TABLE morpion_proofs ADD COLUMN variant TEXT, ADD COLUMN limit_nodes BIGINT,
    ADD COLUMN limit_time_ms BIGINT, ADD COLUMN threads BIGINT;
UPDATE morpion_proofs p SET variant = j.variant, limit_nodes = j.limit_nodes,
    limit_time_ms = j.limit_time_ms, threads = j.threads
FROM jobs j WHERE j.id = p.id;
ALTER TABLE morpion_proofs ALTER COLUMN variant SET NOT NULL,
    ALTER COLUMN limit_time_ms SET NOT NULL, ALTER COLUMN threads SET NOT NULL;

ALTER TABLE morpion_units ADD COLUMN limit_nodes BIGINT, ADD COLUMN limit_time_ms BIGINT;
UPDATE morpion_units u SET limit_nodes = j.limit_nodes, limit_time_ms = j.limit_time_ms
FROM jobs j WHERE j.id = u.id;
ALTER TABLE morpion_units ALTER COLUMN limit_time_ms SET NOT NULL;

DROP TRIGGER jobs_batch_count_insert ON jobs;
DROP TRIGGER jobs_batch_count_update ON jobs;
DROP TRIGGER jobs_batch_count_delete ON jobs;
DROP TRIGGER jobs_pysol_game ON jobs;
DROP FUNCTION jobs_batch_count();
DROP FUNCTION jobs_pysol_game();
DROP INDEX jobs_played;

ALTER TABLE jobs DROP COLUMN variant, DROP COLUMN algorithm, DROP COLUMN position,
    DROP COLUMN suits, DROP COLUMN ranks, DROP COLUMN deal_seed, DROP COLUMN pysol,
    DROP COLUMN redeals, DROP COLUMN played, DROP COLUMN review,
    DROP COLUMN limit_nodes, DROP COLUMN limit_time_ms, DROP COLUMN limit_probes,
    DROP COLUMN table_mb, DROP COLUMN search_seed, DROP COLUMN threads,
    DROP COLUMN verdict, DROP COLUMN solution, DROP COLUMN stats,
    DROP COLUMN used_algorithm, DROP COLUMN cached, DROP COLUMN played_answer;

-- The same question answered again from the store: a done job of the same deal.
CREATE INDEX gaps_searches_played ON gaps_searches (variant, position)
    WHERE played IS NOT NULL;

-- Adds to batch `batch`'s counts, on the shard of this connection (0007_batch_totals.sql).
CREATE FUNCTION batch_count(batch TEXT, queued INT, running INT, done INT, failed INT,
    cancelled INT, solvable INT, unsolvable INT, unknown INT)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO batch_totals AS t
        (batch_id, shard, queued, running, done, failed, cancelled, solvable, unsolvable,
         unknown)
    VALUES (batch, pg_backend_pid() % 8, queued, running, done, failed, cancelled,
        solvable, unsolvable, unknown)
    ON CONFLICT (batch_id, shard) DO UPDATE SET
        queued = t.queued + excluded.queued,
        running = t.running + excluded.running,
        done = t.done + excluded.done,
        failed = t.failed + excluded.failed,
        cancelled = t.cancelled + excluded.cancelled,
        solvable = t.solvable + excluded.solvable,
        unsolvable = t.unsolvable + excluded.unsolvable,
        unknown = t.unknown + excluded.unknown;
$$;

-- A batch's counts by state, kept on `jobs`: the old row's state counted out (update,
-- delete), the new row's counted in (insert, update). A delete also counts out the
-- verdict of the job's search, read in a BEFORE trigger, while the search's row is
-- still there (the delete cascades to it).
CREATE FUNCTION jobs_batch_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_state TEXT := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.state END;
    new_state TEXT := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.state END;
    batch TEXT := CASE WHEN TG_OP = 'DELETE' THEN OLD.batch_id ELSE NEW.batch_id END;
    old_verdict TEXT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        SELECT verdict INTO old_verdict FROM gaps_searches WHERE id = OLD.id;
    END IF;
    PERFORM batch_count(batch,
        (new_state IS NOT DISTINCT FROM 'queued')::int - (old_state IS NOT DISTINCT FROM 'queued')::int,
        (new_state IS NOT DISTINCT FROM 'running')::int - (old_state IS NOT DISTINCT FROM 'running')::int,
        (new_state IS NOT DISTINCT FROM 'done')::int - (old_state IS NOT DISTINCT FROM 'done')::int,
        (new_state IS NOT DISTINCT FROM 'failed')::int - (old_state IS NOT DISTINCT FROM 'failed')::int,
        (new_state IS NOT DISTINCT FROM 'cancelled')::int - (old_state IS NOT DISTINCT FROM 'cancelled')::int,
        -(old_verdict IS NOT DISTINCT FROM 'solvable')::int,
        -(old_verdict IS NOT DISTINCT FROM 'unsolvable')::int,
        -(old_verdict IS NOT DISTINCT FROM 'unknown')::int);
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NULL END;
END;
$$;

CREATE TRIGGER jobs_batch_count_insert AFTER INSERT ON jobs
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL) EXECUTE FUNCTION jobs_batch_count();
CREATE TRIGGER jobs_batch_count_delete BEFORE DELETE ON jobs
    FOR EACH ROW WHEN (OLD.batch_id IS NOT NULL) EXECUTE FUNCTION jobs_batch_count();
CREATE TRIGGER jobs_batch_count_update AFTER UPDATE OF state ON jobs
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL AND OLD.state IS DISTINCT FROM NEW.state)
    EXECUTE FUNCTION jobs_batch_count();

-- A batch's counts by verdict, kept on `gaps_searches` (its job's row, which holds the
-- batch, is inserted first).
CREATE FUNCTION gaps_searches_batch_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_verdict TEXT := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.verdict END;
    batch TEXT;
BEGIN
    SELECT batch_id INTO batch FROM jobs WHERE id = NEW.id;
    IF batch IS NOT NULL THEN
        PERFORM batch_count(batch, 0, 0, 0, 0, 0,
            (NEW.verdict IS NOT DISTINCT FROM 'solvable')::int - (old_verdict IS NOT DISTINCT FROM 'solvable')::int,
            (NEW.verdict IS NOT DISTINCT FROM 'unsolvable')::int - (old_verdict IS NOT DISTINCT FROM 'unsolvable')::int,
            (NEW.verdict IS NOT DISTINCT FROM 'unknown')::int - (old_verdict IS NOT DISTINCT FROM 'unknown')::int);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER gaps_searches_batch_count_insert AFTER INSERT ON gaps_searches
    FOR EACH ROW WHEN (NEW.verdict IS NOT NULL) EXECUTE FUNCTION gaps_searches_batch_count();
CREATE TRIGGER gaps_searches_batch_count_update AFTER UPDATE OF verdict ON gaps_searches
    FOR EACH ROW WHEN (OLD.verdict IS DISTINCT FROM NEW.verdict)
    EXECUTE FUNCTION gaps_searches_batch_count();

-- A job's `pysol` is `game:number`, the number without leading zeros; a game in
-- progress does not ask about its deal.
CREATE FUNCTION gaps_searches_pysol_game() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (split_part(NEW.pysol, ':', 1), lpad(split_part(NEW.pysol, ':', 2), 21, '0'),
        NEW.variant, NEW.position)
    ON CONFLICT (game, number) DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER gaps_searches_pysol_game AFTER INSERT ON gaps_searches
    FOR EACH ROW WHEN (NEW.pysol IS NOT NULL AND NEW.played IS NULL)
    EXECUTE FUNCTION gaps_searches_pysol_game();
