-- Who created a job or batch: the name of the caller's token, or its address on an open
-- service (never a token itself). NULL for rows created before this column.
ALTER TABLE jobs ADD COLUMN created_by TEXT;
ALTER TABLE batches ADD COLUMN created_by TEXT;
-- A client's queued jobs, for `limits.max_queued_per_client`.
CREATE INDEX jobs_queued_by ON jobs (created_by) WHERE state = 'queued';
