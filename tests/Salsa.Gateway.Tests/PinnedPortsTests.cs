using System.Net;
using System.Net.Sockets;
using System.Text.Json.Nodes;
using Salsa.Gateway.Cli;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Testing;
using Spectre.Console;

namespace Salsa.Gateway.Tests;

/// <summary>
/// <c>run --ports FIRST</c> (<c>Gateway:Ports:First</c>): the embedded gateway, its silo and every
/// embedded service listen on one block of consecutive loopback ports in the documented order,
/// not on ports drawn at random; a port of the block that is taken is said, naming what needed it.
/// </summary>
public sealed class PinnedPortsTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task EmbeddedRun_WithPinnedPorts_EveryPartListensWhereTheBlockSays()
    {
        var pinned = new PinnedPorts(FreeBlock());
        using var directory = new TemporaryDirectory();
        await using var host = await EmbeddedRunHost.StartAsync(new Dictionary<string, string?>
        {
            [PinnedPorts.Key] = pinned.First.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["Store:SqlitePath"] = directory.Combine("salsa.db"),
            ["Cluster:Enabled"] = "true", // as the gateway's appsettings.json has it: the process is a silo too
        }, Token);
        using var tenant = Salsa.Hosting.Security.CallerTenant.Enter(Salsa.Store.Tenants.Local);

        var workflow = host.Load("census-indiana", new Dictionary<string, JsonNode?> { ["import.source"] = "indiana-1000", ["cluster.maxClusters"] = 3 });
        var run = await host.WaitAsync((await host.SubmitAsync(workflow, new Dictionary<string, JsonNode?>(), Token)).Id, Token);

        Assert.True(run.State == RunState.Succeeded, run.Error);
        Assert.Equal(new Uri($"http://127.0.0.1:{pinned.First}"), host.Address);
        using var http = new HttpClient();
        foreach (var service in new[] { "census", "annealing", "render" })
        {
            var ports = pinned.Service(service);
            Assert.Equal(HttpStatusCode.OK, (await http.GetAsync(new Uri(ports.RestAddress, "/alive"), Token)).StatusCode);
        }

        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync(new Uri(pinned.Gateway.RestAddress, "/alive"), Token)).StatusCode);
        using var silo = new TcpClient();
        await silo.ConnectAsync(IPAddress.Loopback, pinned.Silo, Token); // the embedded silo's own port
    }

    [Fact]
    public async Task Run_APinnedPortTaken_SaysWhichPortAndWhatNeedsItAndExitsOne()
    {
        var first = FreeBlock();
        using var taken = new TcpListener(IPAddress.Loopback, first);
        taken.Start();
        using var directory = new TemporaryDirectory();

        using var writer = new StringWriter();
        var console = AnsiConsole.Create(new AnsiConsoleSettings { Ansi = AnsiSupport.No, ColorSystem = ColorSystemSupport.NoColors, Interactive = InteractionSupport.No, Out = new AnsiConsoleOutput(writer) });
        console.Profile.Width = 300;
        var code = await RunCommand.RunAsync(new RunCommand.Options("census-indiana", new Dictionary<string, JsonNode?>(), directory.Path,
            new Dictionary<string, string?> { [PinnedPorts.Key] = first.ToString(System.Globalization.CultureInfo.InvariantCulture), ["Store:SqlitePath"] = directory.Combine("salsa.db") }), console, Token);

        Assert.Equal(1, code);
        Assert.Contains($"port {first} (the gateway's REST, {PinnedPorts.Key} {first})", writer.ToString().Replace("\n", "", StringComparison.Ordinal), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_NamesTheOption()
    {
        using var output = new StringWriter();
        Assert.Equal(0, await GatewayCommandLine.InvokeAsync(["run", "--help"], output, new StringWriter(), Token));
        Assert.Contains("--ports", output.ToString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// The first of <see cref="PinnedPorts.Count"/> consecutive loopback ports free now, drawn from
    /// 10000–19999: below the kernel's ephemeral range (outgoing connections) and below the range
    /// the other test processes running beside this one draw services' ports from (20000–32767,
    /// <c>ServicePorts.NextFreeLoopbackPort</c>), so nothing else takes a port of the block while
    /// the run starts its embedded services one by one.
    /// </summary>
    private static int FreeBlock()
    {
        while (true)
        {
            var first = Random.Shared.Next(10_000, 20_000 - PinnedPorts.Count);
            var listeners = new List<TcpListener>();
            try
            {
                for (var port = first; port < first + PinnedPorts.Count; port++)
                {
                    var listener = new TcpListener(IPAddress.Loopback, port);
                    listener.Start();
                    listeners.Add(listener);
                }

                return first;
            }
            catch (SocketException)
            {
            }
            finally
            {
                listeners.ForEach(l => l.Dispose());
            }
        }
    }
}
