using System.Collections.Concurrent;
using System.Net;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Salsa.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// A job's log (<c>GET /api/jobs/{id}/log</c>, <c>Jobs.GetLog</c>): its life in order, the same over
/// REST and gRPC, its end when cancelled, a clear 404 for a job it does not hold; and, under
/// contention, every line in the log of the job whose flow logged it and none in another's.
/// </summary>
public sealed class JobLogTests
{
    // Warnings: the services under test log Warning and above (ServiceUnderTest).
    private static readonly Action<ILogger, int, int, int, Exception?> LogTrialLine =
        LoggerMessage.Define<int, int, int>(LogLevel.Warning, new EventId(1), "thread {Thread} trial {Trial} line {Line}");

    private static readonly Action<ILogger, Exception?> LogOutside = LoggerMessage.Define(LogLevel.Warning, new EventId(2), "outside any job");

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task SucceededJob_LogsAcceptedStartedEachPhaseSucceeded_InOrder_SameOverRestAndGrpc()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory));
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 4 });
        Assert.Equal("succeeded", (await service.Rest.WaitAsync(job.JobId)).State);

        using var response = await service.Rest.GetAsync($"/api/jobs/{job.JobId}/log", Token);
        await RestCalls.EnsureAsync(response);
        Assert.Equal("text/plain", response.Content.Headers.ContentType?.MediaType);
        var lines = (await response.Content.ReadAsStringAsync(Token)).TrimEnd('\n').Split('\n');
        var grpc = await new JobsClient(service.Grpc).GetLogAsync(new JobRef { JobId = job.JobId.ToString() }, GrpcCalls.Options);

        Assert.Equal(lines, grpc.Lines);
        Assert.Equal(0, grpc.DroppedLines);
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info  job: accepted: annealing$", lines[0]);
        Assert.Matches(@" info  job: started after [0-9.]+ ms in the queue$", lines[1]);
        Assert.Matches(@" info  job: used: [0-9.]+ ms of CPU( on [0-9]+ cores?)?, [0-9.]+ MiB allocated; the process peaked at [0-9.]+ MiB with [0-9]+ jobs? running$", lines[^2]);
        Assert.Matches(@" info  job: succeeded after [0-9.]+ ms of compute$", lines[^1]);
        var phases = lines[2..^2].Where(l => l.Contains(" job: phase ", StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(phases);

        // Each line is a new phase: never the same phase twice running.
        var names = phases.Select(l => l.Split(" job: phase ")[1].Split(" (")[0]).ToList();
        Assert.All(names.Zip(names.Skip(1)), pair => Assert.NotEqual(pair.First, pair.Second));
        var times = lines.Select(l => DateTimeOffset.Parse(l[..24], System.Globalization.CultureInfo.InvariantCulture)).ToList();
        Assert.Equal(times.Order(), times);
    }

    [Fact]
    public async Task CancelledJob_EndsCancelled_UnknownJobIsA404NamingTheJob()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory));
        var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await service.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5, coolingFactor = Fixtures.SlowCoolingFactor, fixedCooling = true });
        await service.Rest.WaitForProgressAsync(job.JobId);
        (await service.Rest.PostAsync($"/api/jobs/{job.JobId}/cancel", null, Token)).EnsureSuccessStatusCode();
        Assert.Equal("cancelled", (await service.Rest.WaitAsync(job.JobId)).State);

        var log = await service.Rest.GetStringAsync($"/api/jobs/{job.JobId}/log", Token);
        Assert.Matches(@" warn  job: cancelled after [0-9.]+ ms of compute: Cancelled\.\n$", log);

        var unknown = Guid.NewGuid();
        using var missing = await service.Rest.GetAsync($"/api/jobs/{unknown}/log", Token);
        Assert.Contains(unknown.ToString(), await RestCalls.ProblemAsync(missing, 404), StringComparison.Ordinal);
        await GrpcCalls.FailsWithAsync(StatusCode.NotFound, () => new JobsClient(service.Grpc).GetLogAsync(new JobRef { JobId = unknown.ToString() }, GrpcCalls.Options).ResponseAsync);
        using var bad = await service.Rest.GetAsync("/api/jobs/not-a-job/log", Token);
        Assert.Equal(HttpStatusCode.BadRequest, bad.StatusCode);
    }

    [Fact]
    public async Task ManyFlowsLoggingAtOnce_EachLineInItsOwnJobsLog_OldestLetGoPastTheLimit()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory));
        var logs = service.Services.GetRequiredService<JobManager>().Logs;
        var logger = service.Services.GetRequiredService<ILoggerFactory>().CreateLogger("Salsa.Tests.Contention");
        const int Threads = 16;
        const int Trials = 250;
        const int Lines = 8;
        var opened = new ConcurrentQueue<(Guid Id, int Thread, int Trial)>();

        await Task.WhenAll(Enumerable.Range(0, Threads).Select(thread => Task.Run(async () =>
        {
            for (var trial = 0; trial < Trials; trial++)
            {
                var id = Guid.NewGuid();
                var log = logs.Open(id);
                opened.Enqueue((id, thread, trial));
                using (JobLogs.Enter(log))
                {
                    for (var line = 0; line < Lines; line++)
                    {
                        LogTrialLine(logger, thread, trial, line, null);
                        await Task.Yield(); // the flow moves between pool threads; its lines follow it
                    }
                }

                LogOutside(logger, null); // no job's line
                Assert.Equal(
                    Enumerable.Range(0, Lines).Select(line => $"thread {thread} trial {trial} line {line}"),
                    log.Lines.Select(l => l.Split("Contention: ")[1]));
            }
        }, Token)));

        var held = opened.Where(o => logs.Get(o.Id) is not null).ToList();
        Assert.InRange(held.Count, JobLogs.MaxJobs - Threads, JobLogs.MaxJobs);
        Assert.All(held, o => Assert.Equal(Lines, logs.Get(o.Id)!.Lines.Count));
        Assert.Null(logs.Get(opened.First().Id));
    }
}
