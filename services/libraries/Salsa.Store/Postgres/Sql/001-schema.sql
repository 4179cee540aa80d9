-- Salsa.Store, PostgreSQL: the schema of version 1. A new database runs every script in order, one
-- at version v those after the v-th, under the schema's advisory lock (LockSchema); each statement
-- is idempotent all the same, as the single script of earlier builds was.
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
