-- Salsa.Store, SQLite: version 5. Each dataset and each job's artifact keeps the SHA-256 of its
-- content (a run records them; a reproduction compares them); those stored before get theirs when first read.
ALTER TABLE datasets ADD COLUMN sha256 TEXT;
ALTER TABLE job_artifacts ADD COLUMN sha256 TEXT;
