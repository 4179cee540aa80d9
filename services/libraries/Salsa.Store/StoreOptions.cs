using System.ComponentModel.DataAnnotations;
using Salsa.Settings;

namespace Salsa.Store;

/// <summary>
/// Which store to use (the <c>Store</c> section; see <see cref="DataStoreFactory.Create"/> for the
/// rule): <c>ConnectionStrings:salsa</c> (PostgreSQL), else <c>Store:SqlitePath</c> (default
/// <see cref="DefaultSqlitePath"/>); each tenant's quota is <c>Salsa:Quota:MaxDatasets</c> (default
/// 1,000) and <c>Salsa:Quota:MaxBytes</c> (default 4 GiB). A connection string not understood is
/// refused when the options are bound, not at first use.
/// </summary>
public sealed class StoreOptions : IValidatableObject
{
    /// <summary>The configuration section: <c>Store</c>.</summary>
    public const string Section = "Store";

    private string? _sqlitePath;

    /// <summary>A PostgreSQL connection string (<c>Host=…</c> or <c>postgres://…</c>), or null/empty for SQLite.</summary>
    [ConfigurationPath($"ConnectionStrings:{DataStoreServiceCollectionExtensions.ConnectionStringName}")]
    public string? ConnectionString { get; set; }

    /// <summary>The SQLite file used when <see cref="ConnectionString"/> is empty, as a full path.</summary>
    public string SqlitePath
    {
        get => _sqlitePath ?? DefaultSqlitePath;
        set => _sqlitePath = string.IsNullOrWhiteSpace(value) ? null : Path.GetFullPath(value);
    }

    /// <summary>What each tenant may keep (datasets, bytes); null for no bound.</summary>
    [ConfigurationPath(StorageQuota.Section)]
    public StorageQuota? Quota { get; set; } = new();

    /// <summary><c>&lt;current directory&gt;/.salsa/salsa.db</c>, evaluated when read.</summary>
    public static string DefaultSqlitePath => Path.Combine(Directory.GetCurrentDirectory(), ".salsa", "salsa.db");

    public IEnumerable<ValidationResult> Validate(ValidationContext validationContext)
    {
        if (DataStoreFactory.Unrecognised(ConnectionString) is { } reason)
        {
            yield return new ValidationResult(reason, [nameof(ConnectionString)]);
        }
    }
}
