using Npgsql;
using Salsa.Store.Postgres;
using Salsa.Testing;

namespace Salsa.Store.Tests;

/// <summary>
/// The store on a PostgreSQL server of its own that is stopped and started again underneath it:
/// reads wait for the database to come back (a partition re-activated while a silo is replaced
/// must not fail its job over a blip); writes surface the failure at once.
/// </summary>
public sealed class PostgresOutageTests : IAsyncLifetime
{
    private PostgresServer _server = null!;
    private PostgresDataStore _store = null!;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public async ValueTask InitializeAsync()
    {
        _server = await PostgresServer.StartAsync(Ct);
        _store = new PostgresDataStore(_server.ConnectionString);
        await _store.InitializeAsync(Ct);
    }

    public async ValueTask DisposeAsync()
    {
        await _store.DisposeAsync();
        await _server.DisposeAsync();
    }

    [Fact]
    public async Task Reads_WhileTheDatabaseIsDown_CompleteWhenItIsBack()
    {
        var (info, content) = TestData.Dense(500, 2);
        info = await _store.CreateDatasetAsync(info, content, Ct);
        var job = TestData.Job("annealing");
        await _store.InsertJobAsync(job, Ct);

        await _server.StopAsync(Ct);
        // Every read path, while nothing listens on the port and the pool holds dead connections.
        var dataset = _store.GetDatasetAsync(info.Id, Ct);
        var rows = _store.ReadDatasetAsync(info.Id, Ct);
        var datasets = _store.ListDatasetsAsync(null, 10, Ct);
        var stored = _store.GetJobAsync(job.Id, Ct);
        var jobs = _store.ListJobsAsync("annealing", null, 10, Ct);
        var artifacts = _store.ListArtifactsAsync(job.Id, Ct);
        await Task.Delay(TimeSpan.FromSeconds(2), Ct);
        Assert.All<Task>([dataset, rows, datasets, stored, jobs, artifacts], read => Assert.False(read.IsCompleted, "A read gave up while the database was down."));

        await _server.StartAgainAsync(Ct);
        StoreAssert.SameInfo(info, await dataset);
        StoreAssert.SameContent(content, await rows);
        Assert.Equal(info.Id, Assert.Single(await datasets).Id);
        Assert.Equal(job, await stored);
        Assert.Equal(job, Assert.Single(await jobs));
        Assert.Empty(await artifacts);
    }

    [Fact]
    public async Task Write_WhileTheDatabaseIsDown_FailsAtOnce()
    {
        await _server.StopAsync(Ct);

        // Whether a failed write landed is not known to the store; its caller decides.
        var failure = await Assert.ThrowsAnyAsync<NpgsqlException>(() => _store.InsertJobAsync(TestData.Job("annealing"), Ct));
        Assert.True(failure.IsTransient);
    }

    [Fact]
    public async Task Read_WaitingForTheDatabase_StopsWhenCancelled()
    {
        await _server.StopAsync(Ct);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(Ct);

        var read = _store.ListJobsAsync(null, null, 10, cancel.Token);
        await Task.Delay(TimeSpan.FromSeconds(1), Ct);
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => read).WaitAsync(TimeSpan.FromSeconds(10), Ct);
    }
}
