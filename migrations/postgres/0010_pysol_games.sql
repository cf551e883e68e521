-- PySolFC games asked about, and their win rates apart from our own numbering: the same
-- tables as the SQLite schema (migrations/sqlite/0012_pysol_games.sql).
--
-- `pysol_games` maps each PySolFC game number that a job was submitted as to the
-- variant and canonical position it stands for; its verdict is the position's row of
-- `verdicts`. Rows are written by a trigger on `jobs` (in the transaction that inserts
-- the job) and never deleted: a game's position never changes, and the mapping
-- outlives the pruning of old jobs, as verdicts do.
CREATE TABLE pysol_games (
    game     TEXT   NOT NULL,
    number   BIGINT NOT NULL,
    variant  TEXT   NOT NULL,
    position TEXT   NOT NULL,
    PRIMARY KEY (game, number)
);

-- The verdict trigger below finds the games of a position by this index.
CREATE INDEX pysol_games_position ON pysol_games (variant, position);

-- Verdict counts per game over its numbers with a known verdict (`games` of them); a
-- value is the sum over its shards (0..7), as in `win_rate_totals`.
CREATE TABLE pysol_totals (
    game       TEXT   NOT NULL,
    shard      BIGINT NOT NULL DEFAULT 0,
    games      BIGINT NOT NULL DEFAULT 0,
    solvable   BIGINT NOT NULL DEFAULT 0,
    unsolvable BIGINT NOT NULL DEFAULT 0,
    unknown    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game, shard)
);

-- Adds `n` games of `game` whose verdict went from `old_verdict` to `new_verdict`
-- (NULL: none), to a random shard.
CREATE FUNCTION pysol_count(game TEXT, n BIGINT, old_verdict TEXT, new_verdict TEXT)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO pysol_totals AS t (game, shard, games, solvable, unsolvable, unknown)
    VALUES (game, floor(random() * 8),
        n * ((new_verdict IS NOT NULL)::int - (old_verdict IS NOT NULL)::int),
        n * ((new_verdict IS NOT DISTINCT FROM 'solvable')::int - (old_verdict IS NOT DISTINCT FROM 'solvable')::int),
        n * ((new_verdict IS NOT DISTINCT FROM 'unsolvable')::int - (old_verdict IS NOT DISTINCT FROM 'unsolvable')::int),
        n * ((new_verdict IS NOT DISTINCT FROM 'unknown')::int - (old_verdict IS NOT DISTINCT FROM 'unknown')::int))
    ON CONFLICT (game, shard) DO UPDATE SET
        games = t.games + excluded.games,
        solvable = t.solvable + excluded.solvable,
        unsolvable = t.unsolvable + excluded.unsolvable,
        unknown = t.unknown + excluded.unknown;
$$;

-- A job's `pysol` is `game:number` (the game names hold no colon).
CREATE FUNCTION jobs_pysol_game() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (split_part(NEW.pysol, ':', 1), split_part(NEW.pysol, ':', 2)::bigint,
        NEW.variant, NEW.position)
    ON CONFLICT (game, number) DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_pysol_game AFTER INSERT ON jobs
    FOR EACH ROW WHEN (NEW.pysol IS NOT NULL) EXECUTE FUNCTION jobs_pysol_game();

-- A new game number counts if its position already has a verdict.
CREATE FUNCTION pysol_games_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    known TEXT;
BEGIN
    SELECT verdict INTO known FROM verdicts
        WHERE variant = NEW.variant AND position = NEW.position;
    IF known IS NOT NULL THEN
        PERFORM pysol_count(NEW.game, 1, NULL, known);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER pysol_games_count AFTER INSERT ON pysol_games
    FOR EACH ROW EXECUTE FUNCTION pysol_games_count();

-- A verdict inserted, changed or deleted moves the counts of every game number of its
-- position (almost always none or one).
CREATE FUNCTION verdicts_pysol_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_verdict TEXT := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.verdict END;
    new_verdict TEXT := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.verdict END;
    k verdicts := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    g RECORD;
BEGIN
    FOR g IN SELECT p.game, COUNT(*) AS n FROM pysol_games p
        WHERE p.variant = k.variant AND p.position = k.position GROUP BY p.game
    LOOP
        PERFORM pysol_count(g.game, g.n, old_verdict, new_verdict);
    END LOOP;
    RETURN NULL;
END;
$$;

CREATE TRIGGER verdicts_pysol_insert_delete AFTER INSERT OR DELETE ON verdicts
    FOR EACH ROW EXECUTE FUNCTION verdicts_pysol_count();
CREATE TRIGGER verdicts_pysol_update AFTER UPDATE OF verdict ON verdicts
    FOR EACH ROW WHEN (OLD.verdict IS DISTINCT FROM NEW.verdict)
    EXECUTE FUNCTION verdicts_pysol_count();

-- The games of the jobs already stored (the trigger above counts each).
INSERT INTO pysol_games (game, number, variant, position)
SELECT split_part(pysol, ':', 1), split_part(pysol, ':', 2)::bigint, variant, position
FROM jobs WHERE pysol IS NOT NULL
ORDER BY seq
ON CONFLICT (game, number) DO NOTHING;

-- The PySolFC game of a batch given as games (`montana`), NULL for numbered deals; its
-- `seed` is then the first game number.
ALTER TABLE batches ADD COLUMN pysol_game TEXT;
