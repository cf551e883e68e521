-- Redeals a job may use (0: its first round only, as before; PySolFC's games: 2 by
-- default). A verdict with redeals belongs to the deal's number (its generator shuffles
-- the redeals), not to its position: it is kept in `redeal_verdicts`, never in
-- `verdicts`, so the position-keyed answers and win rates stay first-round ones.
ALTER TABLE jobs ADD COLUMN redeals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE batches ADD COLUMN redeals INTEGER NOT NULL DEFAULT 0;

-- The best verdict known for a deal with a number of redeals. `source` names the deal
-- and its generator: `pysol:montana:N`, `pysol:blue-moon:N` or `deal:SxR:N`; `kind`
-- is what a win-rate row counts it under: `pysol-montana`, `pysol-blue-moon` or
-- `deals` (this project's numbered deals).
CREATE TABLE redeal_verdicts (
    source      TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    variant     TEXT    NOT NULL,
    redeals     INTEGER NOT NULL,
    suits       INTEGER NOT NULL,
    ranks       INTEGER NOT NULL,
    position    TEXT    NOT NULL,
    verdict     TEXT    NOT NULL CHECK (verdict IN ('solvable', 'unsolvable', 'unknown')),
    solution    TEXT,
    rounds_used INTEGER NOT NULL DEFAULT 0,
    first_round TEXT,
    nodes       INTEGER NOT NULL,
    elapsed_ms  REAL    NOT NULL,
    job_id      TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (source, variant, redeals)
) WITHOUT ROWID;
