namespace Salsa.Store.Relational;

/// <summary>
/// The schema: its version, kept in the database so a later build can migrate and an older one
/// refuses a newer database, and each vendor's DDL as SQL scripts beside its store
/// (<c>Sqlite/Sql/00n-*.sql</c>, <c>Postgres/Sql/00n-*.sql</c>), embedded in the assembly: one
/// script per version, a database at version v running those after the v-th.
/// </summary>
internal static class StoreSchema
{
    public const int Version = 6;

    private static readonly string[] s_steps = ["001-schema.sql", "002-tenants.sql", "003-imports.sql", "004-dataset-bytes.sql", "005-digests.sql", "006-job-resources.sql"];

    /// <summary>The vendor's scripts (<c>Sqlite</c>, <c>Postgres</c>), one per version in order.</summary>
    public static IReadOnlyList<string> Steps(string vendor) => [.. s_steps.Select(step => Script($"{vendor}.Sql.{step}"))];

    /// <summary>An embedded script by its name under the assembly's root (<c>Sqlite.Sql.queries.sql</c>).</summary>
    public static string Script(string name)
    {
        using var stream = typeof(StoreSchema).Assembly.GetManifestResourceStream($"Salsa.Store.{name}")
            ?? throw new InvalidOperationException($"Salsa.Store is built without its {name} script.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
