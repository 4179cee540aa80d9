using System.Collections.Concurrent;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>
/// A gRPC endpoint and the HTTP/2 connections to it. Thread-safe and meant to be long-lived:
/// every call multiplexes onto the shared handler's connections (opening more when one is full),
/// with no per-call HttpClient.
/// </summary>
public sealed class GrpcChannel : IDisposable
{
    // Design: immutable after construction except the path caches, which are concurrent
    // dictionaries any call may read or fill (a lost race only builds an equal value twice).
    // HttpMessageInvoker is thread-safe; Dispose may race calls, which then fail as UNAVAILABLE.
    private readonly ConcurrentDictionary<string, Uri> _uris = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, object> _pathMethods = new(StringComparer.Ordinal);

    private GrpcChannel(Uri address, GrpcChannelOptions options)
    {
        if (!address.IsAbsoluteUri || (address.Scheme != Uri.UriSchemeHttp && address.Scheme != Uri.UriSchemeHttps))
        {
            throw new ArgumentException($"Address '{address}' must be an absolute http:// or https:// URI.", nameof(address));
        }

        Address = address;
        MaxReceiveMessageSize = options.MaxReceiveMessageSize;
        MaxSendMessageSize = options.MaxSendMessageSize;
        var handler = options.HttpHandler ?? CreateHttpHandler(options);
        Invoker = new HttpMessageInvoker(handler, disposeHandler: options.HttpHandler is null || options.DisposeHttpHandler);
    }

    public Uri Address { get; }

    internal HttpMessageInvoker Invoker { get; }

    internal int? MaxReceiveMessageSize { get; }

    internal int? MaxSendMessageSize { get; }

    public static GrpcChannel ForAddress(string address, GrpcChannelOptions? options = null) =>
        ForAddress(new Uri(address, UriKind.Absolute), options);

    public static GrpcChannel ForAddress(Uri address, GrpcChannelOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(address);
        return new GrpcChannel(address, options ?? new GrpcChannelOptions());
    }

    /// <summary>
    /// The handler a channel creates for itself: HTTP/2 with several connections when one's stream
    /// limit is reached, keep-alive pings during calls, no proxy (h2c prior knowledge cannot cross one), no
    /// cookies, redirects or decompression. Create one to share it between channels.
    /// </summary>
    public static SocketsHttpHandler CreateHttpHandler(GrpcChannelOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new SocketsHttpHandler
        {
            EnableMultipleHttp2Connections = true,
            KeepAlivePingDelay = options.KeepAlivePingDelay,
            KeepAlivePingTimeout = options.KeepAlivePingTimeout,
            // Pinging idle connections makes grpc-go and grpc-core servers answer GOAWAY
            // ENHANCE_YOUR_CALM; pings while calls are open are what detects a dead peer mid-call.
            KeepAlivePingPolicy = HttpKeepAlivePingPolicy.WithActiveRequests,
            PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
            UseProxy = false,
            UseCookies = false,
            AllowAutoRedirect = false,
            AutomaticDecompression = System.Net.DecompressionMethods.None,
        };
    }

    public AsyncUnaryCall<TResponse> UnaryAsync<TRequest, TResponse>(Method<TRequest, TResponse> method, TRequest request, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse>
    {
        ArgumentNullException.ThrowIfNull(request);
        var call = new GrpcCall<TRequest, TResponse>(this, method, options);
        return new AsyncUnaryCall<TResponse>(call.StartUnary(request), call);
    }

    public AsyncServerStreamingCall<TResponse> ServerStreaming<TRequest, TResponse>(Method<TRequest, TResponse> method, TRequest request, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse>
    {
        ArgumentNullException.ThrowIfNull(request);
        var call = new GrpcCall<TRequest, TResponse>(this, method, options);
        call.StartServerStreaming(request);
        return new AsyncServerStreamingCall<TResponse>(new ClientResponseStream<TRequest, TResponse>(call), call);
    }

    public AsyncClientStreamingCall<TRequest, TResponse> ClientStreaming<TRequest, TResponse>(Method<TRequest, TResponse> method, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse>
    {
        var call = new GrpcCall<TRequest, TResponse>(this, method, options);
        var response = call.StartClientStreaming(out var content);
        return new AsyncClientStreamingCall<TRequest, TResponse>(new ClientRequestStream<TRequest, TResponse>(call, content), response, call);
    }

    public AsyncDuplexStreamingCall<TRequest, TResponse> DuplexStreaming<TRequest, TResponse>(Method<TRequest, TResponse> method, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>
        where TResponse : class, IMessage<TResponse>
    {
        var call = new GrpcCall<TRequest, TResponse>(this, method, options);
        call.StartDuplexStreaming(out var content);
        return new AsyncDuplexStreamingCall<TRequest, TResponse>(
            new ClientRequestStream<TRequest, TResponse>(call, content), new ClientResponseStream<TRequest, TResponse>(call), call);
    }

    /// <summary>A unary call by path (<c>/package.Service/Method</c>), for code without a <see cref="Method{TRequest, TResponse}"/>.</summary>
    public AsyncUnaryCall<TResponse> UnaryAsync<TRequest, TResponse>(string path, TRequest request, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>, new()
        where TResponse : class, IMessage<TResponse>, new() =>
        UnaryAsync(MethodForPath<TRequest, TResponse>(path, MethodType.Unary), request, options);

    public AsyncServerStreamingCall<TResponse> ServerStreaming<TRequest, TResponse>(string path, TRequest request, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>, new()
        where TResponse : class, IMessage<TResponse>, new() =>
        ServerStreaming(MethodForPath<TRequest, TResponse>(path, MethodType.ServerStreaming), request, options);

    public AsyncClientStreamingCall<TRequest, TResponse> ClientStreaming<TRequest, TResponse>(string path, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>, new()
        where TResponse : class, IMessage<TResponse>, new() =>
        ClientStreaming(MethodForPath<TRequest, TResponse>(path, MethodType.ClientStreaming), options);

    public AsyncDuplexStreamingCall<TRequest, TResponse> DuplexStreaming<TRequest, TResponse>(string path, CallOptions options = default)
        where TRequest : class, IMessage<TRequest>, new()
        where TResponse : class, IMessage<TResponse>, new() =>
        DuplexStreaming(MethodForPath<TRequest, TResponse>(path, MethodType.DuplexStreaming), options);

    public void Dispose() => Invoker.Dispose();

    internal Uri GetRequestUri(string path) =>
        _uris.GetOrAdd(path, static (p, address) => new Uri(address.AbsoluteUri.TrimEnd('/') + p, UriKind.Absolute), Address);

    private Method<TRequest, TResponse> MethodForPath<TRequest, TResponse>(string path, MethodType type)
        where TRequest : class, IMessage<TRequest>, new()
        where TResponse : class, IMessage<TResponse>, new()
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (_pathMethods.TryGetValue(path, out var cached) && cached is Method<TRequest, TResponse> method && method.Type == type)
        {
            return method;
        }

        var trimmed = path.TrimStart('/');
        var slash = trimmed.IndexOf('/', StringComparison.Ordinal);
        if (slash <= 0 || slash == trimmed.Length - 1)
        {
            throw new ArgumentException($"Path '{path}' is not of the form /package.Service/Method.", nameof(path));
        }

        method = new Method<TRequest, TResponse>(type, trimmed[..slash], trimmed[(slash + 1)..], ParserCache<TRequest>.Parser, ParserCache<TResponse>.Parser);
        _pathMethods[path] = method;
        return method;
    }

    private static class ParserCache<T>
        where T : class, IMessage<T>, new()
    {
        public static readonly MessageParser<T> Parser = new(() => new T());
    }
}
