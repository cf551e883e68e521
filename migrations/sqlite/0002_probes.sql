-- Sampling: the probe limit of jobs and batches, and what a stored `unknown` tried
-- (its requested algorithm and probe limit), so it only answers requests that would
-- not search further.
ALTER TABLE jobs ADD COLUMN limit_probes INTEGER;
ALTER TABLE batches ADD COLUMN limit_probes INTEGER;
ALTER TABLE verdicts ADD COLUMN limit_probes INTEGER;
ALTER TABLE verdicts ADD COLUMN requested_algorithm TEXT NOT NULL DEFAULT 'auto';
