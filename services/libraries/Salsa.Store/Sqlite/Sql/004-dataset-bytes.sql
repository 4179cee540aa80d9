-- Salsa.Store, SQLite: version 4. Each dataset keeps the bytes of its points (vectors, 8 per
-- weight, labels and texts in UTF-8), so a tenant's usage against its quota is one sum over its
-- rows; the datasets stored before are counted once here.
ALTER TABLE datasets ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE datasets SET bytes = (
    SELECT COUNT(*) * 8 + COALESCE(SUM(length(vector)), 0) + COALESCE(SUM(length(CAST(label AS BLOB))), 0) + COALESCE(SUM(length(CAST(text AS BLOB))), 0)
    FROM dataset_points WHERE dataset_pk = datasets.pk);
