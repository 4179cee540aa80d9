-- Salsa.Store, PostgreSQL: the schema at its newest version, every statement idempotent, so it
-- creates a new database and migrates an older one alike (run under an advisory lock).
CREATE SCHEMA IF NOT EXISTS salsa;
CREATE TABLE IF NOT EXISTS salsa.schema_version (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS salsa.datasets (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    name text NOT NULL,
    kind integer NOT NULL,
    count integer NOT NULL,
    dimension integer NOT NULL,
    bits integer NOT NULL,
    fingerprint_type text,
    total_weight double precision NOT NULL,
    created timestamptz NOT NULL,
    source text NOT NULL,
    metadata jsonb NOT NULL,
    has_labels boolean NOT NULL,
    has_texts boolean NOT NULL
);
CREATE INDEX IF NOT EXISTS datasets_by_created ON salsa.datasets (created DESC, seq DESC);
CREATE TABLE IF NOT EXISTS salsa.dataset_points (
    dataset_id uuid NOT NULL,
    idx integer NOT NULL,
    vector bytea,
    weight double precision NOT NULL,
    label text,
    text text,
    PRIMARY KEY (dataset_id, idx)
);
CREATE TABLE IF NOT EXISTS salsa.jobs (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    service text NOT NULL,
    kind text NOT NULL,
    state integer NOT NULL,
    created timestamptz NOT NULL,
    started timestamptz,
    finished timestamptz,
    queue_ms double precision NOT NULL,
    compute_ms double precision NOT NULL,
    dataset_id uuid,
    parameters text NOT NULL,
    progress text,
    result text,
    error text
);
CREATE INDEX IF NOT EXISTS jobs_by_created ON salsa.jobs (created DESC, seq DESC);
CREATE INDEX IF NOT EXISTS jobs_by_service ON salsa.jobs (service, created DESC, seq DESC);
CREATE TABLE IF NOT EXISTS salsa.job_artifacts (
    job_id uuid NOT NULL,
    name text NOT NULL,
    content_type text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (job_id, name)
);
-- Version 2: tenants own datasets and jobs (records made before belong to 'local'); API keys.
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
-- Version 4: each dataset keeps the bytes of its points (vectors, 8 per weight, labels and texts
-- in UTF-8), so a tenant's usage against its quota is one sum; datasets stored before are counted
-- once, here (a row still NULL is one not counted yet).
ALTER TABLE salsa.datasets ADD COLUMN IF NOT EXISTS bytes bigint;
UPDATE salsa.datasets d SET bytes = (
    SELECT count(*) * 8 + COALESCE(sum(octet_length(p.vector)), 0) + COALESCE(sum(octet_length(p.label)), 0) + COALESCE(sum(octet_length(p.text)), 0)
    FROM salsa.dataset_points p WHERE p.dataset_id = d.id)
WHERE d.bytes IS NULL;
ALTER TABLE salsa.datasets ALTER COLUMN bytes SET DEFAULT 0;
ALTER TABLE salsa.datasets ALTER COLUMN bytes SET NOT NULL;
