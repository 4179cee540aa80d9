using System.Diagnostics;
using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Salsa.Hosting.Host;

namespace Salsa.Bench.Experiments.Services;

/// <summary>
/// A service in its own process, as deployed: this benchmark's executable started again with
/// <c>--serve &lt;service&gt;</c>, hosting the real service on loopback ports with the store it is given.
/// It also runs a raw TCP echo listener, the floor any request-response protocol is measured against.
/// </summary>
public sealed class ServiceProcess : IAsyncDisposable
{
    private const string ReadyLine = "salsa-service-ready";

    private readonly Process _process;

    private ServiceProcess(Process process, ServicePorts ports, int echoPort)
    {
        _process = process;
        Ports = ports;
        EchoPort = echoPort;
    }

    public ServicePorts Ports { get; }

    public int EchoPort { get; }

    /// <summary>The process id (for its resident memory).</summary>
    public int Id => _process.Id;

    /// <summary>Kills the process at once, as a crash would.</summary>
    public void Kill() => _process.Kill(entireProcessTree: true);

    /// <summary>Starts <paramref name="service"/> (annealing, census or chem) with <paramref name="storeSetting"/> (key=value) and waits until it answers.</summary>
    public static Task<ServiceProcess> StartAsync(string service, string storeSetting, CancellationToken cancellationToken) =>
        StartAsync(service, new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort()), [storeSetting], cancellationToken);

    /// <summary>
    /// Starts any service, or the gateway, on <paramref name="ports"/> with <paramref name="settings"/>
    /// (key=value, the store among them) and waits until it answers; with <paramref name="unixEcho"/>,
    /// the echo floor listens on that Unix-domain socket too.
    /// </summary>
    public static async Task<ServiceProcess> StartAsync(string service, ServicePorts ports, IEnumerable<string> settings, CancellationToken cancellationToken, string? unixEcho = null)
    {
        var echoPort = ServicePorts.NextFreeLoopbackPort();
        var start = new ProcessStartInfo(Environment.ProcessPath!) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        if (!Environment.ProcessPath!.EndsWith("Salsa.Bench", StringComparison.Ordinal))
        {
            start.ArgumentList.Add(typeof(ServiceProcess).Assembly.Location); // run through the dotnet host
        }

        foreach (var argument in new[] { "--serve", service, "--rest", ports.Rest.ToString(), "--grpc", ports.Grpc.ToString(), "--echo", echoPort.ToString() }
            .Concat(unixEcho is null ? [] : ["--echo-unix", unixEcho])
            .Concat(settings.SelectMany(setting => new[] { "--set", setting })))
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException("could not start the service process");
        var stderr = process.StandardError.ReadToEndAsync(cancellationToken);
        var served = new ServiceProcess(process, ports, echoPort);

        // The child prints ReadyLine once its endpoints listen; no polling.
        while (await process.StandardOutput.ReadLineAsync(cancellationToken) is { } line)
        {
            if (line == ReadyLine)
            {
                _ = process.StandardOutput.ReadToEndAsync(cancellationToken);
                return served;
            }
        }

        await process.WaitForExitAsync(cancellationToken);
        throw new InvalidOperationException($"the {service} service process exited ({process.ExitCode}): {await stderr}");
    }

    /// <summary>The child's side: host the service until stdin closes or the process is killed.</summary>
    public static async Task<int> ServeAsync(string[] args)
    {
        string Arg(string name) => args[Array.IndexOf(args, name) + 1];
        var ports = new ServicePorts(int.Parse(Arg("--rest")), int.Parse(Arg("--grpc")));
        var settings = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            ["Logging:LogLevel:Default"] = "Warning",
        };
        for (var i = 0; i < args.Length - 1; i++)
        {
            if (args[i] == "--set" && args[i + 1].Split('=', 2) is [var key, var value])
            {
                settings[key] = value;
            }
        }

        var host = new ServiceHostSettings { Settings = settings, LoadAppSettings = false };
        var name = Arg("--serve");
        var app = name switch
        {
            "gateway" => SalsaServiceHost.Create<Salsa.Gateway.GatewayService>(host),
            BareGrpc.Name => BareGrpc.Create(settings),
            _ => Salsa.Gateway.Services.HostedServices.All.FirstOrDefault(m => m.Name == name)?.Create(host) ?? throw new ArgumentException($"unknown service {name}"),
        };
        using var echo = new TcpEcho(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, int.Parse(Arg("--echo"))));
        using var unixEcho = args.Contains("--echo-unix") ? new TcpEcho(new System.Net.Sockets.UnixDomainSocketEndPoint(Arg("--echo-unix"))) : null;
        await app.StartAsync();
        Console.WriteLine(ReadyLine);
        await app.WaitForShutdownAsync();
        return 0;
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }
}

/// <summary>Echoes fixed-size messages on every accepted connection (TCP or a Unix-domain socket): the request-response floor of the OS and runtime.</summary>
internal sealed class TcpEcho : IDisposable
{
    public const int MessageBytes = 32;

    private readonly Socket _listener;

    /// <summary>Listens on a TCP endpoint or a Unix-domain socket (<see cref="UnixDomainSocketEndPoint"/>).</summary>
    public TcpEcho(System.Net.EndPoint endpoint)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        _listener = endpoint is UnixDomainSocketEndPoint
            ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(SocketType.Stream, ProtocolType.Tcp);
        _listener.Bind(endpoint);
        _listener.Listen(512);
        _ = AcceptAsync();
    }

    public void Dispose() => _listener.Dispose();

    private async Task AcceptAsync()
    {
        while (true)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptAsync();
            }
            catch (Exception exception) when (exception is ObjectDisposedException or SocketException)
            {
                return;
            }

            if (socket.AddressFamily != AddressFamily.Unix)
            {
                socket.NoDelay = true;
            }

            _ = EchoAsync(socket);
        }
    }

    private static async Task EchoAsync(Socket socket)
    {
        using var _ = socket;
        var buffer = new byte[MessageBytes];
        try
        {
            while (await ReadExactlyAsync(socket, buffer))
            {
                await socket.SendAsync(buffer, SocketFlags.None);
            }
        }
        catch (SocketException)
        {
            // the client went away
        }
    }

    internal static async ValueTask<bool> ReadExactlyAsync(Socket socket, Memory<byte> buffer)
    {
        var read = 0;
        while (read < buffer.Length)
        {
            var n = await socket.ReceiveAsync(buffer[read..], SocketFlags.None);
            if (n == 0)
            {
                return false;
            }

            read += n;
        }

        return true;
    }
}

/// <summary>
/// grpc-dotnet with nothing of ours: Kestrel, <c>AddGrpc</c> and a grpc.health.v1 service that answers
/// SERVING from a field — no middleware, telemetry, security, interceptor or health checks. The floor
/// of the library itself, against which the real service host's own cost is seen.
/// </summary>
internal static class BareGrpc
{
    public const string Name = "bare-grpc";

    public static WebApplication Create(IReadOnlyDictionary<string, string?> settings)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.AddInMemoryCollection(settings.Where(s => s.Key.StartsWith("Kestrel:", StringComparison.Ordinal)));
        builder.Logging.ClearProviders();
        builder.Services.AddGrpc();
        var app = builder.Build();
        app.MapGrpcService<ServingHealth>();
        return app;
    }

    private sealed class ServingHealth : Grpc.Health.V1.Health.HealthBase
    {
        private static readonly Task<Grpc.Health.V1.HealthCheckResponse> s_serving =
            Task.FromResult(new Grpc.Health.V1.HealthCheckResponse { Status = Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus.Serving });

        public override Task<Grpc.Health.V1.HealthCheckResponse> Check(Grpc.Health.V1.HealthCheckRequest request, Grpc.Core.ServerCallContext context) => s_serving;
    }
}
