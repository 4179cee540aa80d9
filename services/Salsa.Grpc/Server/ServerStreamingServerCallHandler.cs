using System.Reflection;
using Google.Protobuf;
using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

internal sealed class ServerStreamingServerCallHandler<TService, TRequest, TResponse>(
    ServerMethod method, GrpcServerRuntime runtime, ServiceActivator<TService> activator, MessageParser<TRequest> parser, MethodInfo implementation)
    : ServerCallHandler(method, runtime)
    where TService : class
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    private readonly Func<TService, TRequest, IServerStreamWriter<TResponse>, ServerCallContext, Task> _invoke =
        implementation.CreateDelegate<Func<TService, TRequest, IServerStreamWriter<TResponse>, ServerCallContext, Task>>();

    protected override async Task InvokeAsync(HttpContext httpContext, ServerCallContext context)
    {
        var request = await RequestMessageReader.ReadSingleAsync(httpContext.Request.BodyReader, parser, Runtime.Options.MaxReceiveMessageSize, context.CancellationToken)
            .ConfigureAwait(false);
        var writer = new HttpContextStreamWriter<TResponse>(httpContext.Response.BodyWriter, context, Runtime.Options.MaxSendMessageSize);
        var service = activator.Create(httpContext);
        try
        {
            await _invoke(service, request, writer, context).ConfigureAwait(false);
        }
        finally
        {
            writer.Complete();
            await activator.ReleaseAsync(service).ConfigureAwait(false);
        }
    }
}
