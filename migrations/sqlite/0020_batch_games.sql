-- A batch given as its games (`games`: each a job request of its own, a game in
-- progress among them): its jobs are inserted with it, so it is never left unfilled.
ALTER TABLE batches ADD COLUMN games INTEGER NOT NULL DEFAULT 0;
