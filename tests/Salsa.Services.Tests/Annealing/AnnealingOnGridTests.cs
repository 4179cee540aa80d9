using System.Net.Http.Json;
using Grpc.Core;
using Salsa.Annealing;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.Partitions;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Annealing;

/// <summary>
/// The annealing service as a silo (<c>Cluster:Enabled</c>, the embedded default's single localhost
/// silo): the same REST and gRPC API, dense jobs computed by a coordinator grain over the dataset's
/// partition grid, the result saying where it ran and equal, bit for bit, to the grid in one process.
/// </summary>
public sealed class AnnealingOnGridTests : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();
    private ServiceUnderTest<AnnealingService> _service = null!;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    public async ValueTask InitializeAsync() =>
        _service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(_directory), new Dictionary<string, string?>
        {
            ["Cluster:Enabled"] = "true",
            ["Cluster:PointsPerPartition"] = "600", // 2,000 points: a grid of 4
        });

    public async ValueTask DisposeAsync()
    {
        await _service.DisposeAsync();
        _directory.Dispose();
    }

    [Fact]
    public async Task Rest_DenseJob_RunsOnTheClusterWithTheGridsBitsAndSaysWhere()
    {
        var (values, weights, _) = Fixtures.Gmm;
        var dataset = await _service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());

        var job = await _service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5 });
        var events = await _service.Rest.WatchAsync(job.JobId);
        using var response = await _service.Rest.GetAsync($"/api/annealing/jobs/{job.JobId}/result", Token);
        await RestCalls.EnsureAsync(response);
        var summary = (await response.Content.ReadFromJsonAsync<Contracts.Annealing.AnnealingResult>(RestCalls.Json, Token))!;

        Assert.Equal("succeeded", events[^1].Data.GetProperty("state").GetString());
        Assert.Contains(events, e => e.Event == "progress" && e.Data.GetProperty("clusters").GetInt32() >= 2);
        var reference = Reference(values, weights, 4);
        Assert.Equal(reference.Centres.Select(BitConverter.DoubleToInt64Bits), summary.Clustering.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(BitConverter.DoubleToInt64Bits(reference.WeightedCost), BitConverter.DoubleToInt64Bits(summary.Clustering.Cost));
        var assignments = ArtifactFormats.ReadInt32s(await _service.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/assignments", Token));
        Assert.Equal(reference.Assignments, assignments);
        Assert.NotNull(summary.Placement);
        Assert.Equal(4, summary.Placement.Partitions);
        Assert.Single(summary.Placement.Silos);
        Assert.True(summary.Placement.Passes > 10);
        Assert.Equal(0, summary.Placement.Resumes);
    }

    [Fact]
    public async Task Grpc_DenseJob_ResultCarriesThePlacement()
    {
        var (values, weights, _) = Fixtures.Gmm;
        var dataset = await new DatasetsClient(_service.Grpc).UploadDenseAsync("gmm-grpc", 2, values, weights, options: new CallOptions(cancellationToken: Token));

        var job = await new AnnealingClient(_service.Grpc).StartAsync(new() { DatasetId = dataset.DatasetId, MaxClusters = 4 }, new CallOptions(cancellationToken: Token));
        var final = await new JobsClient(_service.Grpc).WatchToEndAsync(job.JobId, _ => { }, new CallOptions(cancellationToken: Token));
        var result = await new AnnealingClient(_service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, new CallOptions(cancellationToken: Token));

        Assert.Equal(JobState.Succeeded, final.State);
        Assert.Equal(4, result.Placement.Partitions);
        Assert.Single(result.Placement.Silos);
        Assert.True(result.Placement.ComputeUsPerPass > 0);
        var reference = Reference(values, weights, 4, 4);
        Assert.Equal(reference.Centres.Select(BitConverter.DoubleToInt64Bits), result.Clustering.Centres.Select(BitConverter.DoubleToInt64Bits));
    }

    /// <summary>The grid of <paramref name="partitions"/> computed here, with the service's options for the request.</summary>
    private static AnnealingResult Reference(double[] values, double[] weights, int partitions, int clusters = 5)
    {
        var options = RequestParameters.Bind(new Contracts.Annealing.StartAnnealingRequest { MaxClusters = clusters }, new AnnealingOptions { MaxTemperatures = 100_000 });
        using var grid = new LocalPartitions(new DenseVectors(values, 2, weights), partitions);
        return DeterministicAnnealing.Run(grid, options);
    }
}
