using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Hosting.Rpc;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// The event stream of a job's and a run's events: what it writes reads back through .NET's own
/// SSE parser as the events given (types, ids, retry, JSON data on one line, text a line each);
/// events that are ready together leave in one flush; and an event that is not ready yet never
/// holds back those before it.
/// </summary>
public sealed class EventStreamResultTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private sealed record Point(string Name, double[] Coordinates, string? Note);

    [Fact]
    public async Task EventsReadyTogether_LeaveInOneFlush_AndReadBackAsGiven()
    {
        SseItem<object>[] sent =
        [
            new(new Point("a \"quoted\"\nname", [1.5, -2], null), "point") { EventId = "7" },
            new("two\nlines", "text") { ReconnectionInterval = TimeSpan.FromSeconds(3) },
            new(new Point("é — ünïcode", [], "note"), "point"),
            new(42, null),
        ];

        var (body, flushes) = await ExecuteAsync(sent.ToAsyncEnumerable(), indented: true);

        Assert.Equal(1, flushes.Count(length => length > 0)); // all four, in the response's one send
        var received = await ParseAsync(body);
        Assert.Equal(sent.Length, received.Count);
        Assert.Equal(["point", "text", "point", "message"], received.Select(r => r.EventType));
        Assert.Equal(new string?[] { "7", null, null, null }, received.Select(r => r.EventId));
        Assert.Equal(TimeSpan.FromSeconds(3), received[1].ReconnectionInterval);
        Assert.Equal("two\nlines", received[1].Data);
        var web = new JsonSerializerOptions(JsonSerializerDefaults.Web);
        Assert.Equal(sent[0].Data, JsonSerializer.Deserialize<Point>(received[0].Data, web), PointComparer.Instance);
        Assert.Equal(sent[2].Data, JsonSerializer.Deserialize<Point>(received[2].Data, web), PointComparer.Instance);
        Assert.Equal("42", received[3].Data);

        // Indented options still give one data line per event: a line break would split the JSON.
        Assert.Equal(5, Encoding.UTF8.GetString(body).Split('\n').Count(line => line.StartsWith("data: ", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task AnEventNotReady_DoesNotHoldBackThoseBefore()
    {
        var second = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var stream = new RecordingStream();
        var writing = ExecuteAsync(Slow(second.Task), stream);

        // The first two are sent while the third is awaited; they came together, so in one flush.
        var before = await stream.Flushed.Task.WaitAsync(TimeSpan.FromSeconds(30), Token);
        var early = await ParseAsync(before);
        Assert.Equal(["1", "2"], early.Select(e => e.Data));
        Assert.False(writing.IsCompleted);

        second.SetResult();
        await writing.WaitAsync(TimeSpan.FromSeconds(30), Token);
        Assert.Equal(["1", "2", "3"], (await ParseAsync(stream.ToArray())).Select(e => e.Data));

        static async IAsyncEnumerable<SseItem<object>> Slow(Task gate)
        {
            yield return new SseItem<object>(1, "n");
            yield return new SseItem<object>(2, "n");
            await gate;
            yield return new SseItem<object>(3, "n");
        }
    }

    [Fact]
    public async Task TheCallerLeaving_EndsTheStream_AndReleasesTheSource()
    {
        var released = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var aborted = new CancellationTokenSource();
        var stream = new RecordingStream();
        var writing = ExecuteAsync(Endless(released), stream, aborted: aborted.Token);

        await stream.Flushed.Task.WaitAsync(TimeSpan.FromSeconds(30), Token);
        await aborted.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => writing);
        await released.Task.WaitAsync(TimeSpan.FromSeconds(30), Token);

        static async IAsyncEnumerable<SseItem<object>> Endless(TaskCompletionSource released, [EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            try
            {
                yield return new SseItem<object>("ready", "ready");
                await Task.Delay(Timeout.Infinite, cancellationToken);
            }
            finally
            {
                released.SetResult();
            }
        }
    }

    private static async Task<(byte[] Body, IReadOnlyList<long> Flushes)> ExecuteAsync(IAsyncEnumerable<SseItem<object>> events, bool indented)
    {
        var stream = new RecordingStream();
        await ExecuteAsync(events, stream, indented);
        return (stream.ToArray(), stream.Flushes);
    }

    /// <summary>Runs the result on a request whose body is <paramref name="stream"/>, then ends the response as the server does.</summary>
    private static async Task ExecuteAsync(IAsyncEnumerable<SseItem<object>> events, RecordingStream stream, bool indented = false, CancellationToken aborted = default)
    {
        var services = new ServiceCollection();
        services.Configure<JsonOptions>(options => options.SerializerOptions.WriteIndented = indented);
        await using var provider = services.BuildServiceProvider();
        var context = new DefaultHttpContext { RequestServices = provider, RequestAborted = aborted };
        context.Response.Body = stream;

        await new EventStreamResult(events).ExecuteAsync(context);
        Assert.Equal("text/event-stream", context.Response.ContentType);
        await context.Response.CompleteAsync();
    }

    private static async Task<List<SseItem<string>>> ParseAsync(byte[] body)
    {
        var items = new List<SseItem<string>>();
        await foreach (var item in SseParser.Create(new MemoryStream(body)).EnumerateAsync(Token))
        {
            items.Add(item);
        }

        return items;
    }

    /// <summary>A response body that notes its length at every flush, and hands the first non-empty flush's bytes to a waiter.</summary>
    private sealed class RecordingStream : MemoryStream
    {
        private readonly List<long> _flushes = [];
        private long _flushed;

        public TaskCompletionSource<byte[]> Flushed { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public IReadOnlyList<long> Flushes
        {
            get
            {
                lock (_flushes)
                {
                    return [.. _flushes];
                }
            }
        }

        public override Task FlushAsync(CancellationToken cancellationToken)
        {
            lock (_flushes)
            {
                _flushes.Add(Length - _flushed);
                _flushed = Length;
            }

            if (Length > 0)
            {
                Flushed.TrySetResult(ToArray());
            }

            return Task.CompletedTask;
        }
    }

    private sealed class PointComparer : IEqualityComparer<object?>
    {
        public static readonly PointComparer Instance = new();

        public new bool Equals(object? x, object? y) =>
            x is Point a && y is Point b && a.Name == b.Name && a.Note == b.Note && a.Coordinates.SequenceEqual(b.Coordinates);

        public int GetHashCode(object? obj) => 0;
    }
}
