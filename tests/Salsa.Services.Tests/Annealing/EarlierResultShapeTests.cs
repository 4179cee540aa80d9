using Grpc.Core;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Services.Tests.Support;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Services.Tests.Annealing;

/// <summary>
/// A store kept from before the result became one shape: a succeeded job whose result JSON is the
/// earlier summary (its clusters' fields at the top level). Its typed result is refused clearly —
/// not a 500, not a message with its clusters silently empty — and its record still shows it.
/// </summary>
public sealed class EarlierResultShapeTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TypedResult_OfAnEarlierShape_IsAConflictNamingWhy_AndTheRecordStillShowsIt()
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

        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(store);
        using var response = await service.Rest.GetAsync($"/api/annealing/jobs/{id}/result", Token);
        var detail = await RestCalls.ProblemAsync(response, 409);
        Assert.Contains("earlier version", detail, StringComparison.Ordinal);

        var error = await Assert.ThrowsAsync<RpcException>(async () =>
            await new AnnealingClient(service.Grpc).GetResultAsync(new JobRef { JobId = id.ToString() }, new CallOptions(cancellationToken: Token)));
        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);

        var record = await service.Rest.GetStringAsync($"/api/jobs/{id}", Token);
        Assert.Contains("\"weightedCost\":0.5", record, StringComparison.Ordinal);
    }
}
