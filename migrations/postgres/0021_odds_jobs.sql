-- The odds of a Gaps game whose shuffles are unknown, a kind of job of its own
-- (docs/http.md, "Odds jobs"): its life in `jobs` (`game` = 'odds'), what it asks and
-- its answer in `odds_jobs`, one row per job with the job's id, inserted in the job's
-- transaction. The columns are those of SQLite's `odds_jobs` (its migration says what
-- each holds).
ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_game_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_game_check CHECK (game IN ('gaps', 'morpion', 'odds'));

CREATE TABLE odds_jobs (
    id            TEXT    NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    variant       TEXT    NOT NULL,
    position      TEXT    NOT NULL,
    suits         BIGINT  NOT NULL,
    ranks         BIGINT  NOT NULL,
    deal_seed     BIGINT,
    redeals       BIGINT  NOT NULL,
    played        JSONB,
    samples       BIGINT  NOT NULL,
    search_seed   BIGINT  NOT NULL,
    limit_nodes   BIGINT,
    limit_time_ms BIGINT  NOT NULL,
    answer        JSONB,
    cached        BOOLEAN NOT NULL DEFAULT FALSE
);

CREATE INDEX odds_jobs_asked ON odds_jobs (variant, position, redeals, samples, search_seed);

-- A batch of odds jobs: the samples of each (NULL: a batch of Gaps searches).
ALTER TABLE batches ADD COLUMN odds_samples BIGINT;
