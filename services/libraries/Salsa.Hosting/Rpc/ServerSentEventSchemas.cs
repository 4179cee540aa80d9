using System.Text.Json.Nodes;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Salsa.Hosting.Rpc;

/// <summary>The events a server-sent-event stream sends: each event's name and the type of its data.</summary>
public sealed class ServerSentEventsMetadata(params (string Event, Type Data)[] events)
{
    public IReadOnlyList<(string Event, Type Data)> Events { get; } = events;
}

/// <summary>
/// Describes a <c>text/event-stream</c> response by what is sent: each event's <c>data</c> is one of
/// the schemas its <see cref="ServerSentEventsMetadata"/> names, and <c>x-sse-events</c> maps every
/// event name to its data's schema. (Without it the document shows ASP.NET Core's
/// <c>SseItem&lt;object&gt;</c> — an object with data, eventType, eventId — which no event matches:
/// the wire carries <c>event:</c> and <c>data:</c> lines, the data being JSON.)
/// </summary>
internal sealed class ServerSentEventSchemas : IOpenApiOperationTransformer
{
    public const string EventsExtension = "x-sse-events";

    public async Task TransformAsync(OpenApiOperation operation, OpenApiOperationTransformerContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(operation);
        ArgumentNullException.ThrowIfNull(context);
        var events = context.Description.ActionDescriptor.EndpointMetadata.OfType<ServerSentEventsMetadata>().FirstOrDefault();
        if (events is null || context.Document is not { } document || operation.Responses?.TryGetValue("200", out var ok) != true
            || ok!.Content?.TryGetValue("text/event-stream", out var media) != true || media is null)
        {
            return;
        }

        var map = new JsonObject();
        var schemas = new List<IOpenApiSchema>();
        foreach (var (name, type) in events.Events)
        {
            var id = type.Name;
            if (document.Components?.Schemas?.ContainsKey(id) != true)
            {
                document.AddComponent(id, await context.GetOrCreateSchemaAsync(type, null, cancellationToken).ConfigureAwait(false));
            }

            schemas.Add(new OpenApiSchemaReference(id, document));
            map[name] = $"#/components/schemas/{id}";
        }

        media.Schema = new OpenApiSchema
        {
            Description = "Server-sent events, each an `event:` line naming it and a `data:` line of JSON: "
                + string.Join("; ", events.Events.Select(e => $"`{e.Event}` with a {e.Data.Name}")) + $" ({EventsExtension} maps the names to the schemas).",
            OneOf = schemas,
        };
        media.Extensions ??= new Dictionary<string, IOpenApiExtension>();
        media.Extensions[EventsExtension] = new JsonNodeExtension(map);
    }
}
