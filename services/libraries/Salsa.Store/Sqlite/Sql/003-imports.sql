-- Salsa.Store, SQLite: version 3. A dataset imported in parts is written part by part, each in a
-- transaction of its own (the file's one writer is never held for a whole import); until its last
-- part is in, its row carries the time the import began and no read, list or delete sees it.
ALTER TABLE datasets ADD COLUMN importing_since_us INTEGER;
