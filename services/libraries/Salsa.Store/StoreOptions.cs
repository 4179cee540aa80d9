namespace Salsa.Store;

/// <summary>Which store to use; see <see cref="DataStoreFactory.Create"/> for the rule.</summary>
public sealed class StoreOptions
{
    /// <summary>A PostgreSQL connection string (<c>Host=…</c> or <c>postgres://…</c>), or null/empty for SQLite.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>The SQLite file used when <see cref="ConnectionString"/> is empty.</summary>
    public string SqlitePath { get; set; } = DefaultSqlitePath;

    /// <summary>What each tenant may keep (datasets, bytes); null for no bound.</summary>
    public StorageQuota? Quota { get; set; }

    /// <summary>
    /// The store a configuration names: <c>ConnectionStrings:salsa</c> (PostgreSQL), else
    /// <c>Store:SqlitePath</c> (default <see cref="DefaultSqlitePath"/>). An unrecognised connection
    /// string is refused here, not at first use. Each tenant's quota is <c>Salsa:Quota:MaxDatasets</c>
    /// (default 1,000) and <c>Salsa:Quota:MaxBytes</c> (default 4 GiB).
    /// </summary>
    public static StoreOptions From(Microsoft.Extensions.Configuration.IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var path = configuration[DataStoreServiceCollectionExtensions.SqlitePathKey];
        var options = new StoreOptions
        {
            ConnectionString = Microsoft.Extensions.Configuration.ConfigurationExtensions.GetConnectionString(configuration, DataStoreServiceCollectionExtensions.ConnectionStringName),
            SqlitePath = string.IsNullOrWhiteSpace(path) ? DefaultSqlitePath : Path.GetFullPath(path),
            Quota = new StorageQuota(
                (int)Positive(configuration, "MaxDatasets", StorageQuota.DefaultMaxDatasets, int.MaxValue),
                Positive(configuration, "MaxBytes", StorageQuota.DefaultMaxBytes, long.MaxValue)),
        };
        DataStoreFactory.ThrowIfUnrecognised(options.ConnectionString);
        return options;
    }

    private static long Positive(Microsoft.Extensions.Configuration.IConfiguration configuration, string name, long fallback, long max)
    {
        var text = configuration[$"{StorageQuota.Section}:{name}"];
        if (string.IsNullOrWhiteSpace(text))
        {
            return fallback;
        }

        return long.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var value) && value >= 1 && value <= max
            ? value
            : throw new ArgumentException($"{StorageQuota.Section}:{name} is '{text}'; it must be a whole number from 1 to {max}.");
    }

    /// <summary><c>&lt;current directory&gt;/.salsa/salsa.db</c>, evaluated when read.</summary>
    public static string DefaultSqlitePath => Path.Combine(Directory.GetCurrentDirectory(), ".salsa", "salsa.db");
}
