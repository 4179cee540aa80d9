namespace Salsa.Grpc;

public sealed class GrpcChannelOptions
{
    /// <summary>
    /// The handler calls go through; share one between channels to share connections. When null the
    /// channel creates a <see cref="SocketsHttpHandler"/> from these options and disposes it with itself.
    /// </summary>
    public HttpMessageHandler? HttpHandler { get; set; }

    /// <summary>Whether disposing the channel disposes a <see cref="HttpHandler"/> that was passed in.</summary>
    public bool DisposeHttpHandler { get; set; }

    /// <summary>Largest response message accepted; larger ones fail the call with RESOURCE_EXHAUSTED. Default 4 MB; null for no limit.</summary>
    public int? MaxReceiveMessageSize { get; set; } = GrpcProtocol.DefaultMaxReceiveMessageSize;

    /// <summary>Largest request message sent; null (the default) for no limit.</summary>
    public int? MaxSendMessageSize { get; set; }

    /// <summary>HTTP/2 PING interval on idle connections, so dead peers are noticed. Default 60 s.</summary>
    public TimeSpan KeepAlivePingDelay { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>How long a PING may go unanswered before the connection is closed. Default 30 s.</summary>
    public TimeSpan KeepAlivePingTimeout { get; set; } = TimeSpan.FromSeconds(30);
}
