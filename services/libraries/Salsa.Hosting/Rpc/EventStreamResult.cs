using System.Buffers;
using System.Globalization;
using System.IO.Pipelines;
using System.Net.ServerSentEvents;
using System.Reflection;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// A <c>text/event-stream</c> response that sends together the events that come together: each
/// event is written to the response as soon as it is produced, and the response is flushed only
/// when the next event is not ready (and when the stream ends, with the response's end). Each
/// event's data is the item's JSON (the app's <see cref="JsonOptions"/>, on one line; a string is
/// sent as it is, a line each). The wire format is that of ASP.NET Core's
/// <c>TypedResults.ServerSentEvents</c>, which flushes after every event: a run's last events
/// (its step, its hop, its end) come within microseconds of each other, and each flush is a
/// send the caller has to wake for.
/// </summary>
/// <param name="events">What the stream sends.</param>
/// <param name="slot">The stream's slot among the process's (<see cref="StreamSlots"/>), when the
/// endpoint took it before doing work of its own; otherwise one is taken here, before the response
/// starts, and a stream past a limit is a 429.</param>
public sealed class EventStreamResult(IAsyncEnumerable<SseItem<object>> events, IDisposable? slot = null) : IResult, IEndpointMetadataProvider, IStatusCodeHttpResult
{
    public int? StatusCode => StatusCodes.Status200OK;

    public async Task ExecuteAsync(HttpContext httpContext)
    {
        ArgumentNullException.ThrowIfNull(httpContext);
        using var held = slot ?? httpContext.RequestServices.GetService<StreamSlots>()?.Acquire(httpContext);
        httpContext.Response.ContentType = "text/event-stream";
        var options = (httpContext.RequestServices.GetService<IOptions<JsonOptions>>()?.Value ?? new JsonOptions()).SerializerOptions;
        var body = httpContext.Response.BodyWriter;
        var cancellationToken = httpContext.RequestAborted;

        // One line of JSON whatever the options say: a line break would end the data field.
        using var json = new Utf8JsonWriter(body, new JsonWriterOptions { Encoder = options.Encoder, Indented = false });
        var items = events.GetAsyncEnumerator(cancellationToken);
        await using (items.ConfigureAwait(false))
        {
            var next = items.MoveNextAsync();
            while (true)
            {
                if (!next.IsCompleted)
                {
                    // The next event is not here yet: send what is written before waiting for it.
                    await body.FlushAsync(cancellationToken).ConfigureAwait(false);
                }

                if (!await next.ConfigureAwait(false))
                {
                    break; // the response's end sends what is left, with the end of its body
                }

                Write(body, json, items.Current, options);
                next = items.MoveNextAsync();
            }
        }
    }

    private static void Write(PipeWriter body, Utf8JsonWriter json, SseItem<object> item, JsonSerializerOptions options)
    {
        // SseItem refuses an event type or id with a line break, so these are one line each.
        if (item.EventType is { } type)
        {
            Field(body, "event: "u8, type);
        }

        if (item.EventId is { } id)
        {
            Field(body, "id: "u8, id);
        }

        if (item.ReconnectionInterval is { } retry)
        {
            Field(body, "retry: "u8, ((long)retry.TotalMilliseconds).ToString(CultureInfo.InvariantCulture));
        }

        if (item.Data is string text)
        {
            foreach (var line in text.AsSpan().EnumerateLines())
            {
                Field(body, "data: "u8, line);
            }
        }
        else
        {
            body.Write("data: "u8);
            json.Reset(body);
            JsonSerializer.Serialize(json, item.Data, item.Data?.GetType() ?? typeof(object), options);
            json.Flush();
            body.Write("\n"u8);
        }

        body.Write("\n"u8);
    }

    private static void Field(PipeWriter body, ReadOnlySpan<byte> name, ReadOnlySpan<char> value)
    {
        body.Write(name);
        var span = body.GetSpan(Encoding.UTF8.GetMaxByteCount(value.Length) + 1);
        var length = Encoding.UTF8.GetBytes(value, span);
        span[length] = (byte)'\n';
        body.Advance(length + 1);
    }

    static void IEndpointMetadataProvider.PopulateMetadata(MethodInfo method, EndpointBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status200OK, typeof(SseItem<object>), ["text/event-stream"]));
    }
}
