-- Salsa.Store, PostgreSQL: version 2. Tenants own datasets and jobs (records made before belong to 'local'); API keys.
ALTER TABLE salsa.datasets ADD COLUMN IF NOT EXISTS tenant text NOT NULL DEFAULT 'local';
ALTER TABLE salsa.jobs ADD COLUMN IF NOT EXISTS tenant text NOT NULL DEFAULT 'local';
CREATE INDEX IF NOT EXISTS datasets_by_tenant ON salsa.datasets (tenant, created DESC, seq DESC);
CREATE INDEX IF NOT EXISTS jobs_by_tenant ON salsa.jobs (tenant, service, created DESC, seq DESC);
CREATE TABLE IF NOT EXISTS salsa.api_keys (
    id text PRIMARY KEY,
    tenant text NOT NULL,
    name text NOT NULL,
    scopes text NOT NULL,
    secret_hash bytea NOT NULL,
    created timestamptz NOT NULL,
    revoked timestamptz
);
