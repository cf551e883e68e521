-- `verdicts_size` (variant, suits, ranks, verdict) served win-rate counts read from the
-- verdicts themselves; those counts now come from `win_rate_totals`, and nothing reads
-- by this index (the same change as migrations/postgres/0008_verdict_indexes.sql,
-- where it also misled the planner of the known-verdict lookup).
DROP INDEX IF EXISTS verdicts_size;

-- What deepening reads (`Store::next_to_deepen`): the stored `unknown` searched with
-- the smallest time limit, found without a pass over every verdict.
CREATE INDEX verdicts_unknown ON verdicts (limit_time_ms, updated_at) WHERE verdict = 'unknown';
