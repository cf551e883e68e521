-- PySolFC game numbers run to 10^20, above the 2^63-1 a BIGINT holds: a number is stored
-- as its digits zero-padded to 21 (the length of 10^20), so that text order is number
-- order (`GameNumberKey` in src/service/job.rs); the same form as the SQLite schema
-- (migrations/sqlite/0021_game_numbers.sql). "C" collation: byte order, whatever the
-- database's locale.
ALTER TABLE pysol_games
    ALTER COLUMN number TYPE TEXT COLLATE "C" USING lpad(number::text, 21, '0');

-- A job's `pysol` is `game:number`, the number without leading zeros.
CREATE OR REPLACE FUNCTION jobs_pysol_game() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (split_part(NEW.pysol, ':', 1), lpad(split_part(NEW.pysol, ':', 2), 21, '0'),
        NEW.variant, NEW.position)
    ON CONFLICT (game, number) DO NOTHING;
    RETURN NULL;
END;
$$;

-- A batch of PySolFC games by number keeps its first number here, in the same form;
-- its `seed` is 0 (a seed is one of our own deal numbers).
ALTER TABLE batches ADD COLUMN pysol_from TEXT;
UPDATE batches SET pysol_from = lpad(seed::text, 21, '0'), seed = 0
WHERE pysol_game IS NOT NULL;
