using System.Diagnostics;
using System.Globalization;
using Google.Protobuf;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace Salsa.Gateway.Hops;

/// <summary>
/// One gateway → service call: the client-observed latency, the service's own time from its
/// <c>server-timing</c> trailer (time in the service, and a job's queue and compute time when the
/// call reports on a job), the rest (network + serialisation), the bytes each way, the retries the
/// call needed (refusals with a retry hint) and how it ended.
/// </summary>
public sealed record Hop
{
    /// <summary>The run's step that made the call.</summary>
    public required string Step { get; init; }

    public required string Service { get; init; }

    /// <summary>The gRPC method (e.g. <c>Annealing.Start</c>, <c>Jobs.Watch</c>).</summary>
    public required string Operation { get; init; }

    public required DateTimeOffset Start { get; init; }

    /// <summary>What the gateway waited, every retry included.</summary>
    public required double LatencyMs { get; init; }

    /// <summary>The service's own time (<c>server-timing</c>'s <c>app</c>), when it said.</summary>
    public double? ServerMs { get; init; }

    /// <summary>A job's wait in the service's queue, when the call reports on a job.</summary>
    public double? QueueMs { get; init; }

    /// <summary>A job's compute, when the call reports on a job.</summary>
    public double? ComputeMs { get; init; }

    /// <summary>What a watched job's work used in its service (CPU time, allocations, cores, the process's peak memory), once it ended.</summary>
    public Salsa.Hosting.Jobs.JobResourcesView? Resources { get; init; }

    public long RequestBytes { get; init; }

    public long ResponseBytes { get; init; }

    /// <summary>Refusals waited out before the call went through (or failed).</summary>
    public int Retries { get; init; }

    /// <summary><c>ok</c>, the gRPC status of a failed call, or how a watched job ended.</summary>
    public required string Outcome { get; init; }

    /// <summary>Latency minus the service's own time: the network, HTTP/2 and (de)serialisation.</summary>
    public double? NetworkMs => ServerMs is { } server ? Math.Max(0, LatencyMs - server) : null;
}

/// <summary>A call the gateway has made and not yet seen end: the waterfall draws it growing.</summary>
public sealed record HopInFlight(string Step, string Service, string Operation, DateTimeOffset Start);

/// <summary>
/// Records the hops of one run; thread-safe (steps run concurrently). <see cref="Began"/> is raised
/// as a call starts and <see cref="Recorded"/> as its hop is recorded (live views, persistence).
/// </summary>
public sealed class HopRecorder(IEnumerable<Hop>? earlier = null)
{
    /// <summary>Refusals (RESOURCE_EXHAUSTED, UNAVAILABLE) a call waits out before it fails.</summary>
    public const int MaxCallRetries = 5;

    private readonly List<Hop> _hops = [.. earlier ?? []];
    private readonly List<HopInFlight> _inFlight = [];

    public event Action<Hop>? Recorded;

    public event Action<HopInFlight>? Began;

    /// <summary>The calls begun and not yet recorded.</summary>
    public IReadOnlyList<HopInFlight> InFlight
    {
        get
        {
            lock (_hops)
            {
                return [.. _inFlight];
            }
        }
    }

    /// <summary>A call begins: in flight until its hop is recorded or the returned scope ends (a call given up).</summary>
    public IDisposable Begin(string step, string service, string operation, DateTimeOffset start)
    {
        var call = new HopInFlight(step, service, operation, start);
        lock (_hops)
        {
            _inFlight.Add(call);
        }

        Began?.Invoke(call);
        return new Landing(this, call);
    }

    private void Land(HopInFlight call)
    {
        lock (_hops)
        {
            _inFlight.Remove(call);
        }
    }

    private sealed class Landing(HopRecorder recorder, HopInFlight call) : IDisposable
    {
        public void Dispose() => recorder.Land(call);
    }

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

    /// <summary>
    /// Makes a unary call and records it as one hop. A refusal with a retry hint (the service's job
    /// queue is full) or an unavailable service is retried after the hint (or a short backoff) up
    /// to <see cref="MaxCallRetries"/> times; the hop's latency then spans every attempt.
    /// </summary>
    public async Task<TResponse> CallAsync<TRequest, TResponse>(string step, string service, string operation, TRequest request,
        Func<TRequest, CallOptions, AsyncUnaryCall<TResponse>> call, CancellationToken cancellationToken)
        where TRequest : class
        where TResponse : class
    {
        ArgumentNullException.ThrowIfNull(call);
        var start = DateTimeOffset.UtcNow;
        var clock = Stopwatch.GetTimestamp();

        // The hop's span: the gRPC client span of each attempt is its child, the hop's numbers its attributes.
        using var span = HopTelemetry.Start(step, service, operation, start);
        using var flight = Begin(step, service, operation, start);
        for (var retries = 0; ; retries++)
        {
            using var pending = call(request, new CallOptions(cancellationToken: cancellationToken));
            try
            {
                var response = await pending.ResponseAsync.ConfigureAwait(false);
                Add(step, service, operation, start, clock, SizeOf(request), SizeOf(response), pending.GetTrailers(), retries, "ok", span);
                return response;
            }
            catch (RpcException exception) when (retries < MaxCallRetries && RetryDelay(exception) is { } delay && !cancellationToken.IsCancellationRequested)
            {
                span?.AddEvent(new ActivityEvent("retry", tags: new ActivityTagsCollection { ["rpc.grpc.status_code"] = (int)exception.StatusCode, ["salsa.hop.retry_after_ms"] = delay.TotalMilliseconds }));
                await Task.Delay(delay, cancellationToken).ConfigureAwait(false);
            }
            catch (RpcException exception)
            {
                Add(step, service, operation, start, clock, SizeOf(request), 0, exception.Trailers, retries, exception.StatusCode.ToString(), span);
                throw;
            }
        }
    }

    /// <summary>
    /// How long to wait before calling again, or null when the failure is not worth a retry: a full
    /// job queue says when to come back (RESOURCE_EXHAUSTED with <c>retry-after-ms</c>); a limit
    /// exceeded (RESOURCE_EXHAUSTED without it) will be exceeded again.
    /// </summary>
    internal static TimeSpan? RetryDelay(RpcException exception) => exception.StatusCode switch
    {
        StatusCode.ResourceExhausted when long.TryParse(exception.Trailers.GetValue("retry-after-ms"), NumberStyles.None, CultureInfo.InvariantCulture, out var ms)
            => TimeSpan.FromMilliseconds(Math.Clamp(ms, 10, 30_000)),
        StatusCode.Unavailable => TimeSpan.FromMilliseconds(500),
        _ => null,
    };

    private static long SizeOf(object message) => message is IMessage m ? m.CalculateSize() : 0;

    /// <summary>Records a hop measured by the caller (a server stream, a download), with its span after the fact.</summary>
    public void Add(Hop hop)
    {
        using (var span = HopTelemetry.Start(hop.Step, hop.Service, hop.Operation, hop.Start))
        {
            HopTelemetry.End(span, hop);
        }

        Keep(hop);
    }

    /// <summary>Every hop, however measured, ends here: in the run's table and in <c>salsa.hop.duration</c>.</summary>
    private void Keep(Hop hop)
    {
        Runs.GatewayMetrics.Hop(hop);
        lock (_hops)
        {
            _hops.Add(hop);
            _inFlight.Remove(new HopInFlight(hop.Step, hop.Service, hop.Operation, hop.Start)); // landed: one list or the other, never both
        }

        Recorded?.Invoke(hop);
    }

    private void Add(string step, string service, string operation, DateTimeOffset start, long clock, long requestBytes, long responseBytes, Metadata? trailers, int retries, string outcome, Activity? span)
    {
        var latency = Stopwatch.GetElapsedTime(clock).TotalMilliseconds;
        var timing = ParseServerTiming(trailers?.GetValue("server-timing"));
        var hop = new Hop
        {
            Step = step,
            Service = service,
            Operation = operation,
            Start = start,
            LatencyMs = latency,
            ServerMs = timing.GetValueOrDefault("app"),
            QueueMs = Get(timing, "queue"),
            ComputeMs = Get(timing, "compute"),
            RequestBytes = requestBytes,
            ResponseBytes = responseBytes,
            Retries = retries,
            Outcome = outcome,
        };
        HopTelemetry.End(span, hop);
        Keep(hop);
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

/// <summary>
/// A grpc-dotnet client interceptor that makes every unary call through it a hop of one step: an
/// operation calls its service through a typed client over this, and the hop is named by the
/// method the client called — no method name is written by hand.
/// </summary>
internal sealed class HopInterceptor(HopRecorder hops, string step, string service) : Interceptor
{
    public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(TRequest request, ClientInterceptorContext<TRequest, TResponse> context,
        Interceptor.AsyncUnaryCallContinuation<TRequest, TResponse> continuation)
    {
        AsyncUnaryCall<TResponse>? attempt = null;
        var response = hops.CallAsync(step, service, context.Method.Name, request, (r, options) =>
            attempt = continuation(r, new ClientInterceptorContext<TRequest, TResponse>(context.Method, context.Host, context.Options.WithCancellationToken(options.CancellationToken))),
            context.Options.CancellationToken);
        return new AsyncUnaryCall<TResponse>(
            response,
            response.ContinueWith(_ => attempt!.ResponseHeadersAsync, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default).Unwrap(),
            () => attempt!.GetStatus(),
            () => attempt!.GetTrailers(),
            () => attempt?.Dispose());
    }
}
