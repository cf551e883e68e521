-- The PySolFC game a job was submitted as (`montana:12345`), NULL for the others.
ALTER TABLE jobs ADD COLUMN pysol TEXT;
