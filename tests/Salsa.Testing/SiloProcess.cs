using System.Diagnostics;
using System.Globalization;

namespace Salsa.Testing;

/// <summary>
/// A silo as its own process (<c>Salsa.Silo</c>, whose build output must sit beside the caller's:
/// reference its project), as a deployment runs it; killed outright when a test says.
/// </summary>
public sealed class SiloProcess : IDisposable
{
    private readonly Process _process;
    private readonly List<string> _output = [];

    private SiloProcess(Process process, int siloPort)
    {
        (_process, SiloPort) = (process, siloPort);
    }

    public int SiloPort { get; }

    public bool HasExited => _process.HasExited;

    /// <summary>
    /// Starts a silo joining <paramref name="clusterId"/> through the PostgreSQL of
    /// <paramref name="connectionString"/>, listening on <paramref name="address"/> (inside network
    /// namespace <paramref name="netns"/> when given); returns once the host says it started.
    /// </summary>
    public static async Task<SiloProcess> StartAsync(string connectionString, string clusterId, CancellationToken token, string address = "127.0.0.1", string? netns = null, IEnumerable<string>? settings = null)
    {
        var (siloPort, gatewayPort, restPort) = (FreePort(), FreePort(), FreePort());
        var info = new ProcessStartInfo(netns is null ? "dotnet" : "ip")
        {
            WorkingDirectory = AppContext.BaseDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        if (netns is not null)
        {
            foreach (var argument in new[] { "netns", "exec", netns, "dotnet" })
            {
                info.ArgumentList.Add(argument);
            }
        }

        foreach (var argument in new[]
        {
            Path.Combine(AppContext.BaseDirectory, "Salsa.Silo.dll"),
            // Its own content root: the caller's folder may hold another program's appsettings.json.
            $"--contentRoot={Directory.CreateTempSubdirectory("salsa-silo-").FullName}",
            string.Create(CultureInfo.InvariantCulture, $"--Kestrel:Endpoints:Rest:Url=http://{address}:{restPort}"),
            $"--ConnectionStrings:salsa={connectionString}",
            $"--Cluster:Id={clusterId}",
            $"--Cluster:Address={address}",
            string.Create(CultureInfo.InvariantCulture, $"--Cluster:SiloPort={siloPort}"),
            string.Create(CultureInfo.InvariantCulture, $"--Cluster:GatewayPort={gatewayPort}"),
            "--Cluster:CheckpointSeconds=0.5",
            "--Cluster:ResumeCheckSeconds=5",
            "--Cluster:ProbeTimeoutSeconds=1",
            "--Cluster:DirectoryLeaseSeconds=4",
            "--Logging:LogLevel:Default=Warning",
            "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information",
        }.Concat(settings ?? []))
        {
            info.ArgumentList.Add(argument);
        }

        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var process = new Process { StartInfo = info, EnableRaisingEvents = true };
        var silo = new SiloProcess(process, siloPort);
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                lock (silo._output)
                {
                    silo._output.Add(line);
                }

                if (line.Contains("Application started", StringComparison.Ordinal))
                {
                    ready.TrySetResult();
                }
            }
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                lock (silo._output)
                {
                    silo._output.Add(line);
                }
            }
        };
        process.Exited += (_, _) => ready.TrySetException(new InvalidOperationException($"The silo process exited before it was ready:\n{silo.Output}"));
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        await ready.Task.WaitAsync(TimeSpan.FromSeconds(90), token);
        return silo;
    }

    private static int FreePort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>What the process wrote so far (for a failing test's message).</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return string.Join('\n', _output);
            }
        }
    }

    /// <summary>Whether a silo identity (<c>S127.0.0.1:port:generation</c>) is this process's.</summary>
    public bool Is(string? silo) => silo?.Contains(string.Create(CultureInfo.InvariantCulture, $":{SiloPort}:"), StringComparison.Ordinal) == true;

    /// <summary>SIGKILL: no shutdown code runs, the silo just disappears from the network.</summary>
    public void Kill()
    {
        _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Kill();
        }

        _process.Dispose();
    }
}
