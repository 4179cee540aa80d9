using Salsa.Grpc.Tests.Echo;

namespace Salsa.Grpc.Tests.Support;

/// <summary>A typed client as services will write them: one line per method.</summary>
public sealed class EchoClient(GrpcChannel channel) : GrpcClientBase(channel, EchoReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<EchoReply> UnaryAsync(EchoRequest request, CallOptions options = default) => Unary<EchoRequest, EchoReply>("Unary", request, options);

    public AsyncServerStreamingCall<EchoReply> ServerStream(EchoRequest request, CallOptions options = default) => ServerStreaming<EchoRequest, EchoReply>("ServerStream", request, options);

    public AsyncClientStreamingCall<EchoRequest, EchoReply> ClientStream(CallOptions options = default) => ClientStreaming<EchoRequest, EchoReply>("ClientStream", options);

    public AsyncDuplexStreamingCall<EchoRequest, EchoReply> Duplex(CallOptions options = default) => DuplexStreaming<EchoRequest, EchoReply>("Duplex", options);

    public AsyncUnaryCall<EchoReply> WaitForCancellationAsync(EchoRequest request, CallOptions options = default) => Unary<EchoRequest, EchoReply>("WaitForCancellation", request, options);

    public AsyncUnaryCall<EchoReply> FailAsync(EchoRequest request, CallOptions options = default) => Unary<EchoRequest, EchoReply>("Fail", request, options);

    public AsyncUnaryCall<EchoReply> ThrowAsync(EchoRequest request, CallOptions options = default) => Unary<EchoRequest, EchoReply>("Throw", request, options);

    public AsyncUnaryCall<EchoReply> UnimplementedAsync(EchoRequest request, CallOptions options = default) => Unary<EchoRequest, EchoReply>("Unimplemented", request, options);
}
