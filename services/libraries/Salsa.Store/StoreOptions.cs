namespace Salsa.Store;

/// <summary>Which store to use; see <see cref="DataStoreFactory.Create"/> for the rule.</summary>
public sealed class StoreOptions
{
    /// <summary>A PostgreSQL connection string (<c>Host=…</c> or <c>postgres://…</c>), or null/empty for SQLite.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>The SQLite file used when <see cref="ConnectionString"/> is empty.</summary>
    public string SqlitePath { get; set; } = DefaultSqlitePath;

    /// <summary><c>&lt;current directory&gt;/.salsa/salsa.db</c>, evaluated when read.</summary>
    public static string DefaultSqlitePath => Path.Combine(Directory.GetCurrentDirectory(), ".salsa", "salsa.db");
}
