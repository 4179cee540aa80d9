-- Salsa.Store, SQLite: version 2. Tenants own datasets and jobs (records made before belong to 'local'), and API keys.
ALTER TABLE datasets ADD COLUMN tenant TEXT NOT NULL DEFAULT 'local';
ALTER TABLE jobs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'local';
CREATE INDEX datasets_by_tenant ON datasets (tenant, created_us DESC, pk DESC);
CREATE INDEX jobs_by_tenant ON jobs (tenant, service, created_us DESC, seq DESC);
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    created_us INTEGER NOT NULL,
    revoked_us INTEGER
);
