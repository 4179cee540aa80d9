using System.Net.Http.Json;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Fingerprints;
using Salsa.Fingerprints;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Fingerprints;

/// <summary>
/// The fingerprints service as a silo (<c>Cluster:Enabled</c>): a brute-force similarity search goes
/// to the fingerprint dataset's partitions and their best hits are merged — the same hits, labels
/// and comparisons as comparing the query with every compound here; a search pruned through a
/// Butina job stays in the service and agrees.
/// </summary>
public sealed class FingerprintsOnGridTests : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();
    private CompoundServices _services = null!;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    public async ValueTask InitializeAsync() =>
        _services = await CompoundServices.StartAsync(TestStore.Sqlite(_directory), new Dictionary<string, string?>
        {
            ["Cluster:Enabled"] = "true",
            ["Cluster:PointsPerPartition"] = "90", // the 500 fixture compounds: a grid of 6
        });

    public async ValueTask DisposeAsync()
    {
        await _services.DisposeAsync();
        _directory.Dispose();
    }

    [Theory]
    [InlineData("rdkit-ecfp4-1024", 12)]
    [InlineData("rdkit-ecfp4-1024", 200)]
    [InlineData("rdkit-maccs-167", 30)]
    public async Task Search_OnThePartitions_EqualsBruteForceTopKHitForHit(string type, int k)
    {
        var dataset = _services.Datasets[type].DatasetId;
        var client = new FingerprintsClient(_services.Fingerprints.Grpc);

        foreach (var compound in new[] { 0, 271, 499 })
        {
            var query = FixtureCompounds.Words(type, compound);
            var expected = FixtureCompounds.BruteForceTopK(type, query, k);
            using var response = await _services.Rest.PostAsJsonAsync("/api/fingerprints/search",
                new { datasetId = dataset, queryHex = FixtureCompounds.Hex(type, query), fingerprintType = type, k }, RestCalls.Json, Token);
            await RestCalls.EnsureAsync(response);
            var rest = (await response.Content.ReadFromJsonAsync<FingerprintSearchResult>(RestCalls.Json, Token))!;
            var request = new SearchRequest { DatasetId = dataset.ToString(), FingerprintType = type, K = k };
            request.QueryWords.Add(query);
            var grpc = await client.SearchAsync(request, Call);

            Assert.Equal(expected, rest.Hits.Select(h => (h.Index, h.Similarity)));
            Assert.Equal(expected.Select(e => FixtureCompounds.Set.Ids[e.Index]), rest.Hits.Select(h => h.Label));
            Assert.Equal(500, rest.DistancesComputed);
            Assert.Equal(expected, grpc.Hits.Select(h => (h.Index, h.Similarity)));
        }
    }

    [Fact]
    public async Task PrunedSearch_StaysInTheServiceAndAgrees()
    {
        const string Type = "rdkit-ecfp4-1024";
        var dataset = _services.Datasets[Type].DatasetId;
        var butina = await _services.ButinaAsync(dataset, 0.4);
        var query = FixtureCompounds.Words(Type, 42);

        using var response = await _services.Rest.PostAsJsonAsync("/api/fingerprints/search",
            new { datasetId = dataset, butinaJobId = butina, queryHex = FixtureCompounds.Hex(Type, query), fingerprintType = Type, k = 10 }, RestCalls.Json, Token);
        await RestCalls.EnsureAsync(response);
        var rest = (await response.Content.ReadFromJsonAsync<FingerprintSearchResult>(RestCalls.Json, Token))!;

        Assert.Equal(FixtureCompounds.BruteForceTopK(Type, query, 10), rest.Hits.Select(h => (h.Index, h.Similarity)));
        Assert.InRange(rest.DistancesComputed, 1, 499);
    }
}
