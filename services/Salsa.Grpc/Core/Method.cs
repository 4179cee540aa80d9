using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace Salsa.Grpc;

public enum MethodType
{
    Unary,
    ClientStreaming,
    ServerStreaming,
    DuplexStreaming,
}

/// <summary>
/// One RPC of a service, typed by its messages: the path it is called on and the parsers of
/// both messages. Built once (usually a static field) from the descriptor protoc generates.
/// </summary>
public sealed class Method<TRequest, TResponse>
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    public Method(MethodType type, string serviceName, string name, MessageParser<TRequest> requestParser, MessageParser<TResponse> responseParser)
    {
        ArgumentException.ThrowIfNullOrEmpty(serviceName);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(requestParser);
        ArgumentNullException.ThrowIfNull(responseParser);
        Type = type;
        ServiceName = serviceName;
        Name = name;
        FullName = "/" + serviceName + "/" + name;
        ActivityName = serviceName + "/" + name;
        RequestParser = requestParser;
        ResponseParser = responseParser;
    }

    /// <summary>From a protobuf method descriptor; its message types must be exactly TRequest and TResponse.</summary>
    public Method(MethodDescriptor descriptor)
        : this(
            MethodTypes.Of(descriptor),
            descriptor.Service.FullName,
            descriptor.Name,
            MethodTypes.ParserOf<TRequest>(descriptor, descriptor.InputType),
            MethodTypes.ParserOf<TResponse>(descriptor, descriptor.OutputType))
    {
    }

    /// <summary>The method named <paramref name="methodName"/> of <paramref name="service"/>.</summary>
    public Method(ServiceDescriptor service, string methodName)
        : this(MethodTypes.Find(service, methodName))
    {
    }

    public MethodType Type { get; }

    /// <summary>Fully qualified service name, e.g. <c>salsa.test.v1.Echo</c>.</summary>
    public string ServiceName { get; }

    public string Name { get; }

    /// <summary>The HTTP/2 path, <c>/{ServiceName}/{Name}</c>.</summary>
    public string FullName { get; }

    /// <summary>OpenTelemetry's RPC span name, <c>package.Service/Method</c>.</summary>
    internal string ActivityName { get; }

    public MessageParser<TRequest> RequestParser { get; }

    public MessageParser<TResponse> ResponseParser { get; }

    public override string ToString() => FullName;
}

internal static class MethodTypes
{
    public static MethodType Of(MethodDescriptor descriptor)
    {
        ArgumentNullException.ThrowIfNull(descriptor);
        return (descriptor.IsClientStreaming, descriptor.IsServerStreaming) switch
        {
            (false, false) => MethodType.Unary,
            (true, false) => MethodType.ClientStreaming,
            (false, true) => MethodType.ServerStreaming,
            (true, true) => MethodType.DuplexStreaming,
        };
    }

    public static MethodDescriptor Find(ServiceDescriptor service, string methodName)
    {
        ArgumentNullException.ThrowIfNull(service);
        return service.FindMethodByName(methodName)
            ?? throw new ArgumentException($"Service '{service.FullName}' has no method '{methodName}'.", nameof(methodName));
    }

    public static MessageParser<T> ParserOf<T>(MethodDescriptor method, MessageDescriptor message)
        where T : class, IMessage<T>
    {
        if (message.ClrType != typeof(T) || message.Parser is not MessageParser<T> parser)
        {
            throw new ArgumentException(
                $"Method '{method.FullName}' uses message '{message.FullName}' (CLR type {message.ClrType?.FullName ?? "none"}), not {typeof(T).FullName}.",
                nameof(method));
        }

        return parser;
    }
}
