-- Statistics kept up to date as verdicts and jobs change, so `GET /v1/stats/win-rates`
-- reads a few rows instead of every job (and survives jobs being pruned).

-- Each aggregate row has a `shard`: a value is the sum over its shards. PostgreSQL
-- spreads concurrent finishes over shards so they do not wait for each other's row
-- locks; SQLite, with one writer, uses shard 0 only.

-- Verdict counts per (variant, suits, ranks) over the known verdicts, kept by triggers
-- on `verdicts`: every insert, verdict change and delete adjusts its row in the same
-- transaction, whichever code wrote it.
CREATE TABLE win_rate_totals (
    variant    TEXT    NOT NULL,
    suits      INTEGER NOT NULL,
    ranks      INTEGER NOT NULL,
    shard      INTEGER NOT NULL DEFAULT 0,
    deals      INTEGER NOT NULL DEFAULT 0,
    solvable   INTEGER NOT NULL DEFAULT 0,
    unsolvable INTEGER NOT NULL DEFAULT 0,
    unknown    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (variant, suits, ranks, shard)
);

INSERT INTO win_rate_totals (variant, suits, ranks, deals, solvable, unsolvable, unknown)
SELECT variant, suits, ranks, COUNT(*), SUM(verdict = 'solvable'),
    SUM(verdict = 'unsolvable'), SUM(verdict = 'unknown')
FROM verdicts GROUP BY variant, suits, ranks;

CREATE TRIGGER verdicts_count_insert AFTER INSERT ON verdicts
BEGIN
    INSERT INTO win_rate_totals (variant, suits, ranks) VALUES (NEW.variant, NEW.suits, NEW.ranks)
        ON CONFLICT (variant, suits, ranks, shard) DO NOTHING;
    UPDATE win_rate_totals SET deals = deals + 1,
        solvable = solvable + (NEW.verdict = 'solvable'),
        unsolvable = unsolvable + (NEW.verdict = 'unsolvable'),
        unknown = unknown + (NEW.verdict = 'unknown')
    WHERE variant = NEW.variant AND suits = NEW.suits AND ranks = NEW.ranks AND shard = 0;
END;

CREATE TRIGGER verdicts_count_update AFTER UPDATE OF verdict ON verdicts
WHEN OLD.verdict IS NOT NEW.verdict
BEGIN
    UPDATE win_rate_totals SET
        solvable = solvable + (NEW.verdict = 'solvable') - (OLD.verdict = 'solvable'),
        unsolvable = unsolvable + (NEW.verdict = 'unsolvable') - (OLD.verdict = 'unsolvable'),
        unknown = unknown + (NEW.verdict = 'unknown') - (OLD.verdict = 'unknown')
    WHERE variant = NEW.variant AND suits = NEW.suits AND ranks = NEW.ranks AND shard = 0;
END;

CREATE TRIGGER verdicts_count_delete AFTER DELETE ON verdicts
BEGIN
    UPDATE win_rate_totals SET deals = deals - 1,
        solvable = solvable - (OLD.verdict = 'solvable'),
        unsolvable = unsolvable - (OLD.verdict = 'unsolvable'),
        unknown = unknown - (OLD.verdict = 'unknown')
    WHERE variant = OLD.variant AND suits = OLD.suits AND ranks = OLD.ranks AND shard = 0;
END;

-- Search effort of the searched (not cached) jobs that ended `done`, per (variant,
-- suits, ranks, algorithm used, verdict): exact counts and sums, and a histogram of
-- nodes and of milliseconds in buckets of 1/16 octave (bucket = floor(16 log2(1 + x)))
-- from which medians are read. The store adds a job in the transaction that finishes
-- it.
CREATE TABLE effort_totals (
    variant   TEXT    NOT NULL,
    suits     INTEGER NOT NULL,
    ranks     INTEGER NOT NULL,
    algorithm TEXT    NOT NULL,
    verdict   TEXT    NOT NULL,
    shard     INTEGER NOT NULL,
    jobs      INTEGER NOT NULL,
    sum_nodes INTEGER NOT NULL,
    sum_ms    REAL    NOT NULL,
    PRIMARY KEY (variant, suits, ranks, algorithm, verdict, shard)
);

CREATE TABLE effort_histogram (
    variant   TEXT    NOT NULL,
    suits     INTEGER NOT NULL,
    ranks     INTEGER NOT NULL,
    algorithm TEXT    NOT NULL,
    verdict   TEXT    NOT NULL,
    measure   TEXT    NOT NULL CHECK (measure IN ('nodes', 'ms')),
    bucket    INTEGER NOT NULL,
    shard     INTEGER NOT NULL,
    jobs      INTEGER NOT NULL,
    PRIMARY KEY (variant, suits, ranks, algorithm, verdict, measure, bucket, shard)
);

-- Aggregates the store must rebuild from the jobs when it opens (the effort of the
-- jobs finished before these tables existed). Whoever opens the store first rebuilds
-- and removes the row.
CREATE TABLE pending_rebuilds (
    name TEXT NOT NULL PRIMARY KEY
);

INSERT INTO pending_rebuilds (name) VALUES ('effort');
