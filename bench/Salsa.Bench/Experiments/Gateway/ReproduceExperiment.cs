using System.Globalization;
using System.Text.Json;
using Salsa.Bench.Harness;
using Salsa.Gateway.Runs;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Gateway;

/// <summary>
/// Runs anyone can reproduce: census-indiana, census-us and chem-40k run once on the embedded
/// deployment (a gateway with its services and its one silo in one process, SQLite), each then
/// reproduced there (<c>POST /api/runs/{id}/reproduce</c>), and each recorded run reproduced from
/// its view (its <c>result.json</c>) on another deployment: a gateway whose services compute on a
/// cluster of three silo processes sharing one PostgreSQL. Every output of every step and every
/// file the run keeps is compared by its SHA-256.
/// </summary>
public sealed class ReproduceExperiment : IExperiment
{
    private static readonly string[] Workflows = ["census-indiana", "census-us", "chem-40k"];
    private static readonly JsonSerializerOptions Indented = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    public string Name => "reproduce";

    public string Description => "census-indiana, census-us and chem-40k recorded on the embedded silo, reproduced there and on three silo processes (PostgreSQL): every output and file compared by SHA-256.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var workflows = context.Quick ? Workflows.Where(w => w != "census-us").ToArray() : Workflows;
        var recorded = new Dictionary<string, RunView>();
        var rows = new Dictionary<string, List<string>>();

        await using (var embedded = await GatewayHost.StartAsync(new Dictionary<string, string?> { ["Cluster:Enabled"] = "true" }, cancellationToken))
        {
            foreach (var workflow in workflows)
            {
                var run = await RunAsync(embedded, await embedded.Runs.SubmitAsync(new RunRequest { Workflow = workflow }, cancellationToken), cancellationToken);
                if (run.State != RunState.Succeeded)
                {
                    throw new InvalidOperationException($"{workflow} {run.State}: {run.Error}");
                }

                recorded[workflow] = run;
                if (workflow == "census-indiana" && !context.Quick)
                {
                    // A run recorded here that anyone reproduces on their machine (README; FreshCloneTests).
                    var file = Path.Combine(context.ResultsDirectory, "reproduce", "census-indiana.result.json");
                    Directory.CreateDirectory(Path.GetDirectoryName(file)!);
                    await File.WriteAllTextAsync(file, JsonSerializer.Serialize(run, Indented) + "\n", cancellationToken);
                }

                var again = await RunAsync(embedded, await embedded.Runs.ReproduceAsync(run.Id, cancellationToken), cancellationToken);
                rows[workflow] = [workflow, Seconds(run), Outputs(again), Verdict(again), Seconds(again)];
                Report(context, workflow, "embedded", again);
            }
        }

        await using var postgres = await PostgresServer.StartAsync(cancellationToken);
        var connectionString = await postgres.CreateDatabaseAsync("reproduce", cancellationToken);
        var clusterId = $"reproduce-{Guid.NewGuid():N}";
        var ranks = ProcessCluster.RanksSharing(3);
        var silos = await Task.WhenAll(Enumerable.Range(0, 3).Select(_ => SiloProcess.StartAsync(connectionString, clusterId, cancellationToken,
            settings: [string.Create(CultureInfo.InvariantCulture, $"--Cluster:Ranks={ranks}")])));
        try
        {
            await using var grid = await GatewayHost.StartAsync(new Dictionary<string, string?>
            {
                ["ConnectionStrings:salsa"] = connectionString,
                ["Cluster:Enabled"] = "true",
                ["Cluster:Role"] = "client",
                ["Cluster:Id"] = clusterId,
            }, cancellationToken);
            foreach (var workflow in workflows)
            {
                var again = await RunAsync(grid, await grid.Runs.ReproduceAsync(recorded[workflow], cancellationToken), cancellationToken);
                rows[workflow].AddRange([Verdict(again), Seconds(again), Placement(again)]);
                Report(context, workflow, "three-silos", again);
            }
        }
        finally
        {
            foreach (var silo in silos)
            {
                silo.Dispose();
            }
        }

        context.Section("Reproduced runs", string.Create(CultureInfo.InvariantCulture,
            $"Each workflow as shipped, run once on the embedded deployment (the gateway, its services and one silo in this process; SQLite), then reproduced: by its id on the same deployment, and from the recorded run's view (what `result.json` holds) on a gateway whose services compute on three silo processes (PostgreSQL membership and store, {ranks} rank(s) each, on this {Environment.ProcessorCount}-core machine). ") +
            "A reproduction runs the recorded workflow text with every step's recorded parameters and compares the SHA-256 of every step output (a dataset's content, a job's files, a value's JSON; a grid job's placement says where it ran and is not compared) and of every file the run keeps. " +
            "*identical* means every one of them is the recorded one, byte for byte.");
        context.Table(["workflow", "recorded run, s", "outputs + files", "embedded", "s", "three silos", "s", "where the clustering ran (three silos)"], rows.Values);
    }

    private static async Task<RunView> RunAsync(GatewayHost host, RunView started, CancellationToken cancellationToken) =>
        await host.Runs.WaitAsync(started.Id, cancellationToken);

    private static void Report(ExperimentContext context, string workflow, string topology, RunView run)
    {
        var reproduction = run.Reproduction!;
        var @case = $"workflow={workflow},deployment={topology}";
        context.Add(@case, "identical", reproduction.Identical == true ? 1 : 0, "bool");
        context.Add(@case, "outputs_compared", reproduction.Outputs.Count, "");
        context.Add(@case, "outputs_differing", reproduction.Outputs.Count(o => !o.Identical), "");
        context.Add(@case, "run_seconds", (run.Finished!.Value - run.Started!.Value).TotalSeconds, "s");
        foreach (var output in reproduction.Outputs.Where(o => !o.Identical))
        {
            context.Console.WriteLine($"  differs: {output.Step}.{output.Name} recorded {output.Recorded} reproduced {output.Reproduced}");
        }
    }

    private static string Outputs(RunView run) => run.Reproduction!.Outputs.Count.ToString(CultureInfo.InvariantCulture);

    private static string Verdict(RunView run) => run.Reproduction switch
    {
        { Identical: true } => "**identical**",
        { FirstDifference: { } step } r => $"differs from step `{step}`: {string.Join(", ", r.Outputs.Where(o => !o.Identical).Select(o => $"{o.Step}.{o.Name}"))}",
        _ => $"not reproduced ({run.State}: {run.Error})",
    };

    private static string Seconds(RunView run) => ((run.Finished ?? DateTimeOffset.UtcNow) - (run.Started ?? run.Created)).TotalSeconds.ToString("F1", CultureInfo.InvariantCulture);

    /// <summary>Where each clustering step's grid job ran (its placement row: partitions and silos), or that it ran in its service.</summary>
    private static string Placement(RunView run)
    {
        var placed = run.Steps
            .Select(s => (s.Id, Row: (s.Outputs?["placement"] as System.Text.Json.Nodes.JsonArray)?.FirstOrDefault()))
            .Where(s => s.Row is not null)
            .Select(s => string.Create(CultureInfo.InvariantCulture,
                $"{s.Id}: {s.Row!["partitions"]} partitions on {s.Row["silos"]!.ToString().Split(' ', StringSplitOptions.RemoveEmptyEntries).Length} silos"))
            .ToList();
        return placed.Count == 0 ? "in the services (no grid job)" : string.Join("; ", placed);
    }
}
