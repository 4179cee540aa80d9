using System.Diagnostics;
using Grpc.Core;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// What a job's work used (<c>resources</c> on <c>GET /api/jobs/{id}</c> and <c>Jobs.Get</c>): its own
/// CPU time and allocations — two jobs at once in one process are each charged their own, never
/// more than the process used in all — the cores it computed on, the process's peak memory and how
/// many jobs shared it; kept in the store, said in the job's log.
/// </summary>
public sealed class JobResourcesTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TwoJobsAtOnce_EachChargedItsOwnCpu_TogetherNoMoreThanTheProcessUsed_SameOnBothFaces_KeptInTheStore()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory), new Dictionary<string, string?>
        {
            ["Salsa:Limits:ConcurrentJobs"] = "2",
            ["Salsa:Limits:MaxRunningJobsPerTenant"] = "2",
        });
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        using var process = Process.GetCurrentProcess();
        var processCpuBefore = process.TotalProcessorTime;

        var slow = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true });
        await service.Rest.WaitForProgressAsync(slow.JobId);
        var quick = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 3 });
        var quickEnded = await service.Rest.WaitAsync(quick.JobId);
        var slowEnded = await service.Rest.WaitAsync(slow.JobId);
        process.Refresh();
        var processCpu = (process.TotalProcessorTime - processCpuBefore).TotalMilliseconds;

        Assert.Equal("succeeded", quickEnded.State);
        Assert.Equal("succeeded", slowEnded.State);
        foreach (var job in new[] { quickEnded, slowEnded })
        {
            var used = job.Resources ?? throw new Xunit.Sdk.XunitException($"job {job.JobId} ended without its resources");
            Assert.NotNull(used.CpuMs);
            Assert.True(used.CpuMs > 0, $"CPU {used.CpuMs} ms");
            // Its own threads can do no more than every core of the machine for as long as it computed.
            Assert.True(used.CpuMs <= (job.ComputeMs * Environment.ProcessorCount) + 50, $"CPU {used.CpuMs:F0} ms in {job.ComputeMs:F0} ms on {Environment.ProcessorCount} cores");
            Assert.True(used.AllocatedBytes > 0);
            Assert.InRange(used.Cores ?? 0, 1, Environment.ProcessorCount);
            Assert.True(used.PeakMemoryBytes > 16L << 20, $"peak {used.PeakMemoryBytes:N0} B");
            Assert.Null(used.GridCpuMs); // computed in the service's process, not on a grid
        }

        // The quick job started while the slow one computed: the process ran both (and whatever other
        // tests of this process ran meanwhile).
        Assert.True(quickEnded.Resources!.ProcessJobs >= 2, $"{quickEnded.Resources.ProcessJobs} jobs");

        // Charged apart: the two accounts together are within what the whole process used (the test's
        // own calls included); a job charged its neighbour's work would count the overlap twice.
        Assert.True(quickEnded.Resources.CpuMs + slowEnded.Resources!.CpuMs <= processCpu + 20,
            $"jobs {quickEnded.Resources.CpuMs:F0} + {slowEnded.Resources.CpuMs:F0} ms of CPU, the process {processCpu:F0} ms");

        // The job's log says it in words (the log is kept in memory: read before the restart).
        var log = await service.Rest.GetStringAsync($"/api/jobs/{quick.JobId}/log", Token);
        Assert.Contains("used: ", log, StringComparison.Ordinal);
        Assert.Matches(@"with [2-9][0-9]* jobs running", log);
        TestContext.Current.TestOutputHelper?.WriteLine($"slow: {slowEnded.Resources} in {slowEnded.ComputeMs:F0} ms; quick: {quickEnded.Resources} in {quickEnded.ComputeMs:F0} ms; the process {processCpu:F0} ms of CPU");

        // The same over gRPC, and from the store once the service started again.
        var grpc = await new JobsClient(service.Grpc).GetAsync(new JobRef { JobId = slow.JobId.ToString() }, new CallOptions(cancellationToken: Token));
        Assert.Equal(slowEnded.Resources, JobResourcesView.FromProto(grpc.Resources));
        await service.StopAsync();
        await service.StartAgainAsync();
        var stored = await service.GetJsonAsync<JobView>($"/api/jobs/{slow.JobId}");
        Assert.Equal(slowEnded.Resources, stored.Resources);

    }
}
