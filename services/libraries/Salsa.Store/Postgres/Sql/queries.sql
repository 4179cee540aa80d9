-- Salsa.Store, PostgreSQL: the queries the relational core runs (RelationalDataStore, StoreQueries),
-- and PostgreSQL's own (PostgresQueries). Tables live in the salsa schema; ids are uuid, times
-- timestamptz, metadata jsonb. A dataset is imported in one transaction, which hides it until done.

-- name: DatasetColumns
id, name, kind, count, dimension, bits, fingerprint_type, total_weight, created, source, metadata::text, tenant, bytes, sha256

-- name: JobColumns
id, service, kind, state, created, started, finished, queue_ms, compute_ms, dataset_id, parameters, progress, result, error, tenant, resources

-- name: JobValues
@id, @service, @kind, @state, @created, @started, @finished, @queue_ms, @compute_ms, @dataset_id, @parameters, @progress, @result, @error, @tenant, @resources

-- name: ApiKeyColumns
id, tenant, name, scopes, secret_hash, created, revoked

-- name: SchemaKept
SELECT to_regclass('salsa.schema_version') IS NOT NULL;

-- name: SchemaVersion
SELECT COALESCE(max(version), 0) FROM salsa.schema_version;

-- name: SetSchemaVersion
DELETE FROM salsa.schema_version; INSERT INTO salsa.schema_version (version) VALUES ({version});

-- name: LockSchema
-- DDL racing DDL on the same names fails even with IF NOT EXISTS: one process migrates at a time
-- ("salsa.st" read as a big-endian int64 is the key).
SELECT pg_advisory_xact_lock(8314045629910119284);

-- name: LockTenant
SELECT pg_advisory_xact_lock(hashtextextended(@what || ' ' || @tenant, 0));

-- name: InsertDataset
INSERT INTO salsa.datasets (id, name, kind, count, dimension, bits, fingerprint_type, total_weight, created, source, metadata, has_labels, has_texts, tenant, bytes)
VALUES (@id, @name, @kind, @count, @dimension, @bits, @fingerprint_type, @total_weight, @created, @source, @metadata::jsonb, @has_labels, @has_texts, @tenant, @bytes);

-- name: TenantUsage
SELECT count(*)::integer, COALESCE(sum(bytes), 0)::bigint FROM salsa.datasets WHERE tenant = @tenant AND id IS DISTINCT FROM @id;

-- name: CompleteDataset
UPDATE salsa.datasets SET total_weight = @total_weight, bytes = @bytes, sha256 = @sha256 WHERE id = @id;

-- name: SetDatasetDigest
-- A dataset stored before digests were kept gets its digest when first read.
UPDATE salsa.datasets SET sha256 = @sha256 WHERE id = @id AND sha256 IS NULL;

-- name: GetDataset
SELECT {DatasetColumns} FROM salsa.datasets WHERE id = @id;

-- name: DatasetShape
SELECT kind, count, dimension, bits, has_labels, has_texts FROM salsa.datasets WHERE id = @id;

-- name: DatasetPoints
-- Rows are small (a vector, a weight, an id and a SMILES), so the default row-buffered reader
-- suits; Npgsql receives every column in PostgreSQL's binary format.
SELECT idx, vector, weight, label, text FROM salsa.dataset_points WHERE dataset_id = @id AND idx >= @start AND idx < @end ORDER BY idx;

-- name: ListDatasets
SELECT {DatasetColumns} FROM salsa.datasets WHERE (@tenant::text IS NULL OR tenant = @tenant) ORDER BY created DESC, seq DESC LIMIT @limit;

-- name: RenameDataset
UPDATE salsa.datasets SET name = @name WHERE id = @id;

-- name: DeleteDatasetPoints
DELETE FROM salsa.dataset_points WHERE dataset_id = @id;

-- name: DeleteDataset
DELETE FROM salsa.datasets WHERE id = @id;

-- name: InsertJob
INSERT INTO salsa.jobs ({JobColumns}) VALUES ({JobValues});

-- name: UpsertJob
INSERT INTO salsa.jobs ({JobColumns}) VALUES ({JobValues})
ON CONFLICT (id) DO UPDATE SET
    service = EXCLUDED.service, kind = EXCLUDED.kind, state = EXCLUDED.state,
    created = EXCLUDED.created, started = EXCLUDED.started, finished = EXCLUDED.finished,
    queue_ms = EXCLUDED.queue_ms, compute_ms = EXCLUDED.compute_ms, dataset_id = EXCLUDED.dataset_id,
    parameters = EXCLUDED.parameters, progress = EXCLUDED.progress, result = EXCLUDED.result, error = EXCLUDED.error,
    tenant = EXCLUDED.tenant, resources = EXCLUDED.resources;

-- name: GetJob
SELECT {JobColumns} FROM salsa.jobs WHERE id = @id;

-- name: FindDatasetUser
SELECT {JobColumns} FROM salsa.jobs
WHERE state IN (@queued, @running) AND (dataset_id = @id OR strpos(parameters, @id_text) > 0 OR strpos(coalesce(result, ''), @id_text) > 0)
ORDER BY created, seq LIMIT 1;

-- name: QueryJobs
SELECT {JobColumns}, count(*) OVER () FROM salsa.jobs {where} ORDER BY created DESC, seq DESC LIMIT @limit OFFSET @offset;

-- name: CountJobs
SELECT count(*) FROM salsa.jobs {where};

-- name: JobsOfService
service = @service

-- name: JobsOfTenant
tenant = @tenant

-- name: JobsOfKind
kind = @kind

-- name: JobsInState
state = @state

-- name: JobsCreatedFrom
created >= @from

-- name: JobsCreatedBefore
created < @before

-- name: MarkInterrupted
UPDATE salsa.jobs SET state = @interrupted, finished = @finished, error = @reason
WHERE service = @service AND state IN (@queued, @running);

-- name: PutArtifact
INSERT INTO salsa.job_artifacts (job_id, name, content_type, data, sha256) VALUES (@job_id, @name, @content_type, @data, @sha256)
ON CONFLICT (job_id, name) DO UPDATE SET content_type = EXCLUDED.content_type, data = EXCLUDED.data, sha256 = EXCLUDED.sha256;

-- name: SetArtifactDigest
-- A file stored before digests were kept gets its digest when first listed.
UPDATE salsa.job_artifacts SET sha256 = @sha256 WHERE job_id = @job_id AND name = @name AND sha256 IS NULL;

-- name: GetArtifact
SELECT content_type, data FROM salsa.job_artifacts WHERE job_id = @job_id AND name = @name;

-- name: ListArtifacts
-- octet_length reads a TOASTed value's size from its header without fetching the data.
-- COLLATE "C" orders names by code point, as SQLite does, whatever the database's locale.
SELECT name, content_type, octet_length(data)::bigint, sha256 FROM salsa.job_artifacts WHERE job_id = @job_id ORDER BY name COLLATE "C";

-- name: CountLiveKeys
SELECT count(*)::integer FROM salsa.api_keys WHERE tenant = @tenant AND revoked IS NULL;

-- name: InsertApiKey
INSERT INTO salsa.api_keys ({ApiKeyColumns}) VALUES (@id, @tenant, @name, @scopes, @secret_hash, @created, @revoked);

-- name: GetApiKey
SELECT {ApiKeyColumns} FROM salsa.api_keys WHERE id = @id;

-- name: ListApiKeys
SELECT {ApiKeyColumns} FROM salsa.api_keys WHERE (@tenant::text IS NULL OR tenant = @tenant) ORDER BY created, id COLLATE "C";

-- name: RevokeApiKey
UPDATE salsa.api_keys SET revoked = @revoked WHERE id = @id AND revoked IS NULL;

-- name: CopyPoints
-- Only the columns the parts carry travel; the others default to NULL.
COPY salsa.dataset_points ({columns}) FROM STDIN (FORMAT BINARY)
