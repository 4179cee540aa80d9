-- Salsa.Store, SQLite: the schema of version 1. A new store runs every script in order.
CREATE TABLE IF NOT EXISTS datasets (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    kind INTEGER NOT NULL,
    count INTEGER NOT NULL,
    dimension INTEGER NOT NULL,
    bits INTEGER NOT NULL,
    fingerprint_type TEXT,
    total_weight REAL NOT NULL,
    created_us INTEGER NOT NULL,
    source TEXT NOT NULL,
    metadata TEXT NOT NULL,
    has_labels INTEGER NOT NULL,
    has_texts INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS datasets_by_created ON datasets (created_us DESC, pk DESC);
CREATE TABLE IF NOT EXISTS dataset_points (
    dataset_pk INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    vector BLOB,
    weight REAL NOT NULL,
    label TEXT,
    text TEXT,
    PRIMARY KEY (dataset_pk, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    service TEXT NOT NULL,
    kind TEXT NOT NULL,
    state INTEGER NOT NULL,
    created_us INTEGER NOT NULL,
    started_us INTEGER,
    finished_us INTEGER,
    queue_ms REAL,
    compute_ms REAL,
    dataset_id TEXT,
    parameters TEXT NOT NULL,
    progress TEXT,
    result TEXT,
    error TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs (created_us DESC, seq DESC);
CREATE INDEX IF NOT EXISTS jobs_by_service ON jobs (service, created_us DESC, seq DESC);
CREATE TABLE IF NOT EXISTS job_artifacts (
    job_id TEXT NOT NULL,
    name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (job_id, name)
);
