using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway and a service started apart from the same folder, neither told where the store is,
/// share that folder's <c>.salsa/salsa.db</c>: the service imports, the gateway's own services cluster
/// and draw what it imported (a service keeping a store of its own ended such a run with NotFound).
/// </summary>
public sealed class SeparateProcessesTests
{
    [Fact]
    public async Task ServiceInItsOwnProcess_SharesTheDefaultStoreOfTheFolderItStartedIn()
    {
        var token = TestContext.Current.CancellationToken;
        using var folder = new TemporaryDirectory();
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        using var census = await HostProcess.StartAsync("Salsa.Census.dll",
            [.. ServiceHostSettings.PortSettings(ports).Select(s => $"--{s.Key}={s.Value}"), "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information"],
            token, workingDirectory: folder.Path);

        // The gateway in this process, over the store a process started in that folder uses by default.
        await using var gateway = await GatewayServer.StartAsync(Path.Combine(folder.Path, ".salsa", "salsa.db"),
            new Dictionary<string, string?> { ["Gateway:Services:census"] = ports.GrpcAddress.ToString() }, token);
        var id = await gateway.StartRunAsync(new { workflow = "census-indiana" }, token);
        var run = await gateway.Runs.WaitAsync(id, token);

        Assert.True(run.State == Runs.RunState.Succeeded, $"{run.Error}\n{census.Output}");
        Assert.Contains(run.Hops, h => h is { Service: "census", Operation: "Import", Outcome: "ok" });
        Assert.True(File.Exists(Path.Combine(folder.Path, ".salsa", "salsa.db")));
    }
}
