using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Salsa.Store.Relational;

namespace Salsa.Store.Sqlite;

/// <summary>
/// SQLite's way with the shared values: it has no uuid, timestamp or NaN, so ids are TEXT
/// (lower-case, <c>D</c> format), times integers of microseconds since 1970 (UTC), and a NaN double
/// NULL (Microsoft.Data.Sqlite refuses to bind NaN), read back as NaN.
/// </summary>
internal sealed class SqliteDialect : StoreDialect
{
    public static SqliteDialect Instance { get; } = new();

    private SqliteDialect()
        : base("Sqlite")
    {
        SqliteQueries = LoadQueries<SqliteQueries>();
    }

    public SqliteQueries SqliteQueries { get; }

    public override StoreQueries Queries => SqliteQueries;

    public override DbType IdType => DbType.String;

    public override object Id(Guid id) => id.ToString("D");

    public override Guid ReadId(DbDataReader reader, int ordinal) => Guid.Parse(reader.GetString(ordinal));

    public override DbType TimeType => DbType.Int64;

    public override object Time(DateTimeOffset time) => StoreTime.ToUnixMicroseconds(time);

    public override DateTimeOffset ReadTime(DbDataReader reader, int ordinal) => StoreTime.FromUnixMicroseconds(reader.GetInt64(ordinal));

    public override object Real(double value) => double.IsNaN(value) ? DBNull.Value : value;

    public override bool IsUniqueViolation(DbException exception) =>
        exception is SqliteException { SqliteExtendedErrorCode: 1555 /* SQLITE_CONSTRAINT_PRIMARYKEY */ or 2067 /* SQLITE_CONSTRAINT_UNIQUE */ };

    public override int ReadVector(DbDataReader reader, int ordinal, byte[] buffer)
    {
        if (reader.IsDBNull(ordinal))
        {
            return -1;
        }

        // GetFieldValue<byte[]> copies the column in one call; GetBytes would open an incremental-BLOB
        // handle per row, which is 25 times slower.
        var vector = reader.GetFieldValue<byte[]>(ordinal);
        if (vector.Length == buffer.Length)
        {
            vector.CopyTo(buffer, 0);
        }

        return vector.Length;
    }
}
