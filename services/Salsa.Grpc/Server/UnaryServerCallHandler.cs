using System.Reflection;
using Google.Protobuf;
using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

internal sealed class UnaryServerCallHandler<TService, TRequest, TResponse> : ServerCallHandler
    where TService : class
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    private readonly ServiceActivator<TService> _activator;
    private readonly MessageParser<TRequest> _parser;
    private readonly Func<TService, TRequest, ServerCallContext, Task<TResponse>>? _invokeTask;
    private readonly Func<TService, TRequest, ServerCallContext, ValueTask<TResponse>>? _invokeValueTask;

    public UnaryServerCallHandler(ServerMethod method, GrpcServerRuntime runtime, ServiceActivator<TService> activator, MessageParser<TRequest> parser, MethodInfo implementation)
        : base(method, runtime)
    {
        _activator = activator;
        _parser = parser;
        if (implementation.ReturnType == typeof(Task<TResponse>))
        {
            _invokeTask = implementation.CreateDelegate<Func<TService, TRequest, ServerCallContext, Task<TResponse>>>();
        }
        else
        {
            _invokeValueTask = implementation.CreateDelegate<Func<TService, TRequest, ServerCallContext, ValueTask<TResponse>>>();
        }
    }

    protected override async Task InvokeAsync(HttpContext httpContext, ServerCallContext context)
    {
        var request = await RequestMessageReader.ReadSingleAsync(httpContext.Request.BodyReader, _parser, Runtime.Options.MaxReceiveMessageSize, context.CancellationToken)
            .ConfigureAwait(false);
        var service = _activator.Create(httpContext);
        TResponse response;
        try
        {
            response = _invokeTask is not null
                ? await _invokeTask(service, request, context).ConfigureAwait(false)
                : await _invokeValueTask!(service, request, context).ConfigureAwait(false);
        }
        finally
        {
            await _activator.ReleaseAsync(service).ConfigureAwait(false);
        }

        ResponseWriting.WriteSingle(httpContext, context, response, Runtime.Options.MaxSendMessageSize, Method);
    }
}

internal static class ResponseWriting
{
    /// <summary>
    /// The one response of a unary or client-streaming call, left unflushed so Kestrel sends it
    /// with the trailers. Not sent when the method already chose a failing status or the deadline passed.
    /// </summary>
    public static void WriteSingle<TResponse>(HttpContext httpContext, ServerCallContext context, TResponse? response, int? maxSendSize, ServerMethod method)
        where TResponse : class, IMessage<TResponse>
    {
        if (response is null)
        {
            throw new InvalidOperationException($"Service method '{method.FullName}' returned null instead of a response message.");
        }

        if (context.Status.StatusCode != StatusCode.OK || context.DeadlineReached)
        {
            return;
        }

        MessageFraming.Write(httpContext.Response.BodyWriter, response, maxSendSize);
        context.ResponseStarted = true;
    }
}
