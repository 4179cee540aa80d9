using System.Net.Http.Json;
using Salsa.Clustering.Fingerprints;
using Salsa.DataFiles;
using Salsa.Fingerprints;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Fingerprints;

/// <summary>The same import, clustering and search with PostgreSQL as the shared store.</summary>
public sealed class FingerprintsPostgresTests(PostgresFixture postgres)
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Postgres_ImportButinaAndPrunedSearch_EqualInProcessResults()
    {
        await using var services = await CompoundServices.StartAsync(await TestStore.PostgresAsync(postgres));
        var type = FingerprintType.Ecfp4.Name;
        Assert.Equal(type, services.Datasets[type].FingerprintType);
        var expected = TaylorButina.Run(FixtureCompounds.Points(type), new ButinaOptions { Cutoff = 0.5, Parallel = new() { Ranks = 1 } }, cancellationToken: Token);

        var job = await services.ButinaAsync(services.Ecfp4, 0.5);
        var summary = await services.Fingerprints.GetJsonAsync<Contracts.Fingerprints.ButinaResult>($"/api/fingerprints/butina/jobs/{job}/result");
        Assert.Equal(expected.Medoids, summary.Cluster.Select(c => c.Medoid));
        Assert.Equal(expected.Assignments, await FixtureCompounds.AssignmentsAsync(services.Rest, job));

        var query = FixtureCompounds.Words(type, 123);
        using var response = await services.Rest.PostAsJsonAsync("/api/fingerprints/search",
            new { datasetId = services.Ecfp4, butinaJobId = job, queryWords = query, fingerprintType = type, k = 8 }, RestCalls.Json, Token);
        await RestCalls.EnsureAsync(response);
        var found = (await response.Content.ReadFromJsonAsync<FingerprintSearchResult>(RestCalls.Json, Token))!;
        Assert.Equal(FixtureCompounds.BruteForceTopK(type, query, 8), found.Hits.Select(h => (h.Index, h.Similarity)));
    }
}
