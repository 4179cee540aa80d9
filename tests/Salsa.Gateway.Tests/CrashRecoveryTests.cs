using System.Net.Http.Json;
using System.Text.Json;
using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway as its own process, killed outright (SIGKILL: no shutdown code runs) in the middle of
/// a run: the next process finds the run in the store and resumes it. Nothing vanishes.
/// </summary>
public sealed class CrashRecoveryTests
{
    [Fact]
    public async Task GatewayKilledMidRun_NextProcessResumesTheRun()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        Guid id;
        using (var first = await GatewayProcess.StartAsync(store, token))
        {
            using var started = await first.Http.PostAsJsonAsync("/api/runs", new { workflow = "census-indiana" }, token);
            id = JsonDocument.Parse(await started.Content.ReadAsStringAsync(token)).RootElement.GetProperty("id").GetGuid();
            await WaitForClusterProgressAsync(first.Http, id, token);
            first.Kill();
        }

        using var second = await GatewayProcess.StartAsync(store, token);
        var run = await FinalRunAsync(second.Http, id, token);

        Assert.Equal("succeeded", run.GetProperty("state").GetString());
        Assert.Equal(1, run.GetProperty("resumes").GetInt32());
        var steps = run.GetProperty("steps").EnumerateArray().ToDictionary(s => s.GetProperty("id").GetString()!);
        Assert.True(steps["import"].GetProperty("reused").GetBoolean());
        Assert.True(steps["query"].GetProperty("reused").GetBoolean());
        Assert.Equal(3, run.GetProperty("artifacts").GetArrayLength());
    }

    [Fact]
    public async Task GatewayKilledMidStep_ResumedRunWatchesTheSameRemoteJob_HopsKept()
    {
        // The annealing service runs apart from the gateway (and outlives it): the job the killed
        // gateway started keeps computing; the next gateway must take it up, not start a second.
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        await using var annealing = await Standalone.StartAsync<Salsa.Annealing.AnnealingService>(store, token);
        var remote = $"--Gateway:Services:annealing={annealing.Ports.GrpcAddress}";
        Guid id;
        JsonElement before;
        using (var first = await GatewayProcess.StartAsync(store, token, remote))
        {
            using var started = await first.Http.PostAsJsonAsync("/api/runs", new { workflow = "census-indiana" }, token);
            id = JsonDocument.Parse(await started.Content.ReadAsStringAsync(token)).RootElement.GetProperty("id").GetGuid();
            await WaitForClusterProgressAsync(first.Http, id, token);
            before = JsonDocument.Parse(await first.Http.GetStringAsync($"/api/runs/{id}", token)).RootElement.Clone();
            first.Kill();
        }

        using var second = await GatewayProcess.StartAsync(store, token, remote);
        var run = await FinalRunAsync(second.Http, id, token);

        Assert.Equal("succeeded", run.GetProperty("state").GetString());
        var job = Assert.Single(Step(before, "cluster").GetProperty("jobs").EnumerateArray()).GetProperty("jobId").GetString();
        Assert.Equal(job, Assert.Single(Step(run, "cluster").GetProperty("jobs").EnumerateArray()).GetProperty("jobId").GetString());
        var jobs = await new Salsa.Contracts.Clients.JobsClient(annealing.Channel).ListAsync(new Salsa.Contracts.Common.ListJobsRequest { Limit = 10 }, cancellationToken: token);
        Assert.Equal([job], jobs.Jobs.Select(j => j.JobId));

        // The hops of the first process (its start of the job) are in the run, then the second's.
        var hops = run.GetProperty("hops").EnumerateArray().Where(h => h.GetProperty("step").GetString() == "cluster").Select(h => h.GetProperty("operation").GetString()).ToList();
        Assert.Equal(["Start", "Jobs.Get", "Jobs.Watch", "GetResult", "Jobs.Get"], hops); // the last: its files, for their digests
        Assert.All(before.GetProperty("hops").EnumerateArray(), h => Assert.Contains(run.GetProperty("hops").EnumerateArray(), k => k.ToString() == h.ToString()));
    }

    [Fact]
    public async Task GatewayKilledMidRun_TheOpenPageResumesItsStreams_AndShowsTheRunEnd()
    {
        // A browser follows a run (and the runs list) over server-sent events; the gateway is killed
        // and started again on the same ports: the page must go back to live streams by itself, not
        // stay on polling, and show the resumed run to its end.
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromMinutes(5));
        var token = timeout.Token;
        var browserDirectory = await WebUiTests.BrowserDirectoryAsync(token);
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var signal = directory.Combine("following");
        var first = await GatewayProcess.StartAsync(store, ports, token);
        var browser = ExternalProgram.RunAsync("node", browserDirectory, ["restart-test.mjs", ports.RestAddress.ToString(), "census-indiana", signal, "180"], token);
        try
        {
            // The page started the run and follows it live: kill the gateway once the annealing reports progress.
            // The script writes the run's id into the signal file: woken by the file's events, not a clock.
            var written = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            using var watcher = new FileSystemWatcher(directory.Path, Path.GetFileName(signal)) { NotifyFilter = NotifyFilters.FileName | NotifyFilters.Size | NotifyFilters.LastWrite };
            void Look()
            {
                if (File.Exists(signal) && new FileInfo(signal).Length > 0)
                {
                    written.TrySetResult();
                }
            }

            watcher.Created += (_, _) => Look();
            watcher.Changed += (_, _) => Look();
            watcher.EnableRaisingEvents = true;
            Look(); // written before the watcher started
            if (await Task.WhenAny(written.Task, browser).WaitAsync(token) == browser)
            {
                var ended = await browser;
                Assert.Fail($"the browser script ended before following a run:\n{ended.Output}\n{ended.Error}");
            }

            var id = Guid.Parse(File.ReadAllText(signal).Trim());
            await WaitForClusterProgressAsync(first.Http, id, token);
            first.Kill();
        }
        finally
        {
            first.Dispose();
        }

        using var second = await GatewayProcess.StartAsync(store, ports, token);
        var (exitCode, output, error) = await browser;
        TestContext.Current.TestOutputHelper?.WriteLine(output);

        Assert.True(exitCode == 0, $"node restart-test.mjs exited with {exitCode}:\n{output}\n{error}");
        using var summary = JsonDocument.Parse(output);
        var root = summary.RootElement;
        Assert.Equal("succeeded", root.GetProperty("state").GetString());
        Assert.Equal("1", root.GetProperty("resumes").GetString());
        Assert.True(root.GetProperty("runStreams").GetInt32() >= 2, "the run's stream was not opened again");
        Assert.True(root.GetProperty("listStreams").GetInt32() >= 2, "the runs list's stream was not opened again");
    }

    private static JsonElement Step(JsonElement run, string id) =>
        run.GetProperty("steps").EnumerateArray().Single(s => s.GetProperty("id").GetString() == id);

    private static async Task WaitForClusterProgressAsync(HttpClient http, Guid id, CancellationToken token)
    {
        await foreach (var (name, data) in EventsAsync(http, id, token))
        {
            if (name == "progress" && data.GetProperty("step").GetString() == "cluster")
            {
                return;
            }
        }

        Assert.Fail("The run ended before its annealing reported progress.");
    }

    /// <summary>The run as its event stream's last <c>run</c> event gives it (the stream ends with the run).</summary>
    private static async Task<JsonElement> FinalRunAsync(HttpClient http, Guid id, CancellationToken token)
    {
        JsonElement? last = null;
        await foreach (var (name, data) in EventsAsync(http, id, token))
        {
            if (name == "run")
            {
                last = data;
            }
        }

        return last ?? throw new Xunit.Sdk.XunitException("The run's event stream had no run event.");
    }

    private static IAsyncEnumerable<(string Name, JsonElement Data)> EventsAsync(HttpClient http, Guid id, CancellationToken token) =>
        ServerSentEventsReader.ReadAsync(http, $"/api/runs/{id}/events", token);
}
