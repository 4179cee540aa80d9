using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;

namespace Salsa.Hosting.Host;

/// <summary>
/// One Salsa service: its name, what it adds to the container and what it maps. The same service
/// runs as its own process (its Program.cs), inside the gateway's embedded host, or in a test, always
/// through <see cref="SalsaServiceHost"/>.
/// </summary>
public interface ISalsaService
{
    /// <summary>Lower-case name: the job records' service, the telemetry service name, the config key.</summary>
    static abstract string Name { get; }

    static abstract void AddServices(WebApplicationBuilder builder);

    static abstract void MapEndpoints(WebApplication app);

}

/// <summary>A service's two Kestrel endpoints: HTTP/1.1 for REST, h2c for gRPC.</summary>
public sealed record ServicePorts(int Rest, int Grpc)
{
    public Uri RestAddress => new($"http://127.0.0.1:{Rest}");

    public Uri GrpcAddress => new($"http://127.0.0.1:{Grpc}");

    private static readonly HashSet<int> s_handedOut = [];

    /// <summary>
    /// A loopback port free right now, for services started on the fly. It is drawn below the
    /// kernel's ephemeral range (32768 and up on Linux), so an outgoing connection cannot take it
    /// between this call and the server's bind, and never handed out twice by this process.
    /// </summary>
    public static int NextFreeLoopbackPort()
    {
        while (true)
        {
            var port = Random.Shared.Next(20_000, 32_768);
            lock (s_handedOut)
            {
                if (s_handedOut.Contains(port))
                {
                    continue;
                }
            }

            try
            {
                using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, port);
                listener.Start();
            }
            catch (SocketException)
            {
                continue;
            }

            lock (s_handedOut)
            {
                if (s_handedOut.Add(port))
                {
                    return port;
                }
            }
        }
    }
}
