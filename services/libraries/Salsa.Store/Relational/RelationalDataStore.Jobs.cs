using System.Data.Common;
using System.Globalization;
using System.Security.Cryptography;
using System.Text.Json;

namespace Salsa.Store.Relational;

/// <summary>Jobs and the artifacts they produce.</summary>
public abstract partial class RelationalDataStore
{
    public Task InsertJobAsync(JobRecord job, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateJob(job);
        return WriteAsync(async (connection, cancellationToken) =>
        {
            using var insert = BindJob(Prepared(connection, Queries.InsertJob), job);
            return await ExecuteUniqueAsync(insert, $"A job with id {job.Id} already exists.", cancellationToken);
        }, cancellationToken);
    }

    public Task UpdateJobAsync(JobRecord job, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateJob(job);
        return WriteAsync(async (connection, cancellationToken) =>
        {
            using var upsert = BindJob(Prepared(connection, Queries.UpsertJob), job);
            return await upsert.ExecuteAsync(cancellationToken);
        }, cancellationToken);
    }

    public Task<JobRecord?> GetJobAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadAsync(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.GetJob).Id("@id", id);
            return await select.FirstAsync(ReadJob, cancellationToken);
        }, cancellationToken);

    public Task<JobRecord?> FindDatasetUserAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadAsync(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.FindDatasetUser)
                .Id("@id", id)
                .Text("@id_text", id.ToString("D"))
                .Int32("@queued", (int)JobState.Queued)
                .Int32("@running", (int)JobState.Running);
            return await select.FirstAsync(ReadJob, cancellationToken);
        }, cancellationToken);

    public async Task<IReadOnlyList<JobRecord>> ListJobsAsync(string? service, string? tenant, int limit = 100, CancellationToken cancellationToken = default) =>
        (await QueryJobsAsync(new JobQuery { Service = service, Tenant = tenant, Limit = limit }, cancellationToken)).Jobs;

    public Task<JobPage> QueryJobsAsync(JobQuery query, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(query);
        ArgumentOutOfRangeException.ThrowIfNegative(query.Limit);
        ArgumentOutOfRangeException.ThrowIfNegative(query.Offset);

        // Only the filters given, so each selection can use its index.
        var filters = new List<string>();
        void Filter(object? value, string condition)
        {
            if (value is not null)
            {
                filters.Add(condition);
            }
        }

        Filter(query.Service, Queries.JobsOfService);
        Filter(query.Tenant, Queries.JobsOfTenant);
        Filter(query.Kind, Queries.JobsOfKind);
        Filter(query.State, Queries.JobsInState);
        Filter(query.CreatedFrom, Queries.JobsCreatedFrom);
        Filter(query.CreatedBefore, Queries.JobsCreatedBefore);
        var where = filters.Count == 0 ? "" : "WHERE " + string.Join(" AND ", filters);
        StoreCommand Select(DbConnection connection, string sql)
        {
            var select = Command(connection, null, sql.Replace("{where}", where, StringComparison.Ordinal));
            if (query.Service is not null)
            {
                select.Text("@service", query.Service);
            }

            if (query.Tenant is not null)
            {
                select.Text("@tenant", query.Tenant);
            }

            if (query.Kind is not null)
            {
                select.Text("@kind", query.Kind);
            }

            if (query.State is { } state)
            {
                select.Int32("@state", (int)state);
            }

            if (query.CreatedFrom is { } from)
            {
                select.Time("@from", from);
            }

            if (query.CreatedBefore is { } before)
            {
                select.Time("@before", before);
            }

            return select;
        }

        return ReadAsync(async (connection, cancellationToken) =>
        {
            // The total rides on every row (a window over the filtered rows, before the page is cut).
            var list = new List<JobRecord>();
            var total = -1L;
            using (var page = Select(connection, Queries.QueryJobs).Int32("@limit", query.Limit).Int32("@offset", query.Offset))
            {
                await using var reader = await page.ReaderAsync(cancellationToken);
                while (await reader.ReadAsync(cancellationToken))
                {
                    list.Add(ReadJob(reader));
                    total = reader.GetInt64(JobColumnCount);
                }
            }

            if (total < 0)
            {
                // No row on this page: count alone (the page may lie past the end, or be empty by its limit).
                using var count = Select(connection, Queries.CountJobs);
                total = Convert.ToInt64(await count.ScalarAsync(cancellationToken), CultureInfo.InvariantCulture);
            }

            return new JobPage(list, checked((int)total));
        }, cancellationToken);
    }

    public Task<int> MarkInterruptedAsync(string service, string reason, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(service);
        ArgumentNullException.ThrowIfNull(reason);
        var finished = Clock.GetUtcNow();
        return WriteAsync(async (connection, cancellationToken) =>
        {
            using var update = Command(connection, null, Queries.MarkInterrupted)
                .Int32("@interrupted", (int)JobState.Interrupted)
                .Time("@finished", finished)
                .Text("@reason", reason)
                .Text("@service", service)
                .Int32("@queued", (int)JobState.Queued)
                .Int32("@running", (int)JobState.Running);
            return await update.ExecuteAsync(cancellationToken);
        }, cancellationToken);
    }

    public Task PutArtifactAsync(Guid jobId, Artifact artifact, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateArtifact(artifact);
        var sha256 = Convert.ToHexStringLower(SHA256.HashData(artifact.Data));
        return WriteAsync(async (connection, cancellationToken) =>
        {
            using var upsert = Command(connection, null, Queries.PutArtifact)
                .Id("@job_id", jobId)
                .Text("@name", artifact.Name)
                .Text("@content_type", artifact.ContentType)
                .Bytes("@data", artifact.Data)
                .Text("@sha256", sha256);
            return await upsert.ExecuteAsync(cancellationToken);
        }, cancellationToken);
    }

    public Task<Artifact?> GetArtifactAsync(Guid jobId, string name, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(name);
        return ReadAsync(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.GetArtifact).Id("@job_id", jobId).Text("@name", name);
            return await select.FirstAsync(reader => new Artifact(name, reader.GetString(0), reader.GetFieldValue<byte[]>(1)), cancellationToken);
        }, cancellationToken);
    }

    public async Task<IReadOnlyList<ArtifactEntry>> ListArtifactsAsync(Guid jobId, CancellationToken cancellationToken = default)
    {
        var entries = await ReadAsync(async (connection, cancellationToken) =>
        {
            // Both vendors read a stored value's size from its header, without the data.
            using var select = Command(connection, null, Queries.ListArtifacts).Id("@job_id", jobId);
            return await select.ListAsync(reader => new ArtifactEntry(reader.GetString(0), reader.GetString(1), reader.GetInt64(2), reader.IsDBNull(3) ? null : reader.GetString(3)), cancellationToken);
        }, cancellationToken);
        for (var i = 0; i < entries.Count; i++)
        {
            if (entries[i] is { Sha256: null } older)
            {
                entries[i] = await WithDigestAsync(jobId, older, cancellationToken);
            }
        }

        return entries;
    }

    /// <summary>A file stored before digests were kept (schema 4 and older) gets its digest when first listed, and keeps it.</summary>
    private async Task<ArtifactEntry> WithDigestAsync(Guid jobId, ArtifactEntry entry, CancellationToken cancellationToken)
    {
        if (await GetArtifactAsync(jobId, entry.Name, cancellationToken) is not { } artifact)
        {
            return entry; // gone meanwhile
        }

        var sha256 = Convert.ToHexStringLower(SHA256.HashData(artifact.Data));
        await WriteAsync(async (connection, cancellationToken) =>
        {
            using var update = Command(connection, null, Queries.SetArtifactDigest).Id("@job_id", jobId).Text("@name", entry.Name).Text("@sha256", sha256);
            return await update.ExecuteAsync(cancellationToken);
        }, cancellationToken);
        return entry with { Sha256 = sha256 };
    }

    // The columns ReadJob reads (the vendors' JobColumns); a query that adds one reads it after them.
    private const int JobColumnCount = 16;

    private static StoreCommand BindJob(StoreCommand command, JobRecord job) => command
        .Id("@id", job.Id)
        .Text("@service", job.Service)
        .Text("@kind", job.Kind)
        .Int32("@state", (int)job.State)
        .Time("@created", job.Created)
        .Time("@started", job.Started)
        .Time("@finished", job.Finished)
        .Real("@queue_ms", job.QueueMilliseconds)
        .Real("@compute_ms", job.ComputeMilliseconds)
        .Id("@dataset_id", job.DatasetId)
        .Text("@parameters", job.ParametersJson)
        .Text("@progress", job.ProgressJson)
        .Text("@result", job.ResultJson)
        .Text("@error", job.Error)
        .Text("@tenant", job.Tenant)
        .Text("@resources", job.Resources is null ? null : JsonSerializer.Serialize(job.Resources, JobResourcesJsonContext.Default.JobResources));

    private JobRecord ReadJob(DbDataReader reader) => new()
    {
        Id = Dialect.ReadId(reader, 0),
        Service = reader.GetString(1),
        Kind = reader.GetString(2),
        State = (JobState)reader.GetInt32(3),
        Created = Dialect.ReadTime(reader, 4),
        Started = reader.IsDBNull(5) ? null : Dialect.ReadTime(reader, 5),
        Finished = reader.IsDBNull(6) ? null : Dialect.ReadTime(reader, 6),
        QueueMilliseconds = StoreDialect.ReadReal(reader, 7),
        ComputeMilliseconds = StoreDialect.ReadReal(reader, 8),
        DatasetId = reader.IsDBNull(9) ? null : Dialect.ReadId(reader, 9),
        ParametersJson = reader.GetString(10),
        ProgressJson = reader.IsDBNull(11) ? null : reader.GetString(11),
        ResultJson = reader.IsDBNull(12) ? null : reader.GetString(12),
        Error = reader.IsDBNull(13) ? null : reader.GetString(13),
        Tenant = reader.GetString(14),
        Resources = reader.IsDBNull(15) ? null : JsonSerializer.Deserialize(reader.GetString(15), JobResourcesJsonContext.Default.JobResources),
    };
}
