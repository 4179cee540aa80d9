using System.Diagnostics;
using System.Globalization;
using Google.Protobuf;
using Salsa.Grpc;

namespace Salsa.Gateway.Hops;

/// <summary>
/// One gateway → service call: the client-observed latency, the service's own time from its
/// <c>server-timing</c> trailer (time in the service, and a job's queue and compute time when the
/// call reports on a job), the rest (network + serialisation), and the bytes each way.
/// </summary>
public sealed record Hop(
    string Service,
    string Operation,
    DateTimeOffset Start,
    double LatencyMs,
    double? ServerMs,
    double? QueueMs,
    double? ComputeMs,
    long RequestBytes,
    long ResponseBytes,
    int Retries,
    string Outcome)
{
    /// <summary>Latency minus the service's own time: the network, HTTP/2 and (de)serialisation.</summary>
    public double? NetworkMs => ServerMs is { } server ? Math.Max(0, LatencyMs - server) : null;
}

/// <summary>Records every hop of a run; thread-safe (steps may run concurrently).</summary>
public sealed class HopRecorder
{
    private readonly List<Hop> _hops = [];

    public IReadOnlyList<Hop> Hops
    {
        get
        {
            lock (_hops)
            {
                return [.. _hops];
            }
        }
    }

    /// <summary>Makes a unary call and records it as a hop.</summary>
    public async Task<TResponse> CallAsync<TRequest, TResponse>(string service, string operation, TRequest request,
        Func<TRequest, CallOptions, AsyncUnaryCall<TResponse>> call, CancellationToken cancellationToken)
        where TRequest : IMessage
        where TResponse : IMessage
    {
        ArgumentNullException.ThrowIfNull(call);
        var start = DateTimeOffset.UtcNow;
        var clock = Stopwatch.GetTimestamp();
        using var pending = call(request, new CallOptions(CancellationToken: cancellationToken));
        try
        {
            var response = await pending.ResponseAsync.ConfigureAwait(false);
            Add(service, operation, start, clock, request.CalculateSize(), response.CalculateSize(), pending.GetTrailers(), "ok");
            return response;
        }
        catch (RpcException exception)
        {
            Add(service, operation, start, clock, request.CalculateSize(), 0, exception.Trailers, exception.StatusCode.ToString());
            throw;
        }
    }

    /// <summary>Records a hop measured by the caller (e.g. a server stream).</summary>
    public void Add(Hop hop)
    {
        lock (_hops)
        {
            _hops.Add(hop);
        }
    }

    private void Add(string service, string operation, DateTimeOffset start, long clock, long requestBytes, long responseBytes, Metadata? trailers, string outcome)
    {
        var latency = Stopwatch.GetElapsedTime(clock).TotalMilliseconds;
        var timing = ParseServerTiming(trailers?.GetValue("server-timing"));
        Add(new Hop(service, operation, start, latency, timing.GetValueOrDefault("app"), Get(timing, "queue"), Get(timing, "compute"),
            requestBytes, responseBytes, 0, outcome));
    }

    private static double? Get(Dictionary<string, double> timing, string name) => timing.TryGetValue(name, out var v) ? v : null;

    /// <summary>Parses <c>queue;dur=1.2, compute;dur=840.5, app;dur=3.1</c> into name → ms.</summary>
    public static Dictionary<string, double> ParseServerTiming(string? header)
    {
        var entries = new Dictionary<string, double>(StringComparer.Ordinal);
        foreach (var part in (header ?? "").Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var fields = part.Split(';', StringSplitOptions.TrimEntries);
            var duration = fields.Skip(1).FirstOrDefault(f => f.StartsWith("dur=", StringComparison.Ordinal));
            if (duration is not null && double.TryParse(duration[4..], NumberStyles.Float, CultureInfo.InvariantCulture, out var ms))
            {
                entries[fields[0]] = ms;
            }
        }

        return entries;
    }
}
