-- Salsa.Store, SQLite: version 6. A job keeps what its work used (CPU time, allocations, the
-- process's peak memory, cores), as JSON, once it ends; jobs stored before have none.
ALTER TABLE jobs ADD COLUMN resources TEXT;
