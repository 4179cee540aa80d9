using System.Reflection;
using Google.Protobuf;
using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

internal sealed class DuplexStreamingServerCallHandler<TService, TRequest, TResponse>(
    ServerMethod method, GrpcServerRuntime runtime, ServiceActivator<TService> activator, MessageParser<TRequest> parser, MethodInfo implementation)
    : ServerCallHandler(method, runtime)
    where TService : class
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    private readonly Func<TService, IAsyncStreamReader<TRequest>, IServerStreamWriter<TResponse>, ServerCallContext, Task> _invoke =
        implementation.CreateDelegate<Func<TService, IAsyncStreamReader<TRequest>, IServerStreamWriter<TResponse>, ServerCallContext, Task>>();

    protected override async Task InvokeAsync(HttpContext httpContext, ServerCallContext context)
    {
        var reader = new HttpContextStreamReader<TRequest>(httpContext.Request.BodyReader, parser, Runtime.Options.MaxReceiveMessageSize, context);
        var writer = new HttpContextStreamWriter<TResponse>(httpContext.Response.BodyWriter, context, Runtime.Options.MaxSendMessageSize);
        var service = activator.Create(httpContext);
        try
        {
            await _invoke(service, reader, writer, context).ConfigureAwait(false);
        }
        finally
        {
            writer.Complete();
            await activator.ReleaseAsync(service).ConfigureAwait(false);
        }
    }
}
