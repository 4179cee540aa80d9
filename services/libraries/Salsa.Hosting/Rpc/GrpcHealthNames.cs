using Grpc.AspNetCore.HealthChecks;
using Grpc.AspNetCore.Server;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Salsa.Hosting.Rpc;

/// <summary>grpc.health.v1 by service name, beside the server's overall health.</summary>
public static class GrpcHealthNames
{
    /// <summary>
    /// Names every gRPC service the host maps to grpc.health.v1 (each reported as the server's
    /// health), so a caller can ask for the service it uses. Call once every service is mapped.
    /// </summary>
    public static void MapGrpcHealthNames(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        var health = app.Services.GetRequiredService<IOptions<GrpcHealthChecksOptions>>().Value;
        var names = ((IEndpointRouteBuilder)app).DataSources.SelectMany(d => d.Endpoints)
            .Select(e => e.Metadata.GetMetadata<GrpcMethodMetadata>()?.Method.ServiceName).OfType<string>().Distinct(StringComparer.Ordinal);
        foreach (var name in names)
        {
            health.Services.Map(name, _ => true);
        }
    }
}
