using System.Text.Json.Nodes;
using Salsa.Gateway.Cli;
using Salsa.Testing;
using Spectre.Console;

namespace Salsa.Gateway.Tests;

/// <summary>
/// <c>run --gateway URL</c>: the command line as a client of a gateway server (the compose
/// deployment's gateway container, say) — the same run, the same files, the same answer as in
/// this process; a server that is not there, or that refuses the workflow, is said plainly.
/// </summary>
public sealed class RemoteRunTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static readonly Dictionary<string, JsonNode?> Parameters = new(StringComparer.Ordinal) { ["cluster.maxClusters"] = 8 };

    [Fact]
    public async Task CensusIndiana_OnAGatewayServer_WritesTheSameRunAsInThisProcess()
    {
        using var directory = new TemporaryDirectory();
        await using var server = await GatewayServer.StartAsync(directory.Combine("server.db"), cancellationToken: Token);

        var (remoteCode, remoteOutput) = await RunAsync(new RunCommand.Options("census-indiana", Parameters, directory.Combine("remote"),
            new Dictionary<string, string?>(), new Uri(server.Ports.RestAddress, "/")));
        var (localCode, localOutput) = await RunAsync(new RunCommand.Options("census-indiana", Parameters, directory.Combine("local"),
            new Dictionary<string, string?> { ["Store:SqlitePath"] = directory.Combine("local.db") }));

        Assert.True(remoteCode == 0, remoteOutput);
        Assert.True(localCode == 0, localOutput);
        var remote = Directory.GetDirectories(directory.Combine("remote")).Single();
        var local = Directory.GetDirectories(directory.Combine("local")).Single();

        // The run is the server's: its id, its store, its link; the watch address is the server's page.
        var id = Guid.Parse(Path.GetFileName(remote));
        Assert.Contains($"{server.Ports.RestAddress}#/runs/{id}", remoteOutput.Replace("\n", "", StringComparison.Ordinal), StringComparison.Ordinal);
        var kept = await server.GetRunAsync(id, Token);
        Assert.Equal("succeeded", kept.GetProperty("state").GetString());

        // The same files, and what they hold is the same but for the run's own ids.
        Assert.Equal(FileNames(local), FileNames(remote));
        Assert.Equal(StepOutputs(local), StepOutputs(remote));
        Assert.Equal(File.ReadAllBytes(Path.Combine(local, "clusters.geojson")), File.ReadAllBytes(Path.Combine(remote, "clusters.geojson")));
        var hops = JsonNode.Parse(File.ReadAllText(Path.Combine(remote, "result.json")))!["hops"]!.AsArray();
        Assert.Contains(hops, h => (string?)h!["service"] == "annealing" && (string?)h["outcome"] == "succeeded");
        Assert.Contains("Jobs.Watch", remoteOutput, StringComparison.Ordinal); // the hop table
    }

    [Fact]
    public async Task NoGatewayAtTheAddress_SaysWhichAddressAndExitsOne()
    {
        using var directory = new TemporaryDirectory();
        var address = new Uri($"http://127.0.0.1:{ServicePortsFree()}/");

        var (code, output) = await RunAsync(new RunCommand.Options("census-indiana", Parameters, directory.Path, new Dictionary<string, string?>(), address));

        Assert.Equal(1, code);
        Assert.Contains($"No gateway answers at {address}", output.Replace("\n", "", StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(directory.Path));
    }

    [Fact]
    public async Task AWorkflowTheServerRefuses_ShowsItsReasonAndStartsNothing()
    {
        using var directory = new TemporaryDirectory();
        // Valid here, refused there: the server allows fewer clusters than this process's defaults.
        await using var server = await GatewayServer.StartAsync(directory.Combine("server.db"),
            new Dictionary<string, string?> { ["Salsa:Limits:MaxClusters"] = "10" }, Token);

        var (code, output) = await RunAsync(new RunCommand.Options(Path.Combine(Repository.Root, "workflows", "census-indiana.yaml"), Parameters,
            directory.Combine("out"), new Dictionary<string, string?>(), new Uri(server.Ports.RestAddress, "/")));
        var (codeAbove, outputAbove) = await RunAsync(new RunCommand.Options("census-indiana", new Dictionary<string, JsonNode?> { ["cluster.maxClusters"] = 11 },
            directory.Combine("out"), new Dictionary<string, string?>(), new Uri(server.Ports.RestAddress, "/")));

        Assert.True(code == 0, output); // 8 ≤ 10: the run goes
        Assert.Equal(GatewayCommandLine.UsageError, codeAbove);
        Assert.Contains("maxClusters", outputAbove, StringComparison.Ordinal);
        Assert.Contains("400", outputAbove, StringComparison.Ordinal);
        Assert.Single(await server.Runs.ListAsync(10, Token));
        Assert.Single(Directory.GetDirectories(directory.Combine("out")));
    }

    private static async Task<(int Code, string Output)> RunAsync(RunCommand.Options options)
    {
        using var writer = new StringWriter();
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Ansi = AnsiSupport.No,
            ColorSystem = ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
            Out = new AnsiConsoleOutput(writer),
        });
        console.Profile.Width = 200;
        var code = await RunCommand.RunAsync(options, console, Token);
        return (code, writer.ToString());
    }

    private static int ServicePortsFree() => Salsa.Hosting.Host.ServicePorts.NextFreeLoopbackPort();

    private static string[] FileNames(string folder) => [.. Directory.GetFiles(folder).Select(Path.GetFileName).Order(StringComparer.Ordinal)!];

    /// <summary>Each step's outputs without what is fresh per run (job ids) or says where a job ran (placement).</summary>
    private static string StepOutputs(string folder)
    {
        var steps = JsonNode.Parse(File.ReadAllText(Path.Combine(folder, "result.json")))!["steps"]!.AsArray();
        return string.Join("\n", steps.Select(step =>
        {
            var outputs = step!["outputs"]?.DeepClone();
            Strip(outputs);
            return $"{step["id"]}: {outputs?.ToJsonString()}";
        }));

        static void Strip(JsonNode? node)
        {
            if (node is JsonObject o)
            {
                o.Remove("jobId");
                o.Remove("placement");
                foreach (var (_, child) in o.ToList())
                {
                    Strip(child);
                }
            }
            else if (node is JsonArray a)
            {
                foreach (var child in a)
                {
                    Strip(child);
                }
            }
        }
    }
}
