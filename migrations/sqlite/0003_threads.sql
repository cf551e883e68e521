-- Threads of one search (`limits.threads`) for jobs and batches, and what a stored
-- `unknown` was allowed (threads and table budget), so it only answers requests that
-- would not search further.
ALTER TABLE jobs ADD COLUMN threads INTEGER NOT NULL DEFAULT 1;
ALTER TABLE batches ADD COLUMN threads INTEGER NOT NULL DEFAULT 1;
ALTER TABLE verdicts ADD COLUMN table_mb INTEGER;
ALTER TABLE verdicts ADD COLUMN threads INTEGER NOT NULL DEFAULT 1;
