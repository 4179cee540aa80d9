using ServiceDescriptor = Google.Protobuf.Reflection.ServiceDescriptor;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Routing.Patterns;
using Microsoft.Extensions.DependencyInjection;

namespace Salsa.Grpc;

public static class GrpcEndpointRouteBuilderExtensions
{
    private static readonly string[] PostOnly = [HttpMethods.Post];

    /// <summary>
    /// Maps every method of <paramref name="service"/> to <typeparamref name="TService"/>'s method of
    /// the same name (see <see cref="UnimplementedRpcAttribute"/> for ones left out). The class is
    /// resolved from DI per call when registered (its registered lifetime applies), otherwise
    /// created per call. Binding problems throw here, at startup.
    /// </summary>
    public static IEndpointConventionBuilder MapGrpcService<TService>(this IEndpointRouteBuilder endpoints, ServiceDescriptor service)
        where TService : class
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(service);
        var provider = endpoints.ServiceProvider;
        var registry = provider.GetService<GrpcServiceRegistry>()
            ?? throw new InvalidOperationException("Salsa.Grpc is not registered: call builder.Services.AddSalsaGrpc() before mapping gRPC services.");
        var runtime = provider.GetRequiredService<GrpcServerRuntime>();
        var registered = provider.GetService<IServiceProviderIsService>()?.IsService(typeof(TService)) ?? false;

        var handlers = ServiceBinder.Bind(service, runtime, new ServiceActivator<TService>(registered));
        registry.Add(service);
        var builders = new List<IEndpointConventionBuilder>(handlers.Count);
        foreach (var handler in handlers)
        {
            builders.Add(endpoints
                .MapMethods(handler.Method.FullName, PostOnly, new RequestDelegate(handler.HandleCallAsync))
                .WithDisplayName("gRPC " + handler.Method.FullName));
        }

        MapUnimplementedFallback(endpoints, registry, runtime);
        return new CompositeEndpointConventionBuilder(builders);
    }

    /// <summary>grpc.health.v1.Health, fed by ASP.NET Core health checks and <see cref="GrpcHealthStatusStore"/>.</summary>
    public static IEndpointConventionBuilder MapGrpcHealthService(this IEndpointRouteBuilder endpoints) =>
        endpoints.MapGrpcService<GrpcHealthService>(Health.V1.HealthReflection.Descriptor.Services[0]);

    /// <summary>grpc.reflection.v1alpha and grpc.reflection.v1 ServerReflection over every mapped service.</summary>
    public static IEndpointConventionBuilder MapGrpcReflectionService(this IEndpointRouteBuilder endpoints) =>
        new CompositeEndpointConventionBuilder(
        [
            endpoints.MapGrpcService<ServerReflectionService>(Reflection.V1Alpha.ReflectionV1AlphaReflection.Descriptor.Services[0]),
            endpoints.MapGrpcService<ServerReflectionV1Service>(Reflection.V1.ReflectionV1Reflection.Descriptor.Services[0]),
        ]);

    // Unknown services and methods of gRPC requests get UNIMPLEMENTED rather than HTTP 404. The
    // route only matches gRPC content types and sorts after every other endpoint, so it never
    // shadows REST routes.
    private static void MapUnimplementedFallback(IEndpointRouteBuilder endpoints, GrpcServiceRegistry registry, GrpcServerRuntime runtime)
    {
        if (!registry.TryClaimFallback(endpoints))
        {
            return;
        }

        var pattern = RoutePatternFactory.Parse(
            "{unimplementedService}/{unimplementedMethod}",
            defaults: null,
            parameterPolicies: new RouteValueDictionary { ["unimplementedService"] = new GrpcContentTypeRouteConstraint() });
        var handler = new UnimplementedCallHandler(runtime);
        endpoints.Map(pattern, new RequestDelegate(handler.HandleCallAsync))
            .WithMetadata(new HttpMethodMetadata(PostOnly))
            .WithDisplayName("gRPC unimplemented")
            .Add(builder => ((RouteEndpointBuilder)builder).Order = int.MaxValue);
    }

    private sealed class GrpcContentTypeRouteConstraint : IRouteConstraint
    {
        public bool Match(HttpContext? httpContext, IRouter? route, string routeKey, RouteValueDictionary values, RouteDirection routeDirection) =>
            routeDirection == RouteDirection.IncomingRequest && GrpcProtocol.IsGrpcContentType(httpContext?.Request.ContentType);
    }

    private sealed class CompositeEndpointConventionBuilder(IReadOnlyList<IEndpointConventionBuilder> builders) : IEndpointConventionBuilder
    {
        public void Add(Action<EndpointBuilder> convention)
        {
            foreach (var builder in builders)
            {
                builder.Add(convention);
            }
        }

        public void Finally(Action<EndpointBuilder> finallyConvention)
        {
            foreach (var builder in builders)
            {
                builder.Finally(finallyConvention);
            }
        }
    }
}
