using System.Diagnostics;
using System.Text.Json;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Gateway.Embedded;
using Salsa.Gateway.Hops;
using Salsa.Grpc;
using Spectre.Console;

namespace Salsa.Gateway.Runs;

/// <summary>What a census clustering run is asked to do.</summary>
public sealed record CensusClusteringOptions(string Source = "indiana", int MaxClusters = 20, string OutputRoot = "out");

/// <summary>What a census clustering run wrote.</summary>
public sealed record CensusClusteringOutcome(Guid RunId, string Directory, IReadOnlyList<Hop> Hops);

/// <summary>
/// Census block groups → population-weighted deterministic annealing, through the Census and
/// Annealing services over gRPC, every hop traced: import, query (planar km, population weights),
/// start, watch (live progress), result, assignments. Writes <c>result.json</c> and the assignments.
/// </summary>
public static class CensusClusteringRun
{
    private static readonly JsonSerializerOptions s_json = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    public static async Task<CensusClusteringOutcome> RunAsync(EmbeddedServices services, CensusClusteringOptions options, IAnsiConsole console, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(console);
        var runId = Guid.NewGuid();
        var hops = new HopRecorder();
        var census = new CensusClient(services.Channel("census"));
        var annealing = new AnnealingClient(services.Channel("annealing"));
        var jobs = new JobsClient(services.Channel("annealing"));

        var imported = await hops.CallAsync("census", "Import", new ImportCensusRequest { Source = options.Source }, census.ImportAsync, cancellationToken);
        var points = await hops.CallAsync("census", "Query", new QueryCensusRequest { DatasetId = imported.DatasetId, SkipUnpopulated = true }, census.QueryAsync, cancellationToken);
        console.MarkupLineInterpolated($"[grey]{points.Count:N0} populated block groups of [bold]{options.Source}[/] → dataset {points.DatasetId}[/]");

        var job = await hops.CallAsync("annealing", "Start", new StartAnnealingRequest { DatasetId = points.DatasetId, MaxClusters = options.MaxClusters }, annealing.StartAsync, cancellationToken);
        var final = await WatchAsync(jobs, job.JobId, options.MaxClusters, hops, console, cancellationToken);
        if (final.State != JobState.Succeeded)
        {
            throw new InvalidOperationException($"The annealing job ended {final.State}: {final.Error}");
        }

        var result = await hops.CallAsync("annealing", "GetResult", new JobRef { JobId = job.JobId }, annealing.GetResultAsync, cancellationToken);
        var clock = Stopwatch.GetTimestamp();
        var start = DateTimeOffset.UtcNow;
        var (assignments, _) = await jobs.DownloadArtifactAsync(job.JobId, "assignments", new CallOptions(CancellationToken: cancellationToken));
        hops.Add(new Hop("annealing", "Jobs.DownloadArtifact", start, Stopwatch.GetElapsedTime(clock).TotalMilliseconds, null, null, null, 0, assignments.Length, 0, "ok"));

        var directory = Path.GetFullPath(Path.Combine(options.OutputRoot, runId.ToString()));
        Directory.CreateDirectory(directory);
        await File.WriteAllBytesAsync(Path.Combine(directory, "assignments.bin"), assignments, cancellationToken);
        var summary = new
        {
            runId,
            workflow = "census-clustering",
            source = options.Source,
            points = points.Count,
            pointsDatasetId = points.DatasetId,
            jobId = job.JobId,
            clusters = Enumerable.Range(0, result.Clusters).Select(k => new
            {
                cluster = k,
                centreKm = new[] { result.Centres[2 * k], result.Centres[2 * k + 1] },
                population = result.ClusterWeights[k],
                blockGroups = result.ClusterSizes[k],
            }),
            weightedCost = result.WeightedCost,
            iterations = result.Iterations,
            trajectory = result.Trajectory.Select(s => new { s.Temperature, s.Clusters, s.FreeEnergy }),
            hops = hops.Hops,
        };
        await File.WriteAllTextAsync(Path.Combine(directory, "result.json"), JsonSerializer.Serialize(summary, s_json), cancellationToken);
        return new CensusClusteringOutcome(runId, directory, hops.Hops);
    }

    private static async Task<JobInfo> WatchAsync(JobsClient jobs, string jobId, int maxClusters, HopRecorder hops, IAnsiConsole console, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.GetTimestamp();
        var start = DateTimeOffset.UtcNow;
        JobInfo? final = null;
        await console.Progress()
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn())
            .StartAsync(async progress =>
            {
                var bar = progress.AddTask("annealing", maxValue: maxClusters);
                final = await jobs.WatchToEndAsync(jobId, e =>
                {
                    if (e.Progress is { } p)
                    {
                        bar.Value = Math.Min(p.Clusters, maxClusters);
                        bar.Description = string.Create(System.Globalization.CultureInfo.InvariantCulture,
                            $"annealing  T={p.Temperature:G4}  K={p.Clusters}  F={p.Objective:G6}");
                    }
                }, new CallOptions(CancellationToken: cancellationToken));
                bar.Value = maxClusters;
            });
        hops.Add(new Hop("annealing", "Jobs.Watch", start, Stopwatch.GetElapsedTime(clock).TotalMilliseconds,
            final!.QueueMs + final.ComputeMs, final.QueueMs, final.ComputeMs, 0, 0, 0, final.State.ToString().ToLowerInvariant()));
        return final;
    }
}
