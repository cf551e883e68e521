-- Statistics kept up to date as verdicts and jobs change, so `GET /v1/stats/win-rates`
-- reads a few rows instead of every job (and survives jobs being pruned). The same
-- tables as the SQLite schema (migrations/sqlite/0006_aggregates.sql).

-- Each aggregate row has a `shard` (0..7): a value is the sum over its shards. A change
-- goes to a random shard, so concurrent finishes on several nodes rarely wait for each
-- other's row locks.

-- Verdict counts per (variant, suits, ranks) over the known verdicts, kept by a trigger
-- on `verdicts`: every insert, verdict change and delete adjusts its row in the same
-- transaction, whichever code wrote it.
CREATE TABLE win_rate_totals (
    variant    TEXT   NOT NULL,
    suits      BIGINT NOT NULL,
    ranks      BIGINT NOT NULL,
    shard      BIGINT NOT NULL DEFAULT 0,
    deals      BIGINT NOT NULL DEFAULT 0,
    solvable   BIGINT NOT NULL DEFAULT 0,
    unsolvable BIGINT NOT NULL DEFAULT 0,
    unknown    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (variant, suits, ranks, shard)
);

INSERT INTO win_rate_totals (variant, suits, ranks, deals, solvable, unsolvable, unknown)
SELECT variant, suits, ranks, COUNT(*), COUNT(*) FILTER (WHERE verdict = 'solvable'),
    COUNT(*) FILTER (WHERE verdict = 'unsolvable'), COUNT(*) FILTER (WHERE verdict = 'unknown')
FROM verdicts GROUP BY variant, suits, ranks;

-- One upsert per change, of the differences it makes: +1 deal on insert, -1 on delete,
-- and the verdict moved from its old column to its new one.
CREATE FUNCTION verdicts_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_verdict TEXT := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.verdict END;
    new_verdict TEXT := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.verdict END;
    k verdicts := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
BEGIN
    INSERT INTO win_rate_totals AS t
        (variant, suits, ranks, shard, deals, solvable, unsolvable, unknown)
    VALUES (k.variant, k.suits, k.ranks, floor(random() * 8),
        (new_verdict IS NOT NULL)::int - (old_verdict IS NOT NULL)::int,
        (new_verdict IS NOT DISTINCT FROM 'solvable')::int - (old_verdict IS NOT DISTINCT FROM 'solvable')::int,
        (new_verdict IS NOT DISTINCT FROM 'unsolvable')::int - (old_verdict IS NOT DISTINCT FROM 'unsolvable')::int,
        (new_verdict IS NOT DISTINCT FROM 'unknown')::int - (old_verdict IS NOT DISTINCT FROM 'unknown')::int)
    ON CONFLICT (variant, suits, ranks, shard) DO UPDATE SET
        deals = t.deals + excluded.deals,
        solvable = t.solvable + excluded.solvable,
        unsolvable = t.unsolvable + excluded.unsolvable,
        unknown = t.unknown + excluded.unknown;
    RETURN NULL;
END;
$$;

CREATE TRIGGER verdicts_count_insert_delete AFTER INSERT OR DELETE ON verdicts
    FOR EACH ROW EXECUTE FUNCTION verdicts_count();
CREATE TRIGGER verdicts_count_update AFTER UPDATE OF verdict ON verdicts
    FOR EACH ROW WHEN (OLD.verdict IS DISTINCT FROM NEW.verdict)
    EXECUTE FUNCTION verdicts_count();

-- Search effort of the searched (not cached) jobs that ended `done`, per (variant,
-- suits, ranks, algorithm used, verdict): exact counts and sums, and a histogram of
-- nodes and of milliseconds in buckets of 1/16 octave (bucket = floor(16 log2(1 + x)))
-- from which medians are read. The store adds a job in the transaction that finishes
-- it.
CREATE TABLE effort_totals (
    variant   TEXT   NOT NULL,
    suits     BIGINT NOT NULL,
    ranks     BIGINT NOT NULL,
    algorithm TEXT   NOT NULL,
    verdict   TEXT   NOT NULL,
    shard     BIGINT NOT NULL,
    jobs      BIGINT NOT NULL,
    sum_nodes BIGINT NOT NULL,
    sum_ms    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (variant, suits, ranks, algorithm, verdict, shard)
);

CREATE TABLE effort_histogram (
    variant   TEXT   NOT NULL,
    suits     BIGINT NOT NULL,
    ranks     BIGINT NOT NULL,
    algorithm TEXT   NOT NULL,
    verdict   TEXT   NOT NULL,
    measure   TEXT   NOT NULL CHECK (measure IN ('nodes', 'ms')),
    bucket    BIGINT NOT NULL,
    shard     BIGINT NOT NULL,
    jobs      BIGINT NOT NULL,
    PRIMARY KEY (variant, suits, ranks, algorithm, verdict, measure, bucket, shard)
);

-- Aggregates the store must rebuild from the jobs when it opens (the effort of the
-- jobs finished before these tables existed). Whoever opens the store first rebuilds
-- and removes the row.
CREATE TABLE pending_rebuilds (
    name TEXT NOT NULL PRIMARY KEY
);

INSERT INTO pending_rebuilds (name) VALUES ('effort');
