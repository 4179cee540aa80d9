namespace Salsa.Store;

/// <summary>
/// The schema: its version, kept in the database so a later build can migrate and an older one
/// refuses a newer file, and each vendor's DDL, kept as SQL scripts (<c>Sql/Sqlite</c>,
/// <c>Sql/Postgres</c>) embedded in the assembly.
/// </summary>
internal static class StoreSchema
{
    public const int Version = 4;

    /// <summary>SQLite's scripts, one per version in order: a store at version v runs those after the v-th.</summary>
    public static IReadOnlyList<string> SqliteSteps { get; } = [Script("Sqlite.001-schema.sql"), Script("Sqlite.002-tenants.sql"), Script("Sqlite.003-imports.sql"), Script("Sqlite.004-dataset-bytes.sql")];

    /// <summary>PostgreSQL's schema at its newest version, every statement idempotent: it creates and migrates alike.</summary>
    public static string Postgres { get; } = Script("Postgres.schema.sql");

    private static string Script(string name)
    {
        using var stream = typeof(StoreSchema).Assembly.GetManifestResourceStream($"Salsa.Store.Sql.{name}")
            ?? throw new InvalidOperationException($"Salsa.Store is built without its {name} script.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
