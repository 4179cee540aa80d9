using System.Reflection;
using Google.Protobuf;
using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

internal sealed class ClientStreamingServerCallHandler<TService, TRequest, TResponse>(
    ServerMethod method, GrpcServerRuntime runtime, ServiceActivator<TService> activator, MessageParser<TRequest> parser, MethodInfo implementation)
    : ServerCallHandler(method, runtime)
    where TService : class
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    private readonly Func<TService, IAsyncStreamReader<TRequest>, ServerCallContext, Task<TResponse>> _invoke =
        implementation.CreateDelegate<Func<TService, IAsyncStreamReader<TRequest>, ServerCallContext, Task<TResponse>>>();

    protected override async Task InvokeAsync(HttpContext httpContext, ServerCallContext context)
    {
        var reader = new HttpContextStreamReader<TRequest>(httpContext.Request.BodyReader, parser, Runtime.Options.MaxReceiveMessageSize, context);
        var service = activator.Create(httpContext);
        TResponse response;
        try
        {
            response = await _invoke(service, reader, context).ConfigureAwait(false);
        }
        finally
        {
            await activator.ReleaseAsync(service).ConfigureAwait(false);
        }

        ResponseWriting.WriteSingle(httpContext, context, response, Runtime.Options.MaxSendMessageSize, Method);
    }
}
