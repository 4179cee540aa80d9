using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Salsa.Grpc;

/// <summary>What every call handler shares, resolved once from DI: options, observers, logger.</summary>
internal sealed class GrpcServerRuntime(IOptions<GrpcServerOptions> options, IEnumerable<IServerCallObserver> observers, ILoggerFactory loggerFactory)
{
    public GrpcServerOptions Options { get; } = options.Value;

    public IServerCallObserver[] Observers { get; } = [.. observers];

    public ILogger Logger { get; } = loggerFactory.CreateLogger("Salsa.Grpc.Server");
}
