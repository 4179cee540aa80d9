using System.Diagnostics;
using System.Runtime;
using Salsa.Bench.Experiments;
using Salsa.Bench.Experiments.Gateway;
using Salsa.Bench.Experiments.Large;
using Salsa.Bench.Experiments.Services;
using Salsa.Bench.Harness;

if (args is ["--serve", ..])
{
    return await ServiceProcess.ServeAsync(args);
}

if (args is ["--generate", ..])
{
    return await CensusLikePoints.GenerateAsync(args);
}

IExperiment[] experiments =
[
    new DatasetsExperiment(),
    new ChemFingerprintsExperiment(),
    new ChemUploadExperiment(),
    new ExchangeLatencyExperiment(),
    new ExchangeUnderLoadExperiment(),
    new CcrStagesExperiment(),
    new CacheLineExperiment(),
    new BandwidthExperiment(),
    new KernelScalingExperiment(),
    new FluctuationsExperiment(),
    new ParallelOverheadExperiment(),
    new KernelThroughputExperiment(),
    new CensusAnnealingExperiment(),
    new ClusteringPeersExperiment(),
    new ChemAnnealingExperiment(),
    new ChemWorkflowExperiment(),
    new GridExperiment(),
    new OneSiloExperiment(),
    new LargeDataExperiment(),
    new ElasticExperiment(),
    new ServicesExperiment(),
    new GatewayExperiment(),
    new ReliabilityExperiment(),
    new ReproduceExperiment(),
];

var quick = args.Contains("--quick");
var outIndex = Array.IndexOf(args, "--out");
var resultsDirectory = outIndex >= 0 && outIndex + 1 < args.Length ? args[outIndex + 1] : FindResultsDirectory();
var names = args.Where((a, i) => !a.StartsWith("--", StringComparison.Ordinal) && (outIndex < 0 || i != outIndex + 1)).ToList();

if (names.Count == 0)
{
    Console.WriteLine("usage: dotnet run -c Release --project bench/Salsa.Bench -- <experiment>... [--quick] [--out <dir>]");
    Console.WriteLine("       dotnet run -c Release --project bench/Salsa.Bench -- all [--quick]");
    Console.WriteLine();
    foreach (var e in experiments)
    {
        Console.WriteLine($"  {e.Name,-20} {e.Description}");
    }

    return 2;
}

var selected = names.Contains("all") ? experiments : names.Select(n => experiments.FirstOrDefault(e => e.Name == n)).ToArray();
if (selected.Any(e => e is null))
{
    Console.Error.WriteLine($"unknown experiment: {string.Join(", ", names.Where(n => experiments.All(e => e.Name != n)))}");
    return 2;
}

#if DEBUG
Console.Error.WriteLine("warning: a Debug build; benchmark figures need -c Release.");
#endif
GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
using var cancellation = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; cancellation.Cancel(); };

foreach (var experiment in selected)
{
    Console.WriteLine($"== {experiment!.Name}{(quick ? " (quick)" : "")}: {experiment.Description}");
    var context = new ExperimentContext(experiment.Name, quick, resultsDirectory, Console.Out);
    var start = Stopwatch.GetTimestamp();
    await experiment.RunAsync(context, cancellation.Token);
    context.Write(experiment.Description, Stopwatch.GetElapsedTime(start));
    Console.WriteLine($"   wrote {context.FilePath(".json")} and {context.FilePath(".md")}");
}

return 0;

static string FindResultsDirectory()
{
    for (var dir = new DirectoryInfo(Directory.GetCurrentDirectory()); dir is not null; dir = dir.Parent)
    {
        if (File.Exists(Path.Combine(dir.FullName, "Salsa.Services.sln")))
        {
            return Path.Combine(dir.FullName, "bench", "results");
        }
    }

    return Path.Combine(Directory.GetCurrentDirectory(), "results");
}
