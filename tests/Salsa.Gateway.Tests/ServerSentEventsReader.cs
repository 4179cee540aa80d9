using System.Runtime.CompilerServices;
using System.Text.Json;

namespace Salsa.Gateway.Tests;

/// <summary>A gateway's server-sent events as a client reads them: (event name, JSON data) in order, until the stream ends.</summary>
internal static class ServerSentEventsReader
{
    public static IAsyncEnumerable<(string Name, JsonElement Data)> ReadAsync(HttpClient http, string path, CancellationToken cancellationToken) =>
        ReadAsync(http, new HttpRequestMessage(HttpMethod.Get, path), cancellationToken);

    /// <summary>The events that answer <paramref name="request"/> (e.g. a run's start asked for its events).</summary>
    public static async IAsyncEnumerable<(string Name, JsonElement Data)> ReadAsync(HttpClient http, HttpRequestMessage request, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var sent = request;
        using var response = await http.SendAsync(sent, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        response.EnsureSuccessStatusCode();
        Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(cancellationToken));
        var name = "message";
        while (await reader.ReadLineAsync(cancellationToken) is { } line)
        {
            if (line.StartsWith("event: ", StringComparison.Ordinal))
            {
                name = line["event: ".Length..];
            }
            else if (line.StartsWith("data: ", StringComparison.Ordinal))
            {
                yield return (name, JsonDocument.Parse(line["data: ".Length..]).RootElement.Clone());
            }
            else if (line.Length == 0)
            {
                name = "message";
            }
        }
    }
}
