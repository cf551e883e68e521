-- A batch's jobs in the order they were inserted (deal order), for streaming results.
CREATE INDEX jobs_batch_seq ON jobs (batch_id, seq) WHERE batch_id IS NOT NULL;
