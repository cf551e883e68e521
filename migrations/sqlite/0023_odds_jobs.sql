-- The odds of a Gaps game whose shuffles are unknown, a kind of job of its own
-- (docs/http.md, "Odds jobs"): its life in `jobs` (`game` = 'odds'), what it asks and
-- its answer in `odds_jobs`, one row per job with the job's id, inserted in the job's
-- transaction.
--
-- `jobs.game` takes the new kind: SQLite keeps a column's CHECK until the column is
-- made again, so the column is copied into one with the new CHECK, dropped (with the
-- index that names it) and the copy takes its name.
ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'gaps'
    CHECK (kind IN ('gaps', 'morpion', 'odds'));
UPDATE jobs SET kind = game;
DROP INDEX jobs_game;
ALTER TABLE jobs DROP COLUMN game;
ALTER TABLE jobs RENAME COLUMN kind TO game;
CREATE INDEX jobs_game ON jobs (game, seq);

CREATE TABLE odds_jobs (
    -- The job (a row of `jobs`, `game` = 'odds'); deleted with it.
    id            TEXT    NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    -- `basic`, `common` or `aisleriot`: whose redeal rule the shuffles are played under.
    variant       TEXT    NOT NULL,
    -- The deal's start in canonical notation (before any played step).
    position      TEXT    NOT NULL,
    suits         INTEGER NOT NULL,
    ranks         INTEGER NOT NULL,
    -- Our numbered deal it was submitted as, if it was.
    deal_seed     INTEGER,
    -- Redeals of the game in all (those left are in the answer).
    redeals       INTEGER NOT NULL,
    -- A game in progress: the steps played since the deal.
    played        TEXT,
    samples       INTEGER NOT NULL,
    -- Seed of the sampled shuffles.
    search_seed   INTEGER NOT NULL,
    limit_nodes   INTEGER,
    limit_time_ms INTEGER NOT NULL,
    -- Once done: the answer, as `gaps odds --json` prints it.
    answer        TEXT,
    -- Whether the answer was copied from an earlier job that asked the same.
    cached        INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- The same question answered again from the store.
CREATE INDEX odds_jobs_asked ON odds_jobs (variant, position, redeals, samples, search_seed);

-- A batch of odds jobs: the samples of each (NULL: a batch of Gaps searches).
ALTER TABLE batches ADD COLUMN odds_samples INTEGER;
