using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Salsa.Grpc;

public static class GrpcServiceCollectionExtensions
{
    /// <summary>
    /// Registers the gRPC server: options, call observers' runtime, health (with ASP.NET Core
    /// health checks) and reflection. Map services with <c>app.MapGrpcService&lt;T&gt;(descriptor)</c>;
    /// serve them on a Kestrel endpoint whose protocols are Http2 (h2c needs prior knowledge).
    /// </summary>
    public static IServiceCollection AddSalsaGrpc(this IServiceCollection services, Action<GrpcServerOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.AddRouting();
        services.AddOptions<GrpcServerOptions>();
        if (configure is not null)
        {
            services.Configure(configure);
        }

        services.AddHealthChecks();
        services.TryAddSingleton<GrpcServerRuntime>();
        services.TryAddSingleton<GrpcServiceRegistry>();
        services.TryAddSingleton<GrpcHealthStatusStore>();
        services.TryAddSingleton<GrpcHealthService>();
        services.TryAddSingleton<ServerReflectionService>();
        services.TryAddSingleton<ServerReflectionV1Service>();
        return services;
    }
}
