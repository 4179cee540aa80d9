using Npgsql;
using NpgsqlTypes;
using Salsa.Store.Relational;

namespace Salsa.Store.Postgres;

/// <summary>
/// A dataset imported into PostgreSQL in one transaction: its row, then every part streamed into one
/// binary COPY through Npgsql's importer, then the quota's check under the tenant's lock and the
/// totals. Until it commits no one sees the dataset; disposed before that, it rolls everything back.
/// </summary>
internal sealed class PostgresDatasetImport : DatasetImport
{
    private readonly PostgresDataStore _store;
    private readonly DatasetInfo _info;
    private readonly NpgsqlConnection _connection;
    private readonly NpgsqlTransaction _transaction;
    private NpgsqlBinaryImporter? _importer;
    private bool _rowWritten;

    private PostgresDatasetImport(PostgresDataStore store, DatasetInfo info, NpgsqlConnection connection, NpgsqlTransaction transaction)
    {
        _store = store;
        _info = info;
        _connection = connection;
        _transaction = transaction;
    }

    public static async Task<PostgresDatasetImport> BeginAsync(PostgresDataStore store, NpgsqlDataSource dataSource, DatasetInfo info, CancellationToken cancellationToken)
    {
        var connection = await dataSource.OpenConnectionAsync(cancellationToken);
        try
        {
            return new PostgresDatasetImport(store, info, connection, await connection.BeginTransactionAsync(cancellationToken));
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }
    }

    public override async Task WriteAsync(DatasetContent part, int from, CancellationToken cancellationToken)
    {
        if (_importer is null)
        {
            await _store.InsertImportRowAsync(_connection, _transaction, _info, part, cancellationToken);
            _rowWritten = true;
            _importer = await _connection.BeginBinaryImportAsync(CopyCommand(part), cancellationToken);
        }

        var vectorBytes = StoreValidation.VectorBytes(_info.Kind, _info.Dimension, _info.Bits);
        var all = PointVectors.ToBytes(part);
        for (var i = 0; i < part.Weights.Length; i++)
        {
            await _importer.StartRowAsync(cancellationToken);
            await _importer.WriteAsync(_info.Id, NpgsqlDbType.Uuid, cancellationToken);
            await _importer.WriteAsync(from + i, NpgsqlDbType.Integer, cancellationToken);
            await _importer.WriteAsync(part.Weights[i], NpgsqlDbType.Double, cancellationToken);
            if (all is not null)
            {
                await _importer.WriteAsync(new ArraySegment<byte>(all, i * vectorBytes, vectorBytes), NpgsqlDbType.Bytea, cancellationToken);
            }

            if (part.Labels is { } labels)
            {
                await _importer.WriteAsync(labels[i], NpgsqlDbType.Text, cancellationToken);
            }

            if (part.Texts is { } texts)
            {
                await _importer.WriteAsync(texts[i], NpgsqlDbType.Text, cancellationToken);
            }
        }
    }

    public override async Task CompleteAsync(DatasetInfo stored, CancellationToken cancellationToken)
    {
        if (_importer is not null)
        {
            // Without Complete, disposing the importer cancels the COPY.
            await _importer.CompleteAsync(cancellationToken);
            await _importer.DisposeAsync();
            _importer = null;
        }

        await _store.FinishImportAsync(_connection, _transaction, stored, _rowWritten, cancellationToken);
        await _transaction.CommitAsync(cancellationToken);
    }

    public override async ValueTask DisposeAsync()
    {
        if (_importer is not null)
        {
            await _importer.DisposeAsync();
        }

        await _transaction.DisposeAsync();
        await _connection.DisposeAsync();
    }

    /// <summary>The COPY of the columns the parts carry (the others default to NULL).</summary>
    private string CopyCommand(DatasetContent first)
    {
        var columns = new List<string> { "dataset_id", "idx", "weight" };
        if (StoreValidation.VectorBytes(_info.Kind, _info.Dimension, _info.Bits) > 0)
        {
            columns.Add("vector");
        }

        if (first.Labels is not null)
        {
            columns.Add("label");
        }

        if (first.Texts is not null)
        {
            columns.Add("text");
        }

        return PostgresDialect.Instance.PostgresQueries.CopyPoints.Replace("{columns}", string.Join(", ", columns), StringComparison.Ordinal);
    }
}
