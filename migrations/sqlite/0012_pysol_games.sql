-- PySolFC games asked about, and their win rates apart from our own numbering.
--
-- `pysol_games` maps each PySolFC game number that a job was submitted as to the
-- variant and canonical position it stands for; its verdict is the position's row of
-- `verdicts`. Rows are written by a trigger on `jobs` (in the transaction that inserts
-- the job, whichever code inserted it) and never deleted: a game's position never
-- changes, and the mapping outlives the pruning of old jobs, as verdicts do.
CREATE TABLE pysol_games (
    game     TEXT    NOT NULL,
    number   INTEGER NOT NULL,
    variant  TEXT    NOT NULL,
    position TEXT    NOT NULL,
    PRIMARY KEY (game, number)
) WITHOUT ROWID;

-- The verdict triggers below find the games of a position by this index.
CREATE INDEX pysol_games_position ON pysol_games (variant, position);

-- Verdict counts per game over its numbers with a known verdict (`games` of them), kept
-- by the triggers below; shard 0 only, as `win_rate_totals` on SQLite.
CREATE TABLE pysol_totals (
    game       TEXT    NOT NULL,
    shard      INTEGER NOT NULL DEFAULT 0,
    games      INTEGER NOT NULL DEFAULT 0,
    solvable   INTEGER NOT NULL DEFAULT 0,
    unsolvable INTEGER NOT NULL DEFAULT 0,
    unknown    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, shard)
);

-- A job's `pysol` is `game:number` (the game names hold no colon).
CREATE TRIGGER jobs_pysol_game AFTER INSERT ON jobs WHEN NEW.pysol IS NOT NULL
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (substr(NEW.pysol, 1, instr(NEW.pysol, ':') - 1),
        CAST(substr(NEW.pysol, instr(NEW.pysol, ':') + 1) AS INTEGER),
        NEW.variant, NEW.position)
    ON CONFLICT (game, number) DO NOTHING;
END;

-- A new game number counts if its position already has a verdict.
CREATE TRIGGER pysol_games_count AFTER INSERT ON pysol_games
BEGIN
    INSERT INTO pysol_totals (game) VALUES (NEW.game) ON CONFLICT (game, shard) DO NOTHING;
    UPDATE pysol_totals SET
        games = games + (SELECT COUNT(*) FROM verdicts v
            WHERE v.variant = NEW.variant AND v.position = NEW.position),
        solvable = solvable + (SELECT COUNT(*) FROM verdicts v
            WHERE v.variant = NEW.variant AND v.position = NEW.position AND v.verdict = 'solvable'),
        unsolvable = unsolvable + (SELECT COUNT(*) FROM verdicts v
            WHERE v.variant = NEW.variant AND v.position = NEW.position AND v.verdict = 'unsolvable'),
        unknown = unknown + (SELECT COUNT(*) FROM verdicts v
            WHERE v.variant = NEW.variant AND v.position = NEW.position AND v.verdict = 'unknown')
    WHERE game = NEW.game AND shard = 0;
END;

-- A verdict inserted, changed or deleted moves the counts of every game number of its
-- position (almost always none or one).
CREATE TRIGGER verdicts_pysol_insert AFTER INSERT ON verdicts
WHEN EXISTS (SELECT 1 FROM pysol_games p WHERE p.variant = NEW.variant AND p.position = NEW.position)
BEGIN
    UPDATE pysol_totals SET
        games = games + g.n,
        solvable = solvable + g.n * (NEW.verdict = 'solvable'),
        unsolvable = unsolvable + g.n * (NEW.verdict = 'unsolvable'),
        unknown = unknown + g.n * (NEW.verdict = 'unknown')
    FROM (SELECT game, COUNT(*) AS n FROM pysol_games p
          WHERE p.variant = NEW.variant AND p.position = NEW.position GROUP BY game) AS g
    WHERE pysol_totals.game = g.game AND pysol_totals.shard = 0;
END;

CREATE TRIGGER verdicts_pysol_update AFTER UPDATE OF verdict ON verdicts
WHEN OLD.verdict IS NOT NEW.verdict
    AND EXISTS (SELECT 1 FROM pysol_games p WHERE p.variant = NEW.variant AND p.position = NEW.position)
BEGIN
    UPDATE pysol_totals SET
        solvable = solvable + g.n * ((NEW.verdict = 'solvable') - (OLD.verdict = 'solvable')),
        unsolvable = unsolvable + g.n * ((NEW.verdict = 'unsolvable') - (OLD.verdict = 'unsolvable')),
        unknown = unknown + g.n * ((NEW.verdict = 'unknown') - (OLD.verdict = 'unknown'))
    FROM (SELECT game, COUNT(*) AS n FROM pysol_games p
          WHERE p.variant = NEW.variant AND p.position = NEW.position GROUP BY game) AS g
    WHERE pysol_totals.game = g.game AND pysol_totals.shard = 0;
END;

CREATE TRIGGER verdicts_pysol_delete AFTER DELETE ON verdicts
WHEN EXISTS (SELECT 1 FROM pysol_games p WHERE p.variant = OLD.variant AND p.position = OLD.position)
BEGIN
    UPDATE pysol_totals SET
        games = games - g.n,
        solvable = solvable - g.n * (OLD.verdict = 'solvable'),
        unsolvable = unsolvable - g.n * (OLD.verdict = 'unsolvable'),
        unknown = unknown - g.n * (OLD.verdict = 'unknown')
    FROM (SELECT game, COUNT(*) AS n FROM pysol_games p
          WHERE p.variant = OLD.variant AND p.position = OLD.position GROUP BY game) AS g
    WHERE pysol_totals.game = g.game AND pysol_totals.shard = 0;
END;

-- The games of the jobs already stored (the trigger above counts each).
INSERT INTO pysol_games (game, number, variant, position)
SELECT substr(pysol, 1, instr(pysol, ':') - 1),
    CAST(substr(pysol, instr(pysol, ':') + 1) AS INTEGER), variant, position
FROM jobs WHERE pysol IS NOT NULL
ORDER BY seq
ON CONFLICT (game, number) DO NOTHING;

-- The PySolFC game of a batch given as games (`montana`), NULL for numbered deals; its
-- `seed` is then the first game number.
ALTER TABLE batches ADD COLUMN pysol_game TEXT;
