using System.Data;
using System.Data.Common;

namespace Salsa.Store.Relational;

/// <summary>
/// How a vendor keeps the values the two stores share: ids, times and doubles bound and read back
/// (PostgreSQL has <c>uuid</c> and <c>timestamptz</c>; SQLite keeps text and integers of
/// microseconds), a unique key's violation recognised, a vector's bytes read. The records' mapping
/// is written once, in the relational core, on top of these.
/// </summary>
internal abstract class StoreDialect(string vendor)
{
    /// <summary>The vendor's queries.</summary>
    public abstract StoreQueries Queries { get; }

    /// <summary>The vendor's migration scripts (<c>{vendor}/Sql/00n-*.sql</c>), one per schema version in order.</summary>
    public IReadOnlyList<string> Migrations { get; } = StoreSchema.Steps(vendor);

    /// <summary>The vendor's queries (<c>{vendor}/Sql/queries.sql</c>) into <typeparamref name="T"/>.</summary>
    protected T LoadQueries<T>()
        where T : StoreQueries, new() => StoreQueries.Load<T>($"{vendor}.Sql.queries.sql");

    public abstract DbType IdType { get; }

    public abstract object Id(Guid id);

    public abstract Guid ReadId(DbDataReader reader, int ordinal);

    public abstract DbType TimeType { get; }

    /// <summary>An instant as stored: UTC, truncated to the microsecond (<see cref="StoreTime"/>).</summary>
    public abstract object Time(DateTimeOffset time);

    public abstract DateTimeOffset ReadTime(DbDataReader reader, int ordinal);

    /// <summary>A double as stored (a vendor without NaN keeps it as NULL, which <see cref="ReadReal"/> reads back as NaN).</summary>
    public virtual object Real(double value) => value;

    public static double ReadReal(DbDataReader reader, int ordinal) => reader.IsDBNull(ordinal) ? double.NaN : reader.GetDouble(ordinal);

    public abstract bool IsUniqueViolation(DbException exception);

    /// <summary>
    /// Reads the vector column of the current row into <paramref name="buffer"/> when it has the
    /// buffer's length, and returns the length stored (-1 for NULL), the fastest way the provider has.
    /// </summary>
    public abstract int ReadVector(DbDataReader reader, int ordinal, byte[] buffer);
}
