using System.Data;
using System.Data.Common;

namespace Salsa.Store.Relational;

/// <summary>
/// A command of the relational core with its parameters bound by type through the vendor's
/// <see cref="StoreDialect"/>. Disposing it disposes the command unless the vendor keeps it
/// prepared for the next call (SQLite's writer).
/// </summary>
internal readonly struct StoreCommand(DbCommand command, StoreDialect dialect, bool owned) : IDisposable
{
    public DbCommand Command => command;

    public StoreCommand Id(string name, Guid? value) => Add(name, value is { } v ? dialect.Id(v) : null, dialect.IdType);

    public StoreCommand Time(string name, DateTimeOffset? value) => Add(name, value is { } v ? dialect.Time(v) : null, dialect.TimeType);

    public StoreCommand Text(string name, string? value) => Add(name, value, DbType.String);

    public StoreCommand Int32(string name, int? value) => Add(name, value, DbType.Int32);

    public StoreCommand Int64(string name, long? value) => Add(name, value, DbType.Int64);

    public StoreCommand Real(string name, double value) => Add(name, dialect.Real(value), DbType.Double);

    public StoreCommand Flag(string name, bool value) => Add(name, value, DbType.Boolean);

    public StoreCommand Bytes(string name, byte[] value) => Add(name, value, DbType.Binary);

    public Task<int> ExecuteAsync(CancellationToken cancellationToken) => command.ExecuteNonQueryAsync(cancellationToken);

    public Task<object?> ScalarAsync(CancellationToken cancellationToken) => command.ExecuteScalarAsync(cancellationToken);

    public Task<DbDataReader> ReaderAsync(CancellationToken cancellationToken) => command.ExecuteReaderAsync(cancellationToken);

    /// <summary>The first row mapped by <paramref name="map"/>, or null when there is none.</summary>
    public async Task<T?> FirstAsync<T>(Func<DbDataReader, T> map, CancellationToken cancellationToken)
        where T : class
    {
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        return await reader.ReadAsync(cancellationToken) ? map(reader) : null;
    }

    /// <summary>Every row mapped by <paramref name="map"/>.</summary>
    public async Task<List<T>> ListAsync<T>(Func<DbDataReader, T> map, CancellationToken cancellationToken)
    {
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        var list = new List<T>();
        while (await reader.ReadAsync(cancellationToken))
        {
            list.Add(map(reader));
        }

        return list;
    }

    public void Dispose()
    {
        if (owned)
        {
            command.Dispose();
        }
    }

    private StoreCommand Add(string name, object? value, DbType type)
    {
        var parameter = command.CreateParameter();
        parameter.ParameterName = name;
        parameter.DbType = type;
        parameter.Value = value ?? DBNull.Value;
        command.Parameters.Add(parameter);
        return this;
    }
}
