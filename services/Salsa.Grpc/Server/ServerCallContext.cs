using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

/// <summary>The server side of one call, passed to every service method.</summary>
public sealed class ServerCallContext
{
    // Design: one call's flow writes and reads everything here (the handler, the service method it
    // awaits, the observers before and after). The deadline timer and Kestrel's abort run
    // concurrently, but they only cancel the token this context hands out; nothing they touch is
    // state of this class, so no field needs a lock and nothing can wait on anything else.
    private readonly ServerMethod _method;
    private readonly bool _hasDeadline;
    private Metadata? _requestHeaders;
    private Metadata? _responseTrailers;
    private Dictionary<object, object?>? _userState;
    private string? _peer;

    internal ServerCallContext(HttpContext httpContext, ServerMethod method, DateTime deadline, bool hasDeadline, CancellationToken cancellationToken)
    {
        HttpContext = httpContext;
        _method = method;
        Deadline = deadline;
        CancellationToken = cancellationToken;
        _hasDeadline = hasDeadline;
        StartTimestamp = Stopwatch.GetTimestamp();
    }

    /// <summary>The call's path, <c>/package.Service/Method</c>.</summary>
    public string Method => _method.FullName;

    public string ServiceName => _method.ServiceName;

    public string MethodName => _method.Name;

    public string Host => HttpContext.Request.Host.Value ?? "";

    /// <summary>The caller's address in gRPC's form, e.g. <c>ipv4:127.0.0.1:50312</c>.</summary>
    public string Peer => _peer ??= FormatPeer(HttpContext.Connection.RemoteIpAddress, HttpContext.Connection.RemotePort);

    /// <summary>When the caller stops waiting (UTC), from grpc-timeout; <see cref="DateTime.MaxValue"/> when none was sent.</summary>
    public DateTime Deadline { get; }

    /// <summary>Cancelled when the deadline passes or the caller cancels (RST_STREAM) or disconnects.</summary>
    public CancellationToken CancellationToken { get; }

    /// <summary>The caller's custom metadata (reserved protocol headers left out; -bin values decoded).</summary>
    public Metadata RequestHeaders => _requestHeaders ??= MetadataHeaders.ReadFrom(HttpContext.Request.Headers);

    /// <summary>Custom trailers sent with the status.</summary>
    public Metadata ResponseTrailers => _responseTrailers ??= [];

    /// <summary>The status sent when the method returns normally; OK unless the method sets another.</summary>
    public Status Status { get; set; }

    /// <summary>The ASP.NET Core request under the call, for what gRPC has no words for (connection, features, user).</summary>
    public HttpContext HttpContext { get; }

    /// <summary><see cref="Stopwatch.GetTimestamp"/> when the call was dispatched to gRPC, for timing observers.</summary>
    public long StartTimestamp { get; }

    /// <summary>Per-call state for observers and services.</summary>
    public IDictionary<object, object?> UserState => _userState ??= [];

    internal Metadata? ResponseTrailersOrNull => _responseTrailers;

    /// <summary>True once headers or a message went out: the status must then travel as trailers.</summary>
    internal bool ResponseStarted { get; set; }

    /// <summary>The deadline cancelled the call (rather than the caller going away).</summary>
    internal bool DeadlineReached => _hasDeadline && CancellationToken.IsCancellationRequested && !HttpContext.RequestAborted.IsCancellationRequested;

    /// <summary>Sends response headers now, before any message; allowed once, and only before the first message.</summary>
    public Task WriteResponseHeadersAsync(Metadata responseHeaders)
    {
        ArgumentNullException.ThrowIfNull(responseHeaders);
        if (ResponseStarted || HttpContext.Response.HasStarted)
        {
            throw new InvalidOperationException("Response headers can only be sent once per call, before the first message.");
        }

        MetadataHeaders.WriteTo(HttpContext.Response.Headers, responseHeaders);
        ResponseStarted = true;
        return HttpContext.Response.BodyWriter.FlushAsync(CancellationToken).AsTask();
    }

    private static string FormatPeer(IPAddress? address, int port) => address switch
    {
        null => "unknown",
        { AddressFamily: AddressFamily.InterNetworkV6 } when address.IsIPv4MappedToIPv6 => $"ipv4:{address.MapToIPv4()}:{port}",
        { AddressFamily: AddressFamily.InterNetworkV6 } => $"ipv6:[{address}]:{port}",
        _ => $"ipv4:{address}:{port}",
    };
}
