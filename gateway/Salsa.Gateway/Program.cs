using Salsa.Annealing;
using Salsa.Census;
using Salsa.Gateway.Embedded;
using Salsa.Gateway.Runs;
using Spectre.Console;

// dotnet run -c Release --project gateway/Salsa.Gateway -- run census-indiana [--kmax 20] [--out out]
if (args is not ["run", var workflow, ..] || workflow is not ("census-indiana" or "census-us"))
{
    Console.Error.WriteLine("usage: Salsa.Gateway run census-indiana|census-us [--kmax N] [--out DIR]");
    return 2;
}

string? Option(string name) => Array.IndexOf(args, name) is var i and >= 0 && i + 1 < args.Length ? args[i + 1] : null;
var options = new CensusClusteringOptions(
    workflow == "census-us" ? "us" : "indiana",
    int.TryParse(Option("--kmax"), out var kmax) ? kmax : workflow == "census-us" ? 100 : 20,
    Option("--out") ?? "out");

using var cancellation = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; cancellation.Cancel(); };

// Embedded default: the services run in this process on loopback ports over one SQLite store.
var settings = new Dictionary<string, string?>
{
    ["Store:SqlitePath"] = Option("--store") ?? Path.Combine(".salsa", "salsa.db"),
    ["Logging:LogLevel:Default"] = "Warning",
};
await using var services = new EmbeddedServices(settings);
await services.StartAsync<CensusService>(cancellation.Token);
await services.StartAsync<AnnealingService>(cancellation.Token);
AnsiConsole.MarkupLine($"[bold]{workflow}[/]: census [grey]{services.Ports("census").GrpcAddress}[/], annealing [grey]{services.Ports("annealing").GrpcAddress}[/] (embedded)");

var outcome = await CensusClusteringRun.RunAsync(services, options, AnsiConsole.Console, cancellation.Token);

if (Console.IsOutputRedirected)
{
    AnsiConsole.Profile.Width = 160; // a log file, not a terminal: keep the hop table on one line per hop
}

var table = new Table().AddColumns("service", "operation", "latency ms", "server ms", "queue ms", "compute ms", "network ms", "req B", "resp B", "outcome");
foreach (var hop in outcome.Hops)
{
    static string Ms(double? value) => value is { } v ? v.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture) : "–";
    table.AddRow(hop.Service, hop.Operation, Ms(hop.LatencyMs), Ms(hop.ServerMs), Ms(hop.QueueMs), Ms(hop.ComputeMs), Ms(hop.NetworkMs),
        hop.RequestBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), hop.ResponseBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), hop.Outcome);
}

AnsiConsole.Write(table);
AnsiConsole.MarkupLineInterpolated($"run [bold]{outcome.RunId}[/] → {outcome.Directory}");
return 0;
