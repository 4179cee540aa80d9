using System.Collections.Concurrent;

namespace Salsa.Testing;

/// <summary>
/// One PostgreSQL server for a whole test run (an xunit assembly fixture:
/// <c>[assembly: AssemblyFixture(typeof(PostgresFixture))]</c>), started on first use (so the SQLite tests never
/// wait for it) and stopped when the run ends. Each test class asks for its own database by name.
/// If the server cannot start, every test that needs it fails with <see cref="PostgresServer"/>'s
/// message (which says to run .ci/install-prerequisites); nothing is skipped.
/// </summary>
public sealed class PostgresFixture : IAsyncDisposable
{
    // Design: test classes run in parallel and call in from many threads. Lazy (execution and
    // publication) starts the server exactly once; per-name Lazy tasks in a concurrent dictionary
    // create each database exactly once. A failed start stays failed, so every caller sees it.
    private readonly Lazy<Task<PostgresServer>> _server = new(() => PostgresServer.StartAsync());
    private readonly ConcurrentDictionary<string, Lazy<Task<string>>> _databases = new();

    public Task<PostgresServer> ServerAsync() => _server.Value;

    /// <summary>The connection string of the database called <paramref name="name"/>, created on first request.</summary>
    public Task<string> DatabaseAsync(string name) =>
        _databases.GetOrAdd(name, n => new Lazy<Task<string>>(async () => await (await _server.Value).CreateDatabaseAsync(n))).Value;

    /// <summary>A brand-new empty database.</summary>
    public async Task<string> NewDatabaseAsync() => await (await _server.Value).CreateDatabaseAsync($"t_{Guid.NewGuid():N}");

    public async ValueTask DisposeAsync()
    {
        if (_server.IsValueCreated && _server.Value.IsCompletedSuccessfully)
        {
            await _server.Value.Result.DisposeAsync();
        }
    }
}
