using System.Net.Http.Json;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;
using Salsa.KMeans;
using Salsa.Services.Tests.Support;
using JobEvent = Salsa.Contracts.Common.JobEvent;

namespace Salsa.Services.Tests.KMeans;

/// <summary>
/// One k-means service (SQLite) shared by the tests of its REST and gRPC faces. Its restart limit is
/// raised so that a job can run far longer than any test waits (a thousand restarts of the gmm
/// points take a couple of seconds).
/// </summary>
public sealed class KMeansServiceFixture : ServiceFixture<KMeansService>
{
    protected override IReadOnlyDictionary<string, string?> Settings { get; } = new Dictionary<string, string?>
    {
        ["Salsa:Limits:MaxRestarts"] = "1000000",
    };
}

public sealed class KMeansServiceTests(KMeansServiceFixture fixture) : IClassFixture<KMeansServiceFixture>
{
    /// <summary>Restarts enough to keep a job running far longer than any test waits for it (under the fixture's raised limit).</summary>
    private const int SlowRestarts = 200_000;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private ServiceUnderTest<KMeansService> Service => fixture.Service;

    [Fact]
    public async Task Rest_GmmJob_RecoversCentresWithConsistentInertiaAndAssignments()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var blocker = await StartBlockerAsync(dataset.DatasetId);
        var job = await Service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = dataset.DatasetId, clusters = 5, restarts = 4, seed = 11 });
        Assert.Equal(("kmeans", "kmeans", dataset.DatasetId, "queued"), (job.Service, job.Kind, job.DatasetId, job.State));

        var events = await Service.Rest.WatchAsync(job.JobId, subscribed: () => CancelAsync(blocker));
        Assert.Equal("queued", events[0].Data.GetProperty("state").GetString());
        var progress = events.Where(e => e.Event == "progress").Select(e => e.Data).ToList();
        Assert.NotEmpty(progress);
        Assert.All(progress, p => Assert.Equal(5, p.GetProperty("clusters").GetInt32()));
        Assert.All(progress, p => Assert.True(p.GetProperty("objective").GetDouble() > 0));
        Assert.Equal("succeeded", events[^1].Data.GetProperty("state").GetString());

        using var response = await Service.Rest.GetAsync($"/api/kmeans/jobs/{job.JobId}/result", Token);
        await RestCalls.EnsureAsync(response);
        var timing = RestCalls.ParseServerTiming(string.Join(",", response.Headers.GetValues(ServerTiming.HeaderName)));
        Assert.True(timing["compute"] > 0);
        var summary = (await response.Content.ReadFromJsonAsync<Contracts.KMeans.KMeansResult>(RestCalls.Json, Token))!;
        Assert.Equal((5, 2, 2000, "dense"), (summary.Clustering.Clusters, summary.Clustering.Dimension, summary.Clustering.Points, summary.Input));
        foreach (var centre in Fixtures.Gmm.Centres)
        {
            Assert.True(Fixtures.NearestDistance(centre, summary.Clustering.Centres) < 0.15, $"no centre near ({centre[0]}, {centre[1]})");
        }

        Assert.Equal(4, summary.RestartInertias.Count);
        Assert.Equal(summary.RestartInertias.Min(), summary.Clustering.Cost);
        Assert.Equal(summary.Clustering.Cost, summary.RestartInertias[summary.BestRestart]);

        var assignments = ArtifactFormats.ReadInt32s(await Service.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/assignments", Token));
        Assert.Equal(2000, assignments.Length);
        Assert.Equal(summary.Clustering.ClusterSizes, Enumerable.Range(0, 5).Select(k => assignments.Count(a => a == k)));
        var (values, weights, _) = Fixtures.Gmm;
        Assert.Equal(weights.Sum(), summary.Clustering.ClusterWeights.Sum(), 1e-6);
        // Converged Lloyd: the centres are the weighted means of their points, so the inertia the
        // test recomputes from the artifact and the centres is the one the service reported.
        var recomputed = Enumerable.Range(0, 2000).Sum(i =>
            weights[i] * (Math.Pow(values[2 * i] - summary.Clustering.Centres[2 * assignments[i]], 2) + Math.Pow(values[2 * i + 1] - summary.Clustering.Centres[2 * assignments[i] + 1], 2)));
        Assert.True(Math.Abs(recomputed - summary.Clustering.Cost) <= 1e-6 * summary.Clustering.Cost, $"inertia {summary.Clustering.Cost}, recomputed {recomputed}");
    }

    [Fact]
    public async Task Grpc_UploadStartWatchResult_SameNumbersAsRest()
    {
        var (values, weights, centres) = Fixtures.Gmm;
        var dataset = await new DatasetsClient(Service.Grpc).UploadDenseAsync("gmm-grpc", 2, values, weights, options: GrpcCalls.Options);
        var blocker = await StartBlockerAsync(Guid.Parse(dataset.DatasetId));
        var job = await new KMeansClient(Service.Grpc).StartAsync(new() { DatasetId = dataset.DatasetId, Clusters = 5, Restarts = 3, Seed = 5 }, GrpcCalls.Options);
        Assert.Equal(("kmeans", dataset.DatasetId, JobState.Queued), (job.Kind, job.DatasetId, job.State));

        var jobs = new JobsClient(Service.Grpc);
        var events = new List<JobEvent>();
        using (var watch = jobs.Watch(new JobRef { JobId = job.JobId }, GrpcCalls.Options))
        {
            while (await watch.ResponseStream.MoveNext(Token))
            {
                events.Add(watch.ResponseStream.Current);
                if (events.Count == 1)
                {
                    await jobs.CancelAsync(new JobRef { JobId = blocker.ToString() }, GrpcCalls.Options);
                }
            }
        }

        Assert.Equal(JobState.Queued, events[0].Status.State);
        var final = events[^1].Status;
        var progress = events.Where(e => e.EventCase == JobEvent.EventOneofCase.Progress).Select(e => e.Progress).ToList();
        Assert.Equal(JobState.Succeeded, final.State);
        Assert.NotEmpty(progress);
        Assert.All(progress, p => Assert.Equal(5, p.Clusters));
        Assert.Contains(final.Artifacts, a => a.Name == Artifacts.Assignments && a.Size == 2000 * sizeof(int));
        using var call = new KMeansClient(Service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, GrpcCalls.Options);
        var result = await call;
        Assert.Contains("compute;dur=", call.GetTrailers().GetValue(ServerTiming.TrailerName), StringComparison.Ordinal);
        foreach (var centre in centres)
        {
            Assert.True(Fixtures.NearestDistance(centre, result.Clustering.Centres) < 0.15);
        }

        // One shape: REST's result is the gRPC message field for field, and the clustering artifact is its clustering.
        var rest = await Service.GetJsonAsync<Contracts.KMeans.KMeansResult>($"/api/kmeans/jobs/{job.JobId}/result");
        Assert.Equal(result, rest);
        Assert.Equal(result.Clustering, ClusteringResult.Parser.ParseFrom((await jobs.DownloadArtifactAsync(job.JobId, Artifacts.Clustering, GrpcCalls.Options)).Data));

        var (data, contentType) = await jobs.DownloadArtifactAsync(job.JobId, Artifacts.Assignments, GrpcCalls.Options);
        Assert.Equal(Artifacts.OctetStream, contentType);
        var assignments = ArtifactFormats.ReadInt32s(data);
        Assert.Equal(2000, assignments.Length);
        Assert.Equal(result.Clustering.ClusterSizes, Enumerable.Range(0, 5).Select(k => assignments.Count(a => a == k)));
    }

    [Fact]
    public async Task RestCancel_RunningJob_EndsCancelledAndServiceKeepsServing()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm-slow&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await Service.Rest.StartJobAsync("/api/kmeans/jobs", SlowRequest(dataset.DatasetId));

        await Service.Rest.WaitForProgressAsync(job.JobId);
        await CancelAsync(job.JobId);

        Assert.Equal("cancelled", (await Service.Rest.WaitAsync(job.JobId)).State);
        using var result = await Service.Rest.GetAsync($"/api/kmeans/jobs/{job.JobId}/result", Token);
        Assert.Contains("cancelled", await RestCalls.ProblemAsync(result, 409), StringComparison.Ordinal);
        await AssertServesAsync(dataset.DatasetId);
    }

    [Fact]
    public async Task GrpcCancel_RunningJob_EndsCancelledAndResultRefused()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm-slow-grpc&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await new KMeansClient(Service.Grpc).StartAsync(
            new() { DatasetId = dataset.DatasetId.ToString(), Clusters = 5, Restarts = SlowRestarts, Tolerance = 0 }, GrpcCalls.Options);
        var jobs = new JobsClient(Service.Grpc);
        using (var watch = jobs.Watch(new JobRef { JobId = job.JobId }, GrpcCalls.Options))
        {
            while (await watch.ResponseStream.MoveNext(Token) && watch.ResponseStream.Current.EventCase != JobEvent.EventOneofCase.Progress)
            {
            }
        }

        await jobs.CancelAsync(new JobRef { JobId = job.JobId }, GrpcCalls.Options);

        Assert.Equal(JobState.Cancelled, (await jobs.WatchToEndAsync(job.JobId, options: GrpcCalls.Options)).State);
        await GrpcCalls.FailsWithAsync(StatusCode.FailedPrecondition,
            async () => await new KMeansClient(Service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, GrpcCalls.Options));
        await AssertServesAsync(dataset.DatasetId);
    }

    private static object SlowRequest(Guid dataset) => new { datasetId = dataset, clusters = 5, restarts = SlowRestarts, tolerance = 0.0 };

    /// <summary>
    /// A job that holds the service's one compute slot (it is running when this returns), so the
    /// next job waits queued until the blocker is cancelled: a watch opened meanwhile sees all of it.
    /// </summary>
    private async Task<Guid> StartBlockerAsync(Guid dataset)
    {
        var blocker = await Service.Rest.StartJobAsync("/api/kmeans/jobs", SlowRequest(dataset));
        await Service.Rest.WaitForProgressAsync(blocker.JobId);
        return blocker.JobId;
    }

    private async Task CancelAsync(Guid job)
    {
        using var cancel = await Service.Rest.PostAsync($"/api/jobs/{job}/cancel", null, Token);
        await RestCalls.EnsureAsync(cancel);
    }

    /// <summary>A quick job after the cancelled one runs to the end: the compute slot was given back.</summary>
    private async Task AssertServesAsync(Guid dataset)
    {
        var quick = await Service.Rest.StartJobAsync("/api/kmeans/jobs", new { datasetId = dataset, clusters = 3 });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(quick.JobId)).State);
    }
}
