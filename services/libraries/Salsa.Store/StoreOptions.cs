namespace Salsa.Store;

/// <summary>Which store to use; see <see cref="DataStoreFactory.Create"/> for the rule.</summary>
public sealed class StoreOptions
{
    /// <summary>A PostgreSQL connection string (<c>Host=…</c> or <c>postgres://…</c>), or null/empty for SQLite.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>The SQLite file used when <see cref="ConnectionString"/> is empty.</summary>
    public string SqlitePath { get; set; } = DefaultSqlitePath;

    /// <summary>
    /// The store a configuration names: <c>ConnectionStrings:salsa</c> (PostgreSQL), else
    /// <c>Store:SqlitePath</c> (default <see cref="DefaultSqlitePath"/>). An unrecognised connection
    /// string is refused here, not at first use.
    /// </summary>
    public static StoreOptions From(Microsoft.Extensions.Configuration.IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var path = configuration[DataStoreServiceCollectionExtensions.SqlitePathKey];
        var options = new StoreOptions
        {
            ConnectionString = Microsoft.Extensions.Configuration.ConfigurationExtensions.GetConnectionString(configuration, DataStoreServiceCollectionExtensions.ConnectionStringName),
            SqlitePath = string.IsNullOrWhiteSpace(path) ? DefaultSqlitePath : Path.GetFullPath(path),
        };
        DataStoreFactory.ThrowIfUnrecognised(options.ConnectionString);
        return options;
    }

    /// <summary><c>&lt;current directory&gt;/.salsa/salsa.db</c>, evaluated when read.</summary>
    public static string DefaultSqlitePath => Path.Combine(Directory.GetCurrentDirectory(), ".salsa", "salsa.db");
}
