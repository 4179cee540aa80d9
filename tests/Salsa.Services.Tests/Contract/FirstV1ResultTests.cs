using System.Text.Json;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.KMeans;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Contract;

/// <summary>
/// A caller of the first v1 (main of 2026-11-27, c81d0ef) keeps working: the requests it sent, and
/// the members it read from the results — REST's JSON keys and types, gRPC's fields — checked
/// against today's services. Between 11-27 and the first release the results lost fields 1–6 (and
/// REST its <c>points</c>); they are back, filled and marked deprecated, beside <c>clustering</c>.
/// </summary>
public sealed class FirstV1ResultTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    /// <summary>The members a REST client of 11-27 read from a k-means result (its KMeansSummary), and their JSON kinds.</summary>
    private static readonly (string Name, JsonValueKind Kind)[] KMeansSummary =
    [
        ("input", JsonValueKind.String), ("points", JsonValueKind.Number), ("clusters", JsonValueKind.Number), ("dimension", JsonValueKind.Number),
        ("centres", JsonValueKind.Array), ("clusterWeights", JsonValueKind.Array), ("clusterSizes", JsonValueKind.Array), ("inertia", JsonValueKind.Number),
        ("iterations", JsonValueKind.Number), ("bestRestart", JsonValueKind.Number), ("restartInertias", JsonValueKind.Array),
        ("emptyClusterRepairs", JsonValueKind.Number), ("elapsedMs", JsonValueKind.Number),
    ];

    /// <summary>The members a REST client of 11-27 read from an annealing result (its AnnealingSummary).</summary>
    private static readonly (string Name, JsonValueKind Kind)[] AnnealingSummary =
    [
        ("input", JsonValueKind.String), ("points", JsonValueKind.Number), ("clusters", JsonValueKind.Number), ("dimension", JsonValueKind.Number),
        ("centres", JsonValueKind.Array), ("clusterWeights", JsonValueKind.Array), ("clusterSizes", JsonValueKind.Array), ("weightedCost", JsonValueKind.Number),
        ("trajectory", JsonValueKind.Array), ("iterations", JsonValueKind.Number), ("elapsedMs", JsonValueKind.Number),
    ];

    [Fact]
    public async Task KMeans_TheFirstV1sRestAndGrpcResult_ReadAsBefore()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<KMeansService>(TestStore.Sqlite(directory));
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = dataset.DatasetId, clusters = 5, restarts = 2, seed = 7 });
        Assert.Equal("succeeded", (await service.Rest.WaitAsync(job.JobId)).State);

        var rest = JsonDocument.Parse(await service.Rest.GetStringAsync($"/api/kmeans/jobs/{job.JobId}/result", Token)).RootElement;
        RequireMembers(rest, KMeansSummary);
        Assert.Equal(2000, rest.GetProperty("points").GetInt32());
        Assert.Equal(5, rest.GetProperty("clusters").GetInt32());
        Assert.Equal(10, rest.GetProperty("centres").GetArrayLength());
        Assert.Equal(rest.GetProperty("clustering").GetProperty("cost").GetDouble(), rest.GetProperty("inertia").GetDouble());

#pragma warning disable CS0612 // the first v1's fields are what this test reads
        var grpc = await new KMeansClient(service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId.ToString() }, cancellationToken: Token);
        Assert.Equal((5, 2, 10, 5, 5), (grpc.Clusters, grpc.Dimension, grpc.Centres.Count, grpc.ClusterWeights.Count, grpc.ClusterSizes.Count));
        Assert.Equal(grpc.Clustering.Cost, grpc.Inertia);
        Assert.Equal(grpc.Clustering.Centres, grpc.Centres);
        Assert.Equal(2000, grpc.ClusterSizes.Sum());
#pragma warning restore CS0612
    }

    [Fact]
    public async Task Annealing_TheFirstV1sRestAndGrpcResult_ReadAsBefore()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory));
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5 });
        Assert.Equal("succeeded", (await service.Rest.WaitAsync(job.JobId)).State);

        var rest = JsonDocument.Parse(await service.Rest.GetStringAsync($"/api/annealing/jobs/{job.JobId}/result", Token)).RootElement;
        RequireMembers(rest, AnnealingSummary);
        RequireMembers(rest.GetProperty("trajectory")[0], [("temperature", JsonValueKind.Number), ("clusters", JsonValueKind.Number), ("freeEnergy", JsonValueKind.Number), ("iterations", JsonValueKind.Number)]);
        Assert.Equal(2000, rest.GetProperty("points").GetInt32());
        var clusters = rest.GetProperty("clusters").GetInt32();
        Assert.Equal(clusters * 2, rest.GetProperty("centres").GetArrayLength());
        Assert.Equal(rest.GetProperty("clustering").GetProperty("cost").GetDouble(), rest.GetProperty("weightedCost").GetDouble());

#pragma warning disable CS0612 // the first v1's fields are what this test reads
        var grpc = await new AnnealingClient(service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId.ToString() }, cancellationToken: Token);
        Assert.Equal(clusters, grpc.Clusters);
        Assert.Equal(grpc.Clustering.Cost, grpc.WeightedCost);
        Assert.Equal(grpc.Clustering.ClusterSizes, grpc.ClusterSizes);
        Assert.Equal(2000, grpc.Points);
#pragma warning restore CS0612
    }

    private static void RequireMembers(JsonElement result, IEnumerable<(string Name, JsonValueKind Kind)> members)
    {
        foreach (var (name, kind) in members)
        {
            Assert.True(result.TryGetProperty(name, out var value), $"'{name}' is missing from {result.GetRawText()[..Math.Min(300, result.GetRawText().Length)]}");
            Assert.True(value.ValueKind == kind, $"'{name}' is {value.ValueKind}, not {kind}");
        }
    }
}
