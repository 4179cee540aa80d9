using System.Globalization;

namespace Salsa.Testing;

/// <summary>
/// A silo as its own process (<c>Salsa.Silo</c>, whose build output must sit beside the caller's:
/// reference its project), as a deployment runs it; killed outright when a test says.
/// </summary>
public sealed class SiloProcess : IDisposable
{
    private readonly HostProcess _host;

    private SiloProcess(HostProcess host, int siloPort, Uri rest) => (_host, SiloPort, Rest) = (host, siloPort, rest);

    public int SiloPort { get; }

    /// <summary>The silo's REST endpoint (<c>/api/cluster</c>, the dashboard).</summary>
    public Uri Rest { get; }

    public bool HasExited => _host.HasExited;

    /// <summary>The silo process's id (for its memory in /proc).</summary>
    public int ProcessId => _host.ProcessId;

    /// <summary>What the process wrote so far (for a failing test's message).</summary>
    public string Output => _host.Output;

    /// <summary>
    /// Starts a silo joining <paramref name="clusterId"/> through the PostgreSQL of
    /// <paramref name="connectionString"/>, listening on <paramref name="address"/> (inside network
    /// namespace <paramref name="netns"/> when given), <paramref name="environment"/> added to the
    /// process's; returns once the host says it started.
    /// </summary>
    public static async Task<SiloProcess> StartAsync(string connectionString, string clusterId, CancellationToken token, string address = "127.0.0.1", string? netns = null, IEnumerable<string>? settings = null,
        IReadOnlyDictionary<string, string>? environment = null)
    {
        // A port found free can be taken before the silo binds it (an outgoing connection's
        // ephemeral port comes from the same range): then start again on other ports.
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await StartOnFreePortsAsync(connectionString, clusterId, address, netns, settings, environment, token);
            }
            catch (InvalidOperationException exception) when (attempt < 3 && exception.Message.Contains("address already in use", StringComparison.OrdinalIgnoreCase))
            {
            }
        }
    }

    private static async Task<SiloProcess> StartOnFreePortsAsync(string connectionString, string clusterId, string address, string? netns, IEnumerable<string>? settings, IReadOnlyDictionary<string, string>? environment, CancellationToken token)
    {
        var (siloPort, gatewayPort, restPort) = (FreePort(), FreePort(), FreePort());
        string[] arguments =
        [
            // Its own content root: the caller's folder may hold another program's appsettings.json.
            $"--contentRoot={Directory.CreateTempSubdirectory("salsa-silo-").FullName}",
            string.Create(CultureInfo.InvariantCulture, $"--Kestrel:Endpoints:Rest:Url=http://{address}:{restPort}"),
            $"--ConnectionStrings:salsa={connectionString}",
            $"--Cluster:Id={clusterId}",
            $"--Cluster:Address={address}",
            string.Create(CultureInfo.InvariantCulture, $"--Cluster:SiloPort={siloPort}"),
            string.Create(CultureInfo.InvariantCulture, $"--Cluster:GatewayPort={gatewayPort}"),
            "--Cluster:CheckpointInterval=00:00:00.5",
            "--Cluster:ResumeCheck=00:00:05",
            "--Cluster:ProbeTimeout=00:00:01",
            "--Cluster:DirectoryLease=00:00:04",
            "--Logging:LogLevel:Default=Warning",
            "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information",
        ];
        var host = await HostProcess.StartAsync("Salsa.Silo.dll", arguments.Concat(settings ?? []), token, netns, environment: environment);
        return new SiloProcess(host, siloPort, new Uri(string.Create(CultureInfo.InvariantCulture, $"http://{address}:{restPort}/")));
    }

    /// <summary>Whether a silo identity (<c>S127.0.0.1:port:generation</c>) is this process's.</summary>
    public bool Is(string? silo) => silo?.Contains(string.Create(CultureInfo.InvariantCulture, $":{SiloPort}:"), StringComparison.Ordinal) == true;

    /// <summary>SIGKILL: no shutdown code runs, the silo just disappears from the network.</summary>
    public void Kill() => _host.Kill();

    /// <summary>SIGTERM: the silo stops gracefully (hands its partitions over first); true if it exited within <paramref name="limit"/>.</summary>
    public Task<bool> TerminateAsync(TimeSpan limit) => _host.TerminateAsync(limit);

    public void Dispose() => _host.Dispose();

    private static int FreePort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }
}
