-- Leases: the node that holds (or last held) a running job, the token of its claim
-- (a finish or heartbeat from any other claim changes nothing) and when the lease ends,
-- in milliseconds since the Unix epoch.
ALTER TABLE jobs ADD COLUMN node_id TEXT;
ALTER TABLE jobs ADD COLUMN lease_token TEXT;
ALTER TABLE jobs ADD COLUMN lease_until BIGINT;
CREATE INDEX jobs_lease ON jobs (lease_until) WHERE state = 'running';
