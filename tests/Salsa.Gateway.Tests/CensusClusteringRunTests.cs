using System.Globalization;
using System.Text.Json;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Datasets;
using Salsa.Gateway.Embedded;
using Salsa.Gateway.Runs;
using Salsa.Testing;
using Spectre.Console;

namespace Salsa.Gateway.Tests;

/// <summary>The census clustering run on the embedded default: real services on loopback, real gRPC hops, a real SQLite store.</summary>
public sealed class CensusClusteringRunTests
{
    [Fact]
    public async Task EmbeddedRun_ClustersThePopulatedBlockGroups_WritesResultAndTracesEveryHop()
    {
        using var directory = new TemporaryDirectory();
        await using var services = new EmbeddedServices(new Dictionary<string, string?>
        {
            ["Store:SqlitePath"] = directory.Combine("salsa.db"),
            ["Logging:LogLevel:Default"] = "Warning",
        });
        var token = TestContext.Current.CancellationToken;
        await services.StartAsync<CensusService>(token);
        await services.StartAsync<AnnealingService>(token);
        var console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(TextWriter.Null) });

        var outcome = await CensusClusteringRun.RunAsync(services, new CensusClusteringOptions("indiana-1000", 5, directory.Combine("out")), console, token);

        using var result = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(outcome.Directory, "result.json"), token));
        var root = result.RootElement;
        var populated = CensusBlockGroups.ReadFile(CensusBlockGroups.IndianaFixturePath).Where(b => b.Population > 0).ToList();
        Assert.Equal(populated.Count, root.GetProperty("points").GetInt32());
        var clusters = root.GetProperty("clusters").EnumerateArray().ToList();
        Assert.Equal(5, clusters.Count);
        Assert.Equal(populated.Sum(b => (double)b.Population), clusters.Sum(c => c.GetProperty("population").GetDouble()), 1e-6);
        Assert.Equal(populated.Count, clusters.Sum(c => c.GetProperty("blockGroups").GetInt32()));
        Assert.Equal(populated.Count * sizeof(int), new FileInfo(Path.Combine(outcome.Directory, "assignments.bin")).Length);

        Assert.Equal(["Import", "Query", "Start", "Jobs.Watch", "GetResult", "Jobs.DownloadArtifact"], outcome.Hops.Select(h => h.Operation));
        Assert.All(outcome.Hops, h => Assert.True(h.LatencyMs > 0 && h.Outcome is "ok" or "succeeded", $"{h.Operation}: {h.Outcome}"));
        var unary = outcome.Hops.Where(h => h.Operation is "Import" or "Query" or "Start" or "GetResult").ToList();
        Assert.All(unary, h => Assert.True(h.ServerMs is > 0 && h.ServerMs <= h.LatencyMs, string.Create(CultureInfo.InvariantCulture, $"{h.Operation}: server {h.ServerMs} of {h.LatencyMs} ms")));
        var watch = outcome.Hops.Single(h => h.Operation == "Jobs.Watch");
        Assert.True(watch.ComputeMs > 0 && watch.QueueMs >= 0);
    }
}
