-- Salsa.Store, SQLite: the queries the relational core runs (RelationalDataStore, StoreQueries),
-- and SQLite's own (SqliteQueries). Ids are TEXT, times integers of microseconds since 1970 (_us),
-- a dataset being imported in parts is hidden by importing_since_us until its last part is in.

-- name: DatasetColumns
id, name, kind, count, dimension, bits, fingerprint_type, total_weight, created_us, source, metadata, tenant, bytes, sha256

-- name: JobColumns
id, service, kind, state, created_us, started_us, finished_us, queue_ms, compute_ms, dataset_id, parameters, progress, result, error, tenant, resources

-- name: JobValues
@id, @service, @kind, @state, @created, @started, @finished, @queue_ms, @compute_ms, @dataset_id, @parameters, @progress, @result, @error, @tenant, @resources

-- name: ApiKeyColumns
id, tenant, name, scopes, secret_hash, created_us, revoked_us

-- name: SchemaVersion
PRAGMA user_version;

-- name: SetSchemaVersion
PRAGMA user_version = {version};

-- name: InsertDataset
INSERT INTO datasets ({DatasetColumns}, has_labels, has_texts, importing_since_us)
VALUES (@id, @name, @kind, @count, @dimension, @bits, @fingerprint_type, @total_weight, @created, @source, @metadata, @tenant, @bytes, NULL, @has_labels, @has_texts, @importing_since)
RETURNING pk;

-- name: TenantUsage
SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM datasets WHERE tenant = @tenant AND importing_since_us IS NULL;

-- name: CompleteDataset
UPDATE datasets SET total_weight = @total_weight, bytes = @bytes, sha256 = @sha256, importing_since_us = NULL WHERE id = @id;

-- name: SetDatasetDigest
-- A dataset stored before digests were kept gets its digest when first read.
UPDATE datasets SET sha256 = @sha256 WHERE id = @id AND sha256 IS NULL;

-- name: GetDataset
SELECT {DatasetColumns} FROM datasets WHERE id = @id AND importing_since_us IS NULL;

-- name: DatasetShape
SELECT kind, count, dimension, bits, has_labels, has_texts FROM datasets WHERE id = @id AND importing_since_us IS NULL;

-- name: DatasetPoints
SELECT idx, vector, weight, label, text FROM dataset_points
WHERE dataset_pk = (SELECT pk FROM datasets WHERE id = @id) AND idx >= @start AND idx < @end ORDER BY idx;

-- name: ListDatasets
SELECT {DatasetColumns} FROM datasets WHERE importing_since_us IS NULL AND (@tenant IS NULL OR tenant = @tenant)
ORDER BY created_us DESC, pk DESC LIMIT @limit;

-- name: RenameDataset
UPDATE datasets SET name = @name WHERE id = @id AND importing_since_us IS NULL;

-- name: DeleteDatasetPoints
DELETE FROM dataset_points WHERE dataset_pk = (SELECT pk FROM datasets WHERE id = @id AND importing_since_us IS NULL);

-- name: DeleteDataset
DELETE FROM datasets WHERE id = @id AND importing_since_us IS NULL;

-- name: InsertJob
INSERT INTO jobs ({JobColumns}) VALUES ({JobValues});

-- name: UpsertJob
INSERT INTO jobs ({JobColumns}) VALUES ({JobValues})
ON CONFLICT (id) DO UPDATE SET
    service = excluded.service, kind = excluded.kind, state = excluded.state,
    created_us = excluded.created_us, started_us = excluded.started_us, finished_us = excluded.finished_us,
    queue_ms = excluded.queue_ms, compute_ms = excluded.compute_ms, dataset_id = excluded.dataset_id,
    parameters = excluded.parameters, progress = excluded.progress, result = excluded.result, error = excluded.error,
    tenant = excluded.tenant, resources = excluded.resources;

-- name: GetJob
SELECT {JobColumns} FROM jobs WHERE id = @id;

-- name: FindDatasetUser
SELECT {JobColumns} FROM jobs
WHERE state IN (@queued, @running) AND (dataset_id = @id OR instr(parameters, @id_text) > 0 OR instr(coalesce(result, ''), @id_text) > 0)
ORDER BY created_us, seq LIMIT 1;

-- name: QueryJobs
SELECT {JobColumns}, count(*) OVER () FROM jobs {where} ORDER BY created_us DESC, seq DESC LIMIT @limit OFFSET @offset;

-- name: CountJobs
SELECT count(*) FROM jobs {where};

-- name: JobsOfService
service = @service

-- name: JobsOfTenant
tenant = @tenant

-- name: JobsOfKind
kind = @kind

-- name: JobsInState
state = @state

-- name: JobsCreatedFrom
created_us >= @from

-- name: JobsCreatedBefore
created_us < @before

-- name: MarkInterrupted
UPDATE jobs SET state = @interrupted, finished_us = @finished, error = @reason
WHERE service = @service AND state IN (@queued, @running);

-- name: PutArtifact
INSERT INTO job_artifacts (job_id, name, content_type, data, sha256) VALUES (@job_id, @name, @content_type, @data, @sha256)
ON CONFLICT (job_id, name) DO UPDATE SET content_type = excluded.content_type, data = excluded.data, sha256 = excluded.sha256;

-- name: SetArtifactDigest
-- A file stored before digests were kept gets its digest when first listed.
UPDATE job_artifacts SET sha256 = @sha256 WHERE job_id = @job_id AND name = @name AND sha256 IS NULL;

-- name: GetArtifact
SELECT content_type, data FROM job_artifacts WHERE job_id = @job_id AND name = @name;

-- name: ListArtifacts
-- length() of a BLOB reads the record header only, not the data.
SELECT name, content_type, length(data), sha256 FROM job_artifacts WHERE job_id = @job_id ORDER BY name;

-- name: CountLiveKeys
SELECT COUNT(*) FROM api_keys WHERE tenant = @tenant AND revoked_us IS NULL;

-- name: InsertApiKey
INSERT INTO api_keys ({ApiKeyColumns}) VALUES (@id, @tenant, @name, @scopes, @secret_hash, @created, @revoked);

-- name: GetApiKey
SELECT {ApiKeyColumns} FROM api_keys WHERE id = @id;

-- name: ListApiKeys
SELECT {ApiKeyColumns} FROM api_keys WHERE (@tenant IS NULL OR tenant = @tenant) ORDER BY created_us, id;

-- name: RevokeApiKey
UPDATE api_keys SET revoked_us = @revoked WHERE id = @id AND revoked_us IS NULL;

-- name: InsertPoints
INSERT INTO dataset_points ({columns}) VALUES ({values});

-- name: AbandonedImports
SELECT pk FROM datasets WHERE importing_since_us < @before;

-- name: DeleteImportPoints
DELETE FROM dataset_points WHERE dataset_pk = (SELECT pk FROM datasets WHERE pk = @key AND importing_since_us IS NOT NULL);

-- name: DeleteImport
DELETE FROM datasets WHERE pk = @key AND importing_since_us IS NOT NULL;
