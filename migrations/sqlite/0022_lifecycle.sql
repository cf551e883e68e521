-- `jobs` holds the life of a job only, whatever its kind (docs/nodes.md, "One queue"):
-- id, kind (`game`), the job it is a part of (`parent_id`) or the batch it belongs to
-- (`batch_id`), state, client, class and turn, lease, attempts, cancel, times, the
-- node count its holder last wrote and, once it ended, `stopped`, `nodes`,
-- `elapsed_ms` and `error`. What is a kind's own lives in the kind's table, one row
-- per job with the job's id, inserted in the job's transaction:
-- - a Gaps search in `gaps_searches` (new): its rules, position, source, limits,
--   played steps and, once done, verdict, solution, statistics and played answer;
-- - a Morpion proof in `morpion_proofs`, which now also holds its variant, limits and
--   threads (they were in `jobs`);
-- - a unit of a shared proof in `morpion_units`, which now also holds its limits.
--
-- The Gaps columns of `jobs` move to `gaps_searches` and are dropped from `jobs`;
-- the triggers and the index that named them are dropped first and made again on
-- `gaps_searches`, with the same effect: a batch's counts of states (kept on `jobs`)
-- and of verdicts (kept on `gaps_searches`), and the PySolFC game of a job that asks
-- about its deal.

CREATE TABLE gaps_searches (
    -- The job (a row of `jobs`, `game` = 'gaps'); deleted with it.
    id             TEXT    NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    variant        TEXT    NOT NULL,
    algorithm      TEXT    NOT NULL,
    -- Canonical notation (or a board game's `GAME:N`).
    position       TEXT    NOT NULL,
    suits          INTEGER NOT NULL,
    ranks          INTEGER NOT NULL,
    -- Our numbered deal, or the PySolFC game (`game:number`) it was submitted as.
    deal_seed      INTEGER,
    pysol          TEXT,
    redeals        INTEGER NOT NULL DEFAULT 0,
    -- A game in progress: the steps played since the deal, and whether it is reviewed.
    played         TEXT,
    review         INTEGER NOT NULL DEFAULT 0,
    limit_nodes    INTEGER,
    limit_time_ms  INTEGER NOT NULL,
    limit_probes   INTEGER,
    table_mb       INTEGER,
    search_seed    INTEGER NOT NULL DEFAULT 0,
    threads        INTEGER NOT NULL DEFAULT 1,
    verdict        TEXT CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution       TEXT,
    stats          TEXT,
    used_algorithm TEXT,
    cached         INTEGER NOT NULL DEFAULT 0,
    played_answer  TEXT
) WITHOUT ROWID;

INSERT INTO gaps_searches (id, variant, algorithm, position, suits, ranks, deal_seed,
    pysol, redeals, played, review, limit_nodes, limit_time_ms, limit_probes, table_mb,
    search_seed, threads, verdict, solution, stats, used_algorithm, cached, played_answer)
SELECT id, variant, algorithm, position, suits, ranks, deal_seed, pysol, redeals, played,
    review, limit_nodes, limit_time_ms, limit_probes, table_mb, search_seed, threads,
    verdict, solution, stats, used_algorithm, cached, played_answer
FROM jobs WHERE game = 'gaps';

-- Rows whose job was pruned (the next prune would delete them) hold no limits to copy.
DELETE FROM morpion_units WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = morpion_units.id);
DELETE FROM morpion_proofs WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = morpion_proofs.id);

-- A Morpion proof's variant (`5T`, `5D`), limits and threads.
ALTER TABLE morpion_proofs ADD COLUMN variant TEXT NOT NULL DEFAULT '5T';
ALTER TABLE morpion_proofs ADD COLUMN limit_nodes INTEGER;
ALTER TABLE morpion_proofs ADD COLUMN limit_time_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE morpion_proofs ADD COLUMN threads INTEGER NOT NULL DEFAULT 1;
UPDATE morpion_proofs SET variant = j.variant, limit_nodes = j.limit_nodes,
    limit_time_ms = j.limit_time_ms, threads = j.threads
FROM jobs j WHERE j.id = morpion_proofs.id;

-- A unit's limits (its proof's, copied when it was split).
ALTER TABLE morpion_units ADD COLUMN limit_nodes INTEGER;
ALTER TABLE morpion_units ADD COLUMN limit_time_ms INTEGER NOT NULL DEFAULT 0;
UPDATE morpion_units SET limit_nodes = j.limit_nodes, limit_time_ms = j.limit_time_ms
FROM jobs j WHERE j.id = morpion_units.id;

DROP TRIGGER jobs_batch_count_insert;
DROP TRIGGER jobs_batch_count_update;
DROP TRIGGER jobs_batch_count_delete;
DROP TRIGGER jobs_pysol_game;
DROP INDEX jobs_played;

ALTER TABLE jobs DROP COLUMN variant;
ALTER TABLE jobs DROP COLUMN algorithm;
ALTER TABLE jobs DROP COLUMN position;
ALTER TABLE jobs DROP COLUMN suits;
ALTER TABLE jobs DROP COLUMN ranks;
ALTER TABLE jobs DROP COLUMN deal_seed;
ALTER TABLE jobs DROP COLUMN pysol;
ALTER TABLE jobs DROP COLUMN redeals;
ALTER TABLE jobs DROP COLUMN played;
ALTER TABLE jobs DROP COLUMN review;
ALTER TABLE jobs DROP COLUMN limit_nodes;
ALTER TABLE jobs DROP COLUMN limit_time_ms;
ALTER TABLE jobs DROP COLUMN limit_probes;
ALTER TABLE jobs DROP COLUMN table_mb;
ALTER TABLE jobs DROP COLUMN search_seed;
ALTER TABLE jobs DROP COLUMN threads;
ALTER TABLE jobs DROP COLUMN verdict;
ALTER TABLE jobs DROP COLUMN solution;
ALTER TABLE jobs DROP COLUMN stats;
ALTER TABLE jobs DROP COLUMN used_algorithm;
ALTER TABLE jobs DROP COLUMN cached;
ALTER TABLE jobs DROP COLUMN played_answer;

-- The same question answered again from the store: a done job of the same deal.
CREATE INDEX gaps_searches_played ON gaps_searches (variant, position)
    WHERE played IS NOT NULL;

-- A batch's counts by state, kept on `jobs` (an insert, a change of state, a delete).
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
        cancelled = cancelled + (NEW.state = 'cancelled')
    WHERE batch_id = NEW.batch_id AND shard = 0;
END;

CREATE TRIGGER jobs_batch_count_update AFTER UPDATE OF state ON jobs
WHEN NEW.batch_id IS NOT NULL AND OLD.state IS NOT NEW.state
BEGIN
    UPDATE batch_totals SET
        queued = queued + (NEW.state = 'queued') - (OLD.state = 'queued'),
        running = running + (NEW.state = 'running') - (OLD.state = 'running'),
        done = done + (NEW.state = 'done') - (OLD.state = 'done'),
        failed = failed + (NEW.state = 'failed') - (OLD.state = 'failed'),
        cancelled = cancelled + (NEW.state = 'cancelled') - (OLD.state = 'cancelled')
    WHERE batch_id = NEW.batch_id AND shard = 0;
END;

-- A batch's job deleted: its state and, while its search's row is still there (the
-- delete cascades to it after), its verdict counted out.
CREATE TRIGGER jobs_batch_count_delete BEFORE DELETE ON jobs
WHEN OLD.batch_id IS NOT NULL
BEGIN
    UPDATE batch_totals SET
        queued = queued - (OLD.state = 'queued'),
        running = running - (OLD.state = 'running'),
        done = done - (OLD.state = 'done'),
        failed = failed - (OLD.state = 'failed'),
        cancelled = cancelled - (OLD.state = 'cancelled'),
        solvable = solvable - (SELECT COUNT(*) FROM gaps_searches g
            WHERE g.id = OLD.id AND g.verdict = 'solvable'),
        unsolvable = unsolvable - (SELECT COUNT(*) FROM gaps_searches g
            WHERE g.id = OLD.id AND g.verdict = 'unsolvable'),
        unknown = unknown - (SELECT COUNT(*) FROM gaps_searches g
            WHERE g.id = OLD.id AND g.verdict = 'unknown')
    WHERE batch_id = OLD.batch_id AND shard = 0;
END;

-- A batch's counts by verdict, kept on `gaps_searches` (its job's row, which holds the
-- batch, is inserted first and deleted last).
CREATE TRIGGER gaps_searches_batch_count_insert AFTER INSERT ON gaps_searches
WHEN NEW.verdict IS NOT NULL
BEGIN
    UPDATE batch_totals SET
        solvable = solvable + (NEW.verdict = 'solvable'),
        unsolvable = unsolvable + (NEW.verdict = 'unsolvable'),
        unknown = unknown + (NEW.verdict = 'unknown')
    WHERE batch_id = (SELECT batch_id FROM jobs WHERE id = NEW.id) AND shard = 0;
END;

CREATE TRIGGER gaps_searches_batch_count_update AFTER UPDATE OF verdict ON gaps_searches
WHEN OLD.verdict IS NOT NEW.verdict
BEGIN
    UPDATE batch_totals SET
        solvable = solvable + (NEW.verdict IS 'solvable') - (OLD.verdict IS 'solvable'),
        unsolvable = unsolvable + (NEW.verdict IS 'unsolvable') - (OLD.verdict IS 'unsolvable'),
        unknown = unknown + (NEW.verdict IS 'unknown') - (OLD.verdict IS 'unknown')
    WHERE batch_id = (SELECT batch_id FROM jobs WHERE id = NEW.id) AND shard = 0;
END;

-- A job's `pysol` is `game:number`, the number without leading zeros; a game in
-- progress does not ask about its deal.
CREATE TRIGGER gaps_searches_pysol_game AFTER INSERT ON gaps_searches
    WHEN NEW.pysol IS NOT NULL AND NEW.played IS NULL
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (substr(NEW.pysol, 1, instr(NEW.pysol, ':') - 1),
        substr('000000000000000000000' || substr(NEW.pysol, instr(NEW.pysol, ':') + 1), -21),
        NEW.variant, NEW.position)
    ON CONFLICT (game, number) DO NOTHING;
END;
