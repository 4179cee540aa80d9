using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

namespace Salsa.Grpc;

/// <summary>
/// Gets the service instance for a call. A class registered in DI is resolved from the request's
/// services, so it lives as registered (a singleton for stateless hot services; scoped means one
/// per call). An unregistered class is created per call with constructor injection and disposed
/// after it, as grpc-dotnet does.
/// </summary>
internal sealed class ServiceActivator<TService>(bool registered)
    where TService : class
{
    private readonly ObjectFactory<TService>? _factory = registered ? null : ActivatorUtilities.CreateFactory<TService>([]);

    public TService Create(HttpContext httpContext) =>
        _factory is null ? httpContext.RequestServices.GetRequiredService<TService>() : _factory(httpContext.RequestServices, null);

    public ValueTask ReleaseAsync(TService service)
    {
        if (_factory is null)
        {
            return ValueTask.CompletedTask;
        }

        if (service is IAsyncDisposable asyncDisposable)
        {
            return asyncDisposable.DisposeAsync();
        }

        (service as IDisposable)?.Dispose();
        return ValueTask.CompletedTask;
    }
}
