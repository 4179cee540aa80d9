using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Salsa.Grpc.Tests.Echo;

namespace Salsa.Grpc.Tests.Support;

/// <summary>
/// A real Kestrel server on loopback with two endpoints, as the services will run: h2c (HTTP/2
/// only, prior knowledge) for gRPC and HTTP/1.1 for everything else. Ports are chosen by the OS.
/// </summary>
public sealed class GrpcTestServer : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly ListenOptions _grpcEndpoint;
    private readonly ListenOptions _http1Endpoint;

    private GrpcTestServer(WebApplication app, ListenOptions grpcEndpoint, ListenOptions http1Endpoint)
    {
        _app = app;
        _grpcEndpoint = grpcEndpoint;
        _http1Endpoint = http1Endpoint;
    }

    public IServiceProvider Services => _app.Services;

    public EchoProbe Probe => _app.Services.GetRequiredService<EchoProbe>();

    /// <summary>The gRPC (h2c) endpoint, e.g. http://127.0.0.1:40123.</summary>
    public string Address => $"http://127.0.0.1:{_grpcEndpoint.IPEndPoint!.Port}";

    public string Http1Address => $"http://127.0.0.1:{_http1Endpoint.IPEndPoint!.Port}";

    public static async Task<GrpcTestServer> StartAsync(Action<GrpcServerOptions>? configure = null, Action<IServiceCollection>? services = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();

        ListenOptions? grpc = null;
        ListenOptions? http1 = null;
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                listen.Protocols = HttpProtocols.Http2;
                grpc = listen;
            });
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                listen.Protocols = HttpProtocols.Http1;
                http1 = listen;
            });
        });
        builder.Services.AddSalsaGrpc(configure);
        builder.Services.AddSingleton<EchoProbe>();
        builder.Services.AddSingleton<EchoService>();
        services?.Invoke(builder.Services);

        var app = builder.Build();
        app.MapGrpcService<EchoService>(EchoReflection.Descriptor.Services[0]);
        app.MapGrpcHealthService();
        app.MapGrpcReflectionService();
        await app.StartAsync();
        return new GrpcTestServer(app, grpc!, http1!);
    }

    public GrpcChannel CreateChannel(GrpcChannelOptions? options = null) => GrpcChannel.ForAddress(Address, options);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}

/// <summary>One shared server and channel per test class.</summary>
public sealed class EchoServerFixture : IAsyncLifetime
{
    public GrpcTestServer Server { get; private set; } = null!;

    public GrpcChannel Channel { get; private set; } = null!;

    public EchoClient Client { get; private set; } = null!;

    public async ValueTask InitializeAsync()
    {
        Server = await GrpcTestServer.StartAsync();
        Channel = Server.CreateChannel();
        Client = new EchoClient(Channel);
    }

    public async ValueTask DisposeAsync()
    {
        Channel.Dispose();
        await Server.DisposeAsync();
    }
}
