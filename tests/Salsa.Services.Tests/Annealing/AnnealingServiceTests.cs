using System.Net.Http.Json;
using System.Text.Json;
using Grpc.Core;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Annealing;

/// <summary>One annealing service (SQLite) shared by the tests of its REST and gRPC faces.</summary>
public sealed class AnnealingServiceFixture : ServiceFixture<AnnealingService>;

public sealed class AnnealingServiceTests(AnnealingServiceFixture fixture) : IClassFixture<AnnealingServiceFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private ServiceUnderTest<AnnealingService> Service => fixture.Service;

    [Fact]
    public async Task Rest_GmmJob_RecoversCentresAndStreamsProgress()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        Assert.Equal(2000, dataset.Count);

        var job = await Service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5 });
        Assert.Equal("annealing", job.Service);
        var events = await Service.Rest.WatchAsync(job.JobId);

        Assert.Contains(events, e => e.Event == "progress" && e.Data.GetProperty("clusters").GetInt32() >= 1);
        Assert.Equal("succeeded", events[^1].Data.GetProperty("state").GetString());
        using var response = await Service.Rest.GetAsync($"/api/annealing/jobs/{job.JobId}/result", Token);
        await RestCalls.EnsureAsync(response);
        var timing = RestCalls.ParseServerTiming(string.Join(",", response.Headers.GetValues(ServerTiming.HeaderName)));
        Assert.True(timing["compute"] > 0);
        Assert.True(timing.ContainsKey("queue") && timing.ContainsKey("app"));
        var summary = (await response.Content.ReadFromJsonAsync<Contracts.Annealing.AnnealingResult>(RestCalls.Json, Token))!;
        Assert.Equal(5, summary.Clustering.Clusters);
        Assert.Equal(2000, summary.Clustering.ClusterSizes.Sum());
        foreach (var centre in Fixtures.Gmm.Centres)
        {
            Assert.True(Fixtures.NearestDistance(centre, summary.Clustering.Centres) < 0.15, $"no centre near ({centre[0]}, {centre[1]})");
        }

        var assignments = ArtifactFormats.ReadInt32s(await Service.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/assignments", Token));
        Assert.Equal(2000, assignments.Length);
        Assert.Equal(summary.Clustering.ClusterSizes, Enumerable.Range(0, 5).Select(k => assignments.Count(a => a == k)));
    }

    [Fact]
    public async Task Result_OneShape_RestIsTheGrpcMessageTheStoredJobAndTheOpenApiSchema()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm-shape&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await Service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 3 });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(job.JobId)).State);

        var text = await Service.Rest.GetStringAsync($"/api/annealing/jobs/{job.JobId}/result", Token);
        var grpc = await new AnnealingClient(Service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId.ToString() }, new CallOptions(cancellationToken: Token));
        // The REST body parses strictly (an unknown field would fail) into the very message gRPC returns.
        Assert.Equal(grpc, Google.Protobuf.JsonParser.Default.Parse<Contracts.Annealing.AnnealingResult>(text));
        Assert.Equal(3, grpc.Clustering.Clusters);
        Assert.Equal("annealing", grpc.Clustering.Algorithm);
        Assert.NotEmpty(grpc.Trajectory);
        // The job list's result (the job record) is the same JSON.
        using var view = JsonDocument.Parse(await Service.Rest.GetStringAsync($"/api/jobs/{job.JobId}", Token));
        Assert.Equal(grpc, Google.Protobuf.JsonParser.Default.Parse<Contracts.Annealing.AnnealingResult>(view.RootElement.GetProperty("result").GetRawText()));

        // The OpenAPI document describes that body: every field written, by its JSON name, nested messages inline.
        using var body = JsonDocument.Parse(text);
        using var openApi = JsonDocument.Parse(await Service.Rest.GetStringAsync("/openapi/v1.json", Token));
        var schema = openApi.RootElement.GetProperty("components").GetProperty("schemas").GetProperty("AnnealingResult");
        // (placement, a message, is written only when the job ran on the grid: this one ran in the service.)
        Assert.False(body.RootElement.TryGetProperty("placement", out _));
        Assert.Equal(Names(schema.GetProperty("properties")).Except(["placement"]), Names(body.RootElement));
        Assert.Equal(Strings(schema.GetProperty("required")).Order(StringComparer.Ordinal), Names(body.RootElement).Except(["clustering"]));
        var clustering = schema.GetProperty("properties").GetProperty("clustering");
        Assert.Equal(Names(clustering.GetProperty("properties")), Names(body.RootElement.GetProperty("clustering")));
        Assert.Equal("array", clustering.GetProperty("properties").GetProperty("centres").GetProperty("type").GetString());
        Assert.Equal("array", schema.GetProperty("properties").GetProperty("trajectory").GetProperty("type").GetString());

        static string[] Names(JsonElement element) => [.. element.EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal)];
        static IEnumerable<string> Strings(JsonElement array) => array.EnumerateArray().Select(e => e.GetString()!);
    }

    [Fact]
    public async Task Grpc_UploadStartWatchResult_RecoversCentres()
    {
        var (values, weights, centres) = Fixtures.Gmm;
        var dataset = await new DatasetsClient(Service.Grpc).UploadDenseAsync("gmm-grpc", 2, values, weights, options: new CallOptions(cancellationToken: Token));
        Assert.Equal(2000, dataset.Count);

        var job = await new AnnealingClient(Service.Grpc).StartAsync(new() { DatasetId = dataset.DatasetId, MaxClusters = 5 }, new CallOptions(cancellationToken: Token));
        var jobs = new JobsClient(Service.Grpc);
        var final = await jobs.WatchToEndAsync(job.JobId, _ => { }, new CallOptions(cancellationToken: Token));

        Assert.Equal(JobState.Succeeded, final.State);
        // A job of 2,000 points may end before the watch attaches, which then sends the ended job only:
        // the progress it ended with is in it, whenever the watcher came.
        Assert.False(string.IsNullOrEmpty(final.Progress?.Phase));
        Assert.True(final.Progress!.Iteration > 0);
        Assert.True(final.ComputeMs > 0);
        using var call = new AnnealingClient(Service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, new CallOptions(cancellationToken: Token));
        var result = await call;
        foreach (var centre in centres)
        {
            Assert.True(Fixtures.NearestDistance(centre, result.Clustering.Centres) < 0.15);
        }

        Assert.Contains("compute;dur=", call.GetTrailers().GetValue(ServerTiming.TrailerName), StringComparison.Ordinal);
        var (data, contentType) = await jobs.DownloadArtifactAsync(job.JobId, Artifacts.Assignments, new CallOptions(cancellationToken: Token));
        Assert.Equal(Artifacts.OctetStream, contentType);
        Assert.All(ArtifactFormats.ReadInt32s(data), a => Assert.InRange(a, 0, 4));
    }

    [Fact]
    public async Task Cancel_RunningJob_EndsCancelledAndServiceKeepsServing()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm-slow&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await Service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true });

        await Service.Rest.WaitForProgressAsync(job.JobId);
        using (var cancel = await Service.Rest.PostAsync($"/api/jobs/{job.JobId}/cancel", null, Token))
        {
            await RestCalls.EnsureAsync(cancel);
        }

        Assert.Equal("cancelled", (await Service.Rest.WaitAsync(job.JobId)).State);
        using var result = await Service.Rest.GetAsync($"/api/jobs/{job.JobId}/result", Token);
        Assert.Contains("cancelled", await RestCalls.ProblemAsync(result, 409), StringComparison.Ordinal);
        using var health = await Service.Rest.GetAsync("/health", Token);
        await RestCalls.EnsureAsync(health);
    }
}
