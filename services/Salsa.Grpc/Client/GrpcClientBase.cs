using System.Collections.Concurrent;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace Salsa.Grpc;

/// <summary>
/// Base of hand-written typed clients: methods are looked up by their protobuf name, so each
/// client method is one line, e.g.
/// <c>public AsyncUnaryCall&lt;EchoReply&gt; UnaryAsync(EchoRequest r, CallOptions o = default) => Unary&lt;EchoRequest, EchoReply&gt;("Unary", r, o);</c>
/// </summary>
public abstract class GrpcClientBase
{
    // Design: clients of a service, on any threads, share one method table per service; it only
    // grows (concurrent dictionary, a lost race builds an equal Method twice) and entries never
    // change, so lookups need no lock. Clients are otherwise immutable.
    private static readonly ConcurrentDictionary<ServiceDescriptor, ConcurrentDictionary<string, object>> MethodTables = new();

    private readonly ConcurrentDictionary<string, object> _methods;

    protected GrpcClientBase(GrpcChannel channel, ServiceDescriptor service)
    {
        ArgumentNullException.ThrowIfNull(channel);
        ArgumentNullException.ThrowIfNull(service);
        Channel = channel;
        Service = service;
        _methods = MethodTables.GetOrAdd(service, static _ => new ConcurrentDictionary<string, object>(StringComparer.Ordinal));
    }

    public GrpcChannel Channel { get; }

    public ServiceDescriptor Service { get; }

    /// <summary>The typed descriptor of method <paramref name="name"/>; its message types are checked once.</summary>
    protected Method<TRequest, TResponse> GetMethod<TRequest, TResponse>(string name)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse>
    {
        var method = _methods.GetOrAdd(name, static (n, service) => new Method<TRequest, TResponse>(service, n), Service);
        return method as Method<TRequest, TResponse>
            ?? throw new InvalidOperationException($"Method '{name}' of '{Service.FullName}' was first used with other message types than {typeof(TRequest).Name} and {typeof(TResponse).Name}.");
    }

    protected AsyncUnaryCall<TResponse> Unary<TRequest, TResponse>(string name, TRequest request, CallOptions options)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse> =>
        Channel.UnaryAsync(GetMethod<TRequest, TResponse>(name), request, options);

    protected AsyncServerStreamingCall<TResponse> ServerStreaming<TRequest, TResponse>(string name, TRequest request, CallOptions options)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse> =>
        Channel.ServerStreaming(GetMethod<TRequest, TResponse>(name), request, options);

    protected AsyncClientStreamingCall<TRequest, TResponse> ClientStreaming<TRequest, TResponse>(string name, CallOptions options)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse> =>
        Channel.ClientStreaming(GetMethod<TRequest, TResponse>(name), options);

    protected AsyncDuplexStreamingCall<TRequest, TResponse> DuplexStreaming<TRequest, TResponse>(string name, CallOptions options)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse> =>
        Channel.DuplexStreaming(GetMethod<TRequest, TResponse>(name), options);
}
