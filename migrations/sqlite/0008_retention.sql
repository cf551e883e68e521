-- Finished jobs outside batches by the time they ended, for the retention sweep
-- (`retention.finished_days`).
CREATE INDEX jobs_finished_at ON jobs (finished_at) WHERE batch_id IS NULL;
