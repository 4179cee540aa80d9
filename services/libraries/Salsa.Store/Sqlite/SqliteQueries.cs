using Salsa.Store.Relational;

namespace Salsa.Store.Sqlite;

/// <summary>The queries only SQLite runs, beside the core's: imports made part by part, their rows hidden until done.</summary>
internal sealed class SqliteQueries : StoreQueries
{
    /// <summary>The insert of a part's points; <c>{columns}</c> and <c>{values}</c> take the columns the part carries.</summary>
    public string InsertPoints { get; init; } = "";

    /// <summary>The keys of imports begun before <c>@before</c> and never completed.</summary>
    public string AbandonedImports { get; init; } = "";

    public string DeleteImportPoints { get; init; } = "";

    public string DeleteImport { get; init; } = "";
}
