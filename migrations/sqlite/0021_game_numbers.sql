-- PySolFC game numbers run to 10^20, above the 2^63-1 an INTEGER holds: a number is
-- stored as its digits zero-padded to 21 (the length of 10^20), so that text order is
-- number order (`GameNumberKey` in src/service/job.rs).
--
-- `pysol_games` is rebuilt with a TEXT number (an INTEGER column would turn the digits
-- back into a number, and 10^20 into a REAL). The triggers that name it are dropped
-- first and made again after, unchanged but for the number's form, so that no trigger
-- names a table that is not there while it is rebuilt.
DROP TRIGGER jobs_pysol_game;
DROP TRIGGER pysol_games_count;
DROP TRIGGER verdicts_pysol_insert;
DROP TRIGGER verdicts_pysol_update;
DROP TRIGGER verdicts_pysol_delete;

CREATE TABLE pysol_games_by_key (
    game     TEXT NOT NULL,
    number   TEXT NOT NULL,
    variant  TEXT NOT NULL,
    position TEXT NOT NULL,
    PRIMARY KEY (game, number)
) WITHOUT ROWID;
INSERT INTO pysol_games_by_key (game, number, variant, position)
SELECT game, substr('000000000000000000000' || number, -21), variant, position
FROM pysol_games;
DROP INDEX pysol_games_position;
DROP TABLE pysol_games;
ALTER TABLE pysol_games_by_key RENAME TO pysol_games;
CREATE INDEX pysol_games_position ON pysol_games (variant, position);

-- A job's `pysol` is `game:number`, the number without leading zeros.
CREATE TRIGGER jobs_pysol_game AFTER INSERT ON jobs
    WHEN NEW.pysol IS NOT NULL AND NEW.played IS NULL
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (substr(NEW.pysol, 1, instr(NEW.pysol, ':') - 1),
        substr('000000000000000000000' || substr(NEW.pysol, instr(NEW.pysol, ':') + 1), -21),
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

-- A batch of PySolFC games by number keeps its first number here, in the same form;
-- its `seed` is 0 (a seed is one of our own deal numbers).
ALTER TABLE batches ADD COLUMN pysol_from TEXT;
UPDATE batches SET pysol_from = substr('000000000000000000000' || seed, -21), seed = 0
WHERE pysol_game IS NOT NULL;
