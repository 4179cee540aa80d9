-- Salsa.Store, PostgreSQL: version 4. Each dataset keeps the bytes of its points (vectors, 8 per weight, labels and texts
-- in UTF-8), so a tenant's usage against its quota is one sum; datasets stored before are counted
-- once, here (a row still NULL is one not counted yet).
ALTER TABLE salsa.datasets ADD COLUMN IF NOT EXISTS bytes bigint;
UPDATE salsa.datasets d SET bytes = (
    SELECT count(*) * 8 + COALESCE(sum(octet_length(p.vector)), 0) + COALESCE(sum(octet_length(p.label)), 0) + COALESCE(sum(octet_length(p.text)), 0)
    FROM salsa.dataset_points p WHERE p.dataset_id = d.id)
WHERE d.bytes IS NULL;
ALTER TABLE salsa.datasets ALTER COLUMN bytes SET DEFAULT 0;
ALTER TABLE salsa.datasets ALTER COLUMN bytes SET NOT NULL;
