using Microsoft.Extensions.Options;
using Salsa.Gateway.Runs;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Security;
using Salsa.Store;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>A dataset a run still uses is kept, and the refusal names the run as a run — under the owner the gateway stores runs as.</summary>
public sealed class DatasetInUseTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData(JobState.Queued)]
    [InlineData(JobState.Running)]
    public async Task DatasetInUseByARun_DeleteRefusedNamingTheRun_DatasetKept(JobState state)
    {
        using var directory = new TemporaryDirectory();
        await using var store = new SqliteDataStore(directory.Combine("salsa.db"));
        await store.InitializeAsync(Token);
        var dataset = Guid.NewGuid();
        await store.CreateDatasetAsync(
            new DatasetInfo { Id = dataset, Name = "points", Kind = DatasetKind.Dense, Count = 2, Dimension = 2, TotalWeight = 2, Created = DateTimeOffset.UtcNow },
            new DatasetContent { Values = [0, 0, 1, 1], Weights = [1, 1] }, Token);
        var run = Guid.NewGuid();
        await store.InsertJobAsync(new JobRecord
        {
            Id = run, Service = RunManager.Service, Kind = "census-places", State = state, Created = DateTimeOffset.UtcNow,
            ParametersJson = $$"""{ "import.dataset": "{{dataset}}" }""",
        }, Token);
        var catalog = new DatasetCatalog(store, Options.Create(new ServiceLimits()));
        using var tenant = CallerTenant.Enter(Tenants.Local);

        var refused = await Assert.ThrowsAsync<ConflictException>(() => catalog.DeleteAsync(dataset, Token));

        Assert.Contains($"in use by run {run} (census-places)", refused.Message, StringComparison.Ordinal);
        Assert.NotNull(await store.GetDatasetAsync(dataset, Token));
    }
}
