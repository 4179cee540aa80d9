using Grpc.Core;
using Salsa.Annealing;
using Salsa.FirstV1.Annealing;
using Salsa.FirstV1.Common;
using Salsa.FirstV1.Datasets;
using Salsa.FirstV1.Fingerprints;
using Salsa.FirstV1.KMeans;
using Salsa.KMeans;
using Salsa.Services.Tests.Fingerprints;
using Salsa.Services.Tests.Support;
using Salsa.Testing;
using AnnealingClient = Salsa.FirstV1.Annealing.Annealing.AnnealingClient;
using DatasetsClient = Salsa.FirstV1.Datasets.Datasets.DatasetsClient;
using FingerprintsClient = Salsa.FirstV1.Fingerprints.Fingerprints.FingerprintsClient;
using JobsClient = Salsa.FirstV1.Common.Jobs.JobsClient;
using KMeansClient = Salsa.FirstV1.KMeans.KMeans.KMeansClient;

namespace Salsa.Services.Tests.Contract;

/// <summary>
/// Last week's gRPC caller against today's services: the clients compiled from the proto files of
/// main of 2026-11-27 (<c>c81d0ef</c>, tests/Salsa.Contract.FirstV1) send the requests that code
/// sent — an upload, a job started, watched to its end, its result read — and read the fields it
/// read. A field deleted or retyped since would read as zero or fail to parse here.
/// </summary>
public sealed class FirstV1CallerTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    [Fact]
    public async Task KMeans_LastWeeksClient_UploadsStartsWatchesAndReadsItsResult()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<KMeansService>(TestStore.Sqlite(directory));
        var dataset = await UploadGmmAsync(new DatasetsClient(service.Grpc));

        var job = await new KMeansClient(service.Grpc).StartAsync(new StartKMeansRequest { DatasetId = dataset.DatasetId, Clusters = 5, Restarts = 2, Seed = 7 }, Call);
        var ended = await WatchToEndAsync(new JobsClient(service.Grpc), job.JobId);
        var result = await new KMeansClient(service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, Call);

        Assert.Equal((JobState.Succeeded, "kmeans", dataset.DatasetId), (ended.State, ended.Service, ended.DatasetId));
        Assert.Equal((5, 2, 10, 5, 5), (result.Clusters, result.Dimension, result.Centres.Count, result.ClusterWeights.Count, result.ClusterSizes.Count));
        Assert.Equal(2000, result.ClusterSizes.Sum());
        Assert.Equal(result.Clustering.Cost, result.Inertia);
        Assert.True(result.Inertia > 0);
        Assert.Equal(result.Clustering.Centres, result.Centres);
        Assert.Equal(2, result.RestartInertias.Count);
        Assert.Equal(result.Inertia, result.RestartInertias.Min());
        Assert.Null(result.Placement); // computed in the service's process: no placement, as in v1
    }

    [Fact]
    public async Task Annealing_LastWeeksClient_StartsAndReadsItsResultAndTrajectory()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory));
        var dataset = await UploadGmmAsync(new DatasetsClient(service.Grpc));

        var job = await new AnnealingClient(service.Grpc).StartAsync(new StartAnnealingRequest { DatasetId = dataset.DatasetId, MaxClusters = 5 }, Call);
        var ended = await WatchToEndAsync(new JobsClient(service.Grpc), job.JobId);
        var result = await new AnnealingClient(service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, Call);

        Assert.Equal(JobState.Succeeded, ended.State);
        Assert.InRange(result.Clusters, 2, 5);
        Assert.Equal((2, result.Clusters * 2, result.Clusters), (result.Dimension, result.Centres.Count, result.ClusterSizes.Count));
        Assert.Equal(2000, result.ClusterSizes.Sum());
        Assert.Equal(result.Clustering.Cost, result.WeightedCost);
        Assert.NotEmpty(result.Trajectory);
        Assert.All(result.Trajectory, step => Assert.True(step.Temperature > 0 && step.Clusters >= 1));
        Assert.Equal(result.Clusters, result.Trajectory[^1].Clusters);
    }

    [Fact]
    public async Task Fingerprints_LastWeeksClient_ButinaCountAndAnnealingThroughTheFingerprintsService()
    {
        using var directory = new TemporaryDirectory();
        await using var services = await CompoundServices.StartAsync(TestStore.Sqlite(directory));
        var client = new FingerprintsClient(services.Fingerprints.Grpc);
        var jobs = new JobsClient(services.Fingerprints.Grpc);
        var maccs = services.Maccs.ToString();

        var butina = await client.StartButinaAsync(new StartButinaRequest { DatasetId = maccs, Cutoff = 0.5 }, Call);
        Assert.Equal(JobState.Succeeded, (await WatchToEndAsync(jobs, butina.JobId)).State);
        var clusters = await client.GetButinaResultAsync(new JobRef { JobId = butina.JobId }, Call);
        var annealing = await client.StartAnnealingAsync(new StartAnnealingRequest { DatasetId = maccs, MaxClusters = 4 }, Call);
        Assert.Equal(JobState.Succeeded, (await WatchToEndAsync(jobs, annealing.JobId)).State);
        var annealed = await client.GetAnnealingResultAsync(new JobRef { JobId = annealing.JobId }, Call);

        Assert.Equal(0.5, clusters.Cutoff);
        Assert.True(clusters.Clusters > 1);
        Assert.Equal(clusters.Clusters, clusters.Cluster.Count);
        Assert.Equal(clusters.Clustering.Clusters, clusters.Clusters);
        Assert.Equal(500, clusters.Cluster.Sum(c => c.Size));
        Assert.Equal(clusters.Cluster.Count(c => c.Size == 1), clusters.Singletons);
        Assert.InRange(annealed.Clusters, 1, 4);
        Assert.Equal(500, annealed.ClusterSizes.Sum());
        Assert.Equal(annealed.Clustering.Cost, annealed.WeightedCost);
    }

    /// <summary>An upload as last week's client made it: a header, then chunks of points and weights.</summary>
    private static async Task<DatasetInfo> UploadGmmAsync(DatasetsClient datasets)
    {
        var (values, weights, _) = Fixtures.Gmm;
        using var upload = datasets.Upload(Call);
        await upload.RequestStream.WriteAsync(new UploadRequest { Header = new UploadHeader { Name = "gmm", Kind = DatasetKind.Dense, Dimension = 2 } }, Token);
        for (var start = 0; start < weights.Length; start += 500)
        {
            var count = Math.Min(500, weights.Length - start);
            var chunk = new PointChunk();
            chunk.Values.AddRange(values.AsSpan(start * 2, count * 2).ToArray());
            chunk.Weights.AddRange(weights.AsSpan(start, count).ToArray());
            await upload.RequestStream.WriteAsync(new UploadRequest { Chunk = chunk }, Token);
        }

        await upload.RequestStream.CompleteAsync();
        var info = await upload;
        Assert.Equal((DatasetKind.Dense, 2000, 2), (info.Kind, info.Count, info.Dimension));
        return info;
    }

    /// <summary>Watches a job as last week's client did: the job now, its progress, the job again at its end.</summary>
    private static async Task<JobInfo> WatchToEndAsync(JobsClient jobs, string jobId)
    {
        using var watch = jobs.Watch(new JobRef { JobId = jobId }, Call);
        JobInfo? last = null;
        await foreach (var message in watch.ResponseStream.ReadAllAsync(Token))
        {
            if (message.EventCase == JobEvent.EventOneofCase.Status)
            {
                last = message.Status;
            }
        }

        Assert.NotNull(last);
        return last;
    }
}
