using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using Grpc.Core;
using Salsa.Annealing;
using Salsa.Clustering;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Hosting.Host;
using Salsa.Hosting.Jobs;
using Salsa.KMeans;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.KMeans;

/// <summary>
/// The k-means service computing on the cluster as a client of another process's silo — as the
/// gateway's embedded services do: the annealing service is the single localhost silo, the k-means
/// service reaches it on its Orleans gateway port, both over one store. The same REST and gRPC API;
/// dense jobs give the bits of the partition grid in one process and say where they ran.
/// </summary>
public sealed class KMeansOnGridTests : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();
    private ServiceUnderTest<AnnealingService> _silo = null!;
    private ServiceUnderTest<KMeansService> _service = null!;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    public async ValueTask InitializeAsync()
    {
        var store = TestStore.Sqlite(_directory);
        var gatewayPort = ServicePorts.NextFreeLoopbackPort().ToString(CultureInfo.InvariantCulture);
        _silo = await ServiceUnderTest.StartAsync<AnnealingService>(store, new Dictionary<string, string?>
        {
            ["Cluster:Enabled"] = "true",
            ["Cluster:SiloPort"] = ServicePorts.NextFreeLoopbackPort().ToString(CultureInfo.InvariantCulture),
            ["Cluster:GatewayPort"] = gatewayPort,
        });
        _service = await ServiceUnderTest.StartAsync<KMeansService>(store, new Dictionary<string, string?>
        {
            ["Cluster:Enabled"] = "true",
            ["Cluster:Role"] = "client",
            ["Cluster:GatewayPort"] = gatewayPort,
            ["Cluster:PointsPerPartition"] = "700", // 2,000 points: a grid of 3
        });
    }

    public async ValueTask DisposeAsync()
    {
        await _service.DisposeAsync();
        await _silo.DisposeAsync();
        _directory.Dispose();
    }

    [Fact]
    public async Task Rest_DenseJob_RunsOnTheClusterWithTheGridsBitsAndSaysWhere()
    {
        var (values, weights, _) = Fixtures.Gmm;
        var dataset = await _service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());

        var job = await _service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = dataset.DatasetId, clusters = 5, restarts = 4, seed = 3 });
        var events = await _service.Rest.WatchAsync(job.JobId);
        using var response = await _service.Rest.GetAsync($"/api/kmeans/jobs/{job.JobId}/result", Token);
        await RestCalls.EnsureAsync(response);
        var summary = (await response.Content.ReadFromJsonAsync<Contracts.KMeans.KMeansResult>(RestCalls.Json, Token))!;

        Assert.Equal("succeeded", events[^1].Data.GetProperty("state").GetString());
        Assert.Contains(events, e => e.Event == "progress" && e.Data.GetProperty("phase").GetString()!.StartsWith("restart", StringComparison.Ordinal));
        var reference = Reference(values, weights, new Contracts.KMeans.StartKMeansRequest { Clusters = 5, Restarts = 4, Seed = 3 });
        Assert.Equal(reference.Centres.Select(BitConverter.DoubleToInt64Bits), summary.Clustering.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(BitConverter.DoubleToInt64Bits(reference.Inertia), BitConverter.DoubleToInt64Bits(summary.Clustering.Cost));
        Assert.Equal(reference.RestartInertias, summary.RestartInertias);
        var assignments = ArtifactFormats.ReadInt32s(await _service.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/assignments", Token));
        Assert.Equal(reference.Assignments, assignments);
        Assert.NotNull(summary.Placement);
        Assert.Equal(3, summary.Placement.Partitions);
        Assert.Single(summary.Placement.Silos);
        Assert.True(summary.Placement.Passes >= 4);
    }

    [Fact]
    public async Task Grpc_DenseJob_ResultCarriesThePlacement()
    {
        var (values, weights, _) = Fixtures.Gmm;
        var dataset = await new DatasetsClient(_service.Grpc).UploadDenseAsync("gmm-grpc", 2, values, weights, options: new CallOptions(cancellationToken: Token));

        var job = await new KMeansClient(_service.Grpc).StartAsync(new() { DatasetId = dataset.DatasetId, Clusters = 4 }, new CallOptions(cancellationToken: Token));
        var final = await new JobsClient(_service.Grpc).WatchToEndAsync(job.JobId, _ => { }, new CallOptions(cancellationToken: Token));
        var result = await new KMeansClient(_service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, new CallOptions(cancellationToken: Token));

        Assert.Equal(JobState.Succeeded, final.State);
        Assert.Equal(3, result.Placement.Partitions);
        Assert.Single(result.Placement.Silos);
        var reference = Reference(values, weights, new Contracts.KMeans.StartKMeansRequest { Clusters = 4 });
        Assert.Equal(reference.Centres.Select(BitConverter.DoubleToInt64Bits), result.Clustering.Centres.Select(BitConverter.DoubleToInt64Bits));
    }

    [Fact]
    public async Task SeedingTrials_GivenOverRestAndGrpc_ReachTheGridsSeeding()
    {
        var (values, weights, _) = Fixtures.Gmm;
        var dataset = await _service.Rest.UploadCsvAsync("name=gmm-trials&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        // One Lloyd iteration: the centres are the seeding's, one step on.
        var request = new Contracts.KMeans.StartKMeansRequest { DatasetId = dataset.DatasetId.ToString(), Clusters = 8, MaxIterations = 1, SeedingTrials = 1 };
        var reference = Reference(values, weights, request);
        Assert.NotEqual(reference.Centres, Reference(values, weights, new Contracts.KMeans.StartKMeansRequest { Clusters = 8, MaxIterations = 1 }).Centres);

        var rest = await _service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = dataset.DatasetId, clusters = 8, maxIterations = 1, seedingTrials = 1 });
        await _service.Rest.WatchAsync(rest.JobId);
        var grpc = await new KMeansClient(_service.Grpc).StartAsync(request, new CallOptions(cancellationToken: Token));
        await new JobsClient(_service.Grpc).WatchToEndAsync(grpc.JobId, _ => { }, new CallOptions(cancellationToken: Token));

        foreach (var id in new[] { rest.JobId.ToString(), grpc.JobId })
        {
            var result = await new KMeansClient(_service.Grpc).GetResultAsync(new JobRef { JobId = id }, new CallOptions(cancellationToken: Token));
            Assert.Equal(3, result.Placement.Partitions);
            Assert.Equal(reference.Centres.Select(BitConverter.DoubleToInt64Bits), result.Clustering.Centres.Select(BitConverter.DoubleToInt64Bits));
        }

        using var refused = await _service.Rest.PostJsonTextAsync("/api/kmeans/jobs", $$"""{"datasetId":"{{dataset.DatasetId}}","clusters":8,"seedingTrials":0}""");
        Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
        Assert.Contains("seedingTrials must be between 1 and 100; it is 0.", await refused.Content.ReadAsStringAsync(Token), StringComparison.Ordinal);
    }

    /// <summary>The grid of three computed here, with the service's options for the request.</summary>
    private static KMeansResult Reference(double[] values, double[] weights, Contracts.KMeans.StartKMeansRequest request)
    {
        using var grid = new LocalPartitions(new DenseVectors(values, 2, weights), 3);
        return WeightedKMeans.Run(grid, RequestParameters.Bind(request, new KMeansOptions { Parallel = new ParallelismOptions() }));
    }
}
