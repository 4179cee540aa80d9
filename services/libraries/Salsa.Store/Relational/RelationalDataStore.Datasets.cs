using System.Data.Common;

namespace Salsa.Store.Relational;

/// <summary>Datasets: stored by the vendor's bulk path, read by a range scan of their points in one snapshot.</summary>
public abstract partial class RelationalDataStore
{
    public Task<DatasetInfo> CreateDatasetAsync(DatasetInfo info, DatasetContent content, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateDataset(info, content);
        return ImportDatasetAsync(info, new[] { content }.ToAsyncEnumerable(), cancellationToken);
    }

    public async Task<DatasetInfo> ImportDatasetAsync(DatasetInfo info, IAsyncEnumerable<DatasetContent> parts, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(parts);
        var stored = StoreValidation.ValidateInfo(info);
        using var check = new StoreValidation.ImportCheck(stored);

        // Whatever fails from here (a bad part, the caller cancelling, the disk), disposing the
        // import uncompleted leaves nothing of it.
        await using var import = await BeginImportAsync(stored, cancellationToken);
        await foreach (var part in parts.WithCancellation(cancellationToken).ConfigureAwait(false))
        {
            var from = check.Next(part);
            await import.WriteAsync(part, from, cancellationToken);
        }

        check.Finish();
        stored = stored with { TotalWeight = check.TotalWeight, Bytes = check.Bytes, Sha256 = check.Sha256 };
        await import.CompleteAsync(stored, cancellationToken);
        return stored;
    }

    /// <summary>
    /// Inserts a dataset's row — hidden from reads until <see cref="CompleteImportAsync"/>, by the time
    /// its import began where the vendor marks it so (SQLite), by the import's transaction otherwise —
    /// and returns what the vendor's insert returns (SQLite: the row's key, which its points hang on).
    /// </summary>
    private protected Task<object?> InsertDatasetRowAsync(DbConnection connection, DbTransaction? transaction, DatasetInfo stored, DatasetContent first, CancellationToken cancellationToken)
    {
        var insert = Command(connection, transaction, Queries.InsertDataset)
            .Id("@id", stored.Id)
            .Text("@name", stored.Name)
            .Int32("@kind", (int)stored.Kind)
            .Int32("@count", stored.Count)
            .Int32("@dimension", stored.Dimension)
            .Int32("@bits", stored.Bits)
            .Text("@fingerprint_type", stored.FingerprintType)
            .Real("@total_weight", stored.TotalWeight)
            .Time("@created", stored.Created)
            .Text("@source", stored.Source)
            .Text("@metadata", MetadataJson.Serialize(stored.Metadata))
            .Text("@tenant", stored.Tenant)
            .Int64("@bytes", stored.Bytes)
            .Flag("@has_labels", first.Labels is not null)
            .Flag("@has_texts", first.Texts is not null)
            .Time("@importing_since", Clock.GetUtcNow());
        return ExecuteOnceAsync(insert, $"A dataset with id {stored.Id} already exists.", cancellationToken);
    }

    private async Task<object?> ExecuteOnceAsync(StoreCommand command, string duplicate, CancellationToken cancellationToken)
    {
        using (command)
        {
            return await ExecuteUniqueAsync(command, duplicate, cancellationToken);
        }
    }

    /// <summary>
    /// The end of an import, in the vendor's transaction: the row of a dataset no part came for,
    /// the quota's check and the dataset's becoming visible with its totals — one step, so imports
    /// racing each other complete one before the other.
    /// </summary>
    private protected async Task CompleteImportAsync(DbConnection connection, DbTransaction transaction, DatasetInfo stored, bool rowWritten, CancellationToken cancellationToken)
    {
        if (!rowWritten)
        {
            await InsertDatasetRowAsync(connection, transaction, stored, new DatasetContent { Weights = [] }, cancellationToken);
        }

        await RequireRoomAsync(connection, transaction, stored, cancellationToken);
        using var complete = Command(connection, transaction, Queries.CompleteDataset)
            .Id("@id", stored.Id)
            .Real("@total_weight", stored.TotalWeight)
            .Int64("@bytes", stored.Bytes)
            .Text("@sha256", stored.Sha256);
        await complete.ExecuteAsync(cancellationToken);
    }

    public async Task<DatasetInfo?> GetDatasetAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var info = await ReadAsync(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.GetDataset).Id("@id", id);
            return await select.FirstAsync(ReadDatasetInfo, cancellationToken);
        }, cancellationToken);
        return info is { Sha256: null } ? await WithDigestAsync(info, cancellationToken) : info;
    }

    /// <summary>A dataset stored before digests were kept (schema 4 and older) gets its digest when first read, and keeps it.</summary>
    private async Task<DatasetInfo> WithDigestAsync(DatasetInfo info, CancellationToken cancellationToken)
    {
        if (await ReadDatasetAsync(info.Id, cancellationToken) is not { } content)
        {
            return info; // deleted meanwhile
        }

        string sha256;
        using (var digest = new DatasetDigest(info))
        {
            digest.Add(content);
            sha256 = digest.Finish();
        }

        await WriteAsync(async (connection, cancellationToken) =>
        {
            using var update = Command(connection, null, Queries.SetDatasetDigest).Id("@id", info.Id).Text("@sha256", sha256);
            return await update.ExecuteAsync(cancellationToken);
        }, cancellationToken);
        return info with { Sha256 = sha256 };
    }

    public Task<DatasetContent?> ReadDatasetAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadRowsAsync(id, null, cancellationToken);

    public Task<DatasetContent?> ReadDatasetRowsAsync(Guid id, int start, int count, CancellationToken cancellationToken = default)
    {
        StoreValidation.CheckRange(start, count, int.MaxValue);
        return ReadRowsAsync(id, (start, count), cancellationToken);
    }

    // The whole dataset, or a range of its rows (a range scan of the points' primary key).
    private Task<DatasetContent?> ReadRowsAsync(Guid id, (int Start, int Count)? range, CancellationToken cancellationToken) =>
        ReadAsync(async (connection, cancellationToken) =>
        {
            // One snapshot for the dataset row and its points, so a concurrent delete cannot split them.
            await using var transaction = await BeginSnapshotAsync(connection, cancellationToken);
            DatasetContentBuilder builder;
            using (var select = Command(connection, transaction, Queries.DatasetShape).Id("@id", id))
            {
                await using var row = await select.ReaderAsync(cancellationToken);
                if (!await row.ReadAsync(cancellationToken))
                {
                    return null;
                }

                var rows = row.GetInt32(1);
                var (start, count) = range ?? (0, rows);
                StoreValidation.CheckRange(start, count, rows);
                builder = new DatasetContentBuilder((DatasetKind)row.GetInt32(0), count, row.GetInt32(2), row.GetInt32(3), row.GetBoolean(4), row.GetBoolean(5), start);
            }

            using (var points = Command(connection, transaction, Queries.DatasetPoints).Id("@id", id).Int32("@start", builder.First).Int64("@end", (long)builder.First + builder.Count))
            {
                await using var reader = await points.ReaderAsync(cancellationToken);
                var vector = new byte[builder.VectorBytes];
                var read = 0;
                while (await reader.ReadAsync(cancellationToken))
                {
                    if (read++ % CancellationCheckInterval == 0)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                    }

                    var index = reader.GetInt32(0);
                    if (vector.Length > 0)
                    {
                        var length = Dialect.ReadVector(reader, 1, vector);
                        if (length != vector.Length)
                        {
                            throw new InvalidDataException($"Point {index} of dataset {id} has a {length}-byte vector; {vector.Length} expected.");
                        }

                        vector.CopyTo(builder.NextVector);
                    }

                    builder.Add(index, reader.GetDouble(2), reader.IsDBNull(3) ? null : reader.GetString(3), reader.IsDBNull(4) ? null : reader.GetString(4));
                }
            }

            await transaction.CommitAsync(cancellationToken);
            return builder.Build();
        }, cancellationToken);

    public Task<IReadOnlyList<DatasetInfo>> ListDatasetsAsync(string? tenant, int limit = 100, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        return ReadAsync<IReadOnlyList<DatasetInfo>>(async (connection, cancellationToken) =>
        {
            using var select = Command(connection, null, Queries.ListDatasets).Text("@tenant", tenant).Int32("@limit", limit);
            return await select.ListAsync(ReadDatasetInfo, cancellationToken);
        }, cancellationToken);
    }

    public Task<bool> RenameDatasetAsync(Guid id, string name, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        return WriteAsync(async (connection, cancellationToken) =>
        {
            using var rename = Command(connection, null, Queries.RenameDataset).Id("@id", id).Text("@name", name);
            return await rename.ExecuteAsync(cancellationToken) > 0;
        }, cancellationToken);
    }

    public Task<bool> DeleteDatasetAsync(Guid id, CancellationToken cancellationToken = default) =>
        WriteAsync(async (connection, cancellationToken) =>
        {
            // Points go in the same transaction as their dataset row (no foreign key: it would cost a
            // parent lookup per inserted point, and only an import and this delete touch points).
            await using var transaction = await BeginWriteAsync(connection, cancellationToken);
            using (var points = Command(connection, transaction, Queries.DeleteDatasetPoints).Id("@id", id))
            {
                await points.ExecuteAsync(cancellationToken);
            }

            using var dataset = Command(connection, transaction, Queries.DeleteDataset).Id("@id", id);
            var deleted = await dataset.ExecuteAsync(cancellationToken) > 0;
            await transaction.CommitAsync(cancellationToken);
            return deleted;
        }, cancellationToken);

    private DatasetInfo ReadDatasetInfo(DbDataReader reader) => new()
    {
        Id = Dialect.ReadId(reader, 0),
        Name = reader.GetString(1),
        Kind = (DatasetKind)reader.GetInt32(2),
        Count = reader.GetInt32(3),
        Dimension = reader.GetInt32(4),
        Bits = reader.GetInt32(5),
        FingerprintType = reader.IsDBNull(6) ? null : reader.GetString(6),
        TotalWeight = reader.GetDouble(7),
        Created = Dialect.ReadTime(reader, 8),
        Source = reader.GetString(9),
        Metadata = MetadataJson.Deserialize(reader.GetString(10)),
        Tenant = reader.GetString(11),
        Bytes = reader.GetInt64(12),
        Sha256 = reader.IsDBNull(13) ? null : reader.GetString(13),
    };
}
