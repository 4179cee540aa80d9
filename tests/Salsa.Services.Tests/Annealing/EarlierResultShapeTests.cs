using System.Text.Json;
using Grpc.Core;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Services.Tests.Support;
using Salsa.Store;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Services.Tests.Annealing;

/// <summary>
/// A store kept from the first v1 (2026-11-27): a succeeded job whose result JSON is that version's
/// summary (its clusters' fields at the top level). Those fields are in the result again (kept for
/// the first v1's callers), so the result is served as it was stored, over REST and gRPC alike; a
/// result of a shape no version had is refused clearly, not a 500.
/// </summary>
public sealed class EarlierResultShapeTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TheFirstV1sStoredResult_ServedAsStored_AShapeNoVersionHadIsAConflict()
    {
        using var directory = new TemporaryDirectory();
        var store = TestStore.Sqlite(directory);
        var id = Guid.NewGuid();
        await using (var data = new SqliteDataStore(store.Settings["Store:SqlitePath"]!))
        {
            await data.InitializeAsync(Token);
            await data.InsertJobAsync(new JobRecord
            {
                Id = id,
                Service = AnnealingService.Name,
                Kind = "annealing",
                State = Store.JobState.Succeeded,
                Created = DateTimeOffset.UtcNow,
                Finished = DateTimeOffset.UtcNow,
                ResultJson = """{"input":"dense","points":3,"clusters":1,"dimension":1,"centres":[0.5],"clusterWeights":[3],"clusterSizes":[3],"weightedCost":0.5,"trajectory":[],"iterations":4,"elapsedMs":1.5}""",
            }, Token);
        }

        var unknown = Guid.NewGuid();
        await using (var data = new SqliteDataStore(store.Settings["Store:SqlitePath"]!))
        {
            await data.InsertJobAsync(new JobRecord
            {
                Id = unknown,
                Service = AnnealingService.Name,
                Kind = "annealing",
                State = Store.JobState.Succeeded,
                Created = DateTimeOffset.UtcNow,
                Finished = DateTimeOffset.UtcNow,
                ResultJson = """{"clusterCount":"many","centres":"none"}""",
            }, Token);
        }

        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(store);
        var rest = JsonDocument.Parse(await service.Rest.GetStringAsync($"/api/annealing/jobs/{id}/result", Token)).RootElement;
        Assert.Equal((0.5, 3, 1), (rest.GetProperty("weightedCost").GetDouble(), rest.GetProperty("points").GetInt32(), rest.GetProperty("clusters").GetInt32()));
#pragma warning disable CS0612 // the first v1's fields are what this test reads
        var grpc = await new AnnealingClient(service.Grpc).GetResultAsync(new JobRef { JobId = id.ToString() }, new CallOptions(cancellationToken: Token));
        Assert.Equal((1, 0.5, 3), (grpc.Clusters, grpc.WeightedCost, grpc.Points));
#pragma warning restore CS0612

        using var response = await service.Rest.GetAsync($"/api/annealing/jobs/{unknown}/result", Token);
        Assert.Contains("earlier version", await RestCalls.ProblemAsync(response, 409), StringComparison.Ordinal);
        var error = await Assert.ThrowsAsync<RpcException>(async () =>
            await new AnnealingClient(service.Grpc).GetResultAsync(new JobRef { JobId = unknown.ToString() }, new CallOptions(cancellationToken: Token)));
        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);
        Assert.Contains("\"clusterCount\":\"many\"", await service.Rest.GetStringAsync($"/api/jobs/{unknown}", Token), StringComparison.Ordinal);
    }
}
