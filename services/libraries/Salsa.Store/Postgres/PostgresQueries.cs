using Salsa.Store.Relational;

namespace Salsa.Store.Postgres;

/// <summary>The queries only PostgreSQL runs, beside the core's: the binary COPY of points.</summary>
internal sealed class PostgresQueries : StoreQueries
{
    /// <summary>The COPY of a dataset's points; <c>{columns}</c> takes the columns its parts carry.</summary>
    public string CopyPoints { get; init; } = "";
}
