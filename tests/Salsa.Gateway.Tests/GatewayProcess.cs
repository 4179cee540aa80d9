using Salsa.Gateway.Catalog;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary><c>dotnet Salsa.Gateway.dll</c> in server mode, configured on its command line.</summary>
internal sealed class GatewayProcess : IDisposable
{
    private readonly HostProcess _host;

    private GatewayProcess(HostProcess host, ServicePorts ports)
    {
        _host = host;
        Http = new HttpClient { BaseAddress = ports.RestAddress };
    }

    public HttpClient Http { get; }

    /// <summary>The process's id (its memory is in /proc).</summary>
    public int ProcessId => _host.ProcessId;

    public bool HasExited => _host.HasExited;

    /// <summary>What the process wrote so far.</summary>
    public string Output => _host.Output;

    public static Task<GatewayProcess> StartAsync(string store, CancellationToken token, params string[] settings) =>
        StartAsync(store, new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort()), token, settings);

    /// <summary>On <paramref name="ports"/>: a restarted gateway where its callers left it.</summary>
    public static async Task<GatewayProcess> StartAsync(string store, ServicePorts ports, CancellationToken token, params string[] settings)
    {
        var workflows = new WorkflowLibrary(new WorkflowParser(new OperationCatalog()), Microsoft.Extensions.Options.Options.Create(new GatewayOptions())).Directory!;
        var host = await HostProcess.StartAsync("Salsa.Gateway.dll",
        [
            $"--Kestrel:Endpoints:Rest:Url={ports.RestAddress}",
            $"--Kestrel:Endpoints:Grpc:Url={ports.GrpcAddress}",
            $"--Store:SqlitePath={store}",
            $"--Gateway:WorkflowsDirectory={workflows}",
            "--Gateway:WarmStart=false",
            "--Logging:LogLevel:Default=Warning",
            "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information",
            .. settings,
        ], token, timeout: TimeSpan.FromSeconds(60));
        return new GatewayProcess(host, ports);
    }

    /// <summary>SIGKILL: the process gets no chance to record anything.</summary>
    public void Kill() => _host.Kill();

    public void Dispose()
    {
        _host.Dispose();
        Http.Dispose();
    }
}
