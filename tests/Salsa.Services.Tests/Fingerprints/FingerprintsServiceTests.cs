using System.Net.Http.Json;
using Grpc.Core;
using Salsa.Clustering.Fingerprints;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.DataFiles;
using Salsa.Fingerprints;
using Salsa.Hosting.Timing;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Fingerprints;

/// <summary>The Chem and Fingerprints services on one SQLite store, with the fixture compounds imported.</summary>
public sealed class CompoundServicesFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public CompoundServices Services { get; private set; } = null!;

    public async ValueTask InitializeAsync() => Services = await CompoundServices.StartAsync(TestStore.Sqlite(_directory));

    public async ValueTask DisposeAsync()
    {
        await Services.DisposeAsync();
        _directory.Dispose();
    }
}

public sealed class FingerprintsServiceTests(CompoundServicesFixture fixture) : IClassFixture<CompoundServicesFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static CallOptions Call => new(cancellationToken: Token);

    private CompoundServices Services => fixture.Services;

    public static TheoryData<string> Types => [FingerprintType.Ecfp4.Name, FingerprintType.Maccs.Name];

    [Fact]
    public void ChemImport_RecordsFingerprintTypeOnTheBinaryDatasets()
    {
        foreach (var type in FingerprintType.Shipped)
        {
            var dataset = Services.Datasets[type.Name];
            Assert.Equal(("binary", 500, type.Bits, type.Name), (dataset.Kind, dataset.Count, dataset.Bits, dataset.FingerprintType));
        }
    }

    [Fact]
    public async Task ButinaRest_FixtureEcfp4_EqualsTaylorButinaRunInProcess()
    {
        var expected = TaylorButina.Run(FixtureCompounds.Points(FingerprintType.Ecfp4.Name), new ButinaOptions { Cutoff = 0.6, Parallel = new() { Ranks = 1 } }, cancellationToken: Token);

        var job = await Services.Rest.StartJobAsync("/api/fingerprints/butina/jobs", new { datasetId = Services.Ecfp4, cutoff = 0.6 });
        Assert.Equal(("fingerprints", "butina"), (job.Service, job.Kind));
        Assert.Equal("succeeded", (await Services.Rest.WaitAsync(job.JobId)).State);
        using var response = await Services.Rest.GetAsync($"/api/fingerprints/butina/jobs/{job.JobId}/result", Token);
        await RestCalls.EnsureAsync(response);
        var summary = (await response.Content.ReadFromJsonAsync<Contracts.Fingerprints.ButinaResult>(RestCalls.Json, Token))!;

        Assert.True(expected.Clusters is > 1 and < 500, $"{expected.Clusters} clusters: the cut-off should make real clusters");
        Assert.Equal((0.6, 500, expected.Clusters), (summary.Cutoff, summary.Clustering.Points, summary.Clustering.Clusters));
        Assert.Equal(expected.Centroids, summary.Cluster.Select(c => c.Centroid));
        Assert.Equal(expected.Medoids, summary.Cluster.Select(c => c.Medoid));
        Assert.Equal(expected.ClusterSizes, summary.Cluster.Select(c => c.Size));
        Assert.Equal(expected.MeanSimilarityToCentroid, summary.Cluster.Select(c => c.MeanSimilarity));
        Assert.Equal(expected.ClusterSizes.Count(s => s == 1), summary.Singletons);
        Assert.Equal(expected.Assignments, await FixtureCompounds.AssignmentsAsync(Services.Rest, job.JobId));
        Assert.True(RestCalls.ParseServerTiming(string.Join(",", response.Headers.GetValues(ServerTiming.HeaderName)))["compute"] > 0);
    }

    [Fact]
    public async Task ButinaGrpc_FixtureMaccsDefaultCutoff_EqualsTaylorButinaRunInProcess()
    {
        var expected = TaylorButina.Run(FixtureCompounds.Points(FingerprintType.Maccs.Name), new ButinaOptions { Parallel = new() { Ranks = 1 } }, cancellationToken: Token);
        var client = new FingerprintsClient(Services.Fingerprints.Grpc);

        var job = await client.StartButinaAsync(new StartButinaRequest { DatasetId = Services.Maccs.ToString() }, Call);
        var final = await new JobsClient(Services.Fingerprints.Grpc).WatchToEndAsync(job.JobId, options: Call);
        Assert.Equal(JobState.Succeeded, final.State);
        var result = await client.GetButinaResultAsync(new JobRef { JobId = job.JobId }, Call);

        Assert.Equal((0.35, expected.Clusters), (result.Cutoff, result.Clustering.Clusters));
        Assert.Equal(expected.Centroids, result.Cluster.Select(c => c.Centroid));
        Assert.Equal(expected.Medoids, result.Cluster.Select(c => c.Medoid));
        Assert.Equal(expected.ClusterSizes, result.Cluster.Select(c => c.Size));
        var (assignments, _) = await new JobsClient(Services.Fingerprints.Grpc).DownloadArtifactAsync(job.JobId, "assignments", Call);
        Assert.Equal(expected.Assignments, Salsa.Hosting.Jobs.ArtifactFormats.ReadInt32s(assignments));
    }

    [Theory]
    [MemberData(nameof(Types))]
    public async Task Search_RestAndGrpc_PrunedAndBruteForce_EqualBruteForceTopK(string type)
    {
        var dataset = Services.Datasets[type].DatasetId;
        var butina = await Services.ButinaAsync(dataset, 0.4);
        var client = new FingerprintsClient(Services.Fingerprints.Grpc);
        const int K = 12;

        foreach (var query in Queries(type))
        {
            var expected = FixtureCompounds.BruteForceTopK(type, query, K);
            foreach (Guid? job in new Guid?[] { null, butina })
            {
                using var response = await Services.Rest.PostAsJsonAsync("/api/fingerprints/search",
                    new { datasetId = dataset, butinaJobId = job, queryHex = FixtureCompounds.Hex(type, query), fingerprintType = type, k = K }, RestCalls.Json, Token);
                await RestCalls.EnsureAsync(response);
                var rest = (await response.Content.ReadFromJsonAsync<FingerprintSearchResult>(RestCalls.Json, Token))!;
                Assert.Equal(expected, rest.Hits.Select(h => (h.Index, h.Similarity)));
                Assert.Equal(expected.Select(e => FixtureCompounds.Set.Ids[e.Index]), rest.Hits.Select(h => h.Label));

                var request = new SearchRequest { DatasetId = dataset.ToString(), ButinaJobId = job?.ToString() ?? "", FingerprintType = type, K = K };
                request.QueryWords.Add(query);
                var grpc = await client.SearchAsync(request, Call);
                Assert.Equal(expected, grpc.Hits.Select(h => (h.Index, h.Similarity)));
                Assert.Equal(rest.DistancesComputed, grpc.DistancesComputed);
                if (job is null)
                {
                    Assert.Equal(500, rest.DistancesComputed);
                }
                else
                {
                    Assert.InRange(rest.DistancesComputed, 1, 500);
                }
            }
        }
    }

    [Theory]
    [MemberData(nameof(Types))]
    public async Task Search_BySmiles_RdkitFingerprintsTheMolecule_LikeItsShippedFingerprint_AndFindsItFirst(string type)
    {
        var dataset = Services.Datasets[type].DatasetId;
        const int K = 8;
        var compound = 123;

        using var response = await Services.Rest.PostAsJsonAsync("/api/fingerprints/search",
            new { datasetId = dataset, querySmiles = FixtureCompounds.Set.Smiles[compound], k = K }, RestCalls.Json, Token);
        await RestCalls.EnsureAsync(response);
        var bySmiles = (await response.Content.ReadFromJsonAsync<FingerprintSearchResult>(RestCalls.Json, Token))!;

        Assert.Equal(FixtureCompounds.BruteForceTopK(type, FixtureCompounds.Words(type, compound), K), bySmiles.Hits.Select(h => (h.Index, h.Similarity)));
        Assert.Contains(bySmiles.Hits.TakeWhile(h => h.Similarity == 1.0), h => h.Index == compound);
        var grpc = await new FingerprintsClient(Services.Fingerprints.Grpc).SearchAsync(new SearchRequest { DatasetId = dataset.ToString(), QuerySmiles = FixtureCompounds.Set.Smiles[compound], K = K }, Call);
        Assert.Equal(bySmiles.Hits.Select(h => (h.Index, h.Similarity)), grpc.Hits.Select(h => (h.Index, h.Similarity)));
    }

    [Fact]
    public async Task BinaryAnnealing_OnTheAnnealingService_QueuedBehindASlowJob_StreamsProgressOnceItRuns()
    {
        // Fingerprints are annealed by the annealing service, as points are: one concurrent job, so
        // the second waits behind the slow one and its watch sees every event.
        var annealing = Services.Annealing;
        var jobs = new JobsClient(annealing.Grpc);
        var client = new AnnealingClient(annealing.Grpc);
        var slow = await annealing.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = Services.Ecfp4, maxClusters = 40, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true });
        await annealing.Rest.WaitForProgressAsync(slow.JobId);
        var queued = await client.StartAsync(new Contracts.Annealing.StartAnnealingRequest { DatasetId = Services.Ecfp4.ToString(), MaxClusters = 3 }, Call);
        using var watch = jobs.Watch(new JobRef { JobId = queued.JobId }, Call);
        Assert.Equal(JobState.Queued, (await FirstStatusAsync(watch)).State);

        using (var cancel = await annealing.Rest.PostAsync($"/api/jobs/{slow.JobId}/cancel", null, Token))
        {
            await RestCalls.EnsureAsync(cancel);
        }

        Assert.Equal("cancelled", (await annealing.Rest.WaitAsync(slow.JobId)).State);
        var (state, progress) = await ToEndAsync(watch);

        Assert.Equal(JobState.Succeeded, state);
        Assert.Contains(progress, p => p.HasTemperature && p.Clusters >= 1);
        var result = await client.GetResultAsync(new JobRef { JobId = queued.JobId }, Call);
        Assert.Equal(500, result.Clustering.ClusterSizes.Sum());
        var summary = await annealing.GetJsonAsync<Contracts.Annealing.AnnealingResult>($"/api/annealing/jobs/{queued.JobId}/result");
        Assert.Equal(("binary", 500, result.Clustering.Clusters), (summary.Input, summary.Clustering.Points, summary.Clustering.Clusters));
    }

    [Fact]
    public async Task BinaryAnnealing_OnTheFingerprintsService_AsV1ServedIt_SameResultAsTheAnnealingService()
    {
        // v1 of 11-27 annealed fingerprints through salsa.fingerprints.v1.Fingerprints (StartAnnealing,
        // GetAnnealingResult) and /api/fingerprints/annealing/jobs: both are served again, by the
        // annealing service's own jobs, so the answer is the annealing service's bit for bit.
        var fingerprints = new FingerprintsClient(Services.Fingerprints.Grpc);
        var request = new Contracts.Annealing.StartAnnealingRequest { DatasetId = Services.Maccs.ToString(), MaxClusters = 4 };
        var overGrpc = await fingerprints.StartAnnealingAsync(request, Call);
        var overRest = await Services.Fingerprints.Rest.StartJobAsync("/api/fingerprints/annealing/jobs", new { datasetId = Services.Maccs, maxClusters = 4 });
        var reference = await new AnnealingClient(Services.Annealing.Grpc).StartAsync(request, Call);

        Assert.Equal(JobState.Succeeded, (await new JobsClient(Services.Fingerprints.Grpc).WatchToEndAsync(overGrpc.JobId, options: Call)).State);
        Assert.Equal("succeeded", (await Services.Fingerprints.Rest.WaitAsync(overRest.JobId)).State);
        Assert.Equal(JobState.Succeeded, (await new JobsClient(Services.Annealing.Grpc).WatchToEndAsync(reference.JobId, options: Call)).State);
        var expected = await new AnnealingClient(Services.Annealing.Grpc).GetResultAsync(new JobRef { JobId = reference.JobId }, Call);
        var grpc = await fingerprints.GetAnnealingResultAsync(new JobRef { JobId = overGrpc.JobId }, Call);
        var rest = await Services.Fingerprints.GetJsonAsync<Contracts.Annealing.AnnealingResult>($"/api/fingerprints/annealing/jobs/{overRest.JobId}/result");

        Assert.Equal(("binary", 500), (grpc.Input, grpc.Clustering.Points));
        Assert.Equal(expected.Clustering.Centres, grpc.Clustering.Centres);
        Assert.Equal(expected.Clustering.ClusterSizes, grpc.Clustering.ClusterSizes);
        Assert.Equal(expected.Clustering.Cost, rest.Clustering.Cost);
        Assert.Equal(expected.Clustering.ClusterSizes, rest.Clustering.ClusterSizes);

        // A Butina job is not an annealing job, and a dense dataset is not fingerprints.
        var butina = await Services.ButinaAsync(Services.Maccs, 0.5);
        var wrongKind = await Assert.ThrowsAsync<RpcException>(() => fingerprints.GetAnnealingResultAsync(new JobRef { JobId = butina.ToString() }, Call).ResponseAsync);
        Assert.Equal(StatusCode.NotFound, wrongKind.StatusCode);
        var dense = await Services.Fingerprints.Rest.UploadCsvAsync("name=points&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var notBinary = await Assert.ThrowsAsync<RpcException>(() => fingerprints.StartAnnealingAsync(new Contracts.Annealing.StartAnnealingRequest { DatasetId = dense.DatasetId.ToString(), MaxClusters = 3 }, Call).ResponseAsync);
        Assert.Equal(StatusCode.InvalidArgument, notBinary.StatusCode);
        Assert.Contains("binary", notBinary.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Butina_ReportsItsPhasesInOrder()
    {
        // The job may end before a watch could attach; its compute span keeps one event per phase.
        using var spans = new ActivityRecorder(Salsa.Hosting.SalsaHosting.ActivitySourceName);
        var butina = await new FingerprintsClient(Services.Fingerprints.Grpc).StartButinaAsync(new StartButinaRequest { DatasetId = Services.Ecfp4.ToString(), Cutoff = 0.5 }, Call);

        var final = await new JobsClient(Services.Fingerprints.Grpc).WatchToEndAsync(butina.JobId, options: Call);
        var compute = await spans.WaitForAsync(a => a.OperationName == "compute" && a.Parent?.GetTagItem("salsa.job.id") as string == butina.JobId, Token);

        Assert.Equal(JobState.Succeeded, final.State);
        Assert.Equal(["neighbours", "clusters", "done"], compute.Events.Select(e => e.Name).Distinct());
    }

    /// <summary>Compounds of the set, and one that is in no set: a compound with some bits flipped.</summary>
    private static IEnumerable<ulong[]> Queries(string type)
    {
        yield return FixtureCompounds.Words(type, 0);
        yield return FixtureCompounds.Words(type, 271);
        var changed = FixtureCompounds.Words(type, 42);
        foreach (var bit in new[] { 3, 64, 100, 150 })
        {
            changed[bit / 64] ^= 1UL << (bit % 64);
        }

        yield return changed;
    }

    private static async Task<JobInfo> FirstStatusAsync(AsyncServerStreamingCall<JobEvent> watch)
    {
        Assert.True(await watch.ResponseStream.MoveNext(Token));
        return watch.ResponseStream.Current.Status;
    }

    private static async Task<(JobState State, List<JobProgress> Progress)> ToEndAsync(AsyncServerStreamingCall<JobEvent> watch)
    {
        var progress = new List<JobProgress>();
        var state = JobState.Unspecified;
        while (await watch.ResponseStream.MoveNext(Token))
        {
            var item = watch.ResponseStream.Current;
            if (item.EventCase == JobEvent.EventOneofCase.Progress)
            {
                progress.Add(item.Progress);
            }
            else
            {
                state = item.Status.State;
            }
        }

        return (state, progress);
    }
}
