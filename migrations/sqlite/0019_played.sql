-- A game in progress (docs/notation.md, "A game in progress"): `played` holds the
-- steps played since the deal (canonical solution steps, JSON), `review` whether the
-- job reviews them, `played_answer` what it found (the reached position, the redeals
-- left, the hint, and the review). The verdict of such a job is about the position its
-- steps reach, not its deal's: it never goes to `verdicts` or `redeal_verdicts`.
ALTER TABLE jobs ADD COLUMN played TEXT;
ALTER TABLE jobs ADD COLUMN review INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN played_answer TEXT;

-- The same question answered again from the store: a done job of the same deal.
CREATE INDEX jobs_played ON jobs (variant, position) WHERE played IS NOT NULL;

-- A game in progress does not ask about its deal: it does not make its PySolFC game
-- one of those the win-rate rows count.
DROP TRIGGER jobs_pysol_game;
CREATE TRIGGER jobs_pysol_game AFTER INSERT ON jobs
    WHEN NEW.pysol IS NOT NULL AND NEW.played IS NULL
BEGIN
    INSERT INTO pysol_games (game, number, variant, position)
    VALUES (substr(NEW.pysol, 1, instr(NEW.pysol, ':') - 1),
        CAST(substr(NEW.pysol, instr(NEW.pysol, ':') + 1) AS INTEGER),
        NEW.variant, NEW.position)
    ON CONFLICT (game, number) DO NOTHING;
END;
