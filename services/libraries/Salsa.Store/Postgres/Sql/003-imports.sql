-- Salsa.Store, PostgreSQL: version 3, nothing to change. SQLite's version 3 hides a dataset imported
-- in parts until its last part is in; PostgreSQL imports a dataset in one transaction, which hides it.
SELECT 1;
