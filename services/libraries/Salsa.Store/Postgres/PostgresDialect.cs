using System.Data;
using System.Data.Common;
using Npgsql;
using Salsa.Store.Relational;

namespace Salsa.Store.Postgres;

/// <summary>PostgreSQL's way with the shared values: <c>uuid</c>, <c>timestamptz</c> (UTC, microseconds) and float8 with its NaN, bound natively by Npgsql.</summary>
internal sealed class PostgresDialect : StoreDialect
{
    private const string UniqueViolation = "23505";

    public static PostgresDialect Instance { get; } = new();

    private PostgresDialect()
        : base("Postgres")
    {
        PostgresQueries = LoadQueries<PostgresQueries>();
    }

    public PostgresQueries PostgresQueries { get; }

    public override StoreQueries Queries => PostgresQueries;

    public override DbType IdType => DbType.Guid;

    public override object Id(Guid id) => id;

    public override Guid ReadId(DbDataReader reader, int ordinal) => reader.GetGuid(ordinal);

    public override DbType TimeType => DbType.DateTimeOffset;

    public override object Time(DateTimeOffset time) => StoreTime.Normalize(time);

    public override DateTimeOffset ReadTime(DbDataReader reader, int ordinal) => reader.GetFieldValue<DateTimeOffset>(ordinal);

    public override bool IsUniqueViolation(DbException exception) => exception is PostgresException { SqlState: UniqueViolation };

    public override int ReadVector(DbDataReader reader, int ordinal, byte[] buffer)
    {
        // Into the caller's buffer: no array per row.
        var length = reader.IsDBNull(ordinal) ? -1 : (int)reader.GetBytes(ordinal, 0, null, 0, 0);
        if (length == buffer.Length)
        {
            reader.GetBytes(ordinal, 0, buffer, 0, buffer.Length);
        }

        return length;
    }
}
