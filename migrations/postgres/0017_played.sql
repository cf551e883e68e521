-- A game in progress (docs/notation.md, "A game in progress"): `played` holds the
-- steps played since the deal (canonical solution steps), `review` whether the job
-- reviews them, `played_answer` what it found (the reached position, the redeals left,
-- the hint, and the review). The verdict of such a job is about the position its steps
-- reach, not its deal's: it never goes to `verdicts` or `redeal_verdicts`.
ALTER TABLE jobs ADD COLUMN played JSONB;
ALTER TABLE jobs ADD COLUMN review BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE jobs ADD COLUMN played_answer JSONB;

-- The same question answered again from the store: a done job of the same deal.
CREATE INDEX jobs_played ON jobs (variant, position) WHERE played IS NOT NULL;

-- A game in progress does not ask about its deal: it does not make its PySolFC game
-- one of those the win-rate rows count.
DROP TRIGGER jobs_pysol_game ON jobs;
CREATE TRIGGER jobs_pysol_game AFTER INSERT ON jobs
    FOR EACH ROW WHEN (NEW.pysol IS NOT NULL AND NEW.played IS NULL)
    EXECUTE FUNCTION jobs_pysol_game();
