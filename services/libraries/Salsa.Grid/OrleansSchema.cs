using Npgsql;

namespace Salsa.Grid;

/// <summary>
/// The PostgreSQL tables and stored queries Orleans' ADO.NET providers expect (they are not in the
/// NuGet packages): <c>Postgres/*.sql</c>, embedded in this assembly and applied on start, or by
/// <c>deploy/</c> with psql. Applying is idempotent and serialised with an advisory lock, so silos
/// starting together apply it once each, one after the other.
/// </summary>
public static class OrleansSchema
{
    /// <summary>The scripts in the order they apply.</summary>
    public static IReadOnlyList<string> Scripts { get; } = ["membership.sql", "persistence.sql", "reminders.sql"];

    /// <summary>The text of one script (for psql: <c>dotnet run … -- schema</c> or a deployment's init folder).</summary>
    public static string Read(string script)
    {
        using var stream = typeof(OrleansSchema).Assembly.GetManifestResourceStream($"Salsa.Grid.Postgres.{script}")
            ?? throw new ArgumentException($"No Orleans schema script '{script}' (known: {string.Join(", ", Scripts)}).", nameof(script));
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }

    public static async Task ApplyAsync(string connectionString, CancellationToken cancellationToken = default)
    {
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        // One applier at a time across every process (the key is arbitrary but fixed).
        await using (var gate = new NpgsqlCommand("SELECT pg_advisory_xact_lock(7307001)", connection, transaction))
        {
            await gate.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        foreach (var script in Scripts)
        {
            await using var command = new NpgsqlCommand(Read(script), connection, transaction);
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
    }
}
