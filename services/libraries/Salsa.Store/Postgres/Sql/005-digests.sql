-- Salsa.Store, PostgreSQL: version 5. Each dataset and each job's artifact keeps the SHA-256 of its
-- content (a run records them; a reproduction compares them); those stored before get theirs when first read.
ALTER TABLE salsa.datasets ADD COLUMN IF NOT EXISTS sha256 text;
ALTER TABLE salsa.job_artifacts ADD COLUMN IF NOT EXISTS sha256 text;
