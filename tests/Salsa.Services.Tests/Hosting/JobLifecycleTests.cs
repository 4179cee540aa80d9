using System.Net;
using System.Net.Http.Json;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// What the shared hosting promises every service, shown on the annealing service: a restart keeps
/// datasets and results and reports the job it cut off as interrupted (on both stores); a full queue
/// refuses work with a retry hint instead of growing.
/// </summary>
public sealed class JobLifecycleTests(PostgresFixture postgres)
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Theory]
    [MemberData(nameof(TestStore.Names), MemberType = typeof(TestStore))]
    public async Task Restart_KeepsDatasetsAndResults_ReportsRunningJobInterrupted(string storeName)
    {
        using var directory = new TemporaryDirectory();
        var store = await TestStore.CreateAsync(storeName, directory, postgres);
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(store);
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var finished = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 3 });
        Assert.Equal("succeeded", (await service.Rest.WaitAsync(finished.JobId)).State);
        var running = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true });
        await service.Rest.WaitForProgressAsync(running.JobId);

        await service.StopAsync();
        await service.StartAgainAsync();

        var interrupted = await service.Rest.WaitAsync(running.JobId);
        Assert.Equal("interrupted", interrupted.State);
        Assert.Contains("stopped", interrupted.Error, StringComparison.Ordinal);
        var kept = await service.GetJsonAsync<Salsa.Hosting.Datasets.DatasetView>($"/api/datasets/{dataset.DatasetId}");
        Assert.Equal(2000, kept.Count);
        var summary = await service.GetJsonAsync<Contracts.Annealing.AnnealingResult>($"/api/annealing/jobs/{finished.JobId}/result");
        Assert.Equal(3, summary.Clustering.Clusters);
        var assignments = await service.Rest.GetByteArrayAsync($"/api/jobs/{finished.JobId}/artifacts/assignments", Token);
        Assert.Equal(2000 * sizeof(int), assignments.Length);
    }

    [Fact]
    public async Task GrpcHealth_ServingAsSoonAsStarted_ThenFollowsTheStoreWithinTwoPeriods()
    {
        // grpc.health.v1 answers from the checks' last results (refreshed every period), filled before the host's start returns.
        await using var postgres = await PostgresServer.StartAsync(Token);
        var store = new TestStore("postgres", new Dictionary<string, string?> { ["ConnectionStrings:salsa"] = postgres.ConnectionString });
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(store);
        var health = new Grpc.Health.V1.Health.HealthClient(service.Grpc);
        async Task<Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus> StatusAsync(string name = "") =>
            (await health.CheckAsync(new Grpc.Health.V1.HealthCheckRequest { Service = name }, cancellationToken: Token)).Status;
        Assert.Equal(Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus.Serving, await StatusAsync());
        Assert.Equal(Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus.Serving, await StatusAsync("salsa.common.v1.Jobs"));

        // Watch pushes each status the checks publish: waited on, not polled.
        using var watch = health.Watch(new Grpc.Health.V1.HealthCheckRequest(), cancellationToken: Token);
        async Task<TimeSpan> UntilAsync(Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus wanted)
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (await watch.ResponseStream.MoveNext(Token).WaitAsync(TimeSpan.FromSeconds(30), Token))
            {
                if (watch.ResponseStream.Current.Status == wanted)
                {
                    return clock.Elapsed;
                }
            }

            throw new InvalidOperationException($"the health watch ended before {wanted}");
        }

        // REST's /health runs the checks on each request and pushes nothing, so it is asked every 50 ms:
        // the cached answer may lag it by about a period, no more.
        async Task<TimeSpan> RestUnhealthyAsync()
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (true)
            {
                using var response = await service.Rest.GetAsync("/health", Token);
                if (response.StatusCode == HttpStatusCode.ServiceUnavailable)
                {
                    return clock.Elapsed;
                }

                await Task.Delay(50, Token);
            }
        }

        await postgres.StopAsync(Token);
        var (grpcDown, restDown) = (UntilAsync(Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus.NotServing), RestUnhealthyAsync());
        var (down, live) = (await grpcDown, await restDown);
        Assert.Equal(Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus.NotServing, await StatusAsync("salsa.common.v1.Jobs"));
        Assert.True(down <= live + 3 * Salsa.Hosting.Rpc.GrpcHealthNames.Period, $"gRPC health said NOT_SERVING after {down}, REST /health unhealthy after {live}");
        await postgres.StartAgainAsync(Token);
        var up = await UntilAsync(Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus.Serving);
        Assert.True(up < TimeSpan.FromSeconds(10), $"serving again after {up}");
    }

    [Fact]
    public async Task StoreDown_AWriteIs503WithRetryAfterNotA500_AndTheSameRequestWorksOnceItIsBack()
    {
        await using var postgres = await PostgresServer.StartAsync(Token);
        var store = new TestStore("postgres", new Dictionary<string, string?> { ["ConnectionStrings:salsa"] = postgres.ConnectionString });
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(store);
        await service.Rest.UploadCsvAsync("name=before&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv()); // the pool holds open connections

        await postgres.StopAsync(Token);
        using (var content = new StringContent(Fixtures.GmmCsv(), System.Text.Encoding.UTF8, "text/csv"))
        using (var refused = await service.Rest.PostAsync("/api/datasets/csv?name=during&kind=dense&dimension=2&weights=true", content, Token))
        {
            Assert.Equal(HttpStatusCode.ServiceUnavailable, refused.StatusCode);
            Assert.Equal(TimeSpan.FromSeconds(5), refused.Headers.RetryAfter?.Delta);
            var detail = await RestCalls.ProblemAsync(refused, 503);
            Assert.Contains("store did not answer", detail, StringComparison.Ordinal);
            Assert.DoesNotContain("Npgsql", detail, StringComparison.Ordinal);
        }

        // The gRPC face says the same with its own status and hint.
        var rpc = Salsa.Hosting.Errors.ServiceErrors.ToRpcException(new Npgsql.NpgsqlException("broken", new IOException("reset")));
        Assert.NotNull(rpc);
        Assert.Equal(StatusCode.Unavailable, rpc.StatusCode);
        Assert.Equal("5000", rpc.Trailers.GetValue("retry-after-ms"));

        await postgres.StartAgainAsync(Token);
        var after = await service.Rest.UploadCsvAsync("name=after&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        Assert.Equal(2000, after.Count);
        Assert.DoesNotContain(await service.GetJsonAsync<List<Salsa.Hosting.Datasets.DatasetView>>("/api/datasets"), d => d.Name == "during");
    }

    [Fact]
    public async Task QueueFull_RefusesWithRetryHint_OnBothFaces()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory), new Dictionary<string, string?>
        {
            ["Salsa:Limits:JobQueueDepth"] = "1",
            ["Salsa:Limits:ConcurrentJobs"] = "1",
            ["Salsa:Limits:RetryAfter"] = "00:00:03",
        });
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var slow = new { datasetId = dataset.DatasetId, maxClusters = 5, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true };
        var running = await service.Rest.StartJobAsync("/api/annealing/jobs", slow);
        await service.Rest.WaitForProgressAsync(running.JobId);
        var queued = await service.Rest.StartJobAsync("/api/annealing/jobs", slow);

        using var refused = await service.Rest.PostAsJsonAsync("/api/annealing/jobs", slow, Token);
        Assert.Contains("queue is full", await RestCalls.ProblemAsync(refused, 429), StringComparison.Ordinal);
        Assert.Equal(TimeSpan.FromSeconds(3), refused.Headers.RetryAfter?.Delta);
        var rpc = await Assert.ThrowsAsync<RpcException>(async () =>
            await new AnnealingClient(service.Grpc).StartAsync(new() { DatasetId = dataset.DatasetId.ToString(), MaxClusters = 5 }, new CallOptions(cancellationToken: Token)));
        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);
        Assert.Equal("3000", rpc.Trailers.GetValue("retry-after-ms"));

        foreach (var id in new[] { running.JobId, queued.JobId })
        {
            using var cancel = await service.Rest.PostAsync($"/api/jobs/{id}/cancel", null, Token);
            Assert.Equal(HttpStatusCode.OK, cancel.StatusCode);
            Assert.Equal("cancelled", (await service.Rest.WaitAsync(id)).State);
        }
    }

    [Fact]
    public async Task FloodingTenant_FillsOnlyItsShareOfTheJobQueue_AnotherTenantsJobRunsNext()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
            ["Salsa:Limits:JobQueueDepth"] = "6",
            ["Salsa:Limits:MaxQueuedJobsPerTenant"] = "2",
            ["Salsa:Limits:ConcurrentJobs"] = "1",
        });
        var keys = service.Services.GetRequiredService<Salsa.Hosting.Security.ApiKeys>();
        using var flood = Authenticated(service, (await keys.CreateAsync("flood", "flood", [Salsa.Hosting.Security.Scopes.Run], Token)).Key);
        using var other = Authenticated(service, (await keys.CreateAsync("other", "other", [Salsa.Hosting.Security.Scopes.Run], Token)).Key);
        var floodData = await flood.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var otherData = await other.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        // Forty clusters of five blobs: the slow schedule is not cut short when five clusters are
        // reached (about 4 s of it here, under load); every job is cancelled long before its end.
        object Slow(Guid dataset) => new { datasetId = dataset, maxClusters = 40, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true };

        var running = await flood.StartJobAsync("/api/annealing/jobs", Slow(floodData.DatasetId));
        await flood.WaitForProgressAsync(running.JobId);
        var backlog = new[] { await flood.StartJobAsync("/api/annealing/jobs", Slow(floodData.DatasetId)), await flood.StartJobAsync("/api/annealing/jobs", Slow(floodData.DatasetId)) };
        using var refused = await flood.PostAsJsonAsync("/api/annealing/jobs", Slow(floodData.DatasetId), Token);
        Assert.Contains("You have as many annealing jobs waiting as one tenant may queue here: 2 (Salsa:Limits:MaxQueuedJobsPerTenant)", await RestCalls.ProblemAsync(refused, 429), StringComparison.Ordinal);
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await new AnnealingClient(service.Grpc).StartAsync(
            new() { DatasetId = floodData.DatasetId.ToString(), MaxClusters = 5 }, new CallOptions(new Metadata { { "x-api-key", flood.DefaultRequestHeaders.GetValues("X-Api-Key").Single() } }, cancellationToken: Token)));
        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);

        // Accepted, and started at once in the spare slot beside the flooder's, which holds the only one.
        var theirs = await other.StartJobAsync("/api/annealing/jobs", Slow(otherData.DatasetId));
        await other.WaitForProgressAsync(theirs.JobId);
        Assert.Equal("running", (await flood.GetFromJsonAsync<Salsa.Hosting.Jobs.JobView>($"/api/jobs/{running.JobId}", RestCalls.Json, Token))!.State);
        using (var cancel = await flood.PostAsync($"/api/jobs/{running.JobId}/cancel", null, Token))
        {
            Assert.Equal(HttpStatusCode.OK, cancel.StatusCode);
        }

        // Its job cancelled, the flooder runs nothing: its next job takes the slot beside the other
        // tenant's, and its last waits (one tenant never holds two of the two).
        Assert.Equal("cancelled", (await flood.WaitAsync(running.JobId)).State);
        await flood.WaitForProgressAsync(backlog[0].JobId);
        Assert.Equal("queued", (await flood.GetFromJsonAsync<Salsa.Hosting.Jobs.JobView>($"/api/jobs/{backlog[1].JobId}", RestCalls.Json, Token))!.State);
        foreach (var job in backlog)
        {
            using var cancel = await flood.PostAsync($"/api/jobs/{job.JobId}/cancel", null, Token);
            Assert.Equal("cancelled", (await flood.WaitAsync(job.JobId)).State);
        }

        using (var cancel = await other.PostAsync($"/api/jobs/{theirs.JobId}/cancel", null, Token))
        {
            Assert.Equal("cancelled", (await other.WaitAsync(theirs.JobId)).State);
        }
    }

    [Fact]
    public async Task LongJobOfOneTenant_NeverHoldsTheOnlySlotFromAnother_AndStopsAtItsTimeLimit_ReportedFailed()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
            ["Salsa:Limits:ConcurrentJobs"] = "1",
            ["Salsa:Limits:JobTimeLimits:annealing"] = "00:00:15",
        });
        var keys = service.Services.GetRequiredService<Salsa.Hosting.Security.ApiKeys>();
        using var slow = Authenticated(service, (await keys.CreateAsync("slow", "slow", [Salsa.Hosting.Security.Scopes.Run], Token)).Key);
        using var quick = Authenticated(service, (await keys.CreateAsync("quick", "quick", [Salsa.Hosting.Security.Scopes.Run], Token)).Key);
        var slowData = await slow.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var quickData = await quick.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var clock = System.Diagnostics.Stopwatch.StartNew();
        // 200 clusters at 0.9998: minutes of cooling, far past the 15 s limit.
        var running = await slow.StartJobAsync("/api/annealing/jobs", new { datasetId = slowData.DatasetId, maxClusters = 200, coolingFactor = 0.9998, fixedCooling = true });
        await slow.WaitForProgressAsync(running.JobId);

        // Before, the quick tenant's short job waited for the slow one to end (103 s in the report):
        // now it runs beside it and ends while the slow one still computes.
        var short1 = await quick.StartJobAsync("/api/annealing/jobs", new { datasetId = quickData.DatasetId, maxClusters = 3 });
        var shortEnded = await quick.WaitAsync(short1.JobId);
        Assert.Equal("succeeded", shortEnded.State);
        TestContext.Current.TestOutputHelper?.WriteLine($"short job: {shortEnded.QueueMs:F0} ms queued, {shortEnded.ComputeMs:F0} ms computing, at {clock.Elapsed}");
        Assert.Equal("running", (await slow.GetFromJsonAsync<Salsa.Hosting.Jobs.JobView>($"/api/jobs/{running.JobId}", RestCalls.Json, Token))!.State);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(15), $"the short job ended after {clock.Elapsed}");

        // The slow one is stopped at its kind's time limit and says so.
        var ended = await slow.WaitAsync(running.JobId);
        Assert.Equal("failed", ended.State);
        Assert.Equal("The job computed for its time limit of 00:00:15 (Salsa:Limits:JobTimeLimits:annealing) without ending, and was stopped.", ended.Error);
        Assert.InRange(clock.Elapsed, TimeSpan.FromSeconds(15), TimeSpan.FromMinutes(1));
        Assert.Contains("time limit", await slow.GetStringAsync($"/api/jobs/{running.JobId}/log", Token), StringComparison.Ordinal);
    }

    private static HttpClient Authenticated(ServiceUnderTest<AnnealingService> service, string key)
    {
        var client = new HttpClient { BaseAddress = service.Ports.RestAddress, Timeout = TimeSpan.FromMinutes(2) };
        client.DefaultRequestHeaders.Add("X-Api-Key", key);
        return client;
    }

    [Fact]
    public async Task DeleteDataset_WhileAJobUsesIt_409AndTheJobCompletes_ThenDeleted()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory));
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        // Long enough to be still running at both deletes (about 0.8 s here; at 0.97 it was 0.15 s,
        // most of it gone by the first progress report), short enough to wait for.
        var running = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 4, coolingFactor = 0.9995, fixedCooling = true });
        await service.Rest.WaitForProgressAsync(running.JobId);

        using var refused = await service.Rest.DeleteAsync($"/api/datasets/{dataset.DatasetId}", Token);
        Assert.Contains($"in use by annealing job {running.JobId}", await RestCalls.ProblemAsync(refused, 409), StringComparison.Ordinal);
        var rpc = await Assert.ThrowsAsync<RpcException>(async () =>
            await new DatasetsClient(service.Grpc).DeleteAsync(new() { DatasetId = dataset.DatasetId.ToString() }, new CallOptions(cancellationToken: Token)));
        Assert.Equal(StatusCode.FailedPrecondition, rpc.StatusCode);

        Assert.Equal("succeeded", (await service.Rest.WaitAsync(running.JobId)).State);
        using var deleted = await service.Rest.DeleteAsync($"/api/datasets/{dataset.DatasetId}", Token);
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        using var gone = await service.Rest.GetAsync($"/api/datasets/{dataset.DatasetId}", Token);
        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
    }
}
