-- `verdicts_size` (variant, suits, ranks, verdict) served win-rate counts read from the
-- verdicts themselves; those counts now come from `win_rate_totals`, and nothing reads
-- by this index. Worse, it misled the planner: on a new, empty `verdicts` table it
-- costs the same as the primary key, so a connection's cached plan for the known-verdict
-- lookup (`WHERE variant = $1 AND position = $2`) could use it and then read every
-- verdict of the variant on each lookup (measured: 16,000 rows a lookup, PostgreSQL's
-- CPU saturated, a 100,000-deal batch slowing from 518 to 190 jobs/s).
DROP INDEX IF EXISTS verdicts_size;

-- What deepening reads (`Store::next_to_deepen`): the stored `unknown` searched with
-- the smallest time limit, found without a pass over every verdict.
CREATE INDEX verdicts_unknown ON verdicts (limit_time_ms, updated_at) WHERE verdict = 'unknown';
