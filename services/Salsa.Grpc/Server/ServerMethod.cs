namespace Salsa.Grpc;

/// <summary>What the server knows about one bound method; immutable, shared by all its calls.</summary>
internal sealed class ServerMethod(string serviceName, string name, MethodType type)
{
    public string ServiceName { get; } = serviceName;

    public string Name { get; } = name;

    public MethodType Type { get; } = type;

    /// <summary>The HTTP/2 path, <c>/package.Service/Method</c>.</summary>
    public string FullName { get; } = "/" + serviceName + "/" + name;

    /// <summary>OpenTelemetry's RPC span name, <c>package.Service/Method</c>.</summary>
    public string ActivityName { get; } = serviceName + "/" + name;

    public bool IsClientStreaming => Type is MethodType.ClientStreaming or MethodType.DuplexStreaming;
}
